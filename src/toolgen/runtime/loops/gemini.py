"""The Gemini loop, `loop_gemini`, and its async twin (see `toolgen.runtime.loops`).

The first candidate's content is appended as it came (the SDK's `Content` keeps the parts'
thought signatures, which Gemini wants back), its `function_call` parts answered with
`function_response` parts in one `user` content: a `Content` of the same class when the
model's was one, else a dict. Gemini has no finish reason of its own for calls: `STOP` with
calls goes on; `STOP` without them ends the turn (a stop sequence too), `MAX_TOKENS` is the
token limit, the safety and recitation reasons are the filter; a prompt blocked (no
candidate, `prompt_feedback.block_reason`) is the filter too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from toolgen.runtime.adapters import get
from toolgen.runtime.adapters.gemini import gemini_jobs
from toolgen.runtime.loops import MAX_TURNS, LoopResult, Platform, StopReason, Turn, arun, run, text

if TYPE_CHECKING:
    from toolgen.runtime.choice import ToolChoice
    from toolgen.runtime.context import CallContext
    from toolgen.runtime.toolbox import Toolbox

#: Finish reasons that are the platform's filter (google-genai's `FinishReason`).
_FILTERED = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
    }
)


def _reason(finish: str | None) -> StopReason:
    if finish in (None, "STOP"):
        return StopReason.END_TURN
    if finish == "MAX_TOKENS":
        return StopReason.MAX_TOKENS
    return StopReason.CONTENT_FILTER if finish in _FILTERED else StopReason.OTHER


def _candidate(response: Any) -> tuple[bool, Any]:
    """The first candidate of a `GenerateContentResponse` (or its dict), or the response when
    it is a candidate itself; False when the response has no candidate (its prompt blocked)."""
    if isinstance(response, Mapping):
        whole = any(key in response for key in ("candidates", "prompt_feedback", "promptFeedback"))
    else:
        whole = hasattr(response, "candidates")
    if not whole:
        return True, response
    candidates = get(response, "candidates")
    return (True, candidates[0]) if candidates else (False, None)


def _read(response: Any) -> Turn:
    found, candidate = _candidate(response)
    if not found:
        feedback = get(response, "prompt_feedback", "promptFeedback")
        block = text(get(feedback, "block_reason", "blockReason"))
        return Turn([], [], None, block, StopReason.CONTENT_FILTER if block else StopReason.OTHER)
    content = get(candidate, "content")
    parts = get(content, "parts") or []
    said = [content] if parts else []
    jobs = gemini_jobs(parts)
    finish = text(get(candidate, "finish_reason", "finishReason"))
    if jobs and finish in (None, "STOP"):
        return Turn(said, jobs, parts, finish, None)
    recovery = "send the request again with a higher max_output_tokens"
    given = recovery if finish == "MAX_TOKENS" else None
    return Turn(said, jobs, parts, finish, _reason(finish), given)


def _answered(answers: list[dict[str, Any]], response: Any) -> list[Any]:
    answer = {"role": "user", "parts": answers}
    content = get(_candidate(response)[1], "content")
    validate = getattr(type(content), "model_validate", None)
    return [answer if validate is None else validate(answer)]


GEMINI = Platform(
    option="tool_config",
    choice=lambda choice, box: choice.gemini(box),
    read=_read,
    handle=lambda box, parts, context: box.handle_gemini(parts, context=context),
    ahandle=lambda box, parts, context: box.ahandle_gemini(parts, context=context),
    answered=_answered,
)


def loop_gemini(
    model: Callable[..., Any],
    contents: list[Any],
    toolbox: Toolbox,
    context: CallContext | None = None,
    *,
    max_turns: int = MAX_TURNS,
    tool_choice: ToolChoice | None = None,
) -> LoopResult:
    """Gemini until the model stops: `model(contents, **request)` returns a
    `GenerateContentResponse` or a `Candidate` (or their dicts), as
    `client.models.generate_content(model=..., contents=contents, config={"tools": TOOLS,
    **request})` does; `request` is `{"tool_config": ...}` on the first turn when `tool_choice`
    is given. `contents` is extended in place and is the result's transcript."""
    return run(GEMINI, model, contents, toolbox, context, max_turns, tool_choice)


async def aloop_gemini(
    model: Callable[..., Any],
    contents: list[Any],
    toolbox: Toolbox,
    context: CallContext | None = None,
    *,
    max_turns: int = MAX_TURNS,
    tool_choice: ToolChoice | None = None,
) -> LoopResult:
    """`loop_gemini` on the running event loop; `model` may be async."""
    return await arun(GEMINI, model, contents, toolbox, context, max_turns, tool_choice)
