"""All platforms at once: descriptors to `{relative path: bytes}`, plus the manifest."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from toolgen._version import __version__
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import Diagnostic, Location
from toolgen.names import PLATFORM_NAMES, accepts
from toolgen.render import MANIFEST, anthropic, catalog, gemini, mcp, openai, python
from toolgen.render.jsonout import dump_json
from toolgen.render.options import RenderOptions
from toolgen.schema_ops import inline_refs, recursive_defs

Report = Callable[[str, ToolDescriptor, str], None]
Renderer = Callable[[list[ToolDescriptor], Report, RenderOptions], dict[str, Any]]

#: Platform name (as in config `platforms`) to its renderer.
RENDERERS: dict[str, Renderer] = {
    "openai": openai.render,
    "anthropic": anthropic.render,
    "gemini": gemini.render,
    "mcp": mcp.render,
}


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
#: with its render), and the check over all of them ((code, message) for each limit passed).
Tally = Callable[[ToolDescriptor, RenderOptions], tuple[int, ...]]
CATALOG_CHECKS: dict[str, tuple[Tally, Callable[[list[tuple[int, ...]]], list[tuple[str, str]]]]]
CATALOG_CHECKS = {"anthropic": (anthropic.request_tally, anthropic.request_limits)}


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
    _encoded: bytes | None = field(default=None, repr=False, compare=False)

    def encoded(self) -> bytes:
        """The descriptor file's bytes: the same object each time (`manifest` hashes it once)."""
        if self._encoded is None:
            self._encoded = self.descriptor.encode()
        return self._encoded

    def to_json(self) -> dict[str, Any]:
        """What to store besides the descriptor text (stored once, beside it; plain data, with
        bytes: the cache stores it with `marshal`)."""
        return {
            "chunks": self.chunks,
            "sections": self.sections,
            "problems": self.problems,
            "tallies": self.tallies,
        }

    @classmethod
    def from_json(cls, descriptor: str, data: dict[str, Any]) -> ToolRender:
        """The inverse of `to_json` (the cache checks its entries' bytes as a whole)."""
        chunks = {path: bytes(chunk) for path, chunk in data["chunks"].items()}
        problems = [(code, message) for code, message in data["problems"]]
        sections = {path: (index, text) for path, (index, text) in data["sections"].items()}
        tallies = {key: tuple(tally) for key, tally in data["tallies"].items()}
        return cls(descriptor, chunks, sections, problems, tallies)


@dataclass
class Rendered:
    files: dict[str, bytes] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Each tool's render, by id() of its descriptor (payload entries let go once assembled).
    tools: dict[int, ToolRender] = field(default_factory=dict)
    shas: dict[str, str] = field(default_factory=dict)  # each file's sha256 but the manifest's


def render_project(
    descriptors: list[ToolDescriptor],
    platforms: tuple[str, ...],
    locations: dict[str, Location] | None = None,
    options: RenderOptions | None = None,
    known: dict[int, tuple[ToolDescriptor, ToolRender]] | None = None,
    rendered_tools: Callable[[dict[int, ToolRender]], None] | None = None,
    memo: RenderMemo | None = None,
) -> Rendered:
    """Every generated file. `known` holds tools rendered before with the same descriptor and
    options (from the unit cache), by `id()` of the descriptor object, which it holds: a name
    could belong to two handlers, one of them reported as a duplicate. The others are rendered
    here.

    `rendered_tools` sees every tool's render once all are made (the unit cache stores them);
    then each payload is put together from the tools' chunks. With a `memo` (a process that
    builds again: `toolgen build --watch`), what this render made that the next can reuse is
    kept in it."""
    rendered = Rendered()
    reuse = memo.reuse if memo else None
    options = options or RenderOptions()
    locations = locations or {}
    known = known or {}
    for platform in platforms:
        if platform not in RENDERERS:
            raise KeyError(f"no renderer for platform {platform!r}; known: {', '.join(RENDERERS)}")

    def report(code: str, tool: ToolDescriptor, message: str) -> None:
        where = locations.get(tool.name)
        rendered.diagnostics.append(Diagnostic(code, f"tool {tool.name}: {message}", where))

    files: dict[str, bytes] = {}
    shapes = layouts(platforms, options)
    visible = []
    parts: dict[str, list[tuple[str, str]]] = {path: [] for path in SECTIONED}
    tallies: dict[str, list[tuple[int, ...]]] = {key: [] for key in CATALOG_CHECKS}
    tools = rendered.tools
    for descriptor in descriptors:
        hit = known.get(id(descriptor))
        tool = (
            hit[1] if hit and hit[0] is descriptor else render_tool(descriptor, platforms, options)
        )
        tools[id(descriptor)] = tool
        files[f"descriptors/{descriptor.name}.json"] = tool.encoded()
        for code, message in tool.problems:
            report(code, descriptor, message)
        if descriptor.visible:
            visible.append(_for_platforms(descriptor, options))
            for path in SECTIONED:
                parts[path].append(tool.sections[path])
            for key, tally in tool.tallies.items():
                tallies[key].append(tally)
    if rendered_tools is not None:
        rendered_tools(tools)
    for path, layout in shapes.items():
        chunks = [tool.chunks.get(path, b"") for tool in tools.values()]
        files[path] = layout.payload([chunk for chunk in chunks if chunk])
    for code, message in catalog_problems(tallies):
        report(code, visible[0], message)
    for path, (_, head) in SECTIONED.items():
        index, sections = [i for i, _ in parts[path]], [s for _, s in parts[path]]
        files[path] = catalog.join_sections(head(index), sections).encode()
    for renderer in DOCUMENTS.values():
        for path, value in renderer(visible, report, options, memo=memo and memo.python).items():
            files[path] = value.encode() if isinstance(value, str) else dump_json(value)
    files = dict(sorted(files.items()))
    made = manifest(files, reuse)
    files[MANIFEST] = dump_json(made)
    rendered.files = files
    rendered.shas = made["files"]
    if reuse is not None:
        reuse.rotate()
    return rendered


def catalog_problems(tallies: dict[str, list[tuple[int, ...]]]) -> list[tuple[str, str]]:
    """What `CATALOG_CHECKS` find over the visible tools' tallies (by check)."""
    return [
        problem
        for key, (_, check) in CATALOG_CHECKS.items()
        if tallies.get(key)
        for problem in check(tallies[key])
    ]


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

    def payload(self, chunks: list[bytes]) -> bytes:
        """The payload holding these chunks of entries (none empty)."""
        if not chunks:
            return self.empty.encode()
        return b"".join([self.prefix.encode(), b",\n".join(chunks), self.suffix.encode()])


@functools.cache
def layouts(platforms: tuple[str, ...], options: RenderOptions) -> dict[str, Layout]:
    """The layout of each payload that `platforms` make (by path; the same dict each time:
    not to be changed)."""
    shapes: dict[str, Any] = {}
    for platform in platforms:
        shapes.update(RENDERERS[platform]([], _no_report, options))
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
        shown = _for_platforms(descriptor, options)
        if options.inline_defs:
            tool.problems.extend(inline_problems(descriptor))
        shapes = layouts(platforms, options)
        for platform in platforms:
            if not accepts(platform, descriptor.name):  # that platform refuses the name
                tool.problems.append(
                    (
                        "TG608",
                        f"{platform} does not accept the name (^{PLATFORM_NAMES[platform]}$): "
                        f"the tool is left out of the {platform} payload",
                    )
                )
                continue
            for path, value in RENDERERS[platform]([shown], report, options).items():
                entries = [_json_text(item) for item in _items(value)]
                tool.chunks[path] = shapes[path].chunk(entries)
        for path, (made, _) in SECTIONED.items():
            tool.sections[path] = made(shown)
        for platform in platforms:
            if platform in CATALOG_CHECKS and accepts(platform, descriptor.name):
                tool.tallies[platform] = CATALOG_CHECKS[platform][0](shown, options)
    return tool


def _for_platforms(descriptor: ToolDescriptor, options: RenderOptions) -> ToolDescriptor:
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


def manifest(files: dict[str, bytes], reuse: Reuse | None = None) -> dict[str, Any]:
    return manifest_for(file_shas(files, reuse))


def manifest_for(shas: dict[str, str]) -> dict[str, Any]:
    """The manifest of files with these sha256 (by path, in sorted order)."""
    return {"toolgen_version": __version__, "files": shas}


def file_shas(files: dict[str, bytes], reuse: Reuse | None = None) -> dict[str, str]:
    """The sha256 of each file, by path in sorted order (with `reuse`, those of the last
    render's files that are the same objects are not computed again)."""
    if reuse is None:
        return {path: _sha256(data) for path, data in sorted(files.items())}
    return {
        path: reuse.get(("sha", id(data)), data, functools.partial(_sha256, data))
        for path, data in sorted(files.items())
    }


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


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
    `toolgen.session.Session`) keeps from one `render_project` to the next."""

    reuse: Reuse = field(default_factory=Reuse)  # file hashes
    python: python.Memo = field(default_factory=python.Memo)  # the Python module's blocks
