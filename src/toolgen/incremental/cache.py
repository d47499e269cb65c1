"""The cache folder: where toolgen keeps what it can reuse between runs.

`.toolgen_cache/` in the project root (or `$TOOLGEN_CACHE_DIR`). Everything in it is derived
from the sources, the configuration and toolgen's version, so it is always safe to delete;
`--no-cache` or `TOOLGEN_NO_CACHE=1` turns it off for a run. Entries are small files of
marshal data (the key includes Python's version, whose format it is), each written atomically
under a name that is the hash of everything it depends on, so a changed config or a new toolgen
version simply misses. A broken or foreign entry is a miss, never an error.

The repository is not to be trusted (CI runs `check` on pull requests, and a pull request can
commit a cache folder): each entry is sealed with a keyed hash under a secret of the user's,
kept outside every project (`secret`), and one that does not carry it is a miss. Nothing is
read, written or removed through a symlink, and pruning removes only files whose name is
sealed so (`prune`): what else a cache folder holds is not toolgen's.

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

from toolgen.read.files import open_regular

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (see above)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    Folder = str | os.PathLike[str]

FOLDER = ".toolgen_cache"
#: Bumped when the layout of cache entries changes, so old entries are never misread.
LAYOUT = 8


def ours(path: str, socket_file: bool = False) -> bool:
    """Whether `path` is a folder (or a socket) of this user's that no one else can write to
    but the group that can already write the project: what a shared folder above the project
    (`/tmp`) or another user holds is never trusted (`marshal` is not made for hostile data).
    Neither is a symlink: a cache folder committed as `.toolgen_cache -> ~` would have the
    cache write and prune wherever it leads (`$TOOLGEN_CACHE_DIR` is taken through its links,
    by whoever set it: `toolgen.incremental.keys.cache_dir`).

    A folder writable by its group counts when its group is the user's own, or when the folder
    it is in is writable by that same group (a group-shared project: umask 002, setgid)."""
    return refused(path, socket_file) is None


def refused(path: str, socket_file: bool = False) -> str | None:
    """Why `path` is not `ours` (the end of a sentence that starts with the path), or None."""
    try:
        st = os.lstat(path)
    except OSError:
        return "it is not there"
    if stat.S_ISLNK(st.st_mode):
        return "it is a symlink (set TOOLGEN_CACHE_DIR to keep the cache elsewhere)"
    kind = stat.S_ISSOCK if socket_file else stat.S_ISDIR
    if not kind(st.st_mode):
        return "it is not a socket" if socket_file else "it is not a folder"
    if not hasattr(os, "getuid"):
        return None
    if st.st_uid != os.getuid() or st.st_mode & 0o002:
        return NOT_OURS
    if not st.st_mode & 0o020 or st.st_gid == os.getgid() or _shared(path, st.st_gid):
        return None
    return NOT_OURS


NOT_OURS = "it is not a folder of this user's that only they (or the project's group) can write to"


def _shared(path: str, group: int) -> bool:
    """The folder holding `path` is writable by `group` too: its members could replace `path`
    in any case."""
    try:
        parent = os.stat(os.path.dirname(os.path.realpath(path)))
    except OSError:
        return False
    return parent.st_gid == group and bool(parent.st_mode & 0o020)


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


def present(path: str) -> bool:
    """Whether anything is at `path` now (a file, a folder): what a path looked for and
    missing may become (a server that asks whether its `plugins` folder exists)."""
    try:
        os.stat(path)  # hot path: plain strings
    except OSError:
        return False
    return True


def checksum(data: bytes) -> bytes:
    """Two 32-bit checks of `data` (damage, not tampering: names and idents, not entries)."""
    return checksum_of((data,))


def checksum_of(parts: Iterable[bytes]) -> bytes:
    """`checksum` of the bytes of all `parts` one after the other, taken one at a time (a
    stamp's texts can be megabytes: they are not joined)."""
    crc, adler = 0, 1
    for data in parts:
        crc, adler = zlib.crc32(data, crc), zlib.adler32(data, adler)
    return f"{crc:08x}{adler:08x}".encode()


# -- the secret that authenticates entries ------------------------------------------------
#: The per-user secret: `$XDG_CACHE_HOME/toolgen/secret` (else `~/.cache/toolgen/secret`),
#: outside every project. A repository can commit a cache folder, so an entry is believed
#: only when it carries a keyed hash (BLAKE2b, a MAC) that only this secret gives: a stamp
#: forged on another machine, or copied from one, is a miss.
SECRET = "secret"
SECRET_BYTES = 32
#: The secrets read in this process, by the folder they are in (None: none to be had there).
_secrets: dict[str, bytes | None] = {}
#: Why the secret could not be had, for the command line to say (`secret_problem`).
_problems: dict[str, str] = {}


def secret_folder() -> str | None:
    """Where the secret is kept (None: no home folder to keep it in)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "toolgen")


def secret() -> bytes | None:
    """This user's secret, made on first use (None when it cannot be had: then no entry is
    read or written, as with `--no-cache`; `secret_problem` says why)."""
    folder = secret_folder()
    if folder is None:
        return None
    if folder not in _secrets:
        _secrets[folder] = _load_secret(folder)
    return _secrets[folder]


def holds_secret(project: str) -> bool:
    """Whether the folder `project` (a real path) holds the secret's folder: a repository
    checked out there could hold a secret of its own making (a project in the home folder
    itself), so a cache folder of its is not used."""
    folder = secret_folder()
    if folder is None:
        return False
    if folder not in _real:
        _real[folder] = os.path.realpath(folder)
    real, project = _real[folder], project.rstrip("/")
    return real == project or real.startswith(f"{project}/")


_real: dict[str, str] = {}


def secret_problem() -> str:
    """Why `secret` gave None ("" when it did not)."""
    folder = secret_folder()
    if folder is None:
        return "there is no home folder to keep the key of its entries in"
    return _problems.get(folder, "")


def _load_secret(folder: str) -> bytes | None:
    path = f"{folder}/{SECRET}"
    why = _secret_folder_problem(folder, make=True)
    if why is None:
        try:
            return _read_secret(path)
        except FileNotFoundError:
            why = _make_secret(path)
            if why is None:
                return _load_secret_again(path)
        except OSError as exc:
            why = exc.strerror or str(exc)
    _problems[folder] = f"the key of its entries, {path}, cannot be used: {why}"
    return None


def _load_secret_again(path: str) -> bytes | None:
    try:
        return _read_secret(path)
    except OSError as exc:  # another process is writing it: this run goes without
        _problems[os.path.dirname(path)] = f"{path}: {exc.strerror or exc}"
        return None


def _secret_folder_problem(folder: str, make: bool) -> str | None:
    """Why the secret's `folder` is not one to keep it in (made if missing and `make`)."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        if not make:
            return "it is not there"
        try:
            os.makedirs(folder, mode=0o700)
        except OSError as exc:
            return exc.strerror or str(exc)
        return _secret_folder_problem(folder, make=False)
    except OSError as exc:
        return exc.strerror or str(exc)
    if not stat.S_ISDIR(st.st_mode):
        return "its folder is not a folder"
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
        return "its folder is not this user's alone to write"
    return None


def _read_secret(path: str) -> bytes:
    """The secret at `path`: OSError unless it is a regular file of the user's own that no
    one else can read or write, of the right size."""
    import errno

    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    try:
        st = os.fstat(fd)
        mine = not hasattr(os, "getuid") or (st.st_uid == os.getuid() and not st.st_mode & 0o077)
        if not stat.S_ISREG(st.st_mode) or not mine or st.st_size != SECRET_BYTES:
            why = "it is not a file of this user's that only they can read, of 32 bytes"
            raise OSError(errno.EPERM, why)
        data = os.read(fd, SECRET_BYTES)
    finally:
        os.close(fd)
    if len(data) != SECRET_BYTES:
        raise OSError(errno.EIO, "it was cut short")
    return data


def _make_secret(path: str) -> str | None:
    """Write a new secret at `path` (never over one: O_EXCL); why not, or None."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    except FileExistsError:  # made by another process meanwhile
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    try:
        os.write(fd, os.urandom(SECRET_BYTES))
    except OSError as exc:
        return exc.strerror or str(exc)
    finally:
        os.close(fd)
    return None


def _blake2b(key: bytes, size: int) -> Any:
    try:  # the builtin module: hashlib's import loads OpenSSL (milliseconds on the fast path)
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - Pythons without it
        from hashlib import blake2b
    return blake2b(key=key, digest_size=size)


def tag(key: bytes, label: str) -> bytes:
    """A keyed hash of `label` (an entry's name): what proves that toolgen, run by this user,
    named a file so (a file the cache may prune, `prune`)."""
    digest = _blake2b(key, TAG_BYTES)
    digest.update(label.encode("utf-8", "surrogateescape"))
    return digest.hexdigest().encode()  # type: ignore[no-any-return]


def mac(key: bytes, label: str, body: bytes | memoryview) -> bytes:
    """The keyed hash that authenticates `body` as the entry `label` (hex)."""
    digest = _blake2b(key, MAC_BYTES)
    digest.update(label.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(body)
    return digest.hexdigest().encode()  # type: ignore[no-any-return]


TAG_BYTES, MAC_BYTES = 16, 32
#: An entry: `tag(kind/name)`, `mac(kind/name, body)`, a newline, then the body.
HEADER = 2 * (TAG_BYTES + MAC_BYTES) + 1
#: No entry is read past this many bytes (a stamp of 10,000 tools takes about 10 MB).
MAX_ENTRY = 1 << 30

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: How a folder of the cache is opened: never through a symlink.
_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW


def seal(key: bytes, kind: str, name: str, body: bytes) -> bytes:
    """The bytes of entry `kind/name` holding `body`, as `store_entry` writes them."""
    return _head(key, kind, name, body) + body


def _head(key: bytes, kind: str, name: str, body: bytes) -> bytes:
    """What comes before `body` in entry `kind/name` (`seal`)."""
    label = f"{kind}/{name}"
    return tag(key, label) + mac(key, label, body) + b"\n"


def open_kind(folder: Folder, kind: str, make: bool = False) -> int:
    """A descriptor of the folder `kind` in the cache `folder`, neither reached through a
    symlink (OSError otherwise); made first when `make`."""
    base = os.open(os.fspath(folder), _FOLDER)
    try:
        if make:
            with contextlib.suppress(FileExistsError):
                os.mkdir(kind, dir_fd=base)
        return os.open(kind, _FOLDER, dir_fd=base)
    finally:
        os.close(base)


#: Cache entries found and not trusted (`trusted`) in this process, for the command line
#: to mention (once).
DISTRUSTED: list[str] = []


def load_entry(
    folder: Folder, kind: str, key: str, loads: Callable[[bytes], Any] = marshal.loads
) -> Any:
    """The value stored under `kind/key`, or None: missing, unreadable, not `trusted` (then
    added to `DISTRUSTED`), or not the bytes that `store_entry` wrote with this user's secret
    (forged, copied from elsewhere, truncated or damaged: a whole one need not be checked
    field by field for damage, but is for what it holds, by its reader)."""
    name = key[:40]
    path = f"{os.fspath(folder)}/{kind}/{name}.json"
    secret_key = secret()
    if secret_key is None:
        return None
    try:
        fd = open_kind(folder, kind)
        try:  # not through a symlink; its owner and mode from the open handle, not the name
            handle, st = open_regular(f"{name}.json", _NOFOLLOW, dir_fd=fd)
        finally:
            os.close(fd)
        with handle:
            if not trusted(st, path):
                DISTRUSTED.append(path)
                return None
            if st.st_size > MAX_ENTRY:
                return None
            data = handle.read(MAX_ENTRY + 1)
        label = f"{kind}/{name}"
        body = memoryview(data)[HEADER:]
        sealed = tag(secret_key, label) + mac(secret_key, label, body) + b"\n"
        if len(data) > MAX_ENTRY or data[:HEADER] != sealed:
            return None
        return loads(body)  # type: ignore[arg-type]
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
    """The cache folder, made with its `MARKERS` if it is not there (OSError if it cannot).
    What is there already is left as it is: its markers are written only into a folder made
    here, never through a symlink."""
    base = os.fspath(folder)
    if os.path.lexists(base):
        return
    os.makedirs(os.path.dirname(base) or ".", exist_ok=True)
    try:
        os.mkdir(base)
    except FileExistsError:  # made by another process meanwhile
        return
    for name, text in MARKERS.items():
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
        with open(os.open(f"{base}/{name}", flags, 0o644), "w", encoding="utf-8") as handle:
            handle.write(text)


def store_entry(
    folder: Folder, kind: str, key: str, value: Any, dumps: Callable[[Any], bytes] = marshal.dumps
) -> None:
    """Write `value` atomically, sealed with the user's secret (`seal`); a cache that cannot
    be written is silently skipped, and so is one reached through a symlink. (Plain `os`
    calls: the fast path stores stamps without importing pathlib.)"""
    name = key[:40]
    tmp = f".{name}.json.{os.getpid()}.tmp"
    secret_key = secret()
    if secret_key is None:
        return
    fd = -1
    try:
        make_folder(folder)
        fd = open_kind(folder, kind, make=True)
        body = dumps(value)  # a stamp's can be tens of megabytes: written after its head,
        head = _head(secret_key, kind, name, body)  # not copied into one with it
        with contextlib.suppress(FileNotFoundError):  # a killed run's, made with another mode
            os.unlink(tmp, dir_fd=fd)
        # the user's alone (`trusted`), whatever the umask
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
        with open(os.open(tmp, flags, 0o600, dir_fd=fd), "wb") as handle:
            handle.write(head)
            handle.write(body)
        os.replace(tmp, f"{name}.json", src_dir_fd=fd, dst_dir_fd=fd)
    except Exception:  # a full disk, a read-only project, a value that will not serialise
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
    finally:
        if fd >= 0:
            os.close(fd)


def prune(folder: Folder, kind: str, keep: int) -> None:
    """Keep the `keep` newest entries of `kind` (by the time they were written) and drop the
    rest, with temporary files a killed run left: the cache must not grow without end. Only
    what toolgen wrote is removed: a file named as an entry (or its temporary file) that
    starts with the `tag` of that name under this user's secret; whatever else is in the
    folder (a `$TOOLGEN_CACHE_DIR` that was in use) stays."""
    secret_key = secret()
    if secret_key is None:
        return
    try:
        fd = open_kind(folder, kind)
    except OSError:
        return
    try:
        with os.scandir(fd) as listed:
            found = []
            for entry in listed:
                name, temporary = entry_name(entry.name)
                if name and entry.is_file(follow_symlinks=False):
                    mtime = entry.stat(follow_symlinks=False).st_mtime_ns
                    found.append((mtime, entry.name, name, temporary))
        now = time.time_ns()
        for mtime, file, name, temporary in sorted(found, reverse=True):
            if temporary:
                drop = now - mtime > 600 * 10**9
            else:
                drop, keep = keep <= 0, keep - 1
            if drop and _tagged(fd, file, tag(secret_key, f"{kind}/{name}")):
                os.unlink(file, dir_fd=fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def entry_name(file: str) -> tuple[str, bool]:
    """The entry name a file in a kind's folder is for ("" when it is none of toolgen's),
    and whether it is a temporary file (`.NAME.json.PID.tmp`)."""
    temporary = file.startswith(".") and file.endswith(".tmp")
    if temporary:
        stem, _, pid = file[1:-4].rpartition(".")
        if not pid.isdigit() or not pid.isascii():
            return "", False
        file = stem
    name = file.removesuffix(".json")
    plain = 0 < len(name) <= 40 and name.isascii() and name.isalnum() and name != file
    return (name, temporary) if plain else ("", False)


def _tagged(fd: int, file: str, expected: bytes) -> bool:
    """Whether `file` in the folder `fd` is a regular file of the user's that starts with
    the tag `expected`."""
    try:
        handle, st = open_regular(file, _NOFOLLOW, dir_fd=fd)
    except OSError:
        return False
    with handle:
        mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
        return mine and handle.read(len(expected)) == expected
