"""A complete tool loop with OpenAI's Responses types, offline:
`python examples/loops/openai_responses_loop.py`.

`toolgen.runtime.loop_openai_responses` asks the model, answers each `function_call` item of
`response.output` with a `function_call_output` item through the `Toolbox`, and asks again until
the response is complete without calls. The model here is scripted (no network, no key): replace
`scripted_model` with a function that makes the `client.responses.create(...)` call its
docstring shows, to talk to a real model.
"""

from __future__ import annotations

import json
from typing import Any

from conversation import CALLS, QUESTION, answer, context, report, toolbox, tools
from openai.types.responses import Response, ResponseInputItemParam

from toolgen.runtime import ToolChoice, loop_openai_responses

TOOLS = tools("openai/responses.json")


def scripted_model(items: list[ResponseInputItemParam], **request: Any) -> Response:
    """Stands in for `client.responses.create(model=..., input=items, tools=TOOLS, **request)`
    (`request`: the loop's `tool_choice` on the first turn): first three tool calls in one
    turn, then an answer from their results."""
    if items[-1].get("role") == "user":  # the user's question: ask for the tools
        output: list[dict[str, Any]] = [
            {"type": "function_call", "id": f"fc_{i}", "call_id": i, "name": n,
             "arguments": json.dumps(a), "status": "completed"}
            for i, n, a in CALLS
        ]  # fmt: skip
    else:  # the tool results: answer from them
        results = {item["call_id"]: json.loads(str(item["output"]))
                   for item in items if item.get("type") == "function_call_output"}  # fmt: skip
        text = {"type": "output_text", "text": answer(results), "annotations": []}
        output = [{"type": "message", "id": "msg_1", "role": "assistant",
                   "status": "completed", "content": [text]}]  # fmt: skip
    return Response.model_validate(
        {"id": "resp", "object": "response", "created_at": 0, "model": "scripted",
         "status": "completed", "output": output, "parallel_tool_calls": True,
         "tool_choice": request.get("tool_choice", "auto"), "tools": TOOLS}
    )  # fmt: skip


def main() -> None:
    items: list[ResponseInputItemParam] = [{"role": "user", "content": QUESTION}]
    # the first turn must call a tool; later turns are the model's to end (`auto`)
    result = loop_openai_responses(
        scripted_model, items, toolbox(), context(), tool_choice=ToolChoice.required()
    )
    report(result, result.response.output_text)


if __name__ == "__main__":
    main()
