"""`redis://host:port/db`: an idempotency store in Redis, shared by workers on many machines.

One Redis key per `(tool, key)`, its value JSON `{"fingerprint", "status", "token"}` (and
`"result"` once done), its expiry the lease and then the TTL, so Redis itself frees what a dead
worker left. `begin` is `SET NX PX` (only one of any number of workers creates the key);
`begin`'s read of a taken key, `finish` and `abandon` are Lua scripts, so the read and the
compare-and-set on the token happen in one step on the server.

Needs the `redis` client (`pip install "toolgen[redis]"`), imported on first use only: the rest
of the runtime works without it.
"""

from __future__ import annotations

import asyncio
import json
import math
import secrets
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolgen.runtime.store import Begin, Started, StoreUnavailable, redacted, taken

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.commands.core import AsyncScript

__all__ = ["RedisStore"]

# KEYS[1] the entry; ARGV[1] the in-flight value, ARGV[2] the lease (ms).
# Answers {1} when claimed, else {0, value, milliseconds left}.
_BEGIN = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1}
end
return {0, redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}
"""

# KEYS[1] the entry; ARGV[1] the token, ARGV[2] the result, ARGV[3] the TTL (ms).
_FINISH = """
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local entry = cjson.decode(raw)
if entry['token'] ~= ARGV[1] or entry['status'] ~= 'in_flight' then return 0 end
entry['status'] = 'done'
entry['result'] = ARGV[2]
redis.call('SET', KEYS[1], cjson.encode(entry), 'PX', ARGV[3])
return 1
"""

# KEYS[1] the entry; ARGV[1] the token.
_ABANDON = """
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local entry = cjson.decode(raw)
if entry['token'] ~= ARGV[1] or entry['status'] ~= 'in_flight' then return 0 end
return redis.call('DEL', KEYS[1])
"""

_INSTALL = 'the redis idempotency store needs the redis client: pip install "toolgen[redis]"'


@dataclass
class _Client:
    redis: Redis
    begin: AsyncScript
    finish: AsyncScript
    abandon: AsyncScript
    errors: tuple[type[BaseException], ...]


class RedisStore:
    """Entries in the Redis server at `url`, under keys starting with `prefix`."""

    def __init__(self, url: str, *, prefix: str = "toolgen:idempotency:") -> None:
        """A store for `url`; nothing is imported or connected before the first call."""
        self.url = url
        self.prefix = prefix
        # a redis.asyncio client belongs to the event loop it first ran in, and one store may
        # serve several loops (a sync call runs its own loop in a thread): one client per loop
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Client] = (
            weakref.WeakKeyDictionary()
        )

    async def begin(self, tool: str, key: str, fingerprint: str, lease_s: float) -> Begin:
        """Claim the key with `SET NX PX` unless a live entry holds it."""
        client = self._client()
        token = secrets.token_hex(16)
        value = json.dumps({"fingerprint": fingerprint, "status": "in_flight", "token": token})
        try:
            answer = await client.begin(keys=[self._name(tool, key)], args=[value, _ms(lease_s)])
        except client.errors as exc:
            raise self._unavailable(exc) from exc
        if answer[0] == 1:
            return Started(token)
        try:
            entry = json.loads(answer[1])
            result = entry.get("result") if entry["status"] == "done" else None
            return taken(entry["fingerprint"], result, int(answer[2]) / 1000, fingerprint)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            # another program's value under our key: nothing to decide from
            raise self._unavailable(exc) from exc

    async def finish(self, tool: str, key: str, token: str, result: str, ttl_s: float) -> None:
        """Keep `result` for `ttl_s` seconds if `token` still holds the key's live lease."""
        client = self._client()
        try:
            await client.finish(keys=[self._name(tool, key)], args=[token, result, _ms(ttl_s)])
        except client.errors as exc:
            raise self._unavailable(exc) from exc

    async def abandon(self, tool: str, key: str, token: str) -> None:
        """Delete the key if `token` still holds its live lease."""
        client = self._client()
        try:
            await client.abandon(keys=[self._name(tool, key)], args=[token])
        except client.errors as exc:
            raise self._unavailable(exc) from exc

    async def aclose(self) -> None:
        """Close this event loop's connections and forget the others' (their loops are gone)."""
        clients, self._clients = self._clients, weakref.WeakKeyDictionary()
        client = clients.get(asyncio.get_running_loop())
        if client is not None:
            # redis 5.0.0 has close(); aclose() replaces it from 5.0.1
            closer: Any = getattr(client.redis, "aclose", None) or client.redis.close
            try:
                await closer()
            except client.errors as exc:
                raise self._unavailable(exc) from exc

    def _name(self, tool: str, key: str) -> str:
        # the tool's length first: tool "a:b" with key "c" and tool "a" with key "b:c" differ
        return f"{self.prefix}{len(tool)}:{tool}:{key}"

    def _client(self) -> _Client:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            try:
                from redis import asyncio as aioredis
                from redis.exceptions import RedisError
            except ImportError as exc:
                raise StoreUnavailable(_INSTALL) from exc
            redis = aioredis.Redis.from_url(self.url, decode_responses=True)
            client = _Client(
                redis,
                redis.register_script(_BEGIN),
                redis.register_script(_FINISH),
                redis.register_script(_ABANDON),
                (RedisError, OSError, TimeoutError),
            )
            self._clients[loop] = client
        return client

    def _unavailable(self, exc: BaseException) -> StoreUnavailable:
        return StoreUnavailable(
            f"the redis idempotency store {redacted(self.url)} is unavailable: {exc}"
        )


def _ms(seconds: float) -> int:
    """Whole milliseconds for PX, at least 1 (Redis refuses 0)."""
    return max(1, math.ceil(seconds * 1000))
