"""The draw's compare script sets up one project per server from the unpacked wheel; it must
not fill the disk (CI runs it on a small one) nor leave half-made projects behind."""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "realworld" / "compare.py"


def _compare() -> ModuleType:
    spec = importlib.util.spec_from_file_location("realworld_compare", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _wheel_tree(root: Path) -> Path:
    unpacked = root / "unpacked" / "demo-1.0-py3-none-any"
    (unpacked / "demo" / "__pycache__").mkdir(parents=True)
    (unpacked / "demo" / "server.py").write_text("x = 1\n", encoding="utf-8")
    (unpacked / "demo" / "tools.json").write_text("[]\n", encoding="utf-8")
    (unpacked / "demo" / "__pycache__" / "server.cpython-311.pyc").write_bytes(b"\0")
    (unpacked / "main.py").write_text("y = 2\n", encoding="utf-8")
    return unpacked


def test_project_shares_the_unpacked_files_instead_of_copying_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compare = _compare()
    unpacked = _wheel_tree(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    entry = {"name": "demo", "copy": ["demo", "main.py"], "sources": ["demo", "main.py"]}
    project = compare.make_project(entry, unpacked, 0)
    for rel in ("demo/server.py", "demo/tools.json", "main.py"):
        assert (project / rel).samefile(unpacked / rel), rel
    assert not (project / "demo" / "__pycache__").exists()
    assert 'sources = ["demo", "main.py"]' in (project / "pyproject.toml").read_text("utf-8")


def test_a_failed_setup_leaves_no_project_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compare = _compare()
    unpacked = _wheel_tree(tmp_path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    entry = {"name": "demo", "copy": ["demo", "missing"], "sources": ["demo"]}
    with pytest.raises(RuntimeError, match="missing is not in the wheel"):
        compare.make_project(entry, unpacked, 0)
    assert list(scratch.iterdir()) == []


def test_a_wheel_that_cannot_be_unpacked_leaves_nothing_half_written(tmp_path: Path) -> None:
    compare = _compare()
    broken = tmp_path / "broken-1.0-py3-none-any.whl"
    broken.write_bytes(b"not a zip file")
    with pytest.raises(zipfile.BadZipFile):
        compare.unpack(broken, tmp_path)
    assert not (tmp_path / "unpacked" / broken.stem).exists()
