"""Idempotency stores: who owns `(tool, idempotency key)` and what it answered.

The runtime asks a store once per keyed call, before running the handler:

- `begin(tool, key, fingerprint, lease_s)` claims the key for `lease_s` seconds and answers
  `Started(token)`; or, when the key is already taken, `Replay(result)` (finished, same
  arguments), `Reused()` (another fingerprint: the key was reused by mistake) or
  `InFlight(retry_after_ms)` (the same call is still running);
- `finish(tool, key, token, result, ttl_s)` keeps the successful result for `ttl_s` seconds
  (and says False when `token` no longer owned the key);
- `abandon(tool, key, token)` frees the key after a failed call, so it may be retried.

`finish` and `abandon` act only while `token` still owns the key (compare-and-set): a call whose
lease ran out cannot overwrite the call that took the key after it. A lease that runs out (the
process was killed mid-call) frees the key; so does a finished entry after its TTL.

Three backends, chosen by URL with `open_store`:

- `memory://` (`MemoryStore`): one process;
- `sqlite:///relative/path` or `sqlite:////absolute/path` (`SqliteStore`): the processes of one
  machine;
- `redis://host:port/db` or `rediss://...` (`RedisStore`, needs `pip install "toolgen[redis]"`):
  many workers on many machines.

Any failure of a backend raises `StoreUnavailable`, never another exception, so the runtime can
fail closed (the handler is not run).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from toolgen.runtime.store.base import (
    RETRY_AFTER_CAP_MS,
    Begin,
    IdempotencyStore,
    InFlight,
    Replay,
    Reused,
    Started,
    StoreUnavailable,
    redacted,
    taken,
)

__all__ = [
    "RETRY_AFTER_CAP_MS",
    "Begin",
    "IdempotencyStore",
    "InFlight",
    "Replay",
    "Reused",
    "Started",
    "StoreUnavailable",
    "open_store",
    "redacted",
    "taken",
]


def open_store(url: str) -> IdempotencyStore:
    """The store a URL names; nothing is opened or created before its first use.

    `memory://`; `sqlite:///relative/path` or `sqlite:////absolute/path` (the parent folder is
    created on first use); `redis://host:port/db` or `rediss://host:port/db`. Raises ValueError
    for any other URL.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a store URL: {redacted(url)!r} (expected {_FORMS})")
    if scheme == "memory":
        if rest:
            raise ValueError(f"memory:// takes nothing after it: {redacted(url)!r}")
        from toolgen.runtime.store.memory import MemoryStore

        return MemoryStore()
    if scheme == "sqlite":
        return _sqlite(url, rest)
    if scheme in ("redis", "rediss"):
        _check_redis(url)
        from toolgen.runtime.store.redis import RedisStore

        return RedisStore(url)
    raise ValueError(f"unknown store scheme {scheme!r} in {redacted(url)!r} (expected {_FORMS})")


_FORMS = "memory://, sqlite:///relative/path, sqlite:////absolute/path, redis://host:port/db"


def _sqlite(url: str, rest: str) -> IdempotencyStore:
    # sqlite:///a/b is the relative path a/b, sqlite:////a/b the absolute /a/b (SQLAlchemy's form)
    shown = redacted(url)
    if not rest.startswith("/"):
        raise ValueError(f"sqlite URLs have no host: {shown!r} (expected sqlite:///path)")
    path = rest[1:]
    if not path or path.endswith("/"):
        raise ValueError(f"no database file in {shown!r} (expected sqlite:///path/to/file.db)")
    if path == ":memory:":
        # a private in-memory database would not be shared by the processes sqlite is chosen for
        raise ValueError(f"{shown!r}: use memory:// for a store in memory")
    from toolgen.runtime.store.sqlite import SqliteStore

    return SqliteStore(path)


def _check_redis(url: str) -> None:
    try:
        parts = urlsplit(url)
    except ValueError:  # "Invalid IPv6 URL": its text quotes nothing, but say which URL
        raise ValueError(f"cannot read the URL {redacted(url)!r}") from None
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise ValueError(f"bad port in {redacted(url)!r}") from None
    if not parts.hostname:
        raise ValueError(f"no host in {redacted(url)!r} (expected redis://host:port/db)")
    db = parts.path.strip("/")
    if db and not db.isdigit():
        raise ValueError(
            f"the database of {redacted(url)!r} must be a number (redis://host:port/0)"
        )
