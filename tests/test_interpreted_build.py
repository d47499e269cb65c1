"""The registration interpreter inside `toolgen build`: each source file is a unit (what its
top level causes, then its functions nothing there reaches), units found twice are one tool,
a unit taken from the cache finds what a fresh one would, and `[tool.toolgen] env` is the
process environment the server is read with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conftest import CONFIG, Project, Run

Runner = Callable[..., Run]

pytest.importorskip("fastmcp")

SERVER = """
from fastmcp import FastMCP
from app.tools import register

mcp = FastMCP("demo")
register(mcp)
"""

EXTRA = '''
def register(mcp):
    @mcp.tool
    def ping(host: str) -> str:
        """Ping a host."""
        return host
'''


def _names(project: Project) -> list[str]:
    tools: list[dict[str, Any]] = project.generated("mcp/tools.json")["tools"]
    return sorted(t["name"] for t in tools)


def _project(project: Project, server: str = SERVER, extra: str = EXTRA) -> None:
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/app/__init__.py", "")
    project.write("src/app/main.py", server)
    project.write("src/app/tools.py", extra)


def test_a_registration_function_called_from_another_file_is_one_tool(
    project: Project, run: Runner
) -> None:
    """main.py's unit registers `ping` on `mcp`; tools.py's runs `register` with an unknown
    server: the same handler, published once (no TG102)."""
    _project(project)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "TG102" not in result.out
    assert _names(project) == ["ping"]


def test_a_cached_unit_finds_what_a_fresh_one_would(project: Project, run: Runner) -> None:
    """tools.py's unit does not depend on main.py having been evaluated: after main.py
    stops calling `register` (tools.py unchanged, its unit from the cache), `ping` is still
    a tool, and it comes back to its server when the call does."""
    _project(project)
    assert run("build", cwd=project.root).code == 0
    project.write("src/app/main.py", 'from fastmcp import FastMCP\n\nmcp = FastMCP("demo")\n')
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["ping"]
    project.write("src/app/main.py", SERVER)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["ping"]
    assert run("check", cwd=project.root).code == 0


def test_an_edit_of_an_imported_module_reaches_the_unit_that_imports_it(
    project: Project, run: Runner
) -> None:
    """main.py's unit registers through tools.py's `register`, which tools.py's module
    state holds: a new tool there is found whichever unit is taken from the cache."""
    _project(project)
    assert run("build", cwd=project.root).code == 0
    more = (
        EXTRA
        + '''
    @mcp.tool
    def echo(text: str) -> str:
        """Echo text."""
        return text
'''
    )
    project.write("src/app/tools.py", more)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["echo", "ping"]


READ_ONLY = '''
import os

from fastmcp import FastMCP

mcp = FastMCP("demo")


@mcp.tool
def show(key: str) -> str:
    """Show a value."""
    return key


if not os.getenv("READ_ONLY"):

    @mcp.tool
    def put(key: str, value: str) -> None:
        """Store a value."""
'''


def test_the_environment_is_absent_unless_configured(project: Project, run: Runner) -> None:
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/main.py", READ_ONLY)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["put", "show"]
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\nenv = {READ_ONLY = "1"}\n')
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["show"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ("env = {READ_ONLY = 1}", "READ_ONLY: the value must be a string, not int"),
        ('env = "READ_ONLY=1"', 'must be a table of NAME = "value"'),
    ],
)
def test_a_bad_env_entry_is_a_located_error(
    project: Project, run: Runner, env: str, message: str
) -> None:
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n' + env + "\n")
    project.write("src/main.py", READ_ONLY)
    result = run("build", cwd=project.root)
    assert result.code == 2, result.out
    assert "TG002" in result.out and message in result.out, result.out


def test_a_unit_depends_on_the_modules_its_imports_evaluated(project: Project, run: Runner) -> None:
    """main.py reaches tools.py's `register` through a_wiring.py, evaluated (by its own unit)
    before main.py's: main.py's unit still depends on tools.py, so a new docstring there is
    published, not the one main.py's cached unit compiled."""
    _project(
        project,
        server=SERVER.replace("app.tools import register", "app.a_wiring import setup").replace(
            "register(mcp)", "setup(mcp)"
        ),
    )
    project.write(
        "src/app/a_wiring.py",
        "from app.tools import register\n\n\ndef setup(mcp):\n    register(mcp)\n",
    )
    assert run("build", cwd=project.root).code == 0
    project.write("src/app/tools.py", EXTRA.replace("Ping a host.", "Ping a host, once."))
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    (tool,) = project.generated("mcp/tools.json")["tools"]
    assert tool["description"] == "Ping a host, once."


ADMIN = '''
def register_admin(mcp):
    @mcp.tool
    def wipe(table: str) -> None:
        """Wipe a table."""
'''


def test_a_function_the_server_calls_only_in_a_branch_not_taken_registers_nothing(
    project: Project, run: Runner
) -> None:
    """admin.py's `register_admin` is called by main.py only when ADMIN is set: main.py's
    evaluation decides, and admin.py's unit does not run it with arguments unknown."""
    server = (
        "import os\nfrom fastmcp import FastMCP\nfrom app.admin import register_admin\n\n"
        'mcp = FastMCP("demo")\n\n\n@mcp.tool\ndef ping() -> str:\n    """Ping."""\n'
        '    return "pong"\n\n\nif os.getenv("ADMIN"):\n    register_admin(mcp)\n'
    )
    _project(project, server=server, extra="")
    project.write("src/app/admin.py", ADMIN)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["ping"]
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\nenv = {ADMIN = "1"}\n')
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["ping", "wipe"]


FACTORY = '''
from fastmcp import FastMCP


def create(profile: str = "all") -> FastMCP:
    mcp = FastMCP("demo")

    @mcp.tool
    def ping() -> str:
        """Ping."""
        return "pong"

    if profile == "all":

        @mcp.tool
        def wipe(table: str) -> None:
            """Wipe a table."""

    return mcp


def main() -> None:
    create("core").run()
'''


def test_a_console_script_calls_its_function_as_the_script_does(
    project: Project, run: Runner
) -> None:
    """Without `[project.scripts]`, `create` is run with its argument unknown: both tools.
    With the console script that calls `main()`, `create("core")` is what runs."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/app/__init__.py", "")
    project.write("src/app/cli.py", FACTORY)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["ping", "wipe"]
    scripts = '[project]\nname = "demo"\n\n[project.scripts]\ndemo = "app.cli:main"\n'
    project.write("pyproject.toml", scripts + CONFIG + 'markers = ["fastmcp"]\n')
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["ping"]


def test_project_scripts_are_read_as_pep_621_writes_them(project: Project) -> None:
    """`module:function` with extras, an object's method; what is no such reference (not
    toolgen's table to check) is passed over."""
    from toolgen.config import load_config

    project.write(
        "pyproject.toml",
        '[project]\nname = "demo"\n\n[project.scripts]\n'
        'a = "app.cli:main [extra]"\nb = "app.cli:App.run"\nc = "app.cli"\nd = 5\n'
        'e = "app-cli:main"\n' + CONFIG,
    )
    (project.root / "src").mkdir(exist_ok=True)
    config = load_config(None, cwd=project.root)
    assert config.scripts == (("app.cli", "App.run"), ("app.cli", "main"))


TIERS = """
import sys

from fastmcp import FastMCP

mcp = FastMCP("demo")


def register_all() -> None:
    from app import basic

    basic.register(mcp)
    if "--pro" in sys.argv:
        from app import pro

        pro.register(mcp)


def hosted() -> None:
    from app.extra_server import build

    build()


register_all()
if "--hosted" in sys.argv:
    hosted()
"""


def test_what_the_server_leaves_to_a_command_line_option_is_not_published(
    project: Project, run: Runner
) -> None:
    """The command line is empty (`sys.argv` is `[""]`): the `--pro` tools and the hosted
    server's are registered only in branches not taken, through functions imported where
    they are called, and those call others in turn; none of them is run with arguments
    unknown by its own file's unit either."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/app/__init__.py", "")
    project.write("src/app/main.py", TIERS)
    tool = 'def register(mcp):\n    @mcp.tool\n    def {0}() -> str:\n        """{0}."""\n'
    project.write("src/app/basic.py", tool.format("ping"))
    project.write("src/app/pro.py", tool.format("wipe"))
    project.write(
        "src/app/extra_server.py",
        "from fastmcp import FastMCP\nfrom app import pro\n\n\ndef build():\n"
        "    server = FastMCP('hosted')\n    pro.register(server)\n    return server\n",
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["ping"]


FLAGS = '''
import argparse

from fastmcp import FastMCP

parser = argparse.ArgumentParser()
parser.add_argument("--enable-write", nargs="?", const="true", default="false")
parser.add_argument("--read-only", action="store_true")
group = parser.add_mutually_exclusive_group()
group.add_argument("--admin", action="store_false", dest="no_admin")
ARGS, _ = parser.parse_known_args()
WRITE = ARGS.enable_write.lower() in ("true", "1")

mcp = FastMCP("demo")


@mcp.tool(enabled=WRITE)
def put(key: str) -> None:
    """Store a key."""


@mcp.tool
def get(key: str) -> str:
    """Read a key."""
    return key


if not ARGS.read_only and ARGS.no_admin:

    @mcp.tool
    def wipe() -> None:
        """Wipe everything."""
'''


def test_argparse_with_no_arguments_gives_its_defaults(project: Project, run: Runner) -> None:
    """A server started with no arguments: `--enable-write` is its default "false" (so `put`,
    registered with `enabled=False`, is not listed, as FastMCP lists it), `--read-only` is
    False, `no_admin` (store_false) True."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/server.py", FLAGS)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["get", "wipe"]


def test_a_server_given_first_to_a_registration_is_no_name(project: Project, run: Runner) -> None:
    """`gate.tool(mcp, required=...)(fn)`, a library's own registration (its owner unknown):
    the server passed first is no tool name, and the tool keeps its function's name."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write(
        "src/server.py",
        'from fastmcp import FastMCP\nfrom gatekit import gate\n\nmcp = FastMCP("x")\n\n\n'
        '@gate.tool(mcp, required="read")\ndef lookup(q: str) -> str:\n    """Look up."""\n'
        "    return q\n",
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "TG401" not in result.out
    assert _names(project) == ["lookup"]


SETTINGS = '''
import os
from pathlib import Path

from fastmcp import FastMCP

ENV_FILE = Path(".env")
SITE = Path("/etc/app/site.toml")
BUNDLED = Path(__file__).parent / "bundled.toml"


def settings(path=None):
    path = path or ENV_FILE
    if not path.exists():
        return {}
    return {"READ_ONLY": "0"}


READ_ONLY = os.environ.get("READ_ONLY", settings().get("READ_ONLY", "1")) == "1"
HOME_FLAG = (Path.home() / ".app" / "enabled").exists() or os.path.exists("~/.app/on")
mcp = FastMCP("x")


@mcp.tool
def show(key: str) -> str:
    """Show a value."""
    return key


if not READ_ONLY or HOME_FLAG:

    @mcp.tool
    def put(key: str) -> None:
        """Store a value."""


if SITE.exists():

    @mcp.tool
    def site(key: str) -> None:
        """What only some machines have."""


if BUNDLED.exists():

    @mcp.tool
    def bundled(key: str) -> None:
        """What the project ships."""
'''


def test_the_working_and_home_folders_are_empty(project: Project, run: Runner) -> None:
    """A server started on a fresh machine with nothing beside it: `.env` (relative),
    `~/...` and `/etc/...` do not exist, so the settings file gives nothing and READ_ONLY
    keeps its default; a file the project ships exists."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/server.py", SETTINGS)
    project.write("src/bundled.toml", "")
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["bundled", "show"]


def test_what_a_function_run_blind_cannot_follow_is_said_only_if_nothing_runs_it(
    project: Project, run: Runner
) -> None:
    """tools.py's `register` loops over what it is given: run with arguments unknown, it
    cannot name what it registers (a TG106). main.py runs it with a list: that is what
    happens, and the note is noise, so it is not told; without main.py's call it is."""
    _project(
        project,
        server=SERVER.replace("register(mcp)", "register(mcp, [ping])").replace(
            "from app.tools import register", "from app.tools import ping, register"
        ),
        extra='def ping() -> str:\n    """Ping."""\n    return "pong"\n\n\n'
        "def register(mcp, functions):\n    for fn in functions:\n        mcp.tool()(fn)\n",
    )
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["ping"]
    assert "TG106" not in result.out
    project.write("src/app/main.py", 'from fastmcp import FastMCP\n\nmcp = FastMCP("demo")\n')
    result = run("build", "--verbose", cwd=project.root)
    assert "src/app/tools.py:8:9: TG106 [info]" in result.out, result.out


NAMED_BY_DATA = """
import json
from pathlib import Path

from fastmcp import FastMCP

mcp = FastMCP("x")
try:
    with open("config.json") as f:  # relative: not there where the server starts
        CONFIG = json.load(f)
except FileNotFoundError:
    CONFIG = json.loads((Path(__file__).parent / "tools.json").read_text())


def make(name):
    def handler(key: str) -> str:
        return key

    mcp.tool(name=name, description=f"The {name} tool.")(handler)


for name in CONFIG["tools"]:
    make(name)
"""


def test_a_data_file_the_server_reads_is_a_dependency_of_its_unit(
    project: Project, run: Runner
) -> None:
    """Opening a file that is not there raises, so the `except` runs; the tools the project's
    own data file names are published, and editing that file (nothing else) is seen by the
    next build, though the unit is cached."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/server.py", NAMED_BY_DATA)
    project.write("src/tools.json", '{"tools": ["alpha", "beta"]}')
    first = run("build", cwd=project.root)
    assert first.code == 0, first.out
    assert _names(project) == ["alpha", "beta"]
    project.write("src/tools.json", '{"tools": ["gamma"]}')
    second = run("build", cwd=project.root)
    assert second.code == 0, second.out
    assert _names(project) == ["gamma"]
    project.write("src/config.json", '{"tools": ["never"]}')  # relative to the working folder
    third = run("build", cwd=project.root)
    assert third.code == 0, third.out
    assert _names(project) == ["gamma"]


PLUGINS = '''
import json
from pathlib import Path

from fastmcp import FastMCP

mcp = FastMCP("x")
HERE = Path(__file__).parent
NAME = "with_plugins" if (HERE / "plugins").is_dir() else "without"
try:
    NAME = json.loads((HERE / "name.json").read_text())["name"]
except OSError:
    pass


@mcp.tool(name=NAME)
def tool(x: int) -> int:
    """Tool."""
    return x
'''


def test_a_path_that_becomes_a_folder_or_a_symlink_target_is_seen_by_the_cache(
    project: Project, run: Runner
) -> None:
    """A path looked for and missing was looked for again as a file only (a folder made
    there was not seen), and a symlink to nothing was no dependency at all (its target made
    was not seen): `check` passed, and the next build kept what the cache had."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/server.py", PLUGINS)
    assert run("build", cwd=project.root).code == 0
    assert _names(project) == ["without"]
    (project.root / "src/plugins").mkdir()
    assert run("check", cwd=project.root).code != 0
    assert run("build", cwd=project.root).code == 0
    assert _names(project) == ["with_plugins"]
    (project.root / "src/plugins").rmdir()
    assert run("build", cwd=project.root).code == 0
    assert _names(project) == ["without"]
    (project.root / "src/name.json").symlink_to("real.json")
    assert run("build", cwd=project.root).code == 0
    assert _names(project) == ["without"]
    project.write("src/real.json", '{"name": "from_data"}')
    assert run("check", cwd=project.root).code != 0
    assert run("build", cwd=project.root).code == 0
    assert _names(project) == ["from_data"]


def test_a_file_beside_the_sources_is_not_the_servers(project: Project, run: Runner) -> None:
    """Data files are read from the folders the sources are imported from: a file a CI step
    left at the project's root (`sources = ["src"]`) does not exist for the server, and none
    of its bytes reaches the output or the diagnostics."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("workspace-token.txt", "ghp_secret_token_value")
    project.write(
        "src/server.py",
        '''
        from pathlib import Path

        from fastmcp import FastMCP

        mcp = FastMCP("x")
        TOKEN = Path(__file__).parent.parent / "workspace-token.txt"
        NAME = TOKEN.read_text() if TOKEN.exists() else "plain"


        @mcp.tool(name=NAME)
        def show(key: str) -> str:
            """Show a value."""
            return key
        ''',
    )
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["plain"]
    assert "ghp_secret" not in result.out + result.err


REMADE = '''
import inspect
from typing import Any, cast

from fastmcp import FastMCP

mcp = FastMCP("x")


def flatten(func):
    def wrapper(**kwargs):
        return func(**kwargs)

    cast(Any, wrapper).__signature__ = inspect.Signature([])
    return wrapper


@mcp.tool
def show(key: str) -> str:
    """Show a value."""
    return key


mcp.tool(flatten(show), name="flat")
for tool in mcp._local_provider._components.values():
    tool.parameters.pop(input(), None)
'''


def test_schemas_made_or_changed_at_run_time_are_warned(project: Project, run: Runner) -> None:
    """A function's `__signature__` set (through `typing.cast` too), and a change in the
    server's own registry of tools that toolgen cannot follow (a key only known at run
    time): TG110 warnings where the code does it."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/server.py", REMADE)
    result = run("build", cwd=project.root)
    assert (
        "src/server.py:13:5: TG110 [warning] `flatten.<locals>.wrapper.__signature__` is set here"
    ) in result.out
    assert (
        "src/server.py:24:13: TG110 [warning] the code changes 1 tool (show) in the framework's "
        "own registry in ways toolgen cannot follow"
    ) in result.out


FLAGGED = '''
from pathlib import Path

from app.server import mcp

if (Path(__file__).parent / "on.json").exists():

    @mcp.tool
    def NAME_tool(key: str) -> str:
        """Show a value."""
        return key
'''


def test_every_unit_that_asks_whether_a_file_exists_depends_on_it(
    project: Project, run: Runner
) -> None:
    """Two files ask whether the same data file exists; once it appears, the next build
    (cache on) sees it in both, not only in the first one that asked."""
    project.write("pyproject.toml", CONFIG + 'markers = ["fastmcp"]\n')
    project.write("src/app/__init__.py", "")
    project.write("src/app/server.py", 'from fastmcp import FastMCP\n\nmcp = FastMCP("x")\n')
    project.write("src/app/first.py", FLAGGED.replace("NAME", "first"))
    project.write("src/app/second.py", FLAGGED.replace("NAME", "second"))
    assert run("build", cwd=project.root).code == 1  # no tool yet (TG107)
    project.write("src/app/on.json", "{}")
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["first_tool", "second_tool"]
