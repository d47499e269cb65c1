"""Running the runtime's coroutines from synchronous code (`Toolbox.call`, `handle_*`).

A new event loop per call (`asyncio.run`) costs more than the rest of a call together: the
loop, its self-pipe and, for a sync handler, a fresh worker thread each time. So each thread
keeps one event loop and runs every call on it (`run_until_complete`: `asyncio.Runner.run`
would add a SIGINT handler's install and removal to each call on the main thread, which cost
more than the call's steps). What a call leaves running - the call itself too, after a
Ctrl-C - is cancelled at its end, as `asyncio.run` would. The loop is closed when its thread
ends (or at exit); it never becomes the thread's current loop. A forked child starts a loop
of its own: the one it inherited shares its epoll instance with the parent's.
Inside a running loop a call still goes to a worker thread's own loop (with the caller's
context variables, as `asyncio.to_thread` takes them), so that it never blocks on the caller's
loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import os
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from toolgen.runtime.escapes import task_factory

T = TypeVar("T")


class _ThreadLoop:
    """One thread's loop, closed when this object goes with its thread."""

    def __init__(self) -> None:
        self.loop = _new_loop()
        self.pid = os.getpid()
        weakref.finalize(self, _close, self.loop, self.pid)


def _new_loop() -> asyncio.AbstractEventLoop:
    """A loop of the runtime's own: a SystemExit in a task a handler started fails that task,
    not the loop's run (`escapes.task_factory`)."""
    loop = asyncio.new_event_loop()
    loop.set_task_factory(task_factory)
    return loop


_local = threading.local()

#: Loops a forked child inherited, kept from the collector there: closing one would remove
#: its self-pipe from the epoll instance that the parent's loop still waits on.
_inherited: list[asyncio.AbstractEventLoop] = []


def run_sync(start: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine from synchronous code: on this thread's kept loop, or, inside a running
    one, on a worker thread's own loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        # the caller's context goes along, as `asyncio.to_thread` takes it (the audit knows
        # by it a call made from inside its sink)
        context = contextvars.copy_context()

        def run() -> T:
            with asyncio.Runner(loop_factory=_new_loop) as runner:
                return runner.run(start())

        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(context.run, run).result()
    kept: _ThreadLoop | None = getattr(_local, "loop", None)
    if kept is None or kept.pid != os.getpid():
        kept = _local.loop = _ThreadLoop()
    loop = kept.loop
    task = loop.create_task(start())
    try:
        while True:
            try:
                return loop.run_until_complete(task)
            except RuntimeError:
                if task.done():
                    raise
                # the loop was stopped before the call ended (a handler's `loop.stop()`):
                # the call goes on
    finally:
        _cancel_left(loop)


def _cancel_left(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the tasks a call left running and let them end (what `asyncio.run` does)."""
    left = [task for task in asyncio.all_tasks(loop) if not task.done()]
    if not left:
        return
    for task in left:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))


def _close(loop: asyncio.AbstractEventLoop, pid: int) -> None:
    """Close a thread's loop without waiting for worker threads (a timed-out sync handler
    may hold one for long); only the bare loop when another loop runs here; in a forked
    child, not at all."""
    if os.getpid() != pid:
        _inherited.append(loop)
        return
    if loop.is_closed():
        return
    # another loop runs in the collecting thread (the keeper's, a store's): the bare loop only
    # (its `shutdown_asyncgens()` made there would be refused, and warn as never awaited)
    if asyncio._get_running_loop() is None:
        with contextlib.suppress(RuntimeError):
            loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()
