"""A framework's own registry of a server's tools, as code that rewrites registered tools
reads it: `mcp._local_provider._components` (FastMCP 3 and later), `mcp._tool_manager._tools`
(FastMCP 2, the MCP SDK), each tool with its `parameters`, `output_schema` and
`description`.

The schemas of decorated tools are the analysis's, made after the interpreter has run. So a
unit that reaches into a registry is evaluated twice: first with those attributes unknown
(what it registers does not depend on them), then, once the analysis has made each tool's
`tools/list` entry, again with them given (`Interpreter.entries`, by `HandleKey`): what the
code leaves in them is what the server lists (`toolgen.read.registration.evaluation.edited`).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from toolgen.read.registration.data import TooLarge, value_of
from toolgen.read.registration.known import NotKnown, known_value
from toolgen.read.registration.values import (
    Const,
    Function,
    HandleKey,
    Mapping,
    Registry,
    Seq,
    Server,
    ToolHandle,
    Value,
)

if TYPE_CHECKING:
    from toolgen.read.registration.interpreter import Interpreter

#: A registry's attribute of a server, by preset: the framework versions that have it
#: (from, up to but not including; () no bound).
REGISTRIES: dict[str, dict[str, tuple[tuple[int, ...], tuple[int, ...]]]] = {
    "fastmcp": {"_local_provider": ((3,), ()), "_tool_manager": ((), (3,))},
    "mcp": {"_tool_manager": ((), ())},
}
#: A registry's attribute that maps keys to its tools (FastMCP 3's holds every component).
STORES = {"_local_provider": "_components", "_tool_manager": "_tools"}
#: A tool object's attributes that are its `tools/list` entry's fields.
FIELDS = {
    "parameters": "inputSchema",
    "output_schema": "outputSchema",
    "description": "description",
}
#: How deep an edited entry is searched for a container changed where toolgen cannot tell
#: whether the change runs (deeper: taken to hold one).
MAX_DEPTH = 100
#: The framework classes a registered tool is an instance of (`isinstance(t, Tool)`).
TOOL_CLASSES = frozenset({"Tool", "FunctionTool"})


def registry(run: Interpreter, server: Server, attr: str) -> Value | None:
    """`server.<attr>` when it is its framework's registry at the version that publishes;
    `Unknown` when that version has no such attribute; None when `attr` is no registry."""
    if attr not in REGISTRIES.get(server.preset, {}):
        return None
    if not _present(run, server.preset, attr):
        return run.unknown(f"this version of {server.preset} has no `{attr}`", None)
    return Registry(server)


def _present(run: Interpreter, preset: str, attr: str) -> bool:
    """Does the publishing version of `preset`'s framework have the registry `attr`?"""
    versions = REGISTRIES.get(preset, {}).get(attr)
    if versions is None:
        return False
    since, until = versions
    version = next((f.version for f in run.frameworks if f.name == preset), ())
    newest = not version
    too_old = bool(since) and not newest and version < since
    too_new = bool(until) and (newest or version >= until)
    return not (too_old or too_new)


def registry_attribute(run: Interpreter, owner: Registry, attr: str, node: ast.AST) -> Value:
    """The registry's store of tools: a dict of its tools by key, in registration order."""
    server = owner.server
    store = next(
        (s for r, s in STORES.items() if attr == s and _present(run, server.preset, r)), None
    )
    if store is None:
        return run.unknown(f"`{attr}` of a framework's registry", node)
    entries: dict[object, tuple[Value, Value]] = {}
    for handle in server.tools:
        key = f"tool:{handle.name}@" if store == "_components" else handle.name
        if server.preset == "mcp" and key in entries:
            continue  # the SDK keeps the first tool of a name
        entries[key] = (Const(key), handle)
    return Mapping(entries)


def handle(function: Function, node: ast.expr, server: Server, options: dict[str, Value]) -> None:
    """Put the tool `function` registered by `node` in `server`'s registry."""
    given = options.get("name")
    name = given.value if isinstance(given, Const) and isinstance(given.value, str) else None
    server.tools.append(ToolHandle(function, node, server, name or function.name))


def handle_attribute(run: Interpreter, owner: ToolHandle, attr: str, node: ast.AST) -> Value:
    """A registered tool's attribute: what the code set, its name and function, or a field
    of its `tools/list` entry when the interpreter is given the entries."""
    if attr in owner.attrs:
        return owner.attrs[attr]
    if attr == "name":
        return Const(owner.name)
    if attr == "fn":
        return owner.function
    field = FIELDS.get(attr)
    entry = None if run.entries is None else run.entries.get(owner.key)
    if field is None or entry is None:
        return run.unknown(f"`{attr}` of a registered tool (the analysis makes it)", node)
    try:
        value = value_of(entry.get(field))
    except (TooLarge, ValueError):
        return run.unknown(f"`{attr}` of a registered tool: too large to follow", node)
    touched(run, owner)
    owner.attrs[attr] = value  # the same object each time: the code edits it in place
    return value


def is_tool_class(path: str) -> bool:
    """Is `path` a framework class a registered tool is an instance of?"""
    package = path.partition(".")[0]
    return package in ("fastmcp", "mcp") and path.rpartition(".")[2] in TOOL_CLASSES


def touched(run: Interpreter, owner: ToolHandle) -> None:
    """Keep `owner` among the tools whose entry the code read or set (`edits`)."""
    run.touched.setdefault(id(owner), owner)


def edits(run: Interpreter) -> tuple[dict[HandleKey, dict[str, Any]], list[ToolHandle]]:
    """What the code left in the entries of the tools it read or set, where it changed them
    (by key, then field; None: the field removed); and the tools whose entry cannot be
    known (a value toolgen cannot know, or changed where toolgen cannot tell whether it
    runs)."""
    assert run.entries is not None
    changed: dict[HandleKey, dict[str, Any]] = {}
    unknown: list[ToolHandle] = []
    if run.bounded:  # the evaluation was cut short somewhere: an edit may be half done
        return {}, [one for one in run.touched.values() if one.key in run.entries]
    for one in run.touched.values():
        entry = run.entries.get(one.key)
        if entry is None:
            continue
        fields: dict[str, Any] = {}
        for attr, field in FIELDS.items():
            if attr not in one.attrs:
                continue
            value = one.attrs[attr]
            try:
                if _reaches(value, run.tainted):
                    raise NotKnown("changed where toolgen cannot tell whether it runs", one.node)
                data = known_value(value, one.node)
            except NotKnown:
                unknown.append(one)
                break
            if data != entry.get(field):
                fields[field] = data
        else:
            if fields:
                changed[one.key] = fields
    return changed, unknown


def _reaches(value: Value, ids: set[int], depth: int = 0) -> bool:
    """Does `value` hold (or is it) one of the containers `ids`?"""
    if not ids:
        return False
    if id(value) in ids or depth > MAX_DEPTH:
        return True
    if isinstance(value, Mapping):
        return any(_reaches(v, ids, depth + 1) for _, v in value.entries.values())
    if isinstance(value, Seq):
        return any(_reaches(v, ids, depth + 1) for v in value.items)
    return False
