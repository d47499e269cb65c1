"""MCP: a `tools/list` result (spec 2025-11-25) with annotations from the idempotency block.

`outputSchema` must have an object root: an object return schema (a model, a `$ref` to one
inlined as the root, or a dict) is published as it is, as FastMCP does; any other return type
is wrapped as `{"result": ...}`, the shape the dispatcher then returns as `structuredContent`.
"""

from __future__ import annotations

from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.render.options import RenderOptions

#: Before 2025-11-25 the specification named no default JSON Schema dialect: say it.
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def render(tools: list[ToolDescriptor], report: Any, options: RenderOptions) -> dict[str, Any]:
    tools_list = [tool_object(t, options.mcp_revision) for t in tools]
    return {"mcp/tools.json": {"tools": tools_list}}


def tool_object(tool: ToolDescriptor, revision: str = "2025-11-25") -> dict[str, Any]:
    entry: dict[str, Any] = {"name": tool.name}
    if tool.title:
        entry["title"] = tool.title
    entry["description"] = tool.description
    entry["inputSchema"] = tool.parameters
    if revision == "2025-06-18":
        entry["inputSchema"] = {"$schema": DIALECT, **tool.parameters}
    output = output_schema(tool.returns.schema_)
    if output is not None:
        entry["outputSchema"] = output
    annotations = annotations_for(tool)
    if annotations:
        entry["annotations"] = annotations
    return entry


def annotations_for(tool: ToolDescriptor) -> dict[str, Any]:
    hints = tool.idempotency
    open_world = hints.open_world if hints.open_world is not None else tool.open_world
    pairs = (
        ("title", tool.title),
        ("readOnlyHint", hints.safe),
        ("destructiveHint", hints.destructive),
        ("idempotentHint", hints.idempotent),
        ("openWorldHint", open_world),
    )
    return {key: value for key, value in pairs if value is not None}


def output_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    if not schema or schema == {"type": "null"}:
        return None
    defs = schema.get("$defs", {})
    root = {k: v for k, v in schema.items() if k != "$defs"}
    ref = root.get("$ref", "")
    if set(root) == {"$ref"} and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        target = defs.get(name, {})
        if target.get("type") == "object" and not _refers_to(defs, f"#/$defs/{name}"):
            rest = {k: v for k, v in defs.items() if k != name}
            return {**target, **({"$defs": rest} if rest else {})}
    if root.get("type") == "object":  # a model's fields, or a dict's entries
        return schema
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": root},
        "required": ["result"],
    }
    if defs:
        wrapped["$defs"] = defs
    return wrapped


def _refers_to(value: Any, ref: str) -> bool:
    if isinstance(value, dict):
        return value.get("$ref") == ref or any(_refers_to(v, ref) for v in value.values())
    if isinstance(value, list):
        return any(_refers_to(v, ref) for v in value)
    return False
