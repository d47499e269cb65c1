"""The short way of a sync call (`toolgen.runtime.call.Lane`): a tool with a sync handler and
no timeout, called from sync code, runs on the caller's thread; it must answer, run handlers
and record events exactly as the whole way does, for every call it takes and every call it
leaves."""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolgen.runtime import CallContext, Toolbox, ToolResult
from toolgen.runtime.handlers import prepare
from toolgen.runtime.result import new_trace_id

from .conftest import Waits
from .projects_support import built_package

HANDLERS = '''
from __future__ import annotations

import asyncio
import math
import threading
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from toolgen import ToolError, tool

RUNS: list[tuple[str, int]] = []
FAILS: dict[str, int] = {}
MADE: list[str] = []


def _ran(name: str) -> None:
    RUNS.append((name, threading.get_ident()))
    if FAILS.get(name, 0) > 0:  # a declared retryable error while FAILS says so
        FAILS[name] -= 1
        raise ToolError("UNAVAILABLE", "down", retry_after_ms=10)


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
def greet(name: str, punctuation: str = "!", loud: bool = False) -> str:
    """Greet.

    Args:
        name: Who.
        punctuation: What ends it.
        loud: Shout.
    """
    _ran("greet")
    text = f"hello {name}{punctuation}"
    return text.upper() if loud else text


@tool(risk="low")
def scale(x: float, factor: float = 2.0) -> float:
    """Scale; a factor of 0 gives infinity.

    Args:
        x: The value.
        factor: By how much.
    """
    _ran("scale")
    return math.inf if factor == 0 else x * factor


@tool(risk="low")
def maybe(note: str | None = None, count: int = 1) -> dict[str, object]:
    """Optional things.

    Args:
        note: A note, or null.
        count: How many.
    """
    _ran("maybe")
    return {"note": note, "count": count}


@tool(risk="low")
def anything(x: Any = "the default") -> str:
    """Anything at all.

    Args:
        x: Whatever.
    """
    _ran("anything")
    return repr(x)


@tool(risk="low")
def pick(color: Literal["red", "green"], size: Annotated[int, Field(ge=1, le=10)] = 5) -> str:
    """Pick.

    Args:
        color: Which.
        size: How big.
    """
    _ran("pick")
    return f"{color}:{size}"


class Point(BaseModel):
    x: int
    y: int


@tool(risk="low")
def norm(p: Point) -> int:
    """Taxicab norm.

    Args:
        p: The point.
    """
    _ran("norm")
    return abs(p.x) + abs(p.y)


@tool(risk="low")
def big(n: int) -> int:
    """Too big for JSON when n > 0.

    Args:
        n: Which.
    """
    _ran("big")
    return 10**400 if n > 0 else n


@tool(risk="low")
def wrong(x: int) -> int:
    """Returns what it does not declare.

    Args:
        x: Anything.
    """
    _ran("wrong")
    return "not a number"  # type: ignore[return-value]


@tool(risk="low")
def crash(x: int) -> int:
    """Always fails.

    Args:
        x: Anything.
    """
    _ran("crash")
    raise RuntimeError("internal detail")


@tool(risk="low")
def flaky(x: int) -> int:
    """Fails while FAILS says so.

    Args:
        x: Anything.

    Errors:
        UNAVAILABLE: The upstream is down.

    Idempotency:
        idempotent: true
        safe: true
    """
    _ran("flaky")
    return x


@tool(risk="low", permissions=["things:read"])
def scoped(x: int) -> int:
    """Needs a scope.

    Args:
        x: Anything.
    """
    _ran("scoped")
    return x


async def _later(x: int) -> int:
    return x + 1


@tool(risk="low")
def looped(x: int) -> int:
    """Runs an event loop of its own (a sync wrapper of an async client); fails while
    FAILS says so.

    Args:
        x: Anything.

    Errors:
        UNAVAILABLE: The upstream is down.

    Idempotency:
        safe: true
    """
    _ran("looped")
    return asyncio.run(_later(x))


class Vault:
    """Tools of a class, made when a call first reaches one."""

    def __init__(self) -> None:
        MADE.append("vault")

    @tool(risk="low", permissions=["vault:read"])
    def peek(self, x: int) -> int:
        """Look.

        Args:
            x: Anything.
        """
        _ran("peek")
        return x


@tool(risk="low")
def deferred(x: int) -> int:
    """A sync handler that hands back an awaitable.

    Args:
        x: Anything.
    """
    _ran("deferred")
    return _later(x)  # type: ignore[return-value]


@tool(risk="medium")
def noted(line: str) -> int:
    """A write that is not idempotent.

    Args:
        line: The line.

    Idempotency:
        idempotent: false
        safe: false
    """
    _ran("noted")
    return len(line)
'''

#: Calls of every kind: taken by the short way, or left by it at each of its conditions.
CALLS: list[tuple[str, Any]] = [
    ("add", {"a": 1, "b": 2}),
    ("add", '{"a": 1, "b": 2}'),
    ("add", {"a": 1}),
    ("add", {"a": 1, "b": "2"}),
    ("add", {"a": True, "b": 2}),
    ("add", {"a": 1, "b": 2, "c": 3}),
    ("add", {"a": 10**400, "b": 1}),
    ("add", {"a": 1.0, "b": 2}),
    ("add", None),
    ("add", "[1, 2]"),
    ("add", '{"a": 1, "b":'),
    ("greet", {"name": "ann"}),
    ("greet", {"name": "ann", "punctuation": "?", "loud": True}),
    ("greet", {"name": "ann", "loud": None}),
    ("greet", {"name": ""}),
    ("scale", {"x": 1.5}),
    ("scale", {"x": 2}),
    ("scale", {"x": 1.0, "factor": 0}),
    ("scale", {"x": float("nan")}),
    ("maybe", {}),
    ("maybe", {"note": None}),
    ("maybe", {"note": "n", "count": None}),
    ("maybe", {"count": 3}),
    ("anything", {}),
    ("anything", {"x": None}),
    ("anything", {"x": [1]}),
    ("pick", {"color": "red"}),
    ("pick", {"color": "blue"}),
    ("pick", {"color": "green", "size": 11}),
    ("norm", {"p": {"x": 3, "y": -4}}),
    ("norm", {"p": {"x": "a", "y": 1}}),
    ("big", {"n": 1}),
    ("big", {"n": -1}),
    ("wrong", {"x": 1}),
    ("crash", {"x": 1}),
    ("flaky", {"x": 7}),
    ("scoped", {"x": 1}),
    ("deferred", {"x": 1}),
    ("looped", {"x": 1}),
    ("noted", {"line": "abc"}),
    ("nothing", {"x": 1}),
]

CONTEXTS = [
    CallContext(),
    CallContext(principal="p", scopes={"things:read"}, metadata={"m": 1}),
    CallContext(principal="p", idempotency_key="k-1"),
]

#: Event fields that differ between any two calls.
VARYING = {"time", "trace_id", "duration_ms"}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with built_package(tmp_path_factory.mktemp("lane"), "lane_tools", HANDLERS) as root:
        yield root


@pytest.fixture
def tools(project: Path) -> Any:
    import lane_tools.handlers

    lane_tools.handlers.RUNS.clear()
    lane_tools.handlers.FAILS.clear()
    lane_tools.handlers.MADE.clear()
    return lane_tools.handlers


def no_timeouts(root: Path) -> dict[str, float | None]:
    """No timeout for every tool but the one that can be given a key."""
    return {"*": None, "noted": 5.0}


def make(root: Path, timeout: Any, audit: Any, waits: Waits, lanes: bool = True) -> Toolbox:
    """A toolbox over the fixture; without `lanes`, every call takes the whole way."""
    box = Toolbox.load(
        root / "generated",
        store="memory://",
        audit=audit,
        timeout=timeout,
        # an int, as crash's return schema says: a fallback's data is checked as a return is
        fallbacks={"crash": lambda arguments, error: -500 if error["code"] == "INTERNAL" else 0},
    )
    box.sleep = waits
    box.random = lambda: 1.0
    if not lanes:
        box.lane = lambda name: None  # type: ignore[method-assign]
    return box


#: The short ways: on the caller's thread (no timeout), and on a worker thread that the
#: caller's thread waits for (a timeout), each held to the whole way.
SHORT_WAYS = {"here": no_timeouts, "timed": lambda root: 5.0}


def shown(result: ToolResult) -> tuple[Any, ...]:
    """A result without its trace id (which is the only thing two calls may differ in)."""
    error = dict(result.error or {})
    assert error.pop("trace_id", result.trace_id) == result.trace_id
    return (result.tool, result.ok, result.data, error, result.replayed, result.dry_run,
            result.fallback)  # fmt: skip


def calls(box: Toolbox, tools: Any) -> list[tuple[Any, ...]]:
    """Every call of `CALLS` in every context: what each answered and which tools ran."""
    found = []
    for context in CONTEXTS:
        for name, arguments in CALLS:
            tools.FAILS["flaky"] = tools.FAILS["looped"] = 1  # a retry succeeds
            tools.RUNS.clear()
            result = box.call(name, arguments, context=context)
            found.append((name, shown(result), [run for run, _ in tools.RUNS]))
    return found


@pytest.mark.parametrize("way", sorted(SHORT_WAYS))
def test_the_short_way_answers_runs_and_records_as_the_whole_way(
    project: Path, tools: Any, way: str
) -> None:
    """The differential: the same calls through a toolbox whose sync calls may take the short
    way and one whose calls all take the whole way; audit events into a list, so the short
    way takes its recording branch."""
    short_events: list[dict[str, Any]] = []
    whole_events: list[dict[str, Any]] = []
    short_waits, whole_waits = Waits(), Waits()
    short = make(project, SHORT_WAYS[way](project), short_events.append, short_waits)
    whole = make(project, 5.0, whole_events.append, whole_waits, lanes=False)
    assert calls(short, tools) == calls(whole, tools)
    assert short_waits.delays == whole_waits.delays != []
    assert len(short_events) == len(whole_events)
    for mine, theirs in zip(short_events, whole_events, strict=True):
        assert {k: v for k, v in mine.items() if k not in VARYING} == {
            k: v for k, v in theirs.items() if k not in VARYING
        }


@pytest.mark.parametrize("way", sorted(SHORT_WAYS))
def test_without_audit_events_the_shortest_way_answers_as_the_whole_way(
    project: Path, tools: Any, caplog: pytest.LogCaptureFixture, way: str
) -> None:
    """No event wanted (the default logger sink, off at INFO): the calls the quick check
    proves valid run at once; every answer is still the whole way's."""
    caplog.set_level(logging.WARNING, logger="toolgen.audit")
    short = make(project, SHORT_WAYS[way](project), None, Waits())
    whole = make(project, 5.0, None, Waits(), lanes=False)
    assert calls(short, tools) == calls(whole, tools)
    assert not [r for r in caplog.records if r.name == "toolgen.audit"]


def test_what_the_short_way_answers(project: Path, tools: Any) -> None:
    """The answers themselves (the differential above holds them equal to the whole way's)."""
    box = make(project, no_timeouts(project), None, Waits())

    def answer(name: str, arguments: Any) -> Any:
        tools.FAILS["flaky"] = tools.FAILS["looped"] = 1
        result = box.call(name, arguments)
        return result.data if result.ok else result.error and result.error["code"]

    assert [
        answer("add", {"a": 1, "b": 2}),
        answer("add", {"a": 10**400, "b": 1}),
        answer("greet", {"name": "ann", "loud": None}),
        answer("greet", {"name": "ann", "punctuation": "?", "loud": True}),
        answer("scale", {"x": 2}),
        answer("scale", {"x": 1.0, "factor": 0}),
        answer("maybe", {"note": "n", "count": None}),
        answer("anything", {"x": None}),
        answer("big", {"n": 1}),
        answer("big", {"n": -1}),
        answer("wrong", {"x": 1}),
        answer("crash", {"x": 1}),
        answer("flaky", {"x": 7}),
        answer("scoped", {"x": 1}),
        answer("deferred", {"x": 1}),
        answer("looped", {"x": 1}),
    ] == [
        3,
        "VALIDATION_ERROR",
        "hello ann!",
        "HELLO ANN?",
        4.0,
        "INTERNAL",
        {"note": "n", "count": 1},
        "'the default'",
        "INTERNAL",
        -1,
        "INTERNAL",
        -500,
        7,
        "FORBIDDEN",
        2,
        2,
    ]


def test_an_audit_logger_on_at_info_gets_the_short_ways_events(
    project: Path, tools: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="toolgen.audit")
    box = make(project, no_timeouts(project), None, Waits())
    assert box.call("add", {"a": 1, "b": 2}).data == 3
    decisions = [r.getMessage() for r in caplog.records if r.name == "toolgen.audit"]
    assert ['"proposed"' in decisions[0], '"executed"' in decisions[1]] == [True, True]


def test_a_sync_handler_without_a_timeout_runs_on_the_callers_thread(
    project: Path, tools: Any
) -> None:
    here = threading.get_ident()
    for audit in (None, [].append):
        box = make(project, no_timeouts(project), audit, Waits())
        tools.RUNS.clear()
        assert box.call("add", {"a": 1, "b": 2}).data == 3
        assert box.call("greet", {"name": "ann", "loud": None}).data == "hello ann!"
        assert [ident for _, ident in tools.RUNS] == [here, here]
    timed = make(project, 5.0, None, Waits())
    tools.RUNS.clear()
    assert timed.call("add", {"a": 1, "b": 2}).data == 3
    assert [ident for _, ident in tools.RUNS] != [here]


def test_call_inside_a_running_loop_runs_the_handler_off_its_thread(
    project: Path, tools: Any
) -> None:
    """A notebook runs a loop on its main thread: a handler there could not run one itself."""
    import asyncio

    box = make(project, no_timeouts(project), None, Waits())

    async def main() -> tuple[ToolResult, int]:
        return box.call("add", {"a": 1, "b": 2}), threading.get_ident()

    result, loop_thread = asyncio.run(main())
    assert result.data == 3
    assert [ident for _, ident in tools.RUNS] != [loop_thread]


def test_acall_still_runs_a_sync_handler_off_the_event_loop(project: Path, tools: Any) -> None:
    import asyncio

    box = make(project, no_timeouts(project), None, Waits())

    async def main() -> tuple[ToolResult, int]:
        return await box.acall("add", {"a": 1, "b": 2}), threading.get_ident()

    result, loop_thread = asyncio.run(main())
    assert result.data == 3
    assert [ident for _, ident in tools.RUNS] != [loop_thread]


def test_a_context_key_sends_a_non_idempotent_write_the_whole_way(
    project: Path, tools: Any
) -> None:
    """The write `noted` has a timeout (it can be given a key), so it never takes the short
    way; its key is still honoured."""
    box = make(project, no_timeouts(project), None, Waits())
    context = CallContext(principal="p", idempotency_key="once")
    first = box.call("noted", {"line": "abc"}, context=context)
    again = box.call("noted", {"line": "abc"}, context=context)
    assert (first.data, again.data, again.replayed) == (3, 3, True)
    assert [name for name, _ in tools.RUNS] == ["noted"]


def test_no_timeout_is_refused_for_a_tool_that_can_be_given_a_key(project: Path) -> None:
    with pytest.raises(ValueError) as caught:
        Toolbox.load(project / "generated", store="memory://", timeout=None)
    assert str(caught.value) == (
        "noted can be given an idempotency key, so it needs a timeout below in_flight_ttl "
        "(300 s), not None: a keyed call still running when its lease ends lets another call "
        'with the same key run (timeout={"*": None, "noted": 30.0}: none for the others)'
    )
    with pytest.raises(ValueError, match="noted can be given an idempotency key"):
        Toolbox.load(project / "generated", store="memory://", timeout={"noted": None})
    box = Toolbox.load(project / "generated", store="memory://", timeout={"*": None, "noted": 5})
    assert (box.timeout_for("add"), box.timeout_for("noted")) == (None, 5.0)
    other = Toolbox.load(project / "generated", store="memory://", timeout={"add": None})
    assert (other.timeout_for("add"), other.timeout_for("greet")) == (None, 30.0)
    with pytest.raises(ValueError, match=r"^the timeout \(400 s\) must be below in_flight_ttl"):
        Toolbox.load(project / "generated", store="memory://", timeout={"*": 400, "add": 1})


def test_trace_ids_do_not_follow_the_applications_random_seed() -> None:
    random.seed(7)
    first = [new_trace_id() for _ in range(3)]
    random.seed(7)
    second = [new_trace_id() for _ in range(3)]
    assert first != second
    assert all(len(t) == 16 and int(t, 16) >= 0 for t in first + second)


def _direct(fn: Callable[..., Any], properties: dict[str, Any]) -> bool:
    return prepare(fn, {"type": "object", "properties": properties}).direct


def test_direct_handlers_are_those_whose_arguments_pydantic_leaves_as_they_are() -> None:
    from pydantic import Field

    def plain(a: int, b: str = "x", *, c: bool = False, d: int | None = None) -> int:
        return a

    integer, string, boolean = ({"type": t} for t in ("integer", "string", "boolean"))
    assert _direct(plain, {"a": integer, "b": string, "c": boolean})  # `d` left to its default
    assert not _direct(plain, {"a": integer, "b": string, "c": boolean, "d": integer})

    def narrower(a: int) -> int:
        return a

    assert not _direct(narrower, {"a": integer, "b": integer})  # pydantic refuses `b`

    def floating(x: float) -> float:
        return x

    def fielded(a: int = Field(default=1)) -> int:
        return a

    def positional(a: int, /) -> int:
        return a

    def starred(*a: int) -> int:
        return 0

    assert not _direct(floating, {"x": {"type": "number"}})  # pydantic makes 1 into 1.0
    assert not _direct(fielded, {"a": integer})
    assert not _direct(positional, {"a": integer})
    assert not _direct(starred, {"a": integer})
    assert not _direct(plain, {"a": string, "b": string, "c": boolean})  # a schema that differs
    # bounds are the quick check's to prove; pydantic's plain `int` keeps the value either way
    assert _direct(plain, {"a": {"type": "integer", "minimum": 0}, "b": string})


def test_a_name_that_is_no_string_is_not_found(project: Path, tools: Any) -> None:
    box = make(project, no_timeouts(project), None, Waits())
    for name in (["add"], None, 3):
        result = box.call(name, {"a": 1, "b": 2})  # type: ignore[arg-type]
        assert result.error is not None and result.error["code"] == "NOT_FOUND"
    assert tools.RUNS == []


def test_retries_run_outside_any_event_loop(project: Path, tools: Any) -> None:
    """A handler that runs a loop of its own fails once, and its retry runs that loop: on the
    caller's thread, with or without audit events."""
    here = threading.get_ident()
    for audit in (None, [].append):
        box = make(project, no_timeouts(project), audit, Waits())
        tools.RUNS.clear()
        tools.FAILS["looped"] = 1
        assert box.call("looped", {"x": 1}).data == 2
        assert [("looped", here), ("looped", here)] == tools.RUNS


def test_the_fallback_gets_a_copy_of_the_callers_arguments(project: Path, tools: Any) -> None:
    box = make(project, no_timeouts(project), None, Waits())

    def fallback(arguments: dict[str, Any], error: dict[str, Any]) -> int:
        arguments["x"] = "changed"
        return -1

    box.fallbacks = {"crash": fallback}
    mine = {"x": 1}
    assert box.call("crash", mine).data == -1
    assert mine == {"x": 1}


def test_the_handler_is_reached_only_by_a_call_that_gets_that_far(
    project: Path, tools: Any
) -> None:
    """Its class is made (its module imported) after find, parse, validate and authorize,
    as on the whole way: a refused call makes nothing."""
    box = make(project, no_timeouts(project), None, Waits())
    assert box.call("peek", {"x": 1}).error["code"] == "FORBIDDEN"  # type: ignore[index]
    scoped = CallContext(scopes={"vault:read"})
    assert box.call("peek", '{"x": 1', context=scoped).error["code"] == "VALIDATION_ERROR"  # type: ignore[index]
    assert tools.MADE == []
    assert box.call("peek", {"x": 1}, context=scoped).data == 1
    assert box.call("peek", {"x": 2}, context=scoped).data == 2
    assert tools.MADE == ["vault"]


def test_a_short_way_that_cannot_be_made_leaves_the_call_to_the_whole_way(
    project: Path, tools: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from toolgen.runtime import toolbox as toolbox_module

    def broken(schema: Any) -> bool:
        raise TypeError("a hand-edited descriptor")

    monkeypatch.setattr(toolbox_module, "may_drop", broken)
    box = make(project, no_timeouts(project), None, Waits())
    assert box.call("add", {"a": 1, "b": 2}).data == 3
    assert "add takes the whole way: its short way failed (a hand-edited descriptor)" in (
        caplog.text
    )


def test_timeouts_changed_after_the_load_never_skip_a_key(project: Path, tools: Any) -> None:
    """The toolbox keeps a copy of the mapping, which cannot be replaced; and a write that
    can be given a key never takes the short way anyway."""
    timeouts: dict[str, float | None] = {"*": None, "noted": 5.0}
    box = make(project, timeouts, None, Waits())
    timeouts["noted"] = None
    assert box.timeout_for("noted") == 5.0
    with pytest.raises(AttributeError):
        box.timeout = {"*": None}  # type: ignore[misc]
    context = CallContext(principal="p", idempotency_key="once")
    answers = [box.call("noted", {"line": "abc"}, context=context) for _ in range(2)]
    assert [a.replayed for a in answers] == [False, True]
    assert [name for name, _ in tools.RUNS] == ["noted"]
