"""Nested objects of a parameter: closed in the descriptor (`additionalProperties: false` on
every model, dataclass and TypedDict, at any depth) and validated so at run time, while what a
framework publishes stays its own; a nested field without a description reported once, at the
field (TG309); `_meta` carrying what an MCP `Tool` has no field for."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from conftest import Project, Run
from runtime_oracle import closed_as_toolgen_closes, comparable, runtime_parameters_schema
from toolgen.runtime import Toolbox
from toolgen.schema_ops import closed_objects

RunCLI = Callable[..., Run]
SPEC = Path(__file__).resolve().parent / "reference" / "mcp-schema" / "2025-11-25.json"

MODELS = '''
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict


class Geo(BaseModel):
    """A point."""

    lat: float = Field(description="Latitude.")
    lon: float = Field(description="Longitude.")


class Address(BaseModel):
    """Where to ship."""

    street: str = Field(description="Street and number.")
    geo: Geo | None = Field(None, description="Where it is.")


class Loose(BaseModel):
    """Anything else goes."""

    model_config = ConfigDict(extra="allow")

    note: str = Field("", description="A note.")


class Stop(TypedDict):
    """A stop on the way."""

    city: Annotated[str, Field(description="The city.")]


@dataclass
class Window:
    """When."""

    start: Annotated[str, Field(description="From.")]
'''

TOOLS = '''
from models import Address, Loose, Stop, Window
from toolgen import tool


@tool
def ship(
    address: Address,
    stops: list[Stop],
    window: Window | None = None,
    extra: Loose | None = None,
    by_name: dict[str, Address] | None = None,
) -> str:
    """Ship a parcel.

    Args:
        address: The address.
        stops: The stops.
        window: When.
        extra: Anything.
        by_name: Addresses by name.
    """
    return "shipped"
'''


@pytest.fixture
def shipping(project: Project, run: RunCLI) -> Project:
    project.write("src/models.py", MODELS)
    project.write("src/ship_tools.py", TOOLS)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    return project


def test_nested_objects_are_closed_in_the_descriptor_and_open_ones_stay_open(
    shipping: Project,
) -> None:
    """Every model, TypedDict and dataclass among the parameters is closed, at any depth (a
    model in a model, in a list, in a union, as a dict's values); a model with
    `extra="allow"` and a dict stay open."""
    parameters = shipping.descriptor("ship")["parameters"]
    defs = parameters["$defs"]
    for name in ("Address", "Geo", "Stop", "Window"):
        assert defs[name]["additionalProperties"] is False, name
    assert defs["Loose"]["additionalProperties"] is True
    by_name = parameters["properties"]["by_name"]["anyOf"][0]
    assert by_name == {"type": "object", "additionalProperties": {"$ref": "#/$defs/Address"}}
    assert parameters["additionalProperties"] is False


def test_pydantic_schema_differs_only_by_the_closed_objects(
    shipping: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The descriptor is pydantic's schema with the objects pydantic would let take unknown
    fields (its default `extra="ignore"`) closed: nothing else moves."""
    monkeypatch.syspath_prepend(str(shipping.root / "src"))
    for name in ("models", "ship_tools"):
        sys.modules.pop(name, None)
    try:
        fn = importlib.import_module("ship_tools").ship
        runtime = runtime_parameters_schema(fn)
    finally:
        for name in ("models", "ship_tools"):
            sys.modules.pop(name, None)
    static = comparable(shipping.descriptor("ship")["parameters"], runtime)
    assert "additionalProperties" not in runtime["$defs"]["Address"]  # pydantic's: open
    assert static == closed_as_toolgen_closes(runtime)


@pytest.fixture
def box(shipping: Project) -> Iterator[Toolbox]:
    """A toolbox over the build, its handler imported from the project's source."""
    try:
        yield Toolbox.load(shipping.out, store="memory://", paths=[shipping.root / "src"])
    finally:
        for name in ("models", "ship_tools"):
            sys.modules.pop(name, None)


def test_an_unknown_nested_field_is_a_validation_error_with_its_path(box: Toolbox) -> None:
    """The run time validates with the descriptor's schema: a field no model declares, at any
    depth, is a VALIDATION_ERROR naming where it is; a model that allows extra takes it."""
    good = {"address": {"street": "Main 1"}, "stops": [{"city": "Oslo"}]}
    assert box.call("ship", good).ok
    bad = {
        "address": {"street": "Main 1", "geo": {"lat": 1.0, "lon": 2.0, "alt": 3}},
        "stops": [{"city": "Oslo"}, {"city": "Bergen", "zip": "5003"}],
        "window": {"start": "now", "end": "later"},
    }
    result = box.call("ship", bad)
    assert not result.ok and result.error is not None
    assert result.error["code"] == "VALIDATION_ERROR"
    assert result.error["fields"] == [
        {"path": "/address/geo/alt", "message": "unexpected property"},
        {"path": "/stops/1/zip", "message": "unexpected property"},
        {"path": "/window/end", "message": "unexpected property"},
    ]
    open_ones = {
        **good,
        "extra": {"note": "x", "color": "red"},
        "by_name": {"home": good["address"]},
    }
    assert box.call("ship", open_ones).ok
    result = box.call("ship", {**good, "by_name": {"home": {"street": "x", "floor": 2}}})
    assert result.error is not None
    assert result.error["fields"] == [
        {"path": "/by_name/home/floor", "message": "unexpected property"}
    ]


def test_platform_payloads_of_own_tools_keep_the_closed_objects(shipping: Project) -> None:
    """toolgen's own MCP entry sends the descriptor's schema (what its run time checks);
    OpenAI's and Anthropic's payloads too."""
    mcp = shipping.generated("mcp/tools.json")["tools"][0]
    assert mcp["inputSchema"]["$defs"]["Stop"]["additionalProperties"] is False
    anthropic = shipping.generated("anthropic/tools.json")[0]
    assert anthropic["input_schema"]["$defs"]["Geo"]["additionalProperties"] is False
    chat = shipping.generated("openai/chat_completions.json")[0]["function"]
    assert chat["parameters"]["$defs"]["Window"]["additionalProperties"] is False


FASTMCP_TOOLS = '''
from fastmcp import FastMCP
from pydantic import BaseModel, Field

mcp = FastMCP("shop")


class Item(BaseModel):
    """An item."""

    sku: str = Field(description="Stock keeping unit.")
    size: int


@mcp.tool
def order(item: Item, items: list[Item] | None = None) -> str:
    """Order an item.

    Args:
        item: What to order.
        items: More of them.
    """
    return "ok"
'''


def test_a_framework_tool_is_closed_in_its_descriptor_but_published_as_fastmcp_does(
    project: Project, run: RunCLI
) -> None:
    """A FastMCP tool's descriptor (what toolgen's run time checks) closes the model; its
    MCP entry is what FastMCP lists, the model open as pydantic leaves it, compared with
    FastMCP's own answer. Its undescribed field is a note (info), as TG301 is for it."""
    pytest.importorskip("fastmcp")
    from runtime_oracle import framework_listing

    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n'
        'markers = ["fastmcp"]\n',
    )
    project.write("src/shop/__init__.py", "")
    project.write("src/shop/server.py", FASTMCP_TOOLS)
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out
    assert "src/shop/server.py:11:5: TG309 [info] field `Item.size` is not described" in result.out
    descriptor = project.descriptor("order")  # FastMCP inlines its models: so does it
    item = descriptor["parameters"]["properties"]["item"]
    assert item["additionalProperties"] is False
    listed_item = descriptor["parameters"]["properties"]["items"]["anyOf"][0]["items"]
    assert listed_item["additionalProperties"] is False
    entry = project.generated("mcp/tools.json")["tools"][0]
    assert "additionalProperties" not in entry["inputSchema"]["properties"]["item"]
    assert entry == descriptor["framework"]["mcp"]
    listed = framework_listing(project.root / "src", "shop.server")
    assert entry["inputSchema"] == listed[0]["inputSchema"]


# -- TG309: a nested field without a description ----------------------------------------------
UNDESCRIBED = '''
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict


class Address(BaseModel):
    """Where to ship."""

    street: str
    city: str = Field(description="The city.")


class Noted(BaseModel):
    """Fields described by the string below them, as pydantic reads them."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    size: int
    """How big."""
    color: str = "red"


class Stop(TypedDict):
    """A stop."""

    city: Annotated[str, Field(description="The city.")]
    zip: str


@dataclass
class Window:
    """When."""

    start: str


class Hit(BaseModel):
    """A result: its fields are not arguments."""

    title: str
'''

UNDESCRIBED_TOOLS = '''
from models import Address, Hit, Noted, Stop, Window
from toolgen import tool


@tool
def ship(home: Address, work: Address, stops: list[Stop], noted: Noted) -> list[Hit]:
    """Ship a parcel.

    Args:
        home: The home address.
        work: The work address.
        stops: The stops.
        noted: Notes.
    """
    return []


@tool
def plan(where: Address | None = None, window: Window | None = None) -> str:
    """Plan a trip.

    Args:
        where: Where to go.
        window: When.
    """
    return ""
'''


def _tg309(out: str) -> list[str]:
    return [line for line in out.splitlines() if " TG309 " in line]


def test_undescribed_nested_fields_are_reported_once_at_the_field(
    project: Project, run: RunCLI
) -> None:
    """Each class field without a description is one warning at its line, named by its class
    (`Address.street`), however many parameters and tools reach it; a `Field(description=)`,
    an `Annotated` one or, with `use_attribute_docstrings=True`, the string below the field
    describes it; a return type's fields are not reported."""
    project.write("src/models.py", UNDESCRIBED)
    project.write("src/trip_tools.py", UNDESCRIBED_TOOLS)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _tg309(result.out) == [
        "src/models.py:11:5: TG309 [warning] field `Address.street` is not described: give it "
        "Field(description=...), or a docstring below it (with use_attribute_docstrings=True)",
        "src/models.py:22:5: TG309 [warning] field `Noted.color` is not described: give it "
        "Field(description=...), or a docstring below it (with use_attribute_docstrings=True)",
        "src/models.py:29:5: TG309 [warning] field `Stop.zip` is not described: give it "
        "Annotated[..., Field(description=...)]",
        "src/models.py:36:5: TG309 [warning] field `Window.start` is not described: give it "
        "Field(description=...)",
    ]
    noted = project.descriptor("ship")["parameters"]["$defs"]["Noted"]["properties"]
    assert noted["size"] == {"type": "integer", "description": "How big."}


def test_every_tool_that_takes_an_undescribed_field_is_told_of_it(
    project: Project, run: RunCLI
) -> None:
    """At level error, both tools that take `Address` are left out, the second one too,
    whose schema reused the class body the first one built (its notes with it)."""
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n\n'
        '[tool.toolgen.rules]\nTG309 = "error"\n',
    )
    project.write("src/models.py", UNDESCRIBED)
    project.write(
        "src/trip_tools.py",
        '''
        from models import Address
        from toolgen import tool


        @tool
        def ship(home: Address) -> str:
            """Ship a parcel.

            Args:
                home: The home address.
            """
            return ""


        @tool
        def plan(where: Address | None = None) -> str:
            """Plan a trip.

            Args:
                where: Where to go.
            """
            return ""
        ''',
    )
    result = run("build", cwd=project.root)
    assert result.code == 1
    assert _tg309(result.out) == [
        "src/models.py:11:5: TG309 [error] field `Address.street` is not described: give it "
        "Field(description=...), or a docstring below it (with use_attribute_docstrings=True)",
    ]
    assert not (project.out / "descriptors" / "ship.json").exists()
    assert not (project.out / "descriptors" / "plan.json").exists()


def test_use_attribute_docstrings_describes_as_pydantic_does(
    project: Project, run: RunCLI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The string below a field is its description when the config of the class that
    declares it says `use_attribute_docstrings=True` (inherited with the class), as pydantic
    reads it (`inspect.cleandoc`); a `Field(description=)` wins; a base class without the
    config keeps its fields undescribed."""
    project.write(
        "src/doc_models.py",
        '''
        from pydantic import BaseModel, ConfigDict, Field


        class Plain(BaseModel):
            a: int
            """Not read: this class has no config for it."""


        class WithDocs(Plain):
            model_config = ConfigDict(use_attribute_docstrings=True)

            b: int
            """  Read.

                Over lines. """
            c: int = Field(description="Field wins.")
            """Not this."""


        class Inherits(WithDocs):
            d: str = "x"
            """Read too: the config is inherited."""
        ''',
    )
    project.write(
        "src/doc_tools.py",
        '''
        from doc_models import Inherits
        from toolgen import tool


        @tool
        def take(value: Inherits) -> str:
            """Take a value.

            Args:
                value: The value.
            """
            return ""
        ''',
    )
    assert run("build", cwd=project.root).code == 0
    monkeypatch.syspath_prepend(str(project.root / "src"))
    for name in ("doc_models", "doc_tools"):
        sys.modules.pop(name, None)
    try:
        runtime = runtime_parameters_schema(importlib.import_module("doc_tools").take)
    finally:
        for name in ("doc_models", "doc_tools"):
            sys.modules.pop(name, None)
    static = comparable(project.descriptor("take")["parameters"], runtime)
    assert static == closed_as_toolgen_closes(runtime)
    fields = runtime["$defs"]["Inherits"]["properties"]
    assert "description" not in fields["a"]
    assert fields["b"]["description"] == "Read.\n\nOver lines. "
    assert fields["c"]["description"] == "Field wins."
    assert fields["d"]["description"] == "Read too: the config is inherited."


# -- _meta ---------------------------------------------------------------------------------------
def test_mcp_meta_carries_deprecation_and_search_keywords_of_own_tools(
    project: Project, run: RunCLI
) -> None:
    """toolgen's own MCP entry carries `deprecated`, `replacement` and the search keywords in
    `_meta`, under a prefix the specification leaves to implementations; the entry validates
    against the specification's own `Tool` schema. The other platforms have no place for
    them: their payloads carry none."""
    project.write(
        "src/old_tools.py",
        '''
        from toolgen import tool


        @tool(deprecated=True, replacement="find_v2", keywords=["lookup", "search"])
        def find(query: str) -> str:
            """Find things.

            Args:
                query: What to find.
            """
            return ""


        @tool
        def plain(query: str) -> str:
            """Find plainly.

            Args:
                query: What to find.
            """
            return ""
        ''',
    )
    assert run("build", cwd=project.root).code == 0
    tools = {t["name"]: t for t in project.generated("mcp/tools.json")["tools"]}
    assert tools["find"]["_meta"] == {
        "io.toolgen/deprecated": True,
        "io.toolgen/replacement": "find_v2",
        "io.toolgen/tool_search_keywords": ["lookup", "search"],
    }
    assert "_meta" not in tools["plain"]
    spec = json.loads(SPEC.read_text())
    validator = Draft202012Validator({"$ref": "#/$defs/Tool", "$defs": spec["$defs"]})
    assert list(validator.iter_errors(tools["find"])) == []
    for payload in (
        "openai/chat_completions.json",
        "openai/responses.json",
        "anthropic/tools.json",
        "gemini/function_declarations.json",
    ):
        text = (project.out / payload).read_text()
        assert "find_v2" not in text and "lookup" not in text, payload


def test_closed_objects_reads_only_schemas() -> None:
    """Values (a default, an example, an enum, a const) are data, never closed; objects
    in every place a schema goes are."""
    value = {"properties": {"x": {}}}
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {}, "default": value, "examples": [value]},
            "b": {"not": {"properties": {"y": {}}}},
            "c": {"const": value, "enum": [value]},
            "d": {"type": "object", "patternProperties": {"^x": {}}, "properties": {}},
        },
        "$defs": {"M": {"oneOf": [{"properties": {}}]}},
    }
    closed = closed_objects(schema)
    assert closed["additionalProperties"] is False
    a = closed["properties"]["a"]
    assert a["additionalProperties"] is False and a["default"] == value
    assert a["examples"] == [value]
    assert closed["properties"]["b"]["not"]["additionalProperties"] is False
    assert closed["properties"]["c"] == {"const": value, "enum": [value]}
    assert "additionalProperties" not in closed["properties"]["d"]
    assert closed["$defs"]["M"]["oneOf"][0]["additionalProperties"] is False
    assert "additionalProperties" not in schema  # a copy
