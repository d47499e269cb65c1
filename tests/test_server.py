"""`toolgen build --watch` answers other processes' `toolgen build` and `toolgen check`
(`toolgen.watch.socket_server`, `toolgen.watch.protocol.forward`): the same output and exit code
as running the command itself, from the watch's warm session; and what it cannot answer exactly, it
declines, so that the client runs the command itself."""

from __future__ import annotations

import marshal
import os
import shutil
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Project, Run, tool_source, toolgen_process
from test_watch import TIMEOUT, Child
from toolgen.incremental import answers
from toolgen.incremental.session import Session
from toolgen.watch import protocol
from toolgen.watch import socket_server as server_module
from toolgen.watch.protocol import ACCEPTED
from toolgen.watch.socket_server import DECLINED, Server


@pytest.fixture
def served(project: Project) -> Iterator[tuple[Project, Server]]:
    project.write("src/tools.py", tool_source("search") + tool_source("count"))
    os.chdir(project.root)
    server = Server(project.root / ".toolgen_cache", Session(), threading.Lock())
    assert server.start()
    yield project, server
    server.stop()


def _forward(capsys: pytest.CaptureFixture[str], *argv: str) -> Run | None:
    capsys.readouterr()
    code = protocol.forward(list(argv))
    captured = capsys.readouterr()
    if code is None:
        assert captured.out == captured.err == ""
        return None
    return Run(code, captured.out, captured.err)


@pytest.mark.parametrize(
    "argv", [("build",), ("check",), ("check", "--format", "json"), ("build", "src/tools.py")]
)
def test_an_answer_is_what_the_command_itself_says(
    served: tuple[Project, Server], run, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:  # type: ignore[no-untyped-def]
    project, server = served
    copy = project.root.parent / "copy"
    shutil.copytree(project.root, copy, ignore=shutil.ignore_patterns(".toolgen_cache"))
    answered = _forward(capsys, *argv)
    assert answered is not None
    assert server.session.memory  # built in the watch's session
    itself = run(*argv, "--no-cache", cwd=copy)  # the same command in the same project
    assert (answered.code, answered.out, answered.err) == (itself.code, itself.out, itself.err)
    if argv[0] == "build":
        assert Project(copy).snapshot() == project.snapshot()


def test_an_edit_is_built_by_the_watch(
    served: tuple[Project, Server], run, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    project, _ = served
    assert _forward(capsys, "build") is not None
    project.write("src/tools.py", tool_source("search") + tool_source("tally"))
    answered = _forward(capsys, "build")
    assert answered is not None
    assert answered.code == 0
    assert "toolgen: 2 tools; " in answered.out
    # the stamp and the units are written once the answer is out (`Session.later`), before
    # the watch lets go of its lock
    with served[1].lock:
        assert not served[1].session.later
        assert list((project.root / ".toolgen_cache" / "stamps").glob("*.json"))
    assert (project.out / "descriptors" / "tally.json").is_file()
    assert not (project.out / "descriptors" / "count.json").exists()
    assert run("check", "--no-cache", cwd=project.root).code == 0
    project.write("src/tools.py", "def broken(:\n")
    answered = _forward(capsys, "check")
    assert answered is not None
    assert (answered.code, "TG101 [error]" in answered.out) == (2, True)


def test_what_cannot_be_answered_exactly_is_declined(
    served: tuple[Project, Server], capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    project, server = served
    # only a plain build or check, as the command line parses it (abbreviations too)
    for argv in (
        ("build", "--watch"),
        ("build", "--wat"),
        ("check", "--no-cache"),
        ("build", "--no-c"),
        ("check", "--verify-runtime"),
        ("check", "--against", "HEAD"),
        ("check", "--bogus"),
        ("rules",),
    ):
        assert _forward(capsys, *argv) is None, argv
    assert not server.lock.locked()
    monkeypatch.chdir(project.root / "src")  # another working folder (the socket is found)
    assert _forward(capsys, "check") is None
    monkeypatch.chdir(project.root)
    # A client in another environment, or running other toolgen code or another Python,
    # says so in its invocation (here sent by hand: client and watch share this process).
    ident = answers.invocation(["check"], str(project.root))
    reply = _ask(server, ident, ["check"]).removeprefix(ACCEPTED).lstrip(b".\n")
    body = reply.partition(b"\n")[2]
    assert reply == protocol.sealed_reply(bytes(protocol.NONCE_BYTES), body)  # sealed: "ok "
    other_env = (*ident[:2], (".toolgen_cache", None), *ident[3:])
    other_code = (*ident[:5], (*ident[5], ("edited.py", 1, 1)), ident[6])
    other_umask = (*ident[:6], 0o077)  # the files and folders a build makes would differ
    for other in (other_env, other_code, other_umask):
        assert _ask(server, other, ["check"]) == DECLINED
    assert _ask(server, ident, ["check"], header=b"toolgen-watch 1 2.7.18\n") == DECLINED


def _ask(server: Server, ident: object, argv: list[str], header: bytes = protocol.HEADER) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(str(server.path))
        client.sendall(header + marshal.dumps((ident, argv, bytes(protocol.NONCE_BYTES))))
        client.shutdown(socket.SHUT_WR)
        return b"".join(iter(lambda: client.recv(1 << 16), b""))


def test_garbage_does_not_stop_the_watch_answering(
    served: tuple[Project, Server], capsys: pytest.CaptureFixture[str]
) -> None:
    _, server = served
    for header, body in ((b"hello\n", b""), (protocol.HEADER, b"\x00not marshal"), (b"", b"")):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(str(server.path))
            client.sendall(header + body)
            client.shutdown(socket.SHUT_WR)
            assert not b"".join(iter(lambda: client.recv(4096), b"")).startswith(b"ok")
    assert _forward(capsys, "check") is not None


def test_one_watch_answers_and_a_dead_ones_socket_is_replaced(project: Project) -> None:
    project.write("src/tools.py", tool_source("search"))
    os.chdir(project.root)
    folder = project.root / ".toolgen_cache"
    first = Server(folder, Session(), threading.Lock())
    assert first.start()
    try:
        assert not Server(folder, Session(), threading.Lock()).start()  # the first answers
    finally:
        first.stop()
    assert not (folder / "watch.sock").exists()
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(folder / "watch.sock"))  # a socket nobody listens on (a killed watch's)
    dead.close()
    second = Server(folder, Session(), threading.Lock())
    assert second.start()
    second.stop()


def test_a_watch_in_a_child_process_answers_another_process(project: Project) -> None:
    """The real thing: the client process never loads the command line, the watch builds."""
    project.write("src/tools.py", tool_source("search"))
    child = Child(project.root)
    socket_path = project.root / ".toolgen_cache" / "watch.sock"
    try:
        child.wait_for(lambda: "toolgen: watching" in child.out, "first build", lambda: None)
        assert "answered by this watch" in child.out
        project.write("src/tools.py", tool_source("search") + tool_source("count"))
        client = toolgen_process(project.root, "build")
        assert client.code == 0, client.out
        assert "2 tools;" in client.out
        assert "socket" in client.imported
        assert "toolgen.cli" not in client.imported
        assert (project.out / "descriptors" / "count.json").is_file()
        child.process.send_signal(signal.SIGINT)
        assert child.process.wait(timeout=TIMEOUT) == 0
        assert not socket_path.exists()  # the watch took its socket away
    finally:
        child.stop()
        for pipe in (child.process.stdout, child.process.stderr):
            if pipe is not None:
                pipe.close()


def test_no_watch_no_answer(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    project.write("src/tools.py", tool_source("search"))
    os.chdir(project.root)
    assert _forward(capsys, "build") is None
    folder = project.root / ".toolgen_cache"
    folder.mkdir()
    Path(folder / "watch.sock").write_text("not a socket")
    assert _forward(capsys, "build") is None


def test_a_watch_that_does_not_answer_is_not_waited_for(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    """A watch that is suspended (Ctrl-Z) accepts no request: the client goes on by itself
    after `ACCEPT_S`; and a client that stalls does not hold up the others."""
    project.write("src/tools.py", tool_source("search"))
    os.chdir(project.root)
    folder = project.root / ".toolgen_cache"
    folder.mkdir()
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(str(folder / "watch.sock"))
    silent.listen(4)  # connections wait in the backlog: nobody reads them
    try:
        started = time.monotonic()
        assert _forward(capsys, "check") is None
        assert time.monotonic() - started < protocol.ACCEPT_S + 2
    finally:
        silent.close()
        (folder / "watch.sock").unlink()
    server = Server(folder, Session(), threading.Lock())
    assert server.start()
    try:
        staller = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        staller.connect(str(server.path))
        staller.sendall(protocol.HEADER[:5])  # and then nothing, for as long as it likes
        assert _forward(capsys, "check") is not None
        staller.close()
    finally:
        server.stop()


def test_a_socket_or_cache_others_can_write_is_not_trusted(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cache folder that other users can write to (one in /tmp above the project, say) is
    neither asked nor read: its socket or entries could be anybody's."""
    project.write("src/tools.py", tool_source("search"))
    shared = project.root.parent / ".toolgen_cache"
    server = Server(shared, Session(), threading.Lock())
    os.chdir(project.root)
    assert server.start()
    try:
        assert answers.folders(str(project.root)) == [str(shared)]
        shared.chmod(0o777)
        assert answers.folders(str(project.root)) == []
        assert _forward(capsys, "check") is None
        shared.chmod(0o755)
        (shared / "watch.sock").chmod(0o666)
        assert _forward(capsys, "check") is None
    finally:
        server.stop()


def test_the_cache_folder_a_watch_makes_ignores_itself(project: Project) -> None:
    project.write("src/tools.py", tool_source("search"))
    os.chdir(project.root)
    server = Server(project.root / ".toolgen_cache", Session(), threading.Lock())
    assert server.start()
    server.stop()
    assert (project.root / ".toolgen_cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (project.root / ".toolgen_cache" / "CACHEDIR.TAG").is_file()


def test_a_watch_that_stops_while_it_works_is_not_waited_for(
    project: Project, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taken requests hear from the watch every `ALIVE_S / 4`: a long build is waited for,
    a watch gone silent (stopped with Ctrl-Z after it took the request) is not."""
    monkeypatch.setattr(protocol, "ALIVE_S", 0.4)
    monkeypatch.setattr(server_module, "ALIVE_S", 0.4)
    project.write("src/tools.py", tool_source("search"))
    os.chdir(project.root)
    folder = project.root / ".toolgen_cache"
    server = Server(folder, Session(), threading.Lock())
    assert server.start()
    real = server.run

    def slow(argv: list[str]) -> tuple[int, str, str]:
        time.sleep(1.5)  # several times ALIVE_S
        return real(argv)

    monkeypatch.setattr(server, "run", slow)
    try:
        answered = _forward(capsys, "build")
        assert answered is not None and answered.code == 0
        with server.lock:  # busy with its own build: a request it declines is not held up
            started = time.monotonic()
            assert _forward(capsys, "check", "--no-cache") is None
            assert time.monotonic() - started < 1
    finally:
        server.stop()
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mute.bind(str(folder / "watch.sock"))
    mute.listen(4)

    def take_then_stop() -> None:
        connection, _ = mute.accept()
        connection.recv(1 << 16)
        connection.sendall(ACCEPTED)  # then nothing more, as a stopped process
        time.sleep(3)
        connection.close()

    taker = threading.Thread(target=take_then_stop)
    taker.start()
    try:
        started = time.monotonic()
        assert _forward(capsys, "check") is None
        assert time.monotonic() - started < 2
    finally:
        taker.join()
        mute.close()


def test_a_symlinked_cache_folder_is_not_used(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """Even one of the user's own: a repository can commit `.toolgen_cache -> anywhere`, and
    the cache would write and prune there (`$TOOLGEN_CACHE_DIR` keeps it elsewhere)."""
    project.write("src/tools.py", tool_source("search"))
    elsewhere = project.root.parent / "cache-elsewhere"
    elsewhere.mkdir()
    (project.root / ".toolgen_cache").symlink_to(elsewhere)
    assert answers.folders(str(project.root)) == []
    result = run("build", cwd=project.root)
    assert result.code == 0
    assert "not using the cache folder .toolgen_cache: it is a symlink" in result.err
    assert list(elsewhere.iterdir()) == []
