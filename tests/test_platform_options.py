"""The per-platform switches in [tool.toolgen], and the platform limits they watch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from conftest import Project, tool_source

#: The MCP specification's JSON Schema of each revision (vendored: tests/reference/README.md)
MCP_SCHEMAS = Path(__file__).resolve().parent / "reference" / "mcp-schema"

MODELS = """
from __future__ import annotations
from typing import Annotated
from pydantic import BaseModel, Field

class Page(BaseModel):
    \"\"\"A page.\"\"\"
    size: Annotated[int, Field(ge=1, le=50)] = 10
"""

NAMED_DICT = """
from pydantic import BaseModel


class Stamp(BaseModel):
    at: str
    extra: dict[str, str]
"""

NODE = """
from __future__ import annotations
from pydantic import BaseModel

class Node(BaseModel):
    children: list[Node] = []
"""


def _build(project: Project, run, options: str, source: str) -> str:  # type: ignore[no-untyped-def]
    project.write("pyproject.toml", f'[tool.toolgen]\nsources = ["src"]\nmin_level = 0\n{options}')
    project.write("src/tools.py", source)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    return str(result.out)


PAGED = tool_source(
    params="query: Annotated[str, Field(min_length=2)], page: Page | None = None",
    args_doc="        query: The query.\n        page: The page.",
    imports="from typing import Annotated\nfrom pydantic import Field\n" + MODELS,
)


def test_openai_strict_can_be_turned_off(project: Project, run) -> None:
    _build(project, run, "openai_strict = false\n", PAGED)
    (chat,) = project.generated("openai/chat_completions.json")
    assert chat["function"]["strict"] is False
    assert chat["function"]["parameters"] == project.descriptor("lookup")["parameters"]


def test_anthropic_strict_moves_unsupported_constraints_into_words(project: Project, run) -> None:
    _build(project, run, "anthropic_strict = true\n", PAGED)
    (tool,) = project.generated("anthropic/tools.json")
    assert tool["strict"] is True
    schema = tool["input_schema"]
    assert schema["properties"]["query"] == {
        "description": "The query. At least 2 characters.",
        "type": "string",
    }
    assert schema["$defs"]["Page"]["properties"]["size"] == {
        "type": "integer",
        "default": 10,
        "description": "Must be at least 1. Must be at most 50.",
    }
    assert schema["$defs"]["Page"]["additionalProperties"] is False


def test_anthropic_strict_words_count_one_and_many() -> None:
    from toolgen.render.anthropic import strict_subset

    schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 1, "maxLength": 8},
            "tags": {"type": "array", "minItems": 1, "maxItems": 1, "uniqueItems": False},
            "pair": {"type": "array", "minItems": 2, "maxItems": 3},
            "meta": {"type": "object", "minProperties": 1, "maxProperties": 2},
        },
    }
    words = {name: p.get("description") for name, p in strict_subset(schema)["properties"].items()}
    assert words == {
        "code": "At least 1 character. At most 8 characters.",
        "tags": "At most 1 item.",  # minItems 1 and uniqueItems false are in the subset
        "pair": "At least 2 items. At most 3 items.",
        "meta": "At least 1 entry. At most 2 entries.",
    }


@pytest.mark.parametrize(
    ("params", "imports", "obstacle"),
    [
        ("pair: tuple[int, str]", "", "a tuple (prefixItems)"),
        ("counts: dict[str, int]", "", "a free-form object (dict)"),
        ("meta: dict", "", "a free-form object (dict)"),
        ("when: list[Stamp]", NAMED_DICT, "a free-form object (dict)"),
    ],
)
def test_anthropic_strict_sends_what_it_cannot_hold_without_strict(
    project: Project, run, params: str, imports: str, obstacle: str
) -> None:
    """The subset closes every object and has no tuples: such a tool goes without strict
    (cut to the subset, a dict could only be sent empty), and does not count toward the
    per-request limits on strict tools."""
    source = tool_source(params=params, imports=imports)
    out = _build(project, run, "anthropic_strict = true\n", source)
    message = f"Anthropic: {obstacle} cannot be strict; the tool is sent without strict"
    assert f"TG603 [warning] tool lookup: {message}" in out
    (tool,) = project.generated("anthropic/tools.json")
    assert "strict" not in tool


def test_anthropic_strict_puts_formats_outside_the_subset_into_words(project: Project, run) -> None:
    source = tool_source(
        params="site: AnyUrl, host: IPvAnyAddress",
        imports="from pydantic import AnyUrl, IPvAnyAddress",
    )
    out = _build(project, run, "anthropic_strict = true\n", source)
    assert "TG603" not in out
    (tool,) = project.generated("anthropic/tools.json")
    assert tool["strict"] is True
    properties = tool["input_schema"]["properties"]
    assert properties["site"]["format"] == "uri"  # in the subset
    assert "format" not in properties["host"]
    assert properties["host"]["description"] == "The host. Format: ipvanyaddress."


def test_anthropic_strict_refuses_recursion(project: Project, run) -> None:
    source = tool_source(params="root: Node", imports=NODE)
    out = _build(project, run, "anthropic_strict = true\n", source)
    assert "TG603 [warning] tool lookup: Anthropic: a recursive schema cannot be strict" in out
    (tool,) = project.generated("anthropic/tools.json")
    assert "strict" not in tool


def test_anthropic_strict_request_limits(project: Project, run) -> None:
    for i in range(21):
        project.write(f"src/t{i}.py", tool_source(name=f"tool_{i}"))
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nmin_level = 0\nanthropic_strict = true\n',
    )
    result = run("build", cwd=project.root)
    assert "TG604 [warning] tool tool_0: Anthropic: 21 strict tools in one request (limit 20)" in (
        result.out
    )


def test_gemini_can_take_the_json_schema_as_it_is(project: Project, run) -> None:
    _build(project, run, 'gemini_schema = "json_schema"\n', PAGED)
    (declaration,) = project.generated("gemini/function_declarations.json")["function_declarations"]
    assert declaration["parameters_json_schema"] == project.descriptor("lookup")["parameters"]
    assert "parameters" not in declaration
    genai_types = pytest.importorskip("google.genai.types")
    genai_types.FunctionDeclaration.model_validate(declaration)


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
def test_mcp_revision(project: Project, run, revision: str) -> None:
    _build(project, run, f'mcp_revision = "{revision}"\n', PAGED)
    (tool,) = project.generated("mcp/tools.json")["tools"]
    if revision == "2025-06-18":  # no default dialect then: the schema says which it is
        assert tool["inputSchema"]["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    else:
        assert "$schema" not in tool["inputSchema"]
    spec = json.loads((MCP_SCHEMAS / f"{revision}.json").read_text())
    defs_key = "$defs" if "$defs" in spec else "definitions"
    validator = Draft202012Validator({"$ref": f"#/{defs_key}/Tool", defs_key: spec[defs_key]})
    assert list(validator.iter_errors(tool)) == []


def test_inline_defs_for_clients_without_refs(project: Project, run) -> None:
    _build(project, run, "inline_defs = true\n", PAGED)
    for relpath in ("anthropic/tools.json", "openai/chat_completions.json", "mcp/tools.json"):
        assert "$ref" not in (project.out / relpath).read_text(), relpath
    assert "$ref" in json.dumps(project.descriptor("lookup"))  # the descriptor keeps its refs


def test_inline_defs_reaches_return_schemas(project: Project, run) -> None:
    """MCP's outputSchema comes from the return type: inlined too."""
    source = tool_source(returns="list[Page]", imports=MODELS)
    out = _build(project, run, "inline_defs = true\n", source)
    assert "TG607" not in out
    (tool,) = project.generated("mcp/tools.json")["tools"]
    assert "$ref" not in json.dumps(tool)
    assert tool["outputSchema"]["properties"]["result"]["items"]["properties"]["size"]
    assert "$ref" in json.dumps(project.descriptor("lookup")["returns"])


TYPED_NODE = """
from __future__ import annotations
from typing_extensions import TypedDict

class Node(TypedDict):
    children: list[Node]
"""


@pytest.mark.parametrize("imports", [NODE, TYPED_NODE], ids=["model", "typeddict"])
def test_inline_defs_says_what_recursion_keeps(project: Project, run, imports: str) -> None:
    source = tool_source(params="root: Node", returns="Node", imports=imports)
    out = _build(project, run, "inline_defs = true\n", source)
    line = source.splitlines().index("def lookup(root: Node) -> Node:") + 1  # located at the def
    for where in ("parameters", "return"):
        message = f"inline_defs: recursive model Node in the {where} cannot be inlined"
        assert f"src/tools.py:{line}:1: TG607 [warning] tool lookup: {message}" in out
    (tool,) = project.generated("mcp/tools.json")["tools"]
    for schema in (tool["inputSchema"], tool["outputSchema"]):
        assert list(schema["$defs"]) == ["Node"]


def test_platform_options_are_checked(project: Project, run) -> None:
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nopenai_strict = "yes"\nmcp_revision = "2024-11-05"\n',
    )
    project.write("src/tools.py", tool_source())
    result = run("build", cwd=project.root)
    assert result.code == 2
    assert "openai_strict: must be true or false" in result.out
    assert "mcp_revision: must be one of 2025-11-25, 2025-06-18" in result.out


def test_openai_limits_are_warnings(project: Project, run) -> None:
    values = ", ".join(f'"v{i}"' for i in range(1001))
    source = tool_source(params=f"choice: Literal[{values}]", imports="from typing import Literal")
    out = _build(project, run, "", source)
    assert "TG605 [warning] tool lookup: OpenAI: 1001 enum values (limit 1000)" in out


UNSUPPORTED_IN_ANTHROPIC_STRICT = {
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "prefixItems",
}


def _keys(schema: object, in_properties: bool = False) -> set[str]:
    if isinstance(schema, dict):
        found = set() if in_properties else set(schema)
        for key, value in schema.items():
            found |= _keys(
                value, in_properties=key in ("properties", "$defs") and not in_properties
            )
        return found
    if isinstance(schema, list):
        return set().union(*(_keys(v) for v in schema)) if schema else set()
    return set()


def test_anthropic_strict_subset_holds_for_the_whole_zoo(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    shutil.copytree(Path(__file__).resolve().parent / "fixtures" / "zoo", tmp_path / "zoo")
    config = tmp_path / "toolgen.toml"
    config.write_text(
        '[tool.toolgen]\nsources = ["zoo"]\nout = "out"\nmin_level = 0\nanthropic_strict = true\n'
    )
    result = run("build", "--config", str(config), cwd=tmp_path)
    assert result.code == 0, result.out
    tools = json.loads((tmp_path / "out" / "anthropic" / "tools.json").read_text())
    strict = [t for t in tools if t.get("strict")]
    assert {t["name"] for t in tools} - {t["name"] for t in strict} == {
        "recursive",  # recursion
        "models_and_dicts",  # recursion
        "containers",  # a tuple and dicts
    }
    for tool in strict:
        assert not _keys(tool["input_schema"]) & UNSUPPORTED_IN_ANTHROPIC_STRICT, tool["name"]
        for node_min in _min_items(tool["input_schema"]):
            assert node_min in (0, 1), tool["name"]


def _min_items(schema: object) -> list[int]:
    if isinstance(schema, dict):
        own = [schema["minItems"]] if isinstance(schema.get("minItems"), int) else []
        return own + [m for v in schema.values() for m in _min_items(v)]
    if isinstance(schema, list):
        return [m for v in schema for m in _min_items(v)]
    return []
