"""Audit: one event per decision, the fields of each, and the three sinks."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolgen.runtime import CallContext, Toolbox
from toolgen.runtime import audit as audit_module
from toolgen.runtime import call as call_module
from toolgen.runtime.audit import JsonLinesSink, arguments_sha256

KEY = "0123456789abcdef"
TRANSFER = {"amount": 5, "to": "acct", "idempotency_key": KEY}
PAY = frozenset({"payments:send"})


def decisions(events: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    return [(e["decision"], e.get("error_code")) for e in events]


def test_an_executed_call(make_box: Callable[..., Toolbox], events: list[dict[str, Any]]) -> None:
    context = CallContext(principal="u-1", scopes=PAY, confirm=lambda r: True, metadata={"s": 1})
    result = make_box().call("transfer", TRANSFER, context=context)
    assert decisions(events) == [("proposed", None), ("confirmed", None), ("executed", None)]
    executed = events[-1]
    assert executed["outcome"] == "ok"
    assert {k: executed[k] for k in ("trace_id", "principal", "tool", "audit_event", "risk")} == {
        "trace_id": result.trace_id,
        "principal": "u-1",
        "tool": "transfer",
        "audit_event": "payment.sent",
        "risk": "high",
    }
    assert executed["metadata"] == {"s": 1}
    assert len(executed["arguments_sha256"]) == 64
    assert "arguments" not in executed  # raw arguments only when configured
    assert executed["duration_ms"] >= 0
    assert {e["trace_id"] for e in events} == {result.trace_id}


def test_each_decision_has_its_event(
    make_box: Callable[..., Toolbox], events: list[dict[str, Any]], handlers: Any
) -> None:
    box = make_box(max_retries=0)
    box.call("nope", {})
    assert decisions(events) == [("proposed", None), ("denied", "NOT_FOUND")]
    events.clear()
    box.call("transfer", TRANSFER, context=CallContext(scopes=PAY))
    assert decisions(events) == [("proposed", None), ("refused", "REQUIRES_HUMAN_APPROVAL")]
    events.clear()
    box.call("transfer", TRANSFER, context=CallContext())
    assert decisions(events) == [("proposed", None), ("denied", "FORBIDDEN")]
    events.clear()
    box.call("lookup", "{")
    assert decisions(events) == [("proposed", None), ("denied", "VALIDATION_ERROR")]
    events.clear()
    box.call("boom", {"reason": "x"})
    assert decisions(events) == [("proposed", None), ("failed", "INTERNAL")]
    events.clear()
    yes = CallContext(scopes=PAY, confirm=lambda r: True)
    box.call("transfer", TRANSFER, context=yes)
    box.call("transfer", TRANSFER, context=yes)
    assert decisions(events)[-1] == ("replayed", None)
    assert events[-1]["outcome"] == "ok"


def test_raw_arguments_when_configured(
    make_box: Callable[..., Toolbox], events: list[dict[str, Any]]
) -> None:
    make_box(audit_arguments=True).call("lookup", {"q": "x"})
    assert events[-1]["arguments"] == {"q": "x"}


def test_a_json_lines_file_gets_each_event_at_once(
    make_box: Callable[..., Toolbox], tmp_path: Path
) -> None:
    path = tmp_path / "audit" / "events.jsonl"
    box = make_box(audit=str(path))
    box.call("lookup", {"q": "x"})
    # written per event: all there before the toolbox is done with
    lines = path.read_text().splitlines()
    assert [json.loads(line)["decision"] for line in lines] == ["proposed", "executed"]
    box.call("lookup", {"q": "y"})
    assert len(path.read_text().splitlines()) == 4


def test_the_file_is_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('{"old": true}\n')
    sink = JsonLinesSink(path)
    sink({"decision": "proposed"})
    assert path.read_text() == '{"old": true}\n{"decision": "proposed"}\n'


def test_the_logger_sinks(
    make_box: Callable[..., Toolbox], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    make_box(audit=None).call("lookup", {"q": "x"})
    default = [r for r in caplog.records if r.name == "toolgen.audit"]
    assert [json.loads(r.getMessage())["decision"] for r in default] == ["proposed", "executed"]
    assert all(r.levelno == logging.INFO for r in default)
    mine = logging.getLogger("my.audit")
    make_box(audit=mine).call("lookup", {"q": "x"})
    assert len([r for r in caplog.records if r.name == "my.audit"]) == 2


def test_a_failing_sink_does_not_fail_the_call(make_box: Callable[..., Toolbox]) -> None:
    def broken(event: dict[str, Any]) -> None:
        raise OSError("disk full")

    assert make_box(audit=broken).call("lookup", {"q": "x"}).ok


def test_the_arguments_are_hashed_once_per_call(
    make_box: Callable[..., Toolbox],
    events: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hashed: list[Any] = []

    def counting(arguments: Any) -> str:
        hashed.append(arguments)
        return arguments_sha256(arguments)

    monkeypatch.setattr(call_module, "arguments_sha256", counting)
    box = make_box()
    box.call("lookup", {"q": "x", "limit": 2})
    assert len(hashed) == 1
    assert [e["arguments_sha256"] for e in events] == [arguments_sha256({"q": "x", "limit": 2})] * 2
    # text, or a strict-mode null dropped: what is executed is not what was proposed, and
    # each event hashes its own
    for proposed, executed in (('{"q": "x"}', {"q": "x"}), ({"q": "x", "limit": None}, {"q": "x"})):
        events.clear()
        hashed.clear()
        box.call("lookup", proposed)
        assert [e["arguments_sha256"] for e in events] == [
            arguments_sha256(proposed),
            arguments_sha256(executed),
        ]
        assert len(hashed) == 2


def test_no_event_is_built_for_a_logger_that_is_off(
    make_box: Callable[..., Toolbox],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[str] = []
    real = audit_module.event

    def counting(decision: str, **fields: Any) -> dict[str, Any]:
        built.append(decision)
        return real(decision, **fields)

    monkeypatch.setattr(audit_module, "event", counting)
    quiet = logging.getLogger("quiet.audit")
    quiet.setLevel(logging.WARNING)
    assert make_box(audit=quiet).call("lookup", {"q": "x"}).ok
    assert built == []
    quiet.setLevel(logging.INFO)
    make_box(audit=quiet).call("lookup", {"q": "x"})
    assert built == ["proposed", "executed"]
    assert len([r for r in caplog.records if r.name == "quiet.audit"]) == 2
    built.clear()
    make_box().call("lookup", {"q": "x"})  # a callable sink gets every event
    assert built == ["proposed", "executed"]


SECRET = "jane.doe@private.example"


def test_a_validation_errors_reason_quotes_no_values(
    make_box: Callable[..., Toolbox], events: list[dict[str, Any]]
) -> None:
    """The message of a VALIDATION_ERROR quotes the failing value; its event does not."""
    result = make_box().call("lookup", {"q": 7, "limit": SECRET})
    assert result.error is not None and SECRET in result.error["message"]  # the model's
    assert decisions(events) == [("proposed", None), ("denied", "VALIDATION_ERROR")]
    assert SECRET not in json.dumps(events)
    assert events[-1]["reason"].startswith("invalid arguments")


def test_a_validation_errors_reason_quotes_values_when_configured(
    make_box: Callable[..., Toolbox], events: list[dict[str, Any]]
) -> None:
    make_box(audit_arguments=True).call("lookup", {"q": "x", "limit": SECRET})
    assert SECRET in events[-1]["reason"]
    assert events[-1]["arguments"] == {"q": "x", "limit": SECRET}


def test_a_withheld_reason_names_the_failing_fields() -> None:
    common: dict[str, Any] = {
        "trace_id": "t",
        "tool": "lookup",
        "principal": None,
        "audit_event": None,
        "risk": None,
        "arguments_sha256": None,
        "error_code": "VALIDATION_ERROR",
        "reason": f"invalid arguments: /limit: {SECRET!r} is not of type 'integer'",
    }
    fields = [{"path": "/limit", "message": "..."}, {"path": "", "message": "..."}]
    withheld = audit_module.event("denied", **common, fields=fields, audit_arguments=False)
    assert withheld["reason"] == "invalid arguments at /limit, / (values withheld)"
    kept = audit_module.event("denied", **common, fields=fields, audit_arguments=True)
    assert kept["reason"] == common["reason"]
    other = audit_module.event("failed", **{**common, "error_code": "INTERNAL"})
    assert other["reason"] == common["reason"]  # only a VALIDATION_ERROR quotes values
