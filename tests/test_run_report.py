"""A run returns its report (`toolgen.run.Report`) and prints nothing; `toolgen.report_format`
prints it, byte for byte as the command line does, compiled or answered from the stamp."""

from __future__ import annotations

import io
import json
from dataclasses import replace

import pytest

from conftest import Project, tool_source
from toolgen.incremental.answers import answer
from toolgen.report_format import emit, render
from toolgen.run import Request, Run


@pytest.fixture(autouse=True)
def _in_the_project(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project.root)


def _run(request: Request) -> Run:
    return Run(replace(request, jobs=1))


def test_a_build_reports_what_it_wrote_and_prints_nothing(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write("src/tools.py", tool_source("search"))
    report = _run(Request("build")).execute()
    assert capsys.readouterr() == ("", "")
    assert (report.return_code, report.tools, report.fatal) == (0, 1, False)
    assert report.files is not None
    assert "descriptors/search.json" in report.files.written
    assert (report.files.removed, report.files.unchanged) == ([], 0)
    assert render(report).endswith(
        f"toolgen: 1 tool; {len(report.files.written)} files written, 0 removed, 0 unchanged "
        "in generated\n"
    )


def test_a_check_reports_its_drift_and_exit_code(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write("src/tools.py", tool_source("search"))
    assert _run(Request("build")).execute().return_code == 0
    target = project.out / "descriptors" / "search.json"
    target.write_text(target.read_text().replace('"search"', '"serch"'))
    report = _run(Request("check", diff=True)).execute()
    assert capsys.readouterr() == ("", "")
    assert report.return_code == 1
    assert report.drift is not None
    assert report.drift.changed == ["descriptors/search.json"]
    assert (report.drift.missing, report.drift.stale) == ([], [])
    assert '-  "name": "serch"' in report.diffs["descriptors/search.json"]
    text = render(report)
    assert "generated/descriptors/search.json: changed\n" in text
    assert text.endswith(
        "toolgen: generated is out of date; run `toolgen build` to update the generated files\n"
    )


def test_a_replayed_check_prints_what_the_compiled_one_printed(project: Project) -> None:
    """The same bytes from the stamp as from a compilation, in every format; and the text a
    replay printed is what the next identical invocation is answered with."""
    ghost = "        query: The query.\n        ghost: Not a parameter."  # TG302, a warning
    project.write("src/tools.py", tool_source("search", args_doc=ghost))
    _run(Request("build")).execute()
    for fmt in ("text", "json", "github"):
        compiled = _run(Request("check", format=fmt, no_cache=True)).execute()
        assert compiled.replayed is None
        assert [d.code for d in compiled.diagnostics] == ["TG302"]
        argv = ["check", "--format", fmt]
        replayed = _run(Request("check", format=fmt, argv=argv)).execute()
        assert replayed.replayed is not None and replayed.remember is not None
        assert render(replayed) == render(compiled)
        assert replayed.return_code == compiled.return_code
        stream = io.StringIO()
        assert emit(replayed, stream) == compiled.return_code
        assert stream.getvalue() == render(compiled)


def test_the_remembered_answer_is_the_text_emit_printed(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write("src/tools.py", tool_source("search"))
    _run(Request("build")).execute()
    argv = ["check"]
    report = _run(Request("check", argv=argv)).execute()
    assert report.replayed is not None
    printed = io.StringIO()
    emit(report, printed)
    capsys.readouterr()
    assert answer(argv) == 0
    assert capsys.readouterr().out == printed.getvalue()


def test_a_run_that_cannot_read_its_config_is_a_fatal_report(project: Project) -> None:
    project.write("pyproject.toml", "[tool.toolgen]\nsources = 3\n")
    report = _run(Request("build", format="json")).execute()
    assert (report.fatal, report.return_code) == (True, 2)
    rows = json.loads(render(report))["diagnostics"]
    assert [row["code"] for row in rows] == [d.code for d in report.diagnostics]
    assert rows and rows[0]["level"] == "error"
