"""FastMCP's tool transformation: `Tool.from_tool(parent, ...)` and a server's
`add_transform(T)` of a project subclass of FastMCP's `Transform`.

A transform's `list_tools(tools)` is run by the interpreter (an `async def` runs when
called) with the server's tools whose entries are known data (those of an OpenAPI document,
`OpenAPITools`) as records of FastMCP's `Tool` fields (`name`, `title`, `description`,
`parameters`, `output_schema`, `annotations`, `tags`, `meta`); what it returns replaces
them: a record given (the tool unchanged), or `Tool.from_tool(record, ...)`, a
`Transformed` the analysis finishes (`toolgen.analyze.tool_transforms`: its `transform_fn`'s
signature is read there, as a decorated handler's is). A decorated tool's schemas exist only
in the analysis: such tools are not passed, and a server that has both is a located note.
What cannot be known (a transform from outside the project, an answer that is no list of
such tools, an `ArgTransform` option toolgen cannot read) leaves those tools as they were,
with a located TG106 note: never a guess.
"""

from __future__ import annotations

import ast
from typing import Any

from toolgen.read.registration.context import Context, shown
from toolgen.read.registration.data import MAX_DATA_VALUES, value_of
from toolgen.read.registration.effects import (
    ArgTransform,
    OpenAPITools,
    Registered,
    ToolEntry,
    Transformed,
)
from toolgen.read.registration.frames import call_kind
from toolgen.read.registration.known import NotKnown, known_value
from toolgen.read.registration.values import (
    CALLABLE_FUNCTION,
    Class,
    Const,
    External,
    Instance,
    Record,
    Seq,
    Server,
    Unknown,
    Value,
    unwrap,
)

#: Where a server keeps the transforms it was given (no Python name can be this key).
TRANSFORMS = "<transforms>"
#: `Tool.from_tool`'s keywords whose values are data.
DATA_OPTIONS = (
    "name",
    "title",
    "description",
    "annotations",
    "output_schema",
    "meta",
    "tags",
    "version",
)
#: `ArgTransform`'s fields toolgen reads as data (`type` is a Python type: pydantic's schema of
#: it is not made here; `default_factory` is called at run time, and only hides).
ARG_FIELDS = ("name", "description", "default", "hide", "required", "examples")
#: The record of a transformed tool, and of an `ArgTransform(...)`.
TRANSFORMED = "TransformedTool"
ARG_TRANSFORM = "ArgTransform"
#: The field of a tool's record that holds its entry (no Python name can be this key).
ENTRY = "<entry>"
#: `Tool.from_tool`'s parameters after the tool, in order.
FROM_TOOL_POSITIONS = (
    "name",
    "version",
    "title",
    "description",
    "tags",
    "transform_fn",
    "transform_args",
    "annotations",
    "output_schema",
    "meta",
)
#: `ArgTransform`'s fields in the order its dataclass takes them.
ARG_POSITIONS = (
    "name",
    "description",
    "default",
    "default_factory",
    "type",
    "hide",
    "required",
    "examples",
)
#: How deep a chain of bases is followed to FastMCP's `Transform`.
MAX_BASES = 16
#: How many `Tool.from_tool` of one another a tool may be made by: each is a few Python
#: frames here and in the analysis, and Python's recursion limit must never be reached.
MAX_CHAIN = 64


def from_tool(ctx: Context, args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
    """`Tool.from_tool(parent, ...)`: a record of the new tool, holding its parent and the
    options; the fields a transform may read next are the parent's, or the new ones."""
    parent = args[0] if args else kwargs.get("tool")
    if parent is None:
        return ctx.unknown("`Tool.from_tool` of no tool", node)
    fields: dict[str, Value] = {"<parent>": parent}
    positional = dict(zip(FROM_TOOL_POSITIONS, args[1:], strict=False))
    options = {**positional, **{k: v for k, v in kwargs.items() if k != "tool"}}
    record = Record(TRANSFORMED, fields, node, ctx.site)
    record.kwargs["<given>"] = Seq([Const(k) for k in options])
    for key, value in options.items():
        record.kwargs[f"<{key}>"] = value
    if isinstance(parent, Record):
        for key in ("name", "title", "description", "annotations", "output_schema", "tags"):
            given = options.get(key)
            found = given if given is not None else parent.kwargs.get(key)
            if found is not None:
                record.kwargs[key] = found
        # what a transform may read of its parameters: the analysis makes them
        why = "the parameters of a transformed tool are made by the analysis"
        record.kwargs["parameters"] = Unknown(why, node)
    return record


def is_transform(ctx: Context, value: Value) -> bool:
    """An instance of a project class that derives from FastMCP's `Transform`."""
    if not isinstance(value, Instance):
        return False
    queue: list[Value] = list(value.cls.bases)
    for _ in range(MAX_BASES):
        if not queue:
            return False
        base = queue.pop(0)
        if isinstance(base, External):
            if base.path.startswith("fastmcp.") and base.path.endswith(".Transform"):
                return True
        elif isinstance(base, Class):
            queue.extend(base.bases)
    return False


def add_transform(ctx: Context, server: Server, transform: Value, node: ast.AST) -> Value:
    """`server.add_transform(T)`: T's `list_tools` is run over the server's known tools."""
    if not is_transform(ctx, transform):
        why = transform.why if isinstance(transform, Unknown) else "not a project `Transform`"
        ctx.note(
            "unfollowed",
            f"`{shown(node)}`: what this transform makes of the tools cannot be known "
            f"({why}); they are published untransformed",
            node,
        )
        return Const(None)
    given = server.attrs.setdefault(TRANSFORMS, Seq([]))
    assert isinstance(given, Seq)
    given.items.append(transform)
    effects = ctx.recorded()
    for at, effect in enumerate(effects):
        if isinstance(effect, OpenAPITools) and effect.server is server:
            effects[at] = apply(ctx, transform, effect, node)
    if any(isinstance(e, Registered) and e.server is server for e in effects):
        handlers_untransformed(ctx, node)
    return Const(None)


def handlers_untransformed(ctx: Context, node: ast.AST) -> None:
    ctx.note(
        "unfollowed",
        f"`{shown(node)}`: the server's decorated tools are published untransformed (their "
        "schemas are made by the analysis, after the transform is run)",
        node,
    )


def transforms_of(server: Server) -> list[Value]:
    """The transforms `server` was given so far (`add_transform`)."""
    given = server.attrs.get(TRANSFORMS)
    return list(given.items) if isinstance(given, Seq) else []


def arg_transform(
    args: list[Value], kwargs: dict[str, Value], node: ast.AST, ctx: Context
) -> Value:
    """`ArgTransform(...)`: a record of its fields (positional ones named)."""
    fields = {**dict(zip(ARG_POSITIONS, args, strict=False)), **kwargs}
    return Record(ARG_TRANSFORM, fields, node, ctx.site)


def apply(ctx: Context, transform: Value, effect: OpenAPITools, node: ast.AST) -> OpenAPITools:
    """`effect`'s tools as `transform.list_tools` returns them; those it cannot know stay."""
    records = [_record(tool, node, ctx) for tool in effect.tools]
    given = [dict(r.kwargs) for r in records]  # a record changed in place is not known
    method = ctx.attribute(transform, "list_tools", node)
    if isinstance(method, External):  # FastMCP's own `list_tools`: the tools as they are
        return effect
    made = call_kind(method)
    if made not in (None, "coroutine"):  # FastMCP awaits what it returns
        what = "a value" if made == "value" else f"a {made}"
        ctx.note(
            "unfollowed",
            f"`{shown(node)}`: its `list_tools` returns {what}, which FastMCP cannot await "
            "(its listing fails); the tools are published untransformed",
            node,
        )
        return effect
    answer = ctx.call(method, [Seq(list(records), "list")], {}, node)
    if isinstance(answer, Seq) and answer.kind in ("list", "tuple"):
        items = answer.items
    else:
        why = answer.why if isinstance(answer, Unknown) else "not a list of tools"
        ctx.note(
            "unfollowed",
            f"`{shown(node)}`: the tools this transform lists cannot be known ({why}); they "
            "are published untransformed",
            node,
        )
        return effect
    position = {id(r): at for at, r in enumerate(records)}
    same_length = len(items) == len(records)
    tools: list[ToolEntry] = []
    for at, item in enumerate(items):
        try:
            if id(item) in position and not _same(item, given[position[id(item)]]):
                raise NotKnown("a tool it was given, changed in place", node)
            tools.append(_entry(ctx, item, records, effect.tools, position, node))
        except NotKnown as exc:
            if not same_length:
                ctx.note(
                    "unfollowed",
                    f"`{shown(node)}`: a tool this transform lists cannot be known ({exc.why});"
                    " the tools are published untransformed",
                    exc.node or node,
                )
                return effect
            ctx.note(
                "unfollowed",
                f"`{shown(node)}`: what this transform makes of a tool cannot be known "
                f"({exc.why}); it is published untransformed",
                exc.node or node,
            )
            tools.append(effect.tools[at])
    return OpenAPITools(effect.server, tuple(tools), effect.node, effect.site)


def get_tool(ctx: Context, server: Server, args: list[Value], node: ast.AST) -> Value:
    """`await server.get_tool(name)` of a tool whose entry is known (an OpenAPI document's;
    a server given no transform): its record, as a transform is given it."""
    name = args[0] if args else None
    if not (isinstance(name, Const) and isinstance(name.value, str)):
        return ctx.unknown(f"`{shown(node)}`: a tool's name toolgen cannot know", node)
    if transforms_of(server):
        return ctx.unknown(f"`{shown(node)}`: the tool as the server's transforms make it", node)
    for effect in ctx.recorded():
        if isinstance(effect, OpenAPITools) and effect.server is server:
            for tool in effect.tools:
                if _field(tool, "name") == name.value:
                    return _record(tool, node, ctx)
    return ctx.unknown(f"`{shown(node)}`: no tool toolgen knows has that name", node)


def add_tool(ctx: Context, server: Server, tool: Record, node: ast.AST) -> Value:
    """`server.add_tool(Tool.from_tool(...))` of a tool whose entry is known: the server
    lists it too; one toolgen cannot know is a located note."""
    try:
        made = transformed(ctx, tool, [], (), {}, node)
    except NotKnown as exc:
        ctx.note(
            "unfollowed",
            f"`{shown(node)}`: the tool it adds cannot be known ({exc.why})",
            exc.node or node,
        )
        return tool
    effect = OpenAPITools(server, (made,), node, ctx.site)
    for transform in transforms_of(server):
        effect = apply(ctx, transform, effect, node)
    ctx.record(effect)
    return tool


def disable(ctx: Context, server: Server, kwargs: dict[str, Value], node: ast.AST) -> Value:
    """`server.disable(names={...})`: those of the server's known tools are not listed."""
    given = kwargs.get("names")
    if set(kwargs) != {"names"} or given is None:
        return ctx.unknown(f"what `{shown(node)}` disables is the framework's run time", node)
    try:
        names = known_value(given, node)
    except NotKnown as exc:
        return ctx.note("unfollowed", f"`{shown(node)}`: {exc.why}", node)
    if not isinstance(names, list):
        return ctx.note("unfollowed", f"`{shown(node)}`: names that are not a set", node)
    effects = ctx.recorded()
    for at, effect in enumerate(effects):
        if isinstance(effect, OpenAPITools) and effect.server is server:
            kept = tuple(t for t in effect.tools if _field(t, "name") not in names)
            effects[at] = OpenAPITools(server, kept, effect.node, effect.site)
    return Const(None)


def _same(item: Value, fields: dict[str, Value]) -> bool:
    now = item.kwargs if isinstance(item, Record) else {}
    return now.keys() == fields.keys() and all(now[k] is v for k, v in fields.items())


def _record(tool: ToolEntry, node: ast.AST, ctx: Context) -> Record:
    """A tool as the record a transform reads (FastMCP's field names); `<entry>` is the
    tool itself, for a `Tool.from_tool` of it."""
    if isinstance(tool, Transformed):  # its fields but the schemas (the analysis makes them)
        known: dict[str, Value] = {"parameters": Unknown("made by the analysis", node)}
        for key, wire in (("name", "name"), ("title", "title"), ("description", "description")):
            known[key] = Const(_field(tool, wire))
        known[ENTRY] = Const(tool)
        return Record("Tool", known, node, ctx.site)
    meta = tool.get("_meta") or {}
    fields = {
        "name": Const(tool.get("name")),
        "title": Const(tool.get("title")),
        "description": Const(tool.get("description")),
        "parameters": value_of(tool.get("inputSchema", {})),
        "output_schema": value_of(tool.get("outputSchema")),
        "annotations": value_of(tool.get("annotations")),
        "tags": Seq([Const(t) for t in (meta.get("fastmcp") or {}).get("tags", [])], "set"),
        "meta": value_of(tool.get("_meta")),
        ENTRY: Const(tool),
    }
    return Record("Tool", fields, node, ctx.site)


def _field(tool: ToolEntry, key: str) -> Any:
    while isinstance(tool, Transformed):
        if key in tool.options and (key != "name" or tool.options[key]):
            return tool.options[key]
        tool = tool.parent
    return tool.get(key)


def _entry(
    ctx: Context,
    item: Value,
    records: list[Record],
    tools: tuple[ToolEntry, ...],
    position: dict[int, int],
    node: ast.AST,
) -> ToolEntry:
    if id(item) in position:
        return tools[position[id(item)]]
    if isinstance(item, Record) and item.path == TRANSFORMED:
        return transformed(ctx, item, records, tools, position, node)
    own = item.kwargs.get(ENTRY) if isinstance(item, Record) else None
    if isinstance(own, Const) and isinstance(own.value, dict | Transformed):
        return own.value  # a tool a transform was not given here (`get_tool`)
    why = item.why if isinstance(item, Unknown) else "not a tool it was given, nor `Tool.from_tool`"
    raise NotKnown(why, item.node if isinstance(item, Unknown) else node)


def transformed(
    ctx: Context,
    item: Record,
    records: list[Record],
    tools: tuple[ToolEntry, ...],
    position: dict[int, int],
    node: ast.AST,
) -> Transformed:
    """`Tool.from_tool(...)` of a known tool, as data the analysis finishes."""
    chain, above = 0, item.kwargs["<parent>"]
    while isinstance(above, Record) and above.path == TRANSFORMED:
        chain, above = chain + 1, above.kwargs["<parent>"]
        if chain >= MAX_CHAIN:
            raise NotKnown(f"a chain of more than MAX_CHAIN = {MAX_CHAIN} `Tool.from_tool`", node)
    own = above.kwargs.get(ENTRY) if isinstance(above, Record) else None
    entry = own.value if isinstance(own, Const) else None
    while isinstance(entry, Transformed):  # a tool made so before, through `get_tool`
        chain, entry = chain + 1, entry.parent
        if chain >= MAX_CHAIN:
            raise NotKnown(f"a chain of more than MAX_CHAIN = {MAX_CHAIN} `Tool.from_tool`", node)
    parent = _entry(ctx, item.kwargs["<parent>"], records, tools, position, node)
    given = item.kwargs.get("<given>")
    names = [c.value for c in given.items if isinstance(c, Const)] if isinstance(given, Seq) else []
    options: dict[str, Any] = {}
    function = None
    arguments: dict[str, ArgTransform] = {}
    at = item.node
    for key in names:
        value = item.kwargs[f"<{key}>"]
        if key == "transform_fn":
            if isinstance(value, Const) and value.value is None:
                continue
            function = unwrap(value) if isinstance(value, CALLABLE_FUNCTION) else None
            if function is None or isinstance(function.node, ast.Lambda):
                raise NotKnown("its `transform_fn` is no function of the project", at)
        elif key == "transform_args":
            arguments = _arguments(value, at)
        elif key in DATA_OPTIONS:
            data = known_value(value, at, most=MAX_DATA_VALUES)
            options[key] = sorted(data) if key == "tags" and isinstance(data, list) else data
        else:
            raise NotKnown(f"its option `{key}`", at)
    return Transformed(parent, function, arguments, options, at, item.module)


def _arguments(value: Value, at: ast.AST) -> dict[str, ArgTransform]:
    from toolgen.read.registration.values import Mapping

    if isinstance(value, Const) and value.value is None:
        return {}
    if not isinstance(value, Mapping) or value.partial:
        raise NotKnown("its `transform_args` are not a dict toolgen knows", at)
    found: dict[str, ArgTransform] = {}
    for key, item in value.entries.values():
        if not (isinstance(key, Const) and isinstance(key.value, str)):
            raise NotKnown("a `transform_args` key that is not a string", at)
        if not (isinstance(item, Record) and item.path == ARG_TRANSFORM):
            raise NotKnown(f"`transform_args[{key.value!r}]` is no `ArgTransform(...)`", at)
        fields: dict[str, Any] = {}
        for name, given in item.kwargs.items():
            if name == "default_factory" and _truthy(item.kwargs.get("hide")):
                fields["<factory>"] = True
                continue
            if name not in ARG_FIELDS:
                raise NotKnown(f"`ArgTransform({name}=...)` of `{key.value}`", item.node)
            fields[name] = known_value(given, item.node, most=MAX_DATA_VALUES)
        found[key.value] = ArgTransform(tuple(fields.items()))
    return found


def _truthy(value: Value | None) -> bool:
    return isinstance(value, Const) and value.value is True
