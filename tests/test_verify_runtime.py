"""`toolgen check --verify-runtime`: the opt-in comparison with pydantic at run time."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conftest import CONFIG, Project, tool_source
from toolgen.diagnostics import Diagnostic, Location

REPO = Path(__file__).resolve().parent.parent

CUSTOM = '''
from pydantic import BaseModel

class Weird(BaseModel):
    """A model that changes its own schema at run time."""

    x: int

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema, handler):
        schema = handler.resolve_ref_schema(handler(core_schema))
        schema["examples"] = [{"x": 1}]
        return schema
'''


def test_examples_verify_except_nested_handlers(run) -> None:
    result = run("check", "--verify-runtime", cwd=REPO)
    assert result.code == 0, result.out
    assert "TG701" not in result.out
    unverified = [line for line in result.out.splitlines() if "TG702" in line]
    assert len(unverified) == 2
    assert all("defined inside a function" in line for line in unverified)


def test_a_schema_changed_at_run_time_is_reported_where_it_differs(project: Project, run) -> None:
    project.write("src/app/__init__.py", "")
    project.write("src/app/models.py", CUSTOM)
    project.write(
        "src/app/tools.py",
        tool_source(params="w: Weird", imports="from app.models import Weird"),
    )
    assert run("build", cwd=project.root).code == 0
    assert run("check", cwd=project.root).code == 0  # statically nothing is wrong
    result = run("check", "--verify-runtime", cwd=project.root)
    assert result.code == 1
    assert (
        "src/app/tools.py:5:1: TG701 [error] tool lookup /$defs/Weird/examples: static schema "
        '(absent) differs from pydantic at run time [{"x": 1}]'
    ) in result.out


def test_a_handler_that_fails_to_import_is_a_warning(project: Project, run) -> None:
    project.write("src/tools.py", "import no_such_module_anywhere\n" + tool_source())
    assert run("build", cwd=project.root).code == 0
    result = run("check", "--verify-runtime", cwd=project.root)
    assert result.code == 0
    assert "TG702 [warning] tool lookup: not verified at run time (ModuleNotFoundError" in (
        result.out
    )
    for level, shown in (("error", "TG702 [error] tool lookup: not verified"), ("off", "")):
        project.write("pyproject.toml", f'{CONFIG}\n[tool.toolgen.rules]\nTG702 = "{level}"\n')
        assert run("build", cwd=project.root).code == 0
        result = run("check", "--verify-runtime", cwd=project.root)
        assert result.code == (1 if shown else 0), result.out  # the configured level holds
        assert ("TG702" in result.out) == bool(shown) and shown in result.out


def test_every_zoo_handler_verifies(run) -> None:
    result = run("check", "--config", "tests/fixtures/zoo.toml", "--verify-runtime", cwd=REPO)
    assert result.code == 0, result.out
    assert "TG701" not in result.out
    assert [line for line in result.out.splitlines() if "TG702" in line] == [
        line for line in result.out.splitlines() if "nested_tool: not verified" in line
    ]


SETTINGS = """
from pydantic import BaseModel

class Settings(BaseModel):
    port: int

SETTINGS = Settings(port="not a number")  # fails at import, with pydantic's multi-line text
"""

TEXT_LINE = re.compile(r"^[^:\n]+:\d+:\d+: TG\d{3} \[(error|warning|info)\] \S.*$")


def test_a_multi_line_message_is_one_line_in_text_and_kept_in_json(
    project: Project, run: Any
) -> None:
    """pydantic's error text (line breaks, indentation, a URL on a line of its own) in TG702:
    one `path:line:col: CODE [level] message` line in the text format, escaped in the
    GitHub format, as it is in JSON."""
    project.write("src/tools.py", SETTINGS + "\n\n" + tool_source())
    assert run("build", cwd=project.root).code == 0
    text = run("check", "--verify-runtime", cwd=project.root)
    assert text.code == 0, text.out
    lines = text.out.splitlines()
    assert lines[-1].startswith("toolgen: 1 tool; ")
    assert all(TEXT_LINE.match(line) for line in lines[:-1]), text.out
    (unverified,) = [line for line in lines if "TG702" in line]
    assert "1 validation error for Settings port Input should be a valid integer" in unverified
    assert " For further information visit https://errors.pydantic.dev/" in unverified
    data = run("check", "--verify-runtime", "--format", "json", cwd=project.root).json()
    (row,) = [d for d in data["diagnostics"] if d["code"] == "TG702"]
    assert "\n" in row["message"]
    assert " ".join(row["message"].split()) in unverified
    github = run("check", "--verify-runtime", "--format", "github", cwd=project.root)
    (annotation,) = [line for line in github.out.splitlines() if "TG702" in line]
    assert "Settings%0Aport%0A" in annotation


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        ("plain  text, spaces kept", "plain  text, spaces kept"),
        ("first\nsecond", "first second"),
        ("a:\n\n    b\r\n  c\n", "a: b c"),
        ("\u2028x\x0by\u2029", "x y"),
    ],
)
def test_text_lines_collapse_line_breaks(message: str, shown: str) -> None:
    diagnostic = Diagnostic("TG702", message, Location("a.py", 2, 3))
    assert diagnostic.format_text() == f"a.py:2:3: TG702 [warning] {shown}"
    assert diagnostic.to_dict()["message"] == message
    assert "\n" not in diagnostic.format_github()
