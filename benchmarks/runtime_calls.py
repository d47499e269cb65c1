#!/usr/bin/env python3
"""The run time's figures (issue 18): what `Toolbox` adds to a call, and keyed calls per second.

Usage: python benchmarks/runtime_calls.py [--calls 2000] [--repeat 3]
(`python benchmarks/run.py --runtime` prints the same table after the compiler's.)

A small project (one read-only tool `add(a: int, b: int) -> int`, one write `record(note,
idempotency_key)`) is built with `toolgen build` into a temporary folder; then, in this process:
- the reference: `add` through `pydantic.validate_call` (the arguments validated, the handler run);
- `await box.acall("add", {...})` (every step: find, parse, validate against the JSON Schema,
  authorize, gate, execute with its timeout - a sync handler on a worker thread -, the
  envelope and two audit events to a callable);
- the same with an async `add` handed over (`handlers=`): no worker thread, the steps alone;
- `box.call(...)` from synchronous code (on the event loop its thread keeps for such calls);
- keyed calls of `record` (each with a new key: a claim and a stored result in the store) per
  second, with the memory, sqlite and redis stores (redis when `redis-server` is on PATH: one
  is started on a free port for the run).
Each figure is the best of --repeat runs of --calls calls, one after the other.
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
from toolgen import tool


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
    run(min(calls, 200))  # warm: imports, compiled validators, prepared handlers
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run(calls)
        best = min(best, time.perf_counter() - start)
    return best / calls


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

        def box_with(store: str) -> Toolbox:
            return Toolbox.load(root / "generated", store=store, audit=lambda event: None)

        async def add_async(a: int, b: int) -> int:
            return a + b

        box = box_with("memory://")
        inline = Toolbox.load(
            root / "generated",
            store="memory://",
            audit=lambda event: None,
            handlers={"add": add_async},
        )
        reference = per_call(calls, repeat, lambda n: [checked(a=1, b=2) for _ in range(n)])
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
            lambda n: [box.call("add", {"a": 1, "b": 2}, context=context) for _ in range(n)],
        )
        found = [
            ("`pydantic.validate_call(add)(a=1, b=2)`", f"{reference * 1e6:.1f} µs", "reference"),
            (
                "`await asyncio.to_thread(validate_call(add), a=1, b=2)`",
                f"{threaded * 1e6:.1f} µs",
                f"{threaded / reference:.1f}x (the same call, off the event loop)",
            ),
            (
                "`await box.acall('add', ...)`, memory store",
                f"{awaited * 1e6:.1f} µs",
                f"{awaited / reference:.1f}x the reference (target 2x); "
                f"{awaited / threaded:.1f}x the call off the loop",
            ),
            (
                "`await box.acall('add', ...)`, an async `add` handed over",
                f"{stepped * 1e6:.1f} µs",
                f"{stepped / reference:.1f}x (no worker thread: the steps alone)",
            ),
            (
                "`box.call('add', ...)` from synchronous code",
                f"{synced * 1e6:.1f} µs",
                f"{synced / reference:.1f}x (the loop its thread keeps)",
            ),
        ]
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


def print_table(found: list[tuple[str, str, str]]) -> None:
    print("| run time | per call | note |")
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
