"""The stores under pressure: many claimants, killed processes, backends that are not there."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from toolgen.runtime.store import (
    IdempotencyStore,
    InFlight,
    Started,
    StoreUnavailable,
    open_store,
)
from toolgen.runtime.store.redis import RedisStore
from toolgen.runtime.store.sqlite import SqliteStore

from .stores_support import (  # noqa: F401 - fixtures
    LONG,
    Harness,
    free_port,
    make,
    play_fixture,
    redis_url_fixture,
    start_redis,
)

CLAIMS = 200


def kinds(begun: list[object]) -> Counter[str]:
    return Counter(type(b).__name__ for b in begun)


def test_200_concurrent_begins_of_one_key_start_exactly_once(play) -> None:
    async def scenario(h: Harness) -> None:
        begun = await asyncio.gather(
            *(h.store.begin("pay", "key-1", "fp", LONG) for _ in range(CLAIMS))
        )
        assert kinds(begun) == {"Started": 1, "InFlight": CLAIMS - 1}

    play(scenario)


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_200_begins_through_several_stores_of_one_backend_start_exactly_once(
    kind: str, tmp_path: Path, request
) -> None:
    """Four stores on one file or server, as four workers would have: still one owner."""
    url = request.getfixturevalue("redis_url") if kind == "redis" else None
    first = make(kind, tmp_path, url)
    stores: list[IdempotencyStore] = [first.store]
    for _ in range(3):
        if isinstance(first.store, SqliteStore):
            stores.append(SqliteStore(first.store.path, clock=first.clock or time.time))
        else:
            assert isinstance(first.store, RedisStore) and url is not None
            stores.append(RedisStore(url, prefix=first.store.prefix))

    async def scenario() -> None:
        try:
            begun = await asyncio.gather(
                *(stores[i % 4].begin("pay", "key-1", "fp", LONG) for i in range(CLAIMS))
            )
            assert kinds(begun) == {"Started": 1, "InFlight": CLAIMS - 1}
            # then a race per key, many times over: the stores claim the same keys in turn
            won = await asyncio.gather(*(_claim_in_turn(store) for store in stores))
            assert Counter(key for keys in won for key in keys) == dict.fromkeys(range(100), 1)
        finally:
            for store in stores:
                await store.aclose()

    asyncio.run(scenario())


async def _claim_in_turn(store: IdempotencyStore) -> list[int]:
    """The keys 0..99 claimed one after the other; those this store won."""
    return [
        key
        for key in range(100)
        if isinstance(await store.begin("race", str(key), "fp", LONG), Started)
    ]


# Several processes: each waits for the go file, then claims one key many times at once.
_CLAIMANT = """
import asyncio, json, sys, time
from pathlib import Path
from toolgen.runtime.store import open_store

KEYS = 300
url, folder, name, claims = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])

async def main():
    store = open_store(url)
    if hasattr(store, "prefix"):
        store.prefix = sys.argv[5]
    try:
        (folder / f"ready-{name}").touch()
        deadline = time.monotonic() + 60
        while not (folder / "go").exists():
            if time.monotonic() > deadline:
                raise SystemExit("no go")
            await asyncio.sleep(0.005)
        begun = await asyncio.gather(
            *(store.begin("pay", "key-1", "fp", 60.0) for _ in range(claims))
        )
        # then a race per key, many times over: every process claims the same keys in turn
        won = [
            key
            for key in range(KEYS)
            if type(await store.begin("race", str(key), "fp", 60.0)).__name__ == "Started"
        ]
        print(json.dumps({"begun": [type(b).__name__ for b in begun], "won": won}))
    finally:
        await store.aclose()

asyncio.run(main())
"""


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_200_begins_from_four_processes_start_exactly_once(
    kind: str, tmp_path: Path, request
) -> None:
    if kind == "redis":
        url = request.getfixturevalue("redis_url")
        prefix = f"test:{tmp_path.name}:"
    else:
        url, prefix = f"sqlite:///{tmp_path}/shared.db", ""
    script = tmp_path / "claimant.py"
    script.write_text(_CLAIMANT)
    processes = 4
    children = [
        subprocess.Popen(
            [sys.executable, str(script), url, str(tmp_path), str(i), str(CLAIMS // 4), prefix],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(processes)
    ]
    try:
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("ready-*"))) < processes and time.monotonic() < deadline:
            time.sleep(0.01)
        (tmp_path / "go").touch()
        outputs = [child.communicate(timeout=120) for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.communicate()
    for child, (_, err) in zip(children, outputs, strict=True):
        assert child.returncode == 0, err
    answers = [json.loads(out) for out, _ in outputs]
    assert Counter(name for a in answers for name in a["begun"]) == {
        "Started": 1,
        "InFlight": CLAIMS - 1,
    }
    won = Counter(key for a in answers for key in a["won"])
    assert won == dict.fromkeys(range(300), 1)


# A process that claims a key, says so, then hangs until it is killed.
_HOLDER = """
import asyncio, sys
from toolgen.runtime.store import open_store

async def main():
    store = open_store(sys.argv[1])
    if hasattr(store, "prefix"):
        store.prefix = sys.argv[3]
    begun = await store.begin("pay", "key-1", "fp", float(sys.argv[2]))
    print(type(begun).__name__, flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def _killed_after_begin(tmp_path: Path, url: str, lease: float, prefix: str = "") -> None:
    script = tmp_path / "holder.py"
    script.write_text(_HOLDER)
    child = subprocess.Popen(
        [sys.executable, str(script), url, str(lease), prefix],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "Started\n"
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate()
    assert child.returncode == -signal.SIGKILL


def test_sqlite_a_process_killed_after_begin_leaves_the_key_in_flight_until_its_lease_ends(
    tmp_path: Path,
) -> None:
    _killed_after_begin(tmp_path, f"sqlite:///{tmp_path}/runtime.db", lease=LONG)
    offset = 0.0
    store = SqliteStore(tmp_path / "runtime.db", clock=lambda: time.monotonic() + offset)

    async def scenario() -> None:
        nonlocal offset
        try:
            assert isinstance(await store.begin("pay", "key-1", "fp", LONG), InFlight)
            offset = LONG + 1  # the lease the killed process took is over
            assert isinstance(await store.begin("pay", "key-1", "fp", LONG), Started)
        finally:
            await store.aclose()

    asyncio.run(scenario())


def test_redis_a_process_killed_after_begin_leaves_the_key_in_flight_until_its_lease_ends(
    tmp_path: Path, redis_url: str
) -> None:
    prefix = f"test:{tmp_path.name}:"
    # long enough to still hold right after the kill on a busy machine; waited out below
    lease = 2.0
    _killed_after_begin(tmp_path, redis_url, lease=lease, prefix=prefix)
    store = RedisStore(redis_url, prefix=prefix)

    async def scenario() -> None:
        try:
            assert isinstance(await store.begin("pay", "key-1", "fp", LONG), InFlight)
            await asyncio.sleep(lease + 0.1)
            assert isinstance(await store.begin("pay", "key-1", "fp", LONG), Started)
        finally:
            await store.aclose()

    asyncio.run(scenario())


# Unavailable backends: StoreUnavailable from every call, never another exception.


async def _every_call_is_unavailable(store: IdempotencyStore, says: str) -> None:
    calls = [
        store.begin("pay", "key-1", "fp", LONG),
        store.finish("pay", "key-1", "token", "{}", LONG),
        store.abandon("pay", "key-1", "token"),
    ]
    for call in calls:
        with pytest.raises(StoreUnavailable, match=says) as caught:
            await call
        assert type(caught.value) is StoreUnavailable


def _unavailable(store: IdempotencyStore, says: str) -> None:
    async def scenario() -> None:
        try:
            await _every_call_is_unavailable(store, says)
        finally:
            await store.aclose()

    asyncio.run(scenario())


def test_sqlite_below_a_file_is_unavailable_then_recovers_once_the_folder_can_exist(
    tmp_path: Path,
) -> None:
    (tmp_path / "state").write_text("a file where the folder should be")
    store = open_store(f"sqlite:///{tmp_path}/state/runtime.db")

    async def scenario() -> None:
        try:
            await _every_call_is_unavailable(store, "sqlite idempotency store .* unavailable")
            (tmp_path / "state").unlink()
            assert isinstance(await store.begin("pay", "key-1", "fp", LONG), Started)
        finally:
            await store.aclose()

    asyncio.run(scenario())


def test_sqlite_a_corrupt_file_is_unavailable(tmp_path: Path) -> None:
    (tmp_path / "runtime.db").write_bytes(b"this is not a database, " * 400)
    _unavailable(open_store(f"sqlite:///{tmp_path}/runtime.db"), "not a database")


def test_sqlite_a_folder_in_place_of_the_file_is_unavailable(tmp_path: Path) -> None:
    (tmp_path / "runtime.db").mkdir()
    _unavailable(open_store(f"sqlite:///{tmp_path}/runtime.db"), "unable to open")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_sqlite_in_a_read_only_folder_is_unavailable(tmp_path: Path) -> None:
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        _unavailable(open_store(f"sqlite:///{folder}/runtime.db"), "unavailable")
    finally:
        folder.chmod(0o755)


def test_sqlite_stores_setting_up_one_new_file_at_once_all_open_it(tmp_path: Path) -> None:
    """Eight stores (as eight workers would) meet a database file nobody made yet, many times
    over: each opens it. sqlite answers "locked" at once, without waiting, to a connection that
    changes the journal mode while another sets the file up; the store waits instead."""

    def first_call(store: SqliteStore, failed: list[str]) -> None:
        async def begin() -> None:
            try:
                await store.begin("pay", secrets.token_hex(8), "fp", LONG)
            except StoreUnavailable as exc:
                failed.append(str(exc))
            finally:
                await store.aclose()

        asyncio.run(begin())

    failed: list[str] = []
    for trial in range(150):
        path = tmp_path / f"fresh-{trial}.db"
        threads = [
            threading.Thread(target=first_call, args=(SqliteStore(path), failed)) for _ in range(8)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failed == []


def test_sqlite_locked_longer_than_the_busy_timeout_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "runtime.db"
    asyncio.run(_create(path))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        _unavailable(SqliteStore(path, busy_timeout_s=0.05), "locked")
    finally:
        holder.rollback()
        holder.close()


def test_sqlite_after_aclose_is_unavailable(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "runtime.db")

    async def scenario() -> None:
        await store.aclose()
        await store.aclose()  # closing twice is harmless
        await _every_call_is_unavailable(store, "closed")

    asyncio.run(scenario())


def test_redis_after_aclose_is_unavailable_and_opens_nothing_again(redis_url: str) -> None:
    """A late settlement (a handler that outlived its call) may reach a store its toolbox
    closed: it must not open it again (and leave it open)."""
    store = RedisStore(redis_url, prefix=f"test:{os.getpid()}:{time.monotonic_ns()}:")

    async def scenario() -> None:
        assert isinstance(await store.begin("pay", "key-1", "fp", LONG), Started)
        await store.aclose()
        await _every_call_is_unavailable(store, "closed")
        assert store._worker is None

    asyncio.run(scenario())


def test_redis_on_a_closed_port_is_unavailable_and_keeps_its_password(request) -> None:
    request.getfixturevalue("redis_url")  # the client must be installed (or the test skips)
    url = f"redis://user:hunter2@127.0.0.1:{free_port()}/0"
    store = open_store(url)

    async def scenario() -> None:
        try:
            for call in (
                store.begin("pay", "key-1", "fp", LONG),
                store.finish("pay", "key-1", "token", "{}", LONG),
                store.abandon("pay", "key-1", "token"),
            ):
                with pytest.raises(StoreUnavailable) as caught:
                    await call
                assert type(caught.value) is StoreUnavailable
                assert "redis idempotency store" in str(caught.value)
                assert "hunter2" not in str(caught.value)
        finally:
            await store.aclose()

    asyncio.run(scenario())


def test_redis_that_goes_away_mid_use_is_unavailable(tmp_path: Path, request) -> None:
    request.getfixturevalue("redis_url")
    binary = shutil.which("redis-server")
    assert binary is not None
    url, stop = start_redis(binary, tmp_path)
    store = RedisStore(url)

    async def scenario() -> None:
        try:
            begun = await store.begin("pay", "key-1", "fp", LONG)
            assert isinstance(begun, Started)
            stop()
            await _every_call_is_unavailable(store, "unavailable")
        finally:
            await store.aclose()

    try:
        asyncio.run(scenario())
    finally:
        stop()


def test_redis_a_foreign_value_under_a_key_is_unavailable(redis_url: str) -> None:
    import redis

    prefix = f"test:{os.getpid()}:{time.monotonic_ns()}:"
    with redis.Redis.from_url(redis_url) as raw:
        raw.set(f"{prefix}3:pay:key-1", "not json")
    _unavailable(RedisStore(redis_url, prefix=prefix), "unavailable")


def test_store_unavailable_is_raised_with_its_cause_for_the_logs(tmp_path: Path) -> None:
    (tmp_path / "runtime.db").write_bytes(b"x" * 4096)
    store = open_store(f"sqlite:///{tmp_path}/runtime.db")

    async def scenario() -> None:
        try:
            with pytest.raises(StoreUnavailable) as caught:
                await store.begin("pay", "key-1", "fp", LONG)
            assert isinstance(caught.value.__cause__, sqlite3.DatabaseError)
        finally:
            await store.aclose()

    asyncio.run(scenario())


def test_the_stores_never_block_the_event_loop(tmp_path: Path) -> None:
    """While sqlite waits for a lock, other coroutines of the loop keep running."""
    path = tmp_path / "runtime.db"
    asyncio.run(_create(path))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    store = SqliteStore(path, busy_timeout_s=5.0)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    async def scenario() -> None:
        beat = asyncio.create_task(ticker())
        claim = asyncio.create_task(store.begin("pay", "key-1", "fp", LONG))
        try:
            while ticks < 100:  # the loop turns while the claim waits on the lock
                await asyncio.sleep(0)
            assert not claim.done()
            holder.rollback()
            assert isinstance(await claim, Started)
        finally:
            beat.cancel()
            await store.aclose()

    try:
        asyncio.run(scenario())
    finally:
        holder.close()


async def _create(path: Path) -> None:
    store = SqliteStore(path)
    assert isinstance(await store.begin("pay", "other", "fp", LONG), Started)
    await store.aclose()
