"""A FastMCP server made from an OpenAPI document (`FastMCP.from_openapi(spec, ...)`): its
tools are the document's operations, converted as that FastMCP version converts them
(`toolgen.read.openapi`), when the document is known (a JSON or YAML file of the project,
loaded as the server loads it; a dict written in the code).

The server's own hooks are the project's functions, and run as the interpreter runs any:
`route_map_fn(route, mcp_type)` for each operation, `mcp_component_fn(route, component)` for
each tool, with the route as a record of FastMCP's `HTTPRoute` fields and the tool as one of
`OpenAPITool`'s, which the hook may change. What a hook does that toolgen cannot know leaves
what FastMCP decided before it, with a note.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from toolgen.read.registration import tool_transforms
from toolgen.read.registration.context import Context, Framework, shown
from toolgen.read.registration.data import MAX_DATA_VALUES, value_of
from toolgen.read.registration.effects import OpenAPITools
from toolgen.read.registration.frames import OutOfBudget, call_kind
from toolgen.read.registration.known import NotKnown, known_value
from toolgen.read.registration.values import (
    Const,
    External,
    Record,
    Seq,
    Server,
    Unknown,
    Value,
)

if TYPE_CHECKING:
    from toolgen.read.openapi import Component, Route, RouteMap

#: What FastMCP's `MCPType` names (`toolgen.read.openapi.MCP_TYPES`; the conversion is
#: imported only by a project that makes such a server).
MCP_TYPES = ("TOOL", "RESOURCE", "RESOURCE_TEMPLATE", "EXCLUDE")
#: FastMCP's classes made here (by their last name): route maps; FastMCP 3's provider of a
#: document's tools, which a server is given with `add_provider`; FastMCP 2's server class.
MAKERS = frozenset({"RouteMap", "OpenAPIProvider", "FastMCPOpenAPI"})
#: What the provider and FastMCP 2's server take positionally.
DOCUMENT_FIELDS = ("openapi_spec", "client")
#: The newest FastMCP whose conversion toolgen models, for a version not known.
NEWEST = (4, 999, 999)
#: The keyword each FastMCP version names the document with.
SPEC_KEYWORDS = ("openapi_spec", "spec")


def make(
    ctx: Context, path: str, args: list[Value], kwargs: dict[str, Value], node: ast.AST
) -> Value:
    """`RouteMap(...)` (its fields are keywords only), `OpenAPIProvider(...)`: a record of the
    fields given (positional ones named); `FastMCPOpenAPI(...)`: a server with the
    document's tools."""
    kind = path.rpartition(".")[2]
    names = () if kind == "RouteMap" else DOCUMENT_FIELDS
    fields = {**dict(zip(names, args, strict=False)), **kwargs}
    if kind != "FastMCPOpenAPI":
        return Record(kind, fields, node, ctx.site)
    framework = next((f for f in ctx.frameworks if f.name == "fastmcp"), None)
    if framework is None:
        return Unknown(f"`{shown(node)}`: a server of a framework not configured", node)
    server = Server("fastmcp", node, ctx.site)
    from_openapi(ctx, framework, server, [], fields, node)
    return server


def add_provider(ctx: Context, server: Server, provider: Value, node: ast.AST) -> Value:
    """`server.add_provider(OpenAPIProvider(...))`: the server lists the document's tools."""
    framework = next((f for f in ctx.frameworks if f.name == server.preset), None)
    if isinstance(provider, Record) and provider.path == "OpenAPIProvider" and framework:
        from_openapi(ctx, framework, server, [], dict(provider.kwargs), provider.node)
        return Const(None)
    return Unknown(f"what `{shown(node)}` provides is the framework's run time", node)


def from_openapi(
    ctx: Context,
    framework: Framework,
    server: Server,
    args: list[Value],
    kwargs: dict[str, Value],
    node: ast.AST,
) -> None:
    """Record the tools `FastMCP.from_openapi(...)` gives `server`, or say why they cannot
    be known."""
    from toolgen.read.openapi import OpenAPIError, convert

    spec_value = args[0] if args else next((kwargs[k] for k in SPEC_KEYWORDS if k in kwargs), None)
    try:
        if spec_value is None:
            raise NotKnown("no document is given", node)
        spec = known_value(spec_value, node, most=MAX_DATA_VALUES)
        if not isinstance(spec, dict):
            raise NotKnown("the document is not a dict", node)
        maps = [_route_map(item, node) for item in _items(kwargs.get("route_maps"), node)]
        names = _strings(kwargs.get("mcp_names"), node, "`mcp_names`")
        tags = frozenset(_strings(kwargs.get("tags"), node, "`tags`"))
        validate = _known(kwargs.get("validate_output", Const(True)), node)
    except NotKnown as exc:
        ctx.note("unfollowed", f"`{shown(node)}`: its tools cannot be known ({exc.why})", node)
        return
    hooks = _Hooks(ctx, node, kwargs.get("route_map_fn"), kwargs.get("mcp_component_fn"))
    try:
        converted = convert(
            spec,
            version=_version(framework),
            route_maps=maps,
            route_map_fn=hooks.route_type if hooks.route_map_fn is not None else None,
            component_fn=hooks.component if hooks.component_fn is not None else None,
            mcp_names=names if isinstance(names, dict) else None,
            tags=tags,
            validate_output=bool(validate),
        )
    except OpenAPIError as exc:
        why = f"`{shown(node)}`: its OpenAPI document cannot be read ({exc})"
        ctx.note("unfollowed", why, node)
        return
    if hooks.stopped is not None:  # the converter caught it as a failing hook's exception
        raise hooks.stopped
    for problem in converted.problems:
        ctx.note("unfollowed", f"`{shown(node)}`: {problem}", node)
    made = OpenAPITools(server, tuple(converted.tools), node, ctx.site)
    for transform in tool_transforms.transforms_of(server):  # given before the tools
        made = tool_transforms.apply(ctx, transform, made, node)
    ctx.record(made)


def _version(framework: Framework) -> tuple[int, int, int]:
    at = (*framework.version, 999, 999, 999)[:3] if framework.version else NEWEST
    return (at[0], at[1], at[2])


class _Hooks:
    """The server's `route_map_fn` and `mcp_component_fn`, run by the interpreter."""

    def __init__(
        self, ctx: Context, node: ast.AST, route_map_fn: Value | None, component_fn: Value | None
    ) -> None:
        self.ctx, self.node = ctx, node
        self.route_map_fn = None if _none(route_map_fn) else route_map_fn
        self.component_fn = None if _none(component_fn) else component_fn
        #: the unit's budget, spent in a hook: the unit stops (the converter, as FastMCP,
        #: catches a hook's exceptions per route; this is none of the server's)
        self.stopped: OutOfBudget | None = None

    def _call(self, function: Value, arguments: list[Value]) -> Value:
        if self.stopped is not None:
            raise self.stopped
        try:
            return self.ctx.call(function, arguments, {}, self.node)
        except OutOfBudget as exc:
            self.stopped = exc
            raise

    def route_type(self, route: Route, kind: str) -> str | None:
        assert self.route_map_fn is not None
        made = call_kind(self.route_map_fn)
        if made not in (None, "value"):
            # FastMCP takes the coroutine or generator it is given back as the route's type,
            # which is none of `MCPType`'s: the route is neither a tool nor anything else
            self.ctx.note(
                "unfollowed",
                f"`route_map_fn` for {route.method} {route.path}: it returns a {made}, never "
                "run; FastMCP makes nothing of the route",
                self.node,
            )
            return "EXCLUDE"
        arguments: list[Value] = [self._route(route), _mcp_type(kind)]
        given = self._call(self.route_map_fn, arguments)
        if isinstance(given, Const) and given.value is None:
            return None
        found = _type_name(given)
        if found is None:
            why = given.why if isinstance(given, Unknown) else "not an `MCPType`"
            self.ctx.note(
                "unfollowed",
                f"`route_map_fn` for {route.method} {route.path}: its answer cannot be known "
                f"({why}); FastMCP's route maps decide",
                self.node,
            )
        return found

    def component(self, route: Route, component: Component) -> None:
        assert self.component_fn is not None
        if call_kind(self.component_fn) not in (None, "value"):
            return  # FastMCP calls it and never awaits or iterates what it returns
        record = Record("OpenAPITool", _fields(component), self.node, self.ctx.site)
        self._call(self.component_fn, [self._route(route), record])
        for name, value in record.kwargs.items():
            try:
                _apply(component, name, known_value(value, self.node, most=MAX_DATA_VALUES))
            except NotKnown as exc:
                self.ctx.note(
                    "unfollowed",
                    f"`mcp_component_fn` for {route.method} {route.path}: `{name}` cannot be "
                    f"known ({exc.why}); it keeps FastMCP's",
                    self.node,
                )

    def _route(self, route: Route) -> Record:
        """A route as the record a hook reads (`route.extensions.get("x-...")`)."""
        return Record("HTTPRoute", _route_fields(route), self.node, self.ctx.site)


def _route_fields(route: Route) -> dict[str, Value]:
    fields: dict[str, Value] = {
        "path": Const(route.path),
        "method": Const(route.method),
        "operation_id": Const(route.operation_id),
        "summary": Const(route.summary),
        "description": Const(route.description),
        "tags": value_of(list(route.tags)),
        "extensions": value_of(route.extensions),
        "openapi_version": Const(route.openapi_version),
    }
    return fields


def _fields(component: Component) -> dict[str, Value]:
    return {
        "name": Const(component.name),
        "title": Const(component.title),
        "description": Const(component.description),
        "parameters": value_of(component.parameters),
        "output_schema": value_of(component.output_schema),
        "tags": Seq([Const(t) for t in sorted(component.tags)], "set"),
        "annotations": value_of(component.annotations),
        "meta": value_of(component.meta),
    }


def _apply(component: Component, name: str, value: Any) -> None:
    """A field a hook set, back on the tool (one FastMCP has not is ignored, as listing
    ignores it)."""
    if name in ("name", "title", "description") and (value is None or isinstance(value, str)):
        if name != "name" or value:
            setattr(component, name, value)
    elif name in ("parameters",) and isinstance(value, dict):
        component.parameters = value
    elif name == "output_schema" and (value is None or isinstance(value, dict)):
        component.output_schema = value
    elif name == "tags" and isinstance(value, list):
        component.tags = {str(t) for t in value}
    elif name in ("annotations", "meta") and (value is None or isinstance(value, dict)):
        setattr(component, name, value)


def _mcp_type(kind: str) -> External:
    return External(f"fastmcp.server.openapi.MCPType.{kind}")


def _type_name(value: Value) -> str | None:
    """`MCPType.EXCLUDE` (or its value, "exclude"), as the name FastMCP's enum has."""
    if isinstance(value, External):
        name = value.path.rpartition(".")[2]
    elif isinstance(value, Const) and isinstance(value.value, str):
        name = value.value.upper()
    else:
        return None
    return name if name in MCP_TYPES else None


def _route_map(item: Value, node: ast.AST) -> RouteMap:
    from toolgen.read.openapi import RouteMap

    if not (isinstance(item, Record) and item.path == "RouteMap"):
        why = item.why if isinstance(item, Unknown) else "not a `RouteMap(...)`"
        raise NotKnown(f"a route map: {why}", node)
    given = item.kwargs
    methods = given.get("methods", Const("*"))
    pattern = _known(given.get("pattern", Const(r".*")), node)
    kind = _type_name(given.get("mcp_type", _mcp_type("TOOL")))
    if kind is None or not isinstance(pattern, str):
        raise NotKnown("a route map's `mcp_type` or `pattern`", node)
    if isinstance(methods, Const) and methods.value == "*":
        chosen: Any = "*"
    else:
        chosen = tuple(m.upper() for m in _strings(methods, node, "`methods`"))
    return RouteMap(
        methods=chosen,
        pattern=pattern,
        tags=frozenset(_strings(given.get("tags"), node, "`tags`")),
        mcp_type=kind,
        mcp_tags=frozenset(_strings(given.get("mcp_tags"), node, "`mcp_tags`")),
    )


def _items(value: Value | None, node: ast.AST) -> list[Value]:
    if value is None or _none(value):
        return []
    if isinstance(value, Seq):
        return list(value.items)
    raise NotKnown("its `route_maps` are not a list", node)


def _strings(value: Value | None, node: ast.AST, what: str) -> Any:
    """A list, set or dict of strings (a dict: as a dict)."""
    if value is None or _none(value):
        return []
    found = _known(value, node)
    if isinstance(found, dict) and all(isinstance(v, str) for v in found.values()):
        return found
    if isinstance(found, list) and all(isinstance(v, str) for v in found):
        return found
    raise NotKnown(f"{what} are not strings", node)


def _known(value: Value, node: ast.AST) -> Any:
    return known_value(value, node)


def _none(value: Value | None) -> bool:
    return isinstance(value, Const) and value.value is None
