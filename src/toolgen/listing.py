"""What a server lists of the tools a file registers, beyond each tool's own analysis: one
of several registered under one name with one server (`unlisted`), and the entries as the
code leaves them in the framework's own registry of tools (`registry_edits`)."""

from __future__ import annotations

from typing import Any

from toolgen.analyze.handlers import Handler
from toolgen.analyze.markers import Preset
from toolgen.analyze.publication import listed_schema
from toolgen.config import Config
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import Diagnostic, Location, cut, plural
from toolgen.file_units import FileUnit
from toolgen.read.index import Module, ModuleIndex
from toolgen.read.registration import edited
from toolgen.read.registration.values import HandleKey, handle_key


def registry_edits(
    run: tuple[Module, ModuleIndex, list[Preset], dict[str, str], list[str]],
    config: Config,
    compiled: list[tuple[Handler, ToolDescriptor]],
    forms: dict[HandleKey, dict[str, Any]],
    where: list[Location],
) -> list[Diagnostic]:
    """What the unit's code does to its tools in the framework's own registry (`where` it
    reads it), done to their MCP entries: the unit is evaluated again with the entries as
    the registry holds them (`forms`). A tool whose entry the code changes in a way toolgen
    cannot know keeps it as made, with a TG110."""
    changed, unknown = edited(*run, forms)
    names = [t.name for t in unknown]
    for handler, descriptor in compiled:
        fields = changed.get(handle_key(handler.node, handler.decorator), {})
        publisher = config.publisher(handler.preset.name)
        framework = descriptor.framework
        if framework is None or framework.mcp is None or publisher is None or not fields:
            continue
        for key in ("inputSchema", "outputSchema"):
            if isinstance(fields.get(key), dict):
                fields[key] = listed_schema(publisher, fields[key])
        if not _listable(fields):
            names.append(descriptor.name)  # no entry a server could list: left as made
            continue
        for name, value in fields.items():
            if value is None:
                framework.mcp.pop(name, None)
            else:
                framework.mcp[name] = value
    if not names:
        return []
    message = (
        f"the code changes {plural(len(names), 'tool')} ({', '.join(sorted(set(names)))}) in "
        "the framework's own registry in ways toolgen cannot follow: their MCP entries are "
        "published as registered, which may differ from what the server lists"
    )
    return [Diagnostic("TG110", message, min(where))]


#: Which of the tools registered under one name with one server the framework lists: the MCP
#: SDK keeps the first (and warns), FastMCP replaces it with the last (and warns).
KEPT = {"mcp": "first", "fastmcp": "last"}


def unlisted(
    unit: FileUnit[ToolDescriptor], placed: list[tuple[int, Handler, ToolDescriptor]]
) -> None:
    """Leave out of `unit` the tools its server does not list because another handler was
    registered with it under the same name (`KEPT`; FastMCP 3 lists the highest of tools
    given versions), with a TG111 each. Registrations with two server objects (a factory
    called twice), with one toolgen cannot tell, found with arguments unknown, or made in
    branches toolgen cannot choose between are no such sequence: those stay TG102s."""
    groups: dict[tuple[int, str], list[tuple[int, Handler, ToolDescriptor]]] = {}
    for entry in placed:
        _, handler, descriptor = entry
        owner = handler.server_object
        if owner is not None and not handler.weak and handler.preset.name in KEPT:
            groups.setdefault((owner, descriptor.name), []).append(entry)
    dropped: list[int] = []
    for (_, name), entries in groups.items():
        server = str(entries[0][1].server)
        presets = {handler.preset.name for _, handler, _ in entries}
        if len(entries) < 2 or len(presets) != 1:
            continue
        if _alternatives([handler for _, handler, _ in entries]):
            continue  # which branch registers is known only at run time
        preset = presets.pop()
        versions = [dict(handler.values).get("version") for _, handler, _ in entries]
        texts = [v for v in versions if isinstance(v, str)]
        if preset == "fastmcp" and len(texts) == len(entries):
            # the highest version; of equal ones the last, which replaced the others
            keep = max(reversed(range(len(entries))), key=lambda i: _version_key(texts[i]))
        else:
            keep = 0 if KEPT[preset] == "first" else len(entries) - 1
        kept_at = unit.tools[entries[keep][0]][1]
        for i, (at, _, _) in enumerate(entries):
            if i == keep:
                continue
            message = (
                f"tool `{cut(name)}` is registered with server `{cut(server)}` at {kept_at} "
                "too: the server lists that registration, not this one"
            )
            unit.diagnostics.append(Diagnostic("TG111", message, unit.tools[at][1]))
            dropped.append(at)
    for at in sorted(dropped, reverse=True):
        del unit.tools[at], unit.servers[at], unit.found[at]


def _alternatives(handlers: list[Handler]) -> bool:
    """Were two of `handlers` registered in different branches of one undecided choice?"""
    taken: dict[int, int] = {}
    for handler in handlers:
        for choice, branch in handler.branches:
            if taken.setdefault(choice, branch) != branch:
                return True
    return False


def _version_key(text: str) -> tuple[int, tuple[int, ...], str]:
    """A tool version as FastMCP orders them: numbered releases (`1.10` after `1.9`, a
    leading `v` dropped) before other texts, which go by their text."""
    parts = text.removeprefix("v").split(".")
    if all(p.isdigit() for p in parts):
        return (0, tuple(int(p) for p in parts), "")
    return (1, (), text)


def _listable(fields: dict[str, Any]) -> bool:
    """Are the changed fields of an MCP entry what `tools/list` can carry (an object for
    `inputSchema`, an object or nothing for `outputSchema` and a text or nothing for
    `description`)?"""
    nothing = type(None)
    kinds = {"inputSchema": (dict,), "outputSchema": (dict, nothing), "description": (str, nothing)}
    return all(isinstance(value, kinds[key]) for key, value in fields.items())
