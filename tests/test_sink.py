"""`render_project` writes into any `Sink`: rendering knows the protocol, not how a sink keeps
its parts (memory, the spool, or the sink defined here)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from conftest import REPO
from toolgen.config import load_config
from toolgen.pipeline import generate
from toolgen.render import MANIFEST
from toolgen.render.project import ToolRender, for_platforms, render_project, render_tool
from toolgen.render.sink import Memory, Sink, ToolParts


class Joined:
    """A file as the sink below makes it: its parts, joined only when read."""

    def __init__(self, sink: Listed, parts: list[bytes | int]) -> None:
        self.sink, self.parts = sink, parts

    def read(self) -> bytes:  # not counted in `Listed.reads`: rendering's reads are
        kept = self.sink.kept
        return b"".join(part if isinstance(part, bytes) else kept[part] for part in self.parts)


class Listed:
    """A sink that keeps each tool's bytes in a list, and a part as its index there."""

    def __init__(self) -> None:
        self.kept: list[bytes] = []
        self.reads = 0  # parts rendering read back

    def _add(self, data: bytes) -> int:
        self.kept.append(data)
        return len(self.kept) - 1

    def keep(
        self, name: str, visible: bool, render: ToolRender, typed: Any = None
    ) -> ToolParts[int]:
        tool = ToolParts(name, visible, self._add(render.encoded()), "", typed=typed)
        for path, chunk in render.chunks.items():
            if chunk:
                tool.entries[path] = self._add(chunk)
        for path, (index, section) in render.encoded_sections().items():
            tool.sections[path] = (index, self._add(section))
        tool.problems, tool.tallies = render.problems, render.tallies
        return tool

    def read(self, part: bytes | int) -> bytes:
        if isinstance(part, bytes):
            return part
        self.reads += 1
        return self.kept[part]

    def file(self, parts: list[bytes | int], sha: str = "") -> Joined:
        return Joined(self, parts)

    def typed(self, tool: ToolParts[int], inline: bool) -> Any:
        return tool.typed

    def shas(self, files: Mapping[str, bytes | Joined]) -> dict[str, str]:
        return {
            path: hashlib.sha256(data if isinstance(data, bytes) else data.read()).hexdigest()
            for path, data in files.items()
        }


def test_a_sink_defined_elsewhere_makes_the_bytes_memory_makes() -> None:
    """The repository's examples through a sink render/ has never heard of: every file has
    Memory's bytes; descriptors and payloads are the sink's own files (its parts, not read
    while put together), only the Python module and the manifest are bytes."""
    config = load_config(None, cwd=REPO)
    platforms, options = config.platforms, config.render
    descriptors = generate(config).descriptors

    def made(sink: Sink[Any, Any]) -> dict[str, Any]:
        tools = [
            sink.keep(d.name, d.visible, render_tool(d, platforms, options), shown)
            for d in descriptors
            for shown in [for_platforms(d, options) if d.visible else None]
        ]
        files, _ = render_project(tools, platforms, options, sink, lambda *_: None)
        return files

    memory = made(Memory())
    listed = Listed()
    files = made(listed)
    assert listed.reads == 1  # the catalog's last section, for its trailing blank lines
    assert list(files) == list(memory)
    assert {p for p, f in files.items() if isinstance(f, bytes)} == {MANIFEST, "python/tools.py"}
    assert {p: f if isinstance(f, bytes) else f.read() for p, f in files.items()} == memory
