"""The few real choices a platform leaves open, set in `[tool.toolgen]` (each platform's are
declared in `toolgen.render.registry`, which the configuration checks them against)."""

from __future__ import annotations

from dataclasses import dataclass, fields
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
    #: the options of platforms registered without a field here, as (key, value) pairs: a new
    #: platform declares its options in the registry and reads them with `value`
    extra: tuple[tuple[str, bool | str], ...] = ()

    def value(self, key: str) -> bool | str:
        """The option `key`, a field above or one of `extra`; KeyError when it is neither."""
        if key in _FIELDS:
            found: bool | str = getattr(self, key)
            return found
        return dict(self.extra)[key]

    @classmethod
    def of(cls, values: dict[str, bool | str], inline_defs: bool = False) -> RenderOptions:
        """Options from the checked `[tool.toolgen]` values of every registered option."""
        typed = {k: v for k, v in values.items() if k in _FIELDS}
        extra = tuple(sorted((k, v) for k, v in values.items() if k not in _FIELDS))
        return cls(**typed, inline_defs=inline_defs, extra=extra)  # type: ignore[arg-type]


_FIELDS = frozenset(f.name for f in fields(RenderOptions)) - {"extra"}
