"""An async handler that swallows its cancellation (`except CancelledError: pass` in a loop)
costs its own call only: its deadline's `TIMEOUT` comes within `CANCEL_GRACE` after the
timeout, the other calls of its turn are answered, a caller that cancels it is cancelled, and
a keyed call's key is freed. Was: the call never ended, nor the turn, nor the cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from toolgen.runtime import Toolbox
from toolgen.runtime.steps.execute import CANCEL_GRACE

from .stores_support import PAY
from .threads_support import cancelled, on_a_thread

#: The longest any of these may take: the timeout, the grace, a margin (a retry's too).
BOUND = 2 * (0.1 + CANCEL_GRACE) + 3


def bounded(run: Callable[[], Any]) -> Any:
    """`run()` on a thread of its own, within `BOUND` seconds (`on_a_thread`)."""
    return on_a_thread(run, BOUND)


async def stubborn_sleep(seconds: float) -> str:
    while True:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(3600)


async def stubborn_spin(seconds: float) -> str:
    while True:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0)


@pytest.mark.parametrize("handler", [stubborn_sleep, stubborn_spin], ids=["sleeps", "spins"])
def test_a_handler_that_swallows_its_cancellation_times_out(
    make_box: Callable[..., Toolbox], handler: Callable[..., Any]
) -> None:
    box = make_box(handlers={"slow": handler}, timeout={"slow": 0.1})
    for way in (
        lambda: box.call("slow", {"seconds": 1}),
        lambda: asyncio.run(box.acall("slow", {"seconds": 1})),
    ):
        started = time.monotonic()
        result = bounded(way)
        assert result.error is not None and result.error["code"] == "TIMEOUT", result
        assert time.monotonic() - started < 0.1 + CANCEL_GRACE + 1
    turn = [
        {"type": "tool_use", "id": "1", "name": "slow", "input": {"seconds": 1}},
        {"type": "tool_use", "id": "2", "name": "lookup", "input": {"q": "w"}},
    ]
    answers = bounded(lambda: box.handle_anthropic(turn))
    assert [json.loads(a["content"])["status"] for a in answers] == ["error", "ok"]


def test_a_caller_still_cancels_a_handler_that_swallows_its_cancellation(
    make_box: Callable[..., Toolbox],
) -> None:
    box = make_box(handlers={"slow": stubborn_sleep}, timeout={"slow": 60})

    call = box.acall("slow", {"seconds": 1})
    assert bounded(lambda: asyncio.run(cancelled(call, lambda: asyncio.sleep(0.05)))) is True


def test_a_keyed_call_of_a_handler_that_swallows_its_cancellation_frees_its_key(
    make_box: Callable[..., Toolbox],
) -> None:
    runs: list[int] = []

    async def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(amount)
        if len(runs) == 1:
            await stubborn_sleep(0)
        return {"sent": amount, "run": len(runs)}

    box = make_box(handlers={"transfer": transfer}, timeout={"transfer": 0.1}, max_retries=0)
    arguments = {"amount": 5, "to": "acct", "idempotency_key": "k" * 16}
    first = bounded(lambda: box.call("transfer", arguments, context=PAY))
    assert first.error is not None and first.error["code"] == "TIMEOUT"
    again = bounded(lambda: box.call("transfer", arguments, context=PAY))
    assert again.ok and not again.replayed and again.data == {"sent": 5, "run": 2}
