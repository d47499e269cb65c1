"""OpenAI: Chat Completions and Responses tool lists, strict where the schema allows it.

Strict mode (reference/platforms.md): every object closed and fully required, optional
parameters as a union with null, no `default`, `$ref` without siblings, supported keywords and
formats only; what strict mode drops (a default, an unsupported format, uniqueness) is said in
the property's description instead, and an optional parameter's null is described as "not
given". A schema that cannot be made strict (free-form objects or values, tuples, unsupported
combinators) is sent as given with `strict: false`, and the build says why.
"""

from __future__ import annotations

import json
from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.render.options import RenderOptions

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


#: OpenAI's documented limits on one schema (older documentation: nesting 5; we keep to 5).
MAX_PROPERTIES = 5000
MAX_NESTING = 5
MAX_ENUM_VALUES = 1000
MAX_ENUM_CHARS = 120_000
NOT_GIVEN = "Null means not given."


def render(tools: list[ToolDescriptor], report: Any, options: RenderOptions) -> dict[str, Any]:
    chat: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    for tool in tools:
        sent = tool.framework.openai if tool.framework is not None else None
        if sent is not None:  # what the framework sends (LangChain), as it sends it
            chat.append({"type": "function", "function": sent})
            responses.append({"type": "function", **sent})
            continue
        for problem in limit_problems(tool.parameters):
            report("TG605", tool, f"OpenAI: {problem}")
        if not options.openai_strict:
            parameters, strict = tool.parameters, False
        else:
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
    words: list[str] = []  # what strict mode cannot carry, kept as words for the model
    for key, value in schema.items():
        if key == "default" and value is not None:
            words.append(f"Default: {json.dumps(value, ensure_ascii=False)}.")
        if key == "uniqueItems" and value is True:
            words.append("Items must be unique.")
        if key in DROPPED_KEYS or key == "$defs":
            continue
        if key == "format" and value not in STRICT_FORMATS:
            words.append(f"Format: {value}.")
            continue
        if key == "properties":
            required = set(schema.get("required", []))
            props = {}
            for name, prop in value.items():
                strict_prop = _strict(prop, f"{pointer}/properties/{name}")
                if name not in required:
                    # optional: strict mode requires every property, so it may be null; where
                    # the type itself has no null, say what a null means (the dispatcher drops it)
                    was_nullable = nullable(strict_prop) == strict_prop
                    strict_prop = nullable(strict_prop)
                    if not was_nullable:
                        strict_prop = _say(strict_prop, NOT_GIVEN)
                props[name] = strict_prop
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
    for sentence in words:
        out = _say(out, sentence)
    return out


def _say(schema: dict[str, Any], sentence: str) -> dict[str, Any]:
    text = schema.get("description")
    described = f"{text} {sentence}" if text else sentence
    return {"description": described, **{k: v for k, v in schema.items() if k != "description"}}


def limit_problems(schema: dict[str, Any]) -> list[str]:
    """Where a parameters schema exceeds OpenAI's limits on properties, nesting and enums."""
    properties = enum_values = enum_chars = 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(schema, 1)]  # (node, depth): the totals take no order
    while stack:
        node, depth = stack.pop()
        if isinstance(node, list):
            stack.extend((item, depth) for item in node)
            continue
        if not isinstance(node, dict):
            continue
        if "properties" in node:
            properties += len(node["properties"])
            deepest = max(deepest, depth)
            for name, sub in node["properties"].items():
                enum_chars += len(name)
                stack.append((sub, depth + 1))
        if "enum" in node:
            enum_values += len(node["enum"])
            enum_chars += sum(len(str(v)) for v in node["enum"])
        for key in ("items", "anyOf", "prefixItems", "additionalProperties"):
            if key in node:
                stack.append((node[key], depth))
        stack.extend((sub, 1) for sub in node.get("$defs", {}).values())
    found = []
    if properties > MAX_PROPERTIES:
        found.append(f"{properties} properties (limit {MAX_PROPERTIES})")
    if deepest > MAX_NESTING:
        found.append(f"objects nested {deepest} levels deep (limit {MAX_NESTING})")
    if enum_values > MAX_ENUM_VALUES:
        found.append(f"{enum_values} enum values (limit {MAX_ENUM_VALUES})")
    if enum_chars > MAX_ENUM_CHARS:
        found.append(f"{enum_chars} characters of names and enum values (limit {MAX_ENUM_CHARS})")
    return found


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
