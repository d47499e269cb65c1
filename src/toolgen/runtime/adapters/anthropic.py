"""Anthropic Messages: the `tool_use` blocks of a message (or of `message.content`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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

#: The stop reasons of a reply the API cut off, with what to do instead (Anthropic's "Stop
#: reasons" guide: `max_tokens` "raise max_tokens", `model_context_window_exceeded` "treat
#: the response as truncated"): its last `tool_use` block's input may end early.
_CUT_OFF = {
    "max_tokens": "send the request again with a higher max_tokens",
    "model_context_window_exceeded": "send the request again with a shorter conversation",
}


async def anthropic(message: Any, call: Call, limit: int) -> list[dict[str, Any]]:
    """`{"type": "tool_result", "tool_use_id", "content", "is_error"}` for each `tool_use` block
    of `message` (the SDK's `Message`, a dict of one, or its `content` alone); text, thinking
    and server tools' blocks are not ours.

    A message cut off (`stop_reason` `max_tokens`, or `model_context_window_exceeded`) may end
    inside a block's input, which the API then gives as a valid but partial object: none of its
    calls runs (reference/runtime.md: never execute a partial call); each is answered with a
    `VALIDATION_ERROR` saying so. All of them, not only the last: the request is sent again
    with more room, and the new reply proposes the calls before it again. Given the content
    alone, the adapter cannot see the stop reason: pass the message."""
    return await answer_all(anthropic_jobs(message), call, limit)


def anthropic_jobs(message: Any) -> list[Job]:
    """The calls of `message`'s `tool_use` blocks (see `anthropic`)."""
    content, stop_reason = _turn(message)
    blocks = [block for block in content or () if get(block, "type") == "tool_use"]
    recovery = _CUT_OFF.get(stop_reason) if type(stop_reason) is str else None
    return [_job(block, stop_reason, recovery) for block in blocks]


def _turn(given: Any) -> tuple[Iterable[Any] | None, Any]:
    """The content blocks and the stop reason of a message; of its content alone, the blocks
    and no stop reason. A message is a dict (a dict is no list of blocks) or an object with a
    `stop_reason` (the SDK's `Message`, `BetaMessage`)."""
    if isinstance(given, Mapping) or (given is not None and hasattr(given, "stop_reason")):
        content = get(given, "content")
        return (None if isinstance(content, str) else content), get(given, "stop_reason")
    return given, None


def _job(block: Any, stop_reason: Any, recovery: str | None) -> Job:
    use_id = get(block, "id")

    def answer(result: ResultLike) -> dict[str, Any]:
        return {
            "type": "tool_result",
            "tool_use_id": echoed(use_id),
            "content": result.to_json(),
            "is_error": not result.ok,
        }

    name = tool_name(block)
    if recovery is not None:
        refused = error(
            "VALIDATION_ERROR",
            f"the model's reply was cut off ({stop_reason}), so this call's input may be "
            "incomplete; it was not run",
            400,
            recovery=recovery,
        )
        return Job(name, None, answer, refused, call_id=use_id)
    return Job(name, arguments(get(block, "input")), answer, call_id=use_id)
