"""The static module index: every module parsed once with `ast`, its names bound, never imported.

`ModuleIndex` finds modules by dotted name on a list of search roots (the folders the sources
are importable from), parses them on first use and records what each top-level name is bound to:
an import, a class, a function or an assignment. `ModuleIndex.resolve` follows imports across
modules and packages (relative imports, re-exports through `__init__`, star imports, names
imported under `if TYPE_CHECKING:`) to the definition, or to an external dotted path such as
`typing.Optional` when the name comes from outside the project.

Names from outside the project are looked up in the folders of installed packages (the library
roots, `library_paths`) only when asked: `ModuleIndex.resolve_library` follows an external path
into a library's source, parsed the same way (never imported), and names used inside library
modules resolve through the library roots too. Modules that toolgen's table of types knows
(`WELL_KNOWN_MODULES`) are never read from there.

Why not griffe's loader: on the 1,000-tool benchmark corpus griffe takes 0.74 s to load what
`ast.parse` reads in 0.15 s (the floor); the design's bar for a whole build is 3x the floor.
"""

from __future__ import annotations

import ast
import hashlib
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from toolgen.diagnostics import Diagnostic, Location
from toolgen.read.files import (
    MAX_SOURCE_BYTES,
    NO_OVERLAY,
    Overlay,
    Unreadable,
    decode,
    open_regular,
    read_capped,
)
from toolgen.read.newer import TypeAlias, parse_newer

BindingKind = Literal["import", "class", "function", "assign", "module", "typealias"]


class Unparsable(Exception):
    """A source Python's parser refuses: why (`cannot parse: ...`) and where (line, column)."""

    def __init__(self, message: str, at: tuple[int, int] = (1, 1)) -> None:
        super().__init__(message)
        self.message = message
        self.at = at


def parse_python(source: str, filename: str = "<unknown>") -> ast.Module:
    """`source`'s syntax tree, as the compiler and `toolgen fix` read it (syntax newer than this
    Python's as `toolgen.read.newer` reads it); `Unparsable` for a syntax error, a `__future__`
    import Python's compiler refuses, a NUL character, or an expression nested too deeply for
    the parser."""
    try:
        with warnings.catch_warnings():  # invalid escapes in user code are not our warnings
            warnings.simplefilter("ignore")
            try:
                tree = ast.parse(source, filename=filename)
            except SyntaxError as exc:  # newer syntax than this Python's, perhaps
                newer = parse_newer(source, filename, exc)
                assert isinstance(newer, ast.Module)
                tree = newer
        problem = future_problem(tree, source)
        if problem is not None:
            raise problem
        return tree
    except SyntaxError as exc:
        raise Unparsable(f"cannot parse: {exc.msg}", (exc.lineno or 1, exc.offset or 1)) from None
    except ValueError as exc:  # e.g. source code string cannot contain null bytes
        raise Unparsable(f"cannot parse: {exc}") from None
    except (RecursionError, MemoryError):  # how the parser refuses `1+1+...` or `----x`
        message = "cannot parse: an expression is nested too deeply for Python's parser"
        raise Unparsable(message) from None


@dataclass(frozen=True)
class Binding:
    kind: BindingKind
    node: ast.AST | None = None
    target: str = ""  # for imports: the absolute dotted path imported


@dataclass
class Module:
    name: str
    path: Path
    shown: str
    source: str
    tree: ast.Module
    is_package: bool
    names: dict[str, Binding] = field(default_factory=dict)
    star_imports: list[str] = field(default_factory=list)
    library: bool = False  # read from a library root (an installed package), not the project
    _lines: list[str] | None = None

    def location(self, node: ast.AST | None) -> Location:
        """`path:line:col` of `node`, with the column counted in characters, 1-based."""
        if node is None or not hasattr(node, "lineno"):
            return Location(self.shown, 1, 1)
        line: int = node.lineno
        offset: int = getattr(node, "col_offset", 0)
        if self._lines is None:
            self._lines = self.source.splitlines()
        text = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        col = len(text.encode("utf-8")[:offset].decode("utf-8", "replace")) + 1
        return Location(self.shown, line, col)


@dataclass(frozen=True)
class Symbol:
    """What a name resolves to: a definition in a project module, or an external path."""

    path: str  # canonical dotted path, e.g. "shop.models.Page" or "typing.Optional"
    kind: BindingKind | Literal["external", "member"]
    module: Module | None = None
    node: ast.AST | None = None

    @property
    def is_external(self) -> bool:
        return self.module is None


#: Modules whose names are re-exported under a canonical module.
CANONICAL_MODULES = {
    "typing_extensions": "typing",
    "pydantic.fields": "pydantic",
    "pydantic.main": "pydantic",
    "pydantic.types": "pydantic",
    "pydantic.networks": "pydantic",
    "pydantic.functional_validators": "pydantic",
    "pydantic.json_schema": "pydantic",
    "collections.abc": "typing",
}


#: Modules toolgen knows from its table of types (`toolgen.analyze.type_tables`): their names are
#: never looked up in library roots (their sources are large, and the table is the reference).
WELL_KNOWN_MODULES = frozenset(
    {
        "builtins",
        "typing",
        "typing_extensions",
        "datetime",
        "uuid",
        "decimal",
        "pathlib",
        "enum",
        "pydantic",
        "annotated_types",
        "dataclasses",
        "collections",
        "types",
        "abc",
        "ipaddress",
    }
)

#: How `touched` and the probes name a module looked up in the library roots as well.
LIBRARY = "+"
#: How they name a data file a server reads (`ModuleIndex.data_file`).
DATA = "<file>"
#: The most bytes a data file may have for toolgen to read it, and all of a build's together.
MAX_DATA_BYTES = 32_000_000
MAX_DATA_TOTAL = 128_000_000


def well_known(dotted: str) -> bool:
    """Whether `dotted` is in a module of toolgen's table (`WELL_KNOWN_MODULES`)."""
    return dotted.partition(".")[0] in WELL_KNOWN_MODULES


def canonical_external(path: str) -> str:
    module, _, name = path.rpartition(".")
    return f"{CANONICAL_MODULES.get(module, module)}.{name}" if module else path


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _absolute(module: Module, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    parts = module.name.split(".")
    if not module.is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    base = ".".join(parts)
    if target:
        return f"{base}.{target}" if base else target
    return base


def bind_names(module: Module, body: list[ast.stmt]) -> None:
    """Record what each top-level name of `module` is bound to (later bindings win)."""
    names = module.names
    for stmt in body:
        if isinstance(stmt, ast.ClassDef):
            names[stmt.name] = Binding("class", stmt)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            names[stmt.name] = Binding("function", stmt)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    names[alias.asname] = Binding("import", stmt, alias.name)
                else:
                    head = alias.name.split(".")[0]
                    names[head] = Binding("import", stmt, head)
        elif isinstance(stmt, ast.ImportFrom):
            base = _absolute(module, stmt.level, stmt.module)
            for alias in stmt.names:
                if alias.name == "*":
                    module.star_imports.append(base)
                else:
                    target = f"{base}.{alias.name}" if base else alias.name
                    names[alias.asname or alias.name] = Binding("import", stmt, target)
        elif isinstance(stmt, ast.Assign):
            for tgt in stmt.targets:
                if isinstance(tgt, ast.Name):
                    names[tgt.id] = Binding("assign", stmt.value)
        elif isinstance(stmt, ast.AnnAssign):
            if isinstance(stmt.target, ast.Name) and stmt.value is not None:
                names[stmt.target.id] = Binding("assign", stmt.value)
        elif isinstance(stmt, TypeAlias):  # PEP 695 `type X = ...`: the statement itself
            name_node = getattr(stmt, "name", None)
            if isinstance(name_node, ast.Name):
                names[name_node.id] = Binding("typealias", stmt)
        elif isinstance(stmt, ast.If):
            bind_names(module, stmt.body)
            if not _is_type_checking(stmt.test):
                _bind_missing(module, stmt.orelse)
        elif isinstance(stmt, ast.Try):
            bind_names(module, stmt.body)
            for handler in stmt.handlers:
                _bind_missing(module, handler.body)
            _bind_missing(module, stmt.orelse)
            bind_names(module, stmt.finalbody)


def _bind_missing(module: Module, body: list[ast.stmt]) -> None:
    """Bind names from an alternative branch only where the main branch bound nothing."""
    saved = dict(module.names)
    bind_names(module, body)
    module.names.update(saved)


@dataclass
class Dependencies:
    """What a compilation (or one file of it) read: each file's sha256 by path, the module
    paths looked for and not found, and the problems reading those files. `conflicts` holds
    paths seen with two different hashes (a file saved during the run)."""

    read: dict[str, str] = field(default_factory=dict)
    missing: set[str] = field(default_factory=set)
    problems: list[Diagnostic] = field(default_factory=list)
    conflicts: set[str] = field(default_factory=set)

    def merge(self, other: Dependencies) -> None:
        for path, sha in other.read.items():
            if self.read.setdefault(path, sha) != sha:
                self.conflicts.add(path)
        self.missing.update(other.missing)
        self.conflicts.update(other.conflicts)


class ModuleIndex:
    """Finds, parses and caches modules; resolves names across them."""

    def __init__(
        self,
        search_roots: list[Path],
        display: Callable[[Path], str],
        limit: int = MAX_SOURCE_BYTES,
        libraries: Sequence[Path] = (),
        project: Path | None = None,
        data_roots: Sequence[Path] | None = None,
        overlay: Overlay = NO_OVERLAY,
    ) -> None:
        #: Unsaved text read instead of the files on disk (`toolgen lsp`).
        self.overlay = overlay
        self.search_roots = list(dict.fromkeys(r.resolve() for r in search_roots))
        #: Where a server's data files may be read from (`data_file`): the configured sources
        #: (a source file: its folder); by default, the search roots.
        self.data_roots = [
            (r if r.is_dir() else r.parent).resolve() for r in (data_roots or search_roots)
        ]
        #: The folder every module found in it must resolve inside (None: not checked): a
        #: model module symlinked out of the project is not read (TG015), as a source is not.
        self.project = project.resolve() if project is not None else None
        #: Folders of installed packages, searched after the project (`resolve_library`).
        self.library_roots = [
            r for r in dict.fromkeys(p.resolve() for p in libraries) if r not in self.search_roots
        ]
        #: Library modules that cannot be read, by name: where and why (`path:line:col: why`).
        #: Not diagnostics of their own: the annotation that led there is told (see types).
        self.unreadable: dict[str, str] = {}
        self._display = display
        self.limit = limit  # the most bytes a file may have (`max_source_bytes`)
        self._modules: dict[str, Module | None] = {}
        self._resolved: dict[tuple[str, str], Symbol | None] = {}
        self.diagnostics: list[Diagnostic] = []
        #: Every file read, with the sha256 of its bytes (for the cache).
        self.read: dict[Path, str] = {}
        #: Module names used (looked up, or met while resolving a name) inside the innermost
        #: `tracking()` block. See `dependencies`.
        self.touched: set[str] = set()
        self._probes: dict[str, tuple[list[Path], Path | None]] = {}  # missing, found
        self._uses: dict[tuple[str, str], set[str]] = {}  # modules each resolution used
        self._sources: dict[Path, Module | None] = {}  # sources not importable by their name
        self._keys_by_module: dict[str, set[tuple[str, str]]] = {}  # resolutions through each
        self._data: dict[Path, bytes | None] = {}  # the data files read (`data_file`)
        self._data_bytes = 0  # how many bytes of them
        self._held: dict[Path, Literal["file", "folder", ""] | None] = {}  # what `holds` found

    # -- loading -------------------------------------------------------------------------
    def add_file(self, name: str, path: Path) -> Module | None:
        """The source file `path`, as module `name`. When an import of `name` would find
        another file (an earlier search root, or a package of the same name), the source is
        still read from its own bytes, and imports of `name` go on meaning the other file."""
        module = self.get(name)
        if self._probes[name][1] == path:
            return module
        key = f"{name}@{path}"  # the source's own entry, for `dependencies`
        self.touched.add(key)
        if path not in self._sources:
            self._sources[path] = self._parse(name, path)
            self._probes[key] = ([], path)
        return self._sources[path]

    def get(self, name: str) -> Module | None:
        """Module `name` as Python would import it from the search roots: in the first root
        that has it, a package (`name/__init__.py`) before a module (`name.py`)."""
        self.touched.add(name)
        if name in self._modules:
            return self._modules[name]
        found, missing = _find(name, self.search_roots)
        module = None if found is None else self._parse(name, found)
        self._modules[name] = module
        self._probes[name] = (missing, found)
        return module

    def library(self, name: str) -> Module | None:
        """Module `name` from the project (`get`), else from the library roots (a module of
        an installed package, its `.py` source); never one of toolgen's table's modules."""
        module = self.get(name)
        if module is not None or not self.library_roots or well_known(name):
            return module
        key = LIBRARY + name
        self.touched.add(key)
        if key not in self._modules:
            found, missing = _find(name, self.library_roots)
            self._modules[key] = None if found is None else self._parse(name, found, library=True)
            self._probes[key] = (missing, found)
        return self._modules[key]

    def data_file(self, path: str) -> bytes | None:
        """The bytes of the project's data file `path` (absolute), which a server reads as it
        starts (an OpenAPI document beside its module); None when it is no regular file, or
        the project does not hold it (outside it, or a symlink out of it: what is on the
        machine that runs toolgen is not the project's), or it has more than
        `MAX_DATA_BYTES`. A dependency of the unit that read it, as a module is."""
        if not Path(path).is_absolute():
            return None
        given = Path(os.path.normpath(path))
        key = DATA + str(given)
        self.touched.add(key)
        if given in self._data:
            return self._data[given]
        data = self._read_data(given, key)
        if data is not None and self._data_bytes + len(data) > MAX_DATA_TOTAL:
            data = None  # the build has read enough data: the rest is unknown
        if data is not None:
            self._held[given] = "file"  # `holds` need not hash it again
        self._data_bytes += len(data or b"")
        self._data[given] = data
        return data

    def holds(self, path: str) -> Literal["file", "folder", ""] | None:
        """What the project holds at `path` (absolute): a (data) file, a folder, or nothing
        (""); None when `path` is not the project's to say. A file looked for and not found is
        a dependency, as a module is."""
        if not Path(path).is_absolute():
            return None
        given = Path(os.path.normpath(path))
        key = DATA + str(given)
        self.touched.add(key)  # every unit that asks depends on it, not only the first
        if given not in self._held:  # what is there, its hash a dependency (not its bytes kept)
            self._held[given] = None if self._outside(path) else self._look(given, key)
        return self._held[given]

    def _look(self, given: Path, key: str) -> Literal["file", "folder", ""]:
        real = Path(os.path.realpath(given))
        if real.is_dir():
            self._probes[key] = ([], given)
            self.read[given] = "a folder"  # no file's sha256: never taken as unchanged
            return "folder"
        if not real.exists():
            self._probes[key] = ([given], None)  # absent, or a symlink to nothing: it may appear
            return ""
        self._probes[key] = ([], given)
        try:
            handle, _ = open_regular(str(real))
            with handle:
                self.read[given] = hashlib.file_digest(handle, "sha256").hexdigest()
        except OSError:
            self.read[given] = "no regular file"
        return "file"

    def listing(self, path: str) -> list[str] | None:
        """The names in the project's folder `path`, sorted (as `pkgutil` and a server that
        sorts them see them); None when it is not one of the project's folders. The unit
        that lists a folder is evaluated again on every build (a file added there changes
        what it finds, and the cache keeps no listing)."""
        if self.holds(path) != "folder":  # a dependency never taken as unchanged (`_look`)
            return None
        try:
            return sorted(entry.name for entry in Path(os.path.realpath(path)).iterdir())
        except OSError:
            return None

    def _outside(self, path: str) -> bool:
        """Whether `path` is not the project's to read: outside the folders its sources are
        imported from (or a symlink out of them: a file a CI step left in the workspace is
        not the project's), or in a hidden folder, or a hidden file (`.git/config` holds the
        token CI checked the project out with, `.toolgen_cache` what earlier builds made,
        `.env` a developer's secrets: none of them is the project's data)."""
        if self.project is None or not Path(path).is_absolute():
            return True
        given = Path(os.path.normpath(path))
        real = Path(os.path.realpath(given))
        roots = [r for r in self.data_roots if r.is_relative_to(self.project)]
        for where in (given, real):
            if not any(where.is_relative_to(root) for root in roots):
                return True
            if any(part.startswith(".") for part in where.relative_to(self.project).parts):
                return True
        return False

    def _read_data(self, given: Path, key: str) -> bytes | None:
        if self._outside(str(given)):
            return None
        try:
            data = read_capped(os.path.realpath(given), MAX_DATA_BYTES)
        except Unreadable:
            if not given.exists():  # absent, or a symlink to nothing: it may appear
                self._probes[key] = ([given], None)
            else:  # a folder, a FIFO, a file over the cap: never taken as unchanged
                self._probes[key] = ([], given)
                self.read[given] = "no regular file"
            return None
        self._probes[key] = ([], given)
        self.read[given] = hashlib.sha256(data).hexdigest()
        return data

    def held(self, key: str) -> Module | None:
        """The module a `touched` key names (one looked up in the library roots too, or not),
        looked up again as it was then."""
        return self.library(key[len(LIBRARY) :]) if key.startswith(LIBRARY) else self.get(key)

    @contextmanager
    def tracking(self) -> Iterator[set[str]]:
        """Collect the module names used inside the block (also kept by the block around)."""
        outer, self.touched = self.touched, set()
        try:
            yield self.touched
        finally:
            outer.update(self.touched)
            self.touched = outer

    def dependencies(self, names: set[str]) -> Dependencies:
        """What module `names` stand on: the files behind them (path -> sha256 of the bytes
        read), the paths looked for and not found on the way (change either and the names may
        mean otherwise), and the problems reading those files."""
        deps = Dependencies()
        shown: set[str] = set()
        for name in names:
            absent, found = self._probes.get(name, ([], None))
            deps.missing.update(str(path) for path in absent)
            if found is not None:
                shown.add(self._display(found))
                if found in self.read:
                    deps.read[str(found)] = self.read[found]
        deps.problems = [d for d in self.diagnostics if d.location and d.location.path in shown]
        return deps

    def _parse(self, name: str, path: Path, *, library: bool = False) -> Module | None:
        shown = self._display(path)
        problem: Diagnostic | None = None
        real, leads_out = self._leads_out(path)
        if leads_out is not None:
            why = f"not read: {leads_out}; every source must resolve inside the project"
            self._problem(name, Diagnostic("TG015", why, Location(shown, 1, 1)), library)
            return None
        try:  # what was checked, not the name again (it could be made a symlink meanwhile)
            data = self.overlay.read(self.limit, real, str(path))
            self.read[path] = hashlib.sha256(data).hexdigest()
            text, _ = decode(data)
        except Unreadable as exc:
            problem = exc.diagnostic(shown)
        else:
            source = universal_newlines(text.removeprefix("\ufeff"))  # a BOM is allowed
            try:
                tree = parse_python(source, str(path))
            except Unparsable as exc:
                problem = Diagnostic("TG101", exc.message, Location(shown, *exc.at))
        if problem is not None:
            self._problem(name, problem, library)
            return None
        package = path.name == "__init__.py"
        module = Module(name, path, shown, source, tree, package, library=library)
        bind_names(module, tree.body)
        return module

    def _problem(self, name: str, problem: Diagnostic, library: bool) -> None:
        """Keep why module `name` cannot be had: a library's is told where it is used."""
        if library:
            self.unreadable[name] = f"{problem.location}: {problem.message}"
        else:
            self.diagnostics.append(problem)

    def _leads_out(self, path: Path) -> tuple[str, str | None]:
        """The file to read for the module file `path`, and why it is not to be read when it
        is found in the project (a library root may be in it too) and resolves outside it
        through a symlink (None: it does not)."""
        if self.project is None or not path.is_relative_to(self.project):
            return str(path), None  # not the project's (an installed package's): no link of it
        resolved = os.path.realpath(path)  # a symlink loop as it is: reading says so
        if Path(resolved).is_relative_to(self.project):
            return resolved, None
        return resolved, f"a symlink to {resolved}, outside the project {self.project}"

    # -- resolution ----------------------------------------------------------------------
    def resolve(self, module: Module, dotted: str) -> Symbol | None:
        """What `dotted` (as written in `module`) refers to; None if it cannot be found."""
        return self._cached((module.name, dotted), lambda: self._resolve_in(module, dotted, set()))

    def resolve_library(self, path: str) -> Symbol | None:
        """What the external `path` (as `resolve` left a name from outside the project) is in
        the library roots: a definition in an installed package's source; still an external
        path when no library root has its module (or toolgen's table knows it); None when a
        library module was found without the name."""
        return self._cached((LIBRARY, path), lambda: self._resolve_path(path, set(), True))

    def _cached(self, key: tuple[str, str], find: Callable[[], Symbol | None]) -> Symbol | None:
        if key not in self._resolved:
            with self.tracking() as used:
                self._resolved[key] = find()
            self._uses[key] = used
            for name in (key[0], *used):
                self._keys_by_module.setdefault(name, set()).add(key)
        self.touched.update(self._uses[key])
        return self._resolved[key]

    def release(self, name: str) -> None:
        """Forget module `name` and every resolution that went through it, to free its syntax
        tree; a later use parses it again. (The compiler releases each source file once its
        handlers are compiled, unless another file has used it: most are never read again.)"""
        self._modules.pop(name, None)
        self._sources = {p: m for p, m in self._sources.items() if m is None or m.name != name}
        for key in self._keys_by_module.pop(name, ()):
            self._resolved.pop(key, None)
            self._uses.pop(key, None)

    def find(self, dotted: str) -> Symbol | None:
        """What the absolute import path `dotted` names in a module toolgen can read, or
        None (no such module, or no such name in it)."""
        with self.tracking():
            found = self._resolve_path(dotted, set())
        return None if found is None or found.is_external else found

    def resolve_expr(self, module: Module, node: ast.expr) -> Symbol | None:
        dotted = dotted_name(node)
        return None if dotted is None else self.resolve(module, dotted)

    def _resolve_in(self, module: Module, dotted: str, seen: set[str]) -> Symbol | None:
        key = f"{module.name}:{dotted}"
        if key in seen:
            return None
        seen.add(key)
        head, _, rest = dotted.partition(".")
        binding = module.names.get(head)
        if binding is None:
            outside: list[str] = []
            for star in module.star_imports:
                star_module = self.library(star) if module.library else self.get(star)
                if star_module is None:
                    outside.append(star)
                    continue
                found = self._resolve_in(star_module, dotted, seen)
                if found is not None:
                    return found
            if head in BUILTIN_NAMES:
                return Symbol(f"builtins.{dotted}", "external")
            if outside:  # `from typing import *`: we cannot list the names, so assume it has it
                return Symbol(canonical_external(f"{outside[0]}.{dotted}"), "external")
            return None
        if binding.kind == "import":
            target = f"{binding.target}.{rest}" if rest else binding.target
            return self._resolve_path(target, seen, module.library)
        qual = f"{module.name}.{head}"
        if not rest:
            return Symbol(qual, binding.kind, module, binding.node)
        if binding.kind == "class" and isinstance(binding.node, ast.ClassDef):
            return _class_member(module, binding.node, qual, rest)
        return None

    def _resolve_path(self, dotted: str, seen: set[str], libraries: bool = False) -> Symbol | None:
        """`dotted` as an absolute path: its longest prefix that is a module (of the project;
        with `libraries`, else of a library root), then the rest inside it."""
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            prefix = ".".join(parts[:i])
            module = self.library(prefix) if libraries else self.get(prefix)
            if module is None:
                continue
            if i == len(parts):
                return Symbol(module.name, "module", module, module.tree)
            return self._resolve_in(module, ".".join(parts[i:]), seen)
        return Symbol(canonical_external(dotted), "external")

    def modules(self) -> Iterator[Module]:
        return (m for m in self._modules.values() if m is not None)

    def unreadable_behind(self, key: tuple[str, str]) -> str | None:
        """Why a library module that a resolution (`key`: a module's name and the dotted name
        it resolved, or `LIBRARY` and a path) went through cannot be read; None: none."""
        for name in sorted(self._uses.get(key, ())):
            why = self.unreadable.get(name.removeprefix(LIBRARY))
            if why is not None:
                return why
        return None

    def where_looked(self) -> list[str]:
        """The folders a module is looked for in, as shown: the project's, then the libraries'."""
        return [self._display(root) for root in (*self.search_roots, *self.library_roots)]


def _find(name: str, roots: list[Path]) -> tuple[Path | None, list[Path]]:
    """Where module `name` is, as Python would import it: in the first root that has it, a
    package (`name/__init__.py`) before a module (`name.py`); and the paths looked at before."""
    missing: list[Path] = []
    rel = Path(*name.split("."))
    for root in roots:
        for candidate in (root / rel / "__init__.py", root / rel.with_suffix(".py")):
            try:
                found = candidate.is_file()
            except OSError:  # a name too long for a file's (`import aaa…` of 300 letters)
                found = False
            if found:
                return candidate, missing
            missing.append(candidate)
    return None, missing


def future_problem(tree: ast.Module, source: str) -> SyntaxError | None:
    """What Python's compiler (not its parser) says of the `from __future__ import`s of a
    module: each must name a feature Python has, and come before any other statement but
    the docstring (CPython's future.c, then its check of every later one)."""
    import __future__

    body = tree.body
    start = 1 if body and _is_docstring(body[0]) else 0
    last, header, previous, done = -1, 0, 0, False
    for stmt in body[start:]:
        if done and stmt.lineno > previous:
            break
        previous = stmt.lineno
        if not isinstance(stmt, ast.ImportFrom) or stmt.module != "__future__":
            done = True
        elif done:
            return _late(stmt, source)
        else:
            for alias in stmt.names:
                if alias.name == "braces":
                    return _syntax_error("not a chance", stmt, source)
                if alias.name not in __future__.all_feature_names:
                    message = f"future feature {alias.name} is not defined"
                    return _syntax_error(message, stmt, source)
            last, header = stmt.lineno, header + 1
    if source.count("__future__") <= header:  # no other mention: nothing later to look for
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "__future__" and node.lineno > last:
            return _late(node, source)
    return None


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _late(stmt: ast.ImportFrom, source: str) -> SyntaxError:
    message = "from __future__ imports must occur at the beginning of the file"
    return _syntax_error(message, stmt, source)


def _syntax_error(message: str, stmt: ast.stmt, source: str) -> SyntaxError:
    """A SyntaxError at `stmt`, its offset counted in characters as the parser's are."""
    lines = source.split("\n")
    text = lines[stmt.lineno - 1] if stmt.lineno <= len(lines) else ""
    offset = len(text.encode("utf-8")[: stmt.col_offset].decode("utf-8", "replace")) + 1
    return SyntaxError(message, ("", stmt.lineno, offset, text, None, None))


def universal_newlines(text: str) -> str:
    """What `Path.read_text` would have returned: `\\r\\n` and `\\r` read as `\\n`."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _class_member(module: Module, cls: ast.ClassDef, qual: str, rest: str) -> Symbol | None:
    head, _, tail = rest.partition(".")
    for stmt in cls.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == head:
            if tail:
                return _class_member(module, stmt, f"{qual}.{head}", tail)
            return Symbol(f"{qual}.{head}", "class", module, stmt)
        if not tail and isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            if stmt.name == head:
                return Symbol(f"{qual}.{head}", "function", module, stmt)
            continue
        if not tail and isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == head for t in targets):
                return Symbol(f"{qual}.{head}", "member", module, cls)  # node: the class
    return None


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


BUILTIN_NAMES = frozenset(
    {
        "str",
        "int",
        "float",
        "bool",
        "bytes",
        "bytearray",
        "list",
        "dict",
        "set",
        "frozenset",
        "tuple",
        "object",
        "type",
        "complex",
        "range",
        "memoryview",
        "None",
    }
)
