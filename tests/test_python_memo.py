"""The Python module's blocks kept in the cache between runs of their own (`StoredMemo`): a
build renders again only the tools whose blocks it does not hold for the names taken before
them, and makes the bytes a build without the cache makes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import Project, cold_snapshot, tool_source
from toolgen.incremental.cache import load_entry, store_entry
from toolgen.pipeline import PYTHON
from toolgen.render import python
from toolgen.render.python import StoredMemo, python_module

NESTED = "from pydantic import BaseModel\n\nclass AArgs(BaseModel):\n    x: int\n\n"


class _Tool:
    def __init__(self, name: str, parameters: dict[str, Any], key: str = "") -> None:
        self.name, self.key = name, key or name
        self._parameters = parameters
        self.asked = 0

    @property
    def parameters(self) -> dict[str, Any]:
        self.asked += 1
        return self._parameters


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": sorted(properties)}


def _typed_dicts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the TypedDicts rendered from now on (each a tool's or a model's)."""
    made: list[str] = []
    typed_dict = python._Writer.typed_dict

    def counted(self: Any, name: str, schema: dict[str, Any], defs: dict[str, Any]) -> str:
        made.append(name)
        return typed_dict(self, name, schema, defs)

    monkeypatch.setattr(python._Writer, "typed_dict", counted)
    return made


def test_a_second_run_renders_only_the_tool_that_changed(
    project: Project,
    run,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    for name in ("alpha", "beta", "gamma"):
        project.write(f"src/{name}.py", tool_source(name))
    assert run("build", cwd=project.root).code == 0
    made = _typed_dicts(monkeypatch)
    project.write("src/beta.py", tool_source("beta", params="query: str, limit: int = 5"))
    assert run("build", cwd=project.root).code == 0
    assert made == ["BetaArgs"]
    assert project.snapshot() == cold_snapshot(project, run)


def test_names_that_move_are_followed_by_runs_of_their_own(
    project: Project,
    run,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """`b`'s model takes the name `AArgs` only while no tool `a` took it first: an edit to `a`
    changes the names of the tools after it, and the memo must not replay the old ones."""
    project.write("src/a.py", tool_source("a"))
    project.write("src/b.py", NESTED + tool_source("b", params="q: AArgs"))
    assert run("build", cwd=project.root).code == 0
    before = (project.out / "python" / "tools.py").read_text()
    assert "class AArgs2(TypedDict)" in before
    made = _typed_dicts(monkeypatch)
    project.write("src/a.py", tool_source("a_renamed"))  # "AArgs" is free for b's model now
    assert run("build", cwd=project.root).code == 0
    assert made == ["ARenamedArgs", "BArgs", "AArgs"]  # b again: the names before it moved
    assert "class AArgs2(TypedDict)" not in (project.out / "python" / "tools.py").read_text()
    assert project.snapshot() == cold_snapshot(project, run)
    made.clear()
    project.write("src/a.py", tool_source("a"))
    assert run("build", cwd=project.root).code == 0
    assert made == ["AArgs", "BArgs", "AArgs2"]  # only the last run's blocks are kept
    assert (project.out / "python" / "tools.py").read_text() == before


def test_a_damaged_or_foreign_memo_is_rendered_around(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("src/a.py", tool_source("a"))
    project.write("src/b.py", NESTED + tool_source("b", params="q: AArgs"))
    assert run("build", cwd=project.root).code == 0
    folder = project.root / ".toolgen_cache"
    [entry] = (folder / PYTHON).iterdir()
    key = entry.name.removesuffix(".json")
    stored = load_entry(folder, PYTHON, key)
    assert isinstance(stored, dict) and len(stored) == 2
    first = sorted(stored)[0]
    store_entry(folder, PYTHON, key, {**stored, first: ["not", "an"], "x": 1})
    shutil.rmtree(project.out)
    assert run("build", cwd=project.root).code == 0
    assert project.snapshot() == cold_snapshot(project, run)
    store_entry(folder, PYTHON, key, ["not a memo"])
    shutil.rmtree(project.out)
    assert run("build", cwd=project.root).code == 0
    assert project.snapshot() == cold_snapshot(project, run)


def test_the_memo_replays_blocks_and_names_without_asking_for_parameters() -> None:
    tools = [
        _Tool("a", _object(page=_object(size={"type": "integer"}), q={"type": "string"})),
        _Tool("b", _object(page=_object(size={"type": "string"}))),
    ]
    memo = StoredMemo()
    first = python_module(tools, memo)
    assert "class AArgsPage(TypedDict)" in first and memo.changed
    again = [_Tool(t.name, t._parameters) for t in tools]
    replayed = StoredMemo(memo.entries)
    assert python_module(again, replayed) == first
    assert [t.asked for t in again] == [0, 0]
    assert not replayed.changed
    # a changes, and takes the same names for the same schemas: b's blocks are replayed
    described = _object(page=_object(size={"type": "integer"}), q={"type": "string"})
    described["properties"]["q"]["description"] = "What to look for."
    changed = [_Tool("a", described, key="a2"), again[1]]
    fresh = python_module([_Tool(t.name, t._parameters) for t in changed])
    assert fresh != first
    assert python_module(changed, StoredMemo(replayed.entries)) == fresh
    assert [t.asked for t in changed] == [1, 0]  # once per tool rendered
    # a's nested model changes: b, which may reuse a's names for the same schema, is not
    moved = [_Tool("a", _object(page=_object(size={"type": "number"})), key="a3"), again[1]]
    fresh = python_module([_Tool(t.name, t._parameters) for t in moved])
    assert python_module(moved, StoredMemo(replayed.entries)) == fresh
    assert moved[1].asked == 1


def test_a_tool_that_needed_black_is_not_kept() -> None:
    """black's layout may change with its version, which the cache is not keyed by."""
    long_doc = "A description long enough that the class docstring spans several lines. " * 3
    model = {**_object(size={"type": "integer"}), "description": long_doc + "\n\nMore."}
    tools = [_Tool("plain", _object(q={"type": "string"})), _Tool("wordy", _object(m=model))]
    memo = StoredMemo()
    python_module(tools, memo)
    assert [key.split(":")[0] for key in memo.entries] == ["plain"]


def test_the_memo_is_kept_per_configuration(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("src/a.py", tool_source("a"))
    assert run("build", cwd=project.root).code == 0
    text = (project.root / "pyproject.toml").read_text()
    project.write("pyproject.toml", text + "inline_defs = true\n")
    assert run("build", cwd=project.root).code == 0
    assert len(list(Path(project.root / ".toolgen_cache" / PYTHON).iterdir())) == 2
