"""Tool names: each platform's own rule decides whether the tool reaches that platform's payload
(TG608 when it does not); only a name no configured platform takes, or one that cannot name a
descriptor file, stops the tool (TG103)."""

from __future__ import annotations

import pytest

from conftest import Project, tool_source
from toolgen.names import accepts, name_problem, rejecting

PLATFORMS = ("openai", "anthropic", "gemini", "mcp")
LONG = "x" * 100  # over 64: MCP's limit is 128


@pytest.mark.parametrize(
    ("name", "refused_by"),
    [
        ("sp-purchase-analyzer", []),  # kebab case: every platform takes it
        ("search_web", []),
        ("billing.report", ["openai", "anthropic"]),  # dots: Gemini and MCP only
        ("9lives", ["gemini"]),  # Gemini's names start with a letter or an underscore
        ("ns:tool", ["openai", "anthropic", "mcp"]),  # a colon: Gemini only
        (LONG, ["openai", "anthropic", "gemini"]),
        ("x" * 129, PLATFORMS),
        ("look up", PLATFORMS),
        ("", PLATFORMS),
    ],
)
def test_each_platform_has_its_own_rule(name: str, refused_by: list[str]) -> None:
    assert rejecting(name, PLATFORMS) == list(refused_by)
    assert all(accepts(p, name) for p in PLATFORMS if p not in refused_by)


def test_names_that_cannot_be_tools() -> None:
    assert name_problem("sp-purchase-analyzer", PLATFORMS) is None
    assert name_problem("billing.report", ("gemini", "mcp")) is None
    # accepted by Gemini, but a colon cannot be in a file name on Windows: no descriptor
    assert "names the descriptor's file" in (name_problem("ns:tool", PLATFORMS) or "")
    # a leading dot or dash would hide the descriptor's file or read as an option
    assert name_problem(".hidden", PLATFORMS) is not None
    assert name_problem("-rf", PLATFORMS) is not None
    problem = name_problem("billing.report", ("openai", "anthropic")) or ""
    assert "accepted by none of the configured platforms" in problem
    assert "openai: ^[A-Za-z0-9_-]{1,64}$" in problem


def test_a_name_one_platform_refuses_leaves_only_that_payload(project: Project, run) -> None:
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nplatforms = ["openai", "anthropic", "gemini", '
        '"mcp"]\nmin_level = 0\n',
    )
    for module, name in [
        ("kebab", "sp-purchase-analyzer"),
        ("dotted", "billing.report"),
        ("digit", "9lives"),
        ("long", LONG),
    ]:
        project.write(f"src/{module}.py", tool_source(decorator=f'@tool(name="{name}")'))
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out

    def names(relpath: str, key: str | None = None) -> set[str]:
        entries = project.generated(relpath)
        entries = entries[key] if key else entries
        return {e.get("name") or e["function"]["name"] for e in entries}

    everything = {"sp-purchase-analyzer", "billing.report", "9lives", LONG}
    assert names("mcp/tools.json", "tools") == everything
    assert names("gemini/function_declarations.json", "function_declarations") == (
        everything - {"9lives", LONG}
    )
    for relpath in (
        "anthropic/tools.json",
        "openai/responses.json",
        "openai/chat_completions.json",
    ):
        assert names(relpath) == {"sp-purchase-analyzer", "9lives"}
    for name in everything:  # every tool keeps its descriptor
        assert project.descriptor(name)["name"] == name
    warned = sorted(line for line in result.out.splitlines() if "TG608" in line)
    assert warned == [
        "src/digit.py:5:1: TG608 [warning] tool 9lives: gemini does not accept the name "
        "(^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$): the tool is left out of the gemini payload",
        "src/dotted.py:5:1: TG608 [warning] tool billing.report: anthropic does not accept "
        "the name (^[A-Za-z0-9_-]{1,64}$): the tool is left out of the anthropic payload",
        "src/dotted.py:5:1: TG608 [warning] tool billing.report: openai does not accept the "
        "name (^[A-Za-z0-9_-]{1,64}$): the tool is left out of the openai payload",
        *[
            f"src/long.py:5:1: TG608 [warning] tool {LONG}: {platform} does not accept the "
            f"name (^{rule}$): the tool is left out of the {platform} payload"
            for platform, rule in [
                ("anthropic", "[A-Za-z0-9_-]{1,64}"),
                ("gemini", "[A-Za-z_][A-Za-z0-9_.:-]{0,63}"),
                ("openai", "[A-Za-z0-9_-]{1,64}"),
            ]
        ],
    ]


def test_a_name_no_configured_platform_accepts_stops_the_tool(project: Project, run) -> None:
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nplatforms = ["openai", "anthropic"]\nmin_level = 0\n',
    )
    project.write("src/dotted.py", tool_source(decorator='@tool(name="billing.report")'))
    result = run("build", cwd=project.root)
    assert result.code == 1
    assert (
        "src/dotted.py:4:7: TG103 [error] tool name 'billing.report' is accepted by none of "
        "the configured platforms (openai: ^[A-Za-z0-9_-]{1,64}$; anthropic: "
        "^[A-Za-z0-9_-]{1,64}$)"
    ) in result.out
