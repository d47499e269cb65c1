"""The `--format json` reports of `check` and `build` keep to their published JSON Schemas
(schemas/*-report.schema.json, which forbid unknown keys), in every kind of run: clean, drift,
contract findings, handler errors, `--fail-on`, answered from the stamp, and a run that stops
(exit 2)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from conftest import REPO, Project, Run, tool_source

REPORTS = ("check-report", "build-report")


def _schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((REPO / "schemas" / f"{name}.schema.json").read_text())
    return schema


def _report(result: Run, name: str) -> dict[str, Any]:
    """The JSON a run printed, after checking it against the published schema `name`."""
    report: dict[str, Any] = json.loads(result.out)
    errors = [e.message for e in Draft202012Validator(_schema(name)).iter_errors(report)]
    assert errors == [], (errors, report)
    return report


@pytest.mark.parametrize("name", REPORTS)
def test_published_report_schemas_are_current_and_valid(run, name: str) -> None:  # type: ignore[no-untyped-def]
    result = run("schema", name, cwd=REPO)
    assert result.code == 0
    assert result.out == (REPO / "schemas" / f"{name}.schema.json").read_text(), (
        f"run `toolgen schema {name} > schemas/{name}.schema.json`"
    )
    Draft202012Validator.check_schema(_schema(name))


def test_check_reports_keep_to_the_schema(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("src/tools.py", tool_source())
    project.write("src/more.py", tool_source(name="second"))
    assert run("build", cwd=project.root).code == 0

    clean = _report(run("check", "--format", "json", cwd=project.root), "check-report")
    assert (clean["tools"], clean["failing"], clean["fail_on"]) == (2, {}, "error")
    replayed = _report(run("check", "--format", "json", cwd=project.root), "check-report")
    assert replayed == clean  # answered from the stamp: the same report

    project.write("src/tools.py", tool_source(params="query: str, limit: int"))
    (project.out / "docs" / "tools.md").unlink()
    (project.root / "src" / "more.py").unlink()  # its descriptor is left stale
    (project.out / "openai" / "mine.json").write_text("{}\n")  # not toolgen's: no drift
    drift = _report(run("check", "--format", "json", cwd=project.root), "check-report")
    assert drift["drift"]["missing"] == ["generated/docs/tools.md"]
    assert "generated/descriptors/lookup.json" in drift["drift"]["changed"]
    assert drift["drift"]["stale"] == ["generated/descriptors/second.json"]
    assert drift["drift"]["interrupted"] is False

    project.write("src/tools.py", tool_source(params="query: str, labels: dict[str, int]"))
    warned = run("check", "--format", "json", "--fail-on", "warning", cwd=project.root)
    assert warned.code == 1
    failing = _report(warned, "check-report")
    assert failing["fail_on"] == "warning" and failing["failing"]["warning"] >= 1

    project.write("src/tools.py", tool_source(params="query: Nowhere"))
    broken = _report(run("check", "--format", "json", cwd=project.root), "check-report")
    assert [d["code"] for d in broken["diagnostics"]] == ["TG201"]
    assert broken["diagnostics"][0]["path"] == "src/tools.py"

    project.write("pyproject.toml", "[tool.toolgen\n")
    fatal = run("check", "--format", "json", cwd=project.root)
    assert fatal.code == 2
    assert [d["code"] for d in _report(fatal, "check-report")["diagnostics"]] == ["TG001"]


def test_check_against_reports_keep_to_the_schema(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("src/tools.py", tool_source(params="query: str, limit: int = 5"))
    assert run("build", cwd=project.root).code == 0
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "v1"]):
        git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args]
        subprocess.run(git, cwd=project.root, check=True, capture_output=True)
    project.write("src/tools.py", tool_source())
    assert run("build", cwd=project.root).code == 0
    result = run("check", "--against", "HEAD", "--format", "json", cwd=project.root)
    assert result.code == 1
    report = _report(result, "check-report")
    assert {"TG954", "TG975"} <= {d["code"] for d in report["diagnostics"]}
    assert report["failing"] == {"error": 2}
    missing = run("check", "--against", "nosuchref", "--format", "json", cwd=project.root)
    assert missing.code == 2
    assert [d["code"] for d in _report(missing, "check-report")["diagnostics"]] == ["TG010"]


def test_build_reports_keep_to_the_schema(project: Project, run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project.write("src/tools.py", tool_source())
    built = _report(run("build", "--format", "json", cwd=project.root), "build-report")
    assert built["tools"] == 1 and "descriptors/lookup.json" in built["written"]
    again = _report(run("build", "--format", "json", cwd=project.root), "build-report")
    assert (again["written"], again["removed"]) == ([], [])

    project.write("src/tools.py", tool_source(name="renamed"))
    renamed = _report(run("build", "--format", "json", cwd=project.root), "build-report")
    assert "descriptors/lookup.json" in renamed["removed"]

    project.write("src/tools.py", tool_source(params="query: Nowhere"))
    broken = run("build", "--format", "json", cwd=project.root)
    assert broken.code == 1
    left = _report(broken, "build-report")
    assert left["left_out"] == [{"name": "lookup", "path": "src/tools.py", "line": 5, "col": 1}]
    assert left["tools"] == 0 and "descriptors/renamed.json" in left["removed"]

    project.write("src/tools.py", tool_source())
    (project.root / "afile").write_text("mine\n")
    blocked = run("build", "--out", "afile", "--format", "json", cwd=project.root)
    assert blocked.code == 2
    assert [d["code"] for d in _report(blocked, "build-report")["diagnostics"]] == ["TG008"]
