"""`toolgen build` and `toolgen check` end to end on small temporary projects."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import Project, tool_source


def test_build_writes_every_output_file(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    expected = {
        "descriptors/lookup.json",
        "openai/chat_completions.json",
        "openai/responses.json",
        "anthropic/tools.json",
        "gemini/function_declarations.json",
        "mcp/tools.json",
        "docs/tools.md",
        "python/tools.py",
        "manifest.json",
    }
    assert set(project.snapshot()) == expected
    manifest = project.generated("manifest.json")
    assert set(manifest["files"]) == expected - {"manifest.json"}
    assert "1 tool; 9 files written" in result.out


def test_output_is_byte_stable_and_formatted(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    run("build", cwd=project.root)
    first = project.snapshot()
    for relpath, data in first.items():
        if not relpath.endswith(".json"):
            continue
        text = data.decode("utf-8")
        assert text.endswith(("}\n", "]\n")), relpath
        assert json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n" == text
        assert str(project.root) not in text, f"absolute path in {relpath}"
    (project.out).rename(project.root / "old")
    run("build", cwd=project.root)
    assert project.snapshot() == first


def test_unchanged_files_are_not_rewritten(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    run("build", cwd=project.root)
    path = project.out / "descriptors" / "lookup.json"
    os.utime(path, (1, 1))
    result = run("build", cwd=project.root)
    assert result.code == 0
    assert path.stat().st_mtime == 1
    assert "0 files written" in result.out


def test_build_removes_stale_files_and_check_reports_them(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    project.write("src/more.py", tool_source(name="other"))
    run("build", cwd=project.root)
    assert (project.out / "descriptors" / "other.json").exists()
    (project.root / "src" / "more.py").unlink()

    check = run("check", cwd=project.root)
    assert check.code == 1
    assert "generated/descriptors/other.json: stale" in check.out
    assert "run `toolgen build`" in check.out

    build = run("build", cwd=project.root)
    assert build.code == 0
    assert not (project.out / "descriptors" / "other.json").exists()
    assert run("check", cwd=project.root).code == 0


def test_build_leaves_unrelated_files_in_out_alone(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    project.write("generated/README.md", "hand-written notes\n")
    run("build", cwd=project.root)
    assert (project.out / "README.md").read_text() == "hand-written notes\n"
    assert run("check", cwd=project.root).code == 0


def test_check_reports_missing_and_changed_with_diff(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    missing = run("check", cwd=project.root)
    assert missing.code == 1
    assert "generated/descriptors/lookup.json: missing" in missing.out

    run("build", cwd=project.root)
    assert run("check", cwd=project.root).code == 0
    project.write("src/tools.py", tool_source().replace("Look something up", "Find something"))
    changed = run("check", "--diff", cwd=project.root)
    assert changed.code == 1
    assert "generated/descriptors/lookup.json: changed" in changed.out
    # headers name the file as the drift lines do (as `toolgen fix --diff` names sources)
    header = "--- a/generated/descriptors/lookup.json\n+++ b/generated/descriptors/lookup.json\n"
    assert header in changed.out
    assert '-  "description": "Look something up in the catalog. Use it for product' in changed.out
    assert '+  "description": "Find something in the catalog. Use it for product' in changed.out
    assert changed.out.rstrip().endswith("run `toolgen build` to update the generated files")


def test_check_never_writes(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    run("check", cwd=project.root)
    assert project.snapshot() == {}


def test_check_json_and_github_formats(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    result = run("check", "--format", "json", cwd=project.root)
    assert result.code == 1
    report = result.json()
    assert report["tools"] == 1
    assert "generated/descriptors/lookup.json" in report["drift"]["missing"]
    github = run("check", "--format", "github", cwd=project.root)
    assert "::error file=generated/manifest.json,title=missing::missing;" in github.out


def test_manifest_version_alone_is_not_drift(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    run("build", cwd=project.root)
    manifest = project.out / "manifest.json"
    data = json.loads(manifest.read_text())
    data["toolgen_version"] = "0.0.1"
    manifest.write_text(json.dumps(data, indent=2) + "\n")
    assert run("check", cwd=project.root).code == 0


def test_config_flag_works_from_any_folder(project: Project, run, tmp_path: Path) -> None:
    project.write("src/tools.py", tool_source())
    config = '[tool.toolgen]\nsources = ["../src"]\nout = "../gen2"\nmin_level = 0\n'
    project.write("conf/toolgen.toml", config)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run("build", "--config", str(project.root / "conf" / "toolgen.toml"), cwd=elsewhere)
    assert result.code == 0, result.out
    assert (project.root / "gen2" / "descriptors" / "lookup.json").exists()
    assert not (elsewhere / "generated").exists()


def test_the_fix_hint_repeats_what_the_check_was_given(project: Project, run) -> None:
    """A drift hint that can be pasted as it is: the same sources, config and out."""
    project.write("src/tools.py", tool_source())
    project.write("conf/my toolgen.toml", '[tool.toolgen]\nsources = ["../src"]\nmin_level = 0\n')
    config = "conf/my toolgen.toml"
    result = run("check", "--config", config, "--out", "gen", cwd=project.root)
    assert result.code == 1
    hint = "run `toolgen build --config 'conf/my toolgen.toml' --out gen` to update"
    assert hint in result.out
    assert run("build", "--config", config, "--out", "gen", cwd=project.root).code == 0
    (project.root / "gen" / "descriptors" / "lookup.json").unlink()
    github = run("check", "src", "--out", "gen", "--format", "github", cwd=project.root)
    assert "run `toolgen build src --out gen` to update" in github.out


def test_config_mistakes_are_said_plainly(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    folder = run("build", "--config", "src", cwd=project.root)
    assert folder.code == 2
    assert "TG001 [error] configuration file src is a folder: give a TOML file" in folder.out
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src", "nope"]\nplatforms = []\nmarkers = []\n',
    )
    empty = run("build", cwd=project.root)
    assert empty.code == 2
    assert "pyproject.toml:2:1: TG003 [error] source path nope does not exist" in empty.out
    assert (
        "pyproject.toml:3:1: TG002 [error] [tool.toolgen] platforms: must name at least one of "
        "openai, anthropic, gemini, mcp" in empty.out
    )
    assert "pyproject.toml:4:1: TG002 [error] [tool.toolgen] markers: must name at least" in (
        empty.out
    )


def test_nearest_pyproject_is_found_from_a_subfolder(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    result = run("build", cwd=project.root / "src")
    assert result.code == 0, result.out
    assert (project.out / "descriptors" / "lookup.json").exists()


def test_paths_and_out_override_the_config(project: Project, run) -> None:
    project.write("other/tools.py", tool_source(name="other_tool"))
    result = run("build", "other", "--out", "gen", cwd=project.root)
    assert result.code == 0, result.out
    assert (project.root / "gen" / "descriptors" / "other_tool.json").exists()


def test_out_outside_the_project_is_refused(project: Project, run) -> None:
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src"]\nout = "../outside"\n')
    project.write("src/tools.py", tool_source())
    result = run("build", cwd=project.root)
    assert result.code == 2
    assert "TG004" in result.out
    assert not (project.root.parent / "outside").exists()


def test_paths_given_on_the_command_line_must_be_inside_the_project(
    project: Project, run, tmp_path: Path
) -> None:
    """As in the config, through symlinks too; located nowhere in the config file, since the
    config did not name them."""
    project.write("src/tools.py", tool_source())
    outside = tmp_path / "outside_src"
    outside.mkdir()
    (outside / "ext.py").write_text(tool_source(name="ext"))
    (project.root / "src_link").symlink_to(outside)
    for given in ("src_link", str(outside)):
        result = run("build", given, cwd=project.root)
        assert result.code == 2, result.out
        assert result.out.startswith(f"TG003 [error] source path {outside} (given as PATH) is ")
        assert not project.out.exists()
    result = run("build", "nonexist", cwd=project.root)
    assert result.out.startswith("TG003 [error] source path ")
    assert "nonexist (given as PATH) does not exist" in result.out
    result = run("build", "--out", str(tmp_path / "gen"), cwd=project.root)
    assert result.out.startswith(f"TG004 [error] out {tmp_path / 'gen'} (given as --out) must ")
    assert not (tmp_path / "gen").exists()


def test_a_path_in_the_way_of_out_is_TG008_and_nothing_is_written(project: Project, run) -> None:
    """A file where `out` or one of its folders must be, or a folder where a file must be:
    one located TG008 (exit 2), no traceback, and `out` exactly as it was: no new file, no
    temporary file, no empty folder."""
    project.write("src/tools.py", tool_source())
    project.write("afile", "mine\n")
    result = run("build", "--out", "afile", cwd=project.root)
    assert (result.code, result.err) == (2, "")
    assert result.out.startswith("afile:1:1: TG008 [error] cannot write afile: it is a file,")
    assert (project.root / "afile").read_text() == "mine\n"
    for blocker, message in [
        ("generated/openai", "generated/openai: it is a file, not a folder"),
        ("generated/descriptors/lookup.json/", "lookup.json: it is a folder, not a file"),
    ]:
        shutil.rmtree(project.out, ignore_errors=True)
        if blocker.endswith("/"):
            (project.root / blocker).mkdir(parents=True)
        else:
            project.write(blocker, "mine\n")
        before = sorted(p.relative_to(project.out) for p in project.out.rglob("*"))
        result = run("build", cwd=project.root)
        assert (result.code, result.err) == (2, ""), result.out
        shown = blocker.rstrip("/")
        assert result.out.startswith(f"{shown}:1:1: TG008 [error] cannot write "), result.out
        assert message in result.out and "nothing in generated was changed" in result.out
        assert sorted(p.relative_to(project.out) for p in project.out.rglob("*")) == before
    shutil.rmtree(project.out)
    assert run("build", cwd=project.root).code == 0  # out of the way: it builds


def test_a_write_that_fails_midway_is_TG008_and_nothing_is_changed(
    project: Project, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk at the third new file: the two files already staged and the folders made
    for them are removed again; every file in `out` is as it was (here: no `out` at all, then
    a built one)."""
    import toolgen.output

    project.write("src/tools.py", tool_source())
    real, calls = toolgen.output._stage, []

    def full_disk(target: Path, data: bytes, staged: Path) -> None:
        calls.append(target)
        if len(calls) % 10 == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target.parent))
        real(target, data, staged)

    monkeypatch.setattr(toolgen.output, "_stage", full_disk)
    for setup in ("nothing built yet", "built, then a tool added"):
        if setup.startswith("built"):
            monkeypatch.setattr(toolgen.output, "_stage", real)
            assert run("build", cwd=project.root).code == 0
            project.write("src/more.py", tool_source(name="second"))
            monkeypatch.setattr(toolgen.output, "_stage", full_disk)
            calls.clear()
        before = project.snapshot()
        folders = _folders(project.out)
        result = run("build", cwd=project.root)
        assert (result.code, result.err) == (2, ""), result.out
        failed = calls[2].parent.relative_to(project.root).as_posix()
        assert f"TG008 [error] cannot write {failed}: No space left on device" in result.out
        assert project.snapshot() == before, setup
        assert _folders(project.out) == folders, setup
    assert not (project.out / "descriptors" / "second.json").exists()


def _folders(out: Path) -> list[Path]:
    """`out` and the folders in it, if it is there."""
    return sorted(p for p in [out, *out.rglob("*")] if p.is_dir())


def test_usage_errors_exit_2(project: Project, run) -> None:
    assert run("build", "--no-such-flag", cwd=project.root).code == 2
    assert run("frobnicate", cwd=project.root).code == 2


def test_quiet_build_prints_nothing_when_clean(project: Project, run) -> None:
    project.write("src/tools.py", tool_source())
    result = run("build", "--quiet", cwd=project.root)
    assert result.code == 0
    assert result.out == ""


def test_warnings_do_not_block_build_but_fail_check_with_fail_on_warning(
    project: Project, run
) -> None:
    project.write("src/tools.py", tool_source(params="query: str, labels: dict[str, int]"))
    build = run("build", cwd=project.root)
    assert build.code == 0
    assert "TG601 [warning]" in build.out  # free-form dict: not OpenAI-strict
    assert run("check", cwd=project.root).code == 0
    assert run("check", "--fail-on", "warning", cwd=project.root).code == 1


def test_partial_example_is_a_warning_and_not_sent_as_input(project: Project, run) -> None:
    doc = (
        "\n    Examples:\n"
        '        >>> lookup(query="x")\n        "a"\n\n'
        '        >>> lookup(query="x", limit=2)\n        "b"\n'
    )
    project.write("src/tools.py", tool_source(params="query: str, limit: int", extra_doc=doc))
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "src/tools.py:13:9: TG504 [warning] example arguments: /: 'limit' is a required" in (
        result.out
    )
    assert len(project.descriptor("lookup")["examples"]) == 2
    (tool,) = project.generated("anthropic/tools.json")
    assert tool["input_examples"] == [{"query": "x", "limit": 2}]


def test_an_invalid_example_never_reaches_the_payload_even_when_its_report_is_off(
    project: Project, run
) -> None:
    """TG501 silenced by an ignore comment, or switched off in config: the example stays in the
    descriptor (documentation) but not in Anthropic's `input_examples`, which the API checks."""
    doc = (
        "\n    Examples:\n"
        '        >>> lookup(query="x", limit="many")\n        "a"\n\n'
        '        >>> lookup(query="x", limit=2, nope=3)\n        "b"\n\n'
        '        >>> lookup(query="y", limit=3)\n        "c"\n'
    )
    params = "query: str, limit: int"
    ignored = tool_source(params=params, extra_doc=doc, decorator="@tool  # toolgen: ignore")
    for source, config in [
        (ignored, ""),
        (tool_source(params=params, extra_doc=doc), '\n[tool.toolgen.rules]\nTG501 = "off"\n'),
    ]:
        project.write("src/tools.py", source)
        project.write(
            "pyproject.toml", '[tool.toolgen]\nsources = ["src"]\nmin_level = 0\n' + config
        )
        result = run("build", cwd=project.root)
        assert result.code == 0, result.out
        assert "TG501" not in result.out
        assert len(project.descriptor("lookup")["examples"]) == 3
        (tool,) = project.generated("anthropic/tools.json")
        assert tool["input_examples"] == [{"query": "y", "limit": 3}]


def test_check_says_when_fail_on_fails_it(project: Project, run) -> None:
    """Up to date, but failing on warnings: the last line says why it exits 1, compiled or
    answered from the cache, and JSON and GitHub say it too."""
    project.write("src/tools.py", tool_source(params="query: str, labels: dict[str, int]"))
    assert run("build", cwd=project.root).code == 0
    plain = run("check", cwd=project.root)
    assert plain.code == 0
    assert plain.out.splitlines()[-1] == "toolgen: 1 tool; generated is up to date"
    assert "failing" not in plain.out
    for extra in ((), ("--no-cache",)):
        result = run("check", "--fail-on", "warning", *extra, cwd=project.root)
        assert result.code == 1
        assert result.out.splitlines()[-2:] == [
            "toolgen: 1 tool; generated is up to date",
            "toolgen: failing: 1 warning at or above --fail-on warning",
        ], result.out
    info = run("check", "--fail-on", "info", cwd=project.root).out
    assert info.splitlines()[-1] == "toolgen: failing: 1 warning at or above --fail-on info"
    data = run("check", "--fail-on", "warning", "--format", "json", cwd=project.root).json()
    assert (data["fail_on"], data["failing"]) == ("warning", {"warning": 1})
    data = run("check", "--format", "json", cwd=project.root).json()
    assert (data["fail_on"], data["failing"]) == ("error", {})
    github = run("check", "--fail-on", "warning", "--format", "github", cwd=project.root)
    assert github.out.splitlines()[-1] == (
        "::error title=toolgen --fail-on::failing: 1 warning at or above --fail-on warning"
    )
    assert "::error" not in run("check", "--format", "github", cwd=project.root).out


def test_handlers_in_a_module_python_cannot_import_are_a_warning(project: Project, run) -> None:
    project.write("src/my-tools.py", tool_source(name="first"))
    for package in ("src/pkg/__init__.py", "src/pkg/class/__init__.py"):
        project.write(package, "")
    project.write("src/pkg/class/tools.py", tool_source(name="second"))  # `class`: a keyword
    project.write("src/notes-1.py", "X = 1\n")  # no handler: nothing to import, no warning
    project.write("src/ok_tools.py", tool_source(name="third"))
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    found = [line for line in result.out.splitlines() if "TG105" in line]
    assert found == [
        "src/my-tools.py:1:1: TG105 [warning] module `my-tools` cannot be imported by that name "
        "(every part must be a Python identifier): rename the file or folder",
        "src/pkg/class/tools.py:1:1: TG105 [warning] module `pkg.class.tools` cannot be "
        "imported by that name (every part must be a Python identifier): rename the file or folder",
    ]
    assert project.descriptor("first")["source"]["module"] == "my-tools"  # built all the same


def test_field_default_ellipsis_means_required_as_in_pydantic(project: Project, run) -> None:
    imports = "from typing import Annotated\nfrom pydantic import Field"
    params = "query: Annotated[str, Field(default=...)], page: Annotated[int, Field(..., ge=1)]"
    project.write("src/tools.py", tool_source(params=params, imports=imports))
    assert run("build", cwd=project.root).code == 0
    parameters = project.descriptor("lookup")["parameters"]
    assert parameters["required"] == ["query", "page"]
    assert "default" not in parameters["properties"]["query"]
