"""`toolgen fix` from the command line: modes, exit codes, and the repository's own examples."""

from __future__ import annotations

from conftest import REPO, Project, tool_source

STALE = tool_source(
    params="query: str, limit: int = 5", args_doc="        query: Words.\n        gone: Old."
)


def test_check_mode_exits_1_and_writes_nothing(project: Project, run) -> None:
    path = project.write("src/tools.py", STALE)
    before = path.read_text()
    result = run("fix", "--check", cwd=project.root)
    assert result.code == 1
    assert "toolgen: 1 of 1 file would be fixed" in result.out
    assert "src/tools.py:" in result.out and "TG802 [warning]" in result.out
    assert path.read_text() == before


def test_diff_mode_prints_a_unified_diff(project: Project, run) -> None:
    path = project.write("src/tools.py", STALE)
    before = path.read_text()
    result = run("fix", "--diff", cwd=project.root)
    assert result.code == 0
    assert "--- a/src/tools.py\n+++ b/src/tools.py\n" in result.out
    assert "-        gone: Old.\n" in result.out
    assert path.read_text() == before


def test_write_mode_fixes_and_a_second_run_changes_nothing(project: Project, run) -> None:
    path = project.write("src/tools.py", STALE)
    assert run("fix", cwd=project.root).code == 0
    fixed = path.read_text()
    assert "gone: Old." not in fixed
    assert "        limit: TODO: describe this parameter.\n" in fixed
    again = run("fix", "--check", cwd=project.root)
    assert again.code == 0
    assert path.read_text() == fixed


def test_syntax_error_exits_2_and_leaves_the_file(project: Project, run) -> None:
    path = project.write("src/tools.py", "def broken(:\n")
    result = run("fix", cwd=project.root)
    assert result.code == 2
    assert "src/tools.py:1:12: TG804 [error]" in result.out
    assert path.read_text() == "def broken(:\n"


def test_repository_examples_need_no_fix(run) -> None:  # type: ignore[no-untyped-def]
    result = run("fix", "--check", cwd=REPO)
    assert result.code == 0, result.out
    assert "toolgen: 0 of" in result.out


def test_a_placeholder_is_not_a_description(project: Project, run) -> None:
    project.write("src/tools.py", STALE)
    run("fix", cwd=project.root)
    build = run("build", cwd=project.root)
    assert build.code == 1  # `limit` still has only the placeholder
    assert (
        "TG301 [error] parameter `limit` is not described: replace the placeholder "
        "`TODO: describe this parameter.` in the docstring's Args section with what it means"
    ) in build.out


def test_a_source_that_cannot_be_read_exits_2(project: Project, run) -> None:
    """As `build` does for the same file (TG005): a symlink that loops."""
    project.write("src/tools.py", STALE)
    (project.root / "src" / "loop.py").symlink_to("loop.py")
    for mode in ((), ("--check",), ("--diff",)):
        result = run("fix", *mode, cwd=project.root)
        assert result.code == 2, (mode, result.out)
        assert "src/loop.py:1:1: TG005 [error] cannot read src/loop.py" in result.out
