"""The evaluator's data: frames (the names a scope binds), control signals, where a function
is written, and how the values of branches toolgen cannot choose between are joined."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from toolgen.read.index import Module
from toolgen.read.registration.effects import Effect
from toolgen.read.registration.values import (
    Bound,
    Class,
    Const,
    External,
    Function,
    Method,
    Partial,
    Unknown,
    Value,
    unwrap,
)


class OutOfBudget(Exception):
    """A unit's steps or time ran out: it stops where it is (its effects so far are kept)."""

    def __init__(self, why: str, node: ast.AST | None, timed: bool = False) -> None:
        super().__init__(why)
        self.why = why
        self.node = node
        self.timed = timed  # the unit's time ran out (else its steps)


@dataclass(eq=False)
class Frame:
    """The names one scope binds. `parent` is the frame names are looked up in next (a
    function's closure, never a class body); the module's frame has none. `prefix` is the
    qualname of what is defined here (`f.<locals>.`, `C.`)."""

    module: Module
    names: dict[str, Value]
    parent: Frame | None
    prefix: str = ""
    class_node: ast.ClassDef | None = None  # a class body's frame
    function: Function | None = None  # a call's frame
    first: Value | None = None  # the call's first argument (`self`, for `super()`)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)
    maybe_returned: list[Value] = field(default_factory=list)  # by an undecided branch

    @property
    def is_module(self) -> bool:
        return self.parent is None


@dataclass
class ModuleState:
    module: Module
    frame: Frame
    effects: list[Effect] = field(default_factory=list)
    done: bool = False
    #: where the functions its evaluation ran (with the modules it imported) are written, and
    #: those it registered: what a unit skips of the unreached ones depends on nothing else
    reached: set[Place] = field(default_factory=set)
    registered: set[Place] = field(default_factory=set)
    #: the modules its evaluation looked up (`ModuleIndex.touched`), told again to every unit
    #: that imports it later: a unit's cache entry depends on them too
    touched: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Return:
    value: Value


class Break:
    pass


class Continue:
    pass


class Raise:
    pass


class Raising(Exception):
    """A call that raises where the server starts, whatever its arguments (a request over
    the network: there is none): it unwinds the calls in progress, as Python's exception
    does, to the `try` whose body it interrupts (`FAILED`)."""

    def __init__(self, why: str, node: ast.AST | None) -> None:
        super().__init__(why)
        self.why = why
        self.node = node


Place = tuple[str, int, int, str]


def place(function: Function) -> Place:
    """Where `function` is written (its file, line and column), and its dotted name."""
    node = function.node
    module = function.module
    return (str(module.path), node.lineno, node.col_offset, f"{module.name}.{function.qualname}")


Signal = Return | Break | Continue | Raise | None
BREAK, CONTINUE, RAISE = Break(), Continue(), Raise()
#: A statement interrupted by `Raising`: unlike a `raise` statement's `RAISE`, the function it
#: is in raises it on to its caller.
FAILED = Raise()


def bind_member(value: Value, instance: Value, cls: Class) -> Value:
    """A class attribute read through an instance (or the class): functions bind."""
    if not isinstance(value, Function) or not value.in_class:
        return value
    if value.kind == "static":
        return value
    if value.kind == "class":
        return Bound(value, cls)
    if isinstance(instance, Class):
        return value  # `Class.method`: the plain function
    return Bound(value, instance)


def join(values: list[Value], unknown: Callable[[str, ast.AST | None], Unknown]) -> Value:
    """One value for several that branches toolgen cannot choose between give: theirs when
    they agree, else unknown."""
    first = values[0]
    if all(same(first, v) for v in values[1:]):
        return first
    function = unwrap(first)
    if function is not None and all(unwraps_to(v, function) for v in values[1:]):
        return first  # `sync_wrapper if ... else async_wrapper`, both `wraps(fn)`: fn's
    return unknown("a value that depends on a branch toolgen cannot decide", None)


def made_by_class(value: Unknown) -> bool:
    """Whether `value` is an instance of a class from outside the project that is no
    preset's server class (`fastmcp.FastMCP(...)` when only `mcp` is configured): a class,
    as Python names them, is capitalised. What a function gives (`lib.create_server()`) may
    be a server."""
    name = (value.made_by or "").rpartition(".")[2]
    return name[:1].isupper()


def unwraps_to(value: Value, function: Function) -> bool:
    found = unwrap(value)
    return found is not None and found.node is function.node


def same(a: Value, b: Value) -> bool:
    if isinstance(a, Const) and isinstance(b, Const):
        return type(a.value) is type(b.value) and a.value == b.value
    return a is b or (isinstance(a, External | Bound | Method) and a == b)


def join_names(
    after: list[dict[str, Value]], unknown: Callable[[str, ast.AST | None], Unknown]
) -> dict[str, Value]:
    joined: dict[str, Value] = {}
    for name in dict.fromkeys(n for names in after for n in names):
        values = [names[name] for names in after if name in names]
        joined[name] = join(values, unknown)  # a name a branch leaves unbound: the others'
    return joined


def load(target: ast.expr) -> ast.expr:
    """`x` of `x += 1` read as an expression (its context is Store in the tree)."""
    copied = ast.parse(ast.unparse(target), mode="eval").body
    return ast.copy_location(copied, target)


def name_of(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return ""


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
#: Whether each function's body yields, kept while its syntax tree lives.
_GENERATORS: weakref.WeakKeyDictionary[ast.AST, bool] = weakref.WeakKeyDictionary()


def is_generator(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> bool:
    """Whether `node`'s own body yields (not a function nested in it)."""
    key = node
    if key not in _GENERATORS:
        stack: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
        found = False
        while stack and not found:
            current = stack.pop()
            if isinstance(current, ast.Yield | ast.YieldFrom):
                found = True
            elif not isinstance(current, _SCOPES):
                stack.extend(ast.iter_child_nodes(current))
        _GENERATORS[key] = found
    return _GENERATORS[key]


def call_kind(value: Value) -> str | None:
    """What calling `value` makes, when it is a project function (through bound methods and
    partials; a wrapper is what is called, not what it wraps): "value" (its body runs),
    "coroutine", "generator" or "async generator" (its body runs only when awaited or
    iterated, which the caller may never do); None for anything else."""
    for _ in range(16):
        if isinstance(value, Bound):
            value = value.function
        elif isinstance(value, Partial):
            value = value.func
        else:
            break
    if not isinstance(value, Function):
        return None
    node = value.node
    asynchronous = isinstance(node, ast.AsyncFunctionDef)
    if is_generator(node):
        return "async generator" if asynchronous else "generator"
    return "coroutine" if asynchronous else "value"
