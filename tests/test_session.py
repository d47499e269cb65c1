"""A process that builds again (`toolgen build --watch`, `toolgen.incremental.session`): what it
keeps in memory between builds (units, renders, the Python module's blocks, file hashes, what it
wrote) never makes a build differ from a cold one."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import REPO, Project, cold_snapshot, tool_source
from toolgen import run as toolgen_run
from toolgen.arguments import parser, request_of
from toolgen.incremental import stamp
from toolgen.incremental.session import Session
from toolgen.report_format import render
from toolgen.run import Run, build, check


def _build(session: Session, project: Project, *argv: str) -> tuple[int, str]:
    """`toolgen build ARGV` in this process, keeping `session` (as `--watch` does)."""
    os.chdir(project.root)
    request = request_of(parser().parse_args(["build", *argv]), None)
    report = build(Run(replace(request, jobs=1), session))
    return report.return_code, render(report)


def _check(session: Session, project: Project) -> tuple[int, str]:
    os.chdir(project.root)
    request = request_of(parser().parse_args(["check"]), None)
    report = check(Run(replace(request, jobs=1), session))
    return report.return_code, render(report)


@pytest.fixture
def examples(project: Project) -> Project:
    shutil.copytree(
        REPO / "examples", project.root / "examples", ignore=shutil.ignore_patterns("__pycache__")
    )
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["examples"]\nout = "generated"\n')
    return project


def test_edits_built_in_one_session_write_what_cold_builds_write(examples: Project, run) -> None:  # type: ignore[no-untyped-def]
    session = Session()
    assert _build(session, examples)[0] == 0
    support = examples.root / "examples" / "support"
    edits = [
        (support / "search.py", lambda t: t.replace('"""', '"""Edited. ', 1)),
        (support / "models.py", lambda t: t.replace('"""', '"""A model, edited. ', 1)),
        (support / "tickets.py", lambda t: t.replace("create_ticket", "open_ticket")),
    ]
    kept: list[int] = []
    for path, edit in edits:
        path.write_text(edit(path.read_text()))
        code, out = _build(session, examples)
        assert code == 0, out
        assert session.memory  # the units are kept between builds
        trash = examples.root / ".toolgen_cache" / "trash"
        kept.append(len(list(trash.iterdir())))  # replaced files, freed once the answer is out
        session.flush()
        assert not list(trash.iterdir())
        assert examples.snapshot() == cold_snapshot(examples, run), path.name
    assert max(kept) > 0


def test_the_python_module_follows_names_that_move(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """The Python module's class names depend on the tools before (`AArgs`, then `AArgs2`):
    an edit that changes the names one tool takes changes the names of the tools after it."""
    nested = "from pydantic import BaseModel\n\nclass AArgs(BaseModel):\n    x: int\n\n"
    project.write("src/a.py", tool_source("a"))
    project.write("src/b.py", nested + tool_source("b", params="q: AArgs"))
    session = Session()
    assert _build(session, project)[0] == 0
    before = (project.out / "python" / "tools.py").read_text()
    project.write("src/a.py", tool_source("a_renamed"))  # "AArgs" is free for b's model now
    assert _build(session, project)[0] == 0
    after = project.snapshot()
    assert after["python/tools.py"].decode() != before
    assert after == cold_snapshot(project, run)
    project.write("src/a.py", tool_source("a"))
    assert _build(session, project)[0] == 0
    assert (project.out / "python" / "tools.py").read_text() == before


def test_a_generated_file_edited_behind_the_sessions_back_is_seen(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the session wrote is trusted by `stat` once old enough, and an edit changes it."""
    monkeypatch.setattr(stamp, "RACY_NS", 0)
    project.write("src/tools.py", tool_source("search") + tool_source("count"))
    session = Session()
    assert _build(session, project)[0] == 0
    time.sleep(0.01)
    assert _check(session, project)[0] == 0
    target = project.out / "descriptors" / "search.json"
    before = target.stat()
    target.write_text(target.read_text().replace('"search"', '"serch"'))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    code, out = _check(session, project)
    assert code == 1
    assert "generated/descriptors/search.json: changed" in out
    code, out = _build(session, project)
    assert (code, "1 file written") == (0, out.split("; ")[1].split(",")[0])
    assert '"search"' in target.read_text()


def test_another_configuration_starts_afresh(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("src/tools.py", tool_source("search"))
    session = Session()
    assert _build(session, project)[0] == 0
    first = session.key
    text = (project.root / "pyproject.toml").read_text()
    project.write("pyproject.toml", text + 'platforms = ["openai"]\n')
    assert _build(session, project)[0] == 0
    assert session.key != first
    assert project.snapshot() == cold_snapshot(project, run)
    assert not (Path(project.out) / "mcp").exists()


def test_a_session_that_saw_a_source_change_does_not_read_the_stamp(
    project: Project,
    run,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """The stamp of the last build cannot hold once a file it read has changed: a build in a
    session does not load it then. With nothing changed, it still replays from it."""
    replayed: list[bool] = []

    def replay(*args: object) -> stamp.Outcome | None:
        outcome = stamp.replay_loaded(*args)  # type: ignore[arg-type]
        replayed.append(outcome is not None)
        return outcome

    monkeypatch.setattr(toolgen_run, "replay_loaded", replay)
    project.write("src/tools.py", tool_source("search"))
    session = Session()
    assert _build(session, project)[0] == 0
    session.flush()  # the stamp (a server flushes once the answer is out)
    assert _build(session, project)[1].startswith("toolgen: 1 tool; 0 files written")
    assert replayed == [False, True]  # no stamp yet; then the first build's
    project.write("src/tools.py", tool_source("search") + tool_source("count"))
    assert _build(session, project)[0] == 0
    assert replayed == [False, True]  # not asked: the session saw tools.py change
    assert project.snapshot() == cold_snapshot(project, run)
