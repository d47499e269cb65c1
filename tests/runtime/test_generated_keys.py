"""`generate_idempotency_key`: one proposed call, one key, however its arguments are spelled;
a key every key parameter the toolbox checks takes, and that replays the call it keyed."""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from collections.abc import Iterator
from enum import Enum, IntEnum
from pathlib import Path
from typing import Any

import pytest

from toolgen.runtime import Toolbox, generate_idempotency_key

from .projects_support import built_package

TOOLS = '''
from typing import Annotated
from uuid import UUID

from pydantic import Field

from toolgen import tool

RUNS: list[str] = []


@tool(risk="medium")
def pay(amount: int, idempotency_key: UUID, memo: str = "") -> dict[str, object]:
    """Pay.

    Args:
        amount: Cents.
        idempotency_key: Client-chosen key.
        memo: A note.

    Idempotency:
        idempotent: false
        safe: false
    """
    RUNS.append("pay")
    return {"amount": amount, "run": len(RUNS)}


@tool(risk="medium")
def note(
    text: str, idempotency_key: Annotated[str, Field(min_length=16, max_length=64)]
) -> dict[str, object]:
    """Write a note.

    Args:
        text: What to write.
        idempotency_key: Client-chosen key, at least 16 characters.

    Idempotency:
        idempotent: false
        safe: false
    """
    RUNS.append("note")
    return {"text": text, "run": len(RUNS)}
'''


# -- the key ----------------------------------------------------------------------------------


def test_the_same_arguments_in_any_order_give_the_same_key() -> None:
    one = {"to": "a@example.com", "cc": ["b", "c"], "meta": {"x": 1, "y": {"p": 2, "q": 3}}}
    other = {"meta": {"y": {"q": 3, "p": 2}, "x": 1}, "cc": ["b", "c"], "to": "a@example.com"}
    assert generate_idempotency_key("send", one) == generate_idempotency_key("send", other)
    # the JSON text the model sent, spaced its way, is the same call
    text = '{ "meta": {"x": 1, "y": {"q": 3, "p": 2}},\n "to": "a@example.com", "cc": ["b","c"]}'
    assert generate_idempotency_key("send", text) == generate_idempotency_key("send", one)


def test_another_tool_or_other_arguments_give_another_key() -> None:
    base = generate_idempotency_key("send", {"to": "a", "n": 1})
    assert generate_idempotency_key("post", {"to": "a", "n": 1}) != base
    assert generate_idempotency_key("send", {"to": "b", "n": 1}) != base
    assert generate_idempotency_key("send", {"to": "a", "n": 2}) != base
    assert generate_idempotency_key("send", {"to": "a", "n": "1"}) != base
    assert generate_idempotency_key("send", {"to": "a", "n": 1, "x": False}) != base
    assert generate_idempotency_key("send", {"to": "a"}) != base
    # a list's order is the list's own
    assert generate_idempotency_key("send", {"to": ["a", "b"]}) != generate_idempotency_key(
        "send", {"to": ["b", "a"]}
    )
    # a nested null is a value (only a top-level one means "not given")
    assert generate_idempotency_key("send", {"m": {"a": None}}) != generate_idempotency_key(
        "send", {"m": {}}
    )


def test_the_key_is_a_canonical_uuid_and_fixed_across_processes() -> None:
    key = generate_idempotency_key("send", {"to": "a@example.com"})
    assert len(key) == 36 >= 16
    parsed = uuid.UUID(key)
    assert str(parsed) == key  # its canonical spelling: the toolbox's for a UUID key
    assert parsed.version == 8 and parsed.variant == uuid.RFC_4122
    # the derivation is fixed: a key made by another process, or an earlier release, matches;
    # it is the documented one, the sha256 of the canonical JSON with version and variant set
    text = '["toolgen.idempotency_key/1","send",{"to":"a@example.com"}]'
    digest = bytearray(hashlib.sha256(text.encode()).digest()[:16])
    digest[6], digest[8] = (digest[6] & 0x0F) | 0x80, (digest[8] & 0x3F) | 0x80
    assert key == str(uuid.UUID(bytes=bytes(digest))) == "47e1b749-bcae-8822-8cea-f22a92c7e940"
    assert generate_idempotency_key("t", None) == generate_idempotency_key("t", {})
    assert generate_idempotency_key("t", "{}") == generate_idempotency_key("t", {})


def test_the_key_the_dry_run_and_strict_mode_nulls_are_left_out() -> None:
    base = generate_idempotency_key("publish", {"text": "hi"})
    # the key never depends on itself
    assert generate_idempotency_key("publish", {"text": "hi", "idempotency_key": base}) == base
    assert generate_idempotency_key("publish", {"text": "hi", "idempotency_key": "x" * 16}) == base
    # a real call is one call however it says so
    assert generate_idempotency_key("publish", {"text": "hi", "dry_run": False}) == base
    assert generate_idempotency_key("publish", {"text": "hi", "dry_run": True}) == base
    # OpenAI's strict mode sends null for an optional parameter it does not give
    assert generate_idempotency_key("publish", {"text": "hi", "tags": None}) == base
    assert generate_idempotency_key("publish", '{"text": "hi", "tags": null}') == base


def test_numbers_count_by_value_and_enums_by_what_they_stand_for() -> None:
    class Color(str, Enum):  # noqa: UP042 (its str() is "Color.RED": the value must count)
        RED = "red"

    class Level(IntEnum):
        TWO = 2

    assert generate_idempotency_key("t", {"n": 5.0}) == generate_idempotency_key("t", {"n": 5})
    assert generate_idempotency_key("t", '{"n": 5.0}') == generate_idempotency_key("t", {"n": 5})
    assert generate_idempotency_key("t", {"n": 5.5}) != generate_idempotency_key("t", {"n": 5})
    assert generate_idempotency_key("t", {"c": Color.RED, "l": Level.TWO}) == (
        generate_idempotency_key("t", {"c": "red", "l": 2})
    )
    assert generate_idempotency_key("t", {"b": True}) != generate_idempotency_key("t", {"b": 1})
    assert generate_idempotency_key("t", {"v": (1, 2)}) == generate_idempotency_key(
        "t", {"v": [1, 2]}
    )


def test_text_is_taken_as_it_is() -> None:
    # not ASCII, and a lone surrogate (JSON text may escape one): each its own key, every time
    accented = generate_idempotency_key("t", {"name": "Zoë"})
    assert accented == generate_idempotency_key("t", '{"name": "Zo\\u00eb"}')
    assert accented != generate_idempotency_key("t", {"name": "Zoe"})
    lone = generate_idempotency_key("t", '{"name": "\\ud800"}')
    assert lone == generate_idempotency_key("t", {"name": "\ud800"})
    assert lone != generate_idempotency_key("t", {"name": "\ud801"})


@pytest.mark.parametrize(
    ("arguments", "error", "said"),
    [
        ({"x": math.nan}, ValueError, "/x: nan is not a number JSON can carry"),
        ({"x": [1, math.inf]}, ValueError, "/x/1: inf is not a number JSON can carry"),
        ({"x": b"raw"}, TypeError, "/x: a bytes is no JSON value"),
        ({"x": {"y": {1, 2}}}, TypeError, "/x/y: a set is no JSON value"),
        ({"x": object()}, TypeError, "/x: a object is no JSON value"),
        ({1: "a"}, TypeError, "/: the name 1 is a int, not text"),
        ({"x": {2: "a"}}, TypeError, "/x: the name 2 is a int, not text"),
        ([1, 2], TypeError, "the arguments must be an object, not list"),
        ('{"x": NaN}', ValueError, "the arguments hold NaN"),
        ('{"x": 1, "x": 2}', ValueError, "the arguments name 'x' twice"),
        ('{"x": 1', ValueError, "the arguments are not JSON"),
        ("[1]", ValueError, "the arguments must be a JSON object, not list"),
    ],
)
def test_what_json_cannot_carry_is_refused(arguments: Any, error: type, said: str) -> None:
    with pytest.raises(error) as raised:
        generate_idempotency_key("t", arguments)
    assert said in str(raised.value)


def test_a_tool_name_must_be_text() -> None:
    with pytest.raises(TypeError, match="the tool name must be text, not int"):
        generate_idempotency_key(5, {})  # type: ignore[arg-type]


# -- the key at work --------------------------------------------------------------------------


@pytest.fixture
def box(tmp_path: Path) -> Iterator[tuple[Toolbox, Any]]:
    with built_package(tmp_path, "keyed_tools", TOOLS) as root:
        import keyed_tools.handlers as handlers

        yield Toolbox.load(root / "generated", store="memory://"), handlers


def test_a_generated_key_is_taken_and_replays(box: tuple[Toolbox, Any]) -> None:
    toolbox, handlers = box
    for tool, arguments in [("pay", {"amount": 5}), ("note", {"text": "hello"})]:
        key = generate_idempotency_key(tool, arguments)
        first = toolbox.call(tool, {**arguments, "idempotency_key": key})
        assert first.ok and not first.replayed, first.error
        again = toolbox.call(tool, {**arguments, "idempotency_key": key})
        assert again.ok and again.replayed and again.data == first.data
        assert json.loads(again.to_json())["replayed"] is True
    assert handlers.RUNS == ["pay", "note"]  # each ran once


def test_a_generated_key_spans_a_strict_mode_retry(box: tuple[Toolbox, Any]) -> None:
    toolbox, handlers = box
    # the model's call as OpenAI's strict mode writes it, the optional memo null, keyed on
    # the client's side from the JSON text itself
    text = '{"amount": 7, "memo": null}'
    key = generate_idempotency_key("pay", text)
    sent = json.dumps({**json.loads(text), "idempotency_key": key})
    [first] = toolbox.handle_openai_chat(
        [{"id": "c1", "type": "function", "function": {"name": "pay", "arguments": sent}}]
    )
    assert json.loads(first["content"])["status"] == "ok"
    # the same call again without the null (another turn, another id): one key, a replay
    again = toolbox.call("pay", {"amount": 7, "idempotency_key": key})
    assert again.replayed and handlers.RUNS == ["pay"]
