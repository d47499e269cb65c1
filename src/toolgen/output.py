"""Writing and checking `generated/`: the only module that touches output files.

`compare` says how the files on disk differ from the files a build would produce (missing,
changed, stale). `write` makes the disk match, all or nothing: every file with new bytes is
first written to a temporary file beside its target, and only once all are written are they
renamed over their targets (the manifest last); a path in the way or a failed write raises
`WriteError` with `out` as it was. Unchanged files are not touched; stale files are removed.

Both take `seen`, what a process that builds again (`toolgen build --watch`) knows of the
files: the bytes it last wrote or read in each, with the file's `stat` then. A file whose
`stat` is unchanged, and old enough to be trusted (`toolgen.stamp`'s rule), still holds those
bytes and is not read again. A run of its own knows as much from the last stamp (`written`:
the sha256 of each file, with its `stat`), when it could not replay it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from toolgen.cache import is_file
from toolgen.render import MANIFEST
from toolgen.spool import Content, Spooled, as_bytes, chunks_of, sha_of
from toolgen.stamp import Stat, Written, file_stat, trusted

#: What a process knows of each generated file (relative path): its bytes, its `stat`, and
#: when they were seen (`time.time_ns()` before the file was read or written).
Seen = dict[str, tuple[bytes, Stat, int]]

#: Folders under `out` whose JSON files only toolgen writes; anything else there is left alone
#: unless the previous manifest lists it.
MANAGED_FOLDERS = ("descriptors", "openai", "anthropic", "gemini", "mcp", "docs", "python")


@dataclass
class Drift:
    missing: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.missing or self.changed or self.stale)


@dataclass
class WriteReport:
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0


def managed_files(out: Path) -> set[str]:
    """Generated files present on disk: those the last manifest lists, and `owned_files`."""
    found = owned_files(out)
    if MANIFEST in found:
        try:
            listed = json.loads((out / MANIFEST).read_text(encoding="utf-8")).get("files", {})
            others = [p for p in listed if p not in found]  # most are found already
            found.update(p for p in others if _safe(p) and (out / p).is_file())
        except (OSError, ValueError, AttributeError):
            pass
    return found


def owned_files(out: Path, looked: set[str] | None = None) -> set[str]:
    """The manifest, the JSON, Markdown and Python files in our folders, and the temporary
    files a killed build left beside them (relative paths). Each folder listed (or looked
    for) is added to `looked`: while none of them changes, neither does the result."""
    base = str(out)
    looked = set() if looked is None else looked
    looked.add(base)
    found = {MANIFEST} if is_file(f"{base}/{MANIFEST}") else set()
    with contextlib.suppress(OSError):
        found.update(e.name for e in os.scandir(base) if TEMPORARY.fullmatch(e.name))
    for folder in MANAGED_FOLDERS:
        found.update(_walk(base, folder, looked))
    return found


def _walk(base: str, relfolder: str, looked: set[str]) -> list[str]:
    try:
        entries = list(os.scandir(f"{base}/{relfolder}"))
    except OSError:
        return []
    looked.add(f"{base}/{relfolder}")
    found = []
    for entry in entries:
        rel = f"{relfolder}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            found.extend(_walk(base, rel, looked))
        elif entry.name.endswith((".json", ".md", ".py")) or TEMPORARY.fullmatch(entry.name):
            found.append(rel)
    return found


def _safe(relpath: str) -> bool:
    parts = Path(relpath).parts
    return bool(parts) and ".." not in parts and not Path(relpath).is_absolute()


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def same_manifest(old: bytes, new: bytes) -> bool:
    """Manifests that differ only in the toolgen version are the same (no drift on upgrade)."""
    try:
        a, b = json.loads(old), json.loads(new)
    except ValueError:
        return False
    return bool(a.get("files") == b.get("files"))


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
    current = _read(out / relpath)
    if current is None:
        return None
    if seen is not None:
        seen[relpath] = (current, file_stat(path), start)
    return current == data


def _holds_spooled(path: str, data: Spooled) -> bool | None:
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size != data.size:
                return False
            return all(handle.read(len(chunk)) == chunk for chunk in data.chunks())
    except OSError:
        return None


def _same_manifest_on_disk(out: Path, new: bytes) -> bool:
    return same_manifest(_read(out / MANIFEST) or b"", new)


def compare(
    out: Path,
    files: Mapping[str, Content],
    seen: Seen | None = None,
    written: Written | None = None,
) -> Drift:
    drift = Drift()
    for relpath, data in files.items():
        holds = _holds(out, relpath, data, seen, written)
        if holds is None:
            drift.missing.append(relpath)
        elif not holds and not (
            relpath == MANIFEST and _same_manifest_on_disk(out, as_bytes(data))
        ):
            drift.changed.append(relpath)
    drift.stale = sorted(managed_files(out) - set(files))
    return drift


def unified_diff(out: Path, relpath: str, new: bytes, shown: str = "") -> str:
    """How `new` differs from the file `relpath` in `out`, with headers `a/SHOWN` and
    `b/SHOWN` (`shown`: how to name the file, as `toolgen fix --diff` does; `relpath` if
    not given)."""
    from toolgen.textdiff import unified_diff as diff_lines

    old = (_read(out / relpath) or b"").decode("utf-8", "replace").splitlines(keepends=True)
    name = shown or relpath
    lines = diff_lines(old, new.decode().splitlines(keepends=True), f"a/{name}", f"b/{name}")
    return "".join(lines)


@contextmanager
def build_lock(out: Path) -> Iterator[None]:
    """One writer at a time: a second build waits for the first (an exclusive `flock` on the
    folder that holds `out`, released when the process ends, even if killed). No lock file:
    nothing is left in the project for git to show."""
    out.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(out.parent, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
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
    about to be replaced (`toolgen.session.Session.retire`)."""
    with build_lock(out):
        return _write(out, files, seen, retire, written)


class WriteError(Exception):
    """A generated file could not be written: `path` (the file, or the folder or file in its
    way) and why. Nothing was changed: `write` raises it before the first rename."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def _write(
    out: Path,
    files: Mapping[str, Content],
    seen: Seen | None,
    retire: Callable[[Path], None] | None,
    written: Written | None,
) -> WriteReport:
    report = WriteReport()
    stale = managed_files(out) - set(files)
    # What a killed build left: `atomic_write`'s temporary files (`owned_files` lists them).
    # Under the build lock no other build is writing, so every one of them is an orphan.
    leftovers = {p for p in stale if TEMPORARY.fullmatch(p.rpartition("/")[2])}
    for relpath in leftovers:
        (out / relpath).unlink(missing_ok=True)
    stale -= leftovers
    ordered = sorted(p for p in files if p != MANIFEST) + ([MANIFEST] if MANIFEST in files else [])
    changed = [p for p in ordered if not _holds(out, p, files[p], seen, written)]
    report.unchanged = len(ordered) - len(changed)
    # All or nothing: every new file is first written beside its target; only once all are
    # there are they renamed over the targets (the manifest last).
    missing = _check_paths(out, changed)  # folders to make, shallowest first
    made: list[tuple[str, str, int]] = []  # (relpath, temporary file, when it was written)
    try:
        for relpath in changed:
            made.append((relpath, _temporary(out / relpath, files[relpath]), time.time_ns()))
    except WriteError:
        for _, tmp, _ in made:
            Path(tmp).unlink(missing_ok=True)
        for made_folder in reversed(missing):
            with contextlib.suppress(OSError):
                made_folder.rmdir()
        raise
    for relpath, tmp, start in made:
        if retire is not None:
            retire(out / relpath)
        Path(tmp).replace(out / relpath)
        report.written.append(relpath)
        data = files[relpath]
        if seen is not None and isinstance(data, bytes):
            seen[relpath] = (data, file_stat(f"{out}/{relpath}"), start)
    for relpath in sorted(stale):
        try:
            (out / relpath).unlink()
            report.removed.append(relpath)
        except FileNotFoundError:
            pass
    for folder in MANAGED_FOLDERS:  # drop folders a platform no longer uses
        base = out / folder
        if base.is_dir() and not any(base.iterdir()):
            base.rmdir()
    return report


def _check_paths(out: Path, relpaths: list[str]) -> list[Path]:
    """The folders to make for `relpaths` under `out` (`out` too, if it is not there),
    shallowest first; WriteError if a file stands where a folder must be, or a folder where
    a file must be."""
    missing: list[Path] = []
    checked: set[Path] = set()
    for relpath in relpaths:
        target = out / relpath
        for path in (out, *(out / parent for parent in reversed(Path(relpath).parents[:-1]))):
            if path in checked:
                continue
            checked.add(path)
            if not path.exists():
                missing.append(path)
            elif not path.is_dir():
                raise WriteError(path, "it is a file, not a folder")
        if target.is_dir():
            raise WriteError(target, "it is a folder, not a file")
    return missing


def _temporary(target: Path, data: Content) -> str:
    """`_write_temporary`, with an OSError as WriteError."""
    try:
        return _write_temporary(target, data)
    except OSError as exc:
        raise WriteError(Path(exc.filename or target), exc.strerror or str(exc)) from None


#: `atomic_write`'s temporary files: `.<target name>.<8 random characters>.tmp` (mkstemp's).
TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")


def atomic_write(target: Path, data: bytes) -> None:
    tmp = _write_temporary(target, data)
    try:
        Path(tmp).replace(target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_temporary(target: Path, data: Content) -> str:
    """`data` in a new file beside `target` (its folder made if needed), by `TEMPORARY`'s
    name: the file's path."""
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
