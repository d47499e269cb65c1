"""Step 7, execute: call the handler with a timeout, turn what happens into a `ToolResult`,
retry what may be retried, and fall back when a fallback is given.

- `invoke`: one attempt. The arguments go through the handler's pydantic arguments schema
  (models, UUIDs, enums ...); async handlers are awaited, sync ones run in a worker thread (a
  sync handler that times out keeps its thread until it returns: threads cannot be stopped;
  `on_stuck` gets the future of that thread's end, so no retry starts beside it and its key
  is settled with what it returns or raises; `Toolbox` keeps a pool of its own for them, so
  the hop costs no more than it must; a tool's handlers take at most `Toolbox.occupy`'s share
  of threads, and a call beyond it is `UNAVAILABLE` at once). A sync handler's return value is
  checked on its thread, within the timeout. An async handler that held the loop past its
  timeout (the deadline cannot fire while it blocks) is `TIMEOUT`; what it returned goes to
  `on_stuck` as a thread's end would (it settles a keyed call's key). A coroutine that goes on
  `CANCEL_GRACE` seconds after its cancellation (it swallowed it) is closed (`_Bounded`), so
  that the timeout, or its caller's cancellation, ends the call. A timeout of None is none.
- `invoke_here`: the same attempt of a sync handler on the calling thread, for a call from
  synchronous code with no timeout to enforce (nothing then needs another thread).
  A `ToolError` gets the taxonomy its code has in the descriptor's `errors`; any other
  exception is `INTERNAL`, not retryable, its traceback logged under the trace id only
  (a `TimeoutError` the handler raised too: `TIMEOUT` is the runtime's own timeout only), and
  so is what it raises that is no `Exception` (`toolgen.runtime.escapes` says which of that
  goes on instead). The return value is dumped to JSON by pydantic and checked against the
  return schema; a value strict UTF-8 JSON cannot carry is `INTERNAL`.
- `execute` (and `execute_here`, its twin on the calling thread): attempts until one succeeds
  or its error is not retryable, at most `1 + max_retries`, and fewer where the error's code
  limits its own retries (`RETRY_LIMITS`: `TIMEOUT` once, `INTERNAL` twice), only when
  `retry` allows (idempotent tools and keyed calls): full-jitter exponential backoff
  (`backoff`), never shorter than the wait the error asks for (`retry_after`: its
  `retry_after_ms` or `retry_after_seconds`; one longer than `MAX_DELAY` is not waited for:
  the error is answered); within a keyed call's lease (`lease_s`) only: a retry whose wait
  could outlast the lease is not made (the error is answered instead), since another call may
  claim the key once it lapses. `Retries` decides, for both.
- `fall_back`: a fallback's data that passes the checks of a return replaces a final error
  (marked `fallback`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import copy
import dataclasses
import functools
import inspect
import json
import logging
import math
import os
import threading
import time
import types
import typing
from collections.abc import Awaitable, Callable, Generator, Mapping
from typing import Any

import pydantic
import pydantic_core
from jsonschema import Draft202012Validator

from toolgen._marker import ToolError
from toolgen.descriptor import ToolDescriptor
from toolgen.runtime.escapes import Escaped, handlers_own, unwrapped
from toolgen.runtime.handlers import Prepared
from toolgen.runtime.result import ToolResult, failure, internal_error, validation_error
from toolgen.runtime.steps.quick import plain
from toolgen.runtime.steps.validate import pydantic_problems
from toolgen.runtime.sync import run_sync
from toolgen.runtime.values import (
    MAX_RESULT_DEPTH,
    holds_lone_surrogate,
    surrogate,
    value_problems,
)

log = logging.getLogger("toolgen.runtime")

#: The first retry's longest wait and the longest of any, in seconds.
BASE_DELAY = 0.5
MAX_DELAY = 30.0

#: A fallback: (arguments, error object) -> data, plainly or awaited.
Fallback = Callable[[dict[str, Any], dict[str, Any]], Any]


#: Forks between this process and the first: a handler's child sees it change (cheaper to
#: read than to ask `os.getpid`, on every call of an async handler).
_forks = 0


def _forked() -> None:
    global _forks
    _forks += 1


os.register_at_fork(after_in_child=_forked)


def log_failure(trace_id: str, what: str, exc: BaseException | None = None) -> None:
    """Log a failure under its trace id, with its traceback (never to the model)."""
    log.error("[trace %s] %s", trace_id, what, exc_info=exc)


def tool_error(exc: ToolError, descriptor: ToolDescriptor, trace_id: str) -> ToolResult:
    """The error of a `ToolError`: the taxonomy of its code as the descriptor declares it.

    An undeclared code is still reported, as not retryable, HTTP 500 and `"undeclared": true`.
    Details (JSON-able, `retry_after_ms` say) are added; they never override the taxonomy.
    """
    code, message = exc.code, exc.message
    if not isinstance(code, str) or not isinstance(message, str):
        raise TypeError("a ToolError's code and message must be text")
    code, message = str.__str__(code), str.__str__(message)  # a subclass's methods never run
    details = pydantic_core.to_jsonable_python(exc.details, fallback=repr)
    json.dumps(details, allow_nan=False)  # ValueError: a value strict JSON cannot carry
    declared = next((e for e in descriptor.errors if e.code == code), None)
    body: dict[str, Any] = {"code": code, "message": message}
    if declared is None:
        body |= {"retryable": False, "http_status": 500, "recovery": None, "undeclared": True}
    else:
        body |= {
            "retryable": declared.retryable,
            "http_status": declared.http_status,
            "recovery": declared.recovery,
        }
    body["human_review"] = False
    body.update((key, value) for key, value in details.items() if key not in body)
    body["trace_id"] = trace_id
    for problem in value_problems(body, limit=1, text=True):  # a lone surrogate, a huge int
        raise ValueError(f"{problem['path']}: {problem['message']}")
    return ToolResult(descriptor.name, False, error=body, trace_id=trace_id)


class _Thread:
    """A sync handler's run on a worker thread: `give_up` after a timeout or a cancellation
    says whether it started (the future of its end, which carries what the run returned or
    raised: a keyed call's key is settled with it, `late`), and a run not yet started never
    starts. `ended` is done once the run ended or was given up before it started.

    What the handler raises that is no `Exception`, and a `StopIteration` (which a future
    refuses), reaches the caller's loop as `Escaped` (see `toolgen.runtime.escapes`); a child
    the handler forked that returns here ends at once, as it has no loop to answer to (it
    would wait on the pool's queue for ever)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.state = "queued"
        self.ended: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.raised: BaseException | None = None
        self.forks = _forks

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        with self.lock:
            if self.state == "given up":
                return None
            self.state = "running"
        try:
            value = fn(*args)
        except BaseException as exc:
            if _forks != self.forks:
                os._exit(0)
            # on a worker thread what is no Exception is never a Ctrl-C nor a cancellation
            own = isinstance(exc, Exception) and not isinstance(exc, StopIteration)
            failed = exc if own else Escaped(exc)
            self.raised = failed
            self.ended.set_exception(failed)
            if own:
                raise
            raise failed from None
        if _forks != self.forks:
            os._exit(0)
        self.ended.set_result(value)
        return value

    def give_up(self) -> concurrent.futures.Future[Any] | None:
        with self.lock:
            if self.state == "queued":
                self.state = "given up"
                self.ended.set_result(None)
                return None
        return self.ended


def _timed_out(
    descriptor: ToolDescriptor, timeout: float, trace_id: str, held: bool = False
) -> ToolResult:
    """`TIMEOUT` (with the taxonomy the descriptor declares for it, if it does), logged: the
    deadline fired, or (`held`) could not, the handler's coroutine holding the loop past it
    (`time.sleep` in an `async def`, say), every other call on the loop waiting with it."""
    name = descriptor.name
    if held:
        log_failure(
            trace_id,
            f"tool {name} held the event loop past its timeout of {timeout:g} seconds "
            "(blocking code in an async handler: run it with asyncio.to_thread); "
            "its result is dropped",
        )
    else:
        log_failure(trace_id, f"tool {name} timed out after {timeout:g} seconds")
    declared = next((e for e in descriptor.errors if e.code == "TIMEOUT"), None)
    extra: dict[str, Any] = {}
    if declared is not None:
        extra = {"retryable": declared.retryable, "http_status": declared.http_status}
    return failure(
        descriptor.name,
        trace_id,
        "TIMEOUT",
        f"{descriptor.name} did not finish within {timeout:g} seconds",
        **extra,
    )


def handler_arguments(
    descriptor: ToolDescriptor,
    prepared: Prepared,
    arguments: dict[str, Any],
    trace_id: str,
    proven: bool = False,
) -> tuple[tuple[Any, ...], dict[str, Any]] | ToolResult:
    """The handler's positional and keyword arguments, through its pydantic arguments schema
    (models, UUIDs, enums ...); a `VALIDATION_ERROR` when its own types refuse them, or the
    error of a validator of those types that failed. Arguments the quick check `proven`
    valid go to a `direct` handler as they are (pydantic would return them unchanged)."""
    if proven and prepared.direct:
        return (), arguments
    try:
        return typing.cast(
            "tuple[tuple[Any, ...], dict[str, Any]]",
            prepared.arguments.validate_python(arguments),
        )
    except pydantic.ValidationError as exc:
        return validation_error(descriptor.name, trace_id, pydantic_problems(exc))
    except BaseException as exc:  # a validator of the handler's own types failed
        if not handlers_own(exc):
            raise
        return raised(descriptor, exc, trace_id)


async def invoke(
    descriptor: ToolDescriptor,
    prepared: Prepared,
    arguments: dict[str, Any],
    trace_id: str,
    timeout: float | None,
    returns: Draft202012Validator | None = None,
    quick_returns: Callable[[Any], bool] | None = None,
    workers: concurrent.futures.Executor | None = None,
    on_stuck: Callable[[concurrent.futures.Future[Any]], None] | None = None,
    occupy: Callable[[str], Callable[[], None] | None] | None = None,
) -> ToolResult:
    """One attempt at calling the handler (see the module's text); a sync handler runs on
    `workers` (the loop's default executor when None), in a copy of the caller's context as
    `asyncio.to_thread` would; when the attempt ends (times out, is cancelled) without the
    handler's outcome after that thread started, `on_stuck` receives the future of the
    thread's end (done already, when it ended meanwhile; `late` reads it). `occupy(name)`
    takes one of the tool's threads (`Toolbox.occupy`): its release, or None when the tool
    holds all it may (then the attempt is `UNAVAILABLE` at once)."""
    name = descriptor.name
    given = handler_arguments(descriptor, prepared, arguments, trace_id)
    if isinstance(given, ToolResult):
        return given
    args, kwargs = given
    deadline = asyncio.timeout(timeout)
    began = 0.0  # when the handler's coroutine began, to see a loop it held
    try:
        async with deadline:
            if prepared.is_async:
                began, forks = time.monotonic(), _forks
                try:
                    value = await _bounded(prepared.fn(*args, **kwargs), trace_id)
                finally:
                    if _forks != forks:  # a child it forked: not a second caller's loop
                        os._exit(0)
            else:
                thread = _Thread()
                if occupy is not None:
                    release = occupy(name)
                    if release is None:
                        return _busy(descriptor, trace_id)
                    thread.ended.add_done_callback(lambda _: release())

                def run() -> Any:
                    # the return value is checked on the handler's thread too, within the
                    # timeout: a huge value costs that thread, not the caller's loop
                    found = prepared.fn(*args, **kwargs)
                    if _forks != thread.forks:  # a child it forked ends here (`_Thread`)
                        os._exit(0)
                    if inspect.isawaitable(found):  # awaited on the caller's loop
                        return _Awaitable(found)
                    return answer(name, prepared, found, trace_id, returns, quick_returns)

                context = contextvars.copy_context()
                loop = asyncio.get_running_loop()
                try:
                    value = await loop.run_in_executor(workers, thread.run, context.run, run)
                except BaseException as exc:
                    # ended without the handler's outcome (a timeout, a cancellation): the
                    # thread may run on, or have ended meanwhile with what settles the key
                    stuck = None if exc is thread.raised else thread.give_up()
                    if stuck is not None and on_stuck is not None:
                        on_stuck(stuck)
                    raise
                if not isinstance(value, _Awaitable):
                    return typing.cast(ToolResult, value)
                began = time.monotonic()
                value = await _Bounded(value.awaitable, trace_id)
    except TimeoutError as exc:
        if timeout is None or not deadline.expired():  # the handler's own (a socket's, say)
            return raised(descriptor, exc, trace_id)
        return _timed_out(descriptor, timeout, trace_id)
    except BaseException as exc:
        if not handlers_own(exc):
            raise
        return raised(descriptor, exc, trace_id)
    if began and timeout is not None and time.monotonic() - began > timeout:
        # the deadline could not fire: the coroutine held the loop
        timed_out = _timed_out(descriptor, timeout, trace_id, held=True)
        if on_stuck is not None:
            # it ran to its end all the same (or swallowed its cancellation and returned):
            # what it did settles a keyed call's key, as a timed-out thread's end does, and
            # no retry runs it again beside what it did (`Call._outlived`)
            on_stuck(_ended(answer(name, prepared, value, trace_id, returns, quick_returns)))
        return timed_out
    return answer(name, prepared, value, trace_id, returns, quick_returns)


#: Seconds a handler's coroutine has to end once cancelled (its deadline fired, or its
#: caller gave up); one that goes on past them is closed, and the cancellation goes on.
CANCEL_GRACE = 1.0


def _bounded(awaitable: Awaitable[Any], trace_id: str) -> Awaitable[Any]:
    """`_Bounded(awaitable)`, or for a coroutine that ends at its first step (most handlers
    that await nothing slow) what it returned, ready: `_Bounded` costs each call a
    generator."""
    if type(awaitable) is not types.CoroutineType:
        return _Bounded(awaitable, trace_id)
    try:
        first = awaitable.send(None)
    except StopIteration as stop:
        return _Ready(stop.value)
    return _Bounded(awaitable, trace_id, first)


class _Ready:
    """An awaitable that is its value at once."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, Any, Any]:
        return self.value
        yield  # a generator, never resumed


#: `_Bounded`'s first step not taken yet
_UNSTARTED: Any = object()


class _Bounded:
    """`await awaitable`, as a coroutine's `await` runs it (on the caller's task, step by step,
    what it yields forwarded), save that once cancelled it has `CANCEL_GRACE` seconds to end:
    awaited plainly, a coroutine that swallows its cancellation (`except CancelledError:
    pass` in a loop, say) held its call - and every other call of the turn - for good. Past
    the grace it is closed (what it awaits cancelled) and the cancellation goes on: its
    deadline's `TIMEOUT`, its caller's cancellation."""

    __slots__ = ("awaitable", "first", "trace_id")

    def __init__(self, awaitable: Awaitable[Any], trace_id: str, first: Any = _UNSTARTED) -> None:
        # `first`: what a coroutine (`awaitable` itself) yielded at the step `_bounded` took
        self.awaitable, self.trace_id, self.first = awaitable, trace_id, first

    def __await__(self) -> Generator[Any, Any, Any]:
        started = self.first is not _UNSTARTED
        steps: Any = self.awaitable if started else self.awaitable.__await__()
        loop = asyncio.get_running_loop()
        sent: Any = None
        thrown: BaseException | None = None
        cancelled: asyncio.CancelledError | None = None  # the first cancellation thrown in
        ends = 0.0  # when the grace after it ends (loop time)
        while True:
            if started:
                yielded, started = self.first, False
            else:
                try:
                    yielded = steps.send(sent) if thrown is None else steps.throw(thrown)
                except StopIteration as stop:
                    return stop.value
            sent = thrown = None
            if cancelled is not None and loop.time() >= ends:
                self._close(steps, yielded)
                raise cancelled
            if cancelled is not None and asyncio.isfuture(yielded):
                # it went on after its cancellation: what it awaits, or the grace's end
                woken: asyncio.Future[None] = loop.create_future()

                def wake(_: Any = None, woken: asyncio.Future[None] = woken) -> None:
                    if not woken.done():
                        woken.set_result(None)

                timer = loop.call_at(ends, wake)
                yielded.add_done_callback(wake)
                try:
                    yield from woken
                except BaseException as exc:  # cancelled again, say: passed on to it
                    thrown = exc
                finally:
                    timer.cancel()
                    yielded.remove_done_callback(wake)
                if thrown is None and not yielded.done():  # the grace ended first
                    self._close(steps, yielded)
                    raise cancelled
                continue
            try:
                sent = yield yielded
            except GeneratorExit:  # closed: as `yield from` does
                steps.close()
                raise
            except BaseException as exc:
                if isinstance(exc, asyncio.CancelledError) and cancelled is None:
                    cancelled, ends = exc, loop.time() + CANCEL_GRACE
                thrown = exc

    def _close(self, steps: Any, awaited: Any) -> None:
        log_failure(
            self.trace_id,
            f"a handler's coroutine went on {CANCEL_GRACE:g} seconds after it was cancelled; "
            "closed (a coroutine must not swallow asyncio.CancelledError)",
        )
        if asyncio.isfuture(awaited):
            awaited.cancel()
        try:
            steps.close()
        except BaseException as exc:  # it ignored GeneratorExit too: it is never resumed
            if not handlers_own(exc):
                raise


async def late(
    ended: concurrent.futures.Future[Any],
    descriptor: ToolDescriptor,
    trace_id: str,
    result_of: Callable[[Any], ToolResult],
    timeout: float | None = None,
) -> ToolResult | None:
    """The result of what a sync handler's thread that outlived its attempt ran to (`ended`,
    from `_Thread`): the result made on that thread, or `result_of` the value an awaitable it
    returned gives (awaited on a loop of its own, as the attempt's loop may be gone, within
    `timeout` as on time), or the error of what it raised; None when it never ran, or was
    stopped by what is no error."""
    try:
        value = ended.result()
        if isinstance(value, ToolResult) or value is None:
            return value
        if isinstance(value, _Awaitable):
            # bounded: an awaitable that never ends held the key (renewed) and a thread for good
            awaited = functools.partial(_awaited, value.awaitable, timeout, trace_id)
            value = await asyncio.to_thread(run_sync, awaited)
    except Exception as exc:  # the handler's (an `Escaped` one's too)
        return raised(descriptor, exc, trace_id)
    except BaseException:
        return None
    return result_of(value)


class _Awaitable:
    """What a sync handler returned that is to be awaited (on the caller's loop)."""

    __slots__ = ("awaitable",)

    def __init__(self, awaitable: Awaitable[Any]) -> None:
        self.awaitable = awaitable


def _busy(descriptor: ToolDescriptor, trace_id: str) -> ToolResult:
    """`UNAVAILABLE`: the tool's handlers hold all the threads it may take (`Toolbox.occupy`)."""
    name = descriptor.name
    log.warning("[trace %s] tool %s has as many calls running as it may; refused", trace_id, name)
    return failure(
        name,
        trace_id,
        "UNAVAILABLE",
        f"{name} has too many calls running; try again shortly",
        retry_after_ms=1000,
    )


#: One attempt on the calling thread: (arguments, trace id, proven) -> result.
#: An attempt from the calling thread (`invoke_here`, `Timed`): (arguments, trace id,
#: proven valid, the ends of the call's threads that outlived their attempts) -> its result.
Attempt = Callable[[dict[str, Any], str, bool, list[concurrent.futures.Future[Any]]], ToolResult]


def invoke_here(
    descriptor: ToolDescriptor,
    prepared: Prepared,
    returns: Draft202012Validator | None = None,
    quick_returns: Callable[[Any], bool] | None = None,
) -> Attempt:
    """The attempt of a sync handler on this thread, without a timeout (see the module's
    text), made once per tool: `attempt(arguments, trace_id, proven, stuck)` (no thread
    outlives it: `stuck` stays empty). Arguments the quick
    check `proven` valid go to a `direct` handler as they are; an awaitable the handler
    returns is run to its end on this thread's loop. What it needs is bound here, as it runs
    on every call of the short way (`toolgen.runtime.call.Lane`)."""
    name, fn, exact, direct = descriptor.name, prepared.fn, prepared.exact, prepared.direct
    # a value of the declared str, int, float or bool that the return schema's own check of
    # a scalar proves (`quick_value`) is its own JSON, accepted: answered without `answer`
    scalar = quick_returns if exact is not None else None

    def attempt(
        arguments: dict[str, Any],
        trace_id: str,
        proven: bool,
        stuck: list[concurrent.futures.Future[Any]],
    ) -> ToolResult:
        if proven and direct:  # `handler_arguments`' own shortcut, inline: every short call's
            args: tuple[Any, ...] = ()
            kwargs = arguments
        else:
            given = handler_arguments(descriptor, prepared, arguments, trace_id)
            if isinstance(given, ToolResult):
                return given
            args, kwargs = given
        try:
            value = fn(*args, **kwargs)
            if type(value) is exact:
                if scalar is not None and scalar(value):
                    return ToolResult(name, True, value, None, trace_id)
            elif inspect.isawaitable(value):
                value = run_sync(functools.partial(_awaited, value))
        except BaseException as exc:
            if not handlers_own(exc):
                raise
            return raised(descriptor, exc, trace_id)
        return answer(name, prepared, value, trace_id, returns, quick_returns)

    return attempt


class Timed:
    """`invoke`'s attempt of a sync handler with a timeout, for a call from synchronous code
    with no event loop: `attempt(arguments, trace_id, proven, stuck)`, or its two halves,
    `start` (the handler set going) and `wait`, so that a turn's calls run at once. The
    handler runs on a thread of `box.workers()` as on the whole way (the tool's share of
    threads taken with `box.occupy`, its return value checked there, within the timeout),
    while the calling thread waits for it on the future itself: no event loop between them,
    whose wake-up costs more than the call. A timed-out handler's thread goes on, its end
    appended to `stuck` (the call's: no retry starts while it runs) and held by `box.held`;
    the answer is `TIMEOUT`, as on the whole way. An awaitable the handler returns is
    awaited on this thread's loop within what is left of the timeout. Made once per tool,
    as it runs on every call of the short way (`toolgen.runtime.call.Lane`)."""

    __slots__ = ("box", "descriptor", "prepared", "quick_returns", "returns", "timeout")

    def __init__(
        self,
        descriptor: ToolDescriptor,
        prepared: Prepared,
        timeout: float,
        box: Workers,
        returns: Draft202012Validator | None = None,
        quick_returns: Callable[[Any], bool] | None = None,
    ) -> None:
        self.descriptor, self.prepared, self.timeout, self.box = descriptor, prepared, timeout, box
        self.returns, self.quick_returns = returns, quick_returns

    def __call__(
        self,
        arguments: dict[str, Any],
        trace_id: str,
        proven: bool,
        stuck: list[concurrent.futures.Future[Any]],
    ) -> ToolResult:
        started = self.start(arguments, trace_id, proven)
        return started if isinstance(started, ToolResult) else self.wait(started, stuck)

    def start(self, arguments: dict[str, Any], trace_id: str, proven: bool) -> ToolResult | Started:
        """The handler set going on a worker thread, or the answer that ends the attempt
        before it (its arguments refused by its own types, every thread it may take busy)."""
        descriptor, prepared = self.descriptor, self.prepared
        name = descriptor.name
        given = handler_arguments(descriptor, prepared, arguments, trace_id, proven)
        if isinstance(given, ToolResult):
            return given
        args, kwargs = given
        pool = self.box.workers()
        if pool is None:  # on a handler's thread: `Toolbox.call` takes the whole way
            raise RuntimeError("a timed call on a handler's thread")
        began = time.monotonic()
        thread = _Thread()
        release = self.box.occupy(name)
        if release is None:
            return _busy(descriptor, trace_id)
        thread.ended.add_done_callback(lambda _: release())
        fn, returns, quick_returns = prepared.fn, self.returns, self.quick_returns

        def run() -> Any:
            found = fn(*args, **kwargs)
            if _forks != thread.forks:  # a child it forked ends here (`_Thread`)
                os._exit(0)
            if inspect.isawaitable(found):  # awaited on the caller's thread (`wait`)
                return _Awaitable(found)
            return answer(name, prepared, found, trace_id, returns, quick_returns)

        try:
            future = pool.submit(thread.run, contextvars.copy_context().run, run)
        except BaseException:  # a pool shut down meanwhile, say: the run never starts, and
            thread.give_up()  # its end frees the tool's thread, as on the whole way
            raise
        return Started(thread, future, pool, began, trace_id)

    def abandon(self, started: Started) -> None:
        """A started attempt whose answer will never be waited for (its turn ended by a
        Ctrl-C): a run not started yet never starts; a running one is held as a timed-out
        one is, so that later calls do not wait for its thread."""
        ended = started.thread.give_up()
        if ended is not None and not ended.done():
            self.box.held(started.pool, ended)

    def wait(self, started: Started, stuck: list[concurrent.futures.Future[Any]]) -> ToolResult:
        """The attempt's answer, once its handler ended or its timeout did."""
        descriptor, prepared, timeout = self.descriptor, self.prepared, self.timeout
        name, trace_id, thread = descriptor.name, started.trace_id, started.thread
        left = max(timeout - (time.monotonic() - started.began), 0.0)
        try:
            value = started.future.result(left)
        except BaseException as exc:
            if exc is thread.raised:  # the handler's own (a `TimeoutError` too)
                if not handlers_own(exc):
                    raise
                return raised(descriptor, exc, trace_id)
            ended = thread.give_up()
            if ended is not None:
                stuck.append(ended)
                self.box.held(started.pool, ended)
            if not isinstance(exc, concurrent.futures.TimeoutError):
                raise  # a Ctrl-C while waiting, say
            return _timed_out(descriptor, timeout, trace_id)
        if not isinstance(value, _Awaitable):
            return typing.cast(ToolResult, value)
        left = max(timeout - (time.monotonic() - started.began), 0.0)
        try:
            how, found = run_sync(
                functools.partial(_within, value.awaitable, left, timeout, trace_id)
            )
        except BaseException as exc:
            if not handlers_own(exc):
                raise
            return raised(descriptor, exc, trace_id)
        returns, quick_returns = self.returns, self.quick_returns
        if how == "value":
            return answer(name, prepared, found, trace_id, returns, quick_returns)
        timed_out = _timed_out(descriptor, timeout, trace_id, held=how == "held")
        if how == "held":  # as `invoke`: what it did settles, and no retry runs beside it
            stuck.append(_ended(answer(name, prepared, found, trace_id, returns, quick_returns)))
        return timed_out


def _ended(result: ToolResult) -> concurrent.futures.Future[Any]:
    """The end of a run that outlived its attempt, ready with what it gave."""
    ended: concurrent.futures.Future[Any] = concurrent.futures.Future()
    ended.set_result(result)
    return ended


@dataclasses.dataclass(slots=True)
class Started:
    """A handler `Timed.start` set going: its run, the future of its return, the pool it
    runs in, when it began (`time.monotonic`) and the call's trace id."""

    thread: _Thread
    future: concurrent.futures.Future[Any]
    pool: concurrent.futures.Executor
    began: float
    trace_id: str


async def _within(
    awaitable: Awaitable[Any], left: float, timeout: float, trace_id: str
) -> tuple[str, Any]:
    """What `invoke` does with an awaitable a sync handler returned, within what is `left`
    of the `timeout`: ("value", what it gave), ("held", what it gave having held the loop
    past the timeout), or ("timed out", None)."""
    deadline = asyncio.timeout(left)
    began = time.monotonic()
    try:
        async with deadline:
            value = await _awaited(awaitable, None, trace_id)
    except TimeoutError:
        if deadline.expired():
            return "timed out", None
        raise
    if time.monotonic() - began > timeout:
        return "held", value
    return "value", value


class Workers(typing.Protocol):
    """What `Timed` needs of the toolbox: its threads, and their shares."""

    def workers(self) -> concurrent.futures.ThreadPoolExecutor | None: ...

    def occupy(self, name: str) -> Callable[[], None] | None: ...

    def held(
        self, pool: concurrent.futures.Executor | None, ended: concurrent.futures.Future[Any]
    ) -> None: ...


async def _awaited(value: Awaitable[Any], timeout: float | None = None, trace_id: str = "") -> Any:
    async with asyncio.timeout(timeout):  # its TimeoutError is the late awaitable's failure
        try:
            return await _Bounded(value, trace_id)  # one that swallows the timeout's cancel too
        except Exception:
            raise
        except BaseException as exc:  # as an Exception, so that the task does not stop the loop
            if not handlers_own(exc):
                raise
            raise Escaped(exc) from None


def raised(descriptor: ToolDescriptor, exc: BaseException, trace_id: str) -> ToolResult:
    """The error of an exception the handler raised: a `ToolError` its declared taxonomy,
    any other `INTERNAL` (logged with its traceback, never told to the model)."""
    name = descriptor.name
    exc = unwrapped(exc)
    if isinstance(exc, ToolError):
        try:
            return tool_error(exc, descriptor, trace_id)
        except BaseException as inner:  # no text, or details JSON cannot carry
            if not handlers_own(inner):
                raise
            log_failure(trace_id, f"tool {name} failed", inner)
            return internal_error(name, trace_id)
    log_failure(trace_id, f"tool {name} raised", exc)
    return internal_error(name, trace_id)


def answer(
    name: str,
    prepared: Prepared,
    value: Any,
    trace_id: str,
    returns: Draft202012Validator | None,
    quick_returns: Callable[[Any], bool] | None = None,
    who: str | None = None,
) -> ToolResult:
    """The success result of a handler's return value, or `INTERNAL` when strict JSON cannot
    carry it (in UTF-8: no lone surrogate) or the return schema rejects it. `quick_returns`
    (`steps.quick.quick_value` of the return schema) proves, in one walk of the JSON data
    written, that it is safe and accepted: then neither the walks below nor jsonschema run.
    Whatever it does not prove takes them, and they decide and word the problem, as before.
    `who` names what returned it in the log (else the tool)."""
    try:
        exact = type(value) is prepared.exact  # a str, int, float or bool where one is declared
        # a str that is ASCII holds no surrogate; one that is not is searched
        text = type(value) is not str or value.isascii() or not surrogate(value)
        if exact and text and quick_returns is not None and quick_returns(value):
            return ToolResult(name, True, value, None, trace_id)  # its own JSON, and accepted
        if exact and text and plain(value):
            data = value
        else:
            written = prepared.written
            if quick_returns is not None and written is not None:
                # the JSON data as it is sent, NaN and the infinities kept (where the dump
                # would write null) so that the proof's walk sees them; a value it cannot
                # dump (a name with a lone surrogate, a cycle) is worded below
                try:
                    found_data = written(value)
                except BaseException as exc:
                    if not handlers_own(exc):
                        raise
                else:
                    if quick_returns(found_data):
                        return ToolResult(name, True, found_data, None, trace_id)
            # the value as the handler made it (JSON data has a NaN under `Any` as null, a
            # key's lone surrogate replaced), then the text as it is sent (a path or an enum
            # becomes a string only there)
            found = value_problems(prepared.plain(value), MAX_RESULT_DEPTH, limit=1, text=True)
            if not found:
                data = prepared.dump(value)
                if holds_lone_surrogate(data):
                    found = value_problems(data, MAX_RESULT_DEPTH, limit=1, text=True)
            for problem in found:
                what = f"{problem['path'] or '/'}: {problem['message']}"
                log_failure(
                    trace_id, f"{who or f'tool {name}'} returned a value JSON cannot carry: {what}"
                )
                return internal_error(name, trace_id)
        if returns is not None and not (quick_returns is not None and quick_returns(data)):
            returns.validate(data)
    except BaseException as exc:  # a serializer or `__eq__` of the handler's types, say
        if not handlers_own(exc):
            raise
        log_failure(
            trace_id, f"{who or f'tool {name}'} returned a value its return schema rejects", exc
        )
        return internal_error(name, trace_id)
    return ToolResult(name, True, data, None, trace_id)


#: Retries a standard code's own recovery allows (DESIGN §3): `TIMEOUT` "single retry, then
#: abort"; `INTERNAL` "exponential backoff, max 3 attempts" (the first and two retries). The
#: others name no count (`RATE_LIMITED` "back off using Retry-After", `UNAVAILABLE` nothing,
#: a tool's own codes): `max_retries` alone bounds them.
RETRY_LIMITS: dict[str, int] = {"TIMEOUT": 1, "INTERNAL": 2}


def retry_limit(code: Any, max_retries: int) -> int:
    """The retries an error of `code` gets: the smaller of the configured `max_retries` and
    the code's own limit. Both are ceilings: the configuration bounds what a call may cost,
    the code says when more attempts stop helping (a second timeout means the next would
    most likely time out too, after a whole timeout more), so neither may raise the other.
    Counted over the call's attempts, whatever codes the earlier ones failed with."""
    own = RETRY_LIMITS.get(code) if type(code) is str else None
    return max_retries if own is None else min(max_retries, own)


#: An error's own wait before a retry, in its field's unit per second.
_RETRY_AFTER = (("retry_after_ms", 1000.0), ("retry_after_seconds", 1.0))


def retry_after(error: Mapping[str, Any]) -> float | None:
    """The wait `error` asks for before a retry, in seconds: its `retry_after_ms`, or its
    `retry_after_seconds` (HTTP Retry-After's own unit, which a handler may pass on as it
    came), the longer when it gives both (each says "not before then", so only the longer
    wait keeps both); `math.inf` for one longer than `MAX_DELAY`; None when it gives none (a
    wait that is not a positive number is none)."""
    found: float | None = None
    for field, per_second in _RETRY_AFTER:
        value = error.get(field)
        if not isinstance(value, int | float) or isinstance(value, bool) or not value > 0:
            continue
        # compared before dividing: a huge int is no float
        wait = math.inf if value > MAX_DELAY * per_second else value / per_second
        found = wait if found is None else max(found, wait)
    return found


def backoff(attempt: int, random: Callable[[], float]) -> float:
    """Full jitter: a random wait up to `BASE_DELAY * 2**attempt` (at most `MAX_DELAY`)."""
    return random() * min(MAX_DELAY, BASE_DELAY * 2.0**attempt)


class Retries:
    """When to retry (see `execute`): `wait_after(result)` is the wait before the next
    attempt, or None when `result` is the answer. Shared by `execute` and `execute_here`.
    `max_retries` bounds the retries of any error, `RETRY_LIMITS` those of some codes.

    With `lease_s` (a keyed call's lease, begun just before), a retry is made only if the
    call would still end within the lease were every attempt to run to its `timeout`; none
    is made while `halt()` says so (a timed-out attempt's thread still runs)."""

    def __init__(
        self,
        *,
        retry: bool,
        max_retries: int,
        random: Callable[[], float] | None = None,
        lease_s: float | None = None,
        timeout: float = 0.0,
        halt: Callable[[], bool] | None = None,
    ) -> None:
        import random as _random

        self.retry, self.max_retries = retry, max_retries
        self.jitter = random or _random.random
        self.lease_s, self.timeout, self.halt = lease_s, timeout, halt
        self.attempts = 0
        self.waited = 0.0
        self.started = time.monotonic()

    def wait_after(self, result: ToolResult) -> float | None:
        self.attempts += 1
        error = result.error
        if result.ok or error is None or not error.get("retryable"):
            return None
        limit = retry_limit(error.get("code"), self.max_retries)
        error.setdefault("max_retries", limit)  # what the caller may still try, by the same rule
        halt = self.halt
        if not self.retry or self.attempts > limit or (halt is not None and halt()):
            return None
        delay = backoff(self.attempts - 1, self.jitter)
        after = retry_after(error)
        if after is not None:
            # a wait longer than the runtime's own longest is not made here: the error is
            # answered, with its retry_after_ms or _seconds, for the caller to honour
            if after > MAX_DELAY:
                return None
            delay = max(delay, after)
        if self.lease_s is not None:
            # the worst case (injected sleeps pass no real time, so the sum is counted too)
            spent = max(self.attempts * self.timeout + self.waited, time.monotonic() - self.started)
            if spent + delay + self.timeout >= self.lease_s:
                return None
        self.waited += delay
        return delay


async def execute(
    attempt: Callable[[], Awaitable[ToolResult]],
    plan: Retries,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> tuple[ToolResult, int]:
    """Run `attempt` until it succeeds or `plan` retries it no more; the last result and how
    many attempts were made. A retryable error says `max_retries` (its code's, `retry_limit`)."""
    result = await attempt()
    while (delay := plan.wait_after(result)) is not None:
        await sleep(delay)
        result = await attempt()
    return result, plan.attempts


def execute_here(
    attempt: Callable[[], ToolResult],
    first: ToolResult,
    plan: Retries,
    sleep: Callable[[float], None],
) -> tuple[ToolResult, int]:
    """`execute` on this thread, after a `first` attempt already made: every attempt runs
    outside any event loop (a handler may run one of its own)."""
    result = first
    while (delay := plan.wait_after(result)) is not None:
        sleep(delay)
        result = attempt()
    return result, plan.attempts


async def fall_back(
    fallbacks: Mapping[str, Fallback],
    arguments: dict[str, Any],
    result: ToolResult,
    accept: Callable[[Any], ToolResult] | None = None,
) -> ToolResult:
    """`result`, or, when it is an error and the tool has a fallback, the fallback's data
    (its own failure is logged and the original error stands). The fallback gets copies of
    the arguments and the error (what it changes is its own), and its data passes `accept`
    (`answer` with the tool's return schema: the checks of a handler's return) or the
    original error stands."""
    fallback = fallbacks.get(result.tool)
    if result.ok or fallback is None or result.error is None:
        return result
    try:
        data = fallback(copy.deepcopy(arguments), copy.deepcopy(result.error))
        if inspect.isawaitable(data):
            data = await data
        if accept is None:
            data = pydantic_core.to_jsonable_python(data)
            for problem in value_problems(data, limit=1, text=True):
                raise ValueError(f"{problem['path'] or '/'}: {problem['message']}")
        else:
            checked = accept(data)
            if not checked.ok:  # logged by `accept`
                return result
            data = checked.data
    except BaseException as exc:
        if not handlers_own(exc):
            raise
        log_failure(result.trace_id, f"the fallback of {result.tool} failed", exc)
        return result
    return ToolResult(result.tool, True, data, trace_id=result.trace_id, fallback=True)
