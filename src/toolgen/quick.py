"""The command line's entry point, and its shortcut: a repeated `toolgen build` or `toolgen
check` answered before the rest of toolgen is imported.

When a run was answered from its stamp (`toolgen.incremental.stamp`: nothing it depends on
changed), the command line stores what it printed and its exit code under the *invocation*: the
arguments, the working folder, the cache variables, Python's version, the `stat` of toolgen's own
files (as they were when this process started) and the umask. With it go the facts the
configuration was made of: the bytes of each `pyproject.toml` the search for `[tool.toolgen]`
read (or of `--config FILE`), the files and folders that decided the project root, and each
configured path with what it resolved to (a symlink). The next identical invocation checks
those facts and the stamp, and prints the stored text; any difference, or anything
unexpected, falls through to the full command line (`toolgen.cli.main`), which compiles or
replays as usual. Before any of that, a running `toolgen build --watch` of the project is
asked (`forward`, `toolgen.watch.socket_server`): it has the last build in memory.

Python start-up and this module are all such a run pays for: it imports neither argparse,
nor the configuration reader, nor json or hashlib (unless a file must be hashed), nor the
compiler. `toolgen check` in a project of a thousand tools takes about as long as `python -c
pass` plus one `stat` per file.
"""

from __future__ import annotations

import functools
import marshal
import os
import sys
import time

from toolgen._version import __version__
from toolgen.incremental.cache import FOLDER, checksum, load_entry, ours, prune, store_entry
from toolgen.reading import open_regular

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    from toolgen.config import Config

KIND = "quick"
KEEP = 64  # invocations remembered: commands, formats and folders people run them from
COMMANDS = ("build", "check")
ENVIRONMENT = ("TOOLGEN_CACHE_DIR", "TOOLGEN_NO_CACHE")

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


def run() -> None:
    """The console script (`toolgen`) and `python -m toolgen`."""
    try:
        sys.exit(main(sys.argv[1:], process=True))
    except KeyboardInterrupt:
        sys.exit(130)


def main(argv: Sequence[str], *, process: bool = False) -> int:
    """The exit code of `toolgen ARGV`: from a running `toolgen build --watch` that answers
    (it has everything in memory), else from a remembered answer when it still holds, else
    from the full command line (`toolgen.cli`; with `process`, tuned for a process of its
    own)."""
    code = forward(list(argv))
    if code is None:
        code = answer(list(argv))
    if code is not None:
        return code
    from toolgen import cli

    return cli.run_main(argv) if process else cli.main(argv)


def answer(argv: list[str]) -> int | None:
    """Print the remembered answer to `toolgen ARGV` and return its exit code, or None (and
    print nothing) when there is none or it may no longer hold."""
    started = time.time_ns()  # before anything is read (see `toolgen.incremental.stamp`)
    if not argv or argv[0] not in COMMANDS or _no_cache():
        return None
    ident = invocation(argv, os.getcwd())
    name = _name(ident)
    for folder in _folders(ident[1]):
        entry = load_entry(folder, KIND, name)
        if entry is not None:
            break
    else:
        return None
    try:
        if entry["invocation"] != ident or not _facts_hold(entry["facts"]):
            return None
        from toolgen.incremental.stamp import replay

        outcome = replay(folder, entry["stamp"], started)
        if outcome is None or outcome.ident != entry["outcome"]:
            return None
        text, code = entry["text"], entry["code"]
    except Exception:  # a damaged or foreign entry is a miss: a cache never breaks a run
        return None
    return _print(text, "", int(code))


def _print(out: str, err: str, code: int) -> int:
    """Print an answer; `code`, or 0 when the reader has gone (`toolgen check | head`), as
    the command line does."""
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
        sys.stderr.write(err)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return code


def forward(argv: list[str]) -> int | None:
    """Have a running `toolgen build --watch` of this project run `toolgen ARGV`, print what
    it printed and return its exit code; None (nothing printed) when none runs, it declines
    (`toolgen.watch.socket_server`), or it does not take the request within `ACCEPT_S` (a suspended
    watch). Only a socket of this user's, served by a process of this user's, is asked."""
    if not argv or argv[0] not in COMMANDS or _no_cache():
        return None
    cwd = os.getcwd()
    for folder in _folders(cwd):
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
        return _print(out, err, int(code))
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


def remember(
    folder: Path,
    argv: Sequence[str],
    args: argparse.Namespace,
    config: Config,
    stamp_key: str,
    outcome_ident: str,
    text: str,
    code: int,
) -> None:
    """Store what the invocation `argv` printed (`text`) and returned (`code`) when answered
    from the stamp `stamp_key` with the outcome `outcome_ident`, for `answer` to repeat."""
    ident = invocation(list(argv), os.getcwd())
    if ident[1] != str(config.cwd):
        return  # a working folder that resolves elsewhere: not worth the care
    entry = {
        "invocation": ident,
        "facts": _facts(args, config),
        "stamp": stamp_key,
        "outcome": outcome_ident,
        "text": text,
        "code": code,
    }
    store_entry(folder, KIND, _name(ident), entry)
    prune(folder, KIND, keep=KEEP)


def _no_cache() -> bool:
    return os.environ.get("TOOLGEN_NO_CACHE", "") not in ("", "0")


def invocation(argv: list[str], cwd: str, mask: int | None = None) -> tuple[Any, ...]:
    """Everything a run's answer depends on besides the files it reads (`mask`: the umask,
    which the files and folders a build makes get; read here unless given)."""
    env = tuple(os.environ.get(name) for name in ENVIRONMENT)
    mask = umask() if mask is None else mask
    return (tuple(argv), cwd, env, sys.version, __version__, _code(), mask)


def umask() -> int:
    """The process's umask (only where no other thread may be making files meanwhile)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _name(ident: tuple[Any, ...]) -> str:
    return "q" + checksum(repr(ident).encode()).decode()  # (marshal's bytes vary with refs)


@functools.cache
def _code() -> tuple[tuple[str, int, int], ...]:
    """The `stat` of toolgen's own Python files when this process first asked: the code it
    runs (a changed or reinstalled toolgen misses; a watch started before the change is not
    asked by a client started after it)."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    for folder, folders, files in os.walk(here):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for file in sorted(files):
            if file.endswith(".py"):
                st = os.stat(f"{folder}/{file}")
                found.append((f"{folder}/{file}", st.st_size, st.st_mtime_ns))
    return tuple(found)


def _folders(cwd: str) -> list[str]:
    """Where the cache folder may be: `$TOOLGEN_CACHE_DIR`, else `.toolgen_cache` in the
    working folder or above it (the project root is not known without the config); only
    folders of this user's (`ours`)."""
    override = os.environ.get("TOOLGEN_CACHE_DIR")
    if override:
        folder = os.path.realpath(os.path.join(cwd, override))
        return [folder] if ours(folder) else []
    found, folder = [], cwd
    while True:
        candidate = f"{folder.rstrip('/')}/{FOLDER}"
        if ours(candidate):
            found.append(candidate)
        parent = os.path.dirname(folder)
        if parent == folder:
            return found
        folder = parent


def _facts(args: argparse.Namespace, config: Config) -> dict[str, list[Any]]:
    """What the configuration was made of, besides the invocation: see the module's doc."""
    files: list[tuple[str, bytes | None]] = []
    links: list[tuple[str, str]] = list(config.resolved)
    exists: list[tuple[str, bool, bool]] = []  # (path, only a file counts, there)
    assert config.config_file is not None
    if args.config is None:  # the search (`config.find_config`) read each of these
        for folder in (config.cwd, *config.cwd.parents):
            candidate = folder / "pyproject.toml"
            files.append((str(candidate), _read(str(candidate))))
            if candidate.resolve() == config.config_file:
                links.append((str(candidate), str(config.config_file)))
                break
    else:
        links.append((str(config.cwd / args.config), str(config.config_file)))
    files.append((str(config.config_file), _read(str(config.config_file))))
    for folder in (config.config_file.parent, *config.config_file.parent.parents):
        marks = [(str(folder / "pyproject.toml"), True), (str(folder / ".git"), False)]
        exists.extend((path, only, _exists(path, only)) for path, only in marks)
        if folder == config.root:
            break
    return {"files": files, "links": links, "exists": exists}


def _facts_hold(facts: dict[str, list[Any]]) -> bool:
    if any(_read(path) != data for path, data in facts["files"]):
        return False
    if any(os.path.realpath(given) != resolved for given, resolved in facts["links"]):
        return False
    return all(_exists(path, only) == there for path, only, there in facts["exists"])


def _exists(path: str, only_files: bool) -> bool:
    return os.path.isfile(path) if only_files else os.path.exists(path)


def _read(path: str) -> bytes | None:
    try:
        handle, _ = open_regular(path)  # a FIFO put in its place is not waited for
        with handle:
            return handle.read()
    except OSError:
        return None
