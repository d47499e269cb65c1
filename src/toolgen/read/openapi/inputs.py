"""The input schema FastMCP gives an operation's tool: parameters first (a name that
collides gets its location as a suffix), then the request body, per version."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from .model import JSON, Route, RouteError
from .schemas import (
    deeper,
    discriminator_target,
    replace_ref_with_defs,
    resolve_definition_pointer,
    to_json_schema,
)

Version = tuple[int, int, int]


def _body_name(schema: JSON) -> str:
    title = schema.get("title", "body")
    name = re.sub(r"[^a-zA-Z0-9_]", "_", title.lower() if isinstance(title, str) else "body")
    return "body_data" if not name or name[0].isdigit() else name


def _param_schema(p: Any, colliding: set[str]) -> tuple[str, JSON]:
    schema = dict(p.schema_)
    if p.description and not schema.get("description"):
        schema["description"] = p.description
    if p.name not in colliding:
        return p.name, schema
    where = f"({p.location.capitalize()} parameter)"
    desc = schema.get("description", "")
    schema["description"] = f"{desc} {where}" if desc else where
    return f"{p.name}__{p.location}", schema


def _add_parameters(route: Route, colliding: set[str], props: JSON, required: list[str]) -> None:
    """The route's parameters as properties, in order (a colliding name suffixed)."""
    for p in route.parameters:
        name, schema = _param_schema(p, colliding)
        if p.required:
            required.append(name)
        props[name] = schema


# 3.4.3 suffixes a name repeated across locations, and keeps a discriminator's tag required
_V343 = (3, 4, 3)


def combine_v3(route: Route, version: Version) -> JSON:
    """3.x (and 2.x) `_combine_schemas_and_map_params`."""
    props: JSON = {}
    required: list[str] = []
    body = route.request_body
    body_schema: JSON = {}
    body_props: JSON = {}
    if body and body.content_schema:
        body_schema = dict(next(iter(body.content_schema.values())))
        if body.description and not body_schema.get("description"):
            body_schema["description"] = body.description
        if isinstance(body_schema.get("allOf"), list):
            merged: JSON = {}
            merged_required: list[Any] = []
            for sub in body_schema["allOf"]:
                if isinstance(sub, dict):
                    merged.update(sub.get("properties", {}))
                    merged_required.extend(sub.get("required", []))
            body_schema["properties"] = merged
            if merged_required:
                body_schema["required"] = list(dict.fromkeys(merged_required))
            body_schema.pop("allOf", None)
        body_props = body_schema.get("properties", {}) or {}
    colliding = {p.name for p in route.parameters} & set(body_props)
    if version >= _V343:
        counts = Counter(p.name for p in route.parameters)
        colliding |= {n for n, c in counts.items() if c > 1}
    _add_parameters(route, colliding, props, required)
    if body and body.content_schema:
        if "$ref" in body_schema and not body_props:
            props["body"] = body_schema
            if body.required:
                required.append("body")
        elif body_props:
            props.update(body_props)
            if body.required:
                required.extend(body_schema.get("required", []))
        else:
            name = _body_name(body_schema)
            props[name] = body_schema
            if body.required:
                required.append(name)
    result: JSON = {"type": "object", "properties": props, "required": required}
    if route.request_schemas:
        result["$defs"] = route.request_schemas
    if version >= (3, 2, 1) and route.openapi_version.startswith("3"):
        result = to_json_schema(result, route.openapi_version, v4=False, tags=version >= _V343)
    return result


_MERGEABLE = frozenset(
    {
        "type",
        "properties",
        "required",
        "title",
        "description",
        "example",
        "examples",
        "deprecated",
        "discriminator",
        "oneOf",
    }
)
_MAX_MEMBERS = 100_000


def allof_members(schema: JSON, defs: JSON) -> list[JSON]:
    """`_allof_members`: the schemas one object is made of, through `$ref`s and `allOf`;
    a member met again on its own path is kept as it is (a cycle)."""
    budget = [0]

    def collect(
        node: JSON, refs: frozenset[str], active: set[tuple[int, frozenset[str]]], depth: int
    ) -> list[JSON]:
        depth = deeper(depth)
        budget[0] += 1
        if budget[0] > _MAX_MEMBERS:
            raise RouteError("schema composition has too many members")
        context = (id(node), refs)
        if context in active:
            return [node]
        active.add(context)
        members: dict[int, JSON] = {}

        def append(items: list[JSON]) -> None:
            budget[0] += len(items)
            if budget[0] > _MAX_MEMBERS:
                raise RouteError("schema composition has too many members")
            for item in items:
                members.pop(id(item), None)  # the last occurrence decides the position
                members[id(item)] = item

        ref = node.get("$ref")
        target = None
        name = ""
        if isinstance(ref, str):
            for prefix in ("#/$defs/", "#/components/schemas/"):
                if ref.startswith(prefix):
                    name = ref.removeprefix(prefix)
                    target = resolve_definition_pointer(defs, name) if name not in refs else None
                    break
        children: list[tuple[JSON, frozenset[str]]] = []
        trailing: list[JSON] = []
        if isinstance(target, dict):
            children.append((target, refs | {name}))
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            if siblings:
                children.append((siblings, refs))
        elif isinstance(node.get("allOf"), list):
            children.extend((m, refs) for m in node["allOf"] if isinstance(m, dict))
            siblings = {k: v for k, v in node.items() if k != "allOf"}
            if siblings:
                trailing.append(siblings)
        else:
            trailing.append(node)
        for child, child_refs in children:
            append(collect(child, child_refs, active, depth))
        append(trailing)
        active.discard(context)
        return list(members.values())

    return collect(schema, frozenset(), set(), 0)


def _mergeable(schema: JSON) -> bool:
    if schema.get("type", "object") != "object" or not set(schema) <= _MERGEABLE:
        return False
    if "oneOf" in schema:
        d = schema.get("discriminator")
        return (
            isinstance(d, dict)
            and isinstance(d.get("propertyName"), str)
            and isinstance(d.get("mapping"), dict)
        )
    return True


def _flatten_discriminator(schema: JSON, defs: JSON) -> JSON | None:
    """4.x: a discriminator mapping's subtype fields merged in as optional properties."""
    disc = schema.get("discriminator")
    if not isinstance(disc, dict):
        return None
    tag, mapping = disc.get("propertyName"), disc.get("mapping")
    if not isinstance(tag, str) or not isinstance(mapping, dict):
        return None
    own = schema.get("properties", {})
    alternatives: dict[str, list[Any]] = {}
    values: list[str] = []
    variants: list[str] = []
    for value, target in mapping.items():
        if not isinstance(target, str):
            continue
        name = discriminator_target(target)
        subtype = defs.get(name) if name else None
        if not isinstance(subtype, dict):
            continue
        fields: list[str] = []
        for member in allof_members(subtype, defs):
            for prop, prop_schema in member.get("properties", {}).items():
                if prop in own:
                    continue
                if prop not in fields:
                    fields.append(prop)
                seen = alternatives.setdefault(prop, [])
                if prop_schema not in seen:
                    seen.append(prop_schema)
        values.append(repr(value))
        if fields:
            variants.append(f"{value!r} uses {', '.join(fields)}")
    if not values:
        return None
    props = {**own, **{p: s[0] if len(s) == 1 else {"anyOf": s} for p, s in alternatives.items()}}
    note = f"Selects the variant. Accepted values: {', '.join(values)}."
    if variants:
        note += f" {'; '.join(variants)}. Send only the fields belonging to the selected variant."
    tag_schema = props.get(tag)
    if not isinstance(tag_schema, dict):
        tag_schema = {"type": "string"}
    existing = tag_schema.get("description")
    props[tag] = {**tag_schema, "description": f"{existing} {note}" if existing else note}
    return props


def combine_v4(route: Route) -> JSON:
    """4.x `_combine_schemas_and_map_params` (as the parser calls it, refs already
    rewritten) followed by `_convert_input_schema`."""
    props: JSON = {}
    required: list[str] = []
    body = route.request_body
    defs = route.request_schemas
    body_schema: JSON = {}
    body_props: JSON = {}
    body_defs: JSON = {}
    if body and body.content_schema:
        body_schema = dict(next(iter(body.content_schema.values())))
        own_defs = body_schema.get("$defs") or {}
        body_defs = {
            n: replace_ref_with_defs(d, v4=True) if isinstance(d, dict) else d
            for n, d in (own_defs.items() if isinstance(own_defs, dict) else [])
        }
        if body.description and not body_schema.get("description"):
            body_schema["description"] = body.description
        has_all_of = isinstance(body_schema.get("allOf"), list)
        ref_is_object = "$ref" not in body_schema or all(
            _mergeable(m) for m in allof_members({"$ref": body_schema["$ref"]}, defs)
        )
        ref_with_props = (
            "$ref" in body_schema
            and isinstance(body_schema.get("properties"), dict)
            and ref_is_object
        )
        if has_all_of or ref_with_props:
            merged: JSON = {}
            merged_required: list[Any] = []
            for sub in allof_members(body_schema, defs):
                for name, prop in sub.get("properties", {}).items():
                    if not has_all_of and name in merged and merged[name] != prop:
                        prop = {"allOf": [merged[name], prop]}
                    merged[name] = prop
                if "required" in sub:
                    merged_required.extend(sub["required"])
                if not has_all_of and isinstance(sub.get("discriminator"), dict):
                    body_schema["discriminator"] = sub["discriminator"]
            body_schema["properties"] = merged
            if merged_required:
                body_schema["required"] = list(dict.fromkeys(merged_required))
            body_schema.pop("allOf", None)
            if ref_is_object:
                body_schema.pop("$ref", None)
        if not ref_is_object:
            ref = body_schema["$ref"]
            siblings = {k: v for k, v in body_schema.items() if k != "$ref"}
            if not siblings.get("properties"):
                siblings.pop("properties", None)
            body_schema = {"allOf": [{"$ref": ref}, siblings]} if siblings else {"$ref": ref}
        flattened = _flatten_discriminator(body_schema, defs)
        if flattened is not None:
            body_schema["properties"] = flattened
            body_schema.pop("discriminator", None)
        body_props = body_schema.get("properties", {}) if ref_is_object else {}
    names = {p.name for p in route.parameters}
    body_names = set(body_props)
    body_name = "body"
    if body and body.content_schema and not body_props:
        if "$ref" not in body_schema:
            body_name = _body_name(body_schema)
        body_names.add(body_name)
    counts = Counter(p.name for p in route.parameters)
    colliding = (names & body_names) | {n for n, c in counts.items() if c > 1}
    _add_parameters(route, colliding, props, required)
    if body and body.content_schema:
        if body_props:
            props.update(body_props)
            if body.required:
                required.extend(body_schema.get("required", []))
        else:
            props[body_name] = body_schema
            if body.required:
                required.append(body_name)
    result: JSON = {"type": "object", "properties": props, "required": required}
    all_defs = {**defs, **body_defs}
    if all_defs:
        result["$defs"] = all_defs
    if route.openapi_version.startswith("3"):
        result = _convert_input(result, set(body_props), route.openapi_version)
    return result


def _convert_input(schema: JSON, body_names: set[str], version: str) -> JSON:
    """4.x: readOnly body properties leave the arguments; the rest is converted one by one."""
    props = schema["properties"]
    defs = schema.get("$defs")

    def convert(sub: Any) -> Any:
        return to_json_schema(sub, version, v4=True, remove_read_only=True, definitions=defs)

    body = convert(
        {
            "properties": {k: v for k, v in props.items() if k in body_names},
            "required": [n for n in schema["required"] if n in body_names],
        }
    )
    converted = {
        name: body["properties"][name] if name in body_names else convert(sub)
        for name, sub in props.items()
        if name not in body_names or name in body["properties"]
    }
    result: JSON = {
        "type": "object",
        "properties": converted,
        "required": [
            n for n in schema["required"] if n not in body_names or n in body.get("required", [])
        ],
    }
    if defs is not None:
        result["$defs"] = {n: convert(d) for n, d in defs.items()}
    return result


def input_schema(route: Route, version: Version) -> JSON:
    if version >= (4, 0, 0):
        try:
            return combine_v4(route)
        except RouteError:
            # FastMCP's parser catches a failed combination and lists an empty schema
            return {"type": "object", "properties": {}}
    return combine_v3(route, version)
