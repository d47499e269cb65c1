"""`memory://`: an idempotency store in a dict, for one process (tests, a single worker)."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from toolgen.runtime.forks import renew_in_child
from toolgen.runtime.store.base import Begin, Started, taken

__all__ = ["MemoryStore"]

#: Expired entries are swept once per this many `begin` calls, so memory stays bounded by the
#: live keys without a sweep on every call.
SWEEP_EVERY = 1024


@dataclass
class _Entry:
    fingerprint: str
    token: str
    result: str | None  # None while in flight
    expires_at: float


class MemoryStore:
    """Entries in a dict behind a lock, so coroutines and threads of one process agree.

    `clock` (seconds, monotonic by default) decides leases and TTLs; tests pass their own.
    Nothing survives the process.
    """

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        """An empty store reading the time from `clock`."""
        self._clock = clock
        self._entries: dict[tuple[str, str], _Entry] = {}
        # a thread lock, not an asyncio one: no await happens while it is held, and the same
        # store may serve several event loops (a sync call runs its own loop in a thread)
        self._lock = threading.Lock()
        self._begins = 0
        renew_in_child(self)

    async def begin(self, tool: str, key: str, fingerprint: str, lease_s: float) -> Begin:
        """Claim the key for `lease_s` seconds unless a live entry holds it."""
        with self._lock:
            now = self._clock()
            self._begins += 1
            if self._begins % SWEEP_EVERY == 0:
                self._sweep(now)
            entry = self._entries.get((tool, key))
            if entry is not None and entry.expires_at > now:
                return taken(entry.fingerprint, entry.result, entry.expires_at - now, fingerprint)
            token = secrets.token_hex(16)
            self._entries[(tool, key)] = _Entry(fingerprint, token, None, now + lease_s)
            return Started(token)

    async def finish(self, tool: str, key: str, token: str, result: str, ttl_s: float) -> bool:
        """Keep `result` for `ttl_s` seconds if `token` still holds the key's live lease."""
        with self._lock:
            now = self._clock()
            entry = self._owned(tool, key, token, now)
            if entry is None:
                return False
            entry.result = result
            entry.expires_at = now + ttl_s
            return True

    async def renew(self, tool: str, key: str, token: str, lease_s: float) -> bool:
        """Extend the lease `token` still holds to `lease_s` seconds from now."""
        with self._lock:
            now = self._clock()
            entry = self._owned(tool, key, token, now)
            if entry is None:
                return False
            entry.expires_at = now + lease_s
            return True

    async def abandon(self, tool: str, key: str, token: str) -> None:
        """Free the key if `token` still holds its live lease."""
        with self._lock:
            if self._owned(tool, key, token, self._clock()) is not None:
                del self._entries[(tool, key)]

    async def aclose(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()

    def _forked(self) -> None:
        # another thread may have held the lock at the fork; the entries stay (the parent's
        # keys in flight stay taken in the child until their leases end)
        self._lock = threading.Lock()

    def _owned(self, tool: str, key: str, token: str, now: float) -> _Entry | None:
        entry = self._entries.get((tool, key))
        if entry is None or entry.token != token or entry.result is not None:
            return None
        return entry if entry.expires_at > now else None

    def _sweep(self, now: float) -> None:
        for place in [p for p, e in self._entries.items() if e.expires_at <= now]:
            del self._entries[place]
