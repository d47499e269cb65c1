"""Server objects: whether the `owner` of `owner.tool` is one a marker preset registers with.

A name bound at module level (or imported from where it is) counts when it is assigned from
a call of one of the preset's classes (`FastMCP(...)`, `MCPServer(...)`), of a project class
that derives from one (`class SecureFastMCP(FastMCP)`), or of a project function that returns
such a call, or a name assigned from one, in its body (`mcp = create_server()`). A name toolgen
cannot see bound at module level (a parameter of a registration function, `self.server`, a
local variable) is taken to be one: the preset was asked for, and that is how such servers are
written.
"""

from __future__ import annotations

import ast

from toolgen.analyze.markers import Preset
from toolgen.read.index import Module, ModuleIndex, Symbol

#: How far a factory function or a base class is followed.
MAX_DEPTH = 8


def is_server(index: ModuleIndex, module: Module, owner: str, preset: Preset) -> bool:
    """Whether `owner` (as in `owner.tool`, written in `module`) is a server object of
    `preset` (see the module's doc)."""
    symbol = index.resolve(module, owner)
    if symbol is None or symbol.is_external:
        return True
    if symbol.kind == "assign" and isinstance(symbol.node, ast.Call):
        return _builds_server(index, symbol.module or module, symbol.node, preset, 0)
    return False


def server_key(index: ModuleIndex, module: Module, owner: str, preset: Preset) -> str | None:
    """Which server object `owner` is, when toolgen can tell: the dotted path of the
    module-level name it is assigned to (`app.server.mcp`); None when it cannot be followed
    (a parameter, `self.mcp`) or is not one of `preset`'s."""
    symbol = index.resolve(module, owner)
    if symbol is None or symbol.is_external or symbol.kind != "assign":
        return None
    if isinstance(symbol.node, ast.Call) and _builds_server(
        index, symbol.module or module, symbol.node, preset, 0
    ):
        return symbol.path
    return None


def _builds_server(
    index: ModuleIndex, module: Module, call: ast.Call, preset: Preset, depth: int
) -> bool:
    """Whether `call` (in `module`) makes a server of `preset`."""
    made = index.resolve_expr(module, call.func)
    return made is not None and _is_factory(index, made, preset, depth)


def _is_factory(index: ModuleIndex, symbol: Symbol, preset: Preset, depth: int) -> bool:
    if symbol.path in preset.factories:
        return True
    if depth >= MAX_DEPTH or symbol.module is None:
        return False
    home = symbol.module
    if symbol.kind == "class" and isinstance(symbol.node, ast.ClassDef):
        for base in symbol.node.bases:
            found = index.resolve_expr(home, base)
            if found is not None and _is_factory(index, found, preset, depth + 1):
                return True
        return False
    function = symbol.node
    if symbol.kind == "function" and isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return any(
            _builds_server(index, home, value, preset, depth + 1)
            for value in _returned_calls(function)
        )
    return False


def _returned_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    """The calls `function` returns: `return X(...)`, or `return name` of a name assigned
    from `X(...)` in its body (not looking into nested functions)."""
    assigned: dict[str, ast.Call] = {}
    returns: list[ast.expr] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Call):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    assigned[target.id] = node.value
        if isinstance(node, ast.Return) and node.value is not None:
            returns.append(node.value)
        stack.extend(ast.iter_child_nodes(node))
    calls = [value for value in returns if isinstance(value, ast.Call)]
    names = [value.id for value in returns if isinstance(value, ast.Name)]
    return calls + [assigned[name] for name in names if name in assigned]
