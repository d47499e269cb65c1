"""What a framework that sends its tools to OpenAI itself sends for one: the `function` of
its Chat Completions tool, made statically from toolgen's canonical parameters schema.

LangChain (`convert_to_openai_tool(tool)["function"]`) builds the schema it sends from a model
of the tool's arguments (`tool_call_schema`: `_create_subset_model` of the `args_schema` or of
`_run`'s / the function's signature, which keeps each top-level field's annotation,
description, default and constraints, nothing else), takes pydantic's `model_json_schema()` of
it (`toolgen.schema_forms.pydantic_form`), inlines each `$ref` (`dereference_refs`: a
reference's own keys over its definition's, a reference met again inside itself left as its
own keys only), drops `$defs`, the root's title and description, and every `title` but a
property's and those inside lists (`_rm_titles` does not look into lists).

pydantic-ai sends its tool definition's schema (`OpenAIChatModel._map_tool_definition`):
pydantic's, keys sorted as pydantic sorts them, without the fields' titles (its
`GenerateToolJsonSchema`), the definitions titled with their names, the root closed.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import unquote

from toolgen.schema_forms import pydantic_form, pydantic_sort

Schema = dict[str, Any]

#: The releases whose rules these are (the descriptor's `framework.version`), by framework.
RULES = {"langchain": "1", "pydantic-ai": "2", "openai-agents": "0.24"}

#: What a field loses in the subset model LangChain makes: only the description, the default
#: and the constraints are carried over.
_NOT_CARRIED = frozenset({"examples", "deprecated", "title"})


class TooLarge(Exception):
    """The payload's schema would hold more values than the caller's limit: LangChain inlines
    a model once per path that reaches it, so models that refer to each other (each one to
    every other) make a schema that grows as the factorial of their number."""


def langchain_function(name: str, description: str, parameters: Schema, limit: int) -> Schema:
    """The `function` object of the tool LangChain sends (Chat Completions); `TooLarge` when
    its schema would hold more than `limit` values."""
    schema = {k: v for k, v in parameters.items() if k != "additionalProperties"}
    properties = schema.get("properties")
    if isinstance(properties, dict):
        schema["properties"] = {
            key: (
                {k: v for k, v in prop.items() if k not in _NOT_CARRIED}
                if isinstance(prop, dict)
                else prop
            )
            for key, prop in properties.items()
        }
    form = _dereference(pydantic_form(schema, name), limit)
    for key in ("$defs", "title", "description"):
        form.pop(key, None)
    return {"name": name, "description": description, "parameters": _rm_titles(form)}


def _dereference(schema: Schema, limit: int) -> Schema:
    """LangChain's `dereference_refs` (its default, shallow form) of a whole schema; `TooLarge`
    once it has made more than `limit` values (counting stops it before memory runs out: a
    cycle is only broken where a path meets a model again, not where another path did)."""
    defs = schema.get("$defs", {})
    made = 0

    def walk(value: Any, active: frozenset[str]) -> Any:
        nonlocal made
        made += 1
        if made > limit:
            raise TooLarge(f"more than {limit:,} values")
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                own = {k: walk(v, active) for k, v in value.items() if k != "$ref"}
                target = ref.removeprefix("#/$defs/")
                if ref in active or target not in defs:
                    return own  # a cycle: broken, the reference's own keys kept
                resolved = walk(copy.deepcopy(defs[target]), active | {ref})
                return {**resolved, **own} if isinstance(resolved, dict) else resolved
            return {
                k: (copy.deepcopy(v) if k == "$defs" else walk(v, active)) for k, v in value.items()
            }
        if isinstance(value, list):
            return [walk(v, active) for v in value]
        return value

    result: Schema = walk(schema, frozenset())
    return result


def _rm_titles(value: Schema, parent: str = "") -> Schema:
    """LangChain's `_rm_titles`: every `title` key dropped but a property named so (a dict
    under `properties`); lists are not looked into."""
    out: Schema = {}
    for key, item in value.items():
        if key == "title":
            if isinstance(item, dict) and parent == "properties":
                out[key] = _rm_titles(item, key)
        elif isinstance(item, dict):
            out[key] = _rm_titles(item, key)
        else:
            out[key] = item
    return out


def pydantic_ai_function(name: str, description: str, parameters: Schema) -> Schema:
    """The `function` of the tool pydantic-ai sends (Chat Completions, no `strict` given)."""
    schema = dict(parameters)
    defs = schema.get("$defs")
    if isinstance(defs, dict):
        schema["$defs"] = {
            key: ({"title": key, **body} if isinstance(body, dict) else body)
            for key, body in defs.items()
        }
    return {"name": name, "description": description, "parameters": pydantic_sort(schema)}


# -- the OpenAI Agents SDK -------------------------------------------------------------------
class NotStrict(Exception):
    """The Agents SDK refuses to make the schema strict: it raises where the tool is made
    (`@function_tool` at import), so there is no tool (TG211)."""


class NotPorted(Exception):
    """What the SDK does here is not followed (a single `allOf`, which pydantic 2 does not
    write): toolgen's own payload stands."""


#: Keys a `$ref` may have beside it without changing what it accepts (`strict_schema`).
_REF_SIBLINGS = frozenset(
    {
        "$anchor",
        "$comment",
        "$defs",
        "$schema",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "default",
        "definitions",
        "deprecated",
        "description",
        "examples",
        "readOnly",
        "title",
        "writeOnly",
    }
)
_MISSING = object()


def agents_function(name: str, description: str, parameters: Schema, strict: bool) -> Schema | None:
    """The `function` of the tool the Agents SDK sends (`Converter.tool_to_openai`): pydantic's
    schema of its `{name}_args` model, made strict as `ensure_strict_json_schema` makes it;
    `NotStrict` where the SDK refuses to make it strict; None where toolgen does not follow
    what it does (toolgen's own payload then stands)."""
    open_root = {k: v for k, v in parameters.items() if k != "additionalProperties"}
    schema = pydantic_form(open_root, f"{name}_args")
    if strict:
        try:
            schema = _agents_strict(schema)
        except NotPorted:
            return None
    return {"name": name, "description": description, "parameters": schema, "strict": strict}


def _agents_strict(schema: Schema) -> Schema:
    """`ensure_strict_json_schema`, done as it does it (in place, in its order, so that keys
    come out in its order)."""
    root = copy.deepcopy(schema)
    if root == {}:
        return {"additionalProperties": False, "type": "object", "properties": {}, "required": []}
    out = _strict(root, root)
    if isinstance(out.get("anyOf"), list):
        raise NotStrict("a root anyOf")
    kind = out.get("type")
    if isinstance(kind, list) and "object" in kind:
        if kind != ["object"]:
            raise NotStrict("a nullable root")
        out["type"] = "object"
    return out


def _strict(node: Any, root: Schema) -> Schema:
    if not isinstance(node, dict):
        raise NotStrict("not a schema")
    if "$ref" in node and set(node) - {"$ref"} - _REF_SIBLINGS - (
        {"$id"} if node is root else set()
    ):
        raise NotStrict("a $ref with constraining siblings")
    for key in ("$defs", "definitions"):
        defs = node.get(key)
        if isinstance(defs, dict):
            for body in defs.values():
                _strict(body, root)
    kind = node.get("type")
    properties = node.get("properties")
    if kind is None and isinstance(properties, dict):
        kind = node["type"] = "object"
    elif kind is None and node.get("additionalProperties", False) is not False:
        raise NotStrict("an object that takes properties it does not name, such as a dict")
    is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
    if is_object and "additionalProperties" not in node:
        node["additionalProperties"] = False
    elif is_object and node["additionalProperties"] is not False:
        raise NotStrict("an object that takes properties it does not name, such as a dict")
    if isinstance(properties, dict):
        node["required"] = list(properties)
        node["properties"] = {key: _strict(prop, root) for key, prop in properties.items()}
    items = node.get("items")
    if isinstance(items, dict):
        node["items"] = _strict(items, root)
    any_of = node.get("anyOf")
    if isinstance(any_of, list):
        node["anyOf"] = [_strict(variant, root) for variant in any_of]
    one_of = node.get("oneOf")
    if isinstance(one_of, list):
        existing = node.get("anyOf", [])
        node["anyOf"] = (existing if isinstance(existing, list) else []) + [
            _strict(variant, root) for variant in one_of
        ]
        node.pop("oneOf")
    all_of = node.get("allOf")
    if isinstance(all_of, list):
        if len(all_of) == 1:
            raise NotPorted("a single allOf")  # pydantic 2 writes none; not followed here
        node["allOf"] = [_strict(entry, root) for entry in all_of]
    if node.get("default", _MISSING) is None:
        node.pop("default")
    ref = node.get("$ref")
    if ref and len(node) > 1:
        resolved = _resolve(root, ref)
        node.pop("$ref")
        node.update({**resolved, **node})
        return _strict(node, root)
    return node


def _resolve(root: Schema, ref: Any) -> Schema:
    if not isinstance(ref, str) or not ref.startswith("#/"):
        raise NotStrict("a $ref off the document")
    found: Any = root
    for raw in unquote(ref[2:], errors="strict").split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if not isinstance(found, dict) or not isinstance(found.get(key), dict):
            raise NotStrict(f"a $ref that does not resolve: {ref}")
        found = found[key]
    result: Schema = found  # the definition itself, shared as the SDK shares it
    return result
