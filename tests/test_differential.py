"""The main correctness oracle: toolgen's static parameters schema equals the schema pydantic
builds at run time for the same handler (titles dropped), for every example and fixture tool.

Only this test imports handler code (fixtures and examples), never toolgen itself.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from runtime_oracle import closed_as_toolgen_closes, comparable, runtime_parameters_schema
from toolgen.config import load_config
from toolgen.descriptor import ToolDescriptor
from toolgen.pipeline import generate

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"

#: Tools whose static schema differs from pydantic's on purpose, with the reason. Empty today:
#: every difference toolgen makes on purpose is normalised in `runtime_oracle.comparable`.
KNOWN_DIFFERENCES: dict[str, str] = {}


ZOO_CONFIG = FIXTURES / "zoo.toml"


def _descriptors(config_file: Path) -> list[ToolDescriptor]:
    config = load_config(config_file, cwd=REPO)
    result = generate(config)
    assert not [d for d in result.diagnostics if d.severity.value == "error"]
    return result.descriptors


def _handler(descriptor: ToolDescriptor, search_path: Path) -> tuple[Callable[..., Any], bool]:
    if str(search_path) not in sys.path:
        sys.path.insert(0, str(search_path))
    module = importlib.import_module(descriptor.source.module)
    qualname = descriptor.source.qualname
    if ".<locals>." in qualname:
        outer, _, inner = qualname.partition(".<locals>.")
        captured: dict[str, Callable[..., Any]] = {}

        class Server:
            def add_tool(self, fn: Callable[..., Any]) -> None:
                captured[fn.__name__] = fn

        getattr(module, outer)(Server())
        return captured[inner], False
    owner: Any = module
    parts = qualname.split(".")
    for part in parts[:-1]:
        owner = getattr(owner, part)
    raw = inspect.getattr_static(owner, parts[-1])
    is_method = len(parts) > 1 and not isinstance(raw, staticmethod)
    return getattr(owner, parts[-1]), is_method


def _cases() -> Iterator[Any]:
    for config_file, search in (
        (REPO / "pyproject.toml", REPO / "examples"),
        (ZOO_CONFIG, FIXTURES),
    ):
        for d in _descriptors(config_file):
            yield pytest.param(d, search, id=d.name)


@pytest.mark.parametrize(("descriptor", "search_path"), list(_cases()))
def test_static_schema_equals_pydantic_runtime_schema(
    descriptor: ToolDescriptor, search_path: Path
) -> None:
    fn, is_method = _handler(descriptor, search_path)
    runtime = closed_as_toolgen_closes(runtime_parameters_schema(fn, skip_first=is_method))
    static = comparable(descriptor.parameters, runtime)
    if descriptor.name in KNOWN_DIFFERENCES:
        assert static != runtime, f"{descriptor.name} now matches; drop it from KNOWN_DIFFERENCES"
        return
    assert static == runtime


def test_every_fixture_tool_is_covered() -> None:
    names = {d.name for d in _descriptors(ZOO_CONFIG)}
    assert {
        "scalars",
        "containers",
        "named",
        "formats",
        "aliases",
        "aliased",
        "recursive",
        "method_tool",
        "static_tool",
        "nested_tool",
        "numpy_tool",
        "sphinx_tool",
    } <= names
