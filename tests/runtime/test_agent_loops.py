"""An agent loop per platform, end to end and offline: a scripted model (the SDK's own response
objects) asks for two tools in one turn, the loop answers through the adapter, and the model's
final answer is made from the results it was sent back.

`call` here is a dict of Python functions behind the adapters' `call` interface; once
`Toolbox` lands it becomes `bound(box.acall, context)` and nothing else changes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from anthropic.types import Message, MessageParam
from google.genai import types as genai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.responses import Response, ResponseInputParam
from pydantic import TypeAdapter

from toolgen.runtime.adapters import Envelope, ResultLike
from toolgen.runtime.adapters.anthropic import anthropic
from toolgen.runtime.adapters.gemini import gemini
from toolgen.runtime.adapters.openai import openai_chat, openai_responses

TOOLS: dict[str, Callable[..., Any]] = {
    "add": lambda a, b: a + b,
    "weather": lambda city: {"city": city, "sky": "clear"},
}


async def call(name: str, arguments: Any) -> ResultLike:
    if isinstance(arguments, str):  # OpenAI's JSON text
        arguments = json.loads(arguments)
    return Envelope({"status": "ok", "data": TOOLS[name](**arguments)})


def _final(results: list[Any]) -> str:
    """The scripted model's answer, from the two results it was sent (as envelopes)."""
    total, weather = (r["data"] for r in results)
    return f"2 + 3 = {total}; {weather['city']} is {weather['sky']}"


ANSWER = "2 + 3 = 5; Oslo is clear"
#: the model's first turn: two calls, (id, tool, arguments)
CALLS = [("c1", "add", {"a": 2, "b": 3}), ("c2", "weather", {"city": "Oslo"})]


def test_openai_chat_loop() -> None:
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
            messages.extend(await openai_chat(reply.tool_calls, call, 4))

    transcript = asyncio.run(loop())
    assert [(m["role"], m.get("tool_call_id")) for m in transcript] == [
        ("user", None),
        ("assistant", None),
        ("tool", "c1"),
        ("tool", "c2"),
        ("assistant", None),
    ]
    assert transcript[-1]["content"] == ANSWER


def test_openai_responses_loop() -> None:
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
            answers = await openai_responses(response.output, call, 4)
            if not answers:
                return items
            items.extend(answers)

    transcript = asyncio.run(loop())
    assert [(i.get("type", "message"), i.get("call_id")) for i in transcript] == [
        ("message", None),
        ("function_call", "c1"),
        ("function_call", "c2"),
        ("function_call_output", "c1"),
        ("function_call_output", "c2"),
        ("message", None),
    ]
    assert transcript[-1]["content"][0]["text"] == ANSWER


def test_anthropic_loop() -> None:
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
            results = await anthropic(reply.content, call, 4)
            if not results:
                return messages
            messages.append({"role": "user", "content": results})

    transcript = asyncio.run(loop())
    assert [m["role"] for m in transcript] == ["user", "assistant", "user", "assistant"]
    assert [(b["tool_use_id"], b["is_error"]) for b in transcript[2]["content"]] == [
        ("c1", False),
        ("c2", False),
    ]
    assert transcript[-1]["content"] == [{"type": "text", "text": ANSWER}]


def test_gemini_loop() -> None:
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
            answers = await gemini(reply.parts, call, 4)
            if not answers:
                return contents
            # the SDK's own types take the answers as they are (extra="forbid")
            contents.append(genai.Content(role="user", parts=[genai.Part(**a) for a in answers]))

    transcript = asyncio.run(loop())
    assert [c.role for c in transcript] == ["user", "model", "user", "model"]
    answered = transcript[2].parts or []
    assert [(p.function_response.id, p.function_response.name) for p in answered] == [
        ("c1", "add"),
        ("c2", "weather"),
    ]
    assert (transcript[-1].parts or [])[0].text == ANSWER
