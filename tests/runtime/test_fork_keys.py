"""A forked child (a pre-fork server's worker, say) makes keyed calls through the toolbox and
the store it inherited: they answer, on threads, loops and connections of the child's own, and
the parent's go on working. Each child is given a generous bound and killed past it."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
import uuid
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from toolgen.runtime import Toolbox

from .stores_support import (  # noqa: F401 - fixtures
    PAY,
    keyed_box_fixture,
    redis_url_fixture,
    store_url_fixture,
)

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")


def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
    return {"sent": amount, "pid": os.getpid()}


def _arguments(key: str | None = None) -> dict[str, Any]:
    return {"amount": 5, "to": "acct", "idempotency_key": key or f"key-{uuid.uuid4().hex}"}


def in_child(work: Callable[[], bool], bound: float = 30.0) -> bool:
    """Fork; the child runs `work` and exits 0 when it says True. Whether it did, within
    `bound` seconds (a child still running then is killed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
        pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = 0 if work() else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) == 0
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return False


def test_keyed_calls_answer_in_a_forked_child(keyed_box: Callable[..., Toolbox]) -> None:
    box = keyed_box(handlers={"transfer": transfer})
    first = box.call("transfer", _arguments(), context=PAY)  # the store is open, in use
    assert first.ok
    key = f"key-{uuid.uuid4().hex}"

    def child() -> bool:
        sync = box.call("transfer", _arguments(key), context=PAY)

        async def both() -> Any:
            return await box.acall("transfer", _arguments(key), context=PAY)

        again = asyncio.run(both())
        return sync.ok and sync.data["pid"] == os.getpid() and again.replayed

    assert in_child(child)
    # the child's result is in the shared store (not in memory://, which is per process)
    after = box.call("transfer", _arguments(key), context=PAY)
    assert after.ok
    assert box.call("transfer", _arguments(), context=PAY).ok


def test_a_fork_while_another_thread_holds_the_toolbox_lock(
    make_box: Callable[..., Toolbox],
) -> None:
    """A thread that reaches a handler holds the toolbox's lock meanwhile (a factory that
    takes its time): a child forked then must not wait for a thread it does not have."""
    inside, leave = threading.Event(), threading.Event()

    def factory(cls: type) -> Any:
        inside.set()
        leave.wait(30)
        return cls("hello")

    box = make_box(handlers={"transfer": transfer}, factory=factory)
    reaching = threading.Thread(target=lambda: box.call("greet", {"name": "x"}))
    reaching.start()
    try:
        assert inside.wait(30)
        assert in_child(lambda: box.call("transfer", _arguments(), context=PAY).ok)
    finally:
        leave.set()
        reaching.join(30)
    assert not reaching.is_alive()


def test_forks_while_other_threads_make_keyed_calls(keyed_box: Callable[..., Toolbox]) -> None:
    """Forks at odd moments: while threads make keyed calls (the store's first ones too,
    which open it), some of whose handlers time out and run on with their leases renewed.
    Every child's keyed calls answer; the parent's go on."""
    box = keyed_box(
        handlers={"transfer": transfer_sometimes_slowly},
        timeout={"*": 0.2},
        in_flight_ttl=0.8,
    )
    stop = threading.Event()

    def hammer() -> None:
        while not stop.is_set():
            box.call("transfer", _arguments(), context=PAY)

    threads = [threading.Thread(target=hammer) for _ in range(3)]
    for thread in threads:
        thread.start()

    def child() -> bool:
        key = f"key-{uuid.uuid4().hex}"
        deadline = time.monotonic() + 20
        first = box.call("transfer", _arguments(key), context=PAY)
        while not first.ok and time.monotonic() < deadline:  # TIMEOUT, then IN_PROGRESS
            time.sleep(0.05)
            first = box.call("transfer", _arguments(key), context=PAY)
        return first.ok and box.call("transfer", _arguments(key), context=PAY).replayed

    try:
        children = [in_child(child) for _ in range(12)]
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    assert children == [True] * 12
    assert not any(thread.is_alive() for thread in threads)


_slow = iter(range(10**9))


def transfer_sometimes_slowly(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
    if next(_slow) % 5 == 0:
        time.sleep(0.3)  # past the timeout: its key is renewed until it ends
    return {"sent": amount, "pid": os.getpid()}
