"""FastMCP's tool transformation, read by `toolgen build` without running the server: a
project `Transform` given to `add_transform` whose `list_tools` wraps the tools of an OpenAPI
document with `Tool.from_tool(...)` (a `transform_fn` adding an argument; `transform_args`
renaming, hiding, describing and defaulting arguments). The oracle is FastMCP itself: the
test imports the same project and lists its tools through FastMCP's client."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from conftest import CONFIG, Project, Run
from runtime_oracle import framework_listing

Runner = Callable[..., Run]

fastmcp = pytest.importorskip("fastmcp")

HEAD = """
from typing import Annotated, Any

from fastmcp import FastMCP
from fastmcp.server.transforms import Transform
from fastmcp.tools import Tool, ToolResult, forward
from fastmcp.tools.tool_transform import ArgTransform
from pydantic import Field

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Shop", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/items": {
            "get": {
                "operationId": "list_items",
                "summary": "List the items.",
                "parameters": [
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 10}},
                    {"name": "status", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {
                        "description": "The items.",
                        "content": {
                            "application/json": {
                                "schema": {"type": "array", "items": {"type": "string"}}
                            }
                        },
                    }
                },
            },
            "post": {
                "operationId": "create_item",
                "description": "Create an item.",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string", "description": "Its name."},
                                    "price": {"type": "number"},
                                },
                            }
                        }
                    },
                },
                "responses": {
                    "201": {
                        "description": "Made.",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"id": {"type": "string"}},
                                }
                            }
                        },
                    }
                },
            },
        },
        "/items/{id}": {
            "get": {
                "operationId": "get_item",
                "summary": "Get one item.",
                "parameters": [
                    {
                        "name": "id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                        "description": "The item.",
                    }
                ],
                "responses": {"200": {"description": "The item."}},
            }
        },
    },
}
"""

#: (a) every tool wrapped by a function that adds an argument and returns `ToolResult`.
WRAPPED = (
    HEAD
    + '''

async def with_note(
    note: Annotated[str | None, Field(description="A note to log.")] = None,
    **kwargs: Any,
) -> ToolResult:
    """Call the tool, noting why."""
    return await forward(**kwargs)


def _has_note(tool):
    return "note" in ((tool.parameters or {}).get("properties") or {})


class NoteTransform(Transform):
    async def list_tools(self, tools):
        return [t if _has_note(t) else Tool.from_tool(t, transform_fn=with_note) for t in tools]


mcp = FastMCP.from_openapi(SPEC, name="shop")
mcp.add_transform(NoteTransform())
'''
)

#: (b) arguments renamed, described, hidden and defaulted; a tool renamed; one unchanged.
ARGUMENTS = (
    HEAD
    + """

class Reshape(Transform):
    async def list_tools(self, tools):
        shaped = []
        for tool in tools:
            if tool.name == "get_item":
                tool = Tool.from_tool(
                    tool,
                    name="fetch_item",
                    description="Fetch one item.",
                    transform_args={"id": ArgTransform(name="item_id", description="Which.")},
                )
            elif tool.name == "list_items":
                tool = Tool.from_tool(
                    tool,
                    transform_args={
                        "limit": ArgTransform(hide=True),
                        "status": ArgTransform(default="open", examples=["open"]),
                    },
                )
            elif tool.name == "create_item":
                tool = Tool.from_tool(
                    tool,
                    transform_args={"price": ArgTransform(required=True, description=None)},
                )
            shaped.append(tool)
        return shaped


mcp = FastMCP.from_openapi(SPEC, name="shop")
mcp.add_transform(Reshape())
"""
)


#: (b) the same, added with `add_tool` beside the original, which is disabled.
ADDED = (
    "import asyncio\n"
    + HEAD
    + """

mcp = FastMCP.from_openapi(SPEC, name="shop")
original = asyncio.run(mcp.get_tool("get_item"))
mcp.add_tool(
    Tool.from_tool(
        original,
        name="fetch_item",
        title="Fetch",
        transform_args={"id": ArgTransform(name="item_id", description="Which.")},
    )
)
mcp.disable(names={"get_item"})
"""
)


def _shop(project: Project, server: str) -> None:
    """A project whose package `shop` has `server` as its `server.py`."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/shop/__init__.py", "")
    project.write("src/shop/server.py", server)


@pytest.fixture(
    params=[WRAPPED, ARGUMENTS, ADDED], ids=["transform_fn", "transform_args", "add_tool"]
)
def served(project: Project, request: pytest.FixtureRequest) -> Project:
    _shop(project, request.param)
    return project


def _listed_by_fastmcp(project: Project) -> list[dict[str, Any]]:
    return framework_listing(project.root / "src", "shop.server")


def test_transformed_tools_are_what_fastmcp_lists(served: Project, run: Runner) -> None:
    result = run("build", "--verbose", cwd=served.root)
    assert result.code == 0, result.out
    assert "TG106" not in result.out, result.out
    ours = {t["name"]: t for t in served.generated("mcp/tools.json")["tools"]}
    theirs = {t["name"]: t for t in _listed_by_fastmcp(served)}
    assert sorted(ours) == sorted(theirs)
    for name, tool in theirs.items():
        for key in ("description", "inputSchema", "outputSchema", "annotations", "title"):
            assert ours[name].get(key) == tool.get(key), (name, key)
        assert json.dumps(ours[name]["inputSchema"]) == json.dumps(tool["inputSchema"]), name


def test_the_transform_fn_argument_comes_first_and_closes_the_schema(
    project: Project, run: Runner
) -> None:
    _shop(project, WRAPPED)
    assert run("build", cwd=project.root).code == 0
    tools = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    schema = tools["get_item"]["inputSchema"]
    assert list(schema["properties"]) == ["note", "id"]
    assert schema["required"] == ["id"]
    assert schema["additionalProperties"] is False
    assert "outputSchema" not in tools["create_item"]  # `-> ToolResult`: none


def test_a_transform_toolgen_cannot_follow_is_a_located_note(project: Project, run: Runner) -> None:
    server = WRAPPED.replace(
        "return [t if _has_note(t) else Tool.from_tool(t, transform_fn=with_note) for t in tools]",
        "return reshape_elsewhere(tools)",
    ).replace(
        "from pydantic import Field",
        "from pydantic import Field\nfrom other import reshape_elsewhere",
    )
    _shop(project, server)
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    line = server.lstrip("\n").splitlines().index("mcp.add_transform(NoteTransform())") + 1
    assert f"src/shop/server.py:{line}:1: TG106" in result.out, result.out
    assert "published untransformed" in result.out
    tools = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert "note" not in tools["get_item"]["inputSchema"]["properties"]


def test_an_argument_transform_toolgen_cannot_read_is_a_located_note(
    project: Project, run: Runner
) -> None:
    server = ARGUMENTS.replace(
        'ArgTransform(name="item_id", description="Which.")', "ArgTransform(type=int)"
    )
    _shop(project, server)
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    assert "TG106" in result.out and "ArgTransform(type=...)" in result.out, result.out
    tools = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert "get_item" in tools  # untransformed
    assert "limit" not in tools["list_items"]["inputSchema"]["properties"]  # the others are


def test_decorated_tools_beside_a_transform_are_noted(project: Project, run: Runner) -> None:
    server = (
        WRAPPED
        + '''

@mcp.tool
def ping() -> str:
    """Answer pong."""
    return "pong"
'''
    )
    _shop(project, server)
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    assert "decorated tools are published untransformed" in result.out, result.out
    tools = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert "note" in tools["get_item"]["inputSchema"]["properties"]
    assert "note" not in tools["ping"]["inputSchema"]["properties"]


def test_a_tool_changed_in_place_is_a_note(project: Project, run: Runner) -> None:
    server = WRAPPED.replace(
        "return [t if _has_note(t) else Tool.from_tool(t, transform_fn=with_note) for t in tools]",
        "for t in tools:\n            t.description = 'changed'\n        return tools",
    )
    _shop(project, server)
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    assert "changed in place" in result.out, result.out
    tools = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert tools["get_item"]["description"] == "Get one item."


def test_a_list_tools_fastmcp_cannot_await_is_a_note(project: Project, run: Runner) -> None:
    """FastMCP awaits `list_tools`: one that is no `async def` (or yields) fails the listing,
    so its body is not run as if it were."""
    server = WRAPPED.replace(
        "    async def list_tools(self, tools):", "    def list_tools(self, tools):"
    )
    _shop(project, server)
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    assert "its `list_tools` returns a value, which FastMCP cannot await" in result.out
    tools = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert "note" not in tools["get_item"]["inputSchema"]["properties"]


def test_a_chain_of_a_thousand_transformed_tools_is_a_note(project: Project, run: Runner) -> None:
    """Each `Tool.from_tool` of another is a few Python frames when read: a chain past
    MAX_CHAIN is a located note on that tool, not the whole module stopped at Python's
    recursion limit."""
    server = WRAPPED.replace(
        "return [t if _has_note(t) else Tool.from_tool(t, transform_fn=with_note) for t in tools]",
        "made = []\n"
        "        for t in tools:\n"
        "            for _ in range(1000):\n"
        "                t = Tool.from_tool(t)\n"
        "            made.append(t)\n"
        "        return made",
    )
    _shop(project, server)
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    assert "recursion limit" not in result.out, result.out
    assert "a chain of more than MAX_CHAIN = 64 `Tool.from_tool`" in result.out, result.out
