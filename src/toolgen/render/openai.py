"""OpenAI: Chat Completions and Responses tool lists, strict where the schema allows it.

Strict mode (reference/platforms.md): every object closed and fully required, optional
parameters as a union with null, no `default`, `$ref` without siblings, supported keywords and
formats only. A schema that cannot be made strict (free-form objects or values, tuples,
unsupported combinators) is sent as given with `strict: false`, and the build says why.
"""

from __future__ import annotations

from typing import Any

from toolgen.descriptor import ToolDescriptor

STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
NOT_STRICT_KEYS = frozenset(
    {
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "prefixItems",
        "patternProperties",
        "propertyNames",
        "unevaluatedProperties",
    }
)
DROPPED_KEYS = frozenset({"default", "examples", "deprecated", "uniqueItems", "title"})


class NotStrict(Exception):
    pass


def render(tools: list[ToolDescriptor], report: Any) -> dict[str, Any]:
    chat: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    for tool in tools:
        try:
            parameters, strict = strict_schema(tool.parameters), True
        except NotStrict as why:
            parameters, strict = tool.parameters, False
            report("TG601", tool, f"OpenAI: {why}")
        chat.append(
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": parameters,
                    "strict": strict,
                },
            }
        )
        responses.append(
            {
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": parameters,
                "strict": strict,
            }
        )
    return {"openai/chat_completions.json": chat, "openai/responses.json": responses}


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The strict form of a parameters schema, or raise `NotStrict` saying what prevents it."""
    out = _strict(schema, "")
    defs = schema.get("$defs")
    if defs:
        out["$defs"] = {name: _strict(d, f"/$defs/{name}") for name, d in defs.items()}
    return out


def _strict(schema: dict[str, Any], pointer: str) -> dict[str, Any]:
    bad = NOT_STRICT_KEYS & set(schema)
    if bad:
        raise NotStrict(f"{pointer or '/'} uses {', '.join(sorted(bad))}")
    if not schema or (set(schema) <= {"description"} | DROPPED_KEYS):
        raise NotStrict(f"{pointer or '/'} accepts any value")
    if "$ref" in schema:
        rest = {k: v for k, v in schema.items() if k not in DROPPED_KEYS and k != "$ref"}
        ref = {"$ref": schema["$ref"]}
        return {**rest, "anyOf": [ref]} if rest else ref
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in DROPPED_KEYS or key == "$defs":
            continue
        if key == "format" and value not in STRICT_FORMATS:
            continue
        if key == "properties":
            required = set(schema.get("required", []))
            props = {}
            for name, prop in value.items():
                strict_prop = _strict(prop, f"{pointer}/properties/{name}")
                props[name] = strict_prop if name in required else nullable(strict_prop)
            out["properties"] = props
            out["required"] = list(value)
        elif key == "required":
            continue
        elif key == "additionalProperties":
            if value is not False and "properties" not in schema:
                raise NotStrict(f"{pointer or '/'} is a free-form object (dict)")
        elif key == "items":
            out["items"] = _strict(value, f"{pointer}/items")
        elif key == "anyOf":
            out["anyOf"] = [_strict(b, f"{pointer}/anyOf/{i}") for i, b in enumerate(value)]
        else:
            out[key] = value
    if out.get("type") == "object":
        out.setdefault("properties", {})
        out.setdefault("required", [])
        out["additionalProperties"] = False
    return out


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` that also accepts null (an optional parameter in strict mode)."""
    if "anyOf" in schema:
        if {"type": "null"} in schema["anyOf"]:
            return schema
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    kind = schema.get("type")
    out = dict(schema)
    if "enum" in schema:
        if None not in schema["enum"]:
            out["enum"] = [*schema["enum"], None]
    elif "const" in schema:
        out.pop("const")
        out["enum"] = [schema["const"], None]
    if isinstance(kind, str) and kind != "null":
        out["type"] = [kind, "null"]
        return out
    if isinstance(kind, list):
        if "null" not in kind:
            out["type"] = [*kind, "null"]
        return out
    if "enum" in out:
        return out
    description = {k: v for k, v in schema.items() if k == "description"}
    core = {k: v for k, v in schema.items() if k != "description"}
    return {**description, "anyOf": [core, {"type": "null"}]}
