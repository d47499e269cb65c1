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
from toolgen.incremental.cache import mac, ours, secret

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

#: The socket of a running `toolgen build --watch` in the cache folder (its socket server),
#: and the first line of a request to it.
SOCKET = "watch.sock"
HEADER = f"toolgen-watch 3 {sys.version}\n".encode()
ACCEPTED = b"accepted\n"  # the watch's first line: it runs the request (then `ok`) or not
ACCEPT_S = 2.0  # how long a client waits for it
ALIVE = b".\n"  # what the watch sends every `ALIVE_S / 4` while it works on a request
ALIVE_S = 4.0  # a watch silent this long is stopped (Ctrl-Z): the client goes on by itself
#: Longest path a Unix socket address takes (sockaddr_un); a longer one is used relative to
#: the working folder, or not at all.
MAX_ADDRESS = 100
NONCE_BYTES = 16  # what a client sends for the watch to seal its reply with
MAX_REPLY = 1 << 30  # a reply is not read past this (a listener could send without end)


def sealed_reply(nonce: bytes, body: bytes) -> bytes | None:
    """The `ok` line and `body` as the watch sends them: the line carries a keyed hash of the
    client's `nonce` and the body under the user's secret (None: no secret). Only a process
    that holds the secret (a watch of this user's) can answer, as only one can write the
    cache entries the answer would otherwise come from."""
    key = secret()
    if key is None:
        return None
    return b"ok " + mac(key, "watch-reply", nonce + body) + b"\n" + body


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
        if name is None or not ours(name, socket_file=True) or secret() is None:
            continue
        import socket

        nonce = os.urandom(NONCE_BYTES)
        request = HEADER + marshal.dumps((invocation(argv, cwd), argv, nonce))
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
                status = answer.readline(128)
                while status == ALIVE:
                    status = answer.readline(128)
                body = answer.read(MAX_REPLY + 1)
        except OSError:  # no watch (a killed one's socket), or one stopped before it answered
            continue
        if len(body) > MAX_REPLY or status + body != sealed_reply(nonce, body):
            return None  # not sealed with the user's secret: not a watch of this user's
        answered = _answer(body)
        return None if answered is None else print_answer(*answered)
    return None


def _answer(body: bytes) -> tuple[str, str, int] | None:
    """What a watch's reply says (stdout, stderr, exit code); None when it is not one a watch
    of this version sends."""
    try:
        code, out, err = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    if type(out) is not str or type(err) is not str or type(code) is not int:
        return None
    return (out, err, code) if 0 <= code <= 255 else None


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
