"""From handlers to descriptors: the analysis stages put together, one handler at a time.

`compile_project(config)` is the pure middle of toolgen: it reads source files, never imports
them, and returns descriptors plus diagnostics. Writing files is `toolgen.output`'s job.
"""

from __future__ import annotations

import ast
import collections
import difflib
import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol

from pydantic import ValidationError

from toolgen.analyze import tool_transforms
from toolgen.analyze.contract_layers import (
    Contract,
    Stated,
    classify_hint,
    disagreement,
    disagreements,
    merged,
    safety,
    table_layer,
    with_table,
)
from toolgen.analyze.decorators import DecoratorInfo, decorator_options, stacked_tool
from toolgen.analyze.docstrings import (
    PLACEHOLDER,
    DocLine,
    Docstring,
    Entry,
    docstring_node,
    parse_docstring,
)
from toolgen.analyze.folding import NotStatic, fold
from toolgen.analyze.framework_docs import agents_doc, pydantic_ai_doc
from toolgen.analyze.framework_facts import (
    UNSET,
    Returns,
    content_in,
    decorator_keyword,
    literal_title,
    param_fields,
    return_form,
)
from toolgen.analyze.framework_openai import (
    RULES,
    NotStrict,
    TooLarge,
    agents_function,
    langchain_function,
    pydantic_ai_function,
)
from toolgen.analyze.handlers import Handler, Mount, nested_too_deeply
from toolgen.analyze.langchain_docs import parsed_description, whole_description
from toolgen.analyze.listed import ListedTool
from toolgen.analyze.literals import surrogate_node, unwritable
from toolgen.analyze.markers import PRESETS, config_presets
from toolgen.analyze.publication import (
    ANNOTATION_KEYS,
    HINT_KEYS,
    HandlerFacts,
    framework_tool,
    registry_entry,
    renamed_entry,
)
from toolgen.analyze.registered import find_registrations
from toolgen.analyze.scopes import Scope
from toolgen.analyze.sections import SectionReader
from toolgen.analyze.signature import Param, exposed_parameters
from toolgen.analyze.tool_transforms import FunctionFacts, TransformProblem
from toolgen.analyze.types import (
    FIELD_CALLS,
    MISSING,
    FieldSpec,
    SchemaBuilder,
    TypeProblem,
    claimed,
    property_name,
)
from toolgen.config import Config
from toolgen.conformance import conformance_level, missing_by_level
from toolgen.descriptor import DEFAULT_RISK, Layer, ToolDescriptor
from toolgen.diagnostics import Diagnostic, Level, Location, cut, plural, sort_diagnostics
from toolgen.file_units import (
    FileUnit,
    Found,
    T,
    strength,
    strongest_finds,
    with_alternatives,
    without_stacked,
    without_twins,
)
from toolgen.frameworks import Framework, installed_framework
from toolgen.incremental.cache import file_sha
from toolgen.lint import LintContext, lint
from toolgen.listing import registry_edits, unlisted
from toolgen.names import name_problem
from toolgen.parallel import map_chunks
from toolgen.policy import FileSuppressions, Policy
from toolgen.read.discover import (
    Listing,
    SourceFile,
    list_sources,
    search_roots,
    skipped_diagnostics,
)
from toolgen.read.files import NO_OVERLAY, Overlay
from toolgen.read.index import Dependencies, Module, ModuleIndex, dotted_name
from toolgen.read.registration.effects import Transformed
from toolgen.read.registration.values import Function, HandleKey, handle_key
from toolgen.render.registry import CATALOG, reserved
from toolgen.schema_ops import closed_objects, expanded_size, inline_refs, size
from toolgen.validate import schema_errors, schema_problems

#: Decorator keywords stored under another descriptor field name.
DESCRIPTOR_KEYS = {"keywords": "tool_search_keywords", "reason": "confirmation_reason"}

#: The most values a tool's parameters or return schema may hold with its models inlined:
#: this many, and `EXPANSION` times as many as it holds as written (`within_expansion`).
MAX_EXPANDED = 100_000
EXPANSION = 10


def expansion_limit(schema: dict[str, Any]) -> int:
    """The most values `schema` may hold with its models inlined (`within_expansion`)."""
    return MAX_EXPANDED + EXPANSION * size(schema)


#: Every tool can reject invalid arguments: an error example may use this code undeclared, and
#: its arguments are expected not to fit the schema (that is what it shows).
IMPLICIT_ERROR = "VALIDATION_ERROR"


@dataclass
class Compilation(Generic[T]):
    descriptors: list[T] = field(default_factory=list)  # by name
    diagnostics: list[Diagnostic] = field(default_factory=list)
    locations: dict[str, Location] = field(default_factory=dict)  # tool name -> its def
    search_roots: list[str] = field(default_factory=list)  # where the modules import from
    suppressions: dict[str, FileSuppressions] = field(default_factory=dict)  # by shown path
    sources: Listing = field(default_factory=lambda: Listing([], [], set(), {}))
    inputs: Dependencies = field(default_factory=Dependencies)  # every file read, for the cache
    #: `finish`'s result for each new descriptor, by id() (with the descriptor, kept alive).
    finished: dict[int, tuple[T, Any]] = field(default_factory=dict)
    #: Handlers left out of the catalogs for their errors (or a name another one has), with
    #: where each is defined: the other tools are still written.
    left_out: list[tuple[str, Location]] = field(default_factory=list)
    #: With several servers, each tool's catalog, by id() of its descriptor (the descriptors
    #: held above keep them alive); `locations` are then keyed by `qualified` names
    catalog_of: dict[int, str] = field(default_factory=dict)
    #: Each descriptor's name as `qualified` gives it, in the order of `descriptors`
    names: list[str] = field(default_factory=list)


class UnitStore(Protocol):
    """Where compiled files are kept between runs (`toolgen.incremental.units.UnitCache`). `roots`
    are the search roots in order: a unit is valid for the same ones only."""

    def get(self, file: SourceFile, roots: tuple[str, ...]) -> FileUnit[ToolDescriptor] | None: ...

    def put(
        self, file: SourceFile, roots: tuple[str, ...], unit: FileUnit[ToolDescriptor]
    ) -> None: ...


def compile_project(
    config: Config,
    store: UnitStore | None = None,
    jobs: int = 1,
    finish: Callable[[ToolDescriptor], Any] | None = None,
    overlay: Overlay = NO_OVERLAY,
) -> Compilation[ToolDescriptor]:
    """Every handler under the configured sources. With a `store`, files whose bytes and
    dependencies did not change are taken from it instead of being analysed again; the
    others are analysed in `jobs` processes (`toolgen.parallel`), where `finish` is applied
    to each new descriptor too (its results: `Compilation.finished`). Files in `overlay` are
    read as an editor holds them, unsaved."""

    def make(
        unit: FileUnit[ToolDescriptor], file: SourceFile, roots: tuple[str, ...]
    ) -> FileUnit[ToolDescriptor]:
        if finish is not None:
            unit.finished = [finish(descriptor) for descriptor, _ in unit.tools]
        return unit

    lookup = store.get if store else None
    keep = store.put if store else None
    return compile_units(config, make, jobs, lookup, keep, renamed, overlay)


def renamed(descriptor: ToolDescriptor, name: str) -> ToolDescriptor:
    """`descriptor` under another name (a mounted server's tool): a new object, so nothing
    rendered for the old one is taken for it. The framework's entry is renamed as that
    framework renames it."""
    update: dict[str, Any] = {"name": name}
    block = descriptor.framework
    if block is not None and block.mcp is not None:
        entry = renamed_entry(Framework(block.name, block.version), block.mcp, name)
        update["framework"] = block.model_copy(update={"mcp": entry})
    elif block is not None and block.openai is not None:
        update["framework"] = block.model_copy(update={"openai": {**block.openai, "name": name}})
    return descriptor.model_copy(update=update)


#: A compiled file made into what a compilation keeps (in the process that compiled it).
Make = Callable[[FileUnit[ToolDescriptor], SourceFile, tuple[str, ...]], FileUnit[T]]
Lookup = Callable[[SourceFile, tuple[str, ...]], FileUnit[T] | None]


def compile_units(
    config: Config,
    make: Make[T],
    jobs: int = 1,
    lookup: Lookup[T] | None = None,
    keep: Callable[[SourceFile, tuple[str, ...], FileUnit[T]], None] | None = None,
    rename: Callable[[T, str], T] | None = None,
    overlay: Overlay = NO_OVERLAY,
) -> Compilation[T]:
    """`compile_project`, for any form of unit: each file is taken from `lookup` (given the
    search roots), or else analysed in one of `jobs` processes and made into a unit by `make`
    there, then handed to `keep` here. A tool of a server mounted into another under a
    namespace gets the name that server lists it by, from `rename`."""
    files, listing = list_sources(config.sources, config.root)
    roots_found = search_roots(files, config.root)
    index = ModuleIndex(
        roots_found,
        lambda p: config.display(p),
        config.max_source_bytes,
        config.library_paths,
        config.root,
        config.sources,
        overlay,
    )
    result: Compilation[T] = Compilation(search_roots=[str(r) for r in index.search_roots])
    result.sources = listing
    result.diagnostics.extend(skipped_diagnostics(listing, config.display))
    result.diagnostics.extend(_unknown_decorators(config, index))
    policy = config.policy()
    roots = tuple(result.search_roots)
    units: list[FileUnit[T] | None] = [lookup(f, roots) if lookup else None for f in files]
    missed = [i for i, unit in enumerate(units) if unit is None]
    shared: set[str] = set()  # modules that some file used besides its own

    def work(chunk: list[int]) -> list[FileUnit[T]]:
        return [
            make(compile_file(files[i], index, config, policy, shared), files[i], roots)
            for i in chunk
        ]

    for i, fresh in zip(missed, map_chunks(missed, work, jobs), strict=True):
        units[i] = fresh
        if keep:
            keep(files[i], roots, fresh)
    strongest = strongest_finds(units)
    reached = {where for unit in units if unit is not None for where in unit.reached}
    units = without_stacked(without_twins(units, strongest, reached))
    units, alternatives = with_alternatives(units)
    parents: dict[str, Mount] = {}
    for unit in units:
        assert unit is not None
        for mount in unit.mounts:
            parents.setdefault(mount.child, mount)
    # the names contract tables may give: each tool's own, before a mount renames it
    own_names = {tool.name for unit in units if unit for tool, _ in unit.tools}
    own_names |= {name for unit in units if unit for name, _ in unit.left_out}
    result.diagnostics.extend(unknown_tables(config, own_names))
    tops: list[list[str | None]] = []  # each unit's tools' top servers
    #: tools whose name at the server they are mounted into is no tool name (TG103), by id()
    misnamed: dict[int, Diagnostic] = {}
    for unit in units:
        assert unit is not None
        servers = unit.tool_servers()
        if parents and rename is not None:
            unit.tools = [
                (_mounted(tool, server, parents, rename, config.platforms, misnamed, where), where)
                for (tool, where), server in zip(unit.tools, servers, strict=True)
            ]
        tops.append([_top(server, parents) for server in servers])
    failed = {_top(server, parents) for unit in units if unit for _, server in unit.claims}
    # a server whose handlers all have errors is a catalog still: fixing them moves nothing
    names, refused = catalog_names({top for unit_tops in tops for top in unit_tops} | failed)
    #: each (catalog, name) claimed: every claimant's place and its tool (None: left out for
    #: its errors), in the order the files are read
    claims: dict[tuple[str, str], list[tuple[Location, T | None]]] = {}
    unnamed: dict[str, list[Location]] = {}  # the tools of each refused catalog's server
    for unit, unit_roots in zip(units, tops, strict=True):
        assert unit is not None
        result.suppressions[unit.shown] = unit.suppressions
        result.diagnostics.extend(unit.diagnostics)
        for where, (written, known, origin), problems in unit.handlers:
            if known == strongest[where, written] and origin not in reached:
                result.diagnostics.extend(problems)
        result.inputs.merge(unit.dependencies)
        result.left_out.extend(unit.left_out)
        for (tool, _), done in zip(unit.tools, unit.finished, strict=False):
            result.finished[id(tool)] = (tool, done)
        for (tool, where), root in zip(unit.tools, unit_roots, strict=True):
            if id(tool) in misnamed:
                result.diagnostics.append(misnamed[id(tool)])
                result.left_out.append((tool.name, where))
                continue
            if root in refused:
                unnamed.setdefault(str(root), []).append(where)
                result.left_out.append((tool.name, where))
                continue
            claims.setdefault((names.get(root, ""), tool.name), []).append((where, tool))
        for (claim, server), (_, where) in zip(unit.claims, unit.left_out, strict=True):
            top = _top(server, parents)
            if claim is not None and top not in refused:
                name = _mounted_name(claim, server, parents)
                claims.setdefault((names.get(top, ""), name), []).append((where, None))
    for (catalog, name), claimants in claims.items():
        key = qualified(catalog, name)
        if len(claimants) == 1:
            where, owner = claimants[0]
            if owner is not None:
                result.locations[key] = where
                result.descriptors.append(owner)
                if catalog:
                    result.catalog_of[id(owner)] = catalog
            continue
        # published by none of them while they share it: fixing one's error, or the order
        # the files are read in, never changes which handler answers to the name
        for at, (where, owner) in enumerate(claimants):
            others = ", ".join(str(w) for i, (w, _) in enumerate(claimants) if i != at)
            result.diagnostics.append(
                Diagnostic(
                    "TG102",
                    f"tool name `{cut(name)}` is already used by the handler at "
                    f"{others}"
                    + (f" (catalog {catalog})" if catalog else "")
                    + f"; {'neither' if len(claimants) == 2 else 'none'} is published until "
                    "the name is unique",
                    where,
                )
            )
            if owner is not None:
                result.left_out.append((key, where))
    for root, places in unnamed.items():
        message = (
            f"{plural(len(places), 'tool')} of server `{root}` left out: {refused[root]}; "
            "assign the server to a name of ASCII letters, digits and underscores"
        )
        result.diagnostics.append(Diagnostic("TG020", message, min(places)))
    unplaced = names.get(None)  # several servers, and tools on one toolgen cannot tell
    other = _placed_in(result.locations, unplaced)
    if other:
        message = (
            f"{len(other)} tools are registered on a server toolgen cannot tell among several "
            f"(a parameter, `self.mcp`): they are in catalog `{names[None]}`"
        )
        result.diagnostics.append(Diagnostic("TG106", message, other[0]))
    for server in sorted(alternatives):
        folder = names.get(server)
        mine = _placed_in(result.locations, folder)
        if mine:
            message = (
                f"catalog `{folder}`: the {plural(len(mine), 'tool')} `{cut(server)}` "
                "registers on a server toolgen cannot tell (nothing in the project calls it), "
                "of which another such function registers some names too: a server registers "
                "one of these sets, chosen where toolgen cannot see"
            )
            result.diagnostics.append(Diagnostic("TG106", message, min(mine)))
    if not result.descriptors and not result.left_out:
        result.diagnostics.append(_nothing_found(config, files, index, result.diagnostics))
    for framework in config.frameworks:  # its installed version shapes the MCP entries
        sha = file_sha(framework.origin) if framework.installed else None
        if sha is not None:
            result.inputs.read[framework.origin] = sha
    result.left_out.sort(key=lambda entry: (entry[1], entry[0]))  # whichever way each came
    result.descriptors.sort(key=lambda d: (result.catalog_of.get(id(d), ""), d.name))
    result.names = [qualified(result.catalog_of.get(id(d), ""), d.name) for d in result.descriptors]
    result.diagnostics = sort_diagnostics(policy.apply(result.diagnostics, result.suppressions))
    return result


def unknown_tables(config: Config, written: set[str]) -> list[Diagnostic]:
    """TG021 for each contract table whose name no tool has (nor a tool left out)."""
    found: list[Diagnostic] = []
    for name, entry in config.contract.items():
        if name in written:
            continue
        # a near name helps a typo; asked of the first few only (each compares with all)
        close = difflib.get_close_matches(name, sorted(written), n=1) if len(found) < 10 else []
        hint = f" (did you mean {close[0]}?)" if close else ""
        message = f"contract table `{cut(name)}` names no tool{hint}"
        found.append(Diagnostic("TG021", message, entry.at))
    return found


def _placed_in(locations: dict[str, Location], catalog: str | None) -> list[Location]:
    """Where the tools of `catalog` (`catalog/name` in `locations`) are defined."""
    return [w for key, w in locations.items() if catalog and key.startswith(f"{catalog}/")]


def qualified(catalog: str, name: str) -> str:
    """How a tool is named across catalogs: `catalog/name` ("name" with one catalog)."""
    return f"{catalog}/{name}" if catalog else name


def catalog_names(roots: set[str | None]) -> tuple[dict[str | None, str], dict[str, str]]:
    """The catalog of each top server (`toolgen.analyze.servers.server_key`; None: a server
    toolgen cannot tell), when there is more than one server: the name it is assigned to
    (`mcp`), or its whole dotted path when two servers share that name or it is a name `out`
    reserves (`toolgen.render.registry.reserved`); `other` for tools whose server cannot be
    told. A name taken already (in any case: a file system may ignore it) gets a `_` before
    it. With one server or none, {}: one catalog, today's layout. And the servers whose
    catalog cannot be a folder's name (`toolgen.render.registry.CATALOG`), with why."""
    known = sorted(root for root in roots if root is not None)
    if len(known) < 2:
        return {}, {}
    taken = {name.casefold() for name in reserved()}
    short = {root: root.rpartition(".")[2] for root in known}
    count = collections.Counter(name.casefold() for name in short.values())
    names: dict[str | None, str] = {}
    refused: dict[str, str] = {}
    for root in known:
        name = short[root]
        if count[name.casefold()] > 1 or name.casefold() in taken:
            name = root
        while name.casefold() in taken:
            name = f"_{name}"
        if not name.isascii() or not re.fullmatch(CATALOG, name):
            why = "is not ASCII" if not name.isascii() else "is no folder name toolgen writes"
            if len(name) > 200:
                why = "is longer than 200 characters"
            refused[root] = f"its catalog's folder would be `{cut(name)}`, which {why}"
            continue
        taken.add(name.casefold())
        names[root] = name
    if None in roots:
        name = "other"
        while name.casefold() in taken:
            name = f"_{name}"
        names[None] = name
    return names, refused


def _chain(server: str | None, parents: dict[str, Mount]) -> list[Mount]:
    """The mounts from `server` up to the server that finally lists its tools (a loop of
    mounts is followed once round)."""
    chain: list[Mount] = []
    seen = set()
    while server is not None and server in parents and server not in seen:
        seen.add(server)
        chain.append(parents[server])
        server = parents[server].parent
    return chain


def _top(server: str | None, parents: dict[str, Mount]) -> str | None:
    """The server `server`'s tools are finally listed by (mounted ones: the top server)."""
    chain = _chain(server, parents)
    return chain[-1].parent if chain else server


def _mounted(
    tool: T,
    server: str | None,
    parents: dict[str, Mount],
    rename: Callable[[T, str], T],
    platforms: tuple[str, ...],
    misnamed: dict[int, Diagnostic],
    where: Location,
) -> T:
    """`tool` by the name the server it is mounted into lists it, up to the top server; as
    it is, and in `misnamed` (TG103), when that is no tool name (a namespace too long)."""
    name = _mounted_name(tool.name, server, parents)
    if name == tool.name:
        return tool
    problem = name_problem(name, platforms)
    if problem is not None:
        message = f"`{tool.name}` is mounted as `{cut(name)}`: {cut(problem)}"
        misnamed[id(tool)] = Diagnostic("TG103", message, where)
        return tool
    return rename(tool, name)


def _mounted_name(name: str, server: str | None, parents: dict[str, Mount]) -> str:
    """The name a tool `name` of `server` is listed by at the top server (FastMCP: renamed
    by each mount's `tool_names`, then `namespace_` before it)."""
    for mount in _chain(server, parents):
        name = dict(mount.tool_names).get(name, name)
        if mount.namespace:
            name = f"{mount.namespace}_{name}"
    return name


def _nothing_found(
    config: Config, files: list[SourceFile], index: ModuleIndex, found: list[Diagnostic]
) -> Diagnostic:
    """No tool anywhere: TG107 (an error) when a framework's marker is configured, else TG104,
    saying what looked like a registration: another framework's (whose marker would find
    it), and what toolgen could not follow (TG106)."""
    sources = ", ".join(config.display(s) for s in config.sources)
    frameworks = [m for m in config.markers if m != "toolgen"] + [
        p for _, p, _ in config.decorators
    ]
    markers = ", ".join(f'"{m}"' for m in config.markers)
    message = f"no tool found in {sources} with markers = [{markers}]"
    others = _other_frameworks(config, files, index)
    for name, where in others.items():
        shown = ", ".join(str(w) for w in where[:3]) + (", ..." if len(where) > 3 else "")
        message += f'; {len(where)} {name} registrations ({shown}): add "{name}" to markers'
    unfollowed = [d.location for d in found if d.code == "TG106" and d.location]
    if unfollowed:
        shown = ", ".join(str(w) for w in unfollowed[:3]) + (", ..." if len(unfollowed) > 3 else "")
        message += f"; registrations toolgen cannot follow (TG106): {shown}"
    if not frameworks:
        return Diagnostic("TG104", message)
    return Diagnostic("TG107", message, config.markers_at)


def _other_frameworks(
    config: Config, files: list[SourceFile], index: ModuleIndex
) -> dict[str, list[Location]]:
    """Where the sources register tools with a framework whose marker is not configured, by
    preset (only asked when nothing was found: it reads every source again)."""
    others = [p for name, p in PRESETS.items() if name not in config.markers]
    found: dict[str, list[Location]] = {}
    for file in files:
        module = index.add_file(file.module, file.path)
        if module is None:
            continue
        for handler in find_registrations(module, index, others).handlers:
            found.setdefault(handler.preset.name, []).append(handler.at.location(handler.decorator))
    return found


def _unknown_decorators(config: Config, index: ModuleIndex) -> list[Diagnostic]:
    """TG002 for each `[tool.toolgen.decorators]` entry whose path names no function toolgen
    can read (a misspelt path would otherwise find no tool, silently)."""
    found = []
    for path, _, where in config.decorators:
        symbol = index.find(path)
        if symbol is None or symbol.kind not in ("function", "assign", "class"):
            why = "no such module" if symbol is None else f"it names a {symbol.kind}"
            message = f"[tool.toolgen] decorators: {path} names no decorator here ({why})"
            found.append(Diagnostic("TG002", message, where))
    return found


def compile_file(
    file: SourceFile, index: ModuleIndex, config: Config, policy: Policy, shared: set[str]
) -> FileUnit[ToolDescriptor]:
    """The handlers of one file, and everything their analysis read (for the unit cache).
    `shared` collects the modules that files have used besides their own: the file's module
    is released from the index afterwards unless it is one of them."""
    unit: FileUnit[ToolDescriptor] = FileUnit(config.display(file.path), FileSuppressions())
    with index.tracking() as touched:
        module = index.add_file(file.module, file.path)
        if module is not None:
            unit.suppressions = FileSuppressions.parse(module.source)
            others: dict[str, FileSuppressions] = {}  # of other modules a tool is written in

            def ignores_of(home: Module) -> FileSuppressions:
                """The ignore comments of the file `home` is: this one's, or another's."""
                if home is module:
                    return unit.suppressions
                return others.setdefault(home.shown, FileSuppressions.parse(home.source))

            read: dict[int, FunctionFacts | str] = {}  # each `transform_fn`, read once
            entries = [name for owner, name in config.scripts if owner == file.module]
            presets, env = config_presets(config), dict(config.env)
            found = find_registrations(module, index, presets, env, entries)
            unit.reached = sorted(found.reached)
            unit.mounts = found.mounts
            unit.diagnostics.extend(found.unfollowed)
            for note, root in found.weak_notes:  # told unless another unit runs `root`
                if note.location is None:
                    unit.diagnostics.append(note)
                else:
                    unit.handlers.append((note.location, (note.location, -1, root), [note]))
            for listed in found.listed:
                if listed.transform is not None:  # a tool a server's transform made
                    listed, noted = transformed(listed, listed.transform, index, config, read)
                    unit.diagnostics.extend(noted)
                ignores = ignores_of(listed.module)
                descriptor, problems = compile_listed(listed, config, policy, ignores)
                where = listed.module.location(listed.node)
                # a listed tool is known whole or not at all; many share one place (a
                # comprehension of `Tool(...)`, a converted OpenAPI document)
                known: Found = (where, strength(listed.server, False, 0), None)
                name = listed.entry["name"]
                if descriptor is not None:
                    unit.add_tool(descriptor, where, listed.server, known, problems)
                else:
                    unit.add_failed(name, name, where, listed.server, known, problems)
            compiled: list[tuple[Handler, ToolDescriptor]] = []
            placed: list[tuple[int, Handler, ToolDescriptor]] = []  # and where in `unit.tools`
            # each tool's entry as the framework's registry holds it, if the code reads that
            forms: dict[HandleKey, dict[str, Any]] | None = {} if found.registry else None
            for handler in found.handlers:
                node, home = handler.node, handler.module
                ignores = ignores_of(home)
                first = min([d.lineno for d in node.decorator_list] + [node.lineno])
                ignores.add_handler(first, node.lineno, node.end_lineno or node.lineno)
                descriptor, problems = compile_handler(
                    handler, index, config, policy, ignores, forms
                )
                where = home.location(node)
                at = handler.at.location(handler.decorator)
                known = (
                    at,
                    strength(handler.server, handler.weak, len(handler.values)),
                    handler.root,
                )
                if handler.preset.native:
                    unit.native.append((where, at))
                if descriptor is not None:
                    placed.append((len(unit.tools), handler, descriptor))
                    unit.add_tool(descriptor, where, handler.server, known, problems)
                    compiled.append((handler, descriptor))
                else:
                    name, claimed = intended_name(handler, index)
                    claim = name if claimed else None
                    unit.add_failed(name, claim, where, handler.server, known, problems)
            unlisted(unit, placed)
            if forms:
                run = (module, index, presets, env, entries)
                edits = registry_edits(run, config, compiled, forms, found.registry)
                unit.diagnostics.extend(edits)
    if unit.tools and not importable(file.module):
        unit.diagnostics.append(
            Diagnostic(
                "TG105",
                f"module `{file.module}` cannot be imported by that name (every part must be a "
                "Python identifier): rename the file or folder",
                Location(unit.shown, 1, 1),
            )
        )
    unit.dependencies = index.dependencies(touched)
    unit.diagnostics.extend(unit.dependencies.problems)
    shared.update(touched - {file.module})
    if file.module not in shared:  # no other file has used it so far: free its syntax tree
        index.release(file.module)
    return unit


def transformed(
    listed: ListedTool,
    spec: Transformed,
    index: ModuleIndex,
    config: Config,
    read: dict[int, FunctionFacts | str] | None = None,
) -> tuple[ListedTool, list[Diagnostic]]:
    """`listed` with the entry FastMCP makes by transforming it (`Tool.from_tool`); as it was
    given to the transform, with a TG106 note, when that cannot be known."""
    framework = config.publisher("fastmcp") or installed_framework("fastmcp")

    known = {} if read is None else read

    def facts_of(function: Function) -> FunctionFacts | str:
        if id(function.node) not in known:
            known[id(function.node)] = transform_fn_facts(function, index, config)
        return known[id(function.node)]

    try:
        made = tool_transforms.entry(spec, facts_of, framework)
    except TransformProblem as exc:
        name = listed.entry.get("name")
        message = (
            f"`{name}`: what `Tool.from_tool` makes of it cannot be known ({exc.why}); it is "
            "published untransformed"
        )
        return replace(listed, transform=None), [
            Diagnostic("TG106", message, exc.spec.site.location(exc.spec.node))
        ]
    return replace(listed, entry=made, transform=None), []


def transform_fn_facts(
    function: Function, index: ModuleIndex, config: Config
) -> FunctionFacts | str:
    """What FastMCP reads of a `transform_fn`: the handler analysis of it as a FastMCP tool
    (its `**kwargs` skipped: FastMCP forwards them); a reason when it cannot be read."""
    node = function.node
    if isinstance(node, ast.Lambda):
        return "a lambda"
    kwargs = node.args.kwarg.arg if node.args.kwarg is not None else None
    skipped = config.skip_params + ((kwargs,) if kwargs else ())
    call = ast.copy_location(ast.Call(ast.Name("tool", ast.Load()), [], []), node)
    handler = Handler(
        function.module,
        node,
        function.qualname,
        call,
        function.in_class,
        function.kind == "static",
        PRESETS["fastmcp"],
        "tool",
    )
    settings = replace(config, skip_params=skipped, min_level=0)
    descriptor, problems = compile_handler(handler, index, settings)
    made = descriptor.framework.mcp if descriptor and descriptor.framework else None
    if made is None:
        errors = [p for p in problems if p.severity is Level.ERROR]
        return errors[0].message if errors else "no FastMCP entry is made of it"
    return FunctionFacts(
        made.get("inputSchema", {}),
        made.get("outputSchema"),
        tool_transforms.returns_tool_result(function),
        kwargs is not None,
    )


def entry_field_problems(entry: dict[str, Any]) -> list[str]:
    """What of a listed entry's fields the MCP `Tool` model refuses (its schemas are checked
    apart): a title or description that is no string, annotations that are no object or whose
    title is no string or hints no booleans, a `_meta` that is no object."""
    wrong = [
        f"its {key} is no string"
        for key in ("title", "description")
        if entry.get(key) is not None and not isinstance(entry[key], str)
    ]
    annotations = entry.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        wrong.append("its annotations are no object")
    elif annotations is not None:
        title = annotations.get("title")
        if title is not None and not isinstance(title, str):
            wrong.append("its annotations' title is no string")
        wrong.extend(
            f"its annotations' {hint} is no boolean"
            for hint in HINT_KEYS.values()
            if annotations.get(hint) is not None and not isinstance(annotations[hint], bool)
        )
    if entry.get("_meta") is not None and not isinstance(entry["_meta"], dict):
        wrong.append("its _meta is no object")
    return wrong


def unclassified(
    contract: Contract, name: str, native: bool, config: Config, where: Location
) -> list[Diagnostic]:
    """TG406 when no layer states the tool's risk (DESIGN §3: every tool is classified): a
    warning, an error from `min_level` 1 on, with the one line that classifies it."""
    if "risk" in contract.origins:
        return []
    file = config.display(config.contract_file) if config.contract_file is not None else None
    level = Level.ERROR if config.min_level >= 1 else Level.WARNING
    return [Diagnostic("TG406", classify_hint(name, native, file), where, level)]


def compile_listed(
    listed: ListedTool, config: Config, policy: Policy, ignores: FileSuppressions
) -> tuple[ToolDescriptor | None, list[Diagnostic]]:
    """The descriptor of a tool a low-level server lists: its entry as written is what the
    server publishes; the canonical descriptor takes its name, description and schemas."""
    entry = listed.entry
    where = listed.module.location(listed.node)
    problems: list[Diagnostic] = []
    problem = name_problem(entry["name"], config.platforms)
    if problem is not None:
        problems.append(Diagnostic("TG103", problem, where))
    for key in ("inputSchema", "outputSchema"):
        schema = entry.get(key)
        wrong = schema_problems(schema) if schema is not None else []
        if wrong:
            message = f"`{entry['name']}`: its {key} is no JSON Schema: {cut(str(wrong[0]))}"
            problems.append(Diagnostic("TG403", message, where))
        elif schema is not None and schema.get("type") != "object":
            message = f"`{entry['name']}`: its {key} is no object schema (MCP lists objects)"
            problems.append(Diagnostic("TG403", message, where))
    for wrong_field in entry_field_problems(entry):
        problems.append(Diagnostic("TG403", f"`{entry['name']}`: {wrong_field}", where))
    if any(p.severity is Level.ERROR for p in problems):
        return None, policy.apply(problems, {listed.module.shown: ignores})
    contract, errors, examples = _listed_contract(entry, config, problems, where)
    data: dict[str, Any] = {
        "name": entry["name"],
        # a tool listed without a description still needs one in the descriptor
        "description": entry.get("description") or entry["name"],
        "parameters": entry["inputSchema"],
        "returns": {"schema": entry.get("outputSchema", {})},
        "errors": errors,
        "idempotency": contract.hints,
        "examples": examples,
        "risk": DEFAULT_RISK,
        "source": {
            "module": listed.lister_module,
            "qualname": listed.lister_qualname,
            "marker": "mcp",
        },
    }
    for key, value in contract.options.items():
        data[DESCRIPTOR_KEYS.get(key, key)] = value
    settled, findings = safety(contract)
    data.update(settled)
    for code, message, key in findings:
        problems.append(Diagnostic(code, message, contract.places.get(key, where)))
    if contract.origins:
        data["origins"] = dict(sorted(contract.origins.items()))
    if any(p.severity is Level.ERROR for p in problems):
        return None, policy.apply(problems, {listed.module.shown: ignores})
    if isinstance(entry.get("title"), str):
        data["title"] = entry["title"]
    publisher = config.publisher("mcp")
    if publisher is not None:
        data["framework"] = {"name": publisher.name, "version": publisher.version, "mcp": entry}
    descriptor: ToolDescriptor | None = None
    unfit = unwritable(data)
    if unfit is not None:
        problems.append(Diagnostic(unfit[0], f"`{entry['name']}` {unfit[1]}", where))
    else:
        try:
            descriptor = ToolDescriptor.model_validate(data)
        except ValidationError as exc:
            for error in exc.errors():
                path = ".".join(str(p) for p in error["loc"])
                # a table's value: where it is written
                at = contract.places.get(stated_key(error["loc"], data), where)
                problems.append(Diagnostic("TG403", f"`{path}`: {error['msg']}", at))
    problems = policy.apply(problems, {listed.module.shown: ignores})
    if any(p.severity is Level.ERROR for p in problems):
        return None, problems
    return descriptor, problems


#: The contract values a docstring lists in a section of bullets: key, the section's title.
BULLET_SECTIONS = (("side_effects", "side effects"), ("permissions", "permissions"))

#: A descriptor field -> the contract key that states it, where the two names differ.
STATED_AS = {field: key for key, field in DESCRIPTOR_KEYS.items()}


def stated_key(loc: tuple[int | str, ...], data: dict[str, Any]) -> str:
    """The contract key (as `Contract.places` holds it) of the descriptor value a validation
    error's `loc` is about, in the descriptor's `data`: a hint as `idempotency.<hint>`, an
    error as `errors.<CODE>`, another field by its keyword."""
    field = str(loc[0]) if loc else ""
    if field == "idempotency" and len(loc) > 1:
        return f"idempotency.{loc[1]}"
    if field == "errors" and len(loc) > 1 and isinstance(loc[1], int):
        return f"errors.{data['errors'][loc[1]].get('code')}"
    return STATED_AS.get(field, field)


def _listed_contract(
    entry: dict[str, Any], config: Config, problems: list[Diagnostic], where: Location
) -> tuple[Contract, list[dict[str, Any]], list[dict[str, Any]]]:
    """A listed tool's contract: its annotations' hints (the framework's layer) under its
    contract table, with the table's errors and examples (checked against its schemas); and
    TG406 when neither states its risk."""
    annotations = entry.get("annotations") or {}
    hints = {
        key: annotations[hint]
        for key, hint in HINT_KEYS.items()
        if key != "title" and isinstance(annotations.get(hint), bool)
    }
    table = config.contract.get(entry["name"])
    layers = [Stated("framework", hints=hints)]
    if table is not None:
        layers.append(table_layer(table))
    contract = merged(layers)
    errors: list[dict[str, Any]] = []
    examples: list[dict[str, Any]] = []
    if table is not None:
        errors, found, more = with_table(table, [], contract)
        problems.extend(more)
        declared = {e["code"] for e in errors} | {IMPLICIT_ERROR}
        for example, at in found:
            wrong = example_problems(
                example, at, entry["inputSchema"], entry.get("outputSchema", {}), declared
            )
            problems.extend(wrong)
            if not wrong:
                examples.append(example)
    problems.extend(unclassified(contract, entry["name"], False, config, where))
    return contract, errors, examples


def intended_name(handler: Handler, index: ModuleIndex) -> tuple[str, bool]:
    """The name a handler that failed would have had: its registration's, else its own; and
    whether that is its name (not when the registration gives one that cannot be read)."""
    try:
        options = decorator_options(handler, index)
    except RecursionError:  # its options nest too deeply: compile_handler says so (TG202)
        return handler.node.name, False
    name = options.options.get("name")
    if isinstance(name, str):
        return name, True
    return handler.node.name, "name" not in options.unread


def importable(module: str) -> bool:
    """Whether `import module` can name it: dotted Python identifiers, none a keyword."""
    return all(part.isidentifier() and not keyword.iskeyword(part) for part in module.split("."))


def compile_handler(
    handler: Handler,
    index: ModuleIndex,
    config: Config,
    policy: Policy | None = None,
    ignores: FileSuppressions | None = None,
    forms: dict[HandleKey, dict[str, Any]] | None = None,
) -> tuple[ToolDescriptor | None, list[Diagnostic]]:
    """The descriptor of one handler, or None when it has an error; and every diagnostic
    (configured levels and `# toolgen: ignore[...]` comments applied). With `forms`, its
    entry as the framework's registry holds it is kept there (`registry_edits`)."""
    try:
        ignored = {handler.module.shown: ignores} if ignores else {}
        return _HandlerCompiler(handler, index, config, policy or Policy(), ignored, forms).run()
    except RecursionError:
        return None, [nested_too_deeply(handler)]


class _HandlerCompiler:
    """One handler's analysis: each block of the descriptor from its own method."""

    def __init__(
        self,
        handler: Handler,
        index: ModuleIndex,
        config: Config,
        policy: Policy,
        ignores: dict[str, FileSuppressions],
        forms: dict[HandleKey, dict[str, Any]] | None = None,
    ) -> None:
        self.policy = policy
        self.ignores = ignores
        #: where its entry as the framework's registry holds it goes (`registry_edits`)
        self.forms = forms
        self.params: list[Param] = []
        self.handler = handler
        self.module = handler.module
        self.node = handler.node
        self.index = index
        self.config = config
        self.problems: list[Diagnostic] = []
        # a tool class's `_run` docstring is its code's business: the class describes the tool
        self.doc = (
            Docstring()
            if handler.tool_class is not None
            else parse_docstring(self.node, config.docstring_style) or Docstring()
        )
        self.from_doc: set[str] = set()  # properties whose description is the docstring's
        self.keys: dict[str, str] = {}  # parameter name -> its property's name
        self.canonical_parameters: dict[str, Any] = {}  # before a preset's inlining
        self.described: str | None = None  # the description the framework has, if any
        self.preset = handler.preset
        self.decorator = decorator_options(handler, index)
        self.problems.extend(self.decorator.problems)
        if self.preset.griffe_reader and handler.tool_class is None:
            self.doc = self.griffe_read(self.doc)
        #: the framework reads the docstring as text (LangChain's `@tool` without
        #: `parse_docstring`): the whole of it describes the tool, nothing a parameter
        self.whole_docstring = (
            self.preset.whole_docstring
            and handler.tool_class is None
            and not self.decorator.parse_docstring
        )

    def report(self, code: str, message: str, node: ast.AST | Location | None) -> None:
        """A problem at `node` of the handler's module, or at a location already made."""
        where = node if isinstance(node, Location) else self.module.location(node)
        self.problems.append(Diagnostic(code, message, where))

    def option_at(self, key: str) -> Location:
        """Where the registration gives option `key`, else the registration itself (both
        written where the registration is: a decorator, or a call in another module)."""
        node = self.decorator.nodes.get(key, self.handler.decorator)
        return self.handler.at.location(node)

    def failed(self) -> bool:
        self.problems = self.policy.apply(self.problems, self.ignores)
        return any(p.severity is Level.ERROR for p in self.problems)

    def run(self) -> tuple[ToolDescriptor | None, list[Diagnostic]]:
        options, option_nodes = dict(self.decorator.options), self.decorator.nodes
        given_description = options.get("description")
        description = options.pop("description", None) or self.docstring_description()
        self.described = description  # before a missing one is made the tool's name
        name = options.get("name", self.node.name)
        problem = name_problem(name, self.config.platforms)
        if problem is not None:
            self.report(
                "TG103", problem, self.option_at("name") if "name" in option_nodes else self.node
            )
            name = self.node.name
        before = len(self.problems)
        parameters_schema = self.parameters_schema()
        returns_schema = self.returns_schema()
        self.within_expansion("return", returns_schema)  # the parameters': before inlining
        # a signature or type error leaves a schema short: examples cannot be checked with it
        whole = not any(
            d.code.startswith("TG2") and d.severity is Level.ERROR
            for d in self.policy.apply(self.problems[before:], self.ignores)
        )
        if not description and self.preset.native:
            self.report(
                "TG303",
                f"`{self.node.name}` needs a docstring whose summary describes the tool",
                self.node,
            )
        elif not description:  # the framework lists it without one: so does toolgen
            message = (
                f"`{self.node.name}` has no docstring: the tool is listed without a "
                "description (its name stands in for one in the descriptor)"
            )
            where = self.module.location(self.node)
            self.problems.append(Diagnostic("TG303", message, where, Level.WARNING))
            description = name
        reader = SectionReader(self.module.shown)
        sections = self.doc.sections
        errors = reader.errors(sections["errors"]) if "errors" in sections else []
        examples = [
            (example, Location(self.module.shown, line.line, line.col))
            for example, line in (
                reader.examples(sections["examples"], {self.node.name, name})
                if "examples" in sections
                else []
            )
        ]
        contract = self.contract(reader, sections, name)
        for error in errors:
            contract.origins[f"errors.{error['code']}"] = "docstring"
        options = {**options, **contract.options}
        hints = contract.hints
        entry = self.config.contract.get(name)
        if entry is not None:  # the project's table: its errors over the docstring's
            errors, more, problems = with_table(entry, errors, contract)
            examples += more
            self.problems.extend(problems)
        self.problems.extend(self.own_text(reader.diagnostics))
        if whole:  # also when another error stops the tool: all of its problems at once
            examples = self.check_examples(examples, parameters_schema, returns_schema, errors)
        registered_at = self.handler.at.location(self.handler.decorator)
        native = self.preset.native
        self.problems.extend(unclassified(contract, name, native, self.config, registered_at))
        settled, findings = safety(contract)
        for code, message, key in findings:
            self.report(code, message, self.stated_at(contract, key))
        if self.failed():
            return None, self.problems

        dry_run = options.get("dry_run")
        if dry_run in ("supported", "required"):
            lacking = _dry_run_parameter_problem(parameters_schema)
            if lacking is not None:
                self.report(
                    "TG912",
                    f'`dry_run="{dry_run}"`: `{self.node.name}` {lacking}; a dry run calls the '
                    "handler with dry_run=True (and the real call with dry_run=False), so it "
                    "needs a `dry_run: bool` parameter",
                    self.stated_at(contract, "dry_run"),
                )
        data: dict[str, Any] = {
            "name": name,
            "description": description,
            "parameters": parameters_schema,
            "returns": {"description": self.doc.returns, "schema": returns_schema},
            "errors": errors,
            "idempotency": hints,
            "examples": [example for example, _ in examples],
            "risk": DEFAULT_RISK,
            "source": {"module": self.module.name, "qualname": self.handler.qualname},
        }
        if not self.preset.native:
            data["source"]["marker"] = self.preset.name
        for key, value in options.items():
            data[DESCRIPTOR_KEYS.get(key, key)] = value
        data.update(settled)  # what the risk, the hints and the waiver make of the gate
        if contract.origins:
            data["origins"] = dict(sorted(contract.origins.items()))
        publisher = self.config.publisher(self.preset.name)
        if publisher is not None:
            data["framework"] = self.framework_tool(
                publisher, name, given_description, returns_schema
            )
        else:  # what the framework sends has no description where it has none to send
            given = self.described or ("" if self.preset.name != "langchain" else description)
            sent = self.sent_to_openai(name, str(given))
            if sent is not None:  # a framework that sends its tools to a model itself
                data["framework"] = {
                    "name": self.preset.name,
                    "version": RULES[self.preset.name],
                    "openai": sent,
                }
        unfit = unwritable(data)  # e.g. "\\ud83d\\ude00" in a docstring: no JSON file can hold it
        if unfit is not None:
            code, message = unfit
            if code == "TG007":
                self.report(code, message, surrogate_node(self.node) or self.node)
            else:
                self.report(code, f"`{self.node.name}` {message}", self.node)
            return None, self.problems
        try:
            descriptor = ToolDescriptor.model_validate(data)
        except ValidationError as exc:
            for found in exc.errors():
                where = self.stated_at(contract, stated_key(found["loc"], data))
                path = ".".join(str(p) for p in found["loc"])
                self.report("TG403", f"`{path}`: {found['msg']}", where)
            return None, self.problems
        self.contract_checks(descriptor)
        return (None if self.failed() else descriptor), self.problems

    def contract(self, reader: SectionReader, sections: dict[str, Any], name: str) -> Contract:
        """The contract's layers merged (`toolgen.analyze.contract_layers`): the docstring's
        sections, the framework's arguments, a `@tool` (the handler's own, or one stacked
        with the framework's decorator), the project's contract table."""
        hints = reader.idempotency(sections["idempotency"]) if "idempotency" in sections else {}
        docstring = Stated("docstring", hints=hints)
        for key, title in BULLET_SECTIONS:
            if title in sections:
                docstring.options[key] = reader.bullets(sections[title])
                header = sections[title].header
                docstring.places[key] = Location(self.module.shown, header.line, header.col)
        own = self.layer("decorator" if self.preset.native else "framework", self.decorator)
        layers = [docstring, own]
        stacked = stacked_tool(self.handler, self.index)
        if stacked is not None:
            self.problems.extend(stacked.problems)
            layers.append(self.layer("decorator", stacked, self.module))
            self.problems.extend(disagreements(own, layers[-1]))
            # the framework publishes the tool by its own name, whatever `@tool` says
            given = stacked.options.get("name", name)
            if given != name:
                at = self.module.location(stacked.nodes["name"])
                self.problems.append(disagreement("name", given, name, None, at))
        decorator = layers[-1] if layers[-1].layer == "decorator" else None
        for key, title in BULLET_SECTIONS:
            if decorator is None or key not in decorator.options or key not in docstring.options:
                continue
            if decorator.options[key] != docstring.options[key]:
                self.report(
                    "TG405",
                    f"`{key}` differs between the decorator and the docstring's {title.title()} "
                    "section; the decorator's is used",
                    decorator.places.get(key),
                )
        entry = self.config.contract.get(name)
        if entry is not None:
            layers.append(table_layer(entry))
        return merged(layers)

    def layer(self, name: Layer, info: DecoratorInfo, module: Module | None = None) -> Stated:
        """A decorator's values as a contract layer, each where it is written (`module`: the
        one the decorator is in, when not where the registration is)."""
        at = module or self.handler.at
        stated = Stated(name, hints=dict(info.hints))
        for key, value in info.options.items():
            if key in ("name", "description"):
                continue  # what the tool is published by and as: no contract value
            stated.options[key] = value
            node = info.nodes.get(key)
            if node is not None:
                stated.places[key] = at.location(node)
        for hint in info.hints:
            stated.places[f"idempotency.{hint}"] = at.location(self.handler.decorator)
        return stated

    def stated_at(self, contract: Contract | None, key: str) -> Location:
        """Where the layer that gives contract value `key` states it; else where the
        registration is."""
        if contract is not None and key in contract.places:
            return contract.places[key]
        return self.option_at(key)

    def griffe_read(self, doc: Docstring) -> Docstring:
        """`doc` with the description and parameter texts the framework reads through griffe
        (`toolgen.analyze.framework_docs`), where toolgen's own reading located them."""
        found = docstring_node(self.node)
        if found is None:
            return doc
        try:
            if self.preset.griffe_reader == "openai-agents":
                description, texts = agents_doc(found[1])
            else:
                description, texts = pydantic_ai_doc(found[1], self.config.python)
        except Exception as exc:  # griffe's parsers raise on some docstrings; so does the
            # framework reading it, which then registers no tool: this tool's error, no other's
            why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            message = (
                f"{self.preset.name} cannot read `{self.node.name}`'s docstring ({cut(why)}): "
                "it registers no tool"
            )
            self.report("TG308", message, found[0])
            return doc
        at = doc.at or DocLine("", self.node.lineno, self.node.col_offset + 1)
        params = {
            name: Entry(
                name,
                doc.params[name].annotation if name in doc.params else None,
                text,
                doc.params[name].at if name in doc.params else at,
            )
            for name, text in texts.items()
        }
        return replace(doc, description=description or "", params=params)

    def sent_to_openai(self, name: str, description: str) -> dict[str, Any] | None:
        """The `function` of the Chat Completions tool the framework sends itself, when it
        is one that does (`toolgen.analyze.framework_openai`)."""
        parameters = self.canonical_parameters
        if self.preset.name == "langchain":
            limit = expansion_limit(parameters)
            try:
                return langchain_function(name, description, parameters, limit)
            except TooLarge:  # models that all refer to each other: inlined once per path
                self.too_large("LangChain payload", parameters, limit)
                return None
        if self.preset.name == "pydantic-ai":
            return pydantic_ai_function(name, description, parameters)
        if self.preset.name == "openai-agents":
            try:
                return agents_function(name, description, parameters, self.decorator.strict_mode)
            except NotStrict as why:
                message = (
                    f"the Agents SDK cannot make `{self.node.name}`'s schema strict ({why}): "
                    "`@function_tool` raises where the tool is made; give strict_mode=False"
                )
                self.report("TG211", message, self.handler.at.location(self.handler.decorator))
                return None
        return None

    def docstring_description(self) -> str | None:
        """What the docstring says the tool does, as the framework reads it."""
        if self.preset.whole_docstring and self.handler.tool_class is None:
            found = docstring_node(self.node)
            if found is None:
                return None
            if self.decorator.parse_docstring:
                return parsed_description(found[1]) or None
            return whole_description(found[1], self.config.python) or None
        return self.doc.description

    def framework_tool(
        self, publisher: Framework, name: str, description: Any, returns: dict[str, Any]
    ) -> dict[str, Any]:
        """The descriptor's `framework` block: the entry `publisher` serves for the handler."""
        options, nodes = self.decorator.options, self.decorator.nodes
        title_node = nodes.get("title")
        from_annotations = isinstance(title_node, ast.keyword) and title_node.arg == "annotations"
        hints: dict[str, Any] = {HINT_KEYS[k]: v for k, v in self.decorator.hints.items()}
        annotation_title = (
            options["title"] if from_annotations else literal_title(self.handler.decorator)
        )
        if annotation_title is not None:
            hints["title"] = annotation_title
        parameters = self.canonical_parameters
        properties = {
            key: {k: v for k, v in prop.items() if k != "description" or key not in self.from_doc}
            for key, prop in parameters.get("properties", {}).items()
        }
        doc = docstring_node(self.node)
        form = return_form(self.node.returns, self.module, self.index, returns)
        handler = HandlerFacts(
            name=name,
            function=self.node.name,
            docstring=doc[1] if doc else None,
            description=description if isinstance(description, str) else None,
            title=None if from_annotations else options.get("title"),
            annotations={k: hints[k] for k in ANNOTATION_KEYS if k in hints} or None,
            # not a collection (`tags=True`): the descriptor's check refuses it (TG403)
            tags=list(tags) if isinstance(tags := options.get("keywords"), list | tuple) else [],
            parameters={**parameters, "properties": properties},
            returns=Returns(
                form,
                returns,
                content_in(self.node.returns, self.module, self.index),
                self.output_given(),
            ),
            fields=param_fields(
                self.params, self.keys, self.module, self.index, self.preset.untyped is not None
            ),
            structured=self.structured_given(),
        )
        if self.forms is not None:
            key = handle_key(self.handler.node, self.handler.decorator)
            self.forms[key] = registry_entry(publisher, handler)
        return {
            "name": publisher.name,
            "version": publisher.version,
            "mcp": framework_tool(publisher, handler),
        }

    def output_given(self) -> Any:
        """The decorator's `output_schema=`: `UNSET` when not given, else None (no
        outputSchema) or the author's schema. One made at run time leaves the tool without an
        outputSchema, and says so: a guess could promise a client what the tool never
        returns."""

        def takes(value: Any) -> bool:
            return value is None or isinstance(value, dict)

        return self.keyword_value("output_schema", takes, "published without an outputSchema")

    def structured_given(self) -> bool | None:
        """The MCP SDK decorator's `structured_output=` (None: not given, or not known
        statically: the SDK infers it from the return type then)."""
        value = self.keyword_value(
            "structured_output", lambda v: isinstance(v, bool), "the return type decides"
        )
        return None if value is UNSET else value  # a bool or None: `takes` saw to it

    def keyword_value(self, name: str, takes: Callable[[Any], bool], instead: str) -> Any:
        """The decorator's `name=` read statically: `UNSET` when not given. One known only at
        run time, or one `takes` refuses, is a TG401 warning that says what is done `instead`,
        and None."""
        node = decorator_keyword(self.handler.decorator, name)
        if node is None:
            return UNSET
        at = self.handler.at
        try:
            value = fold(node, at, self.index, Scope(at, node))
            why = None if takes(value) else "is not a value it takes"
        except NotStatic as exc:
            why = exc.why
        if why is None:
            return value
        message = f"`{name}` {why}: {instead}"
        self.problems.append(Diagnostic("TG401", message, at.location(node), Level.WARNING))
        return None

    def contract_checks(self, descriptor: ToolDescriptor) -> None:
        """Lint rules, the description budget and the conformance level."""
        context = LintContext(
            params={p.name: p.node for p in self.params},
            has_default={p.name: p.default is not None for p in self.params},
        )
        found = [
            Diagnostic(
                code, f"tool {descriptor.name}: {message}", self.module.location(at or self.node)
            )
            for code, message, at in lint(descriptor, context)
        ]
        # a lint rule reads heuristics into a framework's text: it never costs that tool
        self.problems.extend(self.own_text(found))
        budget = self.config.budget_description_chars
        if budget is not None and len(descriptor.description) > budget:
            self.report(
                "TG930",
                f"tool {descriptor.name}: description has {len(descriptor.description)} "
                f"characters, over the budget of {budget}",
                self.node,
            )
        level = conformance_level(descriptor)
        descriptor.conformance_level = level
        if level < self.config.min_level:
            missing = missing_by_level(descriptor)
            needs = [m for lvl in range(1, self.config.min_level + 1) for m in missing[lvl]]
            self.report(
                "TG920",
                f"tool {descriptor.name} reaches level {level}, below min_level "
                f"{self.config.min_level}: add {'; '.join(needs)}",
                self.node,
            )

    def parameters_schema(self) -> dict[str, Any]:
        # defaults and annotations are evaluated where the `def` is: in the functions around it
        builder = SchemaBuilder(
            self.index, Scope(self.module, self.node), arbitrary=self.preset.arbitrary_types
        )
        try:
            # nested objects closed as the root is: the runtime validates with this schema;
            # `canonical_parameters`, what a framework publishes, stays as pydantic makes it
            closed: dict[str, Any] = closed_objects(self._parameters_schema(builder))
            return closed
        finally:
            self.problems.extend(self.field_notes(builder.notes))

    def field_notes(self, notes: list[Diagnostic]) -> list[Diagnostic]:
        """The builder's notes (what the schema was published without); a field without a
        description (TG309) is a note of the level TG301 has for the same handler: a
        framework's handlers are read as they are, and their models seldom describe fields."""
        if self.preset.native:
            return notes
        return [replace(note, level=Level.INFO) if note.code == "TG309" else note for note in notes]

    def _parameters_schema(self, builder: SchemaBuilder) -> dict[str, Any]:
        if self.decorator.args_schema is not None:
            written = self.decorator.args_schema_module or self.module
            return self.args_schema(builder, self.decorator.args_schema, written)
        params, found = exposed_parameters(self.handler, self.config.skip_params, builder)
        self.problems.extend(found)
        self.params = params
        docstring_wins = self.preset.docstring_wins or self.decorator.parse_docstring
        properties: dict[str, Any] = {}
        required: list[str] = []
        for param in params:
            if param.annotation is None and self.preset.native:
                self.report("TG203", f"parameter `{param.name}` has no type annotation", param.node)
                continue
            try:
                spec = FieldSpec()
                if param.default is not None:
                    spec = self._default(builder, param.default)
                if param.annotation is not None:
                    schema, merged = builder.field_schema(param.annotation, self.module, spec)
                else:  # published as the framework publishes it (`Preset.untyped`)
                    schema, merged = builder.unannotated_schema(
                        spec, param.node, self.module, self.preset.untyped
                    )
                    self.problems.append(_unannotated(param, self.module, self.preset.untyped))
            except TypeProblem as exc:
                self.problems.append(exc.diagnostic)
                continue
            if param.star and self.preset.star_params == "containers":
                schema, merged = _container(schema, param.star), FieldSpec(default=None)
            text = self.annotated_text(param.annotation)
            if text is not None:
                schema = {
                    "description": text,
                    **{k: v for k, v in schema.items() if k != "description"},
                }
            entry = None if self.whole_docstring else self.doc.params.get(param.name)
            placeholder = entry is not None and entry.text == PLACEHOLDER
            if placeholder:
                entry = None  # `toolgen fix` left it for the author: not a description yet
            from_doc = entry is not None and entry.text and "description" not in schema
            if entry is not None and entry.text and (docstring_wins or "description" not in schema):
                # Field(description=...) wins over the docstring, unless the framework says not
                schema = {
                    "description": entry.text,
                    **{k: v for k, v in schema.items() if k != "description"},
                }
            elif "description" not in schema:
                self.problems.append(
                    Diagnostic(
                        "TG301",
                        f"parameter `{param.name}` is not described: "
                        + self.describe_advice(placeholder),
                        self.module.location(param.node),
                        # a framework's handlers are read as they are, and most real ones
                        # describe few parameters: a note, not a warning
                        None if self.preset.native else Level.INFO,
                    )
                )
            key = property_name(merged, param.name)  # as `validate_call` names it
            if key in properties:
                first = next(p for p, k in self.keys.items() if k == key)
                self.report("TG210", claimed(key, first, param.name), param.node)
                continue
            self.keys[param.name] = key
            if from_doc:
                self.from_doc.add(key)
            properties[key] = schema
            if merged.default is MISSING and not merged.has_factory:
                required.append(key)
        known = {a.arg for a in _all_args(self.node)}
        for entry_name, entry in self.doc.params.items():
            if entry_name not in known:
                self.problems.append(
                    Diagnostic(
                        "TG302",
                        f"docstring describes `{entry_name}`, which is not a parameter",
                        Location(self.module.shown, entry.at.line, entry.at.col),
                    )
                )
        schema = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        schema["additionalProperties"] = False
        schema = self.canonical_parameters = _with_defs(schema, builder)
        if not self.within_expansion("parameters", schema) or self.preset.inline_defs is None:
            return schema
        return inline_refs(schema, only_with_siblings=self.preset.inline_defs == "with-siblings")

    def describe_advice(self, placeholder: bool) -> str:
        """How to describe a parameter, where the framework looks for a description."""
        if self.handler.tool_class is not None:
            return (
                "the framework reads no docstring of `_run` (describe it with "
                'Field(description=...) in args_schema, or Annotated[..., "..."])'
            )
        if self.whole_docstring:
            return (
                "the framework reads no docstring entry for it (describe it with "
                'Field(description=...) or Annotated[..., "..."], or read the docstring with '
                "parse_docstring=True)"
            )
        if placeholder:
            return (
                f"replace the placeholder `{PLACEHOLDER}` in the docstring's Args section with "
                "what it means"
            )
        return "add it to the docstring's Args section (or give it Field(description=...))"

    def annotated_text(self, annotation: ast.expr | None) -> str | None:
        """`Annotated[int, "How many."]`: the string a framework that reads one
        (`Preset.annotated_text`) publishes as the description; None when a described
        `Field(...)` comes first (pydantic's description stands) or there is none."""
        if not self.preset.annotated_text or not isinstance(annotation, ast.Subscript):
            return None
        head = self.index.resolve_expr(self.module, annotation.value)
        items = annotation.slice
        if head is None or head.path != "typing.Annotated" or not isinstance(items, ast.Tuple):
            return None
        for meta in items.elts[1:]:
            if isinstance(meta, ast.Constant) and isinstance(meta.value, str):
                return meta.value
            if isinstance(meta, ast.Call) and any(k.arg == "description" for k in meta.keywords):
                return None
        return None

    def _default(self, builder: SchemaBuilder, default: ast.expr) -> FieldSpec:
        """A parameter's default. One only known at run time (an environment variable read,
        a command-line argument) costs a framework's tool that default, not the tool: the
        property is published without one, not required, with a warning."""
        try:
            return _default_spec(builder, default, self.module)
        except TypeProblem as exc:
            if self.preset.native or exc.diagnostic.code != "TG206":
                raise
            message = f"{exc.diagnostic.message}; published without a default (not required)"
            self.problems.append(
                Diagnostic("TG206", message, exc.diagnostic.location, Level.WARNING)
            )
            return FieldSpec(has_factory=True)  # as a default made at run time shows

    def args_schema(
        self, builder: SchemaBuilder, model: ast.expr, written: Module
    ) -> dict[str, Any]:
        """LangChain `@tool(args_schema=Model)` (or a tool class's `args_schema = Model`,
        written in `written`): the model's fields are the parameters."""
        try:
            ref = builder.schema(model, written)
        except TypeProblem as exc:
            self.problems.append(exc.diagnostic)
            return {"type": "object", "properties": {}, "additionalProperties": False}
        name = str(ref.get("$ref", "")).removeprefix("#/$defs/")
        body = builder.defs.pop(name, {})
        if body.get("type") != "object":
            where = written.location(model)
            self.report("TG202", "args_schema must be a pydantic model class", where)
            return {"type": "object", "properties": {}, "additionalProperties": False}
        schema = {k: v for k, v in body.items() if k != "description"}
        schema["additionalProperties"] = False
        if _refers_to([schema, builder.defs], ref):  # a recursive model (`child: "Node"`):
            builder.defs[name] = body  # its references need its definition still
        schema = self.canonical_parameters = _with_defs(schema, builder)
        self.within_expansion("parameters", schema)
        return schema

    def within_expansion(self, what: str, schema: dict[str, Any]) -> bool:
        """Whether `schema` with its models inlined (Gemini's payload, `inline_defs`, a
        framework's) is not far larger than as written; else TG108. A model with two fields
        of a model with two fields of ... doubles at each level, and every stage that
        follows the `$ref`s would do that work."""
        limit = expansion_limit(schema)
        if expanded_size(schema, limit) <= limit:
            return True
        self.too_large(what, schema, limit)
        return False

    def too_large(self, what: str, schema: dict[str, Any], limit: int) -> None:
        message = (
            f"`{self.node.name}`: its {what} schema holds more than {limit:,} values with "
            f"its models inlined ({size(schema):,} as written), more than toolgen expands: a "
            "model that holds another several times, nested deeply, doubles at each level; "
            "nest fewer models"
        )
        self.report("TG108", message, self.node)

    def returns_schema(self) -> dict[str, Any]:
        if self.node.returns is None:
            self.report("TG207", f"`{self.node.name}` has no return annotation", self.node)
            return {}
        builder = SchemaBuilder(self.index)
        try:
            return _with_defs(builder.schema(self.node.returns, self.module), builder)
        except TypeProblem as exc:
            problem = exc.diagnostic
            if not self.preset.native:  # the tool is still published: degrade, never drop
                problem = Diagnostic(
                    problem.code,
                    f"{problem.message}: the return type has no schema here, so the tool is "
                    "published without an outputSchema (as the framework does for a type "
                    "pydantic makes none of)",
                    problem.location,
                    Level.WARNING,
                )
            self.problems.append(problem)
            return {}
        finally:  # a result's fields are not arguments a model writes: not TG309
            self.problems.extend(n for n in builder.notes if n.code != "TG309")

    def own_text(self, problems: list[Diagnostic]) -> list[Diagnostic]:
        """`problems` of the docstring's contract sections (Errors, Idempotency, Examples)
        and of the lint rules: errors for a toolgen handler; for a framework's, whose
        docstring is its own text (the framework publishes it as written), warnings: what is
        malformed is left out of the descriptor, never the tool."""
        if self.preset.native:
            return problems
        return [
            Diagnostic(d.code, d.message, d.location, Level.WARNING)
            if d.severity is Level.ERROR
            else d
            for d in problems
        ]

    def check_examples(
        self,
        examples: list[tuple[dict[str, Any], Location]],
        parameters_schema: dict[str, Any],
        returns_schema: dict[str, Any],
        errors: list[dict[str, Any]],
    ) -> list[tuple[dict[str, Any], Location]]:
        """The examples, each problem reported (`own_text`); of a framework's handler, only
        those that agree with the schemas and the Errors section (a toolgen handler's stay
        in the descriptor, for its rules' levels to decide)."""
        declared = {e["code"] for e in errors} | {IMPLICIT_ERROR}
        kept: list[tuple[dict[str, Any], Location]] = []
        for example, at in examples:
            found = example_problems(example, at, parameters_schema, returns_schema, declared)
            self.problems.extend(self.own_text(found))
            if not found or self.preset.native:  # a toolgen handler's stay: its rules say
                kept.append((example, at))
        return kept


def example_problems(
    example: dict[str, Any],
    at: Location,
    parameters: dict[str, Any],
    returns: dict[str, Any],
    declared: set[str],
) -> list[Diagnostic]:
    """What an example gets wrong against the tool's schemas and declared error codes."""
    found: list[Diagnostic] = []
    error_code = example.get("error", {}).get("code")
    if error_code != IMPLICIT_ERROR:  # a rejection example's arguments are meant to fail
        for problem in schema_errors(parameters, example["arguments"]):
            partial = problem.keyword == "required" and problem.pointer == "/"
            code = "TG504" if partial else "TG501"
            found.append(Diagnostic(code, f"example arguments: {problem}", at))
    if "result" in example and returns:
        for problem in schema_errors(returns, example["result"]):
            found.append(Diagnostic("TG502", f"example result: {problem}", at))
    if error_code is not None and error_code not in declared:
        message = f"example error code {error_code} is not declared in Errors"
        found.append(Diagnostic("TG503", message, at))
    return found


def _refers_to(value: Any, ref: dict[str, Any]) -> bool:
    """Whether `ref` (a `{"$ref": ...}`) is among the values `value` holds."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("$ref") == ref.get("$ref"):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _with_defs(schema: dict[str, Any], builder: SchemaBuilder) -> dict[str, Any]:
    if not builder.defs:
        return schema
    return {**schema, "$defs": dict(sorted(builder.defs.items()))}


def _default_spec(builder: SchemaBuilder, default: ast.expr, module: Any) -> FieldSpec:
    if isinstance(default, ast.Constant) and default.value is Ellipsis:
        return FieldSpec()  # `= ...`: required, as pydantic reads a default of Ellipsis
    if isinstance(default, ast.Call) and dotted_name(default.func):
        called = builder.index.resolve_expr(module, default.func)
        if called is not None and called.path in FIELD_CALLS:
            return builder.field_call(default, module)
    return FieldSpec(default=builder.literal_default(default, module))


def _container(item: dict[str, Any], star: str) -> dict[str, Any]:
    """`*args: T` as an array of T, `**kwargs: T` as an object of T, defaulting to None: the
    fields pydantic's `validate_arguments` makes of them (LangChain's schema of a function)."""
    if star == "*":
        return {"type": "array", "items": item, "default": None}
    return {"type": "object", "additionalProperties": item or True, "default": None}


def _all_args(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    a = node.args
    extra = [x for x in (a.vararg, a.kwarg) if x is not None]
    return [*a.posonlyargs, *a.args, *a.kwonlyargs, *extra]


def _dry_run_parameter_problem(parameters: dict[str, Any]) -> str | None:
    """Why the parameters cannot take the run time's `dry_run=True`/`False` (TG912), or None."""
    prop = parameters.get("properties", {}).get("dry_run")
    if not isinstance(prop, dict):
        return "has no `dry_run` parameter"
    branches = [prop, *prop.get("anyOf", []), *prop.get("oneOf", [])]
    for branch in branches:
        kind = branch.get("type") if isinstance(branch, dict) else None
        if kind == "boolean" or (isinstance(kind, list) and "boolean" in kind):
            return None
    return "its `dry_run` parameter takes no boolean"


def _unannotated(param: Param, module: Module, json_type: str | None) -> Diagnostic:
    """TG203 as a warning for a framework's handler: published as the framework publishes it
    (`json_type`, or any value)."""
    taken = f"a {json_type}" if json_type else "any value"
    message = (
        f"parameter `{param.name}` has no type annotation: published as the framework publishes "
        f"it, taking {taken}; annotate it so that a model knows what to send"
    )
    return Diagnostic("TG203", message, module.location(param.node), Level.WARNING)
