"""Hostile LangChain (and neighbouring frameworks') projects: what one tool gets wrong costs that
tool, located, never the build, and the build ends in bounded time and memory."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.conftest import Project

CONFIG = """
[tool.toolgen]
sources = ["src"]
out = "generated"
markers = ["{marker}"]
min_level = 0
{extra}
"""


def _project(tmp_path: Path, marker: str = "langchain", extra: str = "") -> Project:
    project = Project(tmp_path / "proj")
    project.write("pyproject.toml", CONFIG.format(marker=marker, extra=extra))
    return project


def _write_with_ping(project: Project, source: str) -> None:
    """`src/tools.py`: `source` and a tool that is fine (`ping`), which must still be written."""
    project.write("src/tools.py", textwrap.dedent(source) + PING)


def _descriptors(project: Project) -> list[str]:
    return sorted(p.stem for p in (project.out / "descriptors").glob("*.json"))


PING = '''

@tool
def ping() -> str:
    """Answer."""
    return "pong"
'''


def test_models_that_all_refer_to_each_other_cost_their_tool_not_the_build(tmp_path, run) -> None:
    """Ten models each with a field of every other: counted once per model (TG108's check)
    the schema is small, but LangChain's dereference inlines every path through them, 10!
    of them: its payload is refused as too large to expand, not built until memory runs out."""
    names = [f"M{i}" for i in range(10)]
    models = "\n\n".join(
        f"class {name}(BaseModel):\n"
        + "".join(f"    f_{other}: Optional[{other!r}] = None\n" for other in names)
        for name in names
    )
    project = _project(tmp_path)
    project.write(
        "src/tools.py",
        "from typing import Optional\n\nfrom langchain_core.tools import tool\n"
        "from pydantic import BaseModel\n\n\n"
        f"{models}\n\n"
        '@tool\ndef deep(m: M0) -> str:\n    """Deep."""\n    return ""\n' + PING,
    )
    result = run("build", cwd=project.root)
    told = result.out + result.err
    assert "Traceback" not in told
    assert result.code == 1, told
    lines = project.root.joinpath("src/tools.py").read_text().splitlines()
    line = 1 + lines.index("def deep(m: M0) -> str:")
    assert f"src/tools.py:{line}:1: TG108 [error] `deep`: its LangChain payload schema" in told, (
        told
    )
    assert _descriptors(project) == ["ping"]


def test_a_name_with_a_lone_surrogate_is_refused_and_shown_escaped(tmp_path, run) -> None:
    """`name = "g\\ud800"` has no UTF-8 form: the name is refused where it is written, and the
    report that lists the tool as left out shows it escaped, in every format."""
    project = _project(tmp_path)
    _write_with_ping(
        project,
        """
        from langchain_core.tools import BaseTool, tool


        class Grab(BaseTool):
            name: str = "g\\ud800"
            description: str = "Grab things."

            def _run(self, x: str) -> str:
                return x
        """,
    )
    result = run("build", cwd=project.root)
    told = result.out + result.err
    assert result.code == 1, told
    assert "Traceback" not in told and "internal error" not in told, told
    assert "src/tools.py:5:17: TG103 [error] tool name 'g\\ud800' must match" in told, told
    assert "1 tool left out for errors: g\\ud800 (src/tools.py:8:5)" in told, told
    assert _descriptors(project) == ["ping"]
    for fmt in ("json", "github"):
        result = run("build", "--format", fmt, cwd=project.root)
        assert result.code == 1 and "internal error" not in result.out + result.err
    left_out = run("build", "--format", "json", cwd=project.root).json()["left_out"]
    assert [entry["name"] for entry in left_out] == ["g\\ud800"]


def test_a_run_that_is_assigned_is_told_not_read_from_a_base(tmp_path, run) -> None:
    """`_run = helper` is what LangChain runs, for the class and each construction of it: its
    parameters are not written in the class, so toolgen says so (once, where it is assigned),
    and never publishes a base class's `def _run` in its place."""
    project = _project(tmp_path)
    _write_with_ping(
        project,
        """
        from langchain_core.tools import BaseTool, tool


        def helper(self, count: int) -> str:
            return str(count)


        class Search(BaseTool):
            name: str = "search"
            description: str = "Search the catalog."

            def _run(self, query: str) -> str:
                return query


        class Counted(Search):
            name: str = "counted"
            _run = helper


        first = Counted(name="first")
        second = Counted(name="second")
        """,
    )
    result = run("build", "--verbose", cwd=project.root)
    told = result.out + result.err
    assert result.code == 0, told
    note = (
        "src/tools.py:18:5: TG106 [info] `Counted._run` is assigned, not a `def`: toolgen "
        "reads a tool class's parameters only from its `def _run`"
    )
    assert told.count(note) == 1, told
    assert _descriptors(project) == ["ping", "search"]


@pytest.mark.xfail(
    strict=True,
    reason="not fixed: running a comprehension's element once over unknown items, as a for "
    "loop's body is, reaches more of the code (recursions through comprehensions in "
    "toolgen's own sources then make TG106 notes, and `bounded` runs change registry edits)",
)
def test_constructions_in_a_comprehension_too_long_to_follow_are_told(tmp_path, run) -> None:
    """A comprehension over more items than toolgen lists (range(100000)) constructs tools
    it cannot name: told as a `for` loop's are (TG106), not left unseen, with the class then
    published under a name the code never builds it with."""
    project = _project(tmp_path)
    _write_with_ping(
        project,
        """
        from langchain_core.tools import BaseTool, tool


        class Search(BaseTool):
            name: str = "search"
            description: str = "Search the catalog."

            def _run(self, query: str) -> str:
                return query


        SHARDS = [Search(name=f"s{i}", description=f"Shard {i}.") for i in range(100000)]
        """,
    )
    result = run("build", "--verbose", cwd=project.root)
    told = result.out + result.err
    assert result.code == 0, told
    assert (
        "src/tools.py:12:11: TG106 [info] `Search(name=f's{i}', description=f'Shard {i}.')` "
        "constructs a tool whose `name` and `description` toolgen cannot know" in told
    ), told
    assert _descriptors(project) == ["ping"]


def test_a_class_whose_bases_go_deeper_than_followed_is_told(tmp_path, run) -> None:
    """Bases 40 classes deep (thousands, in a hostile project) are followed only so far: a
    class with a `_run` whose chain is cut there may be a tool, and is told as not followed,
    not dropped unsaid; a deep hierarchy with no `_run` is no tool, and nothing is told."""
    chain = "".join(f"class C{i}(C{i - 1}):\n    pass\n\n\n" for i in range(1, 40))
    plain = "".join(f"class P{i}(P{i - 1}):\n    pass\n\n\n" for i in range(1, 40))
    project = _project(tmp_path)
    _write_with_ping(
        project,
        "from langchain_core.tools import BaseTool, tool\n\n\n"
        'class C0(BaseTool):\n    description: str = "Deep."\n\n\n'
        f"{chain}class P0:\n    pass\n\n\n{plain}"
        'class Top(C39):\n    name: str = "top"\n\n'
        "    def _run(self, x: str) -> str:\n        return x\n\n\n"
        "class Plain(P39):\n    pass\n",
    )
    result = run("build", "--verbose", cwd=project.root)
    told = result.out + result.err
    assert result.code == 0, told
    lines = project.root.joinpath("src/tools.py").read_text().splitlines()
    line = 1 + lines.index("class Top(C39):")
    assert (
        f"src/tools.py:{line}:1: TG106 [info] `Top` may be a tool class, not followed: its "
        "bases go on more than 16 classes deep" in told
    ), told
    assert told.count("classes deep") == 1, told
    assert _descriptors(project) == ["ping"]


def test_a_base_in_a_library_file_that_cannot_be_read_is_told(tmp_path, run) -> None:
    """An installed package's module that does not parse (or is not UTF-8) holds the base a
    class with a `_run` derives from: whether that class is a tool is not known, and the
    note says which file and why, where the class is written."""
    project = _project(tmp_path, extra='library_paths = ["../lib"]')
    lib = Project(tmp_path / "lib")
    lib.write(
        "broken/__init__.py", "from langchain_core.tools import BaseTool\nclass Base(BaseTool:\n"
    )
    _write_with_ping(
        project,
        """
        from broken import Base
        from langchain_core.tools import tool


        class Lookup(Base):
            name: str = "lookup"
            description: str = "Look an order up."

            def _run(self, order_id: str) -> str:
                return order_id
        """,
    )
    result = run("build", "--verbose", cwd=project.root)
    told = result.out + result.err
    assert result.code == 0, told
    assert (
        "src/tools.py:5:1: TG106 [info] `Lookup` may be a tool class, not followed: its base "
        "`broken.Base` is in a library file toolgen cannot read: "
        f"{tmp_path / 'lib' / 'broken' / '__init__.py'}:2:20: cannot parse: invalid syntax" in told
    ), told
    assert _descriptors(project) == ["ping"]


def _refs(value: object) -> list[str]:
    if isinstance(value, dict):
        own = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        return own + [r for v in value.values() for r in _refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    return []


def test_a_recursive_args_schema_keeps_the_definition_its_references_need(tmp_path, run) -> None:
    """`args_schema = Node` where a Node holds a Node: the model's fields are the parameters,
    and its definition stays in `$defs` for the references to it (none left dangling); the
    LangChain payload inlines it once, as LangChain's `dereference_refs` does."""
    project = _project(tmp_path)
    _write_with_ping(
        project,
        """
        from typing import Optional

        from langchain_core.tools import BaseTool, tool
        from pydantic import BaseModel


        class Node(BaseModel):
            label: str = ""
            child: Optional["Node"] = None


        class Tree(BaseTool):
            name: str = "tree"
            description: str = "Walk a tree."
            args_schema: type[BaseModel] = Node

            def _run(self, **parts: object) -> str:
                return ""
        """,
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out + result.err
    tree = project.descriptor("tree")
    parameters = tree["parameters"]
    assert set(parameters["properties"]) == {"label", "child"}
    for ref in _refs(parameters):
        assert ref.removeprefix("#/$defs/") in parameters.get("$defs", {}), ref
    child = tree["framework"]["openai"]["parameters"]["properties"]["child"]
    assert child["anyOf"][0]["title"] == "Node"
    assert child["anyOf"][0]["properties"]["child"]["anyOf"][0] == {}


def test_injected_arguments_are_hidden_through_names_bound_to_the_marker(tmp_path, run) -> None:
    """LangChain hides a parameter whose `Annotated` metadata is `InjectedToolArg` or a
    subclass, the class or an instance: also when the code names it otherwise first
    (`Inj = InjectedToolArg`, an alias of an alias, a subclass of its own)."""
    project = _project(tmp_path)
    _write_with_ping(
        project,
        '''
        from typing import Annotated

        from langchain_core.tools import InjectedToolArg, tool

        Inj = InjectedToolArg
        Again = Inj
        UserId = Annotated[str, Inj]


        class Tenant(InjectedToolArg):
            pass


        @tool
        def lookup(
            query: str,
            user: UserId,
            session: Annotated[str, Again()],
            tenant: Annotated[str, Tenant],
        ) -> str:
            """Look an order up."""
            return query
        ''',
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out + result.err
    assert list(project.descriptor("lookup")["parameters"]["properties"]) == ["query"]
