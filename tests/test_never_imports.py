"""toolgen reads handler code; it never imports or runs it."""

from __future__ import annotations

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
