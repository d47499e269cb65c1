"""Handler text that reaches docs/tools.md and python/tools.py (red team): quotes at the ends
of a docstring, control characters (a NUL, an ESC, DEL, C1) in descriptions, docstrings and
`Literal` values. The module stays Python that black leaves as it is and that reads back the
same values; neither file holds a control character (an ESC rewrites the terminal of whoever
views a diff of it, a NUL makes git take it for binary and Python refuse it)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from conftest import Project, Run
from test_breaking import RunCLI

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

TOOL = '''\
from typing import Literal

from pydantic import BaseModel, Field
from toolgen import tool


class Item(BaseModel):
    {doc}

    name: str = Field(description={field})


@tool
def lookup(item: Item, mode: Literal[{value}] = {value}) -> str:
    """Look {summary} up in the catalog. Use it for product questions.

    Args:
        item: The item.
        mode: The {summary} mode.
    """
    raise NotImplementedError
'''

TEXTS = {
    "a docstring ending in a quote": ("'Say \"hi\"'", "'x'", "'a'", "it"),
    "a docstring starting with a quote": ("'\"Hi\" is said'", "'x'", "'a'", "it"),
    "several lines ending in a quote": ("'''First line.\n\n    Then \"hi\"'''", "'x'", "'a'", "it"),
    "a docstring ending in a backslash": ("'Ends \\\\'", "'x'", "'a'", "it"),
    "a NUL": ("'An \\x00 item.'", "'N\\x00'", "'a\\x00'", "\\x00"),
    "an ESC": ("'An \\x1b[2J item.'", "'N\\x1b[31m'", "'a\\x1b'", "\\x1b[8m"),
    "DEL and C1": ("'An \\x7f\\x9b item.'", "'N\\x9b2J'", "'a\\x7f\\x85'", "\\x9b"),
    "a carriage return": ("'An \\r item.'", "'N\\rM'", "'a\\r'", "\\r"),
    "vertical space": ("'An \\x0b\\x0c item.'", "'N\\x0c'", "'a\\x0b'", "\\x1c"),
}


@pytest.mark.parametrize(("doc", "field", "value", "summary"), TEXTS.values(), ids=list(TEXTS))
def test_text_with_quotes_and_controls_leaves_valid_python_and_plain_markdown(
    project: Project, run: RunCLI, doc: str, field: str, value: str, summary: str
) -> None:
    import black

    project.write("src/t.py", "")
    (project.root / "src" / "t.py").write_text(
        TOOL.format(doc=doc, field=field, value=value, summary=summary)
    )
    result: Run = run("build", cwd=project.root)
    assert result.code == 0, result.out + result.err
    module = (project.out / "python" / "tools.py").read_text()
    tree = ast.parse(module)  # a syntax error before: `"""Say "hi""""`
    mode = black.Mode(line_length=100, target_versions={black.TargetVersion.PY311})
    assert black.format_str(module, mode=mode) == module
    for path in (project.out / "python" / "tools.py", project.out / "docs" / "tools.md"):
        found = CONTROL.search(path.read_text())
        assert found is None, (path.name, found)
    # the Literal reads back the value the handler declares
    declared = ast.literal_eval(value)
    literals = [
        node.slice.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Literal"
        and isinstance(node.slice, ast.Constant)
    ]
    assert declared in literals, literals
    assert run("check", cwd=project.root).code == 0


def test_a_multi_line_docstring_ending_in_a_quote_goes_through_black(
    project: Project, run: RunCLI, tmp_path: Path
) -> None:
    (
        """A docstring of several lines goes to black itself, which could not parse one ending
    in `"""
        "` (an internal error)."
        ""
    )
    long = "word " * 30
    project.write("src/t.py", "")
    (project.root / "src" / "t.py").write_text(
        TOOL.format(doc=f"'''{long}\n\n    Then \"hi\"'''", field="'x'", value="'a'", summary="it")
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out + result.err
    ast.parse((project.out / "python" / "tools.py").read_text())


def test_printed_diagnostics_hold_no_control_character(project: Project, run: RunCLI) -> None:
    """A message quotes handler text (an example call with a NUL or an ESC), a location
    names a file (whose name may hold an ESC): text and GitHub lines show them as escapes;
    a `,` or `:` in a file's name is escaped in a GitHub command's `file=` (else `a,line=9`
    names another line)."""
    example = '    Examples:\n        >>> lookup(query="a\\x00\\x1b[2J")\n        "b"\n'
    for name in ("src/t.py", "src/e\x1b[8m,line=99::x.py"):
        path = project.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "from toolgen import tool\n\n\n@tool\ndef lookup(query: str) -> str:\n"
            '    """Look it up in the catalog. Use it for product questions.\n\n'
            "    Args:\n        query: The query.\n\n" + example + '    """\n'
            "    raise NotImplementedError\n"
        )
    text = run("build", cwd=project.root)
    github = run("build", "--format", "github", cwd=project.root)
    for result in (text, github):
        assert result.code == 1, result.out + result.err
        assert CONTROL.search(result.out + result.err) is None, result.out
    assert "TG307" in text.out and "\\x00\\x1b[2J" in text.out, text.out
    for line in github.out.splitlines():
        if line.startswith("::error file=src/e"):
            assert line.startswith("::error file=src/e\\x1b[8m%2Cline=99%3A%3Ax.py,line="), line


NAMED = {
    "a tool name that starts with a digit": ('@tool(name="1abc")', "x: int", ""),
    "a tool name that is a number": ('@tool(name="9")', "x: int", ""),
    "a model named ñ": ("@tool", "x: ñ", "class ñ(BaseModel):\n    a: int\n"),
    "a model named Literal": ("@tool", "x: Literal", "class Literal(BaseModel):\n    a: int\n"),
    "a model named Any": ("@tool", "x: Any", "class Any(BaseModel):\n    a: int\n"),
    "a model named ToolName": ("@tool", "x: ToolName", "class ToolName(BaseModel):\n    a: int\n"),
    "an alias named 1x": (
        "@tool",
        "x: X",
        "from typing_extensions import TypeAliasType\n\nX = TypeAliasType('1x', list[int])\n",
    ),
}


@pytest.mark.parametrize(("decorator", "params", "defined"), NAMED.values(), ids=list(NAMED))
def test_names_make_a_module_that_defines_each_name_once(
    project: Project, run: RunCLI, decorator: str, params: str, defined: str
) -> None:
    """A class of python/tools.py is named after a tool or a definition: `1abcArgs` was a
    syntax error, and a model named `Literal` or `ToolName` hid the module's own name."""
    project.write("src/t.py", "")
    (project.root / "src" / "t.py").write_text(
        f"from pydantic import BaseModel\nfrom toolgen import tool\n{defined}\n\n{decorator}\n"
        f"def lookup({params}) -> str:\n"
        '    """Look it up in the catalog. Use it for product questions.\n\n'
        '    Args:\n        x: The x.\n    """\n    raise NotImplementedError\n'
    )
    assert run("build", cwd=project.root).code == 0
    module = (project.out / "python" / "tools.py").read_text()
    tree = ast.parse(module)
    names = [
        target.id
        for node in tree.body
        for target in (
            [node.target]
            if isinstance(node, ast.AnnAssign)
            else node.targets
            if isinstance(node, ast.Assign)
            else []
        )
        if isinstance(target, ast.Name)
    ] + [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
    assert len(names) == len(set(names)), names
    assert not {"Any", "Literal", "NotRequired", "TypedDict"} & set(names), names
    namespace: dict[str, object] = {}
    exec(compile(tree, "tools.py", "exec"), namespace)  # the module imports and runs
