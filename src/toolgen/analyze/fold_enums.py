"""Enum members folded as `enum` makes them: values (`auto()`, a mixed-in type's conversion),
aliases, `Color("red")`, and how each member prints."""

from __future__ import annotations

import ast
import contextlib
from typing import TYPE_CHECKING, Any

from toolgen.analyze.fold_base import (
    Ctx,
    EnumKind,
    Member,
    NotStatic,
    Text,
    equal_form,
    same,
    source,
)
from toolgen.analyze.scopes import Scope
from toolgen.read.index import Module, Symbol

if TYPE_CHECKING:
    from toolgen.analyze.folding import Folder

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


class EnumFolder:
    """The enum part of a `Folder`: it keeps each enum's values once read."""

    def __init__(self, folder: Folder) -> None:
        self.folder = folder
        self.reading: set[int] = set()  # enums whose member values are being read
        self.values: dict[int, dict[str, Any]] = {}
        #: each enum's first name of each (hashable) value, and each plain class's attributes:
        #: looked up, not searched member by member (100,000 members, each looked up: N²)
        self.firsts: dict[int, dict[Any, str]] = {}
        self.attributes: dict[int, dict[str, ast.expr]] = {}

    def member(
        self, symbol: Symbol, cls: ast.ClassDef, module: Module, node: ast.expr, ctx: Ctx
    ) -> Any:
        """`Color.RED`, an enum's member; or `Defaults.PAGE`, a plain class attribute's value."""
        shown, name = source(node), symbol.path.rpartition(".")[2]
        if id(cls) in self.reading:
            why = f"`{shown}`: the member values of enum {cls.name} refer back to it"
            raise NotStatic(node, ctx.module, why)
        kind = self.kind(cls, module)
        if kind is None:  # a plain class attribute: the last assignment in the class body
            if id(cls) not in self.attributes:
                self.attributes[id(cls)] = _class_values(cls)
            value = self.attributes[id(cls)].get(name)
            if value is None:
                raise NotStatic(node, ctx.module, f"`{shown}` is declared without a value")
            home = Ctx(module, Scope(module, value))
            return self.folder.follow(node, ctx, value, home, symbol.path)
        values = self.raw(cls, module, kind)
        if name not in values:
            raise NotStatic(node, ctx.module, f"`{shown}` is not a member of enum {cls.name}")
        return self.make_member(symbol.path.rpartition(".")[0], values, values[name], kind)

    def make_member(self, owner: str, values: dict[str, Any], value: Any, kind: EnumKind) -> Any:
        """The member with `value` (the first name that has it: later ones are aliases)."""
        firsts = self.firsts.get(id(values))
        if firsts is None:
            firsts = self.firsts[id(values)] = {}
            for n, v in values.items():
                # equal values share a key, as `same` has it; an unhashable one (a list) is
                # equal to no hashable value, and is looked for one by one
                with contextlib.suppress(TypeError):
                    firsts.setdefault(v, n)
        try:
            name = firsts.get(value)
        except TypeError:
            name = None
        if name is None:
            name = next(n for n, v in values.items() if same(v, value))
        return Member(owner, name, values[name], kind.mixed, kind.str_text, kind.format_text)

    def call(
        self, symbol: Symbol, cls: ast.ClassDef, kind: EnumKind, node: ast.Call, ctx: Ctx
    ) -> Any:
        """`Color("red")`: the member with that value."""
        assert symbol.module is not None
        args, kwargs = self.folder.calls.arguments(node, ctx)
        if len(args) != 1 or kwargs:
            why = f"`{source(node)}` calls enum {cls.name} with other than one value"
            raise NotStatic(node, ctx.module, why)
        values = self.raw(cls, symbol.module, kind)
        wanted = equal_form(args[0])
        if isinstance(wanted, Member) and wanted.owner == symbol.path:
            return wanted
        if not any(same(v, wanted) for v in values.values()):
            why = f"`{source(node)}` raises ValueError ({wanted!r} is not a valid {cls.name})"
            raise NotStatic(node, ctx.module, why)
        return self.make_member(symbol.path, values, wanted, kind)

    def kind(self, cls: ast.ClassDef, module: Module) -> EnumKind | None:
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
        return EnumKind(mixed, *texts, mixin, "enum.StrEnum" in bases, flag)

    def outer_bases(self, cls: ast.ClassDef, module: Module, depth: int) -> set[str]:
        """The paths of the bases from outside the project that `cls` derives from (directly
        only, from depth 10 on), through its project base classes."""
        found: set[str] = set()
        for base in cls.bases:
            symbol = self.folder.index.resolve_expr(module, base)
            if symbol is None:
                continue
            node = symbol.node
            if symbol.kind == "class" and isinstance(node, ast.ClassDef) and symbol.module:
                if depth < 10:
                    found |= self.outer_bases(node, symbol.module, depth + 1)
            else:
                found.add(symbol.path)
        return found

    def raw(self, cls: ast.ClassDef, module: Module, kind: EnumKind) -> dict[str, Any]:
        """Each member's value, as `enum` (Python 3.11 and 3.12) assigns it: `auto()` counts on
        from the last number (a `StrEnum` takes the name in lower case), and a mixed-in type
        makes each value its own (`class C(str, Enum): A = 1` has the value "1")."""
        if id(cls) in self.values:
            return self.values[id(cls)]
        self.reading.add(id(cls))
        values: dict[str, Any] = {}
        raw: list[Any] = []  # the numbers written so far, last and largest (`auto()`'s)
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
                    value = self.folder.value(stmt.value, Ctx(module, Scope(module, stmt.value)))
                if isinstance(value, int | float):
                    raw[:] = [value, max(raw[1], value) if raw else value]
                values[target.id] = _mixed_in(kind.mixin, value)
        finally:
            self.reading.discard(id(cls))
        self.values[id(cls)] = values
        return values

    def next_auto(self, raw: list[Any], node: ast.expr, module: Module, flag: bool) -> Any:
        """The value of an `auto()` after the numbers `raw` (the last and the largest so far;
        none: [])."""
        if not raw:
            return 1
        last, largest = raw
        if flag:  # the power of two above the largest value so far
            return 2 ** int(largest).bit_length()
        if last != largest:
            why = (
                f"`{source(node)}` follows a value smaller than an earlier one: Python 3.13 counts "
                "on from the largest, earlier versions from the last"
            )
            raise NotStatic(node, module, why)
        return last + 1


def _class_values(cls: ast.ClassDef) -> dict[str, ast.expr]:
    """The value a class body assigns each name last."""
    found: dict[str, ast.expr] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign):
            targets, assigned = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, assigned = [stmt.target], stmt.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                found[target.id] = assigned
    return found


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
