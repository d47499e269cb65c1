"""`toolgen fix`: docstring parameter entries kept in step with signatures, nothing else touched.

Golden files: tests/fixtures/fix/NAME.py is fixed and compared with NAME.expected.py (which
must itself come back unchanged). Inline cases cover the formats a golden file cannot hold
(CRLF, tabs, a byte-order mark) and the edge of the file system (modes, syntax errors).
"""

from __future__ import annotations

import ast
import re
import shutil
import stat
from pathlib import Path

import pytest

from toolgen.analyze.docstrings import parse_docstring
from toolgen.config import Config
from toolgen.diagnostics import Diagnostic, Level
from toolgen.fix import PLACEHOLDER, FixParam, exposed_params, fix_files, fix_source
from toolgen.read.discover import discover
from toolgen.read.index import ModuleIndex

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "fix"
GOLDEN = ["google", "numpy_style", "sphinx", "odd"]


def _config(root: Path, markers: tuple[str, ...] = ("toolgen",)) -> Config:
    return Config(
        root=root,
        cwd=root,
        config_file=None,
        sources=(root,),
        out=root / "generated",
        markers=markers,
        skip_params=("request_*",),
    )


def _copy(tmp_path: Path, *names: str) -> Path:
    root = tmp_path / "proj"
    root.mkdir(exist_ok=True)
    for name in names:
        shutil.copyfile(FIXTURES / name, root / name)
    return root


def _expected(name: str) -> str:
    return (FIXTURES / f"{name}.expected.py").read_text(encoding="utf-8")


def _codes(found: list[Diagnostic]) -> list[tuple[str, str]]:
    return [(d.code, str(d.location)) for d in found]


def _exposed(path: Path) -> dict[int, list[FixParam]]:
    """What `fix_files` gives `fix_source` for the file, found the same static way."""
    config = _config(path.parent)
    file = next(f for f in discover((path,)))
    index = ModuleIndex([file.search_root], config.display)
    return exposed_params(index, file, config)


# -- golden files --------------------------------------------------------------------------
@pytest.mark.parametrize("name", GOLDEN)
def test_fix_writes_the_expected_file(tmp_path: Path, name: str) -> None:
    root = _copy(tmp_path, f"{name}.py")
    report = fix_files(_config(root), "write")
    assert report.changed == [f"{name}.py"]
    assert (root / f"{name}.py").read_text(encoding="utf-8") == _expected(name)
    assert sorted(p.name for p in root.iterdir()) == [f"{name}.py"]  # no temporary file left


@pytest.mark.parametrize("name", [*GOLDEN, "clean"])
def test_fix_is_idempotent(tmp_path: Path, name: str) -> None:
    root = _copy(tmp_path, f"{name}.py")
    fix_files(_config(root), "write")
    once = (root / f"{name}.py").read_bytes()
    again = fix_files(_config(root), "write")
    assert again.changed == []
    assert (root / f"{name}.py").read_bytes() == once
    _only_lingering_placeholders(again.diagnostics, once.decode("utf-8"))


def _only_lingering_placeholders(found: list[Diagnostic], text: str) -> None:
    """A fixed file is reported for nothing but the placeholders still waiting for text."""
    lines = text.splitlines()
    assert len(found) == text.count(PLACEHOLDER)
    for item in found:
        assert item.code == "TG802" and item.location is not None
        assert "still has the placeholder description" in item.message
        entry = re.findall(r"`([^`]+)`", item.message)[1]
        at = lines[item.location.line - 1][item.location.col - 1 :]
        assert re.match(rf"(:param )?{entry}\b", at), (item, at)


@pytest.mark.parametrize("name", GOLDEN)
def test_expected_files_need_no_fix(tmp_path: Path, name: str) -> None:
    root = _copy(tmp_path, f"{name}.expected.py")
    path = root / f"{name}.expected.py"
    source = path.read_text(encoding="utf-8")
    result = fix_source(source, path.name, _exposed(path))
    assert (result.source, result.changed) == (source, False)
    _only_lingering_placeholders(result.diagnostics, source)
    assert len(result.diagnostics) == {"google": 3, "numpy_style": 2, "sphinx": 2, "odd": 1}[name]


def test_a_placeholder_is_reported_until_it_is_replaced() -> None:
    source = (
        'def f(a):\n    """Sum.\n\n    Args:\n        a: TODO: describe this parameter.\n    """\n'
    )
    result = fix_source(source, "m.py", {1: [FixParam("a")]})
    assert (result.source, result.changed) == (source, False)
    assert [d.format_text() for d in result.diagnostics] == [
        "m.py:5:9: TG802 [warning] `f`: parameter `a` still has the placeholder description "
        "'TODO: describe this parameter.'; replace it"
    ]
    written = source.replace("TODO: describe this parameter.", "The a.")
    assert fix_source(written, "m.py", {1: [FixParam("a")]}).diagnostics == []


def test_a_correct_file_comes_back_byte_identical(tmp_path: Path) -> None:
    root = _copy(tmp_path, "clean.py")
    source = (root / "clean.py").read_text(encoding="utf-8")
    exposed = _exposed(root / "clean.py")
    assert sorted(len(params) for params in exposed.values()) == [0, 2, 2, 2]
    result = fix_source(source, "clean.py", exposed)
    assert result.source == source
    assert not result.changed and result.diagnostics == []
    report = fix_files(_config(root), "check")
    assert (report.changed, report.diagnostics) == ([], [])


def test_google_diagnostics_locate_each_change(tmp_path: Path) -> None:
    root = _copy(tmp_path, "google.py")
    report = fix_files(_config(root), "write")  # added entries: in the written text
    assert _codes(report.diagnostics) == [
        ("TG801", "google.py:20:9"),
        ("TG801", "google.py:21:9"),
        ("TG802", "google.py:35:9"),
        ("TG803", "google.py:43:9"),
        ("TG803", "google.py:55:9"),
        ("TG802", "google.py:77:9"),
        ("TG801", "google.py:78:9"),
        ("TG802", "google.py:94:9"),
        ("TG803", "google.py:98:13"),
        ("TG801", "google.py:107:13"),
    ]
    messages = [d.message for d in report.diagnostics]
    assert messages[2] == (
        "`add_placeholder`: parameter `exact` needs a description; placeholder "
        "'TODO: describe this parameter.' inserted in the docstring's Args section"
    )
    assert messages[3] == (
        "`drop_stale`: removed the docstring entry for `warehouse`: not a parameter"
    )
    assert messages[4] == "`reorder`: reordered the Args section to follow the signature"
    assert messages[0] == (
        "`add_described`: added `limit` to the docstring's Args section, "
        "from its Field(description=...)"
    )
    assert {d.code: d.severity for d in report.diagnostics} == {
        "TG801": Level.INFO,
        "TG802": Level.WARNING,
        "TG803": Level.INFO,
    }


@pytest.mark.parametrize("name", GOLDEN)
def test_locations_point_at_the_entries(tmp_path: Path, name: str) -> None:
    """Written, added entries are located in the fixed text; removed ones in the original."""
    root = _copy(tmp_path, f"{name}.py")
    before = (root / f"{name}.py").read_text(encoding="utf-8").splitlines()
    after = _expected(name).splitlines()
    report = fix_files(_config(root), "write")
    assert report.diagnostics
    for found in report.diagnostics:
        assert found.location is not None
        line, col = found.location.line, found.location.col
        if "reordered" in found.message:  # at the section's first entry, as it was
            text = before[line - 1]
            assert text[col - 1 :].strip() and not text[: col - 1].strip(), (found, text)
            continue
        entry = re.findall(r"`([^`]+)`", found.message)[1]
        text = (after if found.code in ("TG801", "TG802") else before)[line - 1][col - 1 :]
        assert re.match(rf"(:param )?{entry}\b", text), (found, text)


@pytest.mark.parametrize("name", GOLDEN)
def test_checked_or_shown_added_entries_are_located_in_the_file_as_it_is(
    tmp_path: Path, name: str
) -> None:
    """`--check` and `--diff` change nothing: an added entry is located in its handler's
    docstring as it is on disk, at the column it will have, in signature order."""
    source = (FIXTURES / f"{name}.py").read_text(encoding="utf-8")
    spans = {
        node.name: (node.body[0].lineno, node.body[0].end_lineno)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    for folder in ("write", "check", "diff"):
        (tmp_path / folder).mkdir()
    written = fix_files(_config(_copy(tmp_path / "write", f"{name}.py")), "write").diagnostics
    in_fixed = {(d.code, d.message): d.location for d in written}
    for mode in ("check", "diff"):
        root = _copy(tmp_path / mode, f"{name}.py")
        shown = fix_files(_config(root), mode).diagnostics  # type: ignore[arg-type]
        added = [d for d in shown if d.code in ("TG801", "TG802")]
        assert added
        for found in added:
            fixed = in_fixed[(found.code, found.message)]
            assert found.location is not None and fixed is not None
            function = re.findall(r"`([^`]+)`", found.message)[0]
            first, last = spans[function]
            assert first <= found.location.line <= (last or first), (mode, found)
            assert found.location.col == fixed.col
            assert found.location.line <= fixed.line  # nothing above it was added on disk


def test_google_check_locates_added_entries_in_the_file_as_it_is(tmp_path: Path) -> None:
    root = _copy(tmp_path, "google.py")
    report = fix_files(_config(root), "check")
    assert _codes(report.diagnostics) == [
        ("TG801", "google.py:20:9"),  # `limit` and `region` go after `query`: before line 20
        ("TG801", "google.py:20:9"),
        ("TG802", "google.py:33:9"),  # at the end of the section: before the closing quotes
        ("TG803", "google.py:43:9"),
        ("TG803", "google.py:55:9"),
        ("TG801", "google.py:74:9"),  # a new section, at the blank line before Returns
        ("TG802", "google.py:74:9"),
        ("TG802", "google.py:86:9"),  # a one-line docstring: its line
        ("TG801", "google.py:98:13"),  # where the removed `old` stands
        ("TG803", "google.py:98:13"),
    ]


@pytest.mark.parametrize("name", GOLDEN)
def test_the_compiler_reads_what_the_fix_wrote(tmp_path: Path, name: str) -> None:
    """Every exposed parameter has its entry, in signature order, with its Field text."""
    root = _copy(tmp_path, f"{name}.expected.py")
    path = root / f"{name}.expected.py"
    exposed = _exposed(path)
    functions = {
        node.lineno: node
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef)
    }
    assert exposed
    for line, params in exposed.items():
        node = functions[line]
        doc = parse_docstring(node)
        assert doc is not None
        signature = [a.arg for a in (*node.args.args, *node.args.kwonlyargs)]
        if node.name == "one_liner":  # a docstring on the def line is left alone
            assert doc.params == {}
            continue
        assert [p.name for p in params] == [n for n in doc.params if n in {p.name for p in params}]
        assert list(doc.params) == [n for n in signature if n in doc.params]
        for param in params:
            if param.description is not None:  # none of them was documented by hand
                assert doc.params[param.name].text == param.description
        placeholders = {n for n, entry in doc.params.items() if entry.text == PLACEHOLDER}
        assert placeholders <= {p.name for p in params if p.description is None}


# -- formats the golden files cannot hold --------------------------------------------------
def _fix(source: str, params: dict[str, str | None], style: str = "auto") -> tuple[str, list[str]]:
    line = next(
        n.lineno
        for n in ast.walk(ast.parse(source.lstrip("\ufeff")))
        if isinstance(n, ast.FunctionDef)
    )
    exposed = {line: [FixParam(name, text) for name, text in params.items()]}
    result = fix_source(source, "m.py", exposed, style)
    again = fix_source(result.source, "m.py", exposed, style)
    assert again.source == result.source and not again.changed
    return result.source, [d.format_text() for d in result.diagnostics]


def test_crlf_line_endings_are_kept() -> None:
    source = 'def f(a, b):\r\n    """Sum.\r\n\r\n    Args:\r\n        b: B.\r\n    """\r\n'
    fixed, _ = _fix(source, {"a": "The a.", "b": None})
    assert fixed == (
        'def f(a, b):\r\n    """Sum.\r\n\r\n    Args:\r\n        a: The a.\r\n        b: B.\r\n'
        '    """\r\n'
    )


def test_tab_indentation_is_kept() -> None:
    source = 'def f(a):\n\t"""Sum.\n\n\tReturns:\n\t\tX.\n\t"""\n\treturn 1\n'
    fixed, found = _fix(source, {"a": None})
    assert fixed == (
        'def f(a):\n\t"""Sum.\n\n\tArgs:\n\t\ta: TODO: describe this parameter.\n\n'
        '\tReturns:\n\t\tX.\n\t"""\n\treturn 1\n'
    )
    assert found == [
        "m.py:5:3: TG802 [warning] `f`: parameter `a` needs a description; placeholder "
        "'TODO: describe this parameter.' inserted in the docstring's Args section"
    ]


def test_a_byte_order_mark_is_kept() -> None:
    fixed, _ = _fix('\ufeffdef f(a):\n    """Sum."""\n', {"a": "The a."})
    assert fixed == '\ufeffdef f(a):\n    """Sum.\n\n    Args:\n        a: The a.\n    """\n'


def test_descriptions_are_escaped_for_the_literal() -> None:
    source = 'def f(a, b):\n    """Sum.\n\n    Args:\n        a: A.\n    """\n'
    text = 'A path like C:\\dir and """quotes""".'
    fixed, _ = _fix(source, {"a": None, "b": text})
    assert fixed == (
        'def f(a, b):\n    """Sum.\n\n    Args:\n        a: A.\n'
        '        b: A path like C:\\\\dir and \\"\\"\\"quotes\\"\\"\\".\n    """\n'
    )
    doc = parse_docstring(ast.parse(fixed).body[0])  # type: ignore[arg-type]
    assert doc is not None and doc.params["b"].text == text


def test_a_raw_docstring_keeps_backslashes_and_refuses_its_own_quotes() -> None:
    source = "def f(a, b):\n    r'''Sum \\d.\n\n    Args:\n        a: A.\n    '''\n"
    fixed, found = _fix(source, {"a": "Regex \\d+.", "b": "Has ''' inside."})
    assert fixed == (
        "def f(a, b):\n    r'''Sum \\d.\n\n    Args:\n        a: A.\n"
        "        b: TODO: describe this parameter.\n    '''\n"
    )
    assert found == [
        "m.py:6:9: TG802 [warning] `f`: parameter `b` needs a description (its "
        "Field(description=...) cannot be written in this raw docstring); placeholder "
        "'TODO: describe this parameter.' inserted in the docstring's Args section"
    ]


def test_a_multi_line_description_is_indented_as_continuation() -> None:
    source = 'def f(a):\n    """Sum.\n\n    More text."""\n'
    fixed, _ = _fix(source, {"a": "First line.\n\n    Second paragraph\n    goes on."})
    assert fixed == (
        'def f(a):\n    """Sum.\n\n    More text.\n\n    Args:\n        a: First line.\n\n'
        '            Second paragraph\n            goes on.\n    """\n'
    )
    doc = parse_docstring(ast.parse(fixed).body[0])  # type: ignore[arg-type]
    assert doc is not None and doc.params["a"].text == "First line.\n\nSecond paragraph goes on."


def test_a_multi_line_description_in_an_existing_section() -> None:
    source = 'def f(a, b):\n    """Sum.\n\n    Args:\n        a: A.\n    """\n'
    fixed, _ = _fix(source, {"a": None, "b": "One.\nTwo."})
    assert fixed == (
        'def f(a, b):\n    """Sum.\n\n    Args:\n        a: A.\n        b: One.\n'
        '            Two.\n    """\n'
    )


def test_an_entry_never_runs_into_the_closing_quotes() -> None:
    source = 'def f(a, b):\n    """Sum.\n\n    Args:\n        b: The "x"\n        a: A."""\n'
    fixed, _ = _fix(source, {"a": None, "b": None})
    assert fixed == (
        'def f(a, b):\n    """Sum.\n\n    Args:\n        a: A.\n        b: The "x"\n    """\n'
    )
    added = 'def f(a, b):\n    """Sum.\n\n    Args:\n        a: A."""\n'
    fixed, _ = _fix(added, {"a": None, "b": 'Say "hi"'})
    assert fixed == (
        'def f(a, b):\n    """Sum.\n\n    Args:\n        a: A.\n        b: Say "hi"\n    """\n'
    )


@pytest.mark.parametrize(
    ("style", "section"),
    [
        ("google", "    Args:\n        a: TODO: describe this parameter.\n"),
        (
            "numpy",
            "    Parameters\n    ----------\n    a : int\n        TODO: describe this parameter.\n",
        ),
        ("sphinx", "    :param a: TODO: describe this parameter.\n"),
    ],
)
def test_a_configured_style_decides_a_new_section(style: str, section: str) -> None:
    source = 'def f(a: int):\n    """Sum.\n    """\n'
    line = 1
    result = fix_source(source, "m.py", {line: [FixParam("a", None, "int")]}, style)
    assert result.source == f'def f(a: int):\n    """Sum.\n\n{section}    """\n'


def test_a_section_whose_entries_all_went_goes_too() -> None:
    source = (
        'def f():\n    """Sum.\n\n    Args:\n        old: Gone.\n\n    Returns:\n        X.\n'
        '    """\n'
    )
    fixed, found = _fix(source, {})
    assert fixed == 'def f():\n    """Sum.\n\n    Returns:\n        X.\n    """\n'
    assert found == [
        "m.py:5:9: TG803 [info] `f`: removed the docstring entry for `old`: not a parameter"
    ]


def test_docstrings_the_fix_cannot_map_are_left_alone() -> None:
    escaped = 'def f(a):\n    """Sum.\\n\\nArgs:\\n    b: B."""\n'
    concatenated = 'def f(a):\n    "Sum." "\\n"\n'
    no_docstring = "def f(a):\n    return a\n"
    for source in (escaped, concatenated, no_docstring):
        result = fix_source(source, "m.py", {1: [FixParam("a")]})
        assert (result.source, result.changed, result.diagnostics) == (source, False, [])


def test_a_section_the_compiler_reads_as_text_is_left_alone() -> None:
    """`Note:` at the title's indentation makes the compiler read the entries above it as
    continuation lines: any fix would read differently the next time, so none is made."""
    source = (
        'def f(a, b):\n    """Sum.\n\n    Args:\n        a: A.\n        b: B.\n\n'
        '    Note: b is new.\n    """\n'
    )
    result = fix_source(source, "m.py", {1: [FixParam("a"), FixParam("b")]})
    assert (result.source, result.changed, result.diagnostics) == (source, False, [])


def test_only_the_listed_functions_change() -> None:
    source = (
        'def f(a):\n    """F.\n\n    Args:\n        zz: Gone.\n    """\n\n\n'
        'def g(b):\n    """G.\n\n    Args:\n        zz: Gone.\n    """\n'
    )
    result = fix_source(source, "m.py", {9: [FixParam("b", "The b.")]})
    assert result.source == (
        'def f(a):\n    """F.\n\n    Args:\n        zz: Gone.\n    """\n\n\n'
        'def g(b):\n    """G.\n\n    Args:\n        b: The b.\n    """\n'
    )


# -- which parameters: the compiler's ------------------------------------------------------
FRAMEWORK = '''
from fastmcp import Context, FastMCP
from langchain_core.tools import tool
from pydantic import BaseModel
from pydantic_ai import Agent

mcp = FastMCP("demo")
agent = Agent("test")


@mcp.tool
def search(query: str, ctx: Context) -> str:
    """Search the catalog."""
    raise NotImplementedError


@agent.tool
def lookup(run, key: str) -> str:  # `@agent.tool`: the run context comes first
    """Look a key up.

    Args:
        gone: Removed.
    """
    raise NotImplementedError


class WeatherInput(BaseModel):
    city: str


@tool(args_schema=WeatherInput)
def get_weather(city: str) -> str:
    """The model describes the parameters: the docstring is left alone."""
    raise NotImplementedError
'''


def test_framework_context_parameters_get_no_entry(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "server.py").write_text(FRAMEWORK.lstrip("\n"), encoding="utf-8")
    report = fix_files(_config(root, ("fastmcp", "pydantic-ai", "langchain")), "write")
    assert report.changed == ["server.py"]
    fixed = (root / "server.py").read_text(encoding="utf-8")
    assert fixed == FRAMEWORK.lstrip("\n").replace(
        '    """Search the catalog."""',
        '    """Search the catalog.\n\n    Args:\n        query: TODO: describe this parameter.\n'
        '    """',
    ).replace("        gone: Removed.\n", "        key: TODO: describe this parameter.\n")


# -- the edge: modes and files -------------------------------------------------------------
GREET = '''from toolgen import tool


@tool
def greet(name: str, loud: bool = False) -> str:
    """Greet someone.

    Args:
        name: Who to greet.
    """
    return name
'''


def test_check_mode_writes_nothing(tmp_path: Path) -> None:
    root = _copy(tmp_path, "google.py")
    before = (root / "google.py").read_bytes()
    report = fix_files(_config(root), "check")
    assert (report.mode, report.changed, report.diffs) == ("check", ["google.py"], {})
    assert (root / "google.py").read_bytes() == before
    assert sorted(p.name for p in root.iterdir()) == ["google.py"]


def test_diff_mode_returns_a_unified_diff_and_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "greet.py").write_text(GREET, encoding="utf-8")
    report = fix_files(_config(root), "diff")
    assert report.changed == ["greet.py"]
    assert report.diffs == {
        "greet.py": (
            "--- a/greet.py\n"
            "+++ b/greet.py\n"
            "@@ -7,5 +7,6 @@\n"
            " \n"
            "     Args:\n"
            "         name: Who to greet.\n"
            "+        loud: TODO: describe this parameter.\n"
            '     """\n'
            "     return name\n"
        )
    }
    assert report.diff == report.diffs["greet.py"]
    assert (root / "greet.py").read_text(encoding="utf-8") == GREET


def test_write_mode_keeps_the_file_mode(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    path = root / "greet.py"
    path.write_text(GREET, encoding="utf-8")
    path.chmod(0o755)
    report = fix_files(_config(root), "write")
    assert report.changed == ["greet.py"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert "        loud: TODO: describe this parameter.\n" in path.read_text(encoding="utf-8")


def test_a_file_with_a_syntax_error_is_reported_and_left_alone(tmp_path: Path) -> None:
    root = _copy(tmp_path, "google.py")
    broken = "from toolgen import tool\n\n@tool\ndef f(x:\n    pass\n"
    (root / "broken.py").write_text(broken, encoding="utf-8")
    report = fix_files(_config(root), "write")
    assert report.changed == ["google.py"]  # the other file is still fixed
    errors = [d for d in report.diagnostics if d.code == "TG804"]
    assert [(d.format_text()) for d in errors] == [
        "broken.py:4:6: TG804 [error] cannot parse: '(' was never closed; file not changed"
    ]
    assert (root / "broken.py").read_text(encoding="utf-8") == broken
    assert fix_source(broken, "broken.py", {}).source == broken
