"""The list-time dereference FastMCP applies to every listed tool (`dereference_refs`):
local references inlined within bounds, a cyclic or oversized schema left referenced."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from .model import JSON, RouteError
from .schemas import deeper, require_discriminator_property

MAX_NODES = 100_000
MAX_INLINED_DEPTH = 128
MAX_TEXT = 5_000_000
MAX_HOPS = 32


class CannotInline(Exception):
    pass


def has_ref(schema: JSON) -> bool:
    """The middleware's own test (it looks into dicts and lists of dicts only)."""
    stack: list[JSON] = [schema]
    while stack:
        node = stack.pop()
        if "$ref" in node:
            return True
        for value in node.values():
            if isinstance(value, dict):
                stack.append(value)
            elif isinstance(value, list):
                stack.extend(x for x in value if isinstance(x, dict))
    return False


def _resolve_local(root: JSON, ref: str, hops: list[int]) -> Any:
    """`_resolve_local_ref`: walk the pointer, passing through aliases (bounded)."""
    fragment = ref[1:]
    parts = unquote(fragment.lstrip("/")).split("/") if fragment else []
    node: Any = root
    for part in parts:
        while node is not root and isinstance(node, dict) and "$ref" in node:
            inner = node["$ref"]
            if not isinstance(inner, str) or not inner.startswith("#"):
                break
            hops[0] += 1
            if hops[0] > MAX_HOPS:
                raise CannotInline(ref)
            node = _resolve_local(root, inner, hops)
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif (
            isinstance(node, list)
            and key.lstrip("-").isdigit()
            and -len(node) <= int(key) < len(node)
        ):
            node = node[int(key)]
        else:
            raise CannotInline(ref)
    return node


def _strip_remote(value: Any, depth: int = 0) -> Any:
    depth = deeper(depth)
    if isinstance(value, dict):
        ref = value.get("$ref")
        drop = isinstance(ref, str) and not ref.startswith("#")
        return {k: _strip_remote(v, depth) for k, v in value.items() if not (drop and k == "$ref")}
    if isinstance(value, list):
        return [_strip_remote(v, depth) for v in value]
    return value


def _measure(root: JSON, *, follow_refs: bool, start: JSON | None = None) -> None:
    """Raise CannotInline when the expanded schema (from `start`, the root by default) is
    cyclic, too big or too deep."""
    sizes: dict[int, tuple[int, int]] = {}
    active: set[int] = set()

    def measure(node: dict[str, Any] | list[Any], depth: int) -> tuple[int, int]:
        if depth > MAX_INLINED_DEPTH:
            raise CannotInline("too deep")
        key = id(node)
        if key in sizes:
            nodes, height = sizes[key]
        elif key in active:
            raise CannotInline("cycle")
        else:
            active.add(key)
            children = list(node.values()) if isinstance(node, dict) else list(node)
            if follow_refs and isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith("#"):
                    children.append(_resolve_local(root, ref, [0]))
            nodes, height = 1, 0
            for child in children:
                if isinstance(child, dict | list):
                    n, h = measure(child, depth + 1)
                    nodes += n
                    height = max(height, h + 1)
                else:
                    nodes += 1
                if nodes > MAX_NODES:
                    raise CannotInline("too large")
            active.discard(key)
            sizes[key] = (nodes, height)
        if depth + height > MAX_INLINED_DEPTH:
            raise CannotInline("too deep")
        return nodes, height

    measure(root if start is None else start, 0)


def _text_size(schema: JSON) -> int:
    total = 0
    stack: list[Any] = [schema]
    while stack and total <= MAX_TEXT:
        node = stack.pop()
        if isinstance(node, dict):
            total += sum(len(k) for k in node if isinstance(k, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            total += len(node)
        elif isinstance(node, bool) or node is None:
            total += 5
        elif isinstance(node, int):
            total += node.bit_length() // 3 + 2
        elif isinstance(node, float):
            total += len(repr(node))
    return total


_DATA_KEYS = ("default", "const", "examples", "enum")
_MAP_KEYS = (
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
)


def _strip_discriminator(value: Any, tags: bool, depth: int = 0) -> Any:
    """After inlining, an OpenAPI discriminator beside anyOf/oneOf would dangle: drop it
    (and, from 3.4.3, keep its tag required in each variant)."""
    depth = deeper(depth)
    if isinstance(value, dict):
        skip = "discriminator" in value and ("anyOf" in value or "oneOf" in value)
        if skip and tags:
            value = require_discriminator_property(value)
        out: JSON = {}
        for k, v in value.items():
            if k == "discriminator" and skip:
                continue
            if k in _MAP_KEYS and isinstance(v, dict):
                out[k] = {n: _strip_discriminator(x, tags, depth) for n, x in v.items()}
            elif k in _DATA_KEYS:
                out[k] = v
            else:
                out[k] = _strip_discriminator(v, tags, depth)
        return out
    if isinstance(value, list):
        return [_strip_discriminator(v, tags, depth) for v in value]
    return value


def resolve_root_ref(schema: JSON) -> JSON:
    """A root `$ref` (a cyclic or oversized schema) resolved, the rest left as it is."""
    ref = schema.get("$ref")
    if "type" in schema or not isinstance(ref, str) or not ref.startswith("#"):
        return schema
    resolved = {k: v for k, v in schema.items() if k != "$ref"}
    visited: set[str] = set()
    for _ in range(MAX_HOPS):
        if ref in visited:
            return schema
        visited.add(ref)
        try:
            target = _resolve_local(schema, ref, [0])
        except CannotInline:
            return schema
        if not isinstance(target, dict) or target is schema:
            return schema
        nxt = target.get("$ref")
        alias = "type" not in target and isinstance(nxt, str) and nxt.startswith("#")
        kept = {k: v for k, v in target.items() if k != "$ref"} if alias else target
        resolved = {**kept, **resolved}
        if not alias:
            return resolved
        ref = str(nxt)
    return schema


def _inline(root: JSON, start: JSON | None = None) -> Any:
    """jsonref's replacement of every local `$ref` by its target, then FastMCP's merge of
    the reference's own keys (raw, as written) over the target's. `_measure` ran first, so
    the expansion is acyclic and bounded."""

    def walk(value: Any, depth: int) -> Any:
        if depth > MAX_INLINED_DEPTH + MAX_HOPS:
            raise CannotInline("too deep")
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                target = walk(_resolve_local(root, ref, [0]), depth + 1)
                siblings = {k: v for k, v in value.items() if k not in ("$ref", "$defs")}
                if siblings and isinstance(target, dict):
                    return {**target, **siblings}
                return target
            return {k: walk(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, depth + 1) for v in value]
        return value

    return walk(root if start is None else start, 0)


def dereference(schema: JSON, version: tuple[int, int, int]) -> JSON:
    """FastMCP's `dereference_refs`: inline every local reference and drop the root `$defs`.
    A cyclic schema keeps its references and only a root `$ref` is resolved (3.0.0 cannot
    list it at all: a `RouteError`). From 3.4.8 an oversized or too deep result is treated
    like a cycle; before, FastMCP inlines it whatever its size, which is refused here with a
    `RouteError` rather than built. The discriminator is stripped from 3.2.0 on."""
    limits = version >= (3, 4, 8)
    try:
        schema = _strip_remote(schema)
        if version < (3, 0, 1):
            # 3.0.0 inlines regardless; a cycle reachable outside `$defs` cannot be listed
            outside = {k: v for k, v in schema.items() if k != "$defs"}
            try:
                _measure(schema, follow_refs=True, start=outside)
            except CannotInline as e:
                if str(e) == "cycle":
                    raise RouteError("fastmcp 3.0.0 cannot list a cyclic schema") from None
                raise RouteError(f"the schema is {e} to inline") from None
            inlined_30: JSON = _inline(schema, start=outside)
            return inlined_30
        try:
            _measure(schema, follow_refs=True)
        except CannotInline as e:
            if limits or str(e) == "cycle":
                return resolve_root_ref(schema)
            raise RouteError(f"the schema is {e} to inline") from None
        inlined = _inline(schema)
        if not isinstance(inlined, dict):
            return resolve_root_ref(schema)
        inlined = {k: v for k, v in inlined.items() if k != "$defs"}
        if limits:
            _measure(inlined, follow_refs=False)
        if version >= (3, 2, 0):
            inlined = _strip_discriminator(inlined, tags=version >= (3, 4, 3))
        if limits and _text_size(inlined) > MAX_TEXT:
            return resolve_root_ref(schema)
        result: JSON = inlined
        return result
    except (CannotInline, RecursionError):
        return resolve_root_ref(schema)
