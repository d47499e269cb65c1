"""`redis://host:port/db`: an idempotency store in Redis, shared by workers on many machines.

One Redis key per `(tool, key)`, its value JSON `{"fingerprint", "status", "token"}` (and
`"result"` once done), its expiry the lease and then the TTL, so Redis itself frees what a dead
worker left. `begin` is `SET NX PX` (only one of any number of workers creates the key);
`begin`'s read of a taken key, `finish`, `renew` and `abandon` are Lua scripts, so the read and
the compare-and-set on the token happen in one step on the server. Leases and TTLs are the
server's own expiries, on its clock.

Needs the `redis` client (`pip install "toolgen[redis]"`), imported when a redis store is made
(not at its first call: a process forked meanwhile would wait for another thread's import); the
rest of the runtime works without it, and a store made without it is unavailable.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import math
import secrets
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from toolgen.runtime.forks import inherited, renew_in_child
from toolgen.runtime.store.base import Begin, Started, StoreUnavailable, redacted, taken

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.commands.core import AsyncScript

__all__ = ["RedisStore"]

T = TypeVar("T")

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

# KEYS[1] the entry; ARGV[1] the token, ARGV[2] the lease (ms).
_RENEW = """
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local entry = cjson.decode(raw)
if entry['token'] ~= ARGV[1] or entry['status'] ~= 'in_flight' then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
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
class _Worker:
    """The store's own event loop, in its own thread, and the client that lives in it."""

    loop: asyncio.AbstractEventLoop
    thread: threading.Thread
    redis: Redis
    begin: AsyncScript
    finish: AsyncScript
    renew: AsyncScript
    abandon: AsyncScript
    errors: tuple[type[BaseException], ...]


class RedisStore:
    """Entries in the Redis server at `url`, under keys starting with `prefix`.

    A redis.asyncio client belongs to the event loop it first ran in, while one store serves
    every loop of the process (a sync call runs its own loop in a thread): so the client runs in
    this store's own loop thread, and callers await its answers from wherever they are.
    """

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "toolgen:idempotency:",
        max_connections: int = 32,
        pool_timeout_s: float = 10.0,
    ) -> None:
        """A store for `url`; nothing is connected before the first call.

        At most `max_connections` connections: more concurrent calls wait for one to be free,
        up to `pool_timeout_s` seconds, then the store counts as unavailable.
        """
        self.url = url
        self.prefix = prefix
        self._max_connections = max_connections
        self._pool_timeout_s = pool_timeout_s
        self._lock = threading.Lock()
        self._worker: _Worker | None = None
        self._closed = False
        renew_in_child(self)
        # the client is imported now, not at the first call: a process forked while another
        # thread imports it would wait in the child for that thread's import lock forever
        with contextlib.suppress(ImportError):
            import redis.asyncio  # noqa: F401

    def __repr__(self) -> str:
        return f"RedisStore({redacted(self.url)!r}, prefix={self.prefix!r})"

    async def begin(self, tool: str, key: str, fingerprint: str, lease_s: float) -> Begin:
        """Claim the key with `SET NX PX` unless a live entry holds it. Cancelled, the claim
        still ends on the server (its answer may be on its way): a claim it made is freed."""
        token = secrets.token_hex(16)
        value = json.dumps({"fingerprint": fingerprint, "status": "in_flight", "token": token})
        name = self._name(tool, key)
        worker = self._start()
        claiming = asyncio.run_coroutine_threadsafe(
            worker.begin(keys=[name], args=[value, _ms(lease_s)]), worker.loop
        )
        try:
            # shielded: a cancellation must not cut the claim off between the server and us
            answer = await asyncio.shield(asyncio.wrap_future(claiming))
        except (asyncio.CancelledError, GeneratorExit):  # no await here
            claiming.add_done_callback(lambda done: self._free_claim(worker, name, token, done))
            raise
        except Exception as exc:
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

    async def finish(self, tool: str, key: str, token: str, result: str, ttl_s: float) -> bool:
        """Keep `result` for `ttl_s` seconds if `token` still holds the key's live lease."""
        name = self._name(tool, key)
        kept = await self._run(lambda w: w.finish(keys=[name], args=[token, result, _ms(ttl_s)]))
        return bool(kept)

    async def renew(self, tool: str, key: str, token: str, lease_s: float) -> bool:
        """Extend the lease `token` still holds to `lease_s` seconds from now."""
        name = self._name(tool, key)
        kept = await self._run(lambda w: w.renew(keys=[name], args=[token, _ms(lease_s)]))
        return bool(kept)

    async def abandon(self, tool: str, key: str, token: str) -> None:
        """Delete the key if `token` still holds its live lease."""
        name = self._name(tool, key)
        await self._run(lambda w: w.abandon(keys=[name], args=[token]))

    async def aclose(self) -> None:
        """Close the connections and stop the store's loop thread; the store is unavailable
        afterwards (a late settlement must not open it again, and leave it open)."""
        with self._lock:
            worker, self._worker = self._worker, None
            self._closed = True
        if worker is None:
            return
        try:
            await asyncio.wrap_future(
                asyncio.run_coroutine_threadsafe(_shutdown(worker), worker.loop)
            )
        except worker.errors as exc:
            raise self._unavailable(exc) from exc
        finally:
            worker.loop.call_soon_threadsafe(worker.loop.stop)
            await asyncio.to_thread(worker.thread.join)
            worker.loop.close()

    async def _run(self, call: Callable[[_Worker], Awaitable[T]]) -> T:
        worker = self._start()

        async def in_worker() -> T:
            return await call(worker)

        future = asyncio.run_coroutine_threadsafe(in_worker(), worker.loop)
        try:
            return await asyncio.wrap_future(future)
        except Exception as exc:
            raise self._unavailable(exc) from exc

    def _free_claim(
        self, worker: _Worker, name: str, token: str, done: concurrent.futures.Future[Any]
    ) -> None:
        """After a cancelled `begin`, in the store's loop: free the claim it made."""
        if done.cancelled() or done.exception() is not None or done.result()[0] != 1:
            return

        async def free() -> None:
            with contextlib.suppress(*worker.errors):  # else the lease frees it
                await worker.abandon(keys=[name], args=[token])

        with contextlib.suppress(RuntimeError):  # the loop was closed meanwhile
            asyncio.run_coroutine_threadsafe(free(), worker.loop)

    def _forked(self) -> None:
        # the loop's thread is the parent's (the loop and the connections too, sharing its
        # epoll instance and sockets): kept untouched, and a new one made on the next call
        self._lock = threading.Lock()
        if self._worker is not None:
            inherited.append(self._worker)
        self._worker = None

    def _start(self) -> _Worker:
        with self._lock:
            if self._worker is not None:
                return self._worker
            if self._closed:
                raise StoreUnavailable(
                    f"the redis idempotency store {redacted(self.url)} is closed"
                )
            try:
                from redis import asyncio as aioredis
                from redis.exceptions import RedisError
            except ImportError as exc:
                raise StoreUnavailable(_INSTALL) from exc
            try:
                # a blocking pool: a burst of calls waits for a connection instead of failing
                pool = aioredis.BlockingConnectionPool.from_url(
                    self.url,
                    max_connections=self._max_connections,
                    timeout=self._pool_timeout_s,
                    decode_responses=True,
                )
            except ValueError as exc:  # an option of the URL's query string
                raise self._unavailable(exc) from exc
            redis = aioredis.Redis(connection_pool=pool)
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="toolgen-redis", daemon=True)
            thread.start()
            self._worker = _Worker(
                loop,
                thread,
                redis,
                redis.register_script(_BEGIN),
                redis.register_script(_FINISH),
                redis.register_script(_RENEW),
                redis.register_script(_ABANDON),
                # UnicodeError: text the client cannot send (the runtime never hands it any)
                (RedisError, OSError, TimeoutError, UnicodeError),
            )
            return self._worker

    def _name(self, tool: str, key: str) -> str:
        # the tool's length first: tool "a:b" with key "c" and tool "a" with key "b:c" differ
        return f"{self.prefix}{len(tool)}:{tool}:{key}"

    def _unavailable(self, exc: BaseException) -> StoreUnavailable:
        # the client's errors and the system's say what failed (refused, auth, timeout);
        # anything else is named by its type only: its text might quote the URL's options
        worker = self._worker
        told: tuple[type[BaseException], ...] = (ValueError, KeyError)
        if worker is not None:
            told += worker.errors
        reason = str(exc) if isinstance(exc, told) else type(exc).__name__
        return StoreUnavailable(
            f"the redis idempotency store {redacted(self.url)} is unavailable: {reason}"
        )


async def _shutdown(worker: _Worker) -> None:
    """In the worker's loop: stop what callers left running, then close the connections."""
    this = asyncio.current_task()
    left = [task for task in asyncio.all_tasks() if task is not this]
    for task in left:
        task.cancel()
    await asyncio.gather(*left, return_exceptions=True)
    # redis 5.0.0 has close(); aclose() replaces it from 5.0.1
    closer: Any = getattr(worker.redis, "aclose", None) or worker.redis.close
    await closer()
    await worker.redis.connection_pool.disconnect()


def _ms(seconds: float) -> int:
    """Whole milliseconds for PX, at least 1 (Redis refuses 0)."""
    return max(1, math.ceil(seconds * 1000))
