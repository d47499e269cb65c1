"""All platforms at once: descriptors to `{relative path: bytes}`, plus the manifest."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from toolgen._version import __version__
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import Diagnostic, Location
from toolgen.render import MANIFEST, anthropic, catalog, gemini, mcp, openai, python
from toolgen.render.jsonout import dump_json
from toolgen.render.options import RenderOptions
from toolgen.schema_ops import inline_refs

Report = Callable[[str, ToolDescriptor, str], None]
Renderer = Callable[[list[ToolDescriptor], Report, RenderOptions], dict[str, Any]]
Assembler = Callable[[list[ToolDescriptor], list[str]], str]

#: Platform name (as in config `platforms`) to its renderer.
RENDERERS: dict[str, Renderer] = {
    "openai": openai.render,
    "anthropic": anthropic.render,
    "gemini": gemini.render,
    "mcp": mcp.render,
}

#: Outputs for people and typed callers, written whatever the platforms: those made of one
#: section per tool (each kept with the tool's render), then those made all at once.
SECTIONED: dict[str, tuple[Callable[[ToolDescriptor], str], Assembler]] = {
    "docs/tools.md": (catalog.tool_section, catalog.tools_markdown),
}
DOCUMENTS: dict[str, Callable[..., dict[str, Any]]] = {"python": python.render}  # + memo=


#: Checks over a whole catalog (one request's limits), after the per-tool rendering.
CATALOG_CHECKS: dict[str, Callable[[list[ToolDescriptor], Report, RenderOptions], None]] = {
    "anthropic": anthropic.request_limits,
}


#: Stands for the entries while a payload's form is laid out (see `_assemble`).
ENTRIES_MARK = "@toolgen:entries@"


@dataclass
class ToolRender:
    """One tool's share of the output: its descriptor file, its entry in each platform payload,
    and what rendering it reported. Catalogs are these put together in name order, so a tool
    whose descriptor did not change need not be rendered again (the unit cache keeps them)."""

    descriptor: str  # the text of descriptors/<name>.json
    entries: dict[str, list[str]] = field(default_factory=dict)  # payload path -> JSON texts
    sections: dict[str, str] = field(default_factory=dict)  # document path -> its section
    problems: list[tuple[str, str]] = field(default_factory=list)  # (code, message)
    _encoded: bytes | None = field(default=None, repr=False, compare=False)

    def encoded(self) -> bytes:
        """The descriptor file's bytes: the same object each time (`manifest` hashes it once)."""
        if self._encoded is None:
            self._encoded = self.descriptor.encode()
        return self._encoded

    def to_json(self) -> dict[str, Any]:
        """What to store besides the descriptor text (stored once, beside it)."""
        return {"entries": self.entries, "sections": self.sections, "problems": self.problems}

    @classmethod
    def from_json(cls, descriptor: str, data: dict[str, Any]) -> ToolRender:
        """The inverse of `to_json` (the cache checks its entries' bytes as a whole)."""
        problems = [(code, message) for code, message in data["problems"]]
        return cls(descriptor, data["entries"], data["sections"], problems)


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
    then each payload is put together and its entries let go, one payload at a time, so that
    at most one copy of the payload text is held at once. With a `memo` (a process that builds
    again: `toolgen build --watch`), the renders keep them, and what this render made that the
    next can reuse is kept in it."""
    rendered = Rendered()
    keep = memo is not None
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
    shapes: dict[str, Any] = {}  # each payload's form around its entries
    for platform in platforms:
        shapes.update(RENDERERS[platform]([], report, options))
    visible = []
    sections: dict[str, list[str]] = {path: [] for path in SECTIONED}
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
                sections[path].append(tool.sections[path])
    if rendered_tools is not None:
        rendered_tools(tools)
    for path, shape in shapes.items():
        items: list[str] = []
        for tool in tools.values():
            items.extend(tool.entries.get(path, ()) if keep else tool.entries.pop(path, ()))
        files[path] = _assemble(shape, items, reuse).encode()
    for platform in platforms:
        if platform in CATALOG_CHECKS:
            CATALOG_CHECKS[platform](visible, report, options)
    for path, (_, assemble) in SECTIONED.items():
        files[path] = assemble(visible, sections[path]).encode()
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


def render_tool(
    descriptor: ToolDescriptor, platforms: tuple[str, ...], options: RenderOptions
) -> ToolRender:
    tool = ToolRender(dump_json(descriptor.to_json_dict()).decode())

    def report(code: str, _: ToolDescriptor, message: str) -> None:
        tool.problems.append((code, message))

    if descriptor.visible:  # forbidden tools keep their descriptor and reach no payload
        shown = _for_platforms(descriptor, options)
        for platform in platforms:
            for path, value in RENDERERS[platform]([shown], report, options).items():
                tool.entries[path] = [_json_text(item) for item in _items(value)]
        for path, (section, _) in SECTIONED.items():
            tool.sections[path] = section(shown)
    return tool


def _for_platforms(descriptor: ToolDescriptor, options: RenderOptions) -> ToolDescriptor:
    if options.inline_defs:  # for clients that cannot resolve `$ref`
        return descriptor.model_copy(update={"parameters": inline_refs(descriptor.parameters)})
    return descriptor


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


def _assemble(shape: Any, entries: list[str], reuse: Reuse | None = None) -> str:
    """The text `dump_json` gives for `shape` with its entry list holding `entries`, built
    from each entry's own text: JSON's layout puts an entry at depth d as its text with every
    line indented 2*d spaces, and strings never hold a raw newline."""
    if not entries:
        return dump_json(shape).decode()
    text = dump_json(_filled(shape, [ENTRIES_MARK])).decode()
    mark = text.index(f'"{ENTRIES_MARK}"')
    start = text.rindex("\n", 0, mark) + 1
    indent = text[start:mark]
    if reuse is not None:
        body = ",\n".join([_indented(entry, indent, reuse) for entry in entries])
    else:
        body = ",\n".join(indent + entry.replace("\n", "\n" + indent) for entry in entries)
    return text[:start] + body + text[mark + len(ENTRIES_MARK) + 2 :]


def _indented(entry: str, indent: str, reuse: Reuse) -> str:
    return reuse.get(
        ("indent", id(entry), indent), entry, lambda: indent + entry.replace("\n", "\n" + indent)
    )


def _filled(shape: Any, items: list[Any]) -> Any:
    if isinstance(shape, list):
        return items
    return {k: items if isinstance(v, list) else v for k, v in shape.items()}


def manifest(files: dict[str, bytes], reuse: Reuse | None = None) -> dict[str, Any]:
    return {"toolgen_version": __version__, "files": file_shas(files, reuse)}


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

    reuse: Reuse = field(default_factory=Reuse)  # indented entries and file hashes
    python: python.Memo = field(default_factory=python.Memo)  # the Python module's blocks
