"""Literal values read from source without running it: defaults, Field and decorator arguments.

Besides Python literals this follows names to module-level constants and enum members, so
`priority: Priority = Priority.LOW` has the default `"low"` like at run time.
"""

from __future__ import annotations

import ast
from typing import Any

from pydantic_core import to_json

from toolgen.index import Module, ModuleIndex


class NotLiteral(Exception):
    """The expression is not a value we can compute statically."""

    def __init__(self, node: ast.AST, why: str = "") -> None:
        super().__init__(why)
        self.node = node
        self.why = why


def literal_value(
    node: ast.expr,
    module: Module,
    index: ModuleIndex,
    depth: int = 0,
    enums: tuple[ast.ClassDef, ...] = (),
) -> Any:
    """The value of `node`, or raise `NotLiteral`. JSON-ready: tuples and sets become lists.
    `enums`: the enum classes whose member values are being read (a member that names one of
    them, `B = E.A` inside `class E`, is an error at run time)."""
    if depth > 20:
        raise NotLiteral(node, "too deeply nested")
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    else:
        try:
            return jsonable(value)
        except (ValueError, RecursionError) as exc:
            if not isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
                # a literal with no JSON form: `1e999`, `1j`, `...`; a container of them is
                # read item by item below, to point at the item
                raise NotLiteral(node, f"`{_source(node)}`: {exc}") from None
    if isinstance(node, ast.Name | ast.Attribute):
        symbol = index.resolve_expr(module, node)
        if symbol is not None and symbol.module is not None:
            if symbol.kind == "member" and isinstance(symbol.node, ast.ClassDef):
                if any(cls is symbol.node for cls in enums):
                    name = symbol.node.name
                    why = f"`{_source(node)}`: the member values of enum {name} refer back to it"
                    raise NotLiteral(node, why)
                values = enum_values(symbol.node, symbol.module, index, enums)
                member = symbol.path.rsplit(".", 1)[-1]
                if member in values:
                    return values[member]
            if symbol.kind == "assign" and isinstance(symbol.node, ast.expr):
                return literal_value(symbol.node, symbol.module, index, depth + 1, enums)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [literal_value(e, module, index, depth + 1, enums) for e in node.elts]
    if isinstance(node, ast.Dict):
        result: dict[str, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise NotLiteral(node, "dict unpacking")
            k = literal_value(key, module, index, depth + 1, enums)
            if not isinstance(k, str | int | float | bool) and k is not None:
                raise NotLiteral(key, "dict key must be a string or number")
            result[_json_key(k)] = literal_value(value, module, index, depth + 1, enums)
        return result
    raise NotLiteral(node, f"`{_source(node)}` is not a literal")


STR_ENUM_BASES = frozenset({"builtins.str", "enum.StrEnum"})


def enum_values(
    cls: ast.ClassDef, module: Module, index: ModuleIndex, enums: tuple[ast.ClassDef, ...] = ()
) -> dict[str, Any]:
    """Each member's value, as `enum` would assign it (`auto()` included). `enums`: as for
    `literal_value`, the enums whose values are being read already."""
    str_based = any(
        (symbol := index.resolve_expr(module, base)) is not None and symbol.path in STR_ENUM_BASES
        for base in cls.bases
    )
    values: dict[str, Any] = {}
    for stmt in cls.body:
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            continue
        target = stmt.targets[0]
        if not isinstance(target, ast.Name) or target.id.startswith("_"):
            continue
        if _is_auto(stmt.value):
            last = list(values.values())[-1] if values else 0
            values[target.id] = (
                target.id.lower() if str_based else (last + 1 if isinstance(last, int) else 1)
            )
        else:
            values[target.id] = literal_value(stmt.value, module, index, 1, (*enums, cls))
    return values


def _is_auto(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and not node.args
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "auto"
    )


def _json_key(key: object) -> str:
    if isinstance(key, bool) or key is None:
        return "true" if key is True else "false" if key is False else "null"
    return str(key)


def jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {_json_key(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, complex) or value is Ellipsis:
        raise ValueError(f"{value!r} has no JSON form")
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        raise ValueError(f"{value!r} (NaN, Infinity or out of range) has no JSON form")
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


def _source(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - unparse fails only on malformed trees
        return type(node).__name__
