"""The functions around an expression, and what their names are bound to, read from source.

A tool defined inside `def create_server(prefix: str = "")` is decorated, and its defaults are
evaluated, each time the factory runs: `name=prefix + "x"` reads the factory's parameter. A
static reader takes the parameter's default, as a server started without arguments would. A
local name counts when it is assigned once, by a plain `name = value` statement of the
function's own body, before it is used; anything else binds it at run time (a loop, a second
assignment, an `if`), and `binding` says so.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field

from toolgen.read.index import Module

ScopeNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef

#: The names each function binds, kept while its syntax tree lives.
_BINDINGS: weakref.WeakKeyDictionary[ast.AST, dict[str, Binding]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Binding:
    """What a name of a function (or class body) is bound to.

    `value`: the expression it is bound to, or None when nothing static binds it, with
    `why` saying what binds it instead (`why` "" and `value` None: a parameter without a
    default). `at`: the statement or parameter that binds it, for messages and ordering.
    `param`: a parameter (its default is evaluated outside the function)."""

    value: ast.expr | None
    at: ast.AST
    why: str = ""
    param: bool = False


class Scope:
    """Where an expression is evaluated: in `module`, inside `frames` (innermost first).

    Built from any node of the module (`Scope(module, node)`: the enclosing functions are
    found by walking the module's tree to it, on first use), or from the frames outside a
    given one (`outer`)."""

    def __init__(self, module: Module, target: ast.AST | None = None) -> None:
        self.module = module
        self._target = target
        self._frames: tuple[ScopeNode, ...] | None = None if target is not None else ()

    @property
    def frames(self) -> tuple[ScopeNode, ...]:
        if self._frames is None:
            self._frames = _frames_around(self.module.tree, self._target)
        return self._frames

    def outer(self, frame: ScopeNode) -> Scope:
        """The scope a frame's parameter defaults and decorators are evaluated in."""
        frames = self.frames
        inner = next((i for i, f in enumerate(frames) if f is frame), len(frames))
        scope = Scope(self.module)
        scope._frames = tuple(f for f in frames[inner + 1 :] if not isinstance(f, ast.ClassDef))
        return scope

    def lookup(self, node: ast.Name) -> tuple[ScopeNode, Binding] | None:
        """The innermost frame around `node` that binds its name, and how; None when no
        frame does (the name is the module's, or a builtin)."""
        for frame in self.frames:
            if not _contains(frame, node):
                continue
            names = _BINDINGS.get(frame)
            if names is None:  # once per function, however many tools it holds
                names = _BINDINGS[frame] = frame_bindings(frame)
            found = names.get(node.id)
            if found is not None and found.why == "global":
                return None
            if found is not None and found.why != "nonlocal":
                return frame, found
        return None


def frame_bindings(frame: ScopeNode) -> dict[str, Binding]:
    """Every name `frame` binds, with what binds it."""
    collector = _Collector(frame)
    if isinstance(frame, ast.Lambda):
        collector.params(frame.args)
        return collector.names
    if not isinstance(frame, ast.ClassDef):
        collector.params(frame.args)
    for stmt in frame.body:
        collector.statement(stmt, top=True)
    return collector.names


@dataclass
class _Collector:
    frame: ScopeNode
    names: dict[str, Binding] = field(default_factory=dict)

    def params(self, args: ast.arguments) -> None:
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
        pairs = list(zip(positional, [*defaults, *args.defaults], strict=True))
        pairs += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
        for arg, default in pairs:
            self.names[arg.arg] = Binding(default, arg, param=True)
        for star in (args.vararg, args.kwarg):
            if star is not None:
                self.names[star.arg] = Binding(None, star, "collects the call's extra arguments")

    def bind(self, name: str, value: ast.expr | None, at: ast.AST, why: str) -> None:
        before = self.names.get(name)
        if before is not None and before.why in ("global", "nonlocal"):
            return
        if before is not None:
            if before.param:
                why = f"is a parameter of `{_name(self.frame)}` assigned again in its body"
            else:
                why = f"is assigned more than once in `{_name(self.frame)}`"
            value = None
        self.names[name] = Binding(value, at if before is None else before.at, why)

    def statement(self, stmt: ast.stmt, *, top: bool) -> None:
        """The names `stmt` binds (`top`: a statement of the frame's own body, not of a
        block inside it), then those of the statements in its blocks."""
        frame = f"`{_name(self.frame)}`"
        if isinstance(stmt, ast.Global | ast.Nonlocal):
            kind = "global" if isinstance(stmt, ast.Global) else "nonlocal"
            for name in stmt.names:
                self.names[name] = Binding(None, stmt, kind)
            return
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            kind = "class" if isinstance(stmt, ast.ClassDef) else "function"
            self.bind(stmt.name, None, stmt, f"is a {kind} defined in {frame}, not a value")
            for node in [*stmt.decorator_list, *_signature_parts(stmt)]:
                self.expression(node)
            return  # its body is a scope of its own
        block = "" if top else f"is assigned inside a block of {frame} (an `if`, a loop, ...)"
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                self.target(target, None if block else stmt.value, stmt, block)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.target(stmt.target, None if block else stmt.value, stmt, block)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            self.bind(stmt.target.id, None, stmt, f"is declared but not assigned in {frame}")
        elif isinstance(stmt, ast.AugAssign):
            self.target(stmt.target, None, stmt, f"is changed by `{_op(stmt)}=` in {frame}")
        elif isinstance(stmt, ast.For | ast.AsyncFor):
            self.target(stmt.target, None, stmt, f"is bound by a `for` loop in {frame}")
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                if item.optional_vars is not None:
                    self.target(item.optional_vars, None, stmt, f"is bound by `with` in {frame}")
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                name = alias.asname or alias.name.split(".")[0]
                self.bind(name, None, stmt, f"is imported inside {frame}")
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                self.target(target, None, stmt, f"is deleted in {frame}")
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                for pattern in ast.walk(case.pattern):
                    captured = getattr(pattern, "name", None)
                    if isinstance(captured, str):
                        why = f"is bound by a `match` pattern in {frame}"
                        self.bind(captured, None, stmt, why)
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                self.statement(child, top=False)
            elif isinstance(child, ast.expr):
                self.expression(child)
            elif isinstance(child, ast.ExceptHandler):
                if child.name:
                    self.bind(child.name, None, child, f"is bound by `except` in {frame}")
                for inner in child.body:
                    self.statement(inner, top=False)
            elif isinstance(child, ast.match_case):
                for inner in child.body:
                    self.statement(inner, top=False)

    def target(self, node: ast.expr, value: ast.expr | None, at: ast.stmt, why: str) -> None:
        """Bind the names of an assignment target: a plain name to `value` (None: to what
        `why` says), the names of an unpacking to nothing static."""
        if isinstance(node, ast.Name):
            self.bind(node.id, value, at, why)
        elif isinstance(node, ast.Tuple | ast.List):
            for element in node.elts:
                self.target(element, None, at, why or f"is unpacked in `{_name(self.frame)}`")
        elif isinstance(node, ast.Starred):
            self.target(node.value, None, at, why)

    def expression(self, node: ast.expr) -> None:
        """`x := ...` binds in the function (also inside a comprehension); lambdas and
        comprehensions bind nothing else here."""
        for child in ast.walk(node):
            if isinstance(child, ast.NamedExpr) and isinstance(child.target, ast.Name):
                where = f"`{_name(self.frame)}`"
                self.bind(child.target.id, None, child, f"is bound by `:=` in {where}")


def _frames_around(tree: ast.Module, target: ast.AST | None) -> tuple[ScopeNode, ...]:
    """The functions (and an innermost class body) whose bodies hold `target`, innermost
    first. A function's decorators, defaults and annotations are evaluated outside it."""
    if target is None or getattr(target, "lineno", None) is None:
        return ()
    try:
        path = _path_to(tree, target, getattr(target, "lineno", 0))
    except RecursionError:
        return ()
    frames: list[ScopeNode] = []
    for parent, child in itertools.pairwise(path):
        if isinstance(parent, ast.Lambda):
            inside = child is parent.body
        elif isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            inside = isinstance(child, ast.stmt)  # its body: its only statements
        else:
            inside = False
        if inside:
            frames.append(parent)  # type: ignore[arg-type]
    # a class body's names are seen by what is evaluated in it, not by its methods' bodies
    kept = [
        f for i, f in enumerate(frames) if not isinstance(f, ast.ClassDef) or i == len(frames) - 1
    ]
    return tuple(reversed(kept))


def _path_to(node: ast.AST, target: ast.AST, line: int) -> list[ast.AST]:
    """The nodes from `node` down to `target` ([] when it is not under it), looking only into
    nodes whose lines hold `line`, the target's."""
    if node is target:
        return [node]
    for child in _children(node, line):
        if child is target or _may_hold(child, line):
            found = _path_to(child, target, line)
            if found:
                return [node, *found]
    return []


def _children(node: ast.AST, line: int) -> Iterator[ast.AST]:
    """The children of `node` that may hold `line`: of a list of statements (a body), found
    by bisection, which are in order and never overlap (an enum's 100,000 members were each
    looked for member by member: N² in all); every other child."""
    for _, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            yield value
        elif not isinstance(value, list):
            continue
        elif value and isinstance(value[0], ast.stmt):
            last = bisect.bisect_right(value, line, key=_start) - 1
            first = last
            while first > 0 and (value[first - 1].end_lineno or 0) >= line:
                first -= 1  # statements that share the line (`a = 1; b = 2`)
            yield from value[max(first, 0) : last + 1]
        else:
            yield from (item for item in value if isinstance(item, ast.AST))


def _start(node: ast.stmt) -> int:
    """The first line of a statement, its decorators' included."""
    decorators = getattr(node, "decorator_list", None)
    return min(node.lineno, *(d.lineno for d in decorators)) if decorators else node.lineno


def _may_hold(node: ast.AST, line: int) -> bool:
    start = getattr(node, "lineno", None)
    if start is None:  # `arguments`, `comprehension`, ...: no position of their own
        return True
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        start = min(start, *(d.lineno for d in decorators))
    end = getattr(node, "end_lineno", None) or start
    return bool(start <= line <= end)


def _contains(frame: ScopeNode, node: ast.AST) -> bool:
    """Is `node` (by position) inside the body of `frame`?"""
    body = [frame.body] if isinstance(frame, ast.Lambda) else frame.body
    first, last = body[0], body[-1]
    line, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
    start = (first.lineno, first.col_offset)
    end = (last.end_lineno or last.lineno, last.end_col_offset or 0)
    return start <= (line, col) <= end


def _signature_parts(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[ast.expr]:
    if isinstance(node, ast.ClassDef):
        return [*node.bases, *(k.value for k in node.keywords)]
    args = node.args
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None)]


def _name(frame: ScopeNode) -> str:
    return "<lambda>" if isinstance(frame, ast.Lambda) else frame.name


def _op(stmt: ast.AugAssign) -> str:
    symbols = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.BitOr: "|"}
    return symbols.get(type(stmt.op), "op")
