"""What a framework refuses where the tool is made costs that tool, located, never the build:
a docstring the framework's griffe reading fails on (TG308), tags that are no collection."""

from __future__ import annotations

from typing import Any

import pytest
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


def test_a_parameter_the_agents_sdk_cannot_make_strict_is_that_tools_error(tmp_path, run) -> None:
    """`@function_tool` raises where the tool is made when its schema cannot be strict (a
    dict of anything): there is no such tool, and toolgen says why and what to do."""
    project = Project(tmp_path / "proj")
    project.write("pyproject.toml", CONFIG)
    project.write(
        "src/agent.py",
        '''
        from typing import Any

        from agents import function_tool


        @function_tool
        def update_context(findings: dict[str, Any]) -> str:
            """Add findings to the context."""
            return "ok"


        @function_tool(strict_mode=False)
        def update_notes(notes: dict[str, Any]) -> str:
            """Add notes."""
            return "ok"
        ''',
    )
    result = run("build", cwd=project.root)
    told = result.out + result.err
    assert result.code == 1, told
    assert (
        "src/agent.py:6:2: TG211 [error] the Agents SDK cannot make `update_context`'s schema "
        "strict (an object that takes properties it does not name, such as a dict)" in told
    ), told
    assert project.descriptor("update_notes")["framework"]["openai"]["strict"] is False
    # the oracle: the SDK itself refuses the first and makes the second
    agents = pytest.importorskip("agents")
    namespace: dict[str, Any] = {}
    source = (project.root / "src" / "agent.py").read_text()
    with pytest.raises(agents.exceptions.UserError):
        exec(compile(source, "agent.py", "exec"), namespace)
    exec(compile(source.replace("@function_tool\n", ""), "agent.py", "exec"), namespace)
    assert namespace["update_notes"].strict_json_schema is False
