"""`ToolChoice`: each intent in each vendor's form, as the vendor's own SDK types take it, and
a named tool checked against a toolbox's callable tools (a forbidden one is not there)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from anthropic.types import ToolChoiceParam
from google.genai import types as genai
from openai.types.chat import ChatCompletionToolChoiceOptionParam
from openai.types.responses.response_create_params import ToolChoice as ResponsesToolChoice
from pydantic import TypeAdapter

from toolgen.runtime import Toolbox, ToolChoice, loop_anthropic, loop_gemini, loop_openai_chat

REPO = Path(__file__).resolve().parent.parent.parent

CHAT = TypeAdapter(ChatCompletionToolChoiceOptionParam)
RESPONSES = TypeAdapter(ResponsesToolChoice)
ANTHROPIC = TypeAdapter(ToolChoiceParam)

#: (intent, Chat's, Responses', Anthropic's, Gemini's function_calling_config)
FORMS: list[tuple[ToolChoice, Any, Any, Any, dict[str, Any]]] = [
    (ToolChoice.auto(), "auto", "auto", {"type": "auto"}, {"mode": "AUTO"}),
    (ToolChoice.required(), "required", "required", {"type": "any"}, {"mode": "ANY"}),
    (ToolChoice.none(), "none", "none", {"type": "none"}, {"mode": "NONE"}),
    (
        ToolChoice.tool("calculator"),
        {"type": "function", "function": {"name": "calculator"}},
        {"type": "function", "name": "calculator"},
        {"type": "tool", "name": "calculator"},
        {"mode": "ANY", "allowed_function_names": ["calculator"]},
    ),
]


@pytest.fixture(scope="module")
def box() -> Toolbox:
    return Toolbox.load(REPO / "generated", store="memory://", audit=lambda event: None)


@pytest.mark.parametrize(
    ("choice", "chat", "responses", "anthropic", "gemini"),
    FORMS,
    ids=[form[0].mode for form in FORMS],
)
def test_each_intent_in_each_vendors_form(
    choice: ToolChoice, chat: Any, responses: Any, anthropic: Any, gemini: Any, box: Toolbox
) -> None:
    """The forms, equal with a toolbox or without, and valid as the SDKs type them."""
    for given in (None, box):
        assert choice.openai_chat(given) == chat
        assert choice.openai_responses(given) == responses
        assert choice.anthropic(given) == anthropic
        assert choice.gemini(given) == {"function_calling_config": gemini}
    assert CHAT.validate_python(chat) == chat
    assert RESPONSES.validate_python(responses) == responses
    assert ANTHROPIC.validate_python(anthropic) == anthropic
    config = genai.ToolConfig.model_validate(choice.gemini()).function_calling_config
    assert config is not None
    assert config.mode == genai.FunctionCallingConfigMode(gemini["mode"])
    assert config.allowed_function_names == gemini.get("allowed_function_names")


def test_a_forbidden_tool_cannot_be_named(box: Toolbox) -> None:
    """`read_private_key` is forbidden: naming it fails in the words of a tool that does not
    exist, which are those a call of it is answered with."""
    assert "read_private_key" in box.catalog.all
    assert "read_private_key" not in box.names
    said = {}
    for name in ("read_private_key", "no_such_tool"):
        for form in ("openai_chat", "openai_responses", "anthropic", "gemini"):
            with pytest.raises(ValueError) as caught:
                getattr(ToolChoice.tool(name), form)(box)
            said[name, form] = str(caught.value).replace(name, "NAME")
    assert len(set(said.values())) == 1
    called = box.call("read_private_key", {})
    assert called.error is not None
    assert called.error["message"] == str(caught.value).replace("no_such_tool", "read_private_key")


@pytest.mark.parametrize("loop", [loop_openai_chat, loop_anthropic, loop_gemini])
def test_a_loop_refuses_a_forbidden_tool_choice_before_asking(loop: Any, box: Toolbox) -> None:
    asked: list[Any] = []
    with pytest.raises(ValueError, match="unknown tool 'read_private_key'"):
        loop(asked.append, [], box, tool_choice=ToolChoice.tool("read_private_key"))
    assert asked == []


@pytest.mark.parametrize(
    ("mode", "name"), [("tool", None), ("tool", ""), ("auto", "calculator"), ("any", None)]
)
def test_a_malformed_choice_is_refused(mode: Any, name: Any) -> None:
    with pytest.raises(ValueError):
        ToolChoice(mode, name)
