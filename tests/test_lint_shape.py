"""The shape rules (TG932-TG940): each fires, located, on a small tool, and keeps quiet on the
same tool written the way it asks. `SHAPE_CASES` join test_contract's LINT_CASES."""

from __future__ import annotations

import pytest

import test_contract
from conftest import Project, tool_source
from test_contract import IDEMPOTENCY, _build
from toolgen.diagnostics import RULES

BOUNDED = "from typing_extensions import Annotated\nfrom pydantic import Field"
WRITE = IDEMPOTENCY.format(i="false", s="false", d="false")
DELETE = IDEMPOTENCY.format(i="true", s="false", d="true")
#: A parameter whose object schema is written inline, its field `x` described by `{x}`
INLINE = (
    "Annotated[dict[str, int], Field(json_schema_extra="
    '{{"properties": {{"x": {{"type": "integer"{x}}}}}}})]'
)
DESCRIBED = ', "description": "X."'
EXAMPLE = '\n    Examples:\n{prompt}        >>> lookup(query="a")\n        "b"\n{notes}'

SHAPE_CASES = [
    # code, source, expected "line:col", message fragment
    (
        "TG932",
        tool_source(params="query: str, timeout: float = 5.0"),
        "5:24",
        "parameter `timeout` is a number whose unit is not stated",
    ),
    (
        "TG933",
        tool_source(params="query: str, user_id: str"),
        "5:24",
        "string parameter `user_id` has no maxLength",
    ),
    (
        "TG934",
        tool_source(
            params="query: str, page_token: Annotated[str, Field(max_length=200)] = ''",
            imports=BOUNDED,
        ),
        "6:24",
        "parameter `page_token` is a page cursor; name it `cursor`",
    ),
    (
        "TG935",
        tool_source(
            params="query: str, idempotency_key: Annotated[str, Field(max_length=64)]",
            imports=BOUNDED,
            extra_doc=WRITE,
        ),
        "6:24",
        "idempotency key `idempotency_key` may be shorter than 16 characters",
    ),
    (
        "TG936",
        tool_source(name="delete_item", decorator='@tool(risk="high")', extra_doc=DELETE),
        "5:1",
        "high-risk `delete_` tool takes no `environment` parameter",
    ),
    (
        "TG937",
        tool_source(returns="bytes"),
        "5:1",
        "result may be larger than 10 KB (inline bytes); return a `resource_url`",
    ),
    (
        "TG938",
        tool_source(extra_doc=EXAMPLE.format(prompt="", notes="")),
        "5:1",
        "example 1 of 1 without a prompt",
    ),
    (
        "TG939",
        tool_source(
            extra_doc=EXAMPLE.format(
                prompt="        Find a:\n\n",
                notes="        Notes: The first hit only. Others are dropped.\n",
            )
        ),
        "5:1",
        "example 1's notes are longer than one sentence",
    ),
    (
        "TG940",
        tool_source(
            params='query: str, action: Literal["get", "list", "delete"] = "get"',
            imports="from typing import Literal",
        ),
        "5:24",
        "`action` switches between reads (get, list) and writes (delete)",
    ),
    (
        "TG941",
        tool_source(params=f"query: str, point: {INLINE.format(x='')}", imports=BOUNDED),
        "6:24",
        "parameter `point` has fields without a description: `point.x`",
    ),
]

QUIET_CASES = [
    # code, source the rule has nothing to say about
    ("TG932", tool_source(params="query: str, timeout_ms: float = 5.0")),
    (
        "TG932",
        tool_source(
            params="query: str, temperature: float = 0.2",
            args_doc="        query: Words.\n        temperature: Sampling temperature.",
        ),
    ),
    (
        "TG932",
        tool_source(
            params="query: str, created_at: datetime",
            imports="from datetime import datetime",
            args_doc="        query: Words.\n        created_at: When, in UTC.",
        ),
    ),
    (
        "TG933",
        tool_source(
            params="query: str, note: str, user_id: Annotated[str, Field(max_length=64)]",
            imports=BOUNDED,
        ),
    ),
    (
        "TG934",
        tool_source(
            params="query: str, cursor: Annotated[str, Field(max_length=200)] = '', page: int = 1",
            imports=BOUNDED,
        ),
    ),
    (
        "TG935",
        tool_source(
            params="query: str, idempotency_key: Annotated[str, Field(min_length=16, "
            "max_length=64)]",
            imports=BOUNDED,
            extra_doc=WRITE,
        ),
    ),
    (
        "TG936",
        tool_source(
            name="delete_item",
            params='query: str, environment: Literal["staging", "production"] = "staging"',
            imports="from typing import Literal",
            decorator='@tool(risk="high")',
            extra_doc=DELETE,
        ),
    ),
    ("TG937", tool_source(returns="str")),
    ("TG938", tool_source(extra_doc=EXAMPLE.format(prompt="        Find a:\n\n", notes=""))),
    (
        "TG939",
        tool_source(
            extra_doc=EXAMPLE.format(
                prompt="        Find a:\n\n",
                notes="        Notes: The first hit only, e.g. for a quick answer.\n",
            )
        ),
    ),
    (
        "TG940",
        tool_source(
            params='query: str, action: Literal["get", "list", "search"] = "get"',
            imports="from typing import Literal",
        ),
    ),
    (
        "TG941",
        tool_source(
            params=f"query: str, point: {INLINE.format(x=DESCRIBED)}",
            imports=BOUNDED,
        ),
    ),
]


@pytest.mark.parametrize(("code", "source", "where", "message"), SHAPE_CASES, ids=lambda c: c)
def test_shape_rule_fires_with_its_location(  # type: ignore[no-untyped-def]
    project: Project, run, code: str, source: str, where: str, message: str
) -> None:
    test_contract.test_lint_rule_fires_with_its_location(project, run, code, source, where, message)


@pytest.mark.parametrize(("code", "source"), QUIET_CASES, ids=lambda c: c)
def test_shape_rule_keeps_quiet(project: Project, run, code: str, source: str) -> None:  # type: ignore[no-untyped-def]
    result = _build(project, run, source)
    assert result.code == 0, result.out
    assert f" {code} " not in result.out, result.out


def test_every_shape_rule_has_a_quiet_case() -> None:
    assert {code for code, _ in QUIET_CASES} == {code for code, *_ in SHAPE_CASES}
    assert all(code in RULES for code, _ in QUIET_CASES)


def test_example_notes_are_read_from_the_docstring(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    notes = "        Notes: The first hit only,\n          not the others.\n"
    source = tool_source(extra_doc=EXAMPLE.format(prompt="        Find a:\n\n", notes=notes))
    result = _build(project, run, source)
    assert result.code == 0, result.out
    descriptor = (project.root / "generated" / "descriptors" / "lookup.json").read_text()
    assert '"notes": "The first hit only, not the others."' in descriptor
    assert '"result": "b"' in descriptor
    docs = (project.root / "generated" / "docs" / "tools.md").read_text()
    assert "The first hit only, not the others.\n" in docs


def test_example_notes_from_a_contract_table(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    table = (
        "[tool.toolgen.contract.lookup]\n"
        'examples = [{prompt = "Find a", arguments = {query = "a"}, result = "b", '
        'notes = "{notes}"}]\n'
    )
    result = _build(project, run, tool_source(), table.replace("{notes}", "Only the first."))
    assert result.code == 0 and " TG939 " not in result.out, result.out
    descriptor = (project.root / "generated" / "descriptors" / "lookup.json").read_text()
    assert '"notes": "Only the first."' in descriptor
    result = _build(project, run, tool_source(), table.replace("{notes}", "Only one. Not two."))
    assert "TG939 [warning] tool lookup: example 1's notes are longer than one sentence" in (
        result.out
    )
