"""The roll-forward journal that makes a build's changes to `out` all or nothing.

A build first stages each new file in `out/.toolgen-pending/` (one file per target, named by
its number), then commits by renaming `journal.json.part` there to `journal.json`: the list of
renames (the manifest last) and removals. Only then does it change anything in `out`: the
renames, then the removals; last, it deletes the journal and the folder. So, whenever the
process is killed (SIGKILL, a power cut aside: nothing is synced to disk):

- before the commit, every file toolgen manages in `out` is as the last build left it; the
  pending folder (hidden, and ignored by git) is discarded by the next build;
- after it, the journal says what is left to do: `check`, `serve` and the run time report the
  last build as interrupted, and the next `build` completes it before anything else. Each step
  can be done again: a rename whose staged file is gone was done, and a removal is checked
  again by `toolgen.removal`'s rule.

A journal is read as untrusted data (the folder could be checked in by mistake, or on
purpose): it only ever moves its own staged files onto paths toolgen produces, and removes
only what the removal rule allows.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from toolgen.layout import JOURNAL, PENDING
from toolgen.read.files import open_regular
from toolgen.removal import plain, produced, verdict
from toolgen.render.registry import folders

PARTIAL = "journal.json.part"
FORMAT = 1
#: What the pending folder holds besides the staged files: it keeps itself out of git.
IGNORE = (".gitignore", "*\n")
_STAGED = re.compile(r"[0-9]{1,9}")


class JournalError(Exception):
    """The journal's work cannot be done: `path` (under `out`) and why. A committed build
    stays, for the next build to finish (`interrupted`)."""

    def __init__(self, path: Path, reason: str, interrupted: bool = True) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason, self.interrupted = path, reason, interrupted


@dataclass
class Journal:
    """What a committed build does to `out`: `moves` (staged file name, path under `out`),
    the manifest last, then `removals` (path, the manifest's sha256)."""

    moves: list[tuple[str, str]] = field(default_factory=list)
    removals: list[tuple[str, str]] = field(default_factory=list)

    def dumps(self) -> bytes:
        return json.dumps(
            {"toolgen_journal": FORMAT, "moves": self.moves, "removals": self.removals}
        ).encode()

    @classmethod
    def loads(cls, data: bytes) -> Journal | None:
        """The journal in `data`, or None when it is not one this version wrote."""
        try:
            raw = json.loads(data)
            assert raw["toolgen_journal"] == FORMAT
            moves = [(str(a), str(b)) for a, b in raw["moves"]]
            removals = [(str(a), str(b)) for a, b in raw["removals"]]
        except (ValueError, KeyError, TypeError, AssertionError, RecursionError):
            return None
        return cls(moves, removals)


def pending_folder(out: Path) -> Path:
    return out / PENDING


def state(out: Path) -> str:
    """ "committed" (a build was stopped after its commit: `out` may be half changed),
    "staged" (stopped before it, or while cleaning up: `out` is whole), or "" (none)."""
    folder = f"{out}/{PENDING}"
    try:
        st = os.lstat(folder)
    except OSError:
        return ""
    if not stat.S_ISDIR(st.st_mode):
        return "staged"  # not a folder of ours; `toolgen.removal.symlinks_in` refuses a link
    return "committed" if os.path.lexists(f"{folder}/{JOURNAL}") else "staged"


@dataclass
class Applied:
    """What applying a journal did: files renamed into place and files removed."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def stage(
    out: Path,
    files: Iterable[tuple[str, Callable[[Path], None]]],
    removals: list[tuple[str, str]],
) -> Journal:
    """Stage each (path under `out`, writer) and commit the journal: a writer writes the
    file's bytes to the path it is given. On any failure the staging is discarded and the
    error raised again, with `out` as it was."""
    folder = pending_folder(out)
    made_out = not out.exists()
    journal = Journal(removals=removals)
    try:
        folder.mkdir(parents=True)
        (folder / IGNORE[0]).write_text(IGNORE[1], encoding="utf-8")
        for number, (relpath, write) in enumerate(files):
            write(folder / str(number))
            journal.moves.append((str(number), relpath))
        partial = folder / PARTIAL
        partial.write_bytes(journal.dumps())
        partial.replace(folder / JOURNAL)  # the commit
    except BaseException:
        discard(out)
        if made_out:
            with contextlib.suppress(OSError):
                out.rmdir()
        raise
    return journal


def apply(
    out: Path,
    journal: Journal,
    before: Callable[[Path], None] | None = None,
    after: Callable[[str], None] | None = None,
) -> Applied:
    """Do what the committed `journal` says, then remove it and the pending folder. `before`
    is called with each file about to be replaced, `after` with each path renamed into place.
    JournalError when a rename fails (the journal stays, for the next build)."""
    folder = pending_folder(out)
    done = Applied()
    ready: set[str] = set()  # the folders found or made for an earlier file
    for staged, relpath in journal.moves:
        source = folder / staged
        if not _STAGED.fullmatch(staged) or not plain(relpath) or not produced(relpath):
            continue  # not a journal this toolgen wrote: its entry is not followed
        if not os.path.lexists(source):
            continue  # moved before the last build was stopped
        target = out / relpath
        try:
            _make_folders(out, relpath, ready)
            if before is not None:
                before(target)
            source.replace(target)
        except OSError as exc:
            raise JournalError(target, exc.strerror or str(exc)) from None
        done.written.append(relpath)
        if after is not None:
            after(relpath)
    emptied: set[Path] = set()
    for relpath, sha in journal.removals:
        if verdict(out, relpath, sha) is None:
            try:
                (out / relpath).unlink()
                done.removed.append(relpath)
                emptied.update((out / relpath).parents)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise JournalError(out / relpath, exc.strerror or str(exc)) from None
    # drop the folders a platform (or a catalog) no longer uses, deepest first
    below = {place for place in emptied if place.is_relative_to(out) and place != out}
    for place in sorted(below | {out / name for name in folders()}, key=lambda f: -len(f.parts)):
        with contextlib.suppress(OSError):  # not there, not empty, or not a folder
            place.rmdir()
    (folder / JOURNAL).unlink()  # done: what follows only tidies up
    discard(out)
    return done


def _make_folders(out: Path, relpath: str, ready: set[str]) -> None:
    """The folders `relpath` needs below `out`: made where missing; a symlink or a file in
    the way is an error (`toolgen.removal.symlinks_in` refused symlinks before the commit).
    `ready` holds the folders (relative to `out`) found or made before: not looked at again."""
    parent = relpath.rpartition("/")[0]
    if not parent or parent in ready:
        return
    path = out
    for part in parent.split("/"):
        path = path / part
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            path.mkdir()
            continue
        if not stat.S_ISDIR(mode):
            what = "a symlink" if stat.S_ISLNK(mode) else "a file"
            raise OSError(0, f"{path} is {what}, not a folder")
    ready.add(parent)


def recover(
    out: Path,
    before: Callable[[Path], None] | None = None,
    after: Callable[[str], None] | None = None,
) -> Applied | None:
    """Finish a committed build that was stopped (what it did), or discard a staged one
    (None). Call it holding the build lock."""
    found = state(out)
    if not found:
        return None
    if found == "staged":
        discard(out)
        return None
    path = pending_folder(out) / JOURNAL
    try:  # a regular file, not through a symlink, to a cap: a FIFO would hang, /dev/zero flood
        handle, st = open_regular(str(path), os.O_NOFOLLOW)
        with handle:
            if st.st_size > MAX_JOURNAL:
                raise OSError(errno.EFBIG, f"it has {st.st_size:,} bytes, more than a journal")
            data = handle.read(MAX_JOURNAL + 1)
    except OSError as exc:
        raise JournalError(path, _why(exc)) from None
    journal = Journal.loads(data) if len(data) <= MAX_JOURNAL else None
    if journal is None:
        raise JournalError(
            pending_folder(out) / JOURNAL,
            "is not a journal this version of toolgen wrote; delete the folder and build again",
        )
    return apply(out, journal, before, after)


def discard(out: Path) -> None:
    """Remove the pending folder: its staged files, its journal and its `.gitignore`. A
    folder that holds anything else is left as it is (JournalError): it is not all ours;
    so is one that is a symlink (never followed: what it leads to is not ours either), and
    one whose files cannot be removed (JournalError, naming the file)."""
    folder = pending_folder(out)
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise JournalError(folder, _why(exc), interrupted=False) from None
    ours = (JOURNAL, PARTIAL, IGNORE[0])
    foreign = []
    name = ""
    try:
        with os.scandir(fd) as entries:
            names = sorted(entry.name for entry in entries)
        for name in names:
            if (name in ours or _STAGED.fullmatch(name)) and not _is_folder(fd, name):
                os.unlink(name, dir_fd=fd)  # a symlink is removed, never followed
            else:
                foreign.append(name)
    except OSError as exc:
        raise JournalError(folder / name, _why(exc), interrupted=False) from None
    finally:
        os.close(fd)
    if foreign:
        why = f"holds {foreign[0]!r}, which toolgen did not put there; move it elsewhere"
        raise JournalError(folder, why, interrupted=False)
    try:
        folder.rmdir()
    except OSError as exc:
        raise JournalError(folder, _why(exc), interrupted=False) from None


def _is_folder(fd: int, name: str) -> bool:
    return stat.S_ISDIR(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)


def _why(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:  # what O_NOFOLLOW says of a symlink
        return "it is a symlink, which toolgen never writes or follows there"
    return str(exc.strerror or exc)


#: No journal is read past this many bytes (one of 10,000 files takes about 600 KB).
MAX_JOURNAL = 64 << 20


def interrupted_message(shown_out: str, command: str = "toolgen build") -> str:
    """What commands that read `out` say when a committed build was stopped."""
    return (
        f"the last build of {shown_out} was interrupted before it was complete; "
        f"run `{command}` to complete it"
    )
