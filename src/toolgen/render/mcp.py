"""MCP: a `tools/list` result (spec 2025-11-25) with annotations from the idempotency block.

A handler of a framework preset (FastMCP, the MCP SDK) is listed as that framework lists it:
its descriptor's `framework.mcp` entry, made at compile time by the framework's own rules
(`toolgen.analyze.publication`). What follows is toolgen's own (enriched) entry, for `@tool`
handlers and, with `mcp_enriched`, for all: its `_meta` carries what `Tool` has no field for
(`io.toolgen/deprecated`, `io.toolgen/replacement`, `io.toolgen/tool_search_keywords`).

`outputSchema` must have an object root. A return schema whose root is an object already is
published as it is, as FastMCP does: a model, a dataclass or a TypedDict (a root `$ref` to one,
inlined as the root), and a dict (`dict`, `dict[str, int]`, `dict[str, Any]`: an object with
only `additionalProperties`). Any other return type (a scalar, a list, an optional, a recursive
model) is wrapped as `{"result": ...}`; `schema_ops.wraps` says which, and the runtime
(`toolgen serve`) asks it too, to send the same shape as `structuredContent`.
"""

from __future__ import annotations

from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.render.options import RenderOptions
from toolgen.schema_ops import object_root
from toolgen.schema_ops import wraps as wraps  # moved there; still read from here

#: Before 2025-11-25 the specification named no default JSON Schema dialect: say it.
DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: The prefix of the `_meta` keys toolgen's own entries carry (`meta_for`).
META_PREFIX = "io.toolgen/"


def render(tools: list[ToolDescriptor], report: Any, options: RenderOptions) -> dict[str, Any]:
    tools_list = [tool_object(t, options.mcp_revision) for t in tools]
    return {"mcp/tools.json": {"tools": tools_list}}


def tool_object(tool: ToolDescriptor, revision: str = "2025-11-25") -> dict[str, Any]:
    if tool.framework is not None and tool.framework.mcp is not None:
        return tool.framework.mcp  # what FastMCP or the MCP SDK serves, as it serves it
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
    meta = meta_for(tool)
    if meta:
        entry["_meta"] = meta
    return entry


def meta_for(tool: ToolDescriptor) -> dict[str, Any]:
    """What the descriptor says of a tool that `Tool` has no field for, in `_meta` under
    toolgen's own prefix (the specification's key format: a reverse-DNS prefix whose second
    label is neither `modelcontextprotocol` nor `mcp`, which MCP reserves)."""
    meta: dict[str, Any] = {}
    if tool.deprecated:
        meta[META_PREFIX + "deprecated"] = True
    if tool.replacement:
        meta[META_PREFIX + "replacement"] = tool.replacement
    if tool.tool_search_keywords:
        meta[META_PREFIX + "tool_search_keywords"] = tool.tool_search_keywords
    return meta


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
    """The `outputSchema` for a return schema: None for a tool that returns nothing, the
    object itself for an object root, else the schema wrapped as `{"result": ...}`."""
    if not schema or schema == {"type": "null"}:
        return None
    found = object_root(schema)
    if found is not None:
        return found
    defs = schema.get("$defs", {})
    root = {k: v for k, v in schema.items() if k != "$defs"}
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": root},
        "required": ["result"],
    }
    if defs:
        wrapped["$defs"] = defs
    return wrapped
