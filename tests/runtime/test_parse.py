"""Step 2, parse: arguments as a dict, JSON text or None; anything else is a
VALIDATION_ERROR and runs nothing."""

from __future__ import annotations

from typing import Any

import pytest

from toolgen.runtime import ToolResult
from toolgen.runtime.steps.parse import parse


def problem(result: Any) -> str:
    assert isinstance(result, ToolResult) and result.error is not None
    assert result.error["code"] == "VALIDATION_ERROR"
    assert (result.error["retryable"], result.error["human_review"]) == (False, False)
    [field] = result.error["fields"]
    assert field["path"] == ""
    message: str = field["message"]
    return message


@pytest.mark.parametrize(
    ("given", "parsed"),
    [
        (None, {}),
        ({"a": 1}, {"a": 1}),
        ('{"a": [1, 2]}', {"a": [1, 2]}),
        (b'{"a": "\\u00e9"}', {"a": "é"}),
        ("", {}),
        ("  ", {}),
    ],
)
def test_parse_accepts(given: Any, parsed: dict[str, Any]) -> None:
    assert parse("t", given, "trace") == parsed


def test_truncated_json_is_a_validation_error() -> None:
    assert problem(parse("t", '{"to": "a@example.com", "body": "Hel', "x")) == (
        "arguments are truncated JSON (the text ends before the value does)"
    )
    assert problem(parse("t", '{"a": [1, 2', "x")).startswith("arguments are truncated")


def test_malformed_json_is_a_validation_error() -> None:
    assert problem(parse("t", '{"a": 1,, "b": 2}', "x")) == (
        "arguments are not valid JSON (Expecting property name enclosed in double quotes "
        "at character 8)"
    )


@pytest.mark.parametrize(
    ("given", "kind"),
    [
        ("[1, 2]", "an array"),
        ("3", "a number"),
        ('"x"', "a string"),
        ("true", "a boolean"),
        ("null", "null"),
        ([1], "an array"),
    ],
)
def test_arguments_must_be_an_object(given: Any, kind: str) -> None:
    assert problem(parse("t", given, "x")) == f"arguments must be a JSON object, not {kind}"


def test_bytes_that_are_not_utf8() -> None:
    assert problem(parse("t", b"\xff{", "x")) == "arguments are not UTF-8 text"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('{"q": "a", "q": "b"}', "'q'"),
        ('{"q": {"to": "x", "to": "y"}}', "'to'"),
        ('{"\\ud800": 1, "\\ud800": 2}', "'\\ud800'"),
    ],
)
def test_an_object_that_repeats_a_name_is_a_validation_error(text: str, name: str) -> None:
    """Parsers differ on which of the two values counts (Python's keeps the last): a person
    approving the call as another reads it could approve other arguments than run."""
    assert problem(parse("t", text, "x")) == (
        f"arguments repeat the name {name} (names in an object are unique)"
    )
