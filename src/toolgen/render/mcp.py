"""MCP: a `tools/list` result (spec 2025-11-25) with annotations from the idempotency block.

A handler of a framework preset (FastMCP, the MCP SDK) is listed as that framework lists it:
its descriptor's `framework.mcp` entry, made at compile time by the framework's own rules
(`toolgen.analyze.publication`). What follows is toolgen's own (enriched) entry, for `@tool`
handlers and, with `mcp_enriched`, for all.

`outputSchema` must have an object root. A return schema whose root is an object already is
published as it is, as FastMCP does: a model, a dataclass or a TypedDict (a root `$ref` to one,
inlined as the root), and a dict (`dict`, `dict[str, int]`, `dict[str, Any]`: an object with
only `additionalProperties`). Any other return type (a scalar, a list, an optional, a recursive
model) is wrapped as `{"result": ...}`; `wraps` says which, and the dispatcher (`toolgen serve`)
asks it too, to send the same shape as `structuredContent`.
"""

from __future__ import annotations

from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.render.options import RenderOptions
from toolgen.schema_ops import recursive_defs

#: Before 2025-11-25 the specification named no default JSON Schema dialect: say it.
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def render(tools: list[ToolDescriptor], report: Any, options: RenderOptions) -> dict[str, Any]:
    tools_list = [tool_object(t, options.mcp_revision) for t in tools]
    return {"mcp/tools.json": {"tools": tools_list}}


def tool_object(tool: ToolDescriptor, revision: str = "2025-11-25") -> dict[str, Any]:
    if tool.framework is not None:  # what FastMCP or the MCP SDK serves, as it serves it
        return tool.framework.mcp
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


def wraps(schema: dict[str, Any]) -> bool:
    """Does `output_schema` wrap this return schema as `{"result": ...}`?

    The dispatcher (`toolgen serve`) asks this of the descriptor's return schema, which keeps
    its `$ref`s, while the published `outputSchema` may come from the same schema inlined
    (`inline_defs`): the answer is the same for both, as inlining turns a root `$ref` to a
    non-recursive model into that model, which `object_root` accepts either way.
    """
    return bool(schema) and schema != {"type": "null"} and object_root(schema) is None


def object_root(schema: dict[str, Any]) -> dict[str, Any] | None:
    """`schema` as an `outputSchema` when its root is an object already, else None.

    An object root is a model's fields or a dict's entries (`dict`, `dict[str, int]`: only
    `additionalProperties`), published as it is; or a root `$ref` to a model that does not
    refer to itself, with any sibling keys (an `Annotated` description), published as the
    model, as `inline_refs` would inline it. A recursive model (by `inline_refs`' own test)
    stays a `$ref`: not an object.
    """
    defs = schema.get("$defs", {})
    root = {k: v for k, v in schema.items() if k != "$defs"}
    if root.get("type") == "object":
        return schema
    ref = root.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return None
    name = ref.removeprefix("#/$defs/")
    target = defs.get(name, {})
    if target.get("type") != "object" or name in recursive_defs(schema):
        return None
    siblings = {k: v for k, v in root.items() if k != "$ref"}
    rest = {k: v for k, v in defs.items() if k != name}
    return {**target, **siblings, **({"$defs": rest} if rest else {})}
