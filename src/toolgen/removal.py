"""What a build may remove from `out`, and what it must keep: toolgen deletes only what it
provably wrote.

The manifest is checked in, so a pull request can add entries to it; what makes that harmless
is that a file the previous manifest lists is removed only when all of these hold:

- its path is a plain relative path (no `..`, `.` or empty part, not absolute, no backslash);
- it is a file toolgen produces there (`toolgen.render.PRODUCED`, from the platforms' registry);
- no folder between `out` and it is a symlink, and it is a regular file itself;
- its bytes still hash to the manifest's sha256 (a file edited since is someone's work).

Anything else the manifest lists is kept, with the reason. Files the manifest does not list
are not toolgen's: they are never removed, whatever their name.

Symlinks where toolgen writes are refused before anything is written (`symlinks_in`): a
symlinked folder inside `out`, or a symlink standing where toolgen writes a file, would make a
build write or delete somewhere else.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from toolgen.diagnostics import Diagnostic, Location, cut
from toolgen.layout import PENDING
from toolgen.read.files import NotRegular, open_regular
from toolgen.render import MANIFEST
from toolgen.render.registry import folders
from toolgen.render.registry import produced as _produced

_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Kept:
    """A file the previous manifest lists that a build did not remove, why, and where the
    manifest lists it (line, column)."""

    path: str  # as the manifest names it
    reason: str
    at: tuple[int, int] = (1, 1)


def produced(relpath: str) -> bool:
    """Whether a build can produce the file `relpath` (relative to `out`)."""
    return _produced(relpath)


def plain(relpath: object) -> bool:
    """Whether `relpath` is a plain relative path below a folder: no way out of it."""
    if not isinstance(relpath, str) or not relpath or "\\" in relpath or "\0" in relpath:
        return False
    return relpath[0] != "/" and all(part not in ("", ".", "..") for part in relpath.split("/"))


def shown(relpath: str) -> str:
    """`relpath` as a message may quote it: printable, and not too long."""
    return cut(relpath if relpath.isprintable() else json.dumps(relpath))


def listed(out: Path) -> dict[str, object]:
    """The `files` of the manifest in `out` ({} when there is none, or it is not one)."""
    return _files_of(_manifest_text(out))


def _manifest_text(out: Path) -> bytes:
    """The manifest's bytes (b"" when there is none that can be read: not a regular file, a
    symlink, or more than `MAX_MANIFEST` bytes). A FIFO committed in its place is not waited
    for, and a sparse file of a terabyte not read."""
    try:
        handle, st = open_regular(str(out / MANIFEST), os.O_NOFOLLOW)
        with handle:
            data = handle.read(MAX_MANIFEST + 1) if st.st_size <= MAX_MANIFEST else b""
    except OSError:
        return b""
    return data if len(data) <= MAX_MANIFEST else b""


#: The most bytes a manifest is read for (one of 10,000 tools takes about 1.2 MB).
MAX_MANIFEST = 64 << 20


def _files_of(text: bytes) -> dict[str, object]:
    try:
        files = json.loads(text).get("files")
    except (ValueError, AttributeError, RecursionError):
        return {}
    return files if isinstance(files, dict) else {}


def verdict(out: Path, relpath: str, sha: object) -> str | None:
    """None when the file `relpath` that the manifest lists with `sha` may be removed; else
    why not. `GONE` when there is no such file (nothing to remove or keep)."""
    if not plain(relpath):
        return "its path is not a plain path inside the output folder"
    if not produced(relpath):
        return "toolgen writes no file by that name there"
    if not isinstance(sha, str) or not _SHA256.fullmatch(sha):
        return "the manifest's sha256 for it is not a sha256"
    folder = str(out)
    parts = relpath.split("/")
    for part in parts[:-1]:
        folder = f"{folder}/{part}"
        try:
            mode = os.lstat(folder).st_mode
        except OSError:
            return GONE
        if stat.S_ISLNK(mode):
            return f"it is reached through a symlink ({shown(folder)})"
        if not stat.S_ISDIR(mode):
            return GONE
    return _holds_sha(f"{folder}/{parts[-1]}", sha)


#: `verdict` of a file that is not there.
GONE = ""


def _holds_sha(path: str, sha: str) -> str | None:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return GONE
    if stat.S_ISLNK(mode):
        return "it is a symlink, which toolgen never writes"
    if not stat.S_ISREG(mode):
        return "it is not a regular file"
    digest = hashlib.sha256()
    try:  # no symlink followed, no FIFO waited on (one could replace the file meanwhile)
        handle, _ = open_regular(path, os.O_NOFOLLOW)
    except NotRegular:
        return "it is not a regular file"
    except OSError:
        return GONE
    with handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    if digest.hexdigest() != sha:
        return "it was changed after toolgen wrote it"
    return None


def plan(
    out: Path, manifest: Mapping[str, object], keep: Iterable[str]
) -> tuple[list[str], list[Kept]]:
    """The files the previous `manifest` (as `listed` reads it) lists that a build making the
    files `keep` removes, and those it keeps (with why), each in path order."""
    making = set(keep)
    remove: list[str] = []
    kept: list[Kept] = []
    lines: list[str] | None = None
    for relpath, sha in sorted(manifest.items()):
        if relpath in making:
            continue
        why = verdict(out, relpath, sha)
        if why is None:
            remove.append(relpath)
        elif why:
            if lines is None:  # only now: most builds keep nothing
                lines = _manifest_text(out).decode("utf-8", "replace").splitlines()
            kept.append(Kept(relpath, why, _entry_at(lines, relpath)))
    return remove, kept


def symlinks_in(out: Path) -> list[tuple[str, str]]:
    """Symlinks where a build would write or delete through or over them, as (path relative
    to `out`, what it is): a symlinked folder inside `out` (a renderer's folder, the pending
    folder, or any other), or a symlink standing where toolgen writes a file."""
    return _symlinks(str(out))


def _symlinks(folder: str) -> list[tuple[str, str]]:
    """`symlinks_in` of `folder` (`out`: at its top, only the renderers' folders are looked
    into), depth first in name order: with a stack, not by
    recursion, so that a folder tree a thousand levels deep is no RecursionError."""
    found: list[tuple[str, str]] = []
    stack = [_entries(folder)]  # each folder's entries yet to see, with its path under `out`
    while stack:
        entry = next(stack[-1][1], None)
        if entry is None:
            stack.pop()
            continue
        under = stack[-1][0]
        rel = f"{under}/{entry.name}" if under else entry.name
        if entry.is_symlink():
            ours = produced(rel) or (not under and entry.name in (*folders(), PENDING))
            if ours or _to_folder(entry.path):
                found.append((rel, _what(entry.path)))
        elif entry.is_dir(follow_symlinks=False) and (under or entry.name in folders()):
            stack.append(_entries(entry.path, rel))
    return found


def _entries(folder: str, relfolder: str = "") -> tuple[str, Iterator[os.DirEntry[str]]]:
    """`relfolder`, with the entries of `folder` in name order (none when it cannot be
    listed)."""
    try:
        with os.scandir(folder) as entries:
            return relfolder, iter(sorted(entries, key=lambda e: e.name))
    except OSError:
        return relfolder, iter(())


def _to_folder(path: str) -> bool:
    try:
        return Path(path).is_dir()
    except OSError:
        return False


def _what(path: str) -> str:
    try:
        target = str(Path(path).readlink())
    except OSError:
        target = "?"
    kind = "a symlinked folder" if _to_folder(path) else "a symlink"
    return f"{kind} (to {shown(target)})"


#: How many kept files are reported one by one (a planted manifest can list any number).
KEPT_SHOWN = 50


def kept_diagnostics(
    out: Path, kept: list[Kept], display: Callable[[Path], str]
) -> list[Diagnostic]:
    """TG009 for each kept file (the first `KEPT_SHOWN`, then one for the rest), located at
    its entry in the previous manifest; `display` shows a path as the user reads it."""
    if not kept:
        return []
    manifest = display(out / MANIFEST)
    found = []
    for item in kept[:KEPT_SHOWN]:
        name = display(out / item.path) if plain(item.path) else shown(item.path)
        message = f"kept {name}, which the manifest lists: {item.reason}"
        found.append(Diagnostic("TG009", message, Location(manifest, *item.at)))
    if len(kept) > KEPT_SHOWN:
        more = len(kept) - KEPT_SHOWN
        found.append(Diagnostic("TG009", f"kept {more} more files the manifest lists", None))
    return found


def _entry_at(lines: list[str], relpath: str) -> tuple[int, int]:
    """Where the manifest's entry for `relpath` starts (line, column), as toolgen writes it
    (one entry per line); its first line when it is not found there."""
    key = json.dumps(relpath, ensure_ascii=False) + ":"
    for number, line in enumerate(lines, 1):
        column = line.find(key)
        if column >= 0:
            return number, column + 1
    return 1, 1


def symlink_diagnostics(
    out: Path, links: list[tuple[str, str]], display: Callable[[Path], str]
) -> list[Diagnostic]:
    """TG011 for each symlink `symlinks_in` found, located at the link."""
    return [
        Diagnostic(
            "TG011",
            f"{display(out / relpath)} is {what}: toolgen writes and removes nothing through "
            "or over a symlink inside its output folder; replace it with a real folder or file",
            Location(display(out / relpath)),
        )
        for relpath, what in links
    ]
