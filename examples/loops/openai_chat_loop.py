"""A complete tool loop with OpenAI's Chat Completions types, offline:
`python examples/loops/openai_chat_loop.py`.

`toolgen.runtime.loop_openai_chat` asks the model, answers each of `message.tool_calls` with a
`role: "tool"` message through the `Toolbox`, and asks again until the model stops. The model
here is scripted (no network, no key): replace `scripted_model` with a function that makes the
`client.chat.completions.create(...)` call its docstring shows, to talk to a real model.
"""

from __future__ import annotations

import json
from typing import Any

from conversation import CALLS, QUESTION, answer, context, report, toolbox, tools
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from toolgen.runtime import ToolChoice, loop_openai_chat

TOOLS = tools("openai/chat_completions.json")


def scripted_model(messages: list[ChatCompletionMessageParam], **request: Any) -> ChatCompletion:
    """Stands in for `client.chat.completions.create(model=..., messages=messages, tools=TOOLS,
    **request)` (`request`: the loop's `tool_choice` on the first turn): first three tool calls
    in one turn, then an answer from their results."""
    if messages[-1]["role"] == "user":  # the user's question: ask for the tools
        calls = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in CALLS
        ]
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": calls}
        finish = "tool_calls"
    else:  # the tool results: answer from them
        results = {m["tool_call_id"]: json.loads(str(m["content"]))
                   for m in messages if m["role"] == "tool"}  # fmt: skip
        message, finish = {"role": "assistant", "content": answer(results)}, "stop"
    return ChatCompletion.model_validate(
        {"id": "chatcmpl", "object": "chat.completion", "created": 0, "model": "scripted",
         "choices": [{"index": 0, "finish_reason": finish, "message": message}]}
    )  # fmt: skip


def main() -> None:
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": QUESTION}]
    # the first turn must call a tool; later turns are the model's to end (`auto`)
    result = loop_openai_chat(
        scripted_model, messages, toolbox(), context(), tool_choice=ToolChoice.required()
    )
    report(result, result.response.choices[0].message.content)


if __name__ == "__main__":
    main()
