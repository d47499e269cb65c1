"""Decorator arguments, read without running them.

toolgen's own `@tool(risk="high", ...)` takes literal keywords only, each one checked. A
framework's decorator (`@mcp.tool(name=..., annotations=...)`, `@function_tool(name_override=...)`)
is mapped through its preset: the keywords that describe the contract become descriptor fields;
the ones that configure the framework's run time are left alone.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from toolgen.analyze.handlers import Handler
from toolgen.analyze.literals import jsonable
from toolgen.diagnostics import Diagnostic
from toolgen.index import Module

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


@dataclass
class DecoratorInfo:
    """What a handler's decorator says, read statically."""

    options: dict[str, Any] = field(default_factory=dict)  # descriptor field -> literal value
    #: descriptor field -> its keyword (in the module the registration is written in)
    nodes: dict[str, ast.AST] = field(default_factory=dict)
    problems: list[Diagnostic] = field(default_factory=list)
    hints: dict[str, bool] = field(default_factory=dict)  # MCP annotations -> idempotency block
    args_schema: ast.expr | None = None  # LangChain `args_schema=Model`
    parse_docstring: bool = False  # LangChain `parse_docstring=True`


def decorator_options(handler: Handler) -> DecoratorInfo:
    """The options, the node of each (for locating later errors), and problems found."""
    if handler.preset.native:
        return _native(handler)
    return _foreign(handler)


def _literal(kw: ast.keyword, info: DecoratorInfo, module: Module, shown: str) -> Any:
    try:
        return jsonable(ast.literal_eval(kw.value))
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        info.problems.append(
            Diagnostic(
                "TG401",
                f"{shown} argument `{kw.arg}` must be a literal value, not "
                f"`{ast.unparse(kw.value)}`",
                module.location(kw.value),
            )
        )
        return _NOT_LITERAL


_NOT_LITERAL: Any = object()


def _native(handler: Handler) -> DecoratorInfo:
    decorator, module = handler.decorator, handler.at
    info = DecoratorInfo()
    if not isinstance(decorator, ast.Call):
        return info
    for arg in decorator.args:
        info.problems.append(
            Diagnostic("TG402", "@tool takes keyword arguments only", module.location(arg))
        )
    given: set[str] = set()
    for kw in decorator.keywords:
        if kw.arg is None:
            info.problems.append(
                Diagnostic("TG401", "@tool(**...) cannot be read statically", module.location(kw))
            )
            continue
        if kw.arg not in DECORATOR_KEYS:
            info.problems.append(
                Diagnostic(
                    "TG402",
                    f"@tool has no argument `{kw.arg}` "
                    f"(known: {', '.join(sorted(DECORATOR_KEYS))})",
                    module.location(kw),
                )
            )
            continue
        if kw.arg in given:  # `ast` reads it; Python refuses to compile the call
            message = f"@tool argument `{kw.arg}` is given twice"
            info.problems.append(Diagnostic("TG402", message, module.location(kw)))
            continue
        given.add(kw.arg)
        value = _literal(kw, info, module, "@tool")
        if value is not _NOT_LITERAL:
            info.options[kw.arg] = value
            info.nodes[kw.arg] = kw
    return info


#: MCP tool annotations (both spellings) -> idempotency block keys.
ANNOTATION_HINTS = {
    "readOnlyHint": "safe",
    "read_only_hint": "safe",
    "destructiveHint": "destructive",
    "destructive_hint": "destructive",
    "idempotentHint": "idempotent",
    "idempotent_hint": "idempotent",
    "openWorldHint": "open_world",
    "open_world_hint": "open_world",
}


def _foreign(handler: Handler) -> DecoratorInfo:
    """A framework's decorator: map the keywords toolgen understands, ignore the rest (they
    configure the framework's run time, not the contract)."""
    decorator, module, preset = handler.decorator, handler.at, handler.preset
    info = DecoratorInfo()
    if not isinstance(decorator, ast.Call):
        return info
    shown = f"@{ast.unparse(decorator.func)}"
    if preset.positional_name and decorator.args:
        first = decorator.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            info.options["name"] = first.value
            info.nodes["name"] = first
    for kw in decorator.keywords:
        target = preset.options.get(kw.arg or "")
        if target is None:
            continue
        if target == "args_schema":
            info.args_schema = kw.value
            continue
        if target == "annotations":
            _annotations(kw, info, module, shown)
            continue
        value = _literal(kw, info, module, shown)
        if value is _NOT_LITERAL:
            continue
        if target == "parse_docstring":
            info.parse_docstring = bool(value)
        else:
            info.options[target] = value
            info.nodes[target] = kw
    return info


def _annotations(kw: ast.keyword, info: DecoratorInfo, module: Module, shown: str) -> None:
    """`annotations={...}` or `annotations=ToolAnnotations(...)`: hints and title."""
    pairs: list[tuple[str, ast.expr]] = []
    if isinstance(kw.value, ast.Call):
        pairs = [(k.arg, k.value) for k in kw.value.keywords if k.arg]
    elif isinstance(kw.value, ast.Dict):
        pairs = [
            (k.value, v)
            for k, v in zip(kw.value.keys, kw.value.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        ]
    elif not (isinstance(kw.value, ast.Constant) and kw.value.value is None):
        info.problems.append(
            Diagnostic(
                "TG401",
                f"{shown} argument `annotations` must be a dict or ToolAnnotations(...) literal",
                module.location(kw.value),
            )
        )
    for key, node in pairs:
        value = _literal(ast.keyword(arg=key, value=node), info, module, shown)
        if value is _NOT_LITERAL:
            continue
        if key == "title" and isinstance(value, str):
            info.options.setdefault("title", value)
            info.nodes.setdefault("title", kw)
        elif key in ANNOTATION_HINTS and isinstance(value, bool):
            info.hints[ANNOTATION_HINTS[key]] = value
