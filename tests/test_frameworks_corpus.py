"""The pure logic of benchmarks/frameworks/compare.py: matching by name, exact schema and
description equality, the per-framework summary."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "frameworks" / "compare.py"
spec = importlib.util.spec_from_file_location("frameworks_compare", PATH)
assert spec is not None and spec.loader is not None
compare = importlib.util.module_from_spec(spec)
sys.modules["frameworks_compare"] = compare
spec.loader.exec_module(compare)


def payload(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def recorded(framework: str, name: str, description: str = "Search.") -> dict[str, Any]:
    return {"framework": framework, "name": name, "payload": payload(name, description, SCHEMA)}


def test_equal_payloads_are_read_correctly_whatever_the_key_order() -> None:
    reordered = {"required": ["q"], "properties": {"q": {"type": "string"}}, "type": "object"}
    res = compare.compare_tools(
        "pkg", [recorded("openai-agents", "search")], [payload("search", "Search.", reordered)]
    )
    [tool] = res.tools
    assert tool.extracted and tool.schema_equal and tool.description_equal and tool.correct
    assert res.only_toolgen == []


def test_a_schema_or_description_difference_is_reported_where_it_is() -> None:
    other = {"type": "object", "properties": {"q": {"type": "integer"}}, "required": ["q"]}
    res = compare.compare_tools(
        "pkg",
        [recorded("pydantic-ai", "search", "Search.\n\n    More.")],
        [payload("search", "Search.\n\nMore.", other)],
    )
    [tool] = res.tools
    assert tool.extracted and not tool.schema_equal and not tool.description_equal
    assert 'schema /properties/q/type: "integer" | "string"' in tool.diff
    assert "description" in tool.diff


def test_missing_and_extra_tools() -> None:
    res = compare.compare_tools(
        "pkg",
        [recorded("langchain-class", "a"), recorded("langchain-function", "b")],
        [payload("b", "Search.", SCHEMA), payload("c", "x", SCHEMA)],
    )
    assert [(t.name, t.extracted, t.correct) for t in res.tools] == [
        ("a", False, False),
        ("b", True, True),
    ]
    assert res.only_toolgen == ["c"]


def test_summary_counts_per_framework_and_in_all() -> None:
    res = compare.compare_tools(
        "pkg",
        [recorded("langchain-class", "a"), recorded("langchain-function", "b")],
        [payload("b", "Search.", SCHEMA)],
    )
    lines = compare.summary([res])
    assert lines[0].startswith("langchain-class: 0.0% read correctly (0/1); extracted 0/1")
    assert lines[1].startswith("langchain-function: 100.0% read correctly (1/1)")
    assert lines[4].startswith("all frameworks: 50.0% read correctly (1/2)")
    assert lines[-1] == "tools only in toolgen: 0"


def test_of_two_entries_of_one_name_the_one_that_agrees_is_compared() -> None:
    res = compare.compare_tools(
        "pkg",
        [recorded("pydantic-ai", "get_weather", "Look up the weather.")],
        [
            payload("get_weather", "Other agent's.", SCHEMA),
            payload("get_weather", "Look up the weather.", SCHEMA),
        ],
    )
    [tool] = res.tools
    assert tool.correct
