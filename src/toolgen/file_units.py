"""A source file's share of a compilation (`FileUnit`: what the unit cache stores), and how
the shares of several files agree on which one publishes a handler that more than one finds.

Each file is evaluated on its own (its top level, its console scripts, then its functions
nothing there reaches, run with arguments unknown): a file that calls a registration
function another file defines finds its handlers, and so does that file's own unit. Which
unit publishes a handler depends only on what each unit found (each unit evaluates what it
imports itself), so that a unit taken from the cache agrees with a fresh one. Equally
informed finds of one registration, under one name on one server, are one tool: the first
file's, by path (they differ in options only when two files call one registration function
with different ones, and a server keeps only one of them anyway).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from toolgen.analyze.handlers import Mount
from toolgen.diagnostics import Diagnostic, Location
from toolgen.policy import FileSuppressions
from toolgen.read.index import Dependencies


class Named(Protocol):
    """What a compilation holds of each tool: a descriptor, or what a spooled build keeps of
    it (`toolgen.render.sink.ToolParts`)."""

    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


@dataclass
class FileUnit(Generic[T]):
    """One source file's share of a compilation: what the unit cache stores and restores."""

    shown: str  # the file as shown to the user
    suppressions: FileSuppressions
    tools: list[tuple[T, Location]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    dependencies: Dependencies = field(default_factory=Dependencies)
    #: What `compile_project`'s `finish` made of each tool, in the order of `tools` (the
    #: pipeline renders them in the worker that compiled them).
    finished: list[Any] = field(default_factory=list)
    #: Handlers with errors, by the name each would have had, with where it is defined (a
    #: unit with any is never stored: it is empty when restored).
    left_out: list[tuple[str, Location]] = field(default_factory=list)
    #: For each of `left_out`: the name it claims (None when its name cannot be read), and
    #: the server it is registered with (None: not known). A duplicate is a duplicate
    #: whatever errors either twin has.
    claims: list[tuple[str | None, str | None]] = field(default_factory=list)
    #: The server each tool is registered with, in the order of `tools` (None: not known)
    servers: list[str | None] = field(default_factory=list)
    mounts: list[Mount] = field(default_factory=list)  # servers the file mounts in others
    #: For each of `tools`, and of `left_out`: where its registration is written, and how
    #: much the unit knew of it (`strength`)
    found: list[Found] = field(default_factory=list)
    failed_found: list[Found] = field(default_factory=list)
    #: Each handler's place, its registration's (`found`), and its diagnostics: a handler
    #: another unit knows more of is not this unit's to publish or report (`strongest_finds`).
    #: Also each TG106 of a function run with arguments unknown (strength -1, at its place)
    handlers: list[tuple[Location, Found, list[Diagnostic]]] = field(default_factory=list)
    #: Where the functions the file's evaluation ran are written: what another unit found by
    #: running one of them with arguments unknown is this one's to publish, or not
    reached: list[Place] = field(default_factory=list)
    #: Each handler of toolgen's own `@tool`: its place and its registration's. Stacked on a
    #: function a framework registers in another file, it is that tool's contract, not a tool
    #: (`without_stacked`)
    native: list[tuple[Location, Location]] = field(default_factory=list)

    def add_tool(
        self, tool: T, where: Location, server: str | None, found: Found, problems: list[Diagnostic]
    ) -> None:
        self.tools.append((tool, where))
        self.servers.append(server)
        self.found.append(found)
        self.handlers.append((where, found, problems))

    def add_failed(
        self,
        name: str,
        claim: str | None,
        where: Location,
        server: str | None,
        found: Found,
        problems: list[Diagnostic],
    ) -> None:
        self.left_out.append((name, where))
        self.claims.append((claim, server))
        self.failed_found.append(found)
        self.handlers.append((where, found, problems))

    def tool_servers(self) -> list[str | None]:
        """`servers`, one for each of `tools` (None where a unit holds fewer)."""
        return self.servers + [None] * (len(self.tools) - len(self.servers))

    def all_diagnostics(self) -> list[Diagnostic]:
        return self.diagnostics + [d for _, _, problems in self.handlers for d in problems]


#: Where a function is written (its file as read, line and column), and its dotted name.
Place = tuple[str, int, int, str]
#: Where a registration is written, how much its unit knew of it (`strength`), and the
#: function the unit ran with unknown arguments to find it, if it did (its `Place`).
Found = tuple[Location, int, Place | None]


def strength(server: str | None, weak: bool, known: int) -> int:
    """How much a unit knows of a registration: the arguments it knows (`known` of them), if
    it ran the function it is made in with arguments it cannot know (`weak`, a function
    nothing in the unit reaches), and if it can name the server. A file's registration
    function that another file calls is found by both units: the caller's knows more."""
    return 4 * known + (0 if weak else 2) + (0 if server is None else 1)


def strongest_finds(units: list[FileUnit[T] | None]) -> dict[tuple[Location, Location], int]:
    """The most any unit knows of each registration, by its handler's place and its own."""
    found: dict[tuple[Location, Location], int] = {}
    for unit in units:
        assert unit is not None
        for where, (at, known, _), _ in unit.handlers:
            found[where, at] = max(found.get((where, at), known), known)
    return found


def without_twins(
    units: list[FileUnit[T] | None],
    strongest: dict[tuple[Location, Location], int],
    reached: set[Place],
) -> list[FileUnit[T] | None]:
    """The units with each handler once. Two units find the same one when a file calls a
    registration function another file defines (whose own unit runs it with arguments it
    cannot know: its server, perhaps its name), or two files call the same server factory.
    A registration is published (or fails) from the units that know the most of it
    (`strongest`), and not at all from a function run with arguments unknown that another
    unit runs with its arguments (`reached`): the branches that one does not take register
    nothing. The same tool twice is one. (Units are copied: a cache may hold them.)"""
    seen: set[tuple[Location, str | None, str | None]] = set()

    def first(where: Location, name: str | None, server: str | None, found: Found) -> bool:
        at, known, root = found
        if (where, name, server) in seen or known < strongest.get((where, at), known):
            return False
        if root is not None and root in reached:
            return False
        seen.add((where, name, server))
        return True

    kept: list[FileUnit[T] | None] = []
    for unit in units:
        assert unit is not None
        kept.append(
            _keeping(
                unit,
                lambda entry, server, found: first(entry[1], entry[0].name, server, found),
                lambda entry, claim, found: first(entry[1], claim[0], claim[1], found),
            )
        )
    return kept


def _keeping(
    unit: FileUnit[T],
    tool: Callable[[tuple[T, Location], str | None, Found], bool],
    failed: Callable[[tuple[str, Location], tuple[str | None, str | None], Found], bool],
    **changed: Any,
) -> FileUnit[T]:
    """`unit` with the tools `tool` keeps and the left-out ones `failed` keeps (asked in
    that order), and what `changed` says; itself when that changes nothing."""
    finished = unit.finished + [None] * (len(unit.tools) - len(unit.finished))
    tools = [
        (entry, server, done, found)
        for entry, server, done, found in zip(
            unit.tools, unit.tool_servers(), finished, unit.found, strict=True
        )
        if tool(entry, server, found)
    ]
    left = [
        (entry, claim, found)
        for entry, claim, found in zip(unit.left_out, unit.claims, unit.failed_found, strict=True)
        if failed(entry, claim, found)
    ]
    if len(tools) == len(unit.tools) and len(left) == len(unit.left_out) and not changed:
        return unit
    return dataclasses.replace(
        unit,
        tools=[entry for entry, _, _, _ in tools],
        servers=[server for _, server, _, _ in tools],
        finished=[done for _, _, done, _ in tools][: len(unit.finished)],
        found=[found for _, _, _, found in tools],
        left_out=[entry for entry, _, _ in left],
        claims=[claim for _, claim, _ in left],
        failed_found=[found for _, _, found in left],
        **changed,
    )


def without_stacked(units: list[FileUnit[T] | None]) -> list[FileUnit[T] | None]:
    """The units without each `@tool` handler whose function a framework registers too: a
    call in another file (`mcp.tool()(fn)`) that the `@tool`'s own file does not see. The
    framework's tool reads the `@tool` as its contract (`toolgen.analyze.decorators.
    stacked_tool`); in one file, `toolgen.analyze.registered` already leaves it out."""
    native = {pair for unit in units if unit is not None for pair in unit.native}
    framework = {
        where
        for unit in units
        if unit is not None
        for where, (at, known, _), _ in unit.handlers
        if known >= 0 and (where, at) not in native
    }
    stacked = {(where, at) for where, at in native if where in framework}
    if not stacked:
        return units
    kept: list[FileUnit[T] | None] = []
    for unit in units:
        assert unit is not None
        if not any(pair in stacked for pair in unit.native):
            kept.append(unit)
            continue
        kept.append(
            _keeping(
                unit,
                lambda entry, server, found: (entry[1], found[0]) not in stacked,
                lambda entry, claim, found: (entry[1], found[0]) not in stacked,
                handlers=[h for h in unit.handlers if (h[0], h[1][0]) not in stacked],
            )
        )
    return kept


def with_alternatives(units: list[FileUnit[T] | None]) -> tuple[list[FileUnit[T] | None], set[str]]:
    """The units with a server for the tools of each function run with arguments unknown
    (nothing in the project calls it) that registers, on a server toolgen cannot tell, a
    tool of a name another such function registers too: the function's dotted name. A
    package may hold a set of tools per version, each registered by a function of its own,
    of which the server registers one, chosen where toolgen cannot see: each set is then a
    catalog, and none is dropped as a duplicate of another. And those names."""
    origins: dict[str, set[Place]] = {}
    for unit in units:
        assert unit is not None
        servers = unit.tool_servers()
        for (tool, _), server, (_, _, root) in zip(unit.tools, servers, unit.found, strict=True):
            if server is None and root is not None:
                origins.setdefault(tool.name, set()).add(root)
        for (claim, server), (_, _, root) in zip(unit.claims, unit.failed_found, strict=True):
            if claim is not None and server is None and root is not None:
                origins.setdefault(claim, set()).add(root)
    split = {root for roots in origins.values() if len(roots) > 1 for root in roots}
    if not split:
        return units, set()

    def server_of(server: str | None, found: Found) -> str | None:
        root = found[2]
        return root[3] if server is None and root in split else server

    kept: list[FileUnit[T] | None] = []
    for unit in units:
        assert unit is not None
        servers = unit.tool_servers()
        kept.append(
            dataclasses.replace(
                unit,
                servers=[server_of(s, f) for s, f in zip(servers, unit.found, strict=True)],
                claims=[
                    (claim, server_of(server, found))
                    for (claim, server), found in zip(unit.claims, unit.failed_found, strict=True)
                ],
            )
        )
    return kept, {root[3] for root in split}
