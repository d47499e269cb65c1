"""All platforms at once, for a run of its own that holds no descriptor (`toolgen.spool`).

`spool_tool` appends a tool's render (`ToolRender`) to the spool as soon as it is made and
keeps only where its parts are (`SpooledTool`), so the descriptor can go. `render_spooled`
then lays each generated file out as `Spooled` parts in name order, the same bytes that
`toolgen.render.project.render_project` makes: payloads from their `Layout`, the catalog from
its index lines and sections, the Python module from the descriptors read back one at a time
(those of tools whose blocks the cache holds are not read), and the manifest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolgen.incremental.spool import Content, Piece, Spool, Spooled, sha_of
from toolgen.render import MANIFEST
from toolgen.render.jsonout import dump_json
from toolgen.render.options import RenderOptions
from toolgen.render.project import (
    DOCUMENTS,
    SECTIONED,
    Layout,
    ToolRender,
    catalog_problems,
    layouts,
    manifest_for,
)
from toolgen.render.python import StoredMemo
from toolgen.schema_ops import inline_refs

#: (code, tool name, message): a problem rendering found.
NamedReport = Callable[[str, str, str], None]


@dataclass
class SpooledTool:
    """What a spooled build keeps of one tool: where its rendered parts are in the spool."""

    name: str
    visible: bool
    descriptor: Piece  # descriptors/<name>.json
    sha: str  # that file's sha256
    entries: dict[str, Piece] = field(default_factory=dict)  # payload path -> indented entries
    #: document path -> (the tool's index line, its section after a newline)
    sections: dict[str, tuple[str, Piece]] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (code, message)
    tallies: dict[str, tuple[int, ...]] = field(default_factory=dict)


def spool_tool(name: str, visible: bool, render: ToolRender, spool: Spool) -> SpooledTool:
    """Append `render`'s parts to `spool`."""
    data = render.encoded()
    tool = SpooledTool(name, visible, spool.add(data), hashlib.sha256(data).hexdigest())
    for path, chunk in render.chunks.items():
        if chunk:
            tool.entries[path] = spool.add(chunk)
    for path, (index, section) in render.sections.items():
        tool.sections[path] = (index, spool.add(("\n" + section).encode()))
    tool.problems, tool.tallies = render.problems, render.tallies
    return tool


class _Typed:
    """What the Python module is made from (`toolgen.render.python.Keyed`): the parameters
    are read back from the spool only when asked for (a tool the memo holds is not)."""

    def __init__(self, tool: SpooledTool, spool: Spool, inline: bool) -> None:
        self.name, self.key = tool.name, tool.sha  # the descriptor's sha256
        self._tool, self._spool, self._inline = tool, spool, inline

    @property
    def parameters(self) -> dict[str, Any]:
        parameters: dict[str, Any] = json.loads(self._spool.read(self._tool.descriptor))[
            "parameters"
        ]
        return inline_refs(parameters) if self._inline else parameters


def render_spooled(
    tools: list[SpooledTool],
    platforms: tuple[str, ...],
    options: RenderOptions,
    spool: Spool,
    report: NamedReport,
    memo: StoredMemo | None = None,
) -> tuple[dict[str, Content], dict[str, str]]:
    """Every generated file from `tools` (in name order, each name once), and the sha256 of
    each file but the manifest. With a `memo` (from the cache), the Python module's blocks
    of a tool it holds are not made again, and it keeps what this render made."""
    files: dict[str, Content] = {}
    visible = [tool for tool in tools if tool.visible]
    for tool in tools:
        files[f"descriptors/{tool.name}.json"] = Spooled(spool, [tool.descriptor], tool.sha)
        for code, message in tool.problems:
            report(code, tool.name, message)
    for path, layout in layouts(platforms, options).items():
        pieces = [tool.entries[path] for tool in visible if path in tool.entries]
        files[path] = _payload(spool, layout, pieces)
    tallies = {key: [t.tallies[key] for t in visible if key in t.tallies] for key in platforms}
    for code, message in catalog_problems(tallies):
        report(code, visible[0].name, message)
    for path, (_, head) in SECTIONED.items():
        index = [tool.sections[path][0] for tool in visible]
        sections = [tool.sections[path][1] for tool in visible]
        files[path] = Spooled(spool, _sectioned(spool, head(index), sections))

    typed = [_Typed(tool, spool, options.inline_defs) for tool in visible]
    for renderer in DOCUMENTS.values():
        on_tool = _by_name(report)
        for path, value in renderer(typed, on_tool, options, memo=memo).items():
            files[path] = value.encode() if isinstance(value, str) else dump_json(value)
    files = dict(sorted(files.items()))
    shas = {path: sha_of(content) for path, content in files.items()}
    files[MANIFEST] = dump_json(manifest_for(shas))
    return files, shas


def _payload(spool: Spool, layout: Layout, pieces: list[Piece]) -> Spooled:
    """`Layout.payload`, with the chunks in the spool."""
    if not pieces:
        return Spooled(spool, [layout.empty.encode()])
    parts: list[bytes | Piece] = [layout.prefix.encode()]
    for i, piece in enumerate(pieces):
        if i:
            parts.append(b",\n")
        parts.append(piece)
    parts.append(layout.suffix.encode())
    return Spooled(spool, parts)


def _sectioned(spool: Spool, head: str, sections: list[Piece]) -> list[bytes | Piece]:
    """`catalog.join_sections`, with sections in the spool (each with its newline before it):
    only the last is read, for its trailing blank lines."""
    if not sections:
        return [head.rstrip().encode() + b"\n"]
    last = spool.read(sections[-1]).decode().rstrip().encode() + b"\n"  # str's whitespace
    return [head.encode(), *sections[:-1], last]


def _by_name(report: NamedReport) -> Callable[[str, Any, str], None]:
    """A renderer's report (code, tool, message) for one that knows tools by name."""
    return lambda code, tool, message: report(code, tool.name, message)
