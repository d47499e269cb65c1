"""`toolgen init`: a [tool.toolgen] table appended (never rewritten) and an example tool that
builds cleanly at conformance level 3; it never overwrites a file and is idempotent."""

from __future__ import annotations

import json
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from toolgen.init import EXAMPLE_FILE, EXAMPLE_HANDLER, config_table

EXAMPLE = "tools/example_tool.py"


def files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith(".")
    }


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "app"
    path.mkdir()
    return path


def test_fresh_folder_init_then_build_and_check_pass(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert "created pyproject.toml with a [tool.toolgen] table" in result.out
    assert f"wrote {EXAMPLE}, an example tool (greet_user)" in result.out
    assert (folder / "pyproject.toml").read_text() == config_table("tools")
    assert (folder / EXAMPLE).read_text() == EXAMPLE_HANDLER

    build = run("build", cwd=folder)
    assert build.code == 0, build.out
    # compiles cleanly: the summary line and not a single diagnostic
    assert build.out.splitlines() == [
        "toolgen: 1 tool; 9 files written, 0 removed, 0 unchanged in generated"
    ]
    descriptor = json.loads((folder / "generated/descriptors/greet_user.json").read_text())
    assert descriptor["conformance_level"] == 3
    assert descriptor["errors"] and len(descriptor["examples"]) == 2
    check = run("check", cwd=folder)
    assert check.code == 0, check.out


def test_the_example_reaches_level_3_when_the_project_requires_it(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    run("init", cwd=folder)
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("min_level = 1", "min_level = 3"))
    build = run("build", "--format", "json", cwd=folder)
    assert build.code == 0
    assert build.json()["diagnostics"] == []


def test_existing_pyproject_is_kept_byte_for_byte_and_the_table_appended(
    folder: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # no newline at the end, a comment, odd spacing and another tool's table: all kept
    old = b'[project]\nname = "demo"   # the name\nversion = "1.0"\n\n[tool.ruff]\nline-length = 99'
    (folder / "pyproject.toml").write_bytes(old)
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert "added to pyproject.toml a [tool.toolgen] table" in result.out
    new = (folder / "pyproject.toml").read_bytes()
    assert new.startswith(old)
    assert new[len(old) :] == b"\n\n" + config_table("tools").encode()
    data = tomllib.loads(new.decode())
    assert data["project"] == {"name": "demo", "version": "1.0"}
    assert data["tool"]["ruff"] == {"line-length": 99}
    assert data["tool"]["toolgen"]["sources"] == ["tools"]
    assert run("build", cwd=folder).code == 0


def test_crlf_pyproject_gets_crlf_lines(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    old = b'[project]\r\nname = "demo"\r\n'
    (folder / "pyproject.toml").write_bytes(old)
    assert run("init", cwd=folder).code == 0
    new = (folder / "pyproject.toml").read_bytes()
    assert new == old + b"\r\n" + config_table("tools", "\r\n").encode()
    assert b"\n" not in new.replace(b"\r\n", b"")


def test_existing_table_changes_nothing(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    (folder / "pyproject.toml").write_text('[tool.toolgen]\nsources = ["handlers"]\n')
    before = files(folder)
    result = run("init", cwd=folder)
    assert result.code == 0
    assert result.out == (
        "toolgen: pyproject.toml already has a [tool.toolgen] table; nothing changed\n"
    )
    assert files(folder) == before  # no example either: the project is set up already


def test_a_sub_table_alone_counts_as_configured(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    (folder / "pyproject.toml").write_text('[tool.toolgen.rules]\nTG904 = "off"\n')
    before = files(folder)
    assert "nothing changed" in run("init", cwd=folder).out
    assert files(folder) == before


def test_existing_example_file_is_never_overwritten(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    mine = folder / EXAMPLE
    mine.parent.mkdir()
    mine.write_text("# my own file\n")
    result = run("init", cwd=folder)
    assert result.code == 0
    assert f"toolgen: {EXAMPLE} exists; left as it is" in result.out
    assert mine.read_text() == "# my own file\n"
    assert "[tool.toolgen]" in (folder / "pyproject.toml").read_text()


def test_init_twice_is_idempotent(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    (folder / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    assert run("init", cwd=folder).code == 0
    after_first = files(folder)
    second = run("init", cwd=folder)
    assert second.code == 0
    assert "nothing changed" in second.out
    assert files(folder) == after_first


def test_src_layout_puts_the_example_in_a_tools_subpackage(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    (folder / "pyproject.toml").write_text('[project]\nname = "My-App"\n')
    for package in ("my_app", "other"):
        (folder / "src" / package).mkdir(parents=True)
        (folder / "src" / package / "__init__.py").write_text("")
    result = run("init", cwd=folder)
    assert result.code == 0
    assert 'sources = ["src/my_app/tools"]' in result.out
    assert (folder / "src/my_app/tools/__init__.py").is_file()
    assert (folder / "src/my_app/tools/example_tool.py").read_text() == EXAMPLE_HANDLER
    assert run("build", cwd=folder).code == 0
    descriptor = json.loads((folder / "generated/descriptors/greet_user.json").read_text())
    assert descriptor["source"]["module"] == "my_app.tools.example_tool"


def test_path_and_sources_options(tmp_path: Path, folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    result = run("init", "--path", "app", "--sources", "lib/handlers", cwd=tmp_path)
    assert result.code == 0, result.out
    assert "toolgen: created app/pyproject.toml" in result.out
    assert "wrote app/lib/handlers/example_tool.py" in result.out
    assert not (folder / "lib/handlers/__init__.py").exists()  # lib is not a package
    config = tomllib.loads((folder / "pyproject.toml").read_text())
    assert config["tool"]["toolgen"]["sources"] == ["lib/handlers"]
    assert run("build", cwd=folder).code == 0


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ("--path", "missing"), "TG006 [error] missing is not a folder"),
        ("file", ("--path", "app/afile"), "TG006 [error] app/afile is not a folder"),
        (b"[project\nname = 1\n", ("--path", "app"), "app/pyproject.toml:1:9: TG006 [error] "),
        (b"tool = {ruff = {}}\n", ("--path", "app"), "cannot append a [tool.toolgen] table"),
        (b"\xff\xfe", ("--path", "app"), "TG006 [error] cannot read app/pyproject.toml"),
        (None, ("--path", "app", "--sources", "../elsewhere"), "is outside the project app"),
        ("file", ("--path", "app", "--sources", "afile"), "--sources afile is not a folder"),
    ],
)
def test_unusable_input_is_a_diagnostic_and_changes_nothing(
    tmp_path: Path,
    folder: Path,
    run,  # type: ignore[no-untyped-def]
    setup: bytes | str | None,
    args: tuple[str, ...],
    message: str,
) -> None:
    if setup == "file":
        (folder / "afile").write_text("x")
    elif isinstance(setup, bytes):
        (folder / "pyproject.toml").write_bytes(setup)
    before = files(tmp_path)
    result = run("init", *args, cwd=tmp_path)
    assert result.code == 2
    assert message in result.out
    assert result.out.rstrip().endswith("nothing was changed")
    assert "Traceback" not in result.out + result.err
    assert files(tmp_path) == before


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        # a file on the way: found before anything is written (it was a NotADirectoryError
        # traceback after pyproject.toml had already been appended to)
        ("README.md/tools", "--sources README.md/tools: README.md is not a folder"),
        ("README.md/a/b", "--sources README.md/a/b: README.md is not a folder"),
        ("", "--sources is empty; name the folder for the example tool"),  # not `tools`
        (" ", "--sources is empty"),
        ("box", "box/example_tool.py is not a file"),
    ],
)
def test_sources_that_cannot_hold_the_example_change_nothing(
    folder: Path,
    run,  # type: ignore[no-untyped-def]
    sources: str,
    message: str,
) -> None:
    (folder / "pyproject.toml").write_text('[project]\nname = "i2"\n')
    (folder / "README.md").write_text("hi\n")
    (folder / "box" / "example_tool.py").mkdir(parents=True)
    before = files(folder)
    result = run("init", "--sources", sources, cwd=folder)
    assert result.code == 2, result.out
    assert f"TG006 [error] {message}" in result.out
    assert result.out.rstrip().endswith("nothing was changed")
    assert "Traceback" not in result.out + result.err
    assert files(folder) == before
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "box", "pyproject.toml"]


def test_a_file_where_the_default_folder_goes_is_a_diagnostic(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    (folder / "tools").write_text("not a folder\n")
    result = run("init", cwd=folder)
    assert result.code == 2
    assert "TG006 [error] the sources folder tools is not a folder; nothing was changed" in (
        result.out
    )
    assert not (folder / "pyproject.toml").exists()


def test_a_folder_that_fails_after_planning_leaves_pyproject_as_it_was(folder: Path) -> None:
    """What `plan_init` checked can change before `apply_init` writes: the failure is TG006,
    and pyproject.toml (written last) is untouched."""
    from toolgen.diagnostics import UserError
    from toolgen.init import apply_init, plan_init

    old = b'[project]\nname = "demo"\n'
    (folder / "pyproject.toml").write_bytes(old)
    plan = plan_init(Path(), "lib/tools", cwd=folder)
    (folder / "lib").write_text("a file now\n")
    with pytest.raises(UserError) as caught:
        apply_init(plan, cwd=folder)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "TG006"
    assert diagnostic.message == ("cannot write lib/tools: Not a directory; nothing was changed")
    assert (folder / "pyproject.toml").read_bytes() == old


class FullDisk:
    """`open` for toolgen.init whose appends write part of their bytes, then fail."""

    def __init__(self) -> None:
        self.real = open

    def __call__(self, path: Path, mode: str = "r", **kwargs: object) -> object:
        handle = self.real(path, mode, **kwargs)  # type: ignore[call-overload]
        if mode != "ab":
            return handle

        def write(data: bytes) -> int:
            handle.raw.write(data[:10])  # straight to the file, as a partial write would
            raise OSError(28, "No space left on device")

        handle.write = write
        return handle


@pytest.mark.parametrize("existing", [b'[project]\nname = "demo"\n', None])
def test_a_failing_append_says_what_was_written_and_keeps_pyproject(
    folder: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
    existing: bytes | None,
) -> None:
    import toolgen.init

    if existing is not None:
        (folder / "pyproject.toml").write_bytes(existing)
    monkeypatch.setattr(toolgen.init, "open", FullDisk(), raising=False)
    result = run("init", cwd=folder)
    assert result.code == 2
    verb, state = (
        ("append a [tool.toolgen] table to", "changed") if existing else ("create", "created")
    )
    assert result.out == (
        f"TG006 [error] cannot {verb} pyproject.toml: No space left on device; "
        f"created tools/, wrote {EXAMPLE}, but pyproject.toml was not {state}; "
        "fix the problem, then run `toolgen init` again\n"
    )
    assert "Traceback" not in result.err
    if existing is None:
        assert not (folder / "pyproject.toml").exists()
    else:
        assert (folder / "pyproject.toml").read_bytes() == existing  # the part written undone
    assert (folder / EXAMPLE).read_text() == EXAMPLE_HANDLER

    monkeypatch.delattr(toolgen.init, "open")  # room again: running init again finishes
    again = run("init", cwd=folder)
    assert again.code == 0, again.out
    assert f"toolgen: {EXAMPLE} exists; left as it is" in again.out
    assert tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["toolgen"]
    assert run("build", cwd=folder).code == 0


# -- projects that have tools: init reads them (never imports them) -------------------------

CONTRACT = (
    "toolgen: wrote toolgen.contract.toml: a risk to review for each of {count} "
    "(the build warns until each is set)"
)
NEXT = (
    "next: `toolgen build` writes generated/; commit it, and run `toolgen check` in CI "
    "(or the toolgen-check pre-commit hook)"
)


def write(folder: Path, sources: dict[str, str]) -> None:
    for relpath, text in sources.items():
        path = folder / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def built(folder: Path, run) -> list[str]:  # type: ignore[no-untyped-def]
    """The names of every tool `toolgen build` found: written, or left out for errors."""
    result = run("build", "--format", "json", cwd=folder)
    assert result.code in (0, 1), result.out
    report = result.json()
    names = [p.stem for p in (folder / "generated" / "descriptors").glob("*.json")]
    assert report["tools"] == len(names)
    return sorted(names + [t["name"] for t in report["left_out"]])


FASTMCP_APP = {
    "pyproject.toml": '[project]\nname = "app"\n',
    "src/app/__init__.py": "",
    "src/app/helpers.py": '''
        def shout(text: str) -> str:
            """Upper-case a text."""
            return text.upper()
        ''',
    "src/app/server.py": '''
        from fastmcp import FastMCP

        from app.helpers import shout

        mcp = FastMCP("demo")


        @mcp.tool
        def add(a: int, b: int) -> int:
            """Add two numbers."""
            return a + b


        @mcp.tool(name="subtract")
        async def minus(a: int, b: int) -> int:
            """Subtract b from a."""
            return a - b


        mcp.tool(name="yell")(shout)  # a function of another module, registered by call
        ''',
    # a test's server is not the project's: neither counted nor in `sources`
    "tests/test_server.py": '''
        from fastmcp import FastMCP

        mcp = FastMCP("test")


        @mcp.tool
        def probe() -> str:
            """A test tool."""
            return "ok"
        ''',
}


def test_a_fastmcp_app_gets_markers_and_sources_and_no_example(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    write(folder, FASTMCP_APP)
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.splitlines() == [
        "toolgen: found 3 FastMCP tools in src/app/server.py",
        "toolgen: added to pyproject.toml a [tool.toolgen] table "
        '(sources = ["src/app/server.py"], markers = ["fastmcp"])',
        CONTRACT.format(count="3 tools"),
        NEXT,
    ]
    pinned = {"fastmcp": _installed("fastmcp")}
    table = config_table(
        ["src/app/server.py"], markers=["fastmcp"], example=False, versions=pinned, contract=True
    )
    assert (folder / "pyproject.toml").read_text() == '[project]\nname = "app"\n\n' + table
    config = tomllib.loads(table)["tool"]["toolgen"]
    assert (config["markers"], config["min_level"], config["out"]) == (["fastmcp"], 0, "generated")
    # the MCP entries follow the installed FastMCP's rules: pinned, so CI makes the same
    assert config["framework_versions"] == pinned
    assert not list(folder.rglob(EXAMPLE_FILE))
    assert built(folder, run) == ["add", "subtract", "yell"]


def test_an_mcp_sdk_app_in_a_flat_layout_without_pyproject(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    write(
        folder,
        {
            "weather/__init__.py": "",
            "weather/server.py": """
                from mcp.server.fastmcp import FastMCP

                mcp = FastMCP("weather")
                """,
            "weather/tools/__init__.py": "",
            "weather/tools/forecast.py": '''
                from weather.server import mcp


                @mcp.tool()
                def forecast(city: str, days: int = 3) -> list[str]:
                    """Forecast the weather of a city."""
                    return []


                @mcp.tool(title="Alerts")
                def alerts(city: str) -> list[str]:
                    """Weather alerts of a city."""
                    return []
                ''',
            "weather/tools/now.py": '''
                from weather.server import mcp


                @mcp.tool()
                def current(city: str) -> str:
                    """The weather of a city now."""
                    return ""
                ''',
        },
    )
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.splitlines() == [
        "toolgen: found 3 MCP SDK tools in weather/tools",  # the folder that holds them
        "toolgen: created pyproject.toml with a [tool.toolgen] table "
        '(sources = ["weather/tools"], markers = ["mcp"])',
        CONTRACT.format(count="3 tools"),
        NEXT,
    ]
    assert (folder / "pyproject.toml").read_text() == config_table(
        ["weather/tools"],
        markers=["mcp"],
        example=False,
        versions={"mcp": _installed("mcp")},
        contract=True,
    )
    assert built(folder, run) == ["alerts", "current", "forecast"]


AGENT = '''
    from agents import Agent, function_tool


    @function_tool
    def lookup_order(order_id: str) -> dict[str, str]:
        """Look up an order by its id."""
        return {}


    @function_tool(name_override="refund")
    def refund_order(order_id: str, amount: float) -> str:
        """Refund an order."""
        return "ok"


    agent = Agent(name="support", tools=[lookup_order, refund_order])
    '''


def test_an_openai_agents_app(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    write(folder, {"pyproject.toml": '[project]\nname = "support"\n', "agent.py": AGENT})
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.splitlines() == [
        "toolgen: found 2 OpenAI Agents tools in agent.py",
        "toolgen: added to pyproject.toml a [tool.toolgen] table "
        '(sources = ["agent.py"], markers = ["openai-agents"])',
        CONTRACT.format(count="2 tools"),
        NEXT,
    ]
    config = tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["toolgen"]
    assert (config["sources"], config["markers"]) == (["agent.py"], ["openai-agents"])
    assert built(folder, run) == ["lookup_order", "refund"]


LANGCHAIN_CLASSES = """
from langchain_core.tools import BaseTool


class SearchTool(BaseTool):
    name: str = "search"
    description: str = "Search the web."

    def _run(self, query: str) -> str:
        return query


class CalendarTool(BaseTool):
    name: str = "calendar"
    description: str = "Read the calendar."

    def _run(self, day: str) -> str:
        return day
"""


def test_a_langchain_package_of_tool_classes(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    """Tools written only as `BaseTool` subclasses are found: no example is written."""
    write(
        folder,
        {
            "pyproject.toml": '[project]\nname = "kit"\n',
            "kit/__init__.py": "",
            "kit/tools.py": LANGCHAIN_CLASSES,
        },
    )
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.splitlines()[0] == "toolgen: found 2 LangChain tools in kit/tools.py"
    config = tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["toolgen"]
    assert config["markers"] == ["langchain"]
    assert not any(folder.rglob("example_tool.py"))
    assert built(folder, run) == ["calendar", "search"]


def test_fastmcp_and_openai_agents_in_one_project(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    """Two frameworks: both markers, each file a source of its own (they share only the
    project folder, where `out` goes), and what each framework registers."""
    write(
        folder,
        {
            "agent.py": AGENT,
            "server.py": '''
                from fastmcp import FastMCP

                mcp = FastMCP("demo")


                @mcp.tool
                def ping() -> str:
                    """Answer pong."""
                    return "pong"
                ''',
        },
    )
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.splitlines() == [
        "toolgen: found 1 FastMCP tool in server.py",
        "toolgen: found 2 OpenAI Agents tools in agent.py",
        "toolgen: created pyproject.toml with a [tool.toolgen] table "
        '(sources = ["agent.py", "server.py"], markers = ["fastmcp", "openai-agents"])',
        CONTRACT.format(count="3 tools"),
        NEXT,
    ]
    assert built(folder, run) == ["lookup_order", "ping", "refund"]


def test_an_empty_project_gets_the_example_and_build_finds_it_alone(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    (folder / "README.md").write_text("# nothing here yet\n")
    (folder / "script.py").write_text("print('hello')\n")
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.splitlines() == [
        "toolgen: found no tools in the project",
        "toolgen: created pyproject.toml with a [tool.toolgen] table "
        '(sources = ["tools"], markers = ["toolgen"])',
        f"toolgen: wrote {EXAMPLE}, an example tool (greet_user)",
        NEXT,
    ]
    assert (folder / "pyproject.toml").read_text() == config_table("tools")
    assert built(folder, run) == ["greet_user"]


def test_a_framework_app_with_no_tools_yet_gets_the_example_and_both_markers(
    folder: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    write(folder, {"server.py": 'from fastmcp import FastMCP\n\nmcp = FastMCP("new")\n'})
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.splitlines()[:2] == [
        "toolgen: found no tools in the project",
        "toolgen: the project imports FastMCP, but no FastMCP tool registered in a way "
        "toolgen can read",
    ]
    config = tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["toolgen"]
    assert (config["sources"], config["markers"]) == (["tools"], ["toolgen", "fastmcp"])
    assert built(folder, run) == ["greet_user"]


def test_a_src_layout_example_says_it_makes_a_subpackage(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    write(folder, {"pyproject.toml": '[project]\nname = "shop"\n', "src/shop/__init__.py": ""})
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert (
        "toolgen: wrote src/shop/tools/__init__.py: `tools` is a new subpackage of your "
        "package `shop`"
    ) in result.out.splitlines()


def test_tools_a_project_decorator_collects_are_found_by_init(
    folder: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """A decorator of the project's own that collects functions into a list, which the server
    registers in a loop: init follows it as Python runs it (the list is filled when the
    server imports the tools), configures the server's file, and the build finds the tool
    with nothing declared."""
    write(
        folder,
        {
            "pyproject.toml": '[project]\nname = "app"\n',
            "app/__init__.py": "",
            "app/registry.py": """
                TOOLS = []


                def collect(fn):
                    TOOLS.append(fn)
                    return fn
                """,
            "app/tools.py": '''
                from app.registry import collect


                @collect
                def ping() -> str:
                    """Answer pong."""
                    return "pong"
                ''',
            "app/server.py": """
                from fastmcp import FastMCP

                from app import tools  # noqa: F401  (fills the registry)
                from app.registry import TOOLS

                mcp = FastMCP("app")
                for fn in TOOLS:
                    mcp.tool()(fn)
                """,
        },
    )
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.splitlines()[0] == "toolgen: found 1 FastMCP tool in app/server.py"
    assert "TG106" not in result.out
    assert not list(folder.rglob(EXAMPLE_FILE))
    config = tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["toolgen"]
    assert (config["sources"], config["markers"]) == (["app/server.py"], ["fastmcp"])
    assert built(folder, run) == ["ping"]


def test_a_project_package_named_like_a_framework_is_not_the_framework(
    folder: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    write(
        folder,
        {
            "agents/__init__.py": "def function_tool(fn):\n    return fn\n",
            "main.py": '''
                from agents import function_tool


                @function_tool
                def helper() -> str:
                    """Not an OpenAI Agents tool: `agents` is this project's own package."""
                    return ""
                ''',
        },
    )
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.startswith("toolgen: found no tools in the project\n")
    assert "OpenAI Agents" not in result.out
    config = tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["toolgen"]
    assert config["markers"] == ["toolgen"]


def test_sources_given_that_hold_tools_are_the_sources(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    write(folder, FASTMCP_APP)
    result = run("init", "--sources", "src/app", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.splitlines()[0] == "toolgen: found 3 FastMCP tools in src/app"
    config = tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["toolgen"]
    assert config["sources"] == ["src/app"]
    assert not list(folder.rglob(EXAMPLE_FILE))
    assert built(folder, run) == ["add", "subtract", "yell"]


def test_sources_given_without_tools_get_the_example_and_say_where_the_tools_are(
    folder: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    write(folder, FASTMCP_APP)
    result = run("init", "--sources", "lib/tools", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.splitlines()[:3] == [
        "toolgen: found no tools in lib/tools",
        "toolgen: the project registers tools outside --sources, in src/app/server.py",
        "toolgen: added to pyproject.toml a [tool.toolgen] table "
        '(sources = ["lib/tools"], markers = ["toolgen", "fastmcp"])',
    ]
    assert (folder / "lib/tools" / EXAMPLE_FILE).read_text() == EXAMPLE_HANDLER
    assert built(folder, run) == ["greet_user"]


def test_out_moves_aside_when_generated_is_taken(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    write(folder, FASTMCP_APP)
    (folder / "generated").write_text("a file of the project's\n")
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert "next: `toolgen build` writes toolgen_generated/;" in result.out
    config = tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["toolgen"]
    assert config["out"] == "toolgen_generated"
    assert run("build", cwd=folder).code == 0
    assert (folder / "toolgen_generated" / "descriptors" / "yell.json").is_file()


def test_init_reads_the_project_without_importing_it(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    hostile = (
        "import pathlib\n"
        'pathlib.Path(__file__).with_name("IMPORTED").write_text("ran at import")\n'
        'if __name__ != "__never__":  # any import raises (toolgen cannot know __name__)\n'
        '    raise RuntimeError("this module must never be imported")\n'
    )
    write(folder, FASTMCP_APP)
    for relpath in ("src/app/__init__.py", "src/app/helpers.py"):
        path = folder / relpath
        path.write_text(hostile + path.read_text())
    before = set(sys.modules)
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert "found 3 FastMCP tools" in result.out
    assert not (folder / "src" / "app" / "IMPORTED").exists()
    assert not {m for m in set(sys.modules) - before if m == "app" or m.startswith("app.")}


def test_a_folder_that_cannot_be_listed_is_a_diagnostic_and_changes_nothing(
    folder: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os as real_os

    import toolgen.read.discover

    write(folder, FASTMCP_APP)
    locked = folder / "src" / "app"
    real_scandir = real_os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]
        # what a folder without read permission answers (the tests may run as root)
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(toolgen.read.discover.os, "scandir", scandir)
    before = files(folder)
    result = run("init", cwd=folder)
    assert result.code == 2
    assert result.out == (
        "TG006 [error] cannot read src/app: Permission denied; nothing was changed\n"
    )
    assert files(folder) == before


def _installed(name: str) -> str:
    """The major.minor of the framework installed here (the suite installs both)."""
    from toolgen.frameworks import framework

    found = framework(name, {})
    assert found.installed, name
    return ".".join(found.version.split(".")[:2])


def test_the_file_that_mounts_servers_is_in_the_sources(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    """Tools on servers of their own, mounted into the main one in another file: init puts
    that file in `sources` too, so the build lists them all in one catalog (the main
    server's), not one catalog per small server."""
    write(
        folder,
        {
            "pyproject.toml": '[project]\nname = "app"\n',
            "app/__init__.py": "",
            "app/tools/__init__.py": "",
            "app/tools/weather.py": """
                from fastmcp import FastMCP

                weather = FastMCP("weather")


                @weather.tool
                def forecast(city: str) -> str:
                    \"\"\"Forecast the weather.\"\"\"
                    return city
                """,
            "app/tools/files.py": """
                from fastmcp import FastMCP

                files = FastMCP("files")


                @files.tool
                def read(path: str) -> str:
                    \"\"\"Read a file.\"\"\"
                    return path
                """,
            "app/server.py": """
                from fastmcp import FastMCP

                from app.tools.files import files
                from app.tools.weather import weather

                mcp = FastMCP("main")
                mcp.mount(weather)
                mcp.mount(files, namespace="fs")
                """,
        },
    )
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert result.out.splitlines()[0] == "toolgen: found 2 FastMCP tools in app"
    assert built(folder, run) == ["forecast", "fs_read"]
    assert not (folder / "generated" / "weather").exists()  # one catalog


LISTED_SERVERS = {
    "openapi": (
        "FastMCP",
        """
        from fastmcp import FastMCP

        SPEC = {
            "openapi": "3.0.3",
            "info": {"title": "t", "version": "1"},
            "paths": {
                "/items": {"get": {"operationId": "list_items", "responses": {"200": {}}}},
                "/items/{id}": {
                    "get": {
                        "operationId": "get_item",
                        "parameters": [
                            {"name": "id", "in": "path", "required": True, "schema": {}}
                        ],
                        "responses": {"200": {}},
                    }
                },
            },
        }
        mcp = FastMCP.from_openapi(SPEC, name="shop")
        """,
    ),
    "low-level": (
        "MCP SDK",
        """
        from mcp.server import Server
        from mcp.types import Tool

        server = Server("shop")


        @server.list_tools()
        async def tools() -> list[Tool]:
            schema = {"type": "object", "properties": {"id": {"type": "string"}}}
            return [
                Tool(name="list_items", description="List.", inputSchema=schema),
                Tool(name="get_item", description="Get one.", inputSchema=schema),
            ]
        """,
    ),
}


@pytest.mark.parametrize("kind", sorted(LISTED_SERVERS))
def test_init_finds_the_tools_a_server_lists(folder: Path, run, kind: str) -> None:  # type: ignore[no-untyped-def]
    """A server whose tools come from an OpenAPI document, or from a low-level server's
    `tools/list` handler: `init` finds them, as `build` does, and writes no example."""
    label, source = LISTED_SERVERS[kind]
    (folder / "server.py").write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert f"found 2 {label} tools in server.py" in result.out
    assert not (folder / EXAMPLE).exists()
    build = run("build", cwd=folder)
    assert build.code == 0, build.out
    listed = json.loads((folder / "generated/mcp/tools.json").read_text())["tools"]
    assert sorted(t["name"] for t in listed) == ["get_item", "list_items"]
