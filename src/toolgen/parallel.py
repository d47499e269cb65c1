"""Compiling source files in several processes: a cold build of a large project on all cores.

`map_chunks(items, work, jobs)` runs `work` on `items` in `jobs` forked children, each taking
the next item from a shared queue as soon as it is done with one (so a slow file holds up only
its own child), and sending its results back pickled through a pipe. This process only
collects: what the analysis leaves behind stays in the children, so a large project's build
holds no more than its results here. Results come back in the order of `items`, so the output
does not depend on the number of processes. What a child that fails for any reason took is
done again here: parallelism can make a run faster, never different. Without `os.fork`
(Windows), with one job, or with few items, everything runs here.

`TOOLGEN_JOBS` sets the number of processes (default: the CPU count, at most 8; 1 turns it
off). `toolgen build --watch` always works in one process.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import struct
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar, cast

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
    queue = _queue(len(items))
    if queue is None:  # the positions do not fit in a pipe: a fixed share each
        tasks = [_share(work, items, i, jobs) for i in range(jobs)]
    else:
        tasks = [_pulling(work, items, queue)] * jobs
    children: list[tuple[int, int] | None] = []
    try:
        for task in tasks:
            children.append(_fork(task))
    except BaseException:  # Ctrl-C: none of them left working on, nor unreaped
        for child in children:
            _stop(child)
        raise
    finally:
        if queue is not None:
            os.close(queue)
    done: dict[int, R] = {}
    for at, child in enumerate(children):
        try:
            done.update(_collect(child))
        except BaseException:  # Ctrl-C: `_received` stopped this one, the rest stop here
            for rest in children[at + 1 :]:
                _stop(rest)
            raise
    left = [i for i in range(len(items)) if i not in done]
    if left:  # what failed children took (or all of it, where no fork succeeded)
        done.update(zip(left, work([items[i] for i in left]), strict=True))
    return [done[i] for i in range(len(items))]


#: An item's position in the queue. Each child reads one record at a time; a read of a pipe
#: holds the pipe's lock, so a record goes whole to one child.
_RECORD = struct.Struct(">I")


def _queue(count: int) -> int | None:
    """The read end of a pipe holding the positions 0..count-1 (its write end closed: a
    child that finds it empty is done), or None if they do not fit in it."""
    import fcntl  # where there is `os.fork`, there is fcntl

    data = b"".join(_RECORD.pack(i) for i in range(count))
    try:
        read, write = os.pipe()
    except OSError:  # no files left to open: no child could start either
        return None
    try:
        if len(data) > _PIPE_BUFFER and hasattr(fcntl, "F_SETPIPE_SZ"):
            with contextlib.suppress(OSError):  # above the system's limit: the default
                fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, len(data))
        os.set_blocking(write, False)
        written = os.write(write, data)
    except OSError:  # full (BlockingIOError), or no pipes left
        written = -1
    finally:
        os.close(write)
    if written != len(data):
        os.close(read)
        return None
    return read


#: The size a pipe holds at least (POSIX guarantees less; Linux and macOS have this).
_PIPE_BUFFER = 16384


def _pulling(
    work: Callable[[list[T]], list[R]], items: Sequence[T], queue: int
) -> Callable[[], list[tuple[int, R]]]:
    """A child's part: each position it takes from `queue`, with its item's result."""

    def pull() -> list[tuple[int, R]]:
        done: list[tuple[int, R]] = []
        while len(record := os.read(queue, _RECORD.size)) == _RECORD.size:
            (i,) = _RECORD.unpack(record)
            done.append((i, work([items[i]])[0]))
        return done

    return pull


def _share(
    work: Callable[[list[T]], list[R]], items: Sequence[T], first: int, jobs: int
) -> Callable[[], list[tuple[int, R]]]:
    """A child's part fixed in advance: every `jobs`-th item from `first`, with its result."""

    def take() -> list[tuple[int, R]]:
        share = range(first, len(items), jobs)
        return list(zip(share, work([items[i] for i in share]), strict=True))

    return take


def _fork(task: Callable[[], object]) -> tuple[int, int] | None:
    """(pid, read end of the pipe) of a child running `task`, or None."""
    try:
        read, write = os.pipe()
    except OSError:
        return None
    pid = -1
    try:
        pid = os.fork()
    except OSError:
        pass
    finally:
        if pid < 0:  # no child (or a Ctrl-C as it was made): its pipe is of no use
            os.close(read)
            os.close(write)
    if pid < 0:
        return None
    if pid:
        os.close(write)
        return pid, read
    # the child: compute, send, and leave without running any cleanup, whatever happens from
    # here (a Ctrl-C as it starts too: it must not go on in its parent's code)
    status = 1
    try:
        os.close(read)
        # what it inherited lives as long as it does: its collections need not walk it (nor
        # write to it, which would copy the parent's pages)
        gc.freeze()
        data = pickle.dumps(task(), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write, "wb") as pipe:
            pipe.write(data)
        status = 0
    finally:
        os._exit(status)


def beside(task: Callable[[], R]) -> Beside[R]:
    """`task` set going in a forked child while this process does something else (`Beside`)."""
    return Beside(task, _fork(task) if hasattr(os, "fork") else None)


class Beside(Generic[R]):
    """A task set going by `beside`; called, it gives the result: the child's, or, where there
    is no fork or the child failed (or it was asked for before), `task()` run here then.
    `close()` stops and reaps a child whose result is not wanted (a caller that failed
    first): else it would wait, blocked on a result its pipe does not hold, as long as this
    process lives."""

    def __init__(self, task: Callable[[], R], child: tuple[int, int] | None) -> None:
        self._task = task
        self._child = child

    def __call__(self) -> R:
        child, self._child = self._child, None
        sent = _received(child)
        return self._task() if sent is None else cast("R", sent[0])

    def close(self) -> None:
        child, self._child = self._child, None
        _stop(child)


def _collect(child: tuple[int, int] | None) -> dict[int, R]:
    """What `child` sent, by position; nothing if it failed or never started."""
    sent = _received(child)
    try:
        return {} if sent is None else dict(sent[0])
    except Exception:  # not what a child sends: its items are done here
        return {}


def _received(child: tuple[int, int] | None) -> tuple[Any] | None:
    """(what `child` sent,), or None if it failed, never started or sent what does not load."""
    if child is None:
        return None
    pid, read = child
    try:
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()
    except BaseException:  # Ctrl-C while waiting: the pipe is closed, the child stopped here
        _stop((pid, -1))
        raise
    _, status = os.waitpid(pid, 0)
    if status == 0:
        try:
            return (pickle.loads(data),)
        except Exception:  # a child's result that does not load: done here instead
            pass
    return None


def _stop(child: tuple[int, int] | None) -> None:
    """`child` killed and reaped, the read end of its pipe closed (none if -1)."""
    if child is None:
        return
    pid, read = child
    if read >= 0:
        os.close(read)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
