"""Step 3's quick check: it proves only what the full validation accepts, and it proves the
common case (flat arguments of plain values), so the full validation is skipped for them."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolgen.runtime import Toolbox
from toolgen.runtime.steps.quick import quick_check, quick_value
from toolgen.runtime.steps.validate import argument_problems, input_validator, validate
from toolgen.runtime.values import MAX_ARGUMENT_DEPTH, value_problems

REPO = Path(__file__).resolve().parents[2]

BOUNDED = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ADD = {
    "type": "object",
    "properties": {
        "a": {"description": "The first.", "type": "integer"},
        "b": {"description": "The second.", "type": "integer"},
    },
    "required": ["a", "b"],
    "additionalProperties": False,
}


def fully_valid(schema: dict[str, Any], arguments: dict[str, Any]) -> bool:
    """What the full validation says: no value problem and no schema error."""
    return not value_problems(arguments, MAX_ARGUMENT_DEPTH, text=True) and not argument_problems(
        input_validator(schema), arguments
    )


# -- values and schemas -----------------------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "c", "mode", "n", "x y"])
WORDS = st.sampled_from(["", "a", "low", "high", "1", "true", "é", "a" * 12, "\ud800", "é\udfff"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.sampled_from([0, 1, -1, 10, 2**53, 10**309]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 1.0, -0.0, 2.5, math.nan, math.inf, 1e308]),
    WORDS,
    st.text(max_size=20),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=6,
)
ARGUMENTS = st.dictionaries(NAMES, VALUES, max_size=5)

TYPE_NAMES = st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array"])
NUMBERS = st.one_of(st.integers(-2, 3), st.sampled_from([0.5, -0.0, 2.0, 1e308]), st.just(True))


def keywords() -> st.SearchStrategy[dict[str, Any]]:
    one = st.one_of(
        st.builds(lambda t: {"type": t}, TYPE_NAMES),
        st.builds(lambda ts: {"type": ts}, st.lists(TYPE_NAMES, min_size=1, max_size=3)),
        st.builds(lambda e: {"enum": e}, st.lists(st.one_of(WORDS, SCALARS), max_size=4)),
        st.builds(lambda n: {"minLength": n}, st.integers(0, 3)),
        st.builds(lambda n: {"maxLength": n}, st.integers(0, 3)),
        st.builds(
            lambda k, n: {k: n},
            st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
            NUMBERS,
        ),
        st.sampled_from(
            [
                {"format": "date-time"},
                {"format": "email"},
                {"pattern": "^a"},
                {"const": 1},
                {"items": {"type": "integer"}},
                {"$ref": "#/$defs/Thing"},
                {"description": "d", "default": 3, "title": "t"},
            ]
        ),
    )
    return st.lists(one, max_size=3).map(lambda parts: {k: v for p in parts for k, v in p.items()})


PROPERTY = st.recursive(
    keywords(),
    lambda inner: st.builds(
        lambda branches, rest: {**rest, "anyOf": branches},
        st.lists(inner, min_size=1, max_size=3),
        keywords(),
    ),
    max_leaves=4,
)


@st.composite
def flat_schemas(draw: st.DrawFn) -> dict[str, Any]:
    properties = draw(st.dictionaries(NAMES, PROPERTY | st.booleans(), max_size=5))
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    names = sorted(properties)
    known = st.sampled_from(names) if names else NAMES
    schema["required"] = draw(
        st.lists(known | NAMES if draw(st.booleans()) else known, max_size=3, unique=True)
    )
    extra = draw(st.sampled_from([None, True, False]))
    if extra is not None:
        schema["additionalProperties"] = extra
    if draw(st.booleans()):
        schema["$defs"] = {"Thing": {"type": "string", "minLength": 2}}
    return schema


#: Values at the edges of the keywords the quick check reads: most draws of a few of these
#: make valid arguments, so that its True answers are tested often.
EDGES = st.sampled_from(
    [
        None,
        True,
        False,
        0,
        1,
        -1,
        2,
        3,
        1.0,
        0.5,
        -0.0,
        2.5,
        math.nan,
        math.inf,
        -math.inf,
        10**309,
        2**1100,
        1e308,
        "",
        "a",
        "ab",
        "low",
        "high",
        "aaaaaa",
    ]
)


def fitting(schema: Any) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments mostly of the schema's own names, with edge values and its enums' strings."""
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    words = sorted(
        {
            e
            for sub in properties.values()
            if isinstance(sub, dict)
            for e in sub.get("enum", [])
            if isinstance(e, str)
        }
    )
    values = EDGES | st.sampled_from(words) if words else EDGES
    values = st.one_of(values, values, values, VALUES)
    names = sorted(properties) or ["a"]
    keys = st.lists(st.sampled_from(names), unique=True, max_size=len(names))
    extra = st.dictionaries(NAMES, values, max_size=1)
    return st.builds(
        lambda chosen, more, add: {**({**more} if add else {}), **chosen},
        keys.flatmap(lambda ks: st.fixed_dictionaries(dict.fromkeys(ks, values))),
        extra,
        st.integers(0, 4).map(lambda n: n == 0),
    )


# -- the rule: True only for what the full validation accepts -------------------------------


def near(schema: Any) -> list[Any]:
    """Values at and beside the bounds and lengths a schema names, its enums' strings."""
    found: list[Any] = []
    if isinstance(schema, dict):
        for keyword, value in schema.items():
            if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                found += [value, value + 1, value - 1, float(value)]
            elif keyword in ("minLength", "maxLength") and isinstance(value, int):
                found += ["a" * n for n in (value - 1, value, value + 1) if n >= 0]
            elif keyword == "enum" and isinstance(value, list):
                found += value
            elif keyword == "anyOf" and isinstance(value, list):
                found += [v for branch in value for v in near(branch)]
    return found


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_one_property_proves_only_valid_values(data: st.DataObject) -> None:
    prop = data.draw(PROPERTY)
    edges = near(prop)
    value = data.draw(st.sampled_from(edges) | EDGES if edges else st.one_of(EDGES, VALUES))
    schema = {"type": "object", "properties": {"p": prop}}
    check = quick_check(schema)
    # only a reference to nothing (no `$defs` here) leaves a property schema unproven
    assert check is not None or "$ref" in json.dumps(prop)
    if check is not None and check({"p": value}):
        assert fully_valid(schema, {"p": value}), (prop, value)


@BOUNDED
@given(st.data())
def test_random_flat_schemas_prove_only_valid_arguments(data: st.DataObject) -> None:
    schema = data.draw(flat_schemas())
    check = quick_check(schema)
    if check is None:
        return
    arguments = data.draw(fitting(schema))
    if check(arguments):
        assert fully_valid(schema, arguments), (schema, arguments)


def built_schemas(root: Path) -> list[tuple[str, dict[str, Any]]]:
    return [
        (path.stem, json.loads(path.read_text())["parameters"])
        for path in sorted((root / "generated" / "descriptors").glob("*.json"))
    ]


def test_the_fixture_and_example_schemas_prove_only_valid_arguments(built: Path) -> None:
    schemas = built_schemas(built) + built_schemas(REPO)
    assert len(schemas) > 20

    @BOUNDED
    @given(st.sampled_from(schemas), st.data())
    def check(named: tuple[str, dict[str, Any]], data: st.DataObject) -> None:
        _, schema = named
        quick = quick_check(schema)
        arguments = data.draw(fitting(schema))
        if quick is not None and quick(arguments):
            assert fully_valid(schema, arguments), (schema, arguments)

    check()


@BOUNDED
@given(ARGUMENTS)
def test_validate_answers_the_same_with_and_without_the_quick_check(
    arguments: dict[str, Any],
) -> None:
    validator, quick = input_validator(ADD), quick_check(ADD)
    assert quick is not None
    without = validate("add", validator, ADD, arguments, "t")
    assert validate("add", validator, ADD, arguments, "t", quick) == without


# -- the common case is proven (else the quick check would quietly do nothing) ---------------


def test_flat_arguments_of_plain_values_are_proven() -> None:
    check = quick_check(ADD)
    assert check is not None
    assert check({"a": 1, "b": -2})
    schema = {
        "type": "object",
        "properties": {
            "to": {"type": "string", "minLength": 1, "maxLength": 5},
            "mode": {"enum": ["fast", "slow"], "type": "string"},
            "limit": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
            "ratio": {"type": "number", "exclusiveMaximum": 1},
            "flag": {"type": "boolean", "default": False},
        },
        "required": ["to"],
        "additionalProperties": False,
        "$defs": {},
    }
    check = quick_check(schema)
    assert check is not None
    assert check({"to": "ann", "mode": "fast", "limit": None, "ratio": 0.5, "flag": True})
    assert check({"to": "ann", "limit": 3})


@pytest.mark.parametrize(
    "arguments",
    [
        {"a": 1},  # missing
        {"a": 1, "b": 2, "c": 3},  # not named
        {"a": True, "b": 2},  # a bool is not an integer
        {"a": 1.0, "b": 2},  # integral float: left to jsonschema (which accepts it)
        {"a": 10**400, "b": 2},  # beyond a double
        {"a": [1], "b": 2},
    ],
)
def test_what_is_not_plain_and_flat_is_left_to_the_full_validation(
    arguments: dict[str, Any],
) -> None:
    check = quick_check(ADD)
    assert check is not None and not check(arguments)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {}, "minProperties": 1},
        {"type": ["object"], "properties": {}},
        {"type": "object", "properties": [], "required": []},
        {"type": "object", "required": "a"},
        {"type": "object", "$id": "https://example.com/s"},
        {"properties": {}},
        True,
    ],
)
def test_schemas_it_cannot_read_get_no_quick_check(schema: Any) -> None:
    assert quick_check(schema) is None


def test_schemas_not_flat_get_the_proof_of_nested_values() -> None:
    """Any object schema of known keywords: values held in objects and arrays, `$ref`, a
    `format` and a `pattern` asserted as the input validator asserts them."""
    check = quick_check({"type": "object", "additionalProperties": {"type": "string"}})
    assert check is not None and check({"a": "x"}) and not check({"a": 1})
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "at": {"$ref": "#/$defs/At"},
            "code": {"type": "string", "pattern": "^[A-Z]+$"},
        },
        "required": ["tags"],
        "additionalProperties": False,
        "$defs": {"At": {"type": "object", "properties": {"when": {"format": "date"}}}},
    }
    check = quick_check(schema)
    assert check is not None
    assert check({"tags": ["a", "b"], "at": {"when": "2026-11-29"}, "code": "AB"})
    invalids: list[dict[str, Any]] = [
        {"tags": ["a", "a"]},
        {"tags": ["a"], "at": {"when": "29/11/2026"}},
        {"tags": ["a"], "code": "ab"},
        {"tags": ["a"], "other": 1},
        {"at": {}},
    ]
    for invalid in invalids:
        assert not check(invalid), invalid
        assert not fully_valid(schema, invalid), invalid


def test_a_property_with_an_unknown_keyword_is_never_proven() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "odd": {"type": "integer", "not": {"const": 0}}},
    }
    check = quick_check(schema)
    assert check is not None
    assert check({"n": 1}) and not check({"odd": 1})
    assert fully_valid(schema, {"odd": 1})


@pytest.mark.parametrize(
    ("returned", "ok"), [(1.5, True), (2, True), ("1.5", False), (True, False), (None, False)]
)
def test_a_return_value_is_still_checked_against_the_return_schema(
    make_box: Callable[..., Toolbox], returned: Any, ok: bool
) -> None:
    """fetch_quote returns a number: a plain number is proven, anything else goes to
    jsonschema, which rejects it (an INTERNAL error)."""

    def quote(symbol: str) -> Any:  # dumped as it is, whatever it is
        return returned

    box = make_box(handlers={"fetch_quote": quote}, max_retries=0)
    result = box.call("fetch_quote", {"symbol": "X"})
    assert result.ok is ok
    if not ok:
        assert result.error is not None and result.error["code"] == "INTERNAL"
    assert quick_value({"type": "number"}) is not None
