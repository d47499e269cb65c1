"""`ToolChoice`: what the model may do with its tools on a turn, in each vendor's form.

Four intents: `auto` (the model decides), `required` (it must call some tool: Anthropic's and
Gemini's `any`), `tool(name)` (it must call that one) and `none` (it must not call any).
`openai_chat()`, `openai_responses()`, `anthropic()` and `gemini()` give the intent as that
vendor's request wants it (`tool_choice`; Gemini's `tool_config`). Given a toolbox, a named tool
must be one of its callable tools: a forbidden one is refused with the very words of a tool
that does not exist, as a call of it would be (reference/runtime.md, risk levels).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from toolgen.runtime.values import quote

if TYPE_CHECKING:
    from toolgen.runtime.toolbox import Toolbox

Mode = Literal["auto", "required", "tool", "none"]


@dataclass(frozen=True)
class ToolChoice:
    """One of the four intents; `name` is the tool's for `tool` only. Made by the class
    methods (`ToolChoice.tool("calculator")`)."""

    mode: Mode
    name: str | None = None

    def __post_init__(self) -> None:
        if self.mode not in ("auto", "required", "tool", "none"):
            raise ValueError(f"no tool choice {quote(self.mode)}")
        if (self.mode == "tool") != isinstance(self.name, str) or self.name == "":
            raise ValueError("a tool name is given with `tool` only, and is not empty")

    @classmethod
    def auto(cls) -> ToolChoice:
        """The model decides whether to call tools, and which."""
        return cls("auto")

    @classmethod
    def required(cls) -> ToolChoice:
        """The model must call at least one tool (Anthropic's and Gemini's `any`)."""
        return cls("required")

    @classmethod
    def tool(cls, name: str) -> ToolChoice:
        """The model must call the tool `name`."""
        return cls("tool", name)

    @classmethod
    def none(cls) -> ToolChoice:
        """The model must not call any tool."""
        return cls("none")

    def openai_chat(self, toolbox: Toolbox | None = None) -> str | dict[str, Any]:
        """Chat Completions' `tool_choice`: `"auto"`, `"required"`, `"none"` or
        `{"type": "function", "function": {"name": ...}}`."""
        name = self._named(toolbox)
        if name is None:
            return self.mode
        return {"type": "function", "function": {"name": name}}

    def openai_responses(self, toolbox: Toolbox | None = None) -> str | dict[str, Any]:
        """Responses' `tool_choice`: `"auto"`, `"required"`, `"none"` or
        `{"type": "function", "name": ...}`."""
        name = self._named(toolbox)
        if name is None:
            return self.mode
        return {"type": "function", "name": name}

    def anthropic(self, toolbox: Toolbox | None = None) -> dict[str, Any]:
        """Messages' `tool_choice`: `{"type": "auto" | "any" | "none"}` or
        `{"type": "tool", "name": ...}`."""
        name = self._named(toolbox)
        if name is not None:
            return {"type": "tool", "name": name}
        return {"type": "any" if self.mode == "required" else self.mode}

    def gemini(self, toolbox: Toolbox | None = None) -> dict[str, Any]:
        """Gemini's `tool_config` (of `GenerateContentConfig`): `function_calling_config` with
        `mode` `AUTO`, `ANY` or `NONE`, and `allowed_function_names` for a named tool."""
        name = self._named(toolbox)
        if name is not None:
            config: dict[str, Any] = {"mode": "ANY", "allowed_function_names": [name]}
        else:
            config = {"mode": "ANY" if self.mode == "required" else self.mode.upper()}
        return {"function_calling_config": config}

    def _named(self, toolbox: Toolbox | None) -> str | None:
        """The tool's name for `tool`, checked against `toolbox`'s callable tools."""
        name = self.name
        if name is None or toolbox is None:
            return name
        if name not in toolbox.catalog.descriptors:  # the callable tools: forbidden ones never
            listed = ", ".join(toolbox.names) or "(none)"
            raise ValueError(f"unknown tool {quote(name)}; available tools: {listed}")
        return name
