"""Find the marked handlers in a module: at module level, as methods, and nested in functions.

A handler is a function with a decorator that a configured marker preset recognises
(`toolgen.analyze.markers`): toolgen's own `@tool`, resolved through imports, or a framework's
(`@mcp.tool`, `@function_tool`, `@agent.tool_plain`, ...). Nested handlers (`def register(mcp):
@mcp.tool def f(...)`) get a `<locals>` qualname, like Python's own `__qualname__`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from toolgen.analyze.markers import PRESETS, Preset
from toolgen.diagnostics import Diagnostic
from toolgen.index import Module, ModuleIndex, dotted_name

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Handler:
    module: Module
    node: FunctionNode
    qualname: str
    decorator: ast.expr
    in_class: bool
    is_static: bool
    preset: Preset = PRESETS["toolgen"]
    method: str | None = None  # for method markers (`@agent.tool`): the method's name


def nested_too_deeply(handler: Handler) -> Diagnostic:
    """TG202 at a handler whose analysis ran out of Python's recursion limit: its types or
    values nest too deeply (said the same way by `build` and `fix`)."""
    message = f"`{handler.node.name}` nests types or values too deeply to analyse"
    return Diagnostic("TG202", message, handler.module.location(handler.node))


def find_handlers(
    module: Module, index: ModuleIndex, presets: list[Preset] | None = None
) -> list[Handler]:
    found: list[Handler] = []
    finder = _Finder(module, index, presets or [PRESETS["toolgen"]], found)
    finder.visit(module.tree.body, "", False)
    return found


class _Finder:
    def __init__(
        self, module: Module, index: ModuleIndex, presets: list[Preset], found: list[Handler]
    ) -> None:
        self.module = module
        self.index = index
        self.presets = presets
        self.found = found

    def visit(self, body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for stmt in body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = prefix + stmt.name
                match = self.marker(stmt)
                if match is not None:
                    decorator, preset, method = match
                    static = any(dotted_name(d) == "staticmethod" for d in stmt.decorator_list)
                    self.found.append(
                        Handler(
                            self.module, stmt, qualname, decorator, in_class, static, preset, method
                        )
                    )
                self.visit(stmt.body, f"{qualname}.<locals>.", False)
            elif isinstance(stmt, ast.ClassDef):
                self.visit(stmt.body, f"{prefix}{stmt.name}.", True)
            else:
                for child_body in _bodies(stmt):
                    self.visit(child_body, prefix, in_class)

    def marker(self, node: FunctionNode) -> tuple[ast.expr, Preset, str | None] | None:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            dotted = dotted_name(target)
            if dotted is None:
                continue
            symbol = self.index.resolve(self.module, dotted)
            for preset in self.presets:
                if symbol is not None and symbol.path in preset.functions:
                    return decorator, preset, None
            owner, _, method = dotted.rpartition(".")
            if not owner:
                continue
            for preset in self.presets:
                if method in preset.methods and self.is_instance(owner, preset):
                    return decorator, preset, method
        return None

    def is_instance(self, owner: str, preset: Preset) -> bool:
        """Is `owner` (as in `owner.tool`) an object one of `preset.factories` built?

        A name bound at module level must be assigned from a factory call. A name we cannot
        see bound (a parameter of a registration function, `self.server`, a local) is taken
        to be one: the preset was asked for, and that is how such servers are written.
        """
        symbol = self.index.resolve(self.module, owner)
        if symbol is None or symbol.is_external:
            return True
        if symbol.kind == "assign" and isinstance(symbol.node, ast.Call):
            home = symbol.module or self.module
            factory = self.index.resolve_expr(home, symbol.node.func)
            return factory is not None and factory.path in preset.factories
        return False


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
