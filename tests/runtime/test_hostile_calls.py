"""Hostile calls through `call`, `acall` and every platform adapter: arguments no client should
send, names that are no names, contexts and audit sinks that misbehave. Each call gets one
answer that strict JSON and UTF-8 can carry, every event is written, and nothing raises."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import threading
from collections.abc import Callable
from typing import Any

import pytest

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime import CallContext, Toolbox, ToolResult

from .descriptors_support import box_of, descriptor

#: The codes an answer may carry.
CODES = {
    "VALIDATION_ERROR",
    "NOT_FOUND",
    "FORBIDDEN",
    "INTERNAL",
    "UNAVAILABLE",
    "IDEMPOTENCY_KEY_REUSED",
    "IDEMPOTENCY_KEY_IN_PROGRESS",
}

TOOLS = [
    descriptor(
        "plain",
        {
            "type": "object",
            "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["q"],
            "additionalProperties": False,
        },
    ),
    descriptor(
        "pat",
        {
            "type": "object",
            "properties": {
                "code": {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"},
                "tag": {"type": "string", "pattern": "^(a|aa)+$"},
            },
        },
    ),
    descriptor(
        "fmt",
        {
            "type": "object",
            "properties": {
                "rx": {"type": "string", "format": "regex"},
                "day": {"type": "string", "format": "date"},
                "ip": {"type": "string", "format": "ipv4"},
            },
        },
    ),
    descriptor(
        "enumy",
        {"type": "object", "properties": {"e": {"enum": [1, "1", True, None]}, "c": {"const": 1}}},
    ),
    descriptor(
        "pp",
        {
            "type": "object",
            "patternProperties": {"^x_": {"type": "integer"}, "^(b+)+$": {}},
            "additionalProperties": False,
        },
    ),
    descriptor(
        "write",
        {"type": "object", "properties": {"line": {"type": "string"}}},
        idempotency={"idempotent": False, "safe": False},
    ),
]

RUNS: list[str] = []


def handler_of(tool: ToolDescriptor) -> Callable[..., Any]:
    """A handler taking exactly the tool's properties, each optional; it records its run."""
    names = list(tool.parameters.get("properties", {}))
    scope: dict[str, Any] = {"RUNS": RUNS}
    signature = ", ".join(f"{n}=None" for n in names)
    exec(f"def handler({signature}):\n    RUNS.append({tool.name!r})\n    return 'ran'\n", scope)
    handler: Callable[..., Any] = scope["handler"]
    return handler


def hostile_box(**options: Any) -> Toolbox:
    options.setdefault("timeout", {"*": None, "write": 5.0})
    return box_of(*((tool, handler_of(tool)) for tool in TOOLS), **options)


DEEP = "[" * 50_000 + "]" * 50_000
ARGUMENTS: list[tuple[str, Any]] = [
    ("plain", '{"q": "a", "q": "b"}'),
    ("plain", '{"q": {"to": 1, "to": 2}}'),
    ("plain", '{"q": "a", "n": NaN}'),
    ("plain", '{"q": "a", "n": -Infinity}'),
    ("plain", '\ufeff{"q": "a"}'),
    ("plain", b'\xef\xbb\xbf{"q": "a"}'),
    ("plain", b'{"q": "\xff"}'),
    ("plain", '{"__proto__": {"admin": true}, "q": "a"}'),
    ("plain", '{"q\\u0000": "a", "q": "b"}'),
    ("plain", '{"\\u001b[31m": 1, "q": "x"}'),
    ("plain", '{"q": "a", "n": 1' + "0" * 5000 + "}"),
    ("plain", '{"q": "a", "n": 1e400}'),
    ("plain", '{"q": "a", "n": 1.0}'),
    ("plain", '{"q": "a", "n": true}'),
    ("plain", '{"q": "' + "x" * 200_000 + '"}'),
    ("plain", '{"q": "a", "z": ' + DEEP + "}"),
    ("plain", "{" + ",".join(f'"k{i}": {i}' for i in range(5000)) + "}"),
    ("plain", '{"q": "a"}{"q": "b"}'),
    ("plain", '{"q": "\\ud800"}'),
    ("plain", '{"q": "\\ud83d\\ude00"}'),
    ("plain", {"q": "a", 1: "a name that is no string"}),
    ("plain", {"q": "a", "n": 10**5000}),
    ("plain", {"q": "a", "n": math.nan}),
    ("plain", {"q": object()}),
    ("plain", {"q": "\ud800"}),
    ("plain", {"q": "ok", "\udc80": 1}),
    ("plain", {"q": {"\ud800": {(1, 2): 3}}}),
    ("plain", {"q": {10**5000: 1}}),
    ("plain", 10**5000),
    ("plain", memoryview(b'{"q": "a"}')),
    ("pat", {"code": "ABC-1234"}),
    ("pat", {"code": "ABC-1234\n"}),
    ("pat", {"tag": "a" * 60 + "!"}),
    ("pat", {"tag": "a" * 100_000}),
    ("pat", {"code": "\ud800"}),
    ("fmt", {"rx": "(" * 10_000 + ")" * 10_000}),
    ("fmt", {"rx": "["}),
    ("fmt", {"day": "\u0662\u0660\u0662\u0664-\u0660\u0661-\u0660\u0661"}),
    ("fmt", {"ip": "1.1.1.1\x00"}),
    ("enumy", {"e": 1.0}),
    ("enumy", {"e": False}),
    ("enumy", {"c": True}),
    ("enumy", '{"e": 1.0, "c": 1.0}'),
    ("pp", {"b" * 60 + "!": 1}),
    ("pp", {"x_1": "s"}),
    ("write", {"line": "a"}),
    ("write", {"line": "\ud800"}),
]
NAMES: list[Any] = [
    "\ud800",
    "",
    "plain\x00",
    "x" * 100_000,
    "__proto__",
    12,
    None,
    10**5000,
    b"plain",
    ["plain"],
    math.nan,
    object(),
]
CONTEXTS: list[CallContext] = [
    CallContext(principal="\ud800"),
    CallContext(principal="p" * 100_000),
    CallContext(principal=12),  # type: ignore[arg-type]
    CallContext(scopes="x:read"),
    CallContext(scopes={"\ud800"}),
    CallContext(trace_id="t\ud800"),
    CallContext(trace_id=10**5000),  # type: ignore[arg-type]
    CallContext(metadata={"m": "\ud800", "n": math.nan, "big": 10**5000, (1, 2): object()}),
    CallContext(idempotency_key="\ud800" * 16),
    CallContext(principal="principal:", idempotency_key="principal:xxxxxxxxxxxx"),
]


def writable(value: Any) -> None:
    """Strict JSON that UTF-8 can carry, or fail."""
    json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")


def check(result: ToolResult, events: list[dict[str, Any]]) -> None:
    envelope = json.loads(result.to_json().encode("utf-8"))
    writable(envelope)
    if not result.ok:
        assert envelope["error"]["code"] in CODES, envelope
        assert isinstance(envelope["error"]["trace_id"], str)
    assert len(events) >= 2, events
    for event in events:
        writable(event)
        assert len(event["tool"]) < 300


CASES = [
    *((name, arguments, CallContext()) for name, arguments in ARGUMENTS),
    *((name, {"q": "a"}, CallContext()) for name in NAMES),
    *(("write", {"line": "c"}, context) for context in CONTEXTS),
]


@pytest.mark.parametrize("way", ["call", "acall"])
def test_every_hostile_call_gets_one_writable_answer_and_its_events(way: str) -> None:
    events: list[dict[str, Any]] = []
    box = hostile_box(audit=events.append, audit_arguments=True)
    for name, arguments, context in CASES:
        events.clear()
        RUNS.clear()
        if way == "call":
            result = box.call(name, arguments, context=context)
        else:
            result = asyncio.run(box.acall(name, arguments, context=context))
        check(result, events)
        if not result.ok and result.error is not None:
            assert RUNS == [] or result.error["code"] == "INTERNAL", (name, RUNS)


def _turns(name: Any, arguments: Any) -> dict[str, Callable[[Toolbox, CallContext], Any]]:
    text = arguments if isinstance(arguments, str) else "{}"
    given = arguments if isinstance(arguments, dict) else {}
    return {
        "chat": lambda box, context: box.handle_openai_chat(
            [
                {"id": i, "type": "function", "function": {"name": name, "arguments": text}}
                for i in ("c\ud800", "c\ud800")
            ],
            context=context,
        ),
        "responses": lambda box, context: box.handle_openai_responses(
            [{"type": "function_call", "call_id": "c1", "name": name, "arguments": text}],
            context=context,
        ),
        "anthropic": lambda box, context: box.handle_anthropic(
            [
                {"type": "tool_use", "id": "t\udfff", "name": name, "input": given},
                {"type": "tool_use", "name": name, "input": arguments},
            ],
            context=context,
        ),
        "gemini": lambda box, context: box.handle_gemini(
            [
                {"function_call": {"name": name, "args": given}},
                {"functionCall": {"id": 5, "name": name, "args": arguments}},
            ],
            context=context,
        ),
    }


@pytest.mark.parametrize("platform", ["chat", "responses", "anthropic", "gemini"])
def test_every_hostile_turn_gets_writable_answers(platform: str) -> None:
    """The adapters repeat the platform's ids and names: with a lone surrogate escaped, as
    no answer could be written as UTF-8 otherwise."""
    events: list[dict[str, Any]] = []
    box = hostile_box(audit=events.append, audit_arguments=True)
    for name, arguments, context in CASES[::3]:
        events.clear()
        out = _turns(name, arguments)[platform](box, context)
        writable(out)
        for event in events:
            writable(event)


# -- one of each, named ------------------------------------------------------------------


def test_a_tool_name_too_long_to_print_is_not_found() -> None:
    """An integer of 5,000 digits as the tool's name: `str()` of it raises; it crashed out of
    `call` and `acall` (even the crash's own answer raised)."""
    box = hostile_box(audit=lambda event: None)
    for result in (box.call(10**5000, {}), asyncio.run(box.acall(10**5000, {}))):  # type: ignore[arg-type]
        assert result.error is not None and result.error["code"] == "NOT_FOUND"


@pytest.mark.parametrize("trace_id", ["t\ud800", 10**5000, 12], ids=["surrogate", "huge", "int"])
def test_a_callers_trace_id_is_written_as_text(trace_id: Any) -> None:
    """The context's trace id goes into every answer and event: as text any UTF-8 writer
    takes (an answer with a lone surrogate in it could not be sent)."""
    box = hostile_box(audit=lambda event: None)
    context = CallContext(trace_id=trace_id)
    for result in (
        box.call("plain", {"q": 1}, context=context),
        asyncio.run(box.acall("plain", {"q": 1}, context=context)),
    ):
        assert result.error is not None
        assert isinstance(result.error["trace_id"], str)
        result.to_json().encode("utf-8")


def test_the_names_and_ids_an_adapter_repeats_are_escaped() -> None:
    box = hostile_box(audit=lambda event: None)
    [part] = box.handle_gemini([{"function_call": {"id": "g\ud800", "name": "p\udfff"}}])
    assert part["function_response"]["name"] == "p\\udfff"
    assert part["function_response"]["id"] == "g\\ud800"
    [message] = box.handle_openai_chat(
        [{"id": "c\ud800", "type": "function", "function": {"name": "plain", "arguments": "{}"}}]
    )
    assert message["tool_call_id"] == "c\\ud800"


def test_a_sink_that_calls_the_toolbox_does_not_recurse() -> None:
    """A sink that calls a tool: the inner call's events could only be written by the sink
    that is writing, so the inner call is refused (UNAVAILABLE) and the outer one goes on. It
    recursed: each level's refusal was recorded through the sink again, without end."""
    inner: list[ToolResult] = []
    box: Toolbox | None = None

    def sink(event: dict[str, Any]) -> None:
        assert box is not None
        inner.append(box.call("plain", {"q": "from the sink"}))

    box = hostile_box(audit=sink)
    answers: list[ToolResult] = []
    worker = threading.Thread(
        target=lambda: answers.extend(
            [box.call("plain", {"q": "a"}), asyncio.run(box.acall("plain", {"q": "b"}))]
        ),
        daemon=True,
    )
    worker.start()
    worker.join(30)  # generous: it ends at once, or never
    assert not worker.is_alive()
    assert [a.ok for a in answers] == [True, True]
    assert inner and {r.error["code"] for r in inner if r.error} == {"UNAVAILABLE"}


async def _async_sink(event: dict[str, Any]) -> None:
    return None


class _AsyncSink:
    async def __call__(self, event: dict[str, Any]) -> None:
        return None


@pytest.mark.parametrize("sink", [_async_sink, _AsyncSink()])
def test_an_async_sink_is_refused_at_load(sink: Any) -> None:
    """Its events would be coroutines nobody awaits: silently lost."""
    with pytest.raises(TypeError, match="synchronous"):
        hostile_box(audit=sink)


def test_a_sink_that_returns_an_awaitable_has_not_written(caplog: pytest.LogCaptureFixture) -> None:
    box = hostile_box(audit=lambda event: _async_sink(event))
    with caplog.at_level(logging.ERROR, logger="toolgen.runtime"):
        result = box.call("plain", {"q": "a"})
    assert result.error is not None and result.error["code"] == "UNAVAILABLE"
    assert "awaitable" in caplog.text


def test_a_sink_that_spoils_the_event_and_fails_is_still_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The event is logged as the sink left it, written out whatever it holds (logging it
    raised, out of the call)."""

    def spoil(event: dict[str, Any]) -> None:
        event["big"] = 10**5000
        event["odd"] = object()
        raise OSError("disk full")

    box = hostile_box(audit=spoil)
    with caplog.at_level(logging.ERROR, logger="toolgen.runtime"):
        for result in (box.call("plain", {"q": "a"}), asyncio.run(box.acall("plain", {"q": "b"}))):
            assert result.error is not None and result.error["code"] == "UNAVAILABLE"
    assert '"big": "<integer of about 5,001 digits>"' in caplog.text


def test_a_logger_sink_writes_to_a_stream_of_any_encoding(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Events are logged as ASCII JSON: a handler on an ASCII stream lost every event that
    held another character (`logging` reported it on stderr and went on)."""
    import io

    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    logger = logging.getLogger("tests.ascii.audit")
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        box = hostile_box(audit=logger, audit_arguments=True)
        assert box.call("plain", {"q": "é"}).ok
        handler.flush()
        lines = stream.buffer.getvalue().decode("ascii").splitlines()  # type: ignore[attr-defined]
    finally:
        logger.removeHandler(handler)
    assert [json.loads(line)["decision"] for line in lines] == ["proposed", "executed"]
    assert json.loads(lines[0])["arguments"] == {"q": "é"}


def test_a_regex_argument_too_deep_for_re_is_no_regex() -> None:
    """`format: regex` compiles the value with `re`, whose RecursionError jsonschema let out
    (INTERNAL); now it is a value that is not a regex."""
    box = hostile_box(audit=lambda event: None)
    result = box.call("fmt", {"rx": "(" * 10_000 + ")" * 10_000})
    assert result.error is not None and result.error["code"] == "VALIDATION_ERROR"
    assert result.error["fields"][0]["path"] == "/rx"


def test_long_regex_arguments_are_not_kept_compiled() -> None:
    """`format: regex` compiles the client's value with `re`, whose cache keeps 512 patterns
    whatever their size: long values filled it (a megabyte each for the longest). Now a long
    one is dropped once checked."""
    import gc
    import re

    box = hostile_box(audit=lambda event: None)
    values = {"(a)" * 1000 + str(i) for i in range(3)}
    for value in values:
        assert box.call("fmt", {"rx": value}).ok
    gc.collect()
    kept = [o for o in gc.get_objects() if isinstance(o, re.Pattern) and o.pattern in values]
    assert kept == []
