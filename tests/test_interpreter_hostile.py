"""What a red team found in the registration interpreter, each now a located diagnostic or
the tools Python would list: values that grow without end, operations that raise, data that
holds itself, schemas that are none, and results that depended on the order files are read."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from conftest import CONFIG, Project, Run

Runner = Callable[..., Run]

pytest.importorskip("fastmcp")
pytest.importorskip("mcp.server")

MARKERS = 'markers = ["fastmcp", "mcp"]\n'
HEAD = 'from fastmcp import FastMCP\n\nmcp = FastMCP("x")\n\n'
AFTER = '\n\n@mcp.tool\ndef after(x: int) -> int:\n    """After."""\n    return x\n'


def _names(project: Project) -> list[str]:
    found: list[str] = []
    for catalog in sorted(project.out.rglob("mcp/tools.json")):
        tools: list[dict[str, Any]] = json.loads(catalog.read_text())["tools"]
        found += [t["name"] for t in tools]
    return sorted(found)


GROWING = {
    "an integer squared": "x = 2**63\nwhile True:\n    x = x * x\n",
    "a power of a power": "x = 10**60\nx = x**63\nx = x**63\nx = x**63\n",
    "a string doubled": 's = "x"\nwhile True:\n    s = s + s\n',
    "a list doubled": "a = [1]\nwhile True:\n    a = a + a\n",
    "a list extended by itself": "a = [1]\nwhile True:\n    a.extend(a)\n",
    "a string replaced by itself": 's = "x" * 10000\nu = s.replace("x", s)\nv = u.upper()\n',
    "a split into millions": 'p = ("x," * 5000).replace("x", "x," * 5000).split(",")\n',
}


@pytest.mark.parametrize("code", GROWING.values(), ids=GROWING.keys())
def test_a_value_that_grows_without_end_is_unknown_not_computed(
    project: Project, run: Runner, code: str
) -> None:
    project.write("pyproject.toml", CONFIG + MARKERS)
    project.write("src/server.py", HEAD + code + AFTER)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["after"]


RAISING = [
    '"ab".replace("", "ab")',
    '"a b".split(" ", 10**30)',
    '"x".replace("x", "y", 10**30)',
    "[].insert(10**30, 1)",
    "range(1, 10, 0)",
    "range(10**30)",
    '[1, 2]["x":]',
    'f"{(10**63)**63 * (10**63)**63}"',
]


@pytest.mark.parametrize("code", RAISING)
def test_an_operation_that_raises_is_unknown_not_a_traceback(
    project: Project, run: Runner, code: str
) -> None:
    project.write("pyproject.toml", CONFIG + MARKERS)
    project.write("src/server.py", HEAD + f"value = {code}\n" + AFTER)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "Traceback" not in result.out + result.err
    assert _names(project) == ["after"]


def test_data_that_holds_itself_is_a_located_note(project: Project, run: Runner) -> None:
    """A list that holds itself as a tool's tags, a schema that holds itself: the tool is
    known, its data is not (TG106 where it is written), never a recursion error."""
    project.write("pyproject.toml", CONFIG + MARKERS)
    project.write(
        "src/server.py",
        HEAD
        + "tags = []\ntags.append(tags)\n\n\n@mcp.tool(tags=tags)\n"
        + 'def tagged(x: int) -> int:\n    """Tagged."""\n    return x\n',
    )
    project.write(
        "src/low.py",
        "from mcp.server import Server\nfrom mcp.types import Tool\n\nserver = Server('low')\n"
        'schema = {"type": "object"}\nschema["properties"] = schema\n\n\n'
        "@server.list_tools()\nasync def tools():\n"
        '    return [Tool(name="loop", inputSchema=schema)]\n',
    )
    result = run("build", "--verbose", cwd=project.root)
    assert "Traceback" not in result.out + result.err
    assert "src/low.py:11:13: TG106" in result.out, result.out
    assert "holding itself" in result.out


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        ('{"type": 5}', "is no JSON Schema"),
        ('{"type": "object", "properties": [1]}', "is no JSON Schema"),
        ('{"type": "object", "properties": {"a": 5}}', "is no JSON Schema"),
        ('{"type": "string"}', "is no object schema"),
    ],
)
def test_a_listed_schema_that_is_no_object_schema_is_a_located_error(
    project: Project, run: Runner, schema: str, why: str
) -> None:
    project.write("pyproject.toml", CONFIG + MARKERS)
    project.write(
        "src/low.py",
        "from mcp.server import Server\nfrom mcp.types import Tool\n\nserver = Server('low')\n\n\n"
        "@server.list_tools()\nasync def tools():\n"
        f'    return [Tool(name="bad", inputSchema={schema}),\n'
        '            Tool(name="good", inputSchema={"type": "object"})]\n',
    )
    result = run("build", cwd=project.root)
    assert f"src/low.py:9:13: TG403 [error] `bad`: its inputSchema {why}" in result.out
    assert "Traceback" not in result.out + result.err
    assert _names(project) == ["good"]


def test_the_last_tools_list_handler_of_a_server_answers(project: Project, run: Runner) -> None:
    project.write("pyproject.toml", CONFIG + MARKERS)
    handler = (
        "@server.list_tools()\nasync def {0}():\n"
        '    return [Tool(name="{0}", inputSchema={{"type": "object"}})]\n\n\n'
    )
    project.write(
        "src/low.py",
        "from mcp.server import Server\nfrom mcp.types import Tool\n\nserver = Server('low')\n\n\n"
        + handler.format("first")
        + handler.format("second"),
    )
    assert run("build", cwd=project.root).code == 0
    assert _names(project) == ["second"]


def test_a_function_passed_in_a_variable_is_registered_by_its_own_name(
    project: Project, run: Runner
) -> None:
    """`mcp.tool(fn)` with `fn` a loop variable or a parameter: the function, not a name."""
    project.write("pyproject.toml", CONFIG + MARKERS)
    tool = 'def {0}(x: int) -> int:\n    """{0}."""\n    return x\n\n\n'
    project.write(
        "src/server.py",
        HEAD
        + "".join(tool.format(n) for n in ("one", "two", "three"))
        + "for fn in [one, two]:\n    mcp.tool(fn)\n\n\n"
        + "def register(server, fn):\n    server.add_tool(fn)\n\n\nregister(mcp, three)\n",
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert _names(project) == ["one", "three", "two"]


def test_a_decorator_argument_nested_too_deeply_is_tg202(project: Project, run: Runner) -> None:
    project.write("pyproject.toml", CONFIG + MARKERS)
    terms = " + ".join(['"x"'] * 1500)
    project.write(
        "src/server.py",
        HEAD + f"@mcp.tool(description={terms})\n"
        'def chain(x: int) -> int:\n    """Chain."""\n    return x\n' + AFTER,
    )
    result = run("build", cwd=project.root)
    assert "TG202 [error] `chain` nests types or values too deeply" in result.out
    assert "Traceback" not in result.out + result.err
    assert _names(project) == ["after"]


MUTATED = {
    "b.py": 'from fastmcp import FastMCP\n\nmcp = FastMCP("x")\nTOOLS = []\n',
    "a.py": 'import b\n\n\ndef t1(x: int) -> int:\n    """T1."""\n    return x\n\n\n'
    "b.TOOLS.append(t1)\n",
    "c.py": 'import b\n\nfor f in b.TOOLS:\n    b.mcp.tool(name="t1")(f)\n',
    "server.py": "import a\nimport c\n",
}


def _tree(project: Project) -> dict[str, bytes]:
    files = [p for p in project.out.rglob("*") if p.is_file()]
    return {str(p.relative_to(project.out)): p.read_bytes() for p in files}


def test_a_unit_finds_the_same_whatever_the_cache_or_the_file_names(
    project: Project, run: Runner
) -> None:
    """a.py fills b.TOOLS, c.py registers what is in it. Each file's unit evaluates what it
    imports itself, and a module's top level is its own unit's: c.py's unit sees b.TOOLS as
    c.py's own imports leave it (empty). The same from the cache, without it, and with a.py
    named otherwise: it once depended on which unit had run before (a stale cache)."""
    project.write("pyproject.toml", CONFIG + MARKERS + 'rules = {TG107 = "off"}\n')
    for name, text in MUTATED.items():
        project.write(f"src/{name}", text)
    assert run("build", cwd=project.root).code == 0
    first = _tree(project)
    assert "mcp/tools.json" in first
    with (project.root / "src" / "c.py").open("a") as edited:
        edited.write("# edited\n")
    assert run("build", cwd=project.root).code == 0
    assert _tree(project) == first
    assert run("build", "--no-cache", cwd=project.root).code == 0
    assert _tree(project) == first
    (project.root / "src" / "a.py").rename(project.root / "src" / "z.py")
    server = project.root / "src" / "server.py"
    server.write_text(server.read_text().replace("import a\n", "import z\n"))
    assert run("build", "--no-cache", cwd=project.root).code == 0
    assert _tree(project) == first


def _published(project: Project) -> str:
    return "".join(p.read_text() for p in sorted(project.out.rglob("*")) if p.is_file())


def test_a_hidden_file_of_the_project_is_not_read(project: Project, run: Runner) -> None:
    """`.git/config` holds the token CI checked the project out with: no byte of it reaches
    the generated files or a diagnostic (a tool named with it would quote it)."""
    project.write("pyproject.toml", CONFIG + MARKERS)
    project.write(".git/config", "[http]\n\textraheader = AUTHORIZATION: basic SECRET\n")
    project.write(".env", "TOKEN=SECRET\n")
    read = "(Path(__file__).parent.parent / {0!r}).read_text()"
    code = (
        "from pathlib import Path\n\n"
        f"@mcp.tool(name={read.format('.git/config')}, description={read.format('.env')})\n"
        'def t(x: int) -> int:\n    """T."""\n    return x\n'
    )
    project.write("src/server.py", HEAD + code + AFTER)
    result = run("build", cwd=project.root)
    assert "SECRET" not in result.out + result.err + _published(project)
    assert "after" in _names(project)


def test_a_deep_copy_of_data_that_holds_itself_is_its_copy(project: Project, run: Runner) -> None:
    """`copy.deepcopy` of a dict that holds itself ran into Python's recursion limit, and
    the module's registrations after it were lost."""
    project.write("pyproject.toml", CONFIG + MARKERS)
    code = 'import copy\n\nd = {"name": "after"}\nd["self"] = d\nc = copy.deepcopy(d)\n'
    code += 'NAME = c["self"]["self"]["name"]\n'
    tool = AFTER.replace("@mcp.tool\n", "@mcp.tool(name=NAME)\n").replace("after(", "f(")
    project.write("src/server.py", HEAD + code + tool)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert "recursion" not in result.out
    assert _names(project) == ["after"]


def test_a_yaml_document_of_more_values_than_held_is_not_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PyYAML makes the whole node graph before a value is made (a 30 MB flow list took 6 GB
    and a minute): its events are counted first."""
    yaml = pytest.importorskip("yaml")
    from toolgen.read.registration import data

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("loaded")

    monkeypatch.setattr(data, "MAX_DATA_VALUES", 100)
    monkeypatch.setattr(yaml, "load", refuse)
    with pytest.raises(data.TooLarge):
        data._yaml("[" + "1," * 1000 + "1]")


def test_a_loop_of_slow_steps_stops_at_the_time_budget(
    project: Project, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A load is one step however long it takes: the time was looked at every 1024 steps, so
    a loop of loads of a large document ran for hours. It is looked at after each."""
    import time

    from toolgen.read.registration import data, interpreter

    slow = data.load

    def load(*args: Any) -> Any:
        time.sleep(0.05)
        return slow(*args)

    monkeypatch.setattr(interpreter, "MAX_SECONDS", 0.3)
    monkeypatch.setattr(interpreter.data, "load", load)
    project.write("pyproject.toml", CONFIG + MARKERS)
    code = "import json\n\nfor i in range(5000):\n    json.loads('[1]')\n"
    project.write("src/server.py", HEAD + code + AFTER)
    started = time.monotonic()
    run("build", "--no-cache", "--verbose", cwd=project.root)
    assert time.monotonic() - started < 5


def test_a_folder_of_more_names_than_a_list_holds_is_unknown(
    project: Project, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pkgutil.iter_modules` looked at each of 100,000 folders (16 s, one step)."""
    from toolgen.read.registration import files, stdlib

    monkeypatch.setattr(stdlib, "MAX_ITEMS", 5)
    monkeypatch.setattr(files, "MAX_ITEMS", 5)
    project.write("pyproject.toml", CONFIG + MARKERS)
    for i in range(6):
        project.write(f"src/many/d{i}/__init__.py", "")
    code = (
        "import pkgutil\nfrom pathlib import Path\n\nHERE = Path(__file__).parent\n"
        'A = [m[1] for m in pkgutil.iter_modules([str(HERE / "many")])]\n'
        'B = [p.name for p in (HERE / "many").iterdir()]\n'
        'NAME = "none" if A or B else "after"\n'
    )
    tool = AFTER.replace("@mcp.tool\n", "@mcp.tool(name=NAME)\n").replace("after(", "f(")
    project.write("src/server.py", HEAD + code + tool)
    result = run("build", cwd=project.root)
    assert "none" not in _names(project), result.out


def test_a_name_left_out_is_printed_on_one_line(project: Project, run: Runner) -> None:
    """A line break in a tool's name started a line of its own: `::error ...` there is a
    workflow command GitHub's runner acts on."""
    project.write("pyproject.toml", CONFIG + MARKERS)
    code = '@mcp.tool(name="a\\n::error::forged")\n'
    code += 'def t(x: int) -> int:\n    """T."""\n    return x\n'
    project.write("src/server.py", HEAD + code + AFTER)
    for fmt in ("text", "github"):
        result = run("build", "--format", fmt, cwd=project.root)
        assert "\n::error::forged" not in result.out + result.err


@pytest.mark.parametrize(
    "code",
    [
        'import importlib\n\nimportlib.import_module("")\n',
        'import importlib\n\nimportlib.import_module("a..b")\n',
        'import importlib\n\nimportlib.import_module("a" * 10000)\n',
        "import " + "a" * 300 + "\n",
    ],
    ids=["empty", "empty part", "long", "long statement"],
)
def test_a_module_name_no_file_can_have_is_no_traceback(
    project: Project, run: Runner, code: str
) -> None:
    project.write("pyproject.toml", CONFIG + MARKERS)
    project.write("src/server.py", HEAD + code + AFTER)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out + result.err
    assert _names(project) == ["after"]
