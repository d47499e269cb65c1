"""Step 7, execute: timeouts, the retry rule, backoff, fallbacks, handler overrides and the
factory, and what a handler's failure looks like to the model."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from toolgen.descriptor import STANDARD_ERRORS, ErrorSpec
from toolgen.runtime import CallContext, Toolbox, ToolError
from toolgen.runtime.steps.execute import BASE_DELAY, MAX_DELAY, backoff
from toolgen.runtime.store.memory import MemoryStore

from .conftest import Waits
from .descriptors_support import box_of, descriptor


def test_backoff_is_full_jitter_doubling_and_capped() -> None:
    assert [backoff(n, lambda: 1.0) for n in range(4)] == [
        BASE_DELAY,
        BASE_DELAY * 2,
        BASE_DELAY * 4,
        BASE_DELAY * 8,
    ]
    assert backoff(3, lambda: 0.25) == BASE_DELAY * 2
    assert backoff(30, lambda: 1.0) == MAX_DELAY


def test_an_idempotent_tool_is_retried_honouring_retry_after(
    make_box: Callable[..., Toolbox], handlers: Any, waits: Waits
) -> None:
    handlers.FAILS["fetch_quote"] = 2
    result = make_box().call("fetch_quote", {"symbol": "X"})
    assert result.ok and result.data == 1.5
    assert handlers.CALLS["fetch_quote"] == 3
    assert waits.delays == [2.0, 2.0]  # retry_after_ms 2000 is longer than the backoff


def test_retries_are_bounded(make_box: Callable[..., Toolbox], handlers: Any, waits: Waits) -> None:
    handlers.FAILS["fetch_quote"] = 10
    result = make_box(max_retries=2).call("fetch_quote", {"symbol": "X"})
    assert result.error is not None
    assert result.error["code"] == "UNAVAILABLE"
    assert (result.error["retryable"], result.error["max_retries"]) == (True, 2)
    assert result.error["retry_after_ms"] == 2000
    assert handlers.CALLS["fetch_quote"] == 3
    assert len(waits.delays) == 2


def test_a_non_idempotent_write_is_not_retried_without_a_key(
    make_box: Callable[..., Toolbox], handlers: Any, waits: Waits
) -> None:
    handlers.FAILS["append_log"] = 1
    result = make_box().call("append_log", {"line": "x"})
    assert result.error is not None and result.error["retryable"] is True
    assert handlers.CALLS["append_log"] == 1 and waits.delays == []
    # with a key it is: the store makes the retry safe
    handlers.FAILS["append_log"] = 1
    keyed = make_box().call("append_log", {"line": "x"}, context=CallContext(idempotency_key="k"))
    assert keyed.ok and handlers.CALLS["append_log"] == 3
    assert waits.delays == [BASE_DELAY]  # jitter 1.0: the whole first backoff


def test_a_slow_handler_times_out(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    result = make_box(timeout={"slow": 0.01}, max_retries=0).call("slow", {"seconds": 30})
    assert result.error is not None
    assert result.error["code"] == "TIMEOUT"
    assert result.error["message"] == "slow did not finish within 0.01 seconds"
    assert (result.error["retryable"], result.error["http_status"]) == (True, 504)
    assert make_box(timeout=5).call("slow", {"seconds": 0}).data == "done"


def test_a_fallback_answers_for_a_final_error(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    seen: list[Any] = []

    def cached(arguments: dict[str, Any], error: dict[str, Any]) -> float:
        seen.append((arguments, error["code"]))
        return 1.0

    handlers.FAILS["fetch_quote"] = 10
    box = make_box(max_retries=1, fallbacks={"fetch_quote": cached})
    result = box.call("fetch_quote", {"symbol": "X"})
    assert result.ok and result.data == 1.0
    assert seen == [({"symbol": "X"}, "UNAVAILABLE")]


def test_a_failing_fallback_keeps_the_error(
    make_box: Callable[..., Toolbox], handlers: Any
) -> None:
    def broken(arguments: dict[str, Any], error: dict[str, Any]) -> Any:
        raise RuntimeError("no cache")

    handlers.FAILS["fetch_quote"] = 10
    box = make_box(max_retries=0, fallbacks={"fetch_quote": broken})
    result = box.call("fetch_quote", {"symbol": "X"})
    assert result.error is not None and result.error["code"] == "UNAVAILABLE"


def test_an_exception_is_internal_and_says_nothing(
    make_box: Callable[..., Toolbox], caplog: pytest.LogCaptureFixture
) -> None:
    result = make_box().call("boom", {"reason": "s3cr3t"})
    assert result.error is not None
    assert result.error == {
        "code": "INTERNAL",
        "message": "internal error",
        "retryable": False,
        "human_review": False,
        "http_status": 500,
        "trace_id": result.trace_id,
    }
    assert "s3cr3t" not in result.to_json() and "Traceback" not in result.to_json()
    [record] = [r for r in caplog.records if r.name == "toolgen.runtime"]
    assert record.getMessage() == f"[trace {result.trace_id}] tool boom raised"
    assert record.exc_info is not None and "s3cr3t" in str(record.exc_info[1])


def test_handler_overrides(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    def fake_lookup(q: str, limit: int = 3) -> dict[str, object]:
        return {"fake": q}

    def raising(q: str, limit: int = 3) -> dict[str, object]:
        raise ToolError("NOT_DECLARED", "nope", hint="x")

    assert make_box(handlers={"lookup": fake_lookup}).call("lookup", {"q": "a"}).data == {
        "fake": "a"
    }
    assert handlers.CALLS["lookup"] == 0
    error = make_box(handlers={"lookup": raising}).call("lookup", {"q": "a"}).error
    assert error is not None
    assert (error["code"], error["undeclared"], error["retryable"], error["hint"]) == (
        "NOT_DECLARED",
        True,
        False,
        "x",
    )


def test_the_factory_makes_instances(make_box: Callable[..., Toolbox]) -> None:
    # Greeter needs a greeting: without a factory its method cannot be reached
    unreachable = make_box().call("greet", {"name": "Ada"})
    assert unreachable.error is not None
    assert unreachable.error["message"] == "tool 'greet' is not callable on this server"
    made: list[type] = []

    def factory(cls: type) -> Any:
        made.append(cls)
        return cls("Hello")

    box = make_box(factory=factory)
    assert box.call("greet", {"name": "Ada"}).data == "Hello, Ada"
    assert box.call("greet", {"name": "Bob"}).data == "Hello, Bob"
    assert [cls.__name__ for cls in made] == ["Greeter"]  # one instance per class


def test_pydantic_converts_arguments(make_box: Callable[..., Toolbox]) -> None:
    result = make_box().call("lookup", '{"q": "x", "limit": 2}')
    assert json.loads(result.to_json()) == {"status": "ok", "data": {"q": "x", "limit": 2}}


def test_a_timeout_not_below_the_lease_is_refused_at_load(
    make_box: Callable[..., Toolbox],
) -> None:
    with pytest.raises(ValueError, match=r"timeout \(300 s\) must be below in_flight_ttl"):
        make_box(timeout=300, in_flight_ttl=300)
    with pytest.raises(ValueError, match=r"timeout of slow \(90 s\) must be below"):
        make_box(timeout={"slow": 90}, in_flight_ttl=60)
    with pytest.raises(ValueError, match=r"timeout \(30 s\)"):  # the default of other tools
        make_box(timeout={"slow": 1}, in_flight_ttl=10)
    assert make_box(timeout=5, in_flight_ttl=10).call("lookup", {"q": "x"}).ok


def test_a_keyed_retry_never_waits_past_the_lease(
    make_box: Callable[..., Toolbox], waits: Waits
) -> None:
    """A wait that could outlast the key's lease is not made: another call could claim the key
    meanwhile and run the handler a second time. The error goes back, the key is free again."""
    runs: list[int] = []

    def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(amount)
        if len(runs) == 1:
            raise ToolError("UNAVAILABLE", "quota", retry_after_ms=4_000)
        return {"sent": amount}

    # the lease: 10 s; a retry after 4 s might end at 5 + 4 + 5 s
    box = make_box(handlers={"transfer": transfer}, timeout=5, in_flight_ttl=10)
    context = CallContext(scopes={"payments:send"}, confirm=lambda request: True)
    arguments = {"amount": 5, "to": "acct", "idempotency_key": "0123456789abcdef"}
    result = box.call("transfer", arguments, context=context)
    assert result.error is not None and result.error["code"] == "UNAVAILABLE"
    assert result.error["retryable"] is True and result.error["retry_after_ms"] == 4_000
    assert runs == [5] and waits.delays == []
    assert box.call("transfer", arguments, context=context).data == {"sent": 5}
    # within the lease the same retry is made (a short wait)
    runs.clear()
    short = make_box(handlers={"transfer": transfer}, timeout=5, in_flight_ttl=1000.0)
    keyed = {**arguments, "idempotency_key": "fedcba9876543210"}
    assert short.call("transfer", keyed, context=context).data == {"sent": 5}
    assert runs == [5, 5] and waits.delays == [4.0]


def test_a_result_whose_lease_ran_out_is_not_kept_and_says_so(
    make_box: Callable[..., Toolbox], caplog: pytest.LogCaptureFixture
) -> None:
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])

    def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        now[0] += 120.0  # longer than the lease below: another call may claim the key
        return {"sent": amount}

    box = make_box(handlers={"transfer": transfer}, store=store, in_flight_ttl=60, timeout=5)
    context = CallContext(scopes={"payments:send"}, confirm=lambda request: True)
    arguments = {"amount": 5, "to": "acct", "idempotency_key": "0123456789abcdef"}
    assert box.call("transfer", arguments, context=context).ok
    [warning] = [r for r in caplog.records if r.levelname == "WARNING"]
    assert "ran out before the call ended" in warning.getMessage()
    assert not box.call("transfer", arguments, context=context).replayed


def test_a_fallback_is_marked_and_never_kept_under_the_key(
    make_box: Callable[..., Toolbox], handlers: Any, events: list[dict[str, Any]]
) -> None:
    handlers.FAILS["transfer"] = 1
    queued = {"queued": True}  # an object, as transfer's return schema says
    box = make_box(max_retries=0, fallbacks={"transfer": lambda arguments, error: queued})
    context = CallContext(scopes={"payments:send"}, confirm=lambda request: True)
    arguments = {"amount": 5, "to": "acct", "idempotency_key": "0123456789abcdef"}
    first = box.call("transfer", arguments, context=context)
    assert first.ok and first.fallback and first.data == queued
    assert json.loads(first.to_json()) == {"status": "ok", "data": queued, "fallback": True}
    assert events[-1]["decision"] == "executed" and events[-1]["reason"] == "fallback"
    # the handler failed: its key was freed, so the same call runs it again
    again = box.call("transfer", arguments, context=context)
    assert again.ok and not again.fallback and not again.replayed
    assert again.data == {"sent": 5, "to": "acct", "run": 2}


def test_a_timed_out_sync_handler_keeps_its_key_until_its_thread_ends(
    make_box: Callable[..., Toolbox], waits: Waits
) -> None:
    """A thread cannot be stopped: while a timed-out handler still runs, no retry starts
    beside it and its key stays in flight; when the thread ends, what it did settles the key:
    its success is kept and replayed (it ran: running it again would pay twice)."""
    release = threading.Event()
    runs: list[int] = []

    def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(amount)
        release.wait(60)
        return {"sent": amount}

    box = make_box(handlers={"transfer": transfer}, timeout={"transfer": 0.05})
    context = CallContext(scopes={"payments:send"}, confirm=lambda request: True)
    arguments = {"amount": 5, "to": "acct", "idempotency_key": "0123456789abcdef"}
    try:
        timed_out = box.call("transfer", arguments, context=context)
        assert timed_out.error is not None and timed_out.error["code"] == "TIMEOUT"
        assert runs == [5] and waits.delays == []  # retryable, keyed, yet not retried
        busy = box.call("transfer", arguments, context=context)
        assert busy.error is not None and busy.error["code"] == "IDEMPOTENCY_KEY_IN_PROGRESS"
        assert runs == [5]
    finally:
        release.set()
    deadline = time.monotonic() + 60  # a bound on the wait only, nothing is timed
    while True:
        after = box.call("transfer", arguments, context=context)
        if after.ok or time.monotonic() > deadline:
            break
        assert after.error is not None
        assert after.error["code"] == "IDEMPOTENCY_KEY_IN_PROGRESS"
        time.sleep(0.01)
    assert after.data == {"sent": 5} and after.replayed and runs == [5]


def test_a_timeout_error_the_handler_raises_is_internal_not_retried(
    make_box: Callable[..., Toolbox], waits: Waits
) -> None:
    runs: list[str] = []

    def lookup(q: str, limit: int = 3) -> dict[str, object]:
        runs.append(q)
        raise TimeoutError("connect to 10.0.0.5:443 timed out")  # socket.timeout is this

    result = make_box(handlers={"lookup": lookup}).call("lookup", {"q": "x"})
    assert result.error is not None
    assert (result.error["code"], result.error["retryable"]) == ("INTERNAL", False)
    assert "10.0.0.5" not in result.to_json()
    assert runs == ["x"] and waits.delays == []  # an idempotent tool, yet not retried


@pytest.mark.parametrize(
    "data",
    [
        pytest.param("cached", id="not-the-return-schema"),
        pytest.param(float("nan"), id="nan"),
        pytest.param(float("inf"), id="infinity"),
        pytest.param(10**400, id="huge-integer"),
        pytest.param("caf\udce9", id="lone-surrogate"),
    ],
)
def test_a_fallback_whose_data_a_return_could_not_be_keeps_the_error(
    make_box: Callable[..., Toolbox], handlers: Any, data: Any
) -> None:
    """Was: the fallback's data was answered unchecked (a string for a float, a NaN that
    broke `to_json`): it passes the checks a handler's return does, or the error stands."""
    handlers.FAILS["fetch_quote"] = 10
    box = make_box(max_retries=0, fallbacks={"fetch_quote": lambda arguments, error: data})
    result = box.call("fetch_quote", {"symbol": "X"})
    assert result.error is not None and result.error["code"] == "UNAVAILABLE"
    assert not result.fallback
    json.loads(result.to_json().encode("utf-8"))
    # a fallback whose data is one the handler could return is answered
    box = make_box(max_retries=0, fallbacks={"fetch_quote": lambda arguments, error: 1.25})
    handlers.FAILS["fetch_quote"] = 10
    assert box.call("fetch_quote", {"symbol": "X"}).data == 1.25


def test_a_retry_after_longer_than_the_runtime_ever_waits_is_answered_not_waited(
    make_box: Callable[..., Toolbox], waits: Waits
) -> None:
    """Was: `retry_after_ms` was obeyed without bound (here: thirty years, three times)."""
    runs: list[str] = []

    def fetch_quote(symbol: str) -> float:
        runs.append(symbol)
        raise ToolError("UNAVAILABLE", "come back later", retry_after_ms=10**12)

    result = make_box(handlers={"fetch_quote": fetch_quote}).call("fetch_quote", {"symbol": "X"})
    assert result.error is not None and result.error["code"] == "UNAVAILABLE"
    assert (result.error["retryable"], result.error["retry_after_ms"]) == (True, 10**12)
    assert waits.delays == [] and runs == ["X"]
    # up to the runtime's longest wait it is obeyed
    waits.delays.clear()
    longest = int(MAX_DELAY * 1000)

    def fetch_quote_soon(symbol: str) -> float:
        raise ToolError("UNAVAILABLE", "come back soon", retry_after_ms=longest)

    box = make_box(handlers={"fetch_quote": fetch_quote_soon}, max_retries=2)
    assert box.call("fetch_quote", {"symbol": "X"}).error is not None
    assert waits.delays == [MAX_DELAY, MAX_DELAY]


def test_an_async_handler_that_holds_the_loop_past_its_timeout_times_out(
    make_box: Callable[..., Toolbox], caplog: pytest.LogCaptureFixture
) -> None:
    """Was: `time.sleep` in an `async def` held the loop, so the deadline never fired and the
    call answered long after its timeout as if in time."""

    async def slow(seconds: float) -> str:
        time.sleep(seconds)  # blocks the loop
        return "done"

    box = make_box(handlers={"slow": slow}, timeout={"slow": 0.05}, max_retries=0)
    result = box.call("slow", {"seconds": 0.3})
    assert result.error is not None and result.error["code"] == "TIMEOUT"
    [record] = [r for r in caplog.records if r.name == "toolgen.runtime"]
    assert "held the event loop past its timeout of 0.05 seconds" in record.getMessage()
    # one that awaits is unchanged
    assert make_box(handlers={"slow": slow}, timeout=5).call("slow", {"seconds": 0}).ok


# The retry policy per error code (DESIGN §3: each standard code's recovery)


def _failing_box(
    code: str, waits: Waits, runs: list[str], details: dict[str, Any] | None = None, **options: Any
) -> Toolbox:
    """An idempotent tool `quote` that declares `code` (the taxonomy's defaults) and raises it
    on every call, counting its runs in `runs`; retries wait through `waits`."""
    standard = STANDARD_ERRORS[code]
    declared = {
        "code": code,
        "description": "It failed.",
        "http_status": standard.http_status,
        "retryable": standard.retryable,
        "recovery": standard.recovery,
    }

    def quote(symbol: str) -> float:
        runs.append(symbol)
        raise ToolError(code, "it failed", **(details or {}))

    tool = descriptor("quote", {"type": "object", "properties": {"symbol": {"type": "string"}}})
    tool = tool.model_copy(update={"errors": [ErrorSpec.model_validate(declared)]})
    box = box_of((tool, quote), **options)
    box.sleep, box.random = waits, lambda: 1.0
    return box


@pytest.mark.parametrize("timeout", [None, 5.0], ids=["calling-thread", "worker"])
@pytest.mark.parametrize(
    ("code", "max_retries", "runs_made"),
    [
        # INTERNAL: "exponential backoff, max 3 attempts", whatever more max_retries allows
        ("INTERNAL", 5, 3),
        ("INTERNAL", 3, 3),
        # the smaller of the two wins: max_retries bounds what a call may cost
        ("INTERNAL", 1, 2),
        ("INTERNAL", 0, 1),
        # no count of their own: max_retries alone
        ("UNAVAILABLE", 5, 6),
        ("RATE_LIMITED", 5, 6),
    ],
)
def test_each_code_is_retried_as_its_recovery_says(
    waits: Waits, code: str, max_retries: int, runs_made: int, timeout: float | None
) -> None:
    """Was: every retryable code got `max_retries` retries: INTERNAL four attempts (3 is the
    default), against its "max 3 attempts". The error says how many retries its code gets."""
    runs: list[str] = []
    box = _failing_box(code, waits, runs, max_retries=max_retries, timeout=timeout)
    result = box.call("quote", {"symbol": "X"})
    assert result.error is not None and result.error["code"] == code
    assert len(runs) == runs_made
    assert result.error["max_retries"] == runs_made - 1
    assert waits.delays == [BASE_DELAY * 2**n for n in range(runs_made - 1)]  # jitter 1.0


def test_a_timeout_is_retried_once_then_answered(waits: Waits) -> None:
    """Was: a `TIMEOUT` was retried `max_retries` times (four attempts, each a whole timeout),
    against its recovery "single retry, then abort". The runtime's own timeout: the second
    attempt's `TIMEOUT` is the answer."""
    runs: list[str] = []

    async def hangs(symbol: str) -> float:
        runs.append(symbol)
        await asyncio.Event().wait()  # never set: only the timeout ends it
        return 1.0

    tool = descriptor("quote", {"type": "object", "properties": {"symbol": {"type": "string"}}})
    box = box_of((tool, hangs), timeout=0.01, max_retries=3)
    box.sleep, box.random = waits, lambda: 1.0
    result = box.call("quote", {"symbol": "X"})
    assert result.error is not None
    assert (result.error["code"], result.error["retryable"]) == ("TIMEOUT", True)
    assert result.error["recovery"] == "single retry, then abort"
    assert result.error["max_retries"] == 1
    assert runs == ["X", "X"] and waits.delays == [BASE_DELAY]
    # max_retries below the code's own limit wins
    runs.clear()
    waits.delays.clear()
    box = box_of((tool, hangs), timeout=0.01, max_retries=0)
    box.sleep = waits
    assert box.call("quote", {"symbol": "X"}).error is not None
    assert runs == ["X"] and waits.delays == []


@pytest.mark.parametrize(
    ("details", "waited"),
    [
        ({"retry_after_seconds": 3}, 3.0),
        ({"retry_after_seconds": 1.5}, 1.5),
        # both given: each says "not before then", so the longer wait keeps both
        ({"retry_after_seconds": 4, "retry_after_ms": 1000}, 4.0),
        ({"retry_after_seconds": 2, "retry_after_ms": 5000}, 5.0),
        # never shorter than the backoff (0.5 s first), as with retry_after_ms
        ({"retry_after_seconds": 0.1}, BASE_DELAY),
    ],
)
def test_retry_after_seconds_is_honoured_like_retry_after_ms(
    waits: Waits, details: dict[str, Any], waited: float
) -> None:
    """Was: only `retry_after_ms` was read, so a handler that passed HTTP's Retry-After on in
    its own unit (DESIGN's example: "back off for retry_after_seconds") was retried after the
    bare backoff, inside the quota window it had been told of."""
    runs: list[str] = []
    box = _failing_box("RATE_LIMITED", waits, runs, details, max_retries=1)
    result = box.call("quote", {"symbol": "X"})
    assert result.error is not None and result.error["code"] == "RATE_LIMITED"
    assert runs == ["X", "X"] and waits.delays == [waited]
    assert {key: result.error[key] for key in details} == details  # passed on as given


def test_a_retry_after_seconds_longer_than_the_runtime_ever_waits_is_answered(
    waits: Waits,
) -> None:
    runs: list[str] = []
    longer = {"retry_after_seconds": MAX_DELAY + 1}
    result = _failing_box("RATE_LIMITED", waits, runs, longer).call("quote", {"symbol": "X"})
    assert result.error is not None and result.error["retry_after_seconds"] == MAX_DELAY + 1
    assert runs == ["X"] and waits.delays == []
    # however short the other of the two: the longer wait is the error's
    runs.clear()
    both = {**longer, "retry_after_ms": 1000}
    assert _failing_box("RATE_LIMITED", waits, runs, both).call("quote", {"symbol": "X"}).error
    assert runs == ["X"] and waits.delays == []
