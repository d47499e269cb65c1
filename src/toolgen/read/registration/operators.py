"""Operators on known values: constants folded as Python would, containers joined.

Only what cannot run away is computed: a power, a shift or a repetition whose result would be
large is unknown instead (a list of tools is never built that way)."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from toolgen.read.registration import files
from toolgen.read.registration.stdlib import MAX_INT_BITS, MAX_ITEMS, MAX_TEXT, fits, hashable
from toolgen.read.registration.values import Const, FilePath, Mapping, Seq, Unknown, Value

BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_,
    ast.BitXor: operator.xor,
}

COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
}

UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.Not: operator.not_,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
}


def _too_large(op: ast.operator, left: object, right: object) -> bool:
    """Whether `left op right` could make a value too large to compute (`fits`)."""
    bits = [x.bit_length() for x in (left, right) if isinstance(x, int)]
    if isinstance(op, ast.Pow | ast.LShift):
        if not (isinstance(right, int | float) and right < 64):
            return True
        return (
            isinstance(left, int) and len(bits) == 2 and bits[0] * max(int(right), 1) > MAX_INT_BITS
        )
    if isinstance(op, ast.Mult):
        sized = [x for x in (left, right) if isinstance(x, str | bytes)]
        counts = [x for x in (left, right) if isinstance(x, int)]
        if sized and counts:
            return len(sized[0]) * max(counts[0], 0) > MAX_ITEMS
        if len(bits) == 2:
            return sum(bits) > MAX_INT_BITS
    if isinstance(op, ast.Add) and isinstance(left, str | bytes) and isinstance(right, str | bytes):
        return len(left) + len(right) > MAX_TEXT
    # `"%*d" % (10**9, 1)`: the width is the caller's
    return isinstance(op, ast.Mod) and isinstance(left, str | bytes)


def binary(op: ast.operator, left: Value, right: Value, node: ast.AST) -> Value:
    if isinstance(left, Seq) and isinstance(right, Seq) and isinstance(op, ast.Add):
        if len(left.items) + len(right.items) > MAX_ITEMS:
            return Unknown(f"a list of more than {MAX_ITEMS} items", node)
        return Seq([*left.items, *right.items], left.kind)
    if isinstance(left, Mapping) and isinstance(right, Mapping) and isinstance(op, ast.BitOr):
        merged = Mapping(dict(left.entries), left.partial or right.partial)
        merged.entries.update(right.entries)
        return merged
    if isinstance(left, Seq) and left.kind == "set" and isinstance(op, SET_OPERATORS):
        made = _set_operation(op, left, right)
        if made is not None:
            return made
    if isinstance(left, Seq) and isinstance(right, Const) and isinstance(op, ast.Mult):
        times = right.value
        if type(times) is int and len(left.items) * max(times, 0) <= MAX_ITEMS:
            return Seq(left.items * times, left.kind)
    if isinstance(left, FilePath) and isinstance(op, ast.Div):
        path = files.joined(left, right)
        if path is not None:
            return path
    if not (isinstance(left, Const) and isinstance(right, Const)):
        return Unknown("an operation on values toolgen cannot know", node)
    if _too_large(op, left.value, right.value):
        return Unknown("an operation whose result toolgen does not compute", node)
    try:
        result = BINARY[type(op)](left.value, right.value)
    except (ArithmeticError, TypeError, ValueError, KeyError, MemoryError):
        return Unknown("an operation that raises", node)
    if not fits(result):
        return Unknown("an operation whose result toolgen does not keep: too large", node)
    return Const(result)


SET_OPERATORS = (ast.Sub, ast.BitOr, ast.BitAnd, ast.BitXor)


def _set_operation(op: ast.operator, left: Seq, right: Value) -> Seq | None:
    """`a - b`, `a | b`, `a & b`, `a ^ b` of sets of constants (the right one may be any
    known collection of them: `set - dict.keys()`), in the order Python's would keep for
    the left set's items first; None when an item is not a known constant."""
    others: list[Value] | None = None
    if isinstance(right, Seq):
        others = right.items
    elif isinstance(right, Mapping) and not right.partial:
        others = [key for key, _ in right.entries.values()]
    if others is None:
        return None
    mine = [i.value for i in left.items if isinstance(i, Const) and hashable(i.value)]
    theirs = [i.value for i in others if isinstance(i, Const) and hashable(i.value)]
    if len(mine) != len(left.items) or len(theirs) != len(others):
        return None
    if isinstance(op, ast.Sub):
        kept = [v for v in mine if v not in set(theirs)]
    elif isinstance(op, ast.BitAnd):
        kept = [v for v in mine if v in set(theirs)]
    elif isinstance(op, ast.BitXor):
        kept = [v for v in mine if v not in set(theirs)] + [v for v in theirs if v not in set(mine)]
    else:
        kept = mine + theirs
    if len(kept) > MAX_ITEMS:
        return None
    return Seq([Const(v) for v in dict.fromkeys(kept)], "set")


def _constant(value: Seq) -> Value:
    """A list, tuple or set of constants as the constant Python compares (`==`, `<`)."""
    if not all(isinstance(i, Const) and hashable(i.value) for i in value.items):
        return value
    items = [i.value for i in value.items if isinstance(i, Const)]
    if value.kind == "set":
        return Const(set(items))
    return Const(tuple(items) if value.kind == "tuple" else items)


def compare(op: ast.cmpop, left: Value, right: Value, node: ast.AST) -> Value:
    if isinstance(op, ast.Is | ast.IsNot):
        same: bool | None = None
        if isinstance(left, Const) and isinstance(right, Const):
            same = left.value is right.value
        elif isinstance(left, Const) or isinstance(right, Const):
            other = right if isinstance(left, Const) else left
            if not isinstance(other, Unknown):
                same = False  # a function, a class, a server: never a constant
        elif not isinstance(left, Unknown) and not isinstance(right, Unknown):
            same = left is right
        if same is None:
            return Unknown("an identity toolgen cannot know", node)
        return Const(same if isinstance(op, ast.Is) else not same)
    if isinstance(op, ast.In | ast.NotIn) and isinstance(right, Seq | Mapping):
        if isinstance(right, Mapping) and isinstance(left, Const) and not right.partial:
            found = hashable(left.value) and left.value in right.entries
            return Const(found if isinstance(op, ast.In) else not found)
        constants = isinstance(right, Seq) and all(isinstance(i, Const) for i in right.items)
        if isinstance(right, Seq) and constants and isinstance(left, Const):
            found = any(left.value == i.value for i in right.items if isinstance(i, Const))
            return Const(found if isinstance(op, ast.In) else not found)
        return Unknown("a membership toolgen cannot know", node)
    if isinstance(left, Seq) and isinstance(right, Seq):
        left, right = _constant(left), _constant(right)
    if not (isinstance(left, Const) and isinstance(right, Const)):
        return Unknown("a comparison of values toolgen cannot know", node)
    try:
        return Const(bool(COMPARE[type(op)](left.value, right.value)))
    except (TypeError, ValueError, KeyError):
        return Unknown("a comparison that raises", node)


def unary(op: ast.unaryop, operand: Value, truth: bool | None, node: ast.AST) -> Value:
    if isinstance(op, ast.Not):
        return Unknown("a truth toolgen cannot know", node) if truth is None else Const(not truth)
    if not isinstance(operand, Const):
        return Unknown("an operation on a value toolgen cannot know", node)
    try:
        return Const(UNARY[type(op)](operand.value))
    except (TypeError, ValueError):
        return Unknown("an operation that raises", node)
