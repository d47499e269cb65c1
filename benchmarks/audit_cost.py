#!/usr/bin/env python3
"""What the audit sink adds to a plain call (issue 28): `box.call("add", {...})` per sink.

Usage: python benchmarks/audit_cost.py [--calls 2000] [--repeat 5]

The project of `runtime_calls.py` (one read-only tool `add(a: int, b: int) -> int`) is built
into a temporary folder; each toolbox has the memory store and no timeout for `add`, so the
call takes the short way when no event is wanted, and the whole way (two events: `proposed`,
`executed`) when one is. The sinks:
- a callable that drops each event (the events are built, nothing is written);
- a path: the JSON-lines file, each event appended and flushed;
- None, the default logger `toolgen.audit`, with logging as the process starts (root at
  WARNING, no handler);
- the same with the root logger at INFO and a handler on it: `logging.basicConfig(level=INFO)`
  (a stream handler, here to /dev/null), and the MCP SDK's `MCPServer`, whose
  `configure_logging` puts a `rich` handler on stderr (here a console on /dev/null);
- the same with a stream handler (to /dev/null) on `toolgen.audit` itself, at INFO: an
  application that collects the events.
Each figure is the best of --repeat rounds of --calls calls that run every sink in turn (so a
slower spell of the machine weighs on all of them alike).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from runtime_calls import print_table, project  # benchmarks/runtime_calls.py, beside this file

from toolgen.runtime import CallContext, Toolbox


@contextmanager
def handler_on(logger: logging.Logger, handler: logging.Handler | None) -> Iterator[None]:
    """`handler` on `logger`, and `logger` at INFO, for the run only."""
    if handler is None:
        yield
        return
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def rich_handler(devnull: Any) -> logging.Handler | None:
    """What `mcp.server.mcpserver.utilities.logging.configure_logging` puts on the root."""
    try:
        from rich.console import Console
        from rich.logging import RichHandler
    except ImportError:
        return None
    handler = RichHandler(console=Console(file=devnull), rich_tracebacks=True)
    handler.setFormatter(logging.Formatter("%(message)s"))
    return handler


def rows(calls: int, repeat: int) -> list[tuple[str, str, str]]:
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as devnull:
        root = project(Path(tmp))
        sys.path.insert(0, str(root))
        importlib.import_module("benchrt.tools")
        context = CallContext(principal="bench")
        audit_logger = logging.getLogger("toolgen.audit")
        plain = logging.StreamHandler(devnull)
        plain.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
        fancy = rich_handler(devnull)

        def box(audit: Any) -> Toolbox:
            return Toolbox.load(
                root / "generated", store="memory://", timeout={"add": None}, audit=audit
            )

        cases: list[tuple[str, Toolbox, logging.Logger, logging.Handler | None]] = [
            ("a callable (drops each event)", box(lambda event: None), audit_logger, None),
            ("a path (JSON-lines file)", box(root / "audit.jsonl"), audit_logger, None),
            ("None, logging as the process starts", box(None), audit_logger, None),
            (
                "None, `basicConfig(level=INFO)` (a stream handler on the root)",
                box(None),
                logging.getLogger(),
                logging.StreamHandler(devnull),
            ),
        ]
        if fancy is not None:
            cases.append(
                (
                    "None, the MCP SDK's `configure_logging` (rich on the root, at INFO)",
                    box(None),
                    logging.getLogger(),
                    fancy,
                )
            )
        cases.append(("None, a stream handler on `toolgen.audit`", box(None), audit_logger, plain))

        def run(each: Toolbox, logger: logging.Logger, handler: Any, n: int) -> float:
            with handler_on(logger, handler):
                start = time.perf_counter()
                for _ in range(n):
                    each.call("add", {"a": 1, "b": 2}, context=context)
                return time.perf_counter() - start

        for _, each, logger, handler in cases:
            assert each.call("add", {"a": 1, "b": 2}, context=context).data == 3
            run(each, logger, handler, min(calls, 100))  # warm
        best = [float("inf")] * len(cases)
        for _ in range(repeat):
            for i, (_, each, logger, handler) in enumerate(cases):
                # a handler on the root may take milliseconds a call: it gets fewer calls
                n = max(calls // 20, 1) if logger is logging.getLogger() else calls
                best[i] = min(best[i], run(each, logger, handler, n) / n)
        sys.path.remove(str(root))
        first = best[0]
        return [
            (what, f"{seconds * 1e6:,.1f} µs", f"{seconds / first:.2f}x the callable")
            for (what, *_), seconds in zip(cases, best, strict=True)
        ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print_table(rows(args.calls, args.repeat), "audit sink")


if __name__ == "__main__":
    main()
