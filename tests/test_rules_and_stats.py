"""`toolgen rules` and `toolgen stats`."""

from __future__ import annotations

import json

from conftest import REPO, Project, tool_source
from toolgen.diagnostics import RULES, Diagnostic, Level, Location, sort_diagnostics


def test_rules_lists_every_rule(run) -> None:  # type: ignore[no-untyped-def]
    text = run("rules", cwd=REPO)
    assert text.code == 0
    assert [line.split()[0] for line in text.out.splitlines()] == list(RULES)
    assert "TG301  error    parameter has no entry in the docstring's Args section" in text.out
    data = run("rules", "--format", "json", cwd=REPO).json()
    assert [r["code"] for r in data["rules"]] == list(RULES)
    assert all(r["help"] for r in data["rules"])


def test_rules_reference_is_current(run) -> None:  # type: ignore[no-untyped-def]
    result = run("rules", "--format", "markdown", cwd=REPO)
    assert result.out == (REPO / "docs" / "rules.md").read_text(), (
        "run `toolgen rules --format markdown > docs/rules.md`"
    )


def test_stats_sizes_are_the_compact_payload_of_each_tool(project: Project, run) -> None:
    project.write("src/a.py", tool_source(name="small"))
    project.write("src/b.py", tool_source(name="bigger", params="query: str, limit: int = 5"))
    run("build", cwd=project.root)
    result = run("stats", "--format", "json", cwd=project.root)
    assert result.code == 0
    data = result.json()
    anthropic = json.loads((project.out / "anthropic" / "tools.json").read_text())
    expected = {
        t["name"]: len(json.dumps(t, ensure_ascii=False, separators=(",", ":"))) for t in anthropic
    }
    rows = {r["tool"]: r for r in data["tools"] if r["platform"] == "anthropic"}
    assert {name: r["chars"] for name, r in rows.items()} == expected
    assert rows["bigger"]["tokens"] == -(-expected["bigger"] // 4)
    assert data["tools"][0]["chars"] == max(r["chars"] for r in data["tools"])  # largest first
    assert data["catalogs"]["anthropic"]["chars"] == sum(expected.values())
    text = run("stats", "--top", "1", cwd=project.root).out
    assert text.splitlines()[1].split()[0] == "bigger"
    assert "... 9 more rows (--top N)" in text


def test_catalog_budget_is_a_warning(project: Project, run) -> None:
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nmin_level = 0\nbudget_catalog_tokens = 10\n',
    )
    project.write("src/a.py", tool_source())
    build = run("build", cwd=project.root)
    assert build.code == 0
    assert "pyproject.toml:4:1: TG931 [warning] anthropic catalog is about" in build.out
    assert "over the budget of 10 tokens" in run("stats", cwd=project.root).out


def test_stats_says_which_handlers_it_cannot_count(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("src/a.py", tool_source(name="small"))
    project.write("src/b.py", tool_source(name="broken", params="x"))
    text = run("stats", cwd=project.root)
    assert "src/b.py:5:12: TG203 [error]" in text.out
    assert "toolgen: 1 error above: handlers with errors are not counted" in text.out
    rows = run("stats", "--format", "json", cwd=project.root).json()
    assert {r["tool"] for r in rows["tools"]} == {"small"}
    assert [d["code"] for d in rows["diagnostics"]] == ["TG203"]
    github = run("stats", "--format", "github", cwd=project.root)
    assert github.code == 2 and "invalid choice: 'github'" in github.err


def test_stats_top_takes_a_positive_number(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("src/a.py", tool_source(name="small"))
    project.write("src/b.py", tool_source(name="bigger", params="query: str, limit: int = 5"))
    for bad in ("0", "-1", "x"):
        result = run("stats", "--top", bad, cwd=project.root)
        assert result.code == 2, bad
        assert "argument --top: must be a whole number of 1 or more" in result.err
        assert result.out == ""
    text = run("stats", "--top", "9", cwd=project.root).out  # 10 rows: 2 tools, 5 payloads
    assert "... 1 more row (--top N)" in text
    assert "more row" not in run("stats", "--top", "10", cwd=project.root).out


def test_fixed_rules_are_marked_and_cover_every_fatal_code(run) -> None:  # type: ignore[no-untyped-def]
    from toolgen.cli import FATAL_CODES
    from toolgen.policy import UNSUPPRESSIBLE

    fixed = {code for code, rule in RULES.items() if not rule.configurable}
    assert FATAL_CODES | {"TG102"} <= fixed
    assert fixed == UNSUPPRESSIBLE
    text = run("rules", cwd=REPO).out
    assert "TG102  error    two tools have the same name (level fixed)" in text
    assert "TG301  error    parameter has no entry in the docstring's Args section\n" in text
    rows = {r["code"]: r for r in run("rules", "--format", "json", cwd=REPO).json()["rules"]}
    assert {code for code, r in rows.items() if not r["configurable"]} == fixed
    assert "## TG101 (error, level fixed)" in run("rules", "--format", "markdown", cwd=REPO).out


def test_counts_of_one_are_singular(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nmin_level = 0\nbudget_catalog_tokens = 1\n',
    )
    project.write("src/a.py", tool_source().replace(". Use it for", "; use it for"))
    build = run("build", "--verbose", cwd=project.root)
    assert "over the budget of 1 token\n" in build.out
    assert "TG902 [info] tool lookup: description has 1 sentence; 2-5 tell" in build.out
    assert "toolgen: 1 tool; 9 files written, 0 removed, 0 unchanged in generated" in build.out
    (project.out / "docs" / "tools.md").unlink()
    build = run("build", cwd=project.root)
    assert "toolgen: 1 tool; 1 file written, 0 removed, 8 unchanged" in build.out
    assert run("check", cwd=project.root).out.endswith("toolgen: 1 tool; generated is up to date\n")


def test_sort_diagnostics_keeps_each_once_by_location() -> None:
    """Duplicates (same code, message, place and level) go; a level or a place of its own, or
    none, keeps a diagnostic apart; the order is by path, line, column, code, message."""
    here = Location("a.py", 3, 5)
    found = sort_diagnostics(
        [
            Diagnostic("TG301", "no docstring", Location("b.py", 1, 1)),
            Diagnostic("TG301", "no docstring", here),
            Diagnostic("TG301", "no docstring", Location("a.py", 3, 5)),  # the same
            Diagnostic("TG301", "no docstring", here, Level.INFO),
            Diagnostic("TG104", "no handlers"),
            Diagnostic("TG104", "no handlers", Location("")),
            Diagnostic("TG104", "no handlers"),  # the same
            Diagnostic("TG202", "alias", Location("a.py", 3, 1)),
        ]
    )
    assert [(d.code, str(d.location), d.severity.value) for d in found] == [
        ("TG104", "None", RULES["TG104"].level.value),
        ("TG104", ":1:1", RULES["TG104"].level.value),
        ("TG202", "a.py:3:1", RULES["TG202"].level.value),
        ("TG301", "a.py:3:5", RULES["TG301"].level.value),
        ("TG301", "a.py:3:5", "info"),
        ("TG301", "b.py:1:1", RULES["TG301"].level.value),
    ]


def test_conformance_levels_are_reported_and_enforced_only_when_set(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """With no `min_level`, a tool without Errors, Examples or Idempotency sections builds
    (level 0), and stats says which levels the tools reach; with `min_level = 1` it is TG920."""
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src"]\n')
    project.write("src/a.py", tool_source())
    build = run("build", cwd=project.root)
    assert build.code == 0 and "TG920" not in build.out, build.out
    stats = run("stats", cwd=project.root)
    assert stats.out.endswith("\nconformance levels: 0: 1 tools\n"), stats.out
    assert run("stats", "--format", "json", cwd=project.root).json()["levels"] == {"lookup": 0}
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src"]\nmin_level = 1\n')
    enforced = run("build", cwd=project.root)
    assert enforced.code == 1 and "TG920 [error] tool lookup reaches level 0" in enforced.out


def test_notes_are_counted_not_printed_unless_asked(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """A real project has many notes (info): build and check print one line that counts them
    by rule; --verbose prints them; the JSON report always has them; a replayed check says the
    same as a cold one."""
    project.write("src/a.py", tool_source().replace(". Use it for", "; use it for"))
    build = run("build", cwd=project.root)
    assert "[info]" not in build.out
    assert "toolgen: 1 note not shown (TG902 x1): --verbose shows them\n" in build.out
    verbose = run("build", "--verbose", cwd=project.root)
    assert "TG902 [info] tool lookup: description has 1 sentence" in verbose.out
    assert "not shown" not in verbose.out
    for attempt in ("cold", "replayed"):
        check = run("check", cwd=project.root)
        assert "toolgen: 1 note not shown (TG902 x1)" in check.out, attempt
        assert "TG902 [info]" in run("check", "-v", cwd=project.root).out, attempt
    rows = run("check", "--format", "json", cwd=project.root).json()["diagnostics"]
    assert [r["code"] for r in rows] == ["TG902"]
