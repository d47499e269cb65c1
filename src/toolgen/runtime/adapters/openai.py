"""OpenAI: Chat Completions `message.tool_calls` and Responses `response.output` items."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolgen.runtime.adapters import (
    Call,
    Job,
    ResultLike,
    answer_all,
    arguments,
    echoed,
    error,
    get,
    tool_name,
)


async def openai_chat(
    tool_calls: Iterable[Any] | None, call: Call, limit: int
) -> list[dict[str, Any]]:
    """`{"role": "tool", "tool_call_id", "content"}` for each of `message.tool_calls` (None when
    the model called nothing); a call that is not a function call (a custom tool's) gets an
    error result, since the next request needs an answer for every call id."""
    return await answer_all(chat_jobs(tool_calls), call, limit)


def chat_jobs(tool_calls: Iterable[Any] | None) -> list[Job]:
    """The calls of `message.tool_calls` (see `openai_chat`)."""
    return [_chat_job(item) for item in tool_calls or ()]


def _chat_job(item: Any) -> Job:
    call_id = get(item, "id")

    def answer(result: ResultLike) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": echoed(call_id), "content": result.to_json()}

    kind, function = get(item, "type"), get(item, "function")
    if function is None or kind not in (None, "function"):
        what = f"a {kind!r} tool call" if isinstance(kind, str) else "this tool call"
        refused = error(
            "VALIDATION_ERROR", f"only function tool calls are handled, not {what}", 400
        )
        return Job("", None, answer, refused)
    return Job(tool_name(function), arguments(get(function, "arguments")), answer, call_id=call_id)


async def openai_responses(
    output: Iterable[Any] | None, call: Call, limit: int
) -> list[dict[str, Any]]:
    """`{"type": "function_call_output", "call_id", "output"}` for each `function_call` item of
    `response.output`, and `{"type": "custom_tool_call_output", ...}` with an error result for
    each `custom_tool_call` item (the next request needs an answer for every call id); other
    items (messages, reasoning, hosted tools' calls) are not ours."""
    return await answer_all(responses_jobs(output), call, limit)


def responses_jobs(output: Iterable[Any] | None) -> list[Job]:
    """The calls of `response.output` (see `openai_responses`)."""
    items = [item for item in output or () if get(item, "type") in _RESPONSES_CALLS]
    return [_responses_job(item) for item in items]


#: The Responses items that are calls of the client's tools, and the type of their answers.
_RESPONSES_CALLS = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
}


def _responses_job(item: Any) -> Job:
    kind, call_id = get(item, "type"), get(item, "call_id")

    def answer(result: ResultLike) -> dict[str, Any]:
        output = result.to_json()
        return {"type": _RESPONSES_CALLS[kind], "call_id": echoed(call_id), "output": output}

    if kind != "function_call":
        refused = error(
            "VALIDATION_ERROR", "only function tool calls are handled, not a custom tool call", 400
        )
        return Job("", None, answer, refused)
    return Job(tool_name(item), arguments(get(item, "arguments")), answer, call_id=call_id)
