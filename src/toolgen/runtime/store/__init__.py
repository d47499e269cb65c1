"""Idempotency stores: where `(tool, key)` remembers its arguments' fingerprint, whether the
call is in flight, and its result once it succeeded (reference/runtime.md, idempotency keys).

`open_store(url)` opens one by URL. This is the protocol the runtime calls; the backends
(`memory://` here; sqlite and redis to come) implement it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Started:
    """The key is ours now; `token` proves it to `finish` and `abandon`."""

    token: str


@dataclass(frozen=True)
class Replay:
    """The key finished with the same arguments: `result` is the stored envelope JSON."""

    result: str


@dataclass(frozen=True)
class Reused:
    """The key is known with other arguments."""


@dataclass(frozen=True)
class InFlight:
    """Another call holds the key; try again after `retry_after_ms`."""

    retry_after_ms: int


#: What `IdempotencyStore.begin` answers.
Begin = Started | Replay | Reused | InFlight


class StoreUnavailable(Exception):
    """The store failed (any backend failure); the message is safe to show."""


class IdempotencyStore(Protocol):
    """A store of idempotency keys. A lease that expires (a process killed mid-call) frees the
    key; `finish` and `abandon` act only while `token` still owns it."""

    async def begin(self, tool: str, key: str, fingerprint: str, lease_s: float) -> Begin:
        """Claim `(tool, key)` for `lease_s` seconds, or say why not."""
        ...

    async def finish(self, tool: str, key: str, token: str, result: str, ttl_s: float) -> None:
        """Keep `result` for `ttl_s` seconds: later calls with the key replay it."""
        ...

    async def abandon(self, tool: str, key: str, token: str) -> None:
        """Free the key after a failed call (it may be retried with the same key)."""
        ...

    async def aclose(self) -> None:
        """Release what the store holds (connections, files)."""
        ...


def open_store(url: str) -> IdempotencyStore:
    """The store at `url`: `memory://` (this process only). ValueError on another scheme."""
    if url == "memory://" or url.startswith("memory://"):
        from toolgen.runtime.store.memory import MemoryStore

        return MemoryStore()
    scheme = url.partition("://")[0] if "://" in url else url
    raise ValueError(f"unknown idempotency store {scheme!r}: use memory://")
