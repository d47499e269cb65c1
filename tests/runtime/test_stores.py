"""The idempotency stores behave alike: one suite, run against memory://, sqlite:/// and redis://."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from toolgen.runtime.store import (
    RETRY_AFTER_CAP_MS,
    IdempotencyStore,
    InFlight,
    Replay,
    Reused,
    Started,
    StoreUnavailable,
    open_store,
)
from toolgen.runtime.store.memory import MemoryStore
from toolgen.runtime.store.redis import RedisStore
from toolgen.runtime.store.sqlite import SqliteStore

from .stores_support import LONG, SHORT, Harness, make, play_fixture, redis_url_fixture  # noqa: F401

OK = json.dumps({"status": "ok", "data": {"id": 7}})


async def started(h: Harness, key: str = "key-1", fp: str = "fp-a", lease: float = LONG) -> str:
    begun = await h.store.begin("send_email", key, fp, lease)
    assert isinstance(begun, Started), begun
    return begun.token


def test_started_then_replay_of_the_stored_result_after_finish(play) -> None:
    async def scenario(h: Harness) -> None:
        token = await started(h)
        await h.store.finish("send_email", "key-1", token, OK, LONG)
        assert await h.store.begin("send_email", "key-1", "fp-a", LONG) == Replay(OK)
        # a replay is not a claim: it may be asked for again
        assert await h.store.begin("send_email", "key-1", "fp-a", LONG) == Replay(OK)

    play(scenario)


def test_another_fingerprint_is_reused_whether_finished_or_in_flight(play) -> None:
    async def scenario(h: Harness) -> None:
        token = await started(h)
        assert await h.store.begin("send_email", "key-1", "fp-b", LONG) == Reused()
        await h.store.finish("send_email", "key-1", token, OK, LONG)
        assert await h.store.begin("send_email", "key-1", "fp-b", LONG) == Reused()

    play(scenario)


def test_in_flight_while_running_with_a_short_positive_wait(play) -> None:
    async def scenario(h: Harness) -> None:
        await started(h)
        begun = await h.store.begin("send_email", "key-1", "fp-a", LONG)
        assert isinstance(begun, InFlight)
        # the lease is a minute, but the caller is told to come back soon
        assert 0 < begun.retry_after_ms <= RETRY_AFTER_CAP_MS

    play(scenario)


def test_abandon_frees_the_key_for_any_arguments(play) -> None:
    async def scenario(h: Harness) -> None:
        first = await started(h)
        await h.store.abandon("send_email", "key-1", first)
        second = await started(h, fp="fp-b")
        assert second != first

    play(scenario)


def test_a_lease_that_expired_frees_the_key(play) -> None:
    async def scenario(h: Harness) -> None:
        first = await started(h, lease=SHORT)
        await h.wait(SHORT)
        assert await started(h, lease=SHORT) != first

    play(scenario)


def test_a_stale_token_neither_finishes_nor_abandons_the_new_owner(play) -> None:
    async def scenario(h: Harness) -> None:
        stale = await started(h, lease=SHORT)
        await h.wait(SHORT)
        owner = await started(h)
        await h.store.finish("send_email", "key-1", stale, '{"stale": true}', LONG)
        await h.store.abandon("send_email", "key-1", stale)
        assert isinstance(await h.store.begin("send_email", "key-1", "fp-a", LONG), InFlight)
        await h.store.finish("send_email", "key-1", owner, OK, LONG)
        assert await h.store.begin("send_email", "key-1", "fp-a", LONG) == Replay(OK)

    play(scenario)


def test_a_token_that_never_owned_the_key_changes_nothing(play) -> None:
    async def scenario(h: Harness) -> None:
        await started(h)
        await h.store.finish("send_email", "key-1", "not-the-token", OK, LONG)
        await h.store.abandon("send_email", "key-1", "not-the-token")
        assert isinstance(await h.store.begin("send_email", "key-1", "fp-a", LONG), InFlight)

    play(scenario)


def test_a_lease_that_ran_out_cannot_be_finished_even_unclaimed(play) -> None:
    """Every store agrees: once the lease is over the token owns nothing, claimed or not."""

    async def scenario(h: Harness) -> None:
        late = await started(h, lease=SHORT)
        await h.wait(SHORT)
        await h.store.finish("send_email", "key-1", late, OK, LONG)
        await started(h)

    play(scenario)


def test_abandon_after_finish_keeps_the_result(play) -> None:
    async def scenario(h: Harness) -> None:
        token = await started(h)
        await h.store.finish("send_email", "key-1", token, OK, LONG)
        await h.store.abandon("send_email", "key-1", token)
        assert await h.store.begin("send_email", "key-1", "fp-a", LONG) == Replay(OK)

    play(scenario)


def test_a_finished_entry_is_forgotten_after_its_ttl(play) -> None:
    async def scenario(h: Harness) -> None:
        token = await started(h)
        await h.store.finish("send_email", "key-1", token, OK, SHORT)
        assert await h.store.begin("send_email", "key-1", "fp-a", LONG) == Replay(OK)
        await h.wait(SHORT)
        await started(h, fp="fp-b")

    play(scenario)


def test_keys_belong_to_their_tool(play) -> None:
    async def scenario(h: Harness) -> None:
        assert isinstance(await h.store.begin("a", "k", "fp", LONG), Started)
        assert isinstance(await h.store.begin("b", "k", "fp", LONG), Started)
        # no separator trick makes two places one
        assert isinstance(await h.store.begin("a:b", "c", "fp", LONG), Started)
        assert isinstance(await h.store.begin("a", "b:c", "fp", LONG), Started)

    play(scenario)


def test_results_come_back_exactly(play) -> None:
    """Non-ASCII, separators JSON escapes and a large result survive the round trip unchanged."""
    result = json.dumps(
        {"status": "ok", "data": {"text": 'é \u2028 / \\ " ✓ ' + "x" * 200_000}},
        ensure_ascii=False,
    )

    async def scenario(h: Harness) -> None:
        token = await started(h, key="ключ-🔑")
        await h.store.finish("send_email", "ключ-🔑", token, result, LONG)
        assert await h.store.begin("send_email", "ключ-🔑", "fp-a", LONG) == Replay(result)

    play(scenario)


@pytest.mark.parametrize("kind", ["memory", "sqlite", "redis"])
def test_one_store_serves_successive_event_loops(kind: str, tmp_path: Path, request) -> None:
    """A sync call may run its own loop each time: the store must not be tied to the first."""
    url = request.getfixturevalue("redis_url") if kind == "redis" else None
    h = make(kind, tmp_path, url)
    token = asyncio.run(h.store.begin("t", "k", "fp", LONG))
    assert isinstance(token, Started)
    asyncio.run(h.store.finish("t", "k", token.token, OK, LONG))

    async def last() -> None:
        assert await h.store.begin("t", "k", "fp", LONG) == Replay(OK)
        await h.store.aclose()

    asyncio.run(last())


# open_store


def test_open_store_dispatches_by_scheme_and_opens_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert isinstance(open_store("memory://"), MemoryStore)
    relative = open_store("sqlite:///state/runtime.db")
    assert isinstance(relative, SqliteStore) and relative.path == Path("state/runtime.db")
    absolute = open_store(f"sqlite:///{tmp_path}/abs/runtime.db")
    assert isinstance(absolute, SqliteStore) and absolute.path == tmp_path / "abs/runtime.db"
    for url in ("redis://localhost:6379/0", "rediss://cache.internal:6380/2", "redis://h"):
        store = open_store(url)
        assert isinstance(store, RedisStore) and store.url == url
    assert list(tmp_path.iterdir()) == []
    for store in (relative, absolute, open_store("memory://")):
        assert isinstance(store, IdempotencyStore)


def test_the_sqlite_store_creates_its_folder_on_first_use(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path}/a/b/runtime.db")

    async def use() -> None:
        assert isinstance(await store.begin("t", "k", "fp", LONG), Started)
        await store.aclose()

    asyncio.run(use())
    assert (tmp_path / "a/b/runtime.db").is_file()


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("", "not a store URL"),
        ("memory", "not a store URL"),
        ("memory://anything", "takes nothing after it"),
        ("postgres://db/x", "unknown store scheme 'postgres'"),
        ("SQLITE:///x.db", "unknown store scheme 'SQLITE'"),
        ("sqlite://host/x.db", "sqlite URLs have no host"),
        ("sqlite:///", "no database file"),
        ("sqlite:///state/", "no database file"),
        ("sqlite:///:memory:", "use memory://"),
        ("redis://localhost:port/0", "bad port"),
        ("redis://localhost:6379/zero", "must be a number"),
        ("redis:///0", "no host"),
    ],
)
def test_open_store_refuses_other_urls_with_a_value_error(url: str, says: str) -> None:
    with pytest.raises(ValueError, match="^.*" + says.replace("(", r"\(")):
        open_store(url)


def test_a_password_never_appears_in_messages() -> None:
    with pytest.raises(ValueError) as refused:
        open_store("redis://user:hunter2@localhost:6379/x")
    assert "hunter2" not in str(refused.value) and "***" in str(refused.value)
    with pytest.raises(ValueError) as unknown:
        open_store("mysql://:hunter2@db/x")
    assert "hunter2" not in str(unknown.value)


def test_without_the_redis_client_the_redis_store_is_unavailable(monkeypatch) -> None:
    """The client is imported on first use only; missing, it says how to install it."""
    for name in ("redis", "redis.asyncio", "redis.exceptions"):
        monkeypatch.setitem(sys.modules, name, None)
    store = open_store("redis://localhost:6379/0")

    async def use() -> None:
        with pytest.raises(StoreUnavailable, match=r'pip install "toolgen\[redis\]"'):
            await store.begin("t", "k", "fp", LONG)
        await store.aclose()

    asyncio.run(use())


def test_finish_says_whether_the_token_still_owned_the_key(play) -> None:
    async def scenario(h: Harness) -> None:
        owner = await started(h)
        assert await h.store.finish("send_email", "key-1", owner, OK, LONG) is True
        assert await h.store.finish("send_email", "key-1", owner, OK, LONG) is False
        late = await started(h, key="key-2", lease=SHORT)
        await h.wait(SHORT)
        assert await h.store.finish("send_email", "key-2", late, OK, LONG) is False

    play(scenario)


def test_renew_extends_the_lease_of_the_token_that_holds_the_key(play) -> None:
    async def scenario(h: Harness) -> None:
        lease = 1.0
        owner = await started(h, lease=lease)
        for _ in range(4):  # renewed each time before it runs out: held well past its lease
            await h.wait(lease * 0.4)
            assert await h.store.renew("send_email", "key-1", owner, lease) is True
            assert isinstance(await h.store.begin("send_email", "key-1", "fp-a", LONG), InFlight)
        assert await h.store.finish("send_email", "key-1", owner, OK, LONG) is True

    play(scenario)


def test_renew_is_refused_to_a_token_that_no_longer_holds_the_key(play) -> None:
    async def scenario(h: Harness) -> None:
        late = await started(h, lease=SHORT)
        await h.wait(SHORT)
        assert await h.store.renew("send_email", "key-1", late, LONG) is False
        owner = await started(h)
        assert await h.store.renew("send_email", "key-1", late, LONG) is False
        assert await h.store.renew("send_email", "key-1", "never-owned", LONG) is False
        await h.store.finish("send_email", "key-1", owner, OK, LONG)
        # a finished key is a result, not a lease: nothing renews it
        assert await h.store.renew("send_email", "key-1", owner, LONG) is False
        assert await h.store.begin("send_email", "key-1", "fp-a", LONG) == Replay(OK)

    play(scenario)
