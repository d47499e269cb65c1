"""The loop around the calls: ask the model, answer its tool calls, ask again, until it stops.

One loop per platform (`loops.openai`: `loop_openai_chat`, `loop_openai_responses`;
`loops.anthropic`: `loop_anthropic`; `loops.gemini`: `loop_gemini`), each with an `a`-prefixed
async twin. The caller's `model(transcript, **request)` calls the vendor's SDK (toolgen never
does) and returns its response, the SDK's object or a dict; the loop reads it (`Platform.read`),
appends what the model said to the transcript, answers its calls through the `Toolbox`'s
adapter for the platform (`Toolbox.handle_*`), appends the answers, and asks again, until the
model ends its turn for a reason of its own (`StopReason`) or `max_turns` model calls were made.
The transcript is the caller's list, extended in place, a turn and its answers together: when
the model function raises, the turns before it are there, their calls answered (they ran: a
caller that tries again must not lose them).

Every call the transcript holds gets exactly one answer (reference/runtime.md), so that it can
be sent again as it is: the calls of the last allowed turn are decided by the toolbox like any
other, and the calls of a reply that stopped for another reason (cut off at its token limit,
filtered) are answered with a `VALIDATION_ERROR` and never run, as their arguments may be
partial. `request` is `{"tool_choice": ...}` (Gemini's `{"tool_config": ...}`) on the first
turn when a `ToolChoice` is given, and empty after it: a forced choice sent on every turn
would never let the model stop. A first reply that breaks the choice (calls under `none`, a
call of another tool than the one named: a model or a server that does not enforce it) has
none of its calls run: each is answered with a `VALIDATION_ERROR`, and the loop goes on.

The steps are one generator (`_steps`) that asks for the model's response and for a turn's
answers; `run` and `arun` fulfil those asks, the one from sync code, the other awaiting.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from toolgen.runtime.adapters import Job, answer_here, error
from toolgen.runtime.values import quote

if TYPE_CHECKING:
    from toolgen.runtime.choice import ToolChoice
    from toolgen.runtime.context import CallContext
    from toolgen.runtime.toolbox import Toolbox

#: Model calls a loop makes at most unless told otherwise.
MAX_TURNS = 10


class StopReason(StrEnum):
    """Why a loop stopped; `LoopResult.stop` keeps the vendor's own word for it."""

    END_TURN = "end_turn"  # the model answered (OpenAI's and Gemini's stop sequences too)
    MAX_TOKENS = "max_tokens"  # cut off for room: the output token limit or the context window
    STOP_SEQUENCE = "stop_sequence"  # one of the request's stop sequences (Anthropic says so)
    REFUSAL = "refusal"  # the model declined
    CONTENT_FILTER = "content_filter"  # the platform's filter stopped the reply or the prompt
    TURN_LIMIT = "turn_limit"  # `max_turns` model calls made, the last one's calls answered
    OTHER = "other"  # any other end (failed, malformed, a reason this version does not know)


@dataclass(frozen=True)
class LoopResult:
    """What a loop ends with: why (`reason`, and the vendor's `stop`: a finish or stop reason,
    a status, a block reason), the model's last `response` as `model` returned it, the
    `transcript` (the caller's list, extended with each turn and its answers, as the vendor
    wants them sent) and the number of model calls made (`turns`)."""

    reason: StopReason
    stop: str | None
    response: Any
    transcript: list[Any]
    turns: int


@dataclass(frozen=True)
class Turn:
    """What a loop reads of one response: what the model said (to append), its calls (the
    adapter's jobs) and what to hand the toolbox's adapter for them (`calls`), the vendor's
    reason, and ours: None to answer the calls and go on."""

    said: list[Any]
    jobs: list[Job]
    calls: Any
    stop: str | None
    reason: StopReason | None
    recovery: str | None = None  # for answers to calls of a reply that stopped


@dataclass(frozen=True)
class Platform:
    """One platform's part of the loop.

    - `option`: the request's keyword for the tool choice; `choice`, its vendor form;
    - `read(response)`: the response as a `Turn`;
    - `handle(toolbox, calls, context)` and `ahandle`: the answers of a turn's calls (the
      toolbox's adapter);
    - `answered(answers, response)`: what the answers append to the transcript.
    """

    option: str
    choice: Callable[[ToolChoice, Toolbox], Any]
    read: Callable[[Any], Turn]
    handle: Callable[[Toolbox, Any, CallContext | None], list[dict[str, Any]]]
    ahandle: Callable[[Toolbox, Any, CallContext | None], Awaitable[list[dict[str, Any]]]]
    answered: Callable[[list[dict[str, Any]], Any], list[Any]] = field(
        default=lambda answers, response: answers  # appended as they are
    )


@dataclass(frozen=True)
class _Ask:
    """The model's response to the transcript, with `request` (see `_steps`)."""

    request: dict[str, Any]


@dataclass(frozen=True)
class _Answer:
    """The answers of a turn's calls (see `_steps`)."""

    calls: Any


def run(
    platform: Platform,
    model: Callable[..., Any],
    messages: list[Any],
    toolbox: Toolbox,
    context: CallContext | None,
    max_turns: int,
    tool_choice: ToolChoice | None,
) -> LoopResult:
    """The loop from synchronous code, extending `messages`: `model` returns the response,
    the calls are answered by the toolbox's sync adapter."""
    steps = _steps(platform, messages, toolbox, max_turns, tool_choice)
    try:
        asked = next(steps)
        while True:
            if isinstance(asked, _Ask):
                response = model(messages, **asked.request)
                if inspect.isawaitable(response):
                    _discard(response)
                    raise TypeError("the model function is async: use the aloop_* twin")
                asked = steps.send(response)
            else:
                asked = steps.send(platform.handle(toolbox, asked.calls, context))
    except StopIteration as done:
        result: LoopResult = done.value
        return result


async def arun(
    platform: Platform,
    model: Callable[..., Any],
    messages: list[Any],
    toolbox: Toolbox,
    context: CallContext | None,
    max_turns: int,
    tool_choice: ToolChoice | None,
) -> LoopResult:
    """The loop on the running event loop, extending `messages`: `model` returns the
    response or an awaitable of it, the calls are answered by the toolbox's async adapter."""
    steps = _steps(platform, messages, toolbox, max_turns, tool_choice)
    try:
        asked = next(steps)
        while True:
            if isinstance(asked, _Ask):
                response = model(messages, **asked.request)
                if inspect.isawaitable(response):
                    response = await response
                asked = steps.send(response)
            else:
                asked = steps.send(await platform.ahandle(toolbox, asked.calls, context))
    except StopIteration as done:
        result: LoopResult = done.value
        return result


def _steps(
    platform: Platform,
    transcript: list[Any],
    toolbox: Toolbox,
    max_turns: int,
    tool_choice: ToolChoice | None,
) -> Generator[_Ask | _Answer, Any, LoopResult]:
    """The loop's steps, appending to `transcript`: asks for the model's response (`_Ask`)
    and for a turn's answers (`_Answer`), and returns the result."""
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"max_turns must be a whole number of at least 1, not {max_turns!r}")
    # checked before the first model call: a tool the model may not see is never named to it
    first = {} if tool_choice is None else {platform.option: platform.choice(tool_choice, toolbox)}
    turn = None
    response = None
    for turns in range(1, max_turns + 1):
        response = yield _Ask(first if turns == 1 else {})
        turn = platform.read(response)
        if turn.reason is not None:
            transcript.extend(turn.said)
            if turn.jobs:
                transcript.extend(platform.answered(_not_run(turn), response))
            return LoopResult(turn.reason, turn.stop, response, transcript, turns)
        # the vendor enforces the choice; a model or a server that does not is not obeyed
        broken = _broken(tool_choice, turn.jobs) if turns == 1 else None
        if broken is not None:
            transcript.extend(turn.said)
            transcript.extend(platform.answered(_refused(turn.jobs, broken), response))
            continue
        # the calls with their answers or not at all: a turn interrupted leaves none unanswered
        answers = platform.answered((yield _Answer(turn.calls)), response) if turn.jobs else []
        transcript.extend(turn.said)
        transcript.extend(answers)
    assert turn is not None
    return LoopResult(StopReason.TURN_LIMIT, turn.stop, response, transcript, max_turns)


def _not_run(turn: Turn) -> list[dict[str, Any]]:
    """The answers to the calls of a reply that stopped for `turn.reason`: none runs, as the
    reply may have stopped inside its arguments (reference/runtime.md: never execute a partial
    call); an answer the adapter made itself is kept (Anthropic's for a reply cut off)."""
    message = (
        f"the reply stopped ({turn.stop or turn.reason}) before it was complete, so this "
        "call may be incomplete and was not run"
    )
    return _refused(turn.jobs, message, turn.recovery)


def _broken(choice: ToolChoice | None, jobs: list[Job]) -> str | None:
    """Why the calls of a reply to a request with `choice` are not to run: it said `none`
    and the model called, or it named a tool and the model called another; None when they
    keep to it."""
    if choice is None or not jobs:
        return None
    if choice.mode == "none":
        allowed = "no tool call"
    elif choice.mode == "tool" and any(job.name != choice.name for job in jobs):
        allowed = f"calls of {quote(choice.name)} only"
    else:
        return None
    return f"this turn's tool choice allowed {allowed}, so no call of the reply was run"


def _refused(jobs: list[Job], message: str, recovery: str | None = None) -> list[dict[str, Any]]:
    """The answers to `jobs`, none run: each a `VALIDATION_ERROR` saying `message`, or the
    answer the adapter made itself."""
    refused = [
        dataclasses.replace(
            job, refused=job.refused or error("VALIDATION_ERROR", message, 400, recovery)
        )
        for job in jobs
    ]
    return answer_here(refused, _never, 1)


def _never(name: str, arguments: Any, call_id: str | None) -> Callable[[], Any]:
    raise AssertionError("a refused call is never made")  # every job is refused


def _discard(awaitable: Awaitable[Any]) -> None:
    """Close a coroutine that will not be awaited (Python would warn of it)."""
    close = getattr(awaitable, "close", None)
    if close is not None:
        close()


def text(value: Any) -> str | None:
    """A reason as text: an enum's value (Gemini's `FinishReason`), a string as it is."""
    value = getattr(value, "value", value)
    return value if isinstance(value, str) else None


def dumped(item: Any) -> Any:
    """An SDK object as the dict its request takes (None fields left out); a dict as it is."""
    dump = getattr(item, "model_dump", None)
    return item if dump is None else dump(mode="json", exclude_none=True)
