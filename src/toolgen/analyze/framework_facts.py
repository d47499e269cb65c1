"""What a handler's source says that only FastMCP or the MCP SDK read: the form of its return
annotation (which decides their `outputSchema`), where a content block is in it, the
decorator's `output_schema=` and its annotations' title, and what parameter annotations and
defaults say beyond the schema (a bare string in `Annotated`, `Field(title=...)`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from toolgen.read.index import Module, ModuleIndex, dotted_name

Schema = dict[str, Any]

#: Stands for a decorator keyword not given.
UNSET: Any = object()
#: Return types the frameworks publish no `outputSchema` for: content blocks, not data.
CONTENT_TYPES = frozenset(
    {
        "mcp.types.TextContent",
        "mcp.types.ImageContent",
        "mcp.types.AudioContent",
        "mcp.types.ResourceLink",
        "mcp.types.EmbeddedResource",
        "mcp.types.CallToolResult",
        "mcp_types.TextContent",
        "mcp_types.ImageContent",
        "mcp_types.AudioContent",
        "mcp_types.ResourceLink",
        "mcp_types.EmbeddedResource",
        "mcp_types.CallToolResult",
        "mcp.server.fastmcp.Image",
        "mcp.server.fastmcp.Audio",
        "mcp.server.fastmcp.utilities.types.Image",
        "mcp.server.fastmcp.utilities.types.Audio",
        "mcp.server.mcpserver.Image",
        "mcp.server.mcpserver.Audio",
        "mcp.server.mcpserver.utilities.types.Image",
        "mcp.server.mcpserver.utilities.types.Audio",
        "fastmcp.Image",
        "fastmcp.utilities.types.Image",
        "fastmcp.utilities.types.Audio",
        "fastmcp.utilities.types.File",
        "fastmcp.tools.ToolResult",
        "fastmcp.tools.tool.ToolResult",
        "fastmcp.tools.base.ToolResult",
    }
)
PRIMITIVES = frozenset({"builtins.str", "builtins.int", "builtins.float", "builtins.bool"})
SEQUENCES = frozenset(
    {"builtins.list", "builtins.tuple", "typing.List", "typing.Tuple", "typing.Sequence"}
)


@dataclass(frozen=True)
class Returns:
    """A return annotation as the frameworks tell it apart (`return_form`), and its schema."""

    form: str  # see `return_form`
    schema: Schema  # toolgen's return schema ({} when it could not be made)
    #: where a content block is in the annotation (`content_in`): "" none, "arm" an arm of a
    #: union or the items of a list or tuple, "deep" elsewhere inside
    content: str = ""
    #: the decorator's `output_schema=`: UNSET, None (no outputSchema) or a literal schema
    given: Any = UNSET


@dataclass(frozen=True)
class Fields:
    """What a parameter's annotation or default says that only FastMCP reads: a bare string
    in `Annotated[T, "text"]` (its description) and `Field(title=...)`."""

    description: str | None = None
    title: str | None = None


def return_form(
    annotation: ast.expr | None, module: Module, index: ModuleIndex, schema: Schema, depth: int = 0
) -> str:
    """How the frameworks tell a return annotation apart:

    missing (none written), any, content (an MCP content block or result), bytes, none
    (`None`), none-at-run-time (`None` read as the object None: no `from __future__ import
    annotations`), model (a class with fields, not a dataclass), dataclass, other (a class
    without fields: an enum), dict (`dict[str, T]`, built in), bare-dict (`dict`),
    bare-sequence (`list`, `tuple`), any-sequence (`list[Any]`, `Sequence`, `tuple[Any, ...]`),
    primitive, wrapped (anything else: `typing.Dict[str, T]`, `list[T]`, unions, literals).
    A module-level alias (`Result = dict[str, Any]`) is followed."""
    if annotation is None:
        return "missing"
    node = _unquoted(annotation)
    if node is None:
        return "wrapped"
    if isinstance(node, ast.Constant) and node.value is None:
        future = any(
            isinstance(s, ast.ImportFrom)
            and s.module == "__future__"
            and any(a.name == "annotations" for a in s.names)
            for s in module.tree.body
        )
        return "none" if future or node is not annotation else "none-at-run-time"
    head = node.value if isinstance(node, ast.Subscript) else node
    symbol = index.resolve_expr(module, head) if dotted_name(head) else None
    path = symbol.path if symbol is not None else ""
    if path in CONTENT_TYPES:
        return "content"
    if path == "typing.Any":
        return "any"
    if isinstance(node, ast.Subscript):
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if path == "builtins.dict":
            key = index.resolve_expr(module, args[0]) if dotted_name(args[0]) else None
            return "dict" if key is not None and key.path == "builtins.str" else "wrapped"
        if path in SEQUENCES and _all_any(args, module, index):
            return "any-sequence"
        return "wrapped"
    if path == "builtins.dict":
        return "bare-dict"
    if path in ("builtins.list", "builtins.tuple"):
        return "bare-sequence"
    if path in SEQUENCES:
        return "any-sequence"
    if path == "builtins.bytes":
        return "bytes"
    if path in PRIMITIVES:
        return "primitive"
    target = symbol.node if symbol is not None else None
    if isinstance(target, ast.Assign | ast.AnnAssign) and target.value is not None and depth < 8:
        assert symbol is not None and symbol.module is not None
        return return_form(target.value, symbol.module, index, schema, depth + 1)
    root = _root_def(schema)
    if root.get("type") == "object" and ("properties" in root or "$ref" in schema):
        dataclass_ = isinstance(target, ast.ClassDef) and any(
            (dotted_name(d.func if isinstance(d, ast.Call) else d) or "").endswith("dataclass")
            for d in target.decorator_list
        )
        return "dataclass" if dataclass_ else "model"
    if "$ref" in schema:
        return "other"
    return "wrapped"


def _unquoted(annotation: ast.expr) -> ast.expr | None:
    """The annotation, a string one (`-> "Model"`) parsed; None when it is not Python."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    return annotation


def content_in(annotation: ast.expr | None, module: Module, index: ModuleIndex) -> str:
    """Where a content block (`CONTENT_TYPES`) is inside a return annotation: "arm" (an arm of
    a union, the items of a list, tuple or sequence, through `Optional` and `Annotated`),
    "deep" (anywhere else inside: `dict[str, ImageContent]`), or "" (nowhere, or the whole
    annotation: `return_form` says "content")."""
    node = _unquoted(annotation) if annotation is not None else None
    if node is None:
        return ""

    def path(expr: ast.expr) -> str:
        found = index.resolve_expr(module, expr) if dotted_name(expr) else None
        return found.path if found is not None else ""

    def arms(expr: ast.expr) -> list[ast.expr]:
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            return [*arms(expr.left), *arms(expr.right)]
        if isinstance(expr, ast.Subscript) and path(expr.value) in ARM_HOLDERS:
            args = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
            if path(expr.value) == "typing.Annotated":
                args = args[:1]
            return [a for arg in args for a in arms(arg)]
        return [expr]

    if any(path(arm) in CONTENT_TYPES for arm in arms(node)) and path(node) not in CONTENT_TYPES:
        return "arm"
    inside = [
        n for n in ast.walk(node) if n is not node and isinstance(n, ast.Name | ast.Attribute)
    ]
    return "deep" if any(path(n) in CONTENT_TYPES for n in inside) else ""


#: What holds arms or items that `content_in` looks through.
ARM_HOLDERS = frozenset(
    {"typing.Union", "typing.Optional", "typing.Annotated", *SEQUENCES, "builtins.list"}
)


def decorator_keyword(decorator: ast.expr, name: str) -> ast.expr | None:
    """The decorator's argument `name=` (`output_schema=`, `structured_output=`), if given."""
    for kw in decorator.keywords if isinstance(decorator, ast.Call) else []:
        if kw.arg == name:
            return kw.value
    return None


def _all_any(args: list[ast.expr], module: Module, index: ModuleIndex) -> bool:
    def is_any(arg: ast.expr) -> bool:
        if isinstance(arg, ast.Constant) and arg.value is Ellipsis:
            return True
        found = index.resolve_expr(module, arg) if dotted_name(arg) else None
        return found is not None and found.path == "typing.Any"

    return all(is_any(a) for a in args)


def _root_def(schema: Schema) -> Schema:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        found = schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
        return found if isinstance(found, dict) else {}
    return schema


def literal_title(decorator: ast.expr) -> str | None:
    """The literal `title` in a decorator's `annotations=` (a dict or `ToolAnnotations(...)`):
    the framework publishes it even where the decorator's own `title=` is the tool's title."""
    for kw in decorator.keywords if isinstance(decorator, ast.Call) else []:
        found: list[ast.expr] = []
        if kw.arg == "annotations" and isinstance(kw.value, ast.Call):
            found = [k.value for k in kw.value.keywords if k.arg == "title"]
        elif kw.arg == "annotations" and isinstance(kw.value, ast.Dict):
            pairs = zip(kw.value.keys, kw.value.values, strict=True)
            found = [v for k, v in pairs if isinstance(k, ast.Constant) and k.value == "title"]
        for node in found:
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                return node.value
    return None


def param_fields(
    params: list[Any],
    keys: dict[str, str],
    module: Module,
    index: ModuleIndex,
    untyped_named: bool = False,
) -> dict[str, Fields]:
    """`Fields` of each parameter (`toolgen.analyze.signature.Param`), by property name.
    `untyped_named`: a parameter without an annotation is titled with its very name (the MCP
    SDK publishes it with `{"title": name, "type": "string"}`)."""
    found: dict[str, Fields] = {}
    for param in params:
        description = title = None
        annotation = param.annotation
        if annotation is None and untyped_named:
            title = param.name
        metadata: list[ast.expr] = []
        if isinstance(annotation, ast.Subscript) and isinstance(annotation.slice, ast.Tuple):
            head = (
                index.resolve_expr(module, annotation.value)
                if dotted_name(annotation.value)
                else None
            )
            if head is not None and head.path == "typing.Annotated":
                metadata = annotation.slice.elts[1:]
        if len(metadata) == 1 and isinstance(metadata[0], ast.Constant):
            description = metadata[0].value if isinstance(metadata[0].value, str) else None
        for call in [*metadata, param.default]:
            if isinstance(call, ast.Call) and dotted_name(call.func):
                called = index.resolve_expr(module, call.func)
                if called is None or called.path != "pydantic.Field":
                    continue
                for kw in call.keywords:
                    if kw.arg == "title" and isinstance(kw.value, ast.Constant):
                        title = kw.value.value if isinstance(kw.value.value, str) else None
        if description is not None or title is not None:
            found[keys.get(param.name, param.name)] = Fields(description, title)
    return found
