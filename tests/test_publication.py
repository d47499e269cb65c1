"""What FastMCP and the MCP SDK publish: for their handlers, toolgen's `mcp/tools.json` is the
`tools/list` a client gets from the framework itself, byte for byte (key order included).

The fixtures (tests/fixtures/published/) are servers written the way each framework's users
write them, one tool per rule (docstring readings, titles, annotations, tags, `outputSchema`
wrapping by return type, property descriptions and titles); those of test_frameworks.py
(tests/fixtures/frameworks/) are compared with the installed framework too. Two sources of
truth:

- the installed framework, run here over stdio and listed with the official client (an
  `initialize` handshake, as a client does): `scripts/record_published.py` does both;
- files recorded the same way from other versions (tests/fixtures/published/recorded/,
  recorded on Python 3.11 with the same script), compared with toolgen configured for that
  version (`framework_versions`).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conftest import Project
from toolgen.config import load_config
from toolgen.diagnostics import UserError
from toolgen.frameworks import Framework, framework
from toolgen.pipeline import generate

REPO = Path(__file__).resolve().parent.parent
PUBLISHED = REPO / "tests" / "fixtures" / "published"
FRAMEWORKS = REPO / "tests" / "fixtures" / "frameworks"
RECORDED = PUBLISHED / "recorded"
sys.path.insert(0, str(REPO / "scripts"))

import record_published  # noqa: E402


def _built(
    preset: str, version: str | None = None, config: Path | None = None, installed: bool = False
) -> list[dict[str, Any]]:
    """toolgen's MCP entries for a fixture (by default the publication fixture of `preset`),
    by the framework `version`, or by the installed one."""
    loaded = load_config(config or PUBLISHED / f"{preset}.toml", cwd=REPO)
    if version is not None:
        loaded = replace(loaded, frameworks=(Framework(preset, version, "config"),))
    elif installed:  # whatever the file says (the framework fixtures pin their goldens')
        loaded = replace(loaded, frameworks=(framework(preset, {}),))
    result = generate(loaded)
    assert [d.format_text() for d in result.diagnostics if d.severity.value == "error"] == []
    tools: list[dict[str, Any]] = json.loads(result.files["mcp/tools.json"])["tools"]
    return tools


def _same(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> None:
    assert [t["name"] for t in ours] == [t["name"] for t in theirs]
    for mine, served in zip(ours, theirs, strict=True):
        assert mine == served, mine["name"]
        assert json.dumps(mine) == json.dumps(served), f"{mine['name']}: key order"


#: Fixture servers: (preset, config, module, server object). The framework fixtures of
#: test_frameworks.py count too: registration functions, wrappers, aliases, models.
SERVERS = {
    "published-fastmcp": ("fastmcp", PUBLISHED / "fastmcp.toml", "published.fastmcp_tools", "mcp"),
    "published-mcp": ("mcp", PUBLISHED / "mcp.toml", "published.sdk_tools", "server"),
    # a mounted server's tools, renamed by the top server (a FastMCP 4 title follows the name)
    "published-mounted": ("fastmcp", PUBLISHED / "mounted.toml", "published.mounted", "main"),
    # content blocks returned: no outputSchema; FastMCP's output_schema=None
    "content-fastmcp": (
        "fastmcp",
        PUBLISHED / "content-fastmcp.toml",
        "published.content_tools",
        "mcp",
    ),
    "content-mcp": ("mcp", PUBLISHED / "content-mcp.toml", "published.content_tools", "server"),
    "frameworks-fastmcp": (
        "fastmcp",
        FRAMEWORKS / "fastmcp.toml",
        "frameworks.fastmcp_server",
        "mcp",
    ),
    "frameworks-mcp": ("mcp", FRAMEWORKS / "mcp.toml", "frameworks.mcp_server", "server"),
}


@pytest.mark.parametrize("server", SERVERS)
def test_the_payload_is_what_the_installed_framework_serves(server: str) -> None:
    preset, config, module, attr = SERVERS[server]
    pytest.importorskip("fastmcp" if preset == "fastmcp" else "mcp.server.mcpserver")
    served = asyncio.run(record_published.listed(sys.executable, module, attr))
    assert len(served) >= 3
    _same(_built(preset, config=config, installed=True), served)


RECORDINGS = sorted(p.stem for p in RECORDED.glob("*.json"))


@pytest.mark.parametrize("recording", RECORDINGS)
def test_the_payload_is_what_a_recorded_version_serves(recording: str) -> None:
    preset, _, version = recording.partition("-")
    if preset == "mcp" and sys.version_info >= (3, 13):
        pytest.skip(
            "recorded on Python 3.11, whose __doc__ (the SDK's description) keeps the indentation"
        )
    recorded = json.loads((RECORDED / f"{recording}.json").read_text(encoding="utf-8"))
    _same(_built(preset, version), recorded)


def test_recordings_cover_each_rule_that_changes_between_versions() -> None:
    assert RECORDINGS == [
        "fastmcp-3.4.11",
        "fastmcp-4.1.3",
        "fastmcp-4.2.3",
        "mcp-1.30.0",
        "mcp-2.3.0",
    ]


def _by_name(preset: str, version: str) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in _built(preset, version)}


def test_fastmcp_rules_by_version() -> None:
    v3, v41, v42 = (_by_name("fastmcp", v) for v in ("3.4.11", "4.1.3", "4.2.3"))
    # a docstring with sections but no parameters: kept whole before 4.1, cut from 4.1 on
    assert v3["stock_report"]["description"].endswith("Returns:\n    Every item with its count.")
    assert v41["stock_report"]["description"] == "Report the whole stock."
    # a `Rules:` paragraph (an admonition to griffe) ends the description in 4.1 only
    assert v41["house_rules"]["description"] == "Check an amount against the house rules."
    assert v42["house_rules"]["description"].endswith("Rules:\n    Never more than ten.")
    assert v42["halve"]["description"] == "Halve an amount."  # `Note:` is a section in 4.2
    # titles: the decorator's or the annotations'; from 4.0 on one made from the name
    assert "title" not in v3["shelve"]
    assert v42["shelve"]["title"] == "Shelve" and v42["ring-chime"]["title"] == "Ring the chime"
    assert v3["move_crate"]["title"] == v42["move_crate"]["title"] == "Move a crate"
    # an untyped list: wrapped before 4.1, no outputSchema from 4.1 on
    assert v3["raw_items"]["outputSchema"]["properties"]["result"] == {"items": {}, "type": "array"}
    assert "outputSchema" not in v41["raw_items"]
    # Field(title=...) is kept from 4.1 on; a bare string in Annotated is a description
    assert "title" not in v3["label_items"]["inputSchema"]["properties"]["note"]
    note = v42["label_items"]["inputSchema"]["properties"]["note"]
    assert note["title"] == "Note for the label"
    size = v42["label_items"]["inputSchema"]["properties"]["size"]
    assert size["description"] == "A bare string, which FastMCP makes a description."
    # mcp 2's wire models put properties, required and type first (FastMCP 4 is on mcp 2)
    assert list(v3["shelve"]["inputSchema"]) == [
        "additionalProperties",
        "properties",
        "required",
        "type",
    ]
    assert list(v42["shelve"]["inputSchema"]) == [
        "properties",
        "required",
        "type",
        "additionalProperties",
    ]
    # the same in every version: griffe's texts with their line breaks, sorted tags
    params = v42["find_items"]["inputSchema"]["properties"]
    assert params["query"]["description"] == "Words to look for,\nas typed."
    assert params["aisles"]["description"] == "Only these\naisles.\n\nAny of them."
    assert v42["ring-chime"]["_meta"] == {"fastmcp": {"tags": ["alerts", "sound"]}}
    assert v42["per_aisle"]["outputSchema"] == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
    }
    assert v42["first_or_count"]["outputSchema"]["x-fastmcp-wrap-result"] is True


def test_mcp_sdk_rules() -> None:
    sdk = _by_name("mcp", "2.3.0")
    # the raw docstring, indentation and all; no property descriptions but Field's
    assert sdk["find_items"]["description"].startswith(
        "Find items on the shelves that match a query,\n    in every aisle.\n\n    Args:"
    )
    assert "description" not in sdk["find_items"]["inputSchema"]["properties"]["query"]
    assert sdk["find_items"]["inputSchema"]["title"] == "find_itemsArguments"
    # outputSchema by the return annotation's form
    assert sdk["stock_by_item"]["outputSchema"] == {
        "type": "object",
        "additionalProperties": True,
        "title": "stock_by_itemDictOutput",
    }
    assert sdk["stock_by_name"]["outputSchema"]["properties"] == {
        "result": {"additionalProperties": True, "title": "Result", "type": "object"}
    }
    for bare in ("stock_report", "raw_items", "anything", "inspect_item"):
        assert "outputSchema" not in sdk[bare], bare
    assert sdk["lease"]["outputSchema"]["title"] == "Span"
    # the title is the decorator's only; the annotations keep theirs
    assert sdk["ring-chime"]["title"] == "Ring the chime"
    assert sdk["ring-chime"]["annotations"] == {
        "title": "Chime",
        "readOnlyHint": True,
        "openWorldHint": False,
    }
    assert "title" not in sdk["move_crate"]
    # before 1.10: no titles and no outputSchema
    old = _by_name("mcp", "1.9")
    assert "title" not in old["ring-chime"] and "outputSchema" not in old["lease"]


def test_the_installed_version_is_read_from_its_metadata(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for folder, name, version in [
        (first, "fastmcp_slim", "3.4.11"),
        (first, "fastmcp", "3.4.11"),
        (second, "fastmcp_slim", "4.2.3"),
        (second, "mcp", "1.30.0"),
    ]:
        info = folder / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n\n"
        )
    found = framework("fastmcp", {}, [str(first), str(second)])
    assert (found.version, found.origin) == (
        "3.4.11",
        str(first / "fastmcp_slim-3.4.11.dist-info" / "METADATA"),
    )
    assert framework("mcp", {}, [str(first), str(second)]).version == "1.30.0"
    assert framework("fastmcp", {"fastmcp": "4"}, [str(first)]).origin == "config"
    default = framework("mcp", {}, [str(tmp_path / "nothing")])
    assert (default.version, default.origin, default.since(2, 3)) == ("2", "default", True)


HANDLER = '''
from fastmcp import FastMCP

mcp = FastMCP("shop")


@mcp.tool
def shelve(item: str) -> str:
    """Put an item on the shelf.

    Args:
        item: What to shelve,
            by name.
    """
    return item
'''


def _config(project: Project, table: str) -> Any:
    project.write("src/shop.py", HANDLER)
    project.write(
        "pyproject.toml",
        f'[tool.toolgen]\nsources = ["src"]\nmarkers = ["fastmcp"]\nmin_level = 0\n{table}',
    )
    return load_config(project.root / "pyproject.toml", cwd=project.root)


def test_framework_versions_are_checked(project: Project) -> None:
    config = _config(project, 'framework_versions = {fastmcp = "3.4"}\n')
    assert config.frameworks == (Framework("fastmcp", "3.4", "config"),)
    assert config.publisher("fastmcp") == Framework("fastmcp", "3.4", "config")
    assert config.publisher("toolgen") is None
    for table, message in [
        ('framework_versions = {flask = "3"}\n', "unknown framework 'flask'"),
        (
            'framework_versions = {fastmcp = "v3"}\n',
            'fastmcp: the version must be a string like "4"',
        ),
        ("framework_versions = {fastmcp = 3}\n", "not 3"),
        ('framework_versions = "3"\n', "must be a table of framework = version"),
        ('mcp_enriched = "yes"\n', "mcp_enriched: must be true or false"),
    ]:
        with pytest.raises(UserError) as error:
            _config(project, table)
        [problem] = error.value.diagnostics
        assert problem.code == "TG002" and message in problem.message, table
        assert problem.location is not None and problem.location.line == 5


def test_mcp_enriched_gives_toolgens_own_entries(project: Project, run) -> None:
    _config(project, "mcp_enriched = true\n")
    assert run("build", cwd=project.root).code == 0
    [tool] = project.generated("mcp/tools.json")["tools"]
    assert tool["inputSchema"]["properties"]["item"]["description"] == "What to shelve, by name."
    assert "framework" not in project.descriptor("shelve")
    _config(project, 'framework_versions = {fastmcp = "4.2"}\n')
    assert run("build", cwd=project.root).code == 0
    [tool] = project.generated("mcp/tools.json")["tools"]
    assert tool["inputSchema"]["properties"]["item"]["description"] == "What to shelve,\nby name."
    assert project.descriptor("shelve")["framework"]["version"] == "4.2"
    # the other platforms keep toolgen's canonical descriptions
    [openai] = project.generated("openai/responses.json")
    assert openai["parameters"]["properties"]["item"]["description"] == "What to shelve, by name."


def test_an_upgraded_framework_is_not_answered_from_the_stamp(project: Project) -> None:
    """The installed version's METADATA is an input of the build: a new version (the old
    dist-info gone, a new one there) is a change, for the stamp and the cache alike."""
    site = project.root.parent / "site"
    info = site / "fastmcp_slim-3.4.11.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.4\nName: fastmcp-slim\nVersion: 3.4.11\n\n")
    _config(project, "")

    def toolgen(*argv: str) -> subprocess.CompletedProcess[str]:
        path = os.pathsep.join([str(site), *sys.path])
        return subprocess.run(
            [sys.executable, "-m", "toolgen", *argv],
            cwd=project.root,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": path},
            timeout=120,
            check=False,
        )

    assert toolgen("build").returncode == 0
    assert "title" not in project.generated("mcp/tools.json")["tools"][0]  # fastmcp 3
    assert toolgen("check").returncode == 0
    info.rename(site / "fastmcp_slim-4.2.3.dist-info")
    (site / "fastmcp_slim-4.2.3.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.4\nName: fastmcp-slim\nVersion: 4.2.3\n\n"
    )
    check = toolgen("check")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "mcp/tools.json" in check.stdout
    assert toolgen("build").returncode == 0
    assert project.generated("mcp/tools.json")["tools"][0]["title"] == "Shelve"  # fastmcp 4
