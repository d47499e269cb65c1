"""`toolgen serve --timeout`: seconds per call, or `none`, where a sync handler runs on the
server's own thread, with no hop; a tool that can be given an idempotency key keeps a bound.
Over stdio, with a real `toolgen serve` subprocess."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from test_serve_hostile import RawServer, tools_call
from toolgen.cli import main as toolgen_main
from toolgen.serve import TIMEOUT, load_toolbox

HANDLERS = '''
import threading
import time

from toolgen import tool


@tool(risk="low")
def where(q: str) -> str:
    """Name the thread this runs on.

    Args:
        q: Anything.
    """
    return threading.current_thread().name


@tool(risk="low")
def nap(seconds: float) -> str:
    """Sleep a while.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return "awake"


@tool(risk="low")
def record(note: str, idempotency_key: str) -> str:
    """Record a note once per key.

    Args:
        note: The note.
        idempotency_key: Makes a retry safe.
    """
    return note
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve-timeout")
    (root / "src").mkdir()
    (root / "src" / "timed_tools.py").write_text(HANDLERS)
    (root / "pyproject.toml").write_text(
        '[tool.toolgen]\nsources = ["src"]\nplatforms = ["mcp"]\nmin_level = 0\n'
    )
    assert toolgen_main(["build", "--config", str(root / "pyproject.toml"), "--quiet"]) == 0
    return root


@pytest.fixture
def served(project: Path, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[RawServer]:
    with (tmp_path / "err.log").open("a") as log:
        raw = RawServer(project / "pyproject.toml", log, "--store", "memory://", *request.param)
    raw.initialize()
    try:
        yield raw
    finally:
        raw.stop()


def answer(raw: RawServer, call_id: int, name: str, arguments: dict[str, object]) -> object:
    raw.send(tools_call(call_id, name, arguments))
    message = raw.receive()
    assert message["id"] == call_id, message
    return message["result"]["structuredContent"]


@pytest.mark.parametrize("served", [("--timeout", "none")], indirect=True)
def test_with_no_timeout_a_sync_handler_runs_on_the_servers_thread(served: RawServer) -> None:
    # the first call reaches the handler the whole way; later ones find it sync
    threads = [answer(served, i, "where", {"q": "x"}) for i in range(1, 4)]
    assert threads[1:] == [{"result": "MainThread"}, {"result": "MainThread"}]


@pytest.mark.parametrize("served", [("--timeout", "0.2")], indirect=True)
def test_a_timeout_given_ends_a_call_that_runs_past_it(served: RawServer) -> None:
    assert answer(served, 1, "where", {"q": "x"}) != {"result": "MainThread"}
    ended = answer(served, 2, "nap", {"seconds": 2})
    assert isinstance(ended, dict) and ended["error"]["code"] == "TIMEOUT", ended
    assert answer(served, 3, "nap", {"seconds": 0}) == {"result": "awake"}


def test_with_no_timeout_a_tool_that_can_be_given_a_key_keeps_one(project: Path) -> None:
    box = load_toolbox(project / "generated", None, store="memory://")
    assert box.timeout_for("where") is None and box.timeout_for("nap") is None
    assert box.timeout_for("record") == TIMEOUT
    assert load_toolbox(project / "generated", 5.0, store="memory://").timeout_for("where") == 5.0


@pytest.mark.parametrize("given", ["0", "-1", "nan", "inf", "soon", ""])
def test_a_timeout_that_is_no_number_of_seconds_is_refused(project: Path, given: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolgen",
            "serve",
            "--config",
            "pyproject.toml",
            "--timeout",
            given,
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    # a diagnostic, as for --confirm-timeout: TG002 at no place, no traceback
    assert done.stdout == "TG002 [error] --timeout must be a number of seconds above 0, or none\n"
    assert "Traceback" not in done.stderr
