"""The whole pipeline in one call: discover → analyze → descriptors → render (no writing)."""

from __future__ import annotations

from dataclasses import dataclass

from toolgen.compiler import compile_project
from toolgen.config import Config
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import Diagnostic, Location, sort_diagnostics
from toolgen.render import render_project


@dataclass
class Generated:
    files: dict[str, bytes]
    descriptors: list[ToolDescriptor]
    diagnostics: list[Diagnostic]
    locations: dict[str, Location]
    search_roots: list[str]


def generate(config: Config) -> Generated:
    compiled = compile_project(config)
    rendered = render_project(compiled.descriptors, config.platforms, compiled.locations)
    return Generated(
        rendered.files,
        compiled.descriptors,
        sort_diagnostics([*compiled.diagnostics, *rendered.diagnostics]),
        compiled.locations,
        compiled.search_roots,
    )
