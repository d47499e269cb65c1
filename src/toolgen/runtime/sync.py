"""Running the runtime's coroutines from synchronous code (`Toolbox.call`, `handle_*`).

A new event loop per call (`asyncio.run`) costs more than the rest of a call together: the
loop, its self-pipe and, for a sync handler, a fresh worker thread each time. So each thread
keeps one `asyncio.Runner` and runs every call on it; what a call leaves running is cancelled
at its end, as `asyncio.run` would. The loop is closed when its thread ends (or at exit).
Inside a running loop a call still goes to a worker thread's own loop, so that it never
blocks on the caller's loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _ThreadLoop:
    """One thread's runner; its loop is closed when this object goes with its thread."""

    def __init__(self) -> None:
        # a loop of its own that does not become the thread's current loop
        self.runner = asyncio.Runner(loop_factory=asyncio.new_event_loop)
        weakref.finalize(self, _close, self.runner)


_local = threading.local()


def run_sync(start: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine from synchronous code: on this thread's kept loop, or, inside a running
    one, on a worker thread's own loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(lambda: asyncio.run(start())).result()
    kept: _ThreadLoop | None = getattr(_local, "loop", None)
    if kept is None:
        kept = _local.loop = _ThreadLoop()
    try:
        return kept.runner.run(start())
    finally:
        _cancel_left(kept.runner.get_loop())


def _cancel_left(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the tasks a call left running and let them end (what `asyncio.run` does)."""
    left = [task for task in asyncio.all_tasks(loop) if not task.done()]
    if not left:
        return
    for task in left:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))


def _close(runner: asyncio.Runner) -> None:
    """Close a thread's runner without waiting for worker threads (a timed-out sync handler
    may hold one for long); closing the bare loop when another loop runs here."""
    loop = runner.get_loop()
    if loop.is_closed():
        return
    with contextlib.suppress(RuntimeError):  # another loop runs in the collecting thread
        loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()
