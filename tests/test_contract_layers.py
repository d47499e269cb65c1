"""The contract of tools toolgen did not write (DESIGN §3): three layers, highest first (the
project's contract table, a stacked `@tool`, the framework's own arguments and annotations),
every tool classified (TG406), destructive means confirmed (TG408, the run time's gate), and
`toolgen init` writing a contract file to review."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from conftest import Project
from toolgen.runtime import CallContext, Toolbox

FASTMCP_HEAD = "from fastmcp import FastMCP\n\nmcp = FastMCP('demo')\n"

DELETE_USER = '''
@mcp.tool(annotations={{"destructiveHint": True}}){stacked}
def delete_user(user_id: str) -> str:
    """Delete a user account for good. Use it only when the user asks to close it.

    Args:
        user_id: The account's id.
    """
    return f"deleted {{user_id}}"
'''


def _project(project: Project, source: str, config: str = "", markers: str = '["fastmcp"]') -> None:
    project.write(
        "pyproject.toml",
        f'[tool.toolgen]\nsources = ["src"]\nmarkers = {markers}\n' + textwrap.dedent(config),
    )
    project.write("src/server.py", source)


def _lines(out: str, code: str) -> list[str]:
    return [line for line in out.splitlines() if f" {code} " in line]


# -- the layers and their precedence, on each framework preset -------------------------------


def test_a_fastmcp_annotation_sets_the_hint_and_the_framework_layer_says_so(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""))
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    tool = project.descriptor("delete_user")
    assert tool["idempotency"] == {"destructive": True}
    assert tool["origins"] == {"idempotency.destructive": "framework"}
    # destructive means confirmed, whatever the (default) risk
    assert (tool["risk"], tool["confirmation"], tool["autonomous"]) == ("medium", True, False)
    # what FastMCP publishes is unchanged: its own entry, its own annotations
    (listed,) = project.generated("mcp/tools.json")["tools"]
    assert listed["annotations"] == {"destructiveHint": True}


@pytest.mark.parametrize("above", [True, False], ids=["tool-above", "tool-below"])
def test_a_stacked_tool_is_the_tools_contract_in_either_order(
    project: Project, run, above: bool
) -> None:  # type: ignore[no-untyped-def]
    contract = '@tool(risk="high", permissions=["users:delete"], audit_event="user.deleted")'
    source = FASTMCP_HEAD + "from toolgen import tool\n" + DELETE_USER.format(stacked="")
    if above:
        source = source.replace("@mcp.tool(", f"{contract}\n@mcp.tool(")
    else:
        source = source.replace("\ndef delete_user", f"\n{contract}\ndef delete_user")
    _project(project, source, markers='["fastmcp", "toolgen"]')  # never a second tool
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "TG102" not in result.out and "TG406" not in result.out
    assert sorted(p.name for p in (project.out / "descriptors").iterdir()) == ["delete_user.json"]
    tool = project.descriptor("delete_user")
    assert (tool["risk"], tool["permissions"], tool["audit_event"]) == (
        "high",
        ["users:delete"],
        "user.deleted",
    )
    assert tool["origins"] == {
        "audit_event": "decorator",
        "idempotency.destructive": "framework",
        "permissions": "decorator",
        "risk": "decorator",
    }


def test_the_contract_table_is_over_the_stacked_tool_which_is_over_the_framework(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    source = (
        FASTMCP_HEAD
        + "from toolgen import tool\n"
        + DELETE_USER.format(stacked='\n@tool(risk="medium", category="accounts")')
        + '''
    @mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
    def get_user(user_id: str) -> str:
        """Get a user account. Use it to read a profile.

        Args:
            user_id: The account's id.
        """
        return user_id
    '''.replace("\n    ", "\n")
    )
    config = """
        [tool.toolgen.contract.delete_user]
        risk = "critical"
        step_up_auth = "always, from another device"

        [tool.toolgen.contract.get_user]
        risk = "low"
        safe = false
    """
    _project(project, source, config)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    deleting = project.descriptor("delete_user")
    assert (deleting["risk"], deleting["category"]) == ("critical", "accounts")
    assert deleting["step_up_auth"] == "always, from another device"
    assert deleting["origins"] == {
        "category": "decorator",
        "idempotency.destructive": "framework",
        "risk": "contract",
        "step_up_auth": "contract",
    }
    getting = project.descriptor("get_user")
    # the table's hint over the framework's annotation, in the descriptor only
    assert getting["idempotency"] == {"safe": False, "open_world": False}
    assert getting["origins"]["idempotency.safe"] == "contract"
    assert getting["origins"]["idempotency.open_world"] == "framework"
    listed = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert listed["get_user"]["annotations"]["readOnlyHint"] is True  # FastMCP's, as it is
    # `toolgen show` prints the descriptor, origins and all
    shown = run("show", "get_user", cwd=project.root)
    assert shown.json()["origins"] == getting["origins"]


def test_a_stacked_tool_that_disagrees_with_the_framework_is_located(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    source = FASTMCP_HEAD + (
        "import toolgen\n\n\n"
        '@toolgen.tool(risk="low", name="wipe", open_world=False, title="Wipe")\n'
        '@mcp.tool(name="wipe_table", title="Wipe a table", annotations={"openWorldHint": True})\n'
        "def wipe(table: str) -> str:\n"
        '    """Wipe a table. Use it to reset test data.\n\n'
        '    Args:\n        table: The table.\n    """\n'
        "    return table\n"
    )
    _project(project, source)
    result = run("build", cwd=project.root)
    assert result.code == 1
    lines = _lines(result.out, "TG407")
    assert len(lines) == 3, result.out
    assert lines[0].startswith("src/server.py:7:27: TG407 [error] @tool(name='wipe')")
    assert "publishes the tool as 'wipe_table'" in lines[0]
    assert any(line.startswith("src/server.py:7:40: TG407") for line in lines)  # open_world
    assert any("title='Wipe'" in line and "at src/server.py:8:30" in line for line in lines)
    assert "wipe_table (src/server.py:9:1)" in result.out  # left out, alone


def test_the_agents_sdk_and_pydantic_ai_approval_sets_confirmation(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nmarkers = ["openai-agents", "pydantic-ai"]\n'
        "[tool.toolgen.contract]\n"
        'refund = {risk = "high"}\nbook = {risk = "medium"}\nrule = {risk = "medium"}\n',
    )
    project.write(
        "src/agent.py",
        '''
        from agents import function_tool
        from pydantic_ai import Agent

        agent = Agent("test")


        def is_large(ctx, params, call_id) -> bool:
            return True


        @function_tool(needs_approval=True)
        def refund(order_id: str) -> str:
            """Refund an order. Use it when the customer asks for their money back.

            Args:
                order_id: The order.
            """
            return order_id


        @function_tool(needs_approval=is_large)
        def rule(order_id: str) -> str:
            """Refund part of an order. Use it for partial refunds.

            Args:
                order_id: The order.
            """
            return order_id


        @agent.tool_plain(requires_approval=True)
        def book(room: str) -> str:
            """Book a room. Use it when the user picks one.

            Args:
                room: The room.
            """
            return room
        ''',
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    for name in ("refund", "rule", "book"):
        tool = project.descriptor(name)
        assert (tool["confirmation"], tool["autonomous"]) == (True, False), name
        assert tool["origins"]["confirmation"] == "framework", name


def test_a_langchain_tool_takes_toolgens_tool_under_another_name(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src"]\nmarkers = ["langchain"]\n')
    project.write(
        "src/tools.py",
        '''
        from langchain_core.tools import tool
        from toolgen import tool as contract


        @tool
        @contract(risk="high", permissions=["mail:send"])
        def send_mail(to: str) -> str:
            """Send a mail to someone."""
            return to
        ''',
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    tool = project.descriptor("send_mail")
    assert (tool["risk"], tool["permissions"]) == ("high", ["mail:send"])
    assert tool["origins"] == {"permissions": "decorator", "risk": "decorator"}


# -- every tool is classified -------------------------------------------------------------


def test_an_unclassified_tool_is_a_warning_that_says_the_fix_and_an_error_from_min_level_1(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""))
    result = run("build", cwd=project.root)
    assert result.code == 0
    assert _lines(result.out, "TG406") == [
        "src/server.py:5:2: TG406 [warning] tool delete_user states no risk: add "
        '`risk = "..."` (low, medium, high, critical or forbidden) to '
        "[tool.toolgen.contract.delete_user]"
    ]
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""), "min_level = 1\n")
    result = run("build", cwd=project.root)
    assert result.code == 1
    assert "TG406 [error]" in result.out
    assert "delete_user (src/server.py:6:1)" in result.out  # left out for it
    # toolgen's own @tool without a risk too: the fix is its keyword
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src"]\n')
    project.write(
        "src/server.py",
        'from toolgen import tool\n\n\n@tool\ndef ping() -> str:\n    """Answer pong."""\n'
        '    return "pong"\n',
    )
    result = run("build", cwd=project.root)
    assert _lines(result.out, "TG406") == [
        "src/server.py:4:2: TG406 [warning] tool ping states no risk: give "
        "`@tool(risk=...)` (low, medium, high, critical or forbidden)"
    ]


# -- the contract table and the contract file ---------------------------------------------


def test_a_contract_tables_errors_and_examples_are_checked_like_the_docstrings(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    config = """
        [tool.toolgen.contract.delete_user]
        risk = "high"
        errors.NOT_FOUND = "No user has this id."
        errors.QUOTA = {description = "Too many.", http_status = 429, retryable = true}
        examples = [{prompt = "Close 42", arguments = {user_id = "42"}, result = "deleted 42"}]
    """
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""), config)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    tool = project.descriptor("delete_user")
    assert tool["errors"] == [
        {
            "code": "NOT_FOUND",
            "description": "No user has this id.",
            "http_status": 404,
            "retryable": False,
            "recovery": tool["errors"][0]["recovery"],  # the taxonomy's, whatever it says
        },
        {
            "code": "QUOTA",
            "description": "Too many.",
            "http_status": 429,
            "retryable": True,
            "recovery": None,
        },
    ]
    assert tool["examples"] == [
        {"prompt": "Close 42", "arguments": {"user_id": "42"}, "result": "deleted 42"}
    ]
    assert tool["origins"]["errors.QUOTA"] == "contract"
    # a custom code without its status, an example the schema refuses: located in the table
    bad = """
        [tool.toolgen.contract.delete_user]
        risk = "high"
        errors = {QUOTA = "Too many."}
        examples = [{arguments = {user_id = 42}}]
    """
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""), bad)
    result = run("build", cwd=project.root)
    assert _lines(result.out, "TG305")[0].startswith("pyproject.toml:7:11: TG305")
    assert _lines(result.out, "TG501")[0].startswith("pyproject.toml:8:1: TG501")


def test_a_bad_value_in_a_table_costs_that_tool_where_the_value_is_written(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    config = '[tool.toolgen.contract.delete_user]\nrisk = "severe"\n'
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""), config)
    result = run("build", cwd=project.root)
    assert result.code == 1
    (line,) = _lines(result.out, "TG403")
    assert line.startswith("pyproject.toml:5:1: TG403 [error] `risk`: Input should be")


def test_unknown_fields_and_names_are_located_errors(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    config = '[tool.toolgen.contract.delete_user]\nrisk = "high"\nrisky = true\n'
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""), config)
    result = run("build", cwd=project.root)
    assert result.code == 2
    assert result.out.startswith(
        "pyproject.toml:6:1: TG002 [error] [tool.toolgen.contract].delete_user: unknown "
        "contract field 'risky' (known: "
    )
    config = '[tool.toolgen.contract.delete_usr]\nrisk = "high"\n'
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""), config)
    result = run("build", cwd=project.root)
    assert result.code == 1
    assert _lines(result.out, "TG021") == [
        "pyproject.toml:4:1: TG021 [error] contract table `delete_usr` names no tool "
        "(did you mean delete_user?)"
    ]
    assert (project.out / "descriptors" / "delete_user.json").exists()  # the tools are written


def test_a_contract_file_is_read_located_and_part_of_what_a_noop_build_checks(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""), 'contract_file = "c.toml"\n')
    project.write("c.toml", '[delete_user]\nrisk = "medium"\n')
    assert run("build", cwd=project.root).code == 0
    assert project.descriptor("delete_user")["risk"] == "medium"
    assert "0 files written" in run("build", cwd=project.root).out
    # only the contract file changes: the next build reads it
    project.write("c.toml", '[delete_user]\nrisk = "critical"\n')
    assert run("check", cwd=project.root).code == 1
    assert run("build", cwd=project.root).code == 0
    assert project.descriptor("delete_user")["risk"] == "critical"
    # its problems are located in it
    project.write("c.toml", '[delete_user]\nrisk = "high"\n\n[other]\nnotes = "x"\n')
    result = run("build", cwd=project.root)
    assert result.code == 2
    assert result.out.startswith("c.toml:5:1: TG002 [error] c.toml.other: unknown contract field")
    project.write("c.toml", "[delete_user\n")
    result = run("build", cwd=project.root)
    assert result.code == 2 and result.out.startswith("c.toml:1:13: TG002 [error] invalid TOML")


@pytest.mark.parametrize(
    ("setting", "written", "message"),
    [
        ('"missing.toml"', None, "missing.toml cannot be read"),
        ('"../outside.toml"', "[x]\n", "is outside the project"),
        ("5", None, "must be the path of a TOML file"),
    ],
)
def test_a_contract_file_that_cannot_be_had_is_a_config_error(
    project: Project, run, setting: str, written: str | None, message: str
) -> None:  # type: ignore[no-untyped-def]
    _project(project, FASTMCP_HEAD, f"contract_file = {setting}\n")
    if written is not None:
        (project.root.parent / "outside.toml").write_text(written)
    result = run("build", cwd=project.root)
    assert result.code == 2
    assert result.out.startswith("pyproject.toml:4:1: TG002 [error] [tool.toolgen] contract_file")
    assert message in result.out


def test_a_tool_in_both_the_table_and_the_file_is_refused(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    config = 'contract_file = "c.toml"\n[tool.toolgen.contract.delete_user]\nrisk = "high"\n'
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""), config)
    project.write("c.toml", '[delete_user]\nrisk = "low"\n')
    result = run("build", cwd=project.root)
    assert result.code == 2
    expected = "c.toml:1:1: TG002 [error] c.toml: tool delete_user has a contract table in"
    assert expected in result.out


def test_the_watch_follows_the_contract_file(project: Project) -> None:
    from toolgen.config import load_config
    from toolgen.watch.loop import ChangeFilter

    _project(project, FASTMCP_HEAD, 'contract_file = "c.toml"\n')
    project.write("c.toml", "")
    config = load_config(None, cwd=project.root)
    watched = ChangeFilter(config)
    assert watched.counts((project.root / "c.toml").resolve())
    assert (project.root / "c.toml").resolve() in watched.needed()


# -- destructive means confirmed ----------------------------------------------------------


def test_a_destructive_tool_waives_confirmation_only_with_a_reason(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    config = '[tool.toolgen.contract.delete_user]\nrisk = "medium"\nconfirmation = false\n'
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""), config)
    result = run("build", cwd=project.root)
    assert result.code == 1
    (line,) = _lines(result.out, "TG408")
    assert line.startswith("pyproject.toml:6:1: TG408 [error] a destructive tool is confirmed")
    reason = 'reason = "test accounts only"\n'
    _project(project, FASTMCP_HEAD + DELETE_USER.format(stacked=""), config + reason)
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    tool = project.descriptor("delete_user")
    assert (tool["confirmation"], tool["confirmation_reason"]) == (False, "test accounts only")
    assert _lines(result.out, "TG910")[0].endswith(
        "destructive tool runs without confirmation (test accounts only)"
    )
    # a reason on a tool that is not destructive waives nothing
    source = FASTMCP_HEAD + DELETE_USER.format(stacked="").replace(
        '(annotations={"destructiveHint": True})', ""
    )
    _project(project, source, '[tool.toolgen.contract.delete_user]\nrisk = "low"\n' + reason)
    result = run("build", cwd=project.root)
    assert _lines(result.out, "TG408")[0].startswith("pyproject.toml:6:1: TG408 [error] `reason`")


def _descriptor(**changes: Any) -> dict[str, Any]:
    return {
        "name": "wipe",
        "description": "Wipe the table.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        "returns": {"schema": {"type": "string"}},
        "errors": [],
        "idempotency": {"destructive": True},
        "examples": [],
        "risk": "low",
        "autonomous": True,
        "confirmation": False,
        "source": {"module": "m", "qualname": "wipe"},
        **changes,
    }


def _box(tmp_path: Path, descriptor: dict[str, Any], events: list[dict[str, Any]]) -> Toolbox:
    folder = tmp_path / "generated" / "descriptors"
    folder.mkdir(parents=True)
    (folder / "wipe.json").write_text(json.dumps(descriptor))
    return Toolbox.load(
        tmp_path / "generated",
        handlers={"wipe": lambda: "wiped"},
        audit=events.append,
        store="memory://",
    )


def test_the_run_time_confirms_a_destructive_tool_whatever_its_descriptor_says(
    tmp_path: Path,
) -> None:
    events: list[dict[str, Any]] = []
    box = _box(tmp_path, _descriptor(), events)  # hand-made: low risk, no confirmation
    refused = box.call("wipe", {})
    assert refused.error is not None and refused.error["code"] == "REQUIRES_HUMAN_APPROVAL"
    asked: list[str] = []
    done = box.call(
        "wipe", {}, context=CallContext(confirm=lambda request: asked.append(request.tool) or True)
    )
    assert (done.ok, done.data, asked) == (True, "wiped", ["wipe"])
    assert not any("confirmation_waived" in event for event in events)


def test_a_waived_destructive_tool_runs_and_each_event_carries_the_reason(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    box = _box(tmp_path, _descriptor(confirmation_reason="scratch data"), events)
    result = box.call("wipe", {})
    assert (result.ok, result.data) == (True, "wiped")
    assert events and all(event["confirmation_waived"] == "scratch data" for event in events)


# -- toolgen init, and the whole way: classify, build, confirm ----------------------------


def test_init_writes_a_contract_to_review_and_the_risk_set_there_gates_the_call(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    source = (
        FASTMCP_HEAD
        + DELETE_USER.format(stacked="")
        + '''
@mcp.tool
def drop_table(table: str) -> str:
    """Drop a table. Use it to remove a table and its rows.

    Args:
        table: The table.
    """
    return table


@mcp.tool(annotations={"readOnlyHint": True})
def user_count() -> int:
    """Count the users. Use it for the size of the user base."""
    return 3
'''
    )
    project.write("pyproject.toml", '[project]\nname = "demo"\n')
    project.write("server.py", source)
    result = run("init", cwd=project.root)
    assert result.code == 0, result.out
    text = (project.root / "toolgen.contract.toml").read_text()
    tables = text[text.index("\n[") + 1 :]
    assert tables == (
        "[delete_user]\n"
        "# review: suggested risk high (destructiveHint is true)\n"
        '# risk = "high"\n'
        "\n[drop_table]\n"
        "# review: suggested risk high (the name starts with `drop_`)\n"
        '# risk = "high"\n'
        "\n[user_count]\n"
        "# review: suggested risk low (readOnlyHint is true)\n"
        '# risk = "low"\n'
    )
    result = run("build", cwd=project.root)
    assert result.code == 0
    assert len(_lines(result.out, "TG406")) == 3
    assert "to [drop_table] in toolgen.contract.toml" in result.out
    # reviewed: the suggestions made the risks
    (project.root / "toolgen.contract.toml").write_text(text.replace("# risk", "risk"))
    result = run("build", cwd=project.root)
    assert result.code == 0 and "TG406" not in result.out, result.out
    asked: list[str] = []
    box = Toolbox.load(project.out, paths=[project.root], store="memory://", audit=lambda e: None)
    assert box.call("drop_table", {"table": "t"}).error["code"] == "REQUIRES_HUMAN_APPROVAL"
    confirm = CallContext(confirm=lambda request: asked.append(request.tool) or True)
    assert box.call("drop_table", {"table": "t"}, context=confirm).data == "t"
    assert box.call("delete_user", {"user_id": "7"}, context=confirm).data == "deleted 7"
    assert box.call("user_count", {}).data == 3  # low risk, read-only: runs on its own
    assert asked == ["drop_table", "delete_user"]


def test_serve_asks_before_running_a_framework_tool_its_contract_made_high_risk(
    project: Project, tmp_path: Path
) -> None:
    """The issue's whole way over MCP: a FastMCP tool classified `high` in its contract table
    is confirmed by elicitation before it runs; declined, it does not run."""
    from test_serve_hostile import RawServer, tools_call
    from toolgen.cli import main as toolgen_main

    source = (
        FASTMCP_HEAD
        + '''
@mcp.tool
def drop_table(table: str) -> str:
    """Drop a table. Use it to remove a table and its rows.

    Args:
        table: The table.
    """
    import pathlib

    pathlib.Path("dropped").write_text(table)
    return table
'''
    )
    _project(project, source, '[tool.toolgen.contract.drop_table]\nrisk = "high"\n')
    assert toolgen_main(["build", "--config", str(project.root / "pyproject.toml"), "-q"]) == 0
    with (tmp_path / "err.log").open("w") as log:
        server = RawServer(project.root / "pyproject.toml", log, "--store", "memory://")
        try:
            server.initialize({"elicitation": {}})
            for number, action in ((1, "decline"), (2, "accept")):
                server.send(tools_call(number, "drop_table", {"table": f"t{number}"}))
                asked = server.receive()
                assert asked["method"] == "elicitation/create", asked
                assert asked["params"]["message"].startswith("Run drop_table (high risk)?")
                assert not (project.root / "dropped").exists()  # asked before it ran
                content = {"confirm": True} if action == "accept" else None
                reply = {"action": action, **({"content": content} if content else {})}
                server.send(json.dumps({"jsonrpc": "2.0", "id": asked["id"], "result": reply}))
                answer = server.receive()
                assert answer["id"] == number
                structured = answer["result"]["structuredContent"]
                if action == "decline":
                    assert structured["error"]["code"] == "REQUIRES_HUMAN_APPROVAL"
                else:
                    assert structured == {"result": "t2"}
            assert (project.root / "dropped").read_text() == "t2"
            assert server.close() == []
        finally:
            server.stop()


#: Each framework preset's tool with a value of the framework's own layer, `@tool` stacked on
#: it (risk and category), and what the framework's layer says in the descriptor.
PRESET_TOOLS = {
    "fastmcp": (
        "from fastmcp import FastMCP\nfrom toolgen import tool as contract\n"
        "mcp = FastMCP('x')\n\n\n"
        '@mcp.tool(annotations={"idempotentHint": True})',
        ("idempotency.idempotent", True),
    ),
    "mcp": (
        "from mcp.server.fastmcp import FastMCP\nfrom mcp.types import ToolAnnotations\n"
        "from toolgen import tool as contract\nmcp = FastMCP('x')\n\n\n"
        "@mcp.tool(annotations=ToolAnnotations(idempotentHint=True))",
        ("idempotency.idempotent", True),
    ),
    "openai-agents": (
        "from agents import function_tool\nfrom toolgen import tool as contract\n\n\n"
        "@function_tool(needs_approval=True)",
        ("confirmation", True),
    ),
    "pydantic-ai": (
        "from pydantic_ai import Agent\nfrom toolgen import tool as contract\n"
        "agent = Agent('test')\n\n\n"
        "@agent.tool_plain(requires_approval=True)",
        ("confirmation", True),
    ),
    "langchain": (
        "from langchain_core.tools import tool\nfrom toolgen import tool as contract\n\n\n@tool",
        None,  # LangChain's `@tool` states no contract value
    ),
}


@pytest.mark.parametrize("preset", sorted(PRESET_TOOLS))
def test_each_preset_takes_the_three_layers_highest_first(
    project: Project, run, preset: str
) -> None:  # type: ignore[no-untyped-def]
    head, framework = PRESET_TOOLS[preset]
    source = head + (
        '\n@contract(risk="medium", category="orders", audit_event="order.archived")\n'
        "def archive_order(order_id: str) -> str:\n"
        '    """Archive an order. Use it once an order is closed.\n\n'
        '    Args:\n        order_id: The order.\n    """\n'
        "    return order_id\n"
    )
    config = '[tool.toolgen.contract.archive_order]\nrisk = "high"\ncategory = "archive"\n'
    _project(project, source, config, markers=f'["{preset}"]')
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    tool = project.descriptor("archive_order")
    assert (tool["risk"], tool["category"], tool["audit_event"]) == (
        "high",
        "archive",
        "order.archived",
    )
    expected = {"risk": "contract", "category": "contract", "audit_event": "decorator"}
    if framework is not None:
        key, value = framework
        expected[key] = "framework"
        stated = tool["idempotency"][key.split(".")[1]] if "." in key else tool[key]
        assert stated is value
    assert tool["origins"] == expected
