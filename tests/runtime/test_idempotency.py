"""Step 6, idempotency: replays, reused keys, keys in flight, a store that fails."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from toolgen.runtime import CallContext, Toolbox
from toolgen.runtime.steps.idempotency import fingerprint, key_for, store_key
from toolgen.runtime.store import InFlight, Replay, Reused, Started, StoreUnavailable
from toolgen.runtime.store.memory import MemoryStore

KEY = "0123456789abcdef"
PAY = CallContext(scopes={"payments:send"}, confirm=lambda request: True)


def transfer(amount: int = 5, key: str = KEY) -> dict[str, Any]:
    return {"amount": amount, "to": "acct", "idempotency_key": key}


def test_key_and_fingerprint(make_box: Callable[..., Toolbox]) -> None:
    box = make_box()
    tools = box.catalog.descriptors
    assert key_for(tools["transfer"], transfer(), CallContext()) == KEY
    assert key_for(tools["append_log"], {"line": "x"}, CallContext()) is None
    assert key_for(tools["append_log"], {}, CallContext(idempotency_key="ctx-key")) == "ctx-key"
    assert key_for(tools["lookup"], {}, CallContext(idempotency_key="ctx-key")) is None
    # the key is not part of the fingerprint; key order is not either
    assert fingerprint(transfer(key="a")) == fingerprint(transfer(key="b"))
    assert fingerprint({"a": 1, "b": 2}) == fingerprint({"b": 2, "a": 1})
    assert fingerprint(transfer(5)) != fingerprint(transfer(6))


def test_same_key_same_arguments_replays(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    box = make_box()
    first = box.call("transfer", transfer(), context=PAY)
    again = box.call("transfer", json.dumps(transfer()), context=PAY)
    assert first.ok and not first.replayed
    assert again.ok and again.replayed and again.data == first.data
    assert again.trace_id != first.trace_id
    assert json.loads(again.to_json())["replayed"] is True
    assert handlers.CALLS["transfer"] == 1


def test_same_key_other_arguments_is_reused(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    box = make_box()
    assert box.call("transfer", transfer(5), context=PAY).ok
    result = box.call("transfer", transfer(6), context=PAY)
    assert result.error is not None
    assert {k: result.error[k] for k in ("code", "retryable", "human_review", "http_status")} == {
        "code": "IDEMPOTENCY_KEY_REUSED",
        "retryable": False,
        "human_review": False,
        "http_status": 422,
    }
    assert handlers.CALLS["transfer"] == 1


def test_a_key_in_flight_is_retryable(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    store = MemoryStore()
    box = make_box(store=store)
    claimed = asyncio.run(store.begin("transfer", KEY, fingerprint(transfer()), 60))
    assert isinstance(claimed, Started)
    result = box.call("transfer", transfer(), context=PAY)
    assert result.error is not None
    assert result.error["code"] == "IDEMPOTENCY_KEY_IN_PROGRESS"
    assert result.error["retryable"] is True and result.error["http_status"] == 409
    assert 0 < result.error["retry_after_ms"] <= 60_000
    assert handlers.CALLS["transfer"] == 0


def test_concurrent_calls_with_one_key_run_once(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    box = make_box()

    async def many() -> list[Any]:
        return await asyncio.gather(
            *(box.acall("transfer", transfer(), context=PAY) for _ in range(50))
        )

    results = asyncio.run(many())
    assert handlers.CALLS["transfer"] == 1
    codes = {r.error["code"] if r.error else "ok" for r in results}
    assert codes <= {"ok", "IDEMPOTENCY_KEY_IN_PROGRESS"}
    assert sum(r.ok and not r.replayed for r in results) == 1


def test_a_failed_call_frees_its_key(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    box = make_box(max_retries=0)
    handlers.FAILS["transfer"] = 1
    failed = box.call("transfer", transfer(), context=PAY)
    assert failed.error is not None and failed.error["code"] == "UNAVAILABLE"
    again = box.call("transfer", transfer(), context=PAY)
    assert again.ok and not again.replayed
    assert handlers.CALLS["transfer"] == 2


def test_a_non_idempotent_write_keyed_by_the_context(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    box = make_box()
    context = CallContext(idempotency_key="line-1")
    assert box.call("append_log", {"line": "x"}, context=context).data == 1
    assert box.call("append_log", {"line": "x"}, context=context).replayed
    assert box.call("append_log", {"line": "x"}).data == 2  # no key: runs again
    assert handlers.CALLS["append_log"] == 2


class BrokenStore:
    async def begin(self, tool: str, key: str, fingerprint: str, lease_s: float) -> Any:
        raise StoreUnavailable("connection refused")

    async def finish(self, *args: Any) -> None:
        raise StoreUnavailable("connection refused")

    async def abandon(self, *args: Any) -> None:
        raise StoreUnavailable("connection refused")

    async def aclose(self) -> None:
        pass


def test_an_unavailable_store_fails_closed(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    result = make_box(store=BrokenStore()).call("transfer", transfer(), context=PAY)
    assert result.error is not None
    assert (result.error["code"], result.error["retryable"]) == ("UNAVAILABLE", True)
    assert result.error["message"] == "the idempotency store is unavailable; the call did not run"
    assert handlers.CALLS["transfer"] == 0
    # a call without a key never needs the store
    assert make_box(store=BrokenStore()).call("lookup", {"q": "x"}).ok


def test_the_store_opens_lazily(make_box: Callable[..., Toolbox]) -> None:
    box = make_box(store="memory://")
    box.call("lookup", {"q": "x"})
    assert box._store is None  # read-only use opened nothing
    box.call("transfer", transfer(), context=PAY)
    assert isinstance(box._store, MemoryStore)


def test_memory_store_leases_and_ttl() -> None:
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])

    async def steps() -> list[Any]:
        seen: list[Any] = []
        started = await store.begin("t", "k", "f", lease_s=10)
        assert isinstance(started, Started)
        seen.append(await store.begin("t", "k", "f", 10))  # waits at most 1 s (RETRY_AFTER_CAP_MS)
        now[0] = 11  # the lease expired: a process killed mid-call frees the key
        second = await store.begin("t", "k", "f", 10)
        assert isinstance(second, Started)
        await store.finish("t", "k", started.token, "old", 100)  # not the owner any more
        await store.finish("t", "k", second.token, "result", 100)
        seen.append(await store.begin("t", "k", "f", 10))
        seen.append(await store.begin("t", "k", "other", 10))
        now[0] = 200  # the TTL is over
        seen.append(type(await store.begin("t", "k", "other", 10)))
        return seen

    assert asyncio.run(steps()) == [InFlight(1000), Replay("result"), Reused(), Started]


def test_a_cancelled_call_frees_its_key_and_is_audited(
    make_box: Callable[..., Toolbox], events: list[dict[str, Any]]
) -> None:
    started = asyncio.Event()
    runs: list[int] = []

    async def hangs_once(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(amount)
        if len(runs) == 1:
            started.set()
            await asyncio.Event().wait()  # until cancelled
        return {"sent": amount}

    box = make_box(handlers={"transfer": hangs_once})

    async def scenario() -> Any:
        call = asyncio.create_task(box.acall("transfer", transfer(), context=PAY))
        await started.wait()
        call.cancel()
        try:
            await call
        except asyncio.CancelledError:
            pass
        else:
            raise AssertionError("the cancellation was swallowed")
        return await box.acall("transfer", transfer(), context=PAY)

    again = asyncio.run(scenario())
    assert again.ok and again.data == {"sent": 5} and runs == [5, 5]
    cancelled = [e for e in events if e["trace_id"] != again.trace_id]
    assert [e["decision"] for e in cancelled] == ["proposed", "confirmed", "failed"]
    assert cancelled[-1]["reason"] == "cancelled"


def test_keys_are_scoped_by_principal(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    box = make_box()

    def as_(principal: str | None) -> CallContext:
        return CallContext(principal=principal, scopes=PAY.scopes, confirm=PAY.confirm)

    alice = box.call("transfer", transfer(), context=as_("alice"))
    assert alice.ok and handlers.CALLS["transfer"] == 1
    # bob's call with alice's key neither sees her result nor is refused for her arguments
    bob = box.call("transfer", transfer(), context=as_("bob"))
    assert bob.ok and not bob.replayed and handlers.CALLS["transfer"] == 2
    other = box.call("transfer", transfer(6), context=as_("carol"))
    assert other.ok and not other.replayed
    assert box.call("transfer", transfer(), context=as_("alice")).replayed
    # no principal is one shared scope of its own, which no bare key can leave
    assert not box.call("transfer", transfer(), context=PAY).replayed
    assert box.call("transfer", transfer(), context=PAY).replayed
    forged = store_key(KEY, "alice")
    assert forged != KEY and store_key(forged, None) != forged
    assert not box.call("transfer", transfer(key=forged), context=PAY).replayed
    assert store_key(KEY, None) == KEY
