"""`toolgen serve` against hostile input: the line check in front of the SDK's stdio
transport (the checks on argument and result values, and quoting, are the runtime's:
`toolgen.runtime.values`).

The SDK's stdio transport parses each line of stdin as a JSON-RPC message and drops what it
cannot parse without a word, and it reads a request whose id is not a string or an integer as
a notification, which is never answered: a client waiting for that answer hangs.
`GuardedLines` stands between stdin and the transport. Each line goes through `check_line`
first; a line the SDK can take passes on unchanged, a malformed request is answered here with
a JSON-RPC 2.0 error (`-32700` parse error, `-32600` invalid request, `-32602` invalid params;
`"id": null` when the id itself is unusable) and a malformed notification or response is
dropped, as JSON-RPC never answers those. Either way stderr gets one short line.

Everything an answer quotes from the client goes through `quote` or `cut`, so that a large
input is never echoed back at length.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import sys
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import anyio
import mcp_types as types
import pydantic
from mcp.shared.message import SessionMessage

from toolgen.diagnostics import QUOTE_LIMIT, cut
from toolgen.runtime.values import quote
from toolgen.serve_answers import Answers

# -- lines: what reaches the SDK --------------------------------------------------------------


@dataclass(frozen=True)
class Rejection:
    """A line that does not reach the SDK; `id` is the request's, `answer` False for a
    notification or a response (never answered)."""

    code: int
    message: str
    id: types.RequestId | None = None
    answer: bool = True

    def error(self) -> types.JSONRPCError:
        return types.JSONRPCError(
            jsonrpc="2.0", id=self.id, error=types.ErrorData(code=self.code, message=self.message)
        )


_BAD_ID = 'invalid request: "id" must be a string or an integer'


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _parse_int(digits: str) -> int | float:
    # only the id is wanted from a message the SDK refused; Python refuses > 4,300 digits
    return int(digits) if len(digits) <= 4000 else math.inf


def check_line(line: str) -> Rejection | None:
    """None when the SDK can take `line` as it is, else why not."""
    return read_line(line)[0]


def read_line(line: str) -> tuple[Rejection | None, types.JSONRPCMessage | None]:
    """Why the SDK cannot take `line` (None when it can), and the message it reads there."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except pydantic.ValidationError as exc:
        return _diagnose(line, exc), None
    if isinstance(message, types.JSONRPCRequest):
        return _check_request(message), message
    if isinstance(message, types.JSONRPCNotification):
        # the SDK reads a request with an id it cannot use as a notification
        with contextlib.suppress(ValueError, RecursionError):
            if "id" in json.loads(line, parse_int=_parse_int):
                return Rejection(types.INVALID_REQUEST, _BAD_ID), message
    return None, message


def _check_request(request: types.JSONRPCRequest) -> Rejection | None:
    """What the SDK would answer badly: by echoing a long string, or with no detail."""
    params = request.params or {}
    meta = params.get("_meta")
    if len(request.method) > QUOTE_LIMIT:
        message = f"method not found: {quote(request.method)}"
        return Rejection(types.METHOD_NOT_FOUND, message, request.id)
    versions = [params.get("protocolVersion")]
    if isinstance(meta, dict):
        versions.append(meta.get(types.PROTOCOL_VERSION_META_KEY))
    if any(isinstance(v, str) and len(v) > QUOTE_LIMIT for v in versions):
        message = "invalid params: the protocol version is too long to be one"
        return Rejection(types.INVALID_PARAMS, message, request.id)
    if request.method == "tools/call":
        if not isinstance(params.get("name"), str):
            message = 'invalid params: tools/call needs "name", a string'
            return Rejection(types.INVALID_PARAMS, message, request.id)
        if not isinstance(params.get("arguments"), dict | None):
            message = 'invalid params: "arguments" must be an object'
            return Rejection(types.INVALID_PARAMS, message, request.id)
    return None


def _diagnose(line: str, exc: pydantic.ValidationError) -> Rejection:
    """Why the SDK's parser refused `line`, answered to the request's id where it has one."""
    errors = exc.errors(include_url=False, include_context=False, include_input=False)
    unreadable = next((str(e["msg"]) for e in errors if e["type"] == "json_invalid"), None)
    too_deep = unreadable is not None and "recursion limit" in unreadable
    try:
        value = json.loads(line, parse_int=_parse_int)
    except RecursionError:
        return _too_deep_for_json(line)
    except ValueError as error:
        return Rejection(types.PARSE_ERROR, cut(f"parse error: {error}"))
    if not isinstance(value, dict):
        batch = " (batches are not supported)" if isinstance(value, list) else ""
        return Rejection(types.INVALID_REQUEST, f"invalid request: not a JSON object{batch}")
    if "method" not in value and ("result" in value or "error" in value):
        return Rejection(types.INVALID_REQUEST, "malformed response", answer=False)
    if "id" not in value:
        return Rejection(types.INVALID_REQUEST, "malformed notification", answer=False)
    request_id = value["id"]
    if not _is_id(request_id):
        return Rejection(types.INVALID_REQUEST, _BAD_ID)
    if too_deep:
        others = [v for k, v in value.items() if k != "params"]
        return _too_deep(request_id, not any(isinstance(v, dict | list) for v in others))
    params = value.get("params")
    if value.get("jsonrpc") != "2.0":
        reason = 'invalid request: "jsonrpc" must be "2.0"'
    elif not isinstance(value.get("method"), str):
        reason = 'invalid request: "method" must be a string'
    elif isinstance(params, list):
        return Rejection(
            types.INVALID_PARAMS, "invalid params: params must be an object", request_id
        )
    elif not isinstance(params, dict | None):
        reason = "invalid request: params must be an object"
    else:  # JSON that Python reads and the SDK does not (a lone surrogate, a huge number)
        reason = cut(f"invalid request: {unreadable or 'not a JSON-RPC 2.0 request'}")
    return Rejection(types.INVALID_REQUEST, reason, request_id)


def _too_deep(request_id: Any, in_params: bool) -> Rejection:
    if not _is_id(request_id):
        return Rejection(types.INVALID_REQUEST, _BAD_ID)
    if in_params:
        return Rejection(types.INVALID_PARAMS, "invalid params: nested too deeply", request_id)
    return Rejection(types.INVALID_REQUEST, "invalid request: nested too deeply", request_id)


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[][{}:,]')


def _too_deep_for_json(line: str) -> Rejection:
    """The answer to a message nested too deeply even for `json`, its id read from the text."""
    members = _shallow_members(line)
    if members is None:
        return Rejection(types.INVALID_REQUEST, "invalid request: not a JSON object")
    if "id" not in members:
        return Rejection(types.INVALID_REQUEST, "malformed notification", answer=False)
    try:
        request_id = json.loads(members["id"][0], parse_int=_parse_int)
    except (ValueError, RecursionError):
        request_id = None
    return _too_deep(request_id, max(members, key=lambda k: members[k][1]) == "params")


def _shallow_members(line: str) -> dict[str, tuple[str, int]] | None:
    """The top-level members of the JSON object on `line`, each as the text of its value and
    the depth that value reaches, found without parsing the values; None when the line holds
    no object."""
    members: dict[str, tuple[str, int]] = {}
    depth = deepest = start = 0
    key: str | None = None
    for token in _TOKEN.finditer(line):
        text = token.group()
        if depth == 0 and (text != "{" or line[: token.start()].strip()):
            return None
        if depth == 1 and text in (",", "}") and key is not None:
            members[key] = (line[start : token.start()], deepest)
            key = None
        elif depth == 1 and text == ":":
            start, deepest = token.end(), 1
        elif depth == 1 and key is None and text.startswith('"'):
            try:
                key = json.loads(text)
            except ValueError:  # a bad escape: not a key anyone asks for
                key = text
        if text in ("[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        elif text in ("]", "}"):
            depth -= 1
            if depth == 0:
                break
    return members


class GuardedLines:
    """stdin's lines for the SDK's stdio transport, each through `check_line` (so the SDK
    parses a line twice, the price of keeping its transport): a rejected request is answered
    here, on the transport's write stream once `answer_on` gave it. With `pending`, what
    passes on is told to it, and the end of input waits for its answers
    (`serve_answers`: at most `drain` seconds)."""

    def __init__(
        self, lines: AsyncIterable[str], pending: Answers | None = None, drain: float = 0.0
    ) -> None:
        self._lines = aiter(lines)
        self._ready = anyio.Event()
        self._answers: Any = None
        self._pending = pending
        self._drain = drain

    def answer_on(self, write_stream: Any) -> None:
        self._answers = write_stream
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self

    async def __anext__(self) -> str:
        while True:
            try:
                line = await anext(self._lines)
            except StopAsyncIteration:
                if self._pending is not None:
                    await self._pending.settle(self._drain)
                raise
            if not line.strip():
                continue
            message = None
            try:
                rejected, message = read_line(line.rstrip("\r\n"))
            except Exception:  # a gap in the check must not end the session: the SDK judges
                rejected = None
            if rejected is None:
                if self._pending is not None and message is not None:
                    self._pending.passed(message)
                return line
            what = "answered" if rejected.answer else "dropped"
            sys.stderr.write(f"toolgen serve: {what} a malformed message: {rejected.message}\n")
            sys.stderr.flush()
            if rejected.answer:
                await self._ready.wait()
                with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                    await self._answers.send(SessionMessage(rejected.error()))


@contextlib.contextmanager
def claimed_stdin() -> Iterator[BinaryIO]:
    """The client's end of stdin, read through a duplicate of fd 0 while fd 0 itself points at
    the null device, so that a handler reading stdin gets EOF, not the client's next message
    (the SDK's stdio transport does this only for a stdin it opens itself)."""
    try:
        wire = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        yield sys.stdin.buffer
        return
    os.dup2(null, 0)
    os.close(null)
    try:
        # never closed: a worker thread may still be blocked reading it when serving stops
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        os.dup2(wire, 0)
