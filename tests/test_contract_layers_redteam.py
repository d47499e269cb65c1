"""Attacks on the contract layers (tests/test_contract_layers.py): what a careless table, a
hostile repository or an odd project made toolgen do, each kept as it now behaves."""

from __future__ import annotations

import textwrap

import pytest

from conftest import Project

FASTMCP_HEAD = "from fastmcp import FastMCP\n\nmcp = FastMCP('demo')\n"

WIPE = '''
@mcp.tool{args}
def wipe(table: str) -> str:
    """Wipe a table. Use it to reset test data.

    Args:
        table: The table.
    """
    return table
'''


def _project(project: Project, source: str, config: str = "", markers: str = '["fastmcp"]') -> None:
    project.write(
        "pyproject.toml",
        f'[tool.toolgen]\nsources = ["src"]\nmarkers = {markers}\n' + textwrap.dedent(config),
    )
    project.write("src/server.py", source)


def _lines(out: str, code: str) -> list[str]:
    return [line for line in out.splitlines() if f" {code} " in line]


# -- a value the descriptor would coerce must not slip past the checks made on it ---------


@pytest.mark.parametrize(
    ("table", "key", "line"),
    [
        # a high-risk tool given `confirmation = "false"`: TG404 looked for False, the
        # descriptor read the text as False: a high-risk tool written unconfirmed
        ('risk = "high"\nconfirmation = "false"\n', "confirmation", 6),
        # destructive as text: the gate looked for True, the descriptor read True, and the
        # tool was written autonomous and unconfirmed
        ('risk = "low"\ndestructive = "yes"\n', "idempotency.destructive", 6),
        ('risk = "low"\nautonomous = "true"\n', "autonomous", 6),
    ],
)
def test_a_contract_flag_given_as_text_is_refused_where_it_is_written(
    project: Project, run, table: str, key: str, line: int
) -> None:  # type: ignore[no-untyped-def]
    _project(project, FASTMCP_HEAD + WIPE.format(args=""), "[tool.toolgen.contract.wipe]\n" + table)
    result = run("build", cwd=project.root)
    assert result.code == 1, result.out
    (found,) = _lines(result.out, "TG403")
    assert found.startswith(f"pyproject.toml:{line}:1: TG403 [error] `{key}`: "), found
    assert "wipe (src/server.py:6:1)" in result.out  # left out
    assert not (project.out / "descriptors" / "wipe.json").exists()


def test_a_stacked_tools_flag_given_as_text_is_refused_too(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    source = FASTMCP_HEAD + "from toolgen import tool\n" + WIPE.format(args="").replace(
        "def wipe", '@tool(risk="critical", confirmation="no")\ndef wipe'
    )
    _project(project, source)
    result = run("build", cwd=project.root)
    assert result.code == 1, result.out
    (found,) = _lines(result.out, "TG403")
    assert found.startswith("src/server.py:7:24: TG403 [error] `confirmation`: "), found
