"""toolgen reads handler code; it never imports or runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import Project, tool_source

# Any import raises; a reader that follows Python sees that it may not (`__name__` is only
# known at run time), so the definitions after it are still read.
HOSTILE = """
import pathlib
pathlib.Path(__file__).with_name("IMPORTED").write_text("ran at import")
if __name__ != "__never__":
    raise RuntimeError("this module must never be imported")
"""


def test_build_does_not_import_handler_modules(project: Project, run) -> None:
    project.write("src/hostile_tools/__init__.py", HOSTILE)
    project.write("src/hostile_tools/handlers.py", HOSTILE + "\n" + tool_source())
    before = set(sys.modules)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert project.descriptor("lookup")["source"] == {
        "module": "hostile_tools.handlers",
        "qualname": "lookup",
    }
    assert not (project.root / "src" / "hostile_tools" / "IMPORTED").exists()
    assert not {m for m in set(sys.modules) - before if m.startswith("hostile_tools")}


def test_library_modules_are_read_not_imported(project: Project, run) -> None:
    # an installed package (a folder in `library_paths`) whose import would leave a marker
    lib = Project(project.root.parent / "lib")
    lib.write(
        "hostile_lib/__init__.py",
        HOSTILE + "\nfrom .models import Query\n",
    )
    lib.write(
        "hostile_lib/models.py",
        HOSTILE + "\nfrom pydantic import BaseModel\n\nclass Query(BaseModel):\n    text: str\n",
    )
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n'
        'library_paths = ["../lib"]\n',
    )
    project.write(
        "src/tools.py", tool_source(params="query: Query", imports="from hostile_lib import Query")
    )
    before = set(sys.modules)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert project.descriptor("lookup")["parameters"]["$defs"]["Query"]["properties"] == {
        "text": {"type": "string"}
    }
    assert not (lib.root / "hostile_lib" / "IMPORTED").exists()
    assert not {m for m in set(sys.modules) - before if m.startswith("hostile_lib")}


def test_check_in_a_fresh_process_does_not_import_either(project: Project) -> None:
    project.write("src/hostile.py", HOSTILE + "\n" + tool_source())
    code = (
        "import sys; from toolgen.cli import main; rc = main(['check']); "
        "print('IMPORTED' if 'hostile' in sys.modules else 'clean', rc)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=project.root, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip().endswith("clean 1")  # 1: nothing built yet (missing files)
    assert not (project.root / "src" / "IMPORTED").exists()


def test_registrations_by_call_across_modules_import_nothing(project: Project, run) -> None:
    """A server module that registers functions of another module by call, a factory, a
    mounted server and a declared decorator: every module read, none imported or run."""
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nmarkers = ["fastmcp"]\nmin_level = 0\n'
        '[tool.toolgen.decorators]\n"hostile_app.registry.collect" = "fastmcp"\n',
    )
    project.write("src/hostile_app/__init__.py", HOSTILE)
    project.write(
        "src/hostile_app/registry.py",
        HOSTILE + "\ndef collect(**options):\n    return lambda fn: fn\n\n\n"
        "@collect(name='collected')\ndef gathered(x: int) -> int:\n"
        '    """Collected."""\n    return x\n',
    )
    project.write(
        "src/hostile_app/funcs.py",
        HOSTILE + '\ndef plain(query: str) -> str:\n    """Plain."""\n    return query\n',
    )
    project.write(
        "src/hostile_app/server.py",
        HOSTILE + "\nfrom fastmcp import FastMCP\nfrom hostile_app import funcs\n\n\n"
        "def make():\n    return FastMCP('x')\n\n\nmcp = make()\nsub = FastMCP('sub')\n"
        "mcp.tool(name='called')(funcs.plain)\nmcp.mount(sub, namespace='ns')\n\n\n"
        "@sub.tool\ndef inner(flag: bool) -> bool:\n"
        '    """Inner."""\n    return flag\n',
    )
    before = set(sys.modules)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    names = {t["name"] for t in project.generated("mcp/tools.json")["tools"]}
    assert names == {"called", "collected", "ns_inner"}
    assert not list((project.root / "src").rglob("IMPORTED"))
    assert not {m for m in set(sys.modules) - before if m.startswith("hostile_app")}


def test_folding_values_does_not_import_the_modules_it_reads(project: Project, run) -> None:
    """Constants, enums and helper functions are read from a module that must not run: the
    values come from its text (issue 16, part 4)."""
    project.write(
        "src/hostile_values.py",
        HOSTILE
        + "\nfrom enum import Enum\nPAGE = 10\n\n\nclass Risk(str, Enum):\n    HIGH = 'high'\n\n\n"
        "def keywords(*extra):\n    return sorted({'catalog', *extra})\n",
    )
    project.write(
        "src/tools.py",
        tool_source(
            decorator="@tool(risk=Risk.HIGH, keywords=keywords('search'))",
            params="query: str, limit: int = PAGE * 2",
            imports="from hostile_values import PAGE, Risk, keywords",
        ),
    )
    before = set(sys.modules)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    descriptor = project.descriptor("lookup")
    assert descriptor["risk"] == "high"
    assert descriptor["tool_search_keywords"] == ["catalog", "search"]
    assert descriptor["parameters"]["properties"]["limit"]["default"] == 20
    assert not (project.root / "src" / "IMPORTED").exists()
    assert "hostile_values" not in set(sys.modules) - before


def test_the_framework_version_is_read_not_imported(project: Project) -> None:
    """The version whose publication rules apply comes from the installed distribution's
    METADATA: a `fastmcp` package that must not run, first on the path, is never imported,
    and its version is the one that publishes (3.x: no title made from the name)."""
    site = project.root.parent / "site"
    (site / "fastmcp").mkdir(parents=True)
    (site / "fastmcp" / "__init__.py").write_text(HOSTILE + "\nclass FastMCP: ...\n")
    info = site / "fastmcp_slim-3.4.11.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.4\nName: fastmcp-slim\nVersion: 3.4.11\n\n")
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nmarkers = ["fastmcp"]\nmin_level = 0\n',
    )
    project.write(
        "src/shop.py",
        'from fastmcp import FastMCP\n\nmcp = FastMCP("shop")\n\n\n@mcp.tool\n'
        'def shelve(item: str) -> str:\n    """Shelve an item."""\n    return item\n',
    )
    code = (
        "import sys; from toolgen.cli import main; rc = main(['build']); "
        "print('IMPORTED' if 'fastmcp' in sys.modules else 'clean', rc)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])},
    )
    assert result.stdout.strip().endswith("clean 0"), result.stdout + result.stderr
    assert not (site / "fastmcp" / "IMPORTED").exists()
    [tool] = project.generated("mcp/tools.json")["tools"]
    assert "title" not in tool and project.descriptor("shelve")["framework"]["version"] == "3.4.11"


def test_the_registration_interpreter_imports_and_runs_nothing(project: Project, run) -> None:
    """What the interpreter evaluates (a collecting decorator and the loop that registers
    its list, a registration function another module calls with a name, a low-level
    server's `tools/list` handler returning records of a dataclass in another module, the
    environment as `env` sets it) is read from modules that must not run, in a process
    whose environment would say otherwise: none is imported, nothing is run, the process
    environment is not read."""
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nmarkers = ["fastmcp", "mcp"]\nmin_level = 0\n'
        'env = {EXTRA = "1"}\n',
    )
    project.write("src/hostile_app/__init__.py", HOSTILE)
    project.write(
        "src/hostile_app/registry.py",
        HOSTILE + "\nTOOLS = []\n\n\ndef collect(fn):\n    TOOLS.append(fn)\n    return fn\n\n\n"
        "def register(mcp, name):\n    @mcp.tool(name=name)\n    def named(x: int) -> int:\n"
        '        """Named by the caller."""\n        return x\n',
    )
    project.write(
        "src/hostile_app/funcs.py",
        HOSTILE + "\nfrom hostile_app.registry import collect\n\n\n@collect\n"
        'def gathered(query: str) -> str:\n    """Gathered."""\n    return query\n',
    )
    project.write(
        "src/hostile_app/server.py",
        HOSTILE + "\nimport os\n\nfrom fastmcp import FastMCP\n\nfrom hostile_app import funcs\n"
        "from hostile_app.registry import TOOLS, register\n\nmcp = FastMCP('x')\n"
        "for fn in TOOLS:\n    mcp.tool()(fn)\nregister(mcp, 'from_caller')\n"
        "if os.getenv('EXTRA'):\n    register(mcp, 'extra')\n"
        "if os.getenv('HOSTILE_ONLY_AT_RUN_TIME'):\n    register(mcp, 'from_process')\n",
    )
    project.write(
        "src/hostile_low/specs.py",
        HOSTILE + "\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass Spec:\n"
        "    name: str\n    about: str\n\n\nSPECS = [Spec('lookup', 'Look up.')]\n",
    )
    project.write(
        "src/hostile_low/server.py",
        HOSTILE + "\nfrom mcp.server import Server\nfrom mcp.types import Tool\n\n"
        "from hostile_low.specs import SPECS\n\nserver = Server('low')\n\n\n"
        "@server.list_tools()\nasync def list_tools():\n    return [Tool(name=s.name, "
        "description=s.about, inputSchema={'type': 'object'}) for s in SPECS]\n",
    )
    before = set(sys.modules)
    os.environ["HOSTILE_ONLY_AT_RUN_TIME"] = "1"
    try:
        result = run("build", cwd=project.root)
    finally:
        del os.environ["HOSTILE_ONLY_AT_RUN_TIME"]
    assert result.code == 0, result.out
    names = {  # two servers: a catalog each
        catalog.parent.parent.name + "/" + tool["name"]
        for catalog in project.out.glob("*/mcp/tools.json")
        for tool in json.loads(catalog.read_text())["tools"]
    }
    expected = {"gathered", "from_caller", "extra"}
    assert names == {f"hostile_app.server.mcp/{n}" for n in expected} | {"server/lookup"}
    assert not list((project.root / "src").rglob("IMPORTED"))
    assert not {m for m in set(sys.modules) - before if m.startswith("hostile_")}
