"""Platform renderers on hand-written schemas: the transformations, case by case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolgen.descriptor import ToolDescriptor
from toolgen.render.gemini import NotRepresentable, mixed_enums, to_openapi
from toolgen.render.mcp import output_schema
from toolgen.render.openai import NotStrict, nullable, strict_schema
from toolgen.render.options import RenderOptions

REPO = Path(__file__).resolve().parent.parent


def test_openai_strict_requires_everything_and_makes_optionals_nullable() -> None:
    schema = {
        "type": "object",
        "properties": {
            "q": {"description": "Query.", "type": "string", "minLength": 2},
            "n": {"type": "integer", "default": 5},
            "mode": {"enum": ["a", "b"], "type": "string", "default": "a"},
            "one": {"const": "x", "type": "string", "default": "x"},
            "page": {"description": "Paging.", "$ref": "#/$defs/Page", "default": None},
            "when": {"type": "string", "format": "path"},
        },
        "required": ["q", "when"],
        "additionalProperties": False,
        "$defs": {
            "Page": {"type": "object", "properties": {"size": {"type": "integer", "default": 1}}}
        },
    }
    assert strict_schema(schema) == {
        "type": "object",
        "properties": {
            "q": {"description": "Query.", "type": "string", "minLength": 2},
            "n": {"description": "Default: 5. Null means not given.", "type": ["integer", "null"]},
            "mode": {
                "description": 'Default: "a". Null means not given.',
                "enum": ["a", "b", None],
                "type": ["string", "null"],
            },
            "one": {
                "description": 'Default: "x". Null means not given.',
                "type": ["string", "null"],
                "enum": ["x", None],
            },
            "page": {
                "description": "Paging. Null means not given.",
                "anyOf": [{"$ref": "#/$defs/Page"}, {"type": "null"}],
            },
            "when": {"description": "Format: path.", "type": "string"},
        },
        "required": ["q", "n", "mode", "one", "page", "when"],
        "additionalProperties": False,
        "$defs": {
            "Page": {
                "type": "object",
                "properties": {
                    "size": {
                        "description": "Default: 1. Null means not given.",
                        "type": ["integer", "null"],
                    }
                },
                "required": ["size"],
                "additionalProperties": False,
            }
        },
    }


@pytest.mark.parametrize(
    ("prop", "why"),
    [
        ({"type": "object", "additionalProperties": True}, "free-form object"),
        ({"type": "object", "additionalProperties": {"type": "integer"}}, "free-form object"),
        ({}, "accepts any value"),
        ({"type": "array", "prefixItems": [{"type": "integer"}]}, "uses prefixItems"),
        ({"allOf": [{"type": "integer"}]}, "uses allOf"),
    ],
)
def test_openai_not_strict_names_the_construct(prop: dict[str, object], why: str) -> None:
    schema = {"type": "object", "properties": {"x": prop}, "required": ["x"]}
    with pytest.raises(NotStrict, match=why) as info:
        strict_schema(schema)
    assert "/properties/x" in str(info.value)


def test_nullable_forms() -> None:
    assert nullable({"anyOf": [{"type": "integer"}, {"type": "null"}]}) == {
        "anyOf": [{"type": "integer"}, {"type": "null"}]
    }
    assert nullable({"enum": [1, "a"]}) == {"enum": [1, "a", None]}
    assert nullable({"description": "d", "$ref": "#/$defs/X"}) == {
        "description": "d",
        "anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}],
    }


def test_gemini_subset() -> None:
    schema = {
        "type": "object",
        "properties": {
            "level": {"$ref": "#/$defs/Level", "default": 1},
            "maybe": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
            "one": {"const": "x", "type": "string"},
            "pos": {"type": "integer", "exclusiveMinimum": 0},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "lit": {"enum": ["a", None]},
        },
        "required": ["level"],
        "additionalProperties": False,
        "$defs": {"Level": {"description": "Level.", "enum": [1, 2], "type": "integer"}},
    }
    assert to_openapi(schema) == {
        "type": "OBJECT",
        "properties": {
            "level": {
                "description": "Level.",
                "enum": ["1", "2"],
                "format": "enum",
                "type": "INTEGER",
                "default": 1,
            },
            "maybe": {"type": "STRING", "format": "date", "nullable": True},
            "pair": {
                "type": "ARRAY",
                "items": {"anyOf": [{"type": "INTEGER"}, {"type": "STRING"}]},
                "minItems": 2,
                "maxItems": 2,
            },
            "one": {"enum": ["x"], "type": "STRING"},
            "pos": {"type": "INTEGER", "minimum": 1, "description": "Must be greater than 0."},
            "labels": {"type": "OBJECT"},
            "lit": {"nullable": True, "enum": ["a"], "type": "STRING"},
        },
        "required": ["level"],
    }


def test_gemini_refuses_recursion() -> None:
    schema = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            }
        },
    }
    with pytest.raises(NotRepresentable, match="recursive model Node"):
        to_openapi(schema)


def test_mcp_output_schema_has_an_object_root() -> None:
    assert output_schema({}) is None
    assert output_schema({"type": "null"}) is None
    assert output_schema({"type": "string"}) == {
        "type": "object",
        "properties": {"result": {"type": "string"}},
        "required": ["result"],
    }
    model = {"type": "object", "properties": {"a": {"$ref": "#/$defs/B"}}}
    b = {"enum": ["x"], "type": "string"}
    assert output_schema({"$ref": "#/$defs/A", "$defs": {"A": model, "B": b}}) == {
        **model,
        "$defs": {"B": b},
    }
    described = {"$ref": "#/$defs/A", "description": "An A.", "$defs": {"A": model, "B": b}}
    assert output_schema(described) == {**model, "description": "An A.", "$defs": {"B": b}}
    counts = {"type": "object", "additionalProperties": {"type": "integer"}}  # dict[str, int]
    assert output_schema(counts) == counts  # an object root already: as FastMCP publishes it
    assert output_schema({"type": "object"}) == {"type": "object"}  # dict
    listed = {"type": "array", "items": {"$ref": "#/$defs/B"}, "$defs": {"B": b}}
    assert output_schema(listed) == {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/B"}}},
        "required": ["result"],
        "$defs": {"B": b},
    }


def test_mcp_wraps_the_same_returns_with_and_without_inline_defs() -> None:
    """`toolgen serve` asks `wraps` of the descriptor's return schema (with its `$ref`s) whether
    to wrap what the published `outputSchema` wraps, which `inline_defs` may have inlined."""
    from toolgen.render.mcp import wraps
    from toolgen.schema_ops import inline_refs

    page = {"type": "object", "properties": {"size": {"type": "integer"}}}
    kids = {"type": "array", "items": {"$ref": "#/$defs/Node"}}
    defs = {"Page": page, "Node": {"type": "object", "properties": {"kids": kids}}}
    for root, wrapped in [
        ({"type": "array", "items": {"$ref": "#/$defs/Page"}}, True),  # list[Page]
        ({"anyOf": [{"$ref": "#/$defs/Page"}, {"type": "null"}]}, True),  # Page | None
        ({"$ref": "#/$defs/Node"}, True),  # a recursive model
        ({"type": "string"}, True),
        ({"$ref": "#/$defs/Page"}, False),  # a model
        ({"$ref": "#/$defs/Page", "description": "A page."}, False),  # Annotated[Page, ...]
        ({"type": "object", "additionalProperties": {"$ref": "#/$defs/Page"}}, False),
        ({"type": "object", "additionalProperties": {"type": "integer"}}, False),  # dict
    ]:
        schema = {**root, "$defs": defs}
        for form in (schema, inline_refs(schema)):
            published = output_schema(form)
            assert published is not None
            shown = {k: v for k, v in form.items() if k != "$defs"}
            assert (published.get("properties") == {"result": shown}) is wrapped, root
            assert wraps(form) is wrapped, root
    assert not wraps({}) and not wraps({"type": "null"})  # no outputSchema: nothing to wrap


def test_forbidden_tool_keeps_its_descriptor_but_reaches_no_payload() -> None:
    generated = REPO / "generated"
    descriptor = json.loads((generated / "descriptors" / "read_private_key.json").read_text())
    assert descriptor["risk"] == "forbidden"
    assert descriptor["autonomous"] is False
    for relpath in (
        "openai/chat_completions.json",
        "openai/responses.json",
        "anthropic/tools.json",
        "gemini/function_declarations.json",
        "mcp/tools.json",
    ):
        assert "read_private_key" not in (generated / relpath).read_text(), relpath


def test_mcp_annotations_come_from_the_idempotency_block() -> None:
    tools = json.loads((REPO / "generated" / "mcp" / "tools.json").read_text())["tools"]
    by_name = {t["name"]: t for t in tools}
    assert by_name["delete_user"]["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert by_name["search_web"]["annotations"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": True,
    }
    assert "outputSchema" not in by_name["delete_user"]  # returns None
    assert by_name["ticket_search"]["outputSchema"]["type"] == "object"


def test_inline_refs_keeps_recursive_entries_and_what_they_use() -> None:
    from toolgen.schema_ops import inline_refs

    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A", "description": "An A."},
            "n": {"$ref": "#/$defs/Node"},
        },
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"enum": ["x"], "type": "string"},
            "Node": {
                "type": "object",
                "properties": {"next": {"$ref": "#/$defs/Node"}, "b": {"$ref": "#/$defs/B"}},
            },
        },
    }
    assert inline_refs(schema) == {
        "type": "object",
        "properties": {
            "a": {
                "type": "object",
                "properties": {"b": {"enum": ["x"], "type": "string"}},
                "description": "An A.",
            },
            "n": {"$ref": "#/$defs/Node"},
        },
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "next": {"$ref": "#/$defs/Node"},
                    "b": {"enum": ["x"], "type": "string"},
                },
            }
        },
    }
    siblings_only = inline_refs(schema, only_with_siblings=True)
    assert siblings_only["properties"]["a"]["properties"] == {"b": {"$ref": "#/$defs/B"}}
    assert siblings_only["properties"]["n"] == {"$ref": "#/$defs/Node"}
    assert set(siblings_only["$defs"]) == {"A", "B", "Node"}


def test_inline_refs_of_a_root_ref_leaves_no_defs_behind() -> None:
    """A return type's schema is a root `$ref` beside `$defs`: inlined, the `$defs` go with it
    (MCP's `outputSchema` with `inline_defs`); the Agents SDK form keeps a bare `$ref`."""
    from toolgen.schema_ops import inline_refs

    page = {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}}
    b = {"enum": ["x"], "type": "string"}
    inlined = {"type": "object", "properties": {"b": b}}
    model = {"$ref": "#/$defs/Page", "$defs": {"Page": page, "B": b}}
    assert inline_refs(model) == inlined
    assert inline_refs({**model, "description": "A page."}) == {**inlined, "description": "A page."}
    assert inline_refs(model, only_with_siblings=True) == model


def test_gemini_warns_when_an_enum_mixes_kinds() -> None:
    """Gemini's enums are strings: `Literal["x", 1, True]` would come back as "1" or "true"."""
    from toolgen.render.gemini import render

    mixed = {"enum": ["x", 1, True, None]}
    schema = {
        "type": "object",
        "properties": {"kind": mixed, "level": {"enum": [1, 2.5], "type": "number"}},
        "$defs": {"Mode": {"enum": ["a", False]}},
    }
    assert mixed_enums(schema) == [
        ("/properties/kind", ["boolean", "number", "string"]),
        ("/$defs/Mode", ["boolean", "string"]),
    ]
    assert to_openapi(schema)["properties"]["kind"]["enum"] == ["x", "1", "true"]
    reported: list[tuple[str, str]] = []
    example = next((REPO / "generated" / "descriptors").glob("*.json"))
    tool = ToolDescriptor.model_validate_json(example.read_text()).model_copy(
        update={"parameters": schema}
    )
    render([tool], lambda code, _, message: reported.append((code, message)), RenderOptions())
    assert [code for code, _ in reported] == ["TG606", "TG606"]
    assert reported[0][1].startswith("Gemini: the enum at /properties/kind mixes boolean, number,")
