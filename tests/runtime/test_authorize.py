"""Step 4, authorize: permissions within the caller's scopes; step-up when declared."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolgen.runtime import CallContext, StepUpRequest, Toolbox


def yes(request: Any) -> bool:
    return True


def test_missing_permission_is_forbidden(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    args = {"amount": 5, "to": "acct", "idempotency_key": "k" * 16}
    result = make_box().call("transfer", args, context=CallContext(scopes={"other"}, confirm=yes))
    assert result.error is not None
    assert {k: result.error[k] for k in ("code", "retryable", "human_review", "http_status")} == {
        "code": "FORBIDDEN",
        "retryable": False,
        "human_review": False,
        "http_status": 403,
    }
    assert result.error["missing_permissions"] == ["payments:send"]
    assert (
        result.error["message"]
        == "the caller lacks the permission payments:send that transfer needs"
    )
    assert handlers.CALLS["transfer"] == 0


def test_scopes_accept_any_iterable() -> None:
    assert CallContext(scopes=["a", "b"]).scopes == frozenset({"a", "b"})
    assert CallContext(scopes="admin").scopes == frozenset({"admin"})  # type: ignore[arg-type]


def test_step_up_without_a_callback_or_with_a_no(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    box = make_box()
    for step_up in (None, lambda request: False, lambda request: "yes"):
        context = CallContext(scopes={"admin"}, confirm=yes, step_up=step_up)
        result = box.call("wipe_disk", {"disk": "sda"}, context=context)
        assert result.error is not None
        assert result.error["code"] == "STEP_UP_REQUIRED"
        assert (result.error["human_review"], result.error["retryable"]) == (True, False)
        assert result.error["http_status"] == 401
    assert handlers.CALLS["wipe_disk"] == 0


def test_step_up_receives_the_request_and_may_be_async(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    seen: list[StepUpRequest] = []

    async def step_up(request: StepUpRequest) -> bool:
        seen.append(request)
        return True

    context = CallContext(principal="u-1", scopes={"admin"}, confirm=yes, step_up=step_up)
    result = make_box().call("wipe_disk", {"disk": "sda"}, context=context)
    assert result.ok and result.data == "wiped sda"
    [request] = seen
    assert request == StepUpRequest(
        tool="wipe_disk",
        arguments={"disk": "sda"},
        risk="critical",
        condition="when the disk holds data",  # the decorator's step_up_auth text
        principal="u-1",
        trace_id=result.trace_id,
    )


def test_a_failing_step_up_callback_denies(make_box: Callable[..., Toolbox]) -> None:
    def broken(request: Any) -> bool:
        raise RuntimeError("auth server down")

    context = CallContext(scopes={"admin"}, confirm=yes, step_up=broken)
    result = make_box().call("wipe_disk", {"disk": "sda"}, context=context)
    assert result.error is not None and result.error["code"] == "STEP_UP_REQUIRED"
    assert "auth server down" not in result.to_json()
