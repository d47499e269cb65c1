"""Decorator arguments, read without running them.

toolgen's own `@tool(risk="high", ...)` takes keywords only, each one checked. A framework's
decorator (`@mcp.tool(name=..., annotations=...)`, `@function_tool(name_override=...)`) is
mapped through its preset: the keywords that describe the contract become descriptor fields;
the ones that configure the framework's run time are left alone. Every value is folded
statically (`toolgen.analyze.folding`): constants, expressions of them, the enclosing
factory's parameter defaults, small helpers such as `annotations=read_only()`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Any

from toolgen._marker import TOOL_KEYWORDS
from toolgen.analyze.folding import NotStatic, fold
from toolgen.analyze.handlers import Handler
from toolgen.analyze.markers import PRESETS
from toolgen.analyze.scopes import Scope
from toolgen.diagnostics import Diagnostic, Level
from toolgen.read.index import Module, ModuleIndex

#: Keyword arguments `@tool(...)` accepts (DESIGN §1, §3).
DECORATOR_KEYS = TOOL_KEYWORDS


@dataclass
class DecoratorInfo:
    """What a handler's decorator says, read statically."""

    options: dict[str, Any] = field(default_factory=dict)  # descriptor field -> its value
    #: descriptor field -> its keyword (in the module the registration is written in)
    nodes: dict[str, ast.AST] = field(default_factory=dict)
    problems: list[Diagnostic] = field(default_factory=list)
    hints: dict[str, bool] = field(default_factory=dict)  # MCP annotations -> idempotency block
    args_schema: ast.expr | None = None  # LangChain `args_schema=Model`
    args_schema_module: Module | None = None  # where it is written, when not the handler's
    parse_docstring: bool = False  # LangChain `parse_docstring=True`
    strict_mode: bool = True  # the Agents SDK's `strict_mode=False`
    #: arguments given that cannot be read statically (TG401), by name as written
    unread: set[str] = field(default_factory=set)


def decorator_options(handler: Handler, index: ModuleIndex) -> DecoratorInfo:
    """The options, the node of each (for locating later errors), and problems found."""
    reader = _Reader(handler, index)
    if handler.tool_class is not None:
        return _class_options(handler, reader)
    if handler.preset.native:
        return _native(handler, reader)
    return _foreign(handler, reader)


#: Where toolgen's own `@tool` is defined, and the name it is imported by.
TOOL_PATHS = PRESETS["toolgen"].functions


def stacked_tool(handler: Handler, index: ModuleIndex) -> DecoratorInfo | None:
    """A framework tool's `@tool(...)` stacked with the framework's decorator (in either
    order), read as toolgen's own: the second layer of its contract. None when there is none
    (a tool class has no decorators of its function)."""
    if handler.preset.native or handler.tool_class is not None:
        return None
    for decorator in handler.node.decorator_list:
        called = decorator.func if isinstance(decorator, ast.Call) else decorator
        symbol = index.resolve_expr(handler.module, called)
        if symbol is not None and symbol.path in TOOL_PATHS:
            own = replace(
                handler,
                decorator=decorator,
                site=None,
                preset=PRESETS["toolgen"],
                values=(),
                unknown=frozenset(),
            )
            return _native(own, _Reader(own, index))
    return None


def _is_annotations(path: str) -> bool:
    """`ToolAnnotations(...)` (the MCP SDK's, or a project's own): read as a dict."""
    return path.rpartition(".")[2] == "ToolAnnotations"


@dataclass
class _Reader:
    """Folds the decorator's values where it is evaluated (in the functions around it)."""

    handler: Handler
    index: ModuleIndex
    info: DecoratorInfo = field(default_factory=DecoratorInfo)

    def __post_init__(self) -> None:
        self.scope = Scope(self.handler.at, self.handler.decorator)

    def fold(self, node: ast.expr) -> Any:
        return fold(node, self.handler.at, self.index, self.scope, records=_is_annotations)

    def value(self, arg: str, node: ast.expr, shown: str) -> Any:
        """The value of argument `arg`: read where it is written, else as the registration
        interpreter knows it (a name the caller of a registration function passes in); TG401
        (and `_NOT_STATIC`) when it depends on run time."""
        try:
            return self.fold(node)
        except NotStatic as exc:
            known = dict(self.handler.values)
            if arg in known:
                return known[arg]
            self.not_static(arg, shown, exc)
            return _NOT_STATIC

    def not_static(self, arg: str, shown: str, exc: NotStatic) -> None:
        """TG401: an error for toolgen's own `@tool` and for a framework tool's name (there is
        no other to publish it by); a warning otherwise, as the tool is published without
        what cannot be read (degrade, never drop)."""
        self.info.unread.add(arg)
        message = f"{shown} argument `{arg}` is not a value toolgen can read statically: {exc.why}"
        level = None
        if not self.handler.preset.native and arg != "name":
            message += "; the tool is published without it"
            level = Level.WARNING
        where = exc.module.location(exc.node)
        self.info.problems.append(Diagnostic("TG401", message, where, level))


_NOT_STATIC: Any = object()


def _native(handler: Handler, reader: _Reader) -> DecoratorInfo:
    decorator, module, info = handler.decorator, handler.at, reader.info
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
        value = reader.value(kw.arg, kw.value, "@tool")
        if value is not _NOT_STATIC:
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


def _foreign(handler: Handler, reader: _Reader) -> DecoratorInfo:
    """A framework's decorator: map the keywords toolgen understands, ignore the rest (they
    configure the framework's run time, not the contract)."""
    decorator, preset, info = handler.decorator, handler.preset, reader.info
    if not isinstance(decorator, ast.Call):
        return info
    shown = f"@{ast.unparse(decorator.func)}"
    if preset.positional_name and decorator.args:
        _positional_name(decorator.args[0], reader, shown)
    _forwarded(handler, reader)
    for kw in decorator.keywords:
        target = preset.options.get(kw.arg or "")
        if target is None:
            continue
        if target == "args_schema":
            info.args_schema = kw.value
            continue
        if target == "annotations":
            _annotations(kw, reader, shown)
            continue
        if target == "approval":
            try:
                value = reader.fold(kw.value)
            except NotStatic:  # a rule the framework asks at run time: confirm every call
                value = True
            info.options["confirmation"] = value if isinstance(value, bool) else True
            info.nodes["confirmation"] = kw
            continue
        value = reader.value(str(kw.arg), kw.value, shown)
        if value is _NOT_STATIC:
            continue
        if target == "parse_docstring":
            info.parse_docstring = bool(value)
        elif target == "strict_mode":
            info.strict_mode = bool(value)
        else:
            info.options[target] = value
            info.nodes[target] = kw
    return info


#: A tool class's attributes that say what a decorator's keywords say of a function.
CLASS_OPTIONS = ("name", "description", "args_schema")


def _class_options(handler: Handler, reader: _Reader) -> DecoratorInfo:
    """A tool class (LangChain's `BaseTool` subclasses): its attributes, from the first class
    of its chain that gives each, read where that class is written."""
    tool, info = handler.tool_class, reader.info
    assert tool is not None
    shown = f"class `{tool.own.node.name}`"
    for attr in CLASS_OPTIONS:
        found = tool.attribute(attr)
        if found is None:
            continue
        expr, link = found
        if attr == "args_schema":
            if not (isinstance(expr, ast.Constant) and expr.value is None):
                info.args_schema, info.args_schema_module = expr, link.module
            continue
        try:
            value = fold(expr, link.module, reader.index, Scope(link.module, expr))
        except NotStatic as exc:
            reader.not_static(attr, shown, exc)
            continue
        info.options[attr] = value
        info.nodes[attr] = expr
    # a construction's keywords, over the class's (`SearchTool(name="web_search")`)
    for key, value in handler.values:
        info.options[key] = value
        info.nodes[key] = handler.decorator
    for key in handler.unknown:
        call = ast.unparse(handler.decorator)[:60]
        message = f"`{key}` given to `{call}` is not a value toolgen can read statically"
        where = handler.at.location(handler.decorator)
        level = None if key == "name" else Level.WARNING
        info.problems.append(Diagnostic("TG401", message, where, level))
        info.options.pop(key, None)
    return info


def _forwarded(handler: Handler, reader: _Reader) -> None:
    """The options a wrapper forwards (`original(*args, **kwargs)`), as the interpreter
    knows them: what is written where the registration is called is read after, over
    these."""
    if not any(isinstance(a, ast.Starred) for a in _call(handler).args) and all(
        kw.arg is not None for kw in _call(handler).keywords
    ):
        return
    for key, value in handler.values:
        target = "name" if key == "name" else handler.preset.options.get(key)
        if target is None or target in ("args_schema", "parse_docstring", "strict_mode"):
            continue
        if target == "annotations":
            _hints(value, reader, handler.decorator)
        elif target == "approval":
            reader.info.options["confirmation"] = value if isinstance(value, bool) else True
            reader.info.nodes["confirmation"] = handler.decorator
        else:
            reader.info.options[target] = value
            reader.info.nodes[target] = handler.decorator


def _call(handler: Handler) -> ast.Call:
    assert isinstance(handler.decorator, ast.Call)
    return handler.decorator


def _positional_name(first: ast.expr, reader: _Reader, shown: str) -> None:
    """`@mcp.tool("name")`: a string is the tool's name. A function passed there (`mcp.tool(fn)`
    registers `fn`) is no name, and no problem; nor is `*args` a wrapper forwards (what it
    holds is the interpreter's: `_forwarded`)."""
    if isinstance(first, ast.Starred):
        return
    try:
        value = reader.fold(first)
    except NotStatic as exc:
        known = dict(reader.handler.values)
        if "name" in known:
            reader.info.options["name"] = known["name"]
            reader.info.nodes["name"] = first
        elif "name" in reader.handler.unknown and not _names_function(first, reader):
            reader.not_static("name", shown, exc)
        # else: the interpreter saw no name there: what is passed is the function
        return
    if isinstance(value, str):
        reader.info.options["name"] = value
        reader.info.nodes["name"] = first


def _names_function(node: ast.expr, reader: _Reader) -> bool:
    if isinstance(node, ast.Attribute):
        return True  # `self.method`, `module.function`: what a call-form registration passes
    if not isinstance(node, ast.Name):
        return False
    found = reader.scope.lookup(node) if reader.scope.module is reader.handler.at else None
    if found is not None:  # bound in a function around it: by a nested `def`?
        return isinstance(found[1].at, ast.FunctionDef | ast.AsyncFunctionDef)
    symbol = reader.index.resolve(reader.handler.at, node.id)
    return symbol is not None and symbol.kind == "function"


def _annotations(kw: ast.keyword, reader: _Reader, shown: str) -> None:
    """`annotations={...}`, `annotations=ToolAnnotations(...)` or a helper that returns one
    of them: hints and title."""
    info = reader.info
    value = reader.value("annotations", kw.value, shown)
    if value is _NOT_STATIC or value is None:
        return
    if not isinstance(value, dict):
        info.problems.append(
            Diagnostic(
                "TG401",
                f"{shown} argument `annotations` must be a dict or ToolAnnotations(...), "
                f"not a {type(value).__name__}",
                reader.handler.at.location(kw.value),
            )
        )
        return
    _hints(value, reader, kw)


def _hints(value: Any, reader: _Reader, node: ast.AST) -> None:
    """An `annotations` dict: its title, and its hints as the idempotency block."""
    if not isinstance(value, dict):
        return
    info = reader.info
    for key, item in value.items():
        if key == "title" and isinstance(item, str):
            info.options.setdefault("title", item)
            info.nodes.setdefault("title", node)
        elif key in ANNOTATION_HINTS and isinstance(item, bool):
            info.hints[ANNOTATION_HINTS[key]] = item
