"""What a static fold is made of (`toolgen.analyze.folding` and its parts): the error that says
why a value is not static, enum members, where an expression is folded, the limits of a fold,
and small functions of folded values."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Literal

from toolgen.analyze.literals import MAX_INT_BITS as MAX_INT_BITS  # the fold's limit too
from toolgen.analyze.literals import sorted_items
from toolgen.analyze.scopes import Scope
from toolgen.read.index import Module

MAX_CHAIN = 20  # names and calls followed one inside another
MAX_STEPS = 1_000_000  # expressions evaluated for one value
MAX_LENGTH = 100_000  # items of a string or container made


class NotStatic(Exception):
    """An expression whose value is known only at run time: the node (in `module`) and why,
    a phrase that starts with the expression: "`f()` calls `f`, which ..."."""

    def __init__(self, node: ast.AST, module: Module, why: str) -> None:
        super().__init__(why)
        self.node = node
        self.module = module
        self.why = why


class Loop(NotStatic):
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
class EnumKind:
    mixed: bool
    str_text: Text
    format_text: Text
    mixin: type | None  # str, int or float: what each value is made into
    str_enum: bool  # `auto()` gives the name in lower case
    flag: bool = False  # `auto()` gives the next power of two


@dataclass(frozen=True)
class Ctx:
    """Where an expression is folded: its module, the functions around it, and the values of
    a helper's names while its body runs."""

    module: Module
    scope: Scope | None = None
    local: dict[str, Any] | None = None


def which(head: str, why: str, subject: str) -> str:
    """`head` continued by `why`, a phrase about `subject`: "..., which is ..."."""
    prefix = f"`{subject}` "
    if why.startswith(prefix):
        return f"{head}, which {why[len(prefix) :]}"
    return f"{head}; {why}"


def plain(value: Any) -> Any:
    """Python data with members as their values, tuples as lists and sets as sorted lists."""
    if isinstance(value, Member):
        return plain(value.value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted_items(plain(v) for v in value)
    if isinstance(value, dict):  # keys stay hashable: `jsonable` writes them as text
        return {plain_key(k): plain(v) for k, v in value.items()}
    return value


def plain_key(key: Any) -> Any:
    return plain_key(key.value) if isinstance(key, Member) else key


def equal_form(value: Any, *, deep: bool = False) -> Any:
    """`value` as Python compares and hashes it: a mixed-in enum member as its value."""
    if isinstance(value, Member) and value.mixed:
        return value.value
    if deep and isinstance(value, list | tuple):
        return type(value)(equal_form(v, deep=True) for v in value)
    if deep and isinstance(value, set | frozenset):
        return {equal_form(v) for v in value}
    if deep and isinstance(value, dict):
        return {equal_form(k): equal_form(v, deep=True) for k, v in value.items()}
    return value


def has_member(value: Any) -> bool:
    if isinstance(value, Member):
        return True
    if isinstance(value, list | tuple | set | frozenset):
        return any(has_member(v) for v in value)
    if isinstance(value, dict):
        return any(has_member(k) or has_member(v) for k, v in value.items())
    return False


def same(a: Any, b: Any) -> bool:
    return bool(a == b)


def singleton(value: Any) -> bool:
    return value is None or isinstance(value, bool | Member)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def type_name(value: Any) -> str:
    return "enum member" if isinstance(value, Member) else type(value).__name__


def source(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - unparse fails only on malformed trees
        return type(node).__name__
