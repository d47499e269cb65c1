"""Fuzzing: broken, odd, deep, huge and hostile handler sources (their type annotations,
docstring sections, decorator and Field arguments) and `[tool.toolgen]` tables give
diagnostics, never a traceback, and never a write outside `out`.

Every example runs `toolgen build` in-process (like conftest's `run`) in a fresh project under
a parent folder of its own, then checks the same things:

- exit 0, 1 or 2; nothing on stderr (no "Traceback", no "toolgen: internal error");
- exit 1 or 2 comes with an error-level TG diagnostic; exit 2 writes nothing to `out`;
- exit 0 and 1 leave valid UTF-8 JSON in `out` (strict: no NaN or Infinity): with exit 1,
  only the handlers with errors are left out, and the build ends by naming them; after exit
  0, `toolgen check` is clean;
- every file of the project is byte for byte what it was (toolgen's cache folder aside), new
  files appear under `out` only, nothing appears beside the project, and `check` writes
  nothing.

Hypothesis runs derandomized (the same examples on every run) with a bounded number of
examples, so the suite is repeatable in CI. For a longer, random hunt:
`TOOLGEN_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz.py`.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import json
import math
import os
import re
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, currently_in_test_context, event, example, given, settings
from hypothesis import strategies as st

from conftest import REPO, tool_source
from toolgen.analyze.decorators import DECORATOR_KEYS
from toolgen.cli import main
from toolgen.config import DOCSTRING_STYLES, MARKER_PRESETS, PLATFORMS
from toolgen.diagnostics import RULES

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


def _not_json(constant: str) -> None:
    raise AssertionError(f"{constant} is no JSON value (RFC 8259), yet it was written")


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
    """Every file of the project, the cache folder aside."""
    found: dict[str, bytes] = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if here == root:
            dirs[:] = [d for d in dirs if d not in CACHE_DIRS]
        for name in files:
            path = here / name
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def _exists(path: Path) -> bool:
    """`path.exists()`, False for a name too long to look up (where `exists` raises)."""
    try:
        return path.exists()
    except OSError:
        return False


#: In a config, the project's own folder (absolute paths into it).
ROOT = "@ROOT@"


@contextlib.contextmanager
def _project(files: dict[str, str | bytes], config: str = CONFIG) -> Iterator[Path]:
    """A fresh project (`parent/proj`) holding `files`, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="toolgen-fuzz-") as tmp:
        parent = Path(tmp) / "parent"
        root = parent / "proj"
        (root / "src").mkdir(parents=True)
        (root / "pyproject.toml").write_text(config.replace(ROOT, str(root)), encoding="utf-8")
        for relpath, content in files.items():
            path = root / relpath
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):  # as given: no newline translation, BOM and NUL kept
                content = content.encode("utf-8", "surrogatepass")
            path.write_bytes(content)
        yield root


def assert_diagnostics_only(
    files: dict[str, str | bytes], config: str = CONFIG, out: str = "generated"
) -> tuple[int, str]:
    """Build a project of `files` and check the contract above; returns (exit code, stdout).
    `out`: the folder the config names (relative to the project, or under ROOT)."""
    with _project(files, config) as root:
        before = _snapshot(root)
        generated = Path(os.path.normpath(root / out.replace(ROOT, str(root))))
        existed = _exists(generated)
        code, output, err = _run(root, "build")
        assert err == "", f"stderr must stay empty:\n{err[-3000:]}"
        assert "Traceback" not in output and "internal error" not in output, output[-3000:]
        assert code in (0, 1, 2), output[-3000:]
        after = _snapshot(root)
        assert {k: after.get(k) for k in before} == before, "no file of the project may change"
        new = [root / name for name in sorted(set(after) - set(before))]
        if code:
            assert ERROR.search(output), (
                f"exit {code} without an error diagnostic:\n{output[-3000:]}"
            )
        if code == 2:
            assert not new and (existed or not _exists(generated)), "a stopped build wrote"
        else:  # exit 1: the handlers with errors are left out, the others written
            assert new or code, output[-3000:]
            for path in new:
                assert path.is_relative_to(generated), f"{path} written outside `out`"
                text = path.read_bytes().decode("utf-8")  # strict: valid UTF-8
                if path.suffix == ".json":
                    json.loads(text, parse_constant=_not_json)  # no NaN, Infinity
        if code == 1:
            assert "left out for errors:" in output or not new, output[-3000:]
        if code == 0:
            check_code, check_out, check_err = _run(root, "check")
            assert (check_code, check_err) == (0, ""), check_out[-3000:]
            assert "is up to date" in check_out
            assert _snapshot(root) == after, "`check` writes nothing"
        if currently_in_test_context():  # --hypothesis-show-statistics shows the mix
            event(f"exit {code}: {' '.join(sorted(set(ERROR_CODE.findall(output))))}")
        assert sorted(p.name for p in root.parent.iterdir()) == ["proj"], "nothing beside it"
    return code, output


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
     "max_digits", "frozen", "colour", "validation_alias", "serialization_alias"]
)  # fmt: skip
#: What an alias may be, well-formed or not.
ALIASES = st.sampled_from(
    ["AliasChoices('a', 'b')", "AliasChoices(AliasPath('a', 0), 'b')", "AliasChoices()",
     "AliasChoices(1, x)", "AliasPath('a')", "AliasPath('a', 0)", "AliasPath()", "AliasPath(x)",
     "AliasChoices(AliasPath(AliasPath('a')))", "'q'", "''"]
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
        return draw(st.one_of(JSONISH.map(repr), EXPRESSIONS, SCHEMAISH.map(repr), ALIASES))

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
    "from pydantic import AliasChoices, AliasPath, Field, confloat, conint, conlist, constr"
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


# -- type annotations --------------------------------------------------------------------------
#: What a handler writes where a type goes: mostly types toolgen reads (builtins, the classes
#: `type_classes` defines), sometimes odd ones (`typing` names through `typing.`, `t.` and `te.`,
#: bare generics, names that resolve nowhere, expressions that are no type).
COMMON_TYPES = st.sampled_from(
    ["int", "str", "float", "bool", "bytes", "None", "Any", "object", "datetime", "UUID",
     "Decimal", "TD", "TDP", "DC", "M", "E", "Node", "Alias", "NT", "list[int]", "dict[str, int]"]
)  # fmt: skip
ODD_TYPES = st.sampled_from(
    ["typing.Any", "te.Any", "type[int]", "type", "Callable[[int], str]", "Callable[..., int]",
     "t.Callable", "Self", "T", "list", "dict", "tuple", "set", "frozenset", "List", "Dict",
     "t.Optional", "Union", "Literal", "Annotated", "te.Annotated", "NotRequired", "ClassVar",
     "Final", "...", "Ellipsis", "nowhere", "nowhere.Thing", "typing.Nope", "te.Nope", "E.A",
     "M.nested", "M.Inner", "1", "''", "f()", "lambda: 0", "x[0]", "typing", "t.List", "te.Self"]
)  # fmt: skip
TYPE_LEAVES = st.one_of(COMMON_TYPES, COMMON_TYPES, ODD_TYPES)
#: What `Literal[...]` is given: odd members as well as the usual ones.
USUAL_MEMBERS = st.sampled_from(['"a"', '"b"', "1", "-1", "True", "None", "E.A"])
LITERAL_MEMBERS = st.one_of(
    USUAL_MEMBERS,
    USUAL_MEMBERS,
    st.sampled_from(
        ["''", "0", "-0.0", "1.5", "-2.5e-3", "10 ** 400", str(10**40), "1e999", "b'x'",
         "b'\\xff'", "E", "E.NOPE", "Literal['x']", "Literal[1, None]", "t.Literal[()]", "()",
         "[]", "{}", "-x", "x", "1j", "...", '"\\ud800"', "(1, 2)", "-True", "+1", "~1"]
    ),
)  # fmt: skip
#: `Annotated[...]` metadata items, the known kinds and others.
ANNOTATED_META = st.sampled_from(
    ['Field(description="d")', "Field()", "Field(default=1)", '"a doc"', "1", "None", "Gt(0)",
     "MinLen(1)", "Strict()", "Field(ge=1)", "Field(max_length=3)", "object()", "x", "..."]
)  # fmt: skip
TYPING = st.sampled_from(["", "", "typing.", "t.", "te."])


def _type_forms(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """One level of the annotation grammar around `inner` annotations: generics with right and
    wrong numbers of arguments, unions, Literal, Annotated, qualifiers, forward references."""
    args = st.lists(inner, max_size=3).map(lambda xs: ", ".join(xs) or "()")
    generics = st.sampled_from(["list", "dict", "set", "tuple", "frozenset"])
    typing_generics = st.sampled_from(
        ["List", "Dict", "Tuple", "Set", "FrozenSet", "Sequence", "Mapping", "Callable", "Optional",
         "Union", "Literal", "ClassVar", "NotRequired", "Required", "ReadOnly", "Final", "Self"]
    )  # fmt: skip
    others = st.sampled_from(["type", "Json", "SkipJsonSchema", "E", "M", "T", "Alias", "NT"])
    literal = st.one_of(st.lists(LITERAL_MEMBERS, min_size=1, max_size=4), st.just([])).map(
        lambda xs: ", ".join(xs) or "()"
    )
    some = st.lists(ANNOTATED_META, min_size=1, max_size=3)
    metadata = st.one_of(some, some, some, st.just([]))
    return st.one_of(
        st.tuples(generics, inner).map(lambda p: f"{p[0]}[{p[1]}]"),
        st.tuples(inner, inner).map(lambda p: f"dict[{p[0]}, {p[1]}]"),
        st.tuples(generics, args).map(lambda p: f"{p[0]}[{p[1]}]"),
        st.tuples(TYPING, typing_generics, args).map(lambda p: f"{p[0]}{p[1]}[{p[2]}]"),
        st.tuples(others, args).map(lambda p: f"{p[0]}[{p[1]}]"),
        st.tuples(TYPING, inner).map(lambda p: f"{p[0]}Optional[{p[1]}]"),
        st.tuples(inner, inner).map(lambda p: f"{p[0]} | {p[1]}"),
        st.tuples(TYPING, literal).map(lambda p: f"{p[0]}Literal[{p[1]}]"),
        st.tuples(TYPING, inner, metadata).map(
            lambda p: f"{p[0]}Annotated[{', '.join([p[1], *p[2]])}]"
        ),
        st.tuples(inner, st.sampled_from(["", "...", "int, ...", "()", "inner"])).map(
            lambda p: f"tuple[{p[0]}, {p[1].replace('inner', p[0])}]" if p[1] else f"tuple[{p[0]}]"
        ),
        inner.map(repr),  # a string forward reference
        st.tuples(inner, st.integers(0, 30)).map(lambda p: repr(p[0][: p[1]])),  # often broken
    )


ANNOTATIONS = st.recursive(TYPE_LEAVES, _type_forms, max_leaves=8)
CLASS_NAMES = ("TD", "TDP", "DC", "M", "E", "Node")
CLASS_KINDS = {
    "typeddict": "class {name}({bases}TypedDict{total}):",
    "dataclass": "@dataclass\nclass {name}({bases}):",
    "model": "class {name}({bases}BaseModel):",
    "enum": "class {name}({bases}Enum):",
    "str enum": "class {name}({bases}str, Enum):",
    "int enum": "class {name}({bases}IntEnum):",
    "plain": "class {name}({bases}):",
}
KINDS = st.sampled_from(["typeddict", "dataclass", "model", "enum"] * 3 + sorted(CLASS_KINDS))
FIELD_NAMES = st.sampled_from(["a", "b", "next", "items", "model_config", "_p", "self", "A", "B"])
FIELD_DEFAULTS = st.sampled_from(
    ["", "", "", "", " = None", " = 1", ' = "x"', " = []", " = field(default_factory=list)",
     " = Field(default_factory=dict)", " = Field(1)", " = Field(...)", " = auto()", " = E.A",
     " = x", " = M()", " = field(default=2)", " = Field(default_factory=lambda: [1])"]
)  # fmt: skip
ENUM_MEMBERS = st.one_of(
    st.sampled_from(["A = 1", 'B = "b"', "C = auto()"]),
    st.sampled_from(
        ["D = -1.5", "E_ = None", "F = (1, 2)", "G = A", "_ignore_ = []", "H = x", 'A = "dup"',
         "I = 10 ** 400", "J = b'j'", "K = [1]", "L: int = 3", "M_ = E.A"]
    ),
)  # fmt: skip
CLASS_EXTRAS = st.sampled_from(
    ['model_config = ConfigDict(extra="forbid")', "model_config = {'extra': 'allow'}",
     "model_config = ConfigDict(json_schema_extra={'x-a': 1})", "model_config = x",
     "def method(self) -> int:\n        return 1", "class Inner(BaseModel):\n        v: int",
     "nested: ClassVar[int] = 1", "a = 1"]
)  # fmt: skip
ALIASES = st.sampled_from(
    ["Alias = list[Alias]", "Alias = int | None", "Alias = M", 'Alias = "list[Alias]"',
     'Alias = Optional["Node"]', "Alias = Alias", "Alias: TypeAlias = dict[str, TD]",
     "Alias = Annotated[int, Field(ge=0)]", "Alias = TypeVar('Alias')", "Alias = 3"]
)  # fmt: skip


@st.composite
def type_classes(draw: st.DrawFn) -> str:
    """The module's own classes: TypedDicts (`total=False` too), dataclasses, models, enums and
    plain classes whose names the annotations use, with odd fields (self-reference, recursion,
    ClassVar, default_factory) and bases drawn from each other (cycles and mixes included)."""
    blocks = []
    for name in draw(st.permutations(CLASS_NAMES)):  # any order: forward references as well
        kind = draw(KINDS)
        bases = draw(st.lists(st.sampled_from([*CLASS_NAMES, "Generic[T]"]), max_size=2))
        bases = bases if draw(st.integers(0, 2)) == 0 else []
        total = draw(st.sampled_from(["", "", ", total=False", ", total=True", ", total=x"]))
        header = CLASS_KINDS[kind].format(
            name=name,
            bases="".join(b + ", " for b in bases) if kind != "plain" else ", ".join(bases),
            total=total if kind == "typeddict" else "",
        )
        body = []
        if draw(st.booleans()):
            body.append(f'"""{draw(st.sampled_from(["A thing.", "", "Résumé.", "x" * 50]))}"""')
        if kind.endswith("enum"):
            body += draw(
                st.lists(ENUM_MEMBERS, min_size=draw(st.sampled_from([0, 1, 1])), max_size=3)
            )
        for _ in range(draw(st.integers(0, 3))):
            field_name = draw(FIELD_NAMES)
            annotation = draw(st.one_of(COMMON_TYPES, COMMON_TYPES, ANNOTATIONS))
            if draw(st.integers(0, 5)) == 0:
                annotation = f"ClassVar[{annotation}]"
            body.append(f"{field_name}: {annotation}{draw(FIELD_DEFAULTS)}")
        if draw(st.integers(0, 4)) == 0:
            body.append(draw(CLASS_EXTRAS))
        blocks.append(header + "\n" + "\n".join("    " + line for line in body or ["pass"]))
    newtype = f'NT = NewType("NT", {draw(st.one_of(COMMON_TYPES, ANNOTATIONS))})'
    return "\n\n\n".join([*blocks, draw(ALIASES), newtype])


TYPE_IMPORTS = """\
import typing
import typing as t
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import Enum, IntEnum, auto
from typing import (
    Annotated, Any, Callable, ClassVar, Dict, Final, FrozenSet, Generic, List, Literal, Mapping,
    NewType, Optional, Sequence, Set, Tuple, TypeAlias, TypeVar, Union,
)
from uuid import UUID

import typing_extensions as te
from annotated_types import Gt, MinLen
from pydantic import BaseModel, ConfigDict, Field, Json, SkipJsonSchema, Strict
from typing_extensions import NotRequired, ReadOnly, Required, Self, TypedDict

T = TypeVar("T")
"""


def typed_source(params: str, returns: str = "str", classes: str = "", future: bool = False) -> str:
    """A handler module: `params` (`; `-separated annotations, the last one perhaps with a
    default), `returns`, and the module's own `classes` after TYPE_IMPORTS."""
    annotations = params.split("; ")
    source = tool_source(
        params=", ".join(f"p{i}: {a}" for i, a in enumerate(annotations)),
        args_doc="\n".join(f"        p{i}: Part {i}." for i in range(len(annotations))),
        returns=returns,
        imports=TYPE_IMPORTS + "\n\n" + classes,
    )
    return "from __future__ import annotations\n" + source if future else source


@st.composite
def typed_handler(draw: st.DrawFn) -> tuple[str, str, str, bool]:
    """`typed_source`'s arguments: parameter and return annotations from the grammar above,
    the classes they may name, and whether annotations are postponed (PEP 563)."""
    params = [draw(ANNOTATIONS) for _ in range(draw(st.integers(1, 3)))]
    params[-1] += draw(st.sampled_from(["", "", " = None", " = 1", ' = "x"', " = Field([])"]))
    return "; ".join(params), draw(ANNOTATIONS), draw(type_classes()), draw(st.booleans())


@fuzz(200)
@given(typed_handler())
# found by fuzzing: bare `Annotated` was an AssertionError; `Annotated[()]` recursed until
# "nests too deeply"; now TG202, as `Annotated[int]`, which Python refuses too
@example(("Annotated", "str", "", False))
@example(("int", "'Annotated'", "", False))
@example(("Annotated[()]", "str", "", False))
@example(("Annotated[int]", "str", "", True))
# were "nests too deeply" at the handler; now located at the base class or the member
@example(
    (
        "DC",
        "str",
        "@dataclass\nclass DC(M):\n    a: int\n\n\nclass M(DC, BaseModel):\n    b: int",
        False,
    )
)
@example(("E", "str", "class E(Enum):\n    A = 1\n    B = E.A", False))
@example(
    ("Literal[E.A]", "str", "class E(Enum):\n    A = F.X\n\n\nclass F(Enum):\n    X = E.A", False)
)
# literals JSON has no value for: a TG205/TG206 that says so
@example(("Literal[1e999]; float = -1e999", "str", "", False))
@example(("dict[str]", "list[int, str]", "", False))
def test_type_annotations(handler: tuple[str, str, str, bool]) -> None:
    assert_diagnostics_only({"src/typed.py": typed_source(*handler)})


# -- docstring sections ------------------------------------------------------------------------
#: Lines of each kind of section, as source text (escapes are read by Python): well-formed
#: entries and the ways they go wrong.
SECTION_LINES: dict[str, list[str]] = {
    "args": [
        "query: The query.", "limit: How many.", "query (str): Words,", "    continued here.",
        "limit (int, optional): At most.", "nope: Not a parameter.", "query:", ": nothing",
        "query (unclosed: x", "*args: Extra.", "**kwargs: More.", "query: Described twice.",
        "Query: Upper case.", "élan: A unicode name.", "1query: Digits first.", "query : spaced",
        "query: TODO: describe this parameter.", "query: A face \\U0001f600.",
    ],
    "numpy args": [
        "query : str", "    Words to look for.", "limit : int, optional", "    How many.", "query",
        "limit :", ": int", "nope : str", "    Not a parameter.",
    ],
    "returns": ["The hits.", "dict: The hits.", "    continued.", "list of str", "    Best first."],
    "raises": ["ValueError: Bad input.", "NotFound: Missing.", "KeyError", ": x", "    more."],
    "errors": [
        "NOT_FOUND: Nothing matched.", "RATE_LIMITED: Slow down. Recovery: wait a minute.",
        "CUSTOM (409, not retryable): Taken.", "CUSTOM (409): No retryable.", "CUSTOM: Unknown.",
        "not_found: Lower case.", "NOT-FOUND: A dash.", "NÖT_FOUND: An umlaut.",
        "CODE (²): A superscript.", "CODE (①, retryable): A circled digit.",
        "CODE (٤٠٤, retryable): Arabic digits.", "CODE (1e3, retryable): A float.",
        "CODE (99999999999999999999, retryable): Huge.", "CODE (): Empty.",
        "CODE (retryable, not retryable, 404, 500): Twice.", "TIMEOUT (, ,): Commas.",
        "CODE(404,retryable):No spaces", "Recovery: Only a recovery.", "NOT_FOUND: Duplicated.",
        "    continued description.", "    Recovery: retry later.", "X (404, retryable): Recovery:",
        "INTERNAL (600, retryable): Out of range.", "TIMEOUT (retry=maybe): Odd.", "_: Underscore.",
    ],
    "prompts": ["Find a thing:", "An odd one", "", "Raises:", "Args:", "    indented prose"],
    "calls": [
        '>>> lookup(query="a")', ">>> lookup(query='a', limit=3)", ">>> lookup(**{})",
        ">>> lookup(query=...)", ">>> other()", '>>> lookup("a")', '>>> lookup(query="a)',
        ">>> lookup(query=x)", ">>> lookup(query={1, 2})", ">>> lookup(query=1j)",
        ">>> lookup(query=b'x')", '>>> lookup(query=float("nan"))', ">>> lookup.attr()",
        ">>> lookup", ">>> ", ">>> Raises", ">>> lookup(query='a',\n... limit=2)", "...",
        ">>> lookup(query=10**400)", ">>> lookup(query=1e999)", ">>> lookup(limit=None)",
        ">>> lookup(query={'a': {1: 2}})", ">>> lookup(query=[[[[]]]])", ">>> lookup(limit=-1)",
        ">>> lookup(query='a', query='b')", ">>> lookup(query='\\ud800')", ">>>lookup()",
        '>>> lookup(query="a", limit=3, extra=1)', ">>> lookup(query='a'", ">>> lookup(*x)",
    ],
    "results": [
        '{"hits": 1}', '"ok"', "'ok'", '{"error": {"code": "NOT_FOUND"}}', '{"error": "x"}',
        '{"error": {"code": "VALIDATION_ERROR", "message": "bad"}}', '{"error": {"code": 1}}',
        '{"error": {}}', '{"error": {"code": "NOT_FOUND", "message": 5, "details": [1]}}',
        '{"error": {"code": "CUSTOM"}, "extra": 1}', "NaN", "Infinity", "-Infinity", "[1, 2",
        "Traceback (most recent call last):", "ValueError: bad", "None", "null", "{1: 2}",
        "{(1, 2): 3}", "{1, 2}", "1e999", "10**400", "True", "...", "<object at 0x1>",
        '{"a": NaN}', "[" * 50 + "]" * 50, "b'bytes'", "1j", "[1e999]", "{'a': 1j}", "[1, 2]",
        '{"error": {"code": "RATE_LIMITED", "message": "slow"}}', "{", "}", '"\\ud800"',
    ],
    "idempotency": [
        "idempotent: true", "safe: yes", "destructive: false", "open_world: no", "open-world: True",
        "Open World: FALSE", "idempotent: maybe", "safe: 1", "destructive: []", "idempotent",
        ": true", "idempotent: true: false", "unknown: true", "idempotent: false", "SAFE: Yes",
        "idempotent:", "    idempotent: true", "- idempotent: true",
    ],
    "bullets": [
        "- Writes the cache.", "* Sends mail.", "+ Plus.", "a, b, c", "    continued", "-", "- ",
        "1. Numbered.", "catalog:read", ",", "- \\ud83d",
    ],
    "prose": ["Some note.", "    Indented.", "Args:", "Errors:", ">>> lookup(query='a')"],
}  # fmt: skip
#: Section titles, the kind of lines each takes, as the styles write them.
TITLES = [
    ("Args", "args"), ("Arguments", "args"), ("Parameters", "args"), ("Keyword Args", "args"),
    ("Returns", "returns"), ("Yields", "returns"), ("Raises", "raises"), ("Errors", "errors"),
    ("Examples", "examples"), ("Example", "examples"), ("Idempotency", "idempotency"),
    ("Side Effects", "bullets"), ("Permissions", "bullets"), ("Notes", "prose"),
    ("See Also", "prose"), ("ARGS", "args"), ("errors", "errors"), ("Foo", "prose"),
]  # fmt: skip
SPHINX_FIELDS = [
    ":param query: The query.", ":param int limit: How many.", ":param: Nothing.",
    ":type query: str", ":returns: The hits.", ":rtype: dict", ":raises ValueError: Bad.",
    ":raises: Bare.", ":param query:", ":param  : Blank.", ":keyword limit: A keyword.",
    "    continued field.", ":param nope: Not a parameter.",
]  # fmt: skip
#: Both parameters described, in each style: a docstring usually starts with these.
DESCRIBED = {
    "google": "Args:\n    query: The query.\n    limit: How many.",
    "numpy": "Parameters\n----------\nquery : str\n    The query.\nlimit : int\n    How many.",
    "sphinx": ":param query: The query.\n:param limit: How many.",
}
INDENTS = st.sampled_from(["    ", "    ", "  ", "\t", " \t", "        ", ""])


@st.composite
def docstring_sections(draw: st.DrawFn) -> tuple[str, str]:
    """(docstring_style, the docstring after its summary): Google, NumPy or Sphinx sections in
    any order, duplicated or empty, indented with spaces, tabs or both."""
    style = draw(st.sampled_from(["google", "numpy", "sphinx"]))
    blocks = [DESCRIBED[style].split("\n")] if draw(st.integers(0, 4)) else []
    for _ in range(draw(st.integers(1, 5))):
        title, kind = draw(st.sampled_from(TITLES))
        if style == "numpy" and kind == "args":
            kind = "numpy args"
        if kind == "examples":  # blocks of a prompt, a call and the result's lines
            lines = []
            for _ in range(draw(st.integers(0, 3))):
                lines += draw(st.lists(st.sampled_from(SECTION_LINES["prompts"]), max_size=1))
                lines += draw(st.sampled_from(SECTION_LINES["calls"])).split("\n")
                lines += draw(st.lists(st.sampled_from(SECTION_LINES["results"]), max_size=2))
                lines += draw(st.sampled_from([[""], [""], []]))
        else:
            lines = draw(st.lists(st.sampled_from(SECTION_LINES[kind]), max_size=6))
        if style == "sphinx" and draw(st.booleans()):
            blocks.append(draw(st.lists(st.sampled_from(SPHINX_FIELDS), min_size=1, max_size=4)))
            continue
        if style == "numpy":
            head = [title, "-" * draw(st.integers(3, 12))]
            blocks.append(head + [draw(INDENTS).removeprefix("    ") + line for line in lines])
        else:
            blocks.append([f"{title}:"] + [draw(INDENTS) + line for line in lines])
    text = "\n\n".join("\n".join(block) for block in blocks)
    config_style = draw(st.sampled_from(["auto", "auto", style, "google", "numpy", "sphinx"]))
    return config_style, text


DOC_HANDLER = '''\
from typing import Any

from toolgen import tool


@tool
def lookup(query: str, limit: int = 10) -> {returns}:
    """Look something up in the catalog. Use it for product questions.

{body}
    """
    raise NotImplementedError
'''


def doc_source(body: str, returns: str = "dict[str, Any]") -> str:
    """The handler `lookup` whose docstring goes on with `body` (indented like the summary)."""
    indented = "\n".join(("    " + line).rstrip() for line in body.split("\n"))
    return DOC_HANDLER.format(returns=returns, body=indented)


@fuzz(200)
@given(docstring_sections(), st.sampled_from(["dict[str, Any]", "Any", "str", "list[int]"]))
# found by fuzzing: a status of digits Python's int() cannot read was a ValueError
@example(("auto", DESCRIBED["google"] + "\n\nErrors:\n    CODE (²): x."), "str")
@example(("numpy", DESCRIBED["numpy"] + "\n\nErrors\n------\nCODE (①, retryable): x."), "str")
# ... and a result of NaN or Infinity (which Python's json reads) was written into the JSON
@example(("auto", DESCRIBED["google"] + '\n\nExamples:\n    >>> lookup(query="a")\n    NaN'), "Any")
@example(
    ("auto", DESCRIBED["sphinx"] + "\n\nExample:\n    >>> lookup(query='a')\n    [1e999]"), "Any"
)
@example(("google", DESCRIBED["google"] + "\n\nExamples:\n    >>> lookup(query=1e999)"), "Any")
def test_docstring_sections(doc: tuple[str, str], returns: str) -> None:
    style, body = doc
    config = CONFIG + f'docstring_style = "{style}"\n'
    assert_diagnostics_only({"src/documented.py": doc_source(body, returns)}, config=config)


# -- the spooled build --------------------------------------------------------------------------
@fuzz(40)
@given(
    typed_handler(),
    docstring_sections(),
    st.sampled_from(["", "anthropic_strict = true\n", "inline_defs = true\n"]),
)
def test_the_spooled_build_makes_what_the_in_memory_build_makes(
    handler: tuple[str, str, str, bool], doc: tuple[str, str], options: str
) -> None:
    """A run of its own spools (`toolgen.pipeline.generate_spooled`); a watch keeps everything
    in memory (`generate`): the same files and diagnostics, whatever the handlers."""
    from toolgen.config import load_config
    from toolgen.incremental.spool import Spool, as_bytes
    from toolgen.pipeline import generate, generate_spooled

    style, body = doc
    files: dict[str, str | bytes] = {
        "src/typed.py": typed_source(*handler),
        "src/documented.py": doc_source(body, "str"),
    }
    config_text = CONFIG + f'docstring_style = "{style}"\n' + options
    with _project(files, config=config_text) as root:
        config = load_config(None, cwd=root)
        memory = generate(config)
        with Spool.temporary() as spool:
            spooled = generate_spooled(config, None, 1, spool)
            assert {p: as_bytes(c) for p, c in spooled.files.items()} == memory.files
            assert spooled.diagnostics == memory.diagnostics
            assert spooled.shas == memory.shas


# -- config tables -----------------------------------------------------------------------------
def toml_value(value: object) -> str:
    """`value` written as TOML (an inline table for a dict)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if value != value else "inf" if value > 0 else "-inf"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):  # JSON's escapes are TOML's
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, datetime.date | datetime.time):  # datetime is a date
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


TOML_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
TOML_VALUES = st.recursive(
    TOML_TEXT | st.integers() | st.floats() | st.booleans() | st.datetimes() | st.dates()
    | st.times(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TOML_TEXT, inner, max_size=3),
    max_leaves=8,
)  # fmt: skip
#: `sources` and `out` values: good ones, and absolute, parent, empty, unicode, very long,
#: NUL-bearing, file-not-folder ones.
PATHS = st.sampled_from(
    ["src", "src/", "./src", "src/handler.py", "src/sub", "src/missing.py", "", ".", "..",
     "../..", "../proj/src", "/", "/tmp", "/nonexistent", ROOT, f"{ROOT}/src", f"{ROOT}/gen",
     "src/../src", "gen", "gen/sub/deeper", "génération", "\u202egen", "a" * 300, "a/" * 2100,
     "x\x00y", "~", "~/gen", "src/handler.py/x", "pyproject.toml", "generated",
     "generated/../generated", "C:\\gen", "gen\\sub", " gen ", "gen\n", ".toolgen_cache", ".git",
     "*", "src/*.py", "\U0001d521", "src//handler.py", "gen/.", "//"]
)  # fmt: skip
RULE_CODES = st.sampled_from([*sorted(RULES)[::7], "TG001", "TG999", "tg301", "", "TG", "*", "é"])
#: Each known key with values of its own kind (right or wrong), or any TOML value.
CONFIG_VALUES: dict[str, st.SearchStrategy[object]] = {
    "sources": st.lists(PATHS, max_size=3) | PATHS,
    "out": PATHS,
    "platforms": st.lists(st.sampled_from([*PLATFORMS, "OpenAI", "x", ""]), max_size=5),
    "markers": st.lists(st.sampled_from([*MARKER_PRESETS, "django", ""]), max_size=3),
    "skip_params": st.lists(st.sampled_from(["user_id", "*", "[", "q*", "", "**", "ctx"])),
    "docstring_style": st.sampled_from([*DOCSTRING_STYLES, "Google", "rst", ""]),
    "min_level": st.sampled_from([0, 1, 2, 3, -1, 4, 10**30, 1.0, True, "1"]),
    "rules": st.dictionaries(
        RULE_CODES, st.sampled_from(["error", "warning", "info", "off", "fatal", "", 1, True])
    ),
    "budget_description_chars": st.sampled_from([1, 600, 0, -1, 10**30, 1.5, True, "600"]),
    "budget_catalog_tokens": st.sampled_from([1, 1000, 0, -5, 2**63, 2.5, False, "none"]),
    "openai_strict": st.booleans(),
    "anthropic_strict": st.booleans(),
    "inline_defs": st.booleans(),
    "gemini_schema": st.sampled_from(["openapi", "json_schema", "JSON", ""]),
    "mcp_revision": st.sampled_from(["2025-11-25", "2025-06-18", "2024-01-01", ""]),
    "library_paths": st.lists(PATHS, max_size=3) | PATHS,
    "framework_versions": st.dictionaries(
        st.sampled_from(["fastmcp", "mcp", "langchain", ""]),
        st.sampled_from(["3", "2.1.0", "4.2.3.1", "x", ""]) | TOML_VALUES,
        max_size=3,
    ),
    "mcp_enriched": st.booleans(),
    "max_source_bytes": st.sampled_from([1, 100, 10_000_000, 0, -1, 2**63, 1.5, True, "1"]),
    "decorators": st.dictionaries(
        st.sampled_from(["app.tool", "tool", "a..b", "app.registry.tool", "é.x", ""]),
        st.sampled_from([*MARKER_PRESETS, "django", ""]) | TOML_VALUES,
        max_size=3,
    ),
    "breaking_ignore": st.lists(
        st.dictionaries(
            st.sampled_from(["rule", "tool", "pointer", "reason", "extra"]),
            st.sampled_from(["tool-removed", "TG950", "TG001", "nope", "lookup", "/x", "", " "])
            | TOML_VALUES,
        )
        | TOML_VALUES,
        max_size=3,
    ),
}


@st.composite
def config_table(draw: st.DrawFn) -> str:
    """A `[tool.toolgen]` table, as TOML: a working one with keys replaced, added or removed,
    each value of its own kind or any TOML type, tables written inline or as sections."""
    table: dict[str, object] = {"sources": ["src"], "out": "generated", "min_level": 0}
    keys = st.sampled_from([*CONFIG_VALUES, "colour", "Sources", "tool", "rules.TG301", "out "])
    for _ in range(draw(st.integers(1, 4))):
        key = draw(keys)
        if draw(st.integers(0, 4)) == 0:  # known key, any value
            table[key] = draw(TOML_VALUES)
        elif key in CONFIG_VALUES:
            table[key] = draw(CONFIG_VALUES[key])
        elif draw(st.booleans()):
            table.pop(draw(st.sampled_from(sorted(table))), None)
        else:
            table[key] = draw(TOML_VALUES)
    lines, sections = [], []
    for key, value in table.items():
        if isinstance(value, dict) and draw(st.booleans()):
            sections.append(f"\n[tool.toolgen.{toml_key(key)}]")
            sections += [f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()]
        elif (
            isinstance(value, list)
            and value
            and all(isinstance(v, dict) for v in value)
            and draw(st.booleans())
        ):
            for entry in value:
                assert isinstance(entry, dict)
                sections.append(f"\n[[tool.toolgen.{toml_key(key)}]]")
                sections += [f"{toml_key(k)} = {toml_value(v)}" for k, v in entry.items()]
        else:
            lines.append(f"{toml_key(key)} = {toml_value(value)}")
    return "\n".join(["[tool.toolgen]", *lines, *sections]) + "\n"


def configured_out(config: str) -> str:
    """The `out` a config names when it is one (where a build may write), else the default."""
    try:
        out = tomllib.loads(config).get("tool", {}).get("toolgen", {}).get("out")
    except tomllib.TOMLDecodeError:
        return "generated"
    return out if isinstance(out, str) and out and "\x00" not in out else "generated"


CONFIG_FILES: dict[str, str | bytes] = {
    "src/handler.py": tool_source(),
    "src/sub/other.py": tool_source(name="other"),
}


@fuzz(150)
@given(config_table())
# found by fuzzing: each was a traceback (OSError, ValueError, FileExistsError)
@example('[tool.toolgen]\nsources = ["src"]\nout = "' + "a" * 300 + '"\n')
@example('[tool.toolgen]\nsources = ["' + "a" * 300 + '"]\n')
@example('[tool.toolgen]\nsources = ["src"]\nout = "' + "a/" * 2100 + '"\n')
@example('[tool.toolgen]\nsources = ["src"]\nout = "x\\u0000y"\n')
@example('[tool.toolgen]\nsources = ["src\\u0000"]\n')
@example('[tool.toolgen]\nsources = ["src"]\nout = "src/handler.py/x"\n')
# ... and these wrote the generated files into the cache folder (safe to delete at any time)
# or into .git: TG004 now
@example('[tool.toolgen]\nsources = ["src"]\nout = ".toolgen_cache"\n')
@example('[tool.toolgen]\nsources = ["src"]\nout = ".git/generated"\n')
def test_config_tables(config: str) -> None:
    assert_diagnostics_only(CONFIG_FILES, config=config, out=configured_out(config))


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
