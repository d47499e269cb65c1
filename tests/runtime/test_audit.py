"""Audit: one event per decision, the fields of each, and the three sinks."""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolgen.runtime import CallContext, Toolbox
from toolgen.runtime import audit as audit_module
from toolgen.runtime import call as call_module
from toolgen.runtime.audit import JsonLinesSink, arguments_hmac, arguments_sha256

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
    assert len(executed["arguments_hmac"]) == 64
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


def failing_at(*decisions: str) -> Callable[[dict[str, Any]], None]:
    """A sink that cannot write the events of `decisions` (a full disk, say)."""

    def sink(event: dict[str, Any]) -> None:
        if event["decision"] in decisions:
            raise OSError("disk full")

    return sink


def test_a_call_whose_proposal_cannot_be_written_does_not_run(
    make_box: Callable[..., Toolbox], handlers: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The audit fails closed: a call the sink cannot record is not run unaudited. It
    answers UNAVAILABLE (retryable: the sink may write again later) before the handler, and
    the event it could not write is logged at ERROR, whole."""
    box = make_box(audit=failing_at("proposed"))
    with caplog.at_level(logging.ERROR, logger="toolgen.runtime"):
        answers = [
            box.call("lookup", {"q": "x"}),
            asyncio.run(box.acall("lookup", '{"q": "y"}')),
            box.call("nope", {}),
        ]
    for result in answers:
        assert result.error is not None and result.error["code"] == "UNAVAILABLE"
        assert result.error["retryable"] is True and "did not run" in result.error["message"]
        assert result.trace_id in caplog.text
    assert handlers.CALLS["lookup"] == 0
    logged = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(logged) == 3
    assert all('"decision": "proposed"' in r.getMessage() for r in logged)


def test_a_call_whose_confirmation_cannot_be_written_does_not_run(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    box = make_box(audit=failing_at("confirmed"))
    context = CallContext(scopes=PAY, confirm=lambda r: True)
    result = box.call("transfer", TRANSFER, context=context)
    assert result.error is not None and result.error["code"] == "UNAVAILABLE"
    assert handlers.CALLS["transfer"] == 0


def test_an_event_after_the_handler_ran_is_logged_when_it_cannot_be_written(
    make_box: Callable[..., Toolbox], handlers: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The call has happened: its answer says so, and the event the sink could not write is
    logged at ERROR, whole (never silently lost)."""
    box = make_box(audit=failing_at("executed", "failed"))
    with caplog.at_level(logging.ERROR, logger="toolgen.runtime"):
        ran = box.call("lookup", {"q": "x"})
        failed = box.call("boom", {"reason": "x"})
    assert ran.ok and ran.data == {"q": "x", "limit": 3}
    assert handlers.CALLS["lookup"] == 1
    assert failed.error is not None and failed.error["code"] == "INTERNAL"
    unwritten = [
        json.loads(r.getMessage().split(": ", 1)[1])
        for r in caplog.records
        if "could not write" in r.getMessage()
    ]
    assert [(e["decision"], e["trace_id"]) for e in unwritten] == [
        ("executed", ran.trace_id),
        ("failed", failed.trace_id),
    ]


def test_the_arguments_are_hashed_once_per_call(
    make_box: Callable[..., Toolbox],
    events: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hashed: list[Any] = []

    def counting(arguments: Any, key: Any) -> str:
        hashed.append(arguments)
        return arguments_hmac(arguments, key)

    monkeypatch.setattr(call_module, "arguments_hmac", counting)
    box = make_box()

    def keyed(arguments: Any) -> str:
        return arguments_hmac(arguments, box.audit_key)

    box.call("lookup", {"q": "x", "limit": 2})
    assert len(hashed) == 1
    assert [e["arguments_hmac"] for e in events] == [keyed({"q": "x", "limit": 2})] * 2
    # text, or a strict-mode null dropped: what is executed is not what was proposed, and
    # each event hashes its own
    for proposed, executed in (('{"q": "x"}', {"q": "x"}), ({"q": "x", "limit": None}, {"q": "x"})):
        events.clear()
        hashed.clear()
        box.call("lookup", proposed)
        assert [e["arguments_hmac"] for e in events] == [keyed(proposed), keyed(executed)]
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
        "arguments_hmac": None,
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


class Odd:
    def __repr__(self) -> str:
        return "Odd()"


#: Calls whose events hold what no UTF-8 writer, or no JSON writer, takes as it is.
HOSTILE: list[tuple[Any, Any, CallContext]] = [
    ("\ud800", {}, CallContext()),
    ("lookup", {"q": "\ud800"}, CallContext()),
    ("lookup", {"q": "x", "\udfff": 1}, CallContext()),
    ("lookup", {"q": "x", "limit": 10**5000}, CallContext()),
    ("lookup", {"q": "x", "limit": math.nan}, CallContext()),
    ("lookup", {"q": Odd()}, CallContext()),
    ("lookup", {"q": {(1, 2): "tuple key", 3: "int key"}}, CallContext()),
    ("lookup", {"q": "x"}, CallContext(principal="p\ud800")),
    ("lookup", {"q": "x"}, CallContext(metadata={"m": "\ud800", "n": math.inf, "o": Odd()})),
    ("lookup", {"q": "x"}, CallContext(trace_id="t\ud800")),
]


@pytest.mark.parametrize("audit_arguments", [False, True])
def test_every_event_is_written_whatever_the_call_carries(
    make_box: Callable[..., Toolbox], tmp_path: Path, audit_arguments: bool
) -> None:
    """Lone surrogates, integers too long to print, NaN, objects, names that are no strings:
    each event is escaped into strict JSON that a UTF-8 file takes, so none is lost (they
    were: the sink raised, the call went on, the event was gone)."""
    path = tmp_path / "audit.jsonl"
    box = make_box(audit=str(path), audit_arguments=audit_arguments)
    for name, arguments, context in HOSTILE:
        box.call(name, arguments, context=context)

    def strict(token: str) -> Any:
        raise AssertionError(f"{token} is no JSON")

    lines = path.read_text(encoding="utf-8").splitlines()
    events = [json.loads(line, parse_constant=strict) for line in lines]
    assert len(events) == 2 * len(HOSTILE)
    assert [e["decision"] for e in events[:2]] == ["proposed", "denied"]
    assert events[0]["tool"] == "\\ud800"
    assert events[14]["principal"] == "p\\ud800"
    assert events[16]["metadata"] == {"m": "\\ud800", "n": "Infinity", "o": "Odd()"}
    if audit_arguments:
        assert events[2]["arguments"] == {"q": "\\ud800"}
        assert events[6]["arguments"]["limit"].startswith("<integer of ")


def test_tool_and_argument_names_are_cut_in_events(
    make_box: Callable[..., Toolbox], events: list[dict[str, Any]]
) -> None:
    """A model may propose any name, of any length: an event names it cut, as a message
    quotes a value (the arguments' values are kept whole when configured)."""
    long = "n" * 100_000
    box = make_box(audit_arguments=True)
    box.call(long, {})
    box.call("lookup", {"q": "v" * 1000, long: 1, long + "x": 2})
    assert len(events[0]["tool"]) < 300 and events[0]["tool"].startswith("nnn")
    names = list(events[2]["arguments"])
    assert len(names) == 3 and all(len(n) < 300 for n in names)
    assert events[2]["arguments"]["q"] == "v" * 1000


SECRET_A = "a-per-deployment-secret-of-32-by"
SECRET_B = "another-deployment-secret-32-byt"


def fingerprints(box: Toolbox, events: list[dict[str, Any]], arguments: Any) -> str:
    events.clear()
    box.call("lookup", arguments)
    [found] = {e["arguments_hmac"] for e in events}
    return str(found)


def test_the_arguments_fingerprint_is_keyed_by_the_deployments_secret(
    make_box: Callable[..., Toolbox],
    events: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HMAC-SHA256 of the canonical JSON with the secret: the same in every process given the
    same secret (argument or `TOOLGEN_AUDIT_SECRET`), another under another secret, and never
    the plain sha256 the log's reader could compute."""
    arguments = {"q": "x", "limit": 2}
    given = fingerprints(make_box(audit_secret=SECRET_A), events, arguments)
    assert len(given) == 64 and given != arguments_sha256(arguments)
    assert fingerprints(make_box(audit_secret=SECRET_A.encode()), events, arguments) == given
    assert fingerprints(make_box(audit_secret=SECRET_B), events, arguments) != given
    monkeypatch.setenv("TOOLGEN_AUDIT_SECRET", SECRET_A)
    assert fingerprints(make_box(), events, arguments) == given
    monkeypatch.delenv("TOOLGEN_AUDIT_SECRET")
    unset = fingerprints(make_box(), events, arguments)  # a random secret of this process
    assert unset not in (given, arguments_sha256(arguments))
    assert fingerprints(make_box(), events, arguments) == unset


def test_a_pin_is_not_recovered_from_the_log_by_enumeration(
    make_box: Callable[..., Toolbox], events: list[dict[str, Any]]
) -> None:
    """Ten thousand PINs hashed as the event hashed them: none matches without the secret."""
    logged = fingerprints(make_box(), events, {"q": "4821"})
    guesses = {arguments_sha256({"q": f"{pin:04d}"}) for pin in range(10_000)}
    guesses |= {arguments_sha256(json.dumps({"q": f"{pin:04d}"})) for pin in range(10_000)}
    assert logged not in guesses


@pytest.mark.parametrize("secret", ["", "short", b"fifteen bytes!!"])
def test_a_secret_too_short_to_key_anything_is_refused(
    make_box: Callable[..., Toolbox], monkeypatch: pytest.MonkeyPatch, secret: str | bytes
) -> None:
    with pytest.raises(ValueError, match="at least 16 bytes"):
        make_box(audit_secret=secret)
    if isinstance(secret, str):
        monkeypatch.setenv("TOOLGEN_AUDIT_SECRET", secret)
        with pytest.raises(ValueError, match="TOOLGEN_AUDIT_SECRET"):
            make_box()


def test_the_idempotency_fingerprint_does_not_follow_the_audit_secret(
    make_box: Callable[..., Toolbox], handlers: Any, tmp_path: Path
) -> None:
    """A key kept by one process replays in the next, whatever audit secret each has (a new
    random one per process when none is given): the store's fingerprint is a plain sha256 of
    its own, stable across restarts and secret rotations."""
    store = f"sqlite:///{tmp_path / 'keys.db'}"
    yes = CallContext(scopes=PAY, confirm=lambda r: True)
    first = make_box(store=store, audit_secret=SECRET_A).call("transfer", TRANSFER, context=yes)
    assert first.ok and handlers.CALLS["transfer"] == 1
    for secret in (SECRET_B, None):
        again = make_box(store=store, audit_secret=secret).call("transfer", TRANSFER, context=yes)
        assert again.replayed and again.data == first.data
    assert handlers.CALLS["transfer"] == 1
