"""LangChain tools written as classes: a `BaseTool` subclass is a tool, read statically through
the project's classes and the installed packages' ones (`toolgen.read.tool_classes`)."""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Project

from toolgen.analyze.langchain_docs import parsed_description, whole_description

CONFIG = """
[tool.toolgen]
sources = ["src"]
out = "generated"
markers = ["langchain"]
min_level = 0
{extra}
"""


def _project(tmp_path: Path, extra: str = "") -> Project:
    project = Project(tmp_path / "proj")
    project.write("pyproject.toml", CONFIG.format(extra=extra))
    return project


def test_a_class_of_an_installed_package_gives_what_its_subclasses_inherit(tmp_path, run) -> None:
    """A package's base for a family of tools (its description and input model, through a
    mixin), read from the library folder, never imported."""
    project = _project(tmp_path, 'library_paths = ["../lib"]')
    lib = Project(tmp_path / "lib")
    lib.write(
        "shoptools/base.py",
        """
        from langchain_core.tools import BaseTool
        from pydantic import BaseModel, Field


        class OrderInput(BaseModel):
            order_id: str = Field(description="The order's number.")


        class Traced:
            description: str = "Look up an order."


        class ShopTool(Traced, BaseTool):
            args_schema: type[BaseModel] = OrderInput
        """,
    )
    project.write(
        "src/tools.py",
        """
        from shoptools.base import ShopTool


        class Lookup(ShopTool):
            name: str = "lookup"

            def _run(self, order_id: str) -> str:
                return order_id
        """,
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out + result.err
    lookup = project.descriptor("lookup")
    assert lookup["description"] == "Look up an order."
    assert lookup["parameters"]["properties"] == {
        "order_id": {"description": "The order's number.", "type": "string"}
    }
    assert lookup["source"] == {"module": "tools", "qualname": "Lookup._run", "marker": "langchain"}


def test_abstract_classes_are_no_tools_and_unnamed_ones_are_told(tmp_path, run) -> None:
    project = _project(tmp_path)
    project.write(
        "src/tools.py",
        """
        from langchain_core.tools import BaseTool


        class Base(BaseTool):
            description: str = "Shared by the family."


        class Unnamed(Base):
            def _run(self, text: str) -> str:
                return text


        class NotATool:
            name: str = "not_a_tool"
            description: str = "Has the shape, not the base."

            def _run(self, text: str) -> str:
                return text


        class Named(Base):
            name: str = "named"

            def _run(self, text: str) -> str:
                return text
        """,
    )
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out + result.err
    names = sorted(p.stem for p in (project.out / "descriptors").glob("*.json"))
    assert names == ["named"]
    told = result.out + result.err
    assert "src/tools.py:8:1: TG106 [info] `Unnamed` is a tool class but gives no `name`" in told, (
        told
    )


def test_the_classes_are_read_only_for_the_langchain_preset(tmp_path, run) -> None:
    project = _project(tmp_path)
    project.write("pyproject.toml", CONFIG.format(extra="").replace('"langchain"', '"fastmcp"'))
    project.write(
        "src/tools.py",
        """
        from fastmcp import FastMCP
        from langchain_core.tools import BaseTool

        mcp = FastMCP("s")


        @mcp.tool
        def ping() -> str:
            "Answer."
            return "pong"


        class Named(BaseTool):
            name: str = "named"
            description: str = "A LangChain tool."

            def _run(self, text: str) -> str:
                return text
        """,
    )
    assert run("build", cwd=project.root).code == 0
    assert sorted(p.stem for p in (project.out / "descriptors").glob("*.json")) == ["ping"]


DOCSTRINGS = [
    '''"""Multiply two integers.

    Args:
        a: First factor.
    """''',
    '''"""
    Search the web.

    Returns:
        Pages.
    """''',
    '''"""One line."""''',
    '''"""Summary.

        Indented more.
    Back.

    Args:
        q: The query.
    """''',
]


@pytest.mark.parametrize("docstring", DOCSTRINGS)
def test_descriptions_follow_what_this_python_makes_of_the_docstring(docstring: str) -> None:
    """The oracle is Python itself (the function's `__doc__` as this interpreter compiles
    it) and LangChain's own docstring parser, from the docstring as the source holds it."""
    from langchain_core.utils.function_calling import _parse_google_docstring

    source = "def f():\n" + textwrap.indent(docstring, "    ") + "\n"
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    raw = ast.get_docstring(function, clean=False)
    assert raw is not None
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    compiled = namespace["f"]
    python = (sys.version_info[0], sys.version_info[1])
    assert whole_description(raw, python) == textwrap.dedent(compiled.__doc__).strip()
    parsed = _parse_google_docstring(inspect.getdoc(compiled), [])[0]
    assert parsed_description(raw) == parsed


def test_a_class_named_where_it_is_constructed_is_the_tool_each_construction_makes(
    tmp_path, run
) -> None:
    project = _project(tmp_path)
    project.write(
        "src/tools.py",
        """
        from langchain_core.tools import BaseTool

        PREFIX = "docs"


        class Search(BaseTool):
            description: str = "Search the pages."

            def _run(self, query: str) -> list[str]:
                return []


        class Fetch(BaseTool):
            name: str = "fetch"
            description: str = "Fetch a page."

            def _run(self, url: str) -> str:
                return url


        def tools(kind: str) -> list[BaseTool]:
            return [
                Search(name=f"{PREFIX}_search"),
                Search(name="wiki_search", description="Search the wiki."),
                Fetch(description="Fetch a page of " + kind + "."),
            ]


        TOOLS = tools("the docs")
        """,
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out + result.err
    described = {
        p.stem: project.descriptor(p.stem)["description"]
        for p in (project.out / "descriptors").glob("*.json")
    }
    assert described == {
        "docs_search": "Search the pages.",
        "wiki_search": "Search the wiki.",
        "fetch": "Fetch a page of the docs.",
    }


def test_a_construction_from_data_toolgen_cannot_know_is_a_note(tmp_path, run) -> None:
    project = _project(tmp_path)
    project.write(
        "src/tools.py",
        """
        from capabilities import listed  # a package that is not installed: unknown
        from langchain_core.tools import BaseTool


        class Capability(BaseTool):
            description: str = "Run a capability."

            def _run(self, text: str) -> str:
                return text


        class Ping(BaseTool):
            name: str = "ping"
            description: str = "Answer."

            def _run(self) -> str:
                return "pong"


        def tools() -> list[BaseTool]:
            made: list[BaseTool] = []
            for cap in listed():
                made.append(Capability(name=cap["slug"]))
            return made


        TOOLS = tools()
        """,
    )
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out + result.err
    told = result.out + result.err
    assert "TG106" in told and "constructs a tool whose `name` toolgen cannot know" in told, told
    assert [p.stem for p in (project.out / "descriptors").glob("*.json")] == ["ping"]


def test_a_toolkit_method_nothing_calls_is_read_for_the_tools_it_constructs(tmp_path, run) -> None:
    """A toolkit's `get_tools()` runs only when an application calls it: toolgen evaluates
    it as it evaluates registration functions nothing reaches, since it constructs tools."""
    project = _project(tmp_path)
    project.write(
        "src/kit.py",
        """
        from langchain_core.tools import BaseTool


        class Search(BaseTool):
            description: str = "Search an index."

            def _run(self, query: str) -> list[str]:
                return []


        class Toolkit:
            def __init__(self, index: str) -> None:
                self.index = index

            def get_tools(self) -> list[BaseTool]:
                return [
                    Search(name="search_docs", description="Search the docs."),
                    Search(name="search_code", description="Search the code."),
                ]
        """,
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out + result.err
    names = sorted(p.stem for p in (project.out / "descriptors").glob("*.json"))
    assert names == ["search_code", "search_docs"]


def test_a_named_class_stays_a_tool_beside_constructions_toolgen_cannot_name(tmp_path, run) -> None:
    """The class names itself, so LangChain builds it with no arguments as that tool; a
    construction under a name toolgen cannot know is told, and takes nothing away."""
    project = _project(tmp_path)
    project.write(
        "src/tools.py",
        """
        from endpoints import listed  # not installed: what it gives is unknown
        from langchain_core.tools import BaseTool


        class PostRequest(BaseTool):
            name: str = "post_request"
            description: str = "Send a POST request."

            def _run(self, body: str) -> str:
                return body


        class Echo(BaseTool):
            name: str = "echo"
            description: str = "Say it back."

            def _run(self, text: str) -> str:
                return text


        def tools() -> list[BaseTool]:
            made: list[BaseTool] = [Echo(description="Repeat what it is given.")]
            for endpoint in listed():
                made.append(PostRequest(name=endpoint["operationId"]))
            return made


        TOOLS = tools()
        """,
    )
    result = run("build", "--verbose", cwd=project.root)
    assert result.code == 0, result.out + result.err
    described = {
        p.stem: project.descriptor(p.stem)["description"]
        for p in (project.out / "descriptors").glob("*.json")
    }
    # the class's own tool, and Echo as the project makes it
    assert described == {"post_request": "Send a POST request.", "echo": "Repeat what it is given."}
    assert "constructs a tool whose `name` toolgen cannot know" in result.out + result.err


def test_a_field_description_toolgen_cannot_read_is_left_out_not_the_tool(tmp_path, run) -> None:
    """`Field(description=TEXTS["url"])` from a package toolgen does not read: the schema is
    right without the description, so the tool is published without it, with a warning."""
    project = _project(tmp_path)
    project.write(
        "src/tools.py",
        """
        from langchain_core.tools import BaseTool
        from pydantic import BaseModel, Field
        from textpack import TEXTS  # not installed


        class UrlInput(BaseModel):
            url: str = Field(description=TEXTS["url"])
            depth: int = Field(default=1, description="How deep.")


        class Extract(BaseTool):
            name: str = "extract_url"
            description: str = "Extract a page."
            args_schema: type[BaseModel] = UrlInput

            def _run(self, url: str, depth: int = 1) -> str:
                return url
        """,
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out + result.err
    assert "src/tools.py:7:34: TG205 [warning]" in result.out + result.err
    assert "published without Field(description=...)" in result.out + result.err
    assert project.descriptor("extract_url")["parameters"]["properties"] == {
        "url": {"type": "string"},
        "depth": {"description": "How deep.", "type": "integer", "default": 1},
    }
