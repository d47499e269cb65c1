"""The rules on what a tool's text says (TG913-TG919, TG921-TG923, and TG904's verb test):
each fires on a small project, located, and stays quiet on its near neighbour."""

from __future__ import annotations

import pytest

from conftest import Project, tool_source
from toolgen.diagnostics import RULES
from toolgen.lint import catalog, wording
from toolgen.lint.verbs import english, is_verb, snake_case

DOC = "Look something up in the catalog. Use it for product questions.\n"
SAFE = (
    "\n    Idempotency:\n        idempotent: true\n        safe: true\n        destructive: false\n"
)


def _described(text: str, **kwargs: str) -> str:
    """`tool_source` with its description's summary line replaced."""
    return tool_source(**kwargs).replace(DOC, text)


def _build(project: Project, run, source: str):  # type: ignore[no-untyped-def]
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src"]\n')
    project.write("src/tools.py", source)
    return run("build", "--verbose", cwd=project.root)  # the notes (info) too


def _tool(name: str, text: str) -> str:
    return (
        f'@tool(risk="medium")\ndef {name}(query: str) -> str:\n'
        f'    """{text}\n\n    Args:\n        query: The query.\n    """\n'
        "    raise NotImplementedError\n\n\n"
    )


def _tools(*tools: tuple[str, str]) -> str:
    return "from toolgen import tool\n\n\n" + "".join(_tool(n, t) for n, t in tools)


_FRUIT = [
    "apples", "pears", "plums", "figs", "dates", "limes", "lemons", "grapes", "melons", "kiwis",
    "mangos", "peaches", "cherries", "berries", "olives", "onions", "leeks", "beans", "peas",
    "carrots", "beets", "radishes", "turnips", "yams", "squash", "pumpkins", "kale", "nuts",
    "seeds", "grains", "oats",
]  # fmt: skip
_SHOP = [(f"get_{f}", f"Get the {f} of the shop. Use it for shop questions.") for f in _FRUIT]
_ORDERS = ("find_orders", "Find orders by customer name. Use it for order questions.")

CASES = [
    # code, firing source, "line:col", message fragment, quiet source
    (
        "TG904",
        _described("Comprehensive lookup of the catalog. Use it for product questions.\n"),
        "5:1",
        "description starts with `Comprehensive`; start with a verb",
        _described("Returns something from the catalog. Use it for product questions.\n"),
    ),
    (
        "TG913",
        _described(DOC + "\n    Results come from the catalog.\n\n    Nothing is written.\n"),
        "5:1",
        "description has 3 paragraphs; a summary line and one paragraph",
        _described(DOC + "\n    Results come from the catalog; nothing is written.\n"),
    ),
    (
        "TG914",
        _described("Look something up in the catalog. It answers product questions.\n"),
        "5:1",
        "description does not say when to call the tool",
        _described("Look something up in the catalog. Do not use it for orders.\n"),
    ),
    (
        "TG915",
        _described("Look something up in the blazing-fast catalog. Use it for products.\n"),
        "5:1",
        "description sells (`blazing-fast`)",
        _described("Look something up in the catalog by robust z-score. Use it for products.\n"),
    ),
    (
        "TG916",
        _described("Look something up with GET /api/items. Use it for product questions.\n"),
        "5:1",
        "description tells how the tool is built (`GET /api/items`)",
        _described("Look something up in the item list. Use it for product questions.\n"),
    ),
    (
        "TG917",
        _described("Manage the catalog entries. Use it for product questions.\n", name="manage"),
        "5:1",
        "description does not say whether the tool reads or changes data",
        _described("Manage the catalog entries. Use it for product questions.\n", name="manage")
        .replace("    Args:", SAFE.lstrip("\n") + "\n    Args:"),
    ),
    (
        "TG918",
        _described("Get a user's profile. Use it for account questions.\n", name="user_profile"),
        "5:1",
        "tool name `user_profile` does not start with a verb; e.g. `get_user_profile`",
        _described("Get a user's profile. Use it for account questions.\n", name="profile_get"),
    ),
    (
        "TG919",
        tool_source(params="searchText: str"),
        "5:12",
        "parameter `searchText` is not snake_case: `search_text`",
        tool_source(params="search_text: str"),
    ),
    (
        "TG921",
        tool_source(params='kind: Literal["P", "S"]', imports="from typing import Literal"),
        "5:12",
        'parameter `kind` has values a reader cannot guess ("P", "S")',
        tool_source(
            params='kind: Literal["P", "S"]',
            imports="from typing import Literal",
            args_doc="        kind: P = purchase, S (sale).",
        ),
    ),
    (
        "TG922",
        _tools(
            _ORDERS,
            ("find_orders_fast", "Find orders by customer name quickly. Use it for orders."),
        ),
        "15:1",
        "tool find_orders_fast: close to `find_orders` (name and description); say when",
        _tools(
            _ORDERS,
            ("find_orders_fast", "Find orders by customer name in the fast cache. Use it to list."),
        ),
    ),
    (
        "TG923",
        _tools(*_SHOP),
        "5:1",
        "tool get_apples: the catalog shows 31 tools (over 30); load them on demand",
        _tools(*_SHOP[:30]),
    ),
]  # fmt: skip


def test_every_wording_and_catalog_rule_has_a_case() -> None:
    codes = {code for code, *_ in CASES} - {"TG904"}
    assert codes == set(wording.RULES) | set(catalog.RULES)
    for code in codes:
        assert RULES[code].summary and RULES[code].help, code


@pytest.mark.parametrize(("code", "source", "where", "message", "quiet"), CASES, ids=lambda c: c)
def test_rule_fires_located_and_its_neighbour_is_quiet(  # type: ignore[no-untyped-def]
    project: Project, run, code: str, source: str, where: str, message: str, quiet: str
) -> None:
    result = _build(project, run, source)
    lines = [line for line in result.out.splitlines() if f" {code} " in line]
    assert lines, result.out
    assert lines[0].startswith(f"src/tools.py:{where}: {code} [{RULES[code].level.value}]")
    assert message in lines[0]
    others = {line.split()[1] for line in result.out.splitlines() if " [" in line}
    assert others == {code}, result.out  # the case trips nothing else
    result = _build(project, run, quiet)
    assert f" {code} " not in result.out, result.out
    assert " [" not in result.out, result.out  # nor anything else


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("Returns", True), ("Gets", True), ("Fetches", True), ("Copies", True),
        ("summarize", True), ("Auto-generate", True), ("Apply", True),
        ("This", False), ("Tool", False), ("Comprehensive", False), ("Unified", False),
        ("Powerful", False), ("Getting", False), ("Utility", False),
        ("ThingsPanel", None), ("Devuelve", None), ("Ping", True), ("Bring", None),
        ("String", None), ("Embed", True), ("Proceed", None), ("unpause", True), ("lpush", True),
    ],
)  # fmt: skip
def test_is_verb_reads_morphology_and_stays_quiet_on_what_it_cannot_place(
    word: str, expected: bool | None
) -> None:
    assert is_verb(word) is expected


@pytest.mark.parametrize(
    ("name", "snake"),
    [("pageToken", "page_token"), ("ExternalIPs", "external_ips"), ("userID", "user_id"),
     ("x-api-key", "x_api_key"), ("getHTTPResponse", "get_http_response")],
)  # fmt: skip
def test_snake_case_form_of_a_parameter_name(name: str, snake: str) -> None:
    assert snake_case(name) == snake


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Get the weather.", True),  # one function word: read for its opening verb
        ("List users", True),
        ("Find the orders of a customer.", True),
        ("Weather lookup.", False),  # no verb to open with, no function words
        ("Obtiene el clima.", False),
        ("Obtenir la météo.", False),
        ("Buscar usuarios", False),
    ],
)
def test_a_short_description_is_english_when_it_opens_with_a_known_verb(
    text: str, expected: bool
) -> None:
    assert english(text) is expected


def test_a_one_line_description_that_opens_with_a_verb_is_asked_when_to_call(  # type: ignore[no-untyped-def]
    project: Project, run
) -> None:
    result = _build(project, run, _described("Get the weather.\n"))
    assert " TG914 [info] " in result.out, result.out
    result = _build(project, run, _described("Obtiene el clima.\n"))
    assert " TG914 " not in result.out, result.out  # another language is not judged
    said = "Get the weather. This should be used to plan a trip.\n"
    result = _build(project, run, _described(said))
    assert " TG914 " not in result.out, result.out  # `should be used to` says when
