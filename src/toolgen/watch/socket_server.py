"""While `toolgen build --watch` runs, it answers `toolgen build` and `toolgen check` run by
other processes in the same project (an editor's on-save hook, pre-commit, a terminal): they
get the watch's warm build (`toolgen.incremental.session`: nothing of the unchanged files is read,
parsed or rendered again) instead of starting from nothing.

The watch listens on a Unix socket in the cache folder (`.toolgen_cache/watch.sock`, usable by
its owner only; a peer of another user is refused, and clients ask only a socket of their user's
in a folder no other user can write to). A client (`toolgen.watch.protocol.forward`) sends one
request: a header line with the protocol and Python's version, then marshal data of the
invocation (as `toolgen.incremental.answers` sees it: arguments, working folder, cache
variables, Python, toolgen's files, umask), the arguments and a random nonce. The watch answers
at once:
`declined` (the client runs the command itself) for whatever it cannot answer exactly as a
process of its own would (another invocation; anything but a plain `build` or `check`, as
argparse parses it), else `accepted`. Then, while the request waits for the watch's lock and
runs (one at a time, with the watch's own builds), it says it is alive every `ALIVE_S / 4`, and
at last sends `ok` with the exit code and what the command printed, the `ok` line sealed with
the user's secret and the nonce (`toolgen.watch.protocol.sealed_reply`): a client believes
only a listener that holds the secret, as it believes only cache entries sealed with it. A
client that hears nothing for `ACCEPT_S` or `ALIVE_S` (a watch suspended with Ctrl-Z), or a
reply that is not sealed or not what a watch sends, runs the command itself.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import marshal
import os
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from toolgen.incremental.answers import invocation, umask
from toolgen.incremental.cache import make_folder, ours, secret
from toolgen.incremental.session import Session
from toolgen.watch.protocol import (
    ACCEPT_S,
    ACCEPTED,
    ALIVE,
    ALIVE_S,
    HEADER,
    NONCE_BYTES,
    SOCKET,
    address,
    same_user,
    sealed_reply,
)

DECLINED = b"declined\n"
READ_S = 5.0  # how long a client may take to send its request
DRAIN_BYTES = 1 << 20  # at most this much of a declined request is read (and dropped)


def can_serve() -> bool:
    return hasattr(socket, "AF_UNIX")


class Server:
    """Answers requests on the socket, each in a thread of its own, holding `lock` (the
    watch's) while it runs one, with the watch's `session`."""

    def __init__(self, folder: Path, session: Session, lock: threading.Lock) -> None:
        self.session = session
        self.lock = lock
        self.cwd = str(Path.cwd())
        self.umask = umask()  # read before any thread of its own runs
        invocation([], self.cwd, self.umask)  # toolgen's code is the one it runs from now
        self.folder = folder
        self.path = folder / SOCKET
        self.listener: socket.socket | None = None
        self.inode = -1  # of the socket file made here (only that one is removed)
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()

    def start(self) -> bool:
        """Listen, unless another watch already does here, the socket cannot be made, or the
        cache folder is one that clients would not trust (`toolgen.incremental.cache.ours`)."""
        name = address(str(self.folder), self.cwd)
        if name is None or not can_serve():
            return False
        if _listening(name) or secret() is None:
            return False  # another watch of this project answers, or no secret to seal with
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            make_folder(self.folder)
            if not ours(str(self.folder)):
                raise OSError("a cache folder that others can write to, or a symlink")
            if ours(name, socket_file=True):  # left by a watch that was killed
                Path(name).unlink()
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
                # read what the client sent first: closing with it unread resets the
                # connection, and the client may lose the answer
                _drain(stream)
                connection.sendall(DECLINED)
                return
            invoked, argv, nonce = marshal.loads(stream.read())
            fits = type(nonce) is bytes and len(nonce) == NONCE_BYTES and secret() is not None
            if not fits or invoked != invocation(argv, self.cwd, self.umask):
                connection.sendall(DECLINED)
                return
            if not _servable(argv):
                connection.sendall(DECLINED)
                return
            connection.sendall(ACCEPTED)
            with _alive(connection) as reply, self.lock:
                try:
                    sealed = sealed_reply(nonce, marshal.dumps(self.run(argv)))
                    reply(sealed or b"declined\n")
                    connection.shutdown(socket.SHUT_WR)  # the client has its answer
                finally:
                    self.session.flush()  # what waited for the answer: the stamp, the cache

    def run(self, argv: list[str]) -> tuple[int, str, str]:
        """`toolgen ARGV` (a `_servable` one) in this process, with the session, as the
        command line runs it: exit code, stdout, stderr."""
        from toolgen.arguments import parser, request_of
        from toolgen.report_format import emit, guarded
        from toolgen.run import Run

        out, err = io.StringIO(), io.StringIO()
        with _captured(out, err):
            try:
                args = parser().parse_args(argv)
            except SystemExit as exc:  # not for a servable request; as the command line says
                return int(exc.code or 0), out.getvalue(), err.getvalue()
            request = request_of(args, list(argv))
            run = Run(request, self.session)
            code = guarded(lambda: emit(run.execute(), sys.stdout), request.format)
        return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _alive(connection: socket.socket) -> Iterator[Callable[[bytes], None]]:
    """While a request waits for the lock and runs, say `ALIVE` to the client now and then
    (a thread of its own); the function yielded sends the reply, and ends that."""
    done = threading.Event()
    sending = threading.Lock()

    def beat() -> None:
        while not done.wait(ALIVE_S / 4):
            with sending, contextlib.suppress(OSError):
                if not done.is_set():
                    connection.sendall(ALIVE)

    def reply(data: bytes) -> None:
        with sending:
            done.set()
            connection.sendall(data)

    beating = threading.Thread(target=beat, daemon=True)
    beating.start()
    try:
        yield reply
    finally:
        done.set()
        beating.join()


def _servable(argv: list[str]) -> bool:
    """Only a plain `build` or `check`: the others read what the watch's process may not
    share with the client's (`--verify-runtime` imports with its environment, `--against`
    asks git), or must not run here (`--watch`; `--no-cache` asks for a run from nothing).
    Parsed as the command line parses (abbreviations too), on a parser of its own: argparse
    prints a usage error to `sys.stderr`, which only a request under the lock may redirect;
    here it is the client's to print."""
    try:
        args = _quiet_parser().parse_args(argv)
    except (ValueError, argparse.ArgumentError):
        return False
    if args.command not in ("build", "check") or args.no_cache:
        return False
    if getattr(args, "watch", False):
        return False
    return not (getattr(args, "against", None) or getattr(args, "verify_runtime", False))


@functools.cache
def _quiet_parser() -> argparse.ArgumentParser:
    """The command line's parser, made to print nothing (a usage error, `--help`, `--version`)
    and to raise ValueError where it would exit."""
    from toolgen.arguments import parser as command_line

    parser: argparse.ArgumentParser = command_line.__wrapped__()

    def refuse(message: str = "", *_: Any) -> NoReturn:
        raise ValueError(message)

    for each in [parser, *_subparsers(parser)]:
        each.error = refuse  # type: ignore[method-assign]
        each.exit = refuse  # type: ignore[method-assign,assignment]
        each._print_message = lambda *_: None  # type: ignore[method-assign]
        each.exit_on_error = False
    return parser


def _subparsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found: list[argparse.ArgumentParser] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.extend(action.choices.values())
    return found


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


def _drain(stream: io.BufferedIOBase) -> None:
    """Read (and drop) the rest of a request, up to `DRAIN_BYTES`."""
    left = DRAIN_BYTES
    while left > 0:
        chunk = stream.read1(min(left, 1 << 16))
        if not chunk:
            return
        left -= len(chunk)
