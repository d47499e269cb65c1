"""`toolgen fix` on hostile handlers (red team): a Field description with control characters
goes into the docstring as escapes (a NUL written as it is made the file no Python, and the
fix's own check of its result raised); a raw docstring, which has no escapes, gets none."""

from __future__ import annotations

import ast
import re

import pytest

from conftest import Project
from test_breaking import RunCLI

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

HANDLER = '''\
from typing import Annotated

from pydantic import Field
from toolgen import tool


@tool
def lookup(query: str, c: Annotated[int, Field(description="{text}")]) -> str:
    {prefix}"""Look something up in the catalog. Use it for product questions.

    Args:
        query: The query.
    """
    raise NotImplementedError
'''


@pytest.mark.parametrize("text", ["nul \\x00 here", "esc \\x1b[2J here", "del \\x7f, csi \\x9b"])
@pytest.mark.parametrize("prefix", ["", "r"])
def test_a_description_with_control_characters_is_written_as_escapes(
    project: Project, run: RunCLI, text: str, prefix: str
) -> None:
    project.write("src/t.py", HANDLER.format(text=text, prefix=prefix))
    result = run("fix", cwd=project.root)
    assert result.code == 0, result.out + result.err
    data = (project.root / "src" / "t.py").read_bytes()
    tree = ast.parse(data)  # still Python
    assert CONTROL.search(data.decode()) is None
    function = tree.body[-1]
    assert isinstance(function, ast.FunctionDef)
    doc = ast.get_docstring(function, clean=False) or ""
    described = ast.literal_eval(f'"{text}"')
    if prefix:  # a raw docstring cannot hold it: a placeholder to write by hand
        assert described not in doc and "c: TODO" in doc, doc
    else:
        assert f"c: {described}" in doc, doc
    again = run("fix", "--check", cwd=project.root)
    assert again.code == 0, again.out
