"""Which tools a project registers, by evaluating its code as Python would, without running it.

A small abstract interpreter over the project's modules (`toolgen.read.index`), replacing
pattern matching of registration forms: whatever the code does to reach a framework's
registration call (a decorator defined three modules away, a loop over a list imported from
elsewhere, a class that keeps its server in `self.mcp`, a factory that returns the server), the
interpreter follows it because it follows Python, not because it has seen that form.

What it evaluates
-----------------
- Each source module's top-level statements, in order, as an import runs them. `import` and
  `from ... import` evaluate the imported project module first (once; a module met again
  while it is being evaluated gives what it has bound so far, as Python does). Installed
  packages are not evaluated: their names are `External` values (a dotted path), and the
  framework's are given their meaning by `frameworks` (server classes, registration methods,
  `Tool.from_function`, `mount`/`import_server`). What a source module's own top level
  registers belongs to that module's unit (the per-file cache keeps working): effects of
  other modules' top levels met through an import are not repeated there.
- Calls of the project's functions, methods and classes with the arguments they are given:
  the body runs in a new frame (closures see the frames they were defined in), `return`
  gives the call's value; a class call makes an `Instance` and runs `__init__`; decorators
  are applied bottom-up as calls. `functools.wraps` keeps the wrapped function (a framework
  reads the signature through `__wrapped__`), `functools.partial` binds arguments.
  A decorator toolgen cannot know (from outside the project, unknown, or a server method
  that does not register, such as `@mcp.resource(...)`) is taken to give back the function
  it is given, as `wraps`-style decorators do, rather than `Unknown`: the function stays
  nameable for a registration applied above it. A name a module does not bind is asked of
  its `__getattr__` (PEP 562), called with the name. An `async def` runs when called (`await
  x` is `x`); a generator's body does not (it runs when iterated): its call is `Unknown`.
- Statements: assignments (names, attributes of instances, subscripts of known containers,
  unpacking), `if`/`while` on known values (an unknown test evaluates both branches and
  joins what they bind), `for` and comprehensions over known iterables (unrolled; a `for`
  over an unknown iterable runs its body once, its target unknown; a `while` whose test is
  unknown, or that an undecided branch may leave, as `if not token: break`, runs once),
  `try` (the body, then `else`/`finally`; the handlers, joined with `else`, when the body
  raised or made an unknown value, as it then may have raised),
  `with` (its body), `match` on known subjects, `return`, `del`, `global`/`nonlocal`.
- A project class without an `__init__` of its own that is a record (a dataclass, by its
  decorator's name; a `NamedTuple`; a pydantic model) sets its annotated fields from the
  arguments, as the `__init__` Python makes for it does. A member of an enum is its value
  (`Tools.SEARCH.value` is `Tools.SEARCH`).
- Console scripts: a function called under `if __name__ == "__main__":` is evaluated too
  (`__name__` is unknown: both branches run), since the served object is often built
  there. The functions `[project.scripts]` names are called with no arguments, as a console
  script calls them (`scripts`), once their module is loaded.
- Functions the evaluation of their module (with what it imports) does not reach (a
  `register(mcp)` that only the run time, or another file, calls; a lifespan hook) are
  evaluated last, once each, with their parameters `Unknown` (`unreached`): there a
  preset's registration method called on an unknown owner (`mcp.tool`, `server.add_tool`)
  still registers, with a server toolgen cannot name, as such code is written for no other
  purpose. Reached functions (by where they are written: a source listed under two module
  names is one function) and registered ones are never evaluated this way too, nor one that
  mentions no word a registration is written with (a preset's method, decorator or server
  class, a name of its module bound to one of them): it could register only through another
  function, which is evaluated in its own right (most functions are no registration code).
  What another module's evaluation reached does not count: a unit finds the same whatever
  units ran before it (the unit cache relies on it), and the compiler keeps, of a handler
  two units find, the one that knows more of its registration (and nothing a function run
  this way registers when another unit runs it with its arguments). A registration method
  called on an unknown owner anywhere (a parameter, `self.server` never set, a name from
  outside the project, what a function from outside it gives) registers too: the preset
  was asked for, and that is how such servers are written; but not on an instance of a
  class from outside the project that is no preset's server class (`fastmcp.FastMCP(...)` when
  only `mcp` is configured; a class is told from a function by its capitalised name): toolgen
  sees what made it, and it is no server of the configured presets (a TG106).
- The process environment is absent: `os.getenv("X", d)`, `os.environ.get("X", d)` and
  `os.environ["X"]` evaluate to the default (what a server started with nothing set
  publishes), or to the value `evaluate(..., env=...)` gives for `X` (the compiler passes
  `[tool.toolgen] env`); each read is a note.
- A server written by hand (no SDK, the `mcp` preset configured): a dict with a `tools` key
  holding a list, built by a function whose code has the string "tools/list", is an
  `AnsweredTools` effect (the function is evaluated as unreached ones are: the word
  `tools/list` counts as a registration word).
- The command line is empty too: `sys.argv` is `[""]`, and an `argparse.ArgumentParser`
  parses it to its defaults (`cli_args`). So are the working and home folders, and the
  machine holds nothing of the server's but the project (`files`): a relative path, one
  under `~` and one off the project do not exist, and opening one raises. The network is
  absent: a request (`NETWORK`: `httpx.get`, a client's `get`) raises. A call that raises
  unwinds the calls in progress (`Raising`) to the `try` whose body it interrupts, whose
  handlers run; with no `try` around it (the server would stop, which one that lists tools
  does not do where it runs) its value is `Unknown` and the evaluation goes on. A `raise`
  statement's exception is not followed past its function.
- The project's own files are what it holds: `__file__` is the module's path, a regular file
  inside the project (`Path(__file__).parent / "spec.yaml"`, `importlib.resources.files`)
  exists and opens (`Opened`), and JSON and YAML load to values (`data`; YAML with the safe
  loader only). A folder's listing is known (`iterdir`, `glob`, `pkgutil.iter_modules`), and
  `importlib.import_module` imports. What is read is a dependency of the unit that read it.
- A generator's body runs when it is called, as iterating it would run it: what it yields
  is a list, known when no branch or loop of it was undecided.
- A FastMCP server made from an OpenAPI document (`FastMCP.from_openapi`, an
  `OpenAPIProvider` given to `add_provider`, FastMCP 2's `FastMCPOpenAPI`) lists the
  document's operations as that FastMCP version converts them (`toolgen.read.openapi`); its
  `route_map_fn` and `mcp_component_fn` are run by the interpreter, for each route
  (`openapi_servers`).
- FastMCP's tool transformation (`tool_transforms`): `server.add_transform(T)` of a project
  subclass of FastMCP's `Transform` runs `T.list_tools(tools)` over the server's tools whose
  entries are known data (an OpenAPI document's), given as records of FastMCP's `Tool`
  fields; what it returns replaces them (a record given: unchanged; `Tool.from_tool(...)`:
  a `Transformed` the analysis finishes, `toolgen.analyze.tool_transforms`). So does
  `server.add_tool(Tool.from_tool(await server.get_tool("x"), ...))`, and
  `server.disable(names=...)` hides such tools. Decorated tools are not passed (their
  schemas are the analysis's): a server with both is a note; a transform whose answer, or an
  `ArgTransform` whose option, cannot be known leaves the tools as they were, with a note.
- A low-level SDK server (`mcp.server.Server`, a preset's server class too): the function
  `@server.list_tools()` decorates (mcp 1) or `Server(on_list_tools=...)` names (mcp 2) is
  a `ListedTools` effect; `listed` runs it with unknown arguments once its module is
  loaded, and what it returns is the server's list: `Tool(...)`, `ToolAnnotations(...)` and
  `ListToolsResult(...)` of the SDK made with known arguments are `Record`s, and
  `Model.model_json_schema()` of a project pydantic model is a `SchemaOf` the analysis makes.

- A framework's own registry of a server's tools (`registries`): `mcp._local_provider`
  (FastMCP 3 and later), `mcp._tool_manager` (FastMCP 2, the MCP SDK) is a `Registry`, its
  `_components`/`_tools` a dict of `ToolHandle`s (the tools registered so far). Their
  `parameters`, `output_schema` and `description` are unknown at first: a unit that reads a
  registry is evaluated again once the analysis has made the entries (`edited`), with them
  given as data; what the code leaves in them is what the server lists. A change made in
  branches toolgen cannot choose between, or one it cannot follow, or a bound reached during
  that evaluation, leaves the tools it touched as registered.

What it never does
------------------
Import or execute any of the code it reads; write files, open sockets or subprocesses, or
read a file the project does not hold; follow a value it cannot know. Anything else is
`Unknown(why, where)`: an unknown callee called gives `Unknown`, an unknown value's attribute
is `Unknown`, and a registration whose function is unknown is a located TG106 note, never a
guess.

Bounds
------
A call depth (`MAX_DEPTH`) and the levels of one function's recursion (`MAX_RECURSION`: each
level may call itself more than once), per loop a number of iterations (`MAX_ITERATIONS`), per
unit (a module's top level, or one unreached function: a unit that runs out does not starve the
others) a number of evaluation steps (`MAX_STEPS`; `MAX_UNREACHED_STEPS`, fewer, for an
unreached function; each statement of a module's top level has `MAX_STEPS` of its own: one that
runs out, a class of 100,000 members, leaves what it binds unknown and the next goes on) and a
time budget (`MAX_SECONDS`; all the units of one build together: `MAX_PROJECT_SECONDS`), and
the statements, expressions and calls in progress at once (`MAX_NESTING`, below Python's
recursion limit). Past a depth, recursion, iteration or nesting bound the value being computed
is `Unknown` with a located note that says which bound was reached; past a unit's steps or time
the unit stops there, with such a note (its effects so far are kept). Nothing hangs and no
recursion error escapes. A function called again with arguments that are all unknown is not
evaluated again (it would do the same): its value is `Unknown`. No operation makes a string of
more than `stdlib.MAX_TEXT` characters, an integer of more than `stdlib.MAX_INT_BITS` bits or a
list of more than `stdlib.MAX_ITEMS` items: it is not computed, and its value is `Unknown`.

The value domain (`values`)
---------------------------
`Const` (a constant, or a container of known values: `Seq`, `Mapping`), `Function` (a
`def` or `lambda` with its module, qualname and closure), `Bound` (a method bound to an
instance), `Partial`, `Class`, `Instance` (its attributes), `ModuleValue`, `External` (a name
from an installed package: a path), `Server` (a framework's server object: preset, key, where
made), `Method` (a framework method of a server, or a registration method of an unknown
owner), `Registrar` (`mcp.tool(name=...)`: a server method called with options, waiting for
its function), `ToolOf` (`Tool.from_function(fn, ...)`), `Lister` (`server.list_tools()`,
waiting for its handler), `Record` (an SDK data object: `Tool(...)`; FastMCP's `RouteMap`,
`OpenAPIProvider`, and the route and tool its OpenAPI hooks are given), `SchemaOf`
(`Model.model_json_schema`), `FilePath` and `PathMethod` (a known path, its methods),
`Opened` (a file of the project opened to be read), `ArgParser`, `Super`, `ContainerMethod`
(`TOOLS.append`), `Unknown`.

Effects (`effects`)
-------------------
`Registered` (a function registered with a server, with the call that carries its options and
the options' values), `Mounted` (a server's tools listed by another), `ListedTools` (a
low-level SDK server's handler of `tools/list`), `AnsweredTools` (a server written by hand:
the tools it answers `tools/list` with), `OpenAPITools` (the tools FastMCP converts from an
OpenAPI document, as it lists them; some `Transformed` by the server's transforms), and `Note`s
(`unfollowed`, TG106: what could not be followed, and why; `bound`: a bound reached; `env`:
a read of the process environment).

`toolgen.analyze.registered` turns a unit's effects into the handlers, mounts and listed
tools the compiler compiles. The effects a module's top level causes include registrations
written in other modules that it reaches (a `register(mcp)` defined elsewhere and called
here), with the server and the arguments it passes.
"""

from toolgen.read.registration.evaluation import (
    Evaluation,
    edited,
    evaluate,
    fresh,
    listed,
    run_unit,
    scripts,
    unreached,
)

__all__ = [
    "Evaluation",
    "edited",
    "evaluate",
    "fresh",
    "listed",
    "run_unit",
    "scripts",
    "unreached",
]
