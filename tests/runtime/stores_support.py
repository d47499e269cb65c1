"""What the store tests share: a clock to move by hand, a real redis-server, one store per kind.

Not a conftest.py: tests/conftest.py already is one, and two conftest modules in folders without
`__init__.py` collide under pytest's default import mode.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from toolgen.runtime import CallContext, Toolbox
from toolgen.runtime.store import IdempotencyStore
from toolgen.runtime.store.memory import MemoryStore
from toolgen.runtime.store.sqlite import SqliteStore

KINDS = ["memory", "sqlite", "redis"]

#: A caller who may send payments and confirms whatever it is asked.
PAY = CallContext(scopes={"payments:send"}, confirm=lambda request: True)

#: A lease short enough to wait out for real (redis keeps time itself, it cannot be moved).
SHORT = 0.2
#: A lease no test outlives.
LONG = 60.0


class Clock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Harness:
    """One store, and how to let time pass for it."""

    kind: str
    store: IdempotencyStore
    clock: Clock | None  # None: real time (redis)

    async def wait(self, seconds: float) -> None:
        """Let `seconds` (and a little more) pass for the store."""
        if self.clock is not None:
            self.clock.now += seconds + 0.001
        else:
            await asyncio.sleep(seconds + 0.1)


def make(kind: str, folder: Path, redis_url: str | None) -> Harness:
    """A fresh store of `kind`: its own file (sqlite) or its own key prefix (redis)."""
    if kind == "redis":
        from toolgen.runtime.store.redis import RedisStore

        assert redis_url is not None
        return Harness(kind, RedisStore(redis_url, prefix=f"test:{uuid.uuid4().hex}:"), None)
    clock = Clock()
    if kind == "memory":
        return Harness(kind, MemoryStore(clock=clock), clock)
    return Harness(kind, SqliteStore(folder / f"{uuid.uuid4().hex}.db", clock=clock), clock)


Scenario = Callable[[Harness], Awaitable[None]]


@pytest.fixture(params=KINDS, name="play")
def play_fixture(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[Scenario], None]:
    """Runs a scenario against a fresh store of each kind, closing it in the same event loop."""
    kind = request.param
    url = request.getfixturevalue("redis_url") if kind == "redis" else None

    def run(scenario: Scenario) -> None:
        async def main() -> None:
            harness = make(kind, tmp_path, url)
            try:
                await scenario(harness)
            finally:
                await harness.store.aclose()

        asyncio.run(main())

    return run


_SERVER = pytest.StashKey[str]()


@pytest.fixture(scope="session", name="redis_url")
def redis_url_fixture(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> str:
    """The URL of a redis-server started for this session (one, however many modules ask).

    Skips when redis-server (or the redis client) is missing, unless TOOLGEN_REQUIRE_REDIS=1
    (CI), which makes that a failure.
    """
    config = request.config
    if _SERVER in config.stash:
        return config.stash[_SERVER]
    binary = shutil.which("redis-server")
    missing = "redis-server is not on PATH" if binary is None else _client_missing()
    if missing:
        if os.environ.get("TOOLGEN_REQUIRE_REDIS") == "1":
            pytest.fail(f"{missing}, and TOOLGEN_REQUIRE_REDIS=1 requires the redis tests")
        pytest.skip(f"{missing} (apt-get install redis-server; pip install redis)")
    assert binary is not None
    url, stop = start_redis(binary, tmp_path_factory.mktemp("redis"))
    config.add_cleanup(stop)
    config.stash[_SERVER] = url
    return url


def start_redis(binary: str, folder: Path) -> tuple[str, Callable[[], None]]:
    """Start a redis-server that keeps nothing on disk; its URL and how to stop it."""
    port = free_port()
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def stop() -> None:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

    try:
        _wait_for(port, server)
    except BaseException:
        stop()
        raise
    return f"redis://127.0.0.1:{port}/0", stop


def _client_missing() -> str:
    try:
        import redis  # noqa: F401
    except ImportError:
        return "the redis client is not installed"
    return ""


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_for(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"redis-server exited with {server.returncode} on port {port}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                probe.sendall(b"PING\r\n")
                if probe.recv(16).startswith(b"+PONG"):
                    return
        time.sleep(0.05)
    pytest.fail(f"redis-server did not answer on port {port}")


@pytest.fixture(params=KINDS, name="store_url")
def store_url_fixture(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a fresh store of each kind, as `Toolbox.load(store=...)` takes it."""
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'keys.db'}".replace("sqlite:///", "sqlite:////", 1)
    url: str = request.getfixturevalue("redis_url")
    return url


@pytest.fixture(name="keyed_box")
def keyed_box_fixture(
    make_box: Callable[..., Toolbox], store_url: str
) -> Iterator[Callable[..., Toolbox]]:
    """`make_box` over the store of the test's kind; each box closed at the end."""
    made: list[Toolbox] = []

    def make(**options: Any) -> Toolbox:
        made.append(make_box(store=store_url, **options))
        return made[-1]

    yield make
    for box in made:
        asyncio.run(box.aclose())
