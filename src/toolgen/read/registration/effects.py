"""What evaluating a module does that toolgen reads: registrations, mounts, notes."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Literal

from toolgen.read.index import Module
from toolgen.read.registration.values import Function, Server, Value
from toolgen.read.tool_classes import ToolClass


@dataclass(frozen=True)
class Registered:
    """`function` registered with `server` (None: a decorator function's registration, or an
    owner that cannot be known). `node` is the decorator or call that carries the options,
    written in `site`; `method` the server method used (`tool`, `add_tool`), None for a
    decorator function."""

    function: Function
    node: ast.expr
    site: Module
    preset: str
    method: str | None
    server: Server | None
    options: tuple[tuple[str, Value], ...] = ()
    #: the branches toolgen cannot choose between it was made in, outermost first: each
    #: (which such choice, which branch); two made in different branches of one choice are
    #: alternatives, only one of which runs
    branches: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Mounted:
    """`parent.mount(child, namespace=...)`: the child's tools are listed by the parent."""

    parent: Server
    child: Server
    namespace: str | None
    tool_names: tuple[tuple[str, str], ...]
    node: ast.expr
    site: Module


@dataclass(frozen=True)
class ListedTools:
    """A low-level SDK server's handler of `tools/list` (`@server.list_tools()`, or
    `Server(on_list_tools=...)`): `node` is what names it, written in `site`. The tools are
    what it returns (`toolgen.read.registration.evaluation.listed`)."""

    server: Server
    function: Function
    node: ast.AST
    site: Module


@dataclass(frozen=True)
class AnsweredTools:
    """A server written by hand (JSON-RPC, no SDK): the dict a function that answers
    `tools/list` builds under the key `tools` (`tools`: the list), at `node` of `site`."""

    tools: Value
    node: ast.AST
    site: Module


@dataclass(frozen=True)
class ArgTransform:
    """FastMCP's `ArgTransform(...)` of one argument: the fields given, as data."""

    fields: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Transformed:
    """`Tool.from_tool(parent, ...)` of a tool whose entry is known: the `transform_fn`
    (None: none), the `transform_args` and the options given as data, made at `node` of
    `site`. The analysis makes its entry as FastMCP does (`toolgen.analyze.tool_transforms`)."""

    parent: ToolEntry
    function: Function | None
    arguments: dict[str, ArgTransform]
    options: dict[str, Any]
    node: ast.AST
    site: Module


#: A tool of a server whose `tools/list` entry is data: the entry, or a transform of one.
ToolEntry = dict[str, Any] | Transformed


@dataclass(frozen=True)
class OpenAPITools:
    """`FastMCP.from_openapi(...)`: the tools `server` lists, converted from the document as
    that FastMCP version does (`tools`: `tools/list` entries; a server's `Transform` may
    have made some `Transformed`), made at `node` of `site`."""

    server: Server
    tools: tuple[ToolEntry, ...]
    node: ast.AST
    site: Module


@dataclass(frozen=True)
class ToolClassMade:
    """A class statement that makes a tool class of `preset` (`toolgen.read.tool_classes`):
    LangChain's tools are classes deriving from its `BaseTool`. `options` are the keywords a
    constructor call gives (`SearchTool(name="search")`, `call` that call, written in
    `site`); empty, with `call` None, for the class statement itself."""

    tool: ToolClass
    preset: str
    site: Module
    qualname: str
    call: ast.expr | None = None
    options: tuple[tuple[str, Value], ...] = ()
    branches: tuple[tuple[int, int], ...] = ()


NoteKind = Literal["unfollowed", "bound", "env", "remade", "registry"]


@dataclass(frozen=True)
class Note:
    """What could not be followed (`unfollowed`, TG106), a bound reached (`bound`), a read
    of the process environment (`env`), a tool's parameters made at run time (`remade`,
    TG110), or a framework's registry of tools read (`registry`: the unit runs again once
    the schemas are made, `toolgen.read.registration.registries`), located."""

    kind: NoteKind
    message: str
    site: Module
    node: ast.AST | None


Effect = Registered | Mounted | ListedTools | AnsweredTools | OpenAPITools | ToolClassMade | Note
