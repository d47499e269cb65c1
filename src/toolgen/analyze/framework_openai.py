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

from toolgen.schema_forms import pydantic_form, pydantic_sort

Schema = dict[str, Any]

#: The releases whose rules these are (the descriptor's `framework.version`), by framework.
RULES = {"langchain": "1", "pydantic-ai": "2"}

#: What a field loses in the subset model LangChain makes: only the description, the default
#: and the constraints are carried over.
_NOT_CARRIED = frozenset({"examples", "deprecated", "title"})


def langchain_function(name: str, description: str, parameters: Schema) -> Schema:
    """The `function` object of the tool LangChain sends (Chat Completions)."""
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
    form = _dereference(pydantic_form(schema, name))
    for key in ("$defs", "title", "description"):
        form.pop(key, None)
    return {"name": name, "description": description, "parameters": _rm_titles(form)}


def _dereference(schema: Schema) -> Schema:
    """LangChain's `dereference_refs` (its default, shallow form) of a whole schema."""
    defs = schema.get("$defs", {})

    def walk(value: Any, active: frozenset[str]) -> Any:
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
