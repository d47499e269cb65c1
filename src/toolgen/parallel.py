"""Compiling source files in several processes: a cold build of a large project on all cores.

`map_chunks(items, work, jobs)` runs `work` on `jobs` interleaved chunks of `items`, each in a
forked child, which sends its results back pickled through a pipe. This process only collects:
what the analysis leaves behind stays in the children, so a large project's build holds no
more than its results here. Results come back in the order of `items`, so the output does not
depend on the number of processes. A child that fails for any reason leaves its chunk to this
process: parallelism can make a run faster, never different. Without `os.fork` (Windows), with
one job, or with few items, everything runs here.

`TOOLGEN_JOBS` sets the number of processes (default: the CPU count, at most 8; 1 turns it
off). `toolgen build --watch` always works in one process.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Below this many items a fork costs more than it saves.
MIN_ITEMS = 8


def default_jobs() -> int:
    wanted = os.environ.get("TOOLGEN_JOBS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    return min(os.cpu_count() or 1, 8)


def map_chunks(items: Sequence[T], work: Callable[[list[T]], list[R]], jobs: int) -> list[R]:
    """`work` applied to all of `items` (one result per item, in order), in `jobs` processes."""
    jobs = min(jobs, len(items) // (MIN_ITEMS // 2) or 1)
    if jobs <= 1 or len(items) < MIN_ITEMS or not hasattr(os, "fork"):
        return work(list(items))
    chunks = [list(items[i::jobs]) for i in range(jobs)]
    children = [(_fork(work, chunk), chunk) for chunk in chunks]
    done = [_collect(child, work, chunk) for child, chunk in children]
    merged: list[R] = [None] * len(items)  # type: ignore[list-item]
    for i, results in enumerate(done):
        merged[i::jobs] = results
    return merged


def _fork(work: Callable[[list[T]], list[R]], chunk: list[T]) -> tuple[int, int] | None:
    """(pid, read end of the pipe) of a child running `work(chunk)`, or None."""
    try:
        read, write = os.pipe()
        pid = os.fork()
    except OSError:
        return None
    if pid:
        os.close(write)
        return pid, read
    os.close(read)  # the child: compute, send, and leave without running any cleanup
    status = 1
    try:
        data = pickle.dumps(work(chunk), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write, "wb") as pipe:
            pipe.write(data)
        status = 0
    finally:
        os._exit(status)


def _collect(
    child: tuple[int, int] | None, work: Callable[[list[T]], list[R]], chunk: list[T]
) -> list[R]:
    if child is None:
        return work(chunk)
    pid, read = child
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status == 0:
        try:
            results: list[R] = pickle.loads(data)
            if len(results) == len(chunk):
                return results
        except Exception:  # a child's result that does not load: do the work here
            pass
    return work(chunk)
