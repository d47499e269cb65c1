"""Tool classes: a class that is a tool because of what it derives from (LangChain's `BaseTool`),
read with `ast` through the project's classes and the installed packages' ones, never imported.

A framework that makes tools of classes names its base class; a class whose bases lead there,
through classes of the project or of an installed package (a mixin, a package's own base for
a family of tools), is a tool class. `ToolClass.chain` is the order Python looks attributes up
in (the class first, then its bases depth first, left to right, each once: the method
resolution order of the single inheritance and mixins tool classes are written with), up to the
framework's base, which is left out: what the class says of itself (`name = "search"`,
`args_schema = SearchInput`, `def _run(...)`) is read from the first class of the chain that
says it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from toolgen.read.index import LIBRARY, Module, ModuleIndex

#: How many classes deep a chain is followed: tool hierarchies are shallow, and a cycle
#: (a name rebound to a subclass of itself) must end.
MAX_DEPTH = 16


@dataclass(frozen=True)
class ClassLink:
    """One class of a chain: its definition and the module it is written in."""

    module: Module
    node: ast.ClassDef

    def statements(self) -> Iterator[ast.stmt]:
        """The class body's statements, those under `if`/`try` included (both branches, as
        neither can be decided here: the first that binds a name is taken)."""
        stack = list(reversed(self.node.body))
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, ast.If | ast.Try):
                inner = [*stmt.body, *getattr(stmt, "orelse", []), *getattr(stmt, "finalbody", [])]
                stack.extend(reversed(inner))
                continue
            yield stmt


@dataclass(frozen=True)
class ToolClass:
    """A class that is a tool of the framework whose base `base` it derives from."""

    chain: tuple[ClassLink, ...]
    base: str

    @property
    def own(self) -> ClassLink:
        return self.chain[0]

    def attribute(self, name: str) -> tuple[ast.expr, ClassLink] | None:
        """The value the class gives `name` in its body (`name = ...`, `name: str = ...`),
        from the first class of the chain that gives one, and that class."""
        for link in self.chain:
            for stmt in link.statements():
                if isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == name for t in stmt.targets
                ):
                    return stmt.value, link
                if (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and stmt.target.id == name
                    and stmt.value is not None
                ):
                    return stmt.value, link
        return None

    def method(self, name: str) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassLink] | None:
        """The `def name` of the first class of the chain that has one, and that class."""
        for link in self.chain:
            for stmt in link.statements():
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
                    return stmt, link
        return None

    def binding(self, name: str) -> tuple[ast.stmt, ClassLink] | None:
        """The statement of the first class of the chain that binds `name` (a `def`, or an
        assignment: `_run = helper`), and that class: what Python finds on the class."""
        for link in self.chain:
            for stmt in link.statements():
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
                    return stmt, link
                targets = stmt.targets if isinstance(stmt, ast.Assign) else []
                if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                    targets = [stmt.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    return stmt, link
        return None


class Unfollowed(Exception):
    """A class's bases were not all followed (past `MAX_DEPTH` classes, into a library file
    that cannot be read) and those followed reach no framework's base: whether it is a tool
    class is not known (`chain` holds the classes followed, `why` the first base not)."""

    def __init__(self, chain: tuple[ClassLink, ...], why: str) -> None:
        super().__init__(why)
        self.chain = chain
        self.why = why


def tool_class(
    module: Module, node: ast.ClassDef, index: ModuleIndex, bases: frozenset[str]
) -> ToolClass | None:
    """`node` as a tool class of the framework whose base classes are `bases` (dotted
    paths), or None when none of its bases leads to one of them; `Unfollowed` when a base
    not followed might."""
    chain: list[ClassLink] = []
    cut: list[str] = []
    found = _walk(ClassLink(module, node), index, bases, chain, 0, cut)
    if found is None and cut:
        raise Unfollowed(tuple(chain), cut[0])
    return ToolClass(tuple(chain), found) if found is not None else None


def _walk(
    link: ClassLink,
    index: ModuleIndex,
    bases: frozenset[str],
    chain: list[ClassLink],
    depth: int,
    cut: list[str],
) -> str | None:
    """Add `link` and its bases to `chain` (each class once); the framework base reached.
    Why a base is not followed goes to `cut`."""
    if any(c.node is link.node for c in chain):
        return None
    if depth > MAX_DEPTH:
        cut.append(f"its bases go on more than {MAX_DEPTH} classes deep")
        return None
    chain.append(link)
    reached: str | None = None
    for base in link.node.bases:
        expr = base.value if isinstance(base, ast.Subscript) else base  # `Base[T]`
        step = _base(link.module, expr, index, bases, cut)
        if isinstance(step, str):
            reached = reached or step
        elif step is not None:
            reached = _walk(step, index, bases, chain, depth + 1, cut) or reached
    return reached


def _base(
    module: Module, expr: ast.expr, index: ModuleIndex, bases: frozenset[str], cut: list[str]
) -> ClassLink | str | None:
    """What a base class expression is: a framework base (its path), a class toolgen can
    read (of the project, else of an installed package), or None (in a library file that
    cannot be read: why, to `cut`)."""
    symbol = index.resolve_expr(module, expr)
    if symbol is None:
        return None
    if symbol.is_external:
        if symbol.path in bases:
            return symbol.path
        path = symbol.path
        symbol = index.resolve_library(path)
        if symbol is None or symbol.is_external:
            why = index.unreadable_behind((LIBRARY, path))
            if why:
                cut.append(f"its base `{path}` is in a library file toolgen cannot read: {why}")
            return None
    if symbol.path in bases:
        return symbol.path
    if symbol.kind == "class" and isinstance(symbol.node, ast.ClassDef):
        assert symbol.module is not None
        return ClassLink(symbol.module, symbol.node)
    return None
