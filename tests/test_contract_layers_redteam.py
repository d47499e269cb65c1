"""Attacks on the contract layers (tests/test_contract_layers.py): what a careless table, a
hostile repository or an odd project made toolgen do, each kept as it now behaves."""

from __future__ import annotations

import pytest

from conftest import Project
from test_contract_layers import FASTMCP_HEAD, _lines, _project

WIPE = '''
@mcp.tool{args}
def wipe(table: str) -> str:
    """Wipe a table. Use it to reset test data.

    Args:
        table: The table.
    """
    return table
'''


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
    source = (
        FASTMCP_HEAD
        + "from toolgen import tool\n"
        + WIPE.format(args="").replace(
            "def wipe", '@tool(risk="critical", confirmation="no")\ndef wipe'
        )
    )
    _project(project, source)
    result = run("build", cwd=project.root)
    assert result.code == 1, result.out
    (found,) = _lines(result.out, "TG403")
    assert found.startswith("src/server.py:7:24: TG403 [error] `confirmation`: "), found


# -- where a problem is said, and the fix it names ------------------------------------------


def test_the_unclassified_warning_names_a_table_key_that_toml_reads_as_the_tools_name(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    """A name with a dot, written bare in a table header, is two keys (a table `a` holding
    `b`): the fix TG406 names must quote it, in the configuration and in a contract file."""
    _project(project, FASTMCP_HEAD + WIPE.format(args='(name="users.wipe")'))
    result = run("build", cwd=project.root)
    (line,) = _lines(result.out, "TG406")
    assert line.endswith('to [tool.toolgen.contract."users.wipe"]'), line
    # the table it names does classify the tool
    _project(
        project,
        FASTMCP_HEAD + WIPE.format(args='(name="users.wipe")'),
        '[tool.toolgen.contract."users.wipe"]\nrisk = "low"\n',
    )
    result = run("build", cwd=project.root)
    assert result.code == 0 and "TG406" not in result.out, result.out
    _project(
        project,
        FASTMCP_HEAD + WIPE.format(args='(name="users.wipe")'),
        'contract_file = "c.toml"\n',
    )
    project.write("c.toml", "")
    result = run("build", cwd=project.root)
    (line,) = _lines(result.out, "TG406")
    assert line.endswith('to ["users.wipe"] in c.toml'), line


def test_a_bad_value_in_a_tables_error_is_located_at_that_error(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    config = """
        [tool.toolgen.contract.wipe]
        risk = "low"
        errors.QUOTA = {description = "Too many.", http_status = "many", retryable = true}
    """
    _project(project, FASTMCP_HEAD + WIPE.format(args=""), config)
    result = run("build", cwd=project.root)
    assert result.code == 1, result.out
    (line,) = _lines(result.out, "TG403")
    assert line.startswith("pyproject.toml:7:8: TG403 [error] `errors.0.http_status`"), line


# -- the no-op fast path follows the contract file ------------------------------------------


def test_a_contract_file_that_is_a_symlink_retargeted_is_read_again(
    project: Project, run, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    """The configuration kept the file the link led to: pointed elsewhere (or removed), the
    repeated build was answered as before, from the old target's unchanged bytes."""
    from toolgen.incremental import answers

    _project(project, FASTMCP_HEAD + WIPE.format(args=""), 'contract_file = "c.toml"\n')
    project.write("low.toml", '[wipe]\nrisk = "low"\n')
    project.write("high.toml", '[wipe]\nrisk = "critical"\n')
    (project.root / "c.toml").symlink_to("low.toml")
    for _ in range(3):  # built, answered from the stamp, then remembered
        assert run("build", cwd=project.root).code == 0
    assert project.descriptor("wipe")["risk"] == "low"
    (project.root / "c.toml").unlink()
    (project.root / "c.toml").symlink_to("high.toml")
    capsys.readouterr()
    assert answers.answer(["build"]) is None  # the shortcut does not answer
    assert capsys.readouterr().out == ""
    assert run("build", cwd=project.root).code == 0
    assert project.descriptor("wipe")["risk"] == "critical"
    (project.root / "c.toml").unlink()
    assert answers.answer(["build"]) is None
    assert run("build", cwd=project.root).code == 2


# -- a stacked @tool is never a second tool -------------------------------------------------


@pytest.mark.parametrize("markers", ['["fastmcp", "toolgen"]', '["fastmcp"]'])
def test_a_tool_decorated_function_registered_by_a_call_in_another_file_is_one_tool(
    project: Project, run, markers: str
) -> None:  # type: ignore[no-untyped-def]
    """`mcp.tool()(wipe)` in server.py, `@tool(...)` on `wipe` in tools.py: with both
    markers, the `@tool` was a tool of its own too, and the two were TG102 (each "already
    used by the handler at" the same place), neither published."""
    project.write("pyproject.toml", f'[tool.toolgen]\nsources = ["src"]\nmarkers = {markers}\n')
    project.write(
        "src/tools.py",
        'from toolgen import tool\n\n\n@tool(risk="high", permissions=["db:wipe"])\n'
        + WIPE.format(args="").split("\n", 2)[2],
    )
    project.write("src/server.py", FASTMCP_HEAD + "\nfrom tools import wipe\n\nmcp.tool()(wipe)\n")
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "TG102" not in result.out and "TG406" not in result.out
    assert sorted(p.name for p in (project.out / "descriptors").iterdir()) == ["wipe.json"]
    tool = project.descriptor("wipe")
    assert (tool["risk"], tool["permissions"]) == ("high", ["db:wipe"])
    assert tool["source"]["marker"] == "fastmcp"
    assert tool["origins"] == {"permissions": "decorator", "risk": "decorator"}
    # tools.py's unit taken from the cache, server.py's made again: the same
    before = project.snapshot()
    with (project.root / "src/server.py").open("a") as server:
        server.write("# edited\n")
    result = run("build", cwd=project.root)
    assert result.code == 0 and "TG102" not in result.out, result.out
    assert project.snapshot() == before
    assert run("check", "--no-cache", cwd=project.root).code == 0


# -- a table for a tool a low-level server lists ---------------------------------------------

LISTED = """
from mcp import types
from mcp.server.lowlevel import Server

QUERY = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


async def on_list(ctx, params):
    return types.ListToolsResult(
        tools=[types.Tool(name="purge", description="Purge.", input_schema=QUERY)]
    )


server = Server("s", on_list_tools=on_list)
"""


def test_a_table_applies_to_a_tool_a_server_lists(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """A `Tool(...)` a low-level server lists takes its contract from its table: its `risk`
    and `permissions` were dropped without a word (the tool ran unconfirmed, to anyone), after
    `toolgen init` had written the table to review."""
    table = (
        '[tool.toolgen.contract.purge]\nrisk = "high"\npermissions = ["db:purge"]\n'
        'errors = {NOT_FOUND = "No such table."}\n'
        "examples = [{arguments = {q = 1}}]\n"
    )
    _project(project, LISTED, table, markers='["mcp"]')
    result = run("build", cwd=project.root)
    assert _lines(result.out, "TG501")[0].startswith("pyproject.toml:8:1: TG501")  # q is text
    _project(project, LISTED, table.replace("q = 1", 'q = "logs"'), markers='["mcp"]')
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    tool = project.descriptor("purge")
    assert (tool["risk"], tool["confirmation"], tool["permissions"]) == ("high", True, ["db:purge"])
    assert [e["code"] for e in tool["errors"]] == ["NOT_FOUND"]
    assert tool["examples"] == [{"arguments": {"q": "logs"}}]
    assert tool["origins"] == {
        "errors.NOT_FOUND": "contract",
        "permissions": "contract",
        "risk": "contract",
    }
    # the table `toolgen init` writes, not yet reviewed, states nothing: unclassified
    _project(project, LISTED, "[tool.toolgen.contract.purge]\n", markers='["mcp"]')
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert project.descriptor("purge")["risk"] == "medium"
    assert _lines(result.out, "TG406")[0].endswith("to [tool.toolgen.contract.purge]")


# -- toolgen init -------------------------------------------------------------------------

INIT_SOURCE = '''
from fastmcp import FastMCP

mcp = FastMCP("demo")


@mcp.tool(name="delete-user")
def delete_user(user_id: str) -> str:
    """Delete a user.

    Args:
        user_id: The id.
    """
    return user_id


@mcp.tool
def dropTable(table: str) -> str:
    """Drop a table.

    Args:
        table: The table.
    """
    return table
'''


def test_init_does_not_name_a_contract_file_a_dangling_link_stands_in_for(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    """A link to nowhere at toolgen.contract.toml: init wrote no file (it never writes
    through a link) yet named it in the configuration, and said nothing; the next build
    stopped at the configuration (exit 2)."""
    project.write("pyproject.toml", '[project]\nname = "demo"\n')
    project.write("server.py", INIT_SOURCE)
    (project.root / "toolgen.contract.toml").symlink_to(project.root.parent / "nowhere.toml")
    result = run("init", cwd=project.root)
    assert result.code == 0, result.out
    assert "toolgen.contract.toml exists; left as it is, and not named" in result.out
    assert "contract_file" not in (project.root / "pyproject.toml").read_text()
    assert not (project.root.parent / "nowhere.toml").exists()
    assert run("build", cwd=project.root).code == 0


def test_init_suggests_a_risk_from_the_first_word_of_any_spelling(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """`delete-user` and `dropTable` were one word each to the suggestion (it split at `_`
    only): both were suggested medium, as names that say nothing."""
    project.write("pyproject.toml", '[project]\nname = "demo"\n')
    project.write("server.py", INIT_SOURCE)
    assert run("init", cwd=project.root).code == 0
    text = (project.root / "toolgen.contract.toml").read_text()
    assert "[delete-user]\n# review: suggested risk high (the name starts with `delete-`)" in text
    assert "[dropTable]\n# review: suggested risk high (the name starts with `drop`)" in text
