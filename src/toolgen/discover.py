"""Discovery: which files to read and which module each one is.

A file's module name comes from the package folders around it (folders with `__init__.py`),
the way Python would import it from the folder above the outermost package.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

SKIP_DIRS = frozenset(
    {"__pycache__", "node_modules", "site-packages", "build", "dist", "venv", "env"}
)


@dataclass(frozen=True)
class SourceFile:
    path: Path  # absolute
    module: str  # dotted module name
    search_root: Path  # folder from which `module` is importable

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"


def module_name(
    path: Path, looked: set[str] | None = None, packages: dict[Path, bool] | None = None
) -> tuple[str, Path]:
    """The dotted module name of `path` and the folder it is importable from; each folder
    looked into for an `__init__.py` is added to `looked`, and whether it has one to
    `packages` (which it reads too: one discovery asks once per folder)."""
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    packages = {} if packages is None else packages
    while True:
        if looked is not None:
            looked.add(str(folder))
        if folder not in packages:
            packages[folder] = (folder / "__init__.py").is_file()
        if not packages[folder]:
            return ".".join(parts), folder
        parts.insert(0, folder.name)
        folder = folder.parent


def _walk(folder: Path, looked: set[str] | None) -> list[tuple[Path, bool]]:
    """The Python files under `folder`, each with whether it is a symlink."""
    if looked is not None:
        looked.add(str(folder))
    found: list[tuple[Path, bool]] = []
    with os.scandir(folder) as listed:
        entries = sorted(listed, key=lambda e: e.name)
    for entry in entries:
        name = entry.name
        if name.startswith(".") or name in SKIP_DIRS:
            continue
        if entry.is_dir(follow_symlinks=False):  # a linked folder could loop
            found.extend(_walk(folder / name, looked))
        elif name.endswith(".py"):
            found.append((folder / name, entry.is_symlink()))
    return found


def search_roots(files: list[SourceFile], project_root: Path) -> list[Path]:
    """Where modules import from: each source's package root, the project root and `src/`.
    The compiler resolves names from these; `fix` and `serve` use the same."""
    roots = dict.fromkeys([f.search_root for f in files] + [project_root, project_root / "src"])
    return list(dict.fromkeys(r.resolve() for r in roots))  # most files share a root


@dataclass
class Listing:
    """What a discovery found, as the stamp keeps it (`toolgen.stamp`): the source `roots`
    looked under, the `files` found as (path, module) pairs, and the `folders` whose entries
    the result depends on."""

    roots: list[str]
    files: list[tuple[str, str]]
    folders: set[str]
    links: dict[str, str]  # each symlinked source file, with what it resolved to


def list_sources(sources: tuple[Path, ...]) -> tuple[list[SourceFile], Listing]:
    """`discover(sources)`, and its `Listing`."""
    folders: set[str] = set()
    links: dict[str, str] = {}
    files = discover(sources, folders, links)
    found = [(str(f.path), f.module) for f in files]
    return files, Listing([str(s) for s in sources], found, folders, links)


def discover(
    sources: tuple[Path, ...],
    looked: set[str] | None = None,
    links: dict[str, str] | None = None,
) -> list[SourceFile]:
    """Every Python file under `sources`, once each, in a stable order. Each folder whose
    entries the result depends on (walked, or looked into for an `__init__.py`) is added to
    `looked`, and each symlinked file found, with what it resolved to, to `links`: while
    none of them changes, neither does the result (`toolgen.stamp`)."""
    seen: dict[Path, SourceFile] = {}
    packages: dict[Path, bool] = {}
    for source in sources:
        source = source.resolve()
        files = _walk(source, looked) if source.is_dir() else [(source, False)]
        for file, link in files:
            try:
                resolved = file.resolve() if link else file  # `source` and folders are real
            except (OSError, RuntimeError):  # a symlink loop: reading it fails later (TG005)
                resolved = file
            if link and links is not None:
                links[str(file)] = str(resolved)
            if resolved not in seen:
                name, root = module_name(resolved, looked, packages)
                seen[resolved] = SourceFile(resolved, name, root)
    return sorted(seen.values(), key=lambda f: (f.module, str(f.path)))
