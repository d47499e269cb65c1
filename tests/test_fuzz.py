"""Fuzzing: broken, odd, deep, huge and hostile handler sources give diagnostics, never a
traceback, and never a write outside `out`.

Every example runs `toolgen build` in-process (like conftest's `run`) in a fresh project under
a parent folder of its own, then checks the same things:

- exit 0, 1 or 2; nothing on stderr (no "Traceback", no "toolgen: internal error");
- exit 1 or 2 comes with an error-level TG diagnostic and nothing written to `out`;
- exit 0 leaves valid UTF-8 JSON in `out`, and `toolgen check` is clean right after;
- the project outside `out` is byte for byte what it was (toolgen's own lock file and cache
  folder aside), and nothing appears beside the project.

Hypothesis runs derandomized (the same examples on every run) with a bounded number of
examples, so the suite is repeatable in CI. For a longer, random hunt:
`TOOLGEN_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz.py`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, currently_in_test_context, event, example, given, settings
from hypothesis import strategies as st

from conftest import REPO, tool_source
from toolgen.analyze.decorators import DECORATOR_KEYS
from toolgen.cli import main

DEEP = int(os.environ.get("TOOLGEN_FUZZ_EXAMPLES", "0"))


def fuzz(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Hypothesis settings: `examples` fixed examples, or a random hunt when asked for one."""
    return settings(
        max_examples=DEEP or examples,
        derandomize=not DEEP,
        deadline=None,
        database=None,  # no example database: every run starts from the same examples
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


CONFIG = """\
[tool.toolgen]
sources = ["src"]
out = "generated"
min_level = 0
"""

#: What a build may leave in the project outside `out`: the cache folder (the build lock is
#: a `flock` on the project folder itself: no file).
CACHE_DIRS = (".toolgen_cache", ".toolgen-cache")
ERROR = re.compile(r"\bTG\d{3} \[error\]")
ERROR_CODE = re.compile(r"\b(TG\d{3}) \[error\]")


# -- running toolgen on one source --------------------------------------------------------------
def _run(root: Path, *args: str) -> tuple[int, str, str]:
    """`toolgen ARGS` in `root`; stdout as a strict UTF-8 stream, like a real terminal's."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    err = io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    out.flush()
    return code, out.buffer.getvalue().decode("utf-8"), err.getvalue()


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the project outside `out`, lock file and cache folder aside."""
    found: dict[str, bytes] = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if here == root:
            dirs[:] = [d for d in dirs if d not in ("generated", *CACHE_DIRS)]
        for name in files:
            path = here / name
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


@contextlib.contextmanager
def _project(files: dict[str, str | bytes], config: str = CONFIG) -> Iterator[Path]:
    """A fresh project (`parent/proj`) holding `files`, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="toolgen-fuzz-") as tmp:
        parent = Path(tmp) / "parent"
        root = parent / "proj"
        (root / "src").mkdir(parents=True)
        (root / "pyproject.toml").write_text(config, encoding="utf-8")
        for relpath, content in files.items():
            path = root / relpath
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):  # as given: no newline translation, BOM and NUL kept
                content = content.encode("utf-8", "surrogatepass")
            path.write_bytes(content)
        yield root


def assert_diagnostics_only(files: dict[str, str | bytes], config: str = CONFIG) -> tuple[int, str]:
    """Build a project of `files` and check the contract above; returns (exit code, stdout)."""
    with _project(files, config) as root:
        before = _snapshot(root)
        code, out, err = _run(root, "build")
        assert err == "", f"stderr must stay empty:\n{err[-3000:]}"
        assert "Traceback" not in out and "internal error" not in out, out[-3000:]
        assert code in (0, 1, 2), out[-3000:]
        generated = root / "generated"
        if code:
            assert ERROR.search(out), f"exit {code} without an error diagnostic:\n{out[-3000:]}"
            assert not generated.exists(), "a failing build must write nothing"
        else:
            written = [p for p in generated.rglob("*") if p.is_file()]
            assert written, out[-3000:]
            for path in written:
                text = path.read_bytes().decode("utf-8")  # strict: valid UTF-8
                if path.suffix == ".json":
                    json.loads(text)
            check_code, check_out, check_err = _run(root, "check")
            assert (check_code, check_err) == (0, ""), check_out[-3000:]
            assert "is up to date" in check_out
        assert _snapshot(root) == before, "nothing outside `out` may change"
        if currently_in_test_context():  # --hypothesis-show-statistics shows the mix
            event(f"exit {code}: {' '.join(sorted(set(ERROR_CODE.findall(out))))}")
        assert sorted(p.name for p in root.parent.iterdir()) == ["proj"], "nothing beside it"
    return code, out


# -- seeds: real handler modules of the repository, read as text (never imported) ---------------
FRAMEWORKS = REPO / "tests" / "fixtures" / "frameworks"
#: Each seed module, built on its own (`sources` is that one file, beside its package), with the
#: markers it is written for.
SEEDS: dict[str, tuple[Path, str]] = {
    **{
        f"support/{p.name}": (p, 'markers = ["toolgen"]')
        for p in sorted((REPO / "examples" / "support").glob("*.py"))
        if p.name not in ("__init__.py", "models.py")
    },
    "frameworks/fastmcp_server.py": (
        FRAMEWORKS / "fastmcp_server.py",
        'markers = ["fastmcp"]\nskip_params = ["user_id"]',
    ),
    "frameworks/mcp_server.py": (FRAMEWORKS / "mcp_server.py", 'markers = ["mcp"]'),
    "frameworks/langchain_tools.py": (FRAMEWORKS / "langchain_tools.py", 'markers = ["langchain"]'),
    "frameworks/agents_tools.py": (FRAMEWORKS / "agents_tools.py", 'markers = ["openai-agents"]'),
    "frameworks/pydanticai_tools.py": (
        FRAMEWORKS / "pydanticai_tools.py",
        'markers = ["pydantic-ai"]',
    ),
}
SEED_TEXT = {name: path.read_text(encoding="utf-8") for name, (path, _) in SEEDS.items()}


def seed_project(name: str, source: str) -> tuple[dict[str, str | bytes], str]:
    """The files and config of the project around seed module `name`, its text `source`."""
    path, markers = SEEDS[name]
    package = name.split("/")[0]
    files: dict[str, str | bytes] = {
        f"src/{package}/{p.name}": p.read_text(encoding="utf-8") for p in path.parent.glob("*.py")
    }
    files[f"src/{name}"] = source
    config = CONFIG.replace('sources = ["src"]', f'sources = ["src/{name}"]') + markers + "\n"
    return files, config


#: Fragments a mutation inserts: the characters Python's grammar and toolgen's docstring
#: sections turn on, and a few odd ones.
FRAGMENTS = [
    *"()[]{}:,;.'\"\\@=*#|-\n\t ",
    '"""', "'''", "**", "->", "...", "\r\n", "\r", "\x00", "\ufeff", "\x0c", "\u2028",
    "lambda: 0", "async ", "await x", "yield", "def f(", "class C:", "@tool", "@tool(",
    "    Args:\n", "    Errors:\n", "    Examples:\n        >>> ", "    Idempotency:\n",
    "\\ud800", "\\x00", "\\N{BOM}", "1e999", "f'{x}'", "*args", "**kw", "None", "nan",
    "Annotated[", "Literal[", "Field(", "list[" * 30, "(" * 60, "é", "\uff51", "\U0001d521",
    "\u202e",
]  # fmt: skip


WORD = re.compile(r"\w+|\"[^\"\n]*\"|'[^'\n]*'")
#: What a word or a literal is replaced with: mostly valid Python, often the wrong thing.
WORDS = [
    "None", "True", "0", "-1", "1.5", "10 ** 400", '""', '"x"', "'\\ud800'", "[]", "{}", "()",
    "int", "str", "list[int]", "dict", "Any", "object", "Optional", "Literal", "Annotated",
    "Field", "BaseModel", "Enum", "self", "cls", "x", "lambda: 0", "Args", "Returns", "Errors",
    "Examples", "Idempotency", "true", "maybe", "NOT_FOUND", "tool", "mcp", "agent", "Context",
]  # fmt: skip


@st.composite
def mutated_seed(draw: st.DrawFn) -> tuple[str, str]:
    """A seed module mutated: characters deleted, inserted, duplicated, a word or literal
    replaced, lines deleted or swapped, or the file cut short. Returns (seed name, source)."""
    name = draw(st.sampled_from(sorted(SEEDS)))
    source = SEED_TEXT[name]
    ops = ["delete", "insert", "duplicate", "word", "word", "word", "line", "swap", "cut"]
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(source)))
        op = draw(st.sampled_from(ops))
        lines = source.split("\n")
        i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
        if op == "delete":
            source = source[:at] + source[at + draw(st.integers(1, 40)) :]
        elif op == "insert":
            fragment = draw(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)))
            source = source[:at] + fragment + source[at:]
        elif op == "duplicate":
            source = source[:at] + source[at : at + draw(st.integers(1, 80))] + source[at:]
        elif op == "word" and (words := list(WORD.finditer(source))):
            # keeps the syntax more often than not, so the mutation reaches the analysis
            old = words[draw(st.integers(0, len(words) - 1))]
            new = draw(st.one_of(st.sampled_from(WORDS), st.sampled_from(words).map(
                lambda m: m.group())))  # fmt: skip
            source = source[: old.start()] + new + source[old.end() :]
        elif op == "line":
            source = "\n".join(lines[:i] + lines[i + 1 :])
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
            source = "\n".join(lines)
        else:
            source = source[:at]
    return name, source


@fuzz(150)
@given(mutated_seed())
def test_mutated_handler_sources(seed: tuple[str, str]) -> None:
    assert_diagnostics_only(*seed_project(*seed))


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_each_seed_builds(name: str) -> None:
    """The unmutated seeds compile, so the mutations start from working code."""
    code, out = assert_diagnostics_only(*seed_project(name, SEED_TEXT[name]))
    assert code == 0, out


# -- odd unicode -------------------------------------------------------------------------------
IDENTIFIER = st.text(
    st.characters(categories=["Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Mn", "Nd", "Pc"]),
    min_size=1,
    max_size=12,
).filter(str.isidentifier)
#: Any text that can be written as UTF-8 (no lone surrogates: those come as escapes below).
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=200)
ESCAPES = st.sampled_from(["\\ud800", "\\udfff", "\\ud83d\\ude00", "\\U0001f600", "\\x00",
                           "\\N{SNOWMAN}", "\\u202e", "\\0", "\\uffff", "\\U0010ffff"])  # fmt: skip


def _doc_text(text: str) -> str:
    """`text` as it can stand in a plain triple-quoted docstring line."""
    return text.replace("\\", "\\\\").replace('"""', "'''").replace("\r", " ").replace("\n", " ")


@st.composite
def unicode_handler(draw: st.DrawFn) -> str:
    name = draw(st.one_of(st.just("lookup"), IDENTIFIER))  # a valid tool name reaches rendering
    param = draw(st.one_of(st.just("query"), IDENTIFIER))
    summary = _doc_text(draw(TEXT))
    escape = draw(ESCAPES)
    where = draw(st.sampled_from(["summary", "param", "default", "decorator", "literal"]))
    text = summary + (escape if where == "summary" else "")
    description = _doc_text(draw(TEXT)) + (escape if where == "param" else "")
    default = f' = "{escape}"' if where == "default" else ""
    literal = f'Literal["{escape}", "b"]' if where == "literal" else "str"
    decorator = f'@tool(title="{escape}")' if where == "decorator" else "@tool"
    source = (
        "from typing import Literal\n\nfrom toolgen import tool\n\n\n"
        f"{decorator}\n"
        f"def {name}({param}: {literal}{default}) -> str:\n"
        f'    """{text}\n\n'
        f"    Args:\n        {param}: {description}\n"
        '    """\n'
        "    raise NotImplementedError\n"
    )
    layout = draw(st.sets(st.sampled_from(["bom", "crlf", "cr", "tabs", "nul", "trailing"])))
    if "tabs" in layout:
        source = source.replace("    ", "\t")
    if "crlf" in layout:
        source = source.replace("\n", "\r\n")
    elif "cr" in layout:
        source = source.replace("\n", "\r")
    if "nul" in layout:
        at = draw(st.integers(0, len(source)))
        source = source[:at] + "\x00" + source[at:]
    if "trailing" in layout:
        source += draw(TEXT)
    if "bom" in layout:
        source = "\ufeff" + source
    return source


@fuzz(100)
@given(unicode_handler())
def test_odd_unicode(source: str) -> None:
    assert_diagnostics_only({"src/handler.py": source})


@fuzz(20)
@given(st.binary(max_size=300))
def test_arbitrary_bytes(data: bytes) -> None:
    assert_diagnostics_only({"src/handler.py": data})


LONE_SURROGATE = [
    ('@tool(title="Smile \\ud83d\\ude00")', "query: str", "/title"),
    ("@tool", 'query: str = "\\udfff"', "/parameters/properties/query/default"),
    ("@tool", 'query: Literal["\\ud800"]', "/parameters/properties/query/const"),
]


@pytest.mark.parametrize(("decorator", "params", "pointer"), LONE_SURROGATE)
def test_a_lone_surrogate_is_a_located_diagnostic(
    decorator: str, params: str, pointer: str
) -> None:
    """Python keeps `"\\ud83d\\ude00"` as two lone surrogates, which no UTF-8 file can hold:
    TG007 at the string, not a crash while writing the JSON (the bug fuzzing found)."""
    source = tool_source(decorator=decorator, params=params, imports="from typing import Literal")
    code, out = assert_diagnostics_only({"src/bad.py": source})
    assert code == 1
    assert f"TG007 [error] text at {pointer} has a lone surrogate" in out
    line = 1 + source.splitlines().index(next(s for s in source.splitlines() if "\\ud" in s))
    assert f"src/bad.py:{line}:" in out


def test_a_lone_surrogate_in_the_docstring_points_at_the_docstring() -> None:
    source = tool_source(args_doc="        query: A face \\ud83d\\ude00.")
    code, out = assert_diagnostics_only({"src/bad.py": source})
    assert code == 1
    assert "src/bad.py:6:5: TG007 [error] text at /parameters/properties/query/description" in out


def test_a_bom_is_read_like_python_reads_it() -> None:
    code, out = assert_diagnostics_only({"src/good.py": "\ufeff" + tool_source()})
    assert code == 0, out


# -- deep nesting ------------------------------------------------------------------------------
NESTINGS: dict[str, Callable[[int], str]] = {
    "list annotation": lambda n: "x: " + "list[" * n + "int" + "]" * n,
    "dict annotation": lambda n: "x: " + "dict[str, " * n + "int" + "]" * n,
    "optional annotation": lambda n: "x: " + "Optional[" * n + "int" + "]" * n,
    "annotated annotation": lambda n: "x: " + "Annotated[" * n + "int" + ", Field()]" * n,
    "union chain": lambda n: "x: " + " | ".join(["int", "str", "None"] * n),
    "string annotation": lambda n: "x: '" + "list[" * n + "int" + "]" * n + "'",
    "parenthesised default": lambda n: "x: int = " + "(" * n + "1" + ")" * n,
    "list default": lambda n: "x: list = " + "[" * n + "]" * n,
    "dict default": lambda n: "x: dict = " + "{'a': " * n + "1" + "}" * n,
    "unary default": lambda n: "x: int = " + "-" * (n * 50) + "1",
    "sum default": lambda n: "x: int = " + " + ".join(["1"] * (n * 50)),
    "attribute chain": lambda n: "x: " + ".".join(["a"] * (n * 50)),
    "literal tuple": lambda n: "x: Literal[" + "(" * n + "1" + ",)" * n + "]",
}
IMPORTS = "from typing import Annotated, Literal, Optional\nfrom pydantic import Field"


@fuzz(60)
@given(st.sampled_from(sorted(NESTINGS)), st.integers(1, 400))
@example("list annotation", 200)
@example("list annotation", 199)
@example("parenthesised default", 200)
@example("unary default", 400)
@example("sum default", 400)
def test_deep_nesting(kind: str, depth: int) -> None:
    source = tool_source(params=NESTINGS[kind](depth), imports=IMPORTS, args_doc="        x: X.")
    assert_diagnostics_only({"src/deep.py": source})


DEEPER_THAN_JSON = {
    # three JSON levels per bracket (items, anyOf, its entry): past 254, pydantic-core refuses
    "union annotation": tool_source(
        params="x: " + "list[int | " * 85 + "int" + "]" * 85, args_doc="        x: X."
    ),
    "example result": tool_source(
        returns="Any",
        imports="from typing import Any",
        extra_doc='\n    Examples:\n        >>> lookup(query="a")\n        '
        + "[" * 300
        + "]" * 300,
    ),
    # each model adds two levels once Gemini's payload inlines the `$defs`
    "model chain": tool_source(
        params="x: M149",
        imports="from pydantic import BaseModel\nclass M0(BaseModel):\n    v: int\n"
        + "".join(f"class M{i}(BaseModel):\n    next: M{i - 1}\n" for i in range(1, 150)),
    ),
}


@pytest.mark.parametrize("recursion_limit", [None, 20_000])
@pytest.mark.parametrize("kind", sorted(DEEPER_THAN_JSON))
def test_nesting_deeper_than_json_can_hold_is_a_diagnostic(
    kind: str, recursion_limit: int | None
) -> None:
    """Found by fuzzing: these compiled, then crashed writing the JSON ("Maximum serialization
    depth exceeded"); the union annotation at Python's default recursion limit, the others
    where the limit is higher (as under hypothesis). Now TG202, whatever the limit."""
    default = sys.getrecursionlimit()
    sys.setrecursionlimit(recursion_limit or default)
    try:
        code, out = assert_diagnostics_only({"src/deep.py": DEEPER_THAN_JSON[kind]})
    finally:
        sys.setrecursionlimit(default)
    assert code == 1
    assert re.search(r"src/deep\.py:\d+:1: TG202 \[error\] `lookup` nests types or values", out)


@fuzz(10)
@given(st.integers(1, 3000), st.sampled_from(["class", "def", "if", "try", "alias"]))
def test_deep_statements_and_alias_chains(depth: int, kind: str) -> None:
    if kind == "alias":
        body = "\n".join(["A0 = int", *(f"A{i} = list[A{i - 1}]" for i in range(1, depth))])
        source = tool_source(params=f"x: A{depth - 1}", imports=body, args_doc="        x: X.")
    else:
        depth = min(depth, 120)  # Python's own limit on indentation is 100 levels
        head = {"class": "class C{i}:", "def": "def f{i}():", "if": "if x:", "try": "try:"}[kind]
        lines = ["    " * i + head.format(i=i) for i in range(depth)]
        tail = ["    " * i + "except Exception: pass" for i in reversed(range(depth))]
        source = "\n".join([*lines, "    " * depth + "pass", *(tail if kind == "try" else [])])
        source = tool_source() + "\n" + source + "\n"
    assert_diagnostics_only({"src/deep.py": source})


# -- huge docstrings ---------------------------------------------------------------------------
@fuzz(6)
@given(
    st.integers(1, 200_000),
    st.sampled_from(["word ", "x", "é", "\t", "    line\n", "        query: more\n", ">>> "]),
    st.sampled_from(["summary", "args", "section", "examples", "trailer"]),
)
@example(200_000, "word ", "summary")  # a 1 MB description
@example(100_000, "        query: more\n", "args")  # 2 MB of entries for one parameter
@example(200_000, "    line\n", "trailer")  # 200,000 lines
@example(50_000, ">>> ", "examples")
def test_huge_docstrings(repeat: int, piece: str, where: str) -> None:
    bulk = _doc_text(piece * repeat) if "\n" not in piece else (piece * repeat).rstrip("\n")
    if where == "summary":
        source = tool_source().replace("Look something up", "Look " + bulk)
    elif where == "args":
        source = tool_source(args_doc="        query: " + bulk.replace("\n", "\n        "))
    elif where == "section":
        source = tool_source(extra_doc="\n    Errors:\n        NOT_FOUND: " + bulk + "\n")
    elif where == "examples":
        source = tool_source(extra_doc=f'\n    Examples:\n        >>> lookup(query="{bulk}")\n')
    else:
        source = tool_source(extra_doc="\n    " + bulk + "\n")
    assert_diagnostics_only({"src/big.py": source})


# -- hostile decorator arguments ---------------------------------------------------------------
#: Python values, written with `repr`: what a decorator argument can be as a literal (and NaN,
#: infinities, huge integers and sets, which JSON has not).
JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.frozensets(st.integers(), max_size=3),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        | st.tuples(inner, inner)
    ),
    max_leaves=12,
)
EXPRESSIONS = st.sampled_from(
    [
        'f"{x}"', "lambda: 0", "x", "x.y", "call()", "(y := 1)", "[*x]", "{**x}", "*x",
        "not True", "1 if x else 2", "await x", "(yield)", "x[0]", "-1", "+1", "~1", "1 + 2",
        '"a" "b"', "b'raw'", "1j", "...", "None", "nan", "float('inf')", "10 ** 400",
        '"' + "a" * 100_000 + '"', "[" + "1, " * 20_000 + "]", '"\\ud800"', '"\\x00"',
        "[" * 150 + "]" * 150, "{'a': " * 100 + "1" + "}" * 100, "set()", "{1, 'a'}",
        "{(1, 2): 3}", "{1: 2, True: 3}", "Ellipsis", "__import__('os')",
    ]
)  # fmt: skip
KEYS = st.sampled_from(
    [*sorted(DECORATOR_KEYS), "colour", "description", "annotations", "tags", "name_override",
     "args_schema", "parse_docstring", "_", "\u2115ame"]
)  # fmt: skip


@st.composite
def decorator_call(draw: st.DrawFn) -> str:
    marker = draw(st.sampled_from(["tool", "mcp.tool", "function_tool", "agent.tool_plain"]))
    arguments: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["keyword", "keyword", "starred", "double", "positional"]))
        value = draw(st.one_of(JSONISH.map(repr), EXPRESSIONS))
        if kind == "keyword":
            arguments.append(f"{draw(KEYS)}={value}")
        elif kind == "starred":
            arguments.append("*x")
        elif kind == "double":
            arguments.append("**x")
        else:
            arguments.append(value)
    bare = not arguments and draw(st.booleans())
    return f"@{marker}" if bare else f"@{marker}({', '.join(arguments)})"


ALL_MARKERS = 'markers = ["toolgen", "fastmcp", "openai-agents", "pydantic-ai"]\n'
HOSTILE_IMPORTS = (
    "from agents import function_tool\nfrom fastmcp import FastMCP\nfrom pydantic_ai import Agent"
    "\nmcp = FastMCP('x')\nagent = Agent('test')"
)


@fuzz(120)
@given(decorator_call())
@example("@tool(name=123)")
@example("@tool(**x)")
@example('@tool(risk=f"{x}")')
@example("@tool(risk=lambda: 0)")
@example("@tool(*x)")
@example("@tool(colour=1, shade=2)")
@example('@tool(title="' + "t" * 200_000 + '")')
@example("@tool(name=" + "[" * 150 + "]" * 150 + ")")
@example("@mcp.tool(name=123, annotations={**x})")
def test_hostile_decorator_arguments(decorator: str) -> None:
    source = tool_source(decorator=decorator, imports=HOSTILE_IMPORTS)
    assert_diagnostics_only({"src/hostile.py": source}, config=CONFIG + ALL_MARKERS)


# -- hostile field metadata ----------------------------------------------------------------------
FIELD_KEYS = st.sampled_from(
    ["gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern", "default",
     "description", "examples", "title", "alias", "json_schema_extra", "strict", "deprecated",
     "max_digits", "frozen", "colour"]
)  # fmt: skip
TYPES = st.sampled_from(["str", "int", "float", "list[int]", "dict[str, int]", "int | None", "x"])
SCHEMAISH = st.dictionaries(  # json_schema_extra's own shape: keywords with any value
    st.sampled_from(["type", "enum", "properties", "required", "items", "$ref", "anyOf",
                     "minimum", "pattern", "format", "const", "title", "x-any"]),
    JSONISH,
    max_size=3,
)  # fmt: skip


@st.composite
def field_metadata(draw: st.DrawFn) -> str:
    """An `Annotated` parameter type with hostile metadata: `Field(...)`, annotated-types'
    constraints, or a `con*` type, each argument any literal or expression."""

    def value() -> str:
        return draw(st.one_of(JSONISH.map(repr), EXPRESSIONS, SCHEMAISH.map(repr)))

    kind = draw(st.sampled_from(["Field", "Field", "annotated", "con"]))
    if kind == "con":
        call = draw(st.sampled_from(["constr", "conint", "confloat", "conlist"]))
        item = "int, " if call == "conlist" else ""
        keywords = ", ".join(
            f"{draw(FIELD_KEYS)}={value()}" for _ in range(draw(st.integers(0, 3)))
        )
        return f"{call}({item}{keywords})"
    if kind == "annotated":
        call = draw(
            st.sampled_from(
                ["Gt", "Ge", "Lt", "Le", "MultipleOf", "MinLen", "MaxLen", "Len", "Interval"]
            )
        )
        arguments = ", ".join(value() for _ in range(draw(st.integers(0, 2))))
        return f"Annotated[{draw(TYPES)}, {call}({arguments})]"
    keywords = ", ".join(f"{draw(FIELD_KEYS)}={value()}" for _ in range(draw(st.integers(1, 4))))
    return f"Annotated[{draw(TYPES)}, Field({keywords})]"


FIELD_IMPORTS = (
    "from typing import Annotated\n"
    "from annotated_types import Ge, Gt, Interval, Le, Len, Lt, MaxLen, MinLen, MultipleOf\n"
    "from pydantic import Field, confloat, conint, conlist, constr"
)


@fuzz(120)
@given(field_metadata())
@example('Annotated[str, Field(pattern="[")]')
@example("Annotated[int, Field(json_schema_extra={'enum': 7})]")
@example("Annotated[dict[str, int], Field(json_schema_extra={'properties': []})]")
@example("Annotated[int, Field(multiple_of=0, ge='a')]")
@example("Annotated[str, Len(-1, 'x')]")
@example('constr(pattern="(", min_length=-1)')
@example("Annotated[str, Field(default=...)]")  # required, as `Field(...)`
@example("Annotated[str, Field(description={'type': None}, examples=1)]")
def test_hostile_field_metadata(annotation: str) -> None:
    source = tool_source(params=f"value: {annotation}", imports=FIELD_IMPORTS)
    assert_diagnostics_only({"src/hostile.py": source})


# -- a 5 MB module ------------------------------------------------------------------------------
def test_a_five_megabyte_module_builds() -> None:
    """A generated module of ~5 MB: 400 handlers, each with a 12 kB docstring paragraph."""
    filler = "Handles one more case of the catalog lookup in the same careful way. " * 180
    handlers = [
        tool_source(name=f"lookup_{i:03}", params="query: str, page: int = 1").split("\n\n\n")[1]
        .replace("Use it for product questions.", f"Use it for product questions.\n\n    {filler}")
        for i in range(400)
    ]  # fmt: skip
    source = "from toolgen import tool\n\n\n" + "\n\n".join(handlers)
    assert len(source.encode()) > 5_000_000
    with _project({"src/big.py": source}) as root:
        code, out, err = _run(root, "build", "--quiet")
        assert (code, err, out) == (0, "", "")
        descriptors = sorted((root / "generated" / "descriptors").glob("*.json"))
        assert [p.stem for p in descriptors] == [f"lookup_{i:03}" for i in range(400)]
        last = json.loads(descriptors[-1].read_text(encoding="utf-8"))
        assert last["description"].startswith("Look something up in the catalog.")
        assert last["description"].endswith(filler.strip())
        assert last["parameters"]["properties"] == {
            "query": {"description": "The query.", "type": "string"},
            "page": {"default": 1, "description": "The page.", "type": "integer"},
        }
        assert last["parameters"]["required"] == ["query"]
        assert last["source"] == {"module": "big", "qualname": "lookup_399"}
        assert _run(root, "check")[0] == 0
