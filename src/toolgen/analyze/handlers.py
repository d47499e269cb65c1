"""What a unit registers: the handlers (functions a configured marker preset registers), the
servers mounted into others, the tools low-level servers list, and what could not be
followed. The registration interpreter finds them (`toolgen.analyze.registered`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolgen.analyze.markers import PRESETS, Preset
from toolgen.diagnostics import Diagnostic, Location
from toolgen.read.index import Module
from toolgen.read.tool_classes import ToolClass

if TYPE_CHECKING:
    from toolgen.analyze.listed import ListedTool

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


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
    #: the server object it is registered with, when toolgen can tell which (its key:
    #: `toolgen.read.registration.values.Server.key`)
    server: str | None = None
    #: the registration's keyword arguments the interpreter knows, as data, by keyword: what
    #: reading the call where it is written cannot tell (a name its caller passes in)
    values: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    #: the registration's keyword arguments the interpreter saw given but cannot know
    unknown: frozenset[str] = field(default=frozenset(), compare=False)
    #: where the function is written that its unit ran with arguments unknown, nothing there
    #: reaching it, to find this handler (None: found by what the unit runs as Python would)
    root: tuple[str, int, int, str] | None = None
    #: the server object's identity in its unit's evaluation (two calls of one factory make
    #: two servers of one key): which registrations share a server (`compiler.unlisted`)
    server_object: int | None = field(default=None, compare=False)
    #: the undecided branches it was registered in (`Registered.branches`)
    branches: tuple[tuple[int, int], ...] = field(default=(), compare=False)
    #: a tool class (LangChain's `BaseTool` subclasses): `node` is its `_run`, and the class
    #: body's attributes (`name`, `description`, `args_schema`) are the options
    tool_class: ToolClass | None = field(default=None, compare=False)

    @property
    def weak(self) -> bool:
        """Found by running a function with arguments unknown (`root`)."""
        return self.root is not None

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

    parent: str  # server keys (`toolgen.read.registration.values.Server.key`)
    child: str
    namespace: str | None = None
    tool_names: tuple[tuple[str, str], ...] = ()


@dataclass
class Registrations:
    """What a module registers: handlers, servers mounted into others, and registrations it
    cannot follow (TG106, located at the call)."""

    handlers: list[Handler] = field(default_factory=list)
    mounts: list[Mount] = field(default_factory=list)
    unfollowed: list[Diagnostic] = field(default_factory=list)
    #: the tools low-level servers list (`toolgen.analyze.listed`)
    listed: list[ListedTool] = field(default_factory=list)
    #: where the functions the unit's evaluation ran are written (path, line, column)
    reached: frozenset[tuple[str, int, int, str]] = frozenset()
    #: TG106s of functions run with arguments unknown, each with that function's place:
    #: noise when another unit runs that function with its arguments
    weak_notes: list[tuple[Diagnostic, tuple[str, int, int, str]]] = field(default_factory=list)
    #: where the unit reads a framework's own registry of tools: it is evaluated again once
    #: the tools' entries are made (`toolgen.read.registration.registries`)
    registry: list[Location] = field(default_factory=list)
