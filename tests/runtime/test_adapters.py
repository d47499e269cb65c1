"""The platform adapters (toolgen.runtime.adapters): the official SDKs' objects (built offline)
and plain dicts in; one answer per call, in call order, under its id, in a shape the SDK's own
request types accept for the next turn; calls concurrent up to the limit; one failing call
costs only its own answer."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from typing import Any

import pytest
from anthropic.types import Message, MessageParam, ToolResultBlockParam, ToolUseBlock
from google.genai import types as genai
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionMessageFunctionToolCall,
    ChatCompletionMessageParam,
    ChatCompletionToolMessageParam,
)
from openai.types.responses import (
    Response,
    ResponseCustomToolCall,
    ResponseCustomToolCallOutputParam,
    ResponseFunctionToolCall,
    ResponseInputParam,
)
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter

from toolgen.runtime import CallContext, Toolbox
from toolgen.runtime.adapters import Envelope, ResultLike, bound
from toolgen.runtime.adapters.anthropic import anthropic
from toolgen.runtime.adapters.gemini import gemini
from toolgen.runtime.adapters.openai import openai_chat, openai_responses
from toolgen.runtime.result import new_trace_id


class Echo:
    """A `call` that answers with what it was asked, and records the calls."""

    def __init__(self, fail: frozenset[str] = frozenset()) -> None:
        self.fail = fail
        self.asked: list[tuple[str, Any]] = []

    async def __call__(self, name: str, arguments: Any, call_id: str | None) -> ResultLike:
        self.asked.append((name, arguments))
        if name in self.fail:
            raise RuntimeError("db password is hunter2")
        return Envelope({"status": "ok", "data": {"tool": name, "arguments": arguments}})


def _data(text: str) -> Any:
    envelope = json.loads(text)
    assert envelope["status"] == "ok", envelope
    return envelope["data"]


def _conforms(param: Any, item: dict[str, Any]) -> None:
    """`item` is a `param` TypedDict of the SDK: its keys, and values it keeps as they are."""
    assert set(item) <= param.__required_keys__ | param.__optional_keys__, item
    assert param.__required_keys__ <= set(item), item
    assert TypeAdapter(param).validate_python(item) == item


# OpenAI Chat Completions

CHAT = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "gpt-x",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'},
                    },
                    {"id": "call_b", "type": "custom", "custom": {"name": "sql", "input": "x"}},
                    {
                        "id": "call_c",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": '{"q": "t'},  # truncated
                    },
                ],
            },
        }
    ],
}


def test_openai_chat_with_the_sdk_objects() -> None:
    message = ChatCompletion.model_validate(CHAT).choices[0].message
    assert isinstance(message.tool_calls[0], ChatCompletionMessageFunctionToolCall)
    echo = Echo()
    out = asyncio.run(openai_chat(message.tool_calls, echo, 4))
    assert [o["tool_call_id"] for o in out] == ["call_a", "call_b", "call_c"]
    assert all(o["role"] == "tool" for o in out)
    # the JSON text goes on as it arrived, truncated or not: parsing is the pipeline's step
    assert _data(out[0]["content"]) == {"tool": "add", "arguments": '{"a": 1, "b": 2}'}
    assert _data(out[2]["content"]) == {"tool": "lookup", "arguments": '{"q": "t'}
    refused = json.loads(out[1]["content"])["error"]
    assert refused["code"] == "VALIDATION_ERROR"
    assert refused["message"] == "only function tool calls are handled, not a 'custom' tool call"
    assert (refused["retryable"], refused["human_review"]) == (False, False)
    assert refused["trace_id"]
    assert [name for name, _ in echo.asked] == ["add", "lookup"]  # the custom call is not run
    for item in out:
        _conforms(ChatCompletionToolMessageParam, item)
    follow_up = [message.model_dump(exclude_none=True), *out]
    TypeAdapter(list[ChatCompletionMessageParam]).validate_python(follow_up)


def test_openai_chat_with_dicts() -> None:
    calls = [
        {"id": "1", "type": "function", "function": {"name": "add", "arguments": "{}"}},
        {"id": "2", "type": "function", "function": {"name": "now", "arguments": None}},
        {"id": "3", "function": {"name": "old", "arguments": "{}"}},  # no type: a function's
    ]
    out = asyncio.run(openai_chat(calls, Echo(), 2))
    assert out == [
        {"role": "tool", "tool_call_id": str(i), "content": out[i - 1]["content"]}
        for i in (1, 2, 3)
    ]
    assert _data(out[0]["content"])["arguments"] == "{}"
    assert _data(out[1]["content"])["arguments"] == {}  # no arguments at all: an empty object
    assert _data(out[2]["content"])["tool"] == "old"


def test_no_tool_calls_is_no_answer() -> None:
    """`message.tool_calls` is None when the model answered in text."""
    echo = Echo()
    assert asyncio.run(openai_chat(None, echo, 1)) == []
    assert asyncio.run(openai_responses([], echo, 1)) == []
    assert asyncio.run(anthropic(None, echo, 1)) == []
    assert asyncio.run(gemini(None, echo, 1)) == []
    assert echo.asked == []


# OpenAI Responses

RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 0,
    "model": "gpt-x",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "add",
            "arguments": '{"a": 1}',
            "status": "completed",
        },
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "adding", "annotations": []}],
        },
        {"type": "function_call", "call_id": "call_2", "name": "now", "arguments": "{}"},
    ],
}


def test_openai_responses_with_the_sdk_objects() -> None:
    output = Response.model_validate(RESPONSE).output
    assert isinstance(output[1], ResponseFunctionToolCall)
    out = asyncio.run(openai_responses(output, Echo(), 4))
    assert [(o["type"], o["call_id"]) for o in out] == [
        ("function_call_output", "call_1"),
        ("function_call_output", "call_2"),
    ]
    assert _data(out[0]["output"]) == {"tool": "add", "arguments": '{"a": 1}'}
    for item in out:
        _conforms(FunctionCallOutput, item)


def test_openai_responses_with_dicts() -> None:
    out = asyncio.run(openai_responses(RESPONSE["output"], Echo(), 1))
    assert [o["call_id"] for o in out] == ["call_1", "call_2"]
    assert set(out[0]) == {"type", "call_id", "output"}


def test_openai_responses_answers_a_custom_tool_call_with_an_error() -> None:
    """A `custom_tool_call` needs its own `custom_tool_call_output`, or the next request fails;
    it is refused like Chat's custom calls, and never run."""
    custom = {
        "type": "custom_tool_call",
        "id": "ctc_1",
        "call_id": "call_x",
        "name": "sql",
        "input": "DROP TABLE users",
    }
    response = Response.model_validate({**RESPONSE, "output": [*RESPONSE["output"], custom]})
    assert isinstance(response.output[-1], ResponseCustomToolCall)
    echo = Echo()
    out = asyncio.run(openai_responses(response.output, echo, 4))
    assert [(o["type"], o["call_id"]) for o in out] == [
        ("function_call_output", "call_1"),
        ("function_call_output", "call_2"),
        ("custom_tool_call_output", "call_x"),
    ]
    refused = json.loads(out[2]["output"])["error"]
    assert refused["code"] == "VALIDATION_ERROR"
    assert refused["message"] == "only function tool calls are handled, not a custom tool call"
    assert (refused["retryable"], refused["human_review"]) == (False, False)
    assert [name for name, _ in echo.asked] == ["add", "now"]
    _conforms(ResponseCustomToolCallOutputParam, out[2])
    follow_up = [item.model_dump(exclude_none=True) for item in response.output] + out
    TypeAdapter(ResponseInputParam).validate_python(follow_up)


def test_the_adapters_own_envelopes_carry_the_runtimes_trace_ids() -> None:
    """Refusals and INTERNAL answers made by an adapter: 16 hex digits, as `new_trace_id`."""

    async def call(name: str, arguments: Any, call_id: str | None) -> ResultLike:
        raise RuntimeError("boom")

    calls = [*_chat_calls(1), {"id": "c", "type": "custom", "custom": {"name": "x", "input": ""}}]
    out = asyncio.run(openai_chat(calls, call, 2))
    trace_ids = [json.loads(o["content"])["error"]["trace_id"] for o in out]
    assert [len(t) for t in trace_ids] == [len(new_trace_id())] * 2
    assert all(re.fullmatch("[0-9a-f]{16}", t) for t in trace_ids), trace_ids


# Anthropic Messages

MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
    "content": [
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 2}},
        {"type": "tool_use", "id": "toolu_2", "name": "broken", "input": {}},
    ],
}


def test_anthropic_with_the_sdk_objects() -> None:
    content = Message.model_validate(MESSAGE).content
    assert isinstance(content[1], ToolUseBlock)
    out = asyncio.run(anthropic(content, Echo(fail=frozenset({"broken"})), 4))
    assert [(o["tool_use_id"], o["is_error"]) for o in out] == [
        ("toolu_1", False),
        ("toolu_2", True),
    ]
    assert _data(out[0]["content"]) == {"tool": "add", "arguments": {"a": 1, "b": 2}}
    for item in out:
        _conforms(ToolResultBlockParam, item)
    TypeAdapter(MessageParam).validate_python({"role": "user", "content": out})


def test_anthropic_with_dicts() -> None:
    out = asyncio.run(anthropic(MESSAGE["content"], Echo(), 2))
    assert [o["tool_use_id"] for o in out] == ["toolu_1", "toolu_2"]
    assert [o["type"] for o in out] == ["tool_result", "tool_result"]


def test_anthropic_takes_the_whole_message_too() -> None:
    """The SDK's `Message`, or a dict of one: its `tool_use` blocks, as from its content."""
    for message in (Message.model_validate(MESSAGE), MESSAGE):
        echo = Echo()
        out = asyncio.run(anthropic(message, echo, 2))
        assert [(o["tool_use_id"], o["is_error"]) for o in out] == [
            ("toolu_1", False),
            ("toolu_2", False),
        ]
        assert echo.asked == [("add", {"a": 1, "b": 2}), ("broken", {})]


CUT_OFF = {
    **MESSAGE,
    "stop_reason": "max_tokens",
    "content": [
        {"type": "text", "text": "Sending both."},
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 2}},
        # the reply ended inside this block's input: what arrived of it is a valid object
        {"type": "tool_use", "id": "toolu_2", "name": "delete_user", "input": {}},
    ],
}


@pytest.mark.parametrize("sdk", [True, False], ids=["sdk", "dicts"])
def test_anthropic_runs_no_call_of_a_reply_cut_off_at_max_tokens(sdk: bool) -> None:
    """Was: the blocks of a reply that hit `max_tokens` ran, the last one with whatever part of
    its input arrived (reference/runtime.md: never execute a partial call). Each is answered
    with a VALIDATION_ERROR saying why and what to do, and no call is asked for: the request
    is sent again with a higher limit, and the new reply proposes every call again."""
    echo = Echo()
    message = Message.model_validate(CUT_OFF) if sdk else CUT_OFF
    out = asyncio.run(anthropic(message, echo, 2))
    assert echo.asked == []
    assert [(o["tool_use_id"], o["is_error"]) for o in out] == [
        ("toolu_1", True),
        ("toolu_2", True),
    ]
    for item in out:
        _conforms(ToolResultBlockParam, item)
        error = json.loads(item["content"])["error"]
        assert (error["code"], error["retryable"], error["http_status"]) == (
            "VALIDATION_ERROR",
            False,
            400,
        )
        assert "cut off (max_tokens)" in error["message"]
        assert "not run" in error["message"]
        assert error["recovery"] == "send the request again with a higher max_tokens"
    TypeAdapter(MessageParam).validate_python({"role": "user", "content": out})


def test_anthropic_runs_no_call_of_a_reply_that_filled_the_context_window() -> None:
    """`model_context_window_exceeded` cuts a reply off too (Anthropic: treat it as
    truncated); a higher max_tokens would not help, a shorter conversation does."""
    echo = Echo()
    message = {**CUT_OFF, "stop_reason": "model_context_window_exceeded"}
    out = asyncio.run(anthropic(message, echo, 2))
    assert echo.asked == []
    errors = [json.loads(o["content"])["error"] for o in out]
    assert [e["code"] for e in errors] == ["VALIDATION_ERROR"] * 2
    assert {e["recovery"] for e in errors} == {"send the request again with a shorter conversation"}


def test_a_reply_cut_off_runs_no_handler_through_the_toolbox(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    cut = {
        **CUT_OFF,
        "content": [{"type": "tool_use", "id": "tu_1", "name": "append_log", "input": {}}],
    }
    box = make_box()
    [answer] = box.handle_anthropic(Message.model_validate(cut))
    assert answer["is_error"] is True
    assert json.loads(answer["content"])["error"]["code"] == "VALIDATION_ERROR"
    assert handlers.CALLS["append_log"] == 0
    # the same block of a reply that ended normally runs
    whole = {**cut, "stop_reason": "tool_use"}
    whole["content"] = [{**cut["content"][0], "input": {"line": "x"}}]
    [answer] = box.handle_anthropic(Message.model_validate(whole))
    assert answer["is_error"] is False and handlers.CALLS["append_log"] == 1


# Gemini


def test_gemini_with_the_sdk_objects() -> None:
    parts = [
        genai.Part(text="Checking."),
        genai.Part(function_call=genai.FunctionCall(id="g1", name="add", args={"a": 1})),
        genai.Part(function_call=genai.FunctionCall(name="now")),  # no id, no args
    ]
    out = asyncio.run(gemini(parts, Echo(), 4))
    assert out[0] == {
        "function_response": {
            "id": "g1",
            "name": "add",
            "response": {"status": "ok", "data": {"tool": "add", "arguments": {"a": 1}}},
        }
    }
    assert out[1] == {
        "function_response": {
            "name": "now",
            "response": {"status": "ok", "data": {"tool": "now", "arguments": {}}},
        }
    }
    follow_up = genai.Content(role="user", parts=[genai.Part(**item) for item in out])
    assert [p.function_response.id for p in follow_up.parts] == ["g1", None]


def test_gemini_with_dicts_in_both_spellings() -> None:
    parts = [
        {"text": "Checking."},
        {"functionCall": {"id": "g1", "name": "add", "args": {"a": 1}}},
        {"function_call": {"id": "g2", "name": "now"}},
    ]
    out = asyncio.run(gemini(parts, Echo(), 1))
    assert [(o["function_response"]["id"], o["function_response"]["name"]) for o in out] == [
        ("g1", "add"),
        ("g2", "now"),
    ]
    for item in out:
        genai.Part(**item)  # extra="forbid": a wrong key fails here


# concurrency, order and failure, the same machinery behind every adapter


def _chat_calls(count: int) -> list[dict[str, Any]]:
    return [
        {"id": f"call_{i}", "type": "function", "function": {"name": f"t{i}", "arguments": "{}"}}
        for i in range(count)
    ]


def test_order_and_ids_kept_when_calls_finish_in_reverse() -> None:
    """Each call waits for the next one to finish: the last finishes first, and the answers
    still come in call order."""
    count = 5
    done = [asyncio.Event() for _ in range(count)]
    finished: list[int] = []

    async def call(name: str, arguments: Any, call_id: str | None) -> ResultLike:
        i = int(name[1:])
        if i + 1 < count:
            await done[i + 1].wait()
        finished.append(i)
        done[i].set()
        return Envelope({"status": "ok", "data": i})

    out = asyncio.run(openai_chat(_chat_calls(count), call, count))
    assert finished == [4, 3, 2, 1, 0]
    assert [(o["tool_call_id"], _data(o["content"])) for o in out] == [
        (f"call_{i}", i) for i in range(count)
    ]


@pytest.mark.parametrize("limit", [1, 3])
def test_the_concurrency_limit_is_reached_and_never_passed(limit: int) -> None:
    running, peak = 0, 0

    async def call(name: str, arguments: Any, call_id: str | None) -> ResultLike:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        for _ in range(5):  # let the others start, if the limit allows them to
            await asyncio.sleep(0)
        running -= 1
        return Envelope({"status": "ok", "data": None})

    out = asyncio.run(openai_chat(_chat_calls(10), call, limit))
    assert len(out) == 10
    assert peak == limit


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="limit must be at least 1, not 0"):
        asyncio.run(anthropic([], Echo(), 0))


def test_one_failing_call_costs_only_its_answer(caplog: pytest.LogCaptureFixture) -> None:
    calls = _chat_calls(3)
    with caplog.at_level(logging.ERROR, logger="toolgen.runtime"):
        out = asyncio.run(openai_chat(calls, Echo(fail=frozenset({"t1"})), 3))
    assert _data(out[0]["content"])["tool"] == "t0"
    assert _data(out[2]["content"])["tool"] == "t2"
    assert "hunter2" not in out[1]["content"]  # the exception's text stays in the log
    failure = json.loads(out[1]["content"])["error"]
    assert (failure["code"], failure["message"], failure["retryable"]) == (
        "INTERNAL",
        "internal error",
        False,
    )
    assert "hunter2" in caplog.text and failure["trace_id"] in caplog.text


def test_a_result_that_cannot_be_written_costs_only_its_answer() -> None:
    """`to_json` refuses NaN: the adapter writes each answer inside that call's guard."""

    async def call(name: str, arguments: Any, call_id: str | None) -> ResultLike:
        return Envelope({"status": "ok", "data": float("nan") if name == "t0" else 1})

    out = asyncio.run(openai_chat(_chat_calls(2), call, 2))
    assert json.loads(out[0]["content"])["error"]["code"] == "INTERNAL"
    assert _data(out[1]["content"]) == 1


def test_bound_passes_the_turns_context_to_every_call() -> None:
    """`bound(box.acall, context)` is what the Toolbox hands the adapters."""
    seen: list[tuple[str, Any, Any]] = []

    async def acall(name: str, arguments: Any, *, context: Any = None) -> ResultLike:
        seen.append((name, arguments, context))
        return Envelope({"status": "ok", "data": None})

    context = object()
    asyncio.run(anthropic(MESSAGE["content"], bound(acall, context), 2))
    assert sorted(seen, key=lambda s: s[0]) == [
        ("add", {"a": 1, "b": 2}, context),
        ("broken", {}, context),
    ]


def test_bound_makes_the_contexts_idempotency_key_per_call() -> None:
    """A turn's (or conversation's) key becomes `key:call_id`; a call without an id is told
    by its place in the turn (`key:#0`), and a context without a key is passed on as it
    is."""
    seen: list[tuple[str, Any]] = []

    async def acall(name: str, arguments: Any, *, context: Any = None) -> ResultLike:
        seen.append((name, context))
        return Envelope({"status": "ok", "data": None})

    keyed = CallContext(principal="u-1", idempotency_key="turn-7")
    asyncio.run(openai_chat(_chat_calls(2), bound(acall, keyed), 2))
    contexts = dict(seen)
    assert [contexts[n].idempotency_key for n in ("t0", "t1")] == ["turn-7:call_0", "turn-7:call_1"]
    assert all(c.principal == "u-1" for c in contexts.values())
    assert keyed.idempotency_key == "turn-7"  # the caller's context is left alone
    seen.clear()
    parts = [genai.Part(function_call=genai.FunctionCall(name="now"))]
    asyncio.run(gemini(parts, bound(acall, keyed), 1))
    assert seen[0][1].idempotency_key == "turn-7:#0"
    seen.clear()
    plain = CallContext(principal="u-1")
    asyncio.run(openai_chat(_chat_calls(1), bound(acall, plain), 1))
    assert seen[0][1] is plain


def test_distinct_calls_of_a_turn_sharing_a_context_key_each_run_once(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    """A non-idempotent write keyed by the context: two calls of one turn both run (no
    IDEMPOTENCY_KEY_REUSED, no replay of the other's result); the same call id sent again
    replays."""
    box = make_box()
    context = CallContext(idempotency_key="conversation-42")

    def turn(*calls: tuple[str, str]) -> list[dict[str, Any]]:
        items = [
            {"id": i, "type": "function", "function": {"name": "append_log", "arguments": a}}
            for i, a in calls
        ]
        return [json.loads(m["content"]) for m in box.handle_openai_chat(items, context=context)]

    first = turn(("c1", '{"line": "a"}'), ("c2", '{"line": "b"}'))
    assert [m["status"] for m in first] == ["ok", "ok"]
    assert sorted(m["data"] for m in first) == [1, 2]
    assert not any(m.get("replayed") for m in first)
    third = turn(("c3", '{"line": "a"}'))
    assert third == [{"status": "ok", "data": 3}]
    again = turn(("c1", '{"line": "a"}'))
    assert again[0]["replayed"] is True and again[0]["data"] == first[0]["data"]


def test_calls_of_a_turn_without_ids_each_run_once(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    """Gemini's Developer API may leave out the ids: two writes of one turn shared the
    context's key, so the second was refused as a reused key (or replayed the first). Each is
    keyed by its place in the turn; the same turn handled again replays both."""
    box = make_box()
    context = CallContext(idempotency_key="conversation-43")
    parts = [
        {"function_call": {"name": "append_log", "args": {"line": line}}} for line in ("a", "b")
    ]
    first = [p["function_response"]["response"] for p in box.handle_gemini(parts, context=context)]
    assert [m["status"] for m in first] == ["ok", "ok"], first
    assert sorted(m["data"] for m in first) == [1, 2]
    again = [p["function_response"]["response"] for p in box.handle_gemini(parts, context=context)]
    assert [(m["data"], m.get("replayed")) for m in again] == [(m["data"], True) for m in first]
    assert handlers.CALLS["append_log"] == 2


def test_calls_of_a_turn_that_repeat_an_id_each_run_once(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    """Results are matched to calls by id, so a turn should never repeat one; if it does,
    its calls are still told apart by their place (`id#n`): neither is refused nor replays
    the other."""
    box = make_box()
    context = CallContext(idempotency_key="conversation-44")
    items = [
        {"id": "dup", "type": "function", "function": {"name": "append_log", "arguments": a}}
        for a in ('{"line": "a"}', '{"line": "b"}')
    ]
    out = [json.loads(m["content"]) for m in box.handle_openai_chat(items, context=context)]
    assert [m["status"] for m in out] == ["ok", "ok"], out
    assert handlers.CALLS["append_log"] == 2


def test_each_call_of_a_turn_has_its_own_trace_id(
    make_box: Callable[..., Toolbox], events: list[dict[str, Any]]
) -> None:
    """A context's trace id links a turn; each call's own is it and the call's id, so that
    one call's events and log lines are told from another's."""
    box = make_box()
    context = CallContext(trace_id="turn-9")
    content = [
        {"type": "tool_use", "id": "tu_1", "name": "lookup", "input": {"q": "a"}},
        {"type": "tool_use", "id": "tu_2", "name": "lookup", "input": {"q": "b"}},
        {"type": "tool_use", "name": "nope", "input": {}},
    ]
    out = box.handle_anthropic(content, context=context)
    assert json.loads(out[2]["content"])["error"]["trace_id"] == "turn-9:#2"
    by_trace: dict[str, set[str]] = {}
    for event in events:
        by_trace.setdefault(event["trace_id"], set()).add(event["decision"])
    assert set(by_trace) == {"turn-9:tu_1", "turn-9:tu_2", "turn-9:#2"}
