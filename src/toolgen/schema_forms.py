"""JSON Schemas in the forms FastMCP and the MCP SDK publish them.

Both frameworks start from pydantic's `json_schema()` of the function (or of its return type):
`pydantic_form` makes it from toolgen's canonical schema (which is pydantic's without titles,
see `toolgen.analyze.types`): titles where pydantic sets them, its key order. FastMCP then drops
the titles (`prune_titles`), inlines `$ref`s (`dereference`) and tells an object result from
one to wrap (`is_object`); mcp 2's wire models move a few root keys first (`wire_order`).
"""

from __future__ import annotations

from typing import Any

from toolgen.schema_ops import recursive_defs

Schema = dict[str, Any]


def pydantic_form(schema: Schema, title: str | None = None) -> Schema:
    """toolgen's schema as pydantic's `json_schema()` has it: a root `$ref` to a model that
    does not refer to itself made the root, titles where pydantic sets them (`title` on the
    root), and keys sorted as pydantic sorts them."""
    out = _titled(_root_inlined(schema))
    if title is not None:
        out["title"] = title
    result: Schema = pydantic_sort(out)
    return result


def _root_inlined(schema: Schema) -> Schema:
    ref = schema.get("$ref")
    defs = schema.get("$defs", {})
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return schema
    name = ref.removeprefix("#/$defs/")
    if name not in defs or name in recursive_defs(schema):
        return schema
    siblings = {k: v for k, v in schema.items() if k not in ("$ref", "$defs")}
    root = {"title": name, **defs[name], **siblings}
    rest = {k: v for k, v in defs.items() if k != name and k in _used(root, defs)}
    return {**root, "$defs": rest} if rest else root


def _used(schema: Schema, defs: dict[str, Any]) -> set[str]:
    """The `$defs` entries `schema` refers to, directly or through others."""
    found: set[str] = set()
    pending = [schema]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name not in found and name in defs:
                    found.add(name)
                    pending.append(defs[name])
            pending.extend(v for k, v in value.items() if k not in ("default", "enum", "const"))
        elif isinstance(value, list):
            pending.extend(value)
    return found


def _titled(schema: Schema) -> Schema:
    """Titles as pydantic sets them: each field's, from its name, unless its schema is a
    reference (a model, an enum) or an optional reference; each definition's, its name."""

    def fields(value: Schema) -> Schema:
        out = dict(value)
        props = out.get("properties")
        if isinstance(props, dict):
            out["properties"] = {
                name: (
                    {**prop, "title": field_title(name)}
                    if isinstance(prop, dict) and "title" not in prop and _titles(prop)
                    else prop
                )
                for name, prop in props.items()
            }
        return out

    out = fields(schema)
    if "$defs" in out:
        out["$defs"] = {
            name: {"title": name, **fields(body)} if isinstance(body, dict) else body
            for name, body in out["$defs"].items()
        }
    return out


def _titles(prop: Schema) -> bool:
    if "$ref" in prop:
        return False
    members = prop.get("anyOf")
    if isinstance(members, list) and len(members) == 2 and {"type": "null"} in members:
        other = members[0] if members[1] == {"type": "null"} else members[1]
        return not (isinstance(other, dict) and "$ref" in other)
    return True


def field_title(name: str) -> str:
    """pydantic's title for a field of this name."""
    return name.title().replace("_", " ").strip()


def pydantic_sort(value: Any, parent: str | None = None) -> Any:
    """pydantic's key order: sorted, but for the fields of `properties` and a `default`."""
    if isinstance(value, dict):
        keys = value.keys() if parent in ("properties", "default") else sorted(value)
        return {key: pydantic_sort(value[key], key) for key in keys}
    if isinstance(value, list):
        return [pydantic_sort(item, parent) for item in value]
    return value


def wrapped(schema: Schema, title: str) -> Schema:
    """A return schema as the `result` field of a model titled `title`."""
    defs = schema.get("$defs")
    result = {k: v for k, v in schema.items() if k != "$defs"}
    model: Schema = {"properties": {"result": result}, "required": ["result"], "type": "object"}
    if defs:
        model["$defs"] = defs
    return pydantic_form(model, title)


# -- FastMCP's changes -----------------------------------------------------------------------
#: Keys whose values are data, not schemas: titles there stay.
_DATA_KEYS = frozenset({"default", "const", "examples", "example", "enum"})
_SCHEMA_KEYWORDS = frozenset(
    {"type", "properties", "$ref", "items", "allOf", "oneOf", "anyOf", "required"}
)
_METADATA_KEYS = frozenset({"title", "description", "deprecated", "readOnly", "writeOnly"})


def prune_titles(schema: Schema) -> Schema:
    """FastMCP's `compress_schema(prune_titles=True)`: every schema's `title` dropped."""

    def walk(value: Any, in_schema: bool) -> Any:
        if isinstance(value, list):
            return [walk(v, in_schema) for v in value]
        if not isinstance(value, dict):
            return value
        drop = (
            in_schema
            and isinstance(value.get("title"), str)
            and (
                any(k in value for k in _SCHEMA_KEYWORDS) or all(k in _METADATA_KEYS for k in value)
            )
        )
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key == "title" and drop:
                continue
            if not in_schema or key in _DATA_KEYS:
                out[key] = item if key in _DATA_KEYS else walk(item, False)
            elif key in ("properties", "$defs", "patternProperties") and isinstance(item, dict):
                out[key] = {name: walk(sub, True) for name, sub in item.items()}
            elif key in (
                "allOf",
                "anyOf",
                "oneOf",
                "prefixItems",
                "items",
                "additionalProperties",
                "not",
            ):
                out[key] = walk(item, True)
            else:
                out[key] = walk(item, False)
        return out

    result: Schema = walk(schema, True)
    return result


def dereference(schema: Schema) -> Schema:
    """FastMCP's `dereference_refs`: each `$ref` replaced by its definition, the reference's
    own keys after the definition's; a schema with a recursive model is left as it is."""
    defs = schema.get("$defs")
    if not defs or recursive_defs(schema):
        return resolve_root_ref(schema)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
                siblings = {k: v for k, v in value.items() if k not in ("$ref", "$defs")}
                return {**walk(defs[ref[8:]]), **siblings}
            return {k: walk(v) for k, v in value.items() if k != "$defs"}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    result: Schema = walk(schema)
    return result


def resolve_root_ref(schema: Schema) -> Schema:
    """A root `$ref` (a recursive model) with its definition copied under the root's keys."""
    ref = schema.get("$ref")
    if "type" in schema or not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return schema
    target = schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
    if not isinstance(target, dict):
        return schema
    return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}


def wire_order(schema: Schema) -> Schema:
    """mcp 2's wire models put `$schema`, `properties`, `required` and `type` first."""
    first = [k for k in ("$schema", "properties", "required", "type") if k in schema]
    return {**{k: schema[k] for k in first}, **{k: v for k, v in schema.items() if k not in first}}


def is_object(schema: Schema) -> bool:
    """FastMCP's test: an object type, properties without a type, or a `$ref` to one."""
    kind = schema.get("type")
    if isinstance(kind, list):
        return [k for k in kind if k != "null"] == ["object"]
    if "type" in schema:
        return bool(kind == "object")
    if "properties" in schema:
        return True
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
        return isinstance(target, dict) and is_object({**target, "$defs": schema["$defs"]})
    return False
