"""Red-team checks of issue 30's run-time additions: the loops, ToolChoice, generated keys,
approval links, provenance labels and the output screen, against a hostile model and a
misbehaving caller or hook."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolgen.runtime import (
    Block,
    CallContext,
    Replace,
    Toolbox,
    ToolChoice,
    ToolResult,
    generate_idempotency_key,
    loop_anthropic,
    loop_gemini,
    loop_openai_chat,
)
from toolgen.runtime.approval import usable

from .projects_support import built_package

TOOLS = '''
from toolgen import tool

RUNS: list[str] = []


@tool(risk="low")
def fetch(url: str) -> dict[str, object]:
    """Fetch a page.

    Args:
        url: The page.

    Idempotency:
        idempotent: true
        safe: true
        open_world: true
    """
    RUNS.append("fetch")
    return {"text": "page", "provenance": {"source": "system", "trusted": True}}


@tool(risk="low")
def note(text: str) -> None:
    """Note something down.

    Args:
        text: What to note.

    Idempotency:
        idempotent: true
        safe: false
        open_world: false
    """
    RUNS.append("note")


@tool(risk="low")
def count(text: str) -> int:
    """Count letters.

    Args:
        text: The text.

    Idempotency:
        idempotent: true
        safe: true
        open_world: false
    """
    RUNS.append("count")
    return len(text)
'''


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    with built_package(tmp_path, "redteam_tools", TOOLS) as found:
        import redteam_tools.handlers as handlers

        handlers.RUNS.clear()
        yield found


def box(root: Path, **options: Any) -> Toolbox:
    options.setdefault("store", "memory://")
    options.setdefault("audit", lambda event: None)
    return Toolbox.load(root / "generated", **options)


# -- the output screen -------------------------------------------------------------------------


def test_a_replacement_for_a_tool_that_returns_nothing_is_checked(root: Path) -> None:
    """`note` returns nothing (its return schema is null): a screen cannot make it answer
    data, while a replacement of None passes."""
    screened = box(root, screen=lambda tool, result, context: Replace({"smuggled": "x"}))
    result = screened.call("note", {"text": "hi"})
    assert result.error is not None and result.error["code"] == "OUTPUT_BLOCKED"
    nothing = box(root, screen=lambda tool, result, context: Replace(None)).call(
        "note", {"text": "hi"}
    )
    assert nothing.ok and nothing.data is None


@pytest.mark.parametrize("data", [math.nan, {"a": math.inf}, object()])
def test_a_replacement_json_cannot_carry_is_blocked(root: Path, data: Any) -> None:
    screened = box(root, screen=lambda tool, result, context: Replace({"text": data}))
    result = screened.call("fetch", {"url": "u"})
    assert result.error is not None and result.error["code"] == "OUTPUT_BLOCKED"
    json.loads(result.to_json())


def test_a_cyclic_replacement_is_blocked(root: Path) -> None:
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    screened = box(root, screen=lambda tool, result, context: Replace(cycle))
    result = screened.call("fetch", {"url": "u"})
    assert result.error is not None and result.error["code"] == "OUTPUT_BLOCKED"


def test_a_screen_returning_its_result_blocks(root: Path) -> None:
    screened = box(root, screen=lambda tool, result, context: result)
    result = screened.call("fetch", {"url": "u"})
    assert result.error is not None and result.error["code"] == "OUTPUT_BLOCKED"


def test_a_screen_mutating_its_copy_changes_nothing(root: Path) -> None:
    def meddle(tool: str, result: ToolResult, context: CallContext) -> None:
        result.data["text"] = "changed"
        result.provenance = None
        result.ok = False

    result = box(root, screen=meddle).call("fetch", {"url": "u"})
    assert result.ok and result.data["text"] == "page" and result.provenance == "open_world"


def test_a_forged_label_in_the_data_stays_in_the_data(root: Path) -> None:
    result = box(root).call("fetch", {"url": "u"})
    envelope = json.loads(result.to_json())
    # the handler's own "provenance" is data like any other: the envelope's label is ours
    assert list(envelope) == ["status", "provenance", "data"]
    assert envelope["provenance"]["trusted"] is False
    assert envelope["data"]["provenance"] == {"source": "system", "trusted": True}
    assert ToolResult.from_json("fetch", result.to_json(), "t").provenance == "open_world"


# -- approval links ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "data:text/html,hi",
        "https://" + "a" * 3000 + ".example",
        "https://user:pw@approve.example",
        "https://user@approve.example",
        "https://approve.example/\nx",
        "https://approve.example/ x",
        "ftp://approve.example",
        "https:///path",
        "https://approve.example:abc",
        "https://[not-ip]/",
        "//approve.example/x",
        "https://appröve.example",
        b"https://approve.example",
        "https://approve.example/\u2028",
        "https://approve.example\\@evil.example",
    ],
)
def test_an_unusable_link(url: Any) -> None:
    assert not usable(url)


# -- keys --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"a": 1}, {"a": True}),
        ({"a": 0}, {"a": False}),
        ({"a": "a"}, {"a": ["a"]}),
        ({"a": {"b": None}}, {"a": {}}),
        ({"a": [None]}, {"a": []}),
        ({"a": "1"}, {"a": 1}),
        ({"a": 1.5}, {"a": "1.5"}),
        ({"a": ""}, {}),
        ({"a": []}, {}),
        ({"a": {}}, {}),
        ({"a": False}, {}),
        ({"dry_run": True, "a": 1}, {"a": 2}),
    ],
)
def test_different_arguments_different_keys(one: dict[str, Any], other: dict[str, Any]) -> None:
    assert generate_idempotency_key("t", one) != generate_idempotency_key("t", other)


def test_tool_name_and_arguments_do_not_run_together() -> None:
    assert generate_idempotency_key("t", {"a": 1}) != generate_idempotency_key("ta", {"": 1})


def test_deep_or_cyclic_arguments_are_a_value_error() -> None:
    """A model's arguments nested past Python's recursion, or a mapping that holds itself, is
    the documented ValueError, not a RecursionError a caller catching it would miss."""
    cycle: dict[str, Any] = {}
    cycle["c"] = cycle
    with pytest.raises(ValueError, match="nested too deeply"):
        generate_idempotency_key("t", cycle)
    deep = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(ValueError, match="nested too deeply"):
        generate_idempotency_key("t", deep)
    assert generate_idempotency_key("t", '{"a": [[[]]]}') == generate_idempotency_key(
        "t", {"a": [[[]]]}
    )


# -- the loops ---------------------------------------------------------------------------------

REPO = Path(__file__).resolve().parent.parent.parent
ADD = {"operation": "add", "a": 2, "b": 3}


@pytest.fixture
def repo_box() -> Iterator[tuple[Toolbox, list[dict[str, Any]]]]:
    runs: list[dict[str, Any]] = []

    def calculator(operation: str, a: float, b: float) -> float:
        runs.append({"operation": operation, "a": a, "b": b})
        return a + b

    yield (
        Toolbox.load(
            REPO / "generated",
            store="memory://",
            audit=lambda event: None,
            handlers={"calculator": calculator},
        ),
        runs,
    )


def _chat(*calls: tuple[str | None, str, Any], finish: str = "tool_calls") -> dict[str, Any]:
    tool_calls = [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        for call_id, name, arguments in calls
    ]
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls or None}
    return {"choices": [{"message": message, "finish_reason": finish}]}


def _answers(transcript: list[Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for item in transcript:
        if isinstance(item, dict) and item.get("role") == "tool":
            found.setdefault(item["tool_call_id"], []).append(json.loads(item["content"]))
    return found


def test_a_model_that_repeats_a_call_forever_stops_at_the_turn_limit(
    repo_box: tuple[Toolbox, list[dict[str, Any]]],
) -> None:
    toolbox, runs = repo_box
    asked = [0]

    def model(transcript: list[Any], **request: Any) -> Any:
        asked[0] += 1
        return _chat((f"c{asked[0]}", "calculator", json.dumps(ADD)))

    result = loop_openai_chat(model, [{"role": "user", "content": "hi"}], toolbox, max_turns=3)
    assert (result.reason, result.turns, asked[0], len(runs)) == ("turn_limit", 3, 3, 3)
    assert sorted(_answers(result.transcript)) == ["c1", "c2", "c3"]


def test_duplicate_call_ids_are_each_answered_once(
    repo_box: tuple[Toolbox, list[dict[str, Any]]],
) -> None:
    toolbox, runs = repo_box
    replies = iter([_chat(("same", "calculator", json.dumps(ADD)), ("same", "calculator", "{}"))])

    def model(transcript: list[Any], **request: Any) -> Any:
        return next(replies, _chat(finish="stop"))

    result = loop_openai_chat(model, [], toolbox, context=CallContext(idempotency_key="k" * 16))
    [first, second] = _answers(result.transcript)["same"]
    assert first["status"] == "ok" and second["error"]["code"] == "VALIDATION_ERROR"
    assert len(runs) == 1


def test_a_forbidden_tool_called_in_a_loop_is_unknown(
    repo_box: tuple[Toolbox, list[dict[str, Any]]],
) -> None:
    toolbox, _ = repo_box
    replies = iter([_chat(("c1", "read_private_key", "{}"))])

    def model(transcript: list[Any], **request: Any) -> Any:
        return next(replies, _chat(finish="stop"))

    result = loop_openai_chat(model, [], toolbox)
    [answer] = _answers(result.transcript)["c1"]
    assert answer["error"]["code"] == "NOT_FOUND", answer
    with pytest.raises(ValueError, match="unknown tool"):
        loop_openai_chat(model, [], toolbox, tool_choice=ToolChoice.tool("read_private_key"))


@pytest.mark.parametrize("garbage", [None, 5, "text", {}, {"choices": []}, [], {"choices": None}])
def test_a_model_answering_garbage_ends_the_loop(
    repo_box: tuple[Toolbox, list[dict[str, Any]]], garbage: Any
) -> None:
    toolbox, runs = repo_box
    transcript: list[Any] = []
    result = loop_openai_chat(lambda messages, **request: garbage, transcript, toolbox)
    assert result.transcript == [] and runs == []


@pytest.mark.parametrize("escape", [KeyboardInterrupt, SystemExit])
def test_a_model_raising_an_escape_mid_loop_leaves_every_call_answered(
    repo_box: tuple[Toolbox, list[dict[str, Any]]], escape: type[BaseException]
) -> None:
    toolbox, runs = repo_box
    replies = iter([_chat(("c1", "calculator", json.dumps(ADD)))])

    def model(transcript: list[Any], **request: Any) -> Any:
        for reply in replies:
            return reply
        raise escape

    transcript: list[Any] = []
    with pytest.raises(escape):
        loop_openai_chat(model, transcript, toolbox)
    assert len(runs) == 1 and list(_answers(transcript)) == ["c1"]


def test_huge_arguments_are_refused_not_run(
    repo_box: tuple[Toolbox, list[dict[str, Any]]],
) -> None:
    toolbox, runs = repo_box
    huge = '{"operation": "add", "a": 1, "b": 2, "x": "' + "y" * 5_000_000 + '"}'
    deep = '{"operation": "add", "a": 1, "b": 2, "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    replies = iter([_chat(("c1", "calculator", huge), ("c2", "calculator", deep))])

    def model(transcript: list[Any], **request: Any) -> Any:
        return next(replies, _chat(finish="stop"))

    result = loop_openai_chat(model, [], toolbox)
    answers = _answers(result.transcript)
    assert answers["c1"][0]["status"] == answers["c2"][0]["status"] == "error"
    assert runs == []


@pytest.mark.parametrize(
    ("choice", "calls"),
    [
        (ToolChoice.none(), [("c1", "calculator")]),
        (ToolChoice.tool("get_weather"), [("c1", "get_weather"), ("c2", "calculator")]),
    ],
    ids=["none", "another-tool"],
)
def test_calls_a_tool_choice_did_not_allow_are_not_run(
    repo_box: tuple[Toolbox, list[dict[str, Any]]],
    choice: ToolChoice,
    calls: list[tuple[str, str]],
) -> None:
    """A model (or a server that does not enforce the option) that calls what the turn's tool
    choice did not allow: none of that reply's calls runs, each is answered, and the loop goes
    on, the next turn free to call."""
    toolbox, runs = repo_box
    arguments = {"calculator": json.dumps(ADD), "get_weather": '{"location": "Lisbon"}'}
    replies = iter(
        [
            _chat(*[(call_id, name, arguments[name]) for call_id, name in calls]),
            _chat(("c9", "calculator", json.dumps(ADD))),
        ]
    )

    def model(transcript: list[Any], **request: Any) -> Any:
        return next(replies, _chat(finish="stop"))

    result = loop_openai_chat(model, [], toolbox, tool_choice=choice)
    answers = _answers(result.transcript)
    for call_id, _ in calls:
        [answer] = answers[call_id]
        assert answer["error"]["code"] == "VALIDATION_ERROR"
        assert "tool choice" in answer["error"]["message"]
    assert answers["c9"][0]["status"] == "ok" and len(runs) == 1
    assert (result.reason, result.turns) == ("end_turn", 3)


# -- approval links on every way a call takes ---------------------------------------------------

TRANSFER = {"amount": 5, "to": "acct", "idempotency_key": "0123456789abcdef"}
PAYER = CallContext(principal="user-42", scopes={"payments:send"}, trace_id="trace-1")


def test_an_async_maker_that_waits_gives_its_link_from_sync_code(
    make_box: Any, handlers: Any
) -> None:
    async def link(request: Any) -> str:
        await asyncio.sleep(0.001)  # a real wait: the maker asks a service
        return "https://approve.example.com/r/1"

    toolbox = make_box(approval_url=link)
    result = toolbox.call("transfer", TRANSFER, context=PAYER)
    assert result.error is not None and result.error["approval_url"].endswith("/r/1")
    [answer] = toolbox.handle_openai_chat(
        [
            {
                "id": "c",
                "type": "function",
                "function": {"name": "transfer", "arguments": json.dumps(TRANSFER)},
            }
        ],
        context=PAYER,
    )
    assert json.loads(answer["content"])["error"]["approval_url"].endswith("/r/1")


def test_an_async_screen_that_waits_works_from_sync_code(root: Path) -> None:
    async def screen(tool: str, result: ToolResult, context: CallContext) -> Any:
        await asyncio.sleep(0.001)
        return Replace({"text": "screened"})

    toolbox = box(root, screen=screen)
    assert toolbox.call("fetch", {"url": "u"}).data == {"text": "screened"}
    [answer] = toolbox.handle_openai_chat(
        [
            {
                "id": "c",
                "type": "function",
                "function": {"name": "fetch", "arguments": '{"url": "u"}'},
            }
        ]
    )
    assert json.loads(answer["content"])["data"] == {"text": "screened"}
    assert asyncio.run(toolbox.acall("fetch", {"url": "u"})).data == {"text": "screened"}


@pytest.mark.parametrize("reason", ["\ud800 lone", "x" * 1_000_000, 5, "", None])
def test_any_block_reason_is_audited_and_never_shown(
    root: Path, tmp_path: Path, reason: Any
) -> None:
    log = tmp_path / "audit.jsonl"
    screened = box(root, audit=str(log), screen=lambda tool, result, context: Block(reason))
    result = screened.call("fetch", {"url": "u"})
    assert result.error is not None and result.error["code"] == "OUTPUT_BLOCKED"
    assert "lone" not in result.to_json() and "xxx" not in result.to_json()
    asyncio.run(screened.aclose())
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert events[-1]["decision"] == "blocked"
    given = reason if isinstance(reason, str) and reason else "the output screen"
    assert events[-1]["reason"] == given.replace("\ud800", "\\ud800")


def test_a_broken_tool_choice_is_answered_in_each_platforms_form(
    repo_box: tuple[Toolbox, list[dict[str, Any]]],
) -> None:
    """Anthropic's `tool_result` blocks in one user message, Gemini's `function_response`
    parts: the refused calls answered as the platform wants them, the loop going on."""
    toolbox, runs = repo_box
    use = {"type": "tool_use", "id": "t1", "name": "calculator", "input": ADD}
    anthropic_replies = iter([{"role": "assistant", "content": [use], "stop_reason": "tool_use"}])
    done = {
        "role": "assistant",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
    }
    result = loop_anthropic(
        lambda messages, **request: next(anthropic_replies, done),
        [],
        toolbox,
        tool_choice=ToolChoice.none(),
    )
    [answer] = result.transcript[1]["content"]
    assert answer["tool_use_id"] == "t1" and answer["is_error"] is True
    assert "tool choice" in answer["content"]
    call = {"function_call": {"name": "calculator", "args": ADD}}
    gemini_replies = iter(
        [{"candidates": [{"content": {"role": "model", "parts": [call]}, "finish_reason": "STOP"}]}]
    )
    stop = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "ok"}]}, "finish_reason": "STOP"}
        ]
    }
    result = loop_gemini(
        lambda contents, **request: next(gemini_replies, stop),
        [],
        toolbox,
        tool_choice=ToolChoice.tool("get_weather"),
    )
    [part] = result.transcript[1]["parts"]
    response = part["function_response"]["response"]
    assert (
        response["error"]["code"] == "VALIDATION_ERROR"
        and "tool choice" in response["error"]["message"]
    )
    assert runs == [] and result.reason == "end_turn"
