"""The values the registration interpreter computes with (see the package's doc).

Each is a small frozen dataclass. Containers, instances and servers hold a mutable dict or
list and compare by identity (`eq=False`): Python's own objects are mutable and have an
identity, and code that registers tools leans on both (`TOOLS.append(f)`, `self.mcp = ...`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from toolgen.read.index import Module
    from toolgen.read.registration.frames import Frame

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Const:
    """A constant: str, bytes, int, float, complex, bool, None or `...`."""

    value: object


@dataclass(frozen=True, eq=False)
class Seq:
    """A list, tuple or set of values (a set keeps insertion order: nothing here reads it)."""

    items: list[Value]
    kind: Literal["list", "tuple", "set"] = "list"


@dataclass(eq=False)
class Mapping:
    """A dict whose keys are constants (`entries`: key -> (key value, value)); `partial` when
    a key could not be known, so a missing key is not known to be missing. Not frozen: an
    assignment of an unknown key makes it partial, as the dict itself changes."""

    entries: dict[object, tuple[Value, Value]] = field(default_factory=dict)
    partial: bool = False


@dataclass(frozen=True, eq=False)
class Function:
    """A `def` or `lambda` of a project module, with the frame it closes over."""

    node: FunctionNode | ast.Lambda
    module: Module
    qualname: str
    closure: Frame
    defaults: tuple[Value, ...] = ()  # of the last positional parameters
    kw_defaults: tuple[tuple[str, Value], ...] = ()
    in_class: bool = False  # defined directly in a class body
    kind: Literal["function", "static", "class"] = "function"
    #: the class body it is defined in (for `super()`)
    owner: ast.ClassDef | None = None
    #: `functools.wraps(f)(this)`: the function a framework reads the signature of
    wrapped: Value | None = None

    @property
    def name(self) -> str:
        return "<lambda>" if isinstance(self.node, ast.Lambda) else self.node.name


@dataclass(frozen=True)
class Bound:
    """A method bound to an instance (or, for a classmethod, to its class)."""

    function: Function
    instance: Value


@dataclass(frozen=True)
class Partial:
    """`functools.partial(func, *args, **kwargs)`."""

    func: Value
    args: tuple[Value, ...]
    kwargs: tuple[tuple[str, Value], ...]


@dataclass(frozen=True, eq=False)
class Class:
    """A class of a project module: its bases and the names its body bound."""

    node: ast.ClassDef
    module: Module
    qualname: str
    bases: tuple[Value, ...]
    namespace: dict[str, Value] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Instance:
    cls: Class
    attrs: dict[str, Value] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class ModuleValue:
    module: Module


@dataclass(frozen=True)
class External:
    """A name from outside the project (an installed package, the standard library)."""

    path: str


@dataclass(frozen=True, eq=False)
class Server:
    """A framework's server (or agent) object, made by one of a preset's classes or a project
    subclass (`cls`) of one. `keys` names it: the module-level names it was first bound to;
    else `held`: the attributes of a project class's instances it was first stored in; else
    `local`: the local names of the functions it was first bound to."""

    preset: str
    node: ast.AST
    module: Module
    cls: Class | None = None
    attrs: dict[str, Value] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    local: list[str] = field(default_factory=list)
    #: the tools registered with it so far, as its framework's registry holds them
    tools: list[ToolHandle] = field(default_factory=list)

    @property
    def key(self) -> str | None:
        names = self.keys or self.held or self.local
        return names[0] if names else None


@dataclass(frozen=True)
class Registry:
    """A framework's own store of a server's tools (`mcp._local_provider`,
    `mcp._tool_manager`), which code that rewrites registered tools reads them from
    (`toolgen.read.registration.registries`)."""

    server: Server


@dataclass(eq=False)
class ToolHandle:
    """A tool object in a server's registry: `function` registered by `node` under `name`.
    `attrs`: its attributes as the code read or set them (`parameters`: the `tools/list`
    schema, known when the interpreter runs again with the analysis's schemas)."""

    function: Function
    node: ast.expr
    server: Server
    name: str
    attrs: dict[str, Value] = field(default_factory=dict)

    @property
    def key(self) -> HandleKey:
        return handle_key(self.function.node, self.node)


#: A registration, the same in every evaluation of a unit: the function's and the
#: registering node's identities (not the server's name: it may be bound only later).
HandleKey = tuple[int, int]


def handle_key(function: ast.AST, node: ast.AST) -> HandleKey:
    return (id(function), id(node))


@dataclass(frozen=True)
class Method:
    """A framework method of a server (`mcp.tool`, `mcp.add_tool`, `mcp.mount`), or a preset's
    registration method on an owner that cannot be known (`owner` None)."""

    owner: Server | None
    name: str
    preset: str


@dataclass(frozen=True)
class Registrar:
    """A registration waiting for its function: `mcp.tool(name="x")`, `@tool(risk="high")`.
    `node` is the call that carries the options, written in `module`."""

    owner: Server | None
    method: str | None  # None for a decorator function (`@function_tool(...)`)
    preset: str
    node: ast.Call
    module: Module
    options: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True)
class ToolOf:
    """`Tool.from_function(fn, name=...)`: a tool object made from a function; `node` is the
    call whose keywords are its options."""

    function: Value
    node: ast.Call
    module: Module
    options: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True)
class Lister:
    """`server.list_tools()` of a low-level SDK server: a decorator waiting for the handler
    that answers `tools/list`; `node` is the call, written in `module`."""

    owner: Server
    node: ast.Call
    module: Module


@dataclass(frozen=True, eq=False)
class Record:
    """An object of one of a framework's data classes made with the arguments given
    (`Tool(name=..., inputSchema={...})`): `path` is the class, `kwargs` its fields."""

    path: str
    kwargs: dict[str, Value]
    node: ast.AST
    module: Module


@dataclass(frozen=True)
class SchemaOf:
    """`Model.model_json_schema()` of a project class (`called` False: the method itself):
    the JSON schema pydantic makes of it, which the analysis computes."""

    cls: Class
    node: ast.AST
    module: Module
    called: bool = False


@dataclass(frozen=True)
class FilePath:
    """`pathlib.Path(...)` of a known path (`toolgen.read.registration.files`)."""

    text: str


@dataclass(frozen=True, eq=False)
class Opened:
    """A file of the project opened to be read (`open(path)`, `path.open()`): its bytes."""

    path: str
    data: bytes
    binary: bool = False

    def contents(self) -> Const:
        """What reading it all gives: its text (UTF-8, as a server on a UTF-8 machine reads
        it), or its bytes."""
        return Const(self.data if self.binary else self.data.decode("utf-8", "replace"))


@dataclass(frozen=True)
class PathMethod:
    """A method of a `FilePath` (`path.exists`)."""

    path: FilePath
    name: str


@dataclass(eq=False)
class ArgParser:
    """`argparse.ArgumentParser(...)`: each argument's value when the command line is empty
    (`toolgen.read.registration.cli_args`); `unknown` once one cannot be read."""

    module: Module
    values: dict[str, Value] = field(default_factory=dict)
    defaults: dict[str, Value] = field(default_factory=dict)
    unknown: bool = False


@dataclass(frozen=True)
class ParserMethod:
    """A method of an `ArgParser` (`parser.add_argument`)."""

    parser: ArgParser
    name: str


@dataclass(frozen=True)
class Super:
    """`super()` in a method of class `after` (a class body), for `instance`."""

    instance: Value
    after: ast.ClassDef


@dataclass(frozen=True)
class ContainerMethod:
    """A method of a list, dict or string (`TOOLS.append`): the few code collecting tools
    uses are followed (`toolgen.read.registration.stdlib.container_call`)."""

    owner: Seq | Mapping | Const
    name: str


@dataclass(frozen=True)
class Unknown:
    """A value that cannot be known without running the code: why, and where (if known).
    `made_by`: the path of the function from outside the project whose call gave it (not
    a server of a configured preset, then: toolgen can see what made it)."""

    why: str
    node: ast.AST | None = None
    made_by: str | None = None


Value = (
    Const
    | Seq
    | Mapping
    | Function
    | Bound
    | Partial
    | Class
    | Instance
    | ModuleValue
    | External
    | Server
    | Registry
    | ToolHandle
    | Method
    | Registrar
    | ToolOf
    | Lister
    | Record
    | SchemaOf
    | ArgParser
    | ParserMethod
    | FilePath
    | Opened
    | PathMethod
    | Super
    | ContainerMethod
    | Unknown
)

#: What a framework reads a tool from: the values that can stand for a function.
CALLABLE_FUNCTION = (Function, Bound, Partial)


def unwrap(value: Value, limit: int = 16) -> Function | None:
    """The function a framework reads the signature of: through bound methods, partials and
    `functools.wraps` (`__wrapped__`), at most `limit` layers deep."""
    for _ in range(limit):
        if isinstance(value, Bound):
            value = value.function
        elif isinstance(value, Partial):
            value = value.func
        elif isinstance(value, Function) and value.wrapped is not None:
            value = value.wrapped
        elif isinstance(value, Function):
            return value
        else:
            return None
    return None
