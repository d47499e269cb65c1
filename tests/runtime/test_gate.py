"""Step 5, gate: who must confirm, what they are shown, and the human-review envelope."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime import CallContext, ConfirmationRequest, Toolbox
from toolgen.runtime.steps.gate import gated, is_dry_run

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


def test_the_confirmed_real_call_says_dry_run_false(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    """A handler whose own default is a dry run still runs for real after the yes (and what
    the key keeps is the real answer, not another dry run)."""
    ran: list[bool] = []

    def publish(text: str, dry_run: bool = True) -> dict[str, object]:
        ran.append(dry_run)
        return {"would_publish" if dry_run else "published": text}

    box = make_box(handlers={"publish": publish})
    result = box.call("publish", {"text": "hi"}, context=CallContext(confirm=lambda r: True))
    assert result.ok and result.data == {"published": "hi"} and not result.dry_run
    assert ran == [True, False]


def test_a_dry_run_default_makes_a_call_without_the_argument_a_dry_run(built: Path) -> None:
    plain = descriptor(built, "preview_mail")
    defaulted = json.loads(json.dumps(plain.parameters))
    defaulted["properties"]["dry_run"]["default"] = True
    dry_by_default = descriptor(built, "preview_mail", parameters=defaulted)
    assert is_dry_run(dry_by_default, {"to": "a@b.c"})
    assert not is_dry_run(dry_by_default, {"to": "a@b.c", "dry_run": False})
    assert not is_dry_run(plain, {"to": "a@b.c"})
    assert is_dry_run(plain, {"to": "a@b.c", "dry_run": True})
    assert not is_dry_run(descriptor(built, "lookup"), {"q": "x", "dry_run": True})


def test_a_dry_run_says_dry_run_true_to_the_handler(
    built: Path, tmp_path: Path, events: list[dict[str, Any]]
) -> None:
    """Was: a call without the argument was a dry run by the descriptor's default, but the
    handler got the arguments as given; one whose own default differs (edited after the
    build, or handed over) ran for real, unconfirmed, answered `dry_run: true`."""
    import shutil

    copy = tmp_path / "generated"
    shutil.copytree(built / "generated", copy)
    path = copy / "descriptors" / "preview_mail.json"
    data = json.loads(path.read_text())
    data["parameters"]["properties"]["dry_run"]["default"] = True
    path.write_text(json.dumps(data))
    ran: list[bool] = []

    def preview_mail(to: str, dry_run: bool = False) -> str:
        ran.append(dry_run)
        return f"{'would send' if dry_run else 'sent'} to {to}"

    box = Toolbox.load(
        copy, store="memory://", audit=events.append, handlers={"preview_mail": preview_mail}
    )
    result = box.call("preview_mail", {"to": "a@b.c"})  # nobody confirms anything
    assert result.ok and result.dry_run and result.data == "would send to a@b.c"
    assert ran == [True]


def test_what_the_confirm_callback_does_to_the_arguments_stays_its_own(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    """Was: the request held the call's live arguments: a callback could change the call
    it was asked to confirm."""

    def confirm(request: ConfirmationRequest) -> bool:
        request.arguments["amount"] = 10**6
        request.arguments["to"] = "mallory"
        return True

    result = make_box().call("transfer", TRANSFER, context=CallContext(scopes=PAY, confirm=confirm))
    assert result.data == {"sent": 5, "to": "acct", "run": 1}


def test_what_the_step_up_callback_does_to_the_arguments_stays_its_own(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    def step_up(request: Any) -> bool:
        request.arguments["disk"] = "sdb"
        return True

    context = CallContext(scopes={"admin"}, step_up=step_up, confirm=lambda request: True)
    result = make_box().call("wipe_disk", {"disk": "sda"}, context=context)
    assert result.data == "wiped sda"
