"""What a framework refuses where the tool is made costs that tool, located, never the build:
a docstring the framework's griffe reading fails on (TG308), tags that are no collection."""

from __future__ import annotations

from tests.conftest import Project

CONFIG = """
[tool.toolgen]
sources = ["src"]
out = "generated"
markers = ["fastmcp", "pydantic-ai", "openai-agents"]
min_level = 0
"""


def test_what_a_framework_refuses_costs_that_tool_only(tmp_path, run) -> None:
    project = Project(tmp_path / "proj")
    project.write("pyproject.toml", CONFIG)
    project.write(
        "src/tools.py",
        '''
        from agents import function_tool
        from fastmcp import FastMCP
        from pydantic_ai import Agent

        mcp = FastMCP("s")
        agent = Agent("test")


        @mcp.tool(tags=True)
        def ping() -> str:
            """Answer."""
            return "pong"


        @agent.tool_plain
        def metrics(name: str) -> str:
            """Get metrics.

            Returns:
            --------
                The metrics.
            """
            return name


        @function_tool
        def fine(name: str) -> str:
            """Say the name back.

            Args:
                name: The name.
            """
            return name
        ''',
    )
    result = run("build", cwd=project.root)
    told = result.out + result.err
    assert result.code == 1, told
    assert "Traceback" not in told
    assert "src/tools.py:9:11: TG403 [error] `tool_search_keywords`" in told, told
    assert (
        "src/tools.py:17:5: TG308 [error] pydantic-ai cannot read `metrics`'s docstring "
        "(IndexError: list index out of range): it registers no tool" in told
    ), told
    assert "2 tools left out for errors: ping (src/tools.py:10:1), metrics" in told, told
