"""Anthropic Messages: the `tool_use` blocks of `message.content`."""

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


async def anthropic(content: Iterable[Any] | None, call: Call, limit: int) -> list[dict[str, Any]]:
    """`{"type": "tool_result", "tool_use_id", "content", "is_error"}` for each `tool_use` block;
    text, thinking and server tools' blocks are not ours."""
    blocks = [block for block in content or () if get(block, "type") == "tool_use"]
    return await answer_all((_job(block) for block in blocks), call, limit)


def _job(block: Any) -> Job:
    use_id = get(block, "id")

    def answer(result: ResultLike) -> dict[str, Any]:
        return {
            "type": "tool_result",
            "tool_use_id": echoed(use_id),
            "content": result.to_json(),
            "is_error": not result.ok,
        }

    return Job(tool_name(block), arguments(get(block, "input")), answer, call_id=use_id)
