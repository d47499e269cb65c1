"""The sqlite store's transactions made at once, on the caller's thread, when the write lock is
free: where each statement runs, what goes to the store's thread all the same (the chores, a
lock another connection holds), and that claims stay exclusive and results durable across
processes killed mid-call."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolgen.runtime.store import InFlight, Replay, Started
from toolgen.runtime.store import sqlite as sqlite_store
from toolgen.runtime.store.sqlite import SqliteStore

from .stores_support import LONG, Clock

Traced = list[tuple[str, str]]


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[Traced]:
    """(thread name, statement) of every statement the stores' connections run."""
    seen: Traced = []
    connect = sqlite3.connect

    def connect_traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(*args, **kwargs)
        db.set_trace_callback(
            lambda statement: seen.append((threading.current_thread().name, statement))
        )
        return db

    monkeypatch.setattr(sqlite3, "connect", connect_traced)
    yield seen


def _on_worker(name: str) -> bool:
    return name.startswith("toolgen-sqlite")


def test_with_the_lock_free_every_transaction_runs_on_the_callers_thread(
    tmp_path: Path, traced: Traced
) -> None:
    store = SqliteStore(tmp_path / "keys.db")
    caller = threading.current_thread().name

    async def scenario() -> None:
        try:
            # the first call opens the file, on the store's thread
            assert isinstance(await store.begin("pay", "warm", "fp", LONG), Started)
            traced.clear()
            begun = await store.begin("pay", "k1", "fp", LONG)
            assert isinstance(begun, Started)
            assert await store.renew("pay", "k1", begun.token, LONG) is True
            assert await store.finish("pay", "k1", begun.token, '{"status": "ok"}', LONG)
            other = await store.begin("pay", "k2", "fp", LONG)
            assert isinstance(other, Started)
            await store.abandon("pay", "k2", other.token)
            assert await store.begin("pay", "k1", "fp", LONG) == Replay('{"status": "ok"}')
        finally:
            await store.aclose()

    asyncio.run(scenario())
    made = [statement for name, statement in traced if name == caller]
    assert made.count("BEGIN IMMEDIATE") == 6
    assert sum(s.startswith("INSERT OR REPLACE") for s in made) == 2
    assert sum(s.startswith("UPDATE idempotency SET status = 'done'") for s in made) == 1
    assert sum(s.startswith("DELETE FROM idempotency WHERE tool") for s in made) == 1
    # the store's thread did nothing but close the connection
    assert [s for name, s in traced if name != caller] == []


def test_the_chores_run_on_the_stores_thread_and_keep_the_file_small(
    tmp_path: Path, traced: Traced, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The WAL's checkpoint and the sweep of expired rows never run on the caller's thread
    (a checkpoint syncs the file), yet they run: the WAL stays small, expired rows go."""
    monkeypatch.setattr(sqlite_store, "CHECKPOINT_EVERY", 20, raising=False)
    monkeypatch.setattr(sqlite_store, "SWEEP_EVERY", 10)
    path = tmp_path / "keys.db"
    wal = Path(f"{path}-wal")
    clock = Clock()
    # judged by the one clock moved by hand (no boot id: the wall clock decides)
    store = SqliteStore(path, clock=clock, wall=clock, boot=lambda: None)
    caller = threading.current_thread().name
    largest = 0

    async def scenario() -> None:
        nonlocal largest
        try:
            for i in range(300):
                begun = await store.begin("pay", f"old-{i}", "fp", LONG)
                assert isinstance(begun, Started)
                assert await store.finish("pay", f"old-{i}", begun.token, "{}", 1.0)
                largest = max(largest, wal.stat().st_size)
            clock.now += 10  # every result kept above has expired
            for i in range(30):
                assert isinstance(await store.begin("pay", f"new-{i}", "fp", LONG), Started)
        finally:
            await store.aclose()  # after the chores asked before it: one worker, in order

    asyncio.run(scenario())
    checkpoints = [name for name, s in traced if "wal_checkpoint" in s]
    sweeps = [name for name, s in traced if s.startswith("DELETE FROM idempotency WHERE expires")]
    assert checkpoints and all(_on_worker(name) for name in checkpoints)
    assert sweeps and all(_on_worker(name) for name in sweeps)
    assert any(name == caller for name, _ in traced)  # the calls' own were made at once
    # 600 transactions of two or three pages (4 KiB each) without a checkpoint: about 6 MB;
    # one every 20 keeps it at about 60 pages
    assert largest < 150 * (4096 + 24)
    with sqlite3.connect(path) as db:
        left = {key for (key,) in db.execute("SELECT key FROM idempotency")}
    assert left == {f"new-{i}" for i in range(30)}


def test_a_claim_that_finds_the_lock_taken_waits_on_the_stores_thread(
    tmp_path: Path, traced: Traced
) -> None:
    """Another connection's write lock: the claim tried at once changes nothing, and the
    store's thread claims once the lock is free."""
    path = tmp_path / "keys.db"
    store = SqliteStore(path)
    holder = sqlite3.connect(path, isolation_level=None)

    async def scenario() -> None:
        try:
            assert isinstance(await store.begin("pay", "warm", "fp", LONG), Started)
            holder.execute("BEGIN IMMEDIATE")
            claim = asyncio.ensure_future(store.begin("pay", "k", "fp", LONG))
            for _ in range(50):
                await asyncio.sleep(0.01)
            assert not claim.done()
            holder.rollback()
            assert isinstance(await claim, Started)
        finally:
            await store.aclose()

    try:
        asyncio.run(scenario())
    finally:
        holder.close()
    inserts = [name for name, s in traced if s.startswith("INSERT OR REPLACE")]
    assert len(inserts) == 2 and all(_on_worker(name) for name in inserts)


def test_a_claim_interrupted_after_its_commit_frees_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ctrl-C that lands right after the claim's commit: the caller never learns its token,
    so the claim is freed, not left in flight until its lease ends."""
    armed = False

    class Interrupted(sqlite3.Connection):
        def commit(self) -> None:
            nonlocal armed
            super().commit()
            if armed:
                armed = False
                raise KeyboardInterrupt

    connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3, "connect", lambda *args, **kwargs: connect(*args, **kwargs, factory=Interrupted)
    )
    path = tmp_path / "keys.db"
    store = SqliteStore(path)

    async def interrupt() -> None:
        nonlocal armed
        try:
            assert isinstance(await store.begin("pay", "warm", "fp", LONG), Started)
            armed = True
            with pytest.raises(KeyboardInterrupt):
                await store.begin("pay", "key-1", "fp", LONG)
        finally:
            await store.aclose()  # after the freeing: one worker, in order

    asyncio.run(interrupt())
    again = SqliteStore(path)

    async def look() -> object:
        try:
            return await again.begin("pay", "key-1", "other arguments", LONG)
        finally:
            await again.aclose()

    assert isinstance(asyncio.run(look()), Started)


# A process that claims a key after a warm-up claim (so its claim is made at once), settles it
# when told to, prints what it did, and is then killed (by itself, or by the test).
_KILLED = """
import asyncio, os, signal, sys
from toolgen.runtime.store.sqlite import SqliteStore

async def main():
    store = SqliteStore(sys.argv[1])
    await store.begin("pay", "warm", "fp", 60.0)
    begun = await store.begin("pay", "key-1", "fp", 60.0)
    print(type(begun).__name__, flush=True)
    if sys.argv[2] == "finish":
        kept = await store.finish("pay", "key-1", begun.token, '{"status": "ok", "data": 7}', 60.0)
        print(kept, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)  # answered: nothing closed, nothing flushed
    await asyncio.sleep(3600)

asyncio.run(main())
"""


@pytest.mark.parametrize("then", ["claim", "finish"])
def test_a_process_killed_after_a_transaction_at_once_loses_nothing(
    tmp_path: Path, then: str
) -> None:
    path = tmp_path / "keys.db"
    script = tmp_path / "killed.py"
    script.write_text(_KILLED)
    child = subprocess.Popen(
        [sys.executable, str(script), str(path), then],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "Started\n"
        if then == "finish":
            assert child.stdout.readline() == "True\n"
            child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
        child.communicate()
    assert child.returncode == -signal.SIGKILL
    store = SqliteStore(path)

    async def look() -> object:
        try:
            return await store.begin("pay", "key-1", "fp", LONG)
        finally:
            await store.aclose()

    answer = asyncio.run(look())
    if then == "claim":
        assert isinstance(answer, InFlight)
    else:
        assert answer == Replay('{"status": "ok", "data": 7}')


# A process of a toolbox on a shared sqlite file: when told to go, it calls `transfer` with
# each of the keys, in turn; the handler notes each run in a file of runs; it prints the codes
# it was answered.
_CALLER = """
import json, os, sys, time
from pathlib import Path
from toolgen.runtime import CallContext, Toolbox

generated, url, folder, name, keys = sys.argv[1:6]
folder = Path(folder)
runs = os.open(folder / "runs", os.O_WRONLY | os.O_APPEND | os.O_CREAT)

def transfer(amount, to, idempotency_key):
    os.write(runs, (idempotency_key + "\\n").encode())
    time.sleep(0.002)  # long enough for the others to find the key in flight
    return {"sent": amount}

box = Toolbox.load(generated, store=url, handlers={"transfer": transfer}, audit=lambda e: None)
context = CallContext(scopes={"payments:send"}, confirm=lambda request: True)
box.call("transfer", {"amount": 1, "to": "warm", "idempotency_key": f"warm-{name}-key"},
         context=context)  # opens the file: the calls below may be made at once
(folder / f"ready-{name}").touch()
deadline = time.monotonic() + 60
while not (folder / "go").exists():
    if time.monotonic() > deadline:
        raise SystemExit("no go")
    time.sleep(0.005)
answers = []
for key in range(int(keys)):
    result = box.call(
        "transfer", {"amount": 5, "to": "acct", "idempotency_key": f"race-key-{key:04d}"},
        context=context,
    )
    answers.append("ok" if result.ok else result.error["code"])
    if result.ok:
        assert result.data == {"sent": 5}, result
print(json.dumps(answers))
"""


def test_toolboxes_in_four_processes_run_each_key_once(built: Path, tmp_path: Path) -> None:
    keys, processes = 150, 4
    script = tmp_path / "caller.py"
    script.write_text(_CALLER)
    url = f"sqlite:///{tmp_path}/shared.db"
    children = [
        subprocess.Popen(
            [
                sys.executable,
                str(script),
                str(built / "generated"),
                url,
                str(tmp_path),
                str(i),
                str(keys),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(processes)
    ]
    try:
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob("ready-*"))) < processes and time.monotonic() < deadline:
            time.sleep(0.01)
        (tmp_path / "go").touch()
        outputs = [child.communicate(timeout=240) for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.communicate()
    for child, (_, err) in zip(children, outputs, strict=True):
        assert child.returncode == 0, err
    answers = Counter(code for out, _ in outputs for code in json.loads(out))
    assert set(answers) <= {"ok", "IDEMPOTENCY_KEY_IN_PROGRESS"}, answers
    runs = Counter((tmp_path / "runs").read_text().split())
    race = {key: count for key, count in runs.items() if key.startswith("race-")}
    assert race == {f"race-key-{key:04d}": 1 for key in range(keys)}
