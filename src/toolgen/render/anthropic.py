"""Anthropic Messages API tools: name, description, input_schema, input_examples.

`input_examples` are the arguments of the descriptor's success examples that pass every
required parameter; the compiler has already validated their values against the parameters
schema (the API rejects a request whose example does not validate). Partial examples (warning
TG504) stay in the descriptor as documentation only.
"""

from __future__ import annotations

from typing import Any

from toolgen.descriptor import ToolDescriptor


def render(tools: list[ToolDescriptor], report: Any) -> dict[str, Any]:
    payload: list[dict[str, Any]] = []
    for tool in tools:
        entry: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "input_schema": tool.parameters,
        }
        required = tool.parameters.get("required", [])
        examples = [
            e.arguments
            for e in tool.examples
            if e.error is None and all(name in e.arguments for name in required)
        ]
        if examples:
            entry["input_examples"] = examples
        payload.append(entry)
    return {"anthropic/tools.json": payload}
