"""Static value folding (issue 16, parts 4 and 5): what toolgen reads from source, compared with
what Python, pydantic and FastMCP compute when the fixture code runs.

The fixtures (tests/fixtures/folding/) are imported here, and only here, to ask Python for the
values; toolgen itself reads them as text.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import importlib
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from conftest import Project, tool_source
from runtime_oracle import closed_as_toolgen_closes, comparable, drop_titles
from toolgen.analyze import scopes
from toolgen.analyze.decorators import decorator_options
from toolgen.analyze.folding import NotStatic, enum_values, fold
from toolgen.analyze.handlers import Handler
from toolgen.analyze.markers import PRESETS
from toolgen.analyze.scopes import Scope
from toolgen.config import load_config
from toolgen.descriptor import ToolDescriptor
from toolgen.pipeline import generate
from toolgen.read.index import Module, ModuleIndex

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"


def _index(root: Path) -> ModuleIndex:
    return ModuleIndex([root], lambda p: p.relative_to(root).as_posix())


def _module(name: str) -> Any:
    if str(FIXTURES) not in sys.path:
        sys.path.insert(0, str(FIXTURES))
    return importlib.import_module(name)


def _assignments(module: Module) -> dict[str, ast.expr]:
    return {
        stmt.targets[0].id: stmt.value
        for stmt in module.tree.body
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)
    }


def _as_json(value: Any) -> Any:
    """A run-time value as toolgen writes it: members as values, tuples as lists, sets sorted."""
    if isinstance(value, Enum):
        return _as_json(value.value)
    if isinstance(value, list | tuple):
        return [_as_json(v) for v in value]
    if isinstance(value, set | frozenset):
        items = [_as_json(v) for v in value]
        try:
            return sorted(items)
        except TypeError:  # items that do not compare: by their repr, as toolgen orders them
            return sorted(items, key=repr)
    if isinstance(value, dict):  # keys as pydantic writes them: members by their value
        return {str(_as_json(k)): _as_json(v) for k, v in value.items()}
    return value


# -- folding against Python ------------------------------------------------------------------
FOLDED = _assignments(_index(FIXTURES).get("folding.values") or pytest.fail("no fixture"))


@pytest.mark.parametrize("name", list(FOLDED))
def test_folded_value_equals_what_python_computes(name: str) -> None:
    """Constants through imports, arithmetic, f-strings, `%` and `.format`, sets (sorted),
    enum members, class attributes, helpers (keywords, branches, `*args`), builtins, string
    methods and subscripts: each value in folding/values.py folds to what Python makes of it."""
    index = _index(FIXTURES)
    module = index.get("folding.values")
    assert module is not None
    static = fold(_assignments(module)[name], module, index)
    assert static == _as_json(getattr(_module("folding.values"), name))


def test_every_kind_of_value_is_in_the_fixture() -> None:
    assert len(FOLDED) >= 25


def test_enum_values_are_what_pydantic_lists() -> None:
    """Values as `enum` assigns them (`auto()`, aliases), in the order pydantic's schema has."""
    index = _index(FIXTURES)
    module = index.get("folding.consts")
    assert module is not None
    consts = _module("folding.consts")
    for stmt in module.tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name != "Defaults":
            schema = TypeAdapter(getattr(consts, stmt.name)).json_schema()
            assert list(enum_values(stmt, module, index).values()) == schema["enum"], stmt.name


# -- what is not static, and why -------------------------------------------------------------
HELPERS = """
import functools
from enum import Enum, IntEnum


class Color(str, Enum):
    RED = "red"


def looping():
    for _ in range(2):
        pass
    return 1


def passthrough(fn):
    return fn


@passthrough
def decorated():
    return 1


@functools.cache
def cached():
    return 2


async def coroutine():
    return 1


def pair(a, b):
    return [a, b]


def again(n):
    return again(n)


class Size(IntEnum):
    LARGE = 2
"""

CASES = """
import os

from pkg.broken import SIZE
from pkg.helpers import Color, Size, again, cached, coroutine, decorated, looping, pair

ENVIRONMENT = os.environ.get("PAGE", "20")
UNDEFINED = missing + 1
SET_ORDER = list({"b", "a"})
FUNCTION = looping
LOOPING = looping()
DECORATED = decorated()
CACHED = cached()
COROUTINE = coroutine()
MISSING_ARGUMENT = pair(1)
RECURSION = again(1)
CYCLE_A = CYCLE_B
CYCLE_B = CYCLE_A
MIXED_TEXT = f"{Color.RED}"
LOCALE_SPEC = f"{3:n}"
WIDE_SPEC = f"{3:>1000}"
HUGE = "x" * 10**9
ZERO = 1 / 0
METHOD = "ab".title()
FROM_BROKEN = SIZE
COMPREHENSION = [x for x in {"a", "b"}]
INDEX_FIELD = "{0[0]}".format("ab")
NOT_JSON = 1e999
ALIAS = FROM_BROKEN
INT_TEXT = str(Size.LARGE)


def factory(namespace, *, limit=20):
    twice = 1
    twice = 2
    for looped in range(3):
        pass
    used_early = later
    later = 1
    USE_NAMESPACE = namespace + "x"
    USE_TWICE = twice
    USE_LOOPED = looped
    USE_LIMIT = limit + 1
    return used_early
"""

#: name -> (line:col of the diagnostic, why)
REFUSED = {
    "ENVIRONMENT": (
        "6:15",
        "`os.environ.get('PAGE', '20')` calls `os.environ.get`, from outside the project's "
        "sources: its result is known only at run time",
    ),
    "UNDEFINED": ("7:13", "`missing` is not defined in module `pkg.cases`"),
    "SET_ORDER": (
        "8:13",
        "`list({'b', 'a'})` puts a set's items in a row, in an order decided at run time "
        "(use sorted(...))",
    ),
    "FUNCTION": ("9:12", "`looping` is a function, not a value"),
    "LOOPING": (
        "10:11",
        "`looping()` calls `looping` (pkg/helpers.py:9:1); line 10 of `looping` is a `for` "
        "loop: toolgen evaluates helpers made of assignments, `if`s and `return`s",
    ),
    "DECORATED": (
        "11:13",
        "`decorated()` calls `decorated`, which is decorated with `@passthrough`: toolgen does "
        "not run what that makes of it",
    ),
    "COROUTINE": (
        "13:13",
        "`coroutine()` calls `coroutine`, a coroutine function: it makes no value itself",
    ),
    "MISSING_ARGUMENT": (
        "14:20",
        "`pair(1)` calls `pair` (pkg/helpers.py:33:1), which raises TypeError (pair() missing "
        "required argument: 'b')",
    ),
    "RECURSION": ("15:13", "`again(n)` refers back to itself (again(1) -> again(n))"),
    "CYCLE_A": ("16:11", "`CYCLE_B` refers back to itself (CYCLE_B -> CYCLE_A -> CYCLE_B)"),
    "MIXED_TEXT": (
        "18:14",
        "`f'{Color.RED}'` prints `Color.RED` through format(), which Python 3.10 and 3.11 print "
        "differently: use `.value` or `.name`",
    ),
    "LOCALE_SPEC": ("19:15", "`f'{3:n}'` uses the format spec `n`, which toolgen does not apply"),
    "WIDE_SPEC": (
        "20:13",
        "`f'{3:>1000}'` uses the format spec `>1000`, which toolgen does not apply",
    ),
    "HUGE": ("21:8", "`'x' * 10 ** 9` makes a value too large to fold"),
    "ZERO": ("22:8", "`1 / 0` raises ZeroDivisionError (division by zero)"),
    "METHOD": (
        "23:10",
        "`'ab'.title()` calls the method `title` of a str, which toolgen does not evaluate",
    ),
    "FROM_BROKEN": ("24:15", "`SIZE` is imported from `pkg.broken`, which toolgen could not read"),
    "COMPREHENSION": (
        "25:29",
        "`{'a', 'b'}` puts a set's items in a row, in an order decided at run time "
        "(use sorted(...))",
    ),
    "INDEX_FIELD": (
        "26:15",
        "`'{0[0]}'.format('ab')` has a placeholder toolgen does not fill (`{0[0]}`)",
    ),
    "NOT_JSON": ("27:12", "`1e309`: inf (NaN, Infinity or out of range) has no JSON form"),
    "ALIAS": (
        "24:15",
        "`FROM_BROKEN` is bound to `SIZE`, which is imported from `pkg.broken`, which toolgen "
        "could not read",
    ),
    "INT_TEXT": (
        "29:12",
        "`str(Size.LARGE)` prints `Size.LARGE` through str(), which Python 3.10 and 3.11 print "
        "differently: use `.value` or `.name`",
    ),
    "used_early": ("37:18", "`later` is assigned in `factory` only after this point (line 38)"),
    "USE_NAMESPACE": (
        "39:21",
        "`namespace` is a parameter of `factory` without a default: its value is known only "
        "when `factory` is called",
    ),
    "USE_TWICE": ("40:17", "`twice` is assigned more than once in `factory`"),
    "USE_LOOPED": ("41:18", "`looped` is bound by a `for` loop in `factory`"),
}


@pytest.fixture
def cases(project: Project) -> tuple[ModuleIndex, Module]:
    project.write("pkg/__init__.py", "")
    project.write("pkg/broken.py", "SIZE = 3\ndef f(:\n")
    project.write("pkg/helpers.py", HELPERS)
    project.write("pkg/cases.py", CASES)
    index = _index(project.root)
    module = index.get("pkg.cases")
    assert module is not None
    return index, module


def _fold_all(index: ModuleIndex, module: Module) -> dict[str, Any]:
    """Each assignment of the module (and of its functions, in their scope) folded: the value,
    or ("line:col", why)."""
    out: dict[str, Any] = {}
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = fold(node.value, module, index, Scope(module, node))
            except NotStatic as exc:
                where = exc.module.location(exc.node)
                assert exc.module is module, "located in the module folded"
                out[node.targets[0].id] = (f"{where.line}:{where.col}", exc.why)
    return out


@pytest.mark.parametrize("name", list(REFUSED))
def test_what_is_not_static_says_where_and_why(
    cases: tuple[ModuleIndex, Module], name: str
) -> None:
    assert _fold_all(*cases)[name] == REFUSED[name]


def test_what_is_static_in_the_same_module_folds(cases: tuple[ModuleIndex, Module]) -> None:
    """A transparent decorator (`functools.cache`) and a factory parameter's default fold."""
    folded = _fold_all(*cases)
    assert folded["CACHED"] == 2
    assert folded["USE_LIMIT"] == 21


def test_a_scope_is_found_only_around_its_node(cases: tuple[ModuleIndex, Module]) -> None:
    """A node at module level has no functions around it; one in a factory has the factory."""
    _, module = cases
    factory = next(s for s in module.tree.body if isinstance(s, ast.FunctionDef))
    assert Scope(module, module.tree.body[0]).frames == ()
    assert Scope(module, factory.body[-1]).frames == (factory,)
    assert Scope(module, factory).frames == ()  # its decorators and defaults: outside it


# -- parameter defaults that are pydantic fields (part 5) -------------------------------------
def _static(config: str) -> dict[str, ToolDescriptor]:
    result = generate(load_config(FIXTURES / config, cwd=REPO))
    assert [d.format_text() for d in result.diagnostics if d.severity.value == "error"] == []
    return {d.name: d for d in result.descriptors}


def _field_handlers() -> dict[str, Any]:
    fields = _module("folding.fields")
    return {
        "field_defaults": fields.field_defaults,
        "constant_fields": fields.constant_fields,
        "nested_search": fields.make_tools()[0],
    }


@pytest.mark.parametrize("name", list(_field_handlers()))
def test_field_defaults_equal_what_pydantic_validate_call_publishes(name: str) -> None:
    """`Field(...)`, `Field(None)`, `Field(default=)`, `Field(100, ge=1)`, `default_factory`,
    `Annotated[T, Field()] = default`, constants inside fields, and a factory's parameter
    defaults: toolgen's schema equals `TypeAdapter(fn).json_schema()` (FastMCP's source too),
    titles dropped and docstring descriptions kept only where pydantic has one."""
    runtime = drop_titles(TypeAdapter(_field_handlers()[name]).json_schema())
    runtime.pop("additionalProperties")  # pydantic closes the root as toolgen does
    runtime = closed_as_toolgen_closes(runtime)
    assert comparable(_static("folding.toml")[name].parameters, runtime) == runtime


def test_field_defaults_that_are_required_or_made_by_a_factory() -> None:
    schema = _static("folding.toml")["field_defaults"].parameters
    assert schema["required"] == ["query", "scope", "strict"]
    assert "default" not in schema["properties"]["labels"]  # default_factory: not shown
    assert schema["properties"]["query"]["description"] == "What to look for."  # Field wins


# -- a FastMCP factory, against what FastMCP publishes ---------------------------------------
def test_factory_server_equals_what_fastmcp_publishes() -> None:
    """Names `prefix + "..."` from the factory's parameter default, tags from constants,
    annotations from helpers, defaults from the factory's parameters."""
    pytest.importorskip("fastmcp")
    ours = _static("folding_fastmcp.toml")
    published = asyncio.run(_module("folding.server").create_server().list_tools())
    assert sorted(ours) == sorted(t.name for t in published)
    hints = {
        "readOnlyHint": "safe",
        "destructiveHint": "destructive",
        "idempotentHint": "idempotent",
        "openWorldHint": "open_world",
    }
    for tool in published:
        mine = ours[tool.name]
        assert drop_titles(mine.parameters) == drop_titles(tool.parameters), tool.name
        annotations = tool.annotations.model_dump(by_alias=True, exclude_none=True)
        assert mine.title == annotations.pop("title", None)
        expected = {hints[k]: v for k, v in annotations.items()}
        assert mine.idempotency.model_dump(exclude_none=True) == expected, tool.name
        assert (mine.tool_search_keywords or []) == sorted(tool.tags)


# -- in a build ------------------------------------------------------------------------------
def test_decorator_values_fold_and_a_run_time_one_costs_only_its_tool(
    project: Project, run
) -> None:
    project.write(
        "src/tools.py",
        tool_source(
            name="kept",
            decorator="@tool(risk=LEVELS[-1], keywords=sorted({BASE, 'search'}))",
            imports="import os\nBASE = 'catalog'\nLEVELS = ('low', 'high')",
        )
        + "\n\n"
        + tool_source(name="lost", decorator="@tool(version=os.environ['V'])").split("\n", 2)[2],
    )
    result = run("build", cwd=project.root)
    assert result.code == 1
    errors = [line for line in result.out.splitlines() if "[error]" in line]
    assert errors == [
        "src/tools.py:17:15: TG401 [error] @tool argument `version` is not a value toolgen can "
        "read statically: `os.environ` is from outside the project's sources, which toolgen "
        "does not read"
    ]


def test_a_folded_decorator_value_reaches_the_descriptor(project: Project, run) -> None:
    project.write(
        "src/tools.py",
        tool_source(
            decorator="@tool(risk=LEVELS[-1], keywords=sorted({BASE, 'search'}))",
            imports="BASE = 'catalog'\nLEVELS = ('low', 'high')",
        ),
    )
    assert run("build", cwd=project.root).code == 0
    descriptor = project.descriptor("lookup")
    assert descriptor["risk"] == "high"
    assert descriptor["tool_search_keywords"] == ["catalog", "search"]


def test_a_default_from_an_unreadable_module_says_so(project: Project, run) -> None:
    project.write("src/limits.py", "PAGE = 10\ndef broken(:\n")
    project.write(
        "src/tools.py", tool_source(params="n: int = PAGE", imports="from limits import PAGE")
    )
    result = run("build", cwd=project.root)
    assert (
        "src/tools.py:5:21: TG206 [error] default `PAGE` is imported from `limits`, which "
        "toolgen could not read"
    ) in result.out
    assert "src/limits.py:2:12: TG101 [error] cannot parse" in result.out


FASTMCP_CONFIG = """
[tool.toolgen]
sources = ["src"]
out = "generated"
markers = ["fastmcp"]
min_level = 0
"""


SERVER = """
from fastmcp import FastMCP

mcp = FastMCP("shop")
PREFIX = "shop_"


@mcp.tool(PREFIX + "find")
def find(query: str) -> str:
    \"\"\"Find a product.\"\"\"
    return query
"""

ODD = """

@mcp.tool(annotations=["readOnlyHint"])
def odd(query: str) -> str:
    \"\"\"Odd annotations.\"\"\"
    return query
"""


def test_a_framework_decorator_folds_a_positional_name_and_refuses_odd_annotations(
    project: Project, run
) -> None:
    project.write("pyproject.toml", FASTMCP_CONFIG)
    project.write("src/server.py", SERVER + ODD)
    result = run("build", cwd=project.root)
    errors = [line for line in result.out.splitlines() if "[error]" in line]
    assert errors == [
        "src/server.py:13:23: TG401 [error] @mcp.tool argument `annotations` must be a dict or "
        "ToolAnnotations(...), not a list"
    ]
    project.write("src/server.py", SERVER)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert project.descriptor("shop_find")["source"]["qualname"] == "find"


def test_a_factory_s_names_are_read_once_however_many_tools_it_holds(
    project: Project, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a factory binds is worked out once per function, not once per tool (the names of
    40 tools all read the factory's `prefix`)."""
    calls: list[str] = []
    original = scopes.frame_bindings

    def counted(frame: scopes.ScopeNode) -> dict[str, scopes.Binding]:
        calls.append(getattr(frame, "name", "?"))
        return original(frame)

    monkeypatch.setattr(scopes, "frame_bindings", counted)
    tools = "".join(
        f'\n    @mcp.tool(name=prefix + "t{i}")\n    def t{i}(q: str, n: int = limit) -> str:\n'
        f'        """Tool {i}."""\n        return q\n'
        for i in range(40)
    )
    project.write("pyproject.toml", FASTMCP_CONFIG)
    project.write(
        "src/server.py",
        "from fastmcp import FastMCP\n\n\ndef create(namespace: str = 'ns', limit: int = 5):\n"
        "    mcp = FastMCP('x')\n    prefix = namespace + '_'\n" + tools + "    return mcp\n",
    )
    assert run("build", cwd=project.root).code == 0
    assert project.descriptor("ns_t39")["parameters"]["properties"]["n"]["default"] == 5
    assert calls == ["create"]


def test_a_build_after_editing_what_a_value_folds_from_sees_the_edit(project: Project, run) -> None:
    """The cache keeps a file's tools with every module their values were folded from: a new
    constant, or a helper's new body, in another file reaches the next build."""
    project.write("src/limits.py", "PAGE = 10\n\n\ndef level():\n    return 'low'\n")
    project.write(
        "src/tools.py",
        tool_source(
            decorator="@tool(risk=level())",
            params="query: str, n: int = PAGE",
            imports="from limits import PAGE, level",
        ),
    )
    assert run("build", cwd=project.root).code == 0
    assert (project.root / ".toolgen_cache").is_dir()  # the second build may use it
    project.write("src/limits.py", "PAGE = 25\n\n\ndef level():\n    return 'high'\n")
    assert run("build", cwd=project.root).code == 0
    descriptor = project.descriptor("lookup")
    assert descriptor["parameters"]["properties"]["n"]["default"] == 25
    assert descriptor["risk"] == "high"


def test_a_function_passed_where_a_name_may_be_is_no_problem(project: Project) -> None:
    """`mcp.tool(fn)` registers `fn` (a call-form registration): its first argument is no
    tool name, while `mcp.tool(NAME)` with `NAME` unknown is TG401 (the interpreter saw a
    name given there that it cannot know: `Handler.unknown`)."""
    project.write(
        "src/server.py",
        "from fastmcp import FastMCP\nmcp = FastMCP('x')\n\n\ndef search(q: str) -> str:\n"
        "    return q\n\n\nmcp.tool(search)\nmcp.tool(NAME)\n",
    )
    index = _index(project.root / "src")
    module = index.get("server")
    assert module is not None
    search = next(s for s in module.tree.body if isinstance(s, ast.FunctionDef))
    calls = [s.value for s in module.tree.body if isinstance(s, ast.Expr)]
    infos = [
        decorator_options(
            Handler(
                module,
                search,
                "search",
                call,
                False,
                False,
                PRESETS["fastmcp"],
                "tool",
                unknown=frozenset({"name"}) if i else frozenset(),
            ),
            index,
        )
        for i, call in enumerate(calls)
    ]
    assert (infos[0].options, infos[0].problems) == ({}, [])
    assert [d.format_text() for d in infos[1].problems] == [
        "server.py:10:10: TG401 [error] @mcp.tool argument `name` is not a value toolgen can "
        "read statically: `NAME` is not defined in module `server`"
    ]


LITERALS = [
    "1",
    "'text'",
    "None",
    "-1",
    "1 + 2j",
    "(1, 'a')",
    "[1, [2, 3]]",
    "{'a': 1}",
    "{1, 2}",
    "set()",
    "name",
    "module.attribute",
    "f(1)",
    "1 if x else 2",
    "[i for i in x]",
    "-'a'",
    "...",
]


@pytest.mark.parametrize("text", LITERALS)
def test_a_literal_is_read_as_ast_literal_eval_reads_it(text: str) -> None:
    from toolgen.analyze.literals import literal_value

    node = ast.parse(text, mode="eval").body

    def outcome(read: Callable[[ast.expr], Any]) -> tuple[str, Any]:
        try:
            return "value", read(node)
        except Exception as exc:  # the kind of error is what callers tell apart
            return "error", type(exc)

    assert outcome(literal_value) == outcome(ast.literal_eval)


def test_reading_constants_leaves_no_cycles_for_the_collector() -> None:
    """`ast.literal_eval` makes four functions that refer to one another on every call: a
    build reads thousands of literals, and each left a cycle for the collector to find."""
    import gc

    from toolgen.analyze.literals import literal_value

    nodes = [ast.parse(text, mode="eval").body for text in ("1", "'a'", "None", "name")]
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for node in nodes * 50:
            with contextlib.suppress(ValueError):
                literal_value(node)
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
