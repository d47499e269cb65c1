"""A FastMCP server made from an OpenAPI document (`FastMCP.from_openapi`), read by `toolgen
build` as it reads any server: the document loaded from the project's own YAML file (the
network call before it raises), the server's route maps, `route_map_fn` and
`mcp_component_fn` run by the interpreter. The oracle is FastMCP itself: the test imports the
same project and lists its tools through FastMCP's client."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from conftest import CONFIG, Project, Run
from runtime_oracle import framework_listing

Runner = Callable[..., Run]

fastmcp = pytest.importorskip("fastmcp")

SPEC = """
openapi: 3.0.3
info: {title: Shop, version: "1"}
servers: [{url: "http://127.0.0.1:9"}]
paths:
  /items:
    get:
      operationId: list-items
      summary: List the items.
      tags: [items]
      parameters:
        - {name: limit, in: query, schema: {type: integer, minimum: 1, default: 10}}
        - {name: status, in: query, schema: {type: string, enum: [open, closed], nullable: true}}
      responses:
        "200":
          description: The items.
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/Item"}}
    post:
      operationId: create-item
      description: Create an item in the shop.
      tags: [items]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/NewItem"}
      responses:
        "201":
          description: Made.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Item"}
  /items/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}, description: The item.}
    get:
      operationId: get-item
      summary: Get one item.
      tags: [items]
      responses:
        "200":
          description: The item.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Item"}
    delete:
      operationId: delete-item
      summary: Delete an item.
      tags: [items]
      responses:
        "204": {description: Gone.}
  /admin/reindex:
    post:
      operationId: reindex
      summary: Rebuild the index.
      x-internal: true
      responses:
        "202": {description: Started.}
components:
  schemas:
    NewItem:
      type: object
      required: [name]
      properties:
        name: {type: string, maxLength: 80}
        price: {type: number, nullable: true}
        tags: {type: array, items: {type: string}}
    Item:
      allOf:
        - $ref: "#/components/schemas/NewItem"
        - type: object
          required: [id]
          properties:
            id: {type: string}
"""

SERVER = """
from pathlib import Path

import httpx
import yaml
from fastmcp import FastMCP
from fastmcp.server.providers.openapi import MCPType, OpenAPIProvider, RouteMap
from mcp.types import ToolAnnotations

HERE = Path(__file__).parent


def load_spec():
    try:  # the live document first; the bundled one when there is no network
        return httpx.get("http://127.0.0.1:9/openapi.json", timeout=0.5).json()
    except Exception:
        return yaml.safe_load((HERE / "openapi.yaml").read_text(encoding="utf-8"))


def route_map_fn(route, mcp_type):
    if route.extensions.get("x-internal"):
        return MCPType.EXCLUDE
    return None


def component_fn(route, component):
    component.name = route.operation_id.replace("-", "_")
    component.annotations = ToolAnnotations(
        title=route.summary or route.operation_id,
        readOnlyHint=route.method == "GET",
    )


mcp = FastMCP.from_openapi(
    load_spec(),
    name="shop",
    route_maps=[RouteMap(methods=["DELETE"], mcp_type=MCPType.EXCLUDE)],
    route_map_fn=route_map_fn,
    mcp_component_fn=component_fn,
)
"""

#: The same server, given the document's tools by FastMCP 3's provider.
PROVIDED = (
    SERVER.split("mcp = FastMCP.from_openapi(")[0]
    + """
mcp = FastMCP("shop")
mcp.add_provider(
    OpenAPIProvider(
        load_spec(),
        route_maps=[RouteMap(methods=["DELETE"], mcp_type=MCPType.EXCLUDE)],
        route_map_fn=route_map_fn,
        mcp_component_fn=component_fn,
    )
)
"""
)


@pytest.fixture(params=[SERVER, PROVIDED], ids=["from_openapi", "add_provider"])
def served(project: Project, request: pytest.FixtureRequest) -> Project:
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/shop/__init__.py", "")
    project.write("src/shop/server.py", request.param)
    project.write("src/shop/openapi.yaml", SPEC)
    return project


def _listed_by_fastmcp(project: Project) -> list[dict[str, Any]]:
    return framework_listing(project.root / "src", "shop.server")


def test_tools_of_an_openapi_document_are_what_fastmcp_lists(served: Project, run: Runner) -> None:
    result = run("build", cwd=served.root)
    assert result.code == 0, result.out
    ours = {t["name"]: t for t in served.generated("mcp/tools.json")["tools"]}
    theirs = {t["name"]: t for t in _listed_by_fastmcp(served)}
    assert sorted(ours) == sorted(theirs) == ["create_item", "get_item", "list_items"]
    for name, tool in theirs.items():
        for key in ("description", "inputSchema", "outputSchema", "annotations", "title"):
            assert ours[name].get(key) == tool.get(key), (name, key)
        assert json.dumps(ours[name]["inputSchema"]) == json.dumps(tool["inputSchema"]), name


def test_an_edit_of_the_document_is_seen_by_the_next_build(served: Project, run: Runner) -> None:
    """The YAML file is a dependency of the unit that read it (the unit cache is used)."""
    assert run("build", cwd=served.root).code == 0
    edited = SPEC.replace("operationId: get-item", "operationId: fetch-item")
    served.write("src/shop/openapi.yaml", edited)
    result = run("build", cwd=served.root)
    assert result.code == 0, result.out
    names = sorted(t["name"] for t in served.generated("mcp/tools.json")["tools"])
    assert names == ["create_item", "fetch_item", "list_items"]


def test_a_document_toolgen_cannot_know_is_a_located_note(project: Project, run: Runner) -> None:
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write(
        "src/server.py",
        """
        import httpx
        from fastmcp import FastMCP

        spec = httpx.get("https://example.invalid/openapi.json").json()
        mcp = FastMCP.from_openapi(spec, client=httpx.AsyncClient())
        """,
    )
    result = run("build", "--verbose", cwd=project.root)
    assert "TG107" in result.out
    assert "src/server.py:5:7: TG106" in result.out


def test_a_hook_that_spends_the_units_steps_stops_the_unit(project: Project, run: Runner) -> None:
    """The converter catches a hook's exceptions per route, as FastMCP does; the unit's
    budget running out in a hook is none of them: the unit stops, and no tool is published
    without the renaming the hook would have made."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    paths = {
        f"/r{i}": {"get": {"operationId": f"op_{i}", "responses": {"200": {"description": "ok"}}}}
        for i in range(100)
    }
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths}
    project.write(
        "src/server.py",
        f"""
        from fastmcp import FastMCP

        SPEC = {document!r}

        def rename(route, component):
            for i in range(10_000):
                pass
            component.name = "renamed_" + component.name

        mcp = FastMCP.from_openapi(SPEC, client=None, mcp_component_fn=rename)
        """,
    )
    result = run("build", "--verbose", cwd=project.root)
    assert "evaluation of this statement stopped: more than MAX_STEPS" in result.out
    assert "mcp_component_fn failed" not in result.out
    assert not (project.root / "generated" / "mcp" / "tools.json").exists()


def test_fields_a_hook_sets_that_mcp_refuses_leave_the_tool_out(
    project: Project, run: Runner
) -> None:
    """An entry whose title is no string, or whose hints are no booleans, is refused by the
    MCP `Tool` model: the tool is left out (TG403), never written into `mcp/tools.json`."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    paths = {"/r": {"get": {"operationId": "op", "responses": {"200": {"description": "ok"}}}}}
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths}
    project.write(
        "src/server.py",
        f"""
        from fastmcp import FastMCP

        def annotate(route, component):
            component.annotations = {{"title": 5, "readOnlyHint": "yes"}}

        mcp = FastMCP.from_openapi({document!r}, client=None, mcp_component_fn=annotate)
        """,
    )
    result = run("build", cwd=project.root)
    assert result.code == 1, result.out
    assert "`op`: its title is no string" in result.out
    assert "`op`: its annotations' readOnlyHint is no boolean" in result.out
    assert project.generated("mcp/tools.json")["tools"] == []


@pytest.mark.parametrize(
    ("hook", "listed"),
    [
        ("def hook(route, component):\n    yield\n    component.name = 'gen'", ["op"]),
        ("async def hook(route, component):\n    component.name = 'coro'", ["op"]),
        ("def hook(route, kind):\n    yield\n    return None", []),
    ],
    ids=["component_fn_generator", "component_fn_async", "route_map_fn_generator"],
)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_hook_whose_call_runs_nothing_is_not_run(
    project: Project, run: Runner, hook: str, listed: list[str]
) -> None:
    """FastMCP calls its hooks and never awaits or iterates what they return: a generator's
    or an `async def`'s body never runs (a route_map_fn's generator, taken as the route's
    type, makes nothing of it). The oracle is FastMCP."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    keyword = "route_map_fn" if "kind" in hook else "mcp_component_fn"
    paths = {"/r": {"get": {"operationId": "op", "responses": {"200": {"description": "ok"}}}}}
    document = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": paths,
    }
    project.write("src/shop/__init__.py", "")
    project.write(
        "src/shop/server.py",
        f"from fastmcp import FastMCP\n\n{hook}\n\n"
        f"mcp = FastMCP.from_openapi({document!r}, {keyword}=hook)\n",
    )
    result = run("build", cwd=project.root)
    assert result.code in (0, 1), result.out
    written = (project.root / "generated" / "mcp" / "tools.json").exists()
    ours = [t["name"] for t in project.generated("mcp/tools.json")["tools"]] if written else []
    theirs = [t["name"] for t in _listed_by_fastmcp(project)]
    assert ours == theirs == listed
