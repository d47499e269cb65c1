"""The cache folder: where toolgen keeps what it can reuse between runs.

`.toolgen_cache/` in the project root (or `$TOOLGEN_CACHE_DIR`). Everything in it is derived
from the sources, the configuration and toolgen's version, so it is always safe to delete;
`--no-cache` or `TOOLGEN_NO_CACHE=1` turns it off for a run. Entries are small files of
marshal data (the key includes Python's version, whose format it is), each written atomically
under a name that is the hash of everything it depends on, so a changed config or a new toolgen
version simply misses. A broken or foreign entry is a miss, never an error.

This module is imported on the fast path of `toolgen check` (`toolgen.entry`): standard
library only, and nothing slow to import (hashlib) before it is needed.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import stat
import time
import zlib

from toolgen.reading import open_regular

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (see above)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path
    from typing import Any

    Folder = str | os.PathLike[str]

FOLDER = ".toolgen_cache"
#: Bumped when the layout of cache entries changes, so old entries are never misread.
LAYOUT = 7


def ours(path: str, socket_file: bool = False) -> bool:
    """Whether `path` is a folder (or a socket) of this user's that no one else can write to
    but the group that can already write the project: what a shared folder above the project
    (`/tmp`) or another user holds is never trusted (`marshal` is not made for hostile data).

    A folder writable by its group counts when its group is the user's own, or when the folder
    it is in is writable by that same group (a group-shared project: umask 002, setgid)."""
    try:  # a socket as it is; a folder may be a symlink to one (checked where it leads)
        st = os.lstat(path) if socket_file else os.stat(path)
    except OSError:
        return False
    kind = stat.S_ISSOCK if socket_file else stat.S_ISDIR
    if not kind(st.st_mode):
        return False
    if not hasattr(os, "getuid"):
        return True
    if st.st_uid != os.getuid() or st.st_mode & 0o002:
        return False
    return not st.st_mode & 0o020 or st.st_gid == os.getgid() or _shared(path, st.st_gid)


def _shared(path: str, group: int) -> bool:
    """The folder holding `path` is writable by `group` too: its members could replace `path`
    in any case."""
    try:
        parent = os.stat(os.path.dirname(os.path.realpath(path)))
    except OSError:
        return False
    return parent.st_gid == group and bool(parent.st_mode & 0o020)


def usable(folder: Path) -> bool:
    """Whether a run may use the cache `folder`: not there yet (it will be made, as `ours`),
    or `ours`."""
    return not os.path.lexists(folder) or ours(os.fspath(folder))


def file_sha(path: str, limit: int | None = None) -> str | None:
    """The sha256 of a regular file's bytes; None when it is not one, cannot be read (a FIFO
    is not waited for, a device not read), or has more than `limit` bytes (not read)."""
    import hashlib

    try:
        handle, st = open_regular(path)  # hot path: plain strings, no Path objects
        with handle:
            if limit is not None and st.st_size > limit:
                return None
            if st.st_size <= 1 << 20:  # read at once (file_digest's buffer costs more)
                return hashlib.sha256(handle.read()).hexdigest()
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def is_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)  # hot path: plain strings
    except OSError:
        return False


def checksum(data: bytes) -> bytes:
    """What an entry starts with: two 32-bit checks of the rest (damage, not tampering)."""
    return checksum_of((data,))


def checksum_of(parts: Iterable[bytes]) -> bytes:
    """`checksum` of the bytes of all `parts` one after the other, taken one at a time (a
    stamp's texts can be megabytes: they are not joined)."""
    crc, adler = 0, 1
    for data in parts:
        crc, adler = zlib.crc32(data, crc), zlib.adler32(data, adler)
    return f"{crc:08x}{adler:08x}".encode()


#: Cache entries found and not trusted (`trusted`) in this process, for the command line
#: to mention (once).
DISTRUSTED: list[str] = []


def load_entry(
    folder: Folder, kind: str, key: str, loads: Callable[[bytes], Any] = marshal.loads
) -> Any:
    """The value stored under `kind/key`, or None: missing, unreadable, not `trusted` (then
    added to `DISTRUSTED`), or not the bytes that `store_entry` wrote (each entry starts
    with a checksum of the rest: a truncated or damaged entry is a miss, and a whole one
    need not be checked field by field)."""
    path = f"{os.fspath(folder)}/{kind}/{key[:40]}.json"
    try:
        # not through a symlink; its owner and mode from the open handle, not the name
        handle, st = open_regular(path, getattr(os, "O_NOFOLLOW", 0))
        with handle:
            if not trusted(st, path):
                DISTRUSTED.append(path)
                return None
            data = handle.read()
        check, _, body = data.partition(b"\n")
        if checksum(body) != check:
            return None
        return loads(body)
    except (OSError, ValueError, EOFError, TypeError):  # marshal's errors too
        return None


def trusted(st: os.stat_result, path: str) -> bool:
    """Whether an entry with this `stat` is one to believe: the user's own, and writable by
    no one else. As for the folder (`ours`), its group may write it when that group is the
    user's own, or when the folder holding it is writable by the same group (whose members
    could replace the entry there in any case). Someone else's entry, or one others may
    write, may say anything: `marshal` is not made for hostile data, and a forged stamp
    would answer `check` for them."""
    if not hasattr(os, "getuid"):
        return True
    if st.st_uid != os.getuid() or st.st_mode & 0o002:
        return False
    return not st.st_mode & 0o020 or st.st_gid == os.getgid() or _shared(path, st.st_gid)


#: What the cache folder is made with: it ignores itself in git, and backup tools skip it.
MARKERS = {
    ".gitignore": "# created by toolgen; safe to delete\n*\n",
    "CACHEDIR.TAG": "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by toolgen.\n",
}


def make_folder(folder: Folder) -> None:
    """The cache folder, made with its `MARKERS` if it is not there (OSError if it cannot)."""
    base = os.fspath(folder)
    if not os.path.isdir(base):
        os.makedirs(base, exist_ok=True)
        for name, text in MARKERS.items():
            with open(f"{base}/{name}", "w", encoding="utf-8") as handle:
                handle.write(text)


def store_entry(
    folder: Folder, kind: str, key: str, value: Any, dumps: Callable[[Any], bytes] = marshal.dumps
) -> None:
    """Write `value` atomically; a cache that cannot be written is silently skipped. (Plain
    `os` calls: the fast path stores stamps without importing pathlib.)"""
    base = os.fspath(folder)
    target = f"{base}/{kind}/{key[:40]}.json"
    tmp = f"{base}/{kind}/.{key[:40]}.json.{os.getpid()}.tmp"
    try:
        make_folder(base)
        os.makedirs(f"{base}/{kind}", exist_ok=True)
        data = dumps(value)
        with contextlib.suppress(FileNotFoundError):  # a killed run's, made with another mode
            os.unlink(tmp)
        # the user's alone (`trusted`), whatever the umask
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as handle:
            handle.write(checksum(data) + b"\n")
            handle.write(data)
        os.replace(tmp, target)
    except Exception:  # a full disk, a read-only project, a value that will not serialise
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def prune(folder: Folder, kind: str, keep: int) -> None:
    """Keep the `keep` newest entries of `kind` (by the time they were written) and drop the
    rest, with temporary files a killed run left: the cache must not grow without end."""
    try:
        listed = os.scandir(f"{os.fspath(folder)}/{kind}")
        entries = [e for e in listed if e.is_file(follow_symlinks=False)]
        stamped = sorted(((e.stat().st_mtime_ns, e.path) for e in entries), reverse=True)
        now = time.time_ns()
        for mtime, path in stamped:
            leftover = path.endswith(".tmp") and now - mtime > 600 * 10**9
            if leftover or (not path.endswith(".tmp") and keep <= 0):
                os.unlink(path)  # plain strings from scandir
            elif not path.endswith(".tmp"):
                keep -= 1
    except OSError:
        pass
