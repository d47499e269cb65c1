"""A model turn through the sync adapters (`Toolbox.handle_*`): when every call of the turn
has a short way (`Toolbox.lane`: a sync handler, no timeout, nothing to wait for), its calls
run one after another on the caller's thread, with no event loop and no thread hop; a turn
with a call that waits (a timeout, an async handler) runs its calls at once, as before. The
answers and the audit events are those of the async adapters (`ahandle_*`), byte for byte."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolgen.runtime import CallContext, Toolbox

from .projects_support import built_package

HANDLERS = '''
from __future__ import annotations

import asyncio
import threading

from toolgen import tool

RUNS: list[tuple[str, int]] = []

#: Two calls of `meet` pass it only when they run at the same time.
MEETING = threading.Barrier(2, timeout=30)


def _ran(name: str) -> None:
    RUNS.append((name, threading.get_ident()))


@tool(risk="low")
def add(a: int, b: int) -> int:
    """Add.

    Args:
        a: The first.
        b: The second.
    """
    _ran("add")
    return a + b


@tool(risk="low")
def greet(name: str, loud: bool = False) -> str:
    """Greet.

    Args:
        name: Who.
        loud: Shout.
    """
    _ran("greet")
    return f"hello {name}".upper() if loud else f"hello {name}"


@tool(risk="low")
def crash(x: int) -> int:
    """Always fails.

    Args:
        x: Anything.
    """
    _ran("crash")
    raise RuntimeError("internal detail")


@tool(risk="low")
def meet(x: int) -> int:
    """Waits for another call of it.

    Args:
        x: Anything.
    """
    _ran("meet")
    MEETING.wait()
    return x


@tool(risk="low")
async def later(x: int) -> int:
    """An async handler.

    Args:
        x: Anything.
    """
    _ran("later")
    await asyncio.sleep(0)
    return x + 1
'''

#: `meet` has a timeout (its calls take the whole way); the others none.
TIMEOUTS = {"*": None, "meet": 20.0}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with built_package(tmp_path_factory.mktemp("turns"), "turn_tools", HANDLERS) as root:
        yield root


@pytest.fixture
def tools(project: Path) -> Any:
    import turn_tools.handlers

    turn_tools.handlers.RUNS.clear()
    return turn_tools.handlers


def make(project: Path, audit: Any = None, timeout: Any = None) -> Toolbox:
    return Toolbox.load(
        project / "generated",
        store="memory://",
        audit=audit,
        timeout=TIMEOUTS if timeout is None else timeout,
    )


#: (name, arguments) of a turn: short-way calls, a bad one, one that raises, an unknown tool.
TURN: list[tuple[str, Any]] = [
    ("add", {"a": 1, "b": 2}),
    ("greet", {"name": "ann", "loud": True}),
    ("add", {"a": 1, "b": "2"}),
    ("crash", {"x": 1}),
    ("add", {"a": 3, "b": 4}),
    ("nothing", {"x": 1}),
]


def chat(calls: list[tuple[str, Any]], custom: bool = True) -> list[dict[str, Any]]:
    """With a custom tool's call, which the adapter answers itself (with a trace id of its
    own: not one two turns share)."""
    found = [
        {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, (n, a) in enumerate(calls)
    ]
    if custom:
        found.append({"id": "cx", "type": "custom", "custom": {"name": "sql", "input": "x"}})
    return found


def responses(calls: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"type": "function_call", "call_id": f"r{i}", "name": n, "arguments": json.dumps(a)}
        for i, (n, a) in enumerate(calls)
    ]


def anthropic(calls: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"type": "tool_use", "id": f"tu{i}", "name": n, "input": a}
        for i, (n, a) in enumerate(calls)
    ]


def gemini(calls: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    # no ids: each call is marked by its place in the turn
    return [{"function_call": {"name": n, "args": a}} for n, a in calls]


#: Each platform: its turn, its sync adapter and its async one.
Sync = Callable[[Toolbox, Any, CallContext | None], list[dict[str, Any]]]
Async = Callable[[Toolbox, Any, CallContext | None], Any]
PLATFORMS: dict[str, tuple[Callable[..., Any], Sync, Async]] = {
    "chat": (
        lambda calls: chat(calls, custom=False),
        lambda box, turn, context: box.handle_openai_chat(turn, context=context),
        lambda box, turn, context: box.ahandle_openai_chat(turn, context=context),
    ),
    "responses": (
        responses,
        lambda box, turn, context: box.handle_openai_responses(turn, context=context),
        lambda box, turn, context: box.ahandle_openai_responses(turn, context=context),
    ),
    "anthropic": (
        anthropic,
        lambda box, turn, context: box.handle_anthropic(turn, context=context),
        lambda box, turn, context: box.ahandle_anthropic(turn, context=context),
    ),
    "gemini": (
        gemini,
        lambda box, turn, context: box.handle_gemini(turn, context=context),
        lambda box, turn, context: box.ahandle_gemini(turn, context=context),
    ),
}


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
@pytest.mark.parametrize("audit", [False, True])
def test_a_turn_of_short_way_calls_runs_on_the_callers_thread(
    project: Path, tools: Any, platform: str, audit: bool
) -> None:
    make_turn, handle, _ = PLATFORMS[platform]
    make_turn = chat if platform == "chat" else make_turn
    box = make(project, [].append if audit else None)
    answers = handle(box, make_turn(TURN), None)
    assert len(answers) == len(make_turn(TURN))
    assert [name for name, _ in tools.RUNS] == ["add", "greet", "crash", "add"]
    assert {ident for _, ident in tools.RUNS} == {threading.get_ident()}


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_a_turn_answers_and_records_as_the_async_adapter_does(
    project: Path, tools: Any, platform: str
) -> None:
    """The differential: the same turn through the sync adapter (on this thread) and the
    async one (concurrently, each call the whole way), on toolboxes alike: the same answers
    byte for byte (trace ids made from the turn's), the same events for each call."""
    make_turn, handle, ahandle = PLATFORMS[platform]
    context = CallContext(principal="p", trace_id="turn-1", metadata={"m": 1})
    mine: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    here = handle(make(project, mine.append), make_turn(TURN), context)
    assert {ident for _, ident in tools.RUNS} == {threading.get_ident()}
    tools.RUNS.clear()
    whole = asyncio.run(ahandle(make(project, theirs.append), make_turn(TURN), context))
    assert threading.get_ident() not in {ident for _, ident in tools.RUNS}
    assert json.dumps(here, ensure_ascii=False) == json.dumps(whole, ensure_ascii=False)

    def by_call(events: list[dict[str, Any]]) -> list[str]:
        kept = [{k: v for k, v in e.items() if k not in ("time", "duration_ms")} for e in events]
        # one call's events in their order; the calls' in the turn's (not interleaved here)
        ordered = sorted(kept, key=lambda e: str(e["trace_id"]))
        return [json.dumps(e, sort_keys=True) for e in ordered]

    assert by_call(mine) == by_call(theirs)
    assert len({e["trace_id"] for e in mine}) == len(TURN)


def test_a_turn_with_a_call_that_waits_runs_its_calls_at_once(project: Path, tools: Any) -> None:
    """`meet` has a timeout: its two calls run at the same time (each waits for the other),
    on worker threads, while the call with none runs on the caller's thread."""
    box = make(project)
    turn = [("add", {"a": 1, "b": 2}), ("meet", {"x": 1}), ("meet", {"x": 2})]
    answers = box.handle_openai_chat(chat(turn, custom=False))
    assert [json.loads(a["content"]) for a in answers] == [
        {"status": "ok", "data": 3},
        {"status": "ok", "data": 1},
        {"status": "ok", "data": 2},
    ]
    here = threading.get_ident()
    assert [(name, ident == here) for name, ident in sorted(tools.RUNS)] == [
        ("add", True),
        ("meet", False),
        ("meet", False),
    ]


def test_once_a_handler_is_known_async_its_turns_run_concurrently(
    project: Path, tools: Any
) -> None:
    """The first turn cannot know that `later` is async without importing its handler
    before a call gets as far as it: the turn runs here, `later` on this thread's loop. Once
    it is known, a turn with it runs its calls at once, off this thread."""
    box = make(project)
    turn = anthropic([("later", {"x": 1}), ("add", {"a": 1, "b": 2})])
    first = box.handle_anthropic(turn)
    assert [json.loads(a["content"])["data"] for a in first] == [2, 3]
    here = threading.get_ident()
    assert [ident for _, ident in tools.RUNS] == [here, here]
    tools.RUNS.clear()
    assert box.handle_anthropic(turn) == first
    assert [name for name, _ in tools.RUNS] == ["later", "add"]
    assert dict(tools.RUNS)["add"] != here


def test_a_turn_with_timeouts_runs_its_handlers_off_the_callers_thread(
    project: Path, tools: Any
) -> None:
    box = make(project, timeout=5.0)
    answers = box.handle_gemini(gemini(TURN))
    assert len(answers) == len(TURN)
    assert [name for name, _ in tools.RUNS] == ["add", "greet", "crash", "add"]
    assert threading.get_ident() not in {ident for _, ident in tools.RUNS}


def test_a_sync_adapter_inside_a_running_loop_runs_handlers_off_its_thread(
    project: Path, tools: Any
) -> None:
    """A notebook runs a loop on its main thread: a handler there could not run one itself."""
    box = make(project)

    async def main() -> tuple[list[dict[str, Any]], int]:
        return box.handle_openai_chat(chat(TURN)), threading.get_ident()

    answers, loop_thread = asyncio.run(main())
    assert json.loads(answers[0]["content"]) == {"status": "ok", "data": 3}
    assert loop_thread not in {ident for _, ident in tools.RUNS}


def test_a_bad_concurrency_limit_fails_the_short_way_too(project: Path, tools: Any) -> None:
    box = Toolbox.load(
        project / "generated", store="memory://", timeout=TIMEOUTS, max_concurrency=0
    )
    with pytest.raises(ValueError, match="limit must be at least 1"):
        box.handle_openai_chat(chat(TURN))
    assert tools.RUNS == []
