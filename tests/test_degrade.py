"""Degrade, never drop: what toolgen cannot read of a framework's tool costs the smallest
piece (a property's type or default), with a warning, not the tool. toolgen's own `@tool`
keeps its contract: the same gaps are errors there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conftest import CONFIG, Project, Run
from runtime_oracle import framework_listing

Runner = Callable[..., Run]

SERVERS = {
    "fastmcp": "from fastmcp import FastMCP\n\nmcp = FastMCP('s')\n",
    "mcp": "from mcp.server.mcpserver import MCPServer\n\nmcp = MCPServer('s')\n",
}

UNTYPED = '''

@mcp.tool()
def tag(customer: str, label, weight=2) -> str:
    """Tag a customer.

    Args:
        customer: The customer.
        label: What to tag with.
        weight: How much.
    """
    return customer
'''

RUN_TIME_DEFAULT = '''
import os

TIMEOUT = int(os.environ.get("TIMEOUT", "30"))


@mcp.tool()
def run(cmd: str, timeout: int = TIMEOUT) -> str:
    """Run a command.

    Args:
        cmd: The command.
        timeout: Seconds to wait.
    """
    return cmd
'''


def _framework(project: Project, preset: str, body: str) -> None:
    project.write("pyproject.toml", CONFIG + f'markers = ["{preset}"]\n')
    project.write("src/s.py", SERVERS[preset] + body)


def _input(project: Project, name: str) -> dict[str, Any]:
    tools = project.generated("mcp/tools.json")["tools"]
    (tool,) = [t for t in tools if t["name"] == name]
    schema: dict[str, Any] = tool["inputSchema"]
    return schema


@pytest.mark.parametrize(
    ("preset", "label", "weight"),
    [
        (
            "fastmcp",
            {"description": "What to tag with."},
            {"default": 2, "description": "How much.", "title": "Weight"},
        ),
        # the MCP SDK says string, titled with the parameter's very name
        ("mcp", {"title": "label", "type": "string"}, {"default": 2, "title": "weight"}),
    ],
)
def test_an_unannotated_parameter_is_published_as_the_framework_publishes_it(
    project: Project, run: Runner, preset: str, label: Any, weight: Any
) -> None:
    pytest.importorskip("fastmcp" if preset == "fastmcp" else "mcp.server.mcpserver")
    _framework(project, preset, UNTYPED)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "src/s.py:7:24: TG203 [warning] parameter `label` has no type annotation" in result.out
    schema = _input(project, "tag")
    assert schema["properties"]["label"] == label
    if preset == "mcp":
        weight = {**weight, "type": "string"}
    assert schema["properties"]["weight"] == weight
    assert schema["required"] == ["customer", "label"]


def test_an_unannotated_parameter_of_toolgens_own_tool_is_still_an_error(
    project: Project, run: Runner
) -> None:
    project.write(
        "src/s.py", "from toolgen import tool\n" + UNTYPED.replace("@mcp.tool()", "@tool")
    )
    result = run("build", cwd=project.root)
    assert result.code == 2 or "left out for errors" in result.out, result.out
    assert "TG203 [error] parameter `label` has no type annotation" in result.out


@pytest.mark.parametrize("preset", ["fastmcp", "mcp"])
def test_a_default_known_only_at_run_time_costs_the_default_not_the_tool(
    project: Project, run: Runner, preset: str
) -> None:
    pytest.importorskip("fastmcp" if preset == "fastmcp" else "mcp.server.mcpserver")
    _framework(project, preset, RUN_TIME_DEFAULT)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "TG206 [warning] default `TIMEOUT` is bound to" in result.out
    assert "published without a default (not required)" in result.out
    schema = _input(project, "run")
    assert "default" not in schema["properties"]["timeout"]
    assert schema["properties"]["timeout"]["type"] == "integer"
    assert schema["required"] == ["cmd"]


def test_a_default_known_only_at_run_time_is_still_an_error_for_toolgens_own_tool(
    project: Project, run: Runner
) -> None:
    source = "from toolgen import tool\n" + RUN_TIME_DEFAULT.replace("@mcp.tool()", "@tool")
    project.write("src/s.py", source)
    result = run("build", cwd=project.root)
    assert "TG206 [error] default `TIMEOUT`" in result.out, result.out
    assert not (project.out / "descriptors" / "run.json").exists()


OUTPUT_SCHEMA = '''
import os

SCHEMA = {"type": "object", "properties": {"hits": {"type": "integer"}}}


def make_schema() -> dict:
    return {**SCHEMA, "title": os.environ.get("TITLE", "Hits")}


@mcp.tool(output_schema=SCHEMA)
def count(q: str) -> dict:
    """Count matches.

    Args:
        q: The query.
    """
    return {"hits": 1}


@mcp.tool(output_schema=make_schema())
def tally(q: str) -> dict:
    """Tally matches.

    Args:
        q: The query.
    """
    return {"hits": 1}
'''


def test_an_output_schema_made_at_run_time_is_left_out_and_said(
    project: Project, run: Runner
) -> None:
    """Was: silently replaced by the schema of the return annotation, a promise the tool may
    not keep. A constant the module defines is read as FastMCP reads it."""
    pytest.importorskip("fastmcp")
    _framework(project, "fastmcp", OUTPUT_SCHEMA)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert (
        "src/s.py:24:25: TG401 [warning] `output_schema` `make_schema()` calls `make_schema`"
    ) in result.out
    assert "published without an outputSchema" in result.out
    tools = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert "outputSchema" not in tools["tally"]
    assert tools["count"]["outputSchema"] == {
        "type": "object",
        "properties": {"hits": {"type": "integer"}},
    }


STRUCTURED = '''
import os


@mcp.tool(structured_output=False)
def plain(q: str) -> int:
    """Count plainly.

    Args:
        q: The query.
    """
    return 1


@mcp.tool(structured_output=os.environ.get("STRUCTURED") == "1")
def decided(q: str) -> int:
    """Count as the environment says.

    Args:
        q: The query.
    """
    return 1
'''


def test_the_sdks_structured_output_is_honoured_or_said(project: Project, run: Runner) -> None:
    pytest.importorskip("mcp.server.mcpserver")
    _framework(project, "mcp", STRUCTURED)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "src/s.py:18:29: TG401 [warning] `structured_output` `os.environ.get(" in result.out
    assert "the return type decides" in result.out
    tools = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert "outputSchema" not in tools["plain"]
    assert "outputSchema" in tools["decided"]


DEPENDS = '''
from fastmcp.dependencies import CurrentHeaders, Depends


class Client:
    """A client the framework makes per request."""


def get_client() -> Client:
    return Client()


_client = Depends(get_client)


@mcp.tool
def find(q: str, client: Client = _client, headers: dict = CurrentHeaders()) -> str:
    """Find things.

    Args:
        q: What to find.
    """
    return q
'''


def test_a_dependency_fastmcp_injects_is_no_parameter(project: Project, run: Runner) -> None:
    """`Depends(...)` and `CurrentHeaders()` as defaults (also through a module-level name):
    FastMCP fills them and lists only what a model passes; so does toolgen, as FastMCP
    itself says at run time."""
    fastmcp = pytest.importorskip("fastmcp")
    from fastmcp.dependencies import CurrentHeaders, Depends

    _framework(project, "fastmcp", DEPENDS)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    schema = _input(project, "find")

    class Client:
        pass

    def get_client() -> Client:
        return Client()

    server = fastmcp.FastMCP("oracle")

    @server.tool
    def find(q: str, client: Client = Depends(get_client), headers: dict = CurrentHeaders()) -> str:  # noqa: B008
        """Find things.

        Args:
            q: What to find.
        """
        return q

    import asyncio

    [listed] = asyncio.run(server.list_tools())
    assert set(schema["properties"]) == set(listed.parameters["properties"]) == {"q"}
    assert schema["required"] == listed.parameters["required"] == ["q"]


CONTENT_AND_REQUIRED = '''
from typing import Annotated

from pydantic import Field

from IMAGE_MODULE import Image


@mcp.tool()
def snap(place: Annotated[str, Field(description="Where.")] = ..., zoom: int = 3) -> Image:
    """Take a picture of a place."""
    raise NotImplementedError


@mcp.tool()
def album(place: str) -> list[Image | str]:
    """Pictures of a place, with captions."""
    raise NotImplementedError
'''
IMAGES = {"fastmcp": "fastmcp.utilities.types", "mcp": "mcp.server.mcpserver"}


@pytest.mark.parametrize("preset", ["fastmcp", "mcp"])
def test_content_returns_and_ellipsis_defaults_are_what_the_framework_lists(
    project: Project, run: Runner, preset: str
) -> None:
    """`= ...` is required (pydantic reads a default of Ellipsis so); a return type with no
    schema (a content block, a list of them) leaves the outputSchema out, with a warning,
    and the tool is published. The oracle is the framework itself, listing the same file."""
    pytest.importorskip("fastmcp" if preset == "fastmcp" else "mcp.server.mcpserver")
    _framework(project, preset, CONTENT_AND_REQUIRED.replace("IMAGE_MODULE", IMAGES[preset]))
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    ours = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    theirs = {t["name"]: t for t in _framework_listing(project, preset)}
    assert sorted(ours) == sorted(theirs) == ["album", "snap"]
    for name, tool in theirs.items():
        assert ours[name]["inputSchema"] == tool["inputSchema"], name
        assert ("outputSchema" in ours[name]) == ("outputSchema" in tool), name
    assert ours["snap"]["inputSchema"]["required"] == ["place"]


def _framework_listing(project: Project, preset: str) -> list[dict[str, Any]]:
    return framework_listing(project.root / "src", "s", preset)


LISTED = """
import os

from mcp import types
from mcp.server.lowlevel import Server
from pydantic import BaseModel


def models():
    class Out(BaseModel):
        hits: int

    return Out


Out = models()
ZONE = {"type": "string", "description": f"In zone {os.environ['ZONE']}."}
QUERY = {"type": "object", "properties": {"q": ZONE}, "required": ["q"]}


async def on_list(ctx, params):
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="count",
                title=os.environ["COUNT_TITLE"],
                description="Count.",
                input_schema=QUERY,
                output_schema=Out.model_json_schema(),
            )
        ]
    )


server = Server("s", on_list_tools=on_list)
"""


def test_a_listed_tools_field_known_only_at_run_time_costs_that_field(
    project: Project, run: Runner
) -> None:
    """A low-level server's `Tool(...)` whose output schema toolgen cannot make (a model a
    function defines), whose title is read from the environment, and whose input schema
    describes a property with text from the environment: listed with its name, description
    and input schema as written, without those three, each said (TG401)."""
    pytest.importorskip("mcp.server.lowlevel")
    project.write("pyproject.toml", CONFIG + 'markers = ["mcp"]\n')
    project.write("src/s.py", LISTED)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "TG401 [warning] `Tool(...)`: `outputSchema` cannot be read" in result.out
    assert "TG401 [warning] `Tool(...)`: `title` cannot be read" in result.out
    assert "TG401 [warning] `Tool(...)`: a description or title in its `inputSchema`" in (
        result.out
    )
    assert "tool `count` is published without it" in result.out
    (tool,) = project.generated("mcp/tools.json")["tools"]
    assert tool["name"] == "count" and tool["description"] == "Count."
    assert tool["inputSchema"] == {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "required": ["q"],
    }
    assert "outputSchema" not in tool and "title" not in tool
