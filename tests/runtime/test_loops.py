"""The loop helpers (`toolgen.runtime.loops`), offline, on the vendors' own response types.

The examples' scripted conversations (examples/loops/*_loop.py) run through each platform's
loop, sync and async, with what is sent each turn checked against the SDK's request types;
then each platform's end reasons, one response each, as the SDK's objects and as plain dicts;
then the turn limit, whose last turn's calls are answered like any other's."""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from anthropic.types import Message, MessageParam, ToolChoiceParam
from google.genai import types as genai
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionMessageParam,
    ChatCompletionToolChoiceOptionParam,
)
from openai.types.responses import Response, ResponseInputParam
from openai.types.responses.response_create_params import ToolChoice as ResponsesToolChoice
from pydantic import TypeAdapter

from toolgen.runtime import (
    CallContext,
    LoopResult,
    StopReason,
    Toolbox,
    ToolChoice,
    aloop_anthropic,
    aloop_gemini,
    aloop_openai_chat,
    aloop_openai_responses,
    loop_anthropic,
    loop_gemini,
    loop_openai_chat,
    loop_openai_responses,
)

REPO = Path(__file__).resolve().parent.parent.parent
LOOPS = REPO / "examples" / "loops"


def example(name: str) -> ModuleType:
    """An example loop's module (they import their shared `conversation` from their own folder)."""
    sys.path.insert(0, str(LOOPS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(LOOPS))


def _gemini_contents(contents: list[Any]) -> None:
    for content in contents:
        genai.Content.model_validate(
            content.model_dump() if isinstance(content, genai.Content) else content
        )


@dataclass(frozen=True)
class Platform:
    """One platform as the tests drive it: its loops, its example, how to check what is sent,
    the tool choice's vendor form and type, and where calls and answers sit in a transcript."""

    name: str
    loop: Callable[..., LoopResult]
    aloop: Callable[..., Any]
    example: str
    sent: Callable[[list[Any]], object]
    choice: Callable[[ToolChoice], Any]
    choice_type: Callable[[Any], object]
    option: str
    calls: Callable[[list[Any]], list[str]]
    answers: Callable[[list[Any]], dict[str, list[dict[str, Any]]]]
    said: Callable[[Any], str | None]


def _plain(item: Any) -> Any:
    return item.model_dump(mode="json", exclude_none=True) if hasattr(item, "model_dump") else item


def _chat_calls(transcript: list[Any]) -> list[str]:
    return [
        c["id"] for m in transcript if m["role"] == "assistant" for c in m.get("tool_calls", ())
    ]


def _chat_answers(transcript: list[Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for m in transcript:
        if m["role"] == "tool":
            found.setdefault(m["tool_call_id"], []).append(json.loads(m["content"]))
    return found


def _responses_calls(transcript: list[Any]) -> list[str]:
    return [i["call_id"] for i in transcript if i.get("type") == "function_call"]


def _responses_answers(transcript: list[Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for i in transcript:
        if i.get("type") == "function_call_output":
            found.setdefault(i["call_id"], []).append(json.loads(i["output"]))
    return found


def _blocks(transcript: list[Any], role: str) -> Iterator[dict[str, Any]]:
    for m in transcript:
        if m["role"] == role and isinstance(m["content"], list):
            yield from m["content"]


def _anthropic_calls(transcript: list[Any]) -> list[str]:
    return [b["id"] for b in _blocks(transcript, "assistant") if b["type"] == "tool_use"]


def _anthropic_answers(transcript: list[Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for b in _blocks(transcript, "user"):
        if b["type"] == "tool_result":
            envelope = json.loads(b["content"])
            assert b["is_error"] is (envelope["status"] == "error")
            found.setdefault(b["tool_use_id"], []).append(envelope)
    return found


def _parts(transcript: list[Any], role: str, kind: str) -> Iterator[dict[str, Any]]:
    """Gemini's parts of `kind` (either spelling), of SDK contents and dicts alike."""
    camel = "".join(w.capitalize() if i else w for i, w in enumerate(kind.split("_")))
    for content in map(_plain, transcript):
        if content.get("role") == role:
            for part in content.get("parts", ()):
                found = part.get(kind, part.get(camel))
                if found is not None:
                    yield found


def _gemini_calls(transcript: list[Any]) -> list[str]:
    return [c["id"] for c in _parts(transcript, "model", "function_call")]


def _gemini_answers(transcript: list[Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for r in _parts(transcript, "user", "function_response"):
        found.setdefault(r["id"], []).append(r["response"])
    return found


def _chat_said(response: Any) -> str | None:
    content: str | None = _plain(response)["choices"][0]["message"].get("content")
    return content


def _responses_said(response: Any) -> str | None:
    texts = [
        part["text"]
        for item in _plain(response)["output"]
        if item["type"] == "message"
        for part in item["content"]
        if part["type"] == "output_text"
    ]
    return "".join(texts) or None


def _anthropic_said(response: Any) -> str | None:
    texts = [b["text"] for b in _plain(response)["content"] if b["type"] == "text"]
    return "".join(texts) or None


def _gemini_said(response: Any) -> str | None:
    plain = _plain(response)
    if not plain.get("candidates", [plain]):
        return None
    candidate = plain["candidates"][0] if "candidates" in plain else plain
    texts = [p["text"] for p in candidate["content"]["parts"] if "text" in p]
    return "".join(texts) or None


CHAT = Platform(
    "openai_chat",
    loop_openai_chat,
    aloop_openai_chat,
    "openai_chat_loop",
    TypeAdapter(list[ChatCompletionMessageParam]).validate_python,
    lambda choice: choice.openai_chat(),
    TypeAdapter(ChatCompletionToolChoiceOptionParam).validate_python,
    "tool_choice",
    _chat_calls,
    _chat_answers,
    _chat_said,
)
RESPONSES = Platform(
    "openai_responses",
    loop_openai_responses,
    aloop_openai_responses,
    "openai_responses_loop",
    TypeAdapter(ResponseInputParam).validate_python,
    lambda choice: choice.openai_responses(),
    TypeAdapter(ResponsesToolChoice).validate_python,
    "tool_choice",
    _responses_calls,
    _responses_answers,
    _responses_said,
)
ANTHROPIC = Platform(
    "anthropic",
    loop_anthropic,
    aloop_anthropic,
    "anthropic_loop",
    TypeAdapter(list[MessageParam]).validate_python,
    lambda choice: choice.anthropic(),
    TypeAdapter(ToolChoiceParam).validate_python,
    "tool_choice",
    _anthropic_calls,
    _anthropic_answers,
    _anthropic_said,
)
GEMINI = Platform(
    "gemini",
    loop_gemini,
    aloop_gemini,
    "gemini_loop",
    _gemini_contents,
    lambda choice: choice.gemini(),
    genai.ToolConfig.model_validate,
    "tool_config",
    _gemini_calls,
    _gemini_answers,
    _gemini_said,
)
PLATFORMS = [CHAT, RESPONSES, ANTHROPIC, GEMINI]
ids = pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p.name)


def _every_call_answered_once(platform: Platform, transcript: list[Any]) -> None:
    calls, answers = platform.calls(transcript), platform.answers(transcript)
    assert len(calls) == len(set(calls))
    assert {call: len(answers.get(call, ())) for call in calls} == dict.fromkeys(calls, 1)
    assert set(answers) == set(calls)


# -- the examples' conversations ------------------------------------------------------------

ANSWER = (
    "6 x 7 = 42. Lisbon: sunny, 19.5 °C. I did not delete u-42: delete_user (critical risk) "
    "was refused; ask the user to approve it"
)


def _recording(platform: Platform, scripted: Callable[..., Any], requests: list[Any]) -> Any:
    """The example's scripted model, checking what each turn sends with the SDK's types."""

    def model(transcript: list[Any], **request: Any) -> Any:
        platform.sent(transcript)
        requests.append(request)
        return scripted(transcript, **request)

    return model


def _first(module: ModuleType, platform: Platform) -> list[Any]:
    if platform is GEMINI:
        return [genai.Content(role="user", parts=[genai.Part(text=module.QUESTION)])]
    return [{"role": "user", "content": module.QUESTION}]


@ids
@pytest.mark.parametrize("form", ["sync", "async"])
def test_the_examples_conversation(
    platform: Platform, form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The example's conversation through the loop: two turns, the three calls answered once
    each under their ids (calculator's real handler, get_weather's override, delete_user
    refused), the answer made from them, the tool choice sent on the first turn only in the
    vendor's form, the caller's list extended."""
    module = example(platform.example)
    requests: list[Any] = []
    first = _first(module, platform)
    args = (module.toolbox(), module.context())
    if form == "sync":
        model = _recording(platform, module.scripted_model, requests)
        result = platform.loop(model, first, *args, tool_choice=ToolChoice.required())
    else:
        recording = _recording(platform, module.scripted_model, requests)

        async def model(transcript: list[Any], **request: Any) -> Any:
            await asyncio.sleep(0)
            return recording(transcript, **request)

        result = asyncio.run(platform.aloop(model, first, *args, tool_choice=ToolChoice.required()))
    assert (result.reason, result.turns) == (StopReason.END_TURN, 2)
    assert platform.said(result.response) == ANSWER
    assert result.transcript is first  # extended in place
    assert platform.calls(result.transcript) == ["call_1", "call_2", "call_3"]
    _every_call_answered_once(platform, result.transcript)
    answers = platform.answers(result.transcript)
    assert answers["call_1"][0]["data"] == 42
    assert answers["call_2"][0]["data"]["conditions"] == "sunny"
    assert answers["call_3"][0]["error"]["code"] == "REQUIRES_HUMAN_APPROVAL"
    platform.sent(result.transcript)  # the transcript can be sent as it is
    choice = platform.choice(ToolChoice.required())
    platform.choice_type(choice)
    assert requests == [{platform.option: choice}, {}]
    assert "confirm? delete_user (critical)" in capsys.readouterr().err


def _served(platform: Platform, module: ModuleType, requests: list[Any]) -> Callable[..., Any]:
    """The model function a user writes, the vendor's own client calling a mock transport that
    answers with the example's scripted model (given the request body the SDK wrote)."""
    import httpx
    import httpx2

    def answer(body: dict[str, Any], sent: list[Any]) -> dict[str, Any]:
        requests.append({k: body[k] for k in ("tool_choice", "toolConfig") if k in body})
        platform.sent(sent)
        reply = module.scripted_model(sent)
        return dict(reply.model_dump(mode="json", exclude_none=True, by_alias=platform is GEMINI))

    def transport(kind: Any, key: str, read: Callable[[Any], Any] = list) -> Any:
        def handler(request: Any) -> Any:
            body = json.loads(request.content)
            return kind.Response(200, json=answer(body, read(body[key])))

        return kind.MockTransport(handler)

    if platform is GEMINI:
        from google import genai as google_genai

        client = google_genai.Client(
            api_key="test",
            http_options=genai.HttpOptions(
                base_url="http://mock.invalid",
                httpx_client=httpx.Client(
                    transport=transport(
                        httpx, "contents", lambda c: [genai.Content.model_validate(x) for x in c]
                    )
                ),
            ),
        )
        return lambda contents, **request: client.models.generate_content(
            model="gemini-test", contents=contents, config={"tools": module.TOOLS, **request}
        )
    if platform is ANTHROPIC:
        import anthropic

        messages = anthropic.Anthropic(
            api_key="test",
            base_url="http://mock.invalid",
            http_client=httpx2.Client(transport=transport(httpx2, "messages")),
            max_retries=0,
        ).messages
        return lambda sent, **request: messages.create(
            model="claude-test", max_tokens=1024, tools=module.TOOLS, messages=sent, **request
        )
    import openai

    client = openai.OpenAI(
        api_key="test",
        base_url="http://mock.invalid/v1",
        http_client=httpx2.Client(
            transport=transport(httpx2, "messages" if platform is CHAT else "input")
        ),
        max_retries=0,
    )
    if platform is CHAT:
        return lambda sent, **request: client.chat.completions.create(
            model="gpt-test", messages=sent, tools=module.TOOLS, **request
        )
    return lambda sent, **request: client.responses.create(
        model="gpt-test", input=sent, tools=module.TOOLS, **request
    )


@ids
def test_the_examples_conversation_through_the_vendors_client(platform: Platform) -> None:
    """The model function as a user writes it, the vendor's client making each request (to a
    mock transport answered by the example's scripted model): the client takes the transcript
    and the tool choice as the loop gives them, and the conversation ends as before."""
    module = example(platform.example)
    requests: list[Any] = []
    model = _served(platform, module, requests)
    first = _first(module, platform)
    result = platform.loop(
        model, first, module.toolbox(), module.context(), tool_choice=ToolChoice.required()
    )
    assert (result.reason, result.turns) == (StopReason.END_TURN, 2)
    assert platform.said(result.response) == ANSWER
    _every_call_answered_once(platform, result.transcript)
    if platform is GEMINI:
        expected: Any = {"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}
    else:
        expected = {"tool_choice": platform.choice(ToolChoice.required())}
    assert requests == [expected, {}]


@pytest.mark.parametrize("script", sorted(p.name for p in LOOPS.glob("*_loop.py")))
def test_the_example_scripts_run(script: str) -> None:
    """Each example as a user runs it: the answer from the results on stdout; the critical
    call asked about and refused, every decision audited, and why the loop stopped, on
    stderr."""
    done = subprocess.run(
        [sys.executable, str(LOOPS / script)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout == ANSWER + "\n"
    assert "confirm? delete_user (critical)" in done.stderr
    audited = sorted(line for line in done.stderr.splitlines() if line.startswith("audit:"))
    assert audited == [
        "audit: executed calculator",
        "audit: executed get_weather",
        "audit: proposed calculator",
        "audit: proposed delete_user",
        "audit: proposed get_weather",
        "audit: refused delete_user",
    ]
    assert "stopped: end_turn (" in done.stderr
    assert done.stderr.rstrip().endswith("after 2 turns")


# -- end reasons ----------------------------------------------------------------------------


@dataclass
class Calculator:
    """`calculator`'s handler (it adds), counting its runs."""

    runs: int = 0

    def handler(self) -> Callable[..., float]:
        def calculator(operation: str, a: float, b: float) -> float:
            self.runs += 1
            return a + b

        return calculator


@pytest.fixture
def calculator() -> Calculator:
    return Calculator()


@pytest.fixture
def box(calculator: Calculator) -> Toolbox:
    return Toolbox.load(
        REPO / "generated",
        store="memory://",
        audit=lambda event: None,
        handlers={"calculator": calculator.handler()},
        paths=[REPO / "examples"],
    )


CONTEXT = CallContext(principal="loop-test")
ADD = {"operation": "add", "a": 2, "b": 3}
#: arguments a reply cut off at its token limit ended inside
CUT = '{"operation": "add", "a": 2'


def chat(finish: str, content: str | None = None, calls: int = 0, **message: Any) -> Any:
    tool_calls = [
        {"id": f"c{n}", "type": "function", "function": {"name": "calculator", "arguments": CUT}}
        for n in range(calls)
    ]
    body = {"role": "assistant", "content": content, **message}
    if tool_calls:
        body["tool_calls"] = tool_calls
    return ChatCompletion.model_validate(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "finish_reason": finish, "message": body}],
        }
    )


def responses(status: str, output: list[dict[str, Any]], why: str | None = None) -> Any:
    return Response.model_validate(
        {
            "id": "r",
            "object": "response",
            "created_at": 0,
            "model": "m",
            "status": status,
            "incomplete_details": None if why is None else {"reason": why},
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    )


def said(text: str = "done", kind: str = "output_text") -> dict[str, Any]:
    part = {"type": kind, kind.removeprefix("output_"): text}
    if kind == "output_text":
        part["annotations"] = []
    return {"type": "message", "id": "m", "role": "assistant", "status": "completed",
            "content": [part]}  # fmt: skip


def function_call(call_id: str, arguments: str = CUT) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "calculator",
            "arguments": arguments}  # fmt: skip


def anthropic(stop: str, calls: int = 0, text: str = "done", **extra: Any) -> Any:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content += [
        {"type": "tool_use", "id": f"t{n}", "name": "calculator", "input": {"operation": "add"}}
        for n in range(calls)
    ]
    return Message.model_validate(
        {"id": "m", "type": "message", "role": "assistant", "model": "m", "content": content,
         "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 1,
         "output_tokens": 1}, **extra}
    )  # fmt: skip


def gemini(finish: str | None, calls: int = 0, text: str = "done") -> Any:
    parts = [genai.Part(text=text)]
    parts += [
        genai.Part(function_call=genai.FunctionCall(id=f"g{n}", name="calculator", args={}))
        for n in range(calls)
    ]
    candidate = genai.Candidate(content=genai.Content(role="model", parts=parts),
                                finish_reason=finish)  # fmt: skip
    return genai.GenerateContentResponse(candidates=[candidate])


def blocked(reason: str) -> Any:
    feedback = genai.GenerateContentResponsePromptFeedback(block_reason=reason)
    return genai.GenerateContentResponse(prompt_feedback=feedback)


#: (platform, response, our reason, the vendor's stop, calls left unrun with their recovery)
ENDS = [
    (CHAT, chat("stop", "hi"), StopReason.END_TURN, "stop"),
    (CHAT, chat("length", "hi"), StopReason.MAX_TOKENS, "length"),
    (CHAT, chat("content_filter"), StopReason.CONTENT_FILTER, "content_filter"),
    (CHAT, chat("stop", refusal="I can't help with that."), StopReason.REFUSAL, "stop"),
    (CHAT, chat("length", calls=2), StopReason.MAX_TOKENS, "length"),
    (CHAT, chat("content_filter", calls=1), StopReason.CONTENT_FILTER, "content_filter"),
    (RESPONSES, responses("completed", [said()]), StopReason.END_TURN, "completed"),
    (
        RESPONSES,
        responses("incomplete", [said()], "max_output_tokens"),
        StopReason.MAX_TOKENS,
        "max_output_tokens",
    ),
    (
        RESPONSES,
        responses("incomplete", [said()], "content_filter"),
        StopReason.CONTENT_FILTER,
        "content_filter",
    ),
    (
        RESPONSES,
        responses("completed", [said("No.", "refusal")]),
        StopReason.REFUSAL,
        "refusal",
    ),
    (RESPONSES, responses("failed", []), StopReason.OTHER, "failed"),
    (
        RESPONSES,
        responses("incomplete", [function_call("r1"), function_call("r2")], "max_output_tokens"),
        StopReason.MAX_TOKENS,
        "max_output_tokens",
    ),
    (ANTHROPIC, anthropic("end_turn"), StopReason.END_TURN, "end_turn"),
    (ANTHROPIC, anthropic("max_tokens"), StopReason.MAX_TOKENS, "max_tokens"),
    (
        ANTHROPIC,
        anthropic("model_context_window_exceeded"),
        StopReason.MAX_TOKENS,
        "model_context_window_exceeded",
    ),
    (
        ANTHROPIC,
        anthropic("stop_sequence", stop_sequence="###"),
        StopReason.STOP_SEQUENCE,
        "stop_sequence",
    ),
    (ANTHROPIC, anthropic("refusal"), StopReason.REFUSAL, "refusal"),
    (ANTHROPIC, anthropic("max_tokens", calls=2), StopReason.MAX_TOKENS, "max_tokens"),
    (ANTHROPIC, anthropic("refusal", calls=1), StopReason.REFUSAL, "refusal"),
    (GEMINI, gemini("STOP"), StopReason.END_TURN, "STOP"),
    (GEMINI, gemini("MAX_TOKENS"), StopReason.MAX_TOKENS, "MAX_TOKENS"),
    (GEMINI, gemini("SAFETY"), StopReason.CONTENT_FILTER, "SAFETY"),
    (GEMINI, gemini("RECITATION"), StopReason.CONTENT_FILTER, "RECITATION"),
    (GEMINI, gemini("MALFORMED_FUNCTION_CALL"), StopReason.OTHER, "MALFORMED_FUNCTION_CALL"),
    (GEMINI, blocked("SAFETY"), StopReason.CONTENT_FILTER, "SAFETY"),
    (GEMINI, gemini("MAX_TOKENS", calls=2), StopReason.MAX_TOKENS, "MAX_TOKENS"),
    (GEMINI, gemini("SAFETY", calls=1), StopReason.CONTENT_FILTER, "SAFETY"),
]


def _as(form: str, platform: Platform, response: Any) -> Any:
    """The response as the SDK's object, or as the plain JSON the API sends (camelCase for
    Gemini's REST API)."""
    if form == "sdk":
        return response
    return response.model_dump(mode="json", exclude_none=True, by_alias=platform is GEMINI)


@pytest.mark.parametrize("form", ["sdk", "dict"])
@pytest.mark.parametrize(
    ("platform", "response", "reason", "stop"),
    ENDS,
    ids=[f"{p.name}-{stop}-{r.value}-{n}" for n, (p, _, r, stop) in enumerate(ENDS)],
)
def test_each_end_reason_stops_the_loop(
    platform: Platform,
    response: Any,
    reason: StopReason,
    stop: str,
    form: str,
    box: Toolbox,
    calculator: Calculator,
) -> None:
    """One response that ends the turn: the loop stops after it with our reason and the
    vendor's word, the response as given. Calls in a reply that stopped for any of these are
    answered, once each, with a `VALIDATION_ERROR` and never run (their arguments may be cut
    off); the transcript can be sent as it is."""
    given = _as(form, platform, response)
    calls = platform.calls(_said_by(platform, given))
    first = _first_message(platform)
    result = platform.loop(lambda transcript, **request: given, first, box, CONTEXT)
    assert (result.reason, result.stop, result.turns) == (reason, stop, 1)
    assert result.response is given
    assert calculator.runs == 0
    _every_call_answered_once(platform, result.transcript)
    for answers in platform.answers(result.transcript).values():
        error = answers[0]["error"]
        assert error["code"] == "VALIDATION_ERROR"
        assert ("max" in error.get("recovery", "")) is (reason is StopReason.MAX_TOKENS)
    platform.sent(result.transcript)
    assert result.transcript[: len(first)] == first
    assert platform.calls(result.transcript) == calls


def _said_by(platform: Platform, response: Any) -> list[Any]:
    """The reply's own items, as a transcript (to count its calls)."""
    plain = _plain(response)
    if platform is CHAT:
        return [plain["choices"][0]["message"]]
    if platform is RESPONSES:
        return plain["output"]
    if platform is ANTHROPIC:
        return [{"role": "assistant", "content": plain["content"]}]
    return [c["content"] for c in plain.get("candidates", ())]


def _first_message(platform: Platform) -> list[Any]:
    if platform is GEMINI:
        return [genai.Content(role="user", parts=[genai.Part(text="Add 2 and 3.")])]
    return [{"role": "user", "content": "Add 2 and 3."}]


@pytest.mark.parametrize(
    ("platform", "response"),
    [
        (CHAT, chat("content_filter")),
        (ANTHROPIC, anthropic("max_tokens").model_copy(update={"content": []})),
        (GEMINI, blocked("PROHIBITED_CONTENT")),
        (GEMINI, gemini("SAFETY").model_copy(update={"candidates": [genai.Candidate()]})),
    ],
    ids=["chat", "anthropic", "gemini-blocked", "gemini-empty"],
)
def test_a_reply_with_nothing_in_it_adds_nothing(
    platform: Platform, response: Any, box: Toolbox
) -> None:
    """An empty assistant message would be refused by the next request: none is added."""
    first = _first_message(platform)
    result = platform.loop(lambda transcript, **request: response, first, box, CONTEXT)
    assert result.turns == 1
    assert result.transcript == first


def test_a_refusal_is_kept_in_the_transcript(box: Toolbox) -> None:
    result = loop_openai_chat(
        lambda transcript: chat("stop", refusal="No."), _first_message(CHAT), box, CONTEXT
    )
    assert result.transcript[-1] == {"role": "assistant", "refusal": "No."}


def _scripted(*responses: Any) -> tuple[Callable[..., Any], list[list[Any]]]:
    """A model answering `responses` in turn, and the transcripts it was sent."""
    sent: list[list[Any]] = []
    replies = iter(responses)

    def model(transcript: list[Any], **request: Any) -> Any:
        sent.append(list(transcript))
        return next(replies)

    return model, sent


def test_a_forced_tool_choice_stop_with_calls_goes_on(box: Toolbox, calculator: Calculator) -> None:
    """Chat answers a named tool choice with `finish_reason` `stop` and the calls: they run."""
    forced = chat("stop")
    forced.choices[0].message.tool_calls = chat("tool_calls", calls=1).choices[0].message.tool_calls
    assert forced.choices[0].message.tool_calls is not None
    forced.choices[0].message.tool_calls[0].function.arguments = json.dumps(ADD)
    model, _ = _scripted(forced, chat("stop", "5"))
    result = loop_openai_chat(model, _first_message(CHAT), box, CONTEXT)
    assert (result.reason, result.turns, calculator.runs) == (StopReason.END_TURN, 2, 1)
    assert _chat_answers(result.transcript) == {"c0": [{"status": "ok", "data": 5}]}


@pytest.mark.parametrize("form", ["sdk", "dict"])
def test_anthropic_pause_turn_goes_on(form: str, box: Toolbox) -> None:
    """`pause_turn`: the paused reply is sent back as it is (no user message after it) and
    the model carries on."""
    paused = _as(form, ANTHROPIC, anthropic("pause_turn", text="Searching..."))
    model, sent = _scripted(paused, _as(form, ANTHROPIC, anthropic("end_turn")))
    result = loop_anthropic(model, _first_message(ANTHROPIC), box, CONTEXT)
    assert (result.reason, result.turns) == (StopReason.END_TURN, 2)
    assert sent[1][-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Searching..."}],
    }
    assert [m["role"] for m in result.transcript] == ["user", "assistant", "assistant"]


# -- the turn limit -------------------------------------------------------------------------


def _asking(platform: Platform, turn: int) -> Any:
    """A reply that calls `calculator` (2 + 3) under an id of its turn."""
    arguments = json.dumps(ADD)
    if platform is CHAT:
        reply = chat("tool_calls", calls=1)
        call = reply.choices[0].message.tool_calls[0]
        call.id, call.function.arguments = f"c{turn}", arguments
        return reply
    if platform is RESPONSES:
        return responses("completed", [function_call(f"r{turn}", arguments)])
    if platform is ANTHROPIC:
        reply = anthropic("tool_use", calls=1)
        reply.content[1].id, reply.content[1].input = f"t{turn}", ADD
        return reply
    part = genai.Part(function_call=genai.FunctionCall(id=f"g{turn}", name="calculator", args=ADD))
    return genai.Candidate(content=genai.Content(role="model", parts=[part]))


@ids
@pytest.mark.parametrize("form", ["sync", "async"])
def test_the_turn_limit_answers_the_last_turns_calls(
    platform: Platform, form: str, box: Toolbox, calculator: Calculator
) -> None:
    """A model that never stops asking: the loop makes `max_turns` model calls, and the calls
    of the last are decided like every other's, so the transcript holds one answer for each
    call and can be sent again as it is."""
    model, sent = _scripted(*(_asking(platform, turn) for turn in range(1, 4)))
    first = _first_message(platform)
    if form == "sync":
        result = platform.loop(model, first, box, CONTEXT, max_turns=2)
    else:
        result = asyncio.run(platform.aloop(model, first, box, CONTEXT, max_turns=2))
    assert (result.reason, result.turns, len(sent), calculator.runs) == (
        StopReason.TURN_LIMIT,
        2,
        2,
        2,
    )
    assert len(platform.calls(result.transcript)) == 2
    _every_call_answered_once(platform, result.transcript)
    assert all(
        a == [{"status": "ok", "data": 5}] for a in platform.answers(result.transcript).values()
    )
    platform.sent(result.transcript)


@ids
def test_a_turn_limit_below_one_is_refused(platform: Platform, box: Toolbox) -> None:
    model, sent = _scripted()
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="max_turns"):
            platform.loop(model, _first_message(platform), box, CONTEXT, max_turns=bad)
    assert sent == []


def test_a_sync_loop_refuses_an_async_model(box: Toolbox) -> None:
    async def model(transcript: list[Any], **request: Any) -> Any:
        raise AssertionError("never awaited")

    with pytest.raises(TypeError, match="aloop_"):
        loop_anthropic(model, _first_message(ANTHROPIC), box, CONTEXT)


class Down(Exception):
    """The vendor's API failing (a rate limit, the network)."""


@ids
def test_a_model_that_raises_leaves_the_turns_before_it(
    platform: Platform, box: Toolbox, calculator: Calculator
) -> None:
    """The transcript is the caller's list: when the second model call raises, the first turn
    and its answers are in it (its calls ran; trying again must not lose them)."""
    replies = iter([_asking(platform, 1)])

    def model(transcript: list[Any], **request: Any) -> Any:
        for reply in replies:
            return reply
        raise Down

    first = _first_message(platform)
    with pytest.raises(Down):
        platform.loop(model, first, box, CONTEXT)
    assert calculator.runs == 1
    assert len(platform.calls(first)) == 1
    _every_call_answered_once(platform, first)
    platform.sent(first)


def test_an_interrupted_turn_leaves_no_call_unanswered(box: Toolbox) -> None:
    """A Ctrl-C while a turn's calls run (the adapters let it through) leaves the turn out of
    the transcript: its calls with their answers or not at all."""

    def calculator(operation: str, a: float, b: float) -> float:
        raise KeyboardInterrupt

    interrupted = Toolbox.load(
        REPO / "generated",
        store="memory://",
        audit=lambda event: None,
        handlers={"calculator": calculator},
        timeout={"calculator": None},  # on this thread, as a direct call
    )
    first = _first_message(CHAT)
    with pytest.raises(KeyboardInterrupt):
        loop_openai_chat(lambda transcript: _asking(CHAT, 1), first, interrupted, CONTEXT)
    assert first == _first_message(CHAT)
