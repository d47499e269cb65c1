"""Rendering: descriptors to the files under `generated/`, one module per platform.

Each platform module has `render(tools, report) -> {relative path: JSON value}` and sees only
visible tools (forbidden ones never reach a payload). `report(code, tool, message)` records a
diagnostic located at the tool's handler. `render_project` adds the descriptors themselves and
the manifest, and returns bytes: rendering is pure, writing is `toolgen.output`'s job.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolgen._version import __version__
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import Diagnostic, Location
from toolgen.render import anthropic, catalog, gemini, mcp, openai, python
from toolgen.render.jsonout import dump_json
from toolgen.render.options import RenderOptions
from toolgen.schema_ops import inline_refs

Report = Callable[[str, ToolDescriptor, str], None]
Renderer = Callable[[list[ToolDescriptor], Report, RenderOptions], dict[str, Any]]

#: Platform name (as in config `platforms`) to its renderer.
RENDERERS: dict[str, Renderer] = {
    "openai": openai.render,
    "anthropic": anthropic.render,
    "gemini": gemini.render,
    "mcp": mcp.render,
}

#: Outputs for people and typed callers, written whatever the platforms.
DOCUMENTS: dict[str, Renderer] = {"docs": catalog.render, "python": python.render}

MANIFEST = "manifest.json"


@dataclass
class Rendered:
    files: dict[str, bytes] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def render_project(
    descriptors: list[ToolDescriptor],
    platforms: tuple[str, ...],
    locations: dict[str, Location] | None = None,
    options: RenderOptions | None = None,
) -> Rendered:
    rendered = Rendered()
    options = options or RenderOptions()
    locations = locations or {}

    def report(code: str, tool: ToolDescriptor, message: str) -> None:
        where = locations.get(tool.name)
        rendered.diagnostics.append(Diagnostic(code, f"tool {tool.name}: {message}", where))

    documents: dict[str, Any] = {
        f"descriptors/{d.name}.json": d.to_json_dict() for d in descriptors
    }
    visible = [d for d in descriptors if d.visible]
    if options.inline_defs:  # for clients that cannot resolve `$ref`
        visible = [d.model_copy(update={"parameters": inline_refs(d.parameters)}) for d in visible]
    for platform in platforms:
        renderer = RENDERERS.get(platform)
        if renderer is None:
            raise KeyError(f"no renderer for platform {platform!r}; known: {', '.join(RENDERERS)}")
        documents.update(renderer(visible, report, options))
    for renderer in DOCUMENTS.values():
        documents.update(renderer(visible, report, options))
    files = {
        path: value.encode() if isinstance(value, str) else dump_json(value)
        for path, value in sorted(documents.items())
    }
    files[MANIFEST] = dump_json(manifest(files))
    rendered.files = files
    return rendered


def manifest(files: dict[str, bytes]) -> dict[str, Any]:
    return {
        "toolgen_version": __version__,
        "files": {path: hashlib.sha256(data).hexdigest() for path, data in sorted(files.items())},
    }
