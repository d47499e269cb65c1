"""Calls from synchronous code: one kept event loop per thread, cleaned up like `asyncio.run`."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import os
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from toolgen.runtime import Toolbox
from toolgen.runtime import toolbox as toolbox_module
from toolgen.runtime.sync import run_sync


async def running_loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def test_a_thread_runs_its_calls_on_one_loop_of_its_own() -> None:
    first = run_sync(running_loop)
    assert run_sync(running_loop) is first and not first.is_closed()
    elsewhere: list[asyncio.AbstractEventLoop] = []
    thread = threading.Thread(target=lambda: elsewhere.append(run_sync(running_loop)))
    thread.start()
    thread.join()
    assert elsewhere and elsewhere[0] is not first


def test_the_kept_loop_is_not_made_the_threads_current_loop() -> None:
    def current() -> asyncio.AbstractEventLoop | None:
        try:
            return asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            return None

    found: list[Any] = []

    def work() -> None:
        kept = run_sync(running_loop)
        found.append(current() is kept)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert found == [False]


def test_a_threads_loop_is_closed_when_the_thread_ends() -> None:
    found: list[asyncio.AbstractEventLoop] = []
    thread = threading.Thread(target=lambda: found.append(run_sync(running_loop)))
    thread.start()
    thread.join()
    del thread
    gc.collect()
    assert found[0].is_closed()


def test_what_a_call_leaves_running_is_cancelled_at_its_end() -> None:
    cancelled = threading.Event()

    async def forever() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            cancelled.set()

    async def leave_a_task() -> int:
        asyncio.get_running_loop().create_task(forever())
        await asyncio.sleep(0)  # the task starts
        return 1

    assert run_sync(leave_a_task) == 1
    assert cancelled.is_set()
    assert asyncio.all_tasks(run_sync(running_loop)) == set()


def test_inside_a_running_loop_a_call_runs_on_another_threads_loop() -> None:
    async def main() -> tuple[asyncio.AbstractEventLoop, asyncio.AbstractEventLoop]:
        return asyncio.get_running_loop(), run_sync(running_loop)

    outer, inner = asyncio.run(main())
    assert inner is not outer and inner is not run_sync(running_loop)


def test_a_sync_call_answers_a_timeout_while_the_handler_still_runs(
    make_box: Callable[..., Toolbox],
) -> None:
    """The loop is not shut down after each call, so the answer does not wait for the worker
    thread that a timed-out sync handler keeps."""
    release, finished = threading.Event(), threading.Event()

    def slow(seconds: float) -> str:
        release.wait(20)
        finished.set()
        return "done"

    box = make_box(handlers={"slow": slow}, timeout={"slow": 0.01}, max_retries=0)
    try:
        result = box.call("slow", {"seconds": 1})
        assert result.error is not None and result.error["code"] == "TIMEOUT"
        assert not finished.is_set()
    finally:
        release.set()
    assert finished.wait(60)
    assert box.call("slow", {"seconds": 1}).data == "done"  # the kept loop goes on


REQUEST: contextvars.ContextVar[str] = contextvars.ContextVar("request", default="none")


def test_sync_handlers_run_on_the_toolboxs_threads_in_the_callers_context(
    make_box: Callable[..., Toolbox],
) -> None:
    seen: list[tuple[str, str]] = []

    def lookup(q: str, limit: int = 3) -> dict[str, object]:
        seen.append((threading.current_thread().name, REQUEST.get()))
        return {"q": q}

    box = make_box(handlers={"lookup": lookup})

    async def calls() -> None:
        REQUEST.set("r-1")
        for _ in range(3):
            assert (await box.acall("lookup", {"q": "x"})).ok

    asyncio.run(calls())
    assert box.call("lookup", {"q": "y"}).ok  # another loop, the same threads
    assert [name.startswith("toolgen-handler") for name, _ in seen] == [True] * 4
    assert [request for _, request in seen] == ["r-1"] * 3 + ["none"]
    asyncio.run(box.aclose())
    assert box.call("lookup", {"q": "z"}).ok  # closed, then called again: new threads


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_calls_on_a_loop_and_threads_of_its_own(
    make_box: Callable[..., Toolbox],
) -> None:
    """The parent's kept loop and handler threads are of no use in a child (its threads are
    not there; its loop's epoll instance is the parent's): the child starts its own, and the
    parent's go on working."""

    def lookup(q: str, limit: int = 3) -> dict[str, object]:
        return {"q": q}

    box = make_box(handlers={"lookup": lookup}, timeout=5, max_retries=0)
    assert box.call("lookup", {"q": "parent"}).ok  # the loop and a handler thread exist
    parents = run_sync(running_loop)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
        pid = os.fork()
    if pid == 0:  # the child: exit 0 only when the call answers in time
        code = 1
        try:
            result = box.call("lookup", {"q": "child"})
            fresh = run_sync(running_loop) is not parents
            code = 0 if fresh and result.ok and result.data == {"q": "child"} else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert box.call("lookup", {"q": "again"}).data == {"q": "again"}
    assert run_sync(running_loop) is parents


def test_a_handler_that_calls_a_tool_again_never_waits_for_the_pool_it_fills(
    make_box: Callable[..., Toolbox], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one pool thread, the calling handler holds it: the nested call's sync handler runs
    elsewhere (its own loop's default executor) instead of queueing until it times out."""
    monkeypatch.setattr(toolbox_module, "WORKERS", 1)
    boxes: list[Toolbox] = []

    def fetch_quote(symbol: str) -> float:
        return 2.5

    def lookup(q: str, limit: int = 3) -> dict[str, object]:
        inner = boxes[0].call("fetch_quote", {"symbol": q})
        return {"q": q, "inner": inner.data if inner.ok else inner.error}

    box = make_box(
        handlers={"lookup": lookup, "fetch_quote": fetch_quote}, timeout=5, max_retries=0
    )
    boxes.append(box)
    result = box.call("lookup", {"q": "X"})
    assert result.ok and result.data == {"q": "X", "inner": 2.5}


def test_handlers_that_hang_do_not_starve_the_calls_after_them(
    make_box: Callable[..., Toolbox], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two hung handlers would hold both threads of a two-thread pool, and every later sync
    call would wait in its queue until it timed out: once half the pool is held, later calls
    get a new pool."""
    monkeypatch.setattr(toolbox_module, "WORKERS", 2)
    release = threading.Event()

    def lookup(q: str, limit: int = 3) -> dict[str, object]:
        if q == "hang":
            release.wait(30)
        return {"q": q}

    box = make_box(handlers={"lookup": lookup}, timeout=0.2, max_retries=0)
    try:
        hung = [box.call("lookup", {"q": "hang"}).error for _ in range(2)]
        assert [e and e["code"] for e in hung] == ["TIMEOUT", "TIMEOUT"]
        assert box.call("lookup", {"q": "fine"}).data == {"q": "fine"}
    finally:
        release.set()


def test_a_handler_that_ends_after_its_timeout_frees_its_thread_for_the_count(
    make_box: Callable[..., Toolbox], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A held thread counts until its handler returns: a late handler that ended does not
    bring the next hang nearer to a new pool."""
    monkeypatch.setattr(toolbox_module, "WORKERS", 4)
    release = threading.Event()
    ended = threading.Event()

    def lookup(q: str, limit: int = 3) -> dict[str, object]:
        if q == "late":
            release.wait(30)
            ended.set()
        return {"q": q}

    box = make_box(handlers={"lookup": lookup}, timeout=0.2, max_retries=0)
    late = box.call("lookup", {"q": "late"}).error
    assert late is not None and late["code"] == "TIMEOUT"
    pool = box.workers()
    release.set()
    assert ended.wait(5)
    for _ in range(100):  # the count drops in the thread's own done callback
        if box._held == 0:
            break
        time.sleep(0.01)
    assert box._held == 0
    release.clear()
    try:
        assert box.call("lookup", {"q": "late"}).error is not None
        assert box.workers() is pool  # one held thread of four: the same pool
    finally:
        release.set()


def hanging(release: threading.Event) -> Callable[..., dict[str, object]]:
    """A `lookup` handler whose every call hangs until `release` is set."""

    def lookup(q: str, limit: int = 3) -> dict[str, object]:
        release.wait(30)
        return {"q": q}

    return lookup


def test_a_call_that_took_the_pool_before_it_was_replaced_still_runs(
    make_box: Callable[..., Toolbox], handlers: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An idempotent tool's retry waits; meanwhile a hung handler makes the toolbox start a
    new pool. The retry still runs on the pool its call took (which is not shut down)."""
    monkeypatch.setattr(toolbox_module, "WORKERS", 2)
    release = threading.Event()
    lookup = hanging(release)
    box = make_box(handlers={"lookup": lookup}, timeout=0.2, max_retries=1)

    async def sleep_while_one_hangs(delay: float) -> None:
        hung = threading.Thread(target=lambda: box.call("lookup", {"q": "x"}))
        hung.start()
        hung.join()

    box.sleep = sleep_while_one_hangs
    handlers.FAILS["fetch_quote"] = 1
    try:
        before = box.workers()
        result = box.call("fetch_quote", {"symbol": "X"})
        assert (result.ok, result.data) == (True, 1.5), result.error
        assert box.workers() is not before  # replaced meanwhile
        assert handlers.CALLS["fetch_quote"] == 2
    finally:
        release.set()


def test_hung_handlers_hold_a_bounded_number_of_threads(
    make_box: Callable[..., Toolbox], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New pools are started only while the threads held in all stay under `HELD_LIMIT`."""
    monkeypatch.setattr(toolbox_module, "WORKERS", 2)
    monkeypatch.setattr(toolbox_module, "HELD_LIMIT", 2)
    release = threading.Event()
    lookup = hanging(release)
    box = make_box(handlers={"lookup": lookup}, timeout=0.1, max_retries=0)
    before = set(threading.enumerate())
    try:
        answers = [box.call("lookup", {"q": str(n)}).error for n in range(6)]
        assert [a and a["code"] for a in answers] == ["TIMEOUT"] * 6
        started = [t for t in set(threading.enumerate()) - before if t.name.startswith("toolgen")]
        # two pools of two threads at most: the first replaced, the second kept at the limit
        assert len(started) <= 4, [t.name for t in started]
    finally:
        release.set()


def test_hung_handlers_of_one_tool_leave_threads_to_the_other_tools(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    """Was: a flood of calls of one tool whose handler hangs took every thread (and, as they
    timed out, every new pool up to `HELD_LIMIT`): the sync handlers of all the other tools
    waited behind them and timed out. A tool now holds at most `PER_TOOL` threads; its
    calls beyond them are answered at once, `UNAVAILABLE` and retryable."""
    release = threading.Event()
    box = make_box(handlers={"lookup": hanging(release)}, timeout=5, max_retries=0)
    flood = 2 * toolbox_module.WORKERS

    async def turn() -> tuple[Any, list[Any]]:
        hung = [asyncio.create_task(box.acall("lookup", {"q": f"{i}"})) for i in range(flood)]
        await asyncio.sleep(0)  # every one of them has asked for its thread
        other = await box.acall("fetch_quote", {"symbol": "X"})
        release.set()
        return other, await asyncio.gather(*hung)

    try:
        other, flooded = asyncio.run(turn())
    finally:
        release.set()
    assert (other.ok, other.data) == (True, 1.5), other.error
    refused = [r.error for r in flooded if not r.ok]
    assert len(refused) == flood - toolbox_module.PER_TOOL
    assert {(e["code"], e["retryable"], e["retry_after_ms"]) for e in refused} == {
        ("UNAVAILABLE", True, 1000)
    }
    assert sum(r.ok for r in flooded) == toolbox_module.PER_TOOL


def test_a_threads_loop_collected_where_another_loop_runs_leaves_no_warning() -> None:
    """Was: the collector may end a thread's kept loop on a thread that runs a loop of its own
    (the keeper's, a store's): `shutdown_asyncgens()` was made, refused and never awaited, a
    RuntimeWarning that failed whichever test the collection happened in."""
    from toolgen.runtime import sync

    loop = sync._new_loop()

    async def collect_here() -> None:
        sync._close(loop, os.getpid())

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        asyncio.run(collect_here())
        gc.collect()
    loop.close()
