"""`toolgen.read.openapi`: what `FastMCP.from_openapi` lists, computed from the document.

The rule tests use small documents of their own. The differential tests run the installed
fastmcp (4.2.3) on the same documents, and on generated ones, and compare `tools/list`
byte for byte (`json.dumps` with key order kept). The one exception is a schema whose
`$defs` survive the dereference (a cyclic graph): FastMCP builds those `$defs` by
iterating a set of names, so their order depends on the process's hash seed and only the
values are compared.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolgen.read.openapi import Component, OpenAPIError, Route, RouteMap, convert, parse

V3 = (3, 4, 11)
V4 = (4, 2, 3)

OK = {"200": {"description": "ok"}}


def doc(paths: dict[str, Any], schemas: dict[str, Any] | None = None, v31: bool = False) -> Any:
    spec: dict[str, Any] = {
        "openapi": "3.1.0" if v31 else "3.0.3",
        "info": {"title": "T", "version": "1"},
        "paths": paths,
    }
    if schemas is not None:
        spec["components"] = {"schemas": schemas}
    return spec


def op(**kw: Any) -> dict[str, Any]:
    return {"responses": OK, **kw}


def json_response(schema: dict[str, Any], ctype: str = "application/json") -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {ctype: {"schema": schema}}}}


def tools(spec: Any, version: tuple[int, int, int] = V3, **kw: Any) -> list[dict[str, Any]]:
    result = convert(spec, version=version, **kw)
    assert result.problems == []
    return result.tools


def only(spec: Any, version: tuple[int, int, int] = V3, **kw: Any) -> dict[str, Any]:
    (tool,) = tools(spec, version, **kw)
    return tool


def names(spec: Any, version: tuple[int, int, int] = V3, **kw: Any) -> list[str]:
    return [t["name"] for t in tools(spec, version, **kw)]


# ---------------------------------------------------------------- names

NAMING = doc(
    {
        "/pets/{id}": {
            "get": op(operationId="get_pet__v2", summary="ignored"),
            "put": op(summary="Update a pet!"),
            "delete": op(),
        },
        "/long": {"get": op(operationId="x" * 70)},
    }
)


def test_names_come_from_operation_id_summary_or_method_and_path() -> None:
    assert names(NAMING) == ["get_pet", "Update_a_pet", "DELETE_petsid", "x" * 56]


def test_mcp_names_replace_the_operation_id() -> None:
    assert names(NAMING, mcp_names={"get_pet__v2": "fetch pet"})[0] == "fetch_pet"


SUFFIXES = doc(
    {
        "/a": {"get": op(summary="Same"), "post": op(summary="Same")},
        "/b": {"get": op(summary="Same")},
    }
)


def test_repeated_names_count_only_tool_routes() -> None:
    maps = [RouteMap(methods=("POST",), mcp_type="EXCLUDE")]
    assert names(SUFFIXES, route_maps=maps) == ["Same", "Same_2"]
    assert names(SUFFIXES) == ["Same", "Same_2", "Same_3"]


TAKEN = doc(
    {
        "/a": {"get": op(summary="Same"), "put": op(summary="Same")},
        "/b": {"get": op(operationId="Same_2", description="own")},
    }
)


def test_fastmcp4_skips_a_suffix_that_is_already_taken() -> None:
    # 3.x hands out Same_2 twice, and the later tool replaces the earlier one
    assert names(TAKEN, V3) == ["Same", "Same_2"]
    assert tools(TAKEN, V3)[1]["description"] == "own"
    assert names(TAKEN, V4) == ["Same", "Same_2", "Same_2_2"]


EMPTY_SLUG = doc({"/things": {"get": op(summary="üé")}})


def test_an_empty_slug_falls_back_to_method_and_path_in_4x() -> None:
    assert names(EMPTY_SLUG, V3) == [""]
    assert names(EMPTY_SLUG, V4) == ["GET_things"]


# ---------------------------------------------------------------- route maps and callbacks

ROUTED = doc(
    {
        "/users": {"get": op(operationId="list_users", tags=["users", "admin"])},
        "/users/{id}": {"delete": op(operationId="delete_user", tags=["users"])},
        "/health": {"get": op(operationId="health")},
    }
)


def test_route_maps_match_methods_pattern_and_tags_first_match_wins() -> None:
    maps = [
        RouteMap(methods=("DELETE",), mcp_type="EXCLUDE"),
        RouteMap(tags=frozenset({"users", "admin"}), mcp_type="TOOL", mcp_tags=frozenset({"m"})),
        RouteMap(pattern=r"^/users", mcp_type="EXCLUDE"),
        RouteMap(pattern=r"ealt", mcp_type="RESOURCE"),
    ]
    result = tools(ROUTED, route_maps=maps)
    assert [t["name"] for t in result] == ["list_users"]
    assert result[0]["_meta"] == {"fastmcp": {"tags": ["admin", "m", "users"]}}
    # a tag map needs all its tags on the route
    only_admin = [RouteMap(tags=frozenset({"admin", "other"}), mcp_type="EXCLUDE")]
    assert names(ROUTED, route_maps=only_admin) == ["list_users", "delete_user", "health"]


def test_route_map_fn_changes_or_keeps_the_type() -> None:
    seen: list[tuple[str, str]] = []

    def fn(route: Route, kind: str) -> str | None:
        seen.append((route.path, kind))
        return "EXCLUDE" if route.method == "DELETE" else None

    maps = [RouteMap(pattern="health", mcp_type="EXCLUDE")]
    assert names(ROUTED, route_maps=maps, route_map_fn=fn) == ["list_users"]
    assert seen == [("/users", "TOOL"), ("/users/{id}", "TOOL"), ("/health", "EXCLUDE")]


def test_component_fn_edits_the_tool_before_it_is_listed() -> None:
    def fn(route: Route, c: Component) -> None:
        c.name = f"{route.method.lower()}.{c.name}"
        c.annotations = {"readOnlyHint": True, "title": "From annotations"}
        c.meta = {"x": 1, "gone": None}
        c.tags.add("extra")
        if route.operation_id == "health":
            c.title = "Own title"
            c.output_schema = {"type": "object"}

    result = tools(ROUTED, component_fn=fn, tags=frozenset({"all"}))
    assert [t["name"] for t in result] == ["get.list_users", "delete.delete_user", "get.health"]
    assert result[0]["title"] == "From annotations"
    assert result[0]["annotations"] == {"title": "From annotations", "readOnlyHint": True}
    assert list(result[0]["annotations"]) == ["title", "readOnlyHint"]
    assert result[0]["_meta"] == {
        "x": 1,
        "gone": None,
        "fastmcp": {"tags": ["admin", "all", "extra", "users"]},
    }
    assert result[2]["title"] == "Own title"
    assert result[2]["outputSchema"] == {"type": "object"}
    # 4.x drops the None from _meta
    assert "gone" not in tools(ROUTED, V4, component_fn=fn)[0]["_meta"]


# ---------------------------------------------------------------- input schema

PARAMS = doc(
    {
        "/items/{name}": {
            "parameters": [
                {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}},
                {"name": "q", "in": "query", "schema": {"type": "string"}},
            ],
            "post": op(
                parameters=[
                    {"name": "q", "in": "query", "description": "Op level", "schema": {}},
                    {"name": "q", "in": "header", "schema": {"type": "integer"}},
                ],
                requestBody={
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"name": {"type": "string"}, "n": {}},
                                "required": ["name"],
                            }
                        }
                    },
                },
            ),
        }
    }
)


def test_parameters_and_body_merge_with_collisions_suffixed() -> None:
    schema = only(PARAMS)["inputSchema"]
    assert schema == {
        "type": "object",
        "properties": {
            "q__query": {"description": "Op level (Query parameter)"},
            "q__header": {"type": "integer", "description": "(Header parameter)"},
            "name__path": {"type": "string", "description": "(Path parameter)"},
            "name": {"type": "string"},
            "n": {},
        },
        "required": ["name__path", "name"],
    }


def body_doc(schema: dict[str, Any], required: bool, **components: Any) -> Any:
    body = {"required": required, "content": {"application/json": {"schema": schema}}}
    return doc({"/x": {"post": op(requestBody=body)}}, components or None)


def test_body_required_only_when_the_body_is() -> None:
    obj = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    assert only(body_doc(obj, True))["inputSchema"]["required"] == ["a"]
    assert only(body_doc(obj, False))["inputSchema"]["required"] == []


ALLOF_BODY = body_doc(
    {
        "allOf": [
            {"$ref": "#/components/schemas/Base"},
            {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]},
        ]
    },
    True,
    Base={"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
)


def test_allof_body_is_merged() -> None:
    # 3.x merges the inline members only; 4.x follows the reference as well
    assert only(ALLOF_BODY)["inputSchema"]["properties"] == {"b": {"type": "integer"}}
    assert only(ALLOF_BODY, V4)["inputSchema"] == {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    }


def test_non_object_body_is_one_argument_named_by_its_title() -> None:
    titled = body_doc({"type": "array", "items": {"type": "string"}, "title": "Tag List"}, True)
    assert only(titled)["inputSchema"]["required"] == ["tag_list"]
    numbered = body_doc({"type": "string", "title": "1st"}, False)
    assert list(only(numbered)["inputSchema"]["properties"]) == ["body_data"]
    plain = body_doc({"type": "integer"}, True)
    assert only(plain)["inputSchema"]["properties"] == {"body": {"type": "integer"}}


# a reference through an extension is kept as written, so the body stays a bare $ref
BARE_REF = doc(
    {
        "/x": {
            "post": op(
                requestBody={
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/x-aliases/Pet"}}},
                }
            )
        }
    },
    {"Pet": {"type": "object", "properties": {"id": {"type": "integer"}}}},
)
BARE_REF["x-aliases"] = {"Pet": {"$ref": "#/components/schemas/Pet"}}


def test_a_bare_ref_body_is_one_argument_named_body() -> None:
    schema = only(BARE_REF)["inputSchema"]
    assert schema == {
        "type": "object",
        "properties": {"body": {"type": "object", "properties": {"id": {"type": "integer"}}}},
        "required": ["body"],
    }


NULLABLE = doc(
    {
        "/x": {
            "get": op(
                parameters=[
                    {
                        "name": "order",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["a", "b"], "nullable": True},
                    },
                    {
                        "name": "pick",
                        "in": "query",
                        "schema": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                    },
                    {"name": "n", "in": "query", "schema": {"type": "integer", "minimum": 1}},
                ]
            )
        }
    }
)


def test_nullable_and_oneof_become_json_schema() -> None:
    props = only(NULLABLE)["inputSchema"]["properties"]
    assert props["order"] == {"enum": ["a", "b", None], "type": ["string", "null"]}
    assert props["pick"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    # openapi_pydantic types minimum as a float
    assert json.dumps(props["n"]) == '{"minimum": 1.0, "type": "integer"}'


# ---------------------------------------------------------------- output schema

OUTPUTS = doc(
    {
        "/primary": {
            "get": op(
                responses={
                    "default": {
                        "description": "d",
                        "content": {"application/json": {"schema": {}}},
                    },
                    "201": {
                        "description": "c",
                        "content": {
                            "text/plain": {"schema": {"type": "string"}},
                            "application/hal+json": {
                                "schema": {"type": "object", "properties": {"a": {}}}
                            },
                        },
                    },
                }
            )
        },
        "/list": {
            "get": op(responses=json_response({"type": "array", "items": {"type": "integer"}}))
        },
        "/ref": {"get": op(responses=json_response({"$ref": "#/components/schemas/Pet"}))},
    },
    {
        "Pet": {"type": "object", "properties": {"tag": {"$ref": "#/components/schemas/Tag"}}},
        "Tag": {"type": "string", "enum": ["x"]},
    },
)


def test_output_schema_rules() -> None:
    primary, listing, ref = tools(OUTPUTS)
    assert primary["outputSchema"] == {"type": "object", "properties": {"a": {}}}
    assert listing["outputSchema"] == {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
        "required": ["result"],
        "x-fastmcp-wrap-result": True,
    }
    # the top-level reference is resolved, its dependencies inlined, the marker kept
    assert ref["outputSchema"] == {
        "type": "object",
        "properties": {"tag": {"enum": ["x"], "type": "string"}},
        "x-fastmcp-top-level-schema": "Pet",
    }


def test_validate_output_false_gives_the_permissive_schema() -> None:
    primary, listing, _ = tools(OUTPUTS, validate_output=False)
    assert primary["outputSchema"] == {"type": "object", "additionalProperties": True}
    assert listing["outputSchema"] == {
        "type": "object",
        "additionalProperties": True,
        "x-fastmcp-wrap-result": True,
    }
    assert tools(OUTPUTS, V4, validate_output=False)[1]["outputSchema"] == {
        "type": "object",
        "additionalProperties": True,
        "x-fastmcp-wrap-result": True,
        "properties": {"result": {}},
    }


BODILESS = doc(
    {
        "/x": {
            "post": op(
                responses={**json_response({"type": "object"}), "204": {"description": "none"}}
            )
        }
    }
)


def test_a_bodiless_success_response_drops_the_output_schema_in_4x() -> None:
    assert only(BODILESS)["outputSchema"] == {"type": "object"}
    assert "outputSchema" not in only(BODILESS, V4)


# ---------------------------------------------------------------- dereference

CYCLIC = doc(
    {
        "/tree": {
            "post": op(
                requestBody={
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}
                    }
                },
                responses=json_response({"$ref": "#/components/schemas/Node"}),
            )
        },
        "/leaf": {
            "get": op(
                parameters=[
                    {"name": "f", "in": "query", "schema": {"$ref": "#/components/schemas/Leaf"}}
                ]
            )
        },
    },
    {
        "Node": {
            "type": "object",
            "properties": {
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}
            },
        },
        "Leaf": {"type": "string", "description": "A leaf"},
    },
)


def test_references_are_inlined_and_a_cycle_keeps_its_defs() -> None:
    tree, leaf = tools(CYCLIC)
    assert leaf["inputSchema"] == {
        "type": "object",
        "properties": {"f": {"type": "string", "description": "A leaf"}},
        "required": [],
    }
    assert tree["inputSchema"]["$defs"] == {
        "Node": CYCLIC["components"]["schemas"]["Node"]
        | {"properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
    }
    assert tree["outputSchema"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}


def test_fastmcp_3_0_0_cannot_list_a_cyclic_schema() -> None:
    result = convert(CYCLIC, version=(3, 0, 0))
    assert [t["name"] for t in result.tools] == ["GET_leaf"]
    assert result.problems == ["tool POST_tree: fastmcp 3.0.0 cannot list a cyclic schema"]


# ---------------------------------------------------------------- versions

VERSIONED = doc(
    {
        "/p/{pid}": {
            "get": op(
                summary="Get p",
                parameters=[
                    {
                        "name": "pid",
                        "in": "path",
                        "required": True,
                        "description": "The id",
                        "schema": {"type": "string"},
                    },
                    {
                        "name": "o",
                        "in": "query",
                        "example": "asc",
                        "schema": {"type": "string", "nullable": True},
                    },
                    {
                        "name": "t",
                        "in": "query",
                        "schema": {"type": "array", "items": {"$ref": "#/components/schemas/T"}},
                    },
                ],
                responses=json_response({"$ref": "#/components/schemas/T"}),
            )
        }
    },
    {"T": {"type": "object", "properties": {"v": {"type": "integer"}}}},
)


def test_version_differences() -> None:
    v4 = only(VERSIONED, V4)
    assert v4["title"] == "Get P"
    assert v4["inputSchema"]["properties"]["o"] == {"type": ["string", "null"], "example": "asc"}
    v34 = only(VERSIONED, V3)
    assert "title" not in v34
    assert v34["inputSchema"]["properties"]["o"] == {"type": ["string", "null"]}
    v30 = only(VERSIONED, (3, 0, 0))
    assert v30["inputSchema"]["properties"]["o"] == {"type": "string", "nullable": True}
    v2 = only(VERSIONED, (2, 14, 5))
    assert v2["description"] == "Get p\n\n\n**Path Parameters:**\n\n- **pid**: The id"
    assert v2["_meta"] == {"_fastmcp": {"tags": []}}
    assert v2["inputSchema"]["properties"]["t"] == {"type": "array", "items": {"$ref": "#/$defs/T"}}
    assert list(v2["inputSchema"]["$defs"]) == ["T"]
    assert v2["outputSchema"]["$defs"] == {
        "T": {"type": "object", "properties": {"v": {"type": "integer"}}}
    }


def test_before_3_3_a_name_repeated_across_locations_is_not_suffixed() -> None:
    props = only(PARAMS, (3, 2, 4))["inputSchema"]["properties"]
    # the header parameter replaces the query one; only the body collision is suffixed
    assert list(props) == ["q", "name__path", "name", "n"]
    assert props["q"] == {"type": "integer"}


def test_before_3_2_1_only_the_output_schema_is_converted() -> None:
    spec = doc(
        {
            "/x": {
                "get": op(
                    parameters=[
                        {"name": "p", "in": "query", "schema": {"oneOf": [{"type": "string"}]}}
                    ],
                    responses=json_response({"oneOf": [{"type": "string"}], "nullable": True}),
                )
            }
        }
    )
    tool = only(spec, (3, 0, 0))
    assert tool["inputSchema"]["properties"]["p"] == {"oneOf": [{"type": "string"}]}
    assert tool["outputSchema"]["properties"]["result"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}]
    }


# ---------------------------------------------------------------- the routes themselves


def test_parse_gives_fastmcp_route_attributes() -> None:
    spec = doc({"/a": {"get": op(operationId="o", tags=["t"], **{"x-side": "read"})}})
    (route,) = parse(spec)
    assert (route.path, route.method, route.operation_id, route.tags) == ("/a", "GET", "o", ["t"])
    assert route.extensions == {"x-side": "read"}
    assert route.openapi_version == "3.0.3"


# ---------------------------------------------------------------- malformed input


@pytest.mark.parametrize(
    "spec",
    [
        None,
        [],
        {"paths": {}},
        {"openapi": "2.0", "paths": {}},
        {"openapi": "3.0.3", "paths": []},
        doc(
            {
                "/x": {
                    "get": op(
                        parameters=[{"name": "a", "in": "query", "schema": {"$ref": "http://e/x"}}]
                    )
                }
            }
        ),
    ],
)
def test_unreadable_documents_raise_openapi_error(spec: Any) -> None:
    with pytest.raises(OpenAPIError):
        convert(spec, version=V4)


def test_a_bad_route_is_a_problem_and_the_others_are_listed() -> None:
    spec = doc(
        {
            "/bad": {"get": op(parameters=[{"$ref": "#/components/parameters/P"}])},
            "/loop": {"get": op(parameters=[{"$ref": "#/components/parameters/A"}])},
            "/type": {
                "get": op(parameters=[{"name": "a", "in": "query", "schema": {"type": "nope"}}])
            },
            "/good": {"get": op()},
        }
    )
    spec["components"] = {
        "parameters": {
            "A": {"$ref": "#/components/parameters/B"},
            "B": {"$ref": "#/components/parameters/A"},
        }
    }
    for version in (V3, V4):
        result = convert(spec, version=version)
        assert [t["name"] for t in result.tools] == ["GET_good"]
        assert len(result.problems) == 3


def test_very_deep_schemas_and_cycles_do_not_escape() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(5000):
        deep = {"type": "array", "items": deep}
    wide = {
        f"S{i}": {
            "type": "object",
            "properties": {
                "a": {"$ref": f"#/components/schemas/S{i + 1}"},
                "b": {"$ref": f"#/components/schemas/S{i + 1}"},
            },
        }
        for i in range(40)
    }
    spec = doc(
        {
            "/deep": {"get": op(parameters=[{"name": "d", "in": "query", "schema": deep}])},
            "/wide": {"get": op(responses=json_response({"$ref": "#/components/schemas/S0"}))},
        },
        wide,
    )
    for version in (V3, V4):
        result = convert(spec, version=version)
        assert len(result.problems) == 1 and "/deep" in result.problems[0]
        # 2**40 nodes once inlined: the references stay
        (tool,) = result.tools
        assert "$defs" in tool["outputSchema"]


# ---------------------------------------------------------------- against fastmcp itself

S = "#/components/schemas/"


def discriminated(v31: bool) -> Any:
    """A discriminator with a mapping, allOf subtypes, readOnly/writeOnly, a loose object,
    references through components/parameters, responses and requestBodies, a pointer into
    a component, a `$ref` with a sibling, an extension kept as written."""
    schemas = {
        "Pet": {
            "type": "object",
            "properties": {
                "kind": {"type": "string"},
                "name": {"type": "string", "readOnly": True},
            },
            "required": ["kind", "name"],
            "discriminator": {"propertyName": "kind", "mapping": {"cat": S + "Cat", "dog": "Dog"}},
        },
        "Cat": {
            "allOf": [
                {"$ref": S + "Pet"},
                {"type": "object", "properties": {"meow": {"type": "boolean"}}},
            ]
        },
        "Dog": {
            "allOf": [
                {"$ref": S + "Pet"},
                {"type": "object", "properties": {"bark": {"type": "string", "writeOnly": True}}},
            ]
        },
        "Loose": {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "additionalProperties": {"type": "integer"},
        },
        "Union": {
            "oneOf": [{"$ref": S + "Cat"}, {"$ref": S + "Dog"}],
            "discriminator": {"propertyName": "kind"},
        },
        "Bounded": {"type": "number", "exclusiveMinimum": 1}
        if v31
        else {
            "type": "number",
            "minimum": 1,
            "exclusiveMinimum": True,
            "maximum": 9,
            "exclusiveMaximum": False,
        },
    }
    spec = doc(
        {
            "/pets": {
                "post": op(
                    requestBody=body_of({"$ref": S + "Pet"}),
                    responses=json_response({"$ref": S + "Pet"}),
                ),
                "put": op(
                    requestBody=body_of({"$ref": S + "Loose"}),
                    responses=json_response({"$ref": S + "Union"}),
                ),
                "patch": op(requestBody=body_of({"type": "array", "items": {"$ref": S + "Union"}})),
            },
            "/cats": {
                "post": op(
                    requestBody=body_of({"$ref": S + "Cat"}),
                    responses=json_response({"type": "array", "items": {"$ref": S + "Dog"}}),
                ),
                "get": op(
                    parameters=[
                        {"name": "b", "in": "query", "schema": {"$ref": S + "Bounded"}},
                        {"name": "k", "in": "query", "schema": {"$ref": S + "Pet/properties/kind"}},
                        {
                            "name": "c",
                            "in": "query",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"x": {"minimum": 2}},
                                    }
                                }
                            },
                        },
                        {"$ref": "#/components/parameters/Shared"},
                    ],
                    responses={"200": {"$ref": "#/components/responses/Ok"}},
                ),
            },
            "/sib": {
                "post": op(
                    requestBody={"$ref": "#/components/requestBodies/B"},
                    responses=json_response(
                        {
                            "type": "object",
                            "properties": {
                                "p": {"$ref": S + "Loose", "description": "Sibling"},
                                "q": {"type": "string", "default": None, "x-raw": {"minimum": 1}},
                                "r": {
                                    "type": "string",
                                    "xml": {"name": "r"},
                                    "externalDocs": {"url": "http://e"},
                                },
                            },
                        }
                    ),
                )
            },
        },
        schemas,
        v31,
    )
    spec["components"].update(
        parameters={
            "Shared": {
                "name": "shared",
                "in": "header",
                "schema": {"type": "string", "default": "z"},
            }
        },
        responses={
            "Ok": {
                "description": "ok",
                "content": {"application/json": {"schema": {"$ref": S + "Cat"}}},
            }
        },
        requestBodies={
            "B": {
                "description": "Body desc",
                "content": {
                    "application/json": {
                        "schema": {
                            "allOf": [
                                {"$ref": S + "Loose"},
                                {"properties": {"z": {"type": "integer"}}, "required": ["z"]},
                            ]
                        }
                    }
                },
            }
        },
    )
    return spec


def body_of(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def test_discriminator_and_access_rules_in_4x() -> None:
    by_name = {t["name"]: t for t in tools(discriminated(False), V4)}
    pet = by_name["POST_pets"]["inputSchema"]
    # readOnly `name` leaves the arguments; the subtypes' fields are merged in as optional
    assert list(pet["properties"]) == ["kind", "meow", "bark"]
    assert pet["required"] == ["kind"]
    assert pet["properties"]["kind"]["description"].startswith("Selects the variant.")
    # writeOnly `bark` leaves the output
    assert "bark" not in json.dumps(by_name["POST_cats"]["outputSchema"])
    bounded = by_name["GET_cats"]["inputSchema"]["properties"]["b"]
    assert bounded == {"exclusiveMinimum": 1.0, "maximum": 9.0, "type": "number"}


FIXTURES = {
    "naming": NAMING,
    "suffixes": SUFFIXES,
    "taken": TAKEN,
    "empty_slug": EMPTY_SLUG,
    "routed": ROUTED,
    "params": PARAMS,
    "allof_body": ALLOF_BODY,
    "bare_ref": BARE_REF,
    "nullable": NULLABLE,
    "outputs": OUTPUTS,
    "bodiless": BODILESS,
    "cyclic": CYCLIC,
    "versioned": VERSIONED,
    "discriminated_30": discriminated(False),
    "discriminated_31": discriminated(True),
    "openapi_31": doc(
        {
            "/x": {
                "post": op(
                    requestBody={
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "a": {"type": ["string", "null"], "readOnly": True},
                                        "b": {"type": "number", "exclusiveMinimum": 0},
                                    },
                                    "required": ["a", "b"],
                                }
                            }
                        }
                    },
                    responses=json_response(
                        {
                            "type": "object",
                            "properties": {
                                "w": {"type": "string", "writeOnly": True},
                                "r": {"const": 1},
                            },
                        }
                    ),
                )
            }
        },
        v31=True,
    ),
}


def fastmcp_tools(spec: Any, **kw: Any) -> list[dict[str, Any]]:
    """`tools/list` from the installed fastmcp, through an in-memory client."""
    fastmcp = pytest.importorskip("fastmcp")
    try:
        import httpx2 as http
    except ImportError:  # fastmcp 3 takes an httpx client
        import httpx as http
    logging.disable(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server = fastmcp.FastMCP.from_openapi(
                spec, client=http.AsyncClient(base_url="http://127.0.0.1:9"), **kw
            )

            async def listing() -> list[dict[str, Any]]:
                async with fastmcp.Client(server) as client:
                    result = await client.session.list_tools()
                    return [
                        t.model_dump(mode="json", by_alias=True, exclude_none=True)
                        for t in result.tools
                    ]

            return asyncio.run(listing())
    finally:
        logging.disable(logging.NOTSET)


def assert_same(spec: Any, got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    assert [t["name"] for t in got] == [t["name"] for t in want], json.dumps(spec)
    for mine, theirs in zip(got, want, strict=True):
        if "$defs" in json.dumps(theirs):
            assert mine == theirs, json.dumps(spec)  # set-ordered $defs (module docstring)
        else:
            assert json.dumps(mine) == json.dumps(theirs), json.dumps(spec)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixtures_match_fastmcp(name: str) -> None:
    spec = FIXTURES[name]
    assert_same(spec, convert(spec, version=V4).tools, fastmcp_tools(spec))


def test_customisations_match_fastmcp() -> None:
    routing = pytest.importorskip("fastmcp.server.providers.openapi.routing")
    theirs_maps = [
        routing.RouteMap(methods=["DELETE"], mcp_type=routing.MCPType.EXCLUDE),
        routing.RouteMap(tags={"admin"}, mcp_type=routing.MCPType.TOOL, mcp_tags={"m"}),
        routing.RouteMap(pattern="ealth", mcp_type=routing.MCPType.RESOURCE),
    ]
    mine_maps = [
        RouteMap(methods=("DELETE",), mcp_type="EXCLUDE"),
        RouteMap(tags=frozenset({"admin"}), mcp_type="TOOL", mcp_tags=frozenset({"m"})),
        RouteMap(pattern="ealth", mcp_type="RESOURCE"),
    ]

    def edit(route: Any, c: Any) -> None:
        c.name = c.name.upper()
        c.meta = {"k": "v"}

    spec = doc({**ROUTED["paths"], **OUTPUTS["paths"]}, OUTPUTS["components"]["schemas"])
    want = fastmcp_tools(
        spec,
        route_maps=theirs_maps,
        mcp_component_fn=edit,
        mcp_names={"list_users": "people"},
        tags={"g"},
        validate_output=False,
    )
    got = convert(
        spec,
        version=V4,
        route_maps=mine_maps,
        component_fn=edit,
        mcp_names={"list_users": "people"},
        tags=frozenset({"g"}),
        validate_output=False,
    )
    assert_same(spec, got.tools, want)


# ---------------------------------------------------------------- generated documents

_COMPONENTS = ["Pet", "Tag", "Owner"]
_NAMES = ["id", "q", "limit", "name", "body", "kind"]


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


@st.composite
def _scalar(draw: Any, v31: bool) -> dict[str, Any]:
    t = draw(st.sampled_from(["string", "integer", "number", "boolean"]))
    s: dict[str, Any] = {"type": t}
    if t == "string" and draw(st.booleans()):
        s["enum"] = draw(
            st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True)
        )
    if t in ("integer", "number") and draw(st.booleans()):
        s["minimum"] = draw(st.integers(0, 5))
        if not v31 and draw(st.booleans()):
            s["exclusiveMinimum"] = draw(st.booleans())
    if t == "string" and draw(st.booleans()):
        s["maxLength"] = draw(st.integers(1, 9))
    if draw(st.booleans()):
        s["description"] = draw(st.sampled_from(["A value", "Some text"]))
    if draw(st.integers(0, 3)) == 0:
        if v31:
            s["type"] = [t, "null"]
        else:
            s["nullable"] = True
    if draw(st.integers(0, 4)) == 0:
        s["default"] = (
            s["enum"][0]
            if "enum" in s
            else {"string": "a", "integer": 1, "number": 1.5, "boolean": True}[t]
        )
    if draw(st.integers(0, 5)) == 0:
        s[draw(st.sampled_from(["readOnly", "writeOnly"]))] = True
    if draw(st.integers(0, 6)) == 0:
        s["example"] = "ex"
    return s


def _schema(v31: bool, depth: int = 0, refs: bool = True) -> Any:
    options = [_scalar(v31)]
    if refs:
        options.append(st.sampled_from(_COMPONENTS).map(_ref))
    if depth < 2:
        child = _schema(v31, depth + 1, refs)
        options.append(st.builds(lambda i: {"type": "array", "items": i}, child))
        options.append(_object(v31, depth + 1, refs))
        options.append(st.lists(child, min_size=2, max_size=2).map(lambda xs: {"oneOf": xs}))
    return st.one_of(*options)


@st.composite
def _object(draw: Any, v31: bool, depth: int = 0, refs: bool = True) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from([*_NAMES, "color"]), max_size=3, unique=True))
    s: dict[str, Any] = {
        "type": "object",
        "properties": {k: draw(_schema(v31, depth + 1, refs)) for k in keys},
    }
    required = [k for k in keys if draw(st.booleans())]
    if required:
        s["required"] = required
    if draw(st.integers(0, 3)) == 0:
        s["title"] = draw(st.sampled_from(["Thing", "Data Body", "1st"]))
    return s


@st.composite
def _body(draw: Any, v31: bool) -> dict[str, Any]:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return _ref(draw(st.sampled_from(_COMPONENTS)))
    if kind == 1:
        return {"allOf": [_ref(draw(st.sampled_from(_COMPONENTS))), draw(_object(v31, 1))]}
    if kind == 2:
        return draw(_schema(v31, 1))
    return draw(_object(v31))


@st.composite
def _parameter(draw: Any, v31: bool) -> dict[str, Any]:
    p: dict[str, Any] = {
        "name": draw(st.sampled_from(_NAMES)),
        "in": draw(st.sampled_from(["query", "header", "cookie"])),
    }
    if draw(st.booleans()):
        p["required"] = draw(st.booleans())
    if draw(st.booleans()):
        p["description"] = "Param doc"
    p["schema"] = draw(
        st.one_of(
            _scalar(v31),
            st.sampled_from(_COMPONENTS).map(_ref),
            st.builds(lambda i: {"type": "array", "items": i}, _scalar(v31)),
        )
    )
    if draw(st.integers(0, 4)) == 0:
        p["example"] = "pex"
    return p


@st.composite
def _response(draw: Any, v31: bool) -> dict[str, Any]:
    r: dict[str, Any] = {"description": "ok"}
    if draw(st.integers(0, 3)):
        ctype = draw(st.sampled_from(["application/json", "text/plain", "application/hal+json"]))
        r["content"] = {ctype: {"schema": draw(st.one_of(_schema(v31), _body(v31)))}}
    return r


@st.composite
def _operation(draw: Any, v31: bool, path_param: bool, ids: list[str]) -> dict[str, Any]:
    o: dict[str, Any] = {}
    if draw(st.booleans()):
        o["operationId"] = draw(st.sampled_from(ids))
    if draw(st.booleans()):
        o["summary"] = draw(st.sampled_from(["List things", "Get a thing!", "ünïcode"]))
    if draw(st.integers(0, 3)) == 0:
        o["description"] = "Does it."
    if draw(st.booleans()):
        o["tags"] = draw(st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True))
    params = (
        [{"name": "id", "in": "path", "required": True, "schema": draw(_scalar(v31))}]
        if path_param
        else []
    )
    params += draw(st.lists(_parameter(v31), max_size=3))
    if params:
        o["parameters"] = params
    if draw(st.booleans()):
        ctype = draw(st.sampled_from(["application/json", "application/x-www-form-urlencoded"]))
        body: dict[str, Any] = {"content": {ctype: {"schema": draw(_body(v31))}}}
        if draw(st.booleans()):
            body["required"] = draw(st.booleans())
        if draw(st.integers(0, 3)) == 0:
            body["description"] = "The body"
        o["requestBody"] = body
    codes = draw(
        st.lists(
            st.sampled_from(["200", "201", "204", "400", "default"]),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    o["responses"] = {c: draw(_response(v31)) for c in codes}
    return o


@st.composite
def documents(draw: Any) -> dict[str, Any]:
    """Small valid OpenAPI 3.0/3.1 documents; components may refer to each other in cycles."""
    v31 = draw(st.booleans())
    components = {
        n: draw(st.one_of(_object(v31, 1, refs=draw(st.integers(0, 2)) == 0), _scalar(v31)))
        for n in _COMPONENTS
    }
    ids = draw(
        st.lists(
            st.sampled_from(["listThings", "get_thing__v2", "do.it", "a" * 60]),
            min_size=1,
            max_size=3,
        )
    )
    paths: dict[str, Any] = {}
    for i in range(draw(st.integers(1, 3))):
        path_param = draw(st.booleans())
        methods = draw(
            st.lists(
                st.sampled_from(["get", "post", "put", "delete"]),
                min_size=1,
                max_size=3,
                unique=True,
            )
        )
        paths[f"/things{i}" + ("/{id}" if path_param else "")] = {
            m: draw(_operation(v31, path_param, ids)) for m in methods
        }
    return doc(paths, components, v31)


@pytest.mark.skipif(
    "fastmcp" not in sys.modules and not __import__("importlib").util.find_spec("fastmcp"),
    reason="fastmcp is the oracle",
)
@settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(documents())
def test_generated_documents_match_fastmcp(spec: dict[str, Any]) -> None:
    assert_same(spec, convert(spec, version=V4).tools, fastmcp_tools(spec))


# ---------------------------------------------------------------- hostile documents

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=True)
    | st.sampled_from(
        ["", "#/components/schemas/Pet", "#/x", "http://e/x", "object", "array", "3.0.3", "$ref"]
    ),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "$ref",
                    "type",
                    "properties",
                    "items",
                    "allOf",
                    "oneOf",
                    "anyOf",
                    "required",
                    "enum",
                    "nullable",
                    "discriminator",
                    "schema",
                    "name",
                    "in",
                    "content",
                    "application/json",
                    "200",
                    "x-a",
                    "$defs",
                ]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@st.composite
def _mangled(draw: Any) -> Any:
    """A generated document with one part replaced by arbitrary JSON."""
    spec = json.loads(json.dumps(draw(documents())))
    node = spec
    path: list[Any] = []
    while isinstance(node, dict | list) and node and draw(st.integers(0, 3)):
        key = draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
        path.append((node, key))
        node = node[key]
    if path:
        parent, key = path[-1]
        parent[key] = draw(_JSON)
    return spec


@settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(_mangled(), st.sampled_from([(2, 14, 5), (3, 0, 0), (3, 2, 4), V3, V4]))
def test_malformed_documents_raise_only_openapi_error(spec: Any, version: Any) -> None:
    try:
        result = convert(spec, version=version)
    except OpenAPIError:
        return
    json.dumps(result.tools)  # plain data all through
