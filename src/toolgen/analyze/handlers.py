"""Find the marked handlers in a module: at module level, as methods, and nested in functions.

A handler is a function whose decorator resolves (through imports) to `toolgen.tool`, used bare
or called. Nested handlers (`def register(mcp): @tool def f(...)`) get a `<locals>` qualname,
like Python's own `__qualname__`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from toolgen.index import Module, ModuleIndex, dotted_name

MARKER_PATHS = frozenset({"toolgen.tool", "toolgen._marker.tool"})

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Handler:
    module: Module
    node: FunctionNode
    qualname: str
    decorator: ast.expr
    in_class: bool
    is_static: bool


def find_handlers(module: Module, index: ModuleIndex) -> list[Handler]:
    found: list[Handler] = []
    _visit(module.tree.body, "", False, module, index, found)
    return found


def _visit(
    body: list[ast.stmt],
    prefix: str,
    in_class: bool,
    module: Module,
    index: ModuleIndex,
    found: list[Handler],
) -> None:
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            qualname = prefix + stmt.name
            marker = _marker(stmt, module, index)
            if marker is not None:
                static = any(dotted_name(d) == "staticmethod" for d in stmt.decorator_list)
                found.append(Handler(module, stmt, qualname, marker, in_class, static))
            _visit(stmt.body, f"{qualname}.<locals>.", False, module, index, found)
        elif isinstance(stmt, ast.ClassDef):
            _visit(stmt.body, f"{prefix}{stmt.name}.", True, module, index, found)
        else:
            for child_body in _bodies(stmt):
                _visit(child_body, prefix, in_class, module, index, found)


def _bodies(stmt: ast.stmt) -> list[list[ast.stmt]]:
    bodies: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        value = getattr(stmt, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            bodies.append(value)
    for handler in getattr(stmt, "handlers", []) or []:
        bodies.append(handler.body)
    for case in getattr(stmt, "cases", []) or []:
        bodies.append(case.body)
    return bodies


def _marker(node: FunctionNode, module: Module, index: ModuleIndex) -> ast.expr | None:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        dotted = dotted_name(target)
        if dotted is None:
            continue
        symbol = index.resolve(module, dotted)
        if symbol is not None and symbol.path in MARKER_PATHS:
            return decorator
    return None
