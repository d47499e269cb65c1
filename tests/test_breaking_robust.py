"""The contract differ behind `toolgen check --against` takes any JSON as a schema.

A baseline descriptor comes from git, written by hand or by another toolgen: its schemas may be
anything. `baseline` turns the ones the differ cannot read into a TG010 (see test_breaking.py);
the differ itself never raises on a JSON value, whatever the schemas hold: badly typed keywords,
`$ref`s to nothing or to themselves, recursive models. Hypothesis runs derandomized with a
bounded number of examples (like tests/test_fuzz.py), so the suite is repeatable.

The documented contract: `schema_changes` takes any JSON values; `compare` and `tool_changes`
take descriptors whose top-level blocks have the types `_malformed` checks (the schemas inside
may be anything); `_malformed` answers for any JSON value.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolgen.breaking import (
    BREAKING_RULES,
    _malformed,
    compare,
    findings_to_diagnostics,
    schema_changes,
)

BOUNDED = settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Keywords the differ reads, and a few names, so that random objects look like schemas.
KEYS = st.sampled_from(
    [
        "type", "properties", "required", "enum", "const", "anyOf", "items", "$ref", "$defs",
        "default", "description", "title", "examples", "maximum", "minLength", "pattern",
        "additionalProperties", "prefixItems", "A", "B", "a",
    ]
)  # fmt: skip
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, width=16)
    | st.sampled_from(
        ["string", "integer", "number", "object", "array", "null", "#/$defs/A", "#/$defs/B", "a"]
    )
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=25,
)
#: Schemas with `$defs` A and B, which the `$ref`s above name: loops, chains, recursion.
SCHEMAS = JSON | st.builds(
    lambda body, a, b: {**body, "$defs": {"A": a, "B": b}} if isinstance(body, dict) else body,
    JSON,
    JSON,
    JSON,
)
SIDES = st.sampled_from(["input", "output"])


def _known(found: list[tuple[str, str, str]]) -> None:
    for rule, pointer, message in found:
        assert rule in BREAKING_RULES
        assert pointer == "" or pointer.startswith("/")
        assert isinstance(message, str)


@BOUNDED
@given(SCHEMAS, SCHEMAS, SIDES)
def test_schema_changes_takes_any_json(old: Any, new: Any, side: str) -> None:
    _known(schema_changes(old, new, side))


@BOUNDED
@given(SCHEMAS, SIDES)
def test_an_unchanged_schema_has_no_changes(schema: Any, side: str) -> None:
    assert schema_changes(schema, copy.deepcopy(schema), side) == []


def _descriptor(parameters: Any, returns: Any, description: Any) -> dict[str, Any]:
    parameters = parameters if isinstance(parameters, dict) else {"type": parameters}
    returns = returns if isinstance(returns, dict) else {"items": returns}
    return {
        "name": "t",
        "description": description,
        "parameters": parameters,
        "returns": {"description": description, "schema": returns},
        "errors": [{"code": "NOT_FOUND"}],
        "version": "1.0.0",
    }


DESCRIPTORS = st.builds(_descriptor, SCHEMAS, SCHEMAS, JSON)


@BOUNDED
@given(DESCRIPTORS, DESCRIPTORS)
def test_compare_takes_any_schemas(old: dict[str, Any], new: dict[str, Any]) -> None:
    findings = compare({"t": old}, {"t": new})
    _known([(f.rule, f.pointer, f.message) for f in findings])
    assert len(set(findings)) == len(findings)  # one finding per change and place
    diagnostics = findings_to_diagnostics(findings, {"t": old}, {"t": new}, [], {})
    assert {d.code for d in diagnostics} <= {code for _, code in BREAKING_RULES.values()}
    assert compare({"t": old}, {"t": copy.deepcopy(old)}) == []


@BOUNDED
@given(st.one_of(JSON, DESCRIPTORS))
def test_malformed_answers_for_any_json(data: Any) -> None:
    problem = _malformed(data)
    assert problem is None or isinstance(problem, str)


def _tool(parameters: dict[str, Any], returns: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {"t": _descriptor(parameters, returns, "Do it.")}


NODE = {
    "$ref": "#/$defs/N",
    "$defs": {
        "N": {
            "description": "A node.",
            "type": "object",
            "properties": {"l": {"$ref": "#/$defs/N"}, "r": {"$ref": "#/$defs/N"}},
        }
    },
}


def test_a_model_that_holds_itself_twice_is_compared_once() -> None:
    """Once per path 30 levels deep was 2**30 comparisons."""
    assert compare(_tool(NODE, NODE), _tool(NODE, NODE)) == []
    edited = copy.deepcopy(NODE)
    edited["$defs"]["N"]["description"] = "A tree node."
    edited["$defs"]["N"]["properties"]["x"] = {"type": "string"}
    found = compare(_tool(NODE, NODE), _tool(NODE, edited))
    assert sorted((f.rule, f.pointer) for f in found) == [
        ("docs-changed", "/returns/schema/$defs/N/description"),  # once, where it was made
        ("output-property-added", "/returns/properties/l/properties/x"),
        ("output-property-added", "/returns/properties/r/properties/x"),
        ("output-property-added", "/returns/properties/x"),
    ]


def test_refs_that_loop_or_lead_nowhere_stand_for_any_value() -> None:
    for looping in (
        {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}},
        {"anyOf": [{"$ref": "#/$defs/A"}], "$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}]}}},
        {"$ref": "#/$defs/missing"},
        {"$ref": "#"},
    ):
        assert schema_changes(looping, {"type": "string"}, "input") == []
        assert schema_changes({"type": "string"}, looping, "output") == []


def test_docs_changes_are_located_where_they_were_made() -> None:
    old = {
        "type": "object",
        "properties": {
            "city": {"description": "A city.", "type": "string"},
            "when": {"anyOf": [{"type": "string", "title": "Day"}, {"type": "null"}]},
        },
    }
    new = copy.deepcopy(old)
    new["properties"]["city"]["description"] = "A city name."
    new["properties"]["when"]["anyOf"][0]["title"] = "Date"
    new["properties"]["city"]["examples"] = ["Paris"]
    found = compare(_tool(old, {}), _tool(new, {}))
    assert sorted((f.rule, f.pointer, f.message) for f in found) == [
        ("docs-changed", "/parameters/properties/city/description", "description changed"),
        ("docs-changed", "/parameters/properties/city/examples", "examples changed"),
        ("docs-changed", "/parameters/properties/when/anyOf/0/title", "title changed"),
    ]
    described = _tool({}, {})
    described["t"]["returns"]["description"] = "The forecast."
    assert [f.pointer for f in compare(_tool({}, {}), described)] == ["/returns/description"]
