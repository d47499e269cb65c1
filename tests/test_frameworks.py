"""Foreign markers: toolgen reads FastMCP, MCP SDK, OpenAI Agents, LangChain and pydantic-ai
tools unchanged, and its parameters schema equals what each framework publishes at run time.

The fixtures (tests/fixtures/frameworks/) are written in each framework's own style, with
context parameters, aliases, name/description overrides, MCP annotations, a registration
function and a wrapper decorator that injects a parameter. Each framework is imported here
(only here) to ask it what it publishes; toolgen itself never imports the fixtures.

Compared after dropping titles everywhere (toolgen never emits them) and, per framework, the
differences listed in NORMALISE with their reasons.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolgen.config import load_config
from toolgen.descriptor import ToolDescriptor
from toolgen.pipeline import generate
from toolgen.schema_ops import closed_objects

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
FRAMEWORKS = FIXTURES / "frameworks"


def _static(preset: str) -> dict[str, ToolDescriptor]:
    config = load_config(FRAMEWORKS / f"{preset}.toml", cwd=REPO)
    # compared with the framework on this Python: a docstring is what this Python makes of it
    config = dataclasses.replace(config, python=(sys.version_info[0], sys.version_info[1]))
    result = generate(config)
    assert [d.format_text() for d in result.diagnostics if d.severity.value == "error"] == []
    return {d.name: d for d in result.descriptors}


def _module(name: str) -> Any:
    if str(FIXTURES) not in sys.path:
        sys.path.insert(0, str(FIXTURES))
    return importlib.import_module(f"frameworks.{name}")


# -- what each framework publishes ---------------------------------------------------------
def _fastmcp() -> dict[str, dict[str, Any]]:
    server = _module("fastmcp_server").mcp
    tools = asyncio.run(server.list_tools())
    return {t.name: t.parameters for t in tools}


def _mcp() -> dict[str, dict[str, Any]]:
    server = _module("mcp_server").server
    tools = asyncio.run(server.list_tools())
    # MCP SDK v2 names the field `input_schema` (v1: `inputSchema`)
    return {t.name: getattr(t, "input_schema", None) or t.inputSchema for t in tools}


def _openai_agents() -> dict[str, dict[str, Any]]:
    from agents import FunctionTool

    module = _module("agents_tools")
    tools = [v for v in vars(module).values() if isinstance(v, FunctionTool)]
    return {t.name: t.params_json_schema for t in tools}


def _langchain_tools() -> list[Any]:
    """The fixture's `@tool` functions, and an instance of each tool class LangChain can build
    with no arguments (one that leaves its name to its constructor cannot be)."""
    import inspect

    from langchain_core.tools import BaseTool

    tools = [v for v in vars(_module("langchain_tools")).values() if isinstance(v, BaseTool)]
    for name in ("langchain_classes", "langchain_base"):
        module = _module(name)
        for cls in vars(module).values():
            if not (isinstance(cls, type) and issubclass(cls, BaseTool)):
                continue
            if cls.__module__ != module.__name__ or inspect.isabstract(cls):
                continue
            try:
                tools.append(cls())
            except Exception:  # pydantic's ValidationError: no name or description given
                continue
    return tools


def _langchain() -> dict[str, dict[str, Any]]:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    tools = _langchain_tools()
    return {t.name: convert_to_openai_tool(t)["function"]["parameters"] for t in tools}


def _pydantic_ai() -> dict[str, dict[str, Any]]:
    agent = _module("pydanticai_tools").agent
    tools = agent._function_toolset.tools  # no public listing without running the agent
    return {name: t.tool_def.parameters_json_schema for name, t in tools.items()}


PUBLISHED: dict[str, tuple[str, Callable[[], dict[str, dict[str, Any]]]]] = {
    "fastmcp": ("fastmcp", _fastmcp),
    "mcp": ("mcp", _mcp),
    "openai-agents": ("agents", _openai_agents),
    "langchain": ("langchain_core", _langchain),
    "pydantic-ai": ("pydantic_ai", _pydantic_ai),
}


# -- normalisation ---------------------------------------------------------------------------
def drop(value: Any, keys: set[str], *, in_properties: bool = False) -> Any:
    """`value` without `keys` anywhere (property names themselves are never dropped)."""
    if isinstance(value, dict):
        return {
            k: drop(v, keys, in_properties=k in ("properties", "$defs") and not in_properties)
            for k, v in value.items()
            if in_properties or k not in keys
        }
    if isinstance(value, list):
        return [drop(v, keys) for v in value]
    return value


def _descriptions_only_where(published: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    """Frameworks that read no docstring: keep toolgen's description only where they have one."""
    props = {}
    for name, schema in ours.get("properties", {}).items():
        if "description" not in published.get("properties", {}).get(name, {}):
            schema = {k: v for k, v in schema.items() if k != "description"}
        props[name] = schema
    return {**ours, "properties": props}


#: Per framework: keys dropped on both sides, and why.
NORMALISE: dict[str, tuple[set[str], str]] = {
    "fastmcp": (set(), "none: FastMCP publishes pydantic's schema with refs inlined, as we do"),
    "mcp": (
        {"additionalProperties"},
        "the MCP SDK leaves the root open; toolgen closes it (a model must not invent arguments)",
    ),
    "openai-agents": (
        {"required", "additionalProperties", "default"},
        "the Agents SDK publishes its strict form (everything required, defaults dropped where "
        "None); toolgen's descriptor keeps the canonical form and renders strict per platform",
    ),
    "langchain": (set(), "none: the descriptor holds what LangChain sends, as it sends it"),
    "pydantic-ai": (set(), "none"),
}


@pytest.mark.parametrize("preset", list(PUBLISHED))
def test_static_schema_equals_what_the_framework_publishes(preset: str) -> None:
    package, published_by = PUBLISHED[preset]
    pytest.importorskip(package)
    ours = _static(preset)
    published = published_by()
    assert sorted(ours) == sorted(published), "the same tools, under the same names"
    keys, _reason = NORMALISE[preset]
    for name, theirs in published.items():
        mine = ours[name].parameters
        if preset == "langchain":  # what it sends is in the descriptor as it sends it
            framework = ours[name].framework
            assert framework is not None and framework.openai is not None
            assert framework.openai["parameters"] == theirs, name
            continue
        if preset == "mcp":
            mine = _descriptions_only_where(theirs, mine)
        # the descriptor closes nested objects (toolgen's run time checks them so); the
        # framework's own payload, its `framework` block, stays as it publishes it
        theirs = closed_objects(theirs)
        assert drop(mine, keys | {"title"}) == drop(theirs, keys | {"title"}), name


def test_langchain_tool_classes_are_read_as_langchain_builds_them() -> None:
    """Each `BaseTool` subclass LangChain can build is a tool, named and described as
    `convert_to_openai_tool` sends it; abstract bases and classes named only where they are
    constructed are not."""
    pytest.importorskip("langchain_core")

    ours = _static("langchain")
    classes = [t for t in _langchain_tools() if type(t).__module__.endswith("_classes")]
    assert sorted(t.name for t in classes) == [
        "calculator",
        "echo",
        "file_tool",
        "notes",
        "order_cancel",
        "order_lookup",
        "search",
    ]
    for tool in classes:
        assert ours[tool.name].source.qualname == f"{type(tool).__name__}._run"
    assert not any(d.source.qualname.startswith("ShopBaseTool") for d in ours.values())


def test_the_run_time_calls_a_langchain_tool_class_where_its_descriptor_points() -> None:
    """A tool class's `source` is its `_run`, which the run time calls on an instance made
    with no arguments, as LangChain builds the tool."""
    pytest.importorskip("langchain_core")
    from toolgen.runtime.handlers import resolve_handler

    _module("langchain_classes")  # the fixtures' package on sys.path
    source = _static("langchain")["calculator"].source
    assert resolve_handler(source.module, source.qualname)(a=3, b=4) == "12"


def test_langchain_descriptions_are_the_ones_it_sends() -> None:
    """A tool's description as `convert_to_openai_tool` sends it: a class's `description`;
    a `@tool` function's whole docstring (its Args section too) unless `parse_docstring=True`
    or `description=` says otherwise."""
    pytest.importorskip("langchain_core")
    from langchain_core.utils.function_calling import convert_to_openai_tool

    ours = _static("langchain")
    for tool in _langchain_tools():
        sent = convert_to_openai_tool(tool)["function"]
        assert ours[tool.name].description == sent["description"], tool.name


def test_langchain_tools_are_sent_to_openai_as_langchain_sends_them() -> None:
    """The OpenAI payload of a LangChain tool is `convert_to_openai_tool`'s, byte for byte
    (keys in its order), for `@tool` functions and tool classes alike."""
    pytest.importorskip("langchain_core")
    import json

    from langchain_core.utils.function_calling import convert_to_openai_tool

    ours = _static("langchain")
    for tool in _langchain_tools():
        framework = ours[tool.name].framework
        assert framework is not None and framework.name == "langchain"
        sent = convert_to_openai_tool(tool)["function"]
        assert json.dumps(framework.openai) == json.dumps(sent), tool.name


def test_pydantic_ai_tools_are_sent_to_openai_as_pydantic_ai_sends_them() -> None:
    """The OpenAI payload of a pydantic-ai tool is what its OpenAI model sends for the tool's
    definition, byte for byte (no request is made: the mapping is a pure function)."""
    pytest.importorskip("pydantic_ai")
    import json

    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(api_key="not-used"))
    ours = _static("pydantic-ai")
    tools = _module("pydanticai_tools").agent._function_toolset.tools
    assert sorted(tools) == sorted(ours)
    for name, tool in tools.items():
        framework = ours[name].framework
        assert framework is not None and framework.name == "pydantic-ai"
        sent = model._map_tool_definition(tool.tool_def, {})["function"]
        assert json.dumps(framework.openai) == json.dumps(sent), name
        assert ours[name].description == sent["description"], name


def test_agents_tools_are_sent_to_openai_as_the_agents_sdk_sends_them() -> None:
    """The OpenAI payload of an Agents SDK tool is `Converter.tool_to_openai`'s, byte for byte:
    pydantic's schema of the `{name}_args` model made strict as `ensure_strict_json_schema`
    makes it."""
    pytest.importorskip("agents")
    import json

    from agents import FunctionTool
    from agents.models.chatcmpl_converter import Converter

    ours = _static("openai-agents")
    tools = [v for v in vars(_module("agents_tools")).values() if isinstance(v, FunctionTool)]
    assert sorted(t.name for t in tools) == sorted(ours)
    for tool in tools:
        framework = ours[tool.name].framework
        assert framework is not None and framework.name == "openai-agents"
        sent = Converter.tool_to_openai(tool)["function"]
        assert json.dumps(framework.openai) == json.dumps(sent), tool.name
        # the descriptor names a tool the framework sends without a description (TG303)
        assert ours[tool.name].description == (sent["description"] or tool.name), tool.name


def test_framework_metadata_maps_onto_the_descriptor() -> None:
    fastmcp = _static("fastmcp")
    ticket = fastmcp["create_ticket"]
    assert ticket.title == "Create a ticket"
    assert ticket.description == "Open a new support ticket."
    assert sorted(ticket.tool_search_keywords or []) == ["tickets", "write"]
    assert ticket.idempotency.model_dump(exclude_none=True) == {
        "idempotent": True,
        "safe": False,
        "destructive": False,
    }
    assert ticket.source.qualname == "open_ticket" and ticket.source.marker == "fastmcp"
    assert fastmcp["ship_to"].idempotency.model_dump(exclude_none=True) == {
        "safe": True,
        "open_world": False,
    }
    assert fastmcp["add_note"].source.qualname == "register.<locals>.add_note"
    assert list(fastmcp["my_tickets"].parameters["properties"]) == ["status"]  # skip_params
    assert list(fastmcp["notify"].parameters["properties"]) == ["recipients", "message"]

    restock = _static("mcp")["restock"]
    assert restock.title == "Restock an item"
    assert restock.idempotency.model_dump(exclude_none=True) == {
        "safe": False,
        "destructive": False,
        "idempotent": False,
    }
    assert _static("mcp")["retire"].description == "Remove an item from sale."

    agents = _static("openai-agents")
    assert agents["find_customers"].description == "Find customers by name."
    assert agents["find_customers"].source.qualname == "search_customers"

    langchain = _static("langchain")
    assert langchain["close_issue"].description == "Close an issue for good."
    assert "web_search" in langchain

    pydantic_ai = _static("pydantic-ai")
    assert pydantic_ai["book_delivery"].description == "Book a delivery slot."
    assert list(pydantic_ai["account_balance"].parameters["properties"]) == [
        "account_id",
        "currency",
    ]


def test_frameworks_are_not_recognised_unless_their_preset_is_configured() -> None:
    config = load_config(
        REPO / "pyproject.toml", cwd=REPO, sources_override=[str(FRAMEWORKS / "agents_tools.py")]
    )
    assert generate(config).descriptors == []


def test_mcp_output_schemas_equal_what_fastmcp_publishes() -> None:
    """`outputSchema`: an object return (a model, a dict) as it is, anything else wrapped as
    `{"result": ...}`; FastMCP marks the wrapped ones with a key of its own."""
    pytest.importorskip("fastmcp")
    from toolgen.render.mcp import output_schema

    ours = _static("fastmcp")
    tools = asyncio.run(_module("fastmcp_server").mcp.list_tools())
    published = {t.name: t.output_schema for t in tools}
    assert any(
        schema and "result" not in schema.get("properties", {}) for schema in published.values()
    )
    for name, theirs in published.items():
        mine = output_schema(ours[name].returns.schema_)
        assert drop(mine, {"title"}) == drop(theirs, {"title", "x-fastmcp-wrap-result"}), name
