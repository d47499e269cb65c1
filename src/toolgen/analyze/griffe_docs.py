"""Docstrings read exactly as griffe reads them: what FastMCP and the agent SDKs publish.

FastMCP (and the OpenAI Agents SDK, pydantic-ai) hand a tool's docstring to griffe's Google,
NumPy or Sphinx parser and publish the first text section as the tool's description and each
parameter's text as that property's description, line breaks and all. `parse(text, style)`
gives the same sections, statically; `tests/test_griffe_agreement.py` checks it against griffe
itself on thousands of real docstrings.

The rules follow griffe 2.4's parsers (griffe is ISC-licensed, (c) 2021 Timothée Mazzucotelli
and contributors): only what decides the sections, their extent and the texts that reach a
payload is kept; annotations, defaults and warnings are not read.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

#: Section kinds named by their own title (lower-cased) in both Google and NumPy style.
_KINDS = (
    "parameters",
    "other parameters",
    "type parameters",
    "returns",
    "yields",
    "receives",
    "raises",
    "warns",
    "examples",
    "attributes",
    "functions",
    "classes",
    "type aliases",
    "modules",
)
#: Google section titles (lower-cased) and the kind of section each starts.
GOOGLE_KINDS = {
    **{kind: kind for kind in _KINDS},
    "args": "parameters",
    "arguments": "parameters",
    "params": "parameters",
    "keyword args": "other parameters",
    "keyword arguments": "other parameters",
    "other args": "other parameters",
    "other arguments": "other parameters",
    "other params": "other parameters",
    "type args": "type parameters",
    "type arguments": "type parameters",
    "type params": "type parameters",
    "exceptions": "raises",
    "methods": "functions",
    "warnings": "warns",
}
#: NumPy section titles (lower-cased) and the kind of section each starts.
NUMPY_KINDS = {
    **{kind: kind for kind in _KINDS},
    "deprecated": "deprecated",
    "methods": "functions",
}
#: Google sections whose items are `name: text` pairs (an item without a colon is dropped).
_PAIRED = frozenset(
    {
        "parameters",
        "other parameters",
        "type parameters",
        "raises",
        "warns",
        "attributes",
        "functions",
        "classes",
        "type aliases",
        "modules",
    }
)

_RE_ADMONITION = re.compile(r"^(?P<type>[\w][\s\w-]*):(\s+(?P<title>[^\s].*))?\s*$", re.IGNORECASE)
_RE_NUMPY_NAME = r"\*{0,2}[_a-z][_a-z0-9]*"
_RE_NUMPY_PARAMETER = re.compile(
    rf"(?P<names>{_RE_NUMPY_NAME}(?:,\s{_RE_NUMPY_NAME})*)"
    r"(?:\s:\s(?:(?:\{(?P<choices>.+)\})|(?P<type>.+))?)?",
    re.IGNORECASE,
)
_SPHINX_FIELDS = (  # (prefixes, what the field is), in the order griffe tries them
    (("type",), "type"),
    (("param", "parameter", "arg", "argument", "key", "keyword"), "param"),
    (("vartype",), "vartype"),
    (("var", "ivar", "cvar"), "var"),
    (("raises", "raise", "except", "exception"), "raises"),
    (("returns", "return"), "returns"),
    (("rtype",), "rtype"),
)


@dataclass(frozen=True)
class Section:
    """One griffe section: `kind` is griffe's section kind ("text", "parameters",
    "admonition", ...); `text` the text of a text section or an admonition; `name` an
    admonition's kind (its title lower-cased, spaces as dashes); `params` the (name, text) of
    each entry of a parameters section."""

    kind: str
    text: str = ""
    name: str = ""
    params: tuple[tuple[str, str], ...] = field(default=())


def clean(text: str) -> str:
    """The docstring as griffe holds it (`inspect.cleandoc` of the text, right-stripped)."""
    return inspect.cleandoc(text.rstrip())


def parse(text: str, style: str) -> list[Section]:
    """The sections griffe's `style` parser ("google", "numpy" or "sphinx") finds in the
    docstring `text` (cleaned first, as griffe does)."""
    lines = clean(text).split("\n")
    if style == "google":
        return _google(lines)
    if style == "numpy":
        return _numpy(lines)
    if style == "sphinx":
        return _sphinx(lines)
    raise KeyError(f"no griffe parser named {style!r}")


def _empty(line: str) -> bool:
    return not line or line.isspace()


# -- Google --------------------------------------------------------------------------------
def _google_items(lines: list[str], offset: int) -> tuple[list[list[str]], int]:
    """An indented block of items: each starts at the block's indentation, its continuation
    lines (indented further) follow; the block ends at a line indented less."""
    if offset >= len(lines):
        return [], offset
    at = offset
    while _empty(lines[at]):
        at += 1
    indent = len(lines[at]) - len(lines[at].lstrip())
    if indent == 0:
        return [], at - 1
    items: list[list[str]] = []
    current = [lines[at][indent:]]
    at += 1
    while at < len(lines):
        line = lines[at]
        if _empty(line):
            current.append("")
        elif line.startswith(indent * 2 * " "):
            current.append(line[indent * 2 :])
        elif line.startswith((indent + 1) * " "):
            current.append(line[len(line) - len(line.lstrip()) :])
        elif line.startswith(indent * " "):
            items.append(current)
            current = [line[indent:]]
        else:
            break
        at += 1
    items.append(current)
    return items, at - 1


def _google_block(lines: list[str], offset: int) -> tuple[str, int]:
    """An indented block of text (an admonition's, an example's)."""
    if offset >= len(lines):
        return "", offset - 1
    at = offset
    while _empty(lines[at]):
        at += 1
    indent = len(lines[at]) - len(lines[at].lstrip())
    if indent == 0:
        return "", offset - 1
    block = [lines[at].lstrip()]
    at += 1
    while at < len(lines) and (lines[at].startswith(indent * " ") or _empty(lines[at])):
        block.append(lines[at][indent:])
        at += 1
    return "\n".join(block).rstrip("\n"), at - 1


def _google_section(kind: str, lines: list[str], offset: int) -> tuple[Section | None, int]:
    """The section of `kind` whose content starts at `offset`, or None when it holds nothing
    griffe keeps; and the offset of its last line."""
    if kind == "examples":  # griffe keeps an examples section even when it is empty
        return Section(kind), _google_block(lines, offset)[1]
    items, end = _google_items(lines, offset)
    if kind not in _PAIRED:  # returns, yields, receives: any item is one
        return (Section(kind) if items else None), end
    pairs: list[tuple[str, str]] = []
    for item in items:
        head, colon, rest = item[0].partition(":")
        if not colon:
            continue
        text = "\n".join([rest.lstrip(), *item[1:]]).rstrip("\n")
        name = head
        if kind in ("parameters", "other parameters") and "(" in head and head.endswith(")"):
            name = head.split("(", 1)[0].strip()
        pairs.append((name, text))
    if not pairs:
        return None, end
    named = kind in ("parameters", "other parameters")
    return Section(kind, params=tuple(pairs) if named else ()), end


def _google(lines: list[str]) -> list[Section]:
    sections: list[Section] = []
    current: list[str] = []

    def flush_text() -> None:
        nonlocal current
        if current and any(current):
            sections.append(Section("text", "\n".join(current).rstrip("\n")))
        current = []

    in_code = False
    offset = 0
    while offset < len(lines):
        line = lines[offset]
        fence = line.lstrip(" ").startswith("```")
        match = _RE_ADMONITION.match(line) if ":" in line and not in_code and not fence else None
        if in_code or fence:
            in_code = in_code != fence  # a fence opens or closes a code block
            current.append(line)
        elif match is None:
            current.append(line)
        else:
            kind = match["type"]
            title = kind.lower()
            below = lines[offset + 1] if offset < len(lines) - 1 else None
            below2 = lines[offset + 2] if offset < len(lines) - 2 else None
            blank_above = offset == 0 or _empty(lines[offset - 1])
            blank_below = below is not None and _empty(below)
            indented_below = below is not None and not blank_below and below.startswith(" ")
            indented_below2 = below2 is not None and not _empty(below2) and below2.startswith(" ")
            if (
                not (indented_below or indented_below2)
                or not blank_above
                or (indented_below2 and blank_below)
            ):
                current.append(line)  # no content, or not set apart: not a section
            elif title in GOOGLE_KINDS:
                flush_text()
                section, offset = _google_section(GOOGLE_KINDS[title], lines, offset + 1)
                if section is not None:
                    sections.append(section)
            else:
                contents, offset = _google_block(lines, offset + 1)
                if contents:
                    flush_text()
                    name = title.replace(" ", "-")
                    sections.append(Section("admonition", contents, name))
                elif offset < len(lines):
                    current.append(lines[offset])
        offset += 1
    flush_text()
    return sections


# -- NumPy ---------------------------------------------------------------------------------
def _dashes(line: str) -> bool:
    return "-" in line and _empty(line.replace("-", ""))


def _numpy_items(lines: list[str], offset: int) -> tuple[list[list[str]], int]:
    if offset >= len(lines):
        return [], offset
    at = offset
    while at < len(lines) and _empty(lines[at]):
        at += 1
    if at >= len(lines):
        return [], at - 1
    items: list[list[str]] = []
    current = [lines[at]]
    at += 1
    while at < len(lines):
        line = lines[at]
        if _empty(line):
            current.append("")
        elif line.startswith(4 * " "):
            current.append(line[4:])
        elif line.startswith(" "):
            current.append(line[len(line) - len(line.lstrip()) :])
        elif at + 1 < len(lines) and _dashes(lines[at + 1]):
            break  # the next section's title
        else:
            items.append(current)
            current = [line]
        at += 1
    items.append(current)
    return items, at - 1


def _numpy_block(lines: list[str], offset: int) -> tuple[str, int]:
    if offset >= len(lines):
        return "", offset
    at = offset
    while at < len(lines) and _empty(lines[at]):
        at += 1
    block: list[str] = []
    while at < len(lines):
        blank = _empty(lines[at])
        if blank and at < len(lines) - 1 and _dashes(lines[at + 1]):
            break
        if blank and at < len(lines) - 2 and _dashes(lines[at + 2]):
            break
        block.append(lines[at])
        at += 1
    return "\n".join(block).rstrip("\n"), at - 1


def _numpy_section(kind: str, lines: list[str], offset: int) -> tuple[Section | None, int]:
    if kind == "examples":  # griffe keeps an examples section even when it is empty
        return Section(kind), _numpy_block(lines, offset)[1]
    items, end = _numpy_items(lines, offset)
    if kind not in ("parameters", "other parameters", "type parameters"):
        return (Section(kind) if items else None), end
    pairs: list[tuple[str, str]] = []
    for item in items:
        match = _RE_NUMPY_PARAMETER.match(item[0])
        if not match:
            continue
        text = "\n".join(item[1:]).rstrip() if len(item) > 1 else ""
        pairs.extend((name, text) for name in match["names"].split(", "))
    if not pairs:
        return None, end
    return Section(kind, params=tuple(pairs) if kind != "type parameters" else ()), end


def _numpy(lines: list[str]) -> list[Section]:
    sections: list[Section] = []
    current: list[str] = []
    admonition = ""

    def flush() -> None:
        nonlocal current, admonition
        if admonition:
            name = admonition.lower().replace(" ", "-")
            name = name[:-1] if name in ("warnings", "notes") else name
            sections.append(Section("admonition", "\n".join(current).rstrip("\n"), name))
        elif current and any(current):
            sections.append(Section("text", "\n".join(current).rstrip("\n")))
        current, admonition = [], ""

    in_code = False
    offset = 0
    while offset < len(lines):
        line = lines[offset]
        fence = line.lstrip(" ").startswith("```")
        if in_code or fence:
            in_code = in_code != fence
            current.append(line)
        elif _empty(line):
            current.append("")
        elif offset == len(lines) - 1:
            current.append(line)
            flush()
        elif _dashes(lines[offset + 1]):
            flush()
            title = line.lower()
            if title in NUMPY_KINDS:
                section, offset = _numpy_section(NUMPY_KINDS[title], lines, offset + 2)
                if section is not None:
                    sections.append(section)
            else:
                admonition = line
                offset += 1  # the dashes
        else:
            current.append(line)
        offset += 1
    flush()
    return sections


# -- Sphinx --------------------------------------------------------------------------------
def _sphinx(lines: list[str]) -> list[Section]:
    description: list[str] = []
    params: dict[str, str] = {}
    others: set[str] = set()
    at = 0
    while at < len(lines):
        line = lines[at]
        what = next(
            (
                kind
                for names, kind in _SPHINX_FIELDS
                if line.startswith(tuple(f":{n}" for n in names))
            ),
            None,
        )
        if not line.startswith(":") or what is None:
            description.append(line)
            at += 1
            continue
        block = [line.lstrip()]
        at += 1
        while at < len(lines) and not lines[at].startswith(":"):
            block.append(lines[at])
            at += 1
        whole = inspect.cleandoc("\n".join(block)).rstrip("\n")
        try:
            _, directive, value = whole.split(":", 2)
        except ValueError:
            continue
        parts = directive.split(" ")
        if what == "param" and len(parts) >= 2:  # `:param name:`, `:param type name:`
            params.setdefault(parts[-1], value.strip())
        elif what in ("var", "raises") and len(parts) == 2:
            others.add("attributes" if what == "var" else "raises")
        elif what == "returns":
            others.add("returns")
    sections = [Section("text", "\n".join(_strip_blank(description)))]
    if params:
        sections.append(Section("parameters", params=tuple(params.items())))
    sections.extend(Section(kind) for kind in ("attributes", "returns", "raises") if kind in others)
    return sections


def _strip_blank(lines: list[str]) -> list[str]:
    content = [i for i, line in enumerate(lines) if line and not line.isspace()]
    return lines[content[0] : content[-1] + 1] if content else []
