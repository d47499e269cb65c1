"""A LangChain `@tool` function's description, as LangChain makes it from the docstring.

LangChain reads the function's `__doc__`, which depends on the Python the tool runs on:
Python 3.13 strips the docstring's common indentation when it compiles the function, earlier
versions keep it as written. Without `parse_docstring=True` the whole docstring is the
description, its Args section included (`textwrap.dedent(__doc__).strip()`); with it, the
paragraphs before the Args section, joined by spaces (`_parse_google_docstring` of
`inspect.getdoc`). `doc_at_run_time` serves the MCP SDK's descriptions too.
"""

from __future__ import annotations

import inspect
import textwrap


def doc_at_run_time(raw: str, python: tuple[int, int]) -> str:
    """A function's `__doc__` on Python `python`, from its docstring literal: as written, or
    from Python 3.13 on with the indentation the compiler removes (the first line's leading
    whitespace, and the margin the other lines share, blank ones emptied)."""
    if python < (3, 13):
        return raw
    lines = raw.expandtabs().split("\n")
    margin = min((len(ln) - len(ln.lstrip()) for ln in lines[1:] if ln.strip()), default=0)
    return "\n".join([lines[0].lstrip(), *(ln[margin:] if ln.strip() else "" for ln in lines[1:])])


def whole_description(raw: str, python: tuple[int, int]) -> str:
    """The description of a `@tool` function without `parse_docstring`."""
    return textwrap.dedent(doc_at_run_time(raw, python)).strip()


def parsed_description(raw: str) -> str:
    """The description of a `@tool(parse_docstring=True)` function: the paragraphs of
    `inspect.getdoc` before its Args section (none after a Returns or Example paragraph),
    joined by spaces."""
    kept: list[str] = []
    past = False
    for block in inspect.cleandoc(raw).split("\n\n"):
        if block.startswith("Args:"):
            break
        if block.startswith(("Returns:", "Example:")):
            past = True
        elif not past:
            kept.append(block)
    return " ".join(kept).strip()
