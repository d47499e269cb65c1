"""The entry points: what a module's own top level causes (`evaluate`), what the functions its
evaluation does not reach cause when run with unknown arguments (`unreached`), and what a
low-level server's `tools/list` handler returns (`listed`).

One `Interpreter` is kept per index, presets and environment (while the index lives), until
`fresh` forgets it: the compiler evaluates each file's unit from scratch, so that a unit finds
the same whatever units ran before it; within a unit, a module imported by many is evaluated
once. The time of all of an index's units is bounded too (`MAX_PROJECT_SECONDS`).
"""

from __future__ import annotations

import ast
import re
import time
import weakref
from collections.abc import Iterable, Sequence
from collections.abc import Mapping as MappingABC
from dataclasses import dataclass
from typing import Any

from toolgen.read.index import Module, ModuleIndex
from toolgen.read.registration import registries
from toolgen.read.registration.context import Framework, PresetLike
from toolgen.read.registration.effects import Effect, ListedTools, Mounted, Note, Registered
from toolgen.read.registration.frames import Frame, Place, place
from toolgen.read.registration.frameworks import (
    ADD_METHODS,
    MOUNT_METHODS,
    decorator_of,
    factory_of,
    server_class,
)
from toolgen.read.registration.interpreter import (
    MAX_EDIT_STEPS,
    MAX_PROJECT_SECONDS,
    MAX_UNREACHED_STEPS,
    TOOLS_LIST,
    Interpreter,
)
from toolgen.read.registration.values import (
    Class,
    External,
    Function,
    HandleKey,
    Instance,
    Method,
    Registrar,
    Server,
    ToolHandle,
    Unknown,
    Value,
)

_Key = tuple[tuple[Framework, ...], tuple[tuple[str, str], ...]]
_SESSIONS: weakref.WeakKeyDictionary[ModuleIndex, dict[_Key, Interpreter]] = (
    weakref.WeakKeyDictionary()
)
#: When each index's build runs out of time (`MAX_PROJECT_SECONDS`), shared by its sessions.
_DEADLINES: weakref.WeakKeyDictionary[ModuleIndex, float] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Evaluation:
    effects: tuple[Effect, ...]
    #: where the functions the evaluation ran are written (`evaluate`: with what the module
    #: imported)
    reached: frozenset[Place] = frozenset()
    #: for `unreached`: the function each effect's evaluation started from, by id() of the
    #: effect (a registration found there is another unit's when that unit reaches it)
    roots: tuple[tuple[int, Place], ...] = ()

    @property
    def registered(self) -> list[Registered]:
        return [e for e in self.effects if isinstance(e, Registered)]

    @property
    def mounted(self) -> list[Mounted]:
        return [e for e in self.effects if isinstance(e, Mounted)]

    @property
    def notes(self) -> list[Note]:
        return [e for e in self.effects if isinstance(e, Note)]


def interpreter(
    index: ModuleIndex, presets: Sequence[PresetLike], env: MappingABC[str, str] | None = None
) -> Interpreter:
    """The project's interpreter for these presets and this environment (made once)."""
    frameworks = tuple(Framework.of(p) for p in presets)
    key: _Key = (frameworks, tuple(sorted((env or {}).items())))
    sessions = _SESSIONS.setdefault(index, {})
    if key not in sessions:
        deadline = _DEADLINES.setdefault(index, time.monotonic() + MAX_PROJECT_SECONDS)
        sessions[key] = Interpreter(index, frameworks, env or {}, deadline)
    return sessions[key]


def fresh(index: ModuleIndex) -> None:
    """Forget what was evaluated with `index` (not the build's time spent): the next unit
    evaluates every module it imports itself. A module's values may be changed by another
    module's code (`TOOLS.append(f)` from elsewhere): a unit sees them as its own imports
    leave them, whichever units ran before it."""
    _SESSIONS.pop(index, None)


def evaluate(
    module: Module,
    index: ModuleIndex,
    presets: Sequence[PresetLike],
    env: MappingABC[str, str] | None = None,
) -> Evaluation:
    """The effects `module`'s own top level causes (those of the modules it imports belong
    to theirs), in the order they happen."""
    state = interpreter(index, presets, env).state(module)
    return Evaluation(tuple(state.effects), frozenset(state.reached))


def scripts(
    module: Module,
    index: ModuleIndex,
    presets: Sequence[PresetLike],
    env: MappingABC[str, str] | None,
    names: Sequence[str],
) -> Evaluation:
    """What calling each function of `module` that a console script names (`main`,
    `cli.main`: a dotted attribute) with no arguments causes, as the script does, once the
    module is loaded."""
    run = interpreter(index, presets, env)
    state = run.state(module)
    saved = run.reached, run.registered
    run.reached, run.registered = set(), set()
    effects: list[Effect] = []
    try:
        for name in names:
            with run.unit(effects, module):
                first, *rest = name.split(".")
                target = state.frame.names.get(first, Unknown(f"`{first}` is not bound", None))
                for attr in rest:
                    target = run.attribute(target, attr, module.tree)
                node = target.node if isinstance(target, Function) else module.tree
                run.call(target, [], {}, node)
        return Evaluation(tuple(effects), frozenset(run.reached))
    finally:
        run.reached, run.registered = saved


def unreached(
    module: Module,
    index: ModuleIndex,
    presets: Sequence[PresetLike],
    env: MappingABC[str, str] | None = None,
    sources: Iterable[Module] = (),
    reached: Iterable[Place] = (),
) -> Evaluation:
    """The effects of `module`'s functions (and methods of its classes) that the evaluation
    of `module` (and of `sources`, with what they import) does not reach, each called once
    with unknown arguments, in source order; a method's instance is a fresh one of its
    class. Nor is what `reached` names (what the module's console scripts ran). A registered
    function is not evaluated (the framework calls it, with a request's arguments), nor one
    that mentions no registration word (`_vocabulary`): it could register only through
    another function, which is evaluated in its own right (most of a project's functions are
    no registration code, and evaluating each with unknown arguments costs more than all the
    rest)."""
    run = interpreter(index, presets, env)
    saved = run.reached, run.registered
    # what this module's evaluation reached only, and `reached` (its console scripts')
    run.reached, run.registered = set(reached), set()
    try:
        found = _unreached(run, module, sources)
        roots = tuple((id(effect), root) for root, effect in found)
        return Evaluation(tuple(effect for _, effect in found), frozenset(run.reached), roots)
    finally:
        run.reached, run.registered = saved


def _unreached(
    run: Interpreter, module: Module, sources: Iterable[Module]
) -> list[tuple[Place, Effect]]:
    for source in sources:
        run.state(source)
    state = run.state(module)
    found: list[tuple[Place, Effect]] = []
    words = _vocabulary(run, state.frame)
    lines = module.source.splitlines()
    for stmt in module.tree.body:
        for function, first in _functions(run, stmt, state.frame):
            node = function.node
            if place(function) in run.reached or place(function) in run.registered:
                continue
            if not _mentions(lines, node, words):
                continue
            effects: list[Effect] = []
            with run.unit(effects, module, ("MAX_UNREACHED_STEPS", MAX_UNREACHED_STEPS)):
                args = [] if first is None else [first]
                run.call_function(function, args, {}, node, known=False)
            found.extend((place(function), effect) for effect in effects)
    return found


def listed(
    effect: ListedTools,
    index: ModuleIndex,
    presets: Sequence[PresetLike],
    env: MappingABC[str, str] | None = None,
) -> tuple[Value, list[Note]]:
    """What the `tools/list` handler of `effect` returns, run as the SDK runs it (with a
    request toolgen cannot know), once the module that defines it has been evaluated: the
    names it reads are bound by then. And the notes of that evaluation."""
    run = interpreter(index, presets, env)
    effects: list[Effect] = []
    value: Value = Unknown("the evaluation stopped", effect.node)
    with run.unit(effects, effect.function.module):
        value = run.call_function(effect.function, [], {}, effect.node, known=False)
    return value, [e for e in effects if isinstance(e, Note)]


def run_unit(
    module: Module,
    index: ModuleIndex,
    presets: Sequence[PresetLike],
    env: MappingABC[str, str] | None,
    entry_points: Sequence[str],
) -> tuple[Evaluation, Evaluation, Evaluation]:
    """What a file's unit evaluates, in order: `module`'s top level (`evaluate`), the
    functions its console scripts name (`scripts`), then its functions neither reached
    (`unreached`)."""
    evaluation = evaluate(module, index, presets, env)
    started = scripts(module, index, presets, env, entry_points)
    weak = unreached(module, index, presets, env, reached=started.reached)
    return evaluation, started, weak


def edited(
    module: Module,
    index: ModuleIndex,
    presets: Sequence[PresetLike],
    env: MappingABC[str, str] | None,
    entry_points: Sequence[str],
    entries: dict[HandleKey, dict[str, Any]],
) -> tuple[dict[HandleKey, dict[str, Any]], list[ToolHandle]]:
    """`module`'s unit evaluated again (its top level, console scripts and unreached
    functions, as the first time), now with each registered tool's `tools/list` entry
    given (`entries`, by registration): the fields the code changed, by registration, and
    the tools whose entry it changed in ways toolgen cannot know (`registries`)."""
    fresh(index)
    run = interpreter(index, presets, env)
    run.entries = entries
    run.unit_steps = ("MAX_EDIT_STEPS", MAX_EDIT_STEPS)
    try:
        run_unit(module, index, presets, env, entry_points)
        return registries.edits(run)
    finally:
        fresh(index)  # the next unit starts from nothing, as it always does


def _functions(
    run: Interpreter, stmt: ast.stmt, frame: Frame
) -> list[tuple[Function, Value | None]]:
    """The functions `stmt` defines at module level, and the methods of the class it
    defines, with the instance a method is called on."""
    names = frame.names
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        value = names.get(stmt.name)
        if isinstance(value, Function) and value.node is stmt:
            return [(value, None)]
        return [(Function(stmt, frame.module, stmt.name, frame), None)]  # rebound since
    if not isinstance(stmt, ast.ClassDef):
        return []
    cls = names.get(stmt.name)
    if not isinstance(cls, Class) or cls.node is not stmt:
        return []
    framework = server_class(run, cls)
    instance: Value = Server(framework.name, stmt, cls.module, cls) if framework else Instance(cls)
    found: list[tuple[Function, Value | None]] = []
    for value in cls.namespace.values():
        if isinstance(value, Function) and value.in_class:
            found.append((value, None if value.kind == "static" else instance))
    return found


def _vocabulary(run: Interpreter, frame: Frame) -> re.Pattern[str]:
    """The words a registration is written with: the presets' registration methods (and, for
    the MCP SDK, the request `tools/list` a server written by hand answers), the
    last part of their decorator functions and server classes, and the module's own names
    bound to a server, a server class, a tool class or a decorator of theirs (`from fastmcp
    import FastMCP as F`, `mcp = F()`)."""
    words = set(ADD_METHODS | MOUNT_METHODS)
    if any(framework.name == "mcp" for framework in run.frameworks):
        words.add(TOOLS_LIST)  # a server written by hand answers it
    for framework in run.frameworks:
        words |= framework.methods
        words |= {path.rpartition(".")[2] for path in framework.functions | framework.factories}
    for name, value in frame.names.items():
        if _registers(run, value):
            words.add(name)
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in sorted(words)) + r")\b")


def _registers(run: Interpreter, value: Value) -> bool:
    """Whether `value` is a server, a preset's server class or decorator, a method, or a tool
    class (`toolgen.read.tool_classes`)."""
    if isinstance(value, External):
        return bool(decorator_of(run, value.path) or factory_of(run, value.path))
    if isinstance(value, Class):  # a tool class too: a construction of it makes a tool
        return server_class(run, value) is not None or id(value.node) in run.tool_classes
    return isinstance(value, Server | Method | Registrar)


def _mentions(lines: list[str], node: ast.AST, words: re.Pattern[str]) -> bool:
    """Whether the source of `node` (in `lines`, its module's) has one of `words` (its text
    is searched, not its tree: this is asked of every function of a project, and most say
    no)."""
    first, last = getattr(node, "lineno", 1), getattr(node, "end_lineno", None)
    return any(words.search(line) for line in lines[first - 1 : last])
