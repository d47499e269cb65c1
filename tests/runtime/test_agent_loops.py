"""An agent loop per platform, end to end and offline: a scripted model (the SDK's own response
objects) asks for three tools in one turn, the loop answers through the `Toolbox`'s adapter for
that platform, and the model's final answer is made from the results it was sent back. (The
loop helpers that do this for a caller, and the examples that use them: test_loops.py.)

The toolbox is this repository's examples (generated/): `calculator` runs its real handler,
`get_weather` an override, and `delete_user` (critical) is refused for want of a confirmation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import Message, MessageParam
from google.genai import types as genai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.responses import Response, ResponseInputParam
from pydantic import TypeAdapter

from toolgen.runtime import CallContext, Toolbox

REPO = Path(__file__).resolve().parent.parent.parent
#: the caller may delete users and has just signed in again, but nobody is there to confirm
CONTEXT = CallContext(principal="loop-test", scopes={"users:delete"}, step_up=lambda request: True)


def weather(location: str, units: str = "metric") -> dict[str, Any]:
    return {
        "location": location,
        "temperature_c": 4.0,
        "conditions": "clear",
        "observed_at": "2026-11-26T09:00:00Z",
    }


@pytest.fixture
def box() -> Toolbox:
    return Toolbox.load(
        REPO / "generated",
        store="memory://",
        audit=lambda event: None,
        handlers={"get_weather": weather},
        factory=lambda cls: cls("acme"),  # AdminTools takes its tenant
        paths=[REPO / "examples"],
    )


def _final(results: list[Any]) -> str:
    """The scripted model's answer, from the three results it was sent (as envelopes)."""
    total, forecast, refused = results
    return (
        f"2 + 3 = {total['data']:g}; {forecast['data']['location']} is "
        f"{forecast['data']['conditions']}; delete_user: {refused['error']['code']}"
    )


ANSWER = "2 + 3 = 5; Oslo is clear; delete_user: REQUIRES_HUMAN_APPROVAL"
#: the model's first turn: two calls, (id, tool, arguments)
CALLS = [
    ("c1", "calculator", {"operation": "add", "a": 2, "b": 3}),
    ("c2", "get_weather", {"location": "Oslo"}),
    ("c3", "delete_user", {"user_id": "u-1"}),
]


def test_openai_chat_loop(box: Toolbox) -> None:
    def model(messages: list[dict[str, Any]]) -> ChatCompletion:
        TypeAdapter(list[ChatCompletionMessageParam]).validate_python(messages)  # what is sent
        if messages[-1]["role"] == "user":
            tool_calls = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, n, a in CALLS
            ]
            message: dict[str, Any] = {"role": "assistant", "tool_calls": tool_calls}
        else:
            sent = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
            message = {"role": "assistant", "content": _final(sent)}
        return ChatCompletion.model_validate(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            }
        )

    async def loop() -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Sum, and Oslo's weather?"}]
        while True:
            reply = model(messages).choices[0].message
            messages.append(reply.model_dump(exclude_none=True))
            if not reply.tool_calls:
                return messages
            messages.extend(await box.ahandle_openai_chat(reply.tool_calls, context=CONTEXT))

    transcript = asyncio.run(loop())
    assert [(m["role"], m.get("tool_call_id")) for m in transcript] == [
        ("user", None),
        ("assistant", None),
        ("tool", "c1"),
        ("tool", "c2"),
        ("tool", "c3"),
        ("assistant", None),
    ]
    assert transcript[-1]["content"] == ANSWER


def test_openai_responses_loop(box: Toolbox) -> None:
    def model(items: list[dict[str, Any]]) -> Response:
        TypeAdapter(ResponseInputParam).validate_python(items)
        if items[-1].get("role") == "user":
            output = [
                {"type": "function_call", "call_id": i, "name": n, "arguments": json.dumps(a)}
                for i, n, a in CALLS
            ]
        else:
            sent = [
                json.loads(i["output"]) for i in items if i.get("type") == "function_call_output"
            ]
            text = {"type": "output_text", "text": _final(sent), "annotations": []}
            output = [
                {
                    "type": "message",
                    "id": "m1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [text],
                }
            ]
        return Response.model_validate(
            {
                "id": "r",
                "object": "response",
                "created_at": 0,
                "model": "m",
                "output": output,
                "parallel_tool_calls": True,
                "tool_choice": "auto",
                "tools": [],
            }
        )

    async def loop() -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = [{"role": "user", "content": "Sum, and Oslo's weather?"}]
        while True:
            response = model(items)
            items.extend(item.model_dump(exclude_none=True) for item in response.output)
            answers = await box.ahandle_openai_responses(response.output, context=CONTEXT)
            if not answers:
                return items
            items.extend(answers)

    transcript = asyncio.run(loop())
    assert [(i.get("type", "message"), i.get("call_id")) for i in transcript] == [
        ("message", None),
        ("function_call", "c1"),
        ("function_call", "c2"),
        ("function_call", "c3"),
        ("function_call_output", "c1"),
        ("function_call_output", "c2"),
        ("function_call_output", "c3"),
        ("message", None),
    ]
    assert transcript[-1]["content"][0]["text"] == ANSWER


def test_anthropic_loop(box: Toolbox) -> None:
    def model(messages: list[dict[str, Any]]) -> Message:
        TypeAdapter(list[MessageParam]).validate_python(messages)
        if isinstance(messages[-1]["content"], str):
            content: list[dict[str, Any]] = [{"type": "text", "text": "Checking."}]
            content += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in CALLS]
        else:
            sent = [json.loads(block["content"]) for block in messages[-1]["content"]]
            content = [{"type": "text", "text": _final(sent)}]
        return Message.model_validate(
            {
                "id": "m",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": content,
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            }
        )

    async def loop() -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Sum, and Oslo's weather?"}]
        while True:
            reply = model(messages)
            blocks = [block.model_dump(exclude_none=True) for block in reply.content]
            messages.append({"role": "assistant", "content": blocks})
            results = await box.ahandle_anthropic(reply, context=CONTEXT)
            if not results:
                return messages
            messages.append({"role": "user", "content": results})

    transcript = asyncio.run(loop())
    assert [m["role"] for m in transcript] == ["user", "assistant", "user", "assistant"]
    assert [(b["tool_use_id"], b["is_error"]) for b in transcript[2]["content"]] == [
        ("c1", False),
        ("c2", False),
        ("c3", True),
    ]
    assert transcript[-1]["content"] == [{"type": "text", "text": ANSWER}]


def test_gemini_loop(box: Toolbox) -> None:
    def model(contents: list[genai.Content]) -> genai.Candidate:
        last = contents[-1].parts or []
        if last[0].text is not None:
            parts = [
                genai.Part(function_call=genai.FunctionCall(id=i, name=n, args=a))
                for i, n, a in CALLS
            ]
        else:
            sent = [p.function_response.response for p in last if p.function_response]
            parts = [genai.Part(text=_final(sent))]
        return genai.Candidate(content=genai.Content(role="model", parts=parts))

    async def loop() -> list[genai.Content]:
        contents = [genai.Content(role="user", parts=[genai.Part(text="Sum, and weather?")])]
        while True:
            reply = model(contents).content
            assert reply is not None
            contents.append(reply)
            answers = await box.ahandle_gemini(reply.parts, context=CONTEXT)
            if not answers:
                return contents
            # the SDK's own types take the answers as they are (extra="forbid")
            contents.append(genai.Content(role="user", parts=[genai.Part(**a) for a in answers]))

    transcript = asyncio.run(loop())
    assert [c.role for c in transcript] == ["user", "model", "user", "model"]
    answered = transcript[2].parts or []
    assert [(p.function_response.id, p.function_response.name) for p in answered] == [
        ("c1", "calculator"),
        ("c2", "get_weather"),
        ("c3", "delete_user"),
    ]
    assert (transcript[-1].parts or [])[0].text == ANSWER
