"""Where rendered bytes wait until the generated files are put together: memory or the spool.

`toolgen.render.project.render_project` puts every generated file together from each tool's
parts (`ToolParts`) as kept by a sink. A process that builds again (`toolgen build --watch`)
keeps them in `Memory`, the same bytes objects from one build to the next; a run of its own
keeps them in a `Spooled` sink (`toolgen.incremental.spool`), appended as soon as each tool
is rendered, so that it holds no descriptor and no payload, whatever the size of the project.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, overload

from toolgen.descriptor import ToolDescriptor
from toolgen.incremental.spool import Content, Piece, Spool, Spooled, sha_of
from toolgen.schema_ops import inline_refs

if TYPE_CHECKING:
    from toolgen.render.project import Reuse, ToolRender

#: Bytes kept by a sink: the bytes themselves (`Memory`), or where they are in a spool.
Part = bytes | Piece


@dataclass
class ToolParts:
    """One tool's rendered parts (`ToolRender`) as a sink keeps them."""

    name: str
    visible: bool
    descriptor: Part  # descriptors/<name>.json
    sha: str  # that file's sha256 ("": computed when the manifest is made)
    entries: dict[str, Part] = field(default_factory=dict)  # payload path -> indented entries
    #: document path -> (the tool's index line, its section after a newline)
    sections: dict[str, tuple[str, Part]] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (code, message)
    tallies: dict[str, tuple[int, ...]] = field(default_factory=dict)
    #: what the Python module is made from (`Memory`: the descriptor as payloads show it)
    typed: Any = None


class Sink(Protocol):
    def keep(
        self, name: str, visible: bool, render: ToolRender, typed: Any = None
    ) -> ToolParts: ...

    def read(self, part: Part) -> bytes: ...

    def file(self, parts: list[Part], sha: str = "") -> Content:
        """A generated file made of these parts, in order."""
        ...

    def typed(self, tool: ToolParts, inline: bool) -> Any:
        """What the Python module is made from for `tool` (`toolgen.render.python.Typed`)."""
        ...

    def shas(self, files: dict[str, Content]) -> dict[str, str]:
        """The sha256 of each file, by path (in the order of `files`)."""
        ...


class Memory:
    """Parts kept as the bytes objects rendering made. With a `Reuse` (a process that builds
    again), the hash of a file that is the same object as last time is not computed again."""

    def __init__(self, reuse: Reuse | None = None) -> None:
        self.reuse = reuse

    def keep(self, name: str, visible: bool, render: ToolRender, typed: Any = None) -> ToolParts:
        entries: dict[str, Part] = {path: chunk for path, chunk in render.chunks.items() if chunk}
        sections: dict[str, tuple[str, Part]] = dict(render.encoded_sections())
        return ToolParts(
            name,
            visible,
            render.encoded(),
            "",
            entries,
            sections,
            render.problems,
            render.tallies,
            typed,
        )

    def read(self, part: Part) -> bytes:
        assert isinstance(part, bytes)
        return part

    def file(self, parts: list[Part], sha: str = "") -> Content:
        if len(parts) == 1:  # the same object each time (a descriptor): its hash is reused
            return self.read(parts[0])
        return b"".join(self.read(part) for part in parts)

    def typed(self, tool: ToolParts, inline: bool) -> Any:
        return tool.typed

    def shas(self, files: dict[str, Content]) -> dict[str, str]:
        reuse = self.reuse
        if reuse is None:
            return {path: sha_of(data) for path, data in files.items()}
        found = {
            path: reuse.get(("sha", id(data)), data, functools.partial(sha_of, data))
            for path, data in files.items()
        }
        reuse.rotate()
        return found


class SpoolSink:
    """Parts appended to a spool as soon as they are kept (see the module's doc)."""

    def __init__(self, spool: Spool) -> None:
        self.spool = spool

    def keep(self, name: str, visible: bool, render: ToolRender, typed: Any = None) -> ToolParts:
        spool = self.spool
        data = render.encoded()
        tool = ToolParts(name, visible, spool.add(data), hashlib.sha256(data).hexdigest())
        for path, chunk in render.chunks.items():
            if chunk:
                tool.entries[path] = spool.add(chunk)
        for path, (index, section) in render.encoded_sections().items():
            tool.sections[path] = (index, spool.add(section))
        tool.problems, tool.tallies = render.problems, render.tallies
        return tool

    def read(self, part: Part) -> bytes:
        return part if isinstance(part, bytes) else self.spool.read(part)

    def file(self, parts: list[Part], sha: str = "") -> Content:
        return Spooled(self.spool, parts, sha)

    def typed(self, tool: ToolParts, inline: bool) -> Any:
        return _Typed(tool, self, inline)

    def shas(self, files: dict[str, Content]) -> dict[str, str]:
        return {path: sha_of(content) for path, content in files.items()}


class _Typed:
    """What the Python module is made from (`toolgen.render.python.Keyed`): the parameters
    are read back from the sink only when asked for (a tool the memo holds is not)."""

    def __init__(self, tool: ToolParts, sink: Sink, inline: bool) -> None:
        self.name, self.key = tool.name, tool.sha  # the descriptor's sha256
        self._tool, self._sink, self._inline = tool, sink, inline

    @property
    def parameters(self) -> dict[str, Any]:
        parameters: dict[str, Any] = json.loads(self._sink.read(self._tool.descriptor))[
            "parameters"
        ]
        return inline_refs(parameters) if self._inline else parameters


class KeptDescriptors(Sequence[ToolDescriptor]):
    """The descriptors of kept tools, each read back from the sink when asked for."""

    def __init__(self, tools: list[ToolParts], sink: Sink) -> None:
        self.tools, self.sink = tools, sink

    def __len__(self) -> int:
        return len(self.tools)

    @overload
    def __getitem__(self, i: int) -> ToolDescriptor: ...

    @overload
    def __getitem__(self, i: slice) -> list[ToolDescriptor]: ...

    def __getitem__(self, i: int | slice) -> ToolDescriptor | list[ToolDescriptor]:
        if isinstance(i, slice):
            return [self._read(tool) for tool in self.tools[i]]
        return self._read(self.tools[i])

    def _read(self, tool: ToolParts) -> ToolDescriptor:
        return ToolDescriptor.model_validate_json(self.sink.read(tool.descriptor))
