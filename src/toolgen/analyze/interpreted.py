"""The registration interpreter's effects (`toolgen.read.registration`) as the `Registrations`
that pattern matching (`toolgen.analyze.handlers.find_registrations`) gives, so that the
compiler can take either."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

from toolgen.analyze.handlers import Handler, Mount, Registrations
from toolgen.analyze.markers import Preset
from toolgen.diagnostics import Diagnostic
from toolgen.read.registration.effects import Effect, Mounted, Note, Registered
from toolgen.read.registration.values import Function


def registrations(effects: Iterable[Effect], presets: Sequence[Preset]) -> Registrations:
    """Handlers, mounts and TG106s of `effects`. A function registered through the same call
    with the same server more than once (a factory called twice) is one handler; so is one
    registered with a server toolgen can name and, elsewhere, with one it cannot (a
    registration function also evaluated with unknown arguments): the named one."""
    by_name = {p.name: p for p in presets}
    effects = list(effects)
    named = {
        (id(e.function.node), id(e.node))
        for e in effects
        if isinstance(e, Registered) and e.server is not None and e.server.key is not None
    }
    found = Registrations()
    seen: set[tuple[int, int, str | None]] = set()
    for effect in effects:
        if isinstance(effect, Registered):
            server = effect.server.key if effect.server is not None else None
            key = (id(effect.function.node), id(effect.node), server)
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
            found.handlers.append(_handler(effect, by_name[effect.preset], server))
        elif isinstance(effect, Mounted):
            parent, child = effect.parent.key, effect.child.key
            if parent is not None and child is not None:
                found.mounts.append(Mount(parent, child, effect.namespace, effect.tool_names))
        elif isinstance(effect, Note) and effect.kind in ("unfollowed", "bound"):
            where = effect.site.location(effect.node)
            found.unfollowed.append(Diagnostic("TG106", effect.message, where))
    return found


def _handler(effect: Registered, preset: Preset, server: str | None) -> Handler:
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
    )
