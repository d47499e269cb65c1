"""The few real choices a platform leaves open, set in `[tool.toolgen]` (each platform's are
declared in `toolgen.render.registry`, which the configuration checks them against)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class RenderOptions:
    #: OpenAI: send strict schemas where the schema allows (`openai_strict`)
    openai_strict: bool = True
    #: Anthropic: send `strict: true` with the strict subset applied (`anthropic_strict`)
    anthropic_strict: bool = False
    #: Gemini: `parameters` in the OpenAPI subset, or `parameters_json_schema` (`gemini_schema`)
    gemini_schema: Literal["openapi", "json_schema"] = "openapi"
    #: MCP: the specification revision the tools/list result follows (`mcp_revision`)
    mcp_revision: Literal["2025-11-25", "2025-06-18"] = "2025-11-25"
    #: every platform: `$ref`s inlined, for clients that cannot resolve them (`inline_defs`)
    inline_defs: bool = False
