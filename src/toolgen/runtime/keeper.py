"""The keys of calls that still run, kept from outside those calls.

A keyed call holds its key from its claim until it settles it. The lease (`in_flight_ttl`)
is only how long a key outlives a process killed mid-call: while the call runs, the keeper
renews the lease every quarter of it, so a key is not free while its handler runs, however
long past the lease it goes on. A sync handler whose attempt timed out or was cancelled goes
on running on its thread; the call hands its key over, and the keeper settles it with what
the handler did once it ends. A settlement the caller's event loop could not finish (the loop
was torn down) is finished here too.

All of it runs on one thread of the process with an event loop of its own, started at the
first keyed call: the loop a call ran on may be gone, or busy, by then. A forked child starts
its own and keeps none of the parent's keys (their calls are the parent's).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from toolgen.runtime.forks import inherited, renew_in_child
from toolgen.runtime.store import IdempotencyStore, StoreUnavailable

log = logging.getLogger("toolgen.runtime")

#: The longest sleep between two looks at the held keys (a key held with a short lease
#: shortens it).
LONGEST_BEAT = 60.0


class Held:
    """One key a call holds: renewed until `released`; `settling` once its settlement began
    (a renewal refused after that is no loss)."""

    __slots__ = (
        "key",
        "lease_s",
        "released",
        "renewed",
        "renewing",
        "settling",
        "store",
        "token",
        "tool",
        "trace_id",
    )

    def __init__(
        self,
        store: IdempotencyStore,
        tool: str,
        key: str,
        token: str,
        lease_s: float,
        trace_id: str,
    ) -> None:
        self.store, self.tool, self.key, self.token = store, tool, key, token
        self.lease_s, self.trace_id = lease_s, trace_id
        self.renewed = time.monotonic()
        self.renewing = self.settling = self.released = False


class Keeper:
    """Held keys and their renewals, and the loop that settles keys late (see the module)."""

    def __init__(self) -> None:
        self._forked()
        renew_in_child(self)

    def _forked(self) -> None:
        loop = getattr(self, "_loop", None)
        if loop is not None:  # the parent's, sharing its epoll instance: never closed here
            inherited.append(loop)
        self._lock = threading.Lock()
        self._held: dict[int, Held] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._beat_s = LONGEST_BEAT
        self._beating: asyncio.Task[None] | None = None
        self._pending: set[concurrent.futures.Future[Any]] = set()
        self._without_renew: set[int] = set()

    def hold(
        self,
        store: IdempotencyStore,
        tool: str,
        key: str,
        token: str,
        lease_s: float,
        trace_id: str,
    ) -> Held:
        """Keep renewing the lease of a key a call now holds, until `release`."""
        held = Held(store, tool, key, token, lease_s, trace_id)
        loop = self._loop or self._start()
        with self._lock:
            self._held[id(held)] = held
            quicker = lease_s / 4 < self._beat_s
            if quicker:
                self._beat_s = lease_s / 4
        if quicker:  # rare: the first short lease; the beat starts again at its pace
            loop.call_soon_threadsafe(self._restart)
        return held

    def release(self, held: Held) -> None:
        """The key is settled (or handed to `run`): no more renewals."""
        held.released = True
        with self._lock:
            self._held.pop(id(held), None)

    def run(self, work: Callable[[], Awaitable[None]]) -> None:
        """Run `work()` on the keeper's loop (a key's late settlement)."""
        loop = self._loop or self._start()

        async def guarded() -> None:
            try:
                await work()
            except Exception as exc:
                log.error("settling an idempotency key failed", exc_info=exc)

        future = asyncio.run_coroutine_threadsafe(guarded(), loop)
        with self._lock:
            self._pending.add(future)
        future.add_done_callback(self._done)

    def _done(self, future: concurrent.futures.Future[Any]) -> None:
        with self._lock:
            self._pending.discard(future)

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = self._loop = asyncio.new_event_loop()
                threading.Thread(
                    target=loop.run_forever, name="toolgen-keeper", daemon=True
                ).start()
                loop.call_soon_threadsafe(self._restart)
            return self._loop

    # Below: on the keeper's loop only.

    def _restart(self) -> None:
        if self._beating is not None:
            self._beating.cancel()
        self._beating = asyncio.get_running_loop().create_task(self._beat())

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self._beat_s)
            now = time.monotonic()
            with self._lock:
                due = [
                    held
                    for held in self._held.values()
                    if not held.renewing and now - held.renewed >= held.lease_s / 4
                ]
            for held in due:
                held.renewing = True
                asyncio.get_running_loop().create_task(self._renew(held))

    async def _renew(self, held: Held) -> None:
        store = held.store
        renew = getattr(store, "renew", None)
        try:
            if renew is None:
                if id(store) not in self._without_renew:
                    self._without_renew.add(id(store))
                    log.warning(
                        "the idempotency store %r has no renew(): a call that runs past "
                        "in_flight_ttl lets another call with its key run",
                        store,
                    )
                self.release(held)
                return
            asked = time.monotonic()
            kept = await renew(held.tool, held.key, held.token, held.lease_s)
            if kept is False and not (held.settling or held.released):
                log.warning(
                    "[trace %s] the idempotency key of %s was lost while its call ran "
                    "(its lease ran out before it could be renewed): another call may run",
                    held.trace_id,
                    held.tool,
                )
                self.release(held)
            elif kept:
                held.renewed = asked
        except StoreUnavailable as exc:  # tried again at the next beat
            log.warning(
                "[trace %s] renewing the lease of an idempotency key failed: %s",
                held.trace_id,
                exc,
            )
        except Exception as exc:
            log.error("[trace %s] renewing a lease failed", held.trace_id, exc_info=exc)
        finally:
            held.renewing = False


#: The process's keeper.
KEEPER = Keeper()
