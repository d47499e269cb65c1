"""Where rendered bytes wait until the generated files are put together: the `Sink` protocol,
and `Memory`, the sink that keeps them as bytes.

`toolgen.render.project.render_project` puts every generated file together from each tool's
parts (`ToolParts`) as kept by a sink, without knowing how the sink keeps them: a sink is
generic over what it keeps in place of a tool's bytes (`P`) and over what a file it puts
together is (`C`). A process that builds again (`toolgen build --watch`) keeps them in `Memory`,
the same bytes objects from one build to the next; a run of its own keeps them in a spool on
disk (`toolgen.incremental.spool_sink`), so that it holds no descriptor and no payload, whatever
the size of the project.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, overload

from toolgen.descriptor import ToolDescriptor

if TYPE_CHECKING:
    from toolgen.render.project import Reuse, ToolRender

#: What a sink keeps in place of a tool's bytes: the bytes themselves (`Memory`), or where
#: they are (a spool's pieces).
P = TypeVar("P")
#: A generated file as a sink puts it together from parts (bytes, or read back when written).
C = TypeVar("C")


@dataclass
class ToolParts(Generic[P]):
    """One tool's rendered parts (`ToolRender`) as a sink keeps them."""

    name: str
    visible: bool
    descriptor: P  # descriptors/<name>.json
    sha: str  # that file's sha256 ("": computed when the manifest is made)
    entries: dict[str, P] = field(default_factory=dict)  # payload path -> indented entries
    #: document path -> (the tool's index line, its section after a newline)
    sections: dict[str, tuple[str, P]] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (code, message)
    tallies: dict[str, tuple[int, ...]] = field(default_factory=dict)
    #: what the Python module is made from (`Memory`: the descriptor as payloads show it)
    typed: Any = None
    description: str = ""  # `ToolRender.description`


class Sink(Protocol[P, C]):
    """Keeps each tool's rendered parts, and puts files together from them (with literal
    bytes between: a payload's head and commas)."""

    def keep(
        self, name: str, visible: bool, render: ToolRender, typed: Any = None
    ) -> ToolParts[P]: ...

    def read(self, part: P) -> bytes: ...

    def file(self, parts: list[bytes | P], sha: str = "") -> C:
        """A generated file made of these parts, in order."""
        ...

    def typed(self, tool: ToolParts[P], inline: bool) -> Any:
        """What the Python module is made from for `tool` (`toolgen.render.python.Typed`)."""
        ...

    def shas(self, files: Mapping[str, bytes | C]) -> dict[str, str]:
        """The sha256 of each file, by path (in the order of `files`)."""
        ...


class Memory:
    """Parts kept as the bytes objects rendering made. With a `Reuse` (a process that builds
    again), the hash of a file that is the same object as last time is not computed again."""

    def __init__(self, reuse: Reuse | None = None) -> None:
        self.reuse = reuse

    def keep(
        self, name: str, visible: bool, render: ToolRender, typed: Any = None
    ) -> ToolParts[bytes]:
        entries = {path: chunk for path, chunk in render.chunks.items() if chunk}
        return ToolParts(
            name,
            visible,
            render.encoded(),
            "",
            entries,
            dict(render.encoded_sections()),
            render.problems,
            render.tallies,
            typed,
            render.description,
        )

    def read(self, part: bytes) -> bytes:
        return part

    def file(self, parts: list[bytes], sha: str = "") -> bytes:
        if len(parts) == 1:  # the same object each time (a descriptor): its hash is reused
            return parts[0]
        return b"".join(parts)

    def typed(self, tool: ToolParts[bytes], inline: bool) -> Any:
        return tool.typed

    def shas(self, files: Mapping[str, bytes]) -> dict[str, str]:
        reuse = self.reuse
        if reuse is None:
            return {path: _sha(data) for path, data in files.items()}
        found = {
            path: reuse.get(("sha", id(data)), data, functools.partial(_sha, data))
            for path, data in files.items()
        }
        reuse.rotate()
        return found


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class KeptDescriptors(Sequence[ToolDescriptor], Generic[P]):
    """The descriptors of kept tools, each read back from the sink when asked for."""

    def __init__(self, tools: list[ToolParts[P]], sink: Sink[P, Any]) -> None:
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

    def _read(self, tool: ToolParts[P]) -> ToolDescriptor:
        return ToolDescriptor.model_validate_json(self.sink.read(tool.descriptor))
