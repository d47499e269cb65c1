"""While `toolgen build --watch` runs, it answers `toolgen build` and `toolgen check` run by
other processes in the same project (an editor's on-save hook, pre-commit, a terminal): they
get the watch's warm build (`toolgen.session`: nothing of the unchanged files is read, parsed
or rendered again) instead of starting from nothing.

The watch listens on a Unix socket in the cache folder (`.toolgen_cache/watch.sock`, readable
by its owner only; a peer of another user is refused). A client (`toolgen.quick.forward`)
sends one request: a header line with the protocol and Python's version, then marshal data of
the invocation (as `toolgen.quick` sees it: arguments, working folder, cache variables,
Python, toolgen's files) and the arguments. The watch runs the command as the command line
would, one at a time with its own builds, and sends back the exit code and what it printed.
It declines (and the client runs the command itself) whatever it cannot answer exactly as a
process of its own would: another working folder, other cache variables, another toolgen or
Python, `--watch` or `--jobs`, anything but `build` and `check`.
"""

from __future__ import annotations

import contextlib
import io
import marshal
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolgen.quick import HEADER, SOCKET, address, invocation
from toolgen.session import Session

DECLINED = b"declined\n"


def can_serve() -> bool:
    return hasattr(socket, "AF_UNIX")


class Server:
    """Answers requests on the socket in a thread of its own, holding `lock` (the watch's)
    while it runs one, with the watch's `session`."""

    def __init__(self, folder: Path, session: Session, lock: threading.Lock) -> None:
        self.session = session
        self.lock = lock
        self.cwd = str(Path.cwd())
        self.folder = folder
        self.path = folder / SOCKET
        self.listener: socket.socket | None = None
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()

    def start(self) -> bool:
        """Listen, unless another watch already does here (or the socket cannot be made)."""
        name = address(str(self.folder), self.cwd)
        if name is None or not can_serve():
            return False
        if _listening(name):
            return False  # another watch of this project answers
        Path(name).unlink(missing_ok=True)  # left by a watch that was killed
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            old = os.umask(0o177)  # the socket is its owner's only, from the start
            try:
                listener.bind(name)
            finally:
                os.umask(old)
            listener.listen(8)
            listener.settimeout(0.2)
        except OSError:
            listener.close()
            return False
        self.listener = listener
        self.thread = threading.Thread(target=self._serve, name="toolgen-watch", daemon=True)
        self.thread.start()
        return True

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=5)
        if self.listener is not None:
            self.listener.close()
            with contextlib.suppress(OSError):
                self.path.unlink()

    def _serve(self) -> None:
        assert self.listener is not None
        while not self.stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            # a client that went away, or sent garbage, runs the command itself
            with connection, contextlib.suppress(Exception):
                connection.settimeout(None)
                self._answer(connection)

    def _answer(self, connection: socket.socket) -> None:
        if not _same_user(connection):
            return
        stream = connection.makefile("rb")
        if stream.readline() != HEADER:
            connection.sendall(DECLINED)
            return
        invoked, argv = marshal.loads(stream.read())
        if invoked != invocation(argv, self.cwd) or not _servable(argv):
            connection.sendall(DECLINED)
            return
        with self.lock:
            try:
                code, out, err = self.run(argv)
                connection.sendall(b"ok\n" + marshal.dumps((code, out, err)))
                connection.shutdown(socket.SHUT_WR)  # the client has its answer: it goes on
            finally:
                self.session.flush()  # what waited for the answer: the stamp, the cache

    def run(self, argv: list[str]) -> tuple[int, str, str]:
        """`toolgen ARGV` in this process, with the session: exit code, stdout, stderr."""
        from toolgen import cli

        out, err = io.StringIO(), io.StringIO()
        with _captured(out, err):
            code = cli.main(argv, session=self.session)
        return code, out.getvalue(), err.getvalue()


def _servable(argv: list[str]) -> bool:
    if not argv or argv[0] not in ("build", "check"):
        return False
    return not any(a == "--watch" or a.startswith(("--jobs", "-j")) for a in argv)


@contextlib.contextmanager
def _captured(out: io.StringIO, err: io.StringIO) -> Iterator[None]:
    """What the command prints, into `out` and `err` (the watch's own messages go to the
    stream it was given, never through `sys.stdout`, so they are not caught here)."""
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield


def _listening(name: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(name)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def _same_user(connection: socket.socket) -> bool:
    """Whether the peer runs as this process's user (checked where the system says)."""
    peer_credentials: Any = getattr(socket, "SO_PEERCRED", None)
    if peer_credentials is None:
        return True  # the socket's mode (owner only) is the check there
    import struct

    data = connection.getsockopt(socket.SOL_SOCKET, peer_credentials, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", data)
    return bool(uid == os.getuid())
