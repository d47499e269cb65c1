"""Every platform payload is accepted by the official SDKs, offline.

Each SDK client is built on a mock transport that records the request and answers 400; the test
asserts that the request body carries our payload unchanged, and validates shapes with the SDKs'
own types. The strict subsets are checked by our own checker in test_schemas_valid.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
FOLDERS = [REPO / "generated", REPO / "tests" / "golden" / "zoo"]

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
genai = pytest.importorskip("google.genai")
httpx2 = pytest.importorskip("httpx2")


def _load(folder: Path, relpath: str) -> Any:
    return json.loads((folder / relpath).read_text())


def _recorder() -> tuple[dict[str, Any], Callable[[Any], Any]]:
    seen: dict[str, Any] = {}

    def handler(request: Any) -> Any:
        seen["url"] = str(request.url)
        seen["body"] = json.loads(request.content)
        return httpx2.Response(400, json={"error": {"message": "mock", "type": "invalid"}})

    return seen, handler


def _openai_client() -> tuple[dict[str, Any], Any]:
    seen, handler = _recorder()
    client = openai.OpenAI(
        api_key="test",
        base_url="http://mock.invalid/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        max_retries=0,
    )
    return seen, client


@pytest.fixture(params=FOLDERS, ids=lambda f: f.name)
def folder(request: pytest.FixtureRequest) -> Path:
    return Path(request.param)


def test_openai_chat_completions_sends_our_tools_unchanged(folder: Path) -> None:
    from openai.types.chat import ChatCompletionFunctionToolParam
    from pydantic import TypeAdapter

    tools = _load(folder, "openai/chat_completions.json")
    adapter = TypeAdapter(ChatCompletionFunctionToolParam)
    for tool in tools:
        adapter.validate_python(tool)
    seen, client = _openai_client()
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "hi"}], tools=tools
        )
    assert seen["url"].endswith("/chat/completions")
    assert seen["body"]["tools"] == tools


def test_openai_responses_sends_our_tools_unchanged(folder: Path) -> None:
    from openai.types.responses import FunctionToolParam
    from pydantic import TypeAdapter

    tools = _load(folder, "openai/responses.json")
    adapter = TypeAdapter(FunctionToolParam)
    for tool in tools:
        adapter.validate_python(tool)
        assert set(tool) >= {"type", "name", "parameters", "strict"}  # required by the SDK
    seen, client = _openai_client()
    with pytest.raises(openai.BadRequestError):
        client.responses.create(model="gpt-test", input="hi", tools=tools)
    assert seen["url"].endswith("/responses")
    assert seen["body"]["tools"] == tools


def test_anthropic_messages_sends_our_tools_unchanged(folder: Path) -> None:
    from anthropic.types import ToolParam
    from pydantic import TypeAdapter

    tools = _load(folder, "anthropic/tools.json")
    adapter = TypeAdapter(ToolParam)
    for tool in tools:
        adapter.validate_python(tool)
    seen, handler = _recorder()
    client = anthropic.Anthropic(
        api_key="test",
        base_url="http://mock.invalid",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        max_retries=0,
    )
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(
            model="claude-test",
            max_tokens=16,
            messages=[{"role": "user", "content": "hi"}],
            tools=tools,
        )
    assert seen["url"].endswith("/v1/messages")
    assert seen["body"]["tools"] == tools


def test_gemini_declarations_validate_and_are_sent(folder: Path) -> None:
    import httpx
    from google.genai import errors, types

    declarations = _load(folder, "gemini/function_declarations.json")["function_declarations"]
    parsed = [types.FunctionDeclaration.model_validate(d) for d in declarations]
    seen: dict[str, Any] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["body"] = json.loads(request.content)
        return httpx.Response(
            400, json={"error": {"code": 400, "message": "mock", "status": "INVALID_ARGUMENT"}}
        )

    client = genai.Client(
        api_key="test",
        http_options=types.HttpOptions(
            base_url="http://mock.invalid",
            httpx_client=httpx.Client(transport=httpx.MockTransport(handler)),
        ),
    )
    with pytest.raises(errors.ClientError):
        client.models.generate_content(
            model="gemini-test",
            contents="hi",
            config=types.GenerateContentConfig(tools=[types.Tool(function_declarations=parsed)]),
        )
    sent = seen["body"]["tools"][0]["functionDeclarations"]
    assert _camel_keys(sent) == declarations  # the SDK writes some keys in snake_case


def _camel_keys(value: Any, *, in_properties: bool = False) -> Any:
    """The SDK sends `min_length` for `minLength` (the API accepts both spellings)."""
    if isinstance(value, dict):
        return {
            (k if in_properties else re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k)): (
                _camel_keys(v, in_properties=k == "properties" and not in_properties)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_camel_keys(v) for v in value]
    return value


def test_mcp_tools_validate_with_the_sdk_types(folder: Path) -> None:
    from mcp import types

    for tool in _load(folder, "mcp/tools.json")["tools"]:
        parsed = types.Tool.model_validate(tool)
        assert parsed.name == tool["name"]
