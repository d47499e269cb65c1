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
"""

from __future__ import annotations

import ast
import operator
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from toolgen.analyze.literals import jsonable, sorted_items
from toolgen.analyze.scopes import Binding, Scope, ScopeNode
from toolgen.index import Module, ModuleIndex, Symbol, dotted_name

ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"})
#: enums whose members print as their value (`str()` and `format()` alike)
VALUE_TEXT_BASES = frozenset({"enum.IntEnum", "enum.StrEnum", "enum.IntFlag", "enum.ReprEnum"})
MIXIN_BASES = frozenset({"builtins.str", "builtins.int", "builtins.float", "builtins.bytes"})
#: the type a member's value is made of, for enums of a mixed-in type
MIXIN_TYPES: dict[str, type] = {
    "builtins.str": str,
    "enum.StrEnum": str,
    "builtins.int": int,
    "enum.IntEnum": int,
    "enum.IntFlag": int,
    "builtins.float": float,
}
#: decorators that leave what a helper returns as its body says
TRANSPARENT_DECORATORS = frozenset({"functools.cache", "functools.lru_cache"})

MAX_CHAIN = 20  # names and calls followed one inside another
MAX_STEPS = 1_000_000  # expressions evaluated for one value
MAX_LENGTH = 100_000  # items of a string or container made
MAX_INT_BITS = 4096

#: a format spec toolgen applies: fill and align, sign, `#`, `0`, a width and precision of up
#: to 3 digits, grouping, and a type other than the locale's `n`
_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?#?0?\d{0,3}[,_]?(?:\.\d{1,3})?[bcdeEfFgGosxX%]?", re.S)
_PERCENT = re.compile(r"%(?:\((\w*)\))?[-+ #0]*\d{0,3}(?:\.\d{1,3})?[sdiouxXeEfFgGcra%]")

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_STR_METHODS = frozenset(
    {"lower", "upper", "strip", "lstrip", "rstrip", "startswith", "endswith", "removeprefix"}
    | {"removesuffix", "replace", "split", "join", "format"}
)
_BUILTINS = frozenset(
    {"list", "tuple", "set", "frozenset", "sorted", "dict", "len", "str", "int", "float", "bool"}
)
_KINDS = {
    "Lambda": "a lambda",
    "ListComp": "a comprehension",
    "SetComp": "a comprehension",
    "DictComp": "a comprehension",
    "GeneratorExp": "a generator",
    "Await": "an `await`",
    "Yield": "a `yield`",
    "YieldFrom": "a `yield`",
    "NamedExpr": "an assignment expression",
    "Starred": "an unpacking",
}


class NotStatic(Exception):
    """An expression whose value is known only at run time: the node (in `module`) and why,
    a phrase that starts with the expression: "`f()` calls `f`, which ..."."""

    def __init__(self, node: ast.AST, module: Module, why: str) -> None:
        super().__init__(why)
        self.node = node
        self.module = module
        self.why = why


class _Loop(NotStatic):
    """A name or helper that leads back to itself (its message lists the way round)."""


#: How an enum member prints through `str()` and through `format()` (f-strings, `.format`):
#: as its name (`Color.RED`), its value, or differently by Python version ("varies": Python 3.11
#: made `format()` of a `(str, Enum)` member its name, and `str()` of an `IntEnum` its value).
Text = Literal["name", "value", "varies"]


@dataclass(frozen=True)
class Member:
    """An enum member, equal only to itself. A member of a mixed-in enum (`class C(str,
    Enum)`) acts as its value in arithmetic, comparisons and sets, as it does in Python."""

    owner: str  # the enum's dotted path
    name: str
    value: Any = field(compare=False)
    mixed: bool = field(default=False, compare=False)
    str_text: Text = field(default="name", compare=False)
    format_text: Text = field(default="name", compare=False)

    def text(self) -> str:
        return f"{self.owner.rpartition('.')[2]}.{self.name}"


@dataclass(frozen=True)
class _EnumKind:
    mixed: bool
    str_text: Text
    format_text: Text
    mixin: type | None  # str, int or float: what each value is made into
    str_enum: bool  # `auto()` gives the name in lower case
    flag: bool = False  # `auto()` gives the next power of two


@dataclass(frozen=True)
class _Ctx:
    """Where an expression is folded: its module, the functions around it, and the values of
    a helper's names while its body runs."""

    module: Module
    scope: Scope | None = None
    local: dict[str, Any] | None = None


_FELL_OFF = object()  # a helper body that ended without `return`


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
        return jsonable(ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass  # not a literal, or one without a JSON form: the folder says which part
    folder = _Folder(index, records)
    return folder.data(folder.value(node, _Ctx(module, scope)), node, module)


def enum_values(cls: ast.ClassDef, module: Module, index: ModuleIndex) -> dict[str, Any]:
    """Each member's JSON-ready value, as `enum` assigns it (`auto()` included)."""
    folder = _Folder(index, None)
    kind = folder.enum_kind(cls, module) or _EnumKind(False, "name", "name", None, False)
    raw = folder.enum_raw(cls, module, kind)
    return {name: folder.data(value, cls, module) for name, value in raw.items()}


class _Folder:
    def __init__(self, index: ModuleIndex, records: Callable[[str], bool] | None) -> None:
        self.index = index
        self.records = records or (lambda path: False)
        self.steps = 0
        self.chain: list[tuple[str, str]] = []  # (key, shown) of the names and calls followed
        self.reading: set[int] = set()  # enums whose member values are being read
        self.enums: dict[int, dict[str, Any]] = {}
        #: what each name followed folded to (`A = (B, B)` reads `B` once)
        self.memo: dict[str, Any] = {}

    # -- entry -----------------------------------------------------------------------------
    def value(self, node: ast.AST, ctx: _Ctx) -> Any:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise NotStatic(node, ctx.module, f"`{_src(node)}` takes too many steps to fold")
        method: Callable[[Any, _Ctx], Any] | None = getattr(
            self, f"fold_{type(node).__name__}", None
        )
        if method is None:
            kind = _KINDS.get(type(node).__name__, "an expression toolgen does not evaluate")
            raise NotStatic(node, ctx.module, f"`{_src(node)}` is {kind}")
        return method(node, ctx)

    def data(self, value: Any, node: ast.AST, module: Module) -> Any:
        try:
            return jsonable(_plain(value))
        except (ValueError, RecursionError) as exc:
            raise NotStatic(node, module, f"`{_src(node)}`: {exc}") from None

    # -- literals and containers -------------------------------------------------------------
    def fold_Constant(self, node: ast.Constant, ctx: _Ctx) -> Any:
        try:
            jsonable(node.value)
        except ValueError as exc:  # `1e999`, `1j`, `...`: Python values JSON has no form for
            raise NotStatic(node, ctx.module, f"`{_src(node)}`: {exc}") from None
        return node.value

    def fold_List(self, node: ast.List, ctx: _Ctx) -> list[Any]:
        return self.items(node.elts, ctx, ordered=True)

    def fold_Tuple(self, node: ast.Tuple, ctx: _Ctx) -> tuple[Any, ...]:
        return tuple(self.items(node.elts, ctx, ordered=True))

    def fold_Set(self, node: ast.Set, ctx: _Ctx) -> set[Any]:
        items = self.items(node.elts, ctx, ordered=False)
        made: set[Any] = self.guard(node, ctx, lambda: {_equal_form(item) for item in items})
        return made

    def items(self, nodes: list[ast.expr], ctx: _Ctx, *, ordered: bool) -> list[Any]:
        out: list[Any] = []
        for node in nodes:
            if isinstance(node, ast.Starred):
                out.extend(self.iterate(self.value(node.value, ctx), node, ctx, ordered=ordered))
                self.check_size(out, node, ctx)
            else:
                out.append(self.value(node, ctx))
        return out

    def fold_Dict(self, node: ast.Dict, ctx: _Ctx) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for key, item in zip(node.keys, node.values, strict=True):
            value = self.value(item, ctx)
            if key is None:
                if not isinstance(value, dict):
                    why = f"`**{_src(item)}` unpacks a {_type(value)}, not a dict"
                    raise NotStatic(item, ctx.module, why)
                out.update(value)
                continue
            k = _equal_form(self.value(key, ctx))
            self.guard(key, ctx, lambda: out.__setitem__(k, value))  # noqa: B023
        return out

    def iterate(self, value: Any, node: ast.AST, ctx: _Ctx, *, ordered: bool) -> list[Any]:
        if isinstance(value, set | frozenset) and ordered:
            why = (
                f"`{_src(node)}` puts a set's items in a row, in an order decided at run time "
                "(use sorted(...))"
            )
            raise NotStatic(node, ctx.module, why)
        if isinstance(value, str | list | tuple | set | frozenset | dict | bytes):
            return list(value)
        raise NotStatic(node, ctx.module, f"`{_src(node)}` is a {_type(value)}, not iterable")

    # -- names -------------------------------------------------------------------------------
    def fold_Name(self, node: ast.Name, ctx: _Ctx) -> Any:
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
        self, node: ast.Name, ctx: _Ctx, scope: Scope, frame: ScopeNode, binding: Binding
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
            outer = _Ctx(ctx.module, scope.outer(frame))
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

    def symbol(self, symbol: Symbol, node: ast.expr, ctx: _Ctx) -> Any:
        """The value of what a module-level name (or dotted name) resolves to."""
        shown = _src(node)
        if symbol.module is None:
            raise NotStatic(node, ctx.module, self.outside(shown, symbol.path))
        if symbol.kind == "assign" and isinstance(symbol.node, ast.expr):
            return self.follow(node, ctx, symbol.node, _Ctx(symbol.module), symbol.path)
        if symbol.kind == "member" and isinstance(symbol.node, ast.ClassDef):
            return self.member(symbol, symbol.node, symbol.module, node, ctx)
        kinds = {"class": "a class", "function": "a function", "module": "a module"}
        what = kinds.get(symbol.kind, "no value")
        raise NotStatic(node, ctx.module, f"`{shown}` is {what}, not a value")

    def follow(self, node: ast.expr, ctx: _Ctx, value: ast.expr, home: _Ctx, key: str) -> Any:
        """Fold `value`, which the name `node` is bound to; a failure inside says so."""
        if key in self.memo:
            return self.memo[key]
        shown = _src(node)
        self.enter(key, shown, node, ctx)
        try:
            self.memo[key] = folded = self.value(value, home)
            return folded
        except NotStatic as exc:
            where = "" if home.module is ctx.module else f" ({home.module.location(value)})"
            head = f"`{shown}` is bound to `{_src(value)}`{where}"
            raise self.wrap(exc, head, value, node, ctx) from None
        finally:
            self.chain.pop()

    def enter(self, key: str, shown: str, node: ast.AST, ctx: _Ctx) -> None:
        if any(k == key for k, _ in self.chain):
            start = next(i for i, (k, _) in enumerate(self.chain) if k == key)
            names = " -> ".join([*(s for _, s in self.chain[start:]), shown])
            raise _Loop(node, ctx.module, f"`{shown}` refers back to itself ({names})")
        if len(self.chain) >= MAX_CHAIN:
            why = f"`{shown}` is bound through more than {MAX_CHAIN} names or calls"
            raise NotStatic(node, ctx.module, why)
        self.chain.append((key, shown))

    def wrap(
        self, exc: NotStatic, head: str, inner: ast.AST, node: ast.AST, ctx: _Ctx
    ) -> NotStatic:
        """`exc`, raised inside what `node` stands for, told from `node`: located at the
        innermost node when it is in this module, else at `node`."""
        if isinstance(exc, _Loop):  # its message names every step already
            why = exc.why
        elif exc.node is inner:
            why = _which(head, exc.why, _src(inner))
        else:
            why = f"{head}; {exc.why}"
        if isinstance(exc, _Loop):
            return _Loop(exc.node if exc.module is ctx.module else node, ctx.module, why)
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

    # -- attributes, subscripts, class attributes and enum members -----------------------------
    def fold_Attribute(self, node: ast.Attribute, ctx: _Ctx) -> Any:
        if not self.is_local(node, ctx):
            symbol = self.index.resolve_expr(ctx.module, node)
            if symbol is not None:
                return self.symbol(symbol, node, ctx)
        owner = self.value(node.value, ctx)
        if isinstance(owner, Member) and node.attr in ("value", "name"):
            return owner.value if node.attr == "value" else owner.name
        why = f"`{_src(node)}` reads attribute `{node.attr}` of a {_type(owner)}"
        raise NotStatic(node, ctx.module, why)

    def is_local(self, node: ast.expr, ctx: _Ctx) -> bool:
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

    def member(
        self, symbol: Symbol, cls: ast.ClassDef, module: Module, node: ast.expr, ctx: _Ctx
    ) -> Any:
        shown, name = _src(node), symbol.path.rpartition(".")[2]
        if id(cls) in self.reading:
            why = f"`{shown}`: the member values of enum {cls.name} refer back to it"
            raise NotStatic(node, ctx.module, why)
        kind = self.enum_kind(cls, module)
        if kind is None:  # a plain class attribute: the last assignment in the class body
            value = _class_value(cls, name)
            if value is None:
                raise NotStatic(node, ctx.module, f"`{shown}` is declared without a value")
            home = _Ctx(module, Scope(module, value))
            return self.follow(node, ctx, value, home, symbol.path)
        values = self.enum_raw(cls, module, kind)
        if name not in values:
            raise NotStatic(node, ctx.module, f"`{shown}` is not a member of enum {cls.name}")
        return self.make_member(symbol.path.rpartition(".")[0], values, values[name], kind)

    def make_member(self, owner: str, values: dict[str, Any], value: Any, kind: _EnumKind) -> Any:
        """The member with `value` (the first name that has it: later ones are aliases)."""
        name = next(n for n, v in values.items() if _same(v, value))
        return Member(owner, name, values[name], kind.mixed, kind.str_text, kind.format_text)

    def enum_call(
        self, symbol: Symbol, cls: ast.ClassDef, kind: _EnumKind, node: ast.Call, ctx: _Ctx
    ) -> Any:
        """`Color("red")`: the member with that value."""
        assert symbol.module is not None
        args, kwargs = self.arguments(node, ctx)
        if len(args) != 1 or kwargs:
            why = f"`{_src(node)}` calls enum {cls.name} with other than one value"
            raise NotStatic(node, ctx.module, why)
        values = self.enum_raw(cls, symbol.module, kind)
        wanted = _equal_form(args[0])
        if isinstance(wanted, Member) and wanted.owner == symbol.path:
            return wanted
        if not any(_same(v, wanted) for v in values.values()):
            why = f"`{_src(node)}` raises ValueError ({wanted!r} is not a valid {cls.name})"
            raise NotStatic(node, ctx.module, why)
        return self.make_member(symbol.path, values, wanted, kind)

    def enum_kind(self, cls: ast.ClassDef, module: Module) -> _EnumKind | None:
        """How an enum class behaves (None: it is no enum), from its bases and theirs."""
        bases = self.outer_bases(cls, module, 0)
        if not bases & (ENUM_BASES | VALUE_TEXT_BASES):
            return None
        mixed = bool(bases & (MIXIN_BASES | VALUE_TEXT_BASES))
        mixin = next((MIXIN_TYPES[b] for b in sorted(bases) if b in MIXIN_TYPES), None)
        texts: tuple[Text, Text] = ("name", "varies" if mixed else "name")
        if bases & {"enum.StrEnum", "enum.ReprEnum"}:
            texts = ("value", "value")
        elif bases & VALUE_TEXT_BASES:  # IntEnum, IntFlag
            texts = ("varies", "value")
        flag = bool(bases & {"enum.Flag", "enum.IntFlag"})
        return _EnumKind(mixed, *texts, mixin, "enum.StrEnum" in bases, flag)

    def outer_bases(self, cls: ast.ClassDef, module: Module, depth: int) -> set[str]:
        """The paths of the bases from outside the project that `cls` derives from (directly
        only, from depth 10 on), through its project base classes."""
        found: set[str] = set()
        for base in cls.bases:
            symbol = self.index.resolve_expr(module, base)
            if symbol is None:
                continue
            node = symbol.node
            if symbol.kind == "class" and isinstance(node, ast.ClassDef) and symbol.module:
                if depth < 10:
                    found |= self.outer_bases(node, symbol.module, depth + 1)
            else:
                found.add(symbol.path)
        return found

    def enum_raw(self, cls: ast.ClassDef, module: Module, kind: _EnumKind) -> dict[str, Any]:
        """Each member's value, as `enum` (Python 3.11 and 3.12) assigns it: `auto()` counts on
        from the last number (a `StrEnum` takes the name in lower case), and a mixed-in type
        makes each value its own (`class C(str, Enum): A = 1` has the value "1")."""
        if id(cls) in self.enums:
            return self.enums[id(cls)]
        self.reading.add(id(cls))
        values: dict[str, Any] = {}
        raw: list[Any] = []  # the values as written, which `auto()` counts on from
        try:
            for stmt in cls.body:
                if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                    continue
                target = stmt.targets[0]
                if not isinstance(target, ast.Name) or target.id.startswith("_"):
                    continue
                if _is_auto(stmt.value) and kind.str_enum:
                    value = target.id.lower()
                elif _is_auto(stmt.value):
                    value = self.next_auto(raw, stmt.value, module, kind.flag)
                else:
                    value = self.value(stmt.value, _Ctx(module, Scope(module, stmt.value)))
                raw.append(value)
                values[target.id] = _mixed_in(kind.mixin, value)
        finally:
            self.reading.discard(id(cls))
        self.enums[id(cls)] = values
        return values

    def next_auto(self, raw: list[Any], node: ast.expr, module: Module, flag: bool) -> Any:
        numbers = [v for v in raw if isinstance(v, int | float)]
        if not numbers:
            return 1
        if flag:  # the power of two above the largest value so far
            return 2 ** int(max(numbers)).bit_length()
        if numbers[-1] != max(numbers):
            why = (
                f"`{_src(node)}` follows a value smaller than an earlier one: Python 3.13 counts "
                "on from the largest, earlier versions from the last"
            )
            raise NotStatic(node, module, why)
        return numbers[-1] + 1

    def fold_Subscript(self, node: ast.Subscript, ctx: _Ctx) -> Any:
        owner = self.value(node.value, ctx)
        if isinstance(node.slice, ast.Slice):
            parts = (node.slice.lower, node.slice.upper, node.slice.step)
            key: Any = slice(*(None if p is None else self.value(p, ctx) for p in parts))
        else:
            key = _equal_form(self.value(node.slice, ctx))
        if not isinstance(owner, str | bytes | list | tuple | dict):
            raise NotStatic(node, ctx.module, f"`{_src(node)}` indexes a {_type(owner)}")
        return self.guard(node, ctx, lambda: owner[key])

    # -- operators ---------------------------------------------------------------------------
    def fold_BinOp(self, node: ast.BinOp, ctx: _Ctx) -> Any:
        left = _equal_form(self.value(node.left, ctx))
        right = _equal_form(self.value(node.right, ctx))
        if isinstance(node.op, ast.Mod) and isinstance(left, str):
            return self.percent(left, right, node, ctx)
        apply = _BINARY.get(type(node.op))
        if apply is None or isinstance(left, Member) or isinstance(right, Member):
            why = f"`{_src(node)}` applies an operator toolgen does not evaluate here"
            raise NotStatic(node, ctx.module, why)
        self.check_operands(node, left, right, ctx)
        result = self.guard(node, ctx, lambda: apply(left, right))
        self.check_size(result, node, ctx)
        return result

    def check_operands(self, node: ast.BinOp, left: Any, right: Any, ctx: _Ctx) -> None:
        """Refuse what would make a huge value before making it."""
        sequence = (str, bytes, list, tuple)
        big = False
        if isinstance(node.op, ast.Mult):
            for seq, count in ((left, right), (right, left)):
                if isinstance(seq, sequence) and isinstance(count, int):
                    big = big or len(seq) * max(count, 0) > MAX_LENGTH
        elif isinstance(node.op, ast.Pow) and _is_int(left) and _is_int(right):
            big = right > 0 and abs(left).bit_length() * right > MAX_INT_BITS
        elif isinstance(node.op, ast.LShift) and _is_int(right):
            big = right > MAX_INT_BITS
        if big:
            raise NotStatic(node, ctx.module, f"`{_src(node)}` makes a value too large to fold")

    def check_size(self, value: Any, node: ast.AST, ctx: _Ctx) -> None:
        too_long = isinstance(value, str | bytes | list | tuple) and len(value) > MAX_LENGTH
        too_big = _is_int(value) and value.bit_length() > MAX_INT_BITS
        if too_long or too_big:
            raise NotStatic(node, ctx.module, f"`{_src(node)}` makes a value too large to fold")

    def fold_UnaryOp(self, node: ast.UnaryOp, ctx: _Ctx) -> Any:
        value = self.value(node.operand, ctx)
        if isinstance(node.op, ast.Not):
            return not self.truth(value)
        value = _equal_form(value)
        ops: dict[type[ast.unaryop], Callable[[Any], Any]] = {
            ast.USub: operator.neg,
            ast.UAdd: operator.pos,
            ast.Invert: operator.invert,
        }
        if not isinstance(value, int | float):
            why = f"`{_src(node)}` applies a sign to a {_type(value)}"
            raise NotStatic(node, ctx.module, why)
        return self.guard(node, ctx, lambda: ops[type(node.op)](value))

    def fold_BoolOp(self, node: ast.BoolOp, ctx: _Ctx) -> Any:
        value: Any = None
        for operand in node.values:
            value = self.value(operand, ctx)
            if self.truth(value) is isinstance(node.op, ast.Or):
                return value
        return value

    def fold_Compare(self, node: ast.Compare, ctx: _Ctx) -> bool:
        left = self.value(node.left, ctx)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.value(comparator, ctx)
            if isinstance(op, ast.Is | ast.IsNot):
                if not (_singleton(left) or _singleton(right)):
                    why = f"`{_src(node)}` compares identities, which the interpreter decides"
                    raise NotStatic(node, ctx.module, why)
                same = left is right if not isinstance(left, Member) else left == right
                result = same if isinstance(op, ast.Is) else not same
            else:
                compare = _COMPARE[type(op)]
                a, b = _equal_form(left, deep=True), _equal_form(right, deep=True)
                result = bool(self.guard(node, ctx, lambda: compare(a, b)))  # noqa: B023
            if not result:
                return False
            left = right
        return True

    def fold_IfExp(self, node: ast.IfExp, ctx: _Ctx) -> Any:
        branch = node.body if self.truth(self.value(node.test, ctx)) else node.orelse
        return self.value(branch, ctx)

    def truth(self, value: Any) -> bool:
        if isinstance(value, Member):
            return bool(value.value) if value.mixed else True
        return bool(value)

    def guard(self, node: ast.AST, ctx: _Ctx, compute: Callable[[], Any]) -> Any:
        """What `compute` returns; NotStatic when Python would raise there too."""
        try:
            return compute()
        except (TypeError, ValueError, ArithmeticError, LookupError) as exc:
            why = f"`{_src(node)}` raises {type(exc).__name__} ({exc})"
            raise NotStatic(node, ctx.module, why) from None

    # -- text --------------------------------------------------------------------------------
    def fold_JoinedStr(self, node: ast.JoinedStr, ctx: _Ctx) -> str:
        parts: list[str] = []
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                spec = "" if part.format_spec is None else self.value(part.format_spec, ctx)
                value = self.value(part.value, ctx)
                conversion = chr(part.conversion) if part.conversion > 0 else ""
                parts.append(self.text(value, str(spec), conversion, node, ctx))
            else:
                parts.append(str(self.value(part, ctx)))
            self.check_size("".join(parts), node, ctx)
        return "".join(parts)

    def text(self, value: Any, spec: str, conversion: str, node: ast.AST, ctx: _Ctx) -> str:
        """`format(value, spec)` after `!s`/`!r`/`!a`, as Python prints it on every version."""
        shown = _src(node)
        if not _SPEC.fullmatch(spec):
            why = f"`{shown}` uses the format spec `{spec}`, which toolgen does not apply"
            raise NotStatic(node, ctx.module, why)
        value = self.printable(value, conversion, node, ctx)
        if conversion:
            converters: dict[str, Callable[[Any], str]] = {"s": str, "r": repr, "a": ascii}
            value = converters[conversion](value)
        text: str = self.guard(node, ctx, lambda: format(value, spec))
        return text

    def printable(self, value: Any, conversion: str, node: ast.AST, ctx: _Ctx) -> Any:
        """`value` with an enum member as what Python prints for it, through `str()` when
        `conversion` is "s", else through `format()`."""
        if isinstance(value, Member):
            text = value.str_text if conversion == "s" else value.format_text
            if conversion in ("r", "a"):
                why = f"`{_src(node)}` prints the repr of `{value.text()}`"
                raise NotStatic(node, ctx.module, why)
            if text == "varies":
                how = "str()" if conversion else "format()"
                why = (
                    f"`{_src(node)}` prints `{value.text()}` through {how}, which Python 3.10 "
                    "and 3.11 print differently: use `.value` or `.name`"
                )
                raise NotStatic(node, ctx.module, why)
            return value.value if text == "value" else value.text()
        if _has_member(value):
            why = f"`{_src(node)}` prints a container of enum members"
            raise NotStatic(node, ctx.module, why)
        return value

    def percent(self, template: str, args: Any, node: ast.BinOp, ctx: _Ctx) -> str:
        rest = _PERCENT.sub("", template)
        reprs = any(m.group(0)[-1] in "ra" for m in _PERCENT.finditer(template))
        if reprs and _has_member(args):
            why = f"`{_src(node)}` prints the repr of an enum member"
            raise NotStatic(node, ctx.module, why)
        if "%" in rest:
            why = f"`{_src(node)}` uses a `%` conversion toolgen does not apply"
            raise NotStatic(node, ctx.module, why)
        if isinstance(args, tuple):
            args = tuple(self.printable(a, "s", node, ctx) for a in args)
        elif isinstance(args, dict):
            args = {k: self.printable(v, "s", node, ctx) for k, v in args.items()}
        else:
            args = self.printable(args, "s", node, ctx)
        result: str = self.guard(node, ctx, lambda: template % args)
        self.check_size(result, node, ctx)
        return result

    def str_format(
        self, template: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call, ctx: _Ctx
    ) -> str:
        try:
            fields = list(string.Formatter().parse(template))
        except ValueError as exc:
            raise NotStatic(node, ctx.module, f"`{_src(node)}` raises ValueError ({exc})") from None
        converted = False
        for _, name, spec, conversion in fields:
            plain = name is None or name == "" or name.isdigit() or name.isidentifier()
            if not plain or (spec and not _SPEC.fullmatch(spec)) or "{" in (spec or ""):
                why = f"`{_src(node)}` has a placeholder toolgen does not fill (`{{{name}}}`)"
                raise NotStatic(node, ctx.module, why)
            converted = converted or bool(conversion)
        if converted and _has_member([args, kwargs]):
            why = f"`{_src(node)}` converts enum members (`!s`, `!r`) in its placeholders"
            raise NotStatic(node, ctx.module, why)
        args = [self.printable(a, "", node, ctx) for a in args]
        kwargs = {k: self.printable(v, "", node, ctx) for k, v in kwargs.items()}
        result: str = self.guard(node, ctx, lambda: template.format(*args, **kwargs))
        self.check_size(result, node, ctx)
        return result

    # -- calls -------------------------------------------------------------------------------
    def fold_Call(self, node: ast.Call, ctx: _Ctx) -> Any:
        func, shown = node.func, _src(node)
        if not isinstance(func, ast.Name | ast.Attribute):
            raise NotStatic(node, ctx.module, f"`{shown}` calls the result of an expression")
        written = dotted_name(func) or ""
        if self.is_local(func, ctx):
            if isinstance(func, ast.Attribute):
                return self.method(node, func, ctx)
            try:
                value = self.value(func, ctx)
            except NotStatic as exc:
                raise self.wrap(exc, f"`{shown}` calls `{written}`", func, node, ctx) from None
            raise NotStatic(node, ctx.module, f"`{shown}` calls a {_type(value)}")
        symbol = self.index.resolve_expr(ctx.module, func)
        if symbol is None and isinstance(func, ast.Attribute):
            return self.method(node, func, ctx)  # `PREFIX.upper()`: a constant's method
        path = symbol.path if symbol is not None else written
        if self.records(path):
            return self.record(node, ctx)
        if symbol is None:
            if written in _BUILTINS:  # `sorted`, `len`: builtins the index does not list
                return self.builtin(written, node, ctx)
            why = _which(
                f"`{shown}` calls `{written}`", self.undefined(written, ctx.module), written
            )
            raise NotStatic(node, ctx.module, why)
        if symbol.module is None:
            name = path.removeprefix("builtins.")
            if path.startswith("builtins.") and name in _BUILTINS:
                return self.builtin(name, node, ctx)
            raise NotStatic(node, ctx.module, self.outside_call(shown, written, path))
        if symbol.kind == "function" and isinstance(
            symbol.node, ast.FunctionDef | ast.AsyncFunctionDef
        ):
            return self.helper(symbol, symbol.node, symbol.module, node, ctx)
        if symbol.kind == "class" and isinstance(symbol.node, ast.ClassDef):
            kind = self.enum_kind(symbol.node, symbol.module)
            if kind is not None:
                return self.enum_call(symbol, symbol.node, kind, node, ctx)
        what = "makes an object of class" if symbol.kind == "class" else "calls"
        why = f"`{shown}` {what} `{path}`, which toolgen does not evaluate"
        raise NotStatic(node, ctx.module, why)

    def outside_call(self, shown: str, written: str, path: str) -> str:
        if path.startswith("builtins."):
            name = path.removeprefix("builtins.")
            return f"`{shown}` calls the builtin `{name}`, which toolgen does not evaluate"
        unread = self.unreadable(path)
        if unread:
            return f"`{shown}` calls `{written}`, from `{unread}`, which toolgen could not read"
        return (
            f"`{shown}` calls `{path}`, from outside the project's sources: its result is "
            "known only at run time"
        )

    def arguments(self, node: ast.Call, ctx: _Ctx) -> tuple[list[Any], dict[str, Any]]:
        args = self.items(node.args, ctx, ordered=True)
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            value = self.value(kw.value, ctx)
            if kw.arg is not None:
                kwargs[kw.arg] = value
            elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
                kwargs.update(value)
            else:
                why = f"`**{_src(kw.value)}` unpacks a {_type(value)}, not a dict of names"
                raise NotStatic(kw.value, ctx.module, why)
        return args, kwargs

    def method(self, node: ast.Call, func: ast.Attribute, ctx: _Ctx) -> Any:
        """A string's or dict's method of those toolgen evaluates."""
        owner = _equal_form(self.value(func.value, ctx))
        args, kwargs = self.arguments(node, ctx)
        name = func.attr
        if isinstance(owner, str) and name in _STR_METHODS:
            if name == "format":
                return self.str_format(owner, args, kwargs, node, ctx)
            if name == "join" and len(args) == 1:
                args = [[_equal_form(i) for i in self.iterate(args[0], node, ctx, ordered=True)]]
            if any(not _is_text_argument(a) for a in [*args, *kwargs.values()]):
                why = f"`{_src(node)}` passes `{name}` arguments toolgen does not evaluate"
                raise NotStatic(node, ctx.module, why)
            if name == "replace" and len(args) >= 2 and isinstance(args[0], str):
                new = args[1] if isinstance(args[1], str) else ""
                if (owner.count(args[0]) + 1) * len(new) > MAX_LENGTH:
                    why = f"`{_src(node)}` makes a value too large to fold"
                    raise NotStatic(node, ctx.module, why)
            result = self.guard(node, ctx, lambda: getattr(owner, name)(*args, **kwargs))
            self.check_size(result, node, ctx)
            return result
        if isinstance(owner, dict) and name == "get" and not kwargs and 1 <= len(args) <= 2:
            key = _equal_form(args[0])
            return self.guard(node, ctx, lambda: owner.get(key, args[1] if args[1:] else None))
        why = (
            f"`{_src(node)}` calls the method `{name}` of a {_type(owner)}, which toolgen "
            "does not evaluate"
        )
        raise NotStatic(node, ctx.module, why)

    def builtin(self, name: str, node: ast.Call, ctx: _Ctx) -> Any:
        """`list(X)`, `sorted(X)`, `dict(a=1)`, `str(n)` ...: as Python computes them."""
        args, kwargs = self.arguments(node, ctx)
        refused = NotStatic(
            node, ctx.module, f"`{_src(node)}` calls `{name}` in a way toolgen does not evaluate"
        )
        if name == "dict":
            if len(args) > 1:
                raise refused
            out: dict[Any, Any] = {}
            if args and isinstance(args[0], dict):
                out.update(args[0])
            elif args:
                pairs = self.iterate(args[0], node, ctx, ordered=True)
                self.guard(node, ctx, lambda: out.update(dict(pairs)))
            out.update(kwargs)
            return out
        if len(args) > 1 or (kwargs and not (name == "sorted" and set(kwargs) == {"reverse"})):
            raise refused
        if name in ("list", "tuple", "set", "frozenset", "sorted"):
            ordered = name in ("list", "tuple")
            items = self.iterate(args[0], node, ctx, ordered=ordered) if args else []
            if name == "list":
                return items
            if name == "tuple":
                return tuple(items)
            if name == "sorted":
                reverse = self.truth(kwargs.get("reverse", False))
                flat = [_equal_form(i, deep=True) for i in items]
                return self.guard(node, ctx, lambda: sorted(flat, reverse=reverse))
            made = self.guard(node, ctx, lambda: {_equal_form(i) for i in items})
            return made if name == "set" else frozenset(made)
        if not args:
            empty = {"str": "", "int": 0, "float": 0.0, "bool": False}
            if name not in empty:
                raise refused
            return empty[name]
        value = args[0]
        if name == "len":
            if not isinstance(value, str | bytes | list | tuple | set | frozenset | dict):
                raise refused
            return len(value)
        if name == "str":
            return self.text(value, "", "s", node, ctx)  # `str(member)`: as `!s` prints it
        if name == "bool":
            return self.truth(value)
        value = _equal_form(value)
        if not isinstance(value, int | float | str):
            raise refused
        return self.guard(node, ctx, lambda: (int if name == "int" else float)(value))

    def record(self, node: ast.Call, ctx: _Ctx) -> dict[str, Any]:
        """`ToolAnnotations(readOnlyHint=True)`: the dict of its keyword arguments."""
        args, kwargs = self.arguments(node, ctx)
        if args:
            why = f"`{_src(node)}` passes positional arguments where keywords are read"
            raise NotStatic(node, ctx.module, why)
        return kwargs

    def helper(
        self,
        symbol: Symbol,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        home: Module,
        node: ast.Call,
        ctx: _Ctx,
    ) -> Any:
        """A project function's result: its arguments bound, then its body evaluated (made of
        assignments, `if`s and `return`s)."""
        shown = _src(node)
        if isinstance(fn, ast.AsyncFunctionDef):
            why = f"`{shown}` calls `{fn.name}`, a coroutine function: it makes no value itself"
            raise NotStatic(node, ctx.module, why)
        for decorator in fn.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            found = self.index.resolve_expr(home, target)
            if found is None or found.path not in TRANSPARENT_DECORATORS:
                why = (
                    f"`{shown}` calls `{fn.name}`, which is decorated with "
                    f"`@{_src(decorator)}`: toolgen does not run what that makes of it"
                )
                raise NotStatic(node, ctx.module, why)
        args, kwargs = self.arguments(node, ctx)
        self.enter(f"call:{symbol.path}", shown, node, ctx)
        try:
            local = self.bind(fn, home, args, kwargs, node, ctx)
            result = self.run(fn.body, _Ctx(home, None, local), fn)
        except NotStatic as exc:
            where = "" if home is ctx.module else f" ({home.location(fn)})"
            raise self.wrap(exc, f"`{shown}` calls `{fn.name}`{where}", node, node, ctx) from None
        finally:
            self.chain.pop()
        return None if result is _FELL_OFF else result

    def bind(
        self,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        home: Module,
        args: list[Any],
        kwargs: dict[str, Any],
        node: ast.Call,
        ctx: _Ctx,
    ) -> dict[str, Any]:
        """The helper's parameters bound to the call's arguments, as Python binds them (the
        defaults folded where the helper is defined)."""
        a = fn.args
        positional = [*a.posonlyargs, *a.args]
        defaults: dict[str, ast.expr] = {}
        with_default = positional[len(positional) - len(a.defaults) :]
        for param, default in zip(with_default, a.defaults, strict=True):
            defaults[param.arg] = default
        for param, kw_default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
            if kw_default is not None:
                defaults[param.arg] = kw_default

        def refuse(message: str) -> NotStatic:
            why = f"`{_src(node)}` raises TypeError ({fn.name}() {message})"
            return NotStatic(node, ctx.module, why)

        local: dict[str, Any] = {p.arg: v for p, v in zip(positional, args, strict=False)}
        extra = args[len(positional) :]
        if a.vararg is not None:
            local[a.vararg.arg] = tuple(extra)
        elif extra:
            raise refuse(f"takes {len(positional)} positional arguments, not {len(args)}")
        named = {p.arg for p in [*a.args, *a.kwonlyargs]}
        extras: dict[str, Any] = {}
        for key, value in kwargs.items():
            if key in named and key in local:
                raise refuse(f"got multiple values for argument '{key}'")
            if key in named:
                local[key] = value
            elif a.kwarg is not None:
                extras[key] = value
            else:
                raise refuse(f"got an unexpected keyword argument '{key}'")
        if a.kwarg is not None:
            local[a.kwarg.arg] = extras
        for param in [*positional, *a.kwonlyargs]:
            if param.arg not in local:
                if param.arg not in defaults:
                    raise refuse(f"missing required argument: '{param.arg}'")
                local[param.arg] = self.value(defaults[param.arg], _Ctx(home))
        return local

    def run(self, body: list[ast.stmt], ctx: _Ctx, fn: ast.FunctionDef) -> Any:
        """What a helper's statements return (`_FELL_OFF` when they end without `return`)."""
        assert ctx.local is not None
        for stmt in body:
            if isinstance(stmt, ast.Pass) or _is_docstring(stmt):
                continue
            if isinstance(stmt, ast.Return):
                return None if stmt.value is None else self.value(stmt.value, ctx)
            if isinstance(stmt, ast.If):
                branch = stmt.body if self.truth(self.value(stmt.test, ctx)) else stmt.orelse
                result = self.run(branch, ctx, fn)
                if result is not _FELL_OFF:
                    return result
                continue
            targets: list[ast.expr] = []
            assigned: ast.expr | None = None
            if isinstance(stmt, ast.Assign):
                targets, assigned = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign):
                targets, assigned = [stmt.target], stmt.value
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if assigned is not None and len(names) == len(targets):
                value = self.value(assigned, ctx)
                for name in names:
                    ctx.local[name] = value
                continue
            why = (
                f"line {stmt.lineno} of `{fn.name}` is {_statement(stmt)}: toolgen evaluates "
                "helpers made of assignments, `if`s and `return`s"
            )
            raise NotStatic(stmt, ctx.module, why)
        return _FELL_OFF


def _which(head: str, why: str, subject: str) -> str:
    """`head` continued by `why`, a phrase about `subject`: "..., which is ..."."""
    prefix = f"`{subject}` "
    if why.startswith(prefix):
        return f"{head}, which {why[len(prefix) :]}"
    return f"{head}; {why}"


def _plain(value: Any) -> Any:
    """Python data with members as their values, tuples as lists and sets as sorted lists."""
    if isinstance(value, Member):
        return _plain(value.value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted_items(_plain(v) for v in value)
    if isinstance(value, dict):  # keys stay hashable: `jsonable` writes them as text
        return {_key(k): _plain(v) for k, v in value.items()}
    return value


def _key(key: Any) -> Any:
    return _key(key.value) if isinstance(key, Member) else key


def _equal_form(value: Any, *, deep: bool = False) -> Any:
    """`value` as Python compares and hashes it: a mixed-in enum member as its value."""
    if isinstance(value, Member) and value.mixed:
        return value.value
    if deep and isinstance(value, list | tuple):
        return type(value)(_equal_form(v, deep=True) for v in value)
    if deep and isinstance(value, set | frozenset):
        return {_equal_form(v) for v in value}
    if deep and isinstance(value, dict):
        return {_equal_form(k): _equal_form(v, deep=True) for k, v in value.items()}
    return value


def _has_member(value: Any) -> bool:
    if isinstance(value, Member):
        return True
    if isinstance(value, list | tuple | set | frozenset):
        return any(_has_member(v) for v in value)
    if isinstance(value, dict):
        return any(_has_member(k) or _has_member(v) for k, v in value.items())
    return False


def _is_text_argument(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(isinstance(v, str) for v in value)
    if isinstance(value, list):
        return all(isinstance(v, str) for v in value)
    return value is None or (isinstance(value, str | int) and not isinstance(value, bool))


def _same(a: Any, b: Any) -> bool:
    return bool(a == b)


def _singleton(value: Any) -> bool:
    return value is None or isinstance(value, bool | Member)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _type(value: Any) -> str:
    return "enum member" if isinstance(value, Member) else type(value).__name__


def _class_value(cls: ast.ClassDef, name: str) -> ast.expr | None:
    """The value a class body assigns `name` last."""
    value: ast.expr | None = None
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign):
            targets, assigned = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, assigned = [stmt.target], stmt.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            value = assigned
    return value


def _mixed_in(mixin: type | None, value: Any) -> Any:
    """A member's value made of the enum's mixed-in type, as `enum` makes it."""
    if mixin is None or isinstance(value, mixin) or not isinstance(value, int | float | str):
        return value
    try:
        return mixin(value)
    except ValueError:
        return value


def _is_auto(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and not node.args
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "auto"
    )


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _statement(stmt: ast.stmt) -> str:
    kinds = {
        "For": "a `for` loop",
        "AsyncFor": "a `for` loop",
        "While": "a `while` loop",
        "Try": "a `try` statement",
        "With": "a `with` statement",
        "AsyncWith": "a `with` statement",
        "Raise": "a `raise`",
        "Expr": "an expression statement",
        "Import": "an import",
        "ImportFrom": "an import",
        "AugAssign": "an augmented assignment",
        "Match": "a `match` statement",
    }
    return kinds.get(
        type(stmt).__name__, f"a statement toolgen does not run ({type(stmt).__name__})"
    )


def _frame_name(frame: ScopeNode) -> str:
    return "<lambda>" if isinstance(frame, ast.Lambda) else frame.name


def _src(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - unparse fails only on malformed trees
        return type(node).__name__
