"""What FastMCP or the MCP SDK serves for a handler: its `tools/list` entry, made statically.

Both frameworks build a tool from pydantic's JSON Schema of the function and then change it
in their own ways, which also change between versions (`toolgen.frameworks.Framework`):

- the MCP SDK (`mcp.server.fastmcp.FastMCP` in 1.x, `mcp.server.mcpserver.MCPServer` in 2.x)
  publishes the raw docstring as the description, pydantic's schema as it is (titles, `$defs`,
  an open root, no property descriptions but `Field(description=...)`), and from 1.10 on an
  `outputSchema` chosen by the return annotation's form: a model, a TypedDict or a dataclass
  as it is, `dict[str, T]` as an object titled `<function>DictOutput`, a bare `dict`, `list`,
  `Any` or no annotation none, anything else (`typing.Dict[str, T]` too) wrapped as
  `{"result": ...}` in a model titled `<function>Output`;
- FastMCP reads the docstring with griffe (`toolgen.analyze.griffe_docs`): the text before
  the first section is the description, each parameter's text that property's description
  (after the schema's own keys, where the `Field` has none); titles are dropped, `$ref`s
  inlined, the root closed; a return schema that is not an object is wrapped as
  `{"result": ...}` and marked `x-fastmcp-wrap-result`; `_meta` holds the sorted tags.

`framework_tool` puts one entry together from what the compiler read: the canonical parameters
and return schemas (the way pydantic makes them, without titles: see `toolgen.analyze.types`),
the docstring, the decorator's options and the return annotation.
"""

from __future__ import annotations

import ast
import inspect
import sys
from dataclasses import dataclass, field
from typing import Any

from toolgen.analyze import griffe_docs
from toolgen.frameworks import Framework
from toolgen.index import Module, ModuleIndex, dotted_name
from toolgen.schema_ops import recursive_defs

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
#: FastMCP 4.2's admonitions that end the description (Napoleon's section names griffe has no
#: kind for); a `word:` paragraph of any other name is prose.
SECTION_ADMONITIONS = frozenset(
    {
        "attention",
        "caution",
        "danger",
        "error",
        "example",
        "hint",
        "important",
        "note",
        "notes",
        "raise",
        "references",
        "return",
        "see-also",
        "tip",
        "todo",
        "warning",
        "yield",
    }
)
ANNOTATION_KEYS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
HINT_KEYS = {
    "safe": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}


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
class Handler:
    """What the compiler read of one handler, for `framework_tool`."""

    name: str  # the tool's name
    function: str  # the function's own name (the MCP SDK titles its models with it)
    docstring: str | None  # the docstring literal's value, as written
    description: str | None  # the decorator's description, if it has one
    title: str | None  # the decorator's title
    annotations: dict[str, Any] | None  # the decorator's annotations (hints by MCP key, title)
    tags: list[str] | None
    parameters: Schema  # canonical, without the descriptions toolgen took from the docstring
    returns: Returns
    fields: dict[str, Fields] = field(default_factory=dict)  # by property name


@dataclass(frozen=True)
class Fields:
    """What a parameter's annotation or default says that only FastMCP reads: a bare string
    in `Annotated[T, "text"]` (its description) and `Field(title=...)`."""

    description: str | None = None
    title: str | None = None


def framework_tool(framework: Framework, handler: Handler) -> dict[str, Any]:
    """The `tools/list` entry `framework` (at its version) serves for `handler`."""
    if framework.name == "fastmcp":
        return _fastmcp(framework, handler)
    return _mcp_sdk(framework, handler)


# -- the MCP SDK -----------------------------------------------------------------------------
def _mcp_sdk(framework: Framework, handler: Handler) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": handler.name}
    if handler.title is not None and framework.structured_output:
        entry["title"] = handler.title
    entry["description"] = handler.description or runtime_doc(handler.docstring) or ""
    parameters = {k: v for k, v in handler.parameters.items() if k != "additionalProperties"}
    parameters["properties"] = {
        key: _sdk_property(prop, handler.fields.get(key, Fields()))
        for key, prop in parameters.get("properties", {}).items()
    }
    entry["inputSchema"] = pydantic_form(parameters, f"{handler.function}Arguments")
    output = _sdk_output(framework, handler) if framework.structured_output else None
    if output is not None:
        entry["outputSchema"] = output
    if handler.annotations:
        entry["annotations"] = handler.annotations
    if framework.wire_order:
        for key in ("inputSchema", "outputSchema"):
            if key in entry:
                entry[key] = wire_order(entry[key])
    return entry


def _sdk_output(framework: Framework, handler: Handler) -> Schema | None:
    form, schema = handler.returns.form, handler.returns.schema
    if form == "content" and not framework.since(2):
        form = "model"  # mcp 1 publishes a content block's own schema
    if handler.returns.content == "arm" and framework.since(2):
        return None  # mcp 2: a union or list of content blocks is content too
    if not schema or form in ("missing", "any", "content", "bare-dict", "bare-sequence", "other"):
        return None
    if form == "dict":
        return pydantic_form({**schema, "title": f"{handler.function}DictOutput"})
    if form in ("model", "dataclass"):
        out = pydantic_form(schema)
        if form == "dataclass":  # rebuilt as a model of the same fields: no docstring
            out.pop("description", None)
        return _inline_root_ref(out)
    return wrapped(schema, f"{handler.function}Output")


def _sdk_property(prop: Any, fields: Fields) -> Any:
    """A property as pydantic makes it: its `Field(title=...)`, and no description from a
    bare string in `Annotated` (which only FastMCP reads)."""
    if not isinstance(prop, dict):
        return prop
    if fields.description is not None and prop.get("description") == fields.description:
        prop = {k: v for k, v in prop.items() if k != "description"}
    return {**prop, "title": fields.title} if fields.title is not None else prop


def _with_description(prop: Any, text: str | None) -> Any:
    if text is None or not isinstance(prop, dict) or "description" in prop:
        return prop
    return {**prop, "description": text}


def _inline_root_ref(schema: Schema) -> Schema:
    """A recursive model's schema (a root `$ref`) with its definition copied onto the root."""
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return schema
    definition = schema["$defs"][ref.removeprefix("#/$defs/")]
    return {**definition, **{k: v for k, v in schema.items() if k != "$ref"}}


def runtime_doc(docstring: str | None) -> str | None:
    """A function's `__doc__` as Python makes it from the literal: as written, or from
    Python 3.13 on with its indentation removed by the compiler (on the Python toolgen runs)."""
    if docstring is None or sys.version_info < (3, 13):
        return docstring
    lines = docstring.expandtabs().split("\n")
    margin = min((len(ln) - len(ln.lstrip()) for ln in lines[1:] if ln.strip()), default=0)
    return "\n".join([lines[0].lstrip(), *(ln[margin:] if ln.strip() else "" for ln in lines[1:])])


# -- FastMCP ---------------------------------------------------------------------------------
def _fastmcp(framework: Framework, handler: Handler) -> dict[str, Any]:
    description, described = fastmcp_docstring(framework, handler.docstring)
    entry: dict[str, Any] = {"name": handler.name}
    annotation_title = (handler.annotations or {}).get("title")
    title = handler.title or annotation_title
    if title is None and framework.since(4):
        title = default_title(handler.name)
    if title is not None:
        entry["title"] = title
    if handler.description is not None:
        description = handler.description
    if description is not None:
        entry["description"] = description
    given = handler.parameters.get("properties", {})
    raw = {
        **handler.parameters,
        "properties": {  # `Annotated[T, "text"]`: FastMCP makes the text a Field description
            key: _with_description(prop, handler.fields.get(key, Fields()).description)
            for key, prop in given.items()
        },
    }
    parameters = prune_titles(pydantic_form(raw))
    for name, prop in parameters.get("properties", {}).items():
        title = handler.fields.get(name, Fields()).title
        if framework.since(4, 1) and title is not None and title != field_title(name):
            prop["title"] = title  # an author's Field(title=...) is kept from 4.1 on
        if name in described and "description" not in prop:
            prop["description"] = described[name]
    entry["inputSchema"] = dereference(parameters)
    output = _fastmcp_output(framework, handler.returns)
    if output is not None:
        entry["outputSchema"] = output
    if handler.annotations:
        entry["annotations"] = handler.annotations
    entry["_meta"] = {"fastmcp": {"tags": sorted(handler.tags or [])}}
    if framework.wire_order:
        for key in ("inputSchema", "outputSchema"):
            if key in entry:
                entry[key] = wire_order(entry[key])
    return entry


def default_title(name: str) -> str:
    """FastMCP 4's title for a tool that has none of its own: the name in title case."""
    return name.replace("_", " ").replace("-", " ").title()


def renamed_entry(framework: Framework, entry: dict[str, Any], name: str) -> dict[str, Any]:
    """`entry` as `framework` lists it under another name (a tool of a mounted server): a
    FastMCP 4 title made from the name follows it."""
    out = {**entry, "name": name}
    own = (entry.get("annotations") or {}).get("title")
    made = framework.since(4) and entry.get("title") == default_title(entry["name"])
    if framework.name == "fastmcp" and made and own is None:
        out["title"] = default_title(name)
    return out


def fastmcp_docstring(
    framework: Framework, docstring: str | None
) -> tuple[str | None, dict[str, str]]:
    """FastMCP's description and parameter descriptions of a docstring: the first of griffe's
    Google, NumPy and Sphinx readings that finds structure (before 4.1: parameters; from 4.1
    any section, from 4.2 only section-like admonitions), else the whole docstring."""
    if docstring is None:
        return None, {}
    text = inspect.cleandoc(runtime_doc(docstring) or "")
    if not text:
        return None, {}
    for style in ("google", "numpy", "sphinx"):
        description: str | None = None
        params: dict[str, str] = {}
        structure = False
        for section in griffe_docs.parse(text, style):
            if section.kind == "text":
                description = section.text if description is None else description
            elif section.kind == "parameters":
                params.update(section.params)
                structure = True
            elif section.kind == "admonition" and framework.since(4, 2):
                structure = structure or section.name in SECTION_ADMONITIONS
            else:
                structure = True
        if params or (structure and framework.since(4, 1)):
            return description, params
    return text, {}


def _fastmcp_output(framework: Framework, returns: Returns) -> Schema | None:
    form, schema = returns.form, returns.schema
    if returns.given is not UNSET:  # `output_schema=None`, or the author's own schema
        return returns.given if isinstance(returns.given, dict) else None
    if returns.content:  # a content block anywhere: FastMCP cannot make a schema
        return None
    if not schema or form in ("missing", "any", "content", "bytes", "none-at-run-time"):
        return None
    if form in ("bare-sequence", "any-sequence") and framework.since(4, 1):
        return None  # an unconstrained sequence says nothing: FastMCP 4.1 publishes none
    base = pydantic_form(schema)
    if not is_object(base):
        wrapped_schema = wrapped(schema, "_WrappedResult")
        base = {**wrapped_schema, "x-fastmcp-wrap-result": True}
    return dereference(prune_titles(resolve_root_ref(base)))


def is_object(schema: Schema) -> bool:
    """FastMCP's test: an object type, properties without a type, or a `$ref` to one."""
    kind = schema.get("type")
    if isinstance(kind, list):
        return [k for k in kind if k != "null"] == ["object"]
    if "type" in schema:
        return bool(kind == "object")
    if "properties" in schema:
        return True
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
        return isinstance(target, dict) and is_object({**target, "$defs": schema["$defs"]})
    return False


# -- return annotations ----------------------------------------------------------------------
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


def output_given(decorator: ast.expr) -> Any:
    """The decorator's `output_schema=`: `UNSET`, None, or a literal schema (a dict)."""
    for kw in decorator.keywords if isinstance(decorator, ast.Call) else []:
        if kw.arg == "output_schema":
            try:
                value = ast.literal_eval(kw.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                return UNSET  # made at run time: FastMCP's own schema is the best guess
            return value if value is None or isinstance(value, dict) else UNSET
    return UNSET


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
    params: list[Any], keys: dict[str, str], module: Module, index: ModuleIndex
) -> dict[str, Fields]:
    """`Fields` of each parameter (`toolgen.analyze.signature.Param`), by property name."""
    found: dict[str, Fields] = {}
    for param in params:
        description = title = None
        annotation = param.annotation
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


# -- pydantic's form of a schema -------------------------------------------------------------
def pydantic_form(schema: Schema, title: str | None = None) -> Schema:
    """toolgen's schema as pydantic's `json_schema()` has it: a root `$ref` to a model that
    does not refer to itself made the root, titles where pydantic sets them (`title` on the
    root), and keys sorted as pydantic sorts them."""
    out = _titled(_root_inlined(schema))
    if title is not None:
        out["title"] = title
    result: Schema = pydantic_sort(out)
    return result


def _root_inlined(schema: Schema) -> Schema:
    ref = schema.get("$ref")
    defs = schema.get("$defs", {})
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return schema
    name = ref.removeprefix("#/$defs/")
    if name not in defs or name in recursive_defs(schema):
        return schema
    siblings = {k: v for k, v in schema.items() if k not in ("$ref", "$defs")}
    root = {"title": name, **defs[name], **siblings}
    rest = {k: v for k, v in defs.items() if k != name and k in _used(root, defs)}
    return {**root, "$defs": rest} if rest else root


def _used(schema: Schema, defs: dict[str, Any]) -> set[str]:
    """The `$defs` entries `schema` refers to, directly or through others."""
    found: set[str] = set()
    pending = [schema]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name not in found and name in defs:
                    found.add(name)
                    pending.append(defs[name])
            pending.extend(v for k, v in value.items() if k not in ("default", "enum", "const"))
        elif isinstance(value, list):
            pending.extend(value)
    return found


def _titled(schema: Schema) -> Schema:
    """Titles as pydantic sets them: each field's, from its name, unless its schema is a
    reference (a model, an enum) or an optional reference; each definition's, its name."""

    def fields(value: Schema) -> Schema:
        out = dict(value)
        props = out.get("properties")
        if isinstance(props, dict):
            out["properties"] = {
                name: (
                    {**prop, "title": field_title(name)}
                    if isinstance(prop, dict) and "title" not in prop and _titles(prop)
                    else prop
                )
                for name, prop in props.items()
            }
        return out

    out = fields(schema)
    if "$defs" in out:
        out["$defs"] = {
            name: {"title": name, **fields(body)} if isinstance(body, dict) else body
            for name, body in out["$defs"].items()
        }
    return out


def _titles(prop: Schema) -> bool:
    if "$ref" in prop:
        return False
    members = prop.get("anyOf")
    if isinstance(members, list) and len(members) == 2 and {"type": "null"} in members:
        other = members[0] if members[1] == {"type": "null"} else members[1]
        return not (isinstance(other, dict) and "$ref" in other)
    return True


def field_title(name: str) -> str:
    """pydantic's title for a field of this name."""
    return name.title().replace("_", " ").strip()


def pydantic_sort(value: Any, parent: str | None = None) -> Any:
    """pydantic's key order: sorted, but for the fields of `properties` and a `default`."""
    if isinstance(value, dict):
        keys = value.keys() if parent in ("properties", "default") else sorted(value)
        return {key: pydantic_sort(value[key], key) for key in keys}
    if isinstance(value, list):
        return [pydantic_sort(item, parent) for item in value]
    return value


def wrapped(schema: Schema, title: str) -> Schema:
    """A return schema as the `result` field of a model titled `title`."""
    defs = schema.get("$defs")
    result = {k: v for k, v in schema.items() if k != "$defs"}
    model: Schema = {"properties": {"result": result}, "required": ["result"], "type": "object"}
    if defs:
        model["$defs"] = defs
    return pydantic_form(model, title)


# -- FastMCP's changes -----------------------------------------------------------------------
#: Keys whose values are data, not schemas: titles there stay.
_DATA_KEYS = frozenset({"default", "const", "examples", "example", "enum"})
_SCHEMA_KEYWORDS = frozenset(
    {"type", "properties", "$ref", "items", "allOf", "oneOf", "anyOf", "required"}
)
_METADATA_KEYS = frozenset({"title", "description", "deprecated", "readOnly", "writeOnly"})


def prune_titles(schema: Schema) -> Schema:
    """FastMCP's `compress_schema(prune_titles=True)`: every schema's `title` dropped."""

    def walk(value: Any, in_schema: bool) -> Any:
        if isinstance(value, list):
            return [walk(v, in_schema) for v in value]
        if not isinstance(value, dict):
            return value
        drop = (
            in_schema
            and isinstance(value.get("title"), str)
            and (
                any(k in value for k in _SCHEMA_KEYWORDS) or all(k in _METADATA_KEYS for k in value)
            )
        )
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key == "title" and drop:
                continue
            if not in_schema or key in _DATA_KEYS:
                out[key] = item if key in _DATA_KEYS else walk(item, False)
            elif key in ("properties", "$defs", "patternProperties") and isinstance(item, dict):
                out[key] = {name: walk(sub, True) for name, sub in item.items()}
            elif key in (
                "allOf",
                "anyOf",
                "oneOf",
                "prefixItems",
                "items",
                "additionalProperties",
                "not",
            ):
                out[key] = walk(item, True)
            else:
                out[key] = walk(item, False)
        return out

    result: Schema = walk(schema, True)
    return result


def dereference(schema: Schema) -> Schema:
    """FastMCP's `dereference_refs`: each `$ref` replaced by its definition, the reference's
    own keys after the definition's; a schema with a recursive model is left as it is."""
    defs = schema.get("$defs")
    if not defs or recursive_defs(schema):
        return resolve_root_ref(schema)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
                siblings = {k: v for k, v in value.items() if k not in ("$ref", "$defs")}
                return {**walk(defs[ref[8:]]), **siblings}
            return {k: walk(v) for k, v in value.items() if k != "$defs"}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    result: Schema = walk(schema)
    return result


def resolve_root_ref(schema: Schema) -> Schema:
    """A root `$ref` (a recursive model) with its definition copied under the root's keys."""
    ref = schema.get("$ref")
    if "type" in schema or not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return schema
    target = schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
    if not isinstance(target, dict):
        return schema
    return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}


def wire_order(schema: Schema) -> Schema:
    """mcp 2's wire models put `$schema`, `properties`, `required` and `type` first."""
    first = [k for k in ("$schema", "properties", "required", "type") if k in schema]
    return {**{k: schema[k] for k in first}, **{k: v for k, v in schema.items() if k not in first}}
