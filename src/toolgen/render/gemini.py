"""Gemini `function_declarations`: parameters in the OpenAPI 3.0 subset google-genai accepts.

Single upper-case `type`, `nullable` instead of null unions, string-only enums, `$ref`s inlined,
no `additionalProperties`/`const`/`$schema`/`exclusive*`. A recursive model cannot be inlined:
the tool is left out of the Gemini file and the build says so.
"""

from __future__ import annotations

from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.render.options import RenderOptions

ALLOWED_KEYS = frozenset(
    {
        "type",
        "format",
        "description",
        "nullable",
        "enum",
        "items",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "minProperties",
        "maxProperties",
        "properties",
        "required",
        "anyOf",
        "default",
        "example",
    }
)


class NotRepresentable(Exception):
    pass


def render(tools: list[ToolDescriptor], report: Any, options: RenderOptions) -> dict[str, Any]:
    declarations: list[dict[str, Any]] = []
    for tool in tools:
        if options.gemini_schema == "json_schema":  # the schema as it is; Gemini converts it
            declarations.append(
                {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters_json_schema": tool.parameters,
                }
            )
            continue
        try:
            parameters = to_openapi(tool.parameters)
        except NotRepresentable as why:
            report("TG602", tool, f"Gemini: {why}")
            continue
        for pointer, kinds in mixed_enums(tool.parameters):
            report(
                "TG606",
                tool,
                f"Gemini: the enum at {pointer} mixes {', '.join(kinds)} values, which Gemini "
                "takes as strings only: the model may send a string for a number or boolean",
            )
        declarations.append(
            {"name": tool.name, "description": tool.description, "parameters": parameters}
        )
    return {"gemini/function_declarations.json": {"function_declarations": declarations}}


def to_openapi(schema: dict[str, Any]) -> dict[str, Any]:
    return _convert(schema, schema.get("$defs", {}), (), "")


def _convert(
    schema: dict[str, Any], defs: dict[str, Any], stack: tuple[str, ...], pointer: str
) -> dict[str, Any]:
    if "$ref" in schema:
        name = str(schema["$ref"]).removeprefix("#/$defs/")
        if name in stack:
            raise NotRepresentable(f"{pointer or '/'}: recursive model {name} cannot be inlined")
        if name not in defs:
            raise NotRepresentable(f"{pointer or '/'}: unknown reference {schema['$ref']}")
        inlined = _convert(defs[name], defs, (*stack, name), pointer)
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        return {**inlined, **_convert(siblings, defs, stack, pointer)} if siblings else inlined
    out: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in schema.items():
        if key == "anyOf":
            out.update(_any_of(value, defs, stack, pointer))
        elif key == "properties":
            out["properties"] = {
                n: _convert(p, defs, stack, f"{pointer}/properties/{n}") for n, p in value.items()
            }
        elif key == "items":
            out["items"] = _convert(value, defs, stack, f"{pointer}/items")
        elif key == "prefixItems":
            members = [_convert(v, defs, stack, f"{pointer}/prefixItems") for v in value]
            unique = [m for i, m in enumerate(members) if m not in members[:i]]
            out["items"] = unique[0] if len(unique) == 1 else {"anyOf": unique}
        elif key == "type":
            out.update(_type(value))
        elif key == "const":
            out["enum"] = [_enum_value(value)]
        elif key == "enum":
            values = [v for v in value if v is not None]
            if None in value:
                out["nullable"] = True
            out["enum"] = [_enum_value(v) for v in values]
            if values and not all(isinstance(v, str) for v in values):
                out["format"] = "enum"
        elif key == "exclusiveMinimum":
            notes.append(f"Must be greater than {value}.")
            out["minimum"] = value + 1 if isinstance(value, int) else value
        elif key == "exclusiveMaximum":
            notes.append(f"Must be less than {value}.")
            out["maximum"] = value - 1 if isinstance(value, int) else value
        elif key == "multipleOf":
            notes.append(f"Must be a multiple of {value}.")
        elif key == "uniqueItems" and value:
            notes.append("Items must be unique.")
        elif key == "default" and value is None:
            continue  # Gemini's Schema has no null default (the SDK drops it): nullable says it
        elif key in ALLOWED_KEYS:
            out[key] = value
    if "enum" in out and "type" not in out:
        out["type"] = "STRING"
    if notes:
        text = " ".join(notes)
        out["description"] = f"{out['description']} {text}" if out.get("description") else text
    return out


def _type(value: Any) -> dict[str, Any]:
    kinds = value if isinstance(value, list) else [value]
    real = [k for k in kinds if k != "null"]
    out: dict[str, Any] = {}
    if len(real) > 1:
        raise NotRepresentable(f"type union {kinds} needs a single type")
    out["type"] = (real[0] if real else "null").upper()
    if "null" in kinds and real:
        out["nullable"] = True
    return out


def _any_of(
    branches: list[dict[str, Any]], defs: dict[str, Any], stack: tuple[str, ...], pointer: str
) -> dict[str, Any]:
    real = [b for b in branches if b != {"type": "null"}]
    converted = [_convert(b, defs, stack, f"{pointer}/anyOf/{i}") for i, b in enumerate(real)]
    out: dict[str, Any] = converted[0] if len(converted) == 1 else {"anyOf": converted}
    if len(real) < len(branches):
        out = {**out, "nullable": True}
    return out


def mixed_enums(schema: Any, pointer: str = "") -> list[tuple[str, list[str]]]:
    """(pointer, JSON kinds) of each `enum` in `schema` whose values are of more than one kind
    besides null (a number and a boolean, say): Gemini's enums are strings, so the kinds are
    lost (an enum of one kind keeps its `type`)."""
    found: list[tuple[str, list[str]]] = []
    if isinstance(schema, dict):
        values = schema.get("enum")
        if isinstance(values, list):
            kinds = sorted({_kind(v) for v in values if v is not None})
            if len(kinds) > 1:
                found.append((pointer or "/", kinds))
        for key, value in schema.items():
            found += mixed_enums(value, f"{pointer}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            found += mixed_enums(value, f"{pointer}/{i}")
    return found


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else type(value).__name__


def _enum_value(value: Any) -> str:
    return (
        value
        if isinstance(value, str)
        else str(value).lower()
        if isinstance(value, bool)
        else str(value)
    )
