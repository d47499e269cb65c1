"""The evaluator: statements and expressions of the project's modules, over `values`.

Frames are explicit (`Frame`: the names a module, class body, function call or comprehension
binds, and the frame names are looked up in next). Every evaluation of a statement, an
expression or a call goes through `_enter` first, which counts the Python stack it stands on
(`MAX_NESTING`), the calls (`MAX_DEPTH`), the steps (`MAX_STEPS`) and the time
(`MAX_SECONDS`) of the unit being evaluated: past one, the value is `Unknown` with a note, or
the unit stops with one; no recursion error and no endless loop escapes.
"""

from __future__ import annotations

import ast
import builtins
import os
import sys
import time
import weakref
from collections.abc import Iterator, Sequence
from collections.abc import Mapping as MappingABC
from contextlib import contextmanager
from typing import Any, Literal

from toolgen.read.index import Module, ModuleIndex, _absolute, canonical_external
from toolgen.read.registration import (
    cli_args,
    data,
    files,
    frameworks,
    operators,
    registries,
    stdlib,
)
from toolgen.read.registration.context import Framework, shown
from toolgen.read.registration.effects import (
    AnsweredTools,
    Effect,
    ListedTools,
    Note,
    NoteKind,
    Registered,
    ToolClassMade,
)
from toolgen.read.registration.frames import (
    BREAK,
    CONTINUE,
    FAILED,
    RAISE,
    Break,
    Continue,
    Frame,
    ModuleState,
    OutOfBudget,
    Place,
    Raise,
    Raising,
    Return,
    Signal,
    bind_member,
    is_generator,
    join,
    join_names,
    load,
    made_by_class,
    name_of,
    place,
)
from toolgen.read.registration.values import (
    ArgParser,
    Bound,
    Class,
    Const,
    ContainerMethod,
    External,
    FilePath,
    Function,
    HandleKey,
    Instance,
    Lister,
    Mapping,
    Method,
    ModuleValue,
    Opened,
    ParserMethod,
    Partial,
    PathMethod,
    Record,
    Registrar,
    Registry,
    SchemaOf,
    Seq,
    Server,
    Super,
    ToolHandle,
    Unknown,
    Value,
)
from toolgen.read.tool_classes import ToolClass, Unfollowed, tool_class

#: What a request is called, as a function of an HTTP package or a method of its client.
VERBS = ("get", "post", "put", "patch", "delete", "head", "options", "request", "send", "stream")
#: The clients whose requests go over the network, by the paths of their classes.
NETWORK_CLIENTS = frozenset(
    {
        *(f"{p}.{c}" for p in ("httpx", "httpx2") for c in ("Client", "AsyncClient")),
        "requests.Session",
        "requests.sessions.Session",
        "aiohttp.ClientSession",
    }
)
#: Calls that reach over the network: they raise, since the server is read as it starts with
#: none (as the environment is read empty), so a `try` falls back to its handler.
NETWORK = frozenset(
    f"{owner}.{verb}"
    for owner in ("httpx", "httpx2", "requests", *NETWORK_CLIENTS)
    for verb in VERBS
) | {"urllib.request.urlopen", "socket.create_connection"}
#: What imports a module by its name, or lists a folder's modules.
IMPORTERS = frozenset({"importlib.import_module", "pkgutil.iter_modules"})
#: What `functools.update_wrapper` copies onto the wrapper (`functools.WRAPPER_ASSIGNMENTS`).
WRAPPER_ASSIGNMENTS = frozenset({"__name__", "__qualname__", "__doc__", "__module__"})
#: A server's private registries of its tools (the MCP SDK's and FastMCP 2's `_tool_manager`,
#: FastMCP 3's `_local_provider`): code that reaches into one may change the tools.
TOOL_REGISTRIES = frozenset({"_tool_manager", "_local_provider", "_providers"})
#: Standard modules whose attributes are those of any Python's (`getattr(sys, "frozen",
#: False)` is False where a server runs from its package, as toolgen reads it).
PLAIN_MODULES = {"sys": sys, "os": os}
#: Decorators that make a class a record (its `__init__` sets its annotated fields).
RECORD_DECORATORS = frozenset({"dataclass", "define", "frozen", "attrs"})
#: Base classes that do the same, by path.
RECORD_BASES = frozenset({"typing.NamedTuple", "pydantic.BaseModel", "pydantic.main.BaseModel"})
#: Functions one evaluated scope marks as called (`mark_called`), through the calls of the
#: functions it calls.
MAX_MARKED = 10_000
#: pydantic's model class, by the paths a project imports it with.
PYDANTIC_MODELS = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})
#: Calls in progress at once (a recursion past it is cut with a note).
MAX_DEPTH = 24
#: Calls of one function in progress at once: a recursion is cut there (each level may call
#: itself more than once: the calls grow as a power of it). One that walks known data (a
#: dict or list among its arguments, none unknown) ends with the data, within `MAX_DEPTH`.
MAX_RECURSION = 3
#: Statements, expressions and calls in progress at once: each stands on a few Python frames,
#: and Python's recursion limit (1000) must never be reached.
MAX_NESTING = 150
#: Evaluation steps of one unit (a module's top level, or one unreached function).
MAX_STEPS = 200_000
#: The same, when the unit runs again to follow what it does to its tools' schemas
#: (`registries`): walking the schemas of many tools of large models takes many more.
MAX_EDIT_STEPS = 2_000_000
#: Evaluation steps of one unreached function: such a function registers a few tools or
#: none, and most are not registration code at all (a helper that builds 10,000 things).
MAX_UNREACHED_STEPS = 20_000
#: Iterations of one loop or comprehension.
MAX_ITERATIONS = 10_000
#: Seconds one unit may take.
MAX_SECONDS = 5.0
#: Seconds all the units of one build (one process) may take: past it, each unit stops at
#: once, with a note (a build of many files that each use their time still ends).
MAX_PROJECT_SECONDS = 60.0


#: The constructor keywords of a tool class that describe the tool it makes.
CONSTRUCTED = ("name", "description")


class Interpreter:
    """One project's evaluation: each module's top level once, shared by every unit."""

    def __init__(
        self,
        index: ModuleIndex,
        frameworks: Sequence[Framework],
        env: MappingABC[str, str],
        project_deadline: float | None = None,
    ) -> None:
        self.index = index
        #: when the build's time (`MAX_PROJECT_SECONDS`) runs out, by `time.monotonic()`
        self.project_deadline = project_deadline or time.monotonic() + MAX_PROJECT_SECONDS
        self.frameworks: Sequence[Framework] = tuple(frameworks)
        self.env = dict(env)
        self.states: dict[tuple[str, str], ModuleState] = {}
        self._by_object: dict[int, ModuleState] = {}  # the same, by the module object's id
        #: where the functions whose bodies ran, and those registered, are written (a file
        #: listed as a source under another module name is the same function), in the
        #: module being evaluated and what it imported (`ModuleState`)
        self.reached: set[Place] = set()
        self.registered: set[Place] = set()
        self.stack: list[ast.AST] = []  # the functions being called, outermost first
        #: functions the unit evaluated once with arguments all unknown: again, they would do
        #: the same (a helper called from many places costs once, not once per path to it).
        #: Per unit: what a unit finds does not depend on the units evaluated before it.
        self.blind: set[Place] = set()
        self._noted: set[tuple[str, str, int]] = set()  # the notes of the unit
        self.sink: list[Effect] = []
        self.depth = 0
        self.nesting = 0
        self.steps = 0
        self.max_steps = ("MAX_STEPS", MAX_STEPS)
        self.unit_steps = ("MAX_STEPS", MAX_STEPS)  # what a unit may take, by default
        self.deadline = time.monotonic() + MAX_SECONDS
        self.unknowns = 0  # how many unknown values were made (a `try` body's failures)
        #: what the generators being run have yielded (None: not known)
        self.yielded: list[list[Value] | None] = []
        self.blind_loops = 0  # loops run once over what toolgen cannot know
        self.trying = 0  # the `try` bodies with handlers being evaluated (`fails`)
        #: how many undecided branches left a loop or a function while others did not
        self.undecided_exits = 0
        self._site: list[Module] = []
        #: each registered tool's `tools/list` entry, when the analysis has made them and
        #: the unit runs again to follow what its code does to them (`registries`)
        self.entries: dict[HandleKey, dict[str, Any]] | None = None
        #: the registered tools whose entry the code read or set, by id()
        self.touched: dict[int, ToolHandle] = {}
        #: containers changed where toolgen cannot tell whether the change runs (in one of
        #: branches it cannot choose between), or changed in a way it cannot follow, by id();
        #: kept while `entries` are given
        self.tainted: set[int] = set()
        self.forking = 0  # the undecided branches being evaluated
        #: the branch of each undecided choice being evaluated (`Registered.branches`), and
        #: how many such choices were made
        self.branch_path: list[tuple[int, int]] = []
        self.choices = 0
        #: the choice just made, when some of its branches left the block and others did
        #: not (`block` continues in the branch that falls through)
        self.fell_through: tuple[int, int] | None = None
        self.bounded = False  # a bound was reached: what the code did may be cut short
        #: the tool classes made so far, by id() of their class statement: the class, its
        #: preset and qualified name (a construction of one makes a tool of its own)
        self.tool_classes: dict[int, tuple[ToolClass, str, str]] = {}

    # -- the Context frameworks and stdlib need -------------------------------------------
    @property
    def site(self) -> Module:
        return self._site[-1]

    @property
    def branches(self) -> tuple[tuple[int, int], ...]:
        return tuple(self.branch_path)

    def record(self, effect: Effect) -> None:
        if isinstance(effect, Registered | ListedTools):
            self.registered.add(place(effect.function))
        self.sink.append(effect)

    def recorded(self) -> list[Effect]:
        return self.sink

    def note(self, kind: NoteKind, message: str, node: ast.AST | None) -> Unknown:
        self.bounded = self.bounded or kind == "bound"
        key = (kind, message, id(node))
        if key not in self._noted:  # a loop or a recursion says it once
            self._noted.add(key)
            self.sink.append(Note(kind, message, self.site, node))
        if kind == "env":  # a read of the environment: its value is known (the default)
            return Unknown(message, node)
        return self.unknown(message, node)

    def unknown(self, why: str, node: ast.AST | None) -> Unknown:
        self.unknowns += 1
        return Unknown(why, node)

    # -- units ------------------------------------------------------------------------------
    @contextmanager
    def unit(
        self, sink: list[Effect], module: Module, steps: tuple[str, int] | None = None
    ) -> Iterator[None]:
        """Evaluate a unit: its effects go to `sink`, with budgets of its own (`steps`: the
        bound's name and value)."""
        saved = (
            self.sink,
            self.steps,
            self.deadline,
            self.depth,
            self._noted,
            self.max_steps,
            self.blind,
        )
        self.sink, self.steps, self._noted = sink, 0, set()
        self.max_steps = steps or self.unit_steps
        self.blind = set()
        self.deadline = min(time.monotonic() + MAX_SECONDS, self.project_deadline)
        self._site.append(module)
        try:
            yield
        except OutOfBudget as exc:
            self.note("bound", f"evaluation stopped here: {exc.why}", exc.node)
        except Raising:  # a function the unit called raised: what it did so far stands
            pass
        except RecursionError:  # a safety net: MAX_NESTING is meant to come first
            self.note("bound", "evaluation stopped: Python's recursion limit", None)
        finally:
            self._site.pop()
            (
                self.sink,
                self.steps,
                self.deadline,
                self.depth,
                self._noted,
                self.max_steps,
                self.blind,
            ) = saved

    def state(self, module: Module) -> ModuleState:
        """`module` evaluated (once): a module met again while being evaluated gives what it
        has bound so far, as Python's import does."""
        state = self._by_object.get(id(module))
        if state is None or state.module is not module:
            state = self.states.get((module.name, str(module.path)))
        if state is None:
            state = self._evaluate(module)
        self._by_object[id(module)] = state
        self.reached |= state.reached
        self.registered |= state.registered
        self.index.touched.update(state.touched)
        return state

    def _evaluate(self, module: Module) -> ModuleState:
        """`module`'s top level, as a unit with what it reaches, registers and looks up."""
        frame = Frame(module, {}, None)
        state = self.states[(module.name, str(module.path))] = ModuleState(module, frame)
        saved = self.reached, self.registered
        self.reached, self.registered = state.reached, state.registered
        try:
            with self.index.tracking() as touched, self.unit(state.effects, module):
                state.touched = touched
                for stmt in module.tree.body:
                    self.top_level(stmt, frame)
                self.mark_called(module.tree, frame)
        finally:
            self.reached, self.registered = saved
        state.done = True
        return state

    def top_level(self, stmt: ast.stmt, frame: Frame) -> None:
        """One statement of a module's top level. One that runs out of steps (a class of
        100,000 members) costs what it binds, which is then unknown, not the statements
        after it: they get steps of their own. The unit's time still bounds them all."""
        try:
            self.statement(stmt, frame)
        except OutOfBudget as exc:
            if exc.timed:
                raise
            self.note("bound", f"evaluation of this statement stopped: {exc.why}", exc.node)
            for name in _bound_names(stmt):
                frame.names[name] = self.unknown(exc.why, stmt)
            self.steps = 0

    def mark_called(self, scope: ast.AST, frame: Frame) -> None:
        """Count as reached the project's functions that the code of `scope` (a function
        run, or a module's top level) calls by a name bound in `frame`, in branches that ran
        or not, and those these call in turn (at most `MAX_MARKED`): the caller decides
        whether and how they run, so they are not also run with arguments unknown
        (`unreached`), where they would register what the caller did not (an
        `if profile == "all":` the caller's arguments leave out)."""
        pending: list[tuple[ast.AST, Frame]] = [(scope, frame)]
        marked = 0
        while pending and marked < MAX_MARKED:
            code, names = pending.pop()
            callees, imports = _callees(code)
            for callee in callees:
                value: Value | None = None
                if isinstance(callee, ast.Name):
                    value = self.name_called(callee.id, names, imports)
                elif isinstance(callee.value, ast.Name):
                    owner = self.name_called(callee.value.id, names, imports)
                    if isinstance(owner, ModuleValue):
                        state = self.state(owner.module)
                        value = state.frame.names.get(callee.attr)
                if isinstance(value, Function) and place(value) not in self.reached:
                    # what it calls is the caller's to decide too, had it run
                    self.reached.add(place(value))
                    pending.append((value.node, value.closure))
                    marked += 1

    def name_called(self, name: str, frame: Frame, imports: Imports) -> Value | None:
        """What `name` is where a call uses it, without evaluating the code around the call:
        bound in `frame`, or imported by the calling code itself (`from m import f`, run
        only when that branch runs) from a project module."""
        value = _bound(name, frame)
        if value is None and name in imports:
            (level, written), attr = imports[name]
            state = self.project_module(_absolute(frame.module, level, written))
            if state is not None:
                value = self.module_attribute(state, attr, state.module.tree)
        return None if isinstance(value, Unknown) else value

    def project_module(self, name: str) -> ModuleState | None:
        module = self.index.get(name)
        if module is None or module.library:
            return None
        return self.state(module)

    def imported(self, name: str) -> ModuleState | None:
        """`project_module(name)` after the packages above it, as an import runs them."""
        parts = name.split(".")
        for i in range(1, len(parts)):
            self.project_module(".".join(parts[:i]))
        return self.project_module(name)

    # -- guards ---------------------------------------------------------------------------
    def in_time(self, node: ast.AST) -> None:
        """`OutOfBudget` past the unit's time. `_enter` asks every 1024 steps; a step that
        may take long on its own (a data file loaded, a folder listed: one step each) asks
        when it is done, or a loop of them would run 1024 before the time is looked at."""
        if time.monotonic() > self.deadline:
            spent = f"MAX_SECONDS = {MAX_SECONDS} seconds"
            if self.deadline >= self.project_deadline:
                spent = f"MAX_PROJECT_SECONDS = {MAX_PROJECT_SECONDS} seconds for all files"
            raise OutOfBudget(f"more than {spent}", node, timed=True)

    def _enter(self, node: ast.AST) -> bool:
        """Count a step and a level of nesting (the caller leaves it: `self.nesting -= 1`);
        False, and no level, when too deeply nested. (Not a context manager: this runs for
        every expression, and one costs a third of the evaluation.)"""
        self.steps += 1
        if self.steps > self.max_steps[1]:
            name, most = self.max_steps
            raise OutOfBudget(f"more than {name} = {most} evaluation steps", node)
        if not self.steps % 1024:
            self.in_time(node)
        if self.nesting >= MAX_NESTING:
            self.note("bound", f"nested more than MAX_NESTING = {MAX_NESTING} deep", node)
            return False
        self.nesting += 1
        return True

    # -- statements ---------------------------------------------------------------------------
    def block(self, body: list[ast.stmt], frame: Frame) -> Signal:
        depth = len(self.branch_path)
        try:
            for stmt in body:
                signal = self.statement(stmt, frame)
                if signal is not None:
                    return signal
                if self.fell_through is not None:
                    # some branches of that choice left: what follows runs in the others
                    self.branch_path.append(self.fell_through)
                    self.fell_through = None
            return None
        finally:
            self.fell_through = None
            del self.branch_path[depth:]

    def statement(self, stmt: ast.stmt, frame: Frame) -> Signal:
        if not self._enter(stmt):
            return None
        try:
            return self._statement(stmt, frame)
        except Raising:
            return FAILED
        finally:
            self.nesting -= 1

    def _statement(self, stmt: ast.stmt, frame: Frame) -> Signal:
        if isinstance(stmt, ast.Expr):
            self.expr(stmt.value, frame)
        elif isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value, frame)
            for target in stmt.targets:
                self.assign(target, value, frame)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign(stmt.target, self.expr(stmt.value, frame), frame)
        elif isinstance(stmt, ast.AugAssign):
            current = self.expr(load(stmt.target), frame)
            value = operators.binary(stmt.op, current, self.expr(stmt.value, frame), stmt)
            self.assign(stmt.target, value, frame)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self.define_function(stmt, frame)
        elif isinstance(stmt, ast.ClassDef):
            self.define_class(stmt, frame)
        elif isinstance(stmt, ast.Return):
            return Return(Const(None) if stmt.value is None else self.expr(stmt.value, frame))
        elif isinstance(stmt, ast.If):
            truth = self.truth(self.expr(stmt.test, frame))
            if truth is None:
                return self.fork([stmt.body, stmt.orelse], frame)
            return self.block(stmt.body if truth else stmt.orelse, frame)
        elif isinstance(stmt, ast.For | ast.AsyncFor):
            return self.for_loop(stmt, frame)
        elif isinstance(stmt, ast.While):
            return self.while_loop(stmt, frame)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            return self.try_statement(stmt, frame)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                entered = self.expr(item.context_expr, frame)
                if item.optional_vars is not None:
                    client = isinstance(entered, Unknown) and entered.made_by in NETWORK_CLIENTS
                    if not (isinstance(entered, Opened) or client):  # `__enter__` gives itself
                        why = "what a `with` statement's `__enter__` gives"
                        entered = self.unknown(why, item)
                    self.assign(item.optional_vars, entered, frame)
            return self.block(stmt.body, frame)
        elif isinstance(stmt, ast.Match):
            return self.match(stmt, frame)
        elif isinstance(stmt, ast.Import):
            self.import_names(stmt, frame)
        elif isinstance(stmt, ast.ImportFrom):
            self.import_from(stmt, frame)
        elif isinstance(stmt, ast.Global):
            frame.declared_global.update(stmt.names)
        elif isinstance(stmt, ast.Nonlocal):
            frame.declared_nonlocal.update(stmt.names)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    self.scope_of(target.id, frame).names.pop(target.id, None)
                elif isinstance(target, ast.Subscript):
                    owner = self.expr(target.value, frame)
                    self.del_item(owner, self.expr(target.slice, frame))
        elif isinstance(stmt, ast.Raise):
            if stmt.exc is not None:
                self.expr(stmt.exc, frame)
            return RAISE
        elif isinstance(stmt, ast.Break):
            return BREAK
        elif isinstance(stmt, ast.Continue):
            return CONTINUE
        return None

    def fork(self, branches: list[list[ast.stmt]], frame: Frame) -> Signal:
        """Branches toolgen cannot choose between: each is evaluated from the same names, and
        the names after are what they agree on (`join`). Every branch's effects count."""
        before = dict(frame.names)
        after: list[dict[str, Value]] = []
        signals: list[Signal] = []
        self.forking += len(branches) > 1
        self.choices += 1
        choice = self.choices
        try:
            for at, body in enumerate(branches):
                frame.names.clear()
                frame.names.update(before)
                self.branch_path.append((choice, at))
                try:
                    signals.append(self.block(body, frame))
                finally:
                    self.branch_path.pop()
                after.append(dict(frame.names))
        finally:
            self.forking -= len(branches) > 1
        frame.names.clear()
        frame.names.update(join_names(after, self.unknown))
        if len({type(s) for s in signals}) > 1:
            self.undecided_exits += 1
            self.fell_through = (choice, len(branches))
        returned = [s.value for s in signals if isinstance(s, Return)]
        if len(returned) == len(signals):
            return Return(join(returned, self.unknown))
        frame.maybe_returned.extend(returned)
        if all(s is FAILED for s in signals):
            return FAILED
        if all(isinstance(s, Raise) for s in signals):
            return RAISE
        kinds = {type(s) for s in signals}
        if len(kinds) == 1 and isinstance(signals[0], Break | Continue):
            return signals[0]
        return None

    def for_loop(self, stmt: ast.For | ast.AsyncFor, frame: Frame) -> Signal:
        found = stdlib.items(self.expr(stmt.iter, frame))
        if found is None:  # once, with what it runs over unknown: its registrations count
            self.blind_loops += 1
            why = "the item of a loop over values toolgen cannot know"
            self.assign(stmt.target, self.unknown(why, stmt.iter), frame)
            signal = self.block(stmt.body, frame)
            return signal if isinstance(signal, Return | Raise) else None
        for count, item in enumerate(found):
            if count >= MAX_ITERATIONS:
                self.note("bound", f"a loop past MAX_ITERATIONS = {MAX_ITERATIONS}", stmt)
                return None
            self.assign(stmt.target, item, frame)
            signal = self.block(stmt.body, frame)
            if isinstance(signal, Break):
                return None
            if isinstance(signal, Return | Raise):
                return signal
        return self.block(stmt.orelse, frame)

    def while_loop(self, stmt: ast.While, frame: Frame) -> Signal:
        for _ in range(MAX_ITERATIONS):
            truth = self.truth(self.expr(stmt.test, frame))
            if truth is False:
                return self.block(stmt.orelse, frame)
            exits = self.undecided_exits
            signal = self.block(stmt.body, frame)
            if isinstance(signal, Break):
                return None
            if isinstance(signal, Return | Raise):
                return signal
            if truth is None or self.undecided_exits != exits:
                return None  # once: how often it runs is the run time's (`if not token: break`)
        self.note("bound", f"a loop past MAX_ITERATIONS = {MAX_ITERATIONS}", stmt)
        return None

    def try_statement(self, stmt: ast.stmt, frame: Frame) -> Signal:
        body: list[ast.stmt] = getattr(stmt, "body", [])
        handlers: list[ast.ExceptHandler] = getattr(stmt, "handlers", [])
        orelse: list[ast.stmt] = getattr(stmt, "orelse", [])
        finalbody: list[ast.stmt] = getattr(stmt, "finalbody", [])
        unknowns = self.unknowns
        self.trying += bool(handlers)
        try:
            signal = self.block(body, frame)
        finally:
            self.trying -= bool(handlers)
        if isinstance(signal, Raise) and handlers:
            failed = signal is FAILED
            signal = self.fork([h.body for h in handlers], frame)
            if failed and isinstance(signal, Raise):
                # the body fails where the server starts, and every handler raises on (an
                # error of the project's own, `raise McpError(...) from exc`): so does this
                signal = FAILED
        elif signal is None and handlers and self.unknowns != unknowns:
            # the body made something toolgen cannot know: it may have raised
            signal = self.fork([orelse, *(h.body for h in handlers)], frame)
        elif signal is None:
            signal = self.block(orelse, frame)
        after = self.block(finalbody, frame)
        return after if after is not None else signal

    def match(self, stmt: ast.Match, frame: Frame) -> Signal:
        subject = self.expr(stmt.subject, frame)
        undecided: list[list[ast.stmt]] = []
        for case in stmt.cases:
            matched = self.matches(case.pattern, subject, frame)
            if matched is False:
                continue
            if case.guard is not None:
                guard = self.truth(self.expr(case.guard, frame))
                if guard is False:
                    continue
                matched = matched and guard
            if matched is True and not undecided:
                return self.block(case.body, frame)
            undecided.append(case.body)
            if matched is True:
                break
        return self.fork(undecided, frame) if undecided else None

    def matches(self, pattern: ast.pattern, subject: Value, frame: Frame) -> bool | None:
        if isinstance(pattern, ast.MatchAs) and pattern.pattern is None:
            if pattern.name:
                self.assign(ast.Name(pattern.name, ast.Store()), subject, frame)
            return True
        if isinstance(pattern, ast.MatchValue | ast.MatchSingleton):
            expected = (
                self.expr(pattern.value, frame)
                if isinstance(pattern, ast.MatchValue)
                else Const(pattern.value)
            )
            if isinstance(subject, Const) and isinstance(expected, Const):
                return bool(subject.value == expected.value)
        return None

    # -- definitions ----------------------------------------------------------------------
    def closure_of(self, frame: Frame) -> Frame:
        """The frame a function defined in `frame` closes over: not a class body."""
        while frame.class_node is not None and frame.parent is not None:
            frame = frame.parent
        return frame

    def define_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, frame: Frame) -> None:
        decorators = [self.expr(d, frame) for d in node.decorator_list]
        positional = node.args.defaults
        defaults = tuple(self.expr(d, frame) for d in positional)
        kw_defaults = tuple(
            (arg.arg, self.expr(d, frame))
            for arg, d in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True)
            if d is not None
        )
        names = {name_of(d) for d in node.decorator_list}
        kind: Literal["function", "static", "class"] = "function"
        if "staticmethod" in names or "classmethod" in names:
            kind = "static" if "staticmethod" in names else "class"
        value: Value = Function(
            node,
            frame.module,
            frame.prefix + node.name,
            self.closure_of(frame),
            defaults,
            kw_defaults,
            in_class=frame.class_node is not None,
            kind=kind,
            owner=frame.class_node,
        )
        value = self.decorate(value, decorators, node.decorator_list, frame)
        self.bind(node.name, value, frame)

    def decorate(
        self, value: Value, decorators: list[Value], nodes: list[ast.expr], frame: Frame
    ) -> Value:
        """Decorators applied bottom-up, as calls. One toolgen cannot know (from outside the
        project, unknown, or a framework method that does not register) is taken to give back
        what it is given, as `functools.wraps` decorators do: the function stays nameable."""
        for decorator, node in zip(reversed(decorators), reversed(nodes), strict=True):
            if name_of(node) in ("staticmethod", "classmethod", "property"):
                continue
            result = self.call(decorator, [value], {}, node)
            transparent = isinstance(decorator, External | Unknown | Method)
            if isinstance(result, Unknown) and transparent:
                continue
            value = result
        return value

    def define_class(self, node: ast.ClassDef, frame: Frame) -> None:
        decorators = [self.expr(d, frame) for d in node.decorator_list]
        bases = tuple(self.expr(b, frame) for b in node.bases)
        keywords = {k.arg: self.expr(k.value, frame) for k in node.keywords}
        qualname = frame.prefix + node.name
        body = Frame(frame.module, {}, frame, f"{qualname}.", class_node=node)
        self.block(node.body, body)
        made = Class(node, frame.module, qualname, bases, body.names)
        self.made_tool_class(node, frame.module, qualname)
        self.init_subclass(made, keywords, node)
        value = self.decorate(made, decorators, node.decorator_list, frame)
        self.bind(node.name, value, frame)

    def made_tool_class(self, node: ast.ClassDef, module: Module, qualname: str) -> None:
        """A class statement that makes a framework's tool class (LangChain's tools derive
        from its `BaseTool`): the class is a tool."""
        for framework in self.frameworks:
            if not framework.tool_bases or not node.bases:
                continue
            try:
                found = tool_class(module, node, self.index, framework.tool_bases)
            except Unfollowed as exc:  # told only of a class that runs as a tool would
                if ToolClass(exc.chain, "").binding("_run") is not None:
                    message = f"`{node.name}` may be a tool class, not followed: {exc.why}"
                    self.note("unfollowed", message, node)
                continue
            if found is not None:
                self.tool_classes[id(node)] = (found, framework.name, qualname)
                made = ToolClassMade(
                    found, framework.name, module, qualname, branches=self.branches
                )
                self.record(made)
                return

    def constructed_tool(
        self, made_as: tuple[ToolClass, str, str], kwargs: dict[str, Value], node: ast.expr
    ) -> None:
        """A tool class constructed with what describes the tool (`SearchTool(name="x")`):
        that is a tool of its own, as the framework builds it."""
        given = tuple((k, v) for k, v in kwargs.items() if k in CONSTRUCTED)
        if not given:
            return
        tool, preset, qualname = made_as
        made = ToolClassMade(tool, preset, self.site, qualname, node, given, self.branches)
        self.record(made)

    def init_subclass(
        self, cls: Class, keywords: dict[str | None, Value], node: ast.ClassDef
    ) -> None:
        """What making `cls` runs, as Python runs it: the `__init_subclass__` of the nearest
        project class it derives from (a class method, whatever its decorator), with the
        class statement's keywords but `metaclass` (a base that registers every subclass
        as a tool)."""
        if None in keywords:  # `class C(Base, **options)`: what it passes cannot be known
            return
        for base in self.mro(cls)[1:]:
            hook = base.namespace.get("__init_subclass__")
            if hook is None:
                continue
            if isinstance(hook, Function) and hook.kind != "static":
                given = {str(k): v for k, v in keywords.items() if k != "metaclass"}
                self.call(Bound(hook, cls), [], given, node)
            return

    # -- names ----------------------------------------------------------------------------
    def module_frame(self, frame: Frame) -> Frame:
        while frame.parent is not None:
            frame = frame.parent
        return frame

    def scope_of(self, name: str, frame: Frame) -> Frame:
        """The frame an assignment to `name` in `frame` binds in."""
        if name in frame.declared_global:
            return self.module_frame(frame)
        if name in frame.declared_nonlocal:
            outer = frame.parent
            while outer is not None and not outer.is_module:
                if name in outer.names:
                    return outer
                outer = outer.parent
        return frame

    def bind(self, name: str, value: Value, frame: Frame) -> None:
        scope = self.scope_of(name, frame)
        scope.names[name] = value
        if scope.is_module and isinstance(value, Server) and not value.keys:
            value.keys.append(f"{scope.module.name}.{name}")  # how `server_key` names it
        elif isinstance(value, Server) and not value.local and scope.function is not None:
            # a server a function builds (`mcp = FastMCP(...)` in `build_server()`) is that
            # server wherever it goes: what is mounted into it is listed by it
            value.local.append(f"{scope.module.name}.{scope.function.qualname}.{name}")

    def lookup(self, name: str, frame: Frame, node: ast.AST) -> Value:
        scope = self.module_frame(frame) if name in frame.declared_global else frame
        found = _bound(name, scope)
        if found is not None:
            return found
        if name == "__file__":  # where the module is: data files are found beside it
            return Const(str(frame.module.path))
        if name == "__package__":  # the package a module is in (a package: itself)
            module = frame.module
            return Const(module.name if module.is_package else module.name.rpartition(".")[0])
        if name in ("__name__", "__spec__"):
            return self.unknown(f"`{name}` is set when the module runs", node)
        module = frame.module
        for star in module.star_imports:
            if self.index.get(star) is None:  # `from elsewhere import *`: cannot list it
                return External(canonical_external(f"{star}.{name}"))
        if hasattr(builtins, name):
            return External(f"builtins.{name}")
        return self.unknown(f"`{name}` is not bound where it is used", node)

    def assign(self, target: ast.expr, value: Value, frame: Frame) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value, frame)
        elif isinstance(target, ast.Attribute):
            self.set_attribute(self.expr(target.value, frame), target.attr, value, target)
        elif isinstance(target, ast.Subscript):
            self.set_item(self.expr(target.value, frame), self.expr(target.slice, frame), value)
        elif isinstance(target, ast.Tuple | ast.List):
            self.unpack(target.elts, value, frame)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value, frame)

    def unpack(self, targets: list[ast.expr], value: Value, frame: Frame) -> None:
        found = stdlib.items(value)
        starred = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
        if found is None or (not starred and len(found) != len(targets)):
            why = "a part of a value toolgen cannot know"
            for target in targets:
                self.assign(target, self.unknown(why, target), frame)
            return
        if starred:
            at = starred[0]
            tail = len(targets) - at - 1
            middle = Seq(found[at : len(found) - tail], "list")
            found = [*found[:at], middle, *found[len(found) - tail :]]
        for target, item in zip(targets, found, strict=False):
            self.assign(target, item, frame)

    def set_attribute(
        self, owner: Value, attr: str, value: Value, node: ast.AST | None = None
    ) -> None:
        if attr == "__signature__" and isinstance(owner, Function | Bound):
            function = owner.function if isinstance(owner, Bound) else owner
            self.note(
                "remade",
                f"`{function.qualname}.__signature__` is set here: a framework reads the "
                "tool's parameters from it, toolgen from the `def` (its schema may differ)",
                node,
            )
        if isinstance(owner, ToolHandle):
            registries.touched(self, owner)
            owner.attrs[attr] = value
        if isinstance(owner, Instance | Server):
            owner.attrs[attr] = value
            cls = owner.cls
            if isinstance(value, Server) and not value.held and cls is not None:
                # a server each instance holds (`self.server = Server(...)`) is named after its
                # class's attribute, so two classes' servers are two catalogs, not one
                value.held.append(f"{cls.module.name}.{cls.qualname}.{attr}")
        elif isinstance(owner, Record):  # a framework's object a hook edits (`tool.name = ...`)
            owner.kwargs[attr] = value
        elif isinstance(owner, Class):
            owner.namespace[attr] = value
        elif isinstance(owner, ModuleValue):
            self.state(owner.module).frame.names[attr] = value

    def set_item(self, owner: Value, key: Value, value: Value) -> None:
        if isinstance(owner, Mapping):
            if isinstance(key, Const) and stdlib.hashable(key.value):
                owner.entries[key.value] = (key, value)
                self.mutated(owner, True)
            else:
                owner.partial = True
        elif isinstance(owner, Seq) and isinstance(key, Const) and type(key.value) is int:
            size = len(owner.items)
            if -size <= key.value < size:  # else: IndexError at run time
                owner.items[key.value] = value
                self.mutated(owner, True)
        else:
            self.mutated(owner, False)

    def del_item(self, owner: Value, key: Value) -> None:
        """`del owner[key]` of a dict: the key gone (a missing one raises at run time)."""
        known = isinstance(key, Const) and stdlib.hashable(key.value)
        if isinstance(owner, Mapping) and known and not owner.partial:
            assert isinstance(key, Const)
            owner.entries.pop(key.value, None)
            self.mutated(owner, True)
        else:
            self.mutated(owner, False)

    def mutated(self, owner: Value, followed: bool) -> None:
        """A container changed (`followed`), or changed in a way toolgen cannot follow:
        while entries are given (`registries`), one changed so, or changed in undecided
        branches, makes an entry that holds it unknown."""
        if self.entries is not None and (not followed or self.forking):
            self.tainted.add(id(owner))

    # -- imports ----------------------------------------------------------------------------
    def import_names(self, stmt: ast.Import, frame: Frame) -> None:
        for alias in stmt.names:
            parts = alias.name.split(".")
            self.imported(alias.name)
            if alias.asname:
                self.bind(alias.asname, self.module_value(alias.name), frame)
            else:
                self.bind(parts[0], self.module_value(parts[0]), frame)

    def import_module(
        self, path: str, args: list[Value], kwargs: dict[str, Value], node: ast.AST
    ) -> Value | None:
        """`importlib.import_module(name, package)`: an import, as the statement is; and
        `pkgutil.iter_modules([folder])`: the modules and packages in the project's folders
        (each `(finder, name, ispkg)`, sorted as `pkgutil` lists them)."""
        if path == "pkgutil.iter_modules":
            folders = stdlib.items(args[0] if args else kwargs.get("path", Const(None)))
            texts = [files.text(f) for f in folders or []]
            if folders is None or None in texts:
                return None
            found: list[Value] = []
            for folder in (t for t in texts if t is not None):
                modules = _modules_in(self.index, folder)
                if modules is None:
                    return None
                for name, is_package in modules:
                    finder = self.unknown("a module finder", node)
                    entry: list[Value] = [finder, Const(name), Const(is_package)]
                    found.append(Seq(entry, "tuple"))
            return Seq(found, "list")
        given = args[0] if args else kwargs.get("name")
        package = args[1] if len(args) > 1 else kwargs.get("package", Const(None))
        if not (isinstance(given, Const) and isinstance(given.value, str)):
            return None
        name = given.value
        if name.startswith("."):
            if not (isinstance(package, Const) and isinstance(package.value, str)):
                return None
            level = len(name) - len(name.lstrip("."))
            base = package.value.rsplit(".", level - 1)[0] if level > 1 else package.value
            name = f"{base}.{name.lstrip('.')}" if name.strip(".") else base
        if not all(part.isidentifier() for part in name.split(".")):  # "", "a..b", "x\0"
            raise Raising(f"no module is named {name[:100]!r}", node)  # as Python raises
        self.imported(name)
        return self.module_value(name)

    def module_value(self, name: str) -> Value:
        state = self.project_module(name)
        return External(name) if state is None else ModuleValue(state.module)

    def import_from(self, stmt: ast.ImportFrom, frame: Frame) -> None:
        base = _absolute(frame.module, stmt.level, stmt.module)
        state = self.imported(base) if base else None
        for alias in stmt.names:
            if alias.name == "*":
                if state is not None:
                    self.star(state, frame)
                continue
            if state is None:
                path = canonical_external(f"{base}.{alias.name}")
                value: Value = stdlib.process_value(path) or External(path)
            else:
                value = self.module_attribute(state, alias.name, stmt)
            self.bind(alias.asname or alias.name, value, frame)

    def star(self, state: ModuleState, frame: Frame) -> None:
        names = state.frame.names
        listed = names.get("__all__")
        public = stdlib.items(listed) if listed is not None else None
        if public is not None:
            chosen = [i.value for i in public if isinstance(i, Const) and isinstance(i.value, str)]
        else:
            chosen = [n for n in names if not n.startswith("_")]
        for name in chosen:
            if name in names:
                self.bind(name, names[name], frame)

    def module_attribute(self, state: ModuleState, name: str, node: ast.AST) -> Value:
        if name in state.frame.names:
            return state.frame.names[name]
        sub = self.project_module(f"{state.module.name}.{name}")
        if sub is not None:
            return ModuleValue(sub.module)
        hook = state.frame.names.get("__getattr__")
        if isinstance(hook, Function):  # PEP 562: the module makes the name when asked
            return self.call(hook, [Const(name)], {}, node)
        if state.done:
            return self.unknown(f"`{name}` is not bound in `{state.module.name}`", node)
        return self.unknown(f"`{name}` is not bound yet in `{state.module.name}` (a cycle)", node)

    # -- expressions --------------------------------------------------------------------------
    def expr(self, node: ast.expr, frame: Frame) -> Value:
        if not self._enter(node):
            return self.unknown("nested too deeply", node)
        try:
            return self._expr(node, frame)
        finally:
            self.nesting -= 1

    def _expr(self, node: ast.expr, frame: Frame) -> Value:
        if isinstance(node, ast.Constant):
            return Const(node.value)
        if isinstance(node, ast.Name):
            return self.lookup(node.id, frame, node)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.expr(node.value, frame), node.attr, node)
        if isinstance(node, ast.Call):
            return self.call_expr(node, frame)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            kind = "list" if isinstance(node, ast.List) else "tuple"
            kind = "set" if isinstance(node, ast.Set) else kind
            elements = self.elements(node.elts, frame)
            if elements is None:
                return self.unknown("a container with parts toolgen cannot know", node)
            return Seq(elements, kind)  # type: ignore[arg-type]
        if isinstance(node, ast.Dict):
            return self.dict_display(node, frame)
        if isinstance(node, ast.Subscript):
            return self.subscript(self.expr(node.value, frame), node.slice, frame, node)
        if isinstance(node, ast.BinOp):
            left = self.expr(node.left, frame)
            return operators.binary(node.op, left, self.expr(node.right, frame), node)
        if isinstance(node, ast.UnaryOp):
            operand = self.expr(node.operand, frame)
            return operators.unary(node.op, operand, self.truth(operand), node)
        if isinstance(node, ast.BoolOp):
            return self.bool_op(node, frame)
        if isinstance(node, ast.Compare):
            return self.comparison(node, frame)
        if isinstance(node, ast.IfExp):
            truth = self.truth(self.expr(node.test, frame))
            if truth is not None:
                return self.expr(node.body if truth else node.orelse, frame)
            return join([self.expr(node.body, frame), self.expr(node.orelse, frame)], self.unknown)
        if isinstance(node, ast.JoinedStr):
            return self.joined(node, frame)
        if isinstance(node, ast.FormattedValue):
            return self.expr(node.value, frame)
        if isinstance(node, ast.NamedExpr):
            value = self.expr(node.value, frame)
            self.assign(node.target, value, frame)
            return value
        if isinstance(node, ast.Lambda):
            defaults = tuple(self.expr(d, frame) for d in node.args.defaults)
            qualname = frame.prefix + "<lambda>"
            return Function(node, frame.module, qualname, self.closure_of(frame), defaults)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            return self.comprehension(node, frame)
        if isinstance(node, ast.Await):
            return self.expr(node.value, frame)  # an async call's body ran when called
        if isinstance(node, ast.Yield | ast.YieldFrom) and self.yielded:
            return self.yield_value(node, frame)
        if isinstance(node, ast.Slice):
            parts = [None if p is None else self.expr(p, frame) for p in (node.lower, node.upper)]
            if all(p is None or isinstance(p, Const) for p in parts) and node.step is None:
                lower, upper = (p.value if isinstance(p, Const) else None for p in parts)
                return Const(slice(lower, upper))
        return self.unknown(f"a `{type(node).__name__}` expression", node)

    def yield_value(self, node: ast.Yield | ast.YieldFrom, frame: Frame) -> Value:
        """`yield x`, `yield from xs` in a generator being run: what it yields is kept (what
        is sent back is None, as iterating sends)."""
        given = Const(None) if node.value is None else self.expr(node.value, frame)
        collected = self.yielded[-1]
        found = [given] if isinstance(node, ast.Yield) else stdlib.items(given)
        if collected is not None and found is not None and len(collected) < MAX_ITERATIONS:
            collected.extend(found)
        else:
            self.yielded[-1] = None
        return Const(None)

    def elements(self, nodes: list[ast.expr], frame: Frame) -> list[Value] | None:
        found: list[Value] = []
        known = True
        for element in nodes:
            if isinstance(element, ast.Starred):
                inner = stdlib.items(self.expr(element.value, frame))
                if inner is None:
                    known = False
                else:
                    found.extend(inner)
            else:
                found.append(self.expr(element, frame))
        return found if known else None

    def dict_display(self, node: ast.Dict, frame: Frame) -> Value:
        made = Mapping()
        partial = False
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            value = self.expr(value_node, frame)
            if key_node is None:  # `**other`
                if isinstance(value, Mapping):
                    made.entries.update(value.entries)
                    partial = partial or value.partial
                else:
                    partial = True
                continue
            key = self.expr(key_node, frame)
            if isinstance(key, Const) and stdlib.hashable(key.value):
                made.entries[key.value] = (key, value)
            else:
                partial = True
        tools = made.entries.get("tools")
        if tools is not None and isinstance(tools[1], Seq) and self.answers_tools_list():
            self.record(AnsweredTools(tools[1], node, self.site))
        return Mapping(made.entries, partial)

    def answers_tools_list(self) -> bool:
        """Whether the function being run answers the MCP request `tools/list` by hand (its
        code has that string), in a project that reads MCP servers (`mcp` configured)."""
        if not self.stack or not any(f.name == "mcp" for f in self.frameworks):
            return False
        return _mentions_tools_list(self.stack[-1])

    def subscript(self, owner: Value, index: ast.expr, frame: Frame, node: ast.AST) -> Value:
        key = self.expr(index, frame)
        if isinstance(owner, External) and owner.path == "os.environ":
            return stdlib.env_item(self, self.env, key, node)
        if isinstance(owner, Mapping) and isinstance(key, Const):
            if stdlib.hashable(key.value) and key.value in owner.entries:
                return owner.entries[key.value][1]
        elif isinstance(owner, Seq) and isinstance(key, Const):
            if type(key.value) is int and -len(owner.items) <= key.value < len(owner.items):
                return owner.items[key.value]
            if isinstance(key.value, slice):
                try:
                    return Seq(owner.items[key.value], owner.kind)
                except (TypeError, ValueError):  # `l["x":]`, a step of 0
                    return self.unknown("a slice that raises", node)
        elif isinstance(owner, Const) and isinstance(key, Const):
            try:
                return Const(owner.value[key.value])  # type: ignore[index]
            except (TypeError, IndexError, KeyError, ValueError):
                pass
        return self.unknown("an item toolgen cannot know", node)

    def bool_op(self, node: ast.BoolOp, frame: Frame) -> Value:
        value: Value = Const(None)
        undecided = False
        for operand in node.values:
            value = self.expr(operand, frame)
            truth = self.truth(value)
            if truth is None:
                undecided = True
                continue
            if truth == isinstance(node.op, ast.Or) and not undecided:
                return value
        return self.unknown("a truth toolgen cannot know", node) if undecided else value

    def comparison(self, node: ast.Compare, frame: Frame) -> Value:
        left = self.expr(node.left, frame)
        result: Value = Const(True)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.expr(right_node, frame)
            step = operators.compare(op, left, right, node)
            if isinstance(step, Const) and not step.value:
                return step
            if isinstance(step, Unknown):
                result = step
            left = right
        return result

    def joined(self, node: ast.JoinedStr, frame: Frame) -> Value:
        parts: list[str] = []
        for part in node.values:
            value = self.expr(part, frame)
            if isinstance(part, ast.FormattedValue) and (part.conversion != -1 or part.format_spec):
                return self.unknown("a formatted value toolgen does not format", node)
            if not isinstance(value, Const) or not isinstance(value.value, str | int | float):
                return self.unknown("a string with parts toolgen cannot know", node)
            try:
                parts.append(str(value.value))
            except ValueError:  # an integer past Python's limit for text
                return self.unknown("a number too long to write", node)
        joined = "".join(parts)
        return Const(joined) if stdlib.fits(joined) else self.unknown("a string too long", node)

    def comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, frame: Frame
    ) -> Value:
        inner = Frame(frame.module, {}, frame, frame.prefix + "<comprehension>.")
        results: list[Value] = []
        entries = Mapping()
        known = self.generate(node, 0, inner, results, entries)
        if not known:
            return self.unknown("a comprehension over values toolgen cannot know", node)
        if isinstance(node, ast.DictComp):
            return entries
        return Seq(results, "set" if isinstance(node, ast.SetComp) else "list")

    def generate(
        self,
        node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
        level: int,
        frame: Frame,
        results: list[Value],
        entries: Mapping,
    ) -> bool:
        """The elements of `node` from its `level`th `for` on; False when one of them runs
        over values toolgen cannot know."""
        if level == len(node.generators):
            if isinstance(node, ast.DictComp):
                key = self.expr(node.key, frame)
                value = self.expr(node.value, frame)
                if isinstance(key, Const) and stdlib.hashable(key.value):
                    entries.entries[key.value] = (key, value)
            else:
                results.append(self.expr(node.elt, frame))
            return True
        generator = node.generators[level]
        found = stdlib.items(self.expr(generator.iter, frame))
        if found is None:
            return False
        known = True
        for count, item in enumerate(found):
            if count >= MAX_ITERATIONS:
                self.note("bound", f"a loop past MAX_ITERATIONS = {MAX_ITERATIONS}", node)
                break
            self.assign(generator.target, item, frame)
            truths = [self.truth(self.expr(test, frame)) for test in generator.ifs]
            if all(t is not False for t in truths):
                known = self.generate(node, level + 1, frame, results, entries) and known
        return known

    def truth(self, value: Value) -> bool | None:
        return stdlib.truth(value)

    # -- attributes -----------------------------------------------------------------------------
    def attribute(self, owner: Value, attr: str, node: ast.AST) -> Value:
        if isinstance(owner, Instance):
            if attr in owner.attrs:
                return owner.attrs[attr]
            found = self.class_attribute(owner.cls, attr, owner)
            if found is not None:
                return found
            if frameworks.registration_method(self, attr) is not None:
                return self.not_a_server(node, f"it is an instance of `{owner.cls.qualname}`")
            return self.unknown(f"`{attr}` is not set on the instance", node)
        if isinstance(owner, Server):
            if attr in owner.attrs:
                return owner.attrs[attr]
            found_registry = registries.registry(self, owner, attr)
            if found_registry is not None:
                if self.entries is None:
                    self.note(
                        "registry",
                        f"`{shown(node)}` is the framework's own registry of tools: what the "
                        "code does to them there is followed once their schemas are made",
                        node,
                    )
                return found_registry
            if attr in TOOL_REGISTRIES:
                self.note(
                    "remade",
                    f"`{shown(node)}` is the framework's own registry of tools: what the code "
                    "does to them there (a schema rewritten, a tool removed) is not followed, "
                    "and they are published as registered",
                    node,
                )
            found = None if owner.cls is None else self.class_attribute(owner.cls, attr, owner)
            return found if found is not None else frameworks.server_attribute(self, owner, attr)
        if isinstance(owner, Registry):
            return registries.registry_attribute(self, owner, attr, node)
        if isinstance(owner, ToolHandle):
            return registries.handle_attribute(self, owner, attr, node)
        if isinstance(owner, Class):
            found = self.class_attribute(owner, attr, owner)
            if found is None and attr == "model_json_schema" and self.is_model(owner):
                return SchemaOf(owner, node, self.site)
            return found if found is not None else self.unknown(f"`{attr}` of a class", node)
        if isinstance(owner, Record):
            known = owner.kwargs.get(attr)
            return known if known is not None else self.unknown(f"`{attr}` not given", node)
        if isinstance(owner, ModuleValue):
            return self.module_attribute(self.state(owner.module), attr, node)
        if isinstance(owner, External):
            constant = stdlib.process_value(f"{owner.path}.{attr}")
            return constant or frameworks.external_attribute(self, owner, attr)
        if isinstance(owner, Super):
            return self.super_attribute(owner, attr, node)
        if isinstance(owner, Function):
            if attr == "__wrapped__" and owner.wrapped is not None:
                return owner.wrapped
            if attr in WRAPPER_ASSIGNMENTS and owner.wrapped is not None:
                # `functools.wraps` copied them from the wrapped function
                return self.attribute(owner.wrapped, attr, node)
            if attr == "__name__":
                return Const(owner.name)
            if attr == "__qualname__":
                return Const(owner.qualname)
            if attr == "__module__":
                return Const(owner.module.name)
        if isinstance(owner, ArgParser):
            return ParserMethod(owner, attr)
        if isinstance(owner, FilePath):
            return files.attribute(owner, attr)
        if isinstance(owner, Opened) and attr == "read":
            return PathMethod(FilePath(owner.path), "read_bytes" if owner.binary else "read_text")
        if isinstance(owner, Const) and attr == "value":
            return owner  # an enum's member is its value here (`Tools.SEARCH.value`)
        if isinstance(owner, Seq | Mapping | Const):
            return ContainerMethod(owner, attr)
        if isinstance(owner, Unknown) and owner.made_by in NETWORK_CLIENTS and attr in VERBS:
            return External(f"{owner.made_by}.{attr}")  # a request: it raises (`NETWORK`)
        if isinstance(owner, Unknown):
            found_fw = frameworks.registration_method(self, attr)
            if found_fw is not None and made_by_class(owner):
                return self.not_a_server(node, f"it is made by `{owner.made_by}(...)`")
            if found_fw is not None:  # a parameter, `self.server`: taken to be a server
                return Method(None, attr, found_fw.name)
            return owner
        return self.unknown(f"`{attr}` of a value toolgen cannot know", node)

    def is_model(self, cls: Class) -> bool:
        """Whether `cls` derives from pydantic's `BaseModel` (through project classes)."""
        return any(
            isinstance(base, External) and base.path in PYDANTIC_MODELS
            for known in self.mro(cls)
            for base in known.bases
        )

    def not_a_server(self, node: ast.AST, why: str) -> Unknown:
        """TG106 for a registration on something toolgen can see is not a server."""
        return self.note(
            "unfollowed",
            f"`{shown(node)}` looks like a registration, but its owner is not a "
            f"server of the configured markers ({why}): nothing is registered",
            node,
        )

    def mro(self, cls: Class) -> list[Class]:
        """The project classes `cls` derives from, nearest first (depth-first, bounded)."""
        order: list[Class] = []
        stack: list[Value] = [cls]
        while stack and len(order) < frameworks.MAX_BASES:
            current = stack.pop(0)
            if isinstance(current, Class) and current not in order:
                order.append(current)
                stack[0:0] = list(current.bases)
        return order

    def class_attribute(self, cls: Class, attr: str, instance: Value) -> Value | None:
        for base in self.mro(cls):
            if attr in base.namespace:
                found = base.namespace[attr]
                if isinstance(found, Instance):  # a descriptor: reading it calls `__get__`
                    getter = self.class_attribute(found.cls, "__get__", found)
                    if getter is not None:
                        owner = instance if not isinstance(instance, Class) else Const(None)
                        return self.call(getter, [owner, cls], {}, found.cls.node)
                return bind_member(found, instance, base)
        return None

    def super_attribute(self, owner: Super, attr: str, node: ast.AST) -> Value:
        instance = owner.instance
        cls = instance.cls if isinstance(instance, Instance | Server) else None
        if cls is None:
            return self.unknown("`super()` of a value toolgen cannot know", node)
        order = self.mro(cls)
        after = next((i for i, c in enumerate(order) if c.node is owner.after), None)
        for base in order[after + 1 :] if after is not None else []:
            if attr in base.namespace:
                return bind_member(base.namespace[attr], instance, base)
        return self.unknown(f"`super().{attr}` is the framework's", node)

    # -- calls ----------------------------------------------------------------------------------
    def call_expr(self, node: ast.Call, frame: Frame) -> Value:
        callee = self.expr(node.func, frame)
        if isinstance(callee, External) and callee.path == "builtins.super" and not node.args:
            owner = frame.function.owner if frame.function is not None else None
            if owner is not None and frame.first is not None:
                return Super(frame.first, owner)
            return self.unknown("`super()` outside a method", node)
        args = self.elements(node.args, frame)
        kwargs: dict[str, Value] = {}
        known = args is not None
        for keyword in node.keywords:
            value = self.expr(keyword.value, frame)
            if keyword.arg is not None:
                kwargs[keyword.arg] = value
            elif isinstance(value, Mapping) and not value.partial:
                for key, item in value.entries.values():
                    if isinstance(key, Const) and isinstance(key.value, str):
                        kwargs[key.value] = item
            else:
                known = False
        if args is None:
            args = []
        return self.call(callee, args, kwargs, node, known)

    def call(
        self,
        callee: Value,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.AST,
        known: bool = True,
    ) -> Value:
        """`callee(*args, **kwargs)`; `known` False when a `*x`/`**x` could not be known."""
        if not self._enter(node):
            return self.unknown("nested too deeply", node)
        try:
            return self._call(callee, args, kwargs, node, known)
        finally:
            self.nesting -= 1

    def _call(
        self, callee: Value, args: list[Value], kwargs: dict[str, Value], node: ast.AST, known: bool
    ) -> Value:
        if isinstance(callee, Function):
            declared = frameworks.decorator_of(self, f"{callee.module.name}.{callee.qualname}")
            if declared is not None:  # a project's own decorator, declared as a marker
                return frameworks.call_decorator(self, declared, args, kwargs, node)
            return self.call_function(callee, args, kwargs, node, known)
        if isinstance(callee, Bound):
            return self.call_function(callee.function, [callee.instance, *args], kwargs, node)
        if isinstance(callee, Partial):
            merged = {**dict(callee.kwargs), **kwargs}
            return self.call(callee.func, [*callee.args, *args], merged, node, known)
        if isinstance(callee, Class):
            return self.instantiate(callee, args, kwargs, node, known)
        if isinstance(callee, External):
            return self.call_external(callee, args, kwargs, node)
        if isinstance(callee, Method):
            return frameworks.call_method(self, callee, args, kwargs, node)
        if isinstance(callee, Registrar):
            return frameworks.call_registrar(self, callee, args, kwargs, node)
        if isinstance(callee, Lister):
            handler = args[0] if args else self.unknown("no handler", node)
            return frameworks.list_tools(self, callee, handler, node)
        if isinstance(callee, SchemaOf) and not callee.called:
            return SchemaOf(callee.cls, node, self.site, called=True)
        if isinstance(callee, ParserMethod):
            return cli_args.parser_call(callee, args, kwargs, node)
        if isinstance(callee, PathMethod):
            try:
                made = files.method(callee, args, node, self.index)
            except Raising as exc:
                return self.fails(exc)
            self.in_time(node)
            return made
        if isinstance(callee, ContainerMethod):
            return stdlib.container_call(self, callee, args, node)
        if isinstance(callee, Instance):
            found = self.class_attribute(callee.cls, "__call__", callee)
            if found is not None:
                return self.call(found, args, kwargs, node, known)
        if isinstance(callee, Unknown):
            return self.unknown(f"a call of a value toolgen cannot know ({callee.why})", node)
        return self.unknown("a call toolgen does not follow", node)

    def call_external(
        self, callee: External, args: list[Value], kwargs: dict[str, Value], node: ast.AST
    ) -> Value:
        try:
            return self._call_external(callee, args, kwargs, node)
        except Raising as exc:
            return self.fails(exc)

    def fails(self, exc: Raising) -> Value:
        """A call that raises where the server starts (a missing file, the network): inside
        a `try`, it raises, and the handler runs; outside any, the server would stop there,
        which no server that lists tools does where it runs (the file is there, the network
        is up): what the call gives is unknown, and the evaluation goes on."""
        if self.trying:
            raise exc
        return self.unknown(exc.why, exc.node)

    def _call_external(
        self, callee: External, args: list[Value], kwargs: dict[str, Value], node: ast.AST
    ) -> Value:
        found = frameworks.call_external(self, callee, args, kwargs, node)
        if found is None and callee.path in IMPORTERS:
            found = self.import_module(callee.path, args, kwargs, node)
        if found is None and callee.path in cli_args.PARSERS:
            found = ArgParser(self.site)
        if found is None:
            found = files.call(callee.path, args, kwargs, node, self.index)
        if found is None:
            found = data.load(callee.path, args, node)
        if found is not None:
            self.in_time(node)  # reading and loading files take time of their own
        if found is None and callee.path in NETWORK:
            raise Raising(f"`{callee.path}` needs the network, which a server starts without", node)
        if found is None:
            found = stdlib.call_stdlib(self, self.env, callee.path, args, kwargs, node)
        if found is None and callee.path in ("builtins.getattr", "builtins.setattr"):
            found = self.reflect(callee.path, args, node)
        if found is None:
            self.unknowns += 1
            return Unknown(f"`{callee.path}` is called at run time", node, callee.path)
        return found

    def reflect(self, path: str, args: list[Value], node: ast.AST) -> Value | None:
        """`getattr(obj, "name"[, default])`, `setattr(obj, "name", value)`."""
        if len(args) < 2 or not (isinstance(args[1], Const) and isinstance(args[1].value, str)):
            return None
        if path == "builtins.setattr" and len(args) == 3:
            self.set_attribute(args[0], args[1].value, args[2], node)
            return Const(None)
        owner, name = args[0], args[1].value
        # what a plain interpreter's `sys` has (no `sys._MEIPASS` of a frozen bundle)
        module = PLAIN_MODULES.get(owner.path) if isinstance(owner, External) else None
        if module is not None and not hasattr(module, name):
            return args[2] if len(args) == 3 else None
        found = self.attribute(owner, name, node)
        if isinstance(found, Unknown) and len(args) == 3:
            return args[2]
        return found

    def instantiate(
        self, cls: Class, args: list[Value], kwargs: dict[str, Value], node: ast.AST, known: bool
    ) -> Value:
        """A project class called: an `Instance` (a `Server` when it derives from a
        framework's server class), its `__init__` run."""
        framework = frameworks.server_class(self, cls)
        made: Instance | Server
        if framework is not None:
            made = Server(framework.name, node, self.site, cls)
        else:
            made = Instance(cls)
        made_as = self.tool_classes.get(id(cls.node))
        if made_as is not None and isinstance(node, ast.expr):
            self.constructed_tool(made_as, kwargs, node)
        init = self.class_attribute(cls, "__init__", made)
        if init is not None:
            self.call(init, args, kwargs, node, known)
        elif isinstance(made, Instance) and self.is_record(cls):
            self.fill_fields(made, args, kwargs, known)
        return made

    def is_record(self, cls: Class) -> bool:
        """Whether `cls` (or a project class it derives from) is a record class, whose
        `__init__` sets its annotated fields: a dataclass (by its decorator's name), a
        `NamedTuple`, a pydantic model."""
        for known in self.mro(cls):
            if any(name_of(d) in RECORD_DECORATORS for d in known.node.decorator_list):
                return True
            for base in known.bases:
                if isinstance(base, External) and base.path in RECORD_BASES:
                    return True
        return False

    def fill_fields(
        self, made: Instance, args: list[Value], kwargs: dict[str, Value], known: bool
    ) -> None:
        """What a record class's `__init__` does: each annotated field (base classes' first)
        from the arguments, in order, else its default in the class body."""
        fields: list[str] = []
        for cls in reversed(self.mro(made.cls)):
            for stmt in cls.node.body:
                if (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and name_of(stmt.annotation) != "ClassVar"
                    and stmt.target.id not in fields
                ):
                    fields.append(stmt.target.id)
        for i, name in enumerate(fields):
            if i < len(args):
                made.attrs[name] = args[i]
            elif name in kwargs:
                made.attrs[name] = kwargs[name]
            elif not known:
                made.attrs[name] = self.unknown(f"`{name}` given at run time", made.cls.node)

    def call_function(
        self,
        function: Function,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.AST,
        known: bool = True,
    ) -> Value:
        given = [*args, *kwargs.values()]
        # a recursion that walks known data (a tree of dicts and lists) ends with the data;
        # any other is cut short
        walks = any(isinstance(a, Mapping | Seq) for a in given)
        known_data = walks and not any(isinstance(a, Unknown) for a in given)
        deepest = MAX_DEPTH if known_data else MAX_RECURSION
        if self.stack.count(function.node) >= deepest:
            return self.note(
                "bound",
                f"`{function.qualname}` calls itself more than MAX_RECURSION = {MAX_RECURSION}"
                " times deep",
                node,
            )
        if self.depth >= MAX_DEPTH:
            return self.note(
                "bound",
                f"`{function.qualname}` called more than MAX_DEPTH = {MAX_DEPTH} calls deep",
                node,
            )
        if given and all(isinstance(a, Unknown) for a in given):
            if place(function) in self.blind:
                return self.unknown(f"`{function.qualname}` of arguments toolgen cannot know", node)
            self.blind.add(place(function))
        frame = Frame(
            function.module,
            {},
            function.closure,
            f"{function.qualname}.<locals>.",
            function=function,
            first=args[0] if args else None,
        )
        self.bind_parameters(function, args, dict(kwargs), frame, known)
        first_time = place(function) not in self.reached
        self.reached.add(place(function))
        self.depth += 1
        self.stack.append(function.node)
        self._site.append(function.module)
        generator = is_generator(function.node)
        if generator:
            self.yielded.append([])
        undecided = self.undecided_exits, self.blind_loops
        try:
            if isinstance(function.node, ast.Lambda):
                return self.expr(function.node.body, frame)
            signal = self.block(function.node.body, frame)
            if first_time:
                self.mark_called(function.node, frame)
        finally:
            self._site.pop()
            self.stack.pop()
            self.depth -= 1
            collected = self.yielded.pop() if generator else None
        if generator:
            # run as it is iterated, here and whole: what it yields is known when no branch
            # or loop of its toolgen could not decide, and no bound, cut it short
            if collected is None or undecided != (self.undecided_exits, self.blind_loops):
                return self.unknown(f"what `{function.qualname}` yields", node)
            if isinstance(signal, Raise) or frame.maybe_returned:
                return self.unknown(f"what `{function.qualname}` yields", node)
            return Seq(collected, "list")
        if signal is FAILED:  # to the caller's `try`; with none, the value is unknown
            return self.fails(Raising(f"`{function.qualname}` raises", node))
        if isinstance(signal, Raise):
            return self.unknown(f"`{function.qualname}` raises", node)
        result = signal.value if isinstance(signal, Return) else Const(None)
        if frame.maybe_returned:
            return join([*frame.maybe_returned, result], self.unknown)
        return result

    def bind_parameters(
        self,
        function: Function,
        args: list[Value],
        kwargs: dict[str, Value],
        frame: Frame,
        known: bool,
    ) -> None:
        spec = function.node.args
        positional = [*spec.posonlyargs, *spec.args]
        first_default = len(positional) - len(function.defaults)
        why = f"an argument of `{function.qualname}` toolgen cannot know"
        for i, param in enumerate(positional):
            if i < len(args):
                value = args[i]
            elif param.arg in kwargs:
                value = kwargs.pop(param.arg)
            elif i >= first_default and known:
                value = function.defaults[i - first_default]
            else:
                value = self.unknown(why, param)
            frame.names[param.arg] = value
        if spec.vararg is not None:
            frame.names[spec.vararg.arg] = Seq(list(args[len(positional) :]), "tuple")
        defaults = dict(function.kw_defaults)
        for param in spec.kwonlyargs:
            if param.arg in kwargs:
                frame.names[param.arg] = kwargs.pop(param.arg)
            elif param.arg in defaults and known:
                frame.names[param.arg] = defaults[param.arg]
            else:
                frame.names[param.arg] = self.unknown(why, param)
        if spec.kwarg is not None:
            extra = Mapping({k: (Const(k), v) for k, v in kwargs.items()}, partial=not known)
            frame.names[spec.kwarg.arg] = extra


def _bound_names(stmt: ast.stmt) -> set[str]:
    """The names a statement may bind in its scope (not in the functions or classes it
    defines)."""
    found: set[str] = set()
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
            if node is not stmt:
                continue
            stack.extend(node.decorator_list)  # a walrus there binds here
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).partition(".")[0])
        elif isinstance(node, ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


#: A scope's own `from m import f` (by the name bound: the module as written, with its level,
#: and the name), for the names its calls use.
Imports = dict[str, tuple[tuple[int, str | None], str]]
#: The callees of each scope's calls (a function's or module's body, not the functions or
#: classes it defines), and its own imports, kept while its syntax tree lives.
_CALLEES: weakref.WeakKeyDictionary[ast.AST, tuple[list[ast.Name | ast.Attribute], Imports]] = (
    weakref.WeakKeyDictionary()
)


def _callees(scope: ast.AST) -> tuple[list[ast.Name | ast.Attribute], Imports]:
    """The `f` and `m.f` that `scope`'s own code calls, and the names it imports."""
    found = _CALLEES.get(scope)
    if found is None:
        calls: list[ast.Name | ast.Attribute] = []
        imports: Imports = {}
        stack = list(ast.iter_child_nodes(scope))
        while stack:
            node = stack.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                stack.extend(node.decorator_list)
                continue
            if isinstance(node, ast.Lambda):
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
                calls.append(node.func)
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    imports[alias.asname or alias.name] = ((node.level, node.module), alias.name)
            stack.extend(ast.iter_child_nodes(node))
        found = _CALLEES[scope] = (calls, imports)
    return found


def _bound(name: str, frame: Frame) -> Value | None:
    """What `name` is bound to in `frame` or the frames around it (nothing evaluated)."""
    scope: Frame | None = frame
    while scope is not None:
        if name in scope.names:
            return scope.names[name]
        scope = scope.parent
    return None


#: The request a server written by hand answers with its list of tools.
TOOLS_LIST = "tools/list"
_ANSWERS: weakref.WeakKeyDictionary[ast.AST, bool] = weakref.WeakKeyDictionary()


def _modules_in(index: ModuleIndex, folder: str) -> list[tuple[str, bool]] | None:
    """The modules (`name.py`) and packages (`name/__init__.py`) in the project's `folder`,
    as `pkgutil.iter_modules` names them; None: it has more than `stdlib.MAX_ITEMS` names."""
    found: list[tuple[str, bool]] = []
    names = index.listing(folder) or []
    if len(names) > stdlib.MAX_ITEMS:  # each is looked at: a list no operation makes
        return None
    for entry in names:
        path = f"{folder.rstrip('/')}/{entry}"
        if entry.endswith(".py") and entry != "__init__.py" and entry[:-3].isidentifier():
            found.append((entry[:-3], False))
        elif entry.isidentifier() and index.holds(f"{path}/__init__.py") == "file":
            found.append((entry, True))
    return found


def _mentions_tools_list(function: ast.AST) -> bool:
    """Whether `function`'s code has the string "tools/list" (kept while its tree lives)."""
    found = _ANSWERS.get(function)
    if found is None:
        found = _ANSWERS[function] = any(
            isinstance(node, ast.Constant) and node.value == TOOLS_LIST
            for node in ast.walk(function)
        )
    return found
