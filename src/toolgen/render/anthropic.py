"""Anthropic Messages API tools: name, description, input_schema, input_examples, strict.

`input_examples` are the arguments of the descriptor's success examples that validate against
the parameters schema, checked here again (the API rejects a request whose example does not
validate): an example the compiler reported (TG501, or a partial one, TG504) stays in the
descriptor as documentation only, even where that report is switched off or ignored.

With `anthropic_strict = true` each tool is sent with `strict: true` and its schema cut to the
strict subset (reference/platforms.md): numeric bounds, string lengths and array bounds other
than `minItems` 0 or 1 are not supported there, so they move into the property's description
text instead of being lost, as do string formats outside the subset. A schema the subset
cannot hold (recursion, a tuple, a free-form object) sends its tool without strict (TG603).
Past the per-request limits (20 strict tools, 24 optional or 16 union parameters in all) the
build warns (TG604).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import plural
from toolgen.render.options import RenderOptions
from toolgen.schema_ops import is_recursive
from toolgen.validate import is_valid

#: String formats the strict subset takes; others become words.
FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
MAX_STRICT_TOOLS = 20
MAX_OPTIONAL_PARAMS = 24
MAX_UNION_PARAMS = 16

#: Keywords the strict subset does not support, and how to say them in words: the sentence,
#: and the noun counted by the value, one and many (None: the value as it is).
IN_WORDS: dict[str, tuple[str, tuple[str, str] | None]] = {
    "minimum": ("Must be at least {}.", None),
    "exclusiveMinimum": ("Must be greater than {}.", None),
    "maximum": ("Must be at most {}.", None),
    "exclusiveMaximum": ("Must be less than {}.", None),
    "multipleOf": ("Must be a multiple of {}.", None),
    "minLength": ("At least {}.", ("character", "characters")),
    "maxLength": ("At most {}.", ("character", "characters")),
    "minItems": ("At least {}.", ("item", "items")),  # only past 1: 0 and 1 are in the subset
    "maxItems": ("At most {}.", ("item", "items")),
    "uniqueItems": ("Items must be unique.", None),
    "minProperties": ("At least {}.", ("entry", "entries")),
    "maxProperties": ("At most {}.", ("entry", "entries")),
}


def render(tools: list[ToolDescriptor], report: Any, options: RenderOptions) -> dict[str, Any]:
    """One entry per tool; the limits on a whole request are `request_limits`' job."""
    payload: list[dict[str, Any]] = []
    for tool in tools:
        entry: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "input_schema": tool.parameters,
        }
        examples = [
            e.arguments
            for e in tool.examples
            if e.error is None and is_valid(tool.parameters, e.arguments)
        ]
        if examples:
            entry["input_examples"] = examples
        if options.anthropic_strict:
            obstacle = strict_obstacle(tool.parameters)
            if obstacle is not None:
                message = f"Anthropic: {obstacle} cannot be strict; the tool is sent without strict"
                report("TG603", tool, message)
            else:
                entry["input_schema"] = strict_subset(tool.parameters)
                entry["strict"] = True
        payload.append(entry)
    return {"anthropic/tools.json": payload}


def strict_obstacle(schema: dict[str, Any]) -> str | None:
    """What keeps a parameters schema out of the strict subset, in words (None: nothing):
    recursion, a tuple (`prefixItems`), or a free-form object (a dict: the subset closes
    every object, so a dict could only be sent empty)."""
    if is_recursive(schema):
        return "a recursive schema"
    for node in _subschemas(schema):
        if "prefixItems" in node:
            return "a tuple (prefixItems)"
        kind = node.get("type")
        is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
        if is_object and node is not schema and "properties" not in node:
            return "a free-form object (dict)"
        if is_object and node.get("additionalProperties") not in (None, False):
            return "a free-form object (dict)"
    return None


def _subschemas(schema: Any) -> Iterator[dict[str, Any]]:
    """`schema` and every schema inside it."""
    if not isinstance(schema, dict):
        return
    yield schema
    for key in ("properties", "$defs"):
        for sub in schema.get(key, {}).values():
            yield from _subschemas(sub)
    for key in ("items", "additionalProperties"):
        yield from _subschemas(schema.get(key))
    for key in ("anyOf", "allOf", "oneOf", "prefixItems"):
        for sub in schema.get(key, []):
            yield from _subschemas(sub)


def request_tally(tool: ToolDescriptor, options: RenderOptions) -> tuple[int, ...]:
    """What one tool adds to a request's limits on strict tools (`request_limits`): (strict
    tools, optional parameters, union parameters)."""
    if not options.anthropic_strict or strict_obstacle(tool.parameters) is not None:
        return (0, 0, 0)
    required = tool.parameters.get("required", [])
    properties = tool.parameters.get("properties", {})
    optional = sum(1 for name in properties if name not in required)
    unions = sum(1 for p in properties.values() if len(p.get("anyOf", [])) > 1)
    return (1, optional, unions)


def request_limits(tallies: list[tuple[int, ...]]) -> list[tuple[str, str]]:
    """Anthropic's limits on strict tools in one request, over the whole catalog's tallies:
    (code, message) for each limit passed."""
    totals = [sum(column) for column in zip(*tallies, strict=True)] or [0, 0, 0]
    limits = (
        (MAX_STRICT_TOOLS, "strict tools"),
        (MAX_OPTIONAL_PARAMS, "optional parameters in strict tools"),
        (MAX_UNION_PARAMS, "union parameters in strict tools"),
    )
    return [
        ("TG604", f"Anthropic: {count} {what} in one request (limit {limit})")
        for count, (limit, what) in zip(totals, limits, strict=True)
        if count > limit
    ]


def _in_subset(key: str, value: Any) -> bool:
    """The strict subset takes this keyword with this value (so: no words for it)."""
    return (key == "uniqueItems" and value is False) or (key == "minItems" and value in (0, 1))


def strict_subset(schema: Any) -> Any:
    """`schema` without what the strict subset rejects; those constraints become words."""
    if isinstance(schema, list):
        return [strict_subset(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    words: list[str] = []
    for key, value in schema.items():
        if key == "format" and value not in FORMATS:
            words.append(f"Format: {value}.")
        elif key in IN_WORDS and not _in_subset(key, value):
            sentence, noun = IN_WORDS[key]
            counted = plural(value, *noun) if noun else value
            words.append(sentence.format(counted))
        elif key in ("properties", "$defs"):
            out[key] = {name: strict_subset(sub) for name, sub in value.items()}
        elif key in ("items", "anyOf", "allOf", "prefixItems", "additionalProperties"):
            out[key] = strict_subset(value)
        else:
            out[key] = value
    if out.get("type") == "object" and "properties" in out:
        out["additionalProperties"] = False
    if words:
        text = " ".join(words)
        out["description"] = f"{out['description']} {text}" if out.get("description") else text
    return out
