"""Step 3, validate: the arguments against the descriptor's parameters, strict-mode nulls
dropped first; a validator compiled once per tool."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from typing import Any

import pytest

from toolgen.runtime import Toolbox
from toolgen.runtime.values import MAX_ARGUMENT_DEPTH


def error_of(box: Toolbox, name: str, arguments: Any) -> dict[str, Any]:
    result = box.call(name, arguments)
    assert not result.ok and result.error is not None
    return result.error


def test_fields_name_each_problem(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    error = error_of(make_box(), "lookup", {"limit": "3", "extra": 1})
    assert error["code"] == "VALIDATION_ERROR"
    assert error["fields"] == [
        {"path": "/extra", "message": "unexpected property"},
        {"path": "/limit", "message": "'3' is not of type 'integer'"},
        {"path": "/q", "message": "required property is missing"},
    ]
    assert error["message"] == (
        "invalid arguments: /extra: unexpected property; /limit: '3' is not of type "
        "'integer'; /q: required property is missing"
    )
    assert handlers.CALLS["lookup"] == 0


def test_strict_mode_nulls_for_optional_parameters_are_dropped(
    make_box: Callable[..., Toolbox],
) -> None:
    # OpenAI strict mode sends every parameter: an optional one as null
    result = make_box().call("lookup", '{"q": "word", "limit": null}')
    assert result.ok and result.data == {"q": "word", "limit": 3}  # the handler's default
    # a required parameter's null is not "not given"
    error = error_of(make_box(), "lookup", {"q": None})
    assert error["fields"] == [{"path": "/q", "message": "None is not of type 'string'"}]


def test_what_strict_json_cannot_carry_and_deep_nesting(make_box: Callable[..., Toolbox]) -> None:
    box = make_box()
    assert error_of(box, "lookup", {"q": "x", "limit": math.nan})["fields"] == [
        {"path": "/limit", "message": "must be a finite number (got NaN)"}
    ]
    deep: Any = "x"
    for _ in range(MAX_ARGUMENT_DEPTH + 5):
        deep = [deep]
    assert error_of(box, "lookup", {"q": deep})["fields"][0]["message"] == (
        f"nested deeper than {MAX_ARGUMENT_DEPTH} levels"
    )


def test_the_validator_is_compiled_once_per_tool(make_box: Callable[..., Toolbox]) -> None:
    box = make_box()
    box.call("lookup", {"q": "a"})
    first = box.validator(box.catalog.descriptors["lookup"])
    box.call("lookup", {"q": "b"})
    assert box.validator(box.catalog.descriptors["lookup"]) is first


#: An integer of more digits than Python turns text into (4,300 by default).
HUGE = "1" + "0" * 5000


@pytest.mark.parametrize(
    ("text", "path"),
    [
        (f'{{"q": "x", "limit": {HUGE}}}', "/limit"),
        (f'{{"q": "x", "limit": -{HUGE}}}', "/limit"),
        (f'{{"q": [1, {{"deep": {HUGE}}}]}}', "/q/1/deep"),
    ],
)
def test_an_integer_too_long_to_read_is_a_validation_error_at_its_field(
    make_box: Callable[..., Toolbox], handlers: Any, text: str, path: str
) -> None:
    """Python refuses to read an integer of over 4,300 digits (a ValueError, not a
    JSONDecodeError): it was INTERNAL; it is a number beyond a double's range, named where
    it is."""
    box = make_box()
    for result in (box.call("lookup", text), asyncio.run(box.acall("lookup", text))):
        assert result.error is not None and result.error["code"] == "VALIDATION_ERROR"
        assert {
            "path": path,
            "message": "must be a number within ±1.8e308 (got a larger integer)",
        } in (result.error["fields"])
    assert handlers.CALLS["lookup"] == 0


@pytest.mark.parametrize(
    "arguments",
    [
        {"q": "x\ud800"},
        {"q": "x", "\udfff": 1},
        '{"q": "x\\ud800y"}',
        '{"q": "x", "\\ud83d": 1}',
        {"q": {"nested \ud800": [1]}},
    ],
)
def test_a_lone_surrogate_is_a_validation_error_in_text_any_encoder_writes(
    make_box: Callable[..., Toolbox], handlers: Any, arguments: Any
) -> None:
    """A lone surrogate (valid in a JSON escape, in no UTF-8 text) in a value or a name is
    refused at its field, like what strict JSON cannot carry; the answer quotes it escaped,
    so the model's answer can be written as UTF-8 (it could not when the path quoted it)."""
    box = make_box()
    result = box.call("lookup", arguments)
    assert result.error is not None and result.error["code"] == "VALIDATION_ERROR"
    assert "lone surrogate" in result.error["message"]
    result.to_json().encode("utf-8")  # no UnicodeEncodeError
    json.dumps(result.error, ensure_ascii=False).encode("utf-8")
    assert handlers.CALLS["lookup"] == 0
