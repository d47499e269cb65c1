"""The marker's literal keyword arguments (`@tool(risk="high", ...)`), read without running them."""

from __future__ import annotations

import ast
from typing import Any

from toolgen.analyze.handlers import Handler
from toolgen.analyze.literals import jsonable
from toolgen.diagnostics import Diagnostic

#: Keyword arguments `@tool(...)` accepts (DESIGN §1, §3).
DECORATOR_KEYS = frozenset(
    {
        "name",
        "title",
        "category",
        "risk",
        "autonomous",
        "confirmation",
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


def decorator_options(
    handler: Handler,
) -> tuple[dict[str, Any], dict[str, ast.AST], list[Diagnostic]]:
    """The options, the node of each (for locating later errors), and problems found."""
    decorator = handler.decorator
    module = handler.module
    options: dict[str, Any] = {}
    nodes: dict[str, ast.AST] = {}
    problems: list[Diagnostic] = []
    if not isinstance(decorator, ast.Call):
        return options, nodes, problems
    for arg in decorator.args:
        problems.append(
            Diagnostic("TG402", "@tool takes keyword arguments only", module.location(arg))
        )
    for kw in decorator.keywords:
        if kw.arg is None:
            problems.append(
                Diagnostic("TG401", "@tool(**...) cannot be read statically", module.location(kw))
            )
            continue
        if kw.arg not in DECORATOR_KEYS:
            problems.append(
                Diagnostic(
                    "TG402",
                    f"@tool has no argument `{kw.arg}` "
                    f"(known: {', '.join(sorted(DECORATOR_KEYS))})",
                    module.location(kw),
                )
            )
            continue
        try:
            options[kw.arg] = jsonable(ast.literal_eval(kw.value))
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            problems.append(
                Diagnostic(
                    "TG401",
                    f"@tool argument `{kw.arg}` must be a literal value, not "
                    f"`{ast.unparse(kw.value)}`",
                    module.location(kw.value),
                )
            )
            continue
        nodes[kw.arg] = kw
    return options, nodes, problems
