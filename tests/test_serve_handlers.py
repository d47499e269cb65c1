"""`toolgen serve` against hostile handlers: whatever a handler raises, returns or does to the
process's streams, each call gets one answer, every later call too, and the server still
stops when asked (stdin closed, SIGINT) though handlers hang. Over stdio, line by line, with a
real `toolgen serve` subprocess."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from test_serve_hostile import RawServer, request, strict_json, tools_call
from toolgen.cli import main as toolgen_main

HANDLERS = '''
import asyncio
import os
import sys
import time
from typing import Any

from toolgen import ToolError, tool


@tool
def exits(q: str) -> str:
    """Exit, as argparse does on bad input.

    Args:
        q: Ignored.
    """
    raise SystemExit(2)


@tool
def interrupts(q: str) -> str:
    """Raise KeyboardInterrupt.

    Args:
        q: Ignored.
    """
    raise KeyboardInterrupt


@tool
def closes(q: str) -> str:
    """Raise GeneratorExit.

    Args:
        q: Ignored.
    """
    raise GeneratorExit


@tool
def bare(q: str) -> str:
    """Raise a bare BaseException.

    Args:
        q: Ignored.
    """
    raise BaseException("bare")


@tool
def cancels(q: str) -> str:
    """Raise CancelledError, not being cancelled.

    Args:
        q: Ignored.
    """
    raise asyncio.CancelledError


@tool
async def exits_async(q: str) -> str:
    """Exit, from a coroutine.

    Args:
        q: Ignored.
    """
    raise SystemExit(2)


@tool
async def interrupts_async(q: str) -> str:
    """Raise KeyboardInterrupt, from a coroutine.

    Args:
        q: Ignored.
    """
    raise KeyboardInterrupt


@tool
async def closes_async(q: str) -> str:
    """Raise GeneratorExit, from a coroutine.

    Args:
        q: Ignored.
    """
    raise GeneratorExit


@tool
async def bare_async(q: str) -> str:
    """Raise a bare BaseException, from a coroutine.

    Args:
        q: Ignored.
    """
    raise BaseException("bare")


@tool
async def cancels_async(q: str) -> str:
    """Raise CancelledError from a coroutine that nobody cancelled.

    Args:
        q: Ignored.
    """
    raise asyncio.CancelledError


@tool
def listing(q: str) -> list[str]:
    """List names, one of them not UTF-8 (os.listdir gives a lone surrogate for it).

    Args:
        q: Ignored.
    """
    return ["a.txt", "caf\\udce9.txt"]


@tool
def cycle(q: str) -> list[Any]:
    """Return a list that holds itself.

    Args:
        q: Ignored.
    """
    loop: list[Any] = []
    loop.append(loop)
    return loop


@tool
def bytes_error(q: str) -> str:
    """Fail with a message that is no text.

    Args:
        q: Ignored.

    Errors:
        NOT_FOUND: Never found.
    """
    raise ToolError("NOT_FOUND", b"no such file")


@tool
def chatty(q: str) -> str:
    """Write to stdout three ways, then close it.

    Args:
        q: Echoed.
    """
    print("not JSON-RPC")
    sys.stdout.flush()
    os.write(1, b"raw bytes on fd 1\\n")
    sys.stdout.close()
    return q


@tool
def echo(q: str) -> str:
    """Echo.

    Args:
        q: Echoed.
    """
    return q


@tool
def hang(q: str) -> str:
    """Hang on a worker thread.

    Args:
        q: Ignored.
    """
    time.sleep(3600)
    return q


@tool
async def hang_async(q: str) -> str:
    """Hang on the event loop, awaiting.

    Args:
        q: Ignored.
    """
    await asyncio.sleep(3600)
    return q


@tool
def forks(q: str) -> str:
    """Fork; the child returns too.

    Args:
        q: Ignored.
    """
    child = os.fork()
    if child == 0:
        return "child"
    os.waitpid(child, 0)
    return "parent"


@tool
async def forks_async(q: str) -> str:
    """Fork on the event loop; the child returns too.

    Args:
        q: Ignored.
    """
    child = os.fork()
    if child == 0:
        return "child"
    os.waitpid(child, 0)
    return "parent"


@tool
async def cancels_itself(q: str) -> str:
    """Cancel the task it runs in.

    Args:
        q: Ignored.
    """
    asyncio.current_task().cancel()
    await asyncio.sleep(0)
    return q


@tool
async def stops_the_loop(q: str) -> str:
    """Stop the event loop it runs on.

    Args:
        q: Echoed.
    """
    asyncio.get_running_loop().stop()
    return q


@tool
async def task_exits(q: str) -> str:
    """Start a task that raises SystemExit, and await it.

    Args:
        q: Ignored.
    """

    async def inner() -> None:
        raise SystemExit(4)

    await asyncio.create_task(inner())
    return q


@tool
def writes_the_wire(q: str) -> str:
    """Write a JSON-RPC answer of its own to fd 1, then close fd 1.

    Args:
        q: Echoed.
    """
    os.write(1, b'{"jsonrpc": "2.0", "id": 1, "result": {"forged": true}}\\n')
    os.close(1)
    return q


@tool
def path_result(q: str) -> str:
    """Return a path whose name is not UTF-8.

    Args:
        q: Ignored.
    """
    import pathlib

    return pathlib.Path("/tmp/caf\\udce9")  # type: ignore[return-value]


@tool(risk="high")
def erase(q: str) -> str:
    """Erase something (a person must confirm).

    Args:
        q: What.
    """
    return q
'''

RAISING = [
    "exits",
    "interrupts",
    "closes",
    "bare",
    "cancels",
    "exits_async",
    "interrupts_async",
    "closes_async",
    "bare_async",
    "cancels_async",
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve-handlers")
    (root / "src").mkdir()
    (root / "src" / "wild_tools.py").write_text(HANDLERS)
    (root / "pyproject.toml").write_text(
        '[tool.toolgen]\nsources = ["src"]\nplatforms = ["mcp"]\nmin_level = 0\n\n'
        '[tool.toolgen.rules]\nTG902 = "off"\n'
    )
    assert toolgen_main(["build", "--config", str(root / "pyproject.toml"), "--quiet"]) == 0
    return root


@pytest.fixture
def server(project: Path, tmp_path: Path) -> Iterator[RawServer]:
    with (tmp_path / "err.log").open("w") as log:
        raw = RawServer(
            project / "pyproject.toml", log, "--store", "memory://", "--confirm-timeout", "0.5"
        )
        try:
            raw.initialize()
            yield raw
        finally:
            raw.stop()


def call_answer(raw: RawServer, request_id: int, name: str) -> dict[str, Any]:
    raw.send(tools_call(request_id, name, {"q": "x"}))
    answer = raw.receive()
    assert answer["id"] == request_id, answer
    result: dict[str, Any] = answer["result"]
    return result


def error_code(result: dict[str, Any]) -> str:
    assert result["isError"] is True
    envelope = result["structuredContent"]
    assert strict_json(result["content"][0]["text"]) == envelope
    code: str = envelope["error"]["code"]
    return code


def test_what_a_handler_raises_costs_only_its_own_call(server: RawServer) -> None:
    """Was: SystemExit, KeyboardInterrupt, GeneratorExit, BaseException or CancelledError from
    a handler ended `toolgen serve` (or left its call unanswered)."""
    codes = {name: error_code(call_answer(server, i, name)) for i, name in enumerate(RAISING)}
    assert codes == dict.fromkeys(RAISING, "INTERNAL")
    assert call_answer(server, 99, "echo")["structuredContent"] == {"result": "x"}
    assert server.close() == []


@pytest.mark.parametrize("name", ["listing", "cycle", "bytes_error"])
def test_what_json_cannot_carry_is_internal_and_serving_goes_on(
    server: RawServer, name: str
) -> None:
    """Was: a lone surrogate killed the server's output for good; a cycle spun for ever on the
    event loop; a ToolError whose message was no text broke the answer."""
    assert error_code(call_answer(server, 1, name)) == "INTERNAL"
    assert call_answer(server, 2, "echo")["structuredContent"] == {"result": "x"}
    assert server.close() == []


#: What a handler does to the process or its loop, and the answer it gets (red team).
DOINGS = {
    "forks": "ok",
    "forks_async": "ok",
    "cancels_itself": "INTERNAL",
    "stops_the_loop": "ok",
    "task_exits": "INTERNAL",
    "writes_the_wire": "ok",
    "path_result": "INTERNAL",
}


def test_what_a_handler_does_to_the_process_costs_only_its_call(server: RawServer) -> None:
    """Was: a forked child served on beside the parent, a cancelled or stopped loop and a task
    raising SystemExit ended the server; a path whose name is not UTF-8 broke its output."""
    got = {}
    for i, name in enumerate(DOINGS, 1):
        result = call_answer(server, i, name)
        got[name] = "ok" if not result["isError"] else error_code(result)
        if got[name] == "ok":
            assert strict_json(result["content"][0]["text"]) == {"result": result_of(name)}
    assert got == DOINGS
    assert call_answer(server, 99, "echo")["structuredContent"] == {"result": "x"}
    assert server.close() == []


def result_of(name: str) -> str:
    return "parent" if name.startswith("forks") else "x"


def test_a_handler_writing_to_stdout_never_reaches_the_wire(server: RawServer) -> None:
    """What a handler prints goes to stderr: every line on the wire is still JSON-RPC."""
    assert call_answer(server, 1, "chatty")["structuredContent"] == {"result": "x"}
    assert call_answer(server, 2, "echo")["structuredContent"] == {"result": "x"}
    assert server.close() == []


@pytest.fixture
def asking(project: Path, tmp_path: Path) -> Iterator[RawServer]:
    """A client that declares elicitation, so the server asks it to confirm."""
    with (tmp_path / "err.log").open("w") as log:
        raw = RawServer(
            project / "pyproject.toml", log, "--store", "memory://", "--confirm-timeout", "0.5"
        )
        try:
            raw.initialize({"elicitation": {}})
            yield raw
        finally:
            raw.stop()


def test_an_elicitation_never_answered_ends_in_human_review(asking: RawServer) -> None:
    """Was: an elicitation the client never answered kept its `tools/call` pending for ever."""
    asking.send(tools_call(1, "erase", {"q": "x"}))
    asked = asking.receive()
    assert asked["method"] == "elicitation/create"  # and it is never answered
    answer = asking.receive()
    if "id" not in answer:  # the server may tell the client it stopped waiting
        assert answer["method"] == "notifications/cancelled", answer
        assert answer["params"]["requestId"] == asked["id"]
        answer = asking.receive()
    assert answer["id"] == 1
    error = answer["result"]["structuredContent"]["error"]
    assert (error["code"], error["human_review"]) == ("REQUIRES_HUMAN_APPROVAL", True)
    assert "not confirmed in time" in error["message"]
    assert call_answer(asking, 2, "echo")["structuredContent"] == {"result": "x"}
    assert asking.close() == []


def in_flight(raw: RawServer, *names: str) -> None:
    """Calls of `names` sent and under way (a ping after them answered: they were read)."""
    for i, name in enumerate(names):
        raw.send(tools_call(100 + i, name, {"q": "x"}))
    raw.send(request("after", "ping"))
    assert raw.receive()["id"] == "after"


def test_serve_stops_on_end_of_input_though_a_handler_hangs(server: RawServer) -> None:
    """Was: a hung sync handler's thread kept the process alive for ever after stdin closed.
    Each hung call is still answered once: the server stopped before it ended."""
    in_flight(server, "hang", "hang_async")
    assert server.process.stdin is not None
    server.process.stdin.close()
    assert server.process.wait(timeout=30) == 0
    server.reader.join(timeout=60)
    rest = []
    while (line := server.lines.get(timeout=60)) is not None:
        rest.append(strict_json(line.decode()))
    assert sorted(answer["id"] for answer in rest) == [100, 101]
    assert all(answer["error"]["code"] == -32000 for answer in rest), rest


def test_serve_stops_on_sigint_though_handlers_hang(server: RawServer) -> None:
    """Was: SIGINT did not stop serve (its stdin reader waited for a line that never came,
    then hung handlers' threads were waited for)."""
    in_flight(server, "hang", "hang_async")
    server.process.send_signal(signal.SIGINT)
    assert server.process.wait(timeout=30) == 130


def test_serve_stops_on_sigint_when_idle(server: RawServer) -> None:
    server.process.send_signal(signal.SIGINT)
    assert server.process.wait(timeout=30) == 130


def test_every_answer_is_valid_utf8_json(server: RawServer) -> None:
    """The strict reader of `RawServer` decodes UTF-8 and refuses NaN: each answer above passed
    it; here the raw bytes of one answer to a non-ASCII result, too."""
    server.send(tools_call(1, "echo", {"q": "café 😀"}))
    line = server.lines.get(timeout=60)
    assert line is not None
    json.loads(line.decode("utf-8", errors="strict"))


@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "inf"])
def test_a_confirm_timeout_that_is_no_time_is_refused(
    seconds: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert toolgen_main(["serve", "--confirm-timeout", seconds]) == 2
    assert "--confirm-timeout must be a number of seconds above 0" in capsys.readouterr().out
