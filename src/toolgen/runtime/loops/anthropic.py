"""The Anthropic Messages loop, `loop_anthropic`, and its async twin (see
`toolgen.runtime.loops`).

The reply's content is appended as an assistant message, its `tool_use` blocks answered with
`tool_result` blocks in one user message. Its `stop_reason` says why it ended: `tool_use` goes
on (as does `end_turn` with calls), and so does `pause_turn` (a server tool paused a long
turn: the reply is sent back as it is and the model carries on); `end_turn`, `max_tokens`
(and `model_context_window_exceeded`), `stop_sequence` and `refusal` end the loop. The adapter
itself answers the calls of a reply cut off (`toolgen.runtime.adapters.anthropic`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolgen.runtime.adapters import get
from toolgen.runtime.adapters.anthropic import anthropic_jobs
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

#: The stop reasons of a reply with no calls to answer.
_ENDS = {
    None: StopReason.END_TURN,
    "end_turn": StopReason.END_TURN,
    "tool_use": StopReason.END_TURN,
    "max_tokens": StopReason.MAX_TOKENS,
    "model_context_window_exceeded": StopReason.MAX_TOKENS,
    "stop_sequence": StopReason.STOP_SEQUENCE,
    "refusal": StopReason.REFUSAL,
}


def _read(message: Any) -> Turn:
    content = get(message, "content")
    blocks: Any = content if isinstance(content, str) else [dumped(b) for b in content or ()]
    # an empty assistant message is refused by the API: a reply with nothing adds none
    said = [{"role": "assistant", "content": blocks}] if blocks else []
    jobs = anthropic_jobs(message)
    stop = text(get(message, "stop_reason"))
    if stop == "pause_turn" or (jobs and stop in (None, "tool_use", "end_turn")):
        return Turn(said, jobs, message, stop, None)
    return Turn(said, jobs, message, stop, _ENDS.get(stop, StopReason.OTHER))


def _answered(answers: list[dict[str, Any]], message: Any) -> list[Any]:
    return [{"role": "user", "content": answers}]


ANTHROPIC = Platform(
    option="tool_choice",
    choice=lambda choice, box: choice.anthropic(box),
    read=_read,
    # the message itself: the adapter reads its stop reason
    handle=lambda box, message, context: box.handle_anthropic(message, context=context),
    ahandle=lambda box, message, context: box.ahandle_anthropic(message, context=context),
    answered=_answered,
)


def loop_anthropic(
    model: Callable[..., Any],
    messages: list[Any],
    toolbox: Toolbox,
    context: CallContext | None = None,
    *,
    max_turns: int = MAX_TURNS,
    tool_choice: ToolChoice | None = None,
) -> LoopResult:
    """Messages until the model stops: `model(messages, **request)` returns a `Message` (or its
    dict), as `client.messages.create(model=..., max_tokens=..., tools=TOOLS, messages=messages,
    **request)` does; `request` is `{"tool_choice": ...}` on the first turn when `tool_choice`
    is given. `messages` is extended in place and is the result's transcript."""
    return run(ANTHROPIC, model, messages, toolbox, context, max_turns, tool_choice)


async def aloop_anthropic(
    model: Callable[..., Any],
    messages: list[Any],
    toolbox: Toolbox,
    context: CallContext | None = None,
    *,
    max_turns: int = MAX_TURNS,
    tool_choice: ToolChoice | None = None,
) -> LoopResult:
    """`loop_anthropic` on the running event loop; `model` may be async."""
    return await arun(ANTHROPIC, model, messages, toolbox, context, max_turns, tool_choice)
