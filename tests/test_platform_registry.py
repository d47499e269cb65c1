"""A new platform is one renderer module and one registry entry (`toolgen.render.registry`).

The platform here is defined in this test module (its `render` below) and registered for the
test's length; a project that lists it in `platforms` gets its files written, listed in the
manifest and checked for drift, and removed once the platform is dropped from the config; its
own option is a `[tool.toolgen]` key, checked and passed to its renderer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conftest import CONFIG, Project, Run, tool_source
from toolgen import render as render_package
from toolgen.config import defaults
from toolgen.render.registry import PLATFORMS, Option, Payload, Platform, registered

TESTPLAT = Platform(
    "testplat",
    __name__,  # this module is the renderer: its `render` below
    r"[a-z_]{1,32}",
    (Payload("tools.json", "testplat"),),
    (Option("testplat_case", "as-is", ("as-is", "upper")),),
)


def render(tools: list[Any], report: Any, options: Any) -> dict[str, Any]:
    """The test platform's payload: each visible tool's name and first line (in capitals with
    `testplat_case = "upper"`)."""
    upper = options.value("testplat_case") == "upper"
    entries = [
        {
            "tool": t.name,
            "about": (lambda s: s.upper() if upper else s)(t.description.splitlines()[0]),
        }
        for t in tools
    ]
    return {"testplat/tools.json": entries}


@pytest.fixture
def testplat() -> Iterator[Platform]:
    with registered(TESTPLAT) as platform:
        yield platform


def _with_platforms(project: Project, platforms: list[str]) -> None:
    project.write("pyproject.toml", CONFIG + f"platforms = {json.dumps(platforms)}\n")


def test_a_registered_platform_is_built_listed_checked_and_removed(
    project: Project, run: Callable[..., Run], testplat: Platform
) -> None:
    project.write("src/tools.py", tool_source("lookup"))
    _with_platforms(project, ["openai", "testplat"])
    assert run("build", cwd=project.root).code == 0

    payload = project.generated("testplat/tools.json")
    assert payload == [
        {
            "tool": "lookup",
            "about": "Look something up in the catalog. Use it for product questions.",
        }
    ]
    manifest = project.generated("manifest.json")["files"]
    assert "testplat/tools.json" in manifest
    assert "openai/chat_completions.json" in manifest
    assert "anthropic/tools.json" not in manifest  # not configured
    assert run("check", cwd=project.root).code == 0

    (project.out / "testplat" / "tools.json").write_text("[]\n")  # drift in its file
    checked = run("check", cwd=project.root)
    assert checked.code == 1
    assert "testplat/tools.json" in checked.out
    assert run("build", cwd=project.root).code == 0  # rewritten: toolgen's own bytes again
    assert run("check", cwd=project.root).code == 0

    _with_platforms(project, ["openai"])  # dropped: its unchanged files go
    assert run("build", cwd=project.root).code == 0
    assert not (project.out / "testplat" / "tools.json").exists()
    assert "testplat/tools.json" not in project.generated("manifest.json")["files"]
    assert (project.out / "openai" / "chat_completions.json").is_file()


def test_a_registered_platform_is_known_to_config_and_output_only_while_registered(
    project: Project, run: Callable[..., Run]
) -> None:
    project.write("src/tools.py", tool_source("lookup"))
    _with_platforms(project, ["testplat"])
    with registered(TESTPLAT):
        assert defaults()["platforms"][-1] == "testplat"
        assert "testplat" in render_package.FOLDERS
        assert run("build", cwd=project.root).code == 0
    assert "testplat" not in PLATFORMS
    assert "testplat" not in render_package.FOLDERS
    refused = run("check", cwd=project.root)
    assert refused.code == 2
    assert "[tool.toolgen] platforms: unknown value 'testplat'" in refused.out


def test_a_platform_refuses_names_by_its_own_rule(
    project: Project, run: Callable[..., Run], testplat: Platform
) -> None:
    """The registry's name rule: a name the platform refuses leaves the tool out of its
    payload only (TG608), named with the rule."""
    project.write("src/tools.py", tool_source("Look_Up"))
    _with_platforms(project, ["openai", "testplat"])
    built = run("build", "--format", "json", cwd=project.root)
    assert built.code == 0
    assert project.generated("testplat/tools.json") == []
    assert project.generated("openai/chat_completions.json")[0]["function"]["name"] == "Look_Up"
    messages = [d["message"] for d in built.json()["diagnostics"] if d["code"] == "TG608"]
    assert messages == [
        "tool Look_Up: testplat does not accept the name (^[a-z_]{1,32}$): the tool is left "
        "out of the testplat payload"
    ]


def test_a_platform_option_is_a_key_checked_and_passed_to_its_renderer(
    project: Project, run: Callable[..., Run], testplat: Platform
) -> None:
    project.write("src/tools.py", tool_source("lookup"))
    config = CONFIG + 'platforms = ["testplat"]\n'
    project.write("pyproject.toml", config + 'testplat_case = "upper"\n')
    assert run("build", cwd=project.root).code == 0
    [entry] = project.generated("testplat/tools.json")
    assert entry["about"] == "LOOK SOMETHING UP IN THE CATALOG. USE IT FOR PRODUCT QUESTIONS."
    project.write("pyproject.toml", config + 'testplat_case = "lower"\n')
    refused = run("build", cwd=project.root)
    assert refused.code == 2
    assert refused.out == (
        "pyproject.toml:6:1: TG002 [error] [tool.toolgen] testplat_case: must be one of as-is, "
        "upper\n"
    )
