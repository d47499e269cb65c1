"""Bad input gives a located diagnostic and an exit code, never a traceback, and `build`
touches nothing under generated/ when any handler has an error."""

from __future__ import annotations

import pytest

from conftest import Project, tool_source


@pytest.fixture
def built(project: Project, run) -> Project:
    """A project with a good tool already built, so we can see that nothing changes."""
    project.write("src/good.py", tool_source(name="get_good"))
    assert run("build", cwd=project.root).code == 0
    return project


def _fails(built: Project, run, code: int, expected: str, untouched: bool = True) -> str:
    """Build and check fail with `code` and say `expected`; with `untouched`, generated/ is
    as it was (a build that stops writes nothing; one that leaves out a handler the build
    never wrote leaves the rest as it was)."""
    before = built.snapshot()
    result = run("build", cwd=built.root)
    assert result.code == code, result.out
    assert expected in result.out, result.out
    assert result.err == "", "no traceback on user input"
    assert "Traceback" not in result.out
    if untouched:
        assert built.snapshot() == before, "a failing build must not touch generated/"
    check = run("check", cwd=built.root)
    assert check.code == code
    assert expected in check.out
    return result.out


def test_syntax_error_is_located_and_exits_2(built: Project, run) -> None:
    built.write("src/broken.py", "from toolgen import tool\n\n@tool\ndef f(x: int:\n    pass\n")
    out = _fails(built, run, 2, "src/broken.py:4:")
    assert "TG101 [error] cannot parse" in out


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ('{"enum": 7}', "/enum: 7 is not of type 'array'"),
        ('{"properties": []}', "/properties: [] is not of type 'object'"),
        ('{"type": 5}', "/type: 5 is not valid under any of the given schemas"),
        ('{"$ref": 12}', "/$ref: 12 is not of type 'string'"),
        ('{"required": "x"}', "/required: 'x' is not of type 'array'"),
    ],
)
def test_json_schema_extra_that_is_no_schema(built: Project, run, extra: str, problem: str) -> None:
    """What json_schema_extra adds goes into the schema as it is: it must be a JSON Schema."""
    field = f"Annotated[str, Field(json_schema_extra={extra})]"
    imports = "from typing import Annotated\nfrom pydantic import Field"
    built.write("src/bad.py", tool_source(params=f"query: {field}", imports=imports))
    _fails(
        built,
        run,
        1,
        f"src/bad.py:6:40: TG208 [error] json_schema_extra is not a valid JSON Schema: {problem}",
    )
    model = (
        "from pydantic import BaseModel, ConfigDict\n\n\n"
        f"class Page(BaseModel):\n    model_config = ConfigDict(json_schema_extra={extra})\n"
        "    size: int = 1\n"
    )
    built.write("src/bad.py", tool_source(params="page: Page", imports=model))
    _fails(
        built,
        run,
        1,
        f"src/bad.py:5:1: TG208 [error] json_schema_extra is not a valid JSON Schema: {problem}",
    )


@pytest.mark.parametrize(
    ("annotation", "imports", "problem"),
    [
        (
            'Annotated[str, Field(pattern="[")]',
            "Field",
            "constraint `pattern='['`: is not a regular",
        ),
        ("Annotated[str, Field(max_length=-1)]", "Field", "`max_length=-1`: must be a whole"),
        ('Annotated[str, Field(min_length="x")]', "Field", "`min_length='x'`: must be a whole"),
        ('Annotated[int, Field(ge="a")]', "Field", "`ge='a'`: must be a finite number"),
        (
            "Annotated[int, Field(multiple_of=0)]",
            "Field",
            "`multiple_of=0`: must be greater than 0",
        ),
        ("Annotated[int, Field(lt=True)]", "Field", "`lt=True`: must be a finite number"),
        ("Annotated[str, MinLen(-2)]", "MinLen", "`min_length=-2`: must be a whole number"),
        ("Annotated[int, Interval(gt='x')]", "Interval", "`gt='x'`: must be a finite number"),
        ('constr(pattern="(")', "constr", "constraint `pattern='('`: is not a regular expression"),
        ("conint(multiple_of=-1)", "conint", "`multiple_of=-1`: must be greater than 0"),
    ],
)
def test_constraint_values_a_schema_cannot_take(
    built: Project, run, annotation: str, imports: str, problem: str
) -> None:
    source = {"MinLen": "annotated_types", "Interval": "annotated_types"}.get(imports, "pydantic")
    header = f"from typing import Annotated\nfrom {source} import {imports}"
    built.write("src/bad.py", tool_source(params=f"value: {annotation}", imports=header))
    out = _fails(built, run, 1, "TG209 [error] ")
    assert problem in out


def test_unresolvable_annotation(built: Project, run) -> None:
    built.write("src/bad.py", tool_source(params="query: str, page: Paging"))
    _fails(built, run, 1, "src/bad.py:5:30: TG201 [error] cannot resolve `Paging` in module bad")


def test_annotation_from_an_unknown_outside_package(built: Project, run) -> None:
    built.write(
        "src/bad.py", tool_source(params="query: Widget", imports="from somelib import Widget")
    )
    _fails(built, run, 1, "TG201 [error] cannot resolve `Widget`: somelib.Widget is outside")


def test_missing_args_entry(built: Project, run) -> None:
    source = tool_source(params="query: str, limit: int = 3", args_doc="        query: Words.")
    built.write("src/bad.py", source)
    _fails(
        built,
        run,
        1,
        "src/bad.py:5:24: TG301 [error] parameter `limit` is not described",
    )


def test_example_arguments_that_do_not_fit_the_schema(built: Project, run) -> None:
    doc = (
        "\n    Examples:\n"
        "        Too many results:\n\n"
        '        >>> lookup(query="x", limit=500)\n'
        '        "ok"\n'
    )
    source = tool_source(
        params="query: str, limit: Annotated[int, Field(le=50)] = 10",
        imports="from typing import Annotated\nfrom pydantic import Field",
        extra_doc=doc,
    )
    built.write("src/bad.py", source)
    out = _fails(built, run, 1, "TG501 [error] example arguments: /limit: 500 is greater than")
    assert "src/bad.py:17:9: TG501" in out


def test_every_example_problem_comes_in_one_build(built: Project, run) -> None:
    """A malformed example (TG307) or an undescribed parameter (TG301) does not hide the
    other examples' problems until it is fixed; a type error does (its schema is short)."""
    doc = (
        "\n    Examples:\n"
        '        >>> lookup(query="x", limit=500)\n        "ok"\n\n'
        '        >>> lookup(query=x)\n        "ok"\n'
    )
    params = "query: str, limit: Annotated[int, Field(le=50)] = 10"
    imports = "from typing import Annotated\nfrom pydantic import Field"
    built.write("src/bad.py", tool_source(params=params, imports=imports, extra_doc=doc))
    out = _fails(built, run, 1, "TG501 [error] example arguments: /limit: 500 is greater than")
    assert "TG307 [error] example argument `query` is not a literal value" in out
    undescribed = tool_source(params=params, imports=imports, extra_doc=doc, args_doc="")
    built.write("src/bad.py", undescribed)
    out = _fails(built, run, 1, "TG501 [error] example arguments: /limit: 500 is greater than")
    assert "TG301 [error] parameter `limit` is not described" in out
    mistyped = params.replace("limit: Annotated", "limit: Nowhere, other: Annotated")
    built.write("src/bad.py", tool_source(params=mistyped, imports=imports, extra_doc=doc))
    out = _fails(built, run, 1, "TG201 [error] cannot resolve `Nowhere`")
    assert "TG501" not in out


def test_example_result_that_does_not_fit_returns(built: Project, run) -> None:
    doc = '\n    Examples:\n        >>> lookup(query="x")\n        42\n'
    built.write("src/bad.py", tool_source(extra_doc=doc))
    _fails(built, run, 1, "TG502 [error] example result: /: 42 is not of type 'string'")


def test_example_error_code_not_declared(built: Project, run) -> None:
    doc = '\n    Examples:\n        >>> lookup(query="x")\n        {"error": {"code": "NOPE"}}\n'
    built.write("src/bad.py", tool_source(extra_doc=doc))
    _fails(built, run, 1, "TG503 [error] example error code NOPE is not declared in Errors")


def test_two_tools_with_the_same_name(built: Project, run) -> None:
    """Neither keeps the name while both claim it (which one would is no choice to make for
    the user: module order, or which one has errors): both are left out, each said so."""
    built.write("src/dup.py", tool_source(name="get_good"))
    expected = "TG102 [error] tool name `get_good` is already used"
    out = _fails(built, run, 1, expected, untouched=False)
    assert "src/good.py:5:1: TG102" in out
    assert "by the handler at src/dup.py:5:1" in out  # the other definition is named too
    assert "src/dup.py:5:1: TG102" in out
    assert "by the handler at src/good.py:5:1; neither is published" in out
    assert (
        "2 tools left out for errors: get_good (src/dup.py:5:1), get_good (src/good.py:5:1)"
    ) in out
    assert not (built.out / "descriptors" / "get_good.json").exists()


def test_name_given_twice_through_the_decorator(built: Project, run) -> None:
    built.write("src/dup.py", tool_source(name="other", decorator='@tool(name="get_good")'))
    out = _fails(built, run, 1, "src/good.py:5:1: TG102", untouched=False)
    assert (
        "2 tools left out for errors: get_good (src/dup.py:5:1), get_good (src/good.py:5:1)"
    ) in out


# -- a duplicate whatever errors either twin has (red-team issue, part 5) ----------------------
BROKEN_TWIN = tool_source(name="get_good", params="query")  # no annotation: TG203


@pytest.mark.parametrize("twin", ["src/after.py", "src/a_first.py"])  # read after, or before
def test_a_duplicate_is_reported_when_its_twin_has_an_error(built: Project, run, twin: str) -> None:
    """The twin with an error was left out and the other published with no TG102; fixing
    the error then broke the build, or (the faulty twin read first) swapped the handler
    behind the name. Now the duplicate is said at once, and neither twin is published until
    the name is unique: fixing the error changes nothing."""
    built.write(twin, BROKEN_TWIN)
    for fixed in (False, True):
        result = run("build", cwd=built.root)
        assert result.code == 1, result.out
        assert (
            f"src/good.py:5:1: TG102 [error] tool name `get_good` is already used by the "
            f"handler at {twin}:5:1; neither is published until the name is unique"
        ) in result.out
        assert f"{twin}:5:1: TG102 [error] tool name `get_good` is already used by the " in (
            result.out
        )
        assert (f"{twin}:5:14: TG203" in result.out) != fixed
        assert not (built.out / "descriptors" / "get_good.json").exists()
        built.write(twin, tool_source(name="get_good"))  # the error fixed
    built.write(twin, tool_source(name="renamed_tool"))
    result = run("build", cwd=built.root)
    assert result.code == 0, result.out
    assert built.descriptor("get_good")["source"]["module"] == "good"
    assert built.descriptor("renamed_tool")["source"]["module"] == twin[4:-3]


def test_twins_that_both_have_errors_are_a_duplicate(built: Project, run) -> None:
    built.write("src/good.py", BROKEN_TWIN)
    built.write("src/other.py", BROKEN_TWIN.replace("@tool\n", '@tool(name="get_good")\n'))
    result = run("build", cwd=built.root)
    assert result.code == 1
    assert result.out.count("TG102 [error] tool name `get_good` is already used") == 2
    assert result.out.count("TG203") == 2


def test_a_name_that_cannot_be_read_claims_none(built: Project, run) -> None:
    """A registration whose name depends on run time may be any name: it claims none, and
    the handler with that function name is published."""
    built.write(
        "src/other.py",
        tool_source(name="get_good", decorator="@tool(name=compute())", imports=""),
    )
    result = run("build", cwd=built.root)
    assert result.code == 1
    assert "TG401" in result.out and "TG102" not in result.out
    assert built.descriptor("get_good")["source"]["module"] == "good"


def test_config_source_path_that_does_not_exist(built: Project, run) -> None:
    built.write("pyproject.toml", '[tool.toolgen]\nsources = ["src", "nowhere"]\n')
    out = _fails(built, run, 2, "TG003 [error] source path")
    assert "nowhere does not exist" in out
    assert "pyproject.toml:2:1: TG003" in out  # the line that sets `sources`


def test_config_file_that_does_not_exist(built: Project, run) -> None:
    result = run("build", "--config", "missing.toml", cwd=built.root)
    assert result.code == 2
    assert "TG001 [error] configuration file" in result.out
    assert "missing.toml does not exist" in result.out


def test_invalid_toml_is_located(built: Project, run) -> None:
    built.write("pyproject.toml", "[tool.toolgen]\nsources = [\n")
    _fails(built, run, 2, "pyproject.toml:3:1: TG001 [error] invalid TOML")


def test_unknown_config_key_and_bad_values(built: Project, run) -> None:
    built.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nplatform = ["openai"]\nplatforms = ["myspace"]\n'
        'docstring_style = "epydoc"\nmarkers = ["bogus"]\n',
    )
    out = _fails(
        built, run, 2, "pyproject.toml:3:1: TG002 [error] [tool.toolgen] platform: unknown"
    )
    assert "platforms: unknown value 'myspace'" in out
    assert "docstring_style: must be one of auto, google, numpy, sphinx" in out
    assert "markers: unknown value 'bogus' (allowed: toolgen, fastmcp, mcp" in out


def test_non_literal_decorator_argument(built: Project, run) -> None:
    """A value only the run time knows: TG401 at what reads it, saying what the name holds."""
    source = tool_source(decorator="@tool(risk=RISK)", imports="import os\nRISK = os.environ['R']")
    built.write("src/bad.py", source)
    _fails(
        built,
        run,
        1,
        "src/bad.py:3:8: TG401 [error] @tool argument `risk` is not a value toolgen can read "
        "statically: `RISK` is bound to `os.environ['R']`; `os.environ` is from outside the "
        "project's sources, which toolgen does not read",
    )


def test_invalid_decorator_value(built: Project, run) -> None:
    built.write("src/bad.py", tool_source(decorator='@tool(risk="extreme")'))
    _fails(built, run, 1, "src/bad.py:4:7: TG403 [error] `risk`: Input should be 'low'")


def test_unknown_decorator_argument(built: Project, run) -> None:
    built.write("src/bad.py", tool_source(decorator="@tool(colour=1)"))
    _fails(built, run, 1, "src/bad.py:4:7: TG402 [error] @tool has no argument `colour`")


def test_a_decorator_argument_given_twice(built: Project, run) -> None:
    """`ast` reads `@tool(risk="low", risk="high")`; Python refuses to compile it."""
    built.write("src/bad.py", tool_source(decorator='@tool(risk="low", risk="high")'))
    _fails(built, run, 1, "src/bad.py:4:19: TG402 [error] @tool argument `risk` is given twice")


def test_missing_docstring(built: Project, run) -> None:
    built.write("src/bad.py", "from toolgen import tool\n\n@tool\ndef f() -> int:\n    return 1\n")
    _fails(built, run, 1, "src/bad.py:4:1: TG303 [error] `f` needs a docstring")


def test_missing_annotation(built: Project, run) -> None:
    built.write("src/bad.py", tool_source(params="query"))
    _fails(built, run, 1, "src/bad.py:5:12: TG203 [error] parameter `query` has no type")


def test_var_args_are_refused(built: Project, run) -> None:
    built.write("src/bad.py", tool_source(params="query: str, *rest: str"))
    _fails(built, run, 1, "src/bad.py:5:25: TG204 [error] `*rest` cannot be described")


def test_unsupported_type(built: Project, run) -> None:
    built.write(
        "src/bad.py",
        tool_source(params="fn: Callable[[int], int]", imports="from typing import Callable"),
    )
    _fails(built, run, 1, "TG202 [error] `Callable[[int], int]` (typing.Callable) is not a")


def test_plain_class_is_not_a_schema(built: Project, run) -> None:
    built.write("src/bad.py", tool_source(params="x: Thing", imports="class Thing:\n    pass"))
    _fails(built, run, 1, "is not a supported type")


def test_non_literal_default(built: Project, run) -> None:
    built.write("src/bad.py", tool_source(params="n: int = compute()"))
    _fails(
        built,
        run,
        1,
        "src/bad.py:5:21: TG206 [error] default `compute()` calls `compute`, which is not "
        "defined in module `bad`",
    )


def test_malformed_errors_and_idempotency(built: Project, run) -> None:
    doc = (
        "\n    Errors:\n"
        "        lower_case: Not a code.\n"
        "        MY_CODE: Unknown code without status.\n"
        "\n    Idempotency:\n"
        "        idempotent: maybe\n"
        "        sometimes: true\n"
    )
    built.write("src/bad.py", tool_source(extra_doc=doc))
    out = _fails(built, run, 1, "src/bad.py:12:9: TG304 [error] Errors entry 'lower_case:")
    assert "src/bad.py:13:9: TG305 [error] error code MY_CODE is not in the standard" in out
    assert "src/bad.py:16:9: TG306 [error] Idempotency idempotent: 'maybe'" in out
    assert "src/bad.py:17:9: TG306 [error] Idempotency line 'sometimes: true'" in out


def test_malformed_examples(built: Project, run) -> None:
    doc = (
        "\n    Examples:\n"
        '        >>> lookup("positional")\n'
        '        "x"\n\n'
        '        >>> other(query="x")\n'
        '        "x"\n\n'
        "        >>> lookup(query=make())\n"
        '        "x"\n\n'
        '        >>> lookup(query="x")\n'
        "        not json\n"
    )
    built.write("src/bad.py", tool_source(extra_doc=doc))
    out = _fails(built, run, 1, 'src/bad.py:12:9: TG307 [error] example `lookup("positional")`')
    assert "src/bad.py:15:9: TG307 [error] example calls `other`, expected lookup" in out
    assert "src/bad.py:18:9: TG307 [error] example argument `query` is not a literal" in out
    assert "src/bad.py:21:9: TG307 [error] example result is neither JSON nor a Python" in out


def _fastmcp_server(project: Project, source: str) -> None:
    """A project of one FastMCP module, `src/server.py`."""
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nmarkers = ["fastmcp"]\nmin_level = 0\n',
    )
    project.write("src/server.py", source)


def test_a_frameworks_docstring_sections_never_cost_its_tool(project: Project, run) -> None:
    """A FastMCP handler's docstring is its own text (the framework publishes it as written):
    a doctest-style example with positional arguments, one whose arguments the schema refuses,
    and a malformed Errors entry are warnings, left out of the descriptor; a good example
    stays. The same docstring on a toolgen handler is an error (`test_malformed_examples`)."""
    _fastmcp_server(
        project,
        "from fastmcp import FastMCP\n"
        "mcp = FastMCP('x')\n\n\n"
        "@mcp.tool()\n"
        "def lookup(query: str) -> str:\n"
        '    """Look a word up.\n\n'
        "    Errors:\n"
        "        lower_case: not a code\n\n"
        "    Examples:\n"
        '        >>> lookup("positional")\n'
        '        "x"\n\n'
        "        >>> lookup(query=3)\n"
        '        "x"\n\n'
        '        >>> lookup(query="word")\n'
        '        "a word"\n'
        '    """\n'
        "    return query\n",
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "src/server.py:10:9: TG304 [warning] Errors entry 'lower_case:" in result.out
    assert 'src/server.py:13:9: TG307 [warning] example `lookup("positional")`' in result.out
    assert "src/server.py:16:9: TG501 [warning] example arguments:" in result.out
    descriptor = project.descriptor("lookup")
    assert descriptor["examples"] == [{"arguments": {"query": "word"}, "result": "a word"}]
    assert descriptor["errors"] == []


def test_a_lint_rule_never_costs_a_frameworks_tool(project: Project, run) -> None:
    """A lint rule at level error (TG911: the description says read-only, the annotations
    say it writes) is a warning for a FastMCP handler: the tool is published as FastMCP
    lists it."""
    _fastmcp_server(
        project,
        "from fastmcp import FastMCP\n"
        "mcp = FastMCP('x')\n\n\n"
        "@mcp.tool(annotations={'readOnlyHint': False})\n"
        "def export() -> str:\n"
        '    """Export a read-only snapshot."""\n'
        "    return ''\n",
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "src/server.py:6:1: TG911 [warning] tool export: description says" in result.out
    assert [t["name"] for t in project.generated("mcp/tools.json")["tools"]] == ["export"]


def test_values_python_reads_but_json_has_not(built: Project, run) -> None:
    """Found by fuzzing: a status of digits int() cannot read (`²`) was a ValueError, and a
    result of NaN or Infinity (which Python's json module reads) was written into the JSON."""
    doc = (
        "\n    Errors:\n"
        "        CODE (², retryable): A superscript.\n\n"
        "    Examples:\n"
        '        >>> lookup(query="a")\n'
        "        NaN\n\n"
        '        >>> lookup(query="b")\n'
        '        {"hits": [1e999]}\n\n'
        "        >>> lookup(query=1e999)\n"
    )
    built.write("src/bad.py", tool_source(extra_doc=doc))
    out = _fails(built, run, 1, "src/bad.py:12:9: TG304 [error] Errors entry CODE: cannot read '²'")
    assert "src/bad.py:15:9: TG307 [error] example result: nan (NaN, Infinity or out" in out
    assert "src/bad.py:18:9: TG307 [error] example result: inf (NaN, Infinity or out" in out
    assert "src/bad.py:21:9: TG307 [error] example argument `query`: inf (NaN, Infin" in out


def test_a_status_of_more_digits_than_int_reads(built: Project, run) -> None:
    """Found by red-teaming: a status of 5,000 digits was a ValueError (Python's int() reads
    at most 4,300); a status of leading zeros is still a status."""
    doc = (
        "\n    Errors:\n"
        f"        BIG ({'9' * 5000}, retryable): Too many digits.\n"
        "        ZERO (0409, not retryable): A conflict.\n"
    )
    built.write("src/bad.py", tool_source(extra_doc=doc))
    out = _fails(built, run, 1, "src/bad.py:12:9: TG304 [error] Errors entry BIG: cannot read '99")
    assert "ZERO" not in out


CONFIG_PATHS = [
    # (`[tool.toolgen]` lines, code, message fragment); found by fuzzing: each was a traceback
    ('out = "x\\u0000y"', "TG008", "has a NUL character, which no file name can hold"),
    ('sources = ["src\\u0000"]', "TG003", "has a NUL character, which no file name can hold"),
    (f'out = "{"a" * 300}"', "TG008", "cannot be used: File name too long"),
    (f'sources = ["{"a" * 300}"]', "TG003", "cannot be used: File name too long"),
    (f'out = "{"a/" * 2100}"', "TG008", "cannot be used: File name too long"),
    ('out = "src/good.py/generated"', "TG008", "src/good.py is a file, not a folder"),
    # ... and these wrote the generated files into folders that are not the project's own
    ('out = ".toolgen_cache"', "TG004", "must be a folder of the project, not in toolgen's cache"),
    ('out = ".git/generated"', "TG004", "must be a folder of the project, not in git's .git"),
]


@pytest.mark.parametrize(("line", "code", "message"), CONFIG_PATHS)
def test_config_paths_no_folder_can_have(built: Project, run, line: str, code: str, message: str):
    key = line.split()[0]
    table = '[tool.toolgen]\nsources = ["src"]\nout = "generated"\n'
    table = "\n".join(line if ln.startswith(key) else ln for ln in table.splitlines()) + "\n"
    built.write("pyproject.toml", table)
    line_number = 2 if key == "sources" else 3
    out = _fails(built, run, 2, f"pyproject.toml:{line_number}:1: {code} [error] ")
    assert message in out


def test_config_paths_that_are_symlink_loops(built: Project, run) -> None:
    """Python 3.11 raises RuntimeError resolving a symlink loop: a TG003 or TG008 now."""
    (built.root / "loop").symlink_to("loop")
    built.write("pyproject.toml", '[tool.toolgen]\nsources = ["loop"]\nout = "loop/x"\n')
    out = _fails(built, run, 2, "pyproject.toml:2:1: TG003 [error] source path ")
    assert "loop is a symlink loop" in out
    assert "pyproject.toml:3:1: TG008 [error] out " in out
    assert "loop/x is a symlink loop" in out


def test_a_source_file_that_is_a_symlink_loop(built: Project, run) -> None:
    """Expected: a TG005 `cannot read`, as a dangling symlink gets."""
    (built.root / "src" / "loop.py").symlink_to("loop.py")
    result = run("build", cwd=built.root)
    assert result.err == "", "no traceback on user input"
    assert result.code == 2
    assert "loop.py" in result.out and "TG005 [error] cannot read" in result.out


def test_undecodable_file(built: Project, run) -> None:
    (built.root / "src" / "latin.py").write_bytes(b"x = '\xe9'\n")
    _fails(built, run, 2, "TG005 [error] cannot read src/latin.py")


def test_diagnostics_in_json_format_are_data(built: Project, run) -> None:
    built.write("src/bad.py", tool_source(params="query: str, page: Paging"))
    result = run("build", "--format", "json", cwd=built.root)
    assert result.code == 1
    (diagnostic,) = result.json()["diagnostics"]
    assert diagnostic == {
        "code": "TG201",
        "level": "error",
        "message": "cannot resolve `Paging` in module bad",
        "path": "src/bad.py",
        "line": 5,
        "col": 30,
    }


def test_tool_name_invalid_on_some_platform(built: Project, run) -> None:
    built.write("src/bad.py", tool_source(decorator='@tool(name="look-up!")'))
    _fails(built, run, 1, "src/bad.py:4:7: TG103 [error] tool name 'look-up!' must match")


def test_deeply_nested_annotation_is_compiled(built: Project, run) -> None:
    depth = 180  # close to the parser's own nesting limit
    annotation = "list[" * depth + "int" + "]" * depth
    built.write("src/deep.py", tool_source(params=f"x: {annotation}"))
    result = run("build", cwd=built.root)
    assert (result.code, result.err) == (0, ""), result.out
    schema = built.descriptor("lookup")["parameters"]["properties"]["x"]
    for _ in range(depth):
        schema = schema["items"]
    assert schema == {"type": "integer"}


def test_alias_chain_too_deep_to_analyse_is_a_diagnostic(built: Project, run) -> None:
    aliases = "\n".join(["A0 = int", *(f"A{i} = list[A{i - 1}]" for i in range(1, 600))])
    built.write("src/deep.py", tool_source(params="x: A599", imports=aliases))
    out = _fails(built, run, 1, "TG202 [error] `lookup` nests types or values too deeply")
    assert "src/deep.py:" in out


def test_config_errors_in_json_format(built: Project, run) -> None:
    result = run("check", "--config", "missing.toml", "--format", "json", cwd=built.root)
    assert result.code == 2
    (diagnostic,) = result.json()["diagnostics"]
    assert diagnostic["code"] == "TG001"


UNSUPPORTED = [
    # (params, extra module lines, expected location "line:col", message fragment)
    ("x: T", "from typing import TypeVar\nT = TypeVar('T')", "6:15", "`T` is bound to a call"),
    ("x: P", "from typing import ParamSpec\nP = ParamSpec('P')", "6:15", "`P` is bound to a call"),
    (
        "x: Greeter",
        "from typing import Protocol\nclass Greeter(Protocol):\n    name: str",
        "7:15",
        "`Greeter` (bad.Greeter) is not a supported type",
    ),
    ("x: int, **rest: int", "", "5:22", "`**rest` cannot be described"),
    ("x: int, /, y: int = 1", "", "5:12", "parameter `x` is positional-only"),
    (
        "x: SkipJsonSchema[int]",
        "from pydantic.json_schema import SkipJsonSchema",
        "5:15",
        "SkipJsonSchema[...] is supported as a union member only",
    ),
    ("x: Pair[int]", "Pair = tuple", "5:15", "generic alias `Pair[int]` not supported"),
    ("x: Annotated[str, Field(ge=1)]", "from typing import Annotated\nfrom pydantic import Field",
     "6:25", "constraint `ge` does not apply to a schema of type string"),
    # found by fuzzing (tests/test_fuzz.py): a traceback, or "nests too deeply" at the def
    ("x: Annotated", "from typing import Annotated", "5:15",
     "`Annotated`: Annotated takes a type and at least one metadata item"),
    ("x: 'Annotated[()]'", "from typing import Annotated", "5:15",
     "`Annotated[()]`: Annotated takes a type and at least one metadata item"),
    ("x: Annotated[int]", "from typing import Annotated", "5:15",
     "`Annotated[int]`: Annotated takes a type and at least one metadata item"),
    ("x: dict[str]", "", "5:15", "`dict[str]`: a mapping takes two types, keys and values"),
    ("x: A", "from pydantic import BaseModel\nclass A(B, BaseModel):\n    a: int\nclass B(A):\n"
     "    b: int", "5:9", "the bases of class `B` lead back to it (B -> A -> B)"),
    ("x: E", "from enum import Enum\nclass E(Enum):\n    A = 1\n    B = E.A", "5:9",
     "TG205 [error] `E.A`: the member values of enum E refer back to it"),
    ("x: float = 1e999", "", "5:23",
     "TG206 [error] default `1e309`: inf (NaN, Infinity or out of range) has no JSON form"),
    ("x: Literal[1j]", "from typing import Literal", "5:23",
     "TG205 [error] `1j`: 1j has no JSON form"),
]  # fmt: skip


@pytest.mark.parametrize(("params", "extra", "where", "message"), UNSUPPORTED)
def test_unsupported_construct_is_a_located_diagnostic(
    built: Project, run, params: str, extra: str, where: str, message: str
) -> None:
    built.write("src/bad.py", tool_source(params=params, imports=extra))
    out = _fails(built, run, 1, message)
    assert f"src/bad.py:{where}: TG20" in out


def test_non_literal_field_argument(built: Project, run) -> None:
    source = tool_source(
        params="n: Annotated[int, Field(ge=LIMIT)]",
        imports="from typing import Annotated\nfrom pydantic import Field\nimport os\n"
        "LIMIT = os.cpu_count()",
    )
    built.write("src/bad.py", source)
    _fails(
        built,
        run,
        1,
        "src/bad.py:5:9: TG205 [error] `LIMIT` is bound to `os.cpu_count()`, which calls "
        "`os.cpu_count`, from outside the project's sources: its result is known only at run time",
    )


def test_missing_return_annotation_is_a_warning(built: Project, run) -> None:
    built.write("src/extra.py", tool_source(name="extra").replace(" -> str:", ":"))
    result = run("build", cwd=built.root)
    assert result.code == 0
    assert "src/extra.py:5:1: TG207 [warning] `extra` has no return annotation" in result.out


def test_docstring_entry_for_a_missing_parameter_is_a_warning(built: Project, run) -> None:
    doc = "        query: Words.\n        limit: Not a parameter any more."
    built.write("src/extra.py", tool_source(name="extra", args_doc=doc))
    result = run("build", cwd=built.root)
    assert result.code == 0
    assert "src/extra.py:10:9: TG302 [warning] docstring describes `limit`" in result.out


def test_recursive_model_is_left_out_of_gemini_with_a_warning(built: Project, run) -> None:
    models = (
        "from __future__ import annotations\nfrom pydantic import BaseModel\n"
        "class Node(BaseModel):\n    children: list[Node] = []"
    )
    built.write("src/tree.py", tool_source(name="tree", params="root: Node", imports=models))
    result = run("build", cwd=built.root)
    assert result.code == 0
    assert "src/tree.py:8:1: TG602 [warning] tool tree: Gemini: " in result.out
    assert "recursive model Node cannot be inlined" in result.out
    gemini = built.generated("gemini/function_declarations.json")["function_declarations"]
    assert [d["name"] for d in gemini] == ["get_good"]
    assert "tree" in [t["name"] for t in built.generated("mcp/tools.json")["tools"]]


def test_every_rule_is_exercised_by_a_test() -> None:
    from pathlib import Path

    from toolgen.breaking import BREAKING_RULES
    from toolgen.diagnostics import RULES

    tests = "".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    rule_ids = {code: rule for rule, (_, code) in BREAKING_RULES.items()}  # tested by rule id
    untested = [
        code for code in RULES if code not in tests and f'"{rule_ids.get(code, code)}' not in tests
    ]
    assert untested == []


@pytest.mark.parametrize(
    ("generator", "where"),
    [
        ("lambda name: name.upper()", "src/shop.py:5:47"),
        ("AliasGenerator(validation_alias=str.upper)", "src/shop.py:5:79"),
    ],
)
def test_an_alias_generator_toolgen_cannot_run(
    built: Project, run, generator: str, where: str
) -> None:
    """A model's properties would be named by code toolgen does not run: a located error, not
    a schema with the wrong property names. pydantic's own generators are applied
    (`aliased` in the zoo)."""
    built.write(
        "src/shop.py",
        f"""
        from pydantic import AliasGenerator, BaseModel, ConfigDict
        from toolgen import tool

        class Query(BaseModel):
            model_config = ConfigDict(alias_generator={generator})
            text: str

        @tool
        def find(query: Query) -> int:
            '''Find things.

            Args:
                query: What to find.
            '''
            return 0
        """,
    )
    out = _fails(built, run, 1, f"{where}: TG202 [error] alias_generator")
    assert "cannot be applied without running it" in out


def test_a_validation_alias_that_names_nothing(built: Project, run) -> None:
    built.write(
        "src/shop.py",
        tool_source(
            name="find",
            params="query: str = Field('', validation_alias=3)",
            imports="from pydantic import Field",
        ),
    )
    _fails(built, run, 1, "TG205 [error] Field(validation_alias=...) must be a string")


def test_a_union_of_none_and_a_type_pydantic_only_checks_is_no_schema(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    """In the MCP SDK's model `bytearray` is left out of a union; with nothing but `None`
    left, pydantic has no schema to give, and toolgen says so rather than publish
    `{"type": "null"}`."""
    project.write(
        "pyproject.toml", '[tool.toolgen]\nsources = ["src"]\nmarkers = ["mcp"]\nmin_level = 0\n'
    )
    project.write(
        "src/server.py",
        "from mcp.server.mcpserver import MCPServer\n\n"
        "mcp = MCPServer('s')\n\n\n"
        "@mcp.tool()\n"
        "def put(value: None | bytearray = None) -> str:\n"
        '    """Put a value."""\n'
        "    return ''\n",
    )
    result = run("build", cwd=project.root)
    assert result.code == 1
    assert "src/server.py:7:23: TG202 [error] `bytearray` (builtins.bytearray)" in result.out
