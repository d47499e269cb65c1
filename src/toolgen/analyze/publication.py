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

`framework_tool` puts one entry together from what the compiler read (`HandlerFacts`): the
canonical parameters and return schemas (made into the frameworks' forms by
`toolgen.schema_forms`), the docstring, the decorator's options and what the return
annotation says (`toolgen.analyze.framework_facts`).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolgen.analyze import griffe_docs
from toolgen.analyze.framework_facts import UNSET, Fields, Returns
from toolgen.analyze.langchain_docs import doc_at_run_time
from toolgen.analyze.literals import sorted_items
from toolgen.frameworks import Framework
from toolgen.schema_forms import (
    dereference,
    field_title,
    is_object,
    prune_titles,
    pydantic_form,
    resolve_root_ref,
    wire_order,
    wrapped,
)

Schema = dict[str, Any]

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
class HandlerFacts:
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
    #: the MCP SDK decorator's `structured_output=` (False: no outputSchema, whatever the return)
    structured: bool | None = None


def framework_tool(framework: Framework, handler: HandlerFacts) -> dict[str, Any]:
    """The `tools/list` entry `framework` (at its version) serves for `handler`."""
    if framework.name == "fastmcp":
        return _fastmcp(framework, handler)
    return _mcp_sdk(framework, handler)


def registry_entry(framework: Framework, handler: HandlerFacts) -> dict[str, Any]:
    """The entry as `framework`'s own registry holds it, where code may rewrite it
    (`toolgen.read.registration.registries`): FastMCP 3 and later keep the `$ref`s and
    inline them as they list the tool (`listed_schema`)."""
    if framework.name == "fastmcp":
        return _fastmcp(framework, handler, listed=not framework.since(3))
    return _mcp_sdk(framework, handler)


def listed_schema(framework: Framework, schema: Schema) -> Schema:
    """A schema of a registry's entry (`registry_entry`) as `framework` lists it."""
    if framework.name == "fastmcp" and framework.since(3):
        schema = dereference(schema)
    return wire_order(schema) if framework.wire_order else schema


# -- the MCP SDK -----------------------------------------------------------------------------
def _mcp_sdk(framework: Framework, handler: HandlerFacts) -> dict[str, Any]:
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
    structured = framework.structured_output and handler.structured is not False
    output = _sdk_output(framework, handler) if structured else None
    if output is not None:
        entry["outputSchema"] = output
    if handler.annotations:
        entry["annotations"] = handler.annotations
    if framework.wire_order:
        for key in ("inputSchema", "outputSchema"):
            if key in entry:
                entry[key] = wire_order(entry[key])
    return entry


def _sdk_output(framework: Framework, handler: HandlerFacts) -> Schema | None:
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
    """A function's `__doc__` on the Python toolgen runs on (`doc_at_run_time`)."""
    if docstring is None:
        return None
    return doc_at_run_time(docstring, (sys.version_info[0], sys.version_info[1]))


# -- FastMCP ---------------------------------------------------------------------------------
def _fastmcp(framework: Framework, handler: HandlerFacts, listed: bool = True) -> dict[str, Any]:
    """FastMCP's entry; not `listed`: with the `$ref`s FastMCP 3 inlines only as it lists."""
    inline = dereference if listed else _as_is
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
    entry["inputSchema"] = inline(parameters)
    output = _fastmcp_output(framework, handler.returns, inline)
    if output is not None:
        entry["outputSchema"] = output
    if handler.annotations:
        entry["annotations"] = handler.annotations
    # sorted as a set is (tags that are no strings leave the tool out: TG403)
    entry["_meta"] = {"fastmcp": {"tags": sorted_items(handler.tags or [])}}
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


def _as_is(schema: Schema) -> Schema:
    return schema


def _fastmcp_output(
    framework: Framework, returns: Returns, inline: Callable[[Schema], Schema] = dereference
) -> Schema | None:
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
    return inline(prune_titles(resolve_root_ref(base)))
