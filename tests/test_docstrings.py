"""Docstring styles and toolgen's own sections, parsed from real function nodes."""

from __future__ import annotations

import ast
import textwrap

import pytest

from toolgen.analyze.docstrings import detect_style, docstring_lines, parse_docstring
from toolgen.analyze.sections import SectionReader


def _fn(source: str) -> ast.FunctionDef:
    node = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


GOOGLE = '''
def f(query, limit):
    """Search the catalog.

    Longer text that wraps
    over two lines.

    - a bullet
    - another

    Args:
        query (str): Words to look for,
            continued here.
        limit: How many.

    Returns:
        The hits.

    Raises:
        ValueError: Bad input.
    """
'''

NUMPY = '''
def f(query, limit):
    """Search the catalog.

    Parameters
    ----------
    query : str
        Words to look for.
    limit : int, optional
        How many.

    Returns
    -------
    list of str
        The hits.
    """
'''

SPHINX = '''
def f(query, limit):
    """Search the catalog.

    :param query: Words to look for.
    :param int limit: How many,
        at most.
    :returns: The hits.
    :raises ValueError: Bad input.
    """
'''


@pytest.mark.parametrize(
    ("source", "style"), [(GOOGLE, "google"), (NUMPY, "numpy"), (SPHINX, "sphinx")]
)
def test_each_style_is_detected_and_parsed(source: str, style: str) -> None:
    node = _fn(source)
    lines = docstring_lines(node)
    assert lines is not None
    assert detect_style(lines) == style
    doc = parse_docstring(node)
    assert doc is not None
    assert doc.style == style
    assert doc.description.startswith("Search the catalog.")
    assert doc.params["query"].text.startswith("Words to look for")
    assert doc.params["limit"].text.startswith("How many")
    assert doc.returns == "The hits."


def test_parameter_names_may_start_with_any_letter() -> None:
    doc = parse_docstring(
        _fn('''
def f(élan, _x, 日付):
    """Do it.

    Args:
        élan: Drive.
        _x: Private.
        日付: A date.
        2nd: Not a name.
    """
''')
    )
    assert doc is not None
    # `2nd: ...` starts an entry, as griffe reads it (so FastMCP publishes `A date.`), but no
    # parameter can have its name
    assert {name: entry.text for name, entry in doc.params.items()} == {
        "élan": "Drive.",
        "_x": "Private.",
        "日付": "A date.",
    }


def test_google_details() -> None:
    doc = parse_docstring(_fn(GOOGLE))
    assert doc is not None
    assert doc.description == (
        "Search the catalog.\n\nLonger text that wraps over two lines.\n\n- a bullet\n- another"
    )
    assert doc.params["query"].text == "Words to look for, continued here."
    assert doc.params["query"].annotation == "str"
    assert [(e.name, e.text) for e in doc.raises] == [("ValueError", "Bad input.")]


def test_entry_positions_are_source_positions() -> None:
    doc = parse_docstring(_fn(GOOGLE))
    assert doc is not None
    # line 1 of the snippet is blank: `def` is line 2, the docstring starts on line 3
    assert (doc.params["query"].at.line, doc.params["query"].at.col) == (12, 9)


def test_forced_style_overrides_detection() -> None:
    doc = parse_docstring(_fn(NUMPY), "google")
    assert doc is not None
    assert doc.params == {}  # a NumPy docstring read as Google has no Args section


def test_no_docstring() -> None:
    assert parse_docstring(_fn("def f():\n    return 1\n")) is None


SECTIONS = '''
def search_web(query):
    """Search.

    Errors:
        RATE_LIMITED: Quota exceeded. Recovery: back off for a minute.
        UPSTREAM_TIMEOUT (504, retryable): The engine did not answer.
        GONE (410, not retryable): The index was removed.
        NOT_FOUND: Nothing there.

    Examples:
        Latest news about a topic:

        >>> search_web(query="solar eclipse",
        ...            num_results=3)
        [{"title": "x", "url": "https://example.com"}]

        >>> search_web(query="")
        {"error": {"code": "VALIDATION_ERROR", "message": "too short"}}

        Python literal results work too:

        >>> search_web(query="a", exact=True)
        {'hits': None}

    Idempotency:
        idempotent: true
        safe: yes
        destructive: false
        open-world: no

    Side Effects:
        - Writes an audit record.
        - Warms a cache
          for later calls.

    Permissions:
        search:read, search:admin
    """
'''


def _sections() -> tuple[dict[str, object], SectionReader]:
    doc = parse_docstring(_fn(SECTIONS))
    assert doc is not None
    reader = SectionReader("x.py")
    parsed = {
        "errors": reader.errors(doc.sections["errors"]),
        "examples": [e for e, _ in reader.examples(doc.sections["examples"], {"search_web"})],
        "idempotency": reader.idempotency(doc.sections["idempotency"]),
        "side effects": reader.bullets(doc.sections["side effects"]),
        "permissions": reader.bullets(doc.sections["permissions"]),
    }
    return parsed, reader


def test_errors_with_taxonomy_defaults_and_explicit_values() -> None:
    parsed, reader = _sections()
    assert reader.diagnostics == []
    assert parsed["errors"] == [
        {
            "code": "RATE_LIMITED",
            "description": "Quota exceeded.",
            "http_status": 429,
            "retryable": True,
            "recovery": "back off for a minute.",
        },
        {
            "code": "UPSTREAM_TIMEOUT",
            "description": "The engine did not answer.",
            "http_status": 504,
            "retryable": True,
            "recovery": None,
        },
        {
            "code": "GONE",
            "description": "The index was removed.",
            "http_status": 410,
            "retryable": False,
            "recovery": None,
        },
        {
            "code": "NOT_FOUND",
            "description": "Nothing there.",
            "http_status": 404,
            "retryable": False,
            "recovery": "check the name or id, or look it up first",  # the taxonomy's
        },
    ]


def test_examples_prompt_call_and_result() -> None:
    parsed, _ = _sections()
    assert parsed["examples"] == [
        {
            "prompt": "Latest news about a topic",
            "arguments": {"query": "solar eclipse", "num_results": 3},
            "result": [{"title": "x", "url": "https://example.com"}],
        },
        {"arguments": {"query": ""}, "error": {"code": "VALIDATION_ERROR", "message": "too short"}},
        {
            "prompt": "Python literal results work too",
            "arguments": {"query": "a", "exact": True},
            "result": {"hits": None},
        },
    ]


def test_idempotency_side_effects_permissions() -> None:
    parsed, _ = _sections()
    assert parsed["idempotency"] == {
        "idempotent": True,
        "safe": True,
        "destructive": False,
        "open_world": False,
    }
    assert parsed["side effects"] == ["Writes an audit record.", "Warms a cache for later calls."]
    assert parsed["permissions"] == ["search:read", "search:admin"]


def test_prose_back_at_the_margin_ends_a_section() -> None:
    """As griffe reads it: the paragraph after `Args:` is neither a parameter's text nor the
    summary, and the entries stay entries (they were lost when the section took it in)."""
    doc = parse_docstring(
        _fn('''
def f(a, b):
    """Do it.

    Args:
        a: First.
        b: Second,
            wrapped.

    Available since 2.0.
    Returns: not a section (text on its title line).
    """
''')
    )
    assert doc is not None
    assert {name: entry.text for name, entry in doc.params.items()} == {
        "a": "First.",
        "b": "Second, wrapped.",
    }
    assert doc.description == "Do it."
    assert doc.returns is None


def test_a_line_at_the_entries_margin_ends_the_entry_before_it() -> None:
    """`*args, **kwargs: ...` and an unindented wrapped line start entries (griffe: items)."""
    doc = parse_docstring(
        _fn('''
def f(query, message, *args, **kwargs):
    """Do it.

    Args:
        query: The words to
        look for.
        message: Shown to the user.
        *args, **kwargs: Passed on.
    """
''')
    )
    assert doc is not None
    assert {name: entry.text for name, entry in doc.params.items()} == {
        "query": "The words to",
        "message": "Shown to the user.",
    }


def test_a_sphinx_field_runs_to_the_next_field_but_not_into_toolgens_own_sections() -> None:
    doc = parse_docstring(
        _fn('''
def f(query, limit):
    """Search.

    :param query: Words to look for.
    More about them.
    :param limit: How many.

    Errors:
        NOT_FOUND: Nothing there.
    """
''')
    )
    assert doc is not None
    assert doc.params["query"].text == "Words to look for. More about them."
    assert doc.params["limit"].text == "How many."
    assert "errors" in doc.sections


def test_a_header_right_under_the_summary_is_read_by_toolgen_not_by_griffe() -> None:
    """The one difference of structure the agreement test allows (`JUSTIFIED`): toolgen's own
    reading is lenient; FastMCP's payload comes from griffe's reading (`griffe_docs`)."""
    from toolgen.analyze import griffe_docs

    node = _fn('''
def f(query):
    """Search.
    Args:
        query: Words to look for.
    """
''')
    doc = parse_docstring(node)
    assert doc is not None and doc.params["query"].text == "Words to look for."
    text = ast.get_docstring(node, clean=False) or ""
    assert [s.kind for s in griffe_docs.parse(text, "google")] == ["text"]
