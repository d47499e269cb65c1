"""Values as JSON holds them: what a folded value (`toolgen.analyze.folding`) becomes in a
descriptor, and whether a descriptor can be written as JSON at all."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from pydantic_core import to_json

#: The largest integer a value may hold, in bits (about 1,200 digits). Python reads no integer
#: of more than 4,300 digits from text (`json.loads` included: the runtime, a JSON Schema
#: validator quoting it), and a hex literal of any length parses: one bound for every value.
MAX_INT_BITS = 4096


def _json_key(key: object) -> str:
    if isinstance(key, bool) or key is None:
        return "true" if key is True else "false" if key is False else "null"
    return str(key)


def sorted_items(items: Iterable[Any]) -> list[Any]:
    """A set's items in order: by value (as FastMCP sorts a tool's tags), by their repr when
    they do not compare."""
    listed = list(items)
    try:
        return sorted(listed)
    except TypeError:
        return sorted(listed, key=repr)


#: The nodes `ast.literal_eval` reads besides constants: it refuses any other.
_COMPOUND = (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Call, ast.BinOp, ast.UnaryOp)


def literal_value(node: ast.expr) -> Any:
    """`ast.literal_eval(node)`. Where the answer is plain (a constant's value, or ValueError
    for a node it never reads) it is given here: each call of `ast.literal_eval` makes
    functions that refer to one another, a cycle left for the garbage collector, and a build
    reads a literal at every default and argument."""
    if type(node) is ast.Constant:
        return node.value
    if not isinstance(node, _COMPOUND):
        raise ValueError(f"malformed node or string: {node!r}")
    return ast.literal_eval(node)


def jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted_items(jsonable(v) for v in value)
    if isinstance(value, dict):
        return {_json_key(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, complex) or value is Ellipsis:
        raise ValueError(f"{value!r} has no JSON form")
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        raise ValueError(f"{value!r} (NaN, Infinity or out of range) has no JSON form")
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise ValueError(
            f"an integer of {value.bit_length():,} bits is too large (at most {MAX_INT_BITS:,})"
        )
    return value


#: How deep a descriptor may nest as JSON. pydantic-core writes at most 254 levels, and a
#: platform payload puts a tool's schemas a few levels further down.
MAX_DEPTH = 240
_WRITABLE_DEPTH = 254


def unwritable(value: Any) -> tuple[str, str] | None:
    """Why descriptor data `value` cannot be written as JSON, as (rule code, message), or None:
    a string with a lone surrogate such as the escape `"\\ud83d"` (Python does not pair
    `"\\ud83d\\ude00"`), TG007; or nesting deeper than MAX_DEPTH, TG202, counting each `$ref`
    as the definition it points to (the Gemini payload inlines them)."""
    try:  # the common case in one pass: everything encodes, and not too deep without `$ref`s
        text = to_json(_wrapped(value, _WRITABLE_DEPTH - MAX_DEPTH))
    except (ValueError, TypeError):  # PydanticSerializationError is a ValueError
        text = None
    if text is None:
        pointer = _unencodable(value, "")
        if pointer is not None:
            return "TG007", f"text at {pointer} has a lone surrogate, which UTF-8 cannot encode"
    if (text is None or _may_nest_too_deep(text)) and nesting(value) > MAX_DEPTH:
        return (
            "TG202",
            f"nests types or values more than {MAX_DEPTH} levels deep, too deep for JSON",
        )
    return None


def _may_nest_too_deep(text: bytes) -> bool:
    """Whether the value written as `text` (it encoded, so it is not too deep as it stands) may
    still nest more than MAX_DEPTH levels once each `$ref` counts as its definition.

    Not without a `$ref`. Nor with at most MAX_DEPTH / 2 containers in all (each is at least
    one `{` or `[` in `text`; brackets in strings only add): a path of `nesting` goes down
    the value, then through definitions expanded at most once each, so it meets each container
    at most twice."""
    return b'"$ref"' in text and 2 * (text.count(b"{") + text.count(b"[")) > MAX_DEPTH


def _wrapped(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = [value]
    return value


def nesting(
    value: Any, defs: dict[str, Any] | None = None, memo: dict[str, int] | None = None
) -> int:
    """How many JSON containers deep `value` goes, a `{"$ref": "#/$defs/X"}` counting as deep as
    `X` put in its place (a reference back to a definition being expanded counts as a leaf)."""
    if not isinstance(value, dict | list):
        return 0
    if isinstance(value, dict) and isinstance(value.get("$defs"), dict):
        defs, memo = value["$defs"], {}
    deepest = 0
    for item in value.values() if isinstance(value, dict) else value:
        if isinstance(item, dict | list):  # leaves are the most common: no call for them
            deepest = max(deepest, nesting(item, defs, memo))
    deepest += 1
    ref = value.get("$ref") if isinstance(value, dict) else None
    if isinstance(ref, str) and ref.startswith("#/$defs/") and defs and memo is not None:
        name = ref.removeprefix("#/$defs/")
        if name not in memo and name in defs:
            memo[name] = 0  # while expanding: a recursive reference is a leaf
            memo[name] = nesting(defs[name], defs, memo)
        deepest = max(deepest, memo.get(name, 0))
    return deepest


def _unencodable(value: Any, pointer: str) -> str | None:
    if isinstance(value, str):
        return None if value.isascii() or _encodes(value) else pointer or "/"
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if isinstance(key, str) and not _encodes(key):
                return where
            found = _unencodable(item, where)
            if found is not None:
                return found
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = _unencodable(item, f"{pointer}/{i}")
            if found is not None:
                return found
    return None


def surrogate_node(node: ast.AST) -> ast.AST | None:
    """The first string literal under `node` that has a lone surrogate, to point at."""
    for child in ast.walk(node):
        text = child.value if isinstance(child, ast.Constant) else None
        if isinstance(text, str) and not text.isascii() and not _encodes(text):
            return child
    return None


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
