"""Marker presets: how each framework marks a tool handler, and what its decorator means.

`markers` in the configuration names the presets to look for. A preset recognises either a
decorator function (`@function_tool`, `@tool`) or a method of a server/agent object
(`@mcp.tool`, `@agent.tool_plain`), says which parameter types the framework injects (never
exposed), how its keyword arguments map onto the descriptor, and how the framework publishes its
own parameters schema, so that toolgen's descriptor matches what that server actually sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from toolgen.config import Config


@dataclass(frozen=True)
class Preset:
    name: str
    #: decorator functions, used bare or called: `@function_tool`, `@tool("name")`
    functions: frozenset[str] = frozenset()
    #: decorator methods (`@x.tool`) and the classes whose instances have them
    methods: frozenset[str] = frozenset()
    factories: frozenset[str] = frozenset()
    #: methods whose handlers take the framework's context as their first parameter
    context_first_methods: frozenset[str] = frozenset()
    #: parameter types the framework injects; never exposed (also through aliases)
    context_types: frozenset[str] = frozenset()
    #: modules whose callables, called as a parameter's default (`bz = Depends(get_bz)`),
    #: make a dependency the framework injects: that parameter is never exposed either
    injected_by: frozenset[str] = frozenset()
    #: decorator keyword → descriptor option (others are the framework's run-time business)
    options: dict[str, str] = field(default_factory=dict)
    #: the decorator's first positional argument, when a string, is the tool name
    positional_name: bool = False
    #: the framework lets the docstring's Args text win over Field(description=...)
    docstring_wins: bool = False
    #: the framework publishes its schema with `$ref`s inlined: "all", or only "with-siblings"
    #: (`{"$ref": ..., "description": ...}`, as the OpenAI Agents SDK's strict form does)
    inline_defs: Literal["all", "with-siblings"] | None = None
    #: toolgen's own marker: every toolgen rule applies in full
    native: bool = False
    #: the framework's version whose rules publish (`Config.publisher`); () the newest
    version: tuple[int, ...] = ()
    #: the JSON type the framework publishes for a parameter without an annotation (None: no
    #: type, as pydantic reads it: `Any`); the MCP SDK says "string"
    untyped: str | None = None
    #: the framework builds its arguments model with pydantic's `arbitrary_types_allowed`: a
    #: type pydantic can only check with `isinstance` (`bytearray`) then has no JSON schema,
    #: and pydantic leaves it out of a union (`SchemaBuilder.arbitrary`)
    arbitrary_types: bool = False
    #: the framework publishes `*args` and `**kwargs` as properties of those names: "as
    #: typed", required, of their annotation (the MCP SDK's arguments model has a field for
    #: each parameter); "containers", an array and an object of their annotation, defaulting
    #: to None (LangChain's, made by pydantic's `validate_arguments`); "" not at all (TG204)
    star_params: Literal["", "as typed", "containers"] = ""
    #: the framework publishes a function's whole docstring as its description, and no
    #: parameter descriptions from it, unless `parse_docstring=True` (LangChain's `@tool`:
    #: `toolgen.analyze.langchain_docs`)
    whole_docstring: bool = False
    #: the framework reads the docstring through griffe its own way, line breaks kept
    #: (`toolgen.analyze.framework_docs`): "openai-agents" or "pydantic-ai"; "" toolgen's reading
    griffe_reader: Literal["", "openai-agents", "pydantic-ai"] = ""
    #: the framework takes a string in a parameter's `Annotated[...]` as its description
    #: (LangChain's `_get_annotation_description`: the first string or described `Field`)
    annotated_text: bool = False
    #: markers in a parameter's `Annotated[...]` metadata (the class or an instance) that say
    #: the framework fills it (LangChain's `InjectedToolArg` and its kinds)
    injected_markers: frozenset[str] = frozenset()
    #: the framework's arguments model is pydantic's `validate_arguments` one, where a
    #: parameter whose name starts with `_` is a private attribute, not a field (LangChain)
    private_underscore: bool = False
    #: parameters the framework fills by their name, never a model (LangChain's `run_manager`
    #: and `callbacks`, `FILTERED_ARGS`)
    filled_params: frozenset[str] = frozenset()
    #: base classes whose subclasses are tools (LangChain's `BaseTool`), by their dotted paths
    #: (`toolgen.read.tool_classes`)
    tool_bases: frozenset[str] = frozenset()


_MCP_CONTEXT = frozenset(
    {
        "fastmcp.Context",
        "fastmcp.server.context.Context",
        "fastmcp.server.Context",
        "mcp.server.fastmcp.Context",
        "mcp.server.fastmcp.server.Context",
        "mcp.server.mcpserver.Context",
        "mcp.server.mcpserver.context.Context",
    }
)
_MCP_OPTIONS = {
    "name": "name",
    "title": "title",
    "description": "description",
    "annotations": "annotations",
    "tags": "keywords",
}

PRESETS: dict[str, Preset] = {
    "toolgen": Preset(
        "toolgen", functions=frozenset({"toolgen.tool", "toolgen._marker.tool"}), native=True
    ),
    "fastmcp": Preset(
        "fastmcp",
        methods=frozenset({"tool"}),
        factories=frozenset(
            {"fastmcp.FastMCP", "fastmcp.server.FastMCP", "fastmcp.server.server.FastMCP"}
        ),
        context_types=_MCP_CONTEXT,
        # `Depends(...)`, `CurrentContext()`, `CurrentHeaders()`: FastMCP's dependencies
        injected_by=frozenset(
            {"fastmcp.dependencies", "fastmcp.server.dependencies", "uncalled_for", "docket"}
        ),
        options=_MCP_OPTIONS,
        positional_name=True,
        inline_defs="all",
    ),
    "mcp": Preset(
        "mcp",
        methods=frozenset({"tool"}),
        factories=frozenset(
            {
                "mcp.server.fastmcp.FastMCP",
                "mcp.server.fastmcp.server.FastMCP",
                "mcp.server.mcpserver.MCPServer",
                "mcp.server.mcpserver.server.MCPServer",
                # the low-level server: its tools are what its tools/list handler returns
                "mcp.server.Server",
                "mcp.server.lowlevel.Server",
                "mcp.server.lowlevel.server.Server",
            }
        ),
        context_types=_MCP_CONTEXT,
        options=_MCP_OPTIONS,
        positional_name=True,  # `tool(name=None, title=None, ...)`: `@mcp.tool("x")`
        untyped="string",
        arbitrary_types=True,  # `ArgModelBase.model_config`
        star_params="as typed",
    ),
    "openai-agents": Preset(
        "openai-agents",
        functions=frozenset({"agents.function_tool", "agents.tool.function_tool"}),
        context_types=frozenset(
            {
                "agents.RunContextWrapper",
                "agents.run_context.RunContextWrapper",
                "agents.ToolContext",
                "agents.tool_context.ToolContext",
            }
        ),
        options={
            "name_override": "name",
            "description_override": "description",
            "strict_mode": "strict_mode",
            "needs_approval": "approval",  # a person approves each call (or a rule does)
        },
        docstring_wins=True,
        inline_defs="with-siblings",
        griffe_reader="openai-agents",
    ),
    "langchain": Preset(
        "langchain",
        functions=frozenset(
            {
                "langchain_core.tools.tool",
                "langchain_core.tools.convert.tool",
                "langchain.tools.tool",
                "langchain.agents.tool",
                # `StructuredTool.from_function(fn, name=..., description=...)`
                "langchain_core.tools.StructuredTool.from_function",
                "langchain_core.tools.structured.StructuredTool.from_function",
                "langchain.tools.StructuredTool.from_function",
            }
        ),
        options={
            "name": "name",  # `StructuredTool.from_function(fn, name=...)`
            "description": "description",
            "args_schema": "args_schema",
            "parse_docstring": "parse_docstring",
        },
        positional_name=True,
        inline_defs="all",  # what convert_to_openai_tool sends when tools are bound to a model
        filled_params=frozenset({"run_manager", "callbacks"}),
        private_underscore=True,
        # what LangChain fills itself, never the model (`_is_injected_arg_type`, and a
        # parameter typed `RunnableConfig`, `_get_runnable_config_param`)
        context_types=frozenset(
            {
                "langchain_core.runnables.RunnableConfig",
                "langchain_core.runnables.config.RunnableConfig",
                "langchain.tools.ToolRuntime",
                "langchain.tools.tool_node.ToolRuntime",
                "langgraph.prebuilt.ToolRuntime",
                "langgraph.prebuilt.tool_node.ToolRuntime",
            }
        ),
        injected_markers=frozenset(
            {
                f"{module}.{name}"
                for module in (
                    "langchain_core.tools",
                    "langchain_core.tools.base",
                    "langchain.tools",
                    "langgraph.prebuilt",
                    "langgraph.prebuilt.tool_node",
                )
                for name in (
                    "InjectedToolArg",
                    "InjectedToolCallId",
                    "InjectedState",
                    "InjectedStore",
                )
            }
        ),
        annotated_text=True,
        whole_docstring=True,
        star_params="containers",
        # `BaseTool` where it is defined, and the names LangChain's packages give it
        tool_bases=frozenset(
            {
                "langchain_core.tools.base.BaseTool",
                "langchain_core.tools.BaseTool",
                "langchain.tools.BaseTool",
                "langchain.tools.base.BaseTool",
                "langchain_community.tools.BaseTool",
            }
        ),
    ),
    "pydantic-ai": Preset(
        "pydantic-ai",
        methods=frozenset({"tool", "tool_plain"}),
        factories=frozenset({"pydantic_ai.Agent", "pydantic_ai.agent.Agent"}),
        context_first_methods=frozenset({"tool"}),
        context_types=frozenset(
            {
                "pydantic_ai.RunContext",
                "pydantic_ai.tools.RunContext",
                "pydantic_ai._run_context.RunContext",
            }
        ),
        options={
            "name": "name",
            "description": "description",
            "requires_approval": "approval",  # the run defers the call for a person's yes
        },
        griffe_reader="pydantic-ai",
    ),
}


def presets(names: tuple[str, ...]) -> list[Preset]:
    """The presets configured by name (the config has already checked the names)."""
    return [PRESETS[name] for name in names]


def config_presets(config: Config) -> list[Preset]:
    """The configured presets, then one per `[tool.toolgen.decorators]` entry: a project's
    own decorator (its dotted import path), read as the preset it names reads its own
    decorator's arguments. Such a decorator marks a handler wherever it is used; the server
    it hands the function to later is the project's business."""
    declared = [
        replace(
            PRESETS[preset],
            functions=frozenset({path}),
            methods=frozenset(),
            factories=frozenset(),
            native=PRESETS[preset].native,
        )
        for path, preset, _ in config.decorators
    ]
    return [*(_versioned(p, config) for p in presets(config.markers)), *declared]


def _versioned(preset: Preset, config: Config) -> Preset:
    """`preset` with the version of its framework that publishes, if it has one."""
    framework = config.publisher(preset.name)
    return preset if framework is None else replace(preset, version=framework.at)
