"""What every idempotency store shares: the answers of `begin`, the protocol, the one rule
that turns a taken key into an answer, and how a URL is quoted without its password."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Started:
    """The key was free: the caller owns it now and must `finish` or `abandon` with `token`."""

    token: str


@dataclass(frozen=True)
class Replay:
    """The same call already succeeded: `result` is its stored ToolResult envelope (JSON)."""

    result: str


@dataclass(frozen=True)
class Reused:
    """The key is taken by a call with other arguments (another fingerprint)."""


@dataclass(frozen=True)
class InFlight:
    """The same call is still running: ask again in about `retry_after_ms` milliseconds."""

    retry_after_ms: int


#: What `IdempotencyStore.begin` answers.
Begin = Started | Replay | Reused | InFlight


class StoreUnavailable(Exception):
    """The store could not be reached or used; the message names the backend, never a secret."""


@runtime_checkable
class IdempotencyStore(Protocol):
    """What the runtime needs of an idempotency store (see the module docstring)."""

    async def begin(self, tool: str, key: str, fingerprint: str, lease_s: float) -> Begin:
        """Claim `(tool, key)` for `lease_s` seconds, or say who has it. A `begin` that is
        cancelled keeps no claim: it made none, or it frees the one it made."""
        ...

    async def renew(self, tool: str, key: str, token: str, lease_s: float) -> bool:
        """Extend the lease of a key `token` still holds in flight to `lease_s` seconds from
        now: False when it no longer held it (the lease ran out, or the key was settled)."""
        ...

    async def finish(
        self, tool: str, key: str, token: str, result: str, ttl_s: float
    ) -> bool | None:
        """Keep `result` for `ttl_s` seconds, if `token` still owns the key: False when it no
        longer did (its lease ran out; the runtime logs a warning), None when not known."""
        ...

    async def abandon(self, tool: str, key: str, token: str) -> None:
        """Free the key after a failed call, if `token` still owns it."""
        ...

    async def aclose(self) -> None:
        """Release connections and threads; the store is not used afterwards."""
        ...


#: An in-flight answer never asks to wait longer than this: the lease is only an upper bound
#: (the running call usually ends much sooner), and a model told to wait minutes gives up.
RETRY_AFTER_CAP_MS = 1000


def taken(
    entry_fingerprint: str, result: str | None, remaining_s: float, fingerprint: str
) -> Begin:
    """What `begin` answers for a key that is taken (by a live entry), the same for every store.

    `result` is None while the entry's call is in flight; `remaining_s` is its time left.
    """
    if entry_fingerprint != fingerprint:
        return Reused()
    if result is not None:
        return Replay(result)
    return InFlight(max(1, min(RETRY_AFTER_CAP_MS, int(remaining_s * 1000))))


#: Query options whose values are secrets (`?password=...`, which redis-py reads too).
_SECRET_OPTION = re.compile(r"(?i)((?:^|&)[^&=]*(?:pass|secret|token|auth)[^&=]*=)[^&#]*")


def redacted(url: str) -> str:
    """`url` without its password, for messages: the user information's (what stands between
    the scheme and the last `@`, when it has a `:`) and a secret query option's
    (`?password=...`). Text only, never parsed: it never raises, and it hides a password
    where the URL is malformed too (a `?` or `/` in it, no `//`)."""
    head, at, host = url.rpartition("@")
    if at:
        scheme, sep, user = head.partition("://")
        if not sep:  # `redis:user:secret@host`
            scheme, sep, user = head.partition(":")
        if ":" in user:
            url = f"{scheme}{sep}{user.partition(':')[0]}:***@{host}"
    address, mark, query = url.partition("?")
    return address + mark + _SECRET_OPTION.sub(r"\1***", query)
