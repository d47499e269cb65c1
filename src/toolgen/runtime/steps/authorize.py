"""Step 4, authorize: the descriptor's `permissions` must be within the caller's scopes
(`FORBIDDEN` naming the missing ones), and a tool with `step_up_auth` needs
`context.step_up(StepUpRequest)` to say yes (`STEP_UP_REQUIRED` otherwise)."""

from __future__ import annotations

import copy
import logging
from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime.context import CallContext, StepUpRequest, ask
from toolgen.runtime.escapes import handlers_own
from toolgen.runtime.result import ToolResult, failure

log = logging.getLogger("toolgen.runtime")


def missing_permissions(descriptor: ToolDescriptor, scopes: frozenset[str]) -> list[str]:
    """The permissions the tool needs that `scopes` lacks, in the descriptor's order."""
    return [p for p in descriptor.permissions or [] if p not in scopes]


def permitted(
    descriptor: ToolDescriptor, scopes: frozenset[str], trace_id: str
) -> ToolResult | None:
    """None when `scopes` hold every permission the tool needs, else `FORBIDDEN`."""
    if not descriptor.permissions:
        return None
    missing = missing_permissions(descriptor, scopes)
    if not missing:
        return None
    return failure(
        descriptor.name,
        trace_id,
        "FORBIDDEN",
        f"the caller lacks the permission{'s' if len(missing) > 1 else ''} "
        f"{', '.join(missing)} that {descriptor.name} needs",
        missing_permissions=missing,
    )


async def authorize(
    descriptor: ToolDescriptor, arguments: dict[str, Any], context: CallContext, trace_id: str
) -> ToolResult | None:
    """None when the call may go on, else the error that ends it."""
    refused = permitted(descriptor, context.scopes, trace_id)
    if refused is not None:
        return refused
    return await stepped_up(descriptor, arguments, context, trace_id)


async def stepped_up(
    descriptor: ToolDescriptor, arguments: dict[str, Any], context: CallContext, trace_id: str
) -> ToolResult | None:
    """None when the tool needs no step-up or the caller passed it, else `STEP_UP_REQUIRED`."""
    if descriptor.step_up_auth:
        request = StepUpRequest(
            tool=descriptor.name,
            arguments=copy.deepcopy(arguments),  # what the callback does to them stays its own
            risk=descriptor.risk,
            condition=descriptor.step_up_auth if isinstance(descriptor.step_up_auth, str) else None,
            principal=context.principal,
            trace_id=trace_id,
        )
        try:
            passed = await ask(context.step_up, request)
        except BaseException as exc:
            if not handlers_own(exc):
                raise
            log.error("[trace %s] the step-up callback failed", trace_id, exc_info=exc)
            passed = False
        if not passed:
            return failure(
                descriptor.name,
                trace_id,
                "STEP_UP_REQUIRED",
                f"{descriptor.name} needs the user to authenticate again before it runs",
            )
    return None
