#!/usr/bin/env python3
"""Idempotency store throughput: begin + finish cycles per second (issue 18).

Usage: python benchmarks/runtime_stores.py URL [N]
       e.g. python benchmarks/runtime_stores.py sqlite:////tmp/bench.db 2000

`calls_per_second(url, n)` is what benchmarks/run.py can call for its runtime figure: n cycles,
one after the other, each with a key never used before (a claim and a stored result, as a
keyed call that succeeds costs), on a fresh store that is closed afterwards.
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid

from toolgen.runtime.store import IdempotencyStore, Started, open_store

RESULT = '{"status": "ok", "data": {"id": 1}}'


def calls_per_second(url: str, n: int = 1000) -> float:
    """Sequential begin + finish cycles per second on the store at `url`, with distinct keys."""
    return asyncio.run(_cycles(url, n))


async def _cycles(url: str, n: int) -> float:
    store = open_store(url)
    run = uuid.uuid4().hex  # keys no earlier run left behind
    try:
        # the first call opens the file or the connection: not part of the figure
        await _cycle(store, "warm-up", run)
        start = time.perf_counter()
        for i in range(n):
            await _cycle(store, str(i), run)
        return n / (time.perf_counter() - start)
    finally:
        await store.aclose()


async def _cycle(store: IdempotencyStore, key: str, run: str) -> None:
    begun = await store.begin("bench", f"{run}-{key}", "fingerprint", 30.0)
    if not isinstance(begun, Started):
        raise RuntimeError(f"key {key} was not free: {begun}")
    await store.finish("bench", f"{run}-{key}", begun.token, RESULT, 60.0)


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "memory://"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    print(f"{target}: {calls_per_second(target, count):,.0f} calls/s")
