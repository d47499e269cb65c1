"""The no-op fast path: when nothing changed since the last good run, say so without compiling.

After a build or check that ends clean, `record` stores a stamp: the sha256 of every file the
compilation read, every module path it looked for and did not find, the list of discovered
sources, the sha256 of every generated file, and the diagnostics it printed. `replay` answers
the next run from the stamp when all of that still holds: same discovered files, same bytes in
every file read, still-missing paths still missing, and `out` holding exactly the same files
with the same bytes. Any difference (or no stamp) is a miss and the run compiles as usual.

Contents are compared by hash, never by modification time, so a stamp cannot be fooled by a
coarse clock or a `touch`. Standard library only: importing the compiler costs more than the
whole check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolgen.cache import file_sha, is_file, load_entry, store_entry
from toolgen.diagnostics import Diagnostic, diagnostic_from_dict

if TYPE_CHECKING:
    from toolgen.config import Config

KIND = "stamps"


@dataclass
class Inputs:
    """What a compilation read: discovered sources, files read (path -> sha256), and module
    paths that were looked for and not found."""

    sources: list[tuple[str, str]] = field(default_factory=list)  # (path, module)
    read: dict[str, str] = field(default_factory=dict)
    missing: set[str] = field(default_factory=set)

    def update(self, other: Inputs) -> None:
        self.read.update(other.read)
        self.missing.update(other.missing)


@dataclass
class Outcome:
    """What the stamped run found, to print again."""

    tools: int
    files: int
    diagnostics: list[Diagnostic]


def discovered(config: Config) -> list[tuple[str, str]]:
    from toolgen.discover import discover

    return [(str(f.path), f.module) for f in discover(config.sources)]


def record(
    folder: Path,
    key: str,
    inputs: Inputs,
    out: Path,
    files: dict[str, bytes],
    tools: int,
    diagnostics: list[Diagnostic],
) -> None:
    import hashlib

    stamp = {
        "sources": inputs.sources,
        "read": inputs.read,
        "missing": sorted(inputs.missing),
        "out": str(out),
        "outputs": {path: hashlib.sha256(data).hexdigest() for path, data in files.items()},
        "tools": tools,
        "diagnostics": [d.to_dict() for d in diagnostics],
    }
    store_entry(folder, KIND, key, stamp)


def replay(folder: Path, key: str, config: Config) -> Outcome | None:
    """The stamped outcome if nothing it depends on changed, else None."""
    stamp = load_entry(folder, KIND, key)
    try:
        if stamp is None or stamp["out"] != str(config.out) or not _inputs_hold(stamp, config):
            return None
        if not _outputs_hold(config.out, stamp["outputs"]):
            return None
        return Outcome(
            stamp["tools"],
            len(stamp["outputs"]),
            [diagnostic_from_dict(d) for d in stamp["diagnostics"]],
        )
    except (KeyError, TypeError, ValueError, AttributeError):  # a stamp from elsewhere: a miss
        return None


def _inputs_hold(stamp: dict[str, Any], config: Config) -> bool:
    if [list(s) for s in discovered(config)] != stamp["sources"]:
        return False
    if any(is_file(p) for p in stamp["missing"]):
        return False
    return all(file_sha(p) == sha for p, sha in stamp["read"].items())


def _outputs_hold(out: Path, outputs: dict[str, str]) -> bool:
    """`out` holds exactly the stamped files with the stamped bytes. Files the old manifest
    lists are among the stamped ones (the manifest's own bytes are checked), so the files in
    the managed folders are all `build` would count as its own."""
    from toolgen.output import owned_files

    if owned_files(out) != set(outputs):
        return False
    base = str(out)
    return all(file_sha(f"{base}/{rel}") == sha for rel, sha in outputs.items())
