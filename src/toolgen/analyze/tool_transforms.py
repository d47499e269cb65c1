"""The `tools/list` entry of a tool FastMCP transforms (`Tool.from_tool(parent, ...)`), made
as FastMCP's `TransformedTool.from_tool` makes it (`fastmcp/tools/tool_transform.py`), from
the parent's entry (data) and what the interpreter read of the call
(`toolgen.read.registration.effects.Transformed`):

- the forwarding schema: each parent property, unless its `ArgTransform` hides it, renamed,
  its description replaced or removed, `required=True` dropping its default, a `default`
  making it optional, `examples` set; `required` in property order;
  `additionalProperties: false`;
- with a `transform_fn`: its own parameters (its signature read as FastMCP reads a
  function, by the handler analysis; its `**kwargs` left out, as FastMCP forwards them)
  first, then the forwarding schema merged over them (FastMCP's
  `_merge_schema_with_precedence`): `required` is the forwarding schema's, plus the
  function's own required parameters, minus every property with a default;
- the outputSchema: `output_schema=` when given; else the function's (none when it returns
  `ToolResult`, the parent's when it makes none); else the parent's;
- name, title, description and annotations given, else the parent's.

What FastMCP would refuse (a `transform_args` key the parent has not, a hidden required
argument without a default, two arguments of one name, a function without `**kwargs`
missing an argument) or what toolgen does not model (a property both the function and the
parent have, under FastMCP 4, when their types differ) is a `TransformProblem`: the caller
publishes the tool untransformed, with a located note.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolgen.analyze.publication import default_title
from toolgen.frameworks import Framework
from toolgen.read.registration.effects import ToolEntry, Transformed
from toolgen.read.registration.values import Function

#: The fields of a tool's entry, in the SDK's order.
TOOL_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
#: Keys of a property schema that do not say its type (FastMCP 4's `_METADATA_KEYS` and
#: `default`, `examples`, `example`; `x-` extensions too).
METADATA_KEYS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "example",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
    }
)
#: Keys that make a type toolgen does not compare (FastMCP 4 compares their structure).
COMPOSITE_KEYS = frozenset({"anyOf", "oneOf", "allOf", "$ref", "enum", "const", "not"})


@dataclass(frozen=True)
class FunctionFacts:
    """What FastMCP reads of a `transform_fn`: its input schema (without `**kwargs`), its
    outputSchema, whether it returns `ToolResult`, and whether it takes `**kwargs`."""

    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    returns_tool_result: bool
    has_kwargs: bool


class TransformProblem(Exception):
    def __init__(self, why: str, spec: Transformed) -> None:
        super().__init__(why)
        self.why = why
        self.spec = spec


FactsOf = Callable[[Function], "FunctionFacts | str"]


def untransformed(tool: ToolEntry) -> dict[str, Any]:
    """The entry of the first tool of the chain that is data (what a transform was given)."""
    while isinstance(tool, Transformed):
        tool = tool.parent
    return tool


def returns_tool_result(function: Function) -> bool:
    """Whether the function's return annotation names FastMCP's `ToolResult`."""
    node = function.node
    returns = None if isinstance(node, ast.Lambda) else node.returns
    if isinstance(returns, ast.Constant) and isinstance(returns.value, str):
        return returns.value.rpartition(".")[2] == "ToolResult"
    if isinstance(returns, ast.Name):
        return returns.id == "ToolResult"
    return isinstance(returns, ast.Attribute) and returns.attr == "ToolResult"


def entry(tool: ToolEntry, facts_of: FactsOf, framework: Framework) -> dict[str, Any]:
    """The entry FastMCP lists for `tool`; `TransformProblem` when it cannot be made."""
    if not isinstance(tool, Transformed):
        return tool
    parent = entry(tool.parent, facts_of, framework)
    spec = tool
    parameters = parent.get("inputSchema", {})
    properties: dict[str, Any] = parameters.get("properties", {})
    required = set(parameters.get("required", []))
    arguments = {name: dict(given.fields) for name, given in spec.arguments.items()}
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        raise TransformProblem(f"`transform_args` names no argument of it: {unknown}", spec)
    if "$defs" in parameters:
        raise TransformProblem("its parent's schema has `$defs`", spec)
    forwarded, new_required = _forwarding(properties, required, arguments, spec)
    schema = {
        "type": "object",
        "properties": forwarded,
        "required": [p for p in forwarded if p in new_required],
        "additionalProperties": False,
    }
    given = spec.options
    output: dict[str, Any] | None = parent.get("outputSchema")
    if spec.function is not None:
        facts = facts_of(spec.function)
        if isinstance(facts, str):
            raise TransformProblem(f"its `transform_fn` cannot be read ({facts})", spec)
        own = set(facts.input_schema.get("properties", {}))
        missing = sorted(set(forwarded) - own)
        if not facts.has_kwargs and missing:
            raise TransformProblem(f"its `transform_fn` lacks {missing} (FastMCP refuses)", spec)
        schema = _merge(facts.input_schema, schema, framework, spec)
        if facts.output_schema is not None:
            output = facts.output_schema
        elif facts.returns_tool_result:
            output = None
    if "output_schema" in given:
        output = given["output_schema"]
    name = given.get("name") or parent["name"]
    out: dict[str, Any] = {"name": name}
    title = given["title"] if "title" in given else parent.get("title")
    if "title" not in given and name != parent["name"] and framework.since(4):
        own_title = (parent.get("annotations") or {}).get("title")
        if title == default_title(parent["name"]) and own_title is None:
            title = default_title(name)
    fields = {
        "title": title,
        "description": given["description"]
        if "description" in given
        else parent.get("description"),
        "inputSchema": schema,
        "outputSchema": output,
        "annotations": given["annotations"]
        if "annotations" in given
        else parent.get("annotations"),
    }
    for key in TOOL_FIELDS[1:]:
        if fields[key] is not None:
            out[key] = fields[key]
    return out


def _forwarding(
    properties: dict[str, Any],
    required: set[str],
    arguments: dict[str, dict[str, Any]],
    spec: Transformed,
) -> tuple[dict[str, Any], set[str]]:
    """FastMCP's `_create_forwarding_transform` and `_apply_single_transform`."""
    forwarded: dict[str, Any] = {}
    new_required: set[str] = set()
    names: list[str] = []
    for old, prop in properties.items():
        given = arguments.get(old, {})
        if given.get("hide"):
            has_default = "default" in given or "<factory>" in given
            if not has_default and old in required:
                raise TransformProblem(f"`{old}` is hidden with no default (FastMCP refuses)", spec)
            continue
        new = given.get("name") if isinstance(given.get("name"), str) else old
        assert isinstance(new, str)
        names.append(new)
        schema = dict(prop)
        is_required = old in required
        if "description" in given:
            if given["description"] is None:
                schema.pop("description", None)
            else:
                schema["description"] = given["description"]
        if "required" in given:
            is_required = bool(given["required"])
            if given["required"] is True:
                schema.pop("default", None)
        if "default" in given and given.get("required") is not True:
            schema["default"] = given["default"]
            is_required = False
        if "examples" in given:
            schema["examples"] = given["examples"]
        forwarded[new] = schema
        if is_required:
            new_required.add(new)
    if len(set(names)) != len(names):
        raise TransformProblem("two arguments get one name (FastMCP refuses)", spec)
    return forwarded, new_required


def _structural(schema: dict[str, Any]) -> bool:
    return any(k not in METADATA_KEYS and not k.startswith("x-") for k in schema)


def _merge(
    base: dict[str, Any],
    override: dict[str, Any],
    framework: Framework,
    spec: Transformed,
) -> dict[str, Any]:
    """FastMCP's `_merge_schema_with_precedence` (no `ArgTransform(type=...)`: toolgen does
    not read one)."""
    merged = dict(base.get("properties", {}))
    base_required = set(base.get("required", []))
    over = override.get("properties", {})
    over_required = set(override.get("required", []))
    for name, prop in over.items():
        if name not in merged:
            merged[name] = dict(prop)
            continue
        mine = dict(merged[name])
        if framework.since(4) and _structural(mine):
            keys = (set(mine) | set(prop)) & COMPOSITE_KEYS
            if keys or mine.get("type") != prop.get("type"):
                why = f"`{name}` is the function's and the parent's, of types not compared"
                raise TransformProblem(why, spec)
        mine.update(prop)
        merged[name] = mine
    final = set(over_required)
    for name in base_required:
        if name not in over or ("default" not in merged[name] and name not in over_required):
            final.add(name)
    for name, prop in merged.items():
        if "default" in prop:
            final.discard(name)
    return {
        "type": "object",
        "properties": merged,
        "required": [p for p in merged if p in final] + sorted(final - set(merged)),
        "additionalProperties": False,
    }
