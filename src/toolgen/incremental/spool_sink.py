"""The sink of a run of its own: each tool's rendered parts appended to the spool as soon as
the tool is rendered, and the generated files put together as `Spooled` parts.

`toolgen.render.project.render_project` writes into any `toolgen.render.sink.Sink`; this one
keeps where the bytes are in the spool (`Piece`), not the bytes, so that a build holds no
descriptor and no payload whatever the size of the project (`toolgen.incremental.spool`).
The pipeline picks it (`toolgen.pipeline.generate_spooled`); rendering never imports it.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from toolgen.incremental.spool import Piece, Spool, Spooled, sha_of
from toolgen.render.sink import ToolParts
from toolgen.schema_ops import inline_refs

if TYPE_CHECKING:
    from collections.abc import Mapping

    from toolgen.render.project import ToolRender


class SpoolSink:
    """Parts appended to a spool as soon as they are kept (see the module's doc)."""

    def __init__(self, spool: Spool) -> None:
        self.spool = spool

    def keep(
        self, name: str, visible: bool, render: ToolRender, typed: Any = None
    ) -> ToolParts[Piece]:
        spool = self.spool
        data = render.encoded()
        digest = hashlib.sha256(data).hexdigest()
        tool = ToolParts(name, visible, spool.add_whole(data), digest)  # a file of its own
        for path, chunk in render.chunks.items():
            if chunk:
                tool.entries[path] = spool.add(chunk)
        for path, (index, section) in render.encoded_sections().items():
            tool.sections[path] = (index, spool.add(section))
        tool.problems, tool.tallies = render.problems, render.tallies
        tool.description = render.description
        return tool

    def read(self, part: bytes | Piece) -> bytes:
        return part if isinstance(part, bytes) else self.spool.read(part)

    def file(self, parts: list[bytes | Piece], sha: str = "") -> Spooled:
        return Spooled(self.spool, parts, sha)

    def typed(self, tool: ToolParts[Piece], inline: bool) -> Any:
        return _Typed(tool, self, inline)

    def shas(self, files: Mapping[str, bytes | Spooled]) -> dict[str, str]:
        return {path: sha_of(content) for path, content in files.items()}


class _Typed:
    """What the Python module is made from (`toolgen.render.python.Keyed`): the parameters
    are read back from the spool only when asked for (a tool the memo holds is not)."""

    def __init__(self, tool: ToolParts[Piece], sink: SpoolSink, inline: bool) -> None:
        self.name, self.key = tool.name, tool.sha  # the descriptor's sha256
        self._tool, self._sink, self._inline = tool, sink, inline

    @property
    def parameters(self) -> dict[str, Any]:
        parameters: dict[str, Any] = json.loads(self._sink.read(self._tool.descriptor))[
            "parameters"
        ]
        return inline_refs(parameters) if self._inline else parameters
