"""Gemini (google-genai): the parts of `candidate.content.parts` that carry a function call."""

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
    get,
    tool_name,
)


async def gemini(parts: Iterable[Any] | None, call: Call, limit: int) -> list[dict[str, Any]]:
    """A `{"function_response": {"id"?, "name", "response"}}` part for each function call part
    (`function_call` or, in REST dicts, `functionCall`); `response` is the envelope, an object
    as Gemini requires. The id is echoed when the call had one (the Developer API may omit it)."""
    return await answer_all(gemini_jobs(parts), call, limit)


def gemini_jobs(parts: Iterable[Any] | None) -> list[Job]:
    """The calls of the function call parts of `parts` (see `gemini`)."""
    calls = [found for part in parts or () if (found := _function_call(part)) is not None]
    return [_job(found) for found in calls]


def _function_call(part: Any) -> Any:
    return get(part, "function_call", "functionCall")


def _job(function_call: Any) -> Job:
    call_id = get(function_call, "id")
    name = tool_name(function_call)

    def answer(result: ResultLike) -> dict[str, Any]:
        response: dict[str, Any] = {"name": echoed(name), "response": result.envelope()}
        if call_id is not None:
            response = {"id": echoed(call_id), **response}
        return {"function_response": response}

    return Job(name, arguments(get(function_call, "args")), answer, call_id=call_id)
