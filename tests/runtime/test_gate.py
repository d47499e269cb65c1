"""Step 5, gate: who must confirm, what they are shown, and the human-review envelope."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime import CallContext, ConfirmationRequest, Toolbox
from toolgen.runtime.steps.gate import gated

KEY = "0123456789abcdef"
TRANSFER = {"amount": 5, "to": "acct", "idempotency_key": KEY}
PAY = frozenset({"payments:send"})


def descriptor(built: Path, name: str, **changes: Any) -> ToolDescriptor:
    data = json.loads((built / "generated" / "descriptors" / f"{name}.json").read_text())
    return ToolDescriptor.model_validate({**data, **changes})


@pytest.mark.parametrize(
    ("name", "changes", "expected"),
    [
        ("lookup", {}, False),  # low, autonomous
        ("lookup", {"confirmation": True}, True),
        ("lookup", {"autonomous": False}, True),
        ("transfer", {}, True),  # high
        ("publish", {}, True),  # dry run required
        ("preview_mail", {}, True),  # confirmation declared
        # a hand-edited descriptor cannot make a high or critical tool autonomous
        ("transfer", {"autonomous": True, "confirmation": False}, True),
        ("wipe_disk", {"autonomous": True, "confirmation": False}, True),
    ],
)
def test_gated(built: Path, name: str, changes: dict[str, Any], expected: bool) -> None:
    assert gated(descriptor(built, name, **changes)) is expected


def test_without_a_callback_the_answer_is_human_review(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    result = make_box().call("transfer", TRANSFER, context=CallContext(scopes=PAY))
    assert result.error is not None
    error = dict(result.error)
    assert error == {
        "code": "REQUIRES_HUMAN_APPROVAL",
        "message": "transfer (high risk) needs a person's confirmation; ask the user to approve it",
        "retryable": False,
        "human_review": True,
        "http_status": 403,
        "recovery": "ask the user to approve the call",
        "trace_id": result.trace_id,
    }
    assert handlers.CALLS["transfer"] == 0


def test_a_no_is_human_review(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    context = CallContext(scopes=PAY, confirm=lambda request: False)
    result = make_box().call("transfer", TRANSFER, context=context)
    assert result.error is not None and result.error["code"] == "REQUIRES_HUMAN_APPROVAL"
    assert "was refused" in result.error["message"]
    assert handlers.CALLS["transfer"] == 0


def test_the_request_shows_the_contract(make_box: Callable[..., Toolbox]) -> None:
    seen: list[ConfirmationRequest] = []

    async def confirm(request: ConfirmationRequest) -> bool:
        seen.append(request)
        return True

    context = CallContext(principal="u-7", scopes=PAY, confirm=confirm)
    result = make_box().call("transfer", TRANSFER, context=context)
    assert result.ok
    [request] = seen
    assert request == ConfirmationRequest(
        tool="transfer",
        arguments=TRANSFER,
        risk="high",
        description="Send money.",
        side_effects=("Moves money.",),
        permissions=("payments:send",),
        audit_event="payment.sent",
        dry_run_result=None,
        principal="u-7",
        trace_id=result.trace_id,
    )


def test_a_required_dry_run_runs_first_and_is_shown(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    shown: list[Any] = []

    def confirm(request: ConfirmationRequest) -> bool:
        shown.append(request.dry_run_result)
        assert handlers.CALLS["publish"] == 0  # nothing real before the yes
        return True

    # the model asks for the real call straight away: the dry run still happens first
    result = make_box().call(
        "publish", {"text": "hi", "dry_run": False}, context=CallContext(confirm=confirm)
    )
    assert result.ok and result.data == {"published": "hi"} and not result.dry_run
    assert shown == [{"would_publish": "hi"}]
    assert (handlers.CALLS["publish-dry"], handlers.CALLS["publish"]) == (1, 1)


def test_a_refused_dry_run_tool_ran_its_dry_run_only(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    result = make_box().call("publish", {"text": "hi"})
    assert result.error is not None and result.error["code"] == "REQUIRES_HUMAN_APPROVAL"
    assert (handlers.CALLS["publish-dry"], handlers.CALLS["publish"]) == (1, 0)


def test_a_dry_run_call_is_not_gated(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    result = make_box().call("preview_mail", {"to": "a@b.c", "dry_run": True})
    assert result.ok and result.dry_run and result.data == "would send to a@b.c"
    assert json.loads(result.to_json()) == {
        "status": "ok",
        "data": "would send to a@b.c",
        "dry_run": True,
    }
    assert handlers.CALLS["preview_mail"] == 0


def test_a_hand_edited_autonomous_critical_tool_still_asks(
    built: Path, tmp_path: Path, handlers: Any, events: list[dict[str, Any]]
) -> None:
    """Defence in depth: TG404 refuses this at build time; the runtime refuses it again."""
    import shutil

    copy = tmp_path / "generated"
    shutil.copytree(built / "generated", copy)
    path = copy / "descriptors" / "wipe_disk.json"
    data = json.loads(path.read_text())
    data.update(autonomous=True, confirmation=False)
    path.write_text(json.dumps(data))
    box = Toolbox.load(copy, store="memory://", audit=events.append)
    context = CallContext(scopes={"admin"}, step_up=lambda request: True)
    result = box.call("wipe_disk", {"disk": "sda"}, context=context)
    assert result.error is not None and result.error["code"] == "REQUIRES_HUMAN_APPROVAL"
    assert handlers.CALLS["wipe_disk"] == 0
