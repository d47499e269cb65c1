"""What a framework's own registry of tools lists. Code that rewrites registered tools there
(a pass that slims every schema, a description changed after registration): toolgen
evaluates the unit again with each tool's entry as the registry holds it, and publishes what
the code leaves there; what it cannot follow keeps the entry as registered, with a TG110. And
a name registered twice with one server: the one the registry keeps. The oracle is the
framework itself: the same fixture, imported here, listed by FastMCP or by the MCP SDK."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conftest import CONFIG, Project, Run
from runtime_oracle import framework_listing

Runner = Callable[..., Run]

TOOLS = '''
from pydantic import BaseModel


class Window(BaseModel):
    start: int | None = None
    end: int | None = None


@mcp.tool
def search(query: str, limit: int | None = None, window: Window | None = None) -> list[str]:
    """Search the archive.

    Args:
        query: Words to find.
        limit: At most this many.
        window: Where to look.
    """
    return []


@mcp.tool(description="Count the entries.")
def count(kind: str = "all", since: int | None = None) -> int:
    return 0
'''

#: A pass over the registry, as servers write one: nullable wrappers collapsed, recursively
#: (in `$defs` too), an emptied `required` deleted, one description changed.
SLIM = """

def _slim(schema):
    schema.pop("title", None)
    for inner in schema.get("$defs", {}).values():
        _slim(inner)
    required = set(schema.get("required", []))
    for key, prop in schema.get("properties", {}).items():
        kept = [b for b in prop.get("anyOf", []) if b.get("type") != "null"]
        if len(kept) == 1:
            text = prop.get("description")
            prop.clear()
            prop.update(kept[0])
            if text:
                prop["description"] = text
            required.discard(key)
        _slim(prop)
    if required:
        schema["required"] = sorted(required)
    elif "required" in schema:
        del schema["required"]


def _tidy():
    from fastmcp.tools import Tool

    source = getattr(mcp, "_local_provider", None)
    if source is not None:
        tools = [t for t in source._components.values() if isinstance(t, Tool)]
    else:
        tools = list(mcp._tool_manager._tools.values())
    for tool in tools:
        _slim(tool.parameters)
        if tool.name == "count":
            tool.description = tool.description + " Fast."


_tidy()
"""


def _listings(
    project: Project, run: Runner, preset: str = "fastmcp"
) -> tuple[dict[str, Any], dict[str, Any], str]:
    """toolgen's MCP entries and the framework's own listing of the fixture, by name."""
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    ours = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    theirs = {t["name"]: t for t in framework_listing(project.root / "src", "s", preset)}
    return ours, theirs, result.out


def test_a_pass_over_the_registry_is_published_as_the_server_lists_it(
    project: Project, run: Runner
) -> None:
    pytest.importorskip("fastmcp")
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/s.py", "from fastmcp import FastMCP\n\nmcp = FastMCP('s')\n" + TOOLS + SLIM)
    ours, theirs, out = _listings(project, run)
    assert sorted(ours) == sorted(theirs) == ["count", "search"]
    for name, tool in theirs.items():
        assert ours[name]["inputSchema"] == tool["inputSchema"], name
        assert ours[name]["description"] == tool["description"], name
    assert ours["search"]["inputSchema"]["properties"]["limit"] == {
        "type": "integer",
        "description": "At most this many.",
    }
    assert ours["count"]["description"] == "Count the entries. Fast."
    assert "TG110" not in out
    # what the handler accepts is unchanged: the contract keeps `null` for `limit`
    limit = project.descriptor("search")["parameters"]["properties"]["limit"]
    assert {"type": "null"} in limit["anyOf"]


def test_the_same_pass_written_in_a_factory_and_a_loop_over_tools(
    project: Project, run: Runner
) -> None:
    """Moved into the function that builds the server, the loop inlined: the same entries."""
    pytest.importorskip("fastmcp")
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    models, tools = TOOLS.split("\n\n\n@mcp.tool", 1)
    body = "\n".join("    " + line if line else "" for line in ("@mcp.tool" + tools).splitlines())
    factory = (
        "from fastmcp import FastMCP\nfrom fastmcp.tools import FunctionTool\n"
        + models
        + "\n\ndef build():\n    mcp = FastMCP('s')\n\n"
        + body
        + "\n    for key, tool in mcp._local_provider._components.items():\n"
        "        if isinstance(tool, FunctionTool):\n"
        "            props = tool.parameters['properties']\n"
        "            for name in list(props):\n"
        "                props[name].pop('default', None)\n"
        "    return mcp\n\n\nmcp = build()\n"
    )
    project.write("src/s.py", factory)
    ours, theirs, out = _listings(project, run)
    assert sorted(ours) == sorted(theirs) == ["count", "search"]
    for name, tool in theirs.items():
        assert ours[name]["inputSchema"] == tool["inputSchema"], name
    assert "default" not in ours["count"]["inputSchema"]["properties"]["kind"]
    assert "TG110" not in out


def test_fastmcp_2_keeps_its_tools_in_the_tool_manager(project: Project, run: Runner) -> None:
    """At a version without `_local_provider` the code's other branch runs: the same pass."""
    versions = 'framework_versions = {fastmcp = "2.12.0"}\n'
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n' + versions)
    project.write("src/s.py", "from fastmcp import FastMCP\n\nmcp = FastMCP('s')\n" + TOOLS + SLIM)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    ours = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert ours["search"]["inputSchema"]["properties"]["limit"]["type"] == "integer"
    assert ours["count"]["description"] == "Count the entries. Fast."


MCP_SDK = '''
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("s")


@mcp.tool()
def lookup(sku: str, store: str | None = None) -> str:
    """Look an item up."""
    return sku


for tool in mcp._tool_manager._tools.values():
    tool.parameters["properties"]["sku"]["description"] = "The item's code."
    tool.description = tool.description.upper()
'''


def test_the_mcp_sdk_registry_is_followed_too(project: Project, run: Runner) -> None:
    pytest.importorskip("mcp")
    project.write("pyproject.toml", CONFIG + 'markers = ["mcp"]\n')
    project.write("src/s.py", MCP_SDK)
    ours, theirs, _ = _listings(project, run, "mcp")
    assert ours["lookup"]["inputSchema"] == theirs["lookup"]["inputSchema"]
    assert ours["lookup"]["description"] == theirs["lookup"]["description"] == "LOOK AN ITEM UP."


#: A server with one tool, then what the code does to it in the registry.
PING = '''
import random

from fastmcp import FastMCP

from .rules import drop

mcp = FastMCP("s")


@mcp.tool
def ping(note: str | None = None) -> str:
    """Answer."""
    return "pong"


for tool in mcp._local_provider._components.values():
'''
UNDECIDED = (
    PING
    + """    if random.random() > 0.5:
        tool.parameters["properties"].pop("note")
"""
)
UNFOLLOWED = (
    PING
    + """    for name in drop(tool):
        tool.parameters["properties"].pop(name)
"""
)
UNLISTABLE = (
    PING
    + """    tool.parameters = ["note"]
    tool.description = float("nan")
"""
)


@pytest.mark.parametrize(
    "source",
    [UNDECIDED, UNFOLLOWED, UNLISTABLE],
    ids=["undecided", "unknown-key", "no-json-schema"],
)
def test_an_edit_toolgen_cannot_know_keeps_the_entry_with_a_warning(
    project: Project, run: Runner, source: str
) -> None:
    """Changed in a branch toolgen cannot choose, with a key it cannot know, or into what no
    `tools/list` can carry: the entry as registered, and a TG110 where the code reads the
    registry, naming the tool."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/s/__init__.py", "")
    project.write("src/s/server.py", source)
    project.write("src/s/rules.py", "import json\n\n\ndef drop(t):\n    return json.loads(input())")
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    ours = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert "note" in ours["ping"]["inputSchema"]["properties"]
    assert "TG110 [warning] the code changes 1 tool (ping) in the framework's own registry" in (
        result.out
    )


DEEP = '''
from fastmcp import FastMCP

mcp = FastMCP("s")


@mcp.tool
def ping(note: str | None = None) -> str:
    """Answer."""
    return "pong"


def spin(schema, depth):
    schema["x-depth"] = depth
    spin(schema, depth + 1)


for tool in mcp._local_provider._components.values():
    spin(tool.parameters, 0)
'''


def test_an_edit_cut_short_by_a_bound_is_not_published_half_done(
    project: Project, run: Runner
) -> None:
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/s.py", DEEP)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    ours = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert "x-depth" not in ours["ping"]["inputSchema"]
    assert "TG110" in result.out


# -- one name registered twice with one server -----------------------------------------------
TWICE = '''
{server}


@mcp.tool()
def lookup(sku: str) -> str:
    """Look an item up by its code."""
    return sku


@mcp.tool()
def lookup(sku: str, store: str = "main") -> str:  # noqa: F811
    """Look an item up in a store."""
    return sku
'''


@pytest.mark.parametrize("preset", ["mcp", "fastmcp"])
def test_a_name_registered_again_is_listed_as_the_framework_lists_it(
    project: Project, run: Runner, preset: str
) -> None:
    """The MCP SDK keeps the first registration of a name, FastMCP the last: toolgen
    publishes that one, with a TG111 at the other, where it once left both out (TG102)."""
    pytest.importorskip(preset)
    servers = {
        "mcp": "from mcp.server.mcpserver import MCPServer\n\nmcp = MCPServer('s')",
        "fastmcp": "from fastmcp import FastMCP\n\nmcp = FastMCP('s')",
    }
    project.write("pyproject.toml", CONFIG + f'markers = ["{preset}"]\n')
    project.write("src/s.py", TWICE.format(server=servers[preset]))
    ours, theirs, out = _listings(project, run, preset)
    assert sorted(ours) == sorted(theirs) == ["lookup"]
    assert ours["lookup"]["inputSchema"] == theirs["lookup"]["inputSchema"]
    assert ours["lookup"]["description"] == theirs["lookup"]["description"]
    other = "src/s.py:13:1" if preset == "mcp" else "src/s.py:7:1"
    assert f"{other}: TG111 [warning] tool `lookup` is registered with server `s.mcp`" in out


VERSIONS = '''
from fastmcp import FastMCP

mcp = FastMCP("s")


@mcp.tool(name="lookup", version="1.10")
def lookup_new(sku: str, store: str = "main") -> str:
    """Look an item up in a store."""
    return sku


@mcp.tool(name="lookup", version="1.9")
def lookup_old(sku: str) -> str:
    """Look an item up by its code."""
    return sku
'''


def test_fastmcp_lists_the_highest_version_of_a_name(project: Project, run: Runner) -> None:
    pytest.importorskip("fastmcp")
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/s.py", VERSIONS)
    ours, theirs, _ = _listings(project, run)
    assert ours["lookup"]["inputSchema"] == theirs["lookup"]["inputSchema"]
    assert "store" in ours["lookup"]["inputSchema"]["properties"]


ALTERNATIVES = '''
import random

from fastmcp import FastMCP

mcp = FastMCP("s")


def register(server, wired):
    if not wired:

        @server.tool(name="lookup")
        def stub(sku: str) -> str:
            """Look nothing up."""
            return sku

        return

    @server.tool(name="lookup")
    def wired_lookup(sku: str, store: str = "main") -> str:
        """Look an item up in a store."""
        return sku


register(mcp, random.random() > 0.5)
'''


def test_registrations_in_branches_toolgen_cannot_choose_stay_ambiguous(
    project: Project, run: Runner
) -> None:
    """An early `return` on a condition known only at run time: the two registrations are
    alternatives, not a sequence, so neither is taken to be the one listed."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/s.py", ALTERNATIVES)
    result = run("build", cwd=project.root)
    assert result.code == 1
    assert "TG102 [error] tool name `lookup` is already used" in result.out
    assert "TG111" not in result.out
