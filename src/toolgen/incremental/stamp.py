"""The no-op fast path: when nothing changed since the last good run, say so without compiling.

After a build or check that ends clean, `record` stores a stamp: every file the compilation
read and every generated file, each with the sha256 of its bytes and its `stat` (size, mtime,
ctime, inode); every module path the compilation looked for and did not find; the discovered
sources and the generated files, with the `stat` of each folder those listings depend on; and
the diagnostics it printed. `replay` answers the next run from the stamp when all of that
still holds: same bytes in every file read, still-missing paths still missing, same sources,
and `out` holding exactly the same files with the same bytes. Any difference (or no stamp) is
a miss and the run compiles as usual.

A file whose `stat` is unchanged is taken as unchanged without reading it, like git's index,
but only when its ctime is older than the stamped run's start by a margin (`RACY_NS`, or
`FINE_RACY_NS` for a timestamp with a fraction of a second: a file system that keeps them
finely): any write after the run began moves the ctime past that point (and ctime cannot be
set back by tools that restore mtimes), so a file written during or right before the run is
always read and hashed.
Folders follow the same rule: while a folder's `stat` holds, its entries are the same (adding,
removing or renaming an entry changes its mtime and ctime), so the sources and the generated
files need not be listed again. When a replay had to hash files or list folders that are now
old enough, it stamps them afresh.

Standard library only, and cheap to import: the fast path (`toolgen.entry`) runs it before
anything else.
Stamps are marshal data (the key includes Python's version); the diagnostics inside stay JSON
text until a run prints them as JSON.
"""

from __future__ import annotations

import os

from toolgen.incremental.cache import checksum_of, file_sha, load_entry, present, prune, store_entry

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from pathlib import Path
    from typing import Any

    from toolgen.diagnostics import Diagnostic
    from toolgen.incremental.cache import Folder
    from toolgen.incremental.spool import Content
    from toolgen.read.discover import Listing
    from toolgen.read.index import Dependencies

KIND = "stamps"
ROWS_AT_ONCE = 1000  # diagnostics turned into JSON together (`record`)
KEEP = 16  # one per configuration, command-line paths and toolgen version in use

#: How much older than the stamped run a file's ctime must be for its `stat` to be trusted:
#: far above the clock granularity of file timestamps. A ctime in whole seconds may come from
#: a file system that keeps no more (2 s on FAT); one with a fraction of a second comes from
#: one that keeps them finely, with the kernel's clock (a jiffy, at most 10 ms, behind).
RACY_NS = 2_000_000_000
FINE_RACY_NS = 100_000_000


def _old(ctime_ns: int, before_ns: int) -> bool:
    """Whether a file's ctime is older than `before_ns` by the margin its precision needs."""
    margin = RACY_NS if ctime_ns % 1_000_000_000 == 0 else min(FINE_RACY_NS, RACY_NS)
    return ctime_ns < before_ns - margin


MISSING = (-1, -1, -1, -1)  # the `Stat` of a path that is not there
Stat = tuple[int, int, int, int]  # size, mtime, ctime, inode


class Outcome:
    """What the stamped run found, to print again: its diagnostics as printed lines per
    format, as `to_dict` rows (parsed from JSON only when asked for) and as (code, level)
    pairs; and `ident`, which differs whenever any of that does."""

    def __init__(self, stamp: dict[str, Any]) -> None:
        """TypeError when the stamp holds what this toolgen does not write (sealed, so ours,
        but a run must not trip over it later: it is a miss)."""
        self.tools: int = _typed(stamp["tools"], int)
        self.files: int = len(_typed(stamp["outputs"], dict))
        self.lines: dict[str, str] = _typed(stamp["lines"], dict)
        if not all(type(self.lines.get(fmt)) is str for fmt in ("text", "github")):
            raise TypeError("the printed lines are not text")
        self.found: list[tuple[str, str]] = [
            (_typed(code, str), _typed(level, str)) for code, level in stamp["found"]
        ]
        if not {level for _, level in self.found} <= LEVELS:
            raise TypeError("not a diagnostic level")
        self.ident: str = _typed(stamp["ident"], str)
        self.read: frozenset[str] = frozenset(stamp["read"])  # the files the run read
        if not all(type(path) is str for path in self.read):
            raise TypeError("not a path")
        self._rows: str = _typed(stamp["rows"], str)

    @property
    def rows(self) -> list[dict[str, Any]]:
        import json

        rows: list[dict[str, Any]] = json.loads(self._rows)
        return rows


#: The diagnostic levels (`toolgen.diagnostics.Level`, not imported here: the fast path).
LEVELS = frozenset({"error", "warning", "info"})


def _typed(value: Any, kind: type) -> Any:
    """`value` when it is exactly of `kind` (not a subclass: `True` is no count), else
    TypeError."""
    if type(value) is not kind:
        raise TypeError(f"{type(value).__name__}, not {kind.__name__}")
    return value


def _joined(texts: list[str]) -> Iterator[bytes]:
    """The bytes of the texts joined by NUL characters, a text at a time (a lone surrogate
    as it is: only the checksum sees them)."""
    for i, text in enumerate(texts):
        yield (b"\0" if i else b"") + text.encode("utf-8", "surrogatepass")


def record(
    folder: Path,
    key: str,
    started_ns: int,
    sources: Listing,
    inputs: Dependencies,
    out: Path,
    files: Mapping[str, Content],
    shas: Mapping[str, str],
    tools: int,
    diagnostics: list[Diagnostic],
) -> None:
    """Stamp a clean run that started at `started_ns` (`time.time_ns()`, before reading);
    `shas` has the sha256 of the `files` it knows already."""
    import json

    from toolgen.diagnostics import format_lines
    from toolgen.incremental.out_listing import listing
    from toolgen.incremental.spool import sha_of
    from toolgen.layout import PENDING

    base = str(out)
    out_folders: set[str] = set()
    out_listing = listing(out, out_folders)
    if PENDING in out_listing:  # a stopped build's files: the next build must see them
        return
    # json.dumps of the list of rows, a thousand rows' dicts at a time (not all at once)
    batches = (diagnostics[i : i + ROWS_AT_ONCE] for i in range(0, len(diagnostics), ROWS_AT_ONCE))
    rows = (
        "["
        + ", ".join(json.dumps([d.to_dict() for d in b], ensure_ascii=False)[1:-1] for b in batches)
        + "]"
    )
    lines = {fmt: format_lines(diagnostics, fmt, notes=False) for fmt in ("text", "github")}
    found = sorted({(d.code, d.severity.value) for d in diagnostics})
    ident = checksum_of(_joined([str(tools), str(len(files)), rows, *lines.values()]))
    stamp = {
        "started": started_ns,
        "roots": sources.roots,
        "sources": sources.files,
        "folders": _folder_stats(sources.folders),
        "links": sources.links,
        "skipped": sources.skipped,
        "project": sources.project,
        "read": {path: (sha, *file_stat(path)) for path, sha in inputs.read.items()},
        "missing": sorted(inputs.missing),
        "out": base,
        "out_folders": _folder_stats(out_folders),
        "out_listing": out_listing,
        "outputs": {
            rel: (shas.get(rel) or sha_of(data), *file_stat(f"{base}/{rel}"))
            for rel, data in files.items()
        },
        "tools": tools,
        "rows": rows,
        "lines": lines,
        "found": found,
        "ident": ident.decode(),
    }
    store_entry(folder, KIND, key, stamp)
    prune(folder, KIND, keep=KEEP)


def load(folder: Folder, key: str) -> dict[str, Any] | None:
    """The stamp of configuration `key`, or None (for `replay_loaded` and `written`)."""
    stamp = load_entry(folder, KIND, key)
    return stamp if isinstance(stamp, dict) else None


def replay(folder: Folder, key: str, started_ns: int) -> Outcome | None:
    """The stamped outcome if nothing it depends on changed, else None."""
    return replay_loaded(load(folder, key), folder, key, started_ns)


def replay_loaded(
    stamp: dict[str, Any] | None, folder: Folder, key: str, started_ns: int
) -> Outcome | None:
    """`replay` of a stamp already loaded (`load`): it may be refreshed in place."""
    try:
        if stamp is None:
            return None
        checker = _Checker(stamp["started"], started_ns)
        links = stamp["links"]
        resolved = all(os.path.realpath(link) == to for link, to in links.items())
        if not checker.listed(stamp["folders"], lambda: _sources_hold(stamp), resolved):
            return None
        if any(present(p) for p in stamp["missing"]):
            return None
        base = stamp["out"]
        if not checker.listed(stamp["out_folders"], lambda: _outputs_hold(stamp)):
            return None
        if not checker.all_hold(stamp["read"]) or not checker.all_hold(stamp["outputs"], base):
            return None
        if checker.refreshed:  # read what is now old enough to be trusted by stat
            stamp["started"] = started_ns
            store_entry(folder, KIND, key, stamp)
        return Outcome(stamp)
    except Exception:  # a damaged or foreign stamp is a miss: a cache never breaks a run
        return None


#: Generated files as a stamp saw them (by path under `out`): each one's sha256 and `stat`
#: then, with when the stamped run started (what `trusted` needs).
Written = dict[str, tuple[str, Stat, int]]


def written(stamp: dict[str, Any] | None, out: str) -> Written:
    """The generated files in `out` as `stamp` saw them ({} without a stamp of ours for
    `out`): a later run that cannot replay the stamp still need not read those whose `stat`
    says they hold the stamped bytes (`toolgen.output`)."""
    try:
        assert stamp is not None and stamp["out"] == out
        started = int(stamp["started"])
        return {
            _typed(rel, str): (
                _typed(entry[0], str),
                (_int(entry[1]), _int(entry[2]), _int(entry[3]), _int(entry[4])),
                started,
            )
            for rel, entry in stamp["outputs"].items()
        }
    except Exception:  # no stamp, or not one of ours: nothing is known
        return {}


def _int(value: Any) -> int:
    return int(_typed(value, int))


def _sources_hold(stamp: dict[str, Any]) -> dict[str, Stat] | None:
    """The folders of a new discovery, if it finds the stamped sources (else None)."""
    from pathlib import Path

    from toolgen.read.discover import list_sources

    project = Path(stamp["project"]) if stamp["project"] else None
    _, now = list_sources(tuple(Path(root) for root in stamp["roots"]), project)
    if now.files != stamp["sources"] or now.skipped != stamp["skipped"]:
        return None
    stamp["links"] = now.links
    return _folder_stats(now.folders)


def _outputs_hold(stamp: dict[str, Any]) -> dict[str, Stat] | None:
    """The folders of a new listing of `out`, if it holds the stamped files (else None)."""
    from pathlib import Path

    from toolgen.incremental.out_listing import listing

    folders: set[str] = set()
    if listing(Path(stamp["out"]), folders) != stamp["out_listing"]:
        return None
    return _folder_stats(folders)


def _folder_stats(folders: set[str]) -> dict[str, Stat]:
    return {path: file_stat(path) for path in sorted(folders)}


def trusted(stat: Stat, seen_ns: int, path: str) -> bool:
    """Whether the file at `path` still holds what was seen in it at `seen_ns` (with this
    `stat` then), by its `stat` alone."""
    return _old(stat[2], seen_ns) and file_stat(path) == stat


def file_stat(path: str) -> Stat:
    try:
        st = os.stat(path)  # hot path: plain strings, no Path objects
    except OSError:
        return MISSING
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


class _Checker:
    """Whether stamped files still have their stamped bytes (by `stat` when that can be
    trusted, else by hashing them), and stamped folders their entries (by `stat`, else by
    listing them again). What it had to read and is now old enough to be trusted by `stat` is
    stamped afresh in place (`refreshed`)."""

    def __init__(self, stamped_ns: int, started_ns: int) -> None:
        self.stamped = stamped_ns
        self.started = started_ns
        self.refreshed = False

    def _trusted(self, stamped: Stat, path: str) -> bool:
        return trusted(stamped, self.stamped, path)

    def all_hold(self, entries: dict[str, tuple[Any, ...]], base: str = "") -> bool:
        """Whether each file (its path: `base`/key when `base` is given) has its stamped
        sha256 (the entry's first item; its `stat` follows)."""
        for name, entry in entries.items():
            path = f"{base}/{name}" if base else name
            if self._trusted(entry[1:], path):
                continue
            current = file_stat(path)
            # another size is other bytes: not read (it may have grown without end)
            if current == MISSING or current[0] != entry[1] or file_sha(path) != entry[0]:
                return False
            if _old(current[2], self.started):
                entries[name] = (entry[0], *current)
                self.refreshed = True
        return True

    def listed(
        self,
        folders: dict[str, Stat],
        again: Callable[[], dict[str, Stat] | None],
        resolved: bool = True,
    ) -> bool:
        """Whether a listing still holds: every folder's `stat` is trusted and unchanged (and
        the symlinks it went through are `resolved` as before), or `again` (a new listing:
        its folders, or None when it differs) says so."""
        if resolved and all(self._trusted(stat, path) for path, stat in folders.items()):
            return True
        now = again()
        if now is None:
            return False
        if all(_old(stat[2], self.started) for stat in now.values()):
            folders.clear()
            folders.update(now)
            self.refreshed = True
        return True
