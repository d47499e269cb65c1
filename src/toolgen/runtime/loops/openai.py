"""The OpenAI loops: Chat Completions (`loop_openai_chat`) and Responses
(`loop_openai_responses`), each with its async twin (see `toolgen.runtime.loops`).

Chat: the first choice's message is appended, its `tool_calls` answered with `role: "tool"`
messages. Its `finish_reason` says why it ended: `tool_calls` (or `stop`, which a forced tool
choice gives with its calls) goes on; `stop` without calls is the end of the turn (a stop
sequence too: Chat does not tell them apart), `length` the token limit, `content_filter` the
filter; a `message.refusal` is a refusal whatever the finish reason.

Responses: the output items are appended (a reasoning model's reasoning items must be sent
back with its calls), the `function_call` items answered with `function_call_output` items.
`status` `completed` with calls goes on, without them ends the turn; `incomplete` stopped for
`incomplete_details.reason` (`max_output_tokens`, `content_filter`); an output message with
`refusal` content is a refusal; `failed` or `cancelled` is another end. The transcript is the
whole conversation, sent each turn (the caller keeping no `previous_response_id`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from toolgen.runtime.adapters import get
from toolgen.runtime.adapters.openai import chat_jobs, responses_jobs
from toolgen.runtime.loops import (
    MAX_TURNS,
    LoopResult,
    Platform,
    StopReason,
    Turn,
    arun,
    dumped,
    run,
    text,
)

if TYPE_CHECKING:
    from toolgen.runtime.choice import ToolChoice
    from toolgen.runtime.context import CallContext
    from toolgen.runtime.toolbox import Toolbox

#: Chat's finish reasons of a reply with no calls to answer.
_CHAT_ENDS = {
    None: StopReason.END_TURN,
    "stop": StopReason.END_TURN,
    "tool_calls": StopReason.END_TURN,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.CONTENT_FILTER,
}


def _chat(response: Any) -> Turn:
    choices = get(response, "choices")
    if not choices:  # a completion with no choice: nothing said, nothing to go on with
        return Turn([], [], None, None, StopReason.OTHER)
    choice = choices[0]
    message, finish = get(choice, "message"), text(get(choice, "finish_reason"))
    tool_calls = get(message, "tool_calls")
    said = [dumped(message)] if _said(message) else []
    jobs = chat_jobs(tool_calls)
    if get(message, "refusal") is not None:
        return Turn(said, jobs, tool_calls, finish, StopReason.REFUSAL)
    if jobs and finish in (None, "stop", "tool_calls"):
        return Turn(said, jobs, tool_calls, finish, None)
    recovery = "send the request again with a higher max_completion_tokens"
    reason = _CHAT_ENDS.get(finish, StopReason.OTHER)
    return Turn(said, jobs, tool_calls, finish, reason, recovery if finish == "length" else None)


def _said(message: Any) -> bool:
    """Has the message anything to send back? (An assistant message needs content, calls or a
    refusal.)"""
    return any(get(message, field) is not None for field in ("content", "tool_calls", "refusal"))


#: Responses' `incomplete_details.reason`s.
_INCOMPLETE = {
    "max_output_tokens": StopReason.MAX_TOKENS,
    "content_filter": StopReason.CONTENT_FILTER,
}


def _responses(response: Any) -> Turn:
    output: Sequence[Any] = get(response, "output") or ()
    said = [dumped(item) for item in output]
    jobs = responses_jobs(output)
    status = text(get(response, "status"))
    if any(_refused(item) for item in output):
        return Turn(said, jobs, output, "refusal", StopReason.REFUSAL)
    if status in (None, "completed"):
        return Turn(said, jobs, output, status, None if jobs else StopReason.END_TURN)
    if status == "incomplete":
        why = text(get(get(response, "incomplete_details"), "reason"))
        recovery = "send the request again with a higher max_output_tokens"
        reason = _INCOMPLETE.get(why, StopReason.OTHER) if why else StopReason.OTHER
        recovery_given = recovery if why == "max_output_tokens" else None
        return Turn(said, jobs, output, why or status, reason, recovery_given)
    return Turn(said, jobs, output, status, StopReason.OTHER)


def _refused(item: Any) -> bool:
    """Is `item` an output message with `refusal` content?"""
    if get(item, "type") != "message":
        return False
    return any(get(part, "type") == "refusal" for part in get(item, "content") or ())


CHAT = Platform(
    option="tool_choice",
    choice=lambda choice, box: choice.openai_chat(box),
    read=_chat,
    handle=lambda box, calls, context: box.handle_openai_chat(calls, context=context),
    ahandle=lambda box, calls, context: box.ahandle_openai_chat(calls, context=context),
)

RESPONSES = Platform(
    option="tool_choice",
    choice=lambda choice, box: choice.openai_responses(box),
    read=_responses,
    handle=lambda box, calls, context: box.handle_openai_responses(calls, context=context),
    ahandle=lambda box, calls, context: box.ahandle_openai_responses(calls, context=context),
)


def loop_openai_chat(
    model: Callable[..., Any],
    messages: list[Any],
    toolbox: Toolbox,
    context: CallContext | None = None,
    *,
    max_turns: int = MAX_TURNS,
    tool_choice: ToolChoice | None = None,
) -> LoopResult:
    """Chat Completions until the model stops: `model(messages, **request)` returns a
    `ChatCompletion` (or its dict), as `client.chat.completions.create(model=...,
    messages=messages, tools=TOOLS, **request)` does; `request` is `{"tool_choice": ...}` on the
    first turn when `tool_choice` is given. `messages` is extended in place and is the result's
    transcript."""
    return run(CHAT, model, messages, toolbox, context, max_turns, tool_choice)


async def aloop_openai_chat(
    model: Callable[..., Any],
    messages: list[Any],
    toolbox: Toolbox,
    context: CallContext | None = None,
    *,
    max_turns: int = MAX_TURNS,
    tool_choice: ToolChoice | None = None,
) -> LoopResult:
    """`loop_openai_chat` on the running event loop; `model` may be async."""
    return await arun(CHAT, model, messages, toolbox, context, max_turns, tool_choice)


def loop_openai_responses(
    model: Callable[..., Any],
    items: list[Any],
    toolbox: Toolbox,
    context: CallContext | None = None,
    *,
    max_turns: int = MAX_TURNS,
    tool_choice: ToolChoice | None = None,
) -> LoopResult:
    """Responses until the model stops: `model(items, **request)` returns a `Response` (or its
    dict), as `client.responses.create(model=..., input=items, tools=TOOLS, **request)` does;
    `request` is `{"tool_choice": ...}` on the first turn when `tool_choice` is given. `items`
    is extended in place and is the result's transcript."""
    return run(RESPONSES, model, items, toolbox, context, max_turns, tool_choice)


async def aloop_openai_responses(
    model: Callable[..., Any],
    items: list[Any],
    toolbox: Toolbox,
    context: CallContext | None = None,
    *,
    max_turns: int = MAX_TURNS,
    tool_choice: ToolChoice | None = None,
) -> LoopResult:
    """`loop_openai_responses` on the running event loop; `model` may be async."""
    return await arun(RESPONSES, model, items, toolbox, context, max_turns, tool_choice)
