"""Docstrings read by griffe itself, as the frameworks that publish them read them.

FastMCP, the OpenAI Agents SDK and pydantic-ai hand a tool's docstring to griffe's Google, NumPy
or Sphinx parser and publish griffe's texts: the first text section as the tool's description,
each parameter's text as that property's description, line breaks and all. `sections` is the
one way into griffe (`toolgen.analyze.framework_docs` reads the SDKs' choices with it), `parse`
FastMCP's sections in toolgen's form; a new griffe release changes toolgen's payloads as it
changes the frameworks'.

Only text goes to griffe: a `griffe.Docstring` with no parent, as FastMCP and the Agents SDK
build it; nothing is loaded or imported of the project being read. griffe is imported on the
first docstring, so a build of `@tool` handlers never pays for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from griffe import DocstringOptions, DocstringSection


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


def sections(
    text: str, style: str, options: DocstringOptions | None = None
) -> list[DocstringSection]:
    """griffe's own sections of the docstring `text` (griffe cleans it first) by its `style`
    parser ("google", "numpy" or "sphinx"), with the framework's parser `options`."""
    if style not in STYLES:
        raise KeyError(f"no griffe parser named {style!r}")
    from griffe import Docstring, Parser

    # `warnings=False`, as pydantic-ai does: griffe would log every untyped parameter (the
    # option only silences the log, the sections are the same)
    quiet = cast("DocstringOptions", {**(options or {}), "warnings": False})
    return Docstring(text, lineno=1, parser=Parser(style), parser_options=quiet).parse()


def parse(text: str, style: str) -> list[Section]:
    """The sections griffe's `style` parser finds in the docstring `text`, as FastMCP reads
    them (no parser options), in toolgen's form."""
    return [_section(section) for section in sections(text, style)]


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
