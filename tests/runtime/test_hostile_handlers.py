"""Handlers that raise what is no `Exception`, return what JSON cannot carry, or fail their
`ToolError`: each is one call's `INTERNAL`, through `box.call` (the short way and the whole
way), `box.acall` and every platform adapter; the other calls of the turn are answered, and a
key claimed for the call is freed."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from toolgen.runtime import Toolbox, ToolError, ToolResult

from .stores_support import PAY
from .threads_support import cancelled, on_a_thread, when_set

KEY = "0123456789abcdef"

#: What a handler may raise that is no `Exception` (a fresh one per call).
ESCAPES: dict[str, Callable[[], BaseException]] = {
    "SystemExit": lambda: SystemExit(2),
    "KeyboardInterrupt": KeyboardInterrupt,
    "GeneratorExit": GeneratorExit,
    "BaseException": lambda: BaseException("bare"),
    "CancelledError": asyncio.CancelledError,
}


def assert_internal(result: Any) -> None:
    assert isinstance(result, ToolResult), f"escaped: {result!r}"
    assert result.error is not None and result.error["code"] == "INTERNAL", result
    assert result.error["message"] == "internal error"
    assert json.loads(result.to_json())["status"] == "error"


def raising(make: Callable[[], BaseException], asynchronous: bool) -> Callable[..., Any]:
    if asynchronous:

        async def boom_async(reason: str) -> str:
            raise make()

        return boom_async

    def boom(reason: str) -> str:
        raise make()

    return boom


WAYS = [
    pytest.param({"boom": None}, False, id="sync-short-way"),
    pytest.param({"boom": 5}, False, id="sync-worker-thread"),
    pytest.param({"boom": 5}, True, id="async"),
]


@pytest.mark.parametrize("escape", list(ESCAPES))
@pytest.mark.parametrize(("timeout", "asynchronous"), WAYS)
def test_what_is_no_exception_is_internal_through_call_and_acall(
    make_box: Callable[..., Toolbox],
    escape: str,
    timeout: dict[str, float | None],
    asynchronous: bool,
) -> None:
    box = make_box(handlers={"boom": raising(ESCAPES[escape], asynchronous)}, timeout=timeout)
    assert_internal(on_a_thread(lambda: box.call("boom", {"reason": "x"})))
    assert_internal(on_a_thread(lambda: asyncio.run(box.acall("boom", {"reason": "x"}))))
    assert box.call("lookup", {"q": "still"}).ok


TURNS: dict[str, tuple[str, Callable[[str, dict[str, Any]], Any]]] = {
    "openai_chat": (
        "handle_openai_chat",
        lambda name, args: {
            "id": f"c-{name}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        },
    ),
    "openai_responses": (
        "handle_openai_responses",
        lambda name, args: {
            "type": "function_call",
            "call_id": f"c-{name}",
            "name": name,
            "arguments": json.dumps(args),
        },
    ),
    "anthropic": (
        "handle_anthropic",
        lambda name, args: {"type": "tool_use", "id": f"c-{name}", "name": name, "input": args},
    ),
    "gemini": (
        "handle_gemini",
        lambda name, args: {"function_call": {"id": f"c-{name}", "name": name, "args": args}},
    ),
}


def envelopes(platform: str, answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if platform == "gemini":
        return [a["function_response"]["response"] for a in answers]
    field = {"openai_chat": "content", "openai_responses": "output"}.get(platform, "content")
    return [json.loads(a[field]) for a in answers]


@pytest.mark.parametrize("escape", list(ESCAPES))
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("platform", list(TURNS))
def test_what_is_no_exception_costs_its_own_call_of_the_turn(
    make_box: Callable[..., Toolbox], escape: str, asynchronous: bool, platform: str
) -> None:
    box = make_box(handlers={"boom": raising(ESCAPES[escape], asynchronous)})
    method, item = TURNS[platform]
    turn = [item("boom", {"reason": "x"}), item("lookup", {"q": "word"})]
    answers = on_a_thread(lambda: getattr(box, method)(turn))
    assert isinstance(answers, list), f"escaped: {answers!r}"
    failed, answered = envelopes(platform, answers)
    assert failed["status"] == "error" and failed["error"]["code"] == "INTERNAL"
    assert answered == {"status": "ok", "data": {"q": "word", "limit": 3}}
    # and the async twin, in a loop of the caller's
    answers = on_a_thread(lambda: asyncio.run(getattr(box, "a" + method)(turn)))
    assert isinstance(answers, list), f"escaped: {answers!r}"
    assert [e["status"] for e in envelopes(platform, answers)] == ["error", "ok"]


@pytest.mark.parametrize("escape", list(ESCAPES))
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_keyed_call_frees_its_key_whatever_the_handler_raised(
    make_box: Callable[..., Toolbox], escape: str, asynchronous: bool
) -> None:
    runs: list[str] = []

    def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(to)
        if len(runs) == 1:
            raise ESCAPES[escape]()
        return {"sent": amount, "to": to}

    handler: Callable[..., Any] = transfer
    if asynchronous:

        async def transfer_async(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
            return transfer(amount, to, idempotency_key)

        handler = transfer_async
    box = make_box(handlers={"transfer": handler})
    arguments = {"amount": 5, "to": "acct", "idempotency_key": KEY}
    assert_internal(on_a_thread(lambda: box.call("transfer", arguments, context=PAY)))
    again = on_a_thread(lambda: box.call("transfer", arguments, context=PAY))
    assert again.ok and not again.replayed, again  # was: IDEMPOTENCY_KEY_IN_PROGRESS
    assert runs == ["acct", "acct"]


def test_a_real_cancellation_still_cancels(make_box: Callable[..., Toolbox]) -> None:
    """The caller's cancel is no handler's CancelledError: it goes on, audited, key freed."""
    started = threading.Event()

    async def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        started.set()
        await asyncio.sleep(60)
        return {}

    box = make_box(handlers={"transfer": transfer})
    arguments = {"amount": 5, "to": "acct", "idempotency_key": KEY}

    call = box.acall("transfer", arguments, context=PAY)
    assert on_a_thread(lambda: asyncio.run(cancelled(call, when_set(started)))) is True


def test_a_keyboard_interrupt_that_may_be_ctrl_c_still_stops_the_caller(
    make_box: Callable[..., Toolbox], events: list[dict[str, Any]]
) -> None:
    """On the main thread, with Python's own SIGINT handler, a KeyboardInterrupt may be a
    real Ctrl-C: it goes on (audited), as a direct call of the handler would let it."""
    box = make_box(handlers={"boom": raising(KeyboardInterrupt, False)}, timeout={"boom": None})
    with pytest.raises(KeyboardInterrupt):
        box.call("boom", {"reason": "x"})
    assert [e["decision"] for e in events][-1] == "failed"
    assert box.call("lookup", {"q": "still"}).ok


def test_a_keyboard_interrupt_on_the_main_thread_frees_the_key(
    make_box: Callable[..., Toolbox],
) -> None:
    runs: list[int] = []

    async def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(amount)
        if len(runs) == 1:
            raise KeyboardInterrupt
        return {"sent": amount}

    box = make_box(handlers={"transfer": transfer})
    arguments = {"amount": 5, "to": "acct", "idempotency_key": KEY}
    with pytest.raises(KeyboardInterrupt):
        box.call("transfer", arguments, context=PAY)
    again = box.call("transfer", arguments, context=PAY)
    assert again.ok and not again.replayed, again
    assert runs == [5, 5]


class Hostile:
    """A value whose dunders fail (`__repr__` with an `Exception`: pytest shows values)."""

    def __str__(self) -> str:
        raise SystemExit("str")

    def __repr__(self) -> str:
        raise RuntimeError("repr")

    def __eq__(self, other: object) -> bool:
        raise SystemExit("eq")

    def __hash__(self) -> int:
        raise SystemExit("hash")


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: ToolError("NOT_FOUND", b"bytes"), id="bytes-message"),  # type: ignore[arg-type]
        pytest.param(lambda: ToolError("NOT_FOUND", 42), id="int-message"),  # type: ignore[arg-type]
        pytest.param(lambda: ToolError("NOT_FOUND", Hostile()), id="hostile-message"),  # type: ignore[arg-type]
        pytest.param(lambda: ToolError(42, "x"), id="int-code"),  # type: ignore[arg-type]
        pytest.param(lambda: ToolError(Hostile(), "x"), id="hostile-code"),  # type: ignore[arg-type]
        pytest.param(lambda: ToolError("NOT_FOUND", "name \udcff"), id="surrogate-message"),
        pytest.param(lambda: ToolError("NOT_FOUND", "x", where="\udcff"), id="surrogate-detail"),
        pytest.param(lambda: ToolError("NOT_FOUND", "x", big=10**400), id="huge-detail"),
        pytest.param(lambda: ToolError("NOT_FOUND", "x", odd=Hostile()), id="hostile-detail"),
    ],
)
@pytest.mark.parametrize("timeout", [None, 5], ids=["short-way", "whole-way"])
def test_a_tool_error_json_cannot_carry_is_internal(
    make_box: Callable[..., Toolbox], make: Callable[[], ToolError], timeout: float | None
) -> None:
    def boom(reason: str) -> str:
        raise make()

    box = make_box(handlers={"boom": boom}, timeout={"boom": timeout})
    result = on_a_thread(lambda: box.call("boom", {"reason": "x"}))
    assert_internal(result)
    result.to_json().encode("utf-8")  # text every wire can carry


SURROGATE = "caf\udce9.txt"  # what os.listdir gives for a Latin-1 name

UNCARRIABLE: dict[str, Any] = {
    "surrogate-value": {"names": ["a.txt", SURROGATE]},
    "surrogate-key": {SURROGATE: 1},
    "cycle-list": "cycle-list",
    "cycle-dict": "cycle-dict",
}


def uncarriable(kind: str) -> Any:
    if kind == "cycle-list":
        loop: list[Any] = []
        loop.append(loop)
        return {"loop": loop}
    if kind == "cycle-dict":
        node: dict[str, Any] = {}
        node["self"] = node
        return node
    return UNCARRIABLE[kind]


@pytest.mark.parametrize("kind", list(UNCARRIABLE))
@pytest.mark.parametrize(("timeout", "asynchronous"), WAYS)
def test_a_result_json_cannot_carry_is_internal(
    make_box: Callable[..., Toolbox],
    kind: str,
    timeout: dict[str, float | None],
    asynchronous: bool,
) -> None:
    """A lone surrogate (no UTF-8 text holds one) and a cycle (was: a walk that never ended,
    on the event loop, past the timeout)."""

    def lookup(q: str, limit: int = 3) -> dict[str, object]:
        return uncarriable(kind)  # type: ignore[no-any-return]

    async def lookup_async(q: str, limit: int = 3) -> dict[str, object]:
        return uncarriable(kind)  # type: ignore[no-any-return]

    handler = lookup_async if asynchronous else lookup
    box = make_box(handlers={"lookup": handler}, timeout={"lookup": timeout["boom"]})
    assert_internal(on_a_thread(lambda: box.call("lookup", {"q": "x"})))
    assert_internal(on_a_thread(lambda: asyncio.run(box.acall("lookup", {"q": "x"}))))


@pytest.mark.parametrize("timeout", [None, 5], ids=["short-way", "whole-way"])
def test_a_string_result_with_a_lone_surrogate_is_internal(
    make_box: Callable[..., Toolbox], timeout: float | None
) -> None:
    """A `-> str` handler's value takes the quickest check there is: it too."""

    def boom(reason: str) -> str:
        return SURROGATE

    box = make_box(handlers={"boom": boom}, timeout={"boom": timeout})
    assert_internal(box.call("boom", {"reason": "x"}))
    # and a string UTF-8 can carry, however far from ASCII, is answered as it is
    box = make_box(handlers={"boom": lambda reason: "café 😀"}, timeout={"boom": timeout})
    assert box.call("boom", {"reason": "x"}).data == "café 😀"


def test_a_cancelled_turn_is_still_cancelled(make_box: Callable[..., Toolbox]) -> None:
    """A call's task cancelled by its handler is that call's INTERNAL; the turn's own
    cancellation (the caller gave up) still cancels the turn."""
    started = threading.Event()

    async def lookup(q: str, limit: int = 3) -> dict[str, object]:
        started.set()
        await asyncio.sleep(60)
        return {}

    async def cancels_itself(reason: str) -> str:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(0)
        return reason

    box = make_box(handlers={"lookup": lookup, "boom": cancels_itself})
    turn = [
        {"type": "tool_use", "id": "1", "name": "boom", "input": {"reason": "x"}},
        {"type": "tool_use", "id": "2", "name": "lookup", "input": {"q": "word"}},
    ]

    given_up = box.ahandle_anthropic(turn)
    assert on_a_thread(lambda: asyncio.run(cancelled(given_up, when_set(started)))) is True
    # and without the caller giving up, the self-cancelled call is answered alone
    box = make_box(handlers={"boom": cancels_itself})
    answers = on_a_thread(lambda: box.handle_anthropic(turn))
    assert isinstance(answers, list), answers
    assert json.loads(answers[0]["content"])["error"]["code"] == "INTERNAL"
    assert json.loads(answers[1]["content"])["status"] == "ok"


class Unprintable(Exception):
    def __str__(self) -> str:
        raise SystemExit("str")


@pytest.mark.parametrize(
    "make", [lambda: SystemExit("usage: greeter NAME"), Unprintable], ids=["exit", "unprintable"]
)
def test_a_handler_that_cannot_be_made_is_not_callable_whatever_it_raised(
    make_box: Callable[..., Toolbox], make: Callable[[], BaseException]
) -> None:
    """Reaching the handler runs user code too (an import, a factory): what it raises costs
    that tool alone."""

    def factory(cls: type) -> Any:
        raise make()

    box = make_box(factory=factory)
    for _ in range(2):  # and again: its failure is kept, the call answered each time
        result = on_a_thread(lambda: box.call("greet", {"name": "ann"}))
        assert_internal_not_callable(result)
    assert box.call("lookup", {"q": "still"}).ok


def assert_internal_not_callable(result: Any) -> None:
    assert isinstance(result, ToolResult), f"escaped: {result!r}"
    assert result.error is not None and result.error["code"] == "INTERNAL"
    assert result.error["message"] == "tool 'greet' is not callable on this server"
