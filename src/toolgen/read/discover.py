"""Discovery: which files to read and which module each one is.

A file's module name comes from the package folders around it (folders with `__init__.py`),
the way Python would import it from the folder above the outermost package.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from toolgen.diagnostics import Diagnostic, Location, escape_name
from toolgen.read.files import kind

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
            try:
                packages[folder] = (folder / "__init__.py").is_file()
            except OSError:  # a folder that cannot be searched: no package, its files unread
                packages[folder] = False
        if not packages[folder]:
            return ".".join(parts), folder
        parts.insert(0, folder.name)
        folder = folder.parent


def _walk(
    folder: Path, looked: set[str] | None, unlisted: list[tuple[str, str, str]]
) -> list[tuple[Path, bool, bool]]:
    """The Python files under `folder`, each with whether it is a symlink and whether it is a
    regular file itself (from the folder's listing: no `stat` each), in the order a depth-first
    walk of sorted names finds them. Walked with a stack, not by recursion: a tree a thousand
    folders deep is no RecursionError. A folder that cannot be listed is added to `unlisted`
    as (path, TG005, why): its files may be tools."""
    found: list[tuple[Path, bool, bool]] = []
    top: list[tuple[Path, tuple[bool, bool] | None]] = [(folder, None)]
    stack = [iter(top)]  # each folder's entries yet to see
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
        elif entry[1] is not None:
            found.append((entry[0], *entry[1]))
        else:
            if looked is not None:
                looked.add(str(entry[0]))
            stack.append(iter(_entries(entry[0], unlisted)))
    return found


def _entries(
    folder: Path, unlisted: list[tuple[str, str, str]]
) -> list[tuple[Path, tuple[bool, bool] | None]]:
    """The entries of `folder` a walk looks at, by name: each folder with None, each Python
    file with (is a symlink, is a regular file); none when it cannot be listed (`unlisted`)."""
    found: list[tuple[Path, tuple[bool, bool] | None]] = []
    try:
        with os.scandir(folder) as listed:
            entries = sorted(listed, key=lambda e: e.name)
    except OSError as exc:
        unlisted.append((str(folder), "TG005", f"{UNLISTED} ({exc.strerror})"))
        return found
    for entry in entries:
        name = entry.name
        if name.startswith(".") or name in SKIP_DIRS:
            continue
        if entry.is_dir(follow_symlinks=False):  # a linked folder could loop
            found.append((folder / name, None))
        elif name.endswith(".py"):
            kinds = (entry.is_symlink(), entry.is_file(follow_symlinks=False))
            found.append((folder / name, kinds))
    return found


UNLISTED = "cannot list the folder"


def unlisted(listing: Listing) -> list[tuple[str, str]]:
    """The folders a discovery could not list, each with why (the system's words)."""
    prefix = f"{UNLISTED} ("
    return [(p, why[len(prefix) : -1]) for p, _, why in listing.skipped if why.startswith(prefix)]


def search_roots(files: list[SourceFile], project_root: Path) -> list[Path]:
    """Where modules import from: each source's package root, the project root and `src/`.
    The compiler resolves names from these; `fix` and `serve` use the same."""
    roots = dict.fromkeys([f.search_root for f in files] + [project_root, project_root / "src"])
    return list(dict.fromkeys(r.resolve() for r in roots))  # most files share a root


@dataclass
class Listing:
    """What a discovery found, as the stamp keeps it (`toolgen.incremental.stamp`): the source
    `roots` looked under, the `files` found as (path, module) pairs, and the `folders` whose entries
    the result depends on."""

    roots: list[str]
    files: list[tuple[str, str]]
    folders: set[str]
    links: dict[str, str]  # each symlinked source file, with what it resolved to
    #: The files found and not read, each as (path, rule code, why): see `discover`.
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    project: str = ""  # the folder every source must resolve inside ("": not checked)


def list_sources(
    sources: tuple[Path, ...], project: Path | None = None
) -> tuple[list[SourceFile], Listing]:
    """`discover(sources)` in `project`, and its `Listing`."""
    folders: set[str] = set()
    links: dict[str, str] = {}
    skipped: list[tuple[str, str, str]] = []
    files = discover(sources, folders, links, project, skipped)
    found = [(str(f.path), f.module) for f in files]
    inside = str(project) if project is not None else ""
    once = list(dict.fromkeys(skipped))  # a file both named and found in a folder named
    return files, Listing([str(s) for s in sources], found, folders, links, once, inside)


def discover(
    sources: tuple[Path, ...],
    looked: set[str] | None = None,
    links: dict[str, str] | None = None,
    project: Path | None = None,
    skipped: list[tuple[str, str, str]] | None = None,
) -> list[SourceFile]:
    """Every Python file under `sources`, once each, in a stable order. Each folder whose
    entries the result depends on (walked, or looked into for an `__init__.py`) is added to
    `looked`, and each symlinked file found, with what it resolved to, to `links`: while
    none of them changes, neither does the result (`toolgen.incremental.stamp`).

    Files that are not read are added to `skipped` as (path, code, why), never opened: what
    is no regular file (a FIFO would block the reader, a device never end), a module name
    that is not UTF-8 (no descriptor can hold it, and Python cannot import it), and, given
    the `project`, a symlink that leads out of it. Found by walking a folder, the first two
    are warnings (TG014); named as a source, an error (TG005); a symlink out, always an
    error (TG015)."""
    seen: dict[Path, SourceFile] = {}
    packages: dict[Path, bool] = {}
    skipped = [] if skipped is None else skipped
    inside = project.resolve() if project is not None else None
    for source in sources:
        source = source.resolve()
        try:
            mode = source.stat().st_mode
        except OSError:  # gone since the configuration was read: reading it says so (TG005)
            mode = stat.S_IFREG
        if stat.S_ISDIR(mode):
            files = _walk(source, looked, skipped)
        elif stat.S_ISREG(mode):
            files = [(source, False, True)]
        else:
            skipped.append((str(source), "TG005", f"{kind(mode)}, not a regular file"))
            continue
        named = not stat.S_ISDIR(mode)
        for file, link, regular in files:
            resolved, why = _follow(file, link, regular)
            if link and links is not None:
                links[str(file)] = str(resolved)
            if why is not None:
                skipped.append((str(file), "TG014", why))
                if link and looked is not None:  # the target's folder says if it is replaced
                    looked.add(str(resolved.parent))
                continue
            if link and inside is not None and not resolved.is_relative_to(inside):
                why = f"a symlink to {resolved}, outside the project {inside}"
                skipped.append((str(file), "TG015", why))
                continue
            if resolved not in seen:
                name, root = module_name(resolved, looked, packages)
                if not name:  # an `__init__.py` that is no file (a dangling symlink): read as
                    name, root = resolved.parent.name, resolved.parent.parent  # one, it fails
                if not _utf8(name):
                    why = (
                        f"its module name `{escape_name(name)}` is not valid UTF-8, so no "
                        "descriptor can name it and Python cannot import it: rename it"
                    )
                    skipped.append((str(file), "TG005" if named else "TG014", why))
                    continue
                seen[resolved] = SourceFile(resolved, name, root)
    return sorted(seen.values(), key=lambda f: (f.module, str(f.path)))


def _follow(file: Path, link: bool, regular: bool) -> tuple[Path, str | None]:
    """What a file found by walking is (through a symlink): its path, and why it is not to
    be read (None: it is). A symlink that cannot be followed is read, and reading it says why
    not (TG005)."""
    if not link:
        if regular:
            return file, None
        try:
            return file, f"{kind(file.lstat().st_mode)}, not a regular file"
        except OSError:  # gone since the folder was listed
            return file, None
    try:
        resolved = file.resolve()  # `source` and folders are real
        mode = resolved.stat().st_mode
    except (OSError, RuntimeError):  # dangling, or a loop (3.11's RuntimeError)
        return file, None
    if stat.S_ISREG(mode):
        return resolved, None
    return resolved, f"a symlink to {kind(mode)} ({resolved}), not to a regular file"


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # a file name's bytes that are not UTF-8: lone surrogates
        return False
    return True


def skipped_diagnostics(listing: Listing, display: Callable[[Path], str]) -> list[Diagnostic]:
    """The diagnostics of the files `listing` skipped, each located at the file (its path
    shown by `display`)."""
    found = []
    for path, code, why in listing.skipped:
        shown = display(Path(path))
        if code == "TG005":
            message = f"cannot read {shown}: {why}"
        elif code == "TG015":
            message = f"not read: {why}; every source must resolve inside the project"
        else:
            message = f"not read: {why}"
        found.append(Diagnostic(code, message, Location(shown, 1, 1)))
    return found
