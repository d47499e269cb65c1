"""Step 5, gate: whether a person must confirm the call, and asking them.

A tool is gated when its descriptor says `confirmation`, or not `autonomous`, or its risk is
high or critical, or its dry run is required, or it is destructive (its `destructive` hint)
without a `confirmation_reason` that waives it (DESIGN §3: destructive means confirmed).
Risk decides even against a hand-edited descriptor: the compiled contract may only be
stricter than its risk level (TG404 refuses the opposite at build time; this is the same rule
again at run time). A call that is itself a dry run is not gated: it changes nothing.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime.context import CallContext, ConfirmationRequest, ask
from toolgen.runtime.escapes import handlers_own
from toolgen.runtime.result import ToolResult, human_review

log = logging.getLogger("toolgen.runtime")

#: Risk levels that never run without a person's yes, whatever the descriptor says.
ALWAYS_GATED = frozenset({"high", "critical", "forbidden"})


def gated(descriptor: ToolDescriptor) -> bool:
    """Must a person confirm a (real, not dry) call of this tool?"""
    return (
        descriptor.confirmation
        or not descriptor.autonomous
        or descriptor.risk in ALWAYS_GATED
        or descriptor.dry_run == "required"
        or (descriptor.idempotency.destructive is True and not descriptor.confirmation_reason)
    )


def waived_confirmation(descriptor: ToolDescriptor | None) -> str | None:
    """Why a destructive tool runs unconfirmed, as its contract says (for its audit events);
    None for any other tool."""
    if descriptor is None or descriptor.idempotency.destructive is not True:
        return None
    return descriptor.confirmation_reason


def is_dry_run(descriptor: ToolDescriptor, arguments: dict[str, Any]) -> bool:
    """Is this call a dry run the tool declares it can do? Without a `dry_run` argument the
    parameter's default decides, as it does for the handler."""
    if descriptor.dry_run is None:
        return False
    if "dry_run" in arguments:
        return arguments["dry_run"] is True
    schema = descriptor.parameters.get("properties", {}).get("dry_run")
    return isinstance(schema, dict) and schema.get("default") is True


def for_real(descriptor: ToolDescriptor, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments of the real call: `dry_run` said false outright for a tool that has a dry
    run, so a handler whose default is a dry run does not run (and get stored) as one."""
    if descriptor.dry_run is None:
        return arguments
    return {**arguments, "dry_run": False}


def confirmation_request(
    descriptor: ToolDescriptor,
    arguments: dict[str, Any],
    context: CallContext,
    trace_id: str,
    dry_run_result: Any = None,
) -> ConfirmationRequest:
    """What the person is shown: the call, its risk, side effects, permissions and, for a tool
    with a dry run, what the dry run said would happen. The arguments are a copy: what the
    callback does to them never reaches the call."""
    return ConfirmationRequest(
        tool=descriptor.name,
        arguments=copy.deepcopy(arguments),
        risk=descriptor.risk,
        description=descriptor.description,
        side_effects=tuple(descriptor.side_effects or ()),
        permissions=tuple(descriptor.permissions or ()),
        audit_event=descriptor.audit_event,
        dry_run_result=dry_run_result,
        principal=context.principal,
        trace_id=trace_id,
    )


async def gate(request: ConfirmationRequest, context: CallContext) -> ToolResult | None:
    """Ask `context.confirm`; None on a yes, else the human-review envelope (no callback, a
    no, or a callback that failed)."""
    try:
        confirmed = await ask(context.confirm, request)
    except TimeoutError:  # nobody answered (`toolgen serve` bounds its elicitation)
        log.warning("[trace %s] the confirmation request got no answer in time", request.trace_id)
        return human_review(
            request.tool,
            request.trace_id,
            f"{request.tool} ({request.risk} risk) was not confirmed in time; "
            "ask the user to approve it",
        )
    except BaseException as exc:
        if not handlers_own(exc):
            raise
        log.error("[trace %s] the confirmation callback failed", request.trace_id, exc_info=exc)
        confirmed = False
    if confirmed:
        return None
    why = "was refused" if context.confirm is not None else "needs a person's confirmation"
    return human_review(
        request.tool,
        request.trace_id,
        f"{request.tool} ({request.risk} risk) {why}; ask the user to approve it",
    )
