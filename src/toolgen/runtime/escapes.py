"""What user code may raise besides `Exception`, and which of it a call answers.

A handler (or what the runtime calls for it: its import, a factory, a confirm or step-up
callback, a fallback, an audit sink) may raise what is no `Exception`: `SystemExit` (argparse
or click on bad input), `KeyboardInterrupt`, `GeneratorExit`, `asyncio.CancelledError`, a bare
`BaseException`. Each is that call's failure (`INTERNAL`), never the end of the caller's loop
nor of the other calls of its turn - save what is not the handler's own (`handlers_own`):

- a cancellation of the task the call runs in (the caller gave up, a deadline fired): it
  goes on as a cancellation;
- a `KeyboardInterrupt` where a real Ctrl-C raises one (the main thread, while SIGINT has
  Python's default handler): nothing tells the two apart there, and Ctrl-C must still stop
  the program. On a worker thread, or under a loop that handles SIGINT itself
  (`asyncio.run`, `toolgen serve`), a `KeyboardInterrupt` can only be the handler's.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


class Escaped(Exception):
    """A handler's `BaseException`, carried as an `Exception` from the thread it was raised
    on: so that it reaches the caller's loop as one call's failure, and is not judged again
    there (a `KeyboardInterrupt` from a worker thread is never a Ctrl-C)."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(type(exc).__name__)
        self.exc = exc


def handlers_own(exc: BaseException) -> bool:
    """Is `exc`, raised by user code during a call, that call's failure (True), or must it go
    on (False: a real cancellation, or a `KeyboardInterrupt` that may be a Ctrl-C)?"""
    if isinstance(exc, Exception):
        return True
    if isinstance(exc, asyncio.CancelledError):
        return not _cancelled()
    if isinstance(exc, KeyboardInterrupt):
        return not _ctrl_c_lands_here()
    return True  # SystemExit, GeneratorExit, a bare BaseException


def _cancelled() -> bool:
    """Is the running task being cancelled (by its caller, or by a deadline)?"""
    if asyncio._get_running_loop() is None:
        return False
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _ctrl_c_lands_here() -> bool:
    return (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )


def unwrapped(exc: BaseException) -> BaseException:
    """The exception the handler raised, `Escaped` or not."""
    return exc.exc if isinstance(exc, Escaped) else exc


async def _contained(coroutine: Coroutine[Any, Any, T]) -> T:
    try:
        return await coroutine
    except (SystemExit, KeyboardInterrupt) as exc:
        if not handlers_own(exc):
            raise
        raise Escaped(exc) from None


def task_factory(
    loop: asyncio.AbstractEventLoop,
    coroutine: Coroutine[Any, Any, Any] | Generator[Any, None, Any],
    **options: Any,
) -> asyncio.Task[Any]:
    """A task factory for the loops the runtime owns (`loop.set_task_factory`): asyncio lets a
    `SystemExit` or `KeyboardInterrupt` raised in any task - one a handler started, say - end
    the loop's run, and with it every call on the loop. Each task's coroutine is wrapped so
    that such an exception fails its task alone, as `Escaped`, reaching whoever awaits it;
    one that may be a real Ctrl-C (`handlers_own`) still ends the run."""
    if not asyncio.iscoroutine(coroutine) or isinstance(coroutine, Generator):
        return asyncio.Task(coroutine, loop=loop, **options)
    return asyncio.Task(_contained(coroutine), loop=loop, **options)
