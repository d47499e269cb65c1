"""Seeded red-team inputs kept as fast property tests, on every store: odd keys, principals and
results; a keyed call cancelled at each of its awaits; the caller's event loop torn down
(`asyncio.run` returning) while a keyed call runs. The write happens exactly once, the result
replays exactly, and no key is left wedged."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from toolgen.runtime import Toolbox
from toolgen.runtime.result import ToolResult
from toolgen.runtime.steps.idempotency import store_key, stored
from toolgen.runtime.store import Replay, Started, open_store
from toolgen.runtime.store.redis import RedisStore

from .stores_support import (  # noqa: F401 - fixtures
    PAY,
    redis_url_fixture,
    store_url_fixture,
)

#: Characters that have broken stores, separators and escapes: quotes, brackets, NUL, line
#: separators, lone and paired surrogates, the scoping mark, a BOM, a dotted capital I.
ALPHABET = [
    "a", "Z", "0", ":", '"', "\\", "[", "]", ",", "\x00", "\n", "é", "ß", "\u2028", "🔑",
    "\ud800", "\udc00", "\udbff\udfff", "principal:", " ", "\ufeff", "İ",
]  # fmt: skip


def _text(rnd: random.Random) -> str:
    return "".join(rnd.choice(ALPHABET) for _ in range(rnd.choice([0, 1, 2, 5, 16, 40, 300])))


def _key(rnd: random.Random) -> object:
    pick = rnd.random()
    if pick < 0.6:
        return _text(rnd)
    if pick < 0.75:
        return rnd.choice([0, 1, -1, 2**63, 10**30, 0.5, -2.25, 1e300, True, False])
    if pick < 0.85:
        return [_text(rnd), 1]
    if pick < 0.95:
        return {"b": _text(rnd), "a": [1, 2]}
    return "x" * 100_000


def test_odd_keys_principals_and_results_replay_exactly(store_url: str) -> None:
    rnd = random.Random(20240601)
    store = open_store(store_url)
    if isinstance(store, RedisStore):
        store.prefix = f"fuzz:{uuid.uuid4().hex}:"
    meant: dict[str, tuple[object, object]] = {}

    async def scenario() -> None:
        for _ in range(120):
            principal = rnd.choice([None, None, "", "alice", _text(rnd), "\ud800", '["x"'])
            key = _key(rnd)
            where = store_key(key, principal)
            # one place per (principal, key): never two of them in one
            assert meant.setdefault(where, (principal, key)) == (principal, key)
            begun = await store.begin("tool", where, "fp", 60)
            assert isinstance(begun, Started | Replay)
            if isinstance(begun, Replay):
                continue
            data = {"text": _text(rnd), "list": [_text(rnd) for _ in range(3)]}
            text = stored(ToolResult("tool", True, data, None, "t"))
            assert await store.finish("tool", where, begun.token, text, 60) is True
            again = await store.begin("tool", where, "fp", 60)
            assert isinstance(again, Replay)
            # what the model was sent is JSON: a paired surrogate comes back as its character
            assert ToolResult.from_json("tool", again.result, "t").data == json.loads(
                json.dumps(data)
            )
        await store.aclose()

    asyncio.run(scenario())


@pytest.fixture
def counted_box(
    make_box: Callable[..., Toolbox], store_url: str
) -> Iterator[tuple[Toolbox, Counter[str]]]:
    """A box whose `transfer` counts its completed runs per key (a sync handler, at times
    slower than a loop turn)."""
    runs: Counter[str] = Counter()
    lock = threading.Lock()
    pauses = iter([0, 0.001, 0, 0.003] * 1000)

    def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        pause = next(pauses)
        if pause:  # else none at all: even sleep(0) lets other threads in
            time.sleep(pause)
        with lock:
            runs[idempotency_key] += 1
        return {"sent": amount}

    box = make_box(handlers={"transfer": transfer}, store=store_url, timeout={"*": 5.0})
    yield box, runs
    asyncio.run(box.aclose())


def _settled(box: Toolbox, arguments: dict[str, Any]) -> ToolResult:
    """Ask again until the key is no longer in progress (a bound on the wait only)."""
    deadline = time.monotonic() + 10
    while True:
        answer = box.call("transfer", arguments, context=PAY)
        in_progress = answer.error and answer.error["code"] == "IDEMPOTENCY_KEY_IN_PROGRESS"
        if not in_progress or time.monotonic() > deadline:
            return answer
        time.sleep(0.01)


def test_a_keyed_call_cancelled_at_each_await_runs_once_and_frees_its_key(
    counted_box: tuple[Toolbox, Counter[str]],
) -> None:
    box, runs = counted_box

    async def cancelled_after(turns: int, arguments: dict[str, Any]) -> None:
        call = asyncio.create_task(box.acall("transfer", arguments, context=PAY))
        for _ in range(turns):
            await asyncio.sleep(0)
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call

    for turns in range(24):
        arguments = {"amount": 5, "to": "acct", "idempotency_key": f"k-{uuid.uuid4().hex}"}
        asyncio.run(cancelled_after(turns, arguments))
        answer = _settled(box, arguments)
        assert answer.ok, (turns, answer.error)
        time.sleep(0.02)  # a late settlement's own run may still be on its way
        assert runs[arguments["idempotency_key"]] == 1, turns


def test_a_callers_loop_torn_down_mid_call_never_wedges_the_key(
    counted_box: tuple[Toolbox, Counter[str]],
) -> None:
    """`asyncio.run` returning while a keyed call runs cancels it, and cancels what it left
    running (a settlement too) before that even started."""
    box, runs = counted_box

    async def left_running(turns: int, arguments: dict[str, Any]) -> None:
        asyncio.get_running_loop().create_task(box.acall("transfer", arguments, context=PAY))
        for _ in range(turns):
            await asyncio.sleep(0)

    for turns in range(24):
        arguments = {"amount": 5, "to": "acct", "idempotency_key": f"k-{uuid.uuid4().hex}"}
        asyncio.run(left_running(turns, arguments))
        answer = _settled(box, arguments)
        assert answer.ok, (turns, answer.error)
        time.sleep(0.02)
        assert runs[arguments["idempotency_key"]] == 1, turns
