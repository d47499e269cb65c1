"""`toolgen check --verify-runtime`: the opt-in comparison with pydantic at run time."""

from __future__ import annotations

from pathlib import Path

from conftest import Project, tool_source

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


def test_every_zoo_handler_verifies(run) -> None:
    result = run("check", "--config", "tests/fixtures/zoo.toml", "--verify-runtime", cwd=REPO)
    assert result.code == 0, result.out
    assert "TG701" not in result.out
    assert [line for line in result.out.splitlines() if "TG702" in line] == [
        line for line in result.out.splitlines() if "nested_tool: not verified" in line
    ]
