"""`sqlite:///path`: an idempotency store in one sqlite file, shared by the processes of a machine.

One table, `(tool, key)` its primary key. `begin` reads and claims inside one `BEGIN IMMEDIATE`
transaction, which takes the file's write lock first: of any number of processes and threads,
exactly one sees the key free. WAL lets readers go on while one writes; `busy_timeout` makes
the others wait for the lock instead of failing at once. With `synchronous=NORMAL` a killed
process loses nothing committed; only a power cut may forget the last few results.

Time: leases and TTLs are counted on the machine's monotonic clock (`time.monotonic`; on Linux
CLOCK_MONOTONIC, one clock for every process of the machine, counted from its boot and never
set), so setting the wall clock moves no lease and no TTL. Each row notes the boot it was
written in (Linux's boot id): a row of another boot is judged by the wall clock instead - its
lease is over (no process outlives a boot), its result replays until its TTL ends by the wall
clock. Where no boot id can be read, and in rows written by versions before this one, the wall
clock decides, as it always did there.

The file: each claim (and renewal) first checks that the path still names the file the store
opened (a result is kept, or a key freed, in the file its claim was made in).
When it was deleted or replaced, the store opens what the path names now, as on first use: a
replacing file, or a new one - unless the deleted database's `-wal` or `-shm` file is still
there, which a new database at that path would read as its own: then it refuses (unavailable,
the call does not run) until they are removed. So stores on one path never go on apart, each
on a file of its own. (Replacing a database file that is in use may still mix it with the old
one's WAL: sqlite's own warning.)

sqlite3 blocks, so the event loop must never wait for another writer's lock. A transaction is
first tried at once, on the caller's thread, where that costs no wait: when the connection is
open and free, and the file's write lock can be taken without waiting (`busy_timeout` 0), the
whole transaction - the same statements, the same lock, the same commit - runs there, in tens
of microseconds, saving the hop to the worker thread and back, which cost more than the
transaction itself. Whatever would wait goes to the store's own worker thread, which waits
there: the lock another connection holds (up to `busy_timeout`), the connection to open or to
open again (the file replaced). So do the chores, in transactions of their own after the
call's: the sweep of expired rows, and the WAL's checkpoint (with its fsync), which sqlite
would otherwise make at the end of whichever commit fills the WAL; while they wait, calls go to
the worker too, behind them (a busy caller would otherwise put them off). One connection serves
both ways, one transaction at a time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from toolgen.runtime.forks import hold_still_at_fork, inherited
from toolgen.runtime.store.base import Begin, Started, StoreUnavailable, taken

__all__ = ["SqliteStore", "boot_id"]

T = TypeVar("T")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS idempotency (
    tool TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('in_flight', 'done')),
    token TEXT NOT NULL,
    result TEXT,
    expires_at REAL NOT NULL,
    PRIMARY KEY (tool, key)
) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency (expires_at)",
)

#: Columns added to files an older version made: the boot a row was written in, and its
#: expiry on that boot's monotonic clock. A version before them writes rows of seven columns
#: and is refused by a file that has them (it fails closed).
_ADDED = (("boot", "TEXT"), ("expires_mono", "REAL"))

#: Expired rows are deleted (on the worker thread) once per this many `begin` calls of a store.
SWEEP_EVERY = 1024

#: The WAL is checkpointed (on the worker thread) once per this many transactions of a store:
#: they write two or three pages each, so this is about sqlite's own default (1,000 pages).
CHECKPOINT_EVERY = 400

#: sqlite's primary result codes for a lock another connection holds.
_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED


class _Missed:
    """What a transaction tried at once answers when it would have had to wait."""


MISSED = _Missed()

_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


@functools.cache
def boot_id() -> str | None:
    """This machine's boot id (Linux), or None where none can be read."""
    try:
        return _BOOT_ID.read_text().strip() or None
    except OSError:
        return None


class SqliteStore:
    """Entries in the sqlite file at `path` (created, with its folder, on first use).

    `clock` gives the monotonic seconds leases and TTLs are counted in (`time.monotonic`),
    `wall` the wall-clock seconds rows of another boot are judged by (`time.time`), `boot`
    the boot id (`boot_id`; None: judge every row by the wall clock); tests pass their own.
    `busy_timeout_s` is how long a call waits for another writer before the store counts as
    unavailable.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        boot: Callable[[], str | None] = boot_id,
        busy_timeout_s: float = 5.0,
    ) -> None:
        """A store for `path`; nothing is opened before the first call."""
        self.path = Path(path)
        self._clock, self._wall, self._boot_of = clock, wall, boot
        self._boot: str | None = None
        self._busy_timeout_s = busy_timeout_s
        self._connection: sqlite3.Connection | None = None
        self._where: Path | None = None  # the path made absolute at first use (a chdir later)
        self._named = ""  # the same as text, for the check of every transaction
        self._file: tuple[int, int] | None = None  # (device, inode) of the file opened
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="toolgen-sqlite")
        self._since_sweep = 0  # begins since expired rows were last deleted
        self._since_checkpoint = 0  # transactions since the WAL's last checkpoint
        self._chores_asked = False  # `_chores` is on the worker's queue
        self._patient = True  # the connection's busy_timeout is the full one (else 0)
        self._closed = False
        # held by whichever thread is inside sqlite (the worker, or a caller at once), and by a
        # fork: sqlite's own locks, left taken by a thread the child does not have, would hang
        # the child
        self._inside = threading.Lock()
        hold_still_at_fork(self)

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"

    async def begin(self, tool: str, key: str, fingerprint: str, lease_s: float) -> Begin:
        """Claim the key for `lease_s` seconds unless a live row holds it."""
        token = secrets.token_hex(16)
        claim = self._claim(tool, key, fingerprint, lease_s, token)
        try:
            # nothing awaited here: a claim made at once is answered, never cancelled
            begun = self._at_once(claim, follow=True)
        except StoreUnavailable:
            raise
        except BaseException:  # a Ctrl-C, maybe after the commit: free what it made
            self._free_later(tool, key, token)
            raise
        if not isinstance(begun, _Missed):
            return begun
        running = self._submit(self._transaction, claim)
        try:
            return await asyncio.wrap_future(running)
        except BaseException:  # cancelled, the coroutine closed: no await here
            # the claim may be made all the same (the thread cannot be stopped): free it
            running.add_done_callback(functools.partial(self._free_claim, tool, key))
            raise

    async def finish(self, tool: str, key: str, token: str, result: str, ttl_s: float) -> bool:
        """Keep `result` for `ttl_s` seconds if `token` still holds the key's live lease."""
        return await self._run(self._store(tool, key, token, result, ttl_s), follow=False)

    async def renew(self, tool: str, key: str, token: str, lease_s: float) -> bool:
        """Extend the lease `token` still holds to `lease_s` seconds from now."""
        return await self._run(self._extend(tool, key, token, lease_s), follow=True)

    async def abandon(self, tool: str, key: str, token: str) -> None:
        """Delete the key's row if `token` still holds its live lease."""
        await self._run(self._free(tool, key, token), follow=False)

    async def aclose(self) -> None:
        """Close the connection and stop the worker thread (again: nothing happens)."""
        if self._closed:
            return
        try:
            await asyncio.wrap_future(self._submit(self._close))
        finally:
            self._closed = True
            self._executor.shutdown(wait=False)

    def _submit(self, work: Callable[..., T], *args: object) -> concurrent.futures.Future[T]:
        if self._closed:
            raise StoreUnavailable(f"the sqlite idempotency store {self.path} is closed")
        return self._executor.submit(work, *args)

    async def _run(self, work: Callable[[sqlite3.Connection], T], follow: bool) -> T:
        """`work` in one transaction: at once where that costs no wait, else on the worker."""
        done = self._at_once(work, follow)
        if not isinstance(done, _Missed):
            return done
        return await asyncio.wrap_future(self._submit(self._transaction, work, follow))

    def _free_claim(self, tool: str, key: str, running: concurrent.futures.Future[Begin]) -> None:
        """After a cancelled `begin`: free the claim it made, on the worker thread."""
        if running.cancelled() or running.exception() is not None:
            return
        begun = running.result()
        if isinstance(begun, Started):
            self._free_later(tool, key, begun.token)

    def _free_later(self, tool: str, key: str, token: str) -> None:
        """Free the claim `token` made, if it made one, on the worker thread."""
        with contextlib.suppress(RuntimeError):  # closed meanwhile: the lease frees the key
            self._executor.submit(self._transaction, self._free(tool, key, token), False)

    def _before_fork(self) -> None:
        self._inside.acquire()

    def _after_fork_in_parent(self) -> None:
        self._inside.release()

    def _forked(self) -> None:
        # the connection and the thread are the parent's: a new thread, and the connection
        # kept unused (sqlite must not be used across a fork, closing included); it was at
        # rest at the fork, so the child's own connection finds sqlite's locks free
        if self._connection is not None:
            inherited.append(self._connection)
        self._connection = None
        self._patient = True
        self._chores_asked = False
        self._file = None
        self._inside = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="toolgen-sqlite")

    # Below: run holding `_inside`, on the worker thread or at once on the caller's.

    def _left(self, status: str, expires_at: float, boot: str | None, mono: float | None) -> float:
        """Seconds a row has left (see the module's text on time)."""
        if boot is not None and boot == self._boot and mono is not None:
            return mono - self._clock()
        if boot is not None and status == "in_flight":
            return 0.0  # a lease of another boot: its process is gone
        return expires_at - self._wall()

    def _owned(self) -> tuple[str, tuple[Any, ...]]:
        """The condition (and its values) of a row this process's token still holds: alive
        by the clock it was written with."""
        if self._boot is None:
            return "expires_at > ?", (self._wall(),)
        return "boot = ? AND expires_mono > ?", (self._boot, self._clock())

    def _expiries(self, seconds: float) -> tuple[float, float | None]:
        """(wall clock, monotonic) expiries `seconds` from now."""
        mono = self._clock() + seconds if self._boot is not None else None
        return self._wall() + seconds, mono

    def _claim(
        self, tool: str, key: str, fingerprint: str, lease_s: float, token: str
    ) -> Callable[[sqlite3.Connection], Begin]:
        def claim(db: sqlite3.Connection) -> Begin:
            self._since_sweep += 1
            row = db.execute(
                "SELECT fingerprint, status, result, expires_at, boot, expires_mono"
                " FROM idempotency WHERE tool = ? AND key = ?",
                (tool, key),
            ).fetchone()
            if row is not None:
                held, status, result, expires_at, boot, mono = row
                left = self._left(status, expires_at, boot, mono)
                if left > 0:
                    return taken(held, result if status == "done" else None, left, fingerprint)
            wall, mono = self._expiries(lease_s)
            db.execute(
                "INSERT OR REPLACE INTO idempotency (tool, key, fingerprint, status, token,"
                " result, expires_at, boot, expires_mono)"
                " VALUES (?, ?, ?, 'in_flight', ?, NULL, ?, ?, ?)",
                (tool, key, fingerprint, token, wall, self._boot, mono),
            )
            return Started(token)

        return claim

    def _chores(self) -> None:
        """On the worker, after the transaction that made them due: the sweep and the WAL's
        checkpoint, each in its own transaction. One that fails (the file locked longer than
        `busy_timeout`, gone) is tried again after the next transaction."""
        with self._inside:
            self._chores_asked = False
            db = self._connection
            if db is None:
                return
            with contextlib.suppress(sqlite3.Error, OSError):
                if self._since_sweep >= SWEEP_EVERY:
                    self._be_patient(db, True)
                    db.execute("BEGIN IMMEDIATE")
                    try:
                        self._sweep(db)
                        db.commit()
                    finally:
                        if db.in_transaction:
                            db.rollback()
                    self._since_sweep = 0
                if self._since_checkpoint >= CHECKPOINT_EVERY:
                    # passive, as sqlite's automatic one: as far as readers allow, never waiting
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self._since_checkpoint = 0

    def _sweep(self, db: sqlite3.Connection) -> None:
        """Delete expired rows, found through the wall-clock expiry's index (one index is
        cheaper to keep than two). A row of this boot is deleted only once its monotonic
        expiry has passed too; after the wall clock was set back, such rows stay a while
        longer, dead, until the wall clock passes them (a claim overwrites them anyway)."""
        if self._boot is None:
            db.execute("DELETE FROM idempotency WHERE expires_at <= ?", (self._wall(),))
            return
        db.execute(
            "DELETE FROM idempotency WHERE expires_at <= ?"
            " AND (boot IS NOT ? OR expires_mono <= ?)",
            (self._wall(), self._boot, self._clock()),
        )

    def _store(
        self, tool: str, key: str, token: str, result: str, ttl_s: float
    ) -> Callable[[sqlite3.Connection], bool]:
        def store(db: sqlite3.Connection) -> bool:
            owned, values = self._owned()
            kept = db.execute(
                "UPDATE idempotency SET status = 'done', result = ?, expires_at = ?,"
                " expires_mono = ? WHERE tool = ? AND key = ? AND token = ?"
                f" AND status = 'in_flight' AND {owned}",
                (result, *self._expiries(ttl_s), tool, key, token, *values),
            )
            return kept.rowcount == 1

        return store

    def _extend(
        self, tool: str, key: str, token: str, lease_s: float
    ) -> Callable[[sqlite3.Connection], bool]:
        def extend(db: sqlite3.Connection) -> bool:
            owned, values = self._owned()
            kept = db.execute(
                "UPDATE idempotency SET expires_at = ?, expires_mono = ?"
                " WHERE tool = ? AND key = ? AND token = ?"
                f" AND status = 'in_flight' AND {owned}",
                (*self._expiries(lease_s), tool, key, token, *values),
            )
            return kept.rowcount == 1

        return extend

    def _free(self, tool: str, key: str, token: str) -> Callable[[sqlite3.Connection], None]:
        def free(db: sqlite3.Connection) -> None:
            owned, values = self._owned()
            db.execute(
                "DELETE FROM idempotency WHERE tool = ? AND key = ? AND token = ?"
                f" AND status = 'in_flight' AND {owned}",
                (tool, key, token, *values),
            )

        return free

    def _transaction(self, work: Callable[[sqlite3.Connection], T], follow: bool = True) -> T:
        """On the worker thread: run `work` in one `BEGIN IMMEDIATE` transaction, waiting up
        to `busy_timeout` for the write lock. With `follow`, the path is first checked to
        still name the file open (a claim, a renewal); a settlement goes without (its claim is
        in the file it was made in, so it is settled there)."""
        self._inside.acquire()
        try:
            db = self._connect()
            self._be_patient(db, True)
            db.execute("BEGIN IMMEDIATE")
            if follow and not self._unmoved():  # under the write lock: deleted, or replaced
                db.rollback()
                db = self._reopen()
                db.execute("BEGIN IMMEDIATE")
                if not self._unmoved():
                    db.rollback()
                    raise StoreUnavailable(
                        f"the sqlite idempotency store {self.path} is unavailable: its file "
                        "keeps being replaced"
                    )
            return self._commit(db, work)
        except (sqlite3.Error, OSError, UnicodeError) as exc:
            # UnicodeError: text sqlite cannot take (a lone surrogate), which the runtime
            # never hands over; any other caller still gets a store error, not a crash
            raise self._unavailable(exc) from exc
        finally:
            self._inside.release()

    def _at_once(self, work: Callable[[sqlite3.Connection], T], follow: bool) -> T | _Missed:
        """On the caller's thread: run `work` as `_transaction` would, if that needs no wait
        (see the module's text), else answer MISSED, having changed nothing."""
        if self._closed:
            raise StoreUnavailable(f"the sqlite idempotency store {self.path} is closed")
        if not self._inside.acquire(blocking=False):  # the worker, or another thread, is in
            return MISSED
        try:
            db = self._connection
            # not opened yet: that is the worker's (it may wait for the journal mode); chores
            # asked: the call goes after them, else a busy caller could put them off for good
            if db is None or self._chores_asked:
                return MISSED
            self._be_patient(db, False)
            try:
                db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode & 0xFF in _BUSY_CODES:  # another writer has the lock
                    return MISSED
                raise
            if follow and not self._unmoved():  # the worker opens what the path names now
                db.rollback()
                return MISSED
            return self._commit(db, work)
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF in _BUSY_CODES:  # rolled back: the worker waits
                return MISSED
            raise self._unavailable(exc) from exc
        except (sqlite3.Error, OSError, UnicodeError) as exc:
            raise self._unavailable(exc) from exc
        finally:
            self._inside.release()

    def _commit(self, db: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` in the transaction begun on `db`, committed, else rolled back; then the
        chores are asked of the worker, when they are due."""
        try:
            answer = work(db)
            db.commit()
        except BaseException:
            if db.in_transaction:
                db.rollback()
            raise
        self._since_checkpoint += 1
        due = self._since_checkpoint >= CHECKPOINT_EVERY or self._since_sweep >= SWEEP_EVERY
        if due and not self._chores_asked:
            with contextlib.suppress(RuntimeError):  # the store is closing: no chores
                self._executor.submit(self._chores)
                self._chores_asked = True
        return answer

    def _be_patient(self, db: sqlite3.Connection, patient: bool) -> None:
        """Wait up to `busy_timeout` for a lock (the worker), or not at all (at once)."""
        if self._patient != patient:
            waits = int(self._busy_timeout_s * 1000) if patient else 0
            db.execute(f"PRAGMA busy_timeout = {waits}")
            self._patient = patient

    def _unmoved(self) -> bool:
        """Does the path still name the file the connection has open?"""
        try:
            found = os.stat(self._named)  # noqa: PTH116 - on every transaction: no pathlib
        except FileNotFoundError:
            return False
        return (found.st_dev, found.st_ino) == self._file

    def _reopen(self) -> sqlite3.Connection:
        """Open what the path names now, after the file was deleted or replaced. Closing the
        old connection is safe: sqlite neither checkpoints into nor deletes the files of a
        database that moved."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        return self._connect()

    def _connect(self) -> sqlite3.Connection:
        if self._connection is not None:
            return self._connection
        if self._where is None:
            self._where = self.path.absolute()
            self._named = str(self._where)
            self._boot = self._boot_of()
        where = self._where
        where.parent.mkdir(parents=True, exist_ok=True)
        # a new database must not take a deleted one's WAL for its own; the sides are looked at
        # first: sqlite makes them after the database, so one without it is a leftover
        for suffix in ("-wal", "-shm"):
            if Path(f"{where}{suffix}").exists() and not where.exists():
                raise self._leftover(suffix)
        # isolation_level=None: transactions are begun explicitly (BEGIN IMMEDIATE above);
        # used by whichever thread holds `_inside`
        db = sqlite3.connect(
            where, timeout=self._busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        try:
            db.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_s * 1000)}")
            self._wal(db)
            db.execute("PRAGMA synchronous = NORMAL")
            # checkpoints are the worker's (`_chores`), never the end of a commit made at once
            db.execute("PRAGMA wal_autocheckpoint = 0")
            _set_up(db)
            self._file = _identity(where)
        except BaseException:
            db.close()
            raise
        self._connection = db
        self._patient = True
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
        with self._inside:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _leftover(self, suffix: str) -> StoreUnavailable:
        return StoreUnavailable(
            f"the sqlite idempotency store {self.path} is unavailable: its database file is "
            f"gone but its {suffix} file is still there, which a new database would take for "
            "its own (the file was deleted while in use? remove the -wal and -shm files once "
            "no process has the old database open)"
        )

    def _unavailable(self, exc: Exception) -> StoreUnavailable:
        reason = str(exc) or type(exc).__name__
        if isinstance(exc, OSError) and exc.strerror:
            reason = exc.strerror
        elif isinstance(exc, UnicodeError):
            reason = "text it cannot store"
        return StoreUnavailable(
            f"the sqlite idempotency store {self.path} is unavailable: {reason}"
        )


def _set_up(db: sqlite3.Connection) -> None:
    """Make the table, or add what an older version's lacks, in one transaction."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA:
            db.execute(statement)
        columns = {row[1] for row in db.execute("PRAGMA table_info(idempotency)")}
        for name, kind in _ADDED:
            if name not in columns:
                db.execute(f"ALTER TABLE idempotency ADD COLUMN {name} {kind}")
    except BaseException:
        db.rollback()
        raise
    db.execute("COMMIT")


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`, or None when there is none."""
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino
