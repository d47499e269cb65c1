"""Every registration form published servers use is read: by call (`mcp.tool(name=..)(fn)`,
`mcp.tool(fn)`, `mcp.add_tool(fn, ...)`, in loops over literal lists, bound methods in handler
classes, functions nested in registration functions), on servers toolgen must follow (a
subclass of FastMCP made by a factory, a server imported from another module), and through a
project's own collecting decorator declared in `[tool.toolgen.decorators]`.

The fixtures (tests/fixtures/registrations/) are real servers: the framework itself, imported
here (only here), says which tools it lists; toolgen, reading them statically, must list the
same names with the same parameters schemas.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import Project, tool_source
from test_frameworks import drop
from toolgen.config import load_config
from toolgen.descriptor import ToolDescriptor
from toolgen.pipeline import generate

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
REGISTRATIONS = FIXTURES / "registrations"


def _static(config_name: str) -> dict[str, ToolDescriptor]:
    config = load_config(REGISTRATIONS / config_name, cwd=REPO)
    result = generate(config)
    assert [d.format_text() for d in result.diagnostics if d.severity.value == "error"] == []
    return {d.name: d for d in result.descriptors}


def _listed(module_name: str, attribute: str) -> dict[str, dict[str, Any]]:
    """What the server in the fixture module lists: each tool's parameters schema."""
    if str(FIXTURES) not in sys.path:
        sys.path.insert(0, str(FIXTURES))
    server = getattr(importlib.import_module(module_name), attribute)
    tools = asyncio.run(server.list_tools())
    return {
        t.name: getattr(t, "parameters", None) or getattr(t, "input_schema", None) for t in tools
    }


@pytest.mark.parametrize(
    ("config_name", "module_name", "attribute", "open_root"),
    [
        ("toolgen.toml", "registrations.app.server", "mcp", False),
        ("sdk.toml", "registrations.sdk.server", "server", True),
    ],
)
def test_every_registration_form_lists_what_the_server_lists(
    config_name: str, module_name: str, attribute: str, open_root: bool
) -> None:
    ours = _static(config_name)
    published = _listed(module_name, attribute)
    assert sorted(ours) == sorted(published)
    for name, schema in published.items():
        expected = drop(schema, {"title"})
        got = ours[name].parameters
        if open_root:  # the MCP SDK leaves the root open; toolgen closes it
            expected = drop(expected, {"additionalProperties"})
            got = drop(got, {"additionalProperties"})
        if "description" not in str(expected):  # the SDK reads no docstring Args
            got = drop(got, {"description"})
        assert got == expected, name


def test_what_registers_where_is_in_the_descriptor_source() -> None:
    ours = _static("toolgen.toml")
    source = {name: (d.source.module, d.source.qualname) for name, d in ours.items()}
    assert source["renamed_search"] == ("registrations.app.plain_tools", "search")
    assert source["manage_jobs"] == ("registrations.app.handler_class", "GlueHandler.manage_jobs")
    assert source["ping_host"] == ("registrations.app.nested", "register.<locals>.ping")
    assert source["collected_renamed"] == ("registrations.app.registry", "collected")
    assert "not_a_tool" not in ours and "helper" not in ours  # not registered with a server
    # the bound method's `self` and the injected Context are not parameters
    assert set(ours["manage_jobs"].parameters["properties"]) == {"operation", "job_name"}


def _project(project: Project, server: str, config: str = "", marker: str = "fastmcp") -> None:
    project.write(
        "pyproject.toml",
        f'[tool.toolgen]\nsources = ["src"]\nmarkers = ["{marker}"]\nmin_level = 0\n' + config,
    )
    project.write("src/app/__init__.py", "")
    project.write("src/app/server.py", server)


def test_a_registration_elsewhere_is_located_where_it_is_written(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """An option that is not valid is reported at the call that gives it, in the module
    that registers; the handler's own problems at its def."""
    project.write(
        "src/app/tools.py",
        'def search(query: str) -> str:\n    """Search."""\n    return query\n',
    )
    _project(
        project,
        "from fastmcp import FastMCP\n"
        "from app.tools import search\n"
        "mcp = FastMCP('x')\n"
        "mcp.tool(name='not a name!')(search)\n",
    )
    result = run("build", "--verbose", cwd=project.root)
    assert "src/app/server.py:4:10: TG103" in result.out, result.out


def test_a_declared_decorator_must_name_a_known_preset(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    _project(
        project,
        "from fastmcp import FastMCP\nmcp = FastMCP('x')\n",
        '[tool.toolgen.decorators]\n"app.registry.collect" = "flask"\n"not-a-path" = "fastmcp"\n',
    )
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 2
    assert (
        "pyproject.toml:6:1: TG002 [error] [tool.toolgen] decorators: app.registry.collect: "
        "unknown preset 'flask'"
    ) in result.out
    assert "pyproject.toml:7:1: TG002 [error] [tool.toolgen] decorators: 'not-a-path' is not" in (
        result.out
    )


def test_one_handlers_error_costs_that_handler_alone(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("src/good.py", tool_source(name="good"))
    project.write("src/bad.py", tool_source(name="bad", params="query: Nowhere"))
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 1
    assert "src/bad.py:5:16: TG201 [error]" in result.out
    assert (
        result.out.splitlines()[-1] == "toolgen: 1 tool left out for errors: bad (src/bad.py:5:1)"
    )
    assert project.descriptor("good")["name"] == "good"
    assert not (project.out / "descriptors" / "bad.json").exists()
    assert [t["name"] for t in project.generated("mcp/tools.json")["tools"]] == ["good"]
    check = run("check", cwd=project.root)
    assert check.code == 1 and "TG201" in check.out  # CI still fails


def test_a_declared_decorator_must_name_something_in_the_project(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    _project(
        project,
        "from fastmcp import FastMCP\nmcp = FastMCP('x')\n",
        '[tool.toolgen.decorators]\n"app.registry.collect" = "fastmcp"\n',
    )
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 2
    assert (
        "pyproject.toml:6:1: TG002 [error] [tool.toolgen] decorators: app.registry.collect names "
        "no decorator here (no such module)"
    ) in result.out
    project.write(
        "src/app/registry.py",
        "def collect(**options):\n    return lambda fn: fn\n\n\n@collect()\n"
        'def g(x: int) -> int:\n    """G."""\n    return x\n',
    )
    built = run("build", cwd=project.root)
    assert built.code == 0 and "1 tool;" in built.out, built.out


def test_a_run_of_its_own_names_mounted_tools_as_the_server_does(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """The spooled build (a process of its own) renames tools of servers mounted under a
    namespace as the in-memory one does, also when their files come from the cache."""
    import shutil

    root = tmp_path / "proj"
    shutil.copytree(REGISTRATIONS, root / "registrations")
    (root / "pyproject.toml").write_text(
        '[tool.toolgen]\nsources = ["registrations/app"]\nmarkers = ["fastmcp"]\nmin_level = 0\n'
        '[tool.toolgen.decorators]\n"registrations.app.registry.collect" = "fastmcp"\n'
    )
    expected = sorted(_listed("registrations.app.server", "mcp"))
    for attempt in ("cold", "from the cache"):
        (root / "registrations" / "app" / "loops.py").touch()  # not a no-op: compile again
        assert run("build", cwd=root).code == 0, attempt
        listed = json.loads((root / "generated" / "mcp" / "tools.json").read_text())["tools"]
        assert sorted(t["name"] for t in listed) == expected, attempt


def test_what_cannot_be_followed_is_said_where_it_is_written(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """A function taken from a list built at run time, and tools made from a document that is
    no OpenAPI document: an info (TG106) at the call, and nothing invented."""
    _project(
        project,
        "from fastmcp import FastMCP\n"
        "from plugins import load\n"
        "mcp = FastMCP('x')\n"
        "for fn in load():\n"
        "    mcp.tool()(fn)\n"
        "api = FastMCP.from_openapi({}, name='api')\n",
    )
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 1, result.out  # no tool at all: TG107 names both places
    assert (
        'TG107 [error] no tool found in src with markers = ["fastmcp"]; registrations toolgen '
        "cannot follow (TG106): src/app/server.py:5:5, src/app/server.py:6:7"
    ) in result.out
    assert (
        "src/app/server.py:5:5: TG106 [info] `mcp.tool()` registers something toolgen cannot "
        "name without running the code (the item of a loop over values toolgen cannot know)"
    ) in result.out
    assert (
        "src/app/server.py:6:7: TG106 [info] `FastMCP.from_openapi({}, name='api')`: its OpenAPI "
        "document cannot be read (the document has no 'openapi' version string)"
    ) in result.out


def test_no_tool_with_a_framework_marker_fails_and_says_what_it_saw(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """Another framework's tools, and a `tool` call on something that is no server: the
    build fails (TG107 at `markers`), names the other framework's with their places, and
    writes nothing. `box.tool()` is a method of the project's own class: toolgen follows
    it, and it registers nothing (no TG106: nothing was left unfollowed)."""
    project.write(
        "src/agent_tools.py",
        "from agents import function_tool\n\n\n@function_tool\ndef weather(city: str) -> str:\n"
        '    """The weather."""\n    return city\n',
    )
    _project(
        project,
        "class Box:\n    def tool(self):\n        return lambda fn: fn\n\n\nbox = Box()\n\n\n"
        "def f(x: int) -> int:\n    return x\n\n\nbox.tool()(f)\n",
    )
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 1, result.out
    assert (
        'pyproject.toml:3:1: TG107 [error] no tool found in src with markers = ["fastmcp"]; '
        '1 openai-agents registrations (src/agent_tools.py:4:2): add "openai-agents" to '
        "markers\n"
    ) in result.out
    assert "TG106" not in result.out
    assert "nothing was written" in result.out and not project.out.exists()


def test_no_tool_with_toolgens_marker_is_a_warning_with_a_hint(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src"]\nmin_level = 0\n')
    project.write(
        "src/server.py",
        "from fastmcp import FastMCP\nmcp = FastMCP('x')\n\n\n@mcp.tool\ndef f(x: int) -> int:\n"
        '    """F."""\n    return x\n',
    )
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0
    assert (
        'TG104 [warning] no tool found in src with markers = ["toolgen"]; 1 fastmcp '
        'registrations (src/server.py:5:2): add "fastmcp" to markers'
    ) in result.out


# -- several servers in one package: a catalog each ------------------------------------------
CATALOGS = FIXTURES / "catalogs"


def catalog_project(tmp_path: Path) -> Path:
    """A copy of the two-server fixture as a project of its own (built with the CLI)."""
    import shutil

    root = tmp_path / "proj"
    shutil.copytree(CATALOGS, root / "catalogs")
    contract = (CATALOGS / "multi.toml").read_text().partition("[tool.toolgen.contract]")[2]
    (root / "pyproject.toml").write_text(
        '[tool.toolgen]\nsources = ["catalogs/multi"]\nmarkers = ["fastmcp"]\n'
        f"[tool.toolgen.contract]{contract}"
    )
    return root


def test_each_server_is_a_catalog_of_its_own(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """Two servers with a tool named `status` each (not a duplicate), and a third mounted into
    one of them under a namespace: each catalog lists what its server lists, in its folder."""
    config = load_config(CATALOGS / "multi.toml", cwd=REPO)
    result = generate(config)
    assert [d for d in result.diagnostics if d.severity.value != "info"] == []
    assert result.names == ["admin/rep_monthly", "admin/status", "admin/status_admin",
                            "public/search", "public/status"]  # fmt: skip
    for server in ("public", "admin"):
        published = _listed("catalogs.multi.servers", server)
        listed = json.loads(result.files[f"{server}/mcp/tools.json"])["tools"]
        assert sorted(t["name"] for t in listed) == sorted(published)
        for tool in listed:
            assert drop(tool["inputSchema"], {"title"}) == drop(published[tool["name"]], {"title"})
    assert {p.split("/")[0] for p in result.files} == {"admin", "public", "manifest.json"}
    # a run of its own (spooled) writes the same files
    root = catalog_project(tmp_path)
    assert run("build", cwd=root).code == 0
    built = {
        p.relative_to(root / "generated").as_posix(): p.read_bytes()
        for p in (root / "generated").rglob("*")
        if p.is_file()
    }
    assert sorted(built) == sorted(result.files)
    assert built["public/descriptors/status.json"] == result.files["public/descriptors/status.json"]


def test_catalogs_in_show_stats_and_serve(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    from toolgen.runtime.catalog import load as load_catalog

    root = catalog_project(tmp_path)
    assert run("build", cwd=root).code == 0
    shown = run("show", "admin/status", cwd=root)
    assert (shown.code, shown.json()["source"]["qualname"]) == (0, "status_admin")
    unknown = run("show", "status", cwd=root)
    assert unknown.code == 2 and "tools: admin/rep_monthly, admin/status," in unknown.err
    assert "admin/rep_monthly" in run("stats", cwd=root).out
    public = load_catalog(root / "generated", catalog="public")
    assert [t["name"] for t in public.mcp_tools or ()] == ["search", "status"]
    assert public.names == ["search", "status"]
    which = run("serve", cwd=root)
    assert which.code == 2
    assert "(this project has a catalog per server: serve one with --catalog admin | public)" in (
        which.err
    )
    nowhere = run("serve", "--catalog", "nowhere", cwd=root)
    assert nowhere.code == 2 and "no catalog 'nowhere'" in nowhere.err


def test_check_against_compares_each_catalogs_tools(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """`--against` reads every catalog's descriptors at the ref, by `catalog/name`: a change to
    one server's `status` is found there, and the other's is not mistaken for it."""
    from test_breaking import _git

    root = catalog_project(tmp_path)
    assert run("build", cwd=root).code == 0
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "v1")
    servers = root / "catalogs" / "multi" / "servers.py"
    servers.write_text(
        servers.read_text().replace(
            "def status_admin(verbose: bool = False)", "def status_admin(verbose: bool)"
        )
    )
    result = run("check", "--against", "HEAD", cwd=root)
    assert result.code == 1
    assert (
        "TG953 [error] input-became-required tool=admin/status /properties/verbose: `verbose` "
        "is now required"
    ) in result.out
    assert "tool=public/status" not in result.out


def test_a_tool_whose_server_cannot_be_told_among_several_is_said(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    _project(
        project,
        "from fastmcp import FastMCP\n"
        "one = FastMCP('one')\n"
        "two = FastMCP('two')\n\n\n"
        "@one.tool\ndef a() -> str:\n    '''A.'''\n    return 'a'\n\n\n"
        "@two.tool\ndef b() -> str:\n    '''B.'''\n    return 'b'\n\n\n"
        "def register(server):\n"
        "    @server.tool\n    def c() -> str:\n        '''C.'''\n        return 'c'\n",
    )
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    assert (
        "src/app/server.py:20:5: TG106 [info] 1 tools are registered on a server toolgen cannot "
        "tell among several (a parameter, `self.mcp`): they are in catalog `other`"
    ) in result.out
    assert (project.out / "other" / "descriptors" / "c.json").is_file()
    assert (project.out / "one" / "descriptors" / "a.json").is_file()


def test_servers_that_instances_hold_are_a_catalog_each(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """Two classes that each build a server in `__init__` (`self.server = ...`), with a tool of
    the same name: two catalogs, named after each class's attribute, not one with a clash."""
    holder = (
        "from fastmcp import FastMCP\n\n\n"
        "class {cls}:\n"
        "    def __init__(self) -> None:\n"
        "        self.server = FastMCP('{cls}')\n"
        "        self.server.tool(self.status)\n\n"
        "    def status(self, {param}: int) -> str:\n"
        "        '''The status.'''\n"
        "        return ''\n\n\n"
        "def main() -> None:\n"
        "    {cls}().server.run()\n"
    )
    _project(project, holder.format(cls="Plain", param="a"))
    project.write("src/app/enhanced.py", holder.format(cls="Enhanced", param="b"))
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    tools = {
        folder: project.generated(f"{folder}/mcp/tools.json")["tools"]
        for folder in ("app.server.Plain.server", "app.enhanced.Enhanced.server")
    }
    assert {f: [t["name"] for t in listed] for f, listed in tools.items()} == {
        "app.server.Plain.server": ["status"],
        "app.enhanced.Enhanced.server": ["status"],
    }
    assert list(tools["app.server.Plain.server"][0]["inputSchema"]["properties"]) == ["a"]
    assert list(tools["app.enhanced.Enhanced.server"][0]["inputSchema"]["properties"]) == ["b"]


def test_alternative_tool_sets_are_a_catalog_each(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """Two functions nothing in the project calls register a tool of the same name on a server
    toolgen cannot tell (one set per version, the server registering one of them, chosen
    where toolgen cannot see): each set is a catalog of its own, with a note, and neither is
    dropped as the other's duplicate. Functions whose names do not clash stay one catalog."""
    tree = (
        "def register(mcp):\n"
        "    @mcp.tool()\n"
        "    def status({params}) -> str:\n"
        "        '''The status.'''\n"
        "        return ''\n\n"
        "    @mcp.tool()\n"
        "    def {extra}() -> str:\n"
        "        '''More.'''\n"
        "        return ''\n"
    )
    _project(project, "from fastmcp import FastMCP\n")
    project.write("src/app/tools/__init__.py", "")
    project.write("src/app/tools/v1.py", tree.format(params="a: int", extra="old"))
    project.write("src/app/tools/v2.py", tree.format(params="a: int, b: int = 0", extra="new"))
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    listed = {
        version: project.generated(f"app.tools.{version}.register/mcp/tools.json")["tools"]
        for version in ("v1", "v2")
    }
    assert {v: [t["name"] for t in tools] for v, tools in listed.items()} == {
        "v1": ["old", "status"],
        "v2": ["new", "status"],
    }
    assert list(listed["v2"][1]["inputSchema"]["properties"]) == ["a", "b"]
    assert (
        "src/app/tools/v1.py:3:5: TG106 [info] catalog `app.tools.v1.register`: the 2 tools "
        "`app.tools.v1.register` registers on a server toolgen cannot tell"
    ) in result.out
    # no name in common: one catalog, as before
    project.write(
        "src/app/tools/v2.py",
        tree.format(params="a: int", extra="new").replace("def status", "def health"),
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    tools = project.generated("mcp/tools.json")["tools"]
    assert [t["name"] for t in tools] == ["health", "new", "old", "status"]


def test_a_server_a_function_builds_lists_what_is_mounted_into_it(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """`mcp = FastMCP(...)` inside `build_server()` (no module-level name) is one server all the
    same: a module-level server mounted into it is listed by it, under its namespace, in one
    catalog, not a catalog of its own beside `other`."""
    project.write(
        "src/app/sub.py",
        "from fastmcp import FastMCP\n"
        "server = FastMCP('sub')\n\n\n"
        "@server.tool\ndef ping() -> str:\n    '''Ping.'''\n    return ''\n",
    )
    _project(
        project,
        "from fastmcp import FastMCP\n"
        "from app import sub\n\n\n"
        "def build_server() -> FastMCP:\n"
        "    mcp = FastMCP('main')\n\n"
        "    @mcp.tool\n    def meta() -> str:\n        '''Meta.'''\n        return ''\n\n"
        "    mcp.mount(sub.server, namespace='sub')\n"
        "    return mcp\n\n\n"
        "def main() -> None:\n"
        "    build_server().run()\n",
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    tools = project.generated("mcp/tools.json")["tools"]
    assert [t["name"] for t in tools] == ["meta", "sub_ping"]
    assert not (project.out / "other").exists()


def test_a_server_written_by_hand_that_relays_another_is_a_catalog_of_its_own(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    """A module that answers JSON-RPC `tools/list` by hand with what the project's SDK
    server lists (a second way to serve the same tools) is a server of its own: the
    relayed tools are no duplicates of the SDK server's."""
    _project(
        project,
        "from mcp.server.lowlevel import Server\n"
        "from mcp.types import Tool\n\n"
        "server = Server('s')\n\n\n"
        "@server.list_tools()\n"
        "async def list_tools():\n"
        "    return [Tool(name='scan', description='Scan.', inputSchema={'type': 'object'})]\n",
        marker="mcp",
    )
    project.write(
        "src/app/stdio.py",
        "from app.server import list_tools\n\n\n"
        "async def handle(message):\n"
        "    if message['method'] == 'tools/list':\n"
        "        tools = await list_tools()\n"
        "        listed = [\n"
        "            {'name': t.name, 'description': t.description, 'inputSchema': t.inputSchema}\n"
        "            for t in tools\n"
        "        ]\n"
        "        return {'result': {'tools': listed}}\n",
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    for catalog in ("server", "stdio"):
        tools = project.generated(f"{catalog}/mcp/tools.json")["tools"]
        assert [(t["name"], t["inputSchema"]) for t in tools] == [("scan", {"type": "object"})]
