"""Docstrings read by griffe itself: what FastMCP (and the agent SDKs) publish.

FastMCP hands a tool's docstring to griffe's Google, NumPy or Sphinx parser and publishes the
first text section as the tool's description and each parameter's text as that property's
description, line breaks and all. `parse(text, style)` asks the same parser for the same
sections, so a new griffe release changes toolgen's payloads as it changes FastMCP's.

Only text goes to griffe: a `griffe.Docstring` with no parent, as FastMCP builds it; nothing
is loaded or imported of the project being read. griffe is imported on the first docstring,
so a build without a FastMCP handler never pays for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from griffe import DocstringSection


@dataclass(frozen=True)
class Section:
    """One griffe section: `kind` is griffe's section kind ("text", "parameters",
    "admonition", ...); `text` the text of a text section or an admonition; `name` an
    admonition's kind (its title lower-cased, spaces as dashes); `params` the (name, text) of
    each entry of a parameters (or other parameters) section."""

    kind: str
    text: str = ""
    name: str = ""
    params: tuple[tuple[str, str], ...] = field(default=())


STYLES = ("google", "numpy", "sphinx")


def parse(text: str, style: str) -> list[Section]:
    """The sections griffe's `style` parser ("google", "numpy" or "sphinx") finds in the
    docstring `text` (griffe cleans it first)."""
    if style not in STYLES:
        raise KeyError(f"no griffe parser named {style!r}")
    from griffe import Docstring, Parser

    # `warnings=False`, as pydantic-ai does: griffe would log every untyped parameter
    docstring = Docstring(text, lineno=1, parser=Parser(style), parser_options={"warnings": False})
    return [_section(section) for section in docstring.parse()]


def _section(section: DocstringSection) -> Section:
    from griffe import DocstringSectionAdmonition, DocstringSectionParameters, DocstringSectionText

    kind = section.kind.value
    if isinstance(section, DocstringSectionText):
        return Section(kind, section.value)
    if isinstance(section, DocstringSectionParameters):  # other parameters too (a subclass)
        return Section(kind, params=tuple((p.name, p.description) for p in section.value))
    if isinstance(section, DocstringSectionAdmonition):
        return Section(kind, section.value.description, str(section.value.kind or ""))
    return Section(kind)
