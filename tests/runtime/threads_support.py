"""Running a call that may never end, for the tests of hostile handlers: on a thread of its
own, bounded in time, and a caller's cancellation of it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any


def on_a_thread(run: Callable[[], Any], seconds: float = 30) -> Any:
    """`run()` on a daemon thread of its own (not the main one: a `KeyboardInterrupt` there
    cannot be a Ctrl-C; a call that never ends must not hold the test process), within
    `seconds`; what it returned, or what escaped it."""
    out: dict[str, Any] = {}

    def go() -> None:
        try:
            out["value"] = run()
        except BaseException as exc:  # what escaped the call is the finding
            out["value"] = exc

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the call did not end"
    return out["value"]


async def cancelled(call: Awaitable[Any], ready: Callable[[], Awaitable[Any]]) -> bool:
    """Whether the caller's `task.cancel()` of `call`, once `ready()` returns, ends it with
    `CancelledError` (rather than an answer)."""
    task = asyncio.ensure_future(call)
    await ready()
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        return True
    return False


def when_set(event: threading.Event) -> Callable[[], Awaitable[None]]:
    """`ready` for `cancelled`: once the handler has set `event`."""

    async def ready() -> None:
        while not event.is_set():
            await asyncio.sleep(0.001)

    return ready
