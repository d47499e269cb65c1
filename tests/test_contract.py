"""The tool contract: lint rules (TG9xx), conformance levels, safety contradictions, and the
user's controls over rules (configured levels, `# toolgen: ignore[...]`)."""

from __future__ import annotations

import json

import pytest

from conftest import REPO, Project, tool_source
from toolgen.diagnostics import RULES
from toolgen.lint import practice, shape

#: `tool_source`'s decorator line, and the decorator on it (a comment goes after it)
MARKED = '@tool(risk="medium")\n'
MARKED_AS = MARKED.rstrip("\n")

IDEMPOTENCY = (
    "\n    Idempotency:\n        idempotent: {i}\n        safe: {s}\n        destructive: {d}\n"
)


def _build(project: Project, run, source: str, *extra_config: str, min_level: int = 0):  # type: ignore[no-untyped-def]
    project.write(
        "pyproject.toml",
        f'[tool.toolgen]\nsources = ["src"]\nmin_level = {min_level}\n' + "".join(extra_config),
    )
    project.write("src/tools.py", source)
    return run("build", "--verbose", cwd=project.root)  # the notes (info) too


LINT_CASES = [
    # code, source, expected "line:col", message fragment
    ("TG901", tool_source(name="lookUp"), "5:1", "tool name `lookUp` is not snake_case"),
    (
        "TG902",
        tool_source().replace(". Use it for", "; use it for"),
        "5:1",
        "description has 1 sentence; 2-5 tell a model enough",
    ),
    (
        "TG903",
        tool_source().replace("product", "product " * 80),
        "5:1",
        "characters (over 600)",
    ),
    (
        "TG904",
        tool_source().replace("Look something up", "This tool looks something up"),
        "5:1",
        "description starts with `This`",
    ),
    (
        "TG905",
        tool_source(params="query: str, page: int | None"),
        "5:24",
        "parameter `page` accepts null but has no default",
    ),
    (
        "TG906",
        tool_source(
            params="deep: A",
            imports="from typing_extensions import Annotated, TypedDict\n"
            "from pydantic import Field\n"
            'class C(TypedDict):\n    x: Annotated[int, Field(description="X.")]\n'
            'class B(TypedDict):\n    c: Annotated[C, Field(description="C.")]\n'
            'class A(TypedDict):\n    b: Annotated[B, Field(description="B.")]',
        ),
        "12:12",
        "parameter `deep` nests objects 3 levels deep",
    ),
    (
        "TG907",
        tool_source(params="value: int | str"),
        "5:12",
        "parameter `value` is a union of 2 types",
    ),
    (
        "TG908",
        tool_source(
            params="query: str, sort: str",
            args_doc="        query: Words.\n        sort: One of newest, oldest.",
        ),
        "5:24",
        "parameter `sort` looks like a choice among values",
    ),
    (
        "TG909",
        tool_source(extra_doc=IDEMPOTENCY.format(i="false", s="false", d="false")),
        "5:1",
        "takes no idempotency key",
    ),
    (
        "TG910",
        tool_source(
            extra_doc=IDEMPOTENCY.format(i="true", s="false", d="true"),
            decorator='@tool(risk="medium", confirmation=False, reason="a scratch table")',
        ),
        "5:1",
        "destructive tool runs without confirmation (a scratch table)",
    ),
    (
        "TG911",
        tool_source(extra_doc=IDEMPOTENCY.format(i="true", s="false", d="false")).replace(
            "Use it for product questions.", "Use it for products; it is read-only."
        ),
        "5:1",
        "description says the tool is read-only",
    ),
]


def test_every_lint_rule_has_a_case_and_a_docs_entry() -> None:
    from test_lint_shape import SHAPE_CASES  # it builds with this module's helpers

    # the wording and catalog rules have their cases in test_lint_wording.py
    cases = [*LINT_CASES, *SHAPE_CASES]
    assert sorted(code for code, *_ in cases) == sorted({**practice.RULES, **shape.RULES})
    for code, rule in RULES.items():
        assert rule.summary and rule.help, code


@pytest.mark.parametrize(("code", "source", "where", "message"), LINT_CASES, ids=lambda c: c)
def test_lint_rule_fires_with_its_location(
    project: Project, run, code: str, source: str, where: str, message: str
) -> None:
    result = _build(project, run, source)
    lines = [line for line in result.out.splitlines() if f" {code} " in line]
    assert lines, result.out
    assert lines[0].startswith(f"src/tools.py:{where}: {code} [{RULES[code].level.value}]")
    assert message in lines[0]
    others = {line.split()[1] for line in result.out.splitlines() if " [" in line}
    assert others == {code}, result.out  # the minimal case trips nothing else


def test_examples_are_lint_clean_and_reach_level_3(run) -> None:  # type: ignore[no-untyped-def]
    result = run("check", "--fail-on", "info", cwd=REPO)
    assert result.code == 0, result.out
    assert " TG" not in result.out
    for path in (REPO / "generated" / "descriptors").glob("*.json"):
        assert json.loads(path.read_text())["conformance_level"] == 3, path.name


FULL_DOC = (
    "\n    Returns:\n        The hit.\n"
    "\n    Errors:\n        NOT_FOUND: Nothing matches.\n"
    '\n    Examples:\n        >>> lookup(query="a")\n        "b"\n'
    "\n    Idempotency:\n        idempotent: true\n        safe: true\n        destructive: false\n"
)
LEVEL_2 = FULL_DOC.replace(
    "destructive: false\n", "destructive: false\n        open_world: false\n"
)
LEVEL_2 = LEVEL_2.replace(
    '"b"\n', '"b"\n\n        >>> lookup(query="x")\n        {"error": {"code": "NOT_FOUND"}}\n'
)
LEVEL_3_DECORATOR = '@tool(keywords=["a", "b", "c"], latency_p50_ms=5, version="1.0.0")'


@pytest.mark.parametrize(
    ("doc", "decorator", "level"),
    [("", "@tool", 0), (FULL_DOC, "@tool", 1), (LEVEL_2, "@tool", 2),
     (LEVEL_2, LEVEL_3_DECORATOR, 3)],
)  # fmt: skip
def test_conformance_level(project: Project, run, doc: str, decorator: str, level: int) -> None:
    result = _build(project, run, tool_source(extra_doc=doc, decorator=decorator))
    assert result.code == 0, result.out
    assert project.descriptor("lookup")["conformance_level"] == level


def test_min_level_makes_a_lower_level_an_error(project: Project, run) -> None:
    result = _build(project, run, tool_source(extra_doc=FULL_DOC), min_level=2)
    assert result.code == 1
    assert (
        "src/tools.py:5:1: TG920 [error] tool lookup reaches level 1, below min_level 2: "
        "add the open_world hint; two examples, one of them an error"
    ) in result.out


def test_critical_tool_cannot_be_autonomous(project: Project, run) -> None:
    source = tool_source(decorator='@tool(risk="critical", autonomous=True)')
    result = _build(project, run, source)
    assert result.code == 1
    assert "src/tools.py:4:24: TG404 [error] a critical tool cannot be autonomous" in result.out


def test_risk_defaults_can_be_made_stricter_only(project: Project, run) -> None:
    """`autonomous` and `confirmation` may only make a tool stricter than its risk level
    (reference/runtime.md): a medium tool may ask for confirmation; a high one is never
    autonomous by default and cannot be made to run silently (TG404)."""
    stricter = '@tool(risk="medium", confirmation=True, autonomous=False)'
    result = _build(project, run, tool_source(decorator=stricter))
    assert result.code == 0, result.out
    descriptor = project.descriptor("lookup")
    assert (descriptor["autonomous"], descriptor["confirmation"]) == (False, True)
    result = _build(project, run, tool_source(decorator='@tool(risk="high")'))
    descriptor = project.descriptor("lookup")
    assert (descriptor["risk"], descriptor["autonomous"], descriptor["confirmation"]) == (
        "high",
        False,
        True,
    )
    for looser, said in (
        ("confirmation=False", "a high tool needs confirmation: `confirmation=False` loosens"),
        ("autonomous=True", "a high tool cannot be autonomous"),
    ):
        result = _build(project, run, tool_source(decorator=f'@tool(risk="high", {looser})'))
        assert result.code == 1 and f"TG404 [error] {said}" in result.out, result.out


def test_step_up_auth_may_carry_a_condition(project: Project, run) -> None:
    """`step_up_auth` is True/False or the condition the run time's step_up callback receives;
    an empty text or another type is a located TG403 and the tool is not written."""
    condition = '@tool(risk="critical", step_up_auth="when more than 10 recipients")'
    assert _build(project, run, tool_source(decorator=condition)).code == 0
    assert project.descriptor("lookup")["step_up_auth"] == "when more than 10 recipients"
    assert _build(project, run, tool_source(decorator="@tool(step_up_auth=True)")).code == 0
    assert project.descriptor("lookup")["step_up_auth"] is True
    for value, said in (('""', "an empty text"), ('"  "', "an empty text"), ("1", "`int`")):
        source = tool_source(name="other", decorator=f"@tool(step_up_auth={value})")
        result = _build(project, run, source)
        assert result.code == 1, result.out
        assert (
            "src/tools.py:4:7: TG403 [error] `step_up_auth`: must be True, False or the "
            f'condition as text (e.g. "when more than 10 recipients"), not {said}'
        ) in result.out


def test_side_effects_in_decorator_and_docstring_must_agree(project: Project, run) -> None:
    source = tool_source(
        decorator='@tool(side_effects=["Sends an email."])',
        extra_doc="\n    Side Effects:\n        - Writes a log line.\n",
    )
    result = _build(project, run, source)
    assert "src/tools.py:4:7: TG405 [warning] `side_effects` differs" in result.out
    assert project.descriptor("lookup")["side_effects"] == ["Sends an email."]


def test_side_effects_and_permissions_from_the_docstring(project: Project, run) -> None:
    source = tool_source(
        extra_doc="\n    Side Effects:\n        - Writes a log line.\n"
        "\n    Permissions:\n        - catalog:read\n"
    )
    assert _build(project, run, source).code == 0
    descriptor = project.descriptor("lookup")
    assert descriptor["side_effects"] == ["Writes a log line."]
    assert descriptor["permissions"] == ["catalog:read"]


def test_ignore_comment_on_the_line(project: Project, run) -> None:
    source = tool_source(params="value: int | str").replace(
        "-> str:", "-> str:  # toolgen: ignore[TG907]"
    )
    result = _build(project, run, source)
    assert result.code == 0
    assert "TG907" not in result.out


def test_ignore_comment_on_the_decorator_covers_the_tool(project: Project, run) -> None:
    source = (
        tool_source(params="query: str, page: int | None")
        .replace(MARKED, MARKED_AS + "  # toolgen: ignore[TG905, TG301]\n")
        .replace("        page: The page.\n", "")
    )
    result = _build(project, run, source)
    assert result.code == 0, result.out  # TG301 is an error, suppressed for this tool
    assert "TG905" not in result.out and "TG301" not in result.out


def test_bare_ignore_and_other_codes_untouched(project: Project, run) -> None:
    source = tool_source(name="lookUp").replace(MARKED, MARKED_AS + "  # toolgen: ignore[TG999]\n")
    assert "TG901" in _build(project, run, source).out
    source = tool_source(name="lookUp").replace(MARKED, MARKED_AS + "  # toolgen: ignore\n")
    assert "TG901" not in _build(project, run, source).out


def test_configured_rule_levels(project: Project, run) -> None:
    source = tool_source(params="query: str, page: int").replace("        page: The page.\n", "")
    assert _build(project, run, source).code == 1  # TG301 is an error by default
    relaxed = _build(project, run, source, '[tool.toolgen.rules]\nTG301 = "warning"\n')
    assert relaxed.code == 0
    assert "TG301 [warning]" in relaxed.out
    off = _build(project, run, source, '[tool.toolgen.rules]\nTG301 = "off"\n')
    assert off.code == 0 and "TG301" not in off.out


def test_configured_rule_levels_are_checked(project: Project, run) -> None:
    result = _build(
        project, run, tool_source(), '[tool.toolgen.rules]\nTG777 = "off"\nTG301 = "loud"\n'
    )
    assert result.code == 2
    assert "rules: unknown rule 'TG777'" in result.out
    assert "rules: TG301: level must be one of error, warning, info, off" in result.out


def test_description_budget(project: Project, run) -> None:
    result = _build(project, run, tool_source(), "budget_description_chars = 20\n")
    assert result.code == 0
    assert "TG930 [warning] tool lookup: description has 63 characters, over the budget" in (
        result.out
    )


@pytest.mark.parametrize(
    ("config", "where"),
    [
        ('[tool.toolgen.rules]\nTG904 = "off"\nTG101 = "off"\n', "pyproject.toml:6:1"),
        ('rules = {TG904 = "off", TG102 = "off"}\n', "pyproject.toml:4:25"),
        ('rules.TG102 = "warning"\n', "pyproject.toml:4:7"),
        ('[tool.toolgen.rules]\n"TG403" = "error"\n', "pyproject.toml:5:1"),
    ],
)
def test_a_fixed_rule_cannot_be_configured(project: Project, run, config: str, where: str) -> None:  # type: ignore[no-untyped-def]
    """A syntax error or a duplicate name turned off would be accepted and do nothing, or
    silently drop a tool: the configuration is refused, at the line that sets it."""
    result = _build(project, run, tool_source(), config)
    assert result.code == 2, result.out
    code = next(c for c in ("TG101", "TG102", "TG403") if c in config)
    assert f"{where}: TG002 [error] [tool.toolgen] rules: {code} (" in result.out
    assert "cannot be configured: its level is fixed at error (see `toolgen rules`)" in result.out
    assert not project.out.exists()


def test_a_duplicate_tool_name_is_never_dropped_silently(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("src/other.py", tool_source())  # found first: src/tools.py has the duplicate
    result = _build(
        project, run, tool_source().replace(MARKED, MARKED_AS + "  # toolgen: ignore\n")
    )
    assert result.code == 1
    assert "src/tools.py:5:1: TG102 [error] tool name `lookup` is already used" in result.out


@pytest.mark.parametrize("kind", ["supported", "required"])
@pytest.mark.parametrize(
    ("params", "why"),
    [
        ("query: str", "has no `dry_run` parameter"),
        ("query: str, dry_run: str = 'no'", "its `dry_run` parameter takes no boolean"),
        ("query: str, dry_run: int = 0", "its `dry_run` parameter takes no boolean"),
    ],
)
def test_a_dry_run_needs_a_boolean_dry_run_parameter(
    project: Project, run, kind: str, params: str, why: str
) -> None:
    """Was: built cleanly; at run time the dry run (passed `dry_run: true`) failed the handler's
    arguments, so a "required" tool never ran and a "supported" one never dried."""
    source = tool_source(decorator=f'@tool(risk="high", dry_run="{kind}")', params=params)
    result = _build(project, run, source)
    assert result.code == 1, result.out
    assert (
        f'src/tools.py:4:20: TG912 [error] `dry_run="{kind}"`: `lookup` {why}; a dry run calls '
        "the handler with dry_run=True (and the real call with dry_run=False), so it needs a "
        "`dry_run: bool` parameter"
    ) in result.out
    assert not (project.root / "generated" / "descriptors" / "lookup.json").exists()


@pytest.mark.parametrize(
    "params",
    ["query: str, dry_run: bool = False", "query: str, dry_run: bool | None = None"],
)
def test_a_dry_run_with_its_parameter_builds(project: Project, run, params: str) -> None:
    source = tool_source(decorator='@tool(risk="high", dry_run="required")', params=params)
    result = _build(project, run, source)
    assert result.code == 0, result.out
    assert project.descriptor("lookup")["dry_run"] == "required"
