"""Odd constants in handlers (red team): integers beyond what Python reads back from JSON
(a hex literal of any length parses), numbers beyond a float's range as constraints, tags
that are no strings. Each is a located diagnostic for its tool (test_fuzz's contract), never a
traceback."""

from __future__ import annotations

import pytest

from conftest import tool_source
from test_fuzz import CONFIG, assert_diagnostics_only

HUGE = "0x" + "f" * 5000  # 20,000 bits: no `int`-to-text conversion takes it

SOURCES = {
    "a default": tool_source(params=f"x: int = {HUGE}"),
    "a negative default": tool_source(params=f"x: int = -{HUGE}"),
    "a Literal value": tool_source(
        params=f"x: Literal[{HUGE}]", imports="from typing import Literal"
    ),
    "an enum member": tool_source(
        params="x: E", imports=f"import enum\n\n\nclass E(enum.Enum):\n    A = {HUGE}\n"
    ),
    "a Field bound": tool_source(
        params=f"x: Annotated[int, Field(ge={HUGE})]",
        imports="from typing import Annotated\nfrom pydantic import Field",
    ),
    "Field examples": tool_source(
        params=f"x: Annotated[int, Field(examples=[{HUGE}])]",
        imports="from typing import Annotated\nfrom pydantic import Field",
    ),
    "a model's default": tool_source(
        params="m: M",
        imports=f"from pydantic import BaseModel\n\n\nclass M(BaseModel):\n    a: int = {HUGE}\n",
    ),
    "an example call": tool_source(
        extra_doc=f"\n    Examples:\n        >>> lookup(query={HUGE})\n        'x'\n"
    ),
    # beyond a float's range: `math.isfinite` cannot take it (OverflowError)
    "a Field bound of 4,300 digits": tool_source(
        params="x: Annotated[int, Field(ge=1" + "0" * 4299 + ")]",
        imports="from typing import Annotated\nfrom pydantic import Field",
    ),
}


@pytest.mark.parametrize("source", SOURCES.values(), ids=list(SOURCES))
def test_an_integer_too_large_is_a_diagnostic(source: str) -> None:
    code, out = assert_diagnostics_only({"src/t.py": source})
    assert code in (0, 1), out


FASTMCP = CONFIG + 'markers = ["fastmcp"]\n'


@pytest.mark.parametrize("tags", ["{'a', 5}", "['a', 2.5]", "{'a', frozenset({1})}", "{'a', None}"])
def test_fastmcp_tags_that_are_no_strings_leave_the_tool_out(tags: str) -> None:
    source = (
        "from fastmcp import FastMCP\n\nmcp = FastMCP('s')\n\n\n"
        f"@mcp.tool(tags={tags})\ndef find(q: str) -> str:\n    '''Find.'''\n    return q\n"
    )
    code, out = assert_diagnostics_only({"src/s.py": source}, FASTMCP)
    assert code == 1, out
    assert "TG403" in out, out


MODEL = "from pydantic import BaseModel, Field\n\n\nclass M(BaseModel):\n"
CLAIMED = {
    "two fields, one alias": (
        tool_source(
            params="m: M",
            imports=MODEL + "    a: int = Field(alias='x')\n    b: int = Field(alias='x')\n",
        ),
        "src/t.py:7:8: TG210 [error] `b` takes the name `x` in the schema, which `a` already has",
    ),
    "an alias that is another field's name": (
        tool_source(params="m: M", imports=MODEL + "    a: int = Field(alias='b')\n    b: int\n"),
        "src/t.py:7:8: TG210 [error] `b` takes the name `b` in the schema, which `a` already has",
    ),
    "a parameter's alias that is another parameter's name": (
        tool_source(
            params="a: Annotated[int, Field(alias='b')], b: int",
            imports="from typing import Annotated\nfrom pydantic import Field",
        ),
        "src/t.py:6:49: TG210 [error] `b` takes the name `b` in the schema, which `a` already has",
    ),
}


@pytest.mark.parametrize(("source", "expected"), CLAIMED.values(), ids=list(CLAIMED))
def test_a_name_two_fields_take_is_tg210(source: str, expected: str) -> None:
    """pydantic lists such a name twice in `required` (a schema the metaschema refuses, which
    went into every payload) and fills both from one value."""
    code, out = assert_diagnostics_only({"src/t.py": source})
    assert code == 1, out
    assert expected in out, out
