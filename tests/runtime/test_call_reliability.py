"""The issue's reliability cases through `Toolbox` itself, on the stores that share keys between
processes (sqlite, redis): many concurrent calls with one key run the handler once; a process
killed mid-call leaves its key in flight until the lease ends, then a call runs; a store that
cannot be used refuses the call without running the write."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolgen.runtime import CallContext, Toolbox

from .stores_support import redis_url_fixture  # noqa: F401 - fixture

KEY = "0123456789abcdef"
PAY = CallContext(scopes={"payments:send"}, confirm=lambda request: True)
ARGUMENTS = {"amount": 5, "to": "acct", "idempotency_key": KEY}


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh shared store: its own sqlite file, or its own database on the test redis."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'keys.db'}".replace("sqlite:///", "sqlite:////", 1)
    url: str = request.getfixturevalue("redis_url")
    return url  # keys are unique per test (KEY plus a fresh tool run): see `_fresh_key`


def _fresh_key() -> str:
    return f"key-{uuid.uuid4().hex}"


def counting(path: Path, pause: float = 0.0) -> Callable[..., dict[str, Any]]:
    """A `transfer` handler that appends a line to `path` per run (counted across processes)."""

    def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, Any]:
        with path.open("a") as runs:
            runs.write(f"{os.getpid()}\n")
        time.sleep(pause)
        return {"sent": amount, "to": to}

    return transfer


def runs(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_200_concurrent_calls_with_one_key_run_the_handler_once(
    built: Path, store_url: str, tmp_path: Path
) -> None:
    ran = tmp_path / "runs.txt"
    box = Toolbox.load(
        built / "generated",
        store=store_url,
        audit=lambda event: None,
        handlers={"transfer": counting(ran, pause=0.05)},
    )
    arguments = {**ARGUMENTS, "idempotency_key": _fresh_key()}

    async def many() -> list[Any]:
        try:
            return await asyncio.gather(
                *(box.acall("transfer", arguments, context=PAY) for _ in range(200))
            )
        finally:
            await box.aclose()

    results = asyncio.run(many())
    assert runs(ran) == 1
    assert sum(r.ok and not r.replayed for r in results) == 1
    others = {r.error["code"] if r.error else ("replayed" if r.replayed else "ok") for r in results}
    assert others <= {"ok", "replayed", "IDEMPOTENCY_KEY_IN_PROGRESS"}


# A worker process: loads the toolbox over the built fixture with the given store, waits for
# the go file, then makes its calls (the handler appends to RUNS and pauses PAUSE seconds).
_WORKER = """
import asyncio, os, sys, time
from pathlib import Path
from toolgen.runtime import CallContext, Toolbox

generated, store, runs, go, key, calls, pause = sys.argv[1:8]

def transfer(amount, to, idempotency_key):
    with open(runs, "a") as f:
        f.write(f"{os.getpid()}\\n")
        f.flush()
    time.sleep(float(pause))
    return {"sent": amount, "to": to}

box = Toolbox.load(generated, store=store, audit=lambda e: None, handlers={"transfer": transfer},
                   in_flight_ttl=float(os.environ.get("LEASE", "300")),
                   timeout=float(os.environ.get("TIMEOUT", "30")))
context = CallContext(scopes={"payments:send"}, confirm=lambda r: True)
while not Path(go).exists():
    time.sleep(0.005)
async def main():
    arguments = {"amount": 5, "to": "acct", "idempotency_key": key}
    done = await asyncio.gather(*(box.acall("transfer", arguments, context=context)
                                  for _ in range(int(calls))))
    await box.aclose()
    print(" ".join((r.error["code"] if r.error else "ok") for r in done))
asyncio.run(main())
"""


def _worker(
    built: Path, store: str, ran: Path, go: Path, key: str, calls: int, pause: float, **env: str
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_WORKER), str(built / "generated"), store,
         str(ran), str(go), key, str(calls), str(pause)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )  # fmt: skip


def test_calls_from_four_processes_with_one_key_run_the_handler_once(
    built: Path, store_url: str, tmp_path: Path
) -> None:
    ran, go, key = tmp_path / "runs.txt", tmp_path / "go", _fresh_key()
    workers = [_worker(built, store_url, ran, go, key, 50, 0.2) for _ in range(4)]
    go.touch()
    answers = []
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        answers += out.split()
    assert len(answers) == 200
    assert runs(ran) == 1
    assert set(answers) <= {"ok", "IDEMPOTENCY_KEY_IN_PROGRESS"}


def test_a_process_killed_mid_call_leaves_the_key_in_flight_until_its_lease_ends(
    built: Path, store_url: str, tmp_path: Path
) -> None:
    ran, go, key = tmp_path / "runs.txt", tmp_path / "go", _fresh_key()
    go.touch()
    lease = 1.5  # a timeout must be below the lease: 1 s
    victim = _worker(built, store_url, ran, go, key, 1, 600, LEASE=str(lease), TIMEOUT="1")
    deadline = time.monotonic() + 60
    while runs(ran) == 0:  # the handler has started: the key is taken
        assert victim.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    victim.send_signal(signal.SIGKILL)
    victim.communicate()
    killed_at = time.monotonic()

    box = Toolbox.load(
        built / "generated",
        store=store_url,
        audit=lambda event: None,
        handlers={"transfer": counting(ran)},
        in_flight_ttl=lease,
        timeout=1.0,
    )
    arguments = {**ARGUMENTS, "idempotency_key": key}
    waiting = box.call("transfer", arguments, context=PAY)
    if time.monotonic() - killed_at < lease:  # the lease may be over on a very slow machine
        assert waiting.error is not None
        assert waiting.error["code"] == "IDEMPOTENCY_KEY_IN_PROGRESS"
        assert waiting.error["retryable"] is True and waiting.error["retry_after_ms"] > 0
        assert runs(ran) == 1
    time.sleep(lease + 0.2)
    recovered = box.call("transfer", arguments, context=PAY)
    assert recovered.ok and not recovered.replayed
    assert runs(ran) == 2
    replayed = box.call("transfer", arguments, context=PAY)
    assert replayed.ok and replayed.replayed
    assert runs(ran) == 2
    asyncio.run(box.aclose())


@pytest.mark.parametrize(
    "store",
    [
        "redis://127.0.0.1:1/0",  # nothing listens on port 1
        "sqlite:///{tmp}/a-file/keys.db",  # a folder where a regular file is
    ],
    ids=["redis-closed-port", "sqlite-under-a-file"],
)
def test_a_store_that_cannot_be_used_refuses_the_write_without_running_it(
    built: Path, store: str, tmp_path: Path
) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    ran = tmp_path / "runs.txt"
    url = store.replace("sqlite:///{tmp}", f"sqlite:////{tmp_path}".replace("/////", "////"))
    box = Toolbox.load(
        built / "generated",
        store=url,
        audit=lambda event: None,
        handlers={"transfer": counting(ran)},
        paths=[built],
    )
    result = box.call("transfer", {**ARGUMENTS, "idempotency_key": _fresh_key()}, context=PAY)
    assert result.error is not None
    assert result.error["code"] == "UNAVAILABLE"
    assert result.error["retryable"] is True and result.error["human_review"] is False
    assert "store" in result.error["message"]
    assert runs(ran) == 0
    # a read-only tool needs no store: it still runs
    assert box.call("lookup", {"q": "word"}).ok
    asyncio.run(box.aclose())
