"""Audit events: one per decision of a call (proposed, denied, confirmed, refused, executed,
failed, replayed; blocked: the output screen withheld what the tool returned), each with the
tool's `audit_event` name, the principal, the arguments' fingerprint (raw arguments only when
configured: they may hold personal data), the outcome and the trace id. Nor does the
`reason` quote them unless configured: a `VALIDATION_ERROR`'s message quotes the failing
values, so without the arguments its reason names the failing fields only.

The fingerprint, `arguments_hmac`, is HMAC-SHA256 of the arguments' canonical JSON keyed by the
deployment's secret (`secret_for`: given, or `TOOLGEN_AUDIT_SECRET`, else a random one of this
process): a plain hash of a PIN or a short code is undone by hashing every candidate, a keyed
one only by whoever holds the key. The idempotency store keeps a plain sha256 of its own
(`arguments_sha256`), which must match across restarts whatever the secret.

Every event is strict JSON that any UTF-8 writer takes (`values.writable`): a lone surrogate
written as its escape, what JSON cannot carry (NaN, an integer too long to print, an object)
as text, the tool's name and the arguments' names cut as a message quotes a value. A sink that
still fails (a full disk) is the caller's to handle: `write` says so.

Sinks (`sink_for`): a JSON-lines file (kept open; each event one write of its whole line
under a lock, so a crash loses nothing already written), a `logging.Logger` (INFO, the event
as JSON), or any callable taking the event dict, called on the deciding thread (an async one
is refused: its events would never be awaited). The default is the logger `toolgen.audit`,
which keeps its events from the root logger: a handler on it collects them.
"""

from __future__ import annotations

import contextvars
import datetime
import hashlib
import hmac
import inspect
import json
import logging
import os
import secrets
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol, cast

from toolgen.quoting import QUOTE_LIMIT
from toolgen.runtime.escapes import handlers_own
from toolgen.runtime.forks import renew_in_child
from toolgen.runtime.values import escaped, name, writable

#: The decisions an event records (`blocked`: `toolgen.runtime.outputs`).
DECISIONS = (
    "proposed",
    "denied",
    "confirmed",
    "refused",
    "executed",
    "failed",
    "replayed",
    "blocked",
)

#: The error code whose message quotes the arguments' values (the failing ones).
QUOTES_VALUES = "VALIDATION_ERROR"

#: Where events go: a callable taking each event (what it returns is not used; see `write`).
Sink = Callable[[dict[str, Any]], object]


class JsonLinesSink:
    """Appends each event as one line of JSON to `path`, kept open (append mode, unbuffered)
    from the first event until `close`: each line is one `os.write` of the whole line under a
    lock, so nothing written waits in a buffer when the process dies (or forks: a child has no
    half-written buffer to copy), threads never interleave their lines, and the kernel's
    append puts each line whole after the last, whoever else appends (other processes).

    Per event the path and the open file are looked at again (a `stat` each): once the path
    no longer names the open file (rotated away, removed), the event goes to a new file at the
    path; a descriptor closed under the sink is left alone (its number may be another file's).
    A write that fails raises (the audit fails closed) and lets the file go: the next event
    opens it anew, and starts on a line of its own when the failed write left part of a line
    behind."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._identity: tuple[int, int] | None = None  # (device, inode) of the open file
        self._closer: weakref.finalize[Any, Any] | None = None
        self._torn = False  # a failed write left part of a line
        renew_in_child(self)

    def __call__(self, event: dict[str, Any]) -> None:
        line = (json.dumps(event, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        with self._lock:
            fd = self._open()
            if self._torn:
                line = b"\n" + line
            done = 0
            try:
                while done < len(line):  # one write but for a full disk or a signal
                    done += os.write(fd, line[done:])
            except BaseException:
                self._torn = self._torn or done > 0
                self._drop()
                raise
            self._torn = False

    def close(self) -> None:
        """Let the file go (a later event opens it again)."""
        with self._lock:
            self._drop()

    def _open(self) -> int:
        fd = self._fd
        if fd is not None:
            try:
                found = self.path.stat()
                named: tuple[int, int] | None = (found.st_dev, found.st_ino)
            except OSError:
                named = None  # removed: a new file at the path
            if named == self._identity and _identity(fd) == self._identity:
                return fd
            self._drop()  # rotated away, removed, or the descriptor closed under us
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, _APPEND, 0o666)
        held = _identity(fd)
        if held is None:
            os.close(fd)
            raise OSError(f"cannot read what {self.path} opened as")
        # closed with the sink when nobody closes it (a toolbox never closed)
        self._closer = weakref.finalize(self, os.close, fd)
        self._fd, self._identity = fd, held
        return fd

    def _drop(self) -> None:
        fd, closer, held = self._fd, self._closer, self._identity
        self._fd, self._closer, self._identity = None, None, None
        if closer is None:
            return
        if fd is not None and _identity(fd) == held:
            closer()
        else:  # closed under us (a handler's `os.closerange`): the number may be another's now
            closer.detach()

    def _forked(self) -> None:
        # a thread of the parent's may have held the lock; the file (appended to, no
        # buffer) is the child's to write too
        self._lock = threading.Lock()


def _identity(fd: int) -> tuple[int, int] | None:
    """(device, inode) of the file open as `fd`; None when `fd` is not open."""
    try:
        found = os.fstat(fd)
    except OSError:
        return None
    return found.st_dev, found.st_ino


#: How the file sink opens its file: appending, created when missing, not inherited by a
#: program this one starts, and bytes as they are (Windows would translate the newlines).
_APPEND = (
    os.O_WRONLY
    | os.O_APPEND
    | os.O_CREAT
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_NOINHERIT", 0)
)


class LoggerSink:
    """Logs each event at INFO as its JSON, in ASCII: a handler's stream may have any
    encoding, and one that cannot write a character loses the line (`logging` reports it on
    stderr and goes on)."""

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger

    def __call__(self, event: dict[str, Any]) -> None:
        self.logger.info("%s", json.dumps(event, default=str))


#: The default sink's logger: a stream of the audit's own, which an application collects by
#: putting a handler on it (at INFO already). Left as it was found when the application set
#: it up before this import (a level, a handler); else it does not pass its events on to the
#: root logger: an application's log at INFO (the MCP SDK's `MCPServer` sets one up, with a
#: rich handler on stderr) would print every event there, at milliseconds a call, and would
#: turn the audit on where nobody keeps it.
AUDIT_LOGGER = "toolgen.audit"


def _own_stream() -> None:
    logger = logging.getLogger(AUDIT_LOGGER)
    if logger.level == logging.NOTSET and not logger.handlers:
        logger.setLevel(logging.INFO)
        logger.propagate = False


_own_stream()


#: Where a deployment's audit secret may come from, and the fewest bytes it may have.
SECRET_VARIABLE = "TOOLGEN_AUDIT_SECRET"
MIN_SECRET = 16

#: The secret of a process given none: random, so that no reader of the log can key the
#: fingerprints; forked workers inherit it (their fingerprints match), a restart draws anew.
_PROCESS_SECRET = secrets.token_bytes(32)


def secret_for(given: str | bytes | None) -> bytes:
    """The key of the fingerprints: `given`, else `TOOLGEN_AUDIT_SECRET`, else this process's
    random one. ValueError for one shorter than `MIN_SECRET` bytes (enumerable too)."""
    where = "audit_secret"
    if given is None:
        found = os.environ.get(SECRET_VARIABLE)
        if found is None:
            return _PROCESS_SECRET
        where, key = SECRET_VARIABLE, os.fsencode(found)  # the variable's own bytes
    else:
        key = given.encode("utf-8", "surrogatepass") if isinstance(given, str) else bytes(given)
    if len(key) < MIN_SECRET:
        raise ValueError(
            f"{where} must be at least {MIN_SECRET} bytes, not {len(key)}: a short secret is "
            "found by trying them all"
        )
    return key


def _canonical(arguments: Any) -> str | None:
    """The arguments as proposed: their canonical JSON (sorted keys, no spaces), or the text
    itself; None for what JSON cannot write out (too deep, an integer too long, odd names)."""
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=repr)
    except (TypeError, ValueError, RecursionError):
        return None


def arguments_sha256(arguments: Any) -> str:
    """Plain sha256 of the canonical JSON: the idempotency store's fingerprint (of the
    arguments without the key). Unkeyed and unchanged, so that a key kept before a restart,
    an upgrade or a new audit secret still matches."""
    text = _canonical(arguments)
    if text is None:
        text = f"<unwritable {type(arguments).__name__}>"
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


class Mac(Protocol):
    """A keyed HMAC state: `hmac.HMAC`, or the OpenSSL object under it."""

    def copy(self) -> Mac: ...
    def update(self, data: bytes, /) -> None: ...
    def hexdigest(self) -> str: ...


def keyed(secret: bytes) -> Mac:
    """HMAC-SHA256 keyed by `secret`, for `arguments_hmac` (a copy of a keyed one per call
    costs less than keying again; the OpenSSL object under `hmac.HMAC`, where there is one,
    copies without `hmac.HMAC`'s Python-level wrapping)."""
    mac = hmac.new(secret, digestmod="sha256")
    inner = getattr(mac, "_hmac", None)
    return mac if inner is None else cast(Mac, inner)


def arguments_hmac(arguments: Any, key: Mac) -> str:
    """The events' fingerprint: HMAC-SHA256 of the canonical JSON with `key` (`keyed`); what
    JSON cannot write out as it is is hashed as an event writes it (`writable`)."""
    text = _canonical(arguments)
    if text is None:
        text = json.dumps(writable(arguments), sort_keys=True, separators=(",", ":"))
    mac = key.copy()
    mac.update(text.encode("utf-8", "surrogatepass"))
    return mac.hexdigest()


#: The sinks writing an event in this flow of control (a thread, a task, and a call from
#: inside them on a worker thread: `sync.run_sync` carries the context there).
_WRITING: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar(
    "toolgen_audit_writing", default=frozenset()
)


def write(sink: Sink, event: dict[str, Any]) -> BaseException | None:
    """Give `event` to `sink`: None once it took it, else what went wrong (what it raised;
    an awaitable it returned, which nothing here awaits, is closed and counted so). A sink
    that calls the toolbox is not given the events of that inner call, which could only be
    written by calling it again, without end: they count as not written."""
    writing = _WRITING.get()
    if id(sink) in writing:
        return RuntimeError("the audit sink called the toolbox while writing an event")
    token = _WRITING.set(writing | {id(sink)})
    try:
        answer = sink(event)
    except BaseException as exc:  # a SystemExit of the sink's is its failure too (`escapes`)
        if not handlers_own(exc):
            raise
        return exc
    finally:
        _WRITING.reset(token)
    if answer is not None and inspect.isawaitable(answer):
        close = getattr(answer, "close", None)
        if close is not None:
            close()
        return TypeError("the audit sink returned an awaitable; sinks are called, not awaited")
    return None


def wanted(sink: Sink) -> bool:
    """Would `sink` keep an event? Only a logger sink whose logger is off for INFO, or has no
    handler to give it to (none of its own, none it passes events on to), would not: its
    events are then not even built (`logging` would drop them). Any other sink gets every
    event."""
    if not isinstance(sink, LoggerSink):
        return True
    logger = sink.logger
    if not logger.handlers and not logger.propagate:  # `hasHandlers`, in its usual case
        return False
    return logger.isEnabledFor(logging.INFO) and logger.hasHandlers()


def sink_for(audit: str | Path | logging.Logger | Sink | None) -> Sink:
    """The sink `Toolbox.load(audit=...)` names: None (the `toolgen.audit` logger), a path (a
    JSON-lines file), a logger, or a callable."""
    if audit is None:
        return LoggerSink(logging.getLogger(AUDIT_LOGGER))
    if isinstance(audit, str | Path):
        return JsonLinesSink(audit)
    if isinstance(audit, logging.Logger):
        return LoggerSink(audit)
    if callable(audit):
        if inspect.iscoroutinefunction(audit) or inspect.iscoroutinefunction(
            getattr(audit, "__call__", None)  # noqa: B004 (an object's async __call__)
        ):
            raise TypeError(f"audit must be a synchronous callable, not {audit!r}")
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
    arguments_hmac: str | None,
    arguments: Mapping[str, Any] | None = None,
    outcome: str | None = None,
    error_code: str | None = None,
    reason: str | None = None,
    duration_ms: float | None = None,
    metadata: Mapping[str, Any] | None = None,
    fields: Iterable[Mapping[str, Any]] | None = None,
    audit_arguments: bool | None = None,
    confirmation_waived: str | None = None,
) -> dict[str, Any]:
    """One audit event (fields that do not apply are left out), `writable` throughout.

    `audit_arguments` says whether raw values may appear (None: only when the event carries
    the `arguments`). Where they may not, the `reason` of a `VALIDATION_ERROR` (its message
    quotes the failing values) becomes `withheld_reason(fields)`: the error's `fields` paths."""
    shows_values = arguments is not None if audit_arguments is None else audit_arguments
    if error_code == QUOTES_VALUES and reason is not None and not shows_values:
        reason = withheld_reason(fields)
    # built twice or more per call: the usual short ASCII text is taken as it is, inline
    if type(trace_id) is not str or not trace_id.isascii():
        trace_id = _text(trace_id)
    if type(tool) is not str or not tool.isascii() or len(tool) > QUOTE_LIMIT:
        tool = name(tool)
    if principal is not None and (type(principal) is not str or not principal.isascii()):
        principal = _text(principal)
    found: dict[str, Any] = {
        "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
        "trace_id": trace_id,
        "decision": decision,
        "tool": tool,
        "principal": principal,
        "audit_event": audit_event,
        "risk": risk,
        "arguments_hmac": arguments_hmac,
    }
    # the fields that apply, one test each
    if arguments is not None:
        found["arguments"] = writable(arguments)
    if outcome is not None:
        found["outcome"] = outcome
    if error_code is not None:
        found["error_code"] = _text(error_code)
    if reason is not None:
        found["reason"] = _text(reason)
    if duration_ms is not None:
        found["duration_ms"] = round(duration_ms, 3)
    if metadata:
        found["metadata"] = writable(metadata)
    if confirmation_waived is not None:  # a destructive tool its contract lets run unconfirmed
        found["confirmation_waived"] = _text(confirmation_waived)
    return found


def withheld_reason(fields: Iterable[Mapping[str, Any]] | None) -> str:
    """A `VALIDATION_ERROR`'s reason without the values its message quotes: the failing
    fields' paths (`fields` of the error object), or only that it was withheld."""
    paths = [str(f.get("path") or "/") for f in fields or () if isinstance(f, Mapping)]
    where = f" at {', '.join(paths)}" if paths else ""
    return f"invalid arguments{where} (values withheld)"


def _text(value: Any) -> Any:
    """A field that is text, or should be (a caller's principal or trace id may be anything)."""
    if type(value) is str:
        return value if value.isascii() else escaped(value)
    return writable(value)
