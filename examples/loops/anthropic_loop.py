"""A complete tool loop with Anthropic's SDK types, offline: `python examples/loops/anthropic_loop.py`.

The model only proposes calls; `toolgen.runtime.Toolbox` decides them from what `toolgen build`
wrote to generated/ (validation, permissions, confirmation, idempotency, audit) and answers each
`tool_use` block with a `tool_result` block. The model here is scripted (no network, no key):
replace `scripted_model` with the commented `client.messages.create(...)` call to talk to Claude.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from anthropic.types import Message, MessageParam

from toolgen.runtime import CallContext, ConfirmationRequest, Toolbox

REPO = Path(__file__).resolve().parent.parent.parent
TOOLS = json.loads((REPO / "generated" / "anthropic" / "tools.json").read_text())


def scripted_model(messages: list[MessageParam]) -> Message:
    """Stands in for `client.messages.create(model=..., max_tokens=1024, tools=TOOLS,
    messages=messages)`: first three tool calls in one turn, then an answer from their results."""
    last = messages[-1]["content"]
    if isinstance(last, str):  # the user's question: ask for the tools
        content: list[dict[str, Any]] = [
            {"type": "text", "text": "Let me look that up."},
            {"type": "tool_use", "id": "toolu_1", "name": "calculator",
             "input": {"operation": "multiply", "a": 6, "b": 7}},
            {"type": "tool_use", "id": "toolu_2", "name": "get_weather",
             "input": {"location": "Lisbon, Portugal"}},
            {"type": "tool_use", "id": "toolu_3", "name": "delete_user",
             "input": {"user_id": "u-42", "mode": "hard"}},
        ]  # fmt: skip
        stop = "tool_use"
    else:  # the tool results: answer from them
        results = {block["tool_use_id"]: json.loads(block["content"]) for block in last}
        product = results["toolu_1"]["data"]
        weather = results["toolu_2"]["data"]
        refused = results["toolu_3"]["error"]
        text = (
            f"6 x 7 = {product:g}. Lisbon: {weather['conditions']}, "
            f"{weather['temperature_c']} °C. I did not delete u-42: {refused['message']}"
        )
        content, stop = [{"type": "text", "text": text}], "end_turn"
    return Message.model_validate(
        {"id": "msg", "type": "message", "role": "assistant", "model": "scripted",
         "content": content, "stop_reason": stop, "stop_sequence": None,
         "usage": {"input_tokens": 0, "output_tokens": 0}}
    )  # fmt: skip


def get_weather(location: str, units: str = "metric") -> dict[str, Any]:
    """The example's weather handler calls a service; this loop answers for it."""
    return {"location": location, "temperature_c": 19.5, "conditions": "sunny",
            "observed_at": "2026-11-26T10:00:00Z"}  # fmt: skip


def ask(request: ConfirmationRequest) -> bool:
    """Where a person would be asked. This demo shows the request and says no."""
    print(f"confirm? {request.tool} ({request.risk}) {request.arguments}", file=sys.stderr)
    return False


def main() -> None:
    box = Toolbox.load(
        REPO / "generated",
        store="memory://",  # one process; sqlite:///... or redis://... to share keys
        audit=lambda event: print("audit:", event["decision"], event["tool"], file=sys.stderr),
        handlers={"get_weather": get_weather},
        factory=lambda cls: cls("acme"),  # AdminTools takes its tenant
        paths=[REPO / "examples"],
    )
    context = CallContext(
        principal="user-42", scopes={"users:delete"}, confirm=ask, step_up=lambda r: True
    )
    messages: list[MessageParam] = [
        {"role": "user", "content": "What is 6 x 7, the weather in Lisbon, and delete u-42."}
    ]
    while True:
        reply = scripted_model(messages)
        messages.append({"role": "assistant", "content": [b.model_dump() for b in reply.content]})
        if reply.stop_reason != "tool_use":
            break
        results = box.handle_anthropic(reply, context=context)  # the message: its stop_reason too
        messages.append({"role": "user", "content": results})
    print(reply.content[0].text)


if __name__ == "__main__":
    main()
