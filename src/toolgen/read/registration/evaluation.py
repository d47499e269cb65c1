"""The entry points: what a module's own top level causes (`evaluate`), and what the functions
nothing evaluated reaches cause when run with unknown arguments (`unreached`).

One `Interpreter` is kept per index, presets and environment (while the index lives): a module
imported by many is evaluated once, and which functions were reached is the project's.
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Iterable, Sequence
from collections.abc import Mapping as MappingABC
from dataclasses import dataclass

from toolgen.read.index import Module, ModuleIndex
from toolgen.read.registration.effects import Effect, Mounted, Note, Registered
from toolgen.read.registration.frameworks import Framework, PresetLike, server_class
from toolgen.read.registration.interpreter import Frame, Interpreter, place
from toolgen.read.registration.values import Class, Function, Instance, Server, Value

_Key = tuple[tuple[Framework, ...], tuple[tuple[str, str], ...]]
_SESSIONS: weakref.WeakKeyDictionary[ModuleIndex, dict[_Key, Interpreter]] = (
    weakref.WeakKeyDictionary()
)


@dataclass(frozen=True)
class Evaluation:
    effects: tuple[Effect, ...]

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
        sessions[key] = Interpreter(index, frameworks, env or {})
    return sessions[key]


def evaluate(
    module: Module,
    index: ModuleIndex,
    presets: Sequence[PresetLike],
    env: MappingABC[str, str] | None = None,
) -> Evaluation:
    """The effects `module`'s own top level causes (those of the modules it imports belong
    to theirs), in the order they happen."""
    return Evaluation(tuple(interpreter(index, presets, env).state(module).effects))


def unreached(
    module: Module,
    index: ModuleIndex,
    presets: Sequence[PresetLike],
    env: MappingABC[str, str] | None = None,
    sources: Iterable[Module] = (),
) -> Evaluation:
    """The effects of `module`'s functions (and methods of its classes) that nothing
    evaluated reaches, each called once with unknown arguments, in source order; a method's
    instance is a fresh one of its class. `sources` (with `module`) are evaluated first: what
    they reach is not evaluated again. A registered function is not evaluated (the framework
    calls it, with a request's arguments)."""
    run = interpreter(index, presets, env)
    for source in sources:
        run.state(source)
    state = run.state(module)
    effects: list[Effect] = []
    for stmt in module.tree.body:
        for function, first in _functions(run, stmt, state.frame):
            node = function.node
            if place(function) in run.reached or place(function) in run.registered:
                continue
            with run.unit(effects, module):
                args = [] if first is None else [first]
                run.call_function(function, args, {}, node, known=False)
    return Evaluation(tuple(effects))


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
