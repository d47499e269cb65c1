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

from toolgen.cache import make_folder
from toolgen.quick import ACCEPT_S, ACCEPTED, HEADER, SOCKET, address, invocation, same_user
from toolgen.session import Session

DECLINED = b"declined\n"
READ_S = 5.0  # how long a client may take to send its request


def can_serve() -> bool:
    return hasattr(socket, "AF_UNIX")


class Server:
    """Answers requests on the socket, each in a thread of its own, holding `lock` (the
    watch's) while it runs one, with the watch's `session`."""

    def __init__(self, folder: Path, session: Session, lock: threading.Lock) -> None:
        self.session = session
        self.lock = lock
        self.cwd = str(Path.cwd())
        self.folder = folder
        self.path = folder / SOCKET
        self.listener: socket.socket | None = None
        self.inode = -1  # of the socket file made here (only that one is removed)
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
            make_folder(self.folder)
            old = os.umask(0o177)  # the socket is its owner's only, from the start
            try:
                listener.bind(name)
            finally:
                os.umask(old)
            self.inode = Path(name).stat().st_ino
            listener.listen(16)
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
                if self.path.stat().st_ino == self.inode:  # not another watch's since
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
            threading.Thread(target=self._handle, args=(connection,), daemon=True).start()

    def _handle(self, connection: socket.socket) -> None:
        """One request. A client that goes away, stalls or sends garbage is dropped (it runs
        the command itself)."""
        with connection, contextlib.suppress(Exception):
            connection.settimeout(READ_S)
            if not same_user(connection):
                return
            stream = connection.makefile("rb")
            if stream.readline(len(HEADER) + 1) != HEADER:
                connection.sendall(DECLINED)
                return
            invoked, argv = marshal.loads(stream.read())
            if invoked != invocation(argv, self.cwd):
                connection.sendall(DECLINED)
                return
            connection.sendall(ACCEPTED)
            connection.settimeout(None)
            with self.lock:
                try:
                    answer = self.run(argv)
                    reply = DECLINED if answer is None else b"ok\n" + marshal.dumps(answer)
                    connection.sendall(reply)
                    connection.shutdown(socket.SHUT_WR)  # the client has its answer
                finally:
                    self.session.flush()  # what waited for the answer: the stamp, the cache

    def run(self, argv: list[str]) -> tuple[int, str, str] | None:
        """`toolgen ARGV` in this process, with the session: exit code, stdout, stderr; None
        for a command that a process of its own must run (see the module's doc)."""
        from toolgen import cli

        out, err = io.StringIO(), io.StringIO()
        with _captured(out, err):
            if not _servable(cli, argv):
                return None
            code = cli.main(argv, session=self.session)
        return code, out.getvalue(), err.getvalue()


def _servable(cli: Any, argv: list[str]) -> bool:
    """Only a plain `build` or `check`: the others read what the watch's process may not
    share with the client's (`--verify-runtime` imports with its environment, `--against`
    asks git), or must not run here (`--watch`; `--no-cache` asks for a run from nothing).
    Parsed as the command line parses (abbreviations too); a usage error is the client's."""
    try:
        args = cli._parser().parse_args(argv)
    except SystemExit:
        return False
    if args.command not in ("build", "check") or args.no_cache:
        return False
    if getattr(args, "watch", False):
        return False
    return not (getattr(args, "against", None) or getattr(args, "verify_runtime", False))


@contextlib.contextmanager
def _captured(out: io.StringIO, err: io.StringIO) -> Iterator[None]:
    """What the command prints, into `out` and `err`. Only under the watch's lock: nothing
    else runs then, and the watch's own messages go to the stream it was given, never
    through `sys.stdout`."""
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield


def _listening(name: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(ACCEPT_S)
    try:
        probe.connect(name)
    except OSError:
        return False
    finally:
        probe.close()
    return True
