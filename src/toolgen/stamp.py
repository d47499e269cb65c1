"""The no-op fast path: when nothing changed since the last good run, say so without compiling.

After a build or check that ends clean, `record` stores a stamp: every file the compilation
read and every generated file, each with the sha256 of its bytes and its `stat` (size, mtime,
ctime, inode); every module path the compilation looked for and did not find; the list of
discovered sources; and the diagnostics it printed. `replay` answers the next run from the
stamp when all of that still holds: same discovered files, same bytes in every file read,
still-missing paths still missing, and `out` holding exactly the same files with the same
bytes. Any difference (or no stamp) is a miss and the run compiles as usual.

A file whose `stat` is unchanged is taken as unchanged without reading it, like git's index,
but only when its ctime is older than the stamped run's start by `RACY_NS`: any write after
the run began moves the ctime past that point (and ctime cannot be set back by tools that
restore mtimes), so a file written during or right before the run is always read and hashed.
When a replay had to hash such files and they are now old enough, it stamps them afresh.

Standard library only: importing the compiler costs more than the whole check.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolgen.cache import file_sha, is_file, load_entry, prune, store_entry
from toolgen.diagnostics import Diagnostic, Level, format_lines

if TYPE_CHECKING:
    from toolgen.config import Config
    from toolgen.index import Dependencies

KIND = "stamps"
KEEP = 16  # one per configuration, command-line paths and toolgen version in use


@dataclass
class Outcome:
    """What the stamped run found, to print again: its diagnostics as `to_dict` rows and as
    printed lines per format (no `Diagnostic` is rebuilt), and their (code, level) pairs."""

    tools: int
    files: int
    rows: list[dict[str, Any]]
    lines: dict[str, str]
    found: set[tuple[str, Level]]


def discovered(config: Config) -> list[tuple[str, str]]:
    from toolgen.discover import discover, listing

    return listing(discover(config.sources))


#: How much older than the stamped run a file's ctime must be for its `stat` to be trusted:
#: far above the clock granularity of file timestamps (a jiffy; 2 s on FAT).
RACY_NS = 2_000_000_000


def record(
    folder: Path,
    key: str,
    started_ns: int,
    sources: list[tuple[str, str]],
    inputs: Dependencies,
    out: Path,
    files: dict[str, bytes],
    tools: int,
    diagnostics: list[Diagnostic],
) -> None:
    """Stamp a clean run that started at `started_ns` (`time.time_ns()`, before reading)."""
    base = str(out)
    outputs = {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}
    stamp = {
        "started": started_ns,
        "sources": sources,
        "read": {path: [sha, *_stat(path)] for path, sha in inputs.read.items()},
        "missing": sorted(inputs.missing),
        "out": base,
        "outputs": {rel: [sha, *_stat(f"{base}/{rel}")] for rel, sha in outputs.items()},
        "tools": tools,
        "diagnostics": [d.to_dict() for d in diagnostics],
        "lines": {fmt: format_lines(diagnostics, fmt) for fmt in ("text", "github")},
    }
    store_entry(folder, KIND, key, stamp)
    prune(folder, KIND, keep=KEEP)


def replay(folder: Path, key: str, config: Config, started_ns: int) -> Outcome | None:
    """The stamped outcome if nothing it depends on changed, else None."""
    stamp = load_entry(folder, KIND, key)
    try:
        if stamp is None or stamp["out"] != str(config.out):
            return None
        if [list(s) for s in discovered(config)] != stamp["sources"]:
            return None
        if any(is_file(p) for p in stamp["missing"]):
            return None
        from toolgen.output import owned_files

        if owned_files(config.out) != set(stamp["outputs"]):
            return None
        checker = _Checker(stamp["started"], started_ns)
        base = stamp["out"]
        if not all(checker.holds(p, entry) for p, entry in stamp["read"].items()):
            return None
        if not all(checker.holds(f"{base}/{r}", e) for r, e in stamp["outputs"].items()):
            return None
        if checker.refreshed:  # hashed files that are now old enough to be trusted by stat
            stamp["started"] = started_ns
            store_entry(folder, KIND, key, stamp)
        rows, lines = stamp["diagnostics"], stamp["lines"]
        found = {(str(row["code"]), Level(row["level"])) for row in rows}
        return Outcome(int(stamp["tools"]), len(stamp["outputs"]), rows, lines, found)
    except Exception:  # a damaged or foreign stamp is a miss: a cache never breaks a run
        return None


def _stat(path: str) -> list[int]:
    try:
        st = os.stat(path)  # noqa: PTH116 (hot path: plain strings, no Path objects)
    except OSError:
        return [-1, -1, -1, -1]
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


class _Checker:
    """Whether a stamped file still has its stamped bytes: by `stat` when that can be trusted,
    else by hashing it. Entries it hashed get the current `stat` (see `refreshed`)."""

    def __init__(self, stamped_ns: int, started_ns: int) -> None:
        self.trusted_before = stamped_ns - RACY_NS
        self.fresh_before = started_ns - RACY_NS
        self.refreshed = False

    def holds(self, path: str, entry: list[Any]) -> bool:
        sha, *stat = entry
        current = _stat(path)
        if current == stat and stat[2] < self.trusted_before:
            return True
        if current[0] < 0 or file_sha(path) != sha:
            return False
        if current[2] < self.fresh_before:
            entry[1:] = current
            self.refreshed = True
        return True
