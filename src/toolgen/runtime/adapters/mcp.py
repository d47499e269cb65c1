"""MCP: a `ToolResult` as a `CallToolResult`, and confirmation and step-up by elicitation.

A success is the data as `structuredContent`, wrapped as `{"result": ...}` when the
`outputSchema` wraps the return type (`schema_ops.wraps`, the renderer's own rule), with the
same JSON as text; a tool without an `outputSchema` answers the text only. An error is
`isError: true` with the envelope `{"status": "error", "error": {...}}` as structured content
and as text. Data of untrusted provenance (an open-world tool's: `toolgen.runtime.outputs`)
cannot be labelled inside the data (the structured content must match the `outputSchema`), so
its label is the result's `_meta`: `{"io.toolgen/provenance": {"source", "trusted": false,
"note"}}`. Needs the MCP SDK (`toolgen[serve]`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import mcp_types as types

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime.context import ConfirmationRequest, StepUpRequest
from toolgen.runtime.result import ToolResult, labelled
from toolgen.schema_ops import wraps

#: The one-field form a person answers to confirm a call.
CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean", "title": "Run this tool call?"}},
    "required": ["confirm"],
}


#: The one-field form a person answers to pass a step-up. Form elicitation must not ask for
#: credentials (the MCP spec: "non-sensitive information"), so it asks the person to confirm
#: it is them; re-authenticating proper (a password, a second factor) is the client's part.
STEP_UP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "authenticated": {
            "type": "boolean",
            "title": "It is me: I have authenticated again and allow this call",
        }
    },
    "required": ["authenticated"],
}

log = logging.getLogger("toolgen.runtime")

#: The `_meta` key of a result's provenance label (the prefix of toolgen's own `_meta` keys).
PROVENANCE_META = "io.toolgen/provenance"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def call_tool_result(
    result: ToolResult,
    descriptor: ToolDescriptor,
    output_schema: Mapping[str, Any] | None,
    wrapped: bool | None = None,
) -> types.CallToolResult:
    """The `CallToolResult` of `result` for a tool listed with `output_schema`; `wrapped`,
    whether that schema wraps the return as `{"result": ...}` (`schema_ops.wraps` of the
    descriptor's return schema, which a server asks once per tool: it walks the schema)."""
    if not result.ok:
        envelope = result.envelope()
        return types.CallToolResult(
            content=[types.TextContent(text=_json(envelope))],
            structured_content=envelope,
            is_error=True,
        )
    labels: dict[str, Any] = {}
    if result.provenance is not None:
        labels["meta"] = {PROVENANCE_META: labelled(result.provenance)}
    if output_schema is None:
        return types.CallToolResult(content=[types.TextContent(text=_json(result.data))], **labels)
    if wrapped is None:
        wrapped = wraps(descriptor.returns.schema_)
    structured = {"result": result.data} if wrapped else result.data
    return types.CallToolResult(
        content=[types.TextContent(text=_json(structured))],
        structured_content=structured,
        **labels,
    )


def supports_elicitation(capabilities: types.ClientCapabilities | None) -> bool:
    """Did the client declare form elicitation (what the server asks)? An empty
    `elicitation` capability declares it too (the MCP spec, for clients from before the
    modes), one that names only `url` does not."""
    if capabilities is None or capabilities.elicitation is None:
        return False
    return capabilities.elicitation.form is not None or capabilities.elicitation.url is None


def confirmation_message(request: ConfirmationRequest) -> str:
    """What the person reads: the tool, its risk, its side effects and the arguments (and the
    dry run's answer, when there is one)."""
    lines = [f"Run {request.tool} ({request.risk} risk)?", request.description]
    if request.side_effects:
        lines.append("Side effects: " + "; ".join(request.side_effects))
    if request.permissions:
        lines.append("Permissions: " + ", ".join(request.permissions))
    lines.append("Arguments: " + json.dumps(request.arguments, ensure_ascii=False, default=str))
    if request.dry_run_result is not None:
        shown = json.dumps(request.dry_run_result, ensure_ascii=False, default=str)
        lines.append("Dry run: " + shown)
    return "\n".join(lines)


def elicit_confirmation(
    elicit: Callable[[str, dict[str, Any]], Awaitable[types.ElicitResult]],
    timeout: float | None = None,
) -> Callable[[ConfirmationRequest], Awaitable[bool]]:
    """A `CallContext.confirm` that asks the client by `elicitation/create`
    (`elicit(message, schema)`, the session's `elicit_form`): yes only on "accept" with
    `confirm: true`. A client that does not answer within `timeout` seconds raises
    `TimeoutError`, which the gate answers `REQUIRES_HUMAN_APPROVAL` (else the call would
    wait for ever)."""

    async def confirm(request: ConfirmationRequest) -> bool:
        with anyio.fail_after(timeout):
            answer = await elicit(confirmation_message(request), CONFIRM_SCHEMA)
        return answer.action == "accept" and (answer.content or {}).get("confirm") is True

    return confirm


def step_up_message(request: StepUpRequest) -> str:
    """What the person reads: that the tool needs them to authenticate again (when, for a
    condition), and the arguments."""
    lines = [
        f"{request.tool} ({request.risk} risk) needs you to authenticate again before it runs.",
    ]
    if request.condition is not None:
        lines.append(f"Condition: {request.condition}")
    lines.append("Arguments: " + json.dumps(request.arguments, ensure_ascii=False, default=str))
    lines.append("Accept only if you are the person this session acts for.")
    return "\n".join(lines)


def elicit_step_up(
    elicit: Callable[[str, dict[str, Any]], Awaitable[types.ElicitResult]],
    timeout: float | None = None,
) -> Callable[[StepUpRequest], Awaitable[bool]]:
    """A `CallContext.step_up` that asks the client by `elicitation/create`: passed only on
    "accept" with `authenticated: true`; a decline, a cancel, or no answer within `timeout`
    seconds is no (`STEP_UP_REQUIRED`), as is an error, which the run time logs."""

    async def step_up(request: StepUpRequest) -> bool:
        try:
            with anyio.fail_after(timeout):
                answer = await elicit(step_up_message(request), STEP_UP_SCHEMA)
        except TimeoutError:  # nobody answered: no step-up, said once, not as a failure
            log.warning("[trace %s] the step-up request got no answer in time", request.trace_id)
            return False
        return answer.action == "accept" and (answer.content or {}).get("authenticated") is True

    return step_up
