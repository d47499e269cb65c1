"""The `@tool` marker: a run-time no-op that the static compiler recognises.

This module must stay import-light (standard library only): servers import it in production.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, TypeVar, overload

F = TypeVar("F", bound=Callable[..., Any])

#: Keyword arguments `@tool(...)` takes (DESIGN §1, §3): the contract fields a tool's code may
#: state; a contract table states the same but `name` (`toolgen.contract_config`).
TOOL_KEYWORDS = frozenset(
    {
        "name",
        "title",
        "category",
        "risk",
        "autonomous",
        "confirmation",
        "reason",
        "step_up_auth",
        "permissions",
        "side_effects",
        "audit_event",
        "dry_run",
        "version",
        "deprecated",
        "replacement",
        "rate_limits",
        "auth",
        "latency_p50_ms",
        "cost_hint",
        "keywords",
        "open_world",
    }
)

#: Attribute set on a marked function, holding the decorator's keyword arguments.
TOOL_ATTRIBUTE = "__toolgen_tool__"


class ToolError(Exception):
    """Raise from a handler to fail with one of its declared error codes.

    The runtime (`toolgen.runtime`, and `toolgen serve` on it) answers it with the envelope
    `{"status": "error", "error": {"code", "message", "retryable", "human_review",
    "http_status", "recovery", "trace_id", ...details}}`, the taxonomy fields taken from the
    tool's descriptor.
    """

    def __init__(self, code: str, message: str = "", **details: Any) -> None:
        super().__init__(message or code)
        self.code = code
        self.message = message or code
        self.details = details


@overload
def tool(fn: F, /) -> F: ...


@overload
def tool(fn: None = None, /, **options: Any) -> Callable[[F], F]: ...


def tool(fn: F | None = None, /, **options: Any) -> F | Callable[[F], F]:
    """Mark a function as an LLM tool handler; returns the function unchanged.

    Use it bare (`@tool`) or with literal keyword arguments (`@tool(risk="high")`). The
    arguments are read statically by `toolgen build`; at run time they are only recorded on
    the function as `__toolgen_tool__`.
    """

    def mark(func: F) -> F:
        # builtins and some C callables take no attributes; they are still valid handlers
        with contextlib.suppress(AttributeError, TypeError):
            setattr(func, TOOL_ATTRIBUTE, dict(options))
        return func

    if fn is not None:
        return mark(fn)
    return mark
