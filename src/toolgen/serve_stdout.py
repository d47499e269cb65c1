"""`toolgen serve`'s side of stdout: the wire, written one message at a time, once.

The SDK's stdio transport writes each message through a text file on worker threads: one
thread hop for `write`, another for `flush`. A hop costs more than the rest of a small call.
`LineWriter` is the stdout the transport is given instead: `write` keeps the message's text,
`flush` writes it, encoded as UTF-8 (strictly, as the SDK's text file does), on one worker
thread. A client that stops reading still blocks a worker thread, never the event loop.

Given a stdout of its own, the SDK no longer claims fd 1, so `claimed_stdout` does what it
did: the wire is a duplicate of fd 1, and fd 1 points at stderr while serving, so that what a
handler prints misses the wire; fd 1 is restored afterwards.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

import anyio


@contextlib.contextmanager
def claimed_stdout() -> Iterator[int | None]:
    """The client's end of stdout (a duplicate of fd 1) while fd 1 points at stderr; None
    when this process's stdout is not fd 1 or cannot be duplicated (the SDK's transport then
    claims and writes it itself, as before)."""
    try:
        backed = sys.stdout is not None and sys.stdout.fileno() == 1
    except (AttributeError, OSError, ValueError):  # replaced in process (a test's capture)
        backed = False
    if not backed:
        yield None
        return
    try:
        sys.stdout.flush()
        wire = _dup_above_std(1)
    except (OSError, ValueError):
        yield None
        return
    try:
        diversion = os.dup(2)
    except OSError:
        diversion = os.open(os.devnull, os.O_WRONLY)
    os.dup2(diversion, 1)
    os.close(diversion)
    try:
        yield wire
    finally:
        with contextlib.suppress(OSError):
            os.dup2(wire, 1)
        os.close(wire)


def _dup_above_std(fd: int) -> int:
    """A duplicate of `fd` numbered 3 or more: with stderr closed, the lowest free number is
    2, and fd 1 diverted "to stderr" would then point at the wire again."""
    try:
        import fcntl
    except ImportError:  # Windows: no fcntl, and no closed standard handle to fill
        return os.dup(fd)
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


class LineWriter:
    """What the SDK's transport writes its messages to (`write`, then `flush`, per message):
    each flush writes what was written since, on one worker thread."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending: list[str] = []

    async def write(self, text: str) -> int:
        self.pending.append(text)
        return len(text)

    async def flush(self) -> None:
        if not self.pending:
            return
        data = "".join(self.pending).encode("utf-8")
        self.pending.clear()
        await anyio.to_thread.run_sync(_write_all, self.fd, data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
