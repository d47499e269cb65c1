"""The runtime fixture project (tests/fixtures/runtime), built once into a temporary copy,
and a `make_box` that loads a `Toolbox` over it with the memory store, collecting audit
events and waiting for no real time."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolgen.cli import main as toolgen_main
from toolgen.runtime import Toolbox

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "runtime"


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture project's root, built (`generated/` inside)."""
    root = tmp_path_factory.mktemp("runtime") / "project"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("__pycache__", "generated"))
    (root / "toolgen.toml").rename(root / "pyproject.toml")
    assert toolgen_main(["build", "--config", str(root / "pyproject.toml"), "--quiet"]) == 0
    return root


@pytest.fixture
def handlers(built: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The fixture's handler module, imported fresh (its counters at zero)."""
    monkeypatch.syspath_prepend(str(built))
    for name in [m for m in sys.modules if m == "rt_tools" or m.startswith("rt_tools.")]:
        del sys.modules[name]
    import rt_tools.handlers

    yield rt_tools.handlers
    for name in [m for m in sys.modules if m == "rt_tools" or m.startswith("rt_tools.")]:
        del sys.modules[name]


class Waits:
    """Stands in for `asyncio.sleep`: records each wait, waits nothing."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def events() -> list[dict[str, Any]]:
    return []


@pytest.fixture
def waits() -> Waits:
    return Waits()


@pytest.fixture
def make_box(
    built: Path, handlers: Any, events: list[dict[str, Any]], waits: Waits
) -> Callable[..., Toolbox]:
    """`make_box(**options)`: a toolbox over the built fixture; memory store, audit events
    into `events`, retries waiting through `waits`, jitter 1.0 (the longest wait)."""

    def make(**options: Any) -> Toolbox:
        options.setdefault("store", "memory://")
        options.setdefault("audit", events.append)
        box = Toolbox.load(built / "generated", **options)
        box.sleep = waits
        box.random = lambda: 1.0
        return box

    return make
