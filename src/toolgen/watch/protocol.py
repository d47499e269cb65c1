"""Both ends of the watch's socket protocol: the constants, where the socket is, and the client.

A running `toolgen build --watch` listens on `SOCKET` in the cache folder
(`toolgen.watch.socket_server`); the console script (`toolgen.entry`) asks it first with
`forward`. Standard library only, and cheap to import: it runs before anything else.
"""

from __future__ import annotations

import marshal
import os
import sys

from toolgen.incremental.answers import COMMANDS, folders, invocation, no_cache, print_answer
from toolgen.incremental.cache import ours

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

#: The socket of a running `toolgen build --watch` in the cache folder (its socket server),
#: and the first line of a request to it.
SOCKET = "watch.sock"
HEADER = f"toolgen-watch 2 {sys.version}\n".encode()
ACCEPTED = b"accepted\n"  # the watch's first line: it runs the request (then `ok`) or not
ACCEPT_S = 2.0  # how long a client waits for it
ALIVE = b".\n"  # what the watch sends every `ALIVE_S / 4` while it works on a request
ALIVE_S = 4.0  # a watch silent this long is stopped (Ctrl-Z): the client goes on by itself
#: Longest path a Unix socket address takes (sockaddr_un); a longer one is used relative to
#: the working folder, or not at all.
MAX_ADDRESS = 100


def forward(argv: list[str]) -> int | None:
    """Have a running `toolgen build --watch` of this project run `toolgen ARGV`, print what
    it printed and return its exit code; None (nothing printed) when none runs, it declines
    (`toolgen.watch.socket_server`), or it does not take the request within `ACCEPT_S` (a suspended
    watch). Only a socket of this user's, served by a process of this user's, is asked."""
    if not argv or argv[0] not in COMMANDS or no_cache():
        return None
    cwd = os.getcwd()
    for folder in folders(cwd):
        name = address(folder, cwd)
        if name is None or not ours(name, socket_file=True):
            continue
        import socket

        request = HEADER + marshal.dumps((invocation(argv, cwd), argv))
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                connection.settimeout(ACCEPT_S)
                connection.connect(name)
                if not same_user(connection):
                    return None
                connection.sendall(request)
                connection.shutdown(socket.SHUT_WR)
                answer = connection.makefile("rb")
                if answer.readline(64) != ACCEPTED:
                    return None
                connection.settimeout(ALIVE_S)  # taken: the watch says it is alive meanwhile
                status = answer.readline(64)
                while status == ALIVE:
                    status = answer.readline(64)
                body = answer.read()
        except OSError:  # no watch (a killed one's socket), or one stopped before it answered
            continue
        if status != b"ok\n":
            return None
        try:
            code, out, err = marshal.loads(body)
        except (EOFError, ValueError, TypeError):
            return None
        return print_answer(out, err, int(code))
    return None


def same_user(connection: Any) -> bool:
    """Whether the other end of a Unix socket runs as this process's user (where the system
    says; elsewhere the socket file's owner and mode are the check)."""
    import socket

    peer_credentials: Any = getattr(socket, "SO_PEERCRED", None)
    if peer_credentials is None or not hasattr(os, "getuid"):
        return True
    import struct

    data = connection.getsockopt(socket.SOL_SOCKET, peer_credentials, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", data)
    return bool(uid == os.getuid())


def address(folder: str, cwd: str) -> str | None:
    """How to name the socket in cache `folder` from `cwd`: absolute, else relative when the
    absolute name is too long; None when neither fits."""
    path = f"{folder}/{SOCKET}"
    if len(os.fsencode(path)) <= MAX_ADDRESS:  # the bytes of the name, as the system has them
        return path
    relative = os.path.relpath(path, cwd)
    return relative if len(os.fsencode(relative)) <= MAX_ADDRESS else None
