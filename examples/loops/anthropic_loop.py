"""A complete tool loop with Anthropic's SDK types, offline: `python examples/loops/anthropic_loop.py`.

The model only proposes calls; `toolgen.runtime.loop_anthropic` asks it, answers each `tool_use`
block with a `tool_result` block through the `Toolbox` (which decides each call from what
`toolgen build` wrote to generated/: validation, permissions, confirmation, idempotency, audit),
and asks again until the model ends its turn. The model here is scripted (no network, no key):
replace `scripted_model` with a function that makes the `client.messages.create(...)` call its
docstring shows, to talk to Claude.
"""

from __future__ import annotations

import json
from typing import Any

from anthropic.types import Message, MessageParam
from conversation import CALLS, QUESTION, answer, context, report, toolbox, tools

from toolgen.runtime import ToolChoice, loop_anthropic

TOOLS = tools("anthropic/tools.json")


def scripted_model(messages: list[MessageParam], **request: Any) -> Message:
    """Stands in for `client.messages.create(model=..., max_tokens=1024, tools=TOOLS,
    messages=messages, **request)` (`request`: the loop's `tool_choice` on the first turn):
    first three tool calls in one turn, then an answer from their results."""
    last = messages[-1]["content"]
    if isinstance(last, str):  # the user's question: ask for the tools
        content: list[dict[str, Any]] = [{"type": "text", "text": "Let me look that up."}]
        content += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in CALLS]
        stop = "tool_use"
    else:  # the tool results: answer from them
        results = {block["tool_use_id"]: json.loads(block["content"]) for block in last}
        content, stop = [{"type": "text", "text": answer(results)}], "end_turn"
    return Message.model_validate(
        {"id": "msg", "type": "message", "role": "assistant", "model": "scripted",
         "content": content, "stop_reason": stop, "stop_sequence": None,
         "usage": {"input_tokens": 0, "output_tokens": 0}}
    )  # fmt: skip


def main() -> None:
    messages: list[MessageParam] = [{"role": "user", "content": QUESTION}]
    # the first turn must call a tool; later turns are the model's to end (`auto`)
    result = loop_anthropic(
        scripted_model, messages, toolbox(), context(), tool_choice=ToolChoice.required()
    )
    report(result, result.response.content[0].text)


if __name__ == "__main__":
    main()
