"""`toolgen serve` keeps the run time's promises over MCP (issue 27): a tool with
`step_up_auth` passes step-up by elicitation when the client can be asked (and is refused
`STEP_UP_REQUIRED` otherwise), calls are made by a principal (`--principal`, or
`TOOLGEN_PRINCIPAL`) whose idempotency keys are its own, and every request with an id gets
exactly one answer, also when the client closes stdin while calls are pending. Over stdio,
line by line, with a real `toolgen serve` subprocess."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from test_serve_hostile import RawServer, request, tools_call
from toolgen.cli import main as toolgen_main
from toolgen.runtime.adapters.mcp import STEP_UP_SCHEMA, supports_elicitation
from toolgen.serve_answers import Answers, InputEnded, answer_the_rest

HANDLERS = '''
import asyncio
import time
from pathlib import Path

from toolgen import tool


@tool
def echo(q: str) -> str:
    """Echo.

    Args:
        q: Echoed.
    """
    return q


@tool
def slow(q: str) -> str:
    """Echo after a while, on a worker thread.

    Args:
        q: Echoed.
    """
    time.sleep(0.5)
    return q


@tool
async def slow_async(q: str) -> str:
    """Echo after a while, on the event loop.

    Args:
        q: Echoed.
    """
    await asyncio.sleep(0.5)
    return q


@tool(risk="medium", step_up_auth=True)
def rotate(q: str) -> str:
    """Rotate a key (the caller must authenticate again).

    Args:
        q: Which key.
    """
    return q


@tool(risk="medium", step_up_auth="when the key signs releases")
def revoke(q: str) -> str:
    """Revoke a key (the caller must authenticate again when it signs releases).

    Args:
        q: Which key.
    """
    return q


@tool(risk="critical", step_up_auth=True)
def wipe(q: str) -> str:
    """Wipe a disk (step-up, and a person must confirm).

    Args:
        q: Which disk.
    """
    return q


@tool(risk="high")
def erase(q: str) -> str:
    """Erase something (a person must confirm).

    Args:
        q: What.
    """
    return q


@tool(risk="medium")
def record(note: str, idempotency_key: str) -> int:
    """Append a note to notes.txt; the count of notes written.

    Args:
        note: The note.
        idempotency_key: Client-chosen key that makes retries safe.

    Idempotency:
        idempotent: false
        safe: false
    """
    notes = Path("notes.txt")
    with notes.open("a") as out:
        out.write(note + "\\n")
    return len(notes.read_text().splitlines())
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve-promises")
    (root / "src").mkdir()
    (root / "src" / "promised_tools.py").write_text(HANDLERS)
    (root / "pyproject.toml").write_text(
        '[tool.toolgen]\nsources = ["src"]\nplatforms = ["mcp"]\nmin_level = 0\n\n'
        '[tool.toolgen.rules]\nTG902 = "off"\n'
    )
    assert toolgen_main(["build", "--config", str(root / "pyproject.toml"), "--quiet"]) == 0
    return root


def start(project: Path, log_path: Path, *extra: str, elicitation: bool = False) -> RawServer:
    log = log_path.open("a")
    raw = RawServer(project / "pyproject.toml", log, "--store", "memory://", *extra)
    log.close()  # the child holds its own copy
    raw.initialize({"elicitation": {}} if elicitation else None)
    return raw


@pytest.fixture
def plain(project: Path, tmp_path: Path) -> Iterator[RawServer]:
    """A client that cannot be asked anything."""
    raw = start(project, tmp_path / "err.log")
    try:
        yield raw
    finally:
        raw.stop()


@pytest.fixture
def asking(project: Path, tmp_path: Path) -> Iterator[RawServer]:
    """A client that declares elicitation."""
    raw = start(project, tmp_path / "err.log", "--confirm-timeout", "0.5", elicitation=True)
    try:
        yield raw
    finally:
        raw.stop()


def answer_to(raw: RawServer, message: dict[str, Any], result: dict[str, Any]) -> None:
    raw.send(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}))


def error_code(answer: dict[str, Any]) -> str:
    result = answer["result"]
    assert result["isError"] is True, answer
    code: str = result["structuredContent"]["error"]["code"]
    return code


def asked_for_step_up(raw: RawServer) -> dict[str, Any]:
    """The elicitation the server sends for a step-up: a form with one boolean field."""
    asked = raw.receive()
    assert asked["method"] == "elicitation/create", asked
    assert asked["params"]["requestedSchema"] == STEP_UP_SCHEMA
    return asked


def final(raw: RawServer) -> dict[str, Any]:
    """The next message that is not the server telling the client it stopped waiting."""
    message = raw.receive()
    while message.get("method") == "notifications/cancelled":
        message = raw.receive()
    return message


def answers(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` but the server telling the client it stopped waiting for an elicitation."""
    for message in messages:
        if "id" not in message:
            assert message["method"] == "notifications/cancelled", message
    return [message for message in messages if "id" in message]


# -- step-up by elicitation ----------------------------------------------------------------------


def test_a_step_up_the_client_passes_runs_the_tool(asking: RawServer) -> None:
    """Was: a tool with `step_up_auth` always answered STEP_UP_REQUIRED over serve."""
    asking.send(tools_call(1, "rotate", {"q": "k1"}))
    asked = asked_for_step_up(asking)
    message = asked["params"]["message"]
    assert message.startswith("rotate (medium risk) needs you to authenticate again")
    assert 'Arguments: {"q": "k1"}' in message
    assert "Condition" not in message
    answer_to(asking, asked, {"action": "accept", "content": {"authenticated": True}})
    answer = asking.receive()
    assert answer["id"] == 1
    assert answer["result"]["structuredContent"] == {"result": "k1"}
    assert asking.close() == []


@pytest.mark.parametrize(
    "result",
    [
        {"action": "decline"},
        {"action": "cancel"},
        {"action": "accept", "content": {"authenticated": False}},
        {"action": "accept", "content": {}},
    ],
    ids=["decline", "cancel", "accept-false", "accept-empty"],
)
def test_a_step_up_the_client_does_not_pass_is_refused(
    asking: RawServer, result: dict[str, Any]
) -> None:
    asking.send(tools_call(1, "rotate", {"q": "k1"}))
    answer_to(asking, asked_for_step_up(asking), result)
    answer = asking.receive()
    assert answer["id"] == 1
    assert error_code(answer) == "STEP_UP_REQUIRED"
    assert answer["result"]["structuredContent"]["error"]["human_review"] is True
    assert asking.close() == []


def test_a_step_up_answered_with_an_error_is_refused(asking: RawServer) -> None:
    asking.send(tools_call(1, "rotate", {"q": "k1"}))
    asked = asked_for_step_up(asking)
    error = {"code": -32603, "message": "no user at the keyboard"}
    asking.send(json.dumps({"jsonrpc": "2.0", "id": asked["id"], "error": error}))
    answer = asking.receive()
    assert answer["id"] == 1
    assert error_code(answer) == "STEP_UP_REQUIRED"
    assert asking.close() == []


def test_a_step_up_never_answered_is_refused_in_time(asking: RawServer) -> None:
    asking.send(tools_call(1, "rotate", {"q": "k1"}))
    asked_for_step_up(asking)  # and never answered: --confirm-timeout 0.5
    answer = final(asking)
    assert answer["id"] == 1
    assert error_code(answer) == "STEP_UP_REQUIRED"
    assert asking.close() == []


def test_a_step_up_condition_is_shown_to_the_person(asking: RawServer) -> None:
    asking.send(tools_call(1, "revoke", {"q": "k2"}))
    asked = asked_for_step_up(asking)
    assert "Condition: when the key signs releases" in asked["params"]["message"]
    answer_to(asking, asked, {"action": "accept", "content": {"authenticated": True}})
    assert asking.receive()["result"]["structuredContent"] == {"result": "k2"}
    assert asking.close() == []


def test_a_tool_with_step_up_and_confirmation_asks_for_both(asking: RawServer) -> None:
    asking.send(tools_call(1, "wipe", {"q": "d1"}))
    answer_to(
        asking, asked_for_step_up(asking), {"action": "accept", "content": {"authenticated": True}}
    )
    confirm = asking.receive()
    assert confirm["method"] == "elicitation/create"
    assert confirm["params"]["message"].startswith("Run wipe (critical risk)?")
    answer_to(asking, confirm, {"action": "accept", "content": {"confirm": True}})
    assert asking.receive()["result"]["structuredContent"] == {"result": "d1"}
    assert asking.close() == []


def test_a_client_that_cannot_be_asked_gets_step_up_required(plain: RawServer) -> None:
    plain.send(tools_call(1, "rotate", {"q": "k1"}))
    answer = plain.receive()  # no elicitation: the answer comes first
    assert answer["id"] == 1
    assert error_code(answer) == "STEP_UP_REQUIRED"
    assert plain.close() == []


def test_a_client_with_url_elicitation_only_is_not_asked_a_form() -> None:
    def capabilities(elicitation: dict[str, Any]) -> types.ClientCapabilities:
        return types.ClientCapabilities.model_validate({"elicitation": elicitation})

    assert supports_elicitation(capabilities({}))
    assert supports_elicitation(capabilities({"form": {}}))
    assert supports_elicitation(capabilities({"form": {}, "url": {}}))
    assert not supports_elicitation(capabilities({"url": {}}))
    assert not supports_elicitation(types.ClientCapabilities())


# -- the principal -------------------------------------------------------------------------------


def test_idempotency_keys_are_scoped_per_principal(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: serve gave calls no principal, so one client's key replayed another's result."""
    store = f"sqlite:///{tmp_path / 'runtime.db'}"
    audit = tmp_path / "audit.jsonl"
    (project / "notes.txt").unlink(missing_ok=True)
    arguments = {"note": "hello", "idempotency_key": "2f6c1d7a-8f0e-4a43-9d1e-2c8f4b5a9e10"}

    def record(*extra: str) -> Any:
        raw = start(project, tmp_path / "err.log", "--store", store, "--audit", str(audit), *extra)
        try:
            raw.send(tools_call(1, "record", arguments))
            answer = raw.receive()
            assert raw.close() == []
        finally:
            raw.stop()
        return answer["result"]["structuredContent"]["result"]

    assert record("--principal", "alice") == 1
    monkeypatch.setenv("TOOLGEN_PRINCIPAL", "bob")
    assert record() == 2  # bob's key is his own: his call runs
    assert record("--principal", "alice") == 1  # the flag wins: alice's result, replayed
    assert (project / "notes.txt").read_text() == "hello\nhello\n"
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    decisions = [(e["principal"], e["decision"]) for e in events if e["decision"] != "proposed"]
    assert decisions == [("alice", "executed"), ("bob", "executed"), ("alice", "replayed")]
    assert {e["principal"] for e in events} == {"alice", "bob"}


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "must name the caller (it is empty)"),
        ("   ", "must name the caller (it is empty)"),
        (" alice", "must not start or end with white space"),
        ("al\nice", "must not hold control characters or bytes that are not UTF-8"),
        ("al\x1bice", "must not hold control characters or bytes that are not UTF-8"),
        ("a" * 257, "must be at most 256 characters"),
    ],
)
def test_a_bad_principal_is_a_usage_error(
    name: str, problem: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLGEN_PRINCIPAL", raising=False)
    assert toolgen_main(["serve", "--principal", name]) == 2
    assert f"--principal {problem}" in capsys.readouterr().out
    monkeypatch.setenv("TOOLGEN_PRINCIPAL", name)
    assert toolgen_main(["serve"]) == 2
    assert f"TOOLGEN_PRINCIPAL {problem}" in capsys.readouterr().out


def test_the_flag_is_judged_not_the_environment_it_overrides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLGEN_PRINCIPAL", "")
    (tmp_path / "tools").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.toolgen]\nsources = ["tools"]\n')
    config = str(tmp_path / "pyproject.toml")
    assert toolgen_main(["serve", "--config", config, "--principal", "alice"]) == 2
    captured = capsys.readouterr()
    assert "TOOLGEN_PRINCIPAL" not in captured.out + captured.err
    assert "mcp/tools.json does not exist" in captured.err  # it got as far as the catalog


# -- exactly one answer per request, also when stdin closes -------------------------------------


def test_every_request_is_answered_once_when_stdin_closes_with_calls_pending(
    plain: RawServer,
) -> None:
    """Was: the calls still pending when stdin closed were answered "Connection closed" (not
    what they returned), and the last ones read were not answered at all."""
    sent: dict[Any, str] = {}
    lines = []
    for i in range(60):
        name = ["slow", "echo", "slow_async", "echo", "rotate"][i % 5]
        sent[i + 1] = name
        lines.append(tools_call(i + 1, name, {"q": f"x{i}"}))
        if i % 7 == 0:  # rejected by serve's own check, answered there
            sent[f"bad-{i}"] = "bad"
            lines.append(request(f"bad-{i}", "tools/call", {"name": 3}))
        if i % 11 == 0:
            sent[f"ping-{i}"] = "ping"
            lines.append(request(f"ping-{i}", "ping"))
    plain.send(*lines)
    rest = plain.close()  # at once: most calls are still pending
    ids = Counter(message.get("id") for message in rest)
    assert ids == Counter(dict.fromkeys(sent, 1))
    for message in rest:
        name, i = sent[message["id"]], message["id"]
        if name == "bad":
            assert message["error"]["code"] == -32602
        elif name == "ping":
            assert message["result"] == {}
        elif name == "rotate":
            assert error_code(message) == "STEP_UP_REQUIRED"
        else:
            assert message["result"]["structuredContent"] == {"result": f"x{i - 1}"}, message


def test_a_confirmation_pending_when_stdin_closes_is_answered_as_not_given(
    asking: RawServer,
) -> None:
    """Was: "Connection closed", as if the call had not been decided."""
    asking.send(tools_call(1, "erase", {"q": "x"}))
    assert asking.receive()["method"] == "elicitation/create"
    [answer] = answers(asking.close())  # the client can no longer answer
    assert answer["id"] == 1
    assert error_code(answer) == "REQUIRES_HUMAN_APPROVAL"


def test_a_step_up_pending_when_stdin_closes_is_refused(asking: RawServer) -> None:
    asking.send(tools_call(1, "rotate", {"q": "x"}))
    asked_for_step_up(asking)
    [answer] = answers(asking.close())
    assert answer["id"] == 1
    assert error_code(answer) == "STEP_UP_REQUIRED"


def test_a_call_the_client_cancelled_is_not_answered_when_stdin_closes(plain: RawServer) -> None:
    cancel = {"requestId": 1, "reason": "changed my mind"}
    plain.send(
        tools_call(1, "slow", {"q": "x"}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}),
        tools_call(2, "slow", {"q": "y"}),
    )
    rest = plain.close()
    assert [message["id"] for message in rest] == [2]
    assert rest[0]["result"]["structuredContent"] == {"result": "y"}


def _request(request_id: Any) -> types.JSONRPCRequest:
    return types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="ping")


def _cancel(request_id: Any) -> types.JSONRPCNotification:
    params = {"requestId": request_id}
    return types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params=params)


def test_answers_keep_each_request_open_until_answered_or_cancelled() -> None:
    async def go() -> None:
        answers = Answers()
        for request_id in (1, 1, "a", 7, "b"):  # 1 twice: a client reusing an id, wrongly
            answers.passed(_request(request_id))
        with answers.answering(1):
            pass
        answers.passed(_cancel("7"))  # the SDK correlates "7" with 7, and never answers it
        with answers.answering("b"):
            pass
        with answers.answering("zzz"):  # an answer to nothing open: nothing to close
            pass
        await answers.settle(0.0)  # no time: what is still open stays open
        assert answers.ended.is_set()
        assert answers.unanswered() == [1, "a"]
        assert answers.unanswered() == []

    anyio.run(go)


def test_the_rest_is_answered_connection_closed() -> None:
    async def go() -> list[Any]:
        answers = Answers()
        answers.passed(_request("left"))
        send, receive = anyio.create_memory_object_stream[SessionMessage](10)
        with send, receive:
            await answer_the_rest(send, answers)
            return [receive.receive_nowait().message]

    [message] = anyio.run(go)
    assert isinstance(message, types.JSONRPCError)
    assert (message.id, message.error.code) == ("left", -32000)


def test_a_question_to_the_client_ends_with_its_input() -> None:
    async def go() -> None:
        answers = Answers()

        async def never() -> str:
            await anyio.sleep_forever()
            return "never"

        async def soon() -> str:
            return "yes"

        assert await answers.ask_client(soon) == "yes"
        async with anyio.create_task_group() as group:
            group.start_soon(answers.settle, 0.0)
            with pytest.raises(InputEnded):
                await answers.ask_client(never)
        with pytest.raises(InputEnded):  # asked after the end: not asked at all
            await answers.ask_client(soon)

    anyio.run(go)
