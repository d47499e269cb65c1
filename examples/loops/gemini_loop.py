"""A complete tool loop with Google's google-genai types, offline:
`python examples/loops/gemini_loop.py`.

`toolgen.runtime.loop_gemini` asks the model, answers each `function_call` part with a
`function_response` part through the `Toolbox`, and asks again until the model answers without
calls. The model here is scripted (no network, no key): replace `scripted_model` with a function
that makes the `client.models.generate_content(...)` call its docstring shows, to talk to
Gemini.
"""

from __future__ import annotations

from typing import Any

from conversation import CALLS, QUESTION, answer, context, report, toolbox, tools
from google.genai import types

from toolgen.runtime import ToolChoice, loop_gemini

TOOLS = [tools("gemini/function_declarations.json")]  # one Tool of function declarations


def scripted_model(contents: list[types.Content], **request: Any) -> types.GenerateContentResponse:
    """Stands in for `client.models.generate_content(model=..., contents=contents,
    config={"tools": TOOLS, **request})` (`request`: the loop's `tool_config` on the first
    turn): first three tool calls in one turn, then an answer from their results."""
    last = contents[-1].parts or []
    if last[0].text is not None:  # the user's question: ask for the tools
        parts = [types.Part(function_call=types.FunctionCall(id=i, name=n, args=a))
                 for i, n, a in CALLS]  # fmt: skip
    else:  # the tool results: answer from them
        results = {p.function_response.id: p.function_response.response
                   for p in last if p.function_response}  # fmt: skip
        parts = [types.Part(text=answer(results))]
    content = types.Content(role="model", parts=parts)
    candidate = types.Candidate(content=content, finish_reason=types.FinishReason.STOP)
    return types.GenerateContentResponse(candidates=[candidate])


def main() -> None:
    contents = [types.Content(role="user", parts=[types.Part(text=QUESTION)])]
    # the first turn must call a tool; later turns are the model's to end (`AUTO`)
    result = loop_gemini(
        scripted_model, contents, toolbox(), context(), tool_choice=ToolChoice.required()
    )
    report(result, result.response.text)


if __name__ == "__main__":
    main()
