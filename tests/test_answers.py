"""The command line's shortcut (`toolgen.incremental.answers`): a repeated `build` or `check`
is answered from what the same invocation printed before, without loading the command line,
and never when anything it depends on (sources, config files, symlinks, generated files,
toolgen's own code, the environment) changed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

from conftest import Project, Run, tool_source, toolgen_process
from toolgen.incremental import answers, stamp

Runner = Callable[..., Run]


@pytest.fixture
def shop(project: Project) -> Project:
    project.write("src/shop/__init__.py", "")
    project.write("src/shop/tools.py", tool_source("search") + tool_source("count"))
    return project


def _answered(project: Project, capsys: pytest.CaptureFixture[str], *argv: str) -> Run | None:
    """What the shortcut alone says to `toolgen ARGV` run in the project (None: no answer)."""
    capsys.readouterr()
    os.chdir(project.root)
    code = answers.answer(list(argv))
    captured = capsys.readouterr()
    if code is None:
        assert captured.out == "", "a shortcut that does not answer prints nothing"
        return None
    return Run(code, captured.out, captured.err)


def _remembered(project: Project, run: Runner, *argv: str) -> Run:
    """Build, then run `argv` twice: the second run, answered from the stamp, is remembered."""
    assert run("build", cwd=project.root).code == 0
    run(*argv, cwd=project.root)
    return run(*argv, cwd=project.root)


@pytest.mark.parametrize(
    "argv",
    [("check",), ("build",), ("check", "--format", "json"), ("build", "-q"), ("check", "--diff")],
)
def test_a_repeated_command_is_answered_as_the_full_command_line_answers(
    shop: Project, run: Runner, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    full = _remembered(shop, run, *argv)
    answered = _answered(shop, capsys, *argv)
    assert answered is not None
    assert (answered.code, answered.out) == (full.code, full.out)
    cold = run(*argv, "--no-cache", cwd=shop.root)
    assert cold.out.splitlines()[:-1] == answered.out.splitlines()[:-1]  # the same diagnostics
    assert cold.code == answered.code


def test_the_shortcut_loads_neither_the_command_line_nor_the_compiler(
    shop: Project, run: Runner
) -> None:
    """What makes it fast: a process that answers from the shortcut imports no argparse,
    no config reader, no json, no hashlib and nothing of the compiler (once the files are
    old enough for their `stat` to be trusted: see `toolgen.incremental.stamp`)."""
    assert run("build", cwd=shop.root).code == 0
    time.sleep(2 * stamp.FINE_RACY_NS / 1e9)
    run("check", cwd=shop.root)  # the files are hashed, stamped afresh, and remembered
    child = toolgen_process(shop.root, "check")
    assert child.code == 0, child.out
    assert "is up to date" in child.out
    assert "toolgen.entry" in child.imported
    for heavy in ("argparse", "toolgen.cli", "toolgen.config", "json", "hashlib", "pydantic"):
        assert heavy not in child.imported, heavy


def _edit_config(project: Project) -> None:
    text = (project.root / "pyproject.toml").read_text()
    project.write("pyproject.toml", text + "\n# only a comment\n")


def _nearer_config(project: Project) -> None:
    """A pyproject.toml nearer to the working folder (src/) gets a [tool.toolgen] table."""
    project.write("src/pyproject.toml", '[tool.toolgen]\nsources = ["shop"]\nout = "../other"\n')


def _new_package_level(project: Project) -> None:
    """An `__init__.py` above the package makes `src` a package: every module is renamed."""
    project.write("src/__init__.py", "")


def _edit_source(project: Project) -> None:
    project.write("src/shop/tools.py", tool_source("search") + tool_source("tally"))


def _new_source(project: Project) -> None:
    project.write("src/shop/deeper/more.py", tool_source("more"))


def _edit_generated(project: Project) -> None:
    path = project.out / "descriptors" / "search.json"
    path.write_text(path.read_text().replace('"search"', '"serch"'))


def _stale_generated(project: Project) -> None:
    (project.out / "descriptors" / "gone.json").write_text("{}\n")


@pytest.mark.parametrize(
    "change",
    [
        _edit_config,
        _nearer_config,
        _new_package_level,
        _edit_source,
        _new_source,
        _edit_generated,
        _stale_generated,
    ],
)
def test_any_change_that_matters_is_no_longer_answered(
    shop: Project, run: Runner, capsys: pytest.CaptureFixture[str], change: Callable[..., None]
) -> None:
    """Run from src/ (so that a nearer config can appear); after the change, the shortcut
    stays silent and the command line says what a run without any cache says."""
    os.chdir(shop.root)
    assert run("build", cwd=shop.root).code == 0
    src = Project(shop.root / "src")
    run("check", cwd=src.root)
    run("check", cwd=src.root)
    assert _answered(src, capsys, "check") is not None
    change(shop)
    assert _answered(src, capsys, "check") is None
    warm = run("check", cwd=src.root)
    cold = run("check", "--no-cache", cwd=src.root)
    assert (warm.code, warm.out) == (cold.code, cold.out)


def test_a_retargeted_symlink_in_the_config_is_noticed(
    project: Project, run: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    config = '[tool.toolgen]\nsources = ["live"]\nout = "generated"\nmin_level = 0\n'
    project.write("pyproject.toml", config)
    project.write("v1/tools.py", tool_source("search"))
    project.write("v2/tools.py", tool_source("search") + tool_source("count"))
    (project.root / "live").symlink_to("v1")
    _remembered(project, run, "check")
    assert _answered(project, capsys, "check") is not None
    (project.root / "live").unlink()
    (project.root / "live").symlink_to("v2")
    assert _answered(project, capsys, "check") is None
    assert run("check", cwd=project.root).code == 1  # count.json is missing


def test_another_environment_or_toolgen_is_another_invocation(
    shop: Project,
    run: Runner,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _remembered(shop, run, "check")
    assert _answered(shop, capsys, "check") is not None
    monkeypatch.setenv("TOOLGEN_NO_CACHE", "1")
    assert _answered(shop, capsys, "check") is None
    monkeypatch.delenv("TOOLGEN_NO_CACHE")
    real = answers._code()
    monkeypatch.setattr(answers, "_code", lambda: (*real, ("edited.py", 1, 1)))
    assert _answered(shop, capsys, "check") is None
    monkeypatch.undo()
    assert _answered(shop, capsys, "check") is not None
    assert _answered(shop, capsys, "check", "--format", "github") is None  # never run so


def test_a_damaged_entry_is_a_miss(
    shop: Project, run: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    _remembered(shop, run, "check")
    for entry in (shop.root / ".toolgen_cache" / "quick").glob("*.json"):
        entry.write_bytes(entry.read_bytes()[:-5])
    assert _answered(shop, capsys, "check") is None
    assert run("check", cwd=shop.root).code == 0


def test_folders_are_trusted_by_stat_and_listed_again_when_they_change(
    shop: Project,
    run: Runner,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the files are old enough to be trusted, an unchanged folder is not listed again;
    a changed one is, and the answer holds while it lists the same sources."""
    monkeypatch.setattr(stamp, "RACY_NS", 0)
    listed: list[int] = []
    real = stamp._sources_hold
    monkeypatch.setattr(stamp, "_sources_hold", lambda s: listed.append(1) or real(s))
    _remembered(shop, run, "check")
    time.sleep(0.05)
    assert _answered(shop, capsys, "check") is not None  # files hashed, stamped afresh
    listed.clear()
    time.sleep(0.05)
    assert _answered(shop, capsys, "check") is not None
    assert listed == []  # every folder's stat held
    shop.write("src/shop/notes.txt", "not a source\n")
    assert _answered(shop, capsys, "check") is not None
    assert listed == [1]  # src/shop changed: listed again, the same sources
    shop.write("src/shop/extra.py", tool_source("extra"))
    assert _answered(shop, capsys, "check") is None


def test_a_retargeted_symlink_between_a_source_and_its_file_is_noticed(
    project: Project, run: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    """src/tools.py -> ../vendor/current/tools.py, and vendor/current -> v1, then v2: no
    folder the discovery walked changes, but what the source is does."""
    project.write("vendor/v1/tools.py", tool_source("search"))
    project.write("vendor/v2/tools.py", tool_source("lookup"))
    (project.root / "vendor" / "current").symlink_to("v1")
    (project.root / "src").mkdir()
    (project.root / "src" / "tools.py").symlink_to("../vendor/current/tools.py")
    assert run("build", cwd=project.root).code == 0
    time.sleep(2 * stamp.FINE_RACY_NS / 1e9)  # old enough for every stat to be trusted
    run("check", cwd=project.root)
    assert _answered(project, capsys, "check") is not None
    (project.root / "vendor" / "current").unlink()
    (project.root / "vendor" / "current").symlink_to("v2")
    assert _answered(project, capsys, "check") is None
    warm = run("check", cwd=project.root)
    cold = run("check", "--no-cache", cwd=project.root)
    assert (warm.code, warm.out) == (cold.code, cold.out)
    assert warm.code == 1


def test_a_reader_that_goes_away_is_not_an_error(shop: Project, run: Runner) -> None:
    """`toolgen check | head`: the shortcut's answer to a closed pipe exits 0, as the
    command line does, without a traceback."""
    _remembered(shop, run, "check")
    child = subprocess.Popen(
        [sys.executable, "-m", "toolgen", "check"],
        cwd=shop.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # the reader is gone before anything is written
    with child.stderr:
        errors = child.stderr.read()
    assert child.wait(timeout=60) == 0
    assert b"Traceback" not in errors
