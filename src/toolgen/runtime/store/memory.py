"""`memory://`: an idempotency store in this process's memory (tests, one worker).

A `threading.Lock`, not an asyncio one: no step awaits while holding it, and `Toolbox.call`
runs each sync call on a loop of its own, which an asyncio lock would be bound to.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from toolgen.runtime.store import Begin, InFlight, Replay, Reused, Started


@dataclass
class _Entry:
    fingerprint: str
    token: str | None  # the owner while in flight; None once finished
    result: str | None
    expires: float


class MemoryStore:
    """Keys in a dict under one lock, with lease and TTL expiry; `clock` is
    `time.monotonic` unless a test gives another."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._lock = threading.Lock()
        self._clock = clock

    async def begin(self, tool: str, key: str, fingerprint: str, lease_s: float) -> Begin:
        with self._lock:
            now = self._clock()
            entry = self._entries.get((tool, key))
            if entry is not None and entry.expires > now:
                if entry.fingerprint != fingerprint:
                    return Reused()
                if entry.result is not None:
                    return Replay(entry.result)
                return InFlight(max(1, int((entry.expires - now) * 1000)))
            token = secrets.token_hex(16)
            self._entries[(tool, key)] = _Entry(fingerprint, token, None, now + lease_s)
            return Started(token)

    async def finish(self, tool: str, key: str, token: str, result: str, ttl_s: float) -> None:
        with self._lock:
            entry = self._entries.get((tool, key))
            if entry is not None and entry.token == token:
                entry.token, entry.result = None, result
                entry.expires = self._clock() + ttl_s

    async def abandon(self, tool: str, key: str, token: str) -> None:
        with self._lock:
            entry = self._entries.get((tool, key))
            if entry is not None and entry.token == token:
                del self._entries[(tool, key)]

    async def aclose(self) -> None:
        self._entries.clear()
