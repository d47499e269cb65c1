"""`toolgen init`: a [tool.toolgen] table appended (never rewritten) and an example tool that
builds cleanly at conformance level 3; it never overwrites a file and is idempotent."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from toolgen.init import EXAMPLE_HANDLER, config_table

EXAMPLE = "tools/example_tool.py"


def files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith(".")
    }


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "app"
    path.mkdir()
    return path


def test_fresh_folder_init_then_build_and_check_pass(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert "created pyproject.toml with a [tool.toolgen] table" in result.out
    assert f"wrote {EXAMPLE}, an example tool (greet_user)" in result.out
    assert (folder / "pyproject.toml").read_text() == config_table("tools")
    assert (folder / EXAMPLE).read_text() == EXAMPLE_HANDLER

    build = run("build", cwd=folder)
    assert build.code == 0, build.out
    # compiles cleanly: the summary line and not a single diagnostic
    assert build.out.splitlines() == [
        "toolgen: 1 tool; 9 files written, 0 removed, 0 unchanged in generated"
    ]
    descriptor = json.loads((folder / "generated/descriptors/greet_user.json").read_text())
    assert descriptor["conformance_level"] == 3
    assert descriptor["errors"] and len(descriptor["examples"]) == 2
    check = run("check", cwd=folder)
    assert check.code == 0, check.out


def test_the_example_reaches_level_3_when_the_project_requires_it(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    run("init", cwd=folder)
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("min_level = 1", "min_level = 3"))
    build = run("build", "--format", "json", cwd=folder)
    assert build.code == 0
    assert build.json()["diagnostics"] == []


def test_existing_pyproject_is_kept_byte_for_byte_and_the_table_appended(
    folder: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # no newline at the end, a comment, odd spacing and another tool's table: all kept
    old = b'[project]\nname = "demo"   # the name\nversion = "1.0"\n\n[tool.ruff]\nline-length = 99'
    (folder / "pyproject.toml").write_bytes(old)
    result = run("init", cwd=folder)
    assert result.code == 0, result.out
    assert "added to pyproject.toml a [tool.toolgen] table" in result.out
    new = (folder / "pyproject.toml").read_bytes()
    assert new.startswith(old)
    assert new[len(old) :] == b"\n\n" + config_table("tools").encode()
    data = tomllib.loads(new.decode())
    assert data["project"] == {"name": "demo", "version": "1.0"}
    assert data["tool"]["ruff"] == {"line-length": 99}
    assert data["tool"]["toolgen"]["sources"] == ["tools"]
    assert run("build", cwd=folder).code == 0


def test_crlf_pyproject_gets_crlf_lines(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    old = b'[project]\r\nname = "demo"\r\n'
    (folder / "pyproject.toml").write_bytes(old)
    assert run("init", cwd=folder).code == 0
    new = (folder / "pyproject.toml").read_bytes()
    assert new == old + b"\r\n" + config_table("tools", "\r\n").encode()
    assert b"\n" not in new.replace(b"\r\n", b"")


def test_existing_table_changes_nothing(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    (folder / "pyproject.toml").write_text('[tool.toolgen]\nsources = ["handlers"]\n')
    before = files(folder)
    result = run("init", cwd=folder)
    assert result.code == 0
    assert result.out == (
        "toolgen: pyproject.toml already has a [tool.toolgen] table; nothing changed\n"
    )
    assert files(folder) == before  # no example either: the project is set up already


def test_a_sub_table_alone_counts_as_configured(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    (folder / "pyproject.toml").write_text('[tool.toolgen.rules]\nTG904 = "off"\n')
    before = files(folder)
    assert "nothing changed" in run("init", cwd=folder).out
    assert files(folder) == before


def test_existing_example_file_is_never_overwritten(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    mine = folder / EXAMPLE
    mine.parent.mkdir()
    mine.write_text("# my own file\n")
    result = run("init", cwd=folder)
    assert result.code == 0
    assert f"toolgen: {EXAMPLE} exists; left as it is" in result.out
    assert mine.read_text() == "# my own file\n"
    assert "[tool.toolgen]" in (folder / "pyproject.toml").read_text()


def test_init_twice_is_idempotent(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    (folder / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    assert run("init", cwd=folder).code == 0
    after_first = files(folder)
    second = run("init", cwd=folder)
    assert second.code == 0
    assert "nothing changed" in second.out
    assert files(folder) == after_first


def test_src_layout_puts_the_example_in_a_tools_subpackage(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    (folder / "pyproject.toml").write_text('[project]\nname = "My-App"\n')
    for package in ("my_app", "other"):
        (folder / "src" / package).mkdir(parents=True)
        (folder / "src" / package / "__init__.py").write_text("")
    result = run("init", cwd=folder)
    assert result.code == 0
    assert 'sources = ["src/my_app/tools"]' in result.out
    assert (folder / "src/my_app/tools/__init__.py").is_file()
    assert (folder / "src/my_app/tools/example_tool.py").read_text() == EXAMPLE_HANDLER
    assert run("build", cwd=folder).code == 0
    descriptor = json.loads((folder / "generated/descriptors/greet_user.json").read_text())
    assert descriptor["source"]["module"] == "my_app.tools.example_tool"


def test_path_and_sources_options(tmp_path: Path, folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    result = run("init", "--path", "app", "--sources", "lib/handlers", cwd=tmp_path)
    assert result.code == 0, result.out
    assert "toolgen: created app/pyproject.toml" in result.out
    assert "wrote app/lib/handlers/example_tool.py" in result.out
    assert not (folder / "lib/handlers/__init__.py").exists()  # lib is not a package
    config = tomllib.loads((folder / "pyproject.toml").read_text())
    assert config["tool"]["toolgen"]["sources"] == ["lib/handlers"]
    assert run("build", cwd=folder).code == 0


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ("--path", "missing"), "TG006 [error] missing is not a folder"),
        ("file", ("--path", "app/afile"), "TG006 [error] app/afile is not a folder"),
        (b"[project\nname = 1\n", ("--path", "app"), "app/pyproject.toml:1:9: TG006 [error] "),
        (b"tool = {ruff = {}}\n", ("--path", "app"), "cannot append a [tool.toolgen] table"),
        (b"\xff\xfe", ("--path", "app"), "TG006 [error] cannot read app/pyproject.toml"),
        (None, ("--path", "app", "--sources", "../elsewhere"), "is outside the project app"),
        ("file", ("--path", "app", "--sources", "afile"), "--sources afile is not a folder"),
    ],
)
def test_unusable_input_is_a_diagnostic_and_changes_nothing(
    tmp_path: Path,
    folder: Path,
    run,  # type: ignore[no-untyped-def]
    setup: bytes | str | None,
    args: tuple[str, ...],
    message: str,
) -> None:
    if setup == "file":
        (folder / "afile").write_text("x")
    elif isinstance(setup, bytes):
        (folder / "pyproject.toml").write_bytes(setup)
    before = files(tmp_path)
    result = run("init", *args, cwd=tmp_path)
    assert result.code == 2
    assert message in result.out
    assert result.out.rstrip().endswith("nothing was changed")
    assert "Traceback" not in result.out + result.err
    assert files(tmp_path) == before


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        # a file on the way: found before anything is written (it was a NotADirectoryError
        # traceback after pyproject.toml had already been appended to)
        ("README.md/tools", "--sources README.md/tools: README.md is not a folder"),
        ("README.md/a/b", "--sources README.md/a/b: README.md is not a folder"),
        ("", "--sources is empty; name the folder for the example tool"),  # not `tools`
        (" ", "--sources is empty"),
        ("box", "box/example_tool.py is not a file"),
    ],
)
def test_sources_that_cannot_hold_the_example_change_nothing(
    folder: Path,
    run,  # type: ignore[no-untyped-def]
    sources: str,
    message: str,
) -> None:
    (folder / "pyproject.toml").write_text('[project]\nname = "i2"\n')
    (folder / "README.md").write_text("hi\n")
    (folder / "box" / "example_tool.py").mkdir(parents=True)
    before = files(folder)
    result = run("init", "--sources", sources, cwd=folder)
    assert result.code == 2, result.out
    assert f"TG006 [error] {message}" in result.out
    assert result.out.rstrip().endswith("nothing was changed")
    assert "Traceback" not in result.out + result.err
    assert files(folder) == before
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "box", "pyproject.toml"]


def test_a_file_where_the_default_folder_goes_is_a_diagnostic(folder: Path, run) -> None:  # type: ignore[no-untyped-def]
    (folder / "tools").write_text("not a folder\n")
    result = run("init", cwd=folder)
    assert result.code == 2
    assert "TG006 [error] the sources folder tools is not a folder; nothing was changed" in (
        result.out
    )
    assert not (folder / "pyproject.toml").exists()


def test_a_folder_that_fails_after_planning_leaves_pyproject_as_it_was(folder: Path) -> None:
    """What `plan_init` checked can change before `apply_init` writes: the failure is TG006,
    and pyproject.toml (written last) is untouched."""
    from toolgen.diagnostics import UserError
    from toolgen.init import apply_init, plan_init

    old = b'[project]\nname = "demo"\n'
    (folder / "pyproject.toml").write_bytes(old)
    plan = plan_init(Path(), "lib/tools", cwd=folder)
    (folder / "lib").write_text("a file now\n")
    with pytest.raises(UserError) as caught:
        apply_init(plan, cwd=folder)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "TG006"
    assert diagnostic.message == ("cannot write lib/tools: Not a directory; nothing was changed")
    assert (folder / "pyproject.toml").read_bytes() == old


class FullDisk:
    """`open` for toolgen.init whose appends write part of their bytes, then fail."""

    def __init__(self) -> None:
        self.real = open

    def __call__(self, path: Path, mode: str = "r", **kwargs: object) -> object:
        handle = self.real(path, mode, **kwargs)  # type: ignore[call-overload]
        if mode != "ab":
            return handle

        def write(data: bytes) -> int:
            handle.raw.write(data[:10])  # straight to the file, as a partial write would
            raise OSError(28, "No space left on device")

        handle.write = write
        return handle


@pytest.mark.parametrize("existing", [b'[project]\nname = "demo"\n', None])
def test_a_failing_append_says_what_was_written_and_keeps_pyproject(
    folder: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
    existing: bytes | None,
) -> None:
    import toolgen.init

    if existing is not None:
        (folder / "pyproject.toml").write_bytes(existing)
    monkeypatch.setattr(toolgen.init, "open", FullDisk(), raising=False)
    result = run("init", cwd=folder)
    assert result.code == 2
    verb, state = (
        ("append a [tool.toolgen] table to", "changed") if existing else ("create", "created")
    )
    assert result.out == (
        f"TG006 [error] cannot {verb} pyproject.toml: No space left on device; "
        f"created tools/, wrote {EXAMPLE}, but pyproject.toml was not {state}; "
        "fix the problem, then run `toolgen init` again\n"
    )
    assert "Traceback" not in result.err
    if existing is None:
        assert not (folder / "pyproject.toml").exists()
    else:
        assert (folder / "pyproject.toml").read_bytes() == existing  # the part written undone
    assert (folder / EXAMPLE).read_text() == EXAMPLE_HANDLER

    monkeypatch.delattr(toolgen.init, "open")  # room again: running init again finishes
    again = run("init", cwd=folder)
    assert again.code == 0, again.out
    assert f"toolgen: {EXAMPLE} exists; left as it is" in again.out
    assert tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["toolgen"]
    assert run("build", cwd=folder).code == 0
