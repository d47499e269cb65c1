"""A keyed call's key lives as long as its handler: a sync handler that timed out and goes on
settles the key with its own outcome when it ends (a late success replays, a late failure
frees the key), and until then, however long past the lease, the key is in progress."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from toolgen.runtime import Toolbox, ToolError

from .stores_support import (  # noqa: F401 - fixtures
    PAY,
    keyed_box_fixture,
    redis_url_fixture,
    store_url_fixture,
)


def _arguments() -> dict[str, Any]:
    return {"amount": 5, "to": "acct", "idempotency_key": f"key-{uuid.uuid4().hex}"}


def _settled(box: Toolbox, arguments: dict[str, Any]) -> Any:
    """Call again until the key is no longer in progress (a bound on the wait only: 30 s)."""
    deadline = time.monotonic() + 30
    while True:
        found = box.call("transfer", arguments, context=PAY)
        busy = found.error is not None and found.error["code"] == "IDEMPOTENCY_KEY_IN_PROGRESS"
        if not busy or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def test_a_timed_out_handler_that_succeeds_late_settles_its_key_with_its_result(
    keyed_box: Callable[..., Toolbox],
) -> None:
    """The TIMEOUT is retryable; the model's retry with the same key must not pay twice."""
    release = threading.Event()
    ended = threading.Event()
    runs: list[int] = []

    def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(amount)
        try:
            release.wait(30)
            return {"sent": amount, "run": len(runs)}
        finally:
            ended.set()

    box = keyed_box(handlers={"transfer": transfer}, timeout={"transfer": 0.1})
    arguments = _arguments()
    try:
        timed_out = box.call("transfer", arguments, context=PAY)
        assert timed_out.error is not None and timed_out.error["code"] == "TIMEOUT"
        assert timed_out.error["retryable"] is True
    finally:
        release.set()
    assert ended.wait(30)
    again = _settled(box, arguments)
    assert again.ok and again.replayed and again.data == {"sent": 5, "run": 1}
    assert runs == [5]
    box.call("transfer", arguments, context=PAY)
    assert runs == [5]


def test_a_timed_out_handler_that_fails_late_frees_its_key(
    keyed_box: Callable[..., Toolbox],
) -> None:
    release = threading.Event()
    ended = threading.Event()
    runs: list[int] = []

    def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(amount)
        try:
            if len(runs) == 1:
                release.wait(30)
                raise ToolError("UNAVAILABLE", "the bank is down")
            return {"sent": amount, "run": len(runs)}
        finally:
            ended.set()

    box = keyed_box(handlers={"transfer": transfer}, timeout={"transfer": 0.1})
    arguments = _arguments()
    try:
        timed_out = box.call("transfer", arguments, context=PAY)
        assert timed_out.error is not None and timed_out.error["code"] == "TIMEOUT"
        busy = box.call("transfer", arguments, context=PAY)
        assert busy.error is not None and busy.error["code"] == "IDEMPOTENCY_KEY_IN_PROGRESS"
    finally:
        release.set()
    assert ended.wait(30)
    again = _settled(box, arguments)
    assert again.ok and not again.replayed and again.data == {"sent": 5, "run": 2}
    assert runs == [5, 5]


def test_a_handler_running_past_its_lease_keeps_its_key(
    keyed_box: Callable[..., Toolbox],
) -> None:
    """The lease is renewed while the handler runs: a key is not free while its handler runs,
    however long past the lease it goes on."""
    release = threading.Event()
    ended = threading.Event()
    runs: list[int] = []

    def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(amount)
        try:
            release.wait(30)
            return {"sent": amount, "run": len(runs)}
        finally:
            ended.set()

    lease = 0.6
    box = keyed_box(
        handlers={"transfer": transfer},
        timeout={"*": 0.2},
        in_flight_ttl=lease,
    )
    arguments = _arguments()
    try:
        timed_out = box.call("transfer", arguments, context=PAY)
        assert timed_out.error is not None and timed_out.error["code"] == "TIMEOUT"
        # several leases' worth of retries while the handler still runs: never a second run
        until = time.monotonic() + 4 * lease
        while time.monotonic() < until:
            busy = box.call("transfer", arguments, context=PAY)
            assert busy.error is not None, busy
            assert busy.error["code"] == "IDEMPOTENCY_KEY_IN_PROGRESS"
            assert runs == [5]
            time.sleep(0.05)
    finally:
        release.set()
    assert ended.wait(30)
    again = _settled(box, arguments)
    assert again.ok and again.replayed and runs == [5]


@pytest.mark.parametrize("how", ["blocks", "swallows"])
def test_an_async_handler_that_ends_past_its_timeout_settles_its_key_and_is_not_run_again(
    keyed_box: Callable[..., Toolbox], how: str
) -> None:
    """Was: an async handler that held the loop past its timeout (`time.sleep` in an `async
    def`), or swallowed the deadline's cancellation, ran to its end and paid; its result was
    dropped as `TIMEOUT`, the key freed, and the keyed call's retries ran it again, every
    one of them (4 payments for one call). Now it is answered `TIMEOUT` once, and what it
    did settles the key as a timed-out thread's end does: a retry replays it."""
    runs: list[int] = []

    async def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(amount)
        if how == "blocks":
            time.sleep(0.3)  # holds the loop: the deadline cannot fire
        else:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.3)
        return {"sent": amount, "run": len(runs)}

    box = keyed_box(handlers={"transfer": transfer}, timeout={"transfer": 0.1})
    arguments = _arguments()
    timed_out = box.call("transfer", arguments, context=PAY)
    assert timed_out.error is not None and timed_out.error["code"] == "TIMEOUT"
    assert runs == [5]
    again = _settled(box, arguments)
    assert again.ok and again.replayed and again.data == {"sent": 5, "run": 1}
    assert runs == [5]


@pytest.mark.parametrize("stubborn", [False, True], ids=["awaits", "swallows-its-cancel"])
def test_a_late_awaitable_that_never_ends_frees_its_key_within_the_timeout(
    keyed_box: Callable[..., Toolbox], stubborn: bool
) -> None:
    """Was: a sync handler that timed out and then returned an awaitable that never ends kept
    its key in progress for good (the keeper awaited it without a bound and renewed the lease
    meanwhile), and a thread with it. Now the awaitable gets the tool's timeout, as it would
    have on time: its failure frees the key, and a retry runs."""
    release = threading.Event()
    stop = threading.Event()  # ends the awaitable when the test ends, fixed or not
    runs: list[int] = []

    async def never() -> dict[str, object]:
        while not stop.is_set():
            try:
                await asyncio.sleep(0.02)
            except asyncio.CancelledError:
                if not stubborn:
                    raise
        return {"never": True}

    def transfer(amount: int, to: str, idempotency_key: str) -> Any:
        runs.append(amount)
        if len(runs) == 1:
            release.wait(30)
            return never()
        return {"sent": amount, "run": len(runs)}

    box = keyed_box(handlers={"transfer": transfer}, timeout={"transfer": 0.1})
    arguments = _arguments()
    try:
        timed_out = box.call("transfer", arguments, context=PAY)
        assert timed_out.error is not None and timed_out.error["code"] == "TIMEOUT"
        release.set()
        deadline = time.monotonic() + 5
        while True:
            again = box.call("transfer", arguments, context=PAY)
            if again.error is None or again.error["code"] != "IDEMPOTENCY_KEY_IN_PROGRESS":
                break
            assert time.monotonic() < deadline, "the key is still in progress"
            time.sleep(0.05)
        assert again.ok and not again.replayed and again.data == {"sent": 5, "run": 2}
    finally:
        release.set()
        stop.set()
