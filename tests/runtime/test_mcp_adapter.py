"""`runtime.adapters.mcp` and `toolgen serve` on the toolbox: the CallToolResult mapping, and
confirmation by MCP elicitation (the official client, in memory)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from toolgen.runtime import ConfirmationRequest, Toolbox, ToolResult
from toolgen.runtime.adapters.mcp import (
    call_tool_result,
    confirmation_message,
    supports_elicitation,
)
from toolgen.serve import Dispatcher, build_server

KEY = "0123456789abcdef"
TRANSFER = {"amount": 5, "to": "acct", "idempotency_key": KEY}


def test_results_map_to_call_tool_results(make_box: Callable[..., Toolbox]) -> None:
    box = make_box()
    quote, lookup = box.catalog.descriptors["fetch_quote"], box.catalog.descriptors["lookup"]
    wrapped = call_tool_result(ToolResult("fetch_quote", True, 1.5), quote, {"type": "object"})
    assert wrapped.structured_content == {"result": 1.5} and not wrapped.is_error
    assert wrapped.content == [types.TextContent(text='{"result": 1.5}')]
    plain = call_tool_result(ToolResult("lookup", True, {"q": "x"}), lookup, {"type": "object"})
    assert plain.structured_content == {"q": "x"}
    bare = call_tool_result(ToolResult("lookup", True, None), lookup, None)
    assert bare.structured_content is None and bare.content == [types.TextContent(text="null")]
    failed = ToolResult("lookup", False, error={"code": "X", "trace_id": "t"}, trace_id="t")
    error = call_tool_result(failed, lookup, {"type": "object"})
    assert error.is_error is True
    assert error.structured_content == {"status": "error", "error": {"code": "X", "trace_id": "t"}}
    assert json.loads(error.content[0].text) == error.structured_content  # type: ignore[union-attr]


def test_supports_elicitation() -> None:
    assert not supports_elicitation(None)
    assert not supports_elicitation(types.ClientCapabilities())
    assert supports_elicitation(types.ClientCapabilities(elicitation=types.ElicitationCapability()))


def test_the_confirmation_message_shows_the_contract() -> None:
    request = ConfirmationRequest(
        tool="transfer",
        arguments={"amount": 5},
        risk="high",
        description="Send money.",
        side_effects=("Moves money.",),
        permissions=("payments:send",),
        audit_event=None,
        dry_run_result={"would": 5},
        principal=None,
        trace_id="t",
    )
    assert confirmation_message(request) == (
        "Run transfer (high risk)?\nSend money.\nSide effects: Moves money.\n"
        'Permissions: payments:send\nArguments: {"amount": 5}\nDry run: {"would": 5}'
    )


def serve_call(box: Toolbox, name: str, arguments: dict[str, Any], **client: Any) -> Any:
    server = build_server(Dispatcher(box), scopes=["payments:send"])

    async def go() -> types.CallToolResult:
        with anyio.fail_after(20):
            async with Client(server, **client) as session:
                return await session.call_tool(name, arguments)

    return anyio.run(go)


def test_serve_confirms_by_elicitation(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    asked: list[types.ElicitRequestParams] = []

    async def accept(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"confirm": True})

    result = serve_call(
        make_box(), "transfer", TRANSFER, elicitation_callback=accept, mode="legacy"
    )
    assert not result.is_error
    assert result.structured_content == {"sent": 5, "to": "acct", "run": 1}
    [params] = asked
    assert params.message.startswith("Run transfer (high risk)?\nSend money.")  # type: ignore[union-attr]


def test_serve_declined_elicitation_is_human_review(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    async def decline(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    result = serve_call(
        make_box(), "transfer", TRANSFER, elicitation_callback=decline, mode="legacy"
    )
    assert result.is_error
    assert result.structured_content["error"]["code"] == "REQUIRES_HUMAN_APPROVAL"
    assert handlers.CALLS["transfer"] == 0


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_serve_without_elicitation_answers_human_review(
    make_box: Callable[..., Toolbox], handlers: Any, mode: str
) -> None:
    async def accept(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"confirm": True})

    # legacy: the client did not declare elicitation; auto: the stateless protocol has no
    # back-channel for it (its `input_required` round trip is not supported yet)
    client = {"mode": mode} if mode == "legacy" else {"elicitation_callback": accept}
    result = serve_call(make_box(), "transfer", TRANSFER, **client)
    assert result.is_error
    error = result.structured_content["error"]
    assert (error["code"], error["human_review"], error["retryable"]) == (
        "REQUIRES_HUMAN_APPROVAL",
        True,
        False,
    )
    assert handlers.CALLS["transfer"] == 0
