"""What happens around a store: its sqlite file deleted or replaced while open, the wall
clock set, a call cancelled while it claims its key, a password in its URL."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolgen.runtime import Toolbox
from toolgen.runtime.store import InFlight, Replay, Started, StoreUnavailable, open_store, redacted
from toolgen.runtime.store.redis import RedisStore
from toolgen.runtime.store.sqlite import SqliteStore

from .stores_support import (  # noqa: F401 - fixtures
    LONG,
    PAY,
    free_port,
    redis_url_fixture,
)

# -- the sqlite file deleted or replaced while stores use it ------------------------------------


def _begin(store: SqliteStore, key: str) -> Any:
    async def go() -> Any:
        try:
            return await store.begin("pay", key, "fp", LONG)
        except StoreUnavailable as exc:
            return exc

    return asyncio.run(go())


def _close(*stores: SqliteStore) -> None:
    async def go() -> None:
        for store in stores:
            await store.aclose()

    asyncio.run(go())


@pytest.mark.parametrize("leftovers", ["kept", "removed"])
def test_stores_on_a_deleted_file_never_split(tmp_path: Path, leftovers: str) -> None:
    """Two stores on one file, the file deleted, a third store (a process started after):
    no two of them may both claim one key. Each either claims it, sees it in flight, or
    refuses (unavailable); never two owners."""
    path = tmp_path / "keys.db"
    first, second = SqliteStore(path), SqliteStore(path)
    try:
        assert isinstance(_begin(first, "warm-1"), Started)
        assert isinstance(_begin(second, "warm-2"), Started)
        path.unlink()
        if leftovers == "removed":  # the -wal and -shm files too, as `rm keys.db*` would
            for side in tmp_path.glob("keys.db-*"):
                side.unlink()
        third = SqliteStore(path)
        answers = [_begin(store, "k") for store in (first, second, third, first, second)]
        owners = [a for a in answers if isinstance(a, Started)]
        assert len(owners) <= 1, answers
        assert all(isinstance(a, Started | InFlight | StoreUnavailable) for a in answers)
        if leftovers == "removed":  # nothing of the old file is left: they all go on, on one
            assert len(owners) == 1, answers
        _close(third)
    finally:
        _close(first, second)


def test_a_store_whose_file_is_replaced_follows_the_path(tmp_path: Path) -> None:
    path, other = tmp_path / "keys.db", tmp_path / "other.db"
    first, maker = SqliteStore(path), SqliteStore(other)
    try:
        assert isinstance(_begin(first, "warm"), Started)
        assert isinstance(_begin(maker, "k"), Started)  # the other file holds "k"
        _close(maker)
        for side in tmp_path.glob("keys.db-*"):
            side.unlink()
        other.replace(path)
        answer = _begin(first, "k")
        assert isinstance(answer, InFlight | StoreUnavailable), answer
    finally:
        _close(first)


# -- the wall clock ------------------------------------------------------------------------------

# Claims a key on the sqlite file at argv[1] in a process whose wall clock is argv[2] seconds
# off (as after the clock was set): prints the answer's kind.
_SKEWED = """
import asyncio, sys, time
real = time.time
time.time = lambda: real() + float(sys.argv[2])  # before the store binds its clocks
from toolgen.runtime.store import open_store

async def main():
    store = open_store(f"sqlite:///{sys.argv[1]}")
    try:
        begun = await store.begin("pay", sys.argv[3], "fp", 60.0)
        if type(begun).__name__ == "Started" and len(sys.argv) > 4:
            await store.finish("pay", sys.argv[3], begun.token, '{"status": "ok"}', 60.0)
        print(type(begun).__name__)
    finally:
        await store.aclose()

asyncio.run(main())
"""


def _skewed(path: Path, skew: float, key: str, finish: bool = False) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_SKEWED), str(path), str(skew), key]
        + (["finish"] if finish else []),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("skew", [3600.0, -3600.0])
def test_sqlite_leases_and_results_do_not_move_with_the_wall_clock(
    tmp_path: Path, skew: float
) -> None:
    """A lease taken here holds for a process that sees the wall clock an hour ahead; a lease
    that a process an hour behind took is over when its lease is, for everyone."""
    path = tmp_path / "keys.db"
    store = SqliteStore(path)
    try:
        assert isinstance(_begin(store, "held"), Started)
        assert _skewed(path, skew, "held") == "InFlight"
        # a result the skewed process kept replays here for its TTL, and the other way round
        assert _skewed(path, skew, "done", finish=True) == "Started"
        assert type(_begin(store, "done")).__name__ == "Replay"
    finally:
        _close(store)


# -- a call cancelled while it claims its key -------------------------------------------------


class Watched:
    """A store that says when a claim has been sent to the store it wraps."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.claiming = asyncio.Event()

    async def begin(self, *args: Any) -> Any:
        pending = asyncio.ensure_future(self.inner.begin(*args))
        if not self.claiming.is_set():
            # time for the store's own thread to take the claim up (it then waits on the
            # store); on a machine too busy for that the call is cancelled before its claim
            await asyncio.sleep(0.3)
            self.claiming.set()
        return await pending

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _cancelled_while_claiming(
    make_box: Callable[..., Toolbox],
    store: Any,
    hold: Callable[[], None],
    let_go: Callable[[], None],
) -> list[str]:
    """Cancel a keyed call while its claim waits on the store, then let the store go on: what
    later calls with the key answer, until one runs (at most a while)."""
    runs: list[str] = []

    def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(to)
        return {"sent": amount}

    watched = Watched(store)
    box = make_box(handlers={"transfer": transfer}, store=watched)
    arguments = {"amount": 5, "to": "acct", "idempotency_key": f"key-{uuid.uuid4().hex}"}
    seen: list[str] = []

    async def scenario() -> None:
        hold()
        call = asyncio.create_task(box.acall("transfer", arguments, context=PAY))
        await watched.claiming.wait()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        let_go()
        for _ in range(300):  # a bound on the wait only (30 s)
            again = await box.acall("transfer", arguments, context=PAY)
            seen.append(again.error["code"] if again.error else "ok")
            if again.ok:
                return
            await asyncio.sleep(0.1)

    try:
        asyncio.run(scenario())
    finally:
        asyncio.run(store.aclose())
    assert runs == ["acct"], seen
    return seen


def test_a_call_cancelled_while_sqlite_claims_its_key_does_not_wedge_it(
    make_box: Callable[..., Toolbox], tmp_path: Path
) -> None:
    import sqlite3

    path = tmp_path / "keys.db"
    store = SqliteStore(path)
    assert isinstance(_begin(store, "warm"), Started)
    holder = sqlite3.connect(path, isolation_level=None)

    try:
        _cancelled_while_claiming(
            make_box,
            store,
            lambda: holder.execute("BEGIN EXCLUSIVE"),
            lambda: holder.rollback(),
        )
    finally:
        holder.close()


class HeldReplies:
    """A TCP proxy to redis that passes requests on at once and, while `held`, keeps the
    replies back: a command the server has run, whose answer has not come back yet."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream = upstream_port
        self.released = threading.Event()
        self.released.set()
        self.loop = asyncio.new_event_loop()
        self.port = free_port()
        ready = threading.Event()

        async def serve() -> None:
            self.server = await asyncio.start_server(self._client, "127.0.0.1", self.port)
            ready.set()

        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(serve(), self.loop)
        assert ready.wait(10)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter, hold: bool):
            try:
                while data := await source.read(65536):
                    while hold and not self.released.is_set():
                        await asyncio.sleep(0.01)
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                sink.close()

        await asyncio.gather(pump(reader, up_writer, False), pump(up_reader, writer, True))

    def close(self) -> None:
        async def stop() -> None:
            self.server.close()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def test_a_call_cancelled_while_redis_claims_its_key_does_not_wedge_it(
    make_box: Callable[..., Toolbox], redis_url: str
) -> None:
    """The claim ran on the server, its answer is on its way back when the call is cancelled."""
    proxy = HeldReplies(int(redis_url.rsplit(":", 1)[1].split("/")[0]))
    store = RedisStore(f"redis://127.0.0.1:{proxy.port}/0", prefix=f"test:{uuid.uuid4().hex}:")
    assert isinstance(asyncio.run(store.begin("pay", "warm", "fp", LONG)), Started)
    try:
        _cancelled_while_claiming(make_box, store, proxy.released.clear, proxy.released.set)
    finally:
        proxy.released.set()
        proxy.close()


# -- passwords ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "sqlite://user:hunter2@host/keys.db",
        "memory://:hunter2@somewhere",
        "redis:user:hunter2@host",
        "postgres://user:hunter2@db/x",
        "redis://user:hunter2@[::1/0",
    ],
)
def test_a_password_in_a_refused_url_is_never_told(url: str) -> None:
    with pytest.raises(ValueError) as refused:
        open_store(url)
    assert "hunter2" not in str(refused.value)
    with pytest.raises(ValueError) as at_load:
        Toolbox(_empty_catalog(), store=url)
    assert "hunter2" not in str(at_load.value)


def _empty_catalog() -> Any:
    from toolgen.runtime.catalog import Catalog

    return Catalog(Path(), {}, {}, None)


@pytest.mark.parametrize(
    "url",
    [
        "redis://127.0.0.1:{port}/0?password=hunter2",
        "redis://u:hunter2@127.0.0.1:{port}/0?password=hunter2",
        "redis://127.0.0.1:{port}/0?PASSWORD=hunter2&socket_timeout=1",
    ],
)
def test_a_password_in_a_redis_url_is_never_told(
    url: str, caplog: pytest.LogCaptureFixture, request: pytest.FixtureRequest
) -> None:
    request.getfixturevalue("redis_url")  # the client must be there
    url = url.format(port=free_port())
    assert "hunter2" not in redacted(url)
    store = open_store(url)
    assert "hunter2" not in repr(store)

    async def use() -> None:
        try:
            with pytest.raises(StoreUnavailable) as caught:
                await store.begin("pay", "k", "fp", LONG)
            assert "hunter2" not in str(caught.value)
        finally:
            await store.aclose()

    asyncio.run(use())
    caplog.set_level(logging.DEBUG)
    box = Toolbox(_empty_catalog(), store=url)
    assert "hunter2" not in repr(box)
    assert "hunter2" not in caplog.text


def test_sqlite_rows_of_another_boot_are_judged_by_the_wall_clock(tmp_path: Path) -> None:
    """After a reboot the monotonic clock starts again: a lease taken before it is over (its
    process is gone), a result kept before it replays until its TTL ends by the wall clock."""
    path = tmp_path / "keys.db"
    wall = [1_000_000.0]
    before = SqliteStore(path, boot=lambda: "boot-1", clock=lambda: 5_000.0, wall=lambda: wall[0])
    after = SqliteStore(path, boot=lambda: "boot-2", clock=lambda: 10.0, wall=lambda: wall[0])

    async def scenario() -> None:
        try:
            assert isinstance(await before.begin("pay", "running", "fp", LONG), Started)
            done = await before.begin("pay", "done", "fp", LONG)
            assert isinstance(done, Started)
            assert await before.finish("pay", "done", done.token, '{"status": "ok"}', 100.0)
            assert isinstance(await after.begin("pay", "running", "fp", LONG), Started)
            assert await after.begin("pay", "done", "fp", LONG) == Replay('{"status": "ok"}')
            wall[0] += 101.0  # the result's TTL is over by the wall clock
            assert isinstance(await after.begin("pay", "done", "fp", LONG), Started)
        finally:
            await before.aclose()
            await after.aclose()

    asyncio.run(scenario())


def test_sqlite_a_file_of_an_older_version_is_taken_over_and_refuses_that_version(
    tmp_path: Path,
) -> None:
    """Rows an older version wrote keep their meaning (the wall clock); the file gains the
    new columns, and that version's claims then fail (closed), never write apart."""
    import sqlite3

    path = tmp_path / "keys.db"
    old = sqlite3.connect(path, isolation_level=None)
    old.executescript(
        """CREATE TABLE idempotency (tool TEXT NOT NULL, key TEXT NOT NULL,
        fingerprint TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('in_flight', 'done')),
        token TEXT NOT NULL, result TEXT, expires_at REAL NOT NULL, PRIMARY KEY (tool, key))
        WITHOUT ROWID;"""
    )
    claim = "INSERT OR REPLACE INTO idempotency VALUES (?, ?, ?, 'in_flight', ?, NULL, ?)"
    old.execute(claim, ("pay", "old-running", "fp", "t", time.time() + LONG))
    store = SqliteStore(path)
    try:
        assert isinstance(_begin(store, "old-running"), InFlight)
        with pytest.raises(sqlite3.OperationalError, match="9 columns but 7 values"):
            old.execute(claim, ("pay", "other", "fp", "t", time.time() + LONG))
    finally:
        old.close()
        _close(store)
