"""Audit events: one per decision of a call (proposed, denied, confirmed, refused, executed,
failed, replayed), each with the tool's `audit_event` name, the principal, the arguments'
sha256 (raw arguments only when configured: they may hold personal data), the outcome and the
trace id. Nor does the `reason` quote them unless configured: a `VALIDATION_ERROR`'s message
quotes the failing values, so without the arguments its reason names the failing fields only.

Sinks (`sink_for`): a JSON-lines file (each event appended and flushed under a lock, so a
crash loses nothing already written), a `logging.Logger` (INFO, the event as JSON), or any
callable taking the event dict. The default is the logger `toolgen.audit`.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

#: The decisions an event records.
DECISIONS = ("proposed", "denied", "confirmed", "refused", "executed", "failed", "replayed")

#: The error code whose message quotes the arguments' values (the failing ones).
QUOTES_VALUES = "VALIDATION_ERROR"

#: Where events go: a callable taking each event.
Sink = Callable[[dict[str, Any]], None]


class JsonLinesSink:
    """Appends each event as one line of JSON to `path`: opened, written, flushed and closed
    per event under a lock, so that nothing written waits in a buffer when the process dies
    and several toolboxes (threads) never interleave their lines."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def __call__(self, event: dict[str, Any]) -> None:
        line = json.dumps(event, ensure_ascii=False, default=str) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as file:
                file.write(line)
                file.flush()


class LoggerSink:
    """Logs each event at INFO as its JSON."""

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger

    def __call__(self, event: dict[str, Any]) -> None:
        self.logger.info("%s", json.dumps(event, ensure_ascii=False, default=str))


def arguments_sha256(arguments: Any) -> str:
    """sha256 of the arguments as proposed: their canonical JSON (sorted keys, no spaces), or
    the text itself. The idempotency fingerprint is this of the arguments without the key."""
    if isinstance(arguments, str):
        text = arguments
    else:
        try:
            text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=repr)
        except (TypeError, ValueError, RecursionError):  # nested too deep to write out
            text = f"<unwritable {type(arguments).__name__}>"
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def wanted(sink: Sink) -> bool:
    """Would `sink` keep an event? Only a logger sink whose logger is off for INFO would not:
    its events are then not even built. Any other sink gets every event."""
    return not isinstance(sink, LoggerSink) or sink.logger.isEnabledFor(logging.INFO)


def sink_for(audit: str | Path | logging.Logger | Sink | None) -> Sink:
    """The sink `Toolbox.load(audit=...)` names: None (the `toolgen.audit` logger), a path (a
    JSON-lines file), a logger, or a callable."""
    if audit is None:
        return LoggerSink(logging.getLogger("toolgen.audit"))
    if isinstance(audit, str | Path):
        return JsonLinesSink(audit)
    if isinstance(audit, logging.Logger):
        return LoggerSink(audit)
    if callable(audit):
        return audit
    raise TypeError(f"audit must be None, a path, a logging.Logger or a callable, not {audit!r}")


def event(
    decision: str,
    *,
    trace_id: str,
    tool: str,
    principal: str | None,
    audit_event: str | None,
    risk: str | None,
    arguments_sha256: str | None,
    arguments: Mapping[str, Any] | None = None,
    outcome: str | None = None,
    error_code: str | None = None,
    reason: str | None = None,
    duration_ms: float | None = None,
    metadata: Mapping[str, Any] | None = None,
    fields: Iterable[Mapping[str, Any]] | None = None,
    audit_arguments: bool | None = None,
) -> dict[str, Any]:
    """One audit event (fields that do not apply are left out).

    `audit_arguments` says whether raw values may appear (None: only when the event carries
    the `arguments`). Where they may not, the `reason` of a `VALIDATION_ERROR` (its message
    quotes the failing values) becomes `withheld_reason(fields)`: the error's `fields` paths."""
    shows_values = arguments is not None if audit_arguments is None else audit_arguments
    if error_code == QUOTES_VALUES and reason is not None and not shows_values:
        reason = withheld_reason(fields)
    found: dict[str, Any] = {
        "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
        "trace_id": trace_id,
        "decision": decision,
        "tool": tool,
        "principal": principal,
        "audit_event": audit_event,
        "risk": risk,
        "arguments_sha256": arguments_sha256,
    }
    optional = {
        "arguments": dict(arguments) if arguments is not None else None,
        "outcome": outcome,
        "error_code": error_code,
        "reason": reason,
        "duration_ms": round(duration_ms, 3) if duration_ms is not None else None,
        "metadata": dict(metadata) if metadata else None,
    }
    found.update((k, v) for k, v in optional.items() if v is not None)
    return found


def withheld_reason(fields: Iterable[Mapping[str, Any]] | None) -> str:
    """A `VALIDATION_ERROR`'s reason without the values its message quotes: the failing
    fields' paths (`fields` of the error object), or only that it was withheld."""
    paths = [str(f.get("path") or "/") for f in fields or () if isinstance(f, Mapping)]
    where = f" at {', '.join(paths)}" if paths else ""
    return f"invalid arguments{where} (values withheld)"
