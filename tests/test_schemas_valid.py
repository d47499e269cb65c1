"""Every schema toolgen emits is a valid JSON Schema 2020-12 document, every payload keeps
the platform's hard rules, and every example validates against its own contract."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from toolgen.descriptor import NAME_PATTERN, ToolDescriptor, descriptor_json_schema

REPO = Path(__file__).resolve().parent.parent
OUTPUTS = [REPO / "generated", REPO / "tests" / "golden" / "zoo"]
#: The MCP specification's JSON Schema (vendored: tests/reference/README.md)
MCP_SCHEMA = REPO / "tests" / "reference" / "mcp-schema" / "2025-11-25.json"


def _load(folder: Path, relpath: str) -> Any:
    return json.loads((folder / relpath).read_text())


def _schemas(folder: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted((folder / "descriptors").glob("*.json")):
        d = json.loads(path.read_text())
        yield f"{path.name}:parameters", d["parameters"]
        yield f"{path.name}:returns", d["returns"]["schema"]
    for tool in _load(folder, "openai/chat_completions.json"):
        yield f"openai:{tool['function']['name']}", tool["function"]["parameters"]
    for tool in _load(folder, "anthropic/tools.json"):
        yield f"anthropic:{tool['name']}", tool["input_schema"]
    for tool in _load(folder, "mcp/tools.json")["tools"]:
        yield f"mcp:{tool['name']}:input", tool["inputSchema"]
        if "outputSchema" in tool:
            yield f"mcp:{tool['name']}:output", tool["outputSchema"]


CASES = [pytest.param(s, id=f"{f.name}/{n}") for f in OUTPUTS for n, s in _schemas(f)]


@pytest.mark.parametrize("schema", CASES)
def test_schema_is_valid_2020_12(schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("folder", OUTPUTS, ids=lambda f: f.name)
def test_descriptors_validate_against_the_published_descriptor_schema(folder: Path) -> None:
    validator = Draft202012Validator(descriptor_json_schema())
    for path in (folder / "descriptors").glob("*.json"):
        data = json.loads(path.read_text())
        assert list(validator.iter_errors(data)) == [], path.name
        assert ToolDescriptor.model_validate(data).to_json_dict() == data


@pytest.mark.parametrize("folder", OUTPUTS, ids=lambda f: f.name)
def test_examples_validate_against_their_contract(folder: Path) -> None:
    for path in (folder / "descriptors").glob("*.json"):
        d = json.loads(path.read_text())
        for example in d["examples"]:
            if example.get("error", {}).get("code") == "VALIDATION_ERROR":
                assert not Draft202012Validator(d["parameters"]).is_valid(example["arguments"])
                continue
            Draft202012Validator(d["parameters"]).validate(example["arguments"])
            if "result" in example:
                Draft202012Validator(d["returns"]["schema"]).validate(example["result"])


@pytest.mark.parametrize("folder", OUTPUTS, ids=lambda f: f.name)
def test_platform_hard_rules(folder: Path) -> None:
    descriptors = {
        p.stem: json.loads(p.read_text()) for p in (folder / "descriptors").glob("*.json")
    }
    visible = sorted(n for n, d in descriptors.items() if d["risk"] != "forbidden")
    for name in descriptors:
        assert __import__("re").fullmatch(NAME_PATTERN, name)

    chat = _load(folder, "openai/chat_completions.json")
    responses = _load(folder, "openai/responses.json")
    assert [t["function"]["name"] for t in chat] == visible
    assert [t["name"] for t in responses] == visible
    for c, r in zip(chat, responses, strict=True):
        assert r == {"type": "function", **c["function"]}
        if c["function"]["strict"]:
            _assert_openai_strict(c["function"]["parameters"])

    anthropic = _load(folder, "anthropic/tools.json")
    assert [t["name"] for t in anthropic] == visible
    for tool in anthropic:
        assert tool["input_schema"]["type"] == "object"
        assert not {"anyOf", "oneOf", "allOf"} & set(tool["input_schema"])
        for example in tool.get("input_examples", []):
            Draft202012Validator(tool["input_schema"]).validate(example)

    gemini = _load(folder, "gemini/function_declarations.json")["function_declarations"]
    assert {d["name"] for d in gemini} <= set(visible)
    for decl in gemini:
        _assert_gemini_subset(decl["parameters"])

    mcp = _load(folder, "mcp/tools.json")["tools"]
    assert [t["name"] for t in mcp] == visible
    spec = json.loads(MCP_SCHEMA.read_text())
    tool_validator = Draft202012Validator({"$ref": "#/$defs/Tool", "$defs": spec["$defs"]})
    for tool in mcp:
        assert list(tool_validator.iter_errors(tool)) == [], tool["name"]


def _walk(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        yield schema
        for key, value in schema.items():
            if key in ("properties", "$defs"):
                for sub in value.values():
                    yield from _walk(sub)
            elif key not in ("enum", "const", "default", "examples", "required"):
                yield from _walk(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _walk(item)


def _assert_openai_strict(schema: dict[str, Any]) -> None:
    assert schema["type"] == "object"
    for node in _walk(schema):
        assert "default" not in node
        if "$ref" in node:
            assert set(node) == {"$ref"}
        if node.get("type") == "object" or "properties" in node:
            assert node["additionalProperties"] is False
            assert node["required"] == list(node["properties"])


def _assert_gemini_subset(schema: dict[str, Any]) -> None:
    for node in _walk(schema):
        assert not {
            "$ref",
            "$defs",
            "additionalProperties",
            "const",
            "$schema",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "prefixItems",
        } & set(node)
        if "type" in node:
            assert isinstance(node["type"], str) and node["type"].isupper()
        if "enum" in node:
            assert all(isinstance(v, str) for v in node["enum"])
