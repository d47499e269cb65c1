"""The tools a low-level SDK server lists: what its `tools/list` handler returns, as written;
and those a server written by hand answers `tools/list` with.

The registration interpreter gives the handler's return value (`Tool(...)` records, lists of
them, a `ListToolsResult`); each tool whose fields are all known is published with its
schemas exactly as the code writes them, since that is what the server sends. A tool or a
list toolgen cannot know is a located TG106, never a guess.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from toolgen.analyze.tool_transforms import untransformed
from toolgen.analyze.types import SchemaBuilder, TypeProblem
from toolgen.diagnostics import Diagnostic, Level
from toolgen.read.index import Module, ModuleIndex
from toolgen.read.registration.effects import (
    AnsweredTools,
    ListedTools,
    OpenAPITools,
    Transformed,
)
from toolgen.read.registration.known import WIRE_NAMES, NotKnown, SchemaMaker, known_value
from toolgen.read.registration.values import (
    Const,
    Mapping,
    Record,
    SchemaOf,
    Seq,
    Unknown,
    Value,
)
from toolgen.schema_forms import pydantic_form

#: The fields of a listed tool toolgen publishes, in the SDK's order.
TOOL_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")


@dataclass(frozen=True)
class ListedTool:
    """One tool of a low-level server: its `tools/list` entry, where its `Tool(...)` is
    written, the server (its key, when toolgen can name it), and the handler listing it."""

    entry: dict[str, Any]
    module: Module
    node: ast.AST
    server: str | None
    lister_module: str
    lister_qualname: str
    #: a tool a server's transform made (`entry` is then the tool it was given): the
    #: compiler makes its entry (`toolgen.analyze.tool_transforms`)
    transform: Transformed | None = None
    #: the framework whose server lists it (`mcp` for a low-level or hand-written server)
    preset: str = "mcp"


def listed_tools(
    effect: ListedTools, value: Value, schema_of: SchemaMaker | None = None
) -> tuple[list[ListedTool], list[Diagnostic]]:
    """The tools `value` (what `effect`'s handler returns) lists, and a TG106 for each part
    that cannot be known. `schema_of` makes the schemas of `Model.model_json_schema()`."""
    problems: list[Diagnostic] = []
    site = effect.function.module
    if isinstance(value, Record) and value.path == "ListToolsResult":
        value = value.kwargs.get("tools", Unknown("no `tools` given", value.node))
    if not isinstance(value, Seq):
        why = value.why if isinstance(value, Unknown) else "it is not a list"
        message = (
            f"the tools `{effect.function.qualname}` lists cannot be known without running "
            f"the code ({why})"
        )
        return [], [Diagnostic("TG106", message, site.location(effect.function.node))]
    tools: list[ListedTool] = []
    for item in value.items:
        if not (isinstance(item, Record) and item.path == "Tool"):
            why = item.why if isinstance(item, Unknown) else "not a `Tool(...)`"
            node = item.node if isinstance(item, Unknown) and item.node else effect.function.node
            message = f"a tool `{effect.function.qualname}` lists cannot be known ({why})"
            problems.append(Diagnostic("TG106", message, site.location(node)))
            continue
        left_out: list[tuple[str, NotKnown]] = []
        try:
            entry = _entry(item.kwargs, item.node, schema_of, left_out)
        except NotKnown as exc:
            message = f"`Tool(...)` cannot be read without running the code: {exc.why}"
            where = item.module.location(exc.node or item.node)
            problems.append(Diagnostic("TG106", message, where))
            continue
        for key, unknown in left_out:
            message = (
                f"`Tool(...)`: {key} cannot be read without running the code "
                f"({unknown.why}): tool `{entry['name']}` is published without it"
            )
            where = item.module.location(unknown.node or item.node)
            problems.append(Diagnostic("TG401", message, where, Level.WARNING))
        function = effect.function
        lister = (function.module.name, function.qualname)
        tools.append(
            ListedTool(
                entry,
                item.module,
                item.node,
                effect.server.key,
                *lister,
                preset=effect.server.preset,
            )
        )
    return tools, problems


def answered_tools(effect: AnsweredTools) -> tuple[list[ListedTool], list[Diagnostic]]:
    """The tools a server written by hand answers `tools/list` with: each a dict of the
    wire's fields, as written; a TG106 for each that cannot be known."""
    tools: list[ListedTool] = []
    problems: list[Diagnostic] = []
    items = effect.tools.items if isinstance(effect.tools, Seq) else []
    for item in items:
        try:
            if not isinstance(item, Mapping) or item.partial:
                raise NotKnown("not a dict of known keys", effect.node)
            fields = {
                key.value: value
                for key, value in item.entries.values()
                if isinstance(key, Const) and isinstance(key.value, str)
            }
            entry = _entry(fields, effect.node)
        except NotKnown as exc:
            message = f"a tool answered to tools/list cannot be known: {exc.why}"
            problems.append(Diagnostic("TG106", message, effect.site.location(effect.node)))
            continue
        answering = (effect.site.name, "tools/list")
        # the module that answers is a server of its own: what an SDK server of the project
        # lists too (the answer often relays it) is no duplicate of that server's tools
        server = effect.site.name
        tools.append(ListedTool(entry, effect.site, effect.node, server, *answering))
    return tools, problems


def converted_tools(effect: OpenAPITools) -> list[ListedTool]:
    """The tools FastMCP converts from an OpenAPI document, as it lists them."""
    made = (effect.site.name, "from_openapi")
    tools: list[ListedTool] = []
    for tool in effect.tools:
        given = untransformed(tool)
        entry = {k: given[k] for k in TOOL_FIELDS if k in given}
        spec = tool if isinstance(tool, Transformed) else None
        server = effect.server.key
        preset = effect.server.preset
        tools.append(
            ListedTool(entry, effect.site, effect.node, server, *made, spec, preset=preset)
        )
    return tools


def _entry(
    given: dict[str, Value],
    node: ast.AST,
    schema_of: SchemaMaker | None = None,
    left_out: list[tuple[str, NotKnown]] | None = None,
) -> dict[str, Any]:
    """A tool's fields (by the SDK's names or the wire's) as the entry it lists. With
    `left_out`, a field the tool can be listed without (all but `name` and `inputSchema`),
    or a description or title in its schemas, that cannot be known is left out, and said
    there (what, and why): it costs that piece, not the tool."""
    fields = {WIRE_NAMES.get(k, k): v for k, v in given.items()}
    entry: dict[str, Any] = {}
    for key in TOOL_FIELDS:
        if key in fields:
            vague: list[NotKnown] = []
            schema = key in ("inputSchema", "outputSchema") and left_out is not None
            try:
                value = known_value(
                    fields[key], node, schema_of, left_out=vague if schema else None
                )
                if left_out is not None:
                    left_out.extend((f"a description or title in its `{key}`", w) for w in vague)
            except NotKnown as exc:
                if left_out is None or key in ("name", "inputSchema"):
                    raise
                left_out.append((f"`{key}`", exc))
                continue
            if value is not None:
                entry[key] = value
    if not isinstance(entry.get("name"), str):
        raise NotKnown("its `name` is not a string", node)
    if not isinstance(entry.get("inputSchema"), dict):
        raise NotKnown("its `inputSchema` is not a dict", node)
    for key in ("title", "description"):
        if key in entry and not isinstance(entry[key], str):
            raise NotKnown(f"its `{key}` is not a string", node)
    if "outputSchema" in entry and not isinstance(entry["outputSchema"], dict):
        raise NotKnown("its `outputSchema` is not a dict", node)
    if "annotations" in entry and not isinstance(entry["annotations"], dict):
        raise NotKnown("its `annotations` are not a dict", node)
    return entry


def model_schema(model: SchemaOf, index: ModuleIndex) -> dict[str, Any] | None:
    """`Model.model_json_schema()` of a project model defined at a module's top level: its
    schema as pydantic makes it; None when toolgen cannot make it."""
    cls = model.cls
    if "." in cls.qualname:
        return None
    name = ast.copy_location(ast.Name(id=cls.qualname, ctx=ast.Load()), cls.node)
    builder = SchemaBuilder(index)
    try:
        schema = builder.schema(name, cls.module)
    except (TypeProblem, RecursionError):
        return None
    if builder.defs:
        schema = {**schema, "$defs": dict(sorted(builder.defs.items()))}
    return pydantic_form(schema)
