#!/usr/bin/env python3
"""The run time's figures (issue 18): what `Toolbox` adds to a call, and keyed calls per second.

Usage: python benchmarks/runtime_calls.py [--calls 2000] [--repeat 3]
(`python benchmarks/run.py --runtime` prints the same table after the compiler's.)

A small project (one read-only tool `add(a: int, b: int) -> int`, one write `record(note,
idempotency_key)`) is built with `toolgen build` into a temporary folder; then, in this process:
- the reference: `add` through `pydantic.validate_call` (the arguments validated, the handler run);
- `box.call("add", {...})` from synchronous code with the memory store and no timeout for
  `add` (`timeout={"add": None}`): the short way (`toolgen.runtime.call.Lane`), every step
  that has something to do - find, parse, validate against the JSON Schema, authorize, gate -
  and the handler on the caller's thread, as `validate_call` runs it: the issue's 2x target;
  then the same with two audit events per call to a callable;
- `box.call(...)` with the default timeout (30 s): the handler on a worker thread, so that the
  call can answer TIMEOUT while a stuck handler still runs;
- `await box.acall("add", {...})` (a sync handler on a worker thread, two audit events), beside
  `validate_call` on a worker thread; and with an async `add` handed over (`handlers=`): no
  worker thread, the steps alone;
- the realistic tool of issue 28, `create_ticket(title, priority: Priority, tags, address:
  Address, due_days)` returning a model, through `validate_call` and `box.call` (the short
  way and the default), in turn;
- keyed calls of `record` (each with a new key: a claim and a stored result in the store) per
  second, with the memory, sqlite and redis stores (redis when `redis-server` is on PATH: one
  is started on a free port for the run).
Each figure is the best of --repeat runs of --calls calls, one after the other; but the
reference and the short way's two figures are the best of 5 x --repeat rounds of ten times
--calls calls that run the three in turn (a ratio of two runs far apart in time measures the
machine's spells as much as the calls).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pydantic

from toolgen.runtime import CallContext, Toolbox

HANDLERS = '''
from enum import Enum

from pydantic import BaseModel, Field

from toolgen import tool


class Priority(str, Enum):
    """How urgent a ticket is."""

    LOW = "low"
    HIGH = "high"


class Address(BaseModel):
    """Where the work is."""

    street: str = Field(description="Street and number.")
    city: str = Field(description="City.")
    zip: str | None = Field(None, description="Postal code.")


class Ticket(BaseModel):
    """A created ticket."""

    id: int
    title: str
    priority: Priority
    tags: list[str]
    city: str
    due_days: int | None = None


@tool(risk="low")
def create_ticket(
    title: str,
    priority: Priority,
    tags: list[str],
    address: Address,
    due_days: int | None = None,
) -> Ticket:
    """Create a support ticket (the realistic tool of issue 28).

    Args:
        title: What is wrong.
        priority: How urgent it is.
        tags: Labels for the ticket.
        address: Where the work is.
        due_days: Days until it is due; none for no due date.
    """
    return Ticket(
        id=1, title=title, priority=priority, tags=tags, city=address.city, due_days=due_days
    )


@tool(risk="low")
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


@tool(risk="medium")
def record(note: str, idempotency_key: str) -> int:
    """Record a note once.

    Args:
        note: What to record.
        idempotency_key: Client-chosen key that makes retries safe.

    Idempotency:
        idempotent: false
        safe: false
    """
    return len(note)
'''

CONFIG = """[tool.toolgen]
sources = ["benchrt"]
out = "generated"
platforms = ["mcp"]
"""


def project(folder: Path) -> Path:
    (folder / "benchrt").mkdir()
    (folder / "benchrt" / "__init__.py").write_text("")
    (folder / "benchrt" / "tools.py").write_text(HANDLERS)
    (folder / "pyproject.toml").write_text(CONFIG)
    subprocess.run([sys.executable, "-m", "toolgen", "build", "-q"], cwd=folder, check=True)
    return folder


def per_call(calls: int, repeat: int, run: Callable[[int], None]) -> float:
    """Seconds per call: the best of `repeat` runs of `calls` calls."""
    return alternating(calls, repeat, {"": run})[""]


def repeated(call: Callable[[], Any]) -> Callable[[int], None]:
    """`call` n times, its results dropped (a list keeping them would add the collector's
    work to the calls that make objects it tracks)."""

    def run(calls: int) -> None:
        for _ in range(calls):
            call()

    return run


def alternating(
    calls: int, rounds: int, runs: dict[str, Callable[[int], None]]
) -> dict[str, float]:
    """Seconds per call of each run: the best of `rounds` rounds that each time run every one
    of `runs` in turn, so that a slower spell of the machine weighs on all of them alike."""
    for run in runs.values():
        run(min(calls, 200))  # warm: imports, compiled validators, prepared handlers
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            run(calls)
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: seconds / calls for name, seconds in best.items()}


def in_loop(make: Callable[[], Awaitable[Any]]) -> Callable[[int], None]:
    def run(calls: int) -> None:
        async def many() -> None:
            for _ in range(calls):
                await make()

        asyncio.run(many())

    return run


@contextmanager
def redis_server(folder: Path) -> Iterator[str | None]:
    """A redis-server on a free port for the run, or None when there is none on PATH."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(500):
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.01)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait()


def rows(calls: int, repeat: int) -> list[tuple[str, str, str]]:
    """(what, figure, note) rows of the run time's table."""
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp))
        sys.path.insert(0, str(root))
        add = importlib.import_module("benchrt.tools").add
        checked = pydantic.validate_call(add)
        context = CallContext(principal="bench")

        def box_with(store: str, **options: Any) -> Toolbox:
            options.setdefault("audit", lambda event: None)
            return Toolbox.load(root / "generated", store=store, **options)

        async def add_async(a: int, b: int) -> int:
            return a + b

        box = box_with("memory://")
        inline = Toolbox.load(
            root / "generated",
            store="memory://",
            audit=lambda event: None,
            handlers={"add": add_async},
        )
        many = calls * 10
        # no audit option: the default sink, the logger `toolgen.audit`, is off at INFO unless
        # the application turns it on
        short = box_with("memory://", timeout={"add": None}, audit=None)
        recorded = box_with("memory://", timeout={"add": None})
        for each in (short, recorded):
            result = each.call("add", {"a": 1, "b": 2}, context=context)
            assert result.ok and result.data == 3, result
        quick = alternating(
            many,
            repeat * 5,
            {
                "reference": repeated(lambda: checked(a=1, b=2)),
                "short": repeated(lambda: short.call("add", {"a": 1, "b": 2}, context=context)),
                "audited": repeated(
                    lambda: recorded.call("add", {"a": 1, "b": 2}, context=context)
                ),
            },
        )
        reference, shortest, audited = quick["reference"], quick["short"], quick["audited"]
        # what an agent loop pays to call a sync handler through validate_call without
        # blocking its event loop: the same call on a worker thread
        threaded = per_call(calls, repeat, in_loop(lambda: asyncio.to_thread(checked, a=1, b=2)))
        result = box.call("add", {"a": 1, "b": 2}, context=context)
        assert result.ok and result.data == 3, result
        awaited = per_call(
            calls, repeat, in_loop(lambda: box.acall("add", {"a": 1, "b": 2}, context=context))
        )
        stepped = per_call(
            calls, repeat, in_loop(lambda: inline.acall("add", {"a": 1, "b": 2}, context=context))
        )
        synced = per_call(
            calls // 4 or 1,
            repeat,
            repeated(lambda: box.call("add", {"a": 1, "b": 2}, context=context)),
        )
        found = [
            ("`pydantic.validate_call(add)(a=1, b=2)`", f"{reference * 1e6:.2f} µs", "reference"),
            (
                "`box.call('add', ...)`, memory store, no timeout",
                f"{shortest * 1e6:.2f} µs",
                f"{shortest / reference:.2f}x the reference (target 2x): the handler on the "
                "caller's thread",
            ),
            (
                "the same, two audit events per call to a callable",
                f"{audited * 1e6:.2f} µs",
                f"{audited / reference:.2f}x",
            ),
            (
                "`box.call('add', ...)`, the default timeout (30 s)",
                f"{synced * 1e6:.1f} µs",
                f"{synced / reference:.1f}x (the handler on a worker thread, the loop its "
                "thread keeps)",
            ),
            (
                "`await asyncio.to_thread(validate_call(add), a=1, b=2)`",
                f"{threaded * 1e6:.1f} µs",
                f"{threaded / reference:.1f}x (the same call, off the event loop)",
            ),
            (
                "`await box.acall('add', ...)`, memory store",
                f"{awaited * 1e6:.1f} µs",
                f"{awaited / threaded:.1f}x the call off the loop",
            ),
            (
                "`await box.acall('add', ...)`, an async `add` handed over",
                f"{stepped * 1e6:.1f} µs",
                f"{stepped / reference:.1f}x (no worker thread: the steps alone)",
            ),
        ]
        found += ticket_rows(root, calls, repeat, context)
        with redis_server(root) as redis_url:
            stores = {"memory": "memory://", "sqlite": f"sqlite:///{root / 'keys.db'}"}
            if redis_url:
                stores["redis"] = redis_url
            for kind, url in stores.items():
                keyed = box_with(url.replace("sqlite:///", "sqlite:////", 1))
                run = uuid.uuid4().hex

                def one(keyed: Toolbox = keyed, run: str = run) -> Awaitable[Any]:
                    key = f"{run}-{uuid.uuid4().hex}"
                    return keyed.acall("record", {"note": "n", "idempotency_key": key})

                seconds = per_call(calls // 4 or 1, repeat, in_loop(one))
                asyncio.run(keyed.aclose())
                found.append(
                    (f"keyed calls, {kind} store", f"{1 / seconds:,.0f} calls/s", "new key each")
                )
            if not redis_url:
                found.append(("keyed calls, redis store", "-", "no redis-server on PATH"))
        sys.path.remove(str(root))
    return found


#: `create_ticket`'s arguments: an enum, a list, a nested model, an optional.
TICKET = {
    "title": "Printer on fire",
    "priority": "high",
    "tags": ["hardware", "urgent"],
    "address": {"street": "1 Main St", "city": "Lisbon"},
    "due_days": 3,
}


def ticket_rows(
    root: Path, calls: int, repeat: int, context: CallContext
) -> list[tuple[str, str, str]]:
    """The realistic tool: `create_ticket` through `validate_call` (the arguments validated
    and converted, the model returned) against `box.call`, the short way and the default."""
    tools = importlib.import_module("benchrt.tools")
    checked = pydantic.validate_call(tools.create_ticket)
    short = Toolbox.load(
        root / "generated", store="memory://", audit=None, timeout={"create_ticket": None}
    )
    default = Toolbox.load(root / "generated", store="memory://", audit=None)
    for box in (short, default):
        result = box.call("create_ticket", TICKET, context=context)
        assert result.ok and result.data["city"] == "Lisbon", result
    quick = alternating(
        calls,
        repeat * 3,
        {
            "reference": repeated(lambda: checked(**TICKET)),
            "short": repeated(lambda: short.call("create_ticket", TICKET, context=context)),
            "default": repeated(lambda: default.call("create_ticket", TICKET, context=context)),
        },
    )
    reference = quick["reference"]
    return [
        (
            "`validate_call(create_ticket)(**ticket)`",
            f"{reference * 1e6:.1f} µs",
            "reference: a realistic tool (enum, list, nested model, optional; returns a model)",
        ),
        (
            "`box.call('create_ticket', ...)`, no timeout",
            f"{quick['short'] * 1e6:.1f} µs",
            f"{quick['short'] / reference:.1f}x the reference (issue 28's target 3x)",
        ),
        (
            "`box.call('create_ticket', ...)`, the default timeout",
            f"{quick['default'] * 1e6:.1f} µs",
            f"{quick['default'] / reference:.1f}x the reference",
        ),
    ]


def print_table(found: list[tuple[str, str, str]], what: str = "run time") -> None:
    """`found` as a Markdown table whose first column is headed `what`."""
    print(f"| {what} | per call | note |")
    print("| --- | ---: | --- |")
    for what, figure, note in found:
        print(f"| {what} | {figure} | {note} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print_table(rows(args.calls, args.repeat))


if __name__ == "__main__":
    main()
