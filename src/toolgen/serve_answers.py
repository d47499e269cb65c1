"""`toolgen serve` answers every request that has an id exactly once, also when the client
closes stdin while calls are pending.

The MCP SDK ends its session as soon as its read stream ends: it cancels the calls still under
way, so each is answered "Connection closed" instead of with what the call returned, and a call
it had just started may be cancelled before it ran at all, which nobody answers. So `serve` holds
the end of input back from the SDK: `GuardedLines` tells `Answers` of each request it passes on
and of each one the client cancels (`passed`), the write stream the SDK is given
(`AnsweringStream`) tells it of each answer, and at the end of input `settle` waits until every
request passed on is answered and the answers written (at most `DRAIN_TIMEOUT` seconds) before
the SDK sees the end.
Meanwhile `ended` is set, so that a call waiting for the client (an elicitation) stops waiting:
no answer can come any more. A request still unanswered once the SDK is done is answered by
`answer_the_rest`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from types import TracebackType
from typing import Any, TypeVar

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

T = TypeVar("T")

#: Seconds the calls still pending when stdin closes have to end (each within its own timeout);
#: the SDK then cancels the rest, which are answered "Connection closed".
DRAIN_TIMEOUT = 10.0

#: What a request unanswered when serving ends is answered (the SDK's code for the same).
CONNECTION_CLOSED = types.CONNECTION_CLOSED


def _key(request_id: types.RequestId) -> types.RequestId:
    """The id as the SDK correlates it: "7" and 7 are one (a client may echo an id as text)."""
    if isinstance(request_id, str):
        try:
            return int(request_id)
        except ValueError:
            pass
    return request_id


class InputEnded(TimeoutError):
    """The client's input ended while the server waited for its answer: none can come. A
    `TimeoutError`, so that an unanswered confirmation is answered as one not given in time."""


class Answers:
    """The requests handed to the SDK that it has not answered yet."""

    def __init__(self) -> None:
        # each key's ids in the order they came (a client may reuse an id, wrongly)
        self._open: dict[types.RequestId, list[types.RequestId]] = {}
        self._writing = 0  # answers being written
        self._quiet: anyio.Event | None = None
        self._asking: set[anyio.CancelScope] = set()
        #: Set at the end of input: the client can answer nothing any more.
        self.ended = anyio.Event()

    def passed(self, message: types.JSONRPCMessage) -> None:
        """`message` goes to the SDK: a request is open until answered; a cancelled one is
        closed, as the SDK never answers it (JSON-RPC: no answer after a cancellation)."""
        if isinstance(message, types.JSONRPCRequest):
            self._open.setdefault(_key(message.id), []).append(message.id)
        elif (
            isinstance(message, types.JSONRPCNotification)
            and message.method == "notifications/cancelled"
            and isinstance(message.params, dict)
        ):
            cancelled = message.params.get("requestId")
            if isinstance(cancelled, str | int) and not isinstance(cancelled, bool):
                self._close(_key(cancelled), every=True)

    @contextlib.contextmanager
    def answering(self, request_id: types.RequestId) -> Iterator[None]:
        """The answer to `request_id` is being written: it is answered, and the end of input
        waits until the write is over."""
        self._writing += 1
        self._close(_key(request_id), every=False)
        try:
            yield
        finally:
            self._writing -= 1
            self._notify()

    def _close(self, key: types.RequestId, *, every: bool) -> None:
        ids = self._open.get(key)
        if ids is None:
            return  # an answer to a cancelled request that was already being written
        del ids[: len(ids) if every else 1]
        if not ids:
            del self._open[key]
        self._notify()

    def _notify(self) -> None:
        if not self._open and not self._writing and self._quiet is not None:
            self._quiet.set()

    async def settle(self, timeout: float) -> None:
        """At the end of input: wait until every open request is answered, or `timeout`
        seconds have passed."""
        self.ended.set()
        for scope in self._asking:
            scope.cancel()
        with anyio.move_on_after(timeout):
            while self._open or self._writing:
                self._quiet = anyio.Event()
                await self._quiet.wait()

    async def ask_client(self, ask: Callable[[], Awaitable[T]]) -> T:
        """`await ask()` (a request to the client), unless the input ends first: then
        `InputEnded`."""
        if self.ended.is_set():
            raise InputEnded("the client's input ended")
        with anyio.CancelScope() as scope:
            self._asking.add(scope)
            try:
                return await ask()
            finally:
                self._asking.discard(scope)
        raise InputEnded("the client's input ended")  # `settle` cancelled the scope

    def unanswered(self) -> list[types.RequestId]:
        """The ids still open, in the order they came; they count as answered from now on."""
        ids = [request_id for same in self._open.values() for request_id in same]
        self._open.clear()
        return ids


class AnsweringStream:
    """The write stream the SDK answers on: each answer closes its request in `answers`.
    Closing it leaves the transport's stream open, for `answer_the_rest`."""

    def __init__(self, inner: Any, answers: Answers) -> None:
        self._inner = inner
        self._answers = answers

    async def send(self, item: SessionMessage, /) -> None:
        message = item.message
        answered = message.id if isinstance(message, types.JSONRPCResponse) else None
        if isinstance(message, types.JSONRPCError):
            answered = message.id
        if answered is None:
            await self._inner.send(item)
            return
        # counted when the write starts, as the SDK counts it (a write the end of input cancels
        # may have reached the transport: better no answer than two), and `settle` waits for
        # the write to end, as the end of input it lets through cancels the SDK's writes
        with self._answers.answering(answered):
            await self._inner.send(item)

    async def aclose(self) -> None:
        return None

    async def __aenter__(self) -> AnsweringStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        return None


async def answer_the_rest(write_stream: Any, answers: Answers) -> None:
    """Answer each request the SDK left unanswered with a JSON-RPC error."""
    for request_id in answers.unanswered():
        error = types.ErrorData(
            code=CONNECTION_CLOSED, message="the server stopped before it answered the request"
        )
        message = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
        with anyio.CancelScope(shield=True):
            await write_stream.send(SessionMessage(message))
