"""The audit's sinks off the hot path (issue 28): the default logger is a stream of the audit's
own, which the root logger's handlers (an application's log at INFO) do not get; the JSON-lines
file stays open, each event written whole at once, from any thread or forked child."""

from __future__ import annotations

import asyncio
import builtins
import json
import logging
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from toolgen.runtime import Toolbox
from toolgen.runtime import audit as audit_module

from .test_fork_keys import in_child


class Kept(logging.Handler):
    """Keeps the records it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def handler_on(logger: logging.Logger) -> Iterator[Kept]:
    kept = Kept()
    logger.addHandler(kept)
    try:
        yield kept
    finally:
        logger.removeHandler(kept)


def audited(kept: Kept) -> list[str]:
    return [
        json.loads(r.getMessage())["decision"] for r in kept.records if r.name == "toolgen.audit"
    ]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_applications_log_at_info_does_not_get_the_audit(
    make_box: Callable[..., Toolbox], caplog: pytest.LogCaptureFixture
) -> None:
    """`logging.basicConfig(level=INFO)`, or the MCP SDK's `MCPServer` (a rich handler on
    stderr): the root's handlers print nothing of the default sink's, which costs nothing
    then; a handler on `toolgen.audit` collects every event, whatever the root's level."""
    caplog.set_level(logging.INFO)
    box = make_box(audit=None)
    with handler_on(logging.getLogger()) as root:
        assert box.call("lookup", {"q": "x"}).ok
    assert audited(root) == []
    caplog.set_level(logging.WARNING)
    with (
        handler_on(logging.getLogger()) as root,
        handler_on(logging.getLogger("toolgen.audit")) as mine,
    ):
        assert box.call("lookup", {"q": "x"}).ok
    assert audited(mine) == ["proposed", "executed"]
    assert all(r.levelno == logging.INFO for r in mine.records)
    assert audited(root) == []


def run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


def test_the_audit_logger_is_left_as_the_application_set_it_up() -> None:
    """Untouched, it keeps its events from the root; set up before toolgen is imported (a
    handler, a level), it is left so."""
    state = (
        "import logging, toolgen.runtime; l = logging.getLogger('toolgen.audit'); "
        "print(l.propagate, logging.getLevelName(l.getEffectiveLevel()))"
    )
    assert run_python(state) == "False INFO"
    configured = (
        "import logging; l = logging.getLogger('toolgen.audit'); "
        "l.addHandler(logging.NullHandler()); l.setLevel(logging.DEBUG); " + state
    )
    assert run_python(configured) == "True DEBUG"


def test_no_event_is_built_for_a_logger_with_no_handler_to_give_it_to(
    make_box: Callable[..., Toolbox], monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    real = audit_module.event

    def counting(decision: str, **fields: Any) -> dict[str, Any]:
        built.append(decision)
        return real(decision, **fields)

    monkeypatch.setattr(audit_module, "event", counting)
    # made after pytest put its capturing handlers on the loggers that do not propagate
    lonely = logging.getLogger(f"lonely.{uuid.uuid4().hex}")
    lonely.setLevel(logging.INFO)
    lonely.propagate = False
    box = make_box(audit=lonely)
    assert box.call("lookup", {"q": "x"}).ok
    assert built == []
    with handler_on(lonely) as kept:
        assert box.call("lookup", {"q": "x"}).ok
    assert built == ["proposed", "executed"]
    assert len(kept.records) == 2


def opened(path: Path) -> int:
    """Descriptors of this process open on `path` (Linux's /proc)."""
    fds = Path("/proc/self/fd")
    found = 0
    for fd in fds.iterdir():
        with suppress(OSError):  # a descriptor closed meanwhile
            found += fd.readlink() == path
    return found


needs_proc = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="no /proc here")


@needs_proc
def test_the_file_stays_open_and_each_event_is_there_at_once(
    make_box: Callable[..., Toolbox], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = (tmp_path / "audit" / "events.jsonl").resolve()
    opens: list[object] = []
    for owner, name in ((builtins, "open"), (os, "open")):
        real = getattr(owner, name)

        def counting(file: Any, *args: Any, real: Any = real, **kwargs: Any) -> Any:
            if str(file) == str(path):
                opens.append(file)
            return real(file, *args, **kwargs)

        monkeypatch.setattr(owner, name, counting)
    box = make_box(audit=path)
    for n in range(1, 6):
        assert box.call("lookup", {"q": "x"}).ok
        # read before the toolbox closes: each event is in the file once written
        assert [e["decision"] for e in lines(path)] == ["proposed", "executed"] * n
    assert len(opens) == 1
    assert opened(path) == 1
    asyncio.run(box.aclose())
    assert opened(path) == 0
    assert box.call("lookup", {"q": "x"}).ok  # opened again
    assert len(lines(path)) == 12
    asyncio.run(box.aclose())


def test_lines_from_many_threads_and_toolboxes_are_whole(
    make_box: Callable[..., Toolbox], tmp_path: Path
) -> None:
    path = tmp_path / "events.jsonl"
    boxes = [make_box(audit=path, audit_arguments=True) for _ in range(2)]
    long = "é" * 40_000  # lines far longer than any buffer
    start = threading.Barrier(8)

    def work(box: Toolbox) -> None:
        start.wait(30)
        for i in range(25):
            assert box.call("lookup", {"q": f"{i}{long}"}).ok

    threads = [threading.Thread(target=work, args=(boxes[i % 2],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    found = lines(path)
    assert len(found) == 8 * 25 * 2
    assert all(e["arguments"]["q"].endswith(long) for e in found)
    by_trace: dict[str, list[str]] = {}
    for e in found:
        by_trace.setdefault(e["trace_id"], []).append(e["decision"])
    assert sorted(by_trace.values()) == [["proposed", "executed"]] * 200
    for box in boxes:
        asyncio.run(box.aclose())


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_file_that_cannot_be_written_fails_closed(
    make_box: Callable[..., Toolbox], handlers: Any, caplog: pytest.LogCaptureFixture
) -> None:
    box = make_box(audit="/dev/full")  # every write: no space left on the device
    with caplog.at_level(logging.ERROR, logger="toolgen.runtime"):
        result = box.call("lookup", {"q": "x"})
    assert result.error is not None and result.error["code"] == "UNAVAILABLE"
    assert handlers.CALLS["lookup"] == 0


def test_a_write_that_failed_half_way_leaves_the_next_line_whole(
    make_box: Callable[..., Toolbox], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk takes part of a line, then nothing: the call does not run; once there is
    room again the next event starts a line of its own, after the torn one."""
    path = tmp_path / "events.jsonl"
    real = os.write
    room: list[int | None] = [10]  # bytes left on the disk; None: room again

    def filling(fd: int, data: Any) -> int:
        left = room[0]
        if left is None:
            return real(fd, data)
        if left == 0:
            raise OSError(28, "No space left on device")
        room[0] = 0
        return real(fd, bytes(data)[:left])

    monkeypatch.setattr(os, "write", filling)
    box = make_box(audit=path)
    assert box.call("lookup", {"q": "x"}).error["code"] == "UNAVAILABLE"  # type: ignore[index]
    room[0] = None
    assert box.call("lookup", {"q": "x"}).ok
    torn, *rest = path.read_text(encoding="utf-8").splitlines()
    assert len(torn) == 10
    assert [json.loads(line)["decision"] for line in rest] == ["proposed", "executed"]
    asyncio.run(box.aclose())


def test_a_file_rotated_away_is_followed_by_a_new_one(
    make_box: Callable[..., Toolbox], tmp_path: Path
) -> None:
    path = tmp_path / "events.jsonl"
    box = make_box(audit=path)
    assert box.call("lookup", {"q": "x"}).ok
    path.rename(tmp_path / "events.jsonl.1")  # logrotate
    assert box.call("lookup", {"q": "y"}).ok
    assert len(lines(tmp_path / "events.jsonl.1")) == 2
    assert len(lines(path)) == 2
    path.unlink()
    assert box.call("lookup", {"q": "z"}).ok
    assert len(lines(path)) == 2
    asyncio.run(box.aclose())


def test_a_descriptor_closed_under_the_sink_is_neither_written_nor_closed(
    make_box: Callable[..., Toolbox], tmp_path: Path
) -> None:
    """A handler closes every descriptor it does not know (`os.closerange`), and the number
    of the sink's goes to a file of its own: the events still go to the audit file."""
    path = tmp_path / "events.jsonl"
    box = make_box(audit=path)
    assert box.call("lookup", {"q": "x"}).ok
    sink = box.audit
    assert isinstance(sink, audit_module.JsonLinesSink) and sink._fd is not None
    os.close(sink._fd)
    other = tmp_path / "other"
    theirs = os.open(other, os.O_WRONLY | os.O_CREAT)
    try:
        assert box.call("lookup", {"q": "y"}).ok
        asyncio.run(box.aclose())
        os.fstat(theirs)  # still open
        assert other.read_bytes() == b""
    finally:
        os.close(theirs)
    assert [e["decision"] for e in lines(path)] == ["proposed", "executed"] * 2


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_writes_whole_lines_to_the_same_file(
    make_box: Callable[..., Toolbox], tmp_path: Path
) -> None:
    """A thread of the parent's is writing an event (it holds the sink) as the process
    forks: the child, which does not have that thread, still writes its events, and both
    processes' lines are whole."""
    path = tmp_path / "events.jsonl"
    box = make_box(audit=path)
    assert box.call("lookup", {"q": "parent"}).ok
    sink = box.audit
    assert isinstance(sink, audit_module.JsonLinesSink)
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with sink._lock:
            holding.set()
            release.wait(30)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert holding.wait(30)
        assert in_child(lambda: box.call("lookup", {"q": "child"}).ok, bound=10.0)
    finally:
        release.set()
        thread.join(30)
    assert box.call("lookup", {"q": "parent again"}).ok
    assert [e["decision"] for e in lines(path)] == ["proposed", "executed"] * 3
    asyncio.run(box.aclose())
