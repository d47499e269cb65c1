"""Workflow pieces: `toolgen show`, concurrent builds, paths that leave the project."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO, Project, tool_source


def test_show_prints_a_descriptor_or_a_platform_entry(run) -> None:  # type: ignore[no-untyped-def]
    descriptor = run("show", "calculator", cwd=REPO)
    assert descriptor.code == 0
    assert descriptor.json() == json.loads(
        (REPO / "generated" / "descriptors" / "calculator.json").read_text()
    )
    gemini = run("show", "calculator", "--platform", "gemini", cwd=REPO).json()
    assert gemini["parameters"]["type"] == "OBJECT"
    missing = run("show", "nope", cwd=REPO)
    assert (missing.code, missing.out) == (2, "")  # what went wrong is on stderr
    assert "no tool named 'nope'; tools: bulk_send_emails, calculator" in missing.err
    forbidden = run("show", "read_private_key", "--platform", "mcp", cwd=REPO)
    assert (forbidden.code, forbidden.out) == (1, "")
    assert (
        "read_private_key is not in the mcp payload: its risk is forbidden (such tools reach "
        "no payload)" in forbidden.err
    )


def test_show_says_why_a_tool_is_missing(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    node = "from __future__ import annotations\nfrom pydantic import BaseModel\n\n\n"
    node += "class Node(BaseModel):\n    children: list[Node] = []\n"
    project.write("src/a.py", tool_source(name="walk", params="root: Node", imports=node))
    project.write("src/b.py", tool_source(name="broken", params="x"))
    gemini = run("show", "walk", "--platform", "gemini", cwd=project.root)
    assert gemini.code == 1
    assert "walk is not in the gemini payload: TG602 Gemini:" in gemini.err
    assert "recursive model Node cannot be inlined" in gemini.err
    broken = run("show", "broken", cwd=project.root)
    assert broken.code == 2
    assert "no tool named 'broken'; tools: walk" in broken.err
    assert "src/b.py:5:12: TG203 [error] parameter `x` has no type annotation" in broken.err


def test_two_builds_at_once_leave_consistent_output(project: Project) -> None:
    for i in range(40):
        project.write(f"src/t{i}.py", tool_source(name=f"tool_{i}"))
    command = [sys.executable, "-m", "toolgen", "build", "-q"]
    first = subprocess.Popen(command, cwd=project.root)
    second = subprocess.Popen(command, cwd=project.root)
    assert (first.wait(timeout=120), second.wait(timeout=120)) == (0, 0)
    check = subprocess.run(
        [sys.executable, "-m", "toolgen", "check"],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout
    assert not list(project.out.rglob("*.tmp"))  # no temporary file left behind


def test_a_build_waits_for_the_lock_which_leaves_no_file(project: Project) -> None:
    """While one writer holds the lock, another build waits; no lock file appears anywhere in
    the project (nothing for git to show)."""
    from toolgen.output import build_lock

    project.write("src/tools.py", tool_source())
    before = {p.name for p in project.root.iterdir()}
    command = [sys.executable, "-m", "toolgen", "build", "-q", "--no-cache"]
    with build_lock(project.out):
        waiting = subprocess.Popen(command, cwd=project.root)
        with pytest.raises(subprocess.TimeoutExpired):
            waiting.wait(timeout=3)
        assert not project.out.exists()  # it compiled, and waits to write
    assert waiting.wait(timeout=60) == 0
    assert (project.out / "manifest.json").is_file()
    assert {p.name for p in project.root.iterdir()} == before | {"generated"}


def test_out_through_a_symlink_leaving_the_project_is_refused(
    project: Project, run, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    outside = tmp_path / "outside"
    outside.mkdir()
    (project.root / "generated").symlink_to(outside, target_is_directory=True)
    project.write("src/tools.py", tool_source())
    result = run("build", cwd=project.root)
    assert result.code == 2
    assert "TG004 [error] out" in result.out and "must be a folder inside the project" in result.out
    assert list(outside.iterdir()) == []


def test_sources_outside_the_project_are_refused(project: Project, run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "tools.py").write_text(tool_source())
    project.write("pyproject.toml", f'[tool.toolgen]\nsources = ["{elsewhere}"]\nmin_level = 0\n')
    result = run("build", cwd=project.root)
    assert result.code == 2
    assert "pyproject.toml:2:1: TG003 [error] source path" in result.out
    assert "is outside the project" in result.out


def test_pre_commit_hooks_run_toolgen_once_per_commit() -> None:
    yaml = __import__("yaml")
    hooks = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"toolgen-build", "toolgen-check"}
    for hook in hooks.values():
        assert hook["pass_filenames"] is False and hook["require_serial"] is True
        assert hook["entry"].split()[0] == "toolgen"
        assert hook["entry"].split()[1] in ("build", "check")
