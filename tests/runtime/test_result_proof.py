"""A handler's result is proven safe to write and accepted by its return schema in one walk of
the JSON data written (`steps.quick.quick_value`); only what that walk cannot prove goes to
the walks that word a problem and to jsonschema. The answers are the same either way, byte for
byte, and so are the log's lines."""

from __future__ import annotations

import datetime
import json
import logging
import math
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from toolgen.runtime import CallContext, Toolbox
from toolgen.runtime.handlers import prepare
from toolgen.runtime.steps import execute
from toolgen.runtime.steps.quick import PROVEN_DEPTH, quick_value
from toolgen.runtime.values import MAX_RESULT_DEPTH, value_problems
from toolgen.schema_patterns import validator_for

from .descriptors_support import box_of, descriptor
from .projects_support import built_package

HANDLERS = '''
"""Tools whose return types cover what the proof of a result meets."""

from __future__ import annotations

import datetime
import enum
import math
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from toolgen import tool

#: {tool: [value makers]}: case i of a tool returns CASES[tool][i]().
CASES: dict[str, list[Any]] = {}


class Priority(str, enum.Enum):
    """How urgent."""

    LOW = "low"
    HIGH = "high"


class Level(enum.IntEnum):
    """A level."""

    ONE = 1
    TWO = 2


class Address(BaseModel):
    """Where."""

    street: str
    city: str
    zip: str | None = None


class Ticket(BaseModel):
    """A ticket."""

    id: int
    title: str
    priority: Priority
    level: Level = Level.ONE
    tags: list[str]
    address: Address
    opened: datetime.datetime
    due: datetime.date | None = None
    ref: uuid.UUID | None = None
    score: float = 0.0


class Cat(BaseModel):
    """A cat."""

    kind: Literal["cat"] = "cat"
    lives: int


class Dog(BaseModel):
    """A dog."""

    kind: Literal["dog"] = "dog"
    good: bool


class Named(BaseModel):
    """Constrained fields."""

    code: str = Field(pattern="^[A-Z]+$")
    short: str = Field(max_length=3)
    count: int = Field(ge=0, le=10)
    items: list[int] = Field(default_factory=list, max_length=2)


@tool(risk="low")
def ticket(case: int) -> Ticket:
    """Return a ticket.

    Args:
        case: Which value.
    """
    return CASES["ticket"][case]()


@tool(risk="low")
def tickets(case: int) -> list[Ticket]:
    """Return tickets.

    Args:
        case: Which value.
    """
    return CASES["tickets"][case]()


@tool(risk="low")
def pet(case: int) -> Cat | Dog:
    """Return a pet.

    Args:
        case: Which value.
    """
    return CASES["pet"][case]()


@tool(risk="low")
def maybe_address(case: int) -> Address | None:
    """Return an address or none.

    Args:
        case: Which value.
    """
    return CASES["maybe_address"][case]()


@tool(risk="low")
def counts(case: int) -> dict[str, int]:
    """Return counts.

    Args:
        case: Which value.
    """
    return CASES["counts"][case]()


@tool(risk="low")
def pair(case: int) -> tuple[int, str]:
    """Return a pair.

    Args:
        case: Which value.
    """
    return CASES["pair"][case]()


@tool(risk="low")
def choice(case: int) -> Literal["a", "b"]:
    """Return a choice.

    Args:
        case: Which value.
    """
    return CASES["choice"][case]()


@tool(risk="low")
def number_or_text(case: int) -> int | str:
    """Return a number or a text.

    Args:
        case: Which value.
    """
    return CASES["number_or_text"][case]()


@tool(risk="low")
def bounded(case: int) -> Annotated[int, Field(ge=0, le=10)]:
    """Return a bounded number.

    Args:
        case: Which value.
    """
    return CASES["bounded"][case]()


@tool(risk="low")
def named(case: int) -> Named:
    """Return constrained fields.

    Args:
        case: Which value.
    """
    return CASES["named"][case]()


@tool(risk="low")
def moment(case: int) -> datetime.datetime:
    """Return a moment.

    Args:
        case: Which value.
    """
    return CASES["moment"][case]()


@tool(risk="low")
def anything(case: int) -> Any:
    """Return anything.

    Args:
        case: Which value.
    """
    return CASES["anything"][case]()


@tool(risk="low")
def ratio(case: int) -> float:
    """Return a ratio.

    Args:
        case: Which value.
    """
    return CASES["ratio"][case]()
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with built_package(
        tmp_path_factory.mktemp("proof"), "proof_tools", HANDLERS, "min_level = 0\n"
    ) as root:
        yield root


SURROGATE = "caf\udce9"


def cases(m: Any) -> dict[str, list[Callable[[], Any]]]:
    """Each tool's values: what pydantic made, and what a handler may return instead."""
    when = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    address = m.Address(street="1 Main St", city="Springfield")

    def ticket(**changes: Any) -> Any:
        fields: dict[str, Any] = {
            "id": 1,
            "title": "Broken pipe",
            "priority": m.Priority.HIGH,
            "tags": ["plumbing", "urgent"],
            "address": address,
            "opened": when,
        }
        return m.Ticket(**{**fields, **changes})

    def assigned(made: BaseModel, **changes: Any) -> Any:
        for name, value in changes.items():  # after validation: pydantic checks nothing
            object.__setattr__(made, name, value)
        return made

    good = ticket(level=m.Level.TWO, due=when.date(), ref=uuid.UUID(int=7), score=0.5)
    as_dict = good.model_dump(mode="json")
    return {
        "ticket": [
            lambda: good,
            lambda: ticket(),
            lambda: ticket(title="café 😀", tags=[]),
            lambda: m.Ticket.model_construct(id=1, title="no address"),  # required fields missing
            lambda: assigned(ticket(), id="1"),  # a string where an integer is declared
            lambda: assigned(ticket(), tags="abc"),
            lambda: assigned(ticket(), priority="urgent"),
            lambda: assigned(ticket(), score=math.nan),
            lambda: assigned(ticket(), score=-math.inf),
            lambda: assigned(ticket(), id=10**400),
            lambda: assigned(ticket(), title=SURROGATE),
            lambda: assigned(ticket(), address={"street": "x"}),
            lambda: as_dict,  # a dict where the model is declared, valid
            lambda: {**as_dict, "id": "one"},  # and not
            lambda: {key: v for key, v in as_dict.items() if key != "title"},
            lambda: {**as_dict, "extra": [1, 2]},  # the model's schema is open
            lambda: {**as_dict, SURROGATE: 1},
        ],
        "tickets": [
            lambda: [good, ticket()],
            list,
            lambda: [good, as_dict],
            lambda: [good, {**as_dict, "level": 3}],
            lambda: [assigned(ticket(), opened="yesterday")],
        ],
        "pet": [
            lambda: m.Cat(lives=9),
            lambda: m.Dog(good=True),
            lambda: {"kind": "cat", "lives": 9},
            lambda: {"kind": "bird", "lives": 9},
            lambda: assigned(m.Dog(good=True), good=1),
            lambda: assigned(m.Cat(lives=9), lives=True),
        ],
        "maybe_address": [
            lambda: None,
            lambda: address,
            lambda: m.Address(street="x", city="y", zip="12345"),
            lambda: m.Address.model_construct(street="x"),
        ],
        "counts": [
            lambda: {"a": 1, "b": 2},
            dict,
            lambda: {"a": 1.5},
            lambda: {SURROGATE: 1},
            lambda: {"a": math.nan},
            lambda: {"a": True},
        ],
        "pair": [lambda: (1, "a"), lambda: [1, "a"], lambda: (1,), lambda: (1, "a", 2)],
        "choice": [lambda: "a", lambda: "b", lambda: "c", lambda: 1],
        "number_or_text": [lambda: 1, lambda: "x", lambda: 1.5, lambda: None, lambda: 10**400],
        "bounded": [lambda: 0, lambda: 10, lambda: 11, lambda: -1, lambda: True],
        "named": [
            lambda: m.Named(code="AB", short="abc", count=3, items=[1]),
            lambda: assigned(m.Named(code="AB", short="abc", count=3), short="abcd"),
            lambda: assigned(m.Named(code="AB", short="abc", count=3), code="ab"),
            lambda: assigned(m.Named(code="AB", short="abc", count=3), count=11),
            lambda: assigned(m.Named(code="AB", short="abc", count=3), items=[1, 2, 3]),
        ],
        "moment": [lambda: when, lambda: "not a moment", lambda: when.date()],
        "anything": [
            lambda: {"values": [1, {"deeper": math.nan}]},
            lambda: {"nested": [{"a": None, "b": [True, 2.5, "x"]}]},
            lambda: [SURROGATE],
            lambda: {SURROGATE: 1},
            lambda: {"big": 10**400},
            lambda: datetime.date(2026, 1, 2),
            lambda: deep(MAX_RESULT_DEPTH + 5),
            lambda: deep(PROVEN_DEPTH + 5),
            lambda: deep(PROVEN_DEPTH - 5),
        ],
        "ratio": [lambda: 0.5, lambda: 2, lambda: math.nan, lambda: math.inf, lambda: "0.5"],
    }


def deep(levels: int) -> Any:
    found: Any = 1
    for _ in range(levels):
        found = [found]
    return found


def jsonschema_always(box: Toolbox) -> Toolbox:
    """`box` as the run time was before the proof: no quick check of a result, so every one
    takes the walks and jsonschema."""
    box.quick_returns = lambda descriptor: None  # type: ignore[method-assign]
    return box


@pytest.fixture
def tools(project: Path) -> Any:
    import proof_tools.handlers

    proof_tools.handlers.CASES.clear()
    proof_tools.handlers.CASES.update(cases(proof_tools.handlers))
    return proof_tools.handlers


def load(project: Path) -> Toolbox:
    return Toolbox.load(project / "generated", store="memory://", timeout=None, max_retries=0)


def answered(
    box: Toolbox, name: str, case: int, way: str, caplog: pytest.LogCaptureFixture
) -> tuple[str, list[str]]:
    """The envelope's JSON text and the lines logged, for one call (the same trace id)."""
    caplog.clear()
    context = CallContext(trace_id=f"trace-{name}-{case}")
    if way == "short":
        result = box.call(name, {"case": case}, context=context)
    else:
        import asyncio

        result = asyncio.run(box.acall(name, {"case": case}, context=context))
    lines = [
        f"{r.levelname} {r.getMessage()} {type(r.exc_info[1]).__name__ if r.exc_info else ''}"
        for r in caplog.records
    ]
    return result.to_json(), lines


@pytest.mark.parametrize("way", ["short", "whole"])
def test_the_proof_answers_as_jsonschema_does(
    project: Path, tools: Any, way: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Every case of every return type: the same envelope, byte for byte, and the same log
    lines, with the proof and with jsonschema forced; and the proof did prove the results of
    the types it knows every keyword of (those that are accepted and safe)."""
    caplog.set_level(logging.ERROR, logger="toolgen.runtime")
    proven, forced = load(project), jsonschema_always(load(project))
    seen = {"ok": 0, "INTERNAL": 0, "proven": 0}
    for name, makers in tools.CASES.items():
        check = proven.quick_returns(proven.catalog.descriptors[name])
        for case in range(len(makers)):
            mine = answered(proven, name, case, way, caplog)
            theirs = answered(forced, name, case, way, caplog)
            assert mine == theirs, (name, case)
            ok = '"status": "ok"' in mine[0]
            seen["ok" if ok else "INTERNAL"] += 1
            data = json.loads(mine[0]).get("data")
            seen["proven"] += bool(ok and check is not None and check(data))
    # both kinds of answer were compared, and most of the ok ones were proven
    assert seen["ok"] > 20 and seen["INTERNAL"] > 20 and seen["proven"] > 15, seen


def test_results_of_known_keywords_are_proven(project: Path, tools: Any) -> None:
    """The accepted results of a model with nested models, enums, dates, optional fields and
    lists, of a list of them, of a union, a tuple, a dict, a literal and a datetime are proven
    (on main, `quick_value` proved a plain scalar only)."""
    box = load(project)
    for name, case in [
        ("ticket", 0),
        ("ticket", 2),
        ("ticket", 12),  # a dict with the model's fields: proven as JSON data is
        ("tickets", 0),
        ("pet", 1),
        ("maybe_address", 1),
        ("maybe_address", 0),
        ("counts", 0),
        ("pair", 0),
        ("choice", 0),
        ("moment", 0),
        ("anything", 1),
    ]:
        result = box.call(name, {"case": case})
        assert result.ok, (name, case)
        check = box.quick_returns(box.catalog.descriptors[name])
        assert check is not None and check(result.data), (name, case)


def test_a_proven_result_takes_no_other_walk_nor_jsonschema(
    project: Path, tools: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The JSON-safety walk is the proof's, on the JSON data written: neither of the walks
    of the value (`value_problems`, `holds_lone_surrogate`) nor jsonschema runs for it."""

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("not for a proven result")

    class Never:
        validate = staticmethod(never)

    monkeypatch.setattr(execute, "value_problems", never)
    monkeypatch.setattr(execute, "holds_lone_surrogate", never)
    box = load(project)
    for name in ("ticket", "tickets", "pet"):
        assert box.returns(box.catalog.descriptors[name]) is not None
        box._returns[name] = Never()  # type: ignore[assignment]
        result = box.call(name, {"case": 0})
        assert result.ok, name
    assert box.call("ticket", {"case": 0}).data == tools.CASES["ticket"][0]().model_dump(
        mode="json"
    )


class Item(BaseModel):
    id: int
    name: str


def item(id: int) -> Item:
    return Item(id=id, name="x")


def test_a_hand_edited_return_schema_is_still_checked(caplog: pytest.LogCaptureFixture) -> None:
    """A descriptor whose return schema is not the annotation's (edited after the build): a
    value pydantic validated and dumped as the declared model, that the schema rejects, is
    INTERNAL."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"id": {"type": "integer", "minimum": 5}, "name": {"type": "string"}},
        "required": ["id", "name", "owner"],
    }
    parameters = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    box = box_of((descriptor("item", parameters, schema), item))
    for arguments in ({"id": 7}, {"id": 1}):  # no owner; then below the minimum too
        result = box.call("item", arguments)
        assert result.error is not None and result.error["code"] == "INTERNAL"
    assert "returned a value its return schema rejects" in caplog.text
    del schema["required"][2]
    box = box_of((descriptor("item", parameters, schema), item))
    assert box.call("item", {"id": 7}).data == {"id": 7, "name": "x"}
    assert box.call("item", {"id": 1}).error is not None


def test_a_dict_for_a_model_is_still_checked(project: Path, tools: Any) -> None:
    """A handler that returns a dict where its model is declared: the dict is checked as the
    JSON data it is, an invalid one INTERNAL, a valid one answered as it is."""
    box = load(project)
    assert box.call("ticket", {"case": 12}).ok
    for case in (13, 14):
        result = box.call("ticket", {"case": case})
        assert result.error is not None and result.error["code"] == "INTERNAL", case


def test_what_pydantic_dumps_unvalidated_is_not_trusted(project: Path, tools: Any) -> None:
    """Serialized as the declared type is not accepted by its schema: a model made with
    `model_construct` lacks required fields, a field assigned after validation holds any
    value, and pydantic dumps both without a word; the proof finds them, jsonschema words
    them."""
    box = load(project)
    for name, case in [("ticket", 3), ("ticket", 4), ("ticket", 5), ("ticket", 6), ("pet", 4)]:
        result = box.call(name, {"case": case})
        assert result.error is not None and result.error["code"] == "INTERNAL", (name, case)
    assert box.call("named", {"case": 1}).error is not None  # max_length, after validation


class Box(BaseModel):
    any: Any = None
    values: list[float] = []


def boxed() -> Box:
    return Box()


def test_written_is_the_dump_with_nan_kept() -> None:
    """`Prepared.written` is the JSON data the dump makes, save that NaN and the infinities
    stay floats where the dump writes null (under `Any`)."""
    prepared = prepare(boxed, {"type": "object", "properties": {}})
    assert prepared.written is not None
    fine = Box(any={"a": [1, "x"]}, values=[1.5])
    assert prepared.written(fine) == prepared.dump(fine)
    odd = Box(any=[math.nan], values=[math.inf])
    assert prepared.dump(odd) == {"any": [None], "values": [math.inf]}
    written = prepared.written(odd)
    assert math.isnan(written["any"][0]) and written["values"] == [math.inf]


# -- the proof itself, against jsonschema and the walks -------------------------------------

SCHEMAS: list[dict[str, Any]] = [
    {},
    {"type": "integer"},
    {"type": "number", "minimum": 0, "exclusiveMaximum": 10},
    {"type": "string", "maxLength": 2, "minLength": 1},
    {"enum": ["a", "b", 1, None, True]},
    {"const": 1},
    {"type": ["string", "null"], "format": "date-time"},
    {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    {"allOf": [{"type": "integer"}, {"minimum": 1}]},
    {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
    {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": False},
    {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"$ref": "#/$defs/B"}},
        "required": ["a"],
        "additionalProperties": False,
        "$defs": {"B": {"type": "array", "items": {"$ref": "#/$defs/B"}}},
    },
    {"type": "object", "additionalProperties": {"type": "boolean"}},
    {"$ref": "#/$defs/T", "$defs": {"T": {"type": "object", "properties": {"t": {"$ref": "#"}}}}},
    {"type": "string", "pattern": "^a"},  # a keyword not known: never proven
]

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["a", "b", "ab", "abc", "", SURROGATE, "é", "\ufffd"])
    | st.just(10**400),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "t", "c", SURROGATE]), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(min_value=0, max_value=len(SCHEMAS) - 1), data=JSON)
def test_the_proof_proves_only_safe_and_accepted_data(index: int, data: Any) -> None:
    schema = SCHEMAS[index]
    check = quick_value(schema)
    if check is None or not check(data):
        return
    assert not value_problems(data, MAX_RESULT_DEPTH, text=True), data
    # the return validator, as `Toolbox.returns` makes it (no format checker)
    assert validator_for(schema).is_valid(data), (schema, data)


def test_the_proof_proves_the_common_cases() -> None:
    proofs = [quick_value(schema) for schema in SCHEMAS]
    assert all(proof is not None for proof in proofs[:-1])
    assert proofs[-1] is None  # `pattern` at its root: never tried
    assert proofs[9] is not None and proofs[9]([1, 2]) and not proofs[9]([])
    assert proofs[11] is not None and proofs[11]({"a": 1, "b": [[], [[]]]})
    assert not proofs[11]({"a": 1, "c": 2}) and not proofs[11]({"b": []})
    assert proofs[13] is not None and proofs[13]({"t": {"t": {}}}) is False  # "#" is not known
    assert proofs[4] is not None and proofs[4](1) and not proofs[4](1.5) and proofs[4](True)
    assert proofs[5] is not None and not proofs[5](True) and proofs[5](1.0)
    assert proofs[0] is not None and not proofs[0](deep(PROVEN_DEPTH + 1))


def test_a_result_that_cannot_be_proven_costs_only_the_old_way(project: Path, tools: Any) -> None:
    """An ok result of a type with a keyword the proof does not know (a pattern) is still
    answered, by jsonschema."""
    box = load(project)
    result = box.call("named", {"case": 0})
    assert result.ok and result.data == {"code": "AB", "short": "abc", "count": 3, "items": [1]}
    check = box.quick_returns(box.catalog.descriptors["named"])
    assert check is not None and not check(result.data)


REPO = Path(__file__).resolve().parents[2]


def test_the_examples_answer_and_audit_alike_with_jsonschema_forced(tmp_path: Path) -> None:
    """Every example call of this repository's generated tools (examples/support, their real
    handlers - most are stubs that raise -, every gate and step-up passed): the same
    envelopes and audit events, byte for byte but for the clock, with the proof and with
    jsonschema forced."""

    def run(force: bool) -> list[str]:
        events: list[dict[str, Any]] = []
        box = Toolbox.load(
            REPO / "generated",
            store=f"sqlite:///{tmp_path / ('forced' if force else 'proven')}.db",
            audit=events.append,
            factory=lambda cls: cls("acme"),
            paths=[REPO / "examples"],
            timeout=30.0,
            max_retries=0,
        )
        if force:
            jsonschema_always(box)
        seen: list[str] = []
        for tool in box.tools:
            for i, example in enumerate(tool.examples):
                context = CallContext(
                    trace_id=f"t-{tool.name}-{i}",
                    principal="tester",
                    scopes=set(tool.permissions or ()),
                    confirm=lambda request: True,
                    step_up=lambda request: True,
                )
                result = box.call(tool.name, dict(example.arguments), context=context)
                seen.append(result.to_json())
        for event in events:
            event.pop("time", None)
            event.pop("duration_ms", None)
            seen.append(json.dumps(event, sort_keys=True))
        return seen

    proven, forced = run(False), run(True)
    assert proven == forced
    assert sum('"status": "ok"' in answer for answer in proven) >= 1  # the calculator's
