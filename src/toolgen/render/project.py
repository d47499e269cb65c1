"""All platforms at once: each tool rendered on its own, then every generated file put together.

`render_tool` renders one tool (`ToolRender`: its descriptor file, its entries in each payload,
its catalog section); a sink keeps its parts (`toolgen.render.sink`: in memory, or wherever the
pipeline's sink keeps them, such as the spool of a run of its own); `render_project` puts the
files together from them, in name order, and adds the manifest. Catalogs are the tools' parts
joined, so a tool that did not change is not rendered again (the unit cache and a watch's
session keep the renders).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from toolgen._version import __version__
from toolgen.descriptor import ToolDescriptor
from toolgen.render import MANIFEST, catalog, python, registry
from toolgen.render.jsonout import dump_json
from toolgen.render.options import RenderOptions
from toolgen.render.python import Memo, StoredMemo
from toolgen.render.registry import accepts
from toolgen.render.sink import C, P, Sink, ToolParts
from toolgen.schema_ops import inline_refs, recursive_defs

Report = Callable[[str, ToolDescriptor, str], None]
Renderer = Callable[[list[ToolDescriptor], Report, RenderOptions], dict[str, Any]]


def renderer(platform: str) -> Renderer:
    """The renderer of a platform (as in config `platforms`; `toolgen.render.registry`)."""
    if platform not in registry.PLATFORMS:
        known = ", ".join(registry.PLATFORMS)
        raise KeyError(f"no renderer for platform {platform!r}; known: {known}")
    render: Renderer = _module(registry.PLATFORMS[platform].module).render
    return render


def _module(name: str) -> Any:
    import importlib

    return importlib.import_module(name)


class Sectioned(NamedTuple):
    """A document made of one part per tool, kept with the tool's render: `parts(tool)` is
    the tool's (index line, section), and `head(index lines)` what comes before the sections
    (`catalog.join_sections` puts them together)."""

    parts: Callable[[ToolDescriptor], tuple[str, str]]
    head: Callable[[list[str]], str]


#: Outputs for people and typed callers, written whatever the platforms: those made of one
#: part per tool, then those made all at once.
SECTIONED: dict[str, Sectioned] = {
    "docs/tools.md": Sectioned(catalog.tool_parts, catalog.markdown_head),
}
DOCUMENTS: dict[str, Callable[..., dict[str, Any]]] = {"python": python.render}  # + memo=

#: What a catalog adds up to for one request's limits: what each tool adds (its tally, kept
#: with its render: a platform module's `request_tally`), and the check over all of them
#: ((code, message) for each limit passed: its `request_limits`).
Tally = Callable[[ToolDescriptor, RenderOptions], tuple[int, ...]]
Check = Callable[[list[tuple[int, ...]]], list[tuple[str, str]]]


def catalog_check(platform: str) -> tuple[Tally, Check] | None:
    """A platform's check of its catalog as one request, if it has one."""
    module = _module(registry.PLATFORMS[platform].module)
    if hasattr(module, "request_tally") and hasattr(module, "request_limits"):
        return module.request_tally, module.request_limits
    return None


#: Stands for the entries while a payload's form is laid out (see `_layout`).
ENTRIES_MARK = "@toolgen:entries@"


@dataclass
class ToolRender:
    """One tool's share of the output: its descriptor file, its entries in each platform payload,
    and what rendering it reported. Catalogs are these put together in name order, so a tool
    whose descriptor did not change need not be rendered again (the unit cache keeps them)."""

    descriptor: str  # the text of descriptors/<name>.json
    #: payload path -> the tool's entries as they stand in that payload (`Layout.chunk`)
    chunks: dict[str, bytes] = field(default_factory=dict)
    #: document path -> (its index line, its section)
    sections: dict[str, tuple[str, str]] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (code, message)
    tallies: dict[str, tuple[int, ...]] = field(default_factory=dict)  # by CATALOG_CHECKS key
    #: the description a model is shown ("" for a hidden tool): the catalog lint rules read it
    #: without reading the descriptor back
    description: str = ""
    _encoded: bytes | None = field(default=None, repr=False, compare=False)
    _sections: dict[str, tuple[str, bytes]] | None = field(default=None, repr=False, compare=False)

    def encoded(self) -> bytes:
        """The descriptor file's bytes: the same object each time (`Memory.shas` hashes it
        once)."""
        if self._encoded is None:
            self._encoded = self.descriptor.encode()
        return self._encoded

    def encoded_sections(self) -> dict[str, tuple[str, bytes]]:
        """Each document's (index line, section's bytes after a newline), made once."""
        if self._sections is None:
            self._sections = {
                path: (index, ("\n" + section).encode())
                for path, (index, section) in self.sections.items()
            }
        return self._sections

    def to_json(self) -> dict[str, Any]:
        """What to store besides the descriptor text (stored once, beside it; plain data, with
        bytes: the cache stores it with `marshal`)."""
        return {
            "chunks": self.chunks,
            "sections": self.sections,
            "problems": self.problems,
            "tallies": self.tallies,
            "description": self.description,
        }

    @classmethod
    def from_json(cls, descriptor: str, data: dict[str, Any]) -> ToolRender:
        """The inverse of `to_json` (the cache checks its entries' bytes as a whole)."""
        chunks = {path: bytes(chunk) for path, chunk in data["chunks"].items()}
        problems = [(code, message) for code, message in data["problems"]]
        sections = {path: (index, text) for path, (index, text) in data["sections"].items()}
        tallies = {key: tuple(tally) for key, tally in data["tallies"].items()}
        return cls(descriptor, chunks, sections, problems, tallies, str(data["description"]))


#: (code, tool name, message): a problem rendering found.
NamedReport = Callable[[str, str, str], None]


def render_tools(
    descriptors: Sequence[ToolDescriptor],
    platforms: tuple[str, ...],
    options: RenderOptions,
    known: dict[int, tuple[ToolDescriptor, ToolRender]] | None = None,
) -> dict[int, ToolRender]:
    """Each tool's render, by id() of its descriptor. `known` holds tools rendered before with
    the same descriptor and options (from the unit cache), by `id()` of the descriptor object,
    which it holds: a name could belong to two handlers, one of them reported as a duplicate.
    The others are rendered here."""
    known = known or {}
    renders: dict[int, ToolRender] = {}
    for descriptor in descriptors:
        hit = known.get(id(descriptor))
        renders[id(descriptor)] = (
            hit[1] if hit and hit[0] is descriptor else render_tool(descriptor, platforms, options)
        )
    return renders


#: The documents (`DOCUMENTS`) made by some other means than `render_documents` here: in
#: another process, say. Called once every other file is put together.
Made = Callable[[], dict[str, bytes]]


def render_project(
    tools: Sequence[ToolParts[P]],
    platforms: tuple[str, ...],
    options: RenderOptions,
    sink: Sink[P, C],
    report: NamedReport,
    memo: Memo | StoredMemo | None = None,
    documents: Made | None = None,
) -> tuple[dict[str, bytes | C], dict[str, str]]:
    """Every generated file from the tools' parts as `sink` keeps them (in name order, each
    name once), and the sha256 of each file but the manifest. With a `memo` (a process that
    builds again, or the cache's), the Python module's blocks of a tool it holds are not made
    again, and it keeps what this render made. The files are what `sink` puts together, or
    bytes (the Python module, the manifest). The documents come from `documents` if given
    (`memo` is then theirs to use), else from `render_documents`."""
    for platform in platforms:
        renderer(platform)  # a platform without one is a KeyError, whatever the tools
    files: dict[str, bytes | C] = {}
    visible = [tool for tool in tools if tool.visible]
    for tool in tools:
        files[f"descriptors/{tool.name}.json"] = sink.file([tool.descriptor], tool.sha)
    report_problems(((t.name, t.visible, t.problems, t.tallies) for t in tools), platforms, report)
    for path, layout in layouts(platforms, options).items():
        chunks = [tool.entries[path] for tool in visible if path in tool.entries]
        files[path] = sink.file(layout.parts(chunks))
    for path, (_, head) in SECTIONED.items():
        index = [tool.sections[path][0] for tool in visible]
        sections = [tool.sections[path][1] for tool in visible]
        files[path] = sink.file(_sectioned(sink, head(index), sections))
    shas = sink.shas(files)  # before the documents: `documents` may be making them meanwhile
    if documents is None:
        made = render_documents(typed_tools(visible, sink, options), report, options, memo)
    else:
        made = documents()
    for path, data in made.items():
        files[path] = data
        shas[path] = hashlib.sha256(data).hexdigest()
    files = dict(sorted(files.items()))
    shas = {path: shas[path] for path in files}
    files[MANIFEST] = dump_json(manifest_for(shas))
    return files, shas


#: What rendering found of one tool: its name, whether it is visible, its problems (code,
#: message) and its tallies for the catalog checks (`ToolRender.problems`, `.tallies`).
Found = tuple[str, bool, list[tuple[str, str]], dict[str, tuple[int, ...]]]


def report_problems(
    tools: Iterable[Found], platforms: tuple[str, ...], report: NamedReport
) -> None:
    """Report what rendering found of each tool, then what the platforms' catalog checks
    find over the visible ones (at the first of them)."""
    tallies: dict[str, list[tuple[int, ...]]] = {key: [] for key in platforms}
    first = None
    for name, visible, problems, tool_tallies in tools:
        for code, message in problems:
            report(code, name, message)
        if visible:
            first = first or name
            for key, tally in tool_tallies.items():
                if key in tallies:
                    tallies[key].append(tally)
    for code, message in catalog_problems(tallies):
        assert first is not None  # a check finds nothing in no tallies
        report(code, first, message)


def typed_tools(
    visible: Sequence[ToolParts[P]], sink: Sink[P, Any], options: RenderOptions
) -> list[Any]:
    """What the documents are made from: each visible tool's name and parameters."""
    return [sink.typed(tool, options.inline_defs) for tool in visible]


def render_documents(
    typed: list[Any],
    report: NamedReport,
    options: RenderOptions,
    memo: Memo | StoredMemo | None = None,
) -> dict[str, bytes]:
    """The documents made all at once (`DOCUMENTS`: the Python module) from `typed_tools`."""
    made: dict[str, bytes] = {}
    on_tool = _by_name(report)
    for document in DOCUMENTS.values():
        for path, value in document(typed, on_tool, options, memo=memo).items():
            made[path] = value.encode() if isinstance(value, str) else dump_json(value)
    return made


def _sectioned(sink: Sink[P, Any], head: str, sections: list[P]) -> list[bytes | P]:
    """`catalog.join_sections`, with the sections as the sink keeps them (each with its
    newline before it): only the last is read, for its trailing blank lines."""
    if not sections:
        return [head.rstrip().encode() + b"\n"]
    last = sink.read(sections[-1]).decode().rstrip().encode() + b"\n"  # str's whitespace
    return [head.encode(), *sections[:-1], last]


def _by_name(report: NamedReport) -> Callable[[str, Any, str], None]:
    """A renderer's report (code, tool, message) for one that knows tools by name."""
    return lambda code, tool, message: report(code, tool.name, message)


def catalog_problems(tallies: dict[str, list[tuple[int, ...]]]) -> list[tuple[str, str]]:
    """What the platforms' catalog checks find over the visible tools' tallies (by platform)."""
    found = []
    for platform, tallied in tallies.items():
        check = catalog_check(platform) if tallied else None
        if check is not None:
            found += check[1](tallied)
    return found


@dataclass(frozen=True)
class Layout:
    """A payload's text around its entries: JSON's layout puts an entry at depth d as its own
    text with every line indented 2*d spaces (`entry`), and strings never hold a raw
    newline, so a payload is `prefix`, the indented entries joined by ",\n", and `suffix`;
    or `empty`, without entries."""

    empty: str
    prefix: str
    indent: str
    suffix: str

    def chunk(self, entries: list[str]) -> bytes:
        """Entries (their own JSON texts) as they stand in the payload, one after another."""
        indent = self.indent
        return ",\n".join(indent + e.replace("\n", "\n" + indent) for e in entries).encode()

    def parts(self, chunks: list[P]) -> list[bytes | P]:
        """The payload holding these chunks of entries (none empty), as parts for a sink."""
        if not chunks:
            return [self.empty.encode()]
        parts: list[bytes | P] = [self.prefix.encode()]
        for i, chunk in enumerate(chunks):
            if i:
                parts.append(b",\n")
            parts.append(chunk)
        parts.append(self.suffix.encode())
        return parts


@functools.cache
def layouts(platforms: tuple[str, ...], options: RenderOptions) -> dict[str, Layout]:
    """The layout of each payload that `platforms` make (by path; the same dict each time:
    not to be changed)."""
    shapes: dict[str, Any] = {}
    for platform in platforms:
        shapes.update(renderer(platform)([], _no_report, options))
    return {path: _layout(shape) for path, shape in shapes.items()}


def _no_report(*_: Any) -> None:  # an empty catalog has nothing to report
    return None


def _layout(shape: Any) -> Layout:
    text = dump_json(_filled(shape, [ENTRIES_MARK])).decode()
    mark = text.index(f'"{ENTRIES_MARK}"')
    start = text.rindex("\n", 0, mark) + 1
    return Layout(
        dump_json(shape).decode(),
        text[:start],
        text[start:mark],
        text[mark + len(ENTRIES_MARK) + 2 :],
    )


def render_tool(
    descriptor: ToolDescriptor, platforms: tuple[str, ...], options: RenderOptions
) -> ToolRender:
    tool = ToolRender(dump_json(descriptor.to_json_dict()).decode())

    def report(code: str, _: ToolDescriptor, message: str) -> None:
        tool.problems.append((code, message))

    if descriptor.visible:  # forbidden tools keep their descriptor and reach no payload
        tool.description = descriptor.description
        shown = for_platforms(descriptor, options)
        if options.inline_defs:
            tool.problems.extend(inline_problems(descriptor))
        shapes = layouts(platforms, options)
        for platform in platforms:
            if not accepts(platform, descriptor.name):  # that platform refuses the name
                tool.problems.append(
                    (
                        "TG608",
                        f"{platform} does not accept the name "
                        f"(^{registry.PLATFORMS[platform].names}$): "
                        f"the tool is left out of the {platform} payload",
                    )
                )
                continue
            for path, value in renderer(platform)([shown], report, options).items():
                entries = [_json_text(item) for item in _items(value)]
                tool.chunks[path] = shapes[path].chunk(entries)
        for path, (made, _) in SECTIONED.items():
            tool.sections[path] = made(shown)
        for platform in platforms:
            check = catalog_check(platform)
            if check is not None and accepts(platform, descriptor.name):
                tool.tallies[platform] = check[0](shown, options)
    return tool


def for_platforms(descriptor: ToolDescriptor, options: RenderOptions) -> ToolDescriptor:
    """The descriptor as the payloads show it: with `inline_defs` (for clients that cannot
    resolve `$ref`), its parameters and return schemas inlined."""
    if not options.inline_defs:
        return descriptor
    returns = descriptor.returns
    inlined = returns.model_copy(update={"schema_": inline_refs(returns.schema_)})
    return descriptor.model_copy(
        update={"parameters": inline_refs(descriptor.parameters), "returns": inlined}
    )


def inline_problems(descriptor: ToolDescriptor) -> list[tuple[str, str]]:
    """TG607 for each recursive model that `inline_defs` has to leave as a `$ref`."""
    found = []
    for where, schema in (
        ("parameters", descriptor.parameters),
        ("return", descriptor.returns.schema_),
    ):
        for name in recursive_defs(schema):
            found.append(
                (
                    "TG607",
                    f"inline_defs: recursive model {name} in the {where} cannot be inlined; "
                    "its `$ref`s and `$defs` stay",
                )
            )
    return found


def _items(payload: Any) -> list[Any]:
    """The list of per-tool entries in a payload: the payload itself, or its one list value
    (`{"tools": [...]}`, `{"function_declarations": [...]}`)."""
    if isinstance(payload, list):
        return payload
    if isinstance(payload, dict):
        lists = [v for v in payload.values() if isinstance(v, list)]
        if len(lists) == 1:
            return lists[0]
    raise TypeError(f"a payload must be a list of entries or hold exactly one: {payload!r}")


def _json_text(value: Any) -> str:
    """`dump_json`'s text of `value` without the final newline: an entry inside a payload."""
    return dump_json(value)[:-1].decode()


def _filled(shape: Any, items: list[Any]) -> Any:
    if isinstance(shape, list):
        return items
    return {k: items if isinstance(v, list) else v for k, v in shape.items()}


def manifest_for(shas: dict[str, str]) -> dict[str, Any]:
    """The manifest of files with these sha256 (by path, in sorted order)."""
    return {"toolgen_version": __version__, "files": shas}


T = TypeVar("T")


class Reuse:
    """What the last `render_project` with a memo made that the next can reuse, for a process
    that builds again (`toolgen build --watch`; a run of its own keeps nothing). Such a
    process keeps its unchanged tools' payload entries and descriptor bytes
    (`ToolRender.encoded`), so only what changed is indented and hashed again. Each result is
    kept by id() of what it was made from, with that object (kept alive, so that the id() is
    not reused); what one render did not use is let go after it."""

    def __init__(self) -> None:
        self.last: dict[tuple[Any, ...], tuple[object, Any]] = {}
        self.now: dict[tuple[Any, ...], tuple[object, Any]] = {}

    def get(self, key: tuple[Any, ...], source: object, make: Callable[[], T]) -> T:
        hit = self.last.get(key)
        value: T = hit[1] if hit is not None and hit[0] is source else make()
        self.now[key] = (source, value)
        return value

    def rotate(self) -> None:
        self.last, self.now = self.now, {}


@dataclass
class RenderMemo:
    """What a process that renders again and again (`toolgen build --watch`, through its
    `toolgen.incremental.session.Session`) keeps from one `render_project` to the next."""

    reuse: Reuse = field(default_factory=Reuse)  # file hashes
    python: python.Memo = field(default_factory=python.Memo)  # the Python module's blocks
