"""The cache folder: where toolgen keeps what it can reuse between runs.

`.toolgen_cache/` in the project root (or `$TOOLGEN_CACHE_DIR`). Everything in it is derived
from the sources, the configuration and toolgen's version, so it is always safe to delete;
`--no-cache` or `TOOLGEN_NO_CACHE=1` turns it off for a run. Entries are small JSON files,
each written atomically under a name that is the hash of everything it depends on, so a
changed config or a new toolgen version simply misses. A broken or foreign entry is a miss,
never an error.

This module is imported on the fast path of `toolgen check`: standard library only.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolgen._version import __version__

if TYPE_CHECKING:
    from toolgen.config import Config

FOLDER = ".toolgen_cache"
#: Bumped when the layout of cache entries changes, so old entries are never misread.
LAYOUT = 1


def cache_dir(config: Config, enabled: bool = True) -> Path | None:
    """The cache folder for `config`, or None when caching is off."""
    if not enabled or os.environ.get("TOOLGEN_NO_CACHE", "") not in ("", "0"):
        return None
    override = os.environ.get("TOOLGEN_CACHE_DIR")
    return (config.cwd / override).resolve() if override else config.root / FOLDER


def config_key(config: Config) -> str:
    """A hash of everything a run's result depends on besides the files it reads: toolgen's
    code, Python's version (the `ast` it parses with), and every resolved setting."""
    text = repr((LAYOUT, __version__, code_fingerprint(), sys.version_info[:2], config))
    return hashlib.sha256(text.encode()).hexdigest()


@functools.cache
def code_fingerprint() -> str:
    """The sha256 of toolgen's own source files: an entry made by other code never matches,
    even under the same version number (a development checkout, a rebuilt wheel)."""
    package = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(f"{path.relative_to(package).as_posix()}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def file_sha(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:  # hot path: plain strings, no Path objects
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def is_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)  # noqa: PTH116 (hot path: plain strings)
    except OSError:
        return False


def load_entry(
    folder: Path, kind: str, key: str, loads: Callable[[bytes], Any] = json.loads
) -> Any:
    """The JSON stored under `kind/key`, or None: missing, unreadable, or not the bytes that
    `store_entry` wrote (each entry starts with the sha256 of the rest: a truncated or
    damaged entry is a miss, and a whole one need not be checked field by field)."""
    try:
        data = (folder / kind / f"{key[:40]}.json").read_bytes()
        sha, _, body = data.partition(b"\n")
        if hashlib.sha256(body).hexdigest().encode() != sha:
            return None
        return loads(body)
    except (OSError, ValueError):
        return None


def store_entry(
    folder: Path, kind: str, key: str, value: Any, dumps: Callable[[Any], bytes] | None = None
) -> None:
    """Write `value` atomically; a cache that cannot be written is silently skipped."""
    target = folder / kind / f"{key[:40]}.json"
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        if not folder.is_dir():
            folder.mkdir(parents=True, exist_ok=True)
            (folder / ".gitignore").write_text("# created by toolgen; safe to delete\n*\n")
            (folder / "CACHEDIR.TAG").write_text(
                "Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by toolgen.\n"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        data = dumps(value) if dumps else json.dumps(value, separators=(",", ":")).encode()
        tmp.write_bytes(hashlib.sha256(data).hexdigest().encode() + b"\n" + data)
        tmp.replace(target)
    except Exception:  # a full disk, a read-only project, a value that will not serialise
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def prune(folder: Path, kind: str, keep: int) -> None:
    """Keep the `keep` newest entries of `kind` (by the time they were written) and drop the
    rest, with temporary files a killed run left: the cache must not grow without end."""
    try:
        entries = [e for e in os.scandir(folder / kind) if e.is_file(follow_symlinks=False)]
        stamped = sorted(((e.stat().st_mtime_ns, e.path) for e in entries), reverse=True)
        now = time.time_ns()
        for mtime, path in stamped:
            leftover = path.endswith(".tmp") and now - mtime > 600 * 10**9
            if leftover or (not path.endswith(".tmp") and keep <= 0):
                os.unlink(path)  # noqa: PTH108 (plain strings from scandir)
            elif not path.endswith(".tmp"):
                keep -= 1
    except OSError:
        pass
