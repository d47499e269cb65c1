"""`sqlite:///path`: an idempotency store in one sqlite file, shared by the processes of a machine.

One table, `(tool, key)` its primary key. `begin` reads and claims inside one `BEGIN IMMEDIATE`
transaction, which takes the file's write lock first: of any number of processes and threads,
exactly one sees the key free. WAL lets readers go on while one writes; `busy_timeout` makes
the others wait for the lock instead of failing at once. With `synchronous=NORMAL` a killed
process loses nothing committed; only a power cut may forget the last few results.

sqlite3 blocks, so every statement runs in this store's own worker thread (one connection, used
by that thread only): the event loop never waits on the file.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from toolgen.runtime.store.base import Begin, Started, StoreUnavailable, taken

__all__ = ["SqliteStore"]

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency (
    tool TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('in_flight', 'done')),
    token TEXT NOT NULL,
    result TEXT,
    expires_at REAL NOT NULL,
    PRIMARY KEY (tool, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency (expires_at);
"""

#: Expired rows are deleted once per this many `begin` calls of a process.
SWEEP_EVERY = 1024


class SqliteStore:
    """Entries in the sqlite file at `path` (created, with its folder, on first use).

    `clock` gives wall-clock seconds (`time.time` by default: processes must agree on it);
    tests pass their own. `busy_timeout_s` is how long a call waits for another writer before
    the store counts as unavailable.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Callable[[], float] = time.time,
        busy_timeout_s: float = 5.0,
    ) -> None:
        """A store for `path`; nothing is opened before the first call."""
        self.path = Path(path)
        self._clock = clock
        self._busy_timeout_s = busy_timeout_s
        self._connection: sqlite3.Connection | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="toolgen-sqlite")
        self._begins = 0
        self._closed = False

    async def begin(self, tool: str, key: str, fingerprint: str, lease_s: float) -> Begin:
        """Claim the key for `lease_s` seconds unless a live row holds it."""
        return await self._run(self._begin, tool, key, fingerprint, lease_s)

    async def finish(self, tool: str, key: str, token: str, result: str, ttl_s: float) -> bool:
        """Keep `result` for `ttl_s` seconds if `token` still holds the key's live lease."""
        return await self._run(self._finish, tool, key, token, result, ttl_s)

    async def abandon(self, tool: str, key: str, token: str) -> None:
        """Delete the key's row if `token` still holds its live lease."""
        await self._run(self._abandon, tool, key, token)

    async def aclose(self) -> None:
        """Close the connection and stop the worker thread (again: nothing happens)."""
        if self._closed:
            return
        try:
            await self._run(self._close)
        finally:
            self._closed = True
            self._executor.shutdown(wait=False)

    async def _run(self, work: Callable[..., T], *args: object) -> T:
        if self._closed:
            raise StoreUnavailable(f"the sqlite idempotency store {self.path} is closed")
        return await asyncio.get_running_loop().run_in_executor(self._executor, work, *args)

    # Below: run in the worker thread only.

    def _begin(self, tool: str, key: str, fingerprint: str, lease_s: float) -> Begin:
        def claim(db: sqlite3.Connection) -> Begin:
            now = self._clock()
            self._begins += 1
            if self._begins % SWEEP_EVERY == 0:
                db.execute("DELETE FROM idempotency WHERE expires_at <= ?", (now,))
            row = db.execute(
                "SELECT fingerprint, status, result, expires_at FROM idempotency"
                " WHERE tool = ? AND key = ? AND expires_at > ?",
                (tool, key, now),
            ).fetchone()
            if row is not None:
                held, status, result, expires_at = row
                return taken(
                    held, result if status == "done" else None, expires_at - now, fingerprint
                )
            token = secrets.token_hex(16)
            db.execute(
                "INSERT OR REPLACE INTO idempotency VALUES (?, ?, ?, 'in_flight', ?, NULL, ?)",
                (tool, key, fingerprint, token, now + lease_s),
            )
            return Started(token)

        return self._transaction(claim)

    def _finish(self, tool: str, key: str, token: str, result: str, ttl_s: float) -> bool:
        def store(db: sqlite3.Connection) -> bool:
            now = self._clock()
            kept = db.execute(
                "UPDATE idempotency SET status = 'done', result = ?, expires_at = ?"
                " WHERE tool = ? AND key = ? AND token = ? AND status = 'in_flight'"
                " AND expires_at > ?",
                (result, now + ttl_s, tool, key, token, now),
            )
            return kept.rowcount == 1

        return self._transaction(store)

    def _abandon(self, tool: str, key: str, token: str) -> None:
        def free(db: sqlite3.Connection) -> None:
            db.execute(
                "DELETE FROM idempotency WHERE tool = ? AND key = ? AND token = ?"
                " AND status = 'in_flight' AND expires_at > ?",
                (tool, key, token, self._clock()),
            )

        self._transaction(free)

    def _transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        try:
            db = self._connect()
            db.execute("BEGIN IMMEDIATE")
            try:
                answer = work(db)
            except BaseException:
                db.rollback()
                raise
            db.commit()
            return answer
        except (sqlite3.Error, OSError) as exc:
            raise self._unavailable(exc) from exc

    def _connect(self) -> sqlite3.Connection:
        if self._connection is not None:
            return self._connection
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: transactions are begun explicitly (BEGIN IMMEDIATE above)
        db = sqlite3.connect(self.path, timeout=self._busy_timeout_s, isolation_level=None)
        try:
            db.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_s * 1000)}")
            self._wal(db)
            db.execute("PRAGMA synchronous = NORMAL")
            # one script: executescript() would commit a transaction begun before it
            db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} COMMIT;")
        except BaseException:
            db.close()
            raise
        self._connection = db
        return db

    def _wal(self, db: sqlite3.Connection) -> None:
        """Put the database in WAL mode. sqlite asks no busy handler while it changes the
        journal mode, so a connection that sets up the same new file at that moment is
        answered "locked" at once: wait for it here as `busy_timeout` would elsewhere."""
        deadline = time.monotonic() + self._busy_timeout_s
        while True:
            try:
                db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.005)

    def _close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _unavailable(self, exc: Exception) -> StoreUnavailable:
        reason = str(exc) or type(exc).__name__
        if isinstance(exc, OSError) and exc.strerror:
            reason = exc.strerror
        return StoreUnavailable(
            f"the sqlite idempotency store {self.path} is unavailable: {reason}"
        )
