"""The repository keeps its promises: README commands, CI script, checked-in output."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import Run

REPO = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    head = text.split("---", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", head)


def test_readme_starts_with_the_two_commands() -> None:
    build, tests = _readme_commands()
    assert "pip install -e ." in build and "toolgen build" in build and "toolgen check" in build
    assert 'pip install -e ".[dev]"' in tests and "python -m pytest" in tests


def test_ci_runs_exactly_the_readme_test_command_then_check_then_the_realworld_compare() -> None:
    _, tests = _readme_commands()
    lines = [
        ln
        for ln in (REPO / ".ci" / "run").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    # `|| exit $?`: under `set -e` a failure inside an `&&` list would not stop the script
    assert f"{tests} || exit $?" in lines
    assert lines[-2:] == [
        "toolgen check",
        'python ../shared/realworld/compare.py "$(command -v toolgen)"',
    ]
    assert lines.index(f"{tests} || exit $?") < lines.index("toolgen check")


def test_generated_folder_is_current(run) -> None:
    result: Run = run("check", cwd=REPO)
    assert result.code == 0, result.out
    assert "12 tools; generated is up to date" in result.out


def test_published_descriptor_schema_is_current(run) -> None:
    result: Run = run("schema", cwd=REPO)
    assert result.code == 0
    assert result.out == (REPO / "schemas" / "descriptor.schema.json").read_text(), (
        "run `toolgen schema > schemas/descriptor.schema.json`"
    )
