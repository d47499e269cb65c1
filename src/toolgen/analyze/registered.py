"""What a source file's unit registers: the registration interpreter's effects
(`toolgen.read.registration`) as handlers, mounts, listed tools and TG106 notes.

A unit is what the file's own top level causes, what its functions that console scripts
name cause when called so, then what its functions none of that reaches cause when run with
arguments toolgen cannot know (their handlers are `weak`: another unit that calls such a
function knows more of its registrations, `toolgen.file_units`)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolgen.analyze.handlers import Handler, Mount, Registrations
from toolgen.analyze.listed import answered_tools, converted_tools, listed_tools, model_schema
from toolgen.analyze.markers import Preset
from toolgen.diagnostics import Diagnostic
from toolgen.read.index import Module, ModuleIndex
from toolgen.read.registration import fresh, listed, run_unit
from toolgen.read.registration.context import shown
from toolgen.read.registration.effects import (
    AnsweredTools,
    Effect,
    ListedTools,
    Mounted,
    Note,
    OpenAPITools,
    Registered,
    ToolClassMade,
)
from toolgen.read.registration.frames import Place
from toolgen.read.registration.known import NotKnown, known_value
from toolgen.read.registration.values import Function

#: The registration keyword that, False, keeps a tool out of the framework's list.
UNLISTED = {"fastmcp": "enabled"}


def find_registrations(
    module: Module,
    index: ModuleIndex,
    presets: Sequence[Preset],
    env: Mapping[str, str] | None = None,
    entry_points: Sequence[str] = (),
) -> Registrations:
    """What `module`'s unit registers: what its top level causes, what its functions that
    console scripts call (`entry_points`, `[project.scripts]`) cause when called so, then
    what its functions none of that reaches cause when run with unknown arguments."""
    fresh(index)  # a unit evaluates what it imports itself (`toolgen.file_units`)
    try:
        return _registrations(module, index, presets, env, entry_points)
    finally:
        # what was evaluated refers to the index, and so keeps it alive in the table of
        # interpreters (weak keys): a process that builds again would keep every index
        fresh(index)


def _registrations(
    module: Module,
    index: ModuleIndex,
    presets: Sequence[Preset],
    env: Mapping[str, str] | None,
    entry_points: Sequence[str],
) -> Registrations:
    evaluation, started, weak = run_unit(module, index, presets, env, entry_points)
    effects = evaluation.effects + started.effects + weak.effects
    found = registrations(effects, presets, dict(weak.roots))
    found.reached = evaluation.reached | started.reached
    found.registry = [
        e.site.location(e.node) for e in effects if isinstance(e, Note) and e.kind == "registry"
    ]
    answered = {id(e.node): e for e in effects if isinstance(e, AnsweredTools)}
    for answer in answered.values():  # a server written by hand
        tools, problems = answered_tools(answer)
        found.listed.extend(tools)
        found.unfollowed.extend(problems)
    for made in (e for e in effects if isinstance(e, OpenAPITools)):
        found.listed.extend(converted_tools(made))
    # a server answers tools/list with the handler given last (the SDK keeps one)
    handlers = {id(e.server): e for e in effects if isinstance(e, ListedTools)}
    for effect in handlers.values():
        value, notes = listed(effect, index, presets, env)
        tools, problems = listed_tools(effect, value, lambda model: model_schema(model, index))
        found.listed.extend(tools)
        found.unfollowed.extend(problems)
        found.unfollowed.extend(_diagnostics(notes))
    return found


def _diagnostics(notes: Iterable[Note]) -> list[Diagnostic]:
    return [
        Diagnostic(NOTE_CODES[note.kind], note.message, note.site.location(note.node))
        for note in notes
        if note.kind in NOTE_CODES
    ]


#: The diagnostic each kind of note is told as (`env` notes are not told).
NOTE_CODES = {"unfollowed": "TG106", "bound": "TG106", "remade": "TG110"}


def registrations(
    effects: Iterable[Effect], presets: Sequence[Preset], roots: dict[int, Place] | None = None
) -> Registrations:
    """Handlers, mounts and TG106s of `effects` (`roots`: of those found by running a
    function nothing reached with arguments unknown, by id(), that function). A function registered
    through the same call with the same server more than once (a factory called twice) is one
    handler; so is one registered with a server toolgen can name and, elsewhere, with one it
    cannot (a registration function also evaluated with unknown arguments): the named one."""
    by_name = {p.name: p for p in presets}
    effects = list(effects)
    named = {
        (id(e.function.node), id(e.node))
        for e in effects
        if isinstance(e, Registered) and e.server is not None and e.server.key is not None
    }
    found = Registrations()
    seen: set[tuple[int, int, str | None, str]] = set()
    # tool classes a construction restates under the class's own name (with a description,
    # say): that construction is the tool the project uses, not the class's defaults
    restated = {
        id(e.tool.own.node) for e in effects if isinstance(e, ToolClassMade) and _restates(e)
    }
    for effect in effects:
        if isinstance(effect, Registered):
            server = effect.server.key if effect.server is not None else None
            values, unknown = _values(effect)
            # one registration made with other arguments (a factory called twice) is another
            key = (id(effect.function.node), id(effect.node), server, repr(values))
            if server is None and key[:2] in named:
                continue
            if key in seen or effect.preset not in by_name:
                continue
            seen.add(key)
            if isinstance(effect.function.node, ast.Lambda):  # a framework names it `<lambda>`
                message = "a lambda is registered: toolgen reads only `def` functions"
                where = effect.site.location(effect.node)
                found.unfollowed.append(Diagnostic("TG106", message, where))
                continue
            if dict(values).get(UNLISTED.get(effect.preset, "")) is False:
                continue  # registered disabled: the framework does not list it
            root = roots.get(id(effect)) if roots is not None else None
            handler = _handler(effect, by_name[effect.preset], server, values, unknown, root)
            found.handlers.append(handler)
        elif isinstance(effect, ToolClassMade) and effect.preset in by_name:
            # the class is a tool under its own name; a construction under another name is
            # another tool, one under the class's name is that tool as the project makes it
            values, unknown = _values(effect)
            key = (id(effect.tool.own.node), id(effect.call), None, repr(values))
            if key in seen or (effect.call is None and id(effect.tool.own.node) in restated):
                continue
            seen.add(key)
            made = _class_handler(effect, by_name[effect.preset], values, unknown, found)
            if made is not None:
                found.handlers.append(made)
        elif isinstance(effect, Mounted):
            parent, child = effect.parent.key, effect.child.key
            if parent is not None and child is not None:
                found.mounts.append(Mount(parent, child, effect.namespace, effect.tool_names))
        elif isinstance(effect, Note) and roots is not None and id(effect) in roots:
            found.weak_notes.extend((d, roots[id(effect)]) for d in _diagnostics([effect]))
        elif isinstance(effect, Note):
            found.unfollowed.extend(_diagnostics([effect]))
    # `@tool(...)` stacked with a framework's decorator is that tool's contract, not a tool
    # of its own (`toolgen.analyze.decorators.stacked_tool`)
    framework = {id(h.node) for h in found.handlers if not h.preset.native}
    found.handlers = [
        h for h in found.handlers if not (h.preset.native and id(h.node) in framework)
    ]
    return found


def _restates(effect: ToolClassMade) -> bool:
    """Whether a construction of a tool class that names itself makes the class's own tool:
    it gives no name, or the class's (a literal)."""
    own = effect.tool.attribute("name")
    if effect.call is None or own is None:
        return False
    known, unknown = _values(effect)
    values = dict(known)
    if "name" in unknown:
        return False
    written = own[0]
    same = isinstance(written, ast.Constant) and values.get("name") == written.value
    return "name" not in values or same


#: What a tool class must give itself for the framework to build it with no arguments.
CLASS_NEEDS = ("name", "description")


def _class_handler(
    effect: ToolClassMade,
    preset: Preset,
    values: tuple[tuple[str, Any], ...],
    unknown: frozenset[str],
    found: Registrations,
) -> Handler | None:
    """The handler a tool class (or a construction of one) is: its `_run`, with the class
    statement, or the constructor call, as the registration. None for an abstract class (no
    `_run`: the framework cannot build it), and, with a note, for one that leaves its name
    or description to code that constructs it where toolgen does not see it."""
    tool = effect.tool
    run = tool.binding("_run")
    if run is None:
        return None
    node, home = run
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        # `_run = helper`, a lambda: the framework runs it, but what it takes is not written
        # in the class; said once, at the assignment, for the class and its constructions
        message = (
            f"`{home.node.name}._run` is assigned, not a `def`: toolgen reads a tool "
            "class's parameters only from its `def _run`"
        )
        note = Diagnostic("TG106", message, home.module.location(node))
        if note not in found.unfollowed:
            found.unfollowed.append(note)
        return None
    own = tool.own
    given = {key for key, _ in effect.options}
    lacking = [key for key in CLASS_NEEDS if key not in given and tool.attribute(key) is None]
    unread = [key for key in CLASS_NEEDS if key in unknown]
    if unread and effect.call is not None:  # made from data toolgen cannot know (a loop over
        message = (  # what a request returns): there is no tool to publish by that name
            f"`{shown(effect.call)}` constructs a tool whose "
            + " and ".join(f"`{key}`" for key in unread)
            + " toolgen cannot know without running the code"
        )
        found.unfollowed.append(Diagnostic("TG106", message, effect.site.location(effect.call)))
        return None
    if lacking and effect.call is not None:
        message = (
            f"`{shown(effect.call)}` constructs a tool with no "
            + " or ".join(f"`{key}`" for key in lacking)
            + ": the framework cannot build it"
        )
        found.unfollowed.append(Diagnostic("TG106", message, effect.site.location(effect.call)))
        return None
    if lacking:
        message = (
            f"`{own.node.name}` is a tool class but gives no "
            + " or ".join(f"`{key}`" for key in lacking)
            + ": the code that constructs it does, which toolgen does not follow"
        )
        found.unfollowed.append(Diagnostic("TG106", message, own.module.location(own.node)))
        return None
    registration = effect.call if effect.call is not None else own.node.bases[0]
    site = effect.site if effect.call is not None else own.module
    return Handler(
        home.module,
        node,
        f"{effect.qualname}._run",  # what runs the tool: the run time calls `Class()._run`
        registration,
        True,
        False,
        preset,
        site=None if site is home.module else site,
        values=values,
        unknown=unknown,
        branches=effect.branches,
        tool_class=tool,
    )


def _values(
    effect: Registered | ToolClassMade,
) -> tuple[tuple[tuple[str, Any], ...], frozenset[str]]:
    """The registration's keyword arguments that the interpreter knows, as data; and those
    given that it cannot know."""
    known: list[tuple[str, Any]] = []
    unknown: set[str] = set()
    node = effect.node if isinstance(effect, Registered) else effect.call or effect.tool.own.node
    for key, value in effect.options:
        try:
            known.append((key, known_value(value, node)))
        except NotKnown:
            unknown.add(key)
    return tuple(known), frozenset(unknown)


def _handler(
    effect: Registered,
    preset: Preset,
    server: str | None,
    values: tuple[tuple[str, Any], ...],
    unknown: frozenset[str],
    root: Place | None,
) -> Handler:
    """The handler `effect` registers (`root`: the function run with arguments unknown that
    found it, if one was)."""
    function: Function = effect.function
    node = function.node
    assert not isinstance(node, ast.Lambda)
    site = None if effect.site is function.module else effect.site
    return Handler(
        function.module,
        node,
        function.qualname,
        effect.node,
        function.in_class,
        function.kind == "static",
        preset,
        effect.method,
        site,
        server,
        values,
        unknown,
        root=root,
        server_object=None if effect.server is None else id(effect.server),
        branches=effect.branches,
    )
