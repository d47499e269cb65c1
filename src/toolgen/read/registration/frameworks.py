"""What a framework's names mean: server classes make `Server`s, their methods register.

The presets themselves live with the analysis (`toolgen.analyze.markers`); the reading stage
may not import it, so the interpreter is given what it needs of each as plain data
(`Framework`): its decorator functions, its registration methods and its server classes.
"""

from __future__ import annotations

import ast

from toolgen.read.index import Module
from toolgen.read.registration import openapi_servers, registries, stdlib, tool_transforms
from toolgen.read.registration.context import Context, Framework, shown
from toolgen.read.registration.effects import ListedTools, Mounted, Registered
from toolgen.read.registration.values import (
    CALLABLE_FUNCTION,
    Class,
    Const,
    External,
    Lister,
    Mapping,
    Method,
    Record,
    Registrar,
    Server,
    ToolOf,
    Unknown,
    Value,
    unwrap,
)

#: toolgen's own `@tool` (`toolgen.analyze.markers`), by the paths it is imported by.
OWN_MARKERS = frozenset({"toolgen.tool", "toolgen._marker.tool"})

#: Server methods that register the function (or `Tool`) they are given, besides the
#: preset's decorator methods called on a function (`mcp.tool(fn)`).
ADD_METHODS = frozenset({"add_tool"})
#: Server methods that put another server's tools into its list (FastMCP's).
MOUNT_METHODS = frozenset({"mount", "import_server"})
#: Methods of a low-level SDK server that take the handler of `tools/list` (mcp 1), and the
#: keyword of its class that does (mcp 2).
LIST_METHODS = frozenset({"list_tools"})
LIST_KEYWORD = "on_list_tools"
#: The SDK's data classes a tools/list answer is made of: an object of one, made with
#: arguments toolgen knows, is a `Record` of them (by the class's last name).
RECORDS = frozenset({"Tool", "ToolAnnotations", "ListToolsResult"})
#: The packages those classes come from (`mcp.types`, and mcp 2's own `mcp_types`).
RECORD_PACKAGES = frozenset({"mcp", "mcp_types"})
#: Class methods of a server class that make a server whose tools only the run time reads.
GENERATED = {"from_openapi": "an OpenAPI document", "from_fastapi": "a FastAPI app"}
#: FastMCP's tool classes whose `from_tool` makes a transformed tool.
TOOL_CLASSES = frozenset({"Tool", "FunctionTool", "TransformedTool"})
#: How deep a class's bases are followed to a framework's server class.
MAX_BASES = 16


def decorator_of(ctx: Context, path: str) -> Framework | None:
    """The framework whose decorator function `path` is (`agents.function_tool`, or a
    project's own declared decorator)."""
    return next((f for f in ctx.frameworks if path in f.functions), None)


def factory_of(ctx: Context, path: str) -> Framework | None:
    """The framework whose server class `path` is: one of its paths, or the same class
    under another path of its package (`mcp.server.MCPServer`, a re-export of
    `mcp.server.mcpserver.MCPServer` the preset does not list)."""
    exact = next((f for f in ctx.frameworks if path in f.factories), None)
    if exact is not None or "." not in path:
        return exact
    package, name = path.partition(".")[0], path.rpartition(".")[2]
    for framework in ctx.frameworks:
        for factory in framework.factories:
            if factory.partition(".")[0] == package and factory.rpartition(".")[2] == name:
                return framework
    return None


def server_class(ctx: Context, cls: Class) -> Framework | None:
    """The framework whose server class `cls` derives from, if any (bases followed
    breadth-first, at most `MAX_BASES` classes)."""
    queue: list[Value] = list(cls.bases)
    for _ in range(MAX_BASES):
        if not queue:
            return None
        base = queue.pop(0)
        if isinstance(base, External):
            found = factory_of(ctx, base.path)
            if found is not None:
                return found
        elif isinstance(base, Class):
            queue.extend(base.bases)
    return None


def registration_method(ctx: Context, name: str) -> Framework | None:
    """The first framework with a registration method `name` (`tool`, `tool_plain`, or
    `add_tool` for one whose servers have registration methods)."""
    return next(
        (f for f in ctx.frameworks if name in f.methods or (f.methods and name in ADD_METHODS)),
        None,
    )


def external_attribute(ctx: Context, owner: External, attr: str) -> Value:
    """`owner.attr` of a name from outside the project. A registration method of an object
    toolgen cannot see (`from elsewhere import mcp; mcp.tool`) is taken to be a server's: the
    preset was asked for, and that is how such servers are written."""
    path = f"{owner.path}.{attr}"
    if decorator_of(ctx, path) or factory_of(ctx, path) or factory_of(ctx, owner.path):
        return External(path)
    if path in OWN_MARKERS:  # `toolgen.tool` is toolgen's decorator, never a server's method
        return External(path)
    found = registration_method(ctx, attr)
    if found is not None:
        return Method(None, attr, found.name)
    return External(path)


def server_attribute(ctx: Context, server: Server, attr: str) -> Value:
    """A framework method of a server: all are `Method`s; only some do anything here."""
    return Method(server, attr, server.preset)


def call_external(
    ctx: Context, callee: External, args: list[Value], kwargs: dict[str, Value], node: ast.AST
) -> Value | None:
    """A framework's class or function called; None when `callee` is none of theirs."""
    path = callee.path
    made = factory_of(ctx, path)
    if made is not None:
        server = Server(made.name, node, ctx.site)
        handler = kwargs.get(LIST_KEYWORD)
        if handler is not None and isinstance(node, ast.Call):
            list_tools(ctx, Lister(server, node, ctx.site), handler, node)
        given = kwargs.get("tools")
        if made.name == "pydantic-ai" and given is not None and isinstance(node, ast.Call):
            agent_tools(ctx, server, given, node)
        return server
    if path.partition(".")[0] in RECORD_PACKAGES and path.rpartition(".")[2] in RECORDS:
        return Record(path.rpartition(".")[2], dict(kwargs), node, ctx.site)
    if path.startswith("fastmcp.") and path.rpartition(".")[2] in openapi_servers.MAKERS:
        return openapi_servers.make(ctx, path, args, kwargs, node)
    owner, _, attr = path.rpartition(".")
    made = factory_of(ctx, owner)
    if made is not None and attr == "from_openapi" and made.name == "fastmcp":
        server = Server(made.name, node, ctx.site)
        openapi_servers.from_openapi(ctx, made, server, args, kwargs, node)
        return server
    if made is not None and attr in GENERATED:
        ctx.note(
            "unfollowed",
            f"`{shown(node)}` makes its tools at run time from {GENERATED[attr]}: toolgen "
            "cannot read them",
            node,
        )
        return Server(made.name, node, ctx.site)
    fastmcp = path.startswith("fastmcp.")
    if fastmcp and attr == "from_tool" and owner.rpartition(".")[2] in TOOL_CLASSES:
        return tool_transforms.from_tool(ctx, args, kwargs, node)
    if fastmcp and attr == tool_transforms.ARG_TRANSFORM:
        return tool_transforms.arg_transform(args, kwargs, node, ctx)
    if attr == "from_function" and owner.rpartition(".")[2] in ("Tool", "FunctionTool") and args:
        assert isinstance(node, ast.Call)
        return ToolOf(args[0], node, ctx.site, tuple(kwargs.items()))
    if path in PYDANTIC_AI_TOOL and any(f.name == "pydantic-ai" for f in ctx.frameworks):
        function = args[0] if args else kwargs.get("function")
        if function is not None and isinstance(node, ast.Call):  # `Tool(fn, name=...)`
            options = tuple((k, v) for k, v in kwargs.items() if k != "function")
            return ToolOf(function, node, ctx.site, options)
    decorator = decorator_of(ctx, path)
    if decorator is not None:
        return call_decorator(ctx, decorator, args, kwargs, node)
    return None


def call_decorator(
    ctx: Context,
    framework: Framework,
    args: list[Value],
    kwargs: dict[str, Value],
    node: ast.AST,
) -> Value:
    """A decorator function (`@function_tool`, `@tool(...)`): given a function, it registers
    it; given options, it is a `Registrar` waiting for one."""
    given = args[0] if args else kwargs.get("func")  # `from_function(func=fn)` names it
    if given is not None and isinstance(given, CALLABLE_FUNCTION):
        assert isinstance(node, ast.expr)
        rest = {k: v for k, v in kwargs.items() if k != "func"}
        return register(ctx, given, node, ctx.site, framework.name, None, None, rest)
    if not isinstance(node, ast.Call):
        return Unknown("a decorator used without a function", node)
    options = tuple(kwargs.items())
    return Registrar(None, None, framework.name, node, ctx.site, options)


def call_method(
    ctx: Context, method: Method, args: list[Value], kwargs: dict[str, Value], node: ast.AST
) -> Value:
    """`mcp.tool(...)`, `mcp.add_tool(...)`, `mcp.mount(...)`; any other method of a server
    gives what toolgen cannot know."""
    framework = next((f for f in ctx.frameworks if f.name == method.preset), None)
    owner = method.owner
    if owner is not None and method.preset == "fastmcp":
        first = args[0] if args else None
        if method.name == "get_tool" and not kwargs:
            return tool_transforms.get_tool(ctx, owner, args, node)
        if method.name == "disable" and not args:
            return tool_transforms.disable(ctx, owner, kwargs, node)
        transformed = isinstance(first, Record) and first.path == tool_transforms.TRANSFORMED
        if method.name in ADD_METHODS and transformed:
            assert isinstance(first, Record)
            return tool_transforms.add_tool(ctx, owner, first, node)
    registers = framework is not None and method.name in framework.methods
    if registers or method.name in ADD_METHODS:
        first = args[0] if args else None
        given = isinstance(first, (*CALLABLE_FUNCTION, ToolOf))
        if method.name in ADD_METHODS or given:
            if first is None:
                return ctx.note("unfollowed", f"`{shown(node)}` registers nothing", node)
            assert isinstance(node, ast.expr)
            site = ctx.site
            target: Value = first
            if isinstance(first, ToolOf):  # its keywords are the options
                target, node, site = first.function, first.node, first.module
                kwargs = {**dict(first.options), **kwargs}
            return register(
                ctx, target, node, site, method.preset, method.name, method.owner, kwargs
            )
        if isinstance(node, ast.Call):
            # a first argument that may be text is the name (`mcp.tool("x")`): known, or not
            named = (("name", first),) if isinstance(first, Const | Unknown) else ()
            options = tuple(kwargs.items()) + named
            return Registrar(method.owner, method.name, method.preset, node, ctx.site, options)
        return Unknown(f"`{shown(node)}` used without a function", node)
    if method.name in MOUNT_METHODS and method.owner is not None:
        return mount(ctx, method.owner, args, kwargs, node)
    if method.name == "add_transform" and method.owner is not None and args:
        return tool_transforms.add_transform(ctx, method.owner, args[0], node)
    if method.name == "add_provider" and method.owner is not None and args:
        return openapi_servers.add_provider(ctx, method.owner, args[0], node)
    if method.name in LIST_METHODS and method.owner is not None and isinstance(node, ast.Call):
        return Lister(method.owner, node, ctx.site)
    return Unknown(f"what `{shown(node)}` gives is the framework's run time", node)


def call_registrar(
    ctx: Context, registrar: Registrar, args: list[Value], kwargs: dict[str, Value], node: ast.AST
) -> Value:
    """`mcp.tool(name="x")(fn)`, `@mcp.tool(...)` applied to a function."""
    if not args:
        return ctx.note("unfollowed", f"`{shown(registrar.node)}` applied to nothing", node)
    options = dict(registrar.options)
    return register(
        ctx,
        args[0],
        registrar.node,
        registrar.module,
        registrar.preset,
        registrar.method,
        registrar.owner,
        options,
    )


#: pydantic-ai's tool class: `Tool(fn, name=...)` made to give an agent in `tools=[...]`.
PYDANTIC_AI_TOOL = frozenset({"pydantic_ai.Tool", "pydantic_ai.tools.Tool"})


def agent_tools(ctx: Context, agent: Server, given: Value, node: ast.Call) -> None:
    """`Agent(..., tools=[fn, Tool(fn, name=...)])`: each is registered with the agent, a
    function with no options (what names it is written in the list, or the list's name),
    a `Tool(...)` with its keywords."""
    found = stdlib.items(given)
    if found is None:
        ctx.note("unfollowed", f"`{shown(node)}` gives tools toolgen cannot list", node)
        return
    written = next((k.value for k in node.keywords if k.arg == "tools"), node)
    elements = written.elts if isinstance(written, ast.List | ast.Tuple) else []
    for index, item in enumerate(found):
        if isinstance(item, ToolOf):
            options = dict(item.options)
            register(ctx, item.function, item.node, item.module, agent.preset, None, agent, options)
            continue
        where = elements[index] if len(elements) == len(found) else written
        register(ctx, item, where, ctx.site, agent.preset, None, agent, {})


def list_tools(ctx: Context, lister: Lister | None, handler: Value, node: ast.AST) -> Value:
    """`@server.list_tools()` applied to `handler`, or `Server(on_list_tools=handler)`: what
    it returns is the server's list of tools."""
    function = unwrap(handler)
    if lister is None or function is None:
        what = shown(node)
        return ctx.note("unfollowed", f"`{what}` lists tools toolgen cannot name", node)
    ctx.record(ListedTools(lister.owner, function, lister.node, lister.module))
    return handler


def register(
    ctx: Context,
    target: Value,
    node: ast.expr,
    site: Module,
    preset: str,
    method: str | None,
    server: Server | None,
    options: dict[str, Value],
) -> Value:
    """Record that `target` is registered (a function, through its wrappers); a located
    note when it is not a function toolgen can name. Gives `target` back: FastMCP 3 and the
    decorators of the other frameworks give a function (or a tool) that stands for it."""
    function = unwrap(target)
    if function is None:
        why = target.why if isinstance(target, Unknown) else "not a function of the project"
        what = shown(node)
        ctx.note(
            "unfollowed",
            f"`{what}` registers something toolgen cannot name without running the code ({why})",
            node,
        )
        return target
    made = (function, node, site, preset, method, server, tuple(options.items()))
    registered = Registered(*made, branches=ctx.branches)
    ctx.record(registered)
    if server is not None:
        registries.handle(function, node, server, options)
    if server is not None and tool_transforms.transforms_of(server):
        tool_transforms.handlers_untransformed(ctx, node)
    return target


def mount(
    ctx: Context, parent: Server, args: list[Value], kwargs: dict[str, Value], node: ast.AST
) -> Value:
    """`parent.mount(child, namespace=...)`, `parent.mount("prefix", child)` (FastMCP 2),
    `parent.import_server(child, prefix=...)`."""
    namespace: str | None = None
    child: Value | None = kwargs.get("server")
    for arg in args:
        if isinstance(arg, Const) and isinstance(arg.value, str):
            namespace = arg.value
        elif child is None:
            child = arg
    for key in ("namespace", "prefix"):
        given = kwargs.get(key)
        if isinstance(given, Const) and isinstance(given.value, str):
            namespace = given.value
    names: list[tuple[str, str]] = []
    renamed = kwargs.get("tool_names")
    if isinstance(renamed, Mapping):
        for key_value, value in renamed.entries.values():
            pair = (getattr(key_value, "value", None), getattr(value, "value", None))
            if isinstance(pair[0], str) and isinstance(pair[1], str):
                names.append((pair[0], pair[1]))
    if not isinstance(child, Server):
        return ctx.note("unfollowed", f"`{shown(node)}` mounts a server toolgen cannot tell", node)
    assert isinstance(node, ast.expr)
    ctx.record(Mounted(parent, child, namespace or None, tuple(names), node, ctx.site))
    return Const(None)
