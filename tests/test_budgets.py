"""Quadratic and worse (red-team issue, part 6): work that grew faster than the source is
linear, and what is exponential by nature (a type written out wherever it is used) has a
budget with a located diagnostic, never an unbounded run.

No test here asserts a time. Complexity is tested by counting operations (a counter put on
the function that did the repeated work), or by running `toolgen build` in a process of its
own under a timeout far above what the build takes now (seconds), and far below what it took
(minutes, or never ending).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import Project, tool_source
from toolgen import lint
from toolgen.analyze.types import SchemaBuilder

#: Far above the seconds each build below takes now (on a loaded CI machine too).
TIMEOUT = 120


def _build_process(root: Path) -> subprocess.CompletedProcess[str]:
    """`toolgen build` in `root`, a process of its own, under `TIMEOUT` (TimeoutExpired: the
    build did not end in time)."""
    return subprocess.run(
        [sys.executable, "-m", "toolgen", "build", "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        timeout=TIMEOUT,
        check=False,
    )


def _model(fields: int) -> str:
    return (
        "from pydantic import BaseModel, ConfigDict\n\n\n"
        "class Base(BaseModel):\n    model_config = ConfigDict(extra='forbid')\n\n\n"
        "class Wide(Base):\n    model_config = ConfigDict(extra='forbid')\n"
        + "".join(f"    f{i}: int\n" for i in range(fields))
    )


def _handler(project: Project, annotation: str, defined: str, name: str = "lookup") -> None:
    project.write("src/tools.py", tool_source(name, f"x: {annotation}", imports=defined))


# -- a pydantic model of many fields -------------------------------------------------------
def test_a_models_config_is_read_once_not_once_per_field(
    project: Project, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`model_config` read the class body again for each field (N fields: N² statements;
    4,000 fields took 53 s). Each config value is folded once now, whatever the fields."""
    folded: list[Any] = []
    literal = SchemaBuilder._literal

    def counted(self: SchemaBuilder, node: Any, module: Any) -> Any:
        folded.append(node)
        return literal(self, node, module)

    monkeypatch.setattr(SchemaBuilder, "_literal", counted)
    _handler(project, "Wide", _model(2_000))
    assert run("build", "--no-cache", cwd=project.root).code == 0
    assert len(project.descriptor("lookup")["parameters"]["$defs"]["Wide"]["properties"]) == 2000
    assert len(folded) <= 4  # `extra` of each class, once (it was 2,000 times each)


def test_a_model_of_20000_fields_builds(project: Project) -> None:
    """5 minutes were not enough for it; now seconds."""
    _handler(project, "Wide", _model(20_000))
    built = _build_process(project.root)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    assert "f19999" in (project.out / "descriptors" / "lookup.json").read_text()


# -- models that hold models several times: their schema as written is small ----------------
def _doubling_models(depth: int, recursive: bool = False) -> str:
    """`M{i}` with two fields of `M{i-1}`, `depth` deep: written out, 2**depth models; with
    `recursive`, `M0` refers back to the last (one recursive family)."""
    back = f"\n    back: 'M{depth - 1} | None' = None" if recursive else ""
    return "from pydantic import BaseModel\n\n\n" + "".join(
        f"class M{i}(BaseModel):\n    a: int{back}\n\n\n"
        if i == 0
        else f"class M{i}(BaseModel):\n    a: M{i - 1}\n    b: M{i - 1}\n\n\n"
        for i in range(depth)
    )


@pytest.mark.parametrize("recursive", [False, True])
def test_models_that_double_at_each_level_are_tg108(project: Project, recursive: bool) -> None:
    """Gemini's payload inlines every `$ref`: 2**30 models, and the build never ended (the
    recursive family: the depth lint walked its paths). The schema with its models inlined
    is measured first (each model once), and the tool is left out."""
    _handler(project, "M29", _doubling_models(30, recursive))
    built = _build_process(project.root)
    assert built.returncode == 1, built.stdout[-2000:] + built.stderr[-2000:]
    assert "TG108 [error] `lookup`: its parameters schema holds more than " in built.stdout
    assert "values with its models inlined" in built.stdout
    assert "1 tool left out for errors: lookup" in built.stdout


@pytest.mark.parametrize("marker", ["fastmcp", "langchain"])
def test_a_framework_that_inlines_its_models_is_measured_first(
    project: Project, marker: str
) -> None:
    """FastMCP and LangChain publish the parameters with their models inlined: that was made
    before anything measured it."""
    decorator = {"fastmcp": "@mcp.tool", "langchain": "@lc_tool"}[marker]
    imports = {
        "fastmcp": "from fastmcp import FastMCP\nmcp = FastMCP('x')",
        "langchain": "from langchain_core.tools import tool as lc_tool",
    }[marker]
    models = _doubling_models(30)
    source = tool_source("lookup", "x: M29", imports=f"{imports}\n{models}", decorator=decorator)
    project.write("src/tools.py", source)
    project.write("pyproject.toml", f'[tool.toolgen]\nsources = ["src"]\nmarkers = ["{marker}"]\n')
    built = _build_process(project.root)
    assert "TG108 [error] `lookup`" in built.stdout, built.stdout[-2000:] + built.stderr[-2000:]


def test_models_each_holding_all_others_are_measured_in_linear_steps(
    project: Project, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten models, each with a field of every one: the depth lint (TG906) walked every path
    that repeats no model, 10! of them. Each model's depth is measured once now."""
    calls = 0
    depth = lint.practice._object_depth

    def counted(*args: Any) -> int:
        nonlocal calls
        calls += 1
        return depth(*args)

    monkeypatch.setattr(lint.practice, "_object_depth", counted)
    models = "from __future__ import annotations\nfrom pydantic import BaseModel\n\n\n" + "".join(
        f"class M{i}(BaseModel):\n"
        + "".join(f"    f{j}: M{j} | None = None\n" for j in range(8))
        + "\n\n"
        for i in range(8)
    )
    project.write("src/tools.py", tool_source("lookup", "x: M0", imports=models))
    result = run("build", "--no-cache", cwd=project.root)
    assert result.code == 0, result.out
    assert "TG906 [warning] tool lookup: parameter `x` nests objects 8 levels deep" in result.out
    assert calls < 2_000  # 8 models of 8 fields, 4 values each, once; 8! paths were 40,320+


# -- aliases written out wherever they are used ----------------------------------------------
def _doubling_aliases(depth: int) -> str:
    return "A0 = int\n" + "".join(f"A{i} = tuple[A{i - 1}, A{i - 1}]\n" for i in range(1, depth))


def test_an_alias_that_doubles_at_each_level_is_tg109(project: Project) -> None:
    """An alias is written out where it is used, as pydantic does: 2**30 types, and the build
    never ended. Reading stops at the budget, at the annotation."""
    _handler(project, "A29", _doubling_aliases(30))
    built = _build_process(project.root)
    assert built.returncode == 1, built.stdout[-2000:] + built.stderr[-2000:]
    assert (
        "src/tools.py:35:15: TG109 [error] `A29` is more than 2,000 types written out (an alias "
        "is written out wherever it is used, and one that uses another twice doubles at each "
        "level): make a type used many times a class"
    ) in built.stdout


def test_the_type_budget_is_counted_per_annotation(
    project: Project, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within the budget a type is read as it was; each parameter, and each field of a
    model, has a budget of its own (a model of 20,000 fields is read)."""
    from toolgen.analyze import type_base

    monkeypatch.setattr(type_base, "MAX_TYPE_STEPS", 100)
    aliases = _doubling_aliases(6)  # A4: 31 types, each read through its alias: 62 steps
    project.write(
        "src/tools.py",
        tool_source("lookup", "x: A4, y: A4, z: Wide", imports=aliases + _model(300)),
    )
    result = run("build", "--no-cache", cwd=project.root)
    assert result.code == 0, result.out
    project.write("src/tools.py", tool_source("lookup", "x: A4, y: A5", imports=aliases))
    result = run("build", "--no-cache", cwd=project.root)
    assert result.code == 1
    assert "src/tools.py:11:22: TG109 [error] `A5` is more than 100 types written out" in (
        result.out
    )
    assert result.out.count("TG109") == 1


def test_the_tools_budget_is_counted_over_its_parameters(
    project: Project, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolgen.analyze import type_base

    monkeypatch.setattr(type_base, "MAX_TOOL_STEPS", 100)
    params = ", ".join(f"p{i}: A4" for i in range(4))  # 62 steps each
    project.write("src/tools.py", tool_source("lookup", params, imports=_doubling_aliases(5)))
    result = run("build", "--no-cache", cwd=project.root)
    assert result.code == 1
    assert "TG109 [error] the types of this tool take more than 100 steps to read" in result.out


# -- an enum whose members name each other ----------------------------------------------------
def test_an_enum_member_is_found_in_its_class_by_bisection(
    project: Project, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each member whose value names another was folded in a scope found by looking at every
    statement of the class before it (N members: N² looks; 20,000 took minutes)."""
    from toolgen.analyze import scopes

    looks = 0
    may_hold = scopes._may_hold

    def counted(node: Any, line: int) -> bool:
        nonlocal looks
        looks += 1
        return may_hold(node, line)

    monkeypatch.setattr(scopes, "_may_hold", counted)
    members = 3_000
    enum = "import enum\n\n\nclass E(enum.Enum):\n    m0 = 0\n" + "".join(
        f"    m{i} = m{i - 1}\n" for i in range(1, members)
    )
    _handler(project, "E", enum)
    assert run("build", "--no-cache", cwd=project.root).code == 0
    assert len(project.descriptor("lookup")["parameters"]["$defs"]["E"]["enum"]) == members
    assert looks < 20 * members  # it was members² / 2


def test_an_enum_of_100000_auto_members_builds(project: Project) -> None:
    """Each `auto()` looked at every value before it (N²: minutes for 100,000)."""
    enum = "import enum\n\n\nclass E(enum.Enum):\n" + "".join(
        f"    m{i} = enum.auto()\n" for i in range(100_000)
    )
    _handler(project, "E = E.m99999", enum)
    built = _build_process(project.root)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    schema = (project.out / "descriptors" / "lookup.json").read_text()
    assert '"default": 100000' in schema


def test_each_enum_member_named_is_found_without_a_search(
    project: Project, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A member named in a default was found by comparing its value with each member's
    before it (a tool naming many members of a big enum: N² comparisons)."""
    from toolgen.analyze import fold_enums

    compared = 0
    same = fold_enums.same

    def counted(a: Any, b: Any) -> bool:
        nonlocal compared
        compared += 1
        return same(a, b)

    monkeypatch.setattr(fold_enums, "same", counted)
    members = 2_000
    enum = "import enum\n\n\nclass E(enum.Enum):\n" + "".join(
        f"    m{i} = {i}\n" for i in range(members)
    )
    params = ", ".join(f"p{i}: E = E.m{members - 1 - i}" for i in range(40))
    project.write("src/tools.py", tool_source("lookup", params, imports=enum))
    assert run("build", "--no-cache", cwd=project.root).code == 0
    assert project.descriptor("lookup")["parameters"]["properties"]["p39"]["default"] == 1960
    assert compared < members  # it was about 40 * members
