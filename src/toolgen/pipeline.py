"""The whole pipeline in one call: discover → analyze → descriptors → render (no writing)."""

from __future__ import annotations

from dataclasses import dataclass

from toolgen.compiler import compile_project
from toolgen.config import Config
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import Diagnostic, Location, plural, sort_diagnostics
from toolgen.discover import Listing
from toolgen.index import Dependencies
from toolgen.render.project import RenderMemo, ToolRender, render_project, render_tool
from toolgen.stats import catalog_totals, tool_sizes
from toolgen.unit_cache import UnitCache


@dataclass
class Generated:
    files: dict[str, bytes]
    descriptors: list[ToolDescriptor]
    diagnostics: list[Diagnostic]
    locations: dict[str, Location]
    search_roots: list[str]
    sources: Listing
    inputs: Dependencies
    shas: dict[str, str]  # the sha256 of each file but the manifest


def generate(
    config: Config,
    cache: UnitCache | None = None,
    jobs: int = 1,
    memo: RenderMemo | None = None,
) -> Generated:
    """Everything a build writes, and what it found. With a unit cache, unchanged files are
    neither analysed nor rendered again, and this run's work is stored for the next; with a
    `memo` (a process that builds again), what rendering made is kept in it for the next."""

    def finish(descriptor: ToolDescriptor) -> ToolRender:  # in the worker that compiled it
        return render_tool(descriptor, config.platforms, config.render)

    compiled = compile_project(config, cache, jobs, finish if jobs > 1 else None)
    rendered = render_project(
        compiled.descriptors,
        config.platforms,
        compiled.locations,
        config.render,
        {**(cache.known if cache else {}), **compiled.finished},
        cache.save if cache else None,
        memo,
    )
    found = [
        *compiled.diagnostics,
        *config.policy().apply(rendered.diagnostics, compiled.suppressions),
    ]
    if config.budget_catalog_tokens is not None:
        found += catalog_budget(rendered.files, config.budget_catalog_tokens)
    return Generated(
        rendered.files,
        compiled.descriptors,
        sort_diagnostics(found),
        compiled.locations,
        compiled.search_roots,
        compiled.sources,
        compiled.inputs,
        rendered.shas,
    )


def catalog_budget(files: dict[str, bytes], budget: int) -> list[Diagnostic]:
    totals = catalog_totals(tool_sizes(files))
    return [
        Diagnostic(
            "TG931",
            f"{platform} catalog is about {tokens} tokens ({chars} characters), over the budget "
            f"of {plural(budget, 'token')}",
        )
        for platform, (chars, tokens) in totals.items()
        if tokens > budget
    ]
