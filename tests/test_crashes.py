"""Crashes and wedges (red-team issue, part 4): folder trees a thousand levels deep in the
sources or in `out`, configuration files whose `tool` table is no table or whose path the
system refuses, and catalogs whose names collide with what `out` reserves or cannot be
written as `build` reports them. Each is a located diagnostic or just works; never a
traceback, and `check` is never green while a file `build` listed is missing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Project, Run, tool_source
from toolgen.config import load_config
from toolgen.watch.loop import ChangeFilter

DEPTH = 1100  # past Python's default recursion limit of 1000


def _no_traceback(result: Run) -> None:
    for text in (result.out, result.err):
        assert "Traceback" not in text and "internal error" not in text, text[-3000:]


def _deep(base: Path, depth: int = DEPTH) -> Path:
    """`depth` folders `d/d/...` below `base` (made one at a time: `os.makedirs` recurses);
    the deepest."""
    folder = base
    for _ in range(depth):
        folder = folder / "d"
        folder.mkdir()
    return folder


def _remove_deep(base: Path) -> None:
    """Remove the tree `_deep` made under `base`, deepest first (`shutil.rmtree` recurses)."""
    top = base / "d"
    if not top.is_dir():
        return
    folders = [top]
    while (folders[-1] / "d").is_dir():
        folders.append(folders[-1] / "d")
    for folder in reversed(folders):
        for entry in folder.iterdir():
            if not entry.is_dir():
                entry.unlink()
        folder.rmdir()


@pytest.fixture
def deep_places(project: Project) -> Iterator[list[Path]]:
    """Folders whose deep trees are removed after the test (pytest's cleanup recurses)."""
    places: list[Path] = []
    yield places
    for place in places:
        _remove_deep(place)


# -- folder trees a thousand levels deep -------------------------------------------------------
def test_a_source_tree_a_thousand_folders_deep_builds(
    project: Project, run, deep_places: list[Path]
) -> None:
    project.write("src/tools.py", tool_source())
    deep_places.append(project.root / "src")
    bottom = _deep(project.root / "src")
    (bottom / "far.py").write_text(tool_source("far_lookup"))
    result = run("build", cwd=project.root)
    _no_traceback(result)
    assert result.code == 0, result.out[-3000:]
    assert project.descriptor("far_lookup")["source"]["module"] == "far"
    check = run("check", "--no-cache", cwd=project.root)
    _no_traceback(check)
    assert check.code == 0, check.out[-3000:]


def test_build_watch_follows_a_source_tree_a_thousand_folders_deep(
    project: Project, deep_places: list[Path]
) -> None:
    project.write("src/tools.py", tool_source())
    deep_places.append(project.root / "src")
    bottom = _deep(project.root / "src")
    watched = ChangeFilter(load_config(None, cwd=project.root))  # the folders it watches
    assert bottom in watched.folders
    assert watched.counts(bottom / "new.py")


@pytest.mark.parametrize("under", ["openai", "descriptors", "mine"])
def test_out_holding_a_tree_a_thousand_folders_deep_builds_and_checks(
    project: Project, run, deep_places: list[Path], under: str
) -> None:
    """In a renderer's folder (walked for symlinks and for the stamp) or a folder of one's
    own in `out`."""
    project.write("src/tools.py", tool_source())
    assert run("build", cwd=project.root).code == 0
    (project.out / under).mkdir(exist_ok=True)
    deep_places.append(project.out / under)
    (_deep(project.out / under) / "mine.json").write_text("{}\n")
    project.write("src/tools.py", tool_source(params="query: str, page: int = 1"))
    for args in (("build",), ("check",), ("build", "--no-cache"), ("check", "--no-cache")):
        result = run(*args, cwd=project.root)
        _no_traceback(result)
        assert result.code == 0, (args, result.out[-3000:])
    assert "page" in project.descriptor("lookup")["parameters"]["properties"]
