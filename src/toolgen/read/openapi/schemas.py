"""Schema rewriting as FastMCP does it: `#/components/schemas` references to `#/$defs`, and
OpenAPI to JSON Schema. Every walk is bounded in depth, so that a hostile document ends in
a `RouteError`, not a crash."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from .model import JSON, RouteError

MAX_DEPTH = 200  # deeper schemas would exhaust FastMCP's own recursion well before this


def node_count(value: Any) -> int:
    """Containers and scalars in a value (iterative: any depth)."""
    count = 0
    stack = [value]
    while stack:
        node = stack.pop()
        count += 1
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


def deeper(depth: int) -> int:
    if depth > MAX_DEPTH:
        raise RouteError(f"a schema is nested more than {MAX_DEPTH} levels deep")
    return depth + 1


# ---------------------------------------------------------------- references to $defs

_SINGLE_V4 = (
    "propertyNames",
    "contentSchema",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "unevaluatedItems",
    "unevaluatedProperties",
)


class NonLocalRef(Exception):
    """FastMCP refuses the whole document when a schema has a non-local `$ref`."""


def replace_ref_with_defs(
    info: JSON, description: str | None = None, *, v4: bool, depth: int = 0
) -> JSON:
    """`_replace_ref_with_defs`: 3.x keeps only a reference's last segment and visits
    `properties`/`items` only when there is no `$ref`; 4.x keeps the whole pointer and
    visits every subschema keyword."""
    depth = deeper(depth)

    def sub(value: Any) -> Any:
        return (
            replace_ref_with_defs(value, v4=v4, depth=depth) if isinstance(value, dict) else value
        )

    schema = dict(info)
    ref = schema.get("$ref")
    if ref and isinstance(ref, str):
        if ref.startswith("#/components/schemas/"):
            tail = ref.removeprefix("#/components/schemas/") if v4 else ref.split("/")[-1]
            schema["$ref"] = f"#/$defs/{tail}"
        elif not ref.startswith("#/"):
            raise NonLocalRef(ref)
    props = schema.get("properties")
    if (v4 or not ref) and props and isinstance(props, dict):
        # a property literally named "$ref" makes FastMCP treat the map as a schema
        schema["properties"] = (
            sub(props) if "$ref" in props else {n: sub(p) for n, p in props.items()}
        )
    items = schema.get("items")
    if (v4 or not (ref or (props and isinstance(props, dict)))) and items:
        schema["items"] = sub(items)
    if v4 and isinstance(schema.get("prefixItems"), list):
        schema["prefixItems"] = [sub(x) for x in schema["prefixItems"]]
    for section in ("anyOf", "allOf", "oneOf"):
        if isinstance(schema.get(section), list):
            schema[section] = [sub(x) for x in schema[section]]
    extra = schema.get("additionalProperties")
    if extra and not isinstance(extra, bool):
        schema["additionalProperties"] = sub(extra)
    singles = _SINGLE_V4 if v4 else ("propertyNames",)
    for key in singles:
        if isinstance(schema.get(key), dict) and (v4 or schema[key]):
            schema[key] = sub(schema[key])
    maps = ("patternProperties", "dependentSchemas") if v4 else ("patternProperties",)
    for key in maps:
        value = schema.get(key)
        if isinstance(value, dict) and (v4 or value):
            schema[key] = {n: sub(x) for n, x in value.items()}
    if info.get("description", description) and not schema.get("description"):
        schema["description"] = description
    return schema


def ref_target_name(ref: str, roots: tuple[tuple[str, ...], ...] = (("$defs",),)) -> str | None:
    """4.x: the definition a local pointer names (percent- and ~-decoded first segment)."""
    parts = unquote(ref[1:].lstrip("/")).split("/")
    for root in roots:
        n = len(root)
        if parts[:n] == list(root) and len(parts) > n and parts[n]:
            return parts[n].replace("~1", "/").replace("~0", "~")
    return None


def component_name(ref: str, *, v4: bool) -> str | None:
    """The component schema a `$ref` needs, for the `$defs` closures."""
    if v4:
        if not ref.startswith("#/"):
            return None
        return ref_target_name(ref, (("$defs",), ("components", "schemas")))
    if ref.startswith(("#/$defs/", "#/components/schemas/")):
        return ref.split("/")[-1]
    return None


def discriminator_target(target: str) -> str | None:
    for prefix in ("#/$defs/", "#/components/schemas/"):
        if target.startswith(prefix):
            return target.removeprefix(prefix) or None
    if target.startswith("#") or "/" in target:
        return None
    return target or None


def resolve_definition_pointer(defs: JSON | None, pointer: str) -> Any:
    node: Any = defs or {}
    for segment in pointer.split("/"):
        key = segment.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node.get(key)
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


# ---------------------------------------------------------------- OpenAPI -> JSON Schema

_OPENAPI_ONLY = (
    "nullable",
    "discriminator",
    "readOnly",
    "writeOnly",
    "xml",
    "externalDocs",
    "deprecated",
)
_EXCLUSIVE = {"exclusiveMinimum": "minimum", "exclusiveMaximum": "maximum"}


def _nullable(result: JSON) -> JSON:
    if "nullable" not in result:
        return result
    result = dict(result)
    if not result.pop("nullable"):
        return result
    if "type" in result:
        t = result["type"]
        if isinstance(t, str):
            result["type"] = [t, "null"]
        elif isinstance(t, list) and "null" not in t:
            result["type"] = [*t, "null"]
    elif "oneOf" in result:
        result["anyOf"] = [*result.pop("oneOf"), {"type": "null"}]
    elif "anyOf" in result:
        members = result["anyOf"]
        if not any(isinstance(m, dict) and m.get("type") == "null" for m in members):
            result["anyOf"] = [*members, {"type": "null"}]
    elif "allOf" in result:
        result["anyOf"] = [{"allOf": result.pop("allOf")}, {"type": "null"}]
    enum = result.get("enum")
    if isinstance(enum, list) and None not in enum:
        result["enum"] = [*enum, None]
    return result


def _exclusive_bounds(result: JSON) -> JSON:
    result = dict(result)
    for key, bound in _EXCLUSIVE.items():
        flag = result.get(key)
        if not isinstance(flag, bool):
            continue
        del result[key]
        if flag and bound in result:
            result[key] = result.pop(bound)
    return result


def require_discriminator_property(schema: JSON) -> JSON:
    """Each anyOf/oneOf variant requires the discriminator's tag once the keyword goes."""
    disc = schema.get("discriminator")
    if not isinstance(disc, dict) or not isinstance(disc.get("propertyName"), str):
        return schema
    name = disc["propertyName"]
    result = dict(schema)
    for key in ("anyOf", "oneOf"):
        variants = result.get(key)
        if not isinstance(variants, list):
            continue
        out = []
        for v in variants:
            if isinstance(v, dict):
                req = v.get("required")
                if req is None:
                    v = {**v, "required": [name]}
                elif isinstance(req, list) and name not in req:
                    v = {**v, "required": [*req, name]}
            out.append(v)
        result[key] = out
    return result


def _scopes(schema: JSON, defs: JSON | None, seen: set[str], depth: int) -> list[JSON]:
    """A schema with its `$ref` targets and `allOf` members: one object, one scope."""
    depth = deeper(depth)
    found = [schema]
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref not in seen:
        seen.add(ref)
        target = resolve_definition_pointer(defs, ref[len("#/$defs/") :])
        if isinstance(target, dict):
            found += _scopes(target, defs, seen, depth)
    members = schema.get("allOf")
    for m in members if isinstance(members, list) else []:
        if isinstance(m, dict):
            found += _scopes(m, defs, seen, depth)
    return found


def _drop_names(schema: JSON, names: set[str], depth: int) -> JSON:
    depth = deeper(depth)
    result = dict(schema)
    if isinstance(result.get("properties"), dict):
        result["properties"] = {k: v for k, v in result["properties"].items() if k not in names}
    if isinstance(result.get("required"), list):
        left = [n for n in result["required"] if n not in names]
        if left:
            result["required"] = left
        else:
            result.pop("required")
    for key in ("allOf", "anyOf", "oneOf"):
        if isinstance(result.get(key), list):
            result[key] = [
                _drop_names(m, names, depth) if isinstance(m, dict) else m for m in result[key]
            ]
    return result


def _filter_access(schema: JSON, keys: tuple[str, ...], defs: JSON | None, depth: int) -> JSON:
    names: set[str] = set()
    for scope in _scopes(schema, defs, set(), depth):
        props = scope.get("properties")
        if not isinstance(props, dict):
            continue
        for name, prop in props.items():
            if isinstance(prop, dict) and any(
                m.get(k) for m in _scopes(prop, defs, set(), depth) for k in keys
            ):
                names.add(name)
    return _drop_names(schema, names, depth) if names else schema


_RECURSE_MAPS = ("properties", "$defs", "$definitions")
_RECURSE_ONE = ("items", "additionalProperties", "not")
_RECURSE_LISTS = ("allOf", "anyOf", "oneOf")


def to_json_schema(
    schema: Any,
    openapi_version: str,
    *,
    v4: bool,
    remove_read_only: bool = False,
    remove_write_only: bool = False,
    definitions: JSON | None = None,
    tags: bool = False,
    depth: int = 0,
) -> Any:
    """`convert_openapi_schema_to_json_schema` (3.2.1+). Its early exits only skip copies,
    so they are not modelled. 3.4.3 adds discriminator tags (`tags`), 4.x access filtering
    and 3.0 exclusive bounds."""
    if not isinstance(schema, dict):
        return schema
    depth = deeper(depth)
    if v4 and definitions is None and isinstance(schema.get("$defs"), dict):
        definitions = schema["$defs"]
    result = dict(schema)
    if v4 and (remove_read_only or remove_write_only):
        keys = (("readOnly",) if remove_read_only else ()) + (
            ("writeOnly",) if remove_write_only else ()
        )
        result = _filter_access(result, keys, definitions, depth)
    if openapi_version.startswith("3.0"):
        result = _nullable(result)
        if v4:
            result = _exclusive_bounds(result)
    if "oneOf" in result:
        result["anyOf"] = result.pop("oneOf")
    if v4 or tags:
        result = require_discriminator_property(result)
    for key in _OPENAPI_ONLY:
        result.pop(key, None)

    def sub(value: Any) -> Any:
        return to_json_schema(
            value,
            openapi_version,
            v4=v4,
            remove_read_only=remove_read_only,
            remove_write_only=remove_write_only,
            definitions=definitions,
            tags=tags,
            depth=depth,
        )

    for key in _RECURSE_MAPS:
        if isinstance(result.get(key), dict):
            result[key] = {n: sub(x) for n, x in result[key].items()}
    for key in _RECURSE_ONE:
        if isinstance(result.get(key), dict):
            result[key] = sub(result[key])
    for key in _RECURSE_LISTS:
        if isinstance(result.get(key), list):
            result[key] = [sub(x) for x in result[key]]
    return result
