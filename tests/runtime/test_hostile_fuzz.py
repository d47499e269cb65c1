"""Hostile handlers found by red-teaming the run time (beyond the issue's classes), kept as a
fast sweep: odd return values, objects whose dunders raise, exceptions that fail to print,
`ToolError`s with odd details, handlers that fork, stop or cancel the loop they run on, or
start tasks that raise `SystemExit`. Through `box.call` (the short way and the whole way),
`box.acall` and a platform turn, each answer is a `ToolResult` (or a turn of them) whose JSON
is strict UTF-8, and the turn's other call is answered."""

from __future__ import annotations

import asyncio
import dataclasses
import decimal
import enum
import json
import os
import pathlib
from collections.abc import Callable
from typing import Any

import pytest

from toolgen.runtime import Toolbox, ToolError, ToolResult

from .threads_support import on_a_thread


def strict(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text.encode("utf-8"), parse_constant=refuse)


def raising(exc: BaseException) -> Callable[..., Any]:
    def method(*args: Any, **kwargs: Any) -> Any:
        raise exc

    return method


def hostile(**dunders: Callable[..., Any]) -> Any:
    return type("Hostile", (), dunders)()


class Loud(str):
    """A str whose own methods raise: what reaches the wire is the text, never a call."""

    __eq__ = raising(SystemExit(5))  # type: ignore[assignment]
    __hash__ = raising(SystemExit(5))  # type: ignore[assignment]
    __str__ = raising(SystemExit(5))  # type: ignore[assignment]


class Odd(enum.Enum):
    NAN = float("nan")


@dataclasses.dataclass
class Node:
    child: Any = None


def looped_node() -> Node:
    node = Node()
    node.child = node
    return node


def deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


#: Values a handler returns (a fresh one per call): each is answered, ok or INTERNAL.
VALUES: dict[str, Callable[[], Any]] = {
    "path-with-a-lone-surrogate": lambda: pathlib.Path("/tmp/caf\udce9"),
    "enum-of-nan": lambda: Odd.NAN,
    "decimal-nan": lambda: decimal.Decimal("NaN"),
    "decimal-beyond-double": lambda: decimal.Decimal("1e400"),
    "bytes-not-utf8": lambda: b"\xff\xfe",
    "generator": lambda: (n for n in range(3)),
    "plain-object": object,
    "dataclass-holding-itself": looped_node,
    "a-hundred-thousand-deep": lambda: deep(100_000),
    "repr-raises-SystemExit": lambda: hostile(__repr__=raising(SystemExit(1))),
    "class-raises-SystemExit": lambda: hostile(__class__=property(raising(SystemExit(1)))),
    "eq-and-hash-raise": lambda: hostile(
        __eq__=raising(SystemExit(1)), __hash__=raising(KeyboardInterrupt())
    ),
    "str-subclass-that-raises": lambda: Loud("x"),
    "str-subclass-keys": lambda: {Loud("k"): Loud("v")},
    "int-key": lambda: {1: "a"},
}

#: What a handler raises (a fresh one per call).
RAISES: dict[str, Callable[[], BaseException]] = {
    "exception-group-of-base-exceptions": lambda: BaseExceptionGroup(
        "g", [KeyboardInterrupt(), SystemExit(1)]
    ),
    "str-raises-SystemExit": lambda: type("E", (Exception,), {"__str__": raising(SystemExit(9))})(),
    "base-exception-whose-str-raises": lambda: type(
        "E", (BaseException,), {"__str__": raising(SystemExit(9))}
    )(),
    "memory-error": MemoryError,
    "stop-iteration": StopIteration,
    "retry-after-nan": lambda: ToolError("UNAVAILABLE", "x", retry_after_ms=float("nan")),
    "retry-after-beyond-double": lambda: ToolError("UNAVAILABLE", "x", retry_after_ms=10**400),
    "retry-after-text": lambda: ToolError("UNAVAILABLE", "x", retry_after_ms="soon"),
    "details-holding-themselves": lambda: ToolError("UNAVAILABLE", "x", loop=looped_node()),
    "details-with-a-lone-surrogate-key": lambda: ToolError("UNAVAILABLE", "x", **{"\udcff": 1}),
    "code-subclass-that-raises": lambda: ToolError(Loud("UNAVAILABLE"), "x"),
}


async def _stop_the_loop() -> str:
    asyncio.get_running_loop().stop()
    return "stopped"


async def _cancel_its_own_task() -> str:
    task = asyncio.current_task()
    assert task is not None
    task.cancel()
    await asyncio.sleep(0)
    return "not cancelled"


async def _a_task_raises(exc: BaseException) -> str:
    async def inner() -> None:
        raise exc

    await asyncio.gather(inner())
    return "gathered"


def _fork() -> str:
    child = os.fork()
    if child == 0:
        return "child"  # returns into the runtime, which must end this process
    os.waitpid(child, 0)  # hangs (and the call times out) unless the child ended
    return "parent"


async def _fork_async() -> str:
    return _fork()


#: Things a handler does (sync: to be run on the whole way and the short way).
BEHAVIOURS: dict[str, tuple[Callable[[], Any], bool]] = {
    "stops-the-loop": (_stop_the_loop, True),
    "cancels-its-own-task": (_cancel_its_own_task, True),
    "a-task-it-started-raises-SystemExit": (lambda: _a_task_raises(SystemExit(4)), True),
    "a-task-it-started-raises-KeyboardInterrupt": (
        lambda: _a_task_raises(KeyboardInterrupt()),
        True,
    ),
    "returns-a-coroutine-that-raises-SystemExit": (lambda: _a_task_raises(SystemExit(4)), False),
    "forks-on-a-worker-thread": (_fork, False),
    "forks-on-the-loop": (_fork_async, True),
}


def handler_of(kind: str, name: str) -> Callable[..., Any]:
    if kind == "value":
        make = VALUES[name]

        def returns(q: str) -> Any:
            return make()

        return returns
    if kind == "raise":
        make_exc = RAISES[name]

        def raises(q: str) -> Any:
            raise make_exc()

        return raises
    run, asynchronous = BEHAVIOURS[name]
    if asynchronous:

        async def does_async(q: str) -> Any:
            return await run()

        return does_async

    def does(q: str) -> Any:
        return run()

    return does


CASES = [
    *(pytest.param("value", name, id=f"returns-{name}") for name in VALUES),
    *(pytest.param("raise", name, id=f"raises-{name}") for name in RAISES),
    *(pytest.param("do", name, id=name) for name in BEHAVIOURS),
]


def answered(result: Any) -> ToolResult:
    assert isinstance(result, ToolResult), f"escaped: {result!r}"
    envelope = strict(result.to_json())
    assert envelope["status"] in ("ok", "error")
    if not result.ok:
        assert result.error is not None and isinstance(result.error["code"], str)
    return result


@pytest.mark.parametrize(("kind", "name"), CASES)
def test_every_way_answers_a_hostile_handler(
    make_box: Callable[..., Toolbox], kind: str, name: str
) -> None:
    handler = handler_of(kind, name)

    def anything(q: str, limit: int = 3) -> Any:
        return handler(q)

    async def anything_async(q: str, limit: int = 3) -> Any:
        return await handler(q)

    chosen = anything_async if asyncio.iscoroutinefunction(handler) else anything
    # a handler that forks on the short way forks the caller's thread, as a direct call would
    timeouts = (5.0,) if name.startswith("forks") else (None, 5.0)
    for timeout in timeouts:
        sweep(make_box(handlers={"lookup": chosen}, timeout={"lookup": timeout}), name)


def sweep(box: Toolbox, name: str) -> None:
    results = {
        "call": on_a_thread(lambda: box.call("lookup", {"q": "x"})),
        "acall": on_a_thread(lambda: asyncio.run(box.acall("lookup", {"q": "x"}))),
    }
    if name == "cancels-its-own-task":
        # under `acall` its task is the caller's: the caller's task was cancelled, and
        # nothing tells that cancel from the caller's own
        assert isinstance(results.pop("acall"), asyncio.CancelledError)
    if name.startswith(("a-task-it-started", "returns-a-coroutine")):
        # the caller's own loop (`asyncio.run` here) ends its run on it: asyncio's rule, for
        # a loop the runtime does not own
        assert isinstance(results.pop("acall"), SystemExit | KeyboardInterrupt)
    for way, result in results.items():
        answered(result)
        if name.startswith("forks"):
            assert result.data == {"q": "parent"} or result.error is not None, way
    turn = [
        {"type": "tool_use", "id": "1", "name": "lookup", "input": {"q": "x"}},
        {"type": "tool_use", "id": "2", "name": "boom", "input": {"reason": "y"}},
    ]
    answers = on_a_thread(lambda: box.handle_anthropic(turn))
    assert isinstance(answers, list), f"escaped: {answers!r}"
    envelopes = [strict(a["content"]) for a in answers]
    assert envelopes[1]["error"]["code"] == "INTERNAL"  # boom's own failure, answered
    assert envelopes[0]["status"] in ("ok", "error")


def test_a_path_with_a_lone_surrogate_is_internal(make_box: Callable[..., Toolbox]) -> None:
    """The text checked is the text sent: a path (or an enum) becomes a string only when
    serialized."""
    box = make_box(handlers={"lookup": lambda q, limit=3: {"file": pathlib.Path("/caf\udce9")}})
    result = box.call("lookup", {"q": "x"})
    assert result.error is not None and result.error["code"] == "INTERNAL"


def test_a_handler_that_stops_the_loop_is_answered(make_box: Callable[..., Toolbox]) -> None:
    """Was: `loop.stop()` ended the sync call's loop run: RuntimeError out of `box.call`."""

    async def lookup(q: str, limit: int = 3) -> dict[str, object]:
        asyncio.get_running_loop().stop()
        return {"q": q}

    assert on_a_thread(lambda: make_box(handlers={"lookup": lookup}).call("lookup", {"q": "x"})).ok


def test_a_forked_child_never_returns_into_the_pool(make_box: Callable[..., Toolbox]) -> None:
    """Was: the child, with no loop to answer to, waited on the pool's queue for ever (and
    the parent's `waitpid` with it)."""

    def lookup(q: str, limit: int = 3) -> dict[str, object]:
        return {"q": _fork()}

    async def lookup_async(q: str, limit: int = 3) -> dict[str, object]:
        return {"q": _fork()}

    for handler in (lookup, lookup_async):
        box = make_box(handlers={"lookup": handler}, timeout=10)
        result = on_a_thread(lambda: box.call("lookup", {"q": "x"}))  # noqa: B023
        assert result.data == {"q": "parent"}, result
