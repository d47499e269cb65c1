"""Writing and checking `generated/`: the only module that changes output files.

`compare` says how the files on disk differ from the files a build would produce: `missing`,
`changed`, and `stale` (listed by the previous manifest, no longer produced, and removable by
`toolgen.removal`'s rule); the files that rule keeps are `kept`. `write` makes the disk match,
all or nothing (`toolgen.journal`): new files are staged and committed before anything in
`out` changes, and a build that was stopped after its commit is completed by the next one.
Unchanged files are not touched. Both refuse to work through a symlink inside `out`
(`UnsafeOut`).

Both take `seen`, what a process that builds again (`toolgen build --watch`) knows of the
files: the bytes it last wrote or read in each, with the file's `stat` then. A file whose
`stat` is unchanged, and old enough to be trusted (`toolgen.incremental.stamp`'s rule),
still holds those bytes and is not read again. A run of its own knows as much from the last
stamp (`written`: the sha256 of each file, with its `stat`), when it could not replay it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from toolgen import journal, removal
from toolgen.incremental.spool import Content, Spooled, as_bytes, chunks_of, sha_of
from toolgen.incremental.stamp import Stat, Written, file_stat, trusted
from toolgen.layout import PENDING
from toolgen.read.files import open_regular
from toolgen.removal import Kept
from toolgen.render import MANIFEST

#: What a process knows of each generated file (relative path): its bytes, its `stat`, and
#: when they were seen (`time.time_ns()` before the file was read or written).
Seen = dict[str, tuple[bytes, Stat, int]]


@dataclass
class Drift:
    missing: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)  # listed, not produced, not removable
    #: a build was stopped after its commit: `out` may be half changed (nothing else is said)
    interrupted: bool = False

    @property
    def clean(self) -> bool:
        return not (self.missing or self.changed or self.stale or self.interrupted)


@dataclass
class WriteReport:
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    kept: list[Kept] = field(default_factory=list)
    #: files renamed or removed to complete a build that was stopped after its commit
    completed: int = 0


class UnsafeOut(Exception):
    """Symlinks inside `out` where a build would write or delete through or over them:
    (path relative to `out`, what it is) each. Nothing was changed."""

    def __init__(self, links: list[tuple[str, str]]) -> None:
        super().__init__(", ".join(path for path, _ in links))
        self.links = links


def refuse_symlinks(out: Path) -> None:
    """UnsafeOut when `toolgen.removal.symlinks_in` finds any."""
    links = removal.symlinks_in(out)
    if links:
        raise UnsafeOut(links)


def _read(path: Path, limit: int) -> bytes | None:
    """The bytes of the regular file at `path`, or None (none there, or not a regular file:
    a FIFO is not waited on); no more than `limit` and one byte (a file in `out` may be
    anything a pull request commits: a sparse file of a terabyte is not read)."""
    try:
        handle, _ = open_regular(str(path))
        with handle:
            return handle.read(limit + 1)
    except OSError:
        return None


#: How much of a changed file `check --diff` reads to show the lines it had.
MAX_DIFF = 64 << 20


def same_manifest(old: bytes, new: bytes) -> bool:
    """Manifests that differ only in the toolgen version are the same (no drift on upgrade)."""
    try:
        a, b = json.loads(old), json.loads(new)
        return bool(a.get("files") == b.get("files"))
    except (ValueError, AttributeError, RecursionError):  # not a manifest of ours
        return False


def _holds(
    out: Path, relpath: str, data: Content, seen: Seen | None, written: Written | None = None
) -> bool | None:
    """Whether the file has `data` (None: it is not there), read only when `seen` (or the
    stamp's `written`) cannot say; what is read is seen anew. Spooled bytes are compared a
    chunk at a time (and not seen: only a run of its own spools)."""
    path = f"{out}/{relpath}"
    stamped = written.get(relpath) if written else None
    if stamped is not None and trusted(stamped[1], stamped[2], path):
        return stamped[0] == sha_of(data)
    if isinstance(data, Spooled):
        return _holds_spooled(path, data)
    known = seen.get(relpath) if seen is not None else None
    if known is not None and trusted(known[1], known[2], path):
        return known[0] is data or known[0] == data
    start = time.time_ns()
    current = _read(out / relpath, len(data))
    if current is None:  # nothing there; or no regular file, or one that cannot be read
        return False if os.path.lexists(path) else None
    if len(current) > len(data):  # other bytes, read only so far: not seen
        return False
    if seen is not None:
        seen[relpath] = (current, file_stat(path), start)
    return current == data


def _holds_spooled(path: str, data: Spooled) -> bool | None:
    try:
        handle, st = open_regular(path)
        with handle:
            if st.st_size != data.size:
                return False
            return all(handle.read(len(chunk)) == chunk for chunk in data.chunks())
    except OSError:  # nothing there; or no regular file, or one that cannot be read
        return False if os.path.lexists(path) else None


def _same_manifest_on_disk(out: Path, new: bytes) -> bool:
    return same_manifest(_read(out / MANIFEST, 2 * len(new) + 4096) or b"", new)


def compare(
    out: Path,
    files: Mapping[str, Content],
    seen: Seen | None = None,
    written: Written | None = None,
) -> Drift:
    """How `out` differs from `files` (see the module's doc). UnsafeOut for symlinks in it."""
    if journal.state(out) == "committed":
        try:
            with build_lock(out, shared=True):  # a build that is still going: let it finish
                if journal.state(out) == "committed":
                    return Drift(interrupted=True)
        except WriteError:  # no lock to wait on (a folder that cannot be read): as it is
            return Drift(interrupted=True)
    refuse_symlinks(out)
    drift = Drift()
    for relpath, data in files.items():
        holds = _holds(out, relpath, data, seen, written)
        if holds is None:
            drift.missing.append(relpath)
        elif not holds and not (
            relpath == MANIFEST and _same_manifest_on_disk(out, as_bytes(data))
        ):
            drift.changed.append(relpath)
    drift.stale, drift.kept = removal.plan(out, removal.listed(out), files)
    return drift


def unified_diff(out: Path, relpath: str, new: bytes, shown: str = "") -> str:
    """How `new` differs from the file `relpath` in `out`, with headers `a/SHOWN` and
    `b/SHOWN` (`shown`: how to name the file, as `toolgen fix --diff` does; `relpath` if
    not given)."""
    from toolgen.textdiff import unified_diff as diff_lines

    data = _read(out / relpath, MAX_DIFF) or b""
    if len(data) > MAX_DIFF:
        data = f"(more than {MAX_DIFF:,} bytes: not shown)\n".encode()
    old = data.decode("utf-8", "replace").splitlines(keepends=True)
    name = shown or relpath
    lines = diff_lines(old, new.decode().splitlines(keepends=True), f"a/{name}", f"b/{name}")
    return "".join(lines)


@contextmanager
def build_lock(out: Path, shared: bool = False) -> Iterator[None]:
    """One writer at a time: a second build waits for the first (an exclusive `flock` on the
    folder that holds `out`, released when the process ends, even if killed); a `shared`
    holder (a check) waits for a build, not for other checks. No lock file: nothing is left
    in the project for git to show."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(out.parent, os.O_RDONLY)
    except OSError as exc:  # a project folder that cannot be read
        raise WriteError(out.parent, exc.strerror or str(exc)) from None
    try:
        fcntl.flock(handle, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # which releases the lock


def write(
    out: Path,
    files: Mapping[str, Content],
    seen: Seen | None = None,
    retire: Callable[[Path], None] | None = None,
    written: Written | None = None,
) -> WriteReport:
    """Make `out` hold `files` (see the module's doc); `retire` is called with each file
    about to be replaced (`toolgen.incremental.session.Session.retire`). A build that was
    stopped after its commit is completed first."""
    with build_lock(out):
        refuse_symlinks(out)  # before a stopped build is completed or discarded through one
        try:
            done = journal.recover(out, retire)
        except journal.JournalError as exc:
            if not exc.interrupted:  # staged files that cannot be cleared away
                raise WriteError(exc.path, exc.reason) from None
            reason = f"{exc.reason}; the last build was interrupted and cannot be completed"
            raise WriteError(exc.path, reason, interrupted=True) from None
        report = _write(out, files, seen, retire, written)
        if done is not None:
            report.completed = len(done.written) + len(done.removed)
        return report


class WriteError(Exception):
    """A generated file could not be written: `path` (the file, or the folder or file in its
    way) and why. Unless `interrupted`, nothing was changed: `write` raises it before its
    commit."""

    def __init__(self, path: Path, reason: str, interrupted: bool = False) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason, self.interrupted = path, reason, interrupted


def _write(
    out: Path,
    files: Mapping[str, Content],
    seen: Seen | None,
    retire: Callable[[Path], None] | None,
    written: Written | None,
) -> WriteReport:
    refuse_symlinks(out)
    report = WriteReport()
    ordered = sorted(p for p in files if p != MANIFEST) + ([MANIFEST] if MANIFEST in files else [])
    for relpath in ordered:  # the journal moves nothing else: it would be reported, not written
        if not removal.produced(relpath):
            raise WriteError(out / relpath, "toolgen writes no file by that name there")
    changed = [p for p in ordered if not _holds(out, p, files[p], seen, written)]
    report.unchanged = len(ordered) - len(changed)
    manifest = removal.listed(out)
    remove, report.kept = removal.plan(out, manifest, files)
    if not changed and not remove:
        return report
    _check_paths(out, changed, remove)
    started: dict[str, int] = {}  # when each file's bytes were staged (what `seen` keeps)

    def writer(relpath: str) -> Callable[[Path], None]:
        def stage(staged: Path) -> None:
            started[relpath] = time.time_ns()
            try:
                _stage(out / relpath, files[relpath], staged)
            except OSError as exc:
                where = exc.filename and Path(exc.filename)
                if not where or where.is_relative_to(out / PENDING):
                    where = out / relpath  # the file it was for, not its staged copy
                raise WriteError(where, exc.strerror or str(exc)) from None

        return stage

    try:
        plan = journal.stage(
            out, [(p, writer(p)) for p in changed], [(p, str(manifest[p])) for p in remove]
        )
    except OSError as exc:  # the pending folder or the journal itself
        raise WriteError(Path(exc.filename or out), exc.strerror or str(exc)) from None

    def placed(relpath: str) -> None:
        data = files[relpath]
        if seen is not None and isinstance(data, bytes):
            seen[relpath] = (data, file_stat(f"{out}/{relpath}"), started[relpath])

    try:
        done = journal.apply(out, plan, retire, placed)
    except journal.JournalError as exc:
        reason = f"{exc.reason}; the build was interrupted: run it again to complete it"
        raise WriteError(exc.path, reason, interrupted=True) from None
    report.written, report.removed = done.written, done.removed
    return report


def _check_paths(out: Path, relpaths: list[str], removed: Sequence[str] = ()) -> None:
    """WriteError, before anything is staged, if a file stands where a folder must be, or
    anything but a regular file where a file must be, or a folder the files go into (or are
    removed from) is on another file system than `out` (a rename could not reach it) or
    cannot be written: found after the commit, the build could only stop half done."""
    checked: set[Path] = set()
    absent: set[Path] = set()  # folders found missing: nothing below them is there either
    device = _device(out)
    device = _device(out.parent) if device is None else device
    writable: set[Path] = set()
    removing = set(removed)
    for relpath in [*relpaths, *removed]:
        target = out / relpath
        deepest = out.parent  # the deepest folder on the way that is there: written into
        missing = False
        for path in (out, *(out / parent for parent in reversed(Path(relpath).parents[:-1]))):
            if path in checked:
                deepest = path
                continue
            if path in absent:
                missing = True
                break
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                absent.add(path)
                missing = True
                break  # made when the files are moved in
            except OSError as exc:
                raise WriteError(path, exc.strerror or str(exc)) from None
            checked.add(path)
            if not stat.S_ISDIR(st.st_mode):
                raise WriteError(path, "it is a file, not a folder")
            if st.st_dev != device:
                raise WriteError(path, "it is on another file system than the output folder")
            deepest = path
        if deepest not in writable:
            _writable(deepest)
            writable.add(deepest)
        if relpath in removing or missing:
            continue
        try:
            mode = os.lstat(target).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode):
            raise WriteError(target, "it is a folder, not a file")
        if not stat.S_ISREG(mode):
            raise WriteError(target, "it is not a regular file")


def _writable(folder: Path) -> None:
    """WriteError unless this process may make, rename and remove files in `folder`."""
    effective = os.access in os.supports_effective_ids  # the rights it writes with
    if os.access(folder, os.W_OK | os.X_OK, effective_ids=effective):
        return
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    why = "it is on a read-only file system" if read_only else os.strerror(errno.EACCES)
    raise WriteError(folder, why)


def _device(path: Path) -> int | None:
    try:
        return path.stat().st_dev
    except OSError:
        return None


def _stage(target: Path, data: Content, staged: Path) -> None:
    """Write the bytes of `target` (`data`) to its `staged` copy, readable by all; or link the
    spool's file of those bytes alone there (`Spool.add_whole`), which is made so."""
    whole = data.whole_file() if isinstance(data, Spooled) else None
    if whole is not None:
        try:
            os.link(whole, staged, follow_symlinks=False)
            return
        except OSError:
            pass  # a file system without links, say: the bytes are written
    fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as handle:
        for chunk in chunks_of(data):
            handle.write(chunk)
    staged.chmod(0o644)  # whatever the umask: generated files are checked in


def atomic_write(target: Path, data: bytes) -> None:
    """Replace `target` with `data` at once (`toolgen fix`'s edits of source files)."""
    tmp = _write_temporary(target, data)
    try:
        Path(tmp).replace(target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_temporary(target: Path, data: Content) -> str:
    """`data` in a new file beside `target` (its folder made if needed), named
    `.<target name>.<8 random characters>.tmp`: the file's path."""
    import tempfile

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks_of(data):
                handle.write(chunk)
        Path(tmp).chmod(0o644)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp
