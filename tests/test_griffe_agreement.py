"""Docstrings read as the frameworks read them: differential tests against griffe itself.

FastMCP, the OpenAI Agents SDK and pydantic-ai read docstrings with griffe, and so does
toolgen for FastMCP's payloads (`toolgen.analyze.griffe_docs` asks griffe's parsers). On real
docstrings -- those of the real-world corpus' wheels (extracted into
tests/fixtures/docstrings/realworld.json by scripts/extract_docstrings.py, with each package's
license) and every function of two large installed libraries, pydantic and pydantic-ai, read
from their source files without importing them -- these tests check that:

- FastMCP's description and parameter descriptions (`publication.fastmcp_docstring`) equal
  what the installed FastMCP's own `parse_docstring` makes of the same docstring, and the
  Agents SDK's and pydantic-ai's (`toolgen.analyze.framework_docs`) what theirs make of it
  (`generate_func_documentation`, `doc_descriptions`);
- toolgen's own parser (`toolgen.analyze.docstrings`, which also keeps source positions and
  toolgen's own sections) gives each parameter griffe's description, with wrapped lines joined
  as toolgen joins them; every difference is of a kind listed in `JUSTIFIED`, with its reason.

`TOOLGEN_DOCSTRING_TREES=dir1:dir2` adds source trees (e.g. the corpus' unpacked wheels, all of
them: `$TMPDIR/realworld-wheels/unpacked` after a run of compare.py).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest

from toolgen.analyze import griffe_docs
from toolgen.analyze.docstrings import join_text, parse_docstring
from toolgen.analyze.framework_docs import agents_doc, pydantic_ai_doc
from toolgen.analyze.griffe_docs import Section
from toolgen.analyze.publication import fastmcp_docstring
from toolgen.frameworks import framework

FIXTURE = Path(__file__).parent / "fixtures" / "docstrings" / "realworld.json"
LIBRARIES = ("pydantic", "pydantic_ai")

Function = ast.FunctionDef | ast.AsyncFunctionDef


@cache
def docstrings(source: str) -> list[tuple[str, Function]]:
    """(where, function node) of every function with a docstring in `source`: "realworld",
    an installed library's name, or a folder."""
    if source == "realworld":
        found = []
        for package in json.loads(FIXTURE.read_text(encoding="utf-8")):
            for entry in package["docstrings"]:
                node = ast.parse(f"def {entry['function']}():\n    {json.dumps(entry['text'])}\n")
                where = f"{package['requirement']}:{entry['path']}:{entry['line']}"
                found.append((where, node.body[0]))
        return found  # type: ignore[return-value]
    spec = None if os.sep in source else importlib.util.find_spec(source)
    roots = list(spec.submodule_search_locations or []) if spec else [source]
    return [
        (f"{path}:{node.lineno}", node)
        for root in roots
        for path in sorted(Path(root).rglob("*.py"))
        for node in _functions(path)
    ]


def _functions(path: Path) -> Iterator[Function]:
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and ast.get_docstring(node):
            yield node


def _text(node: Function) -> str:
    text = ast.get_docstring(node, clean=False)
    assert text is not None
    return text


TREES = os.environ.get("TOOLGEN_DOCSTRING_TREES", "")
SOURCES = ["realworld", *LIBRARIES, *filter(None, TREES.split(os.pathsep))]


@pytest.mark.parametrize("source", SOURCES)
def test_fastmcp_reads_docstrings_as_toolgen_says(source: str) -> None:
    """The installed FastMCP's own reading of each docstring (a function with it as `__doc__`)."""
    parsing = pytest.importorskip("fastmcp.utilities.docstring_parsing")
    installed = framework("fastmcp", {})
    found = docstrings(source)
    assert len(found) > (200 if source == "realworld" else 500), "a corpus worth the name"
    differ = []
    for where, node in found:
        theirs = parsing.parse_docstring(_function(_text(node)))
        ours = fastmcp_docstring(installed, _text(node))
        if (ours[0], ours[1]) != (theirs.description, theirs.parameters):
            differ.append(where)
    assert differ == []


@pytest.mark.parametrize("source", SOURCES)
def test_the_agent_sdks_read_docstrings_as_toolgen_says(source: str) -> None:
    """The installed Agents SDK's and pydantic-ai's own readings of each docstring (a function
    with it as `__doc__`, as Python before 3.13 makes it); where one raises, toolgen's reading
    raises the same (pydantic-ai's Returns options make griffe fail on a `Returns:` whose
    first line is dashes: pydantic-ai cannot register such a tool)."""
    agents = pytest.importorskip("agents.function_schema")
    pydantic_ai = pytest.importorskip("pydantic_ai._griffe")

    def agents_sdk(text: str) -> object:
        documented = agents.generate_func_documentation(_function(text))
        return documented.description, documented.param_descriptions or {}

    readings: list[tuple[Callable[[str], object], Callable[[str], object]]] = [
        (agents_sdk, agents_doc),
        (
            lambda text: pydantic_ai.doc_descriptions(_function(text), docstring_format="auto"),
            lambda text: pydantic_ai_doc(text, (3, 12)),
        ),
    ]
    differ = [
        where
        for where, node in docstrings(source)
        for theirs, ours in readings
        if _outcome(theirs, _text(node)) != _outcome(ours, _text(node))
    ]
    assert differ == []


def _function(text: str) -> Callable[[], None]:
    def f() -> None: ...

    f.__doc__ = text
    return f


def _outcome(read: Callable[[str], object], text: str) -> object:
    """What `read` makes of `text`, or the kind of exception it raises."""
    try:
        return read(text)
    except Exception as exc:
        return type(exc)


def test_griffes_sections_in_toolgens_form() -> None:
    """Each kind of griffe section as a `griffe_docs.Section`: a text section's text, the
    (name, text) pairs of a parameters section, an admonition's kind and text, else the kind."""
    google = """Search the index.

    Args:
        query: Words to look for,
            on two lines.

    Keyword Args:
        limit: How many.

    Note:
        Slow on big indexes.

    Returns:
        The hits.
    """
    assert griffe_docs.parse(google, "google") == [
        Section("text", "Search the index."),
        Section("parameters", params=(("query", "Words to look for,\non two lines."),)),
        Section("other parameters", params=(("limit", "How many."),)),
        Section("admonition", "Slow on big indexes.", "note"),
        Section("returns"),
    ]
    numpy = """Search.

    Parameters
    ----------
    query, words : str
        Words to look for.
    """
    assert griffe_docs.parse(numpy, "numpy") == [
        Section("text", "Search."),
        Section(
            "parameters", params=(("query", "Words to look for."), ("words", "Words to look for."))
        ),
    ]
    sphinx = "Search.\n\n:param query: Words to look for.\n:returns: The hits.\n"
    assert griffe_docs.parse(sphinx, "sphinx") == [
        Section("text", "Search."),
        Section("parameters", params=(("query", "Words to look for."),)),
        Section("returns"),
    ]
    with pytest.raises(KeyError):
        griffe_docs.parse(google, "epytext")


def test_griffe_is_imported_only_to_read_a_docstring() -> None:
    """A build of `@tool` handlers never reads a docstring with griffe: no import to pay for."""
    code = (
        "import sys, toolgen.cli, toolgen.pipeline, toolgen.analyze.publication; "
        "print('griffe' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


#: Each kind of difference between toolgen's own parameter descriptions and griffe's, and why
#: it may stay. A difference of no listed kind fails the test.
JUSTIFIED: dict[str, str] = {
    "not a name": (
        "griffe lists an Args entry whose name no parameter can have (`*args, **kwargs`, "
        "`- report`, `name, title, etc.`); toolgen keeps it as an entry without a name: it "
        "ends the text before it as in griffe, and describes no property"
    ),
    "header without a blank line": (
        "toolgen reads `Args:` right under the summary, with no blank line above it; griffe "
        "reads such a header as text, and so does FastMCP, whose payload toolgen makes from "
        "`griffe_docs`: only toolgen's own (enriched) descriptions are the lenient ones"
    ),
}


def _kind(name: str, ours: str | None, theirs: str | None, text: str) -> str:
    if not name.lstrip("*").isidentifier():
        return "not a name"
    lines = text.split("\n")
    headers = ("args", "arguments", "parameters", "params")
    for i, line in enumerate(lines[1:], 1):
        header = line.strip().rstrip(":").lower() in headers
        if header and lines[i - 1].strip() and ours is not None and theirs is None:
            return "header without a blank line"
    return "unexplained"


@pytest.mark.parametrize("source", SOURCES)
def test_toolgens_parameter_descriptions_are_griffes(source: str) -> None:
    kinds: Counter[str] = Counter()
    unexplained = []
    compared = 0
    for where, node in docstrings(source):
        doc = parse_docstring(node)
        assert doc is not None
        theirs: dict[str, str] = {}
        for section in griffe_docs.parse(_text(node), doc.style):
            if section.kind == "parameters":
                for name, text in section.params:
                    theirs.setdefault(name, join_text(text.split("\n")))
        ours = {name: entry.text for name, entry in doc.params.items()}
        for name in {*ours, *(n.lstrip("*") for n in theirs)}:
            compared += 1
            mine = ours.get(name)
            griffes = theirs.get(name, theirs.get(f"*{name}", theirs.get(f"**{name}")))
            if mine == griffes:
                continue
            kind = _kind(name, mine, griffes, _text(node))
            kinds[kind] += 1
            if kind == "unexplained":
                unexplained.append((where, name, mine, griffes))
    assert compared > (300 if source == "realworld" else 500)
    assert unexplained == []
    assert set(kinds) <= set(JUSTIFIED)
