"""toolgen reads handler code; it never imports or runs it."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import Project, tool_source

HOSTILE = """
import pathlib
pathlib.Path(__file__).with_name("IMPORTED").write_text("ran at import")
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
