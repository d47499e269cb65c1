"""What of a tool's output reaches the model: the label of untrusted content, and the output
screen (`Toolbox.load(screen=...)`).

Tool results are data, not instructions (reference/runtime.md, "Prompt injection"). The data
of a tool whose contract says it reaches the open world (`open_world: true`, in its
Idempotency section or on the descriptor: `open_world`) is labelled as such: its envelope
says `"provenance": {"source": "open_world", "trusted": false, "note": ...}` before the data
(`result.labelled`), on every platform that gets the envelope (OpenAI's Chat Completions and
Responses, Anthropic, Gemini); MCP answers the data alone, so there the label is the result's
`_meta` (`adapters.mcp`). A tool that does not say is not labelled.

The screen, `screen(tool, result, context)`, sees each success before it is answered (a copy:
what it changes in place is not answered) and returns None to let it pass, `Replace(data)`
to answer other data (which must still be data the tool may return: JSON can carry it and the
return schema accepts it, else it is blocked), or `Block(reason)` to withhold it: the call is
answered `OUTPUT_BLOCKED` (not retryable: the tool ran, and calling it again gets the same
output withheld again) and an audit event `blocked` records the reason. A screen that raises,
or returns anything else, blocks (it fails closed); what it raised is logged, never shown to
the model. It may be async. Error envelopes are the runtime's words and the handler's
declared errors: not screened.

A keyed call's result is kept for replay as the handler returned it, before the screen: the
key stands for what the tool did, and a replay is screened again as it is answered (a blocked
output stays blocked, a screen changed since judges by its new rules).

The toolbox makes an `Outputs` only when it has a screen or a tool to label: without either,
what a call costs is one `is None` check.
"""

from __future__ import annotations

import copy
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime.call import Begun, Call
from toolgen.runtime.context import CallContext
from toolgen.runtime.escapes import handlers_own
from toolgen.runtime.handlers import NotCallable
from toolgen.runtime.result import ToolResult, failure
from toolgen.runtime.steps.execute import answer
from toolgen.runtime.sync import run_sync
from toolgen.runtime.values import name

if TYPE_CHECKING:
    from toolgen.runtime.toolbox import Toolbox

log = logging.getLogger("toolgen.runtime")

#: The provenance of an open-world tool's data.
OPEN_WORLD = "open_world"


@dataclass(frozen=True, slots=True)
class Replace:
    """A screen's answer: answer `data` instead of the tool's."""

    data: Any


@dataclass(frozen=True, slots=True)
class Block:
    """A screen's answer: withhold the output (`OUTPUT_BLOCKED`); `reason` goes to the audit
    event and the log, never to the model."""

    reason: str | None = None


#: What a screen answers: None (pass), `Replace` or `Block`.
Verdict = Replace | Block | None

#: `screen(tool, result, context)`: see the module's text.
Screen = Callable[[str, ToolResult, CallContext], Verdict | Awaitable[Verdict]]


def open_world(descriptor: ToolDescriptor) -> bool:
    """Does the tool's contract say it reaches the open world? The Idempotency section's hint,
    else the descriptor's own field (as MCP's `openWorldHint` is rendered)."""
    hint = descriptor.idempotency.open_world
    return (hint if hint is not None else descriptor.open_world) is True


class Outputs:
    """The labels and the screen of one toolbox's answers: `here` from synchronous code,
    `after` on an event loop, `begun` for a call begun (`Toolbox.begin`)."""

    __slots__ = ("box", "screen", "untrusted")

    def __init__(self, box: Toolbox, screen: Screen | None, untrusted: frozenset[str]) -> None:
        self.box, self.screen, self.untrusted = box, screen, untrusted

    def here(self, arguments: Any, result: ToolResult, context: CallContext) -> ToolResult:
        """`result` as the model gets it (a success labelled, then screened)."""
        screen = self._labelled(result)
        if screen is None:
            return result
        try:
            verdict = screen(result.tool, _shown(result), context)
            if inspect.isawaitable(verdict):
                pending: Awaitable[Verdict] = verdict
                verdict = run_sync(lambda: _awaited(pending))
        except BaseException as exc:
            if not handlers_own(exc):
                raise
            return self._failed(arguments, result, context, exc)
        return self._judged(arguments, result, context, verdict)

    async def after(self, arguments: Any, result: ToolResult, context: CallContext) -> ToolResult:
        """`here` on an event loop (an async screen awaited on it)."""
        screen = self._labelled(result)
        if screen is None:
            return result
        try:
            verdict = screen(result.tool, _shown(result), context)
            if inspect.isawaitable(verdict):
                verdict = await verdict
        except BaseException as exc:
            if not handlers_own(exc):
                raise
            return self._failed(arguments, result, context, exc)
        return self._judged(arguments, result, context, verdict)

    def begun(
        self, arguments: Any, begun: Callable[[], ToolResult], context: CallContext
    ) -> Callable[[], ToolResult]:
        """A begun call's answer passed through `here` when it is asked for (an abandoned
        one's way out kept)."""

        def answered() -> ToolResult:
            return self.here(arguments, begun(), context)

        if isinstance(begun, Begun):
            return Begun(answered, begun.abandon)
        return answered

    def _labelled(self, result: ToolResult) -> Screen | None:
        """Label a success of an untrusted tool; the screen when the success is to be
        screened (None for an error, or when there is no screen)."""
        if not result.ok:
            return None
        if result.tool in self.untrusted:
            result.provenance = OPEN_WORLD
        return self.screen

    def _judged(
        self, arguments: Any, result: ToolResult, context: CallContext, verdict: Any
    ) -> ToolResult:
        if verdict is None:
            return result
        if isinstance(verdict, Replace):
            replaced = self._replaced(result, verdict.data)
            if replaced is not None:
                return replaced
            why = "the output screen's replacement is no data the tool may return"
            return self._blocked(arguments, result, context, why)
        if isinstance(verdict, Block):
            reason = verdict.reason if isinstance(verdict.reason, str) and verdict.reason else None
            return self._blocked(arguments, result, context, reason or "the output screen")
        log.error(
            "[trace %s] the output screen answered a %s, not None, Replace or Block: the output "
            "of %s is blocked",
            result.trace_id,
            type(verdict).__name__,
            name(result.tool),
        )
        return self._blocked(arguments, result, context, "the output screen's answer is unknown")

    def _failed(
        self, arguments: Any, result: ToolResult, context: CallContext, exc: BaseException
    ) -> ToolResult:
        log.error(
            "[trace %s] the output screen failed: the output of %s is blocked",
            result.trace_id,
            name(result.tool),
            exc_info=exc,
        )
        return self._blocked(arguments, result, context, "the output screen failed")

    def _replaced(self, result: ToolResult, data: Any) -> ToolResult | None:
        """The success answering `data` instead, checked as the handler's return is (JSON
        carries it, the return schema accepts it); None when it is not such data."""
        box = self.box
        descriptor = box.catalog.descriptors.get(result.tool)
        if descriptor is None:
            return None
        try:
            prepared = box.prepared(descriptor)
        except NotCallable:
            return None
        who = f"the output screen of {descriptor.name}"
        checked = answer(
            descriptor.name,
            prepared,
            data,
            result.trace_id,
            box.returns(descriptor),
            box.quick_returns(descriptor),
            who,
        )
        if not checked.ok:
            return None
        if checked.data is not None and descriptor.returns.schema_ == {"type": "null"}:
            return None  # a tool that returns nothing (`returns` has no validator for it)
        return ToolResult(
            result.tool,
            True,
            checked.data,
            None,
            result.trace_id,
            replayed=result.replayed,
            dry_run=result.dry_run,
            fallback=result.fallback,
            provenance=result.provenance,
        )

    def _blocked(
        self, arguments: Any, result: ToolResult, context: CallContext, reason: str
    ) -> ToolResult:
        """`OUTPUT_BLOCKED` for `result`, and its audit event `blocked`."""
        shown = name(result.tool)
        blocked = failure(
            result.tool,
            result.trace_id,
            "OUTPUT_BLOCKED",
            f"the output of {shown} was withheld by this server's output screen; "
            "the call itself ran",
        )
        blocked.replayed, blocked.dry_run = result.replayed, result.dry_run
        log.warning("[trace %s] the output of %s was blocked: %s", result.trace_id, shown, reason)
        call = Call(self.box, context, result.tool, arguments, result.trace_id)
        call.descriptor = self.box.catalog.descriptors.get(result.tool)
        call.record("blocked", blocked, reason=reason)
        return blocked


def _shown(result: ToolResult) -> ToolResult:
    """What the screen is given: a copy, so that what it changes in place is not answered."""
    return ToolResult(
        result.tool,
        True,
        copy.deepcopy(result.data),
        None,
        result.trace_id,
        replayed=result.replayed,
        dry_run=result.dry_run,
        fallback=result.fallback,
        provenance=result.provenance,
    )


async def _awaited(verdict: Awaitable[Verdict]) -> Verdict:
    return await verdict
