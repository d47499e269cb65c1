"""Golden files: every generated file for the fixture zoo and for examples/ is compared with
files checked into the repository. After an intended change, regenerate with
`TOOLGEN_UPDATE_GOLDEN=1 pytest tests/test_golden.py` (zoo) and `toolgen build` (examples),
and review the diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolgen.config import load_config
from toolgen.pipeline import generate

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden"
UPDATE = os.environ.get("TOOLGEN_UPDATE_GOLDEN") == "1"


def _files(config_file: Path) -> dict[str, bytes]:
    return generate(load_config(config_file, cwd=REPO)).files


def _compare(actual: dict[str, bytes], folder: Path) -> None:
    if UPDATE:
        for old in (p for p in folder.rglob("*") if p.is_file()):
            old.unlink()
        for relpath, data in actual.items():
            (folder / relpath).parent.mkdir(parents=True, exist_ok=True)
            (folder / relpath).write_bytes(data)
    expected = {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }
    assert sorted(actual) == sorted(expected)
    for relpath, data in actual.items():
        assert data.decode() == expected[relpath].decode(), relpath


def test_zoo_matches_golden_files() -> None:
    _compare(_files(REPO / "tests" / "fixtures" / "zoo.toml"), GOLDEN / "zoo")


def test_examples_match_checked_in_generated_folder() -> None:
    if UPDATE:
        pytest.skip("examples are regenerated with `toolgen build`")
    _compare(_files(REPO / "pyproject.toml"), REPO / "generated")


@pytest.mark.parametrize("preset", ["fastmcp", "mcp", "openai-agents", "langchain", "pydantic-ai"])
def test_framework_fixtures_match_golden_files(preset: str) -> None:
    _compare(
        _files(REPO / "tests" / "fixtures" / "frameworks" / f"{preset}.toml"),
        GOLDEN / "frameworks" / preset,
    )
