"""A tool's description and its parameters' descriptions as the OpenAI Agents SDK and pydantic-ai
read them from the docstring: each hands the docstring's text to griffe's parser for the style
it detects, and takes griffe's text as it is, line breaks included.

- The Agents SDK (`generate_func_documentation`): `inspect.getdoc`, the style scored by
  `_detect_docstring_style` (sphinx, then numpy, then google on a tie; google without any
  sign), a blank line put before a Google `Args:` header that follows text
  (`_ensure_blank_line_before_google_sections`), griffe's first text section, and each
  parameter's text by its name without stars.
- pydantic-ai (`doc_descriptions`): the function's `__doc__`, the style of the first pattern
  of `_docstring_style_patterns` that matches (sphinx, google, numpy; google without),
  griffe's first text section, each parameter's first text; a Returns section makes the
  description `<summary>...</summary>` followed by a `<returns>` block.

griffe parses text only: nothing of the project is imported.
"""

from __future__ import annotations

import inspect
import re
from typing import Any, Literal

from toolgen.analyze import griffe_docs
from toolgen.analyze.langchain_docs import doc_at_run_time

Style = Literal["google", "numpy", "sphinx"]
Described = tuple[str | None, dict[str, str]]


def agents_doc(raw: str) -> Described:
    """The Agents SDK's description and parameter descriptions of a docstring literal."""
    doc = inspect.cleandoc(raw)
    if not doc:
        return None, {}
    style = _agents_style(doc)
    if style == "google":
        doc = _blank_line_before_args(doc)
    sections = griffe_docs.sections("\n" + doc, style)
    text = next((s.value for s in sections if s.kind.value == "text"), None)
    params = {
        p.name.lstrip("*"): p.description
        for s in sections
        if s.kind.value == "parameters"
        for p in s.value
    }
    return text, params


def pydantic_ai_doc(raw: str, python: tuple[int, int]) -> Described:
    """pydantic-ai's description and parameter descriptions of a docstring literal, on the
    Python `python` (whose `__doc__` griffe reads)."""
    doc = doc_at_run_time(raw, python)
    style = _pydantic_ai_style(doc)
    sections = griffe_docs.sections(doc, style, _pydantic_ai_options(style))
    from griffe import DocstringSectionParameters

    params: dict[str, str] = {}
    for section in sections:
        if isinstance(section, DocstringSectionParameters):
            for param in section.value:
                params.setdefault(param.name.lstrip("*"), param.description)
    main = next((s.value for s in sections if s.kind.value == "text"), "")
    returns = next((s for s in sections if s.kind.value == "returns"), None)
    if returns is not None:
        statement = returns.value[0]
        kind = f"<type>{statement.annotation}</type>\n" if statement.annotation else ""
        block = f"<returns>\n{kind}<description>{statement.description}</description>\n</returns>"
        main = f"<summary>{main}</summary>\n{block}" if main else block
    return main, params


# -- the Agents SDK --------------------------------------------------------------------------
_AGENTS_PATTERNS: dict[Style, tuple[str, ...]] = {
    "sphinx": (r"^:param\s", r"^:type\s", r"^:return:", r"^:rtype:"),
    "numpy": (r"^Parameters\s*\n\s*-{3,}", r"^Returns\s*\n\s*-{3,}", r"^Yields\s*\n\s*-{3,}"),
    "google": (r"^(Args|Arguments):", r"^(Returns):", r"^(Raises):"),
}
_ARGS_HEADER = re.compile(r"^(args|arguments|params|parameters):\s*$", re.IGNORECASE)


def _agents_style(doc: str) -> Style:
    scores = {
        style: sum(1 for p in patterns if re.search(p, doc, re.MULTILINE))
        for style, patterns in _AGENTS_PATTERNS.items()
    }
    best = max(scores.values())
    if best == 0:
        return "google"
    styles: tuple[Style, ...] = ("sphinx", "numpy", "google")
    return next(style for style in styles if scores[style] == best)


def _blank_line_before_args(doc: str) -> str:
    lines = doc.splitlines()
    out: list[str] = []
    inserted = False
    for index, line in enumerate(lines):
        if (
            index > 0
            and _ARGS_HEADER.match(line)
            and out
            and out[-1].strip()
            and index + 1 < len(lines)
            and lines[index + 1].startswith((" ", "\t"))
        ):
            out.append("")
            inserted = True
        out.append(line)
    return "\n".join(out) if inserted else doc


# -- pydantic-ai -----------------------------------------------------------------------------
_PYDANTIC_AI_PATTERNS: tuple[tuple[str, tuple[str, ...], Style], ...] = (
    (
        r"\n[ \t]*:{0}([ \t]+\w+)*:([ \t]+.+)?\n",
        (
            "param",
            "parameter",
            "arg",
            "argument",
            "key",
            "keyword",
            "type",
            "var",
            "ivar",
            "cvar",
            "vartype",
            "returns",
            "return",
            "rtype",
            "raises",
            "raise",
            "except",
            "exception",
        ),
        "sphinx",
    ),
    (
        r"\n[ \t]*{0}:([ \t]+.+)?\n[ \t]+.+",
        (
            "args",
            "arguments",
            "params",
            "parameters",
            "keyword args",
            "keyword arguments",
            "other args",
            "other arguments",
            "other params",
            "other parameters",
            "raises",
            "exceptions",
            "returns",
            "yields",
            "receives",
            "examples",
            "attributes",
            "functions",
            "methods",
            "classes",
            "modules",
            "warns",
            "warnings",
        ),
        "google",
    ),
    (
        r"\n[ \t]*{0}\n[ \t]*---+\n",
        (
            "deprecated",
            "parameters",
            "other parameters",
            "returns",
            "yields",
            "receives",
            "raises",
            "warns",
            "attributes",
            "functions",
            "methods",
            "classes",
            "modules",
        ),
        "numpy",
    ),
)


def _pydantic_ai_style(doc: str) -> Style:
    for pattern, words, style in _PYDANTIC_AI_PATTERNS:
        if any(
            re.search(pattern.format(word), doc, re.IGNORECASE | re.MULTILINE) for word in words
        ):
            return style
    return "google"


def _pydantic_ai_options(style: Style) -> Any:
    from griffe import GoogleOptions, NumpyOptions, SphinxOptions

    if style == "google":
        return GoogleOptions(
            returns_named_value=False, returns_multiple_items=False, warnings=False
        )
    if style == "numpy":
        return NumpyOptions(warnings=False)
    return SphinxOptions(warnings=False)
