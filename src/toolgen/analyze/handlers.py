"""Find the tool handlers a module registers: every form a framework's authors write.

A handler is a function that a configured marker preset (`toolgen.analyze.markers`) registers:

- decorated: toolgen's own `@tool`, a framework's `@function_tool` or `@mcp.tool(...)`, or a
  project's own decorator declared in `[tool.toolgen.decorators]`; at module level, as
  methods, and nested in functions (`def register(mcp): @mcp.tool def f(...)` gets a
  `<locals>` qualname, like Python's own `__qualname__`);
- called: `mcp.tool(name="x")(fn)`, `mcp.tool(fn)`, `mcp.add_tool(fn, name=...)`, where `fn`
  is a function of this module or an imported one, a function nested in the same function,
  or `self.method` inside a class (`self.mcp.tool(...)(self.method)` in a handler class's
  `__init__` or `register`); also for each function of a loop over a literal list or tuple
  (`for fn in (a, b): mcp.tool()(fn)`).

A registration names its server object (`mcp` in `mcp.tool`): `toolgen.analyze.servers`
decides whether it is one of the preset's (built by a preset's class, a subclass of it, or a
factory function that returns one; a parameter or attribute that cannot be followed is taken
to be one: the preset was asked for, and that is how such servers are written).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from toolgen.analyze.markers import PRESETS, Preset
from toolgen.analyze.servers import is_server, server_key
from toolgen.diagnostics import Diagnostic
from toolgen.read.index import Module, ModuleIndex, dotted_name

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

#: Methods of a server object that register the function they are given (`mcp.add_tool(fn)`),
#: besides the preset's decorator methods called on a function (`mcp.tool(fn)`).
ADD_METHODS = frozenset({"add_tool"})
#: Methods that put another server's tools into a server's list (FastMCP's).
MOUNT_METHODS = frozenset({"mount", "import_server"})
#: Class methods that make a server whose tools come from somewhere only the run time reads.
GENERATED = {"from_openapi": "an OpenAPI document", "from_fastapi": "a FastAPI app"}


@dataclass(frozen=True)
class Handler:
    module: Module  # where the function is defined
    node: FunctionNode
    qualname: str
    #: What registers it: the decorator, or the call whose keywords are the options
    #: (`mcp.tool(name="x")` of `mcp.tool(name="x")(fn)`, `mcp.add_tool(fn, name="x")`)
    decorator: ast.expr
    in_class: bool
    is_static: bool
    preset: Preset = PRESETS["toolgen"]
    method: str | None = None  # for method markers (`@agent.tool`): the method's name
    site: Module | None = None  # the module `decorator` is written in, when not `module`
    #: the server object it is registered with (`toolgen.analyze.servers.server_key`), when
    #: toolgen can tell which
    server: str | None = None

    @property
    def at(self) -> Module:
        """The module the registration (`decorator`) is written in."""
        return self.site or self.module


def nested_too_deeply(handler: Handler) -> Diagnostic:
    """TG202 at a handler whose analysis ran out of Python's recursion limit: its types or
    values nest too deeply (said the same way by `build` and `fix`)."""
    message = f"`{handler.node.name}` nests types or values too deeply to analyse"
    return Diagnostic("TG202", message, handler.module.location(handler.node))


@dataclass(frozen=True)
class Mount:
    """`parent.mount(child, namespace=...)`: the child server's tools are listed by the
    parent, renamed by `tool_names` (original name -> new name), then prefixed with
    `namespace` and `_`, as FastMCP names them."""

    parent: str  # server keys (`toolgen.analyze.servers.server_key`)
    child: str
    namespace: str | None = None
    tool_names: tuple[tuple[str, str], ...] = ()


def find_handlers(
    module: Module, index: ModuleIndex, presets: list[Preset] | None = None
) -> list[Handler]:
    """Every handler whose registration is written in `module`, in source order."""
    return find_registrations(module, index, presets).handlers


@dataclass
class Registrations:
    """What a module registers: handlers, servers mounted into others, and registrations it
    cannot follow (TG106, located at the call)."""

    handlers: list[Handler] = field(default_factory=list)
    mounts: list[Mount] = field(default_factory=list)
    unfollowed: list[Diagnostic] = field(default_factory=list)


def find_registrations(
    module: Module, index: ModuleIndex, presets: list[Preset] | None = None
) -> Registrations:
    """Every handler whose registration is written in `module`, every server it mounts into
    another, and what it registers that toolgen cannot follow, in source order."""
    found: list[Handler] = []
    finder = _Finder(module, index, presets or [PRESETS["toolgen"]], found)
    finder.visit(module.tree.body, _Scope(prefix=""))
    return Registrations(found, finder.mounts, finder.unfollowed)


@dataclass
class _Scope:
    """Where the finder is: the qualname prefix of what is defined here, the class whose
    methods `self.x` names, the functions defined in the enclosing functions (innermost
    last), and the literal lists loop variables run over."""

    prefix: str
    cls: tuple[ast.ClassDef, str] | None = None  # the class and its qualname
    self_name: str | None = None  # the first parameter of the method we are in
    local: list[dict[str, tuple[FunctionNode, str]]] = field(default_factory=list)
    loops: dict[str, list[ast.expr]] = field(default_factory=dict)

    def function(self, node: FunctionNode, qualname: str, method_of: _Scope | None) -> _Scope:
        """The scope inside `node`: a method's first parameter names its instance."""
        self_name = self.self_name
        cls = self.cls
        if method_of is not None:
            args = [*node.args.posonlyargs, *node.args.args]
            static = any(dotted_name(d) == "staticmethod" for d in node.decorator_list)
            self_name = args[0].arg if args and not static else None
            cls = method_of.cls
        return _Scope(f"{qualname}.<locals>.", cls, self_name, [*self.local, {}], dict(self.loops))


class _Finder:
    def __init__(
        self, module: Module, index: ModuleIndex, presets: list[Preset], found: list[Handler]
    ) -> None:
        self.module = module
        self.index = index
        self.presets = presets
        self.found = found
        self._seen: set[tuple[int, int]] = set()  # (function, registration) pairs found
        self.mounts: list[Mount] = []
        self.unfollowed: list[Diagnostic] = []

    def visit(self, body: list[ast.stmt], scope: _Scope, in_class: bool = False) -> None:
        defined = {
            stmt.name: (stmt, scope.prefix + stmt.name)
            for stmt in body
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        if scope.local and not in_class:
            scope.local[-1].update(defined)
        for stmt in body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = scope.prefix + stmt.name
                match = self.marker(stmt)
                if match is not None:
                    decorator, preset, method = match
                    server = self.owner_key(decorator, preset) if method else None
                    self.add(
                        stmt, qualname, decorator, in_class, preset, method, self.module, server
                    )
                inner = scope.function(stmt, qualname, scope if in_class else None)
                self.visit(stmt.body, inner)
            elif isinstance(stmt, ast.ClassDef):
                qualname = scope.prefix + stmt.name
                inner = _Scope(f"{qualname}.", (stmt, qualname), None, scope.local, scope.loops)
                self.visit(stmt.body, inner, in_class=True)
            elif isinstance(stmt, ast.For | ast.AsyncFor):
                self.scan(stmt.iter, scope)
                loop = _Scope(scope.prefix, scope.cls, scope.self_name, scope.local, scope.loops)
                if isinstance(stmt.target, ast.Name) and isinstance(
                    stmt.iter, ast.List | ast.Tuple
                ):
                    loop.loops = {**scope.loops, stmt.target.id: list(stmt.iter.elts)}
                self.visit(stmt.body, loop)
                self.visit(stmt.orelse, scope)
            else:
                for expr in _own_expressions(stmt):
                    self.scan(expr, scope)
                for child_body in _bodies(stmt):
                    self.visit(child_body, scope)

    # -- decorated functions -----------------------------------------------------------------
    def marker(self, node: FunctionNode) -> tuple[ast.expr, Preset, str | None] | None:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            dotted = dotted_name(target)
            if dotted is None:
                continue
            symbol = self.index.resolve(self.module, dotted)
            for preset in self.presets:
                if symbol is not None and symbol.path in preset.functions:
                    return decorator, preset, None
            owner, _, method = dotted.rpartition(".")
            if not owner:
                continue
            candidates = [p for p in self.presets if method in p.methods]
            for preset in candidates:
                if is_server(self.index, self.module, owner, preset):
                    return decorator, preset, method
            if candidates:
                self.not_a_server(decorator, owner, f"@{dotted}")
        return None

    def not_a_server(self, node: ast.expr, owner: str, shown: str) -> None:
        """TG106 for a registration on something toolgen can see is not a server."""
        self.unfollowed.append(
            Diagnostic(
                "TG106",
                f"`{shown}` looks like a registration, but `{owner}` is not a server of the "
                "configured markers: nothing is registered",
                self.module.location(node),
            )
        )

    def owner_key(self, registration: ast.expr, preset: Preset) -> str | None:
        """The server key of the owner of `registration` (`owner.tool(...)`, `owner.tool`)."""
        target = registration.func if isinstance(registration, ast.Call) else registration
        if not isinstance(target, ast.Attribute):
            return None
        owner = dotted_name(target.value)
        return None if owner is None else server_key(self.index, self.module, owner, preset)

    # -- registrations by call -----------------------------------------------------------------
    def scan(self, expr: ast.expr, scope: _Scope) -> None:
        """Registrations by call anywhere in `expr` (not inside a lambda)."""
        for node in _walk(expr):
            if isinstance(node, ast.Call):
                self.registration(node, scope)
                self.mount(node)
                self.generated(node)

    def generated(self, call: ast.Call) -> None:
        """`FastMCP.from_openapi(...)`, `FastMCP.from_fastapi(...)`: a server whose tools are
        made at run time from a document or an app (TG106)."""
        if not isinstance(call.func, ast.Attribute) or call.func.attr not in GENERATED:
            return
        made = self.index.resolve_expr(self.module, call.func.value)
        if made is not None and any(made.path in p.factories for p in self.presets):
            self.unfollowed.append(
                Diagnostic(
                    "TG106",
                    f"`{_shown(call.func)}(...)` makes its tools at run time from "
                    f"{GENERATED[call.func.attr]}: toolgen cannot read them",
                    self.module.location(call),
                )
            )

    def mount(self, call: ast.Call) -> None:
        """`parent.mount(child, namespace=..)`, `parent.mount("prefix", child)` (FastMCP 2),
        `parent.import_server(child, prefix=..)`, between servers toolgen can tell."""
        if not isinstance(call.func, ast.Attribute) or call.func.attr not in MOUNT_METHODS:
            return
        owner = dotted_name(call.func.value)
        servers = [p for p in self.presets if p.factories]
        if owner is None or not servers:
            return
        namespace: str | None = None
        child_node: ast.expr | None = None
        for arg in call.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                namespace = arg.value
            elif child_node is None:
                child_node = arg
        tool_names: tuple[tuple[str, str], ...] = ()
        for kw in call.keywords:
            if kw.arg in ("namespace", "prefix") and isinstance(kw.value, ast.Constant):
                namespace = kw.value.value if isinstance(kw.value.value, str) else None
            elif kw.arg == "server":
                child_node = kw.value
            elif kw.arg == "tool_names" and isinstance(kw.value, ast.Dict):
                tool_names = tuple(
                    (k.value, v.value)
                    for k, v in zip(kw.value.keys, kw.value.values, strict=True)
                    if isinstance(k, ast.Constant)
                    and isinstance(v, ast.Constant)
                    and isinstance(k.value, str)
                    and isinstance(v.value, str)
                )
        child = dotted_name(child_node) if child_node is not None else None
        for preset in servers:
            parent_key = server_key(self.index, self.module, owner, preset)
            child_key = server_key(self.index, self.module, child, preset) if child else None
            if parent_key and child_key:
                self.mounts.append(Mount(parent_key, child_key, namespace or None, tool_names))
                return

    def registration(self, call: ast.Call, scope: _Scope) -> None:
        """`owner.tool(...)(fn)`, `owner.tool(fn, ...)`, `owner.add_tool(fn, ...)`."""
        if isinstance(call.func, ast.Call) and call.args and not call.keywords:
            inner = call.func  # `owner.tool(...)` applied to `fn`
            if self.method_call(inner, registers=False, report=True) is not None:
                self.register(call.args[0], inner, scope)
            return
        given = call.args and not isinstance(call.args[0], ast.Constant)
        if given and self.method_call(call, registers=True, report=True) is not None:
            self.register(call.args[0], call, scope)

    def method_call(
        self, call: ast.Call, registers: bool, report: bool = False
    ) -> tuple[Preset, str] | None:
        """The preset and method of a server method call (`owner.tool(...)`); with
        `registers`, also `owner.add_tool(...)`. With `report`, one on something toolgen can
        see is no server is a TG106."""
        if not isinstance(call.func, ast.Attribute):
            return None
        method = call.func.attr
        owner = dotted_name(call.func.value)
        candidates = [
            p
            for p in self.presets
            if p.methods and (method in p.methods or (registers and method in ADD_METHODS))
        ]
        for preset in candidates:
            if owner is None or is_server(self.index, self.module, owner, preset):
                return preset, method
        if candidates and owner is not None and report:
            self.not_a_server(call, owner, f"{owner}.{method}(...)")
        return None

    def register(self, target: ast.expr, call: ast.Call, scope: _Scope) -> None:
        found = self.method_call(call, registers=True)
        if found is None:
            return
        preset, method = found
        server = self.owner_key(call, preset)
        if (
            isinstance(target, ast.Call)
            and isinstance(target.func, ast.Attribute)
            and target.func.attr == "from_function"
            and target.args
        ):  # `mcp.add_tool(Tool.from_function(fn, name=...))`: its keywords are the options
            call, target = target, target.args[0]
        named = list(self.functions(target, scope))
        for fn, qualname, module, in_class in named:
            self.add(fn, qualname, call, in_class, preset, method, module, server)
        if not named:
            self.unfollowed.append(
                Diagnostic(
                    "TG106",
                    f"`{_shown(call)}` registers `{_shown(target)}`, which toolgen cannot name "
                    f"without running the code ({self.why(target, scope)})",
                    self.module.location(call),
                )
            )

    def why(self, target: ast.expr, scope: _Scope) -> str:
        """Why the function `target` names cannot be followed, in a few words."""
        if isinstance(target, ast.Name) and target.id not in scope.loops:
            symbol = self.index.resolve(self.module, target.id)
            if symbol is None:
                return "a parameter, a loop variable or a local value"
            if symbol.is_external:
                return f"it comes from {symbol.path}, outside the project"
            return f"it is a {symbol.kind}, not a function"
        if isinstance(target, ast.Call):
            return "a value made by a call at run time"
        return "not a function of the project"

    def functions(
        self, target: ast.expr, scope: _Scope, depth: int = 0
    ) -> Iterator[tuple[FunctionNode, str, Module, bool]]:
        """The functions `target` names, with qualname, module and whether it is a method
        (bound: `self.method`); nothing for what cannot be followed."""
        if isinstance(target, ast.Name):
            if target.id in scope.loops and depth < 4:
                for element in scope.loops[target.id]:
                    yield from self.functions(element, scope, depth + 1)
                return
            for names in reversed(scope.local):
                if target.id in names:
                    node, qualname = names[target.id]
                    yield node, qualname, self.module, False
                    return
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == scope.self_name
            and scope.cls is not None
        ):
            method = _method(scope.cls[0], target.attr)
            if method is not None:
                yield method, f"{scope.cls[1]}.{target.attr}", self.module, True
                return
        dotted = dotted_name(target)
        if dotted is None:
            return
        symbol = self.index.resolve(self.module, dotted)
        if symbol is None or symbol.module is None:
            return
        if symbol.kind == "function" and isinstance(
            symbol.node, ast.FunctionDef | ast.AsyncFunctionDef
        ):
            qualname = symbol.path.removeprefix(f"{symbol.module.name}.")
            yield symbol.node, qualname, symbol.module, "." in qualname

    def add(
        self,
        node: FunctionNode,
        qualname: str,
        decorator: ast.expr,
        in_class: bool,
        preset: Preset,
        method: str | None,
        module: Module,
        server: str | None = None,
    ) -> None:
        key = (id(node), id(decorator))
        if key in self._seen:
            return
        self._seen.add(key)
        static = any(dotted_name(d) == "staticmethod" for d in node.decorator_list)
        site = None if module is self.module else self.module
        self.found.append(
            Handler(
                module, node, qualname, decorator, in_class, static, preset, method, site, server
            )
        )


def _shown(node: ast.expr, limit: int = 60) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _method(cls: ast.ClassDef, name: str) -> FunctionNode | None:
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
            return stmt
    return None


def _walk(expr: ast.expr) -> Iterator[ast.AST]:
    """The nodes of `expr`, not entering lambdas (their bodies run later, if ever)."""
    stack: list[ast.AST] = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(
            child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.Lambda)
        )


def _own_expressions(stmt: ast.stmt) -> list[ast.expr]:
    """The expressions of `stmt` itself, not those of the statements in its bodies."""
    found: list[ast.expr] = []
    for name, value in ast.iter_fields(stmt):
        if name in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, ast.expr):
                found.append(item)
            elif isinstance(item, ast.withitem):
                found.append(item.context_expr)
    return found


def _bodies(stmt: ast.stmt) -> list[list[ast.stmt]]:
    bodies: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        value = getattr(stmt, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            bodies.append(value)
    for handler in getattr(stmt, "handlers", []) or []:
        bodies.append(handler.body)
    for case in getattr(stmt, "cases", []) or []:
        bodies.append(case.body)
    return bodies
