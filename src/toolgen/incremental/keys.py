"""Which cache folder a configuration uses, and its key: the two facts about a project that
the cache entries (`toolgen.incremental.cache`) are filed under.

Apart from `toolgen.incremental.cache` because they read a `Config`: the cache folder itself is
on the fast path, which never imports the configuration reader.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

from toolgen._version import __version__
from toolgen.config import Config
from toolgen.incremental.cache import FOLDER, LAYOUT


def cache_dir(config: Config, enabled: bool = True) -> Path | None:
    """The cache folder for `config`, or None when caching is off."""
    if not enabled or os.environ.get("TOOLGEN_NO_CACHE", "") not in ("", "0"):
        return None
    override = os.environ.get("TOOLGEN_CACHE_DIR")
    return (config.cwd / override).resolve() if override else config.root / FOLDER


def config_key(config: Config) -> str:
    """A hash of everything a run's result depends on besides the files it reads: toolgen's
    code, Python's version (the `ast` it parses with), and every resolved setting."""
    import hashlib

    text = repr((LAYOUT, __version__, code_fingerprint(), sys.version_info[:2], config))
    return hashlib.sha256(text.encode()).hexdigest()


@functools.cache
def code_fingerprint() -> str:
    """The sha256 of toolgen's own source files: an entry made by other code never matches,
    even under the same version number (a development checkout, a rebuilt wheel)."""
    import hashlib

    package = Path(__file__).parent.parent  # toolgen/, from toolgen/incremental/
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(f"{path.relative_to(package).as_posix()}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
