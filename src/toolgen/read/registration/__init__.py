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
- Statements: assignments (names, attributes of instances, subscripts of known containers,
  unpacking), `if`/`while` on known values (an unknown test evaluates both branches and
  joins what they bind), `for` and comprehensions over known iterables (unrolled),
  `try` (the body, then `else`/`finally`; handlers only when the body's value is unknown),
  `with` (its body), `match` on known subjects, `return`, `del`, `global`/`nonlocal`.
- Console scripts: a function named by `[project.scripts]` (or called under
  `if __name__ == "__main__":`) is evaluated too, since the served object is often built
  there.
- Functions nothing evaluated reaches (a `register(mcp)` that only the run time calls, a
  lifespan hook) are evaluated last, once each, with their parameters `Unknown`: there a
  preset's registration method called on an unknown owner (`mcp.tool`, `server.add_tool`)
  still registers, with a server toolgen cannot name, as such code is written for no other
  purpose. Reached functions are never evaluated this way too.
- The process environment is absent: `os.getenv("X", d)`, `os.environ.get("X", d)` and
  `os.environ["X"]` evaluate to the default (what a server started with nothing set
  publishes), or to `[tool.toolgen] env = {X = "..."}` when given; each read is a note.

What it never does
------------------
Import or execute any of the code it reads; open files, sockets or subprocesses; follow a
value it cannot know. Anything else is `Unknown(why, where)`: an unknown callee called gives
`Unknown`, an unknown value's attribute is `Unknown`, and a registration whose function is
unknown is a located TG106 note, never a guess.

Bounds
------
Per project: a call depth (`MAX_DEPTH`), a number of evaluation steps (`MAX_STEPS`) and of
loop iterations (`MAX_ITERATIONS`) and a time budget (`MAX_SECONDS`). Past any of them the value
being computed is `Unknown` with a located note that says which bound was reached; nothing
hangs and no recursion error escapes (frames are evaluated with an explicit stack depth).

The value domain (`values`)
---------------------------
`Const` (a constant, or a container of known values: `Seq`, `Mapping`), `Function` (a
`def` or `lambda` with its module, qualname and closure), `Bound` (a method bound to an
instance), `Partial`, `Class`, `Instance` (its attributes), `ModuleValue`, `External` (a name
from an installed package: a path), `Server` (a framework's server object: preset, key, where
made), `Registrar` (`mcp.tool(name=...)`: a server method called with options, waiting for
its function), `Unknown`.

Effects (`effects`)
-------------------
`Registered` (a function registered with a server, with the call that carries its options and
the options' values), `Mounted` (a server's tools listed by another), `ListedTools` (a
low-level SDK server's `@server.list_tools()` handler: the `Tool(...)` values it returns,
schemas as written), and `Note`s (TG106: what could not be followed, and why).
"""

from toolgen.read.registration.evaluation import Evaluation, evaluate, unreached

__all__ = ["Evaluation", "evaluate", "unreached"]
