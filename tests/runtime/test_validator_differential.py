"""The compiled check of a call's arguments (`steps.quick.quick_check`) against jsonschema,
over generated schemas and values, valid and invalid (issue 28).

The run time validates arguments once: the proof compiled per tool answers True only for
arguments it proves valid; whatever it does not prove goes to jsonschema, which decides and
words the problem. So the decision equals jsonschema's exactly when the proof never proves
what jsonschema (or the check of what JSON cannot carry) rejects; and it earns its place
only if it proves most valid arguments. Both are checked here, on schemas drawn from a
grammar of the keywords toolgen, pydantic and hand-written descriptors use (nested objects,
arrays, `$ref` and recursion, unions, enums, bounds, lengths, patterns, formats, annotations)
and some they do not, with values drawn to fit the schema and then, at random places, broken
(a wrong type, a missing or extra property, an integral float, NaN, a lone surrogate, a number
beyond a double, a bound or a length off by one, a duplicate).
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referencing.exceptions import Unresolvable

from toolgen.runtime import CallContext, Toolbox
from toolgen.runtime.result import ToolResult
from toolgen.runtime.steps.quick import quick_check
from toolgen.runtime.steps.validate import (
    argument_problems,
    drop_not_given,
    input_validator,
    validate,
)
from toolgen.runtime.values import MAX_ARGUMENT_DEPTH, value_problems
from toolgen.schema_patterns import UncheckablePattern

from .projects_support import built_package

NAMES = ["a", "b", "name", "x y", "é"]
PATTERNS = ["^[A-Z]+$", "^a", "b$", "\\d", "^\\w{2,3}$", "(?=a)", "(a)\\1"]
FORMATS = ["date", "date-time", "email", "ipv4", "uuid", "regex", "no-such-format"]
STRINGS = [
    "",
    "a",
    "AB",
    "ab",
    "abc",
    "A1",
    "b",
    "é",
    "2026-11-29",
    "2026-11-29T05:45:57Z",
    "a@b.example",
    "10.0.0.1",
    "0b6f1a34-6a1e-4c2b-9f0e-1d2c3b4a5f60",
    "(",
    "\ud800",
    "\ufffd",
    "x" * 40,
]
NUMBERS: list[Any] = [0, 1, -1, 2, 3, 10, 2**53, 10**309, 0.5, 1.0, -0.0, 2.5, 1e308]
ODD: list[Any] = [math.nan, math.inf, -math.inf, 10**400, True, None, "1", [], {}, 1.0]
BOUNDS = st.sampled_from([0, 1, 2, -1, 0.5, 2.0])
ANNOTATIONS = {"description": "d", "title": "t", "default": 1, "examples": [1]}
TYPES = ["string", "integer", "number", "boolean", "null", "object", "array"]


def leaf() -> st.SearchStrategy[Any]:
    """Schemas of one value, without children."""
    return st.one_of(
        st.builds(
            lambda t, extra: {"type": t, **extra},
            st.sampled_from(["string", "integer", "number", "boolean", "null"]),
            st.sampled_from([{}, ANNOTATIONS, {"description": "x"}]),
        ),
        st.builds(
            lambda ts: {"type": ts}, st.lists(st.sampled_from(TYPES), min_size=1, max_size=3)
        ),
        st.builds(
            lambda n, m: {"type": "string", "minLength": n, "maxLength": n + m},
            st.integers(0, 3),
            st.integers(0, 3),
        ),
        st.builds(
            lambda t, k, b: {"type": t, k: b},
            st.sampled_from(["integer", "number"]),
            st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
            BOUNDS,
        ),
        st.builds(lambda p: {"type": "string", "pattern": p}, st.sampled_from(PATTERNS)),
        st.builds(lambda f: {"type": "string", "format": f}, st.sampled_from(FORMATS)),
        st.builds(lambda f: {"format": f}, st.sampled_from(FORMATS)),
        st.builds(
            lambda e: {"enum": e},
            st.lists(st.sampled_from(["low", "high", "a", 1, 1.0, True, None, 2.5]), min_size=1),
        ),
        st.builds(lambda e: {"type": "string", "enum": e}, st.lists(st.sampled_from(STRINGS))),
        st.builds(lambda c: {"const": c}, st.sampled_from(["a", 1, True, None, 0.0])),
        st.sampled_from(
            [
                {},
                True,
                False,
                {"$ref": "#/$defs/Thing"},
                {"$ref": "#/$defs/Node"},
                {"$ref": "#/$defs/Missing"},
                {"$ref": "#"},
                {"$ref": "#/$defs/A~1B"},
                {"type": "integer", "multipleOf": 2},
                {"not": {"type": "string"}},
                {"type": "string", "discriminator": {"propertyName": "kind"}},
            ]
        ),
    )


def nested(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Schemas holding others: objects, arrays, unions."""
    return st.one_of(
        st.builds(
            obj,
            st.dictionaries(st.sampled_from(NAMES), inner, max_size=4),
            st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
            st.one_of(st.none(), st.booleans(), inner),
        ),
        st.builds(
            lambda items, least, extra, unique: {
                "type": "array",
                "items": items,
                **({"minItems": least} if least else {}),
                **({"maxItems": least + extra} if extra is not None else {}),
                **({"uniqueItems": unique} if unique is not None else {}),
            },
            inner,
            st.integers(0, 2),
            st.one_of(st.none(), st.integers(0, 2)),
            st.one_of(st.none(), st.booleans()),
        ),
        st.builds(
            lambda prefix, rest: {"type": "array", "prefixItems": prefix, "items": rest},
            st.lists(inner, min_size=1, max_size=2),
            st.one_of(st.just(False), inner),
        ),
        st.builds(
            lambda kind, branches: {kind: branches},
            st.sampled_from(["anyOf", "anyOf", "allOf", "oneOf"]),
            st.lists(inner, min_size=1, max_size=3),
        ),
    )


def obj(properties: dict[str, Any], required: list[str], extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if extra is not None:
        schema["additionalProperties"] = extra
    return schema


SCHEMA = st.recursive(leaf(), nested, max_leaves=8)

DEFS = {
    "Thing": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
    "Node": {
        "type": "object",
        "properties": {
            "label": {"type": "string", "maxLength": 3},
            "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
        },
        "additionalProperties": False,
    },
}


@st.composite
def tool_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """An input schema: an object of drawn properties, `$defs` beside them when drawn."""
    properties = draw(st.dictionaries(st.sampled_from(NAMES), SCHEMA, min_size=1, max_size=4))
    required = draw(st.lists(st.sampled_from(sorted(properties)), unique=True))
    schema = obj(properties, required, draw(st.sampled_from([None, True, False])))
    if draw(st.integers(0, 3)):
        schema["$defs"] = DEFS
    return schema


@st.composite
def fitting(draw: st.DrawFn, schema: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """A value drawn to fit `schema` (not always able to), broken now and then."""
    if draw(st.integers(0, 24)) == 0:  # about one value in three has a broken part
        return draw(broken(schema))
    if not isinstance(schema, dict) or depth > 6:
        return draw(st.sampled_from([1, "a", None, {}, []]))
    if "$ref" in schema:
        found = defs.get(schema["$ref"].removeprefix("#/$defs/"), {})
        return draw(fitting(found, defs, depth + 1))
    for keyword in ("anyOf", "oneOf", "allOf"):
        if keyword in schema:
            return draw(fitting(draw(st.sampled_from(schema[keyword])), defs, depth + 1))
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"])) if schema["enum"] else None
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = draw(st.sampled_from(kind))
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        value = {}
        for key, sub in properties.items():
            if key in required or draw(st.booleans()):
                value[key] = draw(fitting(sub, defs, depth + 1))
        extra = schema.get("additionalProperties", True)
        if extra is not False and draw(st.integers(0, 3)) == 0:
            more = extra if isinstance(extra, dict) else {}
            value[draw(st.sampled_from(["z", "a", "\ud800"]))] = draw(
                fitting(more, defs, depth + 1)
            )
        return value
    if kind == "array" or "items" in schema or "prefixItems" in schema:
        prefix = schema.get("prefixItems", [])
        items = schema.get("items", {})
        least = max(schema.get("minItems", 0), 0)
        most = schema.get("maxItems", least + 3)
        size = draw(st.integers(least, max(least, most)))
        return [
            draw(fitting(prefix[i] if i < len(prefix) else items, defs, depth + 1))
            for i in range(size)
            if i < len(prefix) or items is not False
        ]
    if kind == "string" or "pattern" in schema or "format" in schema or "minLength" in schema:
        return draw(st.sampled_from(STRINGS) | st.text(max_size=5))
    if kind in ("integer", "number"):
        return draw(st.sampled_from(NUMBERS) | st.integers(-3, 3) | BOUNDS)
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "null":
        return None
    return draw(st.sampled_from([1, "a", None, True, 2.5, [1], {"k": "v"}]))


@st.composite
def broken(draw: st.DrawFn, schema: Any) -> Any:
    """A value most schemas reject, or that JSON cannot carry."""
    return draw(st.sampled_from(ODD + STRINGS + NUMBERS + [[1, 1], ["a", "a"], {"z": 1}]))


def reference(schema: dict[str, Any], arguments: dict[str, Any]) -> str:
    """jsonschema's decision, after what `validate` does first (a strict-mode null dropped,
    the check of what strict JSON cannot carry): "valid", "invalid", "uncheckable" (a
    pattern the linear engine cannot read), or "unresolvable" (a `$ref` to nothing, which
    jsonschema raises for)."""
    arguments = drop_not_given(arguments, schema)
    if value_problems(arguments, MAX_ARGUMENT_DEPTH, text=True):
        return "invalid"
    try:
        return "invalid" if argument_problems(input_validator(schema), arguments) else "valid"
    except UncheckablePattern:
        return "uncheckable"
    except Unresolvable:
        return "unresolvable"


def decided(schema: dict[str, Any], arguments: dict[str, Any], quick: Any) -> Any:
    """`validate`'s answer, or the type of what it raised."""
    try:
        return validate("t", input_validator(schema), schema, arguments, "trace", quick)
    except Unresolvable as exc:
        return type(exc)


SEEN: dict[str, int] = {
    "valid": 0,
    "proven": 0,
    "invalid": 0,
    "uncheckable": 0,
    "unresolvable": 0,
}

DIFFERENTIAL = settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@DIFFERENTIAL
@given(st.data())
def test_the_compiled_check_decides_as_jsonschema(data: st.DataObject) -> None:
    """Over generated schemas and values: what the proof proves, jsonschema accepts; and
    `validate` answers the same, problems and all, with the proof and without it."""
    schema = data.draw(tool_schemas())
    arguments = data.draw(fitting(schema, schema.get("$defs", {})))
    if not isinstance(arguments, dict):
        arguments = {"a": arguments}
    expected = reference(schema, arguments)
    SEEN[expected] += 1
    quick = quick_check(schema)
    if quick is not None and quick(arguments):
        assert expected == "valid", (schema, arguments)
        SEEN["proven"] += 1
    alone = decided(schema, arguments, None)
    assert decided(schema, arguments, quick) == alone
    if expected in ("valid", "invalid"):
        assert isinstance(alone, ToolResult) == (expected == "invalid")


def test_the_draws_were_mostly_valid_and_mostly_proven() -> None:
    """The draws above mean something only if many were valid and the proof proved most of
    those (what it leaves, jsonschema decides: slower, never wrong)."""
    if SEEN["valid"] == 0:  # run alone, without the property test above
        test_the_compiled_check_decides_as_jsonschema()
    assert SEEN["valid"] >= 250 and SEEN["invalid"] >= 500, SEEN
    assert SEEN["proven"] >= SEEN["valid"] * 0.6, SEEN


# -- a built tool: the same envelopes and audit events, proven or not ------------------------

TICKETS = '''
"""A realistic tool: an enum, a list, a set, a nested model, a pattern, a date, an optional."""

from __future__ import annotations

import datetime
import enum
from typing import Annotated

from pydantic import BaseModel, Field

from toolgen import tool


class Priority(str, enum.Enum):
    """How urgent."""

    LOW = "low"
    HIGH = "high"


class Address(BaseModel):
    """Where."""

    street: str = Field(description="The street.")
    city: str = Field(description="The city.", max_length=3)
    zip: str | None = Field(default=None, description="The code.", pattern="^[0-9]+$")


class Ticket(BaseModel):
    """A ticket."""

    title: str
    priority: Priority
    tags: list[str]
    city: str
    due: datetime.date | None = None


@tool(risk="low")
def create_ticket(
    title: str,
    priority: Priority,
    tags: list[str],
    address: Address,
    labels: set[str] | None = None,
    due: datetime.date | None = None,
    code: Annotated[str, Field(pattern="^[A-Z]+$")] = "A",
    due_days: int | None = None,
) -> Ticket:
    """Open a ticket.

    Args:
        title: What it is about.
        priority: How urgent.
        tags: Its tags.
        address: Where.
        labels: Distinct labels.
        due: When it is due.
        code: Its code.
        due_days: In how many days.
    """
    return Ticket(title=title, priority=priority, tags=tags, city=address.city, due=due)
'''


@pytest.fixture(scope="module")
def tickets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with built_package(tmp_path_factory.mktemp("tickets"), "ticket_tools", TICKETS) as root:
        yield root


VALID_TICKET = {
    "title": "Printer",
    "priority": "high",
    "tags": ["hw", "office"],
    "address": {"street": "1 Main St", "city": "Rio", "zip": "123"},
    "labels": ["a", "b"],
    "due": "2026-12-01",
    "due_days": 3,
}


def ticket_box(root: Path, events: list[dict[str, Any]], proof: bool) -> Toolbox:
    box = Toolbox.load(
        root / "generated", store="memory://", timeout=None, max_retries=0, audit=events.append
    )
    if not proof:
        box.quick_check = lambda descriptor: None  # type: ignore[method-assign]
    return box


def test_a_model_s_text_for_an_integer_is_still_a_validation_error(tickets: Path) -> None:
    box = Toolbox.load(tickets / "generated", store="memory://", timeout=None)
    descriptor = box.catalog.descriptors["create_ticket"]
    quick = box.quick_check(descriptor)
    assert quick is not None and quick(dict(VALID_TICKET))  # the realistic call is proven
    assert box.call("create_ticket", VALID_TICKET).ok
    result = box.call("create_ticket", {**VALID_TICKET, "due_days": "5"})
    assert not result.ok and result.error is not None
    assert result.error["code"] == "VALIDATION_ERROR"
    assert [f["path"] for f in result.error["fields"]] == ["/due_days"]
    nested = box.call("create_ticket", {**VALID_TICKET, "address": {"street": "x", "city": 1}})
    assert nested.error is not None
    assert [f["path"] for f in nested.error["fields"]] == ["/address/city"]


@pytest.mark.parametrize("way", ["short", "whole"])
def test_a_built_tool_answers_and_audits_alike_proven_or_not(tickets: Path, way: str) -> None:
    """Generated arguments of the built tool's schema, valid and broken: the same envelope
    and audit events, byte for byte but for the clock, with the proof and without it."""
    schema = Toolbox.load(tickets / "generated").catalog.descriptors["create_ticket"].parameters
    draws: list[dict[str, Any]] = [dict(VALID_TICKET)]

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(fitting(schema, schema.get("$defs", {})))
    def collect(arguments: Any) -> None:
        draws.append(arguments if isinstance(arguments, dict) else {"title": arguments})

    collect()

    def run(proof: bool) -> list[str]:
        events: list[dict[str, Any]] = []
        box = ticket_box(tickets, events, proof)
        seen = []
        for i, arguments in enumerate(draws):
            context = CallContext(trace_id=f"t-{i}")
            if way == "short":
                result = box.call("create_ticket", arguments, context=context)
            else:
                result = asyncio.run(box.acall("create_ticket", arguments, context=context))
            seen.append(result.to_json())
        for event in events:
            event.pop("time", None)
            event.pop("duration_ms", None)
            seen.append(json.dumps(event, sort_keys=True))
        return seen

    proven, forced = run(True), run(False)
    assert proven == forced
    answers = proven[: len(draws)]
    assert sum('"status": "ok"' in a for a in answers) >= 20
    assert sum("VALIDATION_ERROR" in a for a in answers) >= 20
