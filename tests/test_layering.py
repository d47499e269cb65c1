"""The layering of toolgen's modules, as a test: no import cycles, and the rules of
docs/architecture.md (who may import whom).

Every module under src/toolgen is parsed with `ast` (never imported); every import counts,
at any depth, inside functions too. Imports under `if TYPE_CHECKING:` count for the rules (a
type-only import is still a dependency a reader must follow) but not for cycles: nothing is
imported in a circle at run time, and a visitor whose helpers call back into it (the folder and
its fold_* parts) names its type that way. A package's `__init__` is a module of its own.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "toolgen"

#: Modules that only the entry point may import (`[project.scripts]`, `__main__`).
ENTRY_POINTS = frozenset({"toolgen.entry", "toolgen.__main__"})

#: The run-time package may import only these (and itself).
RUNTIME_ALLOWED = (
    "toolgen.runtime",
    "toolgen.descriptor",
    "toolgen.names",
    "toolgen._marker",
    "toolgen._version",
    "toolgen.schema_ops",
    "toolgen.schema_patterns",
    "toolgen.layout",
    "toolgen.quoting",
)

#: Imports the rules below forbid that the code still makes, in modules other branches of
#: issue 19 are rewriting: (importer, imported) pairs. Each is to go when those land.
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {}

#: Import cycles in modules other branches are rewriting, each to go when those land.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


@dataclass(frozen=True)
class Rule:
    """Modules under `prefix` must not import anything under `forbidden` (and, when
    `only` is given, nothing of toolgen outside `only`)."""

    name: str
    prefix: str
    forbidden: tuple[str, ...] = ()
    only: tuple[str, ...] | None = None


#: The layering, as data: (who, what it must not import).
RULES = (
    Rule(
        "the descriptor model imports nothing of the pipeline",
        "toolgen.descriptor",
        only=("toolgen.descriptor", "toolgen.names", "toolgen.schema_ops", "toolgen._version"),
    ),
    Rule(
        "renderers never import analysis, I/O or caches",
        "toolgen.render",
        forbidden=(
            "toolgen.analyze",
            "toolgen.compiler",
            "toolgen.pipeline",
            "toolgen.output",
            "toolgen.journal",
            "toolgen.removal",
            "toolgen.incremental",
            "toolgen.watch",
            "toolgen.run",
        ),
    ),
    Rule(
        "analysis never imports rendering, writing or caches",
        "toolgen.analyze",
        forbidden=(
            "toolgen.render",
            "toolgen.output",
            "toolgen.journal",
            "toolgen.removal",
            "toolgen.incremental",
            "toolgen.pipeline",
            "toolgen.watch",
            "toolgen.run",
        ),
    ),
    Rule(
        "the reading stage imports nothing of the stages after it",
        "toolgen.read",
        only=("toolgen.read", "toolgen.diagnostics", "toolgen.quoting"),
    ),
    Rule("nothing imports the command line", "toolgen", forbidden=("toolgen.cli",)),
    Rule("the marker imports nothing heavy", "toolgen._marker", only=("toolgen._marker",)),
    Rule(
        "the package's own module imports only the marker and the version",
        "toolgen.__init__",
        only=("toolgen._marker", "toolgen._version", "toolgen.__init__"),
    ),
    Rule(
        "the run-time package never imports the compiler", "toolgen.runtime", only=RUNTIME_ALLOWED
    ),
)


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    typing_only: bool = False  # under `if TYPE_CHECKING:`

    def __str__(self) -> str:
        path = self.importer.replace(".", "/")
        return f"src/{path}.py:{self.line}: imports {self.imported}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts)  # a package's __init__ stays `pkg.__init__`: a module of its own


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted((SRC / PACKAGE).rglob("*.py"))}


def resolve(name: str, known: dict[str, Path]) -> str | None:
    """The module (or package `__init__`) that `import name` reaches; None outside toolgen."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    if name in known:
        return name
    if f"{name}.__init__" in known:
        return f"{name}.__init__"
    return resolve(name.rpartition(".")[0], known) if "." in name else None


def imports_of(name: str, path: Path, known: dict[str, Path]) -> list[Import]:
    """Every import of toolgen's modules in `path`, at any depth; `from pkg import mod`
    counts as an import of `pkg.mod` when that is a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name.rpartition(".")[0] if not name.endswith(".__init__") else name[:-9]
    found: list[Import] = []
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in TYPE_CHECKING_TESTS
        for statement in node.body
        for inner in ast.walk(statement)
    }
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            targets = [_member(origin, alias.name, known) for alias in node.names]
        for target in targets:
            module = resolve(target, known)
            if module is not None and module != name:
                found.append(Import(name, module, node.lineno, id(node) in typing_only))
    return found


def _member(origin: str, name: str, known: dict[str, Path]) -> str:
    """`from origin import name`: the module `origin.name` when there is one, else `origin`."""
    full = f"{origin}.{name}"
    return full if full in known or f"{full}.__init__" in known else origin


TYPE_CHECKING_TESTS = frozenset({"TYPE_CHECKING", "typing.TYPE_CHECKING"})


def run_time(edges: dict[str, list[Import]]) -> dict[str, list[Import]]:
    """The imports that happen when the code runs (not those for the type checker only)."""
    return {name: [e for e in found if not e.typing_only] for name, found in edges.items()}


@functools.cache
def graph() -> dict[str, list[Import]]:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, list[Import]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for edge in edges.get(node, []):
            if edge.imported not in index:
                visit(edge.imported)
                low[node] = min(low[node], low[edge.imported])
            elif edge.imported in on_stack:
                low[node] = min(low[node], index[edge.imported])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def broken(rule: Rule, edges: dict[str, list[Import]]) -> list[Import]:
    """The imports that break `rule`, less the known exceptions."""
    bad = []
    for importer, found in edges.items():
        if not under(importer, rule.prefix):
            continue
        if rule.name.startswith("nothing imports the command line") and importer in ENTRY_POINTS:
            continue
        for edge in found:
            if (edge.importer, edge.imported) in KNOWN_EXCEPTIONS:
                continue
            if any(under(edge.imported, f) for f in rule.forbidden) or (
                rule.only is not None and not any(under(edge.imported, o) for o in rule.only)
            ):
                bad.append(edge)
    return bad


def test_the_graph_sees_the_modules_and_their_imports() -> None:
    edges = graph()
    assert "toolgen.cli" in edges and "toolgen.__init__" in edges
    # a function-level import counts (cli imports the pipeline only when a command needs it)
    assert any(e.imported.startswith("toolgen.") for e in edges["toolgen.cli"])


def test_no_import_cycles() -> None:
    edges = run_time(graph())
    found = [c for c in cycles(edges) if frozenset(c) not in KNOWN_CYCLES]
    lines = []
    for component in found:
        inside = set(component)
        lines.append(" <-> ".join(component))
        shown = {str(e) for m in component for e in edges[m] if e.imported in inside}
        lines.extend(f"    {e}" for e in sorted(shown))
    assert not found, "import cycles:\n" + "\n".join(lines)


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_layering_rule(rule: Rule) -> None:
    bad = sorted({str(e) for e in broken(rule, graph())})
    assert not bad, f"{rule.name}:\n" + "\n".join(f"    {e}" for e in bad)


def test_known_exceptions_are_still_needed() -> None:
    """An exception that no longer happens is to be removed from the table."""
    edges = graph()
    made = {(e.importer, e.imported) for found in edges.values() for e in found}
    assert not set(KNOWN_EXCEPTIONS) - made, "stale KNOWN_EXCEPTIONS entries"
    found = {frozenset(c) for c in cycles(run_time(edges))}
    assert not set(KNOWN_CYCLES) - found, "stale KNOWN_CYCLES entries"


def test_cycle_finder_finds_a_cycle() -> None:
    """The finder itself: a two-module circle and a three-module one are found, a chain is not."""

    def edge(a: str, b: str) -> Import:
        return Import(a, b, 1)

    edges = {
        "a": [edge("a", "b")],
        "b": [edge("b", "a")],
        "c": [edge("c", "d")],
        "d": [edge("d", "e")],
        "e": [edge("e", "c")],
        "f": [edge("f", "a")],
    }
    assert cycles(edges) == [["a", "b"], ["c", "d", "e"]]


def test_type_only_imports_are_told_apart() -> None:
    """An import under `if TYPE_CHECKING:` is marked (and kept for the rules); the same module
    imported at run time is not; and only run-time imports make a cycle."""
    edges = graph()
    back = [
        e for e in edges["toolgen.analyze.fold_calls"] if e.imported == "toolgen.analyze.folding"
    ]
    assert back and all(e.typing_only for e in back)
    forth = [
        e for e in edges["toolgen.analyze.folding"] if e.imported == "toolgen.analyze.fold_calls"
    ]
    assert forth and not any(e.typing_only for e in forth)
    circle = {"a": [Import("a", "b", 1)], "b": [Import("b", "a", 2, typing_only=True)]}
    assert cycles(circle) == [["a", "b"]]
    assert cycles(run_time(circle)) == []
