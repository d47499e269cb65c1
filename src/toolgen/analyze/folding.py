"""Static value folding: what an expression evaluates to, read from source and never run.

`fold` is the one way the compiler reads a value: decorator options, parameter defaults,
`Field(...)` and `Annotated` metadata, enum members. Besides literals it follows names to
what binds them (module constants, through imports into other project modules, class
attributes, enum members, and in a nested handler the enclosing functions' parameter
defaults and straight-line assignments: `toolgen.analyze.scopes`), and computes what Python
would compute from those values alone:

- `+ - * / // % **` and `| & ^ <<` on numbers, `+` (and `*` by a number) on strings, tuples
  and lists, `|` on sets and dicts, unary `- + ~ not`, comparisons, `and`/`or`, `x if c else y`,
  subscripts and slices, containers with `*`/`**` unpacking;
- f-strings, `str.format` and `%`, each with plain placeholders only: no attribute or index
  in a field, widths and precisions of up to 3 digits, and not the locale's `n`;
- a few pure builtins (`list tuple set frozenset sorted dict len str int float bool`) and
  string and dict methods (`lower upper strip ... replace split join format`, `dict.get`);
- calls of the project's small helper functions: arguments bound as Python binds them, then
  a body of assignments, `if`s and `return`s evaluated (`annotations=read_only()`);
- calls of `records` (classes like `ToolAnnotations(...)`), taken as the dict of their
  keyword arguments.

What depends on run time raises `NotStatic` with the node and why. Sets become sorted lists
(as FastMCP publishes tags); the order of a set unpacked into a list is refused, as it is
decided by string hashing at run time. Values are JSON-ready: tuples are lists, enum members
their values.

This module folds names, containers and operators; `fold_text` folds f-strings and formatting,
`fold_enums` enum members, `fold_calls` calls, and `fold_base` holds what they share.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolgen.analyze.fold_base import (
    MAX_CHAIN,
    MAX_INT_BITS,
    MAX_LENGTH,
    MAX_STEPS,
    Ctx,
    EnumKind,
    Loop,
    Member,
    NotStatic,
    equal_form,
    is_int,
    plain,
    singleton,
    source,
    type_name,
    which,
)
from toolgen.analyze.fold_calls import CallFolder
from toolgen.analyze.fold_enums import ENUM_BASES, EnumFolder
from toolgen.analyze.fold_text import TextFolder
from toolgen.analyze.literals import jsonable, literal_value
from toolgen.analyze.scopes import Binding, Scope, ScopeNode
from toolgen.read.index import Module, ModuleIndex, Symbol
from toolgen.read.registration.operators import BINARY, COMPARE

__all__ = ["ENUM_BASES", "Folder", "Member", "NotStatic", "enum_values", "fold"]

# Python's operators on constants: the interpreter's own tables (`registration.operators`)
_BINARY = BINARY
_COMPARE = COMPARE
_KINDS = {
    "Lambda": "a lambda",
    "Await": "an `await`",
    "Yield": "a `yield`",
    "YieldFrom": "a `yield`",
    "NamedExpr": "an assignment expression",
    "Starred": "an unpacking",
}


def fold(
    node: ast.expr,
    module: Module,
    index: ModuleIndex,
    scope: Scope | None = None,
    *,
    records: Callable[[str], bool] | None = None,
) -> Any:
    """The JSON-ready value of `node`, written in `module` (inside the functions of `scope`,
    if given); `NotStatic` when it depends on run time. `records(path)`: whether a call of
    the class or function at that dotted path folds to the dict of its keyword arguments."""
    try:  # most values are literals: read them as Python's own reader does, at its speed
        return jsonable(literal_value(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass  # not a literal, or one without a JSON form: the folder says which part
    folder = Folder(index, records)
    return folder.data(folder.value(node, Ctx(module, scope)), node, module)


def enum_values(cls: ast.ClassDef, module: Module, index: ModuleIndex) -> dict[str, Any]:
    """Each member's JSON-ready value, as `enum` assigns it (`auto()` included)."""
    folder = Folder(index, None)
    kind = folder.enums.kind(cls, module) or EnumKind(False, "name", "name", None, False)
    raw = folder.enums.raw(cls, module, kind)
    return {name: folder.data(value, cls, module) for name, value in raw.items()}


class Generated(list[Any]):
    """What a generator expression yields: its items, to be consumed (`tuple(...)`); as a
    value of its own it is a generator, no data."""


class Folder:
    """Folds expressions; its parts fold text, enum members and calls."""

    def __init__(self, index: ModuleIndex, records: Callable[[str], bool] | None) -> None:
        self.index = index
        self.records = records or (lambda path: False)
        self.steps = 0
        self.chain: list[tuple[str, str]] = []  # (key, shown) of the names and calls followed
        self.text = TextFolder(self)
        self.enums = EnumFolder(self)
        self.calls = CallFolder(self)
        #: what each name followed folded to (`A = (B, B)` reads `B` once)
        self.memo: dict[str, Any] = {}

    # -- entry -----------------------------------------------------------------------------
    def value(self, node: ast.AST, ctx: Ctx) -> Any:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise NotStatic(node, ctx.module, f"`{source(node)}` takes too many steps to fold")
        method: Callable[[Any, Ctx], Any] | None = getattr(
            self, f"fold_{type(node).__name__}", None
        )
        if method is None:
            kind = _KINDS.get(type(node).__name__, "an expression toolgen does not evaluate")
            raise NotStatic(node, ctx.module, f"`{source(node)}` is {kind}")
        return method(node, ctx)

    def data(self, value: Any, node: ast.AST, module: Module) -> Any:
        if isinstance(value, Generated):
            raise NotStatic(node, module, f"`{source(node)}` is a generator")
        try:
            return jsonable(plain(value))
        except (ValueError, RecursionError) as exc:
            raise NotStatic(node, module, f"`{source(node)}`: {exc}") from None

    # -- literals and containers -------------------------------------------------------------
    def fold_Constant(self, node: ast.Constant, ctx: Ctx) -> Any:
        try:
            jsonable(node.value)
        except ValueError as exc:  # `1e999`, `1j`, `...`: Python values JSON has no form for
            raise NotStatic(node, ctx.module, f"`{source(node)}`: {exc}") from None
        return node.value

    def fold_List(self, node: ast.List, ctx: Ctx) -> list[Any]:
        return self.items(node.elts, ctx, ordered=True)

    def fold_Tuple(self, node: ast.Tuple, ctx: Ctx) -> tuple[Any, ...]:
        return tuple(self.items(node.elts, ctx, ordered=True))

    def fold_Set(self, node: ast.Set, ctx: Ctx) -> set[Any]:
        items = self.items(node.elts, ctx, ordered=False)
        made: set[Any] = self.guard(node, ctx, lambda: {equal_form(item) for item in items})
        return made

    def items(self, nodes: list[ast.expr], ctx: Ctx, *, ordered: bool) -> list[Any]:
        out: list[Any] = []
        for node in nodes:
            if isinstance(node, ast.Starred):
                out.extend(self.iterate(self.value(node.value, ctx), node, ctx, ordered=ordered))
                self.check_size(out, node, ctx)
            else:
                out.append(self.value(node, ctx))
        return out

    # -- comprehensions: each `for` over a folded iterable, its `if`s folded per item --------
    def fold_ListComp(self, node: ast.ListComp, ctx: Ctx) -> list[Any]:
        return [value for _, value in self.comprehension(node, node.elt, ctx, ordered=True)]

    def fold_GeneratorExp(self, node: ast.GeneratorExp, ctx: Ctx) -> Generated:
        made = self.comprehension(node, node.elt, ctx, ordered=True)
        return Generated(value for _, value in made)

    def fold_SetComp(self, node: ast.SetComp, ctx: Ctx) -> set[Any]:
        items = [value for _, value in self.comprehension(node, node.elt, ctx, ordered=False)]
        made: set[Any] = self.guard(node, ctx, lambda: {equal_form(item) for item in items})
        return made

    def fold_DictComp(self, node: ast.DictComp, ctx: Ctx) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for local, value in self.comprehension(node, node.value, ctx, ordered=True):
            key = equal_form(self.value(node.key, local))
            self.guard(node.key, ctx, lambda: out.__setitem__(key, value))  # noqa: B023
        return out

    def comprehension(
        self, node: ast.expr, element: ast.expr, ctx: Ctx, *, ordered: bool
    ) -> list[tuple[Ctx, Any]]:
        """Each item a comprehension makes, with the names its `for`s bound (Python runs
        the loops nested, left to right, and an `if` skips an item)."""
        generators: list[ast.comprehension] = getattr(node, "generators", [])
        made: list[tuple[Ctx, Any]] = []

        def run(at: int, here: Ctx) -> None:
            if at == len(generators):
                made.append((here, self.value(element, here)))
                self.check_size(made, node, ctx)
                return
            loop = generators[at]
            if loop.is_async:
                raise NotStatic(loop.iter, ctx.module, f"`{source(node)}` is asynchronous")
            iterable = self.value(loop.iter, here)
            for item in self.iterate(iterable, loop.iter, ctx, ordered=ordered):
                inner = Ctx(here.module, here.scope, {**(here.local or {})})
                self.unpack(loop.target, item, inner, node)
                if all(self.truth(self.value(test, inner)) for test in loop.ifs):
                    run(at + 1, inner)

        run(0, ctx)
        return made

    def unpack(self, target: ast.expr, item: Any, ctx: Ctx, node: ast.expr) -> None:
        """Bind a comprehension's target (a name, or a tuple of them) to `item`."""
        assert ctx.local is not None
        if isinstance(target, ast.Name):
            ctx.local[target.id] = item
            return
        parts = target.elts if isinstance(target, ast.Tuple | ast.List) else None
        if parts is not None and isinstance(item, tuple | list) and len(parts) == len(item):
            for part, value in zip(parts, item, strict=True):
                self.unpack(part, value, ctx, node)
            return
        why = f"`{source(target)}` in `{source(node)}` unpacks what toolgen does not bind"
        raise NotStatic(target, ctx.module, why)

    def fold_Dict(self, node: ast.Dict, ctx: Ctx) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for key, item in zip(node.keys, node.values, strict=True):
            value = self.value(item, ctx)
            if key is None:
                if not isinstance(value, dict):
                    why = f"`**{source(item)}` unpacks a {type_name(value)}, not a dict"
                    raise NotStatic(item, ctx.module, why)
                out.update(value)
                continue
            k = equal_form(self.value(key, ctx))
            self.guard(key, ctx, lambda: out.__setitem__(k, value))  # noqa: B023
        return out

    def iterate(self, value: Any, node: ast.AST, ctx: Ctx, *, ordered: bool) -> list[Any]:
        if isinstance(value, set | frozenset) and ordered:
            why = (
                f"`{source(node)}` puts a set's items in a row, in an order decided at run time "
                "(use sorted(...))"
            )
            raise NotStatic(node, ctx.module, why)
        if isinstance(value, str | list | tuple | set | frozenset | dict | bytes):
            return list(value)
        raise NotStatic(node, ctx.module, f"`{source(node)}` is a {type_name(value)}, not iterable")

    # -- names -------------------------------------------------------------------------------
    def fold_Name(self, node: ast.Name, ctx: Ctx) -> Any:
        if ctx.local is not None and node.id in ctx.local:
            return ctx.local[node.id]
        if ctx.scope is not None and ctx.scope.module is ctx.module:
            found = ctx.scope.lookup(node)
            if found is not None:
                return self.bound(node, ctx, ctx.scope, *found)
        symbol = self.index.resolve(ctx.module, node.id)
        if symbol is None:
            raise NotStatic(node, ctx.module, self.undefined(node.id, ctx.module))
        return self.symbol(symbol, node, ctx)

    def bound(
        self, node: ast.Name, ctx: Ctx, scope: Scope, frame: ScopeNode, binding: Binding
    ) -> Any:
        """A name a function around `node` binds: a parameter (its default), or a local."""
        name, owner = node.id, _frame_name(frame)
        if binding.param:
            if binding.value is None:
                why = (
                    f"`{name}` is a parameter of `{owner}` without a default: its value is "
                    f"known only when `{owner}` is called"
                )
                raise NotStatic(node, ctx.module, why)
            outer = Ctx(ctx.module, scope.outer(frame))
            return self.follow(node, ctx, binding.value, outer, f"param:{id(binding.at)}")
        if binding.value is None:
            raise NotStatic(node, ctx.module, f"`{name}` {binding.why}")
        at = binding.at
        end = (getattr(at, "end_lineno", 0) or 0, getattr(at, "end_col_offset", 0) or 0)
        if end > (node.lineno, node.col_offset):
            line = getattr(at, "lineno", 0)
            why = f"`{name}` is assigned in `{owner}` only after this point (line {line})"
            raise NotStatic(node, ctx.module, why)
        return self.follow(node, ctx, binding.value, ctx, f"local:{id(binding.value)}")

    def symbol(self, symbol: Symbol, node: ast.expr, ctx: Ctx) -> Any:
        """The value of what a module-level name (or dotted name) resolves to."""
        shown = source(node)
        if symbol.module is None:
            raise NotStatic(node, ctx.module, self.outside(shown, symbol.path))
        if symbol.kind == "assign" and isinstance(symbol.node, ast.expr):
            return self.follow(node, ctx, symbol.node, Ctx(symbol.module), symbol.path)
        if symbol.kind == "member" and isinstance(symbol.node, ast.ClassDef):
            return self.enums.member(symbol, symbol.node, symbol.module, node, ctx)
        kinds = {"class": "a class", "function": "a function", "module": "a module"}
        what = kinds.get(symbol.kind, "no value")
        raise NotStatic(node, ctx.module, f"`{shown}` is {what}, not a value")

    def follow(self, node: ast.expr, ctx: Ctx, value: ast.expr, home: Ctx, key: str) -> Any:
        """Fold `value`, which the name `node` is bound to; a failure inside says so."""
        if key in self.memo:
            return self.memo[key]
        shown = source(node)
        self.enter(key, shown, node, ctx)
        try:
            self.memo[key] = folded = self.value(value, home)
            return folded
        except NotStatic as exc:
            where = "" if home.module is ctx.module else f" ({home.module.location(value)})"
            head = f"`{shown}` is bound to `{source(value)}`{where}"
            raise self.wrap(exc, head, value, node, ctx) from None
        finally:
            self.chain.pop()

    def enter(self, key: str, shown: str, node: ast.AST, ctx: Ctx) -> None:
        if any(k == key for k, _ in self.chain):
            start = next(i for i, (k, _) in enumerate(self.chain) if k == key)
            names = " -> ".join([*(s for _, s in self.chain[start:]), shown])
            raise Loop(node, ctx.module, f"`{shown}` refers back to itself ({names})")
        if len(self.chain) >= MAX_CHAIN:
            why = f"`{shown}` is bound through more than {MAX_CHAIN} names or calls"
            raise NotStatic(node, ctx.module, why)
        self.chain.append((key, shown))

    def wrap(self, exc: NotStatic, head: str, inner: ast.AST, node: ast.AST, ctx: Ctx) -> NotStatic:
        """`exc`, raised inside what `node` stands for, told from `node`: located at the
        innermost node when it is in this module, else at `node`."""
        if isinstance(exc, Loop):  # its message names every step already
            why = exc.why
        elif exc.node is inner:
            why = which(head, exc.why, source(inner))
        else:
            why = f"{head}; {exc.why}"
        if isinstance(exc, Loop):
            return Loop(exc.node if exc.module is ctx.module else node, ctx.module, why)
        if exc.module is ctx.module:
            return NotStatic(exc.node, ctx.module, why)
        return NotStatic(node, ctx.module, why)

    def undefined(self, name: str, module: Module) -> str:
        """Why a name that resolves to nothing has no value."""
        head, _, rest = name.partition(".")
        binding = module.names.get(head)
        if binding is not None and binding.kind == "import":
            target = f"{binding.target}.{rest}" if rest else binding.target
            unread = self.unreadable(target)
            if unread:
                return f"`{name}` is imported from `{unread}`, which toolgen could not read"
            return f"`{name}` is imported as `{target}`, which toolgen cannot find"
        return f"`{name}` is not defined in module `{module.name}`"

    def outside(self, shown: str, path: str) -> str:
        """Why a name that resolves outside the project has no value here."""
        if path.startswith("builtins."):
            return f"`{shown}` is the builtin `{path.removeprefix('builtins.')}`, not a value"
        unread = self.unreadable(path)
        if unread:
            return f"`{shown}` is imported from `{unread}`, which toolgen could not read"
        named = "" if shown == path else f" `{path}`,"
        return (
            f"`{shown}` is{named} from outside the project's sources, which toolgen does not read"
        )

    def unreadable(self, path: str) -> str | None:
        """The module of `path` that has a file on the search roots the index could not read
        (a syntax error, an encoding: its own diagnostic says which), if that is where the
        resolution of `path` stopped."""
        parts = path.split(".")
        for i in range(len(parts), 0, -1):
            name, rel = ".".join(parts[:i]), Path(*parts[:i])
            for root in self.index.search_roots:
                if (root / rel / "__init__.py").is_file() or (root / f"{rel}.py").is_file():
                    return name if self.index.get(name) is None else None
        return None

    # -- attributes and subscripts ------------------------------------------------------------
    def fold_Attribute(self, node: ast.Attribute, ctx: Ctx) -> Any:
        if not self.is_local(node, ctx):
            symbol = self.index.resolve_expr(ctx.module, node)
            if symbol is not None:
                return self.symbol(symbol, node, ctx)
        owner = self.value(node.value, ctx)
        if isinstance(owner, Member) and node.attr in ("value", "name"):
            return owner.value if node.attr == "value" else owner.name
        why = f"`{source(node)}` reads attribute `{node.attr}` of a {type_name(owner)}"
        raise NotStatic(node, ctx.module, why)

    def is_local(self, node: ast.expr, ctx: Ctx) -> bool:
        """Is the head of a dotted name bound in a helper or a function around it?"""
        head = node
        while isinstance(head, ast.Attribute):
            head = head.value
        if not isinstance(head, ast.Name):
            return True
        if ctx.local is not None and head.id in ctx.local:
            return True
        scope = ctx.scope
        return scope is not None and scope.module is ctx.module and scope.lookup(head) is not None

    def fold_Subscript(self, node: ast.Subscript, ctx: Ctx) -> Any:
        owner = self.value(node.value, ctx)
        if isinstance(node.slice, ast.Slice):
            parts = (node.slice.lower, node.slice.upper, node.slice.step)
            key: Any = slice(*(None if p is None else self.value(p, ctx) for p in parts))
        else:
            key = equal_form(self.value(node.slice, ctx))
        if not isinstance(owner, str | bytes | list | tuple | dict):
            raise NotStatic(node, ctx.module, f"`{source(node)}` indexes a {type_name(owner)}")
        return self.guard(node, ctx, lambda: owner[key])

    # -- operators ---------------------------------------------------------------------------
    def fold_BinOp(self, node: ast.BinOp, ctx: Ctx) -> Any:
        left = equal_form(self.value(node.left, ctx))
        right = equal_form(self.value(node.right, ctx))
        if isinstance(node.op, ast.Mod) and isinstance(left, str):
            return self.text.percent(left, right, node, ctx)
        apply = _BINARY.get(type(node.op))
        if apply is None or isinstance(left, Member) or isinstance(right, Member):
            why = f"`{source(node)}` applies an operator toolgen does not evaluate here"
            raise NotStatic(node, ctx.module, why)
        self.check_operands(node, left, right, ctx)
        result = self.guard(node, ctx, lambda: apply(left, right))
        self.check_size(result, node, ctx)
        return result

    def check_operands(self, node: ast.BinOp, left: Any, right: Any, ctx: Ctx) -> None:
        """Refuse what would make a huge value before making it."""
        sequence = (str, bytes, list, tuple)
        big = False
        if isinstance(node.op, ast.Mult):
            for seq, count in ((left, right), (right, left)):
                if isinstance(seq, sequence) and isinstance(count, int):
                    big = big or len(seq) * max(count, 0) > MAX_LENGTH
        elif isinstance(node.op, ast.Pow) and is_int(left) and is_int(right):
            big = right > 0 and abs(left).bit_length() * right > MAX_INT_BITS
        elif isinstance(node.op, ast.LShift) and is_int(right):
            big = right > MAX_INT_BITS
        if big:
            raise NotStatic(node, ctx.module, f"`{source(node)}` makes a value too large to fold")

    def check_size(self, value: Any, node: ast.AST, ctx: Ctx) -> None:
        too_long = isinstance(value, str | bytes | list | tuple) and len(value) > MAX_LENGTH
        too_big = is_int(value) and value.bit_length() > MAX_INT_BITS
        if too_long or too_big:
            raise NotStatic(node, ctx.module, f"`{source(node)}` makes a value too large to fold")

    def fold_UnaryOp(self, node: ast.UnaryOp, ctx: Ctx) -> Any:
        value = self.value(node.operand, ctx)
        if isinstance(node.op, ast.Not):
            return not self.truth(value)
        value = equal_form(value)
        ops: dict[type[ast.unaryop], Callable[[Any], Any]] = {
            ast.USub: operator.neg,
            ast.UAdd: operator.pos,
            ast.Invert: operator.invert,
        }
        if not isinstance(value, int | float):
            why = f"`{source(node)}` applies a sign to a {type_name(value)}"
            raise NotStatic(node, ctx.module, why)
        return self.guard(node, ctx, lambda: ops[type(node.op)](value))

    def fold_BoolOp(self, node: ast.BoolOp, ctx: Ctx) -> Any:
        value: Any = None
        for operand in node.values:
            value = self.value(operand, ctx)
            if self.truth(value) is isinstance(node.op, ast.Or):
                return value
        return value

    def fold_Compare(self, node: ast.Compare, ctx: Ctx) -> bool:
        left = self.value(node.left, ctx)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.value(comparator, ctx)
            if isinstance(op, ast.Is | ast.IsNot):
                if not (singleton(left) or singleton(right)):
                    why = f"`{source(node)}` compares identities, which the interpreter decides"
                    raise NotStatic(node, ctx.module, why)
                same = left is right if not isinstance(left, Member) else left == right
                result = same if isinstance(op, ast.Is) else not same
            else:
                compare = _COMPARE[type(op)]
                a, b = equal_form(left, deep=True), equal_form(right, deep=True)
                result = bool(self.guard(node, ctx, lambda: compare(a, b)))  # noqa: B023
            if not result:
                return False
            left = right
        return True

    def fold_IfExp(self, node: ast.IfExp, ctx: Ctx) -> Any:
        branch = node.body if self.truth(self.value(node.test, ctx)) else node.orelse
        return self.value(branch, ctx)

    def truth(self, value: Any) -> bool:
        if isinstance(value, Member):
            return bool(value.value) if value.mixed else True
        return bool(value)

    def guard(self, node: ast.AST, ctx: Ctx, compute: Callable[[], Any]) -> Any:
        """What `compute` returns; NotStatic when Python would raise there too."""
        try:
            return compute()
        except (TypeError, ValueError, ArithmeticError, LookupError) as exc:
            why = f"`{source(node)}` raises {type(exc).__name__} ({exc})"
            raise NotStatic(node, ctx.module, why) from None

    # -- the parts ---------------------------------------------------------------------------
    def fold_JoinedStr(self, node: ast.JoinedStr, ctx: Ctx) -> str:
        return self.text.joined(node, ctx)

    def fold_Call(self, node: ast.Call, ctx: Ctx) -> Any:
        return self.calls.call(node, ctx)


def _frame_name(frame: ScopeNode) -> str:
    return "<lambda>" if isinstance(frame, ast.Lambda) else frame.name
