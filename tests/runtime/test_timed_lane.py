"""A sync call of a tool with a timeout (issue 28): the handler runs on a worker thread that
the caller's thread waits for, with no event loop between them (`steps.execute.invoke_timed`);
every answer, every event and every run is the whole way's."""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from toolgen._marker import ToolError
from toolgen.runtime import CallContext, Toolbox
from toolgen.runtime import call as call_module

from .descriptors_support import box_of, descriptor

X = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
NUMBER = {"type": "number"}

RAN: list[tuple[str, str]] = []


def ran(name: str) -> None:
    RAN.append((name, threading.current_thread().name))


def ok(x: int) -> int:
    ran("ok")
    return x + 1


def hangs(x: int) -> int:
    ran("hangs")
    time.sleep(0.6)  # past its timeout: answered TIMEOUT while the thread goes on
    return x


def own_timeout(x: int) -> int:
    ran("own_timeout")
    raise TimeoutError("the handler's own socket")


def declared(x: int) -> int:
    ran("declared")
    raise ToolError("NOT_FOUND", f"no item {x}")


def nan(x: int) -> float:
    ran("nan")
    return math.nan


def deferred(x: int) -> Any:
    ran("deferred")

    async def later() -> int:
        await asyncio.sleep(0)
        return x * 2

    return later()


def deferred_long(x: int) -> Any:
    ran("deferred_long")

    async def later() -> int:
        await asyncio.sleep(0.6)
        return x

    return later()


def crashes(x: int) -> int:
    ran("crashes")
    raise ValueError("a bug")


HANDLERS: dict[str, Callable[..., Any]] = {
    "ok": ok,
    "hangs": hangs,
    "own_timeout": own_timeout,
    "declared": declared,
    "nan": nan,
    "deferred": deferred,
    "deferred_long": deferred_long,
    "crashes": crashes,
}


def box(events: list[dict[str, Any]], lanes: bool) -> Toolbox:
    tools = [
        (descriptor(name, X, NUMBER if name == "nan" else {"type": "integer"}), fn)
        for name, fn in HANDLERS.items()
    ]
    # only the handlers meant to time out can: a slow spell of the machine cannot
    timeout = {"*": 5.0, "hangs": 0.1, "deferred_long": 0.1}
    made = box_of(*tools, timeout=timeout, audit=events.append, max_retries=1)

    async def no_wait(seconds: float) -> None:
        return None

    made.sleep = no_wait
    made.random = lambda: 1.0
    if not lanes:
        made.lane = lambda name: None  # type: ignore[method-assign]
    return made


def answers(lanes: bool) -> tuple[list[str], list[str], list[str]]:
    """Each tool's answer (with a fixed trace id), the events but for the clock, and which
    handlers ran."""
    events: list[dict[str, Any]] = []
    made = box(events, lanes)
    RAN.clear()
    found = []
    for name in HANDLERS:
        result = made.call(name, {"x": 3}, context=CallContext(trace_id=f"t-{name}"))
        found.append(result.to_json())
    time.sleep(0.8)  # the threads that outlived their attempts end
    for event in events:
        event.pop("time", None)
        event.pop("duration_ms", None)
    runs = [name for name, _ in RAN]
    return found, [json.dumps(e, sort_keys=True) for e in events], runs


def test_a_timed_call_answers_runs_and_records_as_the_whole_way() -> None:
    timed, whole = answers(lanes=True), answers(lanes=False)
    assert timed == whole
    codes = [json.loads(a).get("error", {}).get("code") for a in timed[0]]
    expected = ["ok", "TIMEOUT", "INTERNAL", "NOT_FOUND", "INTERNAL", "ok", "TIMEOUT", "INTERNAL"]
    assert [code or "ok" for code in codes] == expected
    # a timed-out attempt is not retried while its thread still runs; one whose awaitable
    # timed out holds no thread, and its TIMEOUT is retried once
    assert timed[2].count("hangs") == 1 and timed[2].count("deferred_long") == 2


def test_a_timed_sync_call_runs_its_handler_on_a_worker_thread_with_no_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The caller's thread waits on the handler's future: no event loop is run for it."""
    from toolgen.runtime import toolbox as toolbox_module

    def no_loop(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an event loop was run for a timed sync call")

    made = box([], lanes=True)
    monkeypatch.setattr(toolbox_module, "run_sync", no_loop)
    monkeypatch.setattr(call_module, "run_sync", no_loop)
    RAN.clear()
    assert made.call("ok", {"x": 1}).data == 2
    assert made.call("ok", {"x": 2}).data == 3
    assert [thread.startswith("toolgen-handler") for _, thread in RAN] == [True, True]


def test_a_handler_calling_a_timed_tool_takes_the_whole_way() -> None:
    """On a handler's thread the toolbox's pool may be full of its callers: the nested call
    runs on its own loop's threads, as before."""
    holder: list[Toolbox] = []
    seen: list[Any] = []

    def outer(x: int) -> int:
        seen.append(holder[0].call("ok", {"x": x}).data)
        return x

    integer = {"type": "integer"}
    holder.append(
        box_of((descriptor("outer", X, integer), outer), (descriptor("ok", X, integer), ok))
    )
    RAN.clear()
    made = box_of(
        (descriptor("outer", X, integer), outer), (descriptor("ok", X, integer), ok), timeout=1.0
    )
    holder[0] = made
    assert made.call("outer", {"x": 5}).data == 5
    assert seen == [6]
    # the nested call's handler ran on a thread of its own loop, not the toolbox's pool
    assert len(RAN) == 1 and not RAN[0][1].startswith("toolgen-handler")


def meets(barrier: threading.Barrier) -> Callable[..., int]:
    def meet(x: int) -> int:
        ran("meet")
        barrier.wait(5)  # every call of the turn waits for the others: they run at once
        return x

    return meet


def turn(names: list[str]) -> list[dict[str, Any]]:
    return [
        {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": '{"x": 3}'}}
        for i, n in enumerate(names)
    ]


def test_a_turn_of_timed_calls_runs_them_at_once_with_no_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sync adapter sets every handler going on its worker thread, then waits for each:
    three calls that each wait for the other two all end, and no event loop is run."""
    from toolgen.runtime import toolbox as toolbox_module

    def no_loop(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an event loop was run for a turn of timed calls")

    made = box_of(
        (descriptor("meet", X, {"type": "integer"}), meets(threading.Barrier(3))), timeout=5.0
    )
    monkeypatch.setattr(toolbox_module, "run_sync", no_loop)
    monkeypatch.setattr(call_module, "run_sync", no_loop)
    RAN.clear()
    answers = made.handle_openai_chat(turn(["meet", "meet", "meet"]))
    assert [json.loads(a["content"])["data"] for a in answers] == [3, 3, 3]
    assert len(RAN) == 3 and all(t.startswith("toolgen-handler") for _, t in RAN)


@pytest.mark.parametrize("limit", [1, 2, 8])
def test_a_turn_of_timed_calls_answers_and_records_as_the_async_adapter(limit: int) -> None:
    """Every hostile handler in one turn, at most `limit` at a time: the same answers, byte
    for byte, and each call's events, as the async adapter's (concurrent, the whole way)."""
    names = list(HANDLERS)
    context = CallContext(principal="p", trace_id="turn")

    def run(sync: bool) -> tuple[str, list[str]]:
        events: list[dict[str, Any]] = []
        made = box(events, lanes=True)
        made.max_concurrency = limit
        if sync:
            found = made.handle_openai_chat(turn(names), context=context)
        else:
            found = asyncio.run(made.ahandle_openai_chat(turn(names), context=context))
        time.sleep(0.8)  # the threads that outlived their attempts end
        kept = [
            json.dumps({k: v for k, v in e.items() if k not in ("time", "duration_ms")})
            for e in events
        ]
        return json.dumps(found), sorted(kept)

    assert run(sync=True) == run(sync=False)
