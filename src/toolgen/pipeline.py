"""The whole pipeline in one call: discover → analyze → descriptors → render (no writing).

`generate` holds everything in memory, and keeps what a process that builds again can reuse;
`generate_spooled` is for a run of its own: each tool is rendered as soon as it is analysed
and its rendered texts go to a spool on disk (`toolgen.incremental.spool`), so that no more than a
file's descriptors are held at once, whatever the size of the project. Both put the files together
with the one `render_project`, from parts kept in memory (`toolgen.render.sink.Memory`) or in
the spool (`toolgen.incremental.spool_sink.SpoolSink`): the pipeline picks the sink.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from toolgen.compiler import Compilation, compile_project, compile_units, qualified, renamed
from toolgen.config import Config
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import Diagnostic, Location, plural, sort_diagnostics
from toolgen.file_units import FileUnit, Named
from toolgen.incremental.cache import load_entry, prune, store_entry
from toolgen.incremental.spool import Content, Piece, Spool
from toolgen.incremental.spool_sink import SpoolSink
from toolgen.incremental.units import UnitCache
from toolgen.lint import CatalogTool, lint_catalog
from toolgen.parallel import Beside, beside
from toolgen.read.discover import Listing, SourceFile
from toolgen.read.files import NO_OVERLAY, Overlay
from toolgen.read.index import Dependencies
from toolgen.render import MANIFEST
from toolgen.render.jsonout import dump_json
from toolgen.render.options import RenderOptions
from toolgen.render.project import (
    RenderMemo,
    ToolRender,
    for_platforms,
    manifest_for,
    render_documents,
    render_project,
    render_tool,
    render_tools,
    report_problems,
    typed_tools,
)
from toolgen.render.python import StoredMemo
from toolgen.render.sink import C, KeptDescriptors, Memory, ToolParts
from toolgen.stats import catalog_totals, tool_sizes

T = TypeVar("T")
U = TypeVar("U", bound=Named)

#: The cache folder's kind for the Python module's blocks of each tool (`StoredMemo`).
PYTHON = "python"


@dataclass
class Generated:
    files: Mapping[str, Content]
    descriptors: Sequence[ToolDescriptor]  # by name
    diagnostics: list[Diagnostic]
    locations: dict[str, Location]
    search_roots: list[str]
    sources: Listing
    inputs: Dependencies
    shas: Mapping[str, str]  # the sha256 of each file but the manifest
    #: handlers left out for their errors, with where each is defined (`Compilation.left_out`)
    left_out: list[tuple[str, Location]] = field(default_factory=list)
    #: each descriptor's name, `catalog/name` in a project of several servers
    #: (`Compilation.names`), in the order of `descriptors`
    names: list[str] = field(default_factory=list)


def generate(
    config: Config,
    cache: UnitCache | None = None,
    jobs: int = 1,
    memo: RenderMemo | None = None,
    overlay: Overlay = NO_OVERLAY,
    lazy: bool = False,
) -> Generated:
    """Everything a build writes, and what it found. With a unit cache, unchanged files are
    neither analysed nor rendered again, and this run's work is stored for the next; with a
    `memo` (a process that builds again), what rendering made is kept in it for the next.
    Files in `overlay` are read as an editor holds them (`toolgen lsp`). With `lazy`, the
    files are put together only when first asked for (and without the Python module: no
    diagnostic comes from it): the language server wants the diagnostics of every keystroke,
    and the files of few."""

    def finish(descriptor: ToolDescriptor) -> ToolRender:  # in the worker that compiled it
        return render_tool(descriptor, config.platforms, config.render)

    compiled = compile_project(config, cache, jobs, finish if jobs > 1 else None, overlay)
    known = {**(cache.known if cache else {}), **compiled.finished}
    platforms, options = config.platforms, config.render
    renders = render_tools(compiled.descriptors, platforms, options, known)
    if cache is not None:
        cache.save(renders)
    diagnostics = catalog_lint(compiled, _about_descriptor)
    report = _reporter(diagnostics, compiled.locations)
    files: Mapping[str, bytes]  # in memory
    if lazy and not compiled.catalog_of and config.budget_catalog_tokens is None:
        found_by_tool = [
            (d.name, d.visible, renders[id(d)].problems, renders[id(d)].tallies)
            for d in compiled.descriptors
        ]
        report_problems(found_by_tool, platforms, report(""))
        made = _Later(lambda: _files(config, compiled.descriptors, renders, memo, lazy=True))
        files, shas = made.files(), made.shas()
    elif not compiled.catalog_of:
        files, shas = _files(config, compiled.descriptors, renders, memo, report(""), lazy)
    else:  # one set of files per server, each in its folder (no memo: paths repeat)
        sink = Memory()
        parts = {
            catalog: render_project(
                [_kept(sink, d, renders[id(d)], options) for d in descriptors],
                platforms,
                options,
                sink,
                report(catalog),
                documents=dict if lazy else None,
            )
            for catalog, descriptors in by_catalog(compiled.descriptors, compiled.catalog_of)
        }
        files, shas = join_catalogs(parts)
    found = [
        *compiled.diagnostics,
        *config.policy().apply(diagnostics, compiled.suppressions),
    ]
    if config.budget_catalog_tokens is not None:
        found += catalog_budget(files, config.budget_catalog_tokens, config)
    return Generated(
        files,
        compiled.descriptors,
        sort_diagnostics(found),
        compiled.locations,
        compiled.search_roots,
        compiled.sources,
        compiled.inputs,
        shas,
        compiled.left_out,
        compiled.names,
    )


def _files(
    config: Config,
    descriptors: Sequence[ToolDescriptor],
    renders: Mapping[int, ToolRender],
    memo: RenderMemo | None,
    report: Callable[[str, str, str], None] = lambda *_: None,
    lazy: bool = False,
) -> tuple[dict[str, bytes], dict[str, str]]:
    """The files of one catalog, in memory, and their sha256; without the Python module when
    `lazy` (see `generate`)."""
    platforms, options = config.platforms, config.render
    sink = Memory(memo.reuse if memo else None)
    tools = [_kept(sink, d, renders[id(d)], options) for d in descriptors]
    python = memo.python if memo else None
    skip = dict if lazy else None
    return render_project(tools, platforms, options, sink, report, python, skip)


class _Later:
    """Files put together when first asked for (`generate`'s `lazy`): each view reads them
    then."""

    def __init__(self, make: Callable[[], tuple[dict[str, bytes], dict[str, str]]]) -> None:
        self._make = make
        self._made: tuple[dict[str, bytes], dict[str, str]] | None = None

    def made(self) -> tuple[dict[str, bytes], dict[str, str]]:
        if self._made is None:
            self._made = self._make()
        return self._made

    def files(self) -> Mapping[str, bytes]:
        return _View(self, 0)

    def shas(self) -> Mapping[str, str]:
        return _View(self, 1)


class _View(Mapping[str, Any]):
    """The files, or their sha256, of a `_Later`."""

    def __init__(self, later: _Later, which: int) -> None:
        self._later, self._which = later, which

    def _of(self) -> Mapping[str, Any]:
        return self._later.made()[self._which]

    def __getitem__(self, key: str) -> Any:
        return self._of()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._of())

    def __len__(self) -> int:
        return len(self._of())


def _kept(
    sink: Memory, descriptor: ToolDescriptor, render: ToolRender, options: RenderOptions
) -> ToolParts[bytes]:
    """A tool's parts in memory, with the descriptor as the payloads show it for the Python
    module (the same object from one build to the next: its blocks are memoised by it)."""
    shown = for_platforms(descriptor, options) if descriptor.visible else None
    return sink.keep(descriptor.name, descriptor.visible, render, shown)


def _reporter(
    found: list[Diagnostic], locations: dict[str, Location]
) -> Callable[[str], Callable[[str, str, str], None]]:
    """Each catalog's report of what rendering found, located at the tool's handler."""

    def reporter(catalog: str) -> Callable[[str, str, str], None]:
        def report(code: str, name: str, message: str) -> None:
            where = locations.get(qualified(catalog, name))
            found.append(Diagnostic(code, f"tool {name}: {message}", where))

        return report

    return reporter


def by_catalog(tools: Sequence[T], catalog_of: dict[int, str]) -> list[tuple[str, list[T]]]:
    """`tools` by catalog (`Compilation.catalog_of`), catalogs in name order."""
    found: dict[str, list[T]] = {}
    for tool in tools:
        found.setdefault(catalog_of[id(tool)], []).append(tool)
    return sorted(found.items())


def join_catalogs(
    parts: Mapping[str, tuple[Mapping[str, C], Mapping[str, str]]],
) -> tuple[dict[str, bytes | C], dict[str, str]]:
    """Each catalog's files (and their sha256) in its folder, and one manifest of them all."""
    files: dict[str, bytes | C] = {}
    shas: dict[str, str] = {}
    for catalog, (made, made_shas) in sorted(parts.items()):
        for path, content in made.items():
            if path != MANIFEST:
                files[f"{catalog}/{path}"] = content
                shas[f"{catalog}/{path}"] = made_shas[path]
    files = dict(sorted(files.items()))
    shas = dict(sorted(shas.items()))
    files[MANIFEST] = dump_json(manifest_for(shas))
    return files, shas


def generate_spooled(config: Config, cache: UnitCache | None, jobs: int, spool: Spool) -> Generated:
    """`generate` for a run of its own, its output in `spool` (see the module's doc). Units
    found in the cache are spooled as stored, no descriptor validated; descriptors are read
    back from the spool when asked for (`Generated.descriptors`), while `spool` is open."""
    platforms, options = config.platforms, config.render
    sink = SpoolSink(spool)

    def make(
        unit: FileUnit[ToolDescriptor], file: SourceFile, roots: tuple[str, ...]
    ) -> FileUnit[ToolParts[Piece]]:  # in the process that compiled the file
        renders = {id(d): render_tool(d, platforms, options) for d, _ in unit.tools}
        if cache is not None:
            cache.store_now(file, roots, unit, renders)
        tools = [(sink.keep(d.name, d.visible, renders[id(d)]), where) for d, where in unit.tools]
        spool.flush()  # a worker's pieces are read by the process it reports to
        made = FileUnit(unit.shown, unit.suppressions, tools, unit.diagnostics, unit.dependencies)
        made.left_out, made.claims = unit.left_out, unit.claims
        made.servers, made.mounts, made.handlers = unit.servers, unit.mounts, unit.handlers
        made.found, made.failed_found, made.reached = unit.found, unit.failed_found, unit.reached
        made.native = unit.native
        return made

    def stored(tool: dict[str, Any]) -> ToolParts[Piece]:
        if tool["render"] is None:  # stored by a session, not rendered (a duplicate name)
            descriptor = ToolDescriptor.model_validate_json(tool["descriptor"])
            render = render_tool(descriptor, platforms, options)
        else:
            render = ToolRender.from_json(tool["descriptor"], tool["render"])
        return sink.keep(tool["name"], tool["visible"], render)

    def lookup(file: SourceFile, roots: tuple[str, ...]) -> FileUnit[ToolParts[Piece]] | None:
        return cache.get_with(file, roots, stored) if cache is not None else None

    def rename(tool: ToolParts[Piece], name: str) -> ToolParts[Piece]:  # a mounted server's tool
        descriptor = ToolDescriptor.model_validate_json(sink.read(tool.descriptor))
        descriptor = renamed(descriptor, name)
        return sink.keep(name, tool.visible, render_tool(descriptor, platforms, options))

    compiled = compile_units(config, make, jobs, lookup, rename=rename)
    if cache is not None:
        cache.done()
    found: list[Diagnostic] = []
    reporter = _reporter(found, compiled.locations)
    memo = StoredMemo(load_entry(cache.folder, PYTHON, cache.config_key)) if cache else None
    files: Mapping[str, Content]
    if not compiled.catalog_of:
        report = reporter("")
        documents = None
        if jobs > 1 and sum(t.visible for t in compiled.descriptors) >= BESIDE_TOOLS:
            documents = _documents_beside(compiled.descriptors, sink, options, report, memo)
        try:
            files, shas = render_project(
                compiled.descriptors, platforms, options, sink, report, memo, documents
            )
        finally:  # failed before asking for them: the child making them is stopped
            if documents is not None:
                documents.close()
    else:  # one set of files per server, each in its folder (no memo: paths repeat)
        memo = None
        parts = {
            catalog: render_project(tools, platforms, options, sink, reporter(catalog))
            for catalog, tools in by_catalog(compiled.descriptors, compiled.catalog_of)
        }
        files, shas = join_catalogs(parts)
    if cache is not None and memo is not None and memo.changed:
        store_entry(cache.folder, PYTHON, cache.config_key, memo.entries)
        prune(cache.folder, PYTHON, keep=16)  # one per configuration in use, as stamps
    found += catalog_lint(compiled, _about_parts)
    found = [*compiled.diagnostics, *config.policy().apply(found, compiled.suppressions)]
    if config.budget_catalog_tokens is not None:
        found += catalog_budget(files, config.budget_catalog_tokens, config)
    return Generated(
        files,
        KeptDescriptors(compiled.descriptors, sink),
        sort_diagnostics(found),
        compiled.locations,
        compiled.search_roots,
        compiled.sources,
        compiled.inputs,
        shas,
        compiled.left_out,
        compiled.names,
    )


#: From this many tools on, a run of its own with workers makes the Python module in a
#: child of its own while it puts the other files together (a fork costs a few milliseconds).
BESIDE_TOOLS = 200


def _documents_beside(
    tools: Sequence[ToolParts[Piece]],
    sink: SpoolSink,
    options: RenderOptions,
    report: Callable[[str, str, str], None],
    memo: StoredMemo | None,
) -> _Documents:
    """The documents (`render_documents`) made in a forked child, with what the child
    reported and left in `memo` given back here when they are asked for."""
    typed = typed_tools([tool for tool in tools if tool.visible], sink, options)

    def make() -> tuple[dict[str, bytes], list[tuple[str, str, str]], Any]:
        noted: list[tuple[str, str, str]] = []
        made = render_documents(typed, lambda *said: noted.append(said), options, memo)
        return made, noted, (memo.entries, memo.changed) if memo is not None else None

    return _Documents(beside(make), report, memo)


class _Documents:
    """`Made` by a child (`_documents_beside`); `close()` once the render is over, whether
    or not it asked for them."""

    def __init__(
        self,
        child: Beside[tuple[dict[str, bytes], list[tuple[str, str, str]], Any]],
        report: Callable[[str, str, str], None],
        memo: StoredMemo | None,
    ) -> None:
        self._child, self._report, self._memo = child, report, memo

    def __call__(self) -> dict[str, bytes]:
        made, noted, kept = self._child()
        for said in noted:
            self._report(*said)
        if self._memo is not None:
            self._memo.entries, self._memo.changed = kept
        return made

    def close(self) -> None:
        self._child.close()


def catalog_lint(
    compiled: Compilation[U], about: Callable[[U], CatalogTool | None]
) -> list[Diagnostic]:
    """The lint rules that read each catalog's visible tools side by side (`about` says what
    a model sees of a tool, None for a hidden one), each finding at the handler of the tool
    it names."""
    catalogs = (
        by_catalog(compiled.descriptors, compiled.catalog_of)
        if compiled.catalog_of
        else [("", compiled.descriptors)]
    )
    found: list[Diagnostic] = []
    for catalog, tools in catalogs:
        shown = [seen for seen in map(about, tools) if seen is not None]
        for code, message, name in lint_catalog(shown):
            found.append(
                Diagnostic(code, message, compiled.locations.get(qualified(catalog, name)))
            )
    return found


def _about_descriptor(descriptor: ToolDescriptor) -> CatalogTool | None:
    return CatalogTool(descriptor.name, descriptor.description) if descriptor.visible else None


def _about_parts(tool: ToolParts[Piece]) -> CatalogTool | None:
    return CatalogTool(tool.name, tool.description) if tool.visible else None


def catalog_budget(
    files: Mapping[str, Content], budget: int, config: Config | None = None
) -> list[Diagnostic]:
    """TG931 for each platform's catalog over `budget`, located at the config line that sets
    it (when `config` knows it)."""
    totals = catalog_totals(tool_sizes(files))
    return [
        Diagnostic(
            "TG931",
            f"{platform} catalog is about {tokens} tokens ({chars} characters), over the budget "
            f"of {plural(budget, 'token')}",
            config.budget_catalog_at if config else None,
        )
        for platform, (chars, tokens) in totals.items()
        if tokens > budget
    ]
