"""Docstrings: Google, NumPy and Sphinx styles (auto-detected) into one `Docstring`.

Each style only decides where sections and parameter entries are; toolgen's own sections
(`Errors`, `Examples`, `Idempotency`, `Side Effects`, `Permissions`) keep their raw lines with
source positions, and `toolgen.analyze.sections` reads their grammar.

Why not griffe's parsers (which read the frameworks' docstrings, `toolgen.analyze.griffe_docs`):
toolgen's own sections are a grammar griffe does not have (`Errors:` is an admonition to it), and
their diagnostics point at source lines, which griffe's sections do not keep.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field

#: What `toolgen fix` writes for a parameter nobody has described yet; never a description.
PLACEHOLDER = "TODO: describe this parameter."

PARAM_TITLES = {
    "args",
    "arguments",
    "parameters",
    "params",
    "keyword args",
    "keyword arguments",
    "other parameters",
}
RETURN_TITLES = {"returns", "return", "yields", "yield"}
RAISES_TITLES = {"raises", "raise", "exceptions"}
OWN_TITLES = {"errors", "examples", "example", "idempotency", "side effects", "permissions"}
OTHER_TITLES = {
    "notes",
    "note",
    "see also",
    "attributes",
    "warnings",
    "warning",
    "todo",
    "references",
    "methods",
    "warns",
    "receives",
}
KNOWN_TITLES = PARAM_TITLES | RETURN_TITLES | RAISES_TITLES | OWN_TITLES | OTHER_TITLES

_GOOGLE_HEADER = re.compile(r"^([A-Za-z][A-Za-z ]*?)\s*:\s*$")
#: The underline of a NumPy section title (`-----`).
NUMPY_RULE = re.compile(r"^\s*-{3,}\s*$")
#: One Sphinx field (`:param name: text`): its kind, what follows the kind, its text.
SPHINX_FIELD = re.compile(
    r"^:(param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?|except|exception)"
    r"\b([^:]*):\s*(.*)$"
)
#: `name (annotation): text`; a name starts like a Python identifier (`élan` is one).
_ENTRY = re.compile(r"^(\*{0,2}[^\W\d][\w.]*)\s*(?:\(([^)]*)\))?\s*:(?:\s+(.*))?$")
_BULLET = re.compile(r"^([-*+]|\d+[.)])\s")


@dataclass(frozen=True)
class DocLine:
    text: str  # without the docstring's common indentation
    line: int  # 1-based source line
    col: int  # 1-based source column of `text`

    @property
    def indent(self) -> int:
        return len(self.text) - len(self.text.lstrip())


@dataclass
class Entry:
    """One `name (annotation): text` item of a section."""

    name: str
    annotation: str | None
    text: str
    at: DocLine


@dataclass
class Section:
    title: str  # lower-cased
    header: DocLine
    lines: list[DocLine]  # content, dedented to the section's own indentation


@dataclass
class Docstring:
    description: str = ""
    params: dict[str, Entry] = field(default_factory=dict)
    returns: str | None = None
    raises: list[Entry] = field(default_factory=list)
    sections: dict[str, Section] = field(default_factory=dict)
    style: str = "google"
    at: DocLine | None = None


def docstring_node(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
) -> tuple[ast.Constant, str] | None:
    """The string literal that is the function's docstring, and its text; None when absent."""
    first = node.body[0] if node.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first.value, first.value.value
    return None


def docstring_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[DocLine] | None:
    """The docstring's lines with positions, common indentation removed; None when absent."""
    found = docstring_node(node)
    if found is None:
        return None
    literal, text = found
    raw = text.expandtabs().split("\n")
    margin = min((len(line) - len(line.lstrip()) for line in raw[1:] if line.strip()), default=0)
    start, col = literal.lineno, literal.col_offset + 4
    lines = [DocLine(raw[0].strip(), start, col)]
    lines += [
        DocLine(line[margin:].rstrip(), start + i, margin + 1)
        for i, line in enumerate(raw)
        if i > 0
    ]
    while lines and not lines[-1].text:
        lines.pop()
    while lines and not lines[0].text:
        lines.pop(0)
    return lines


def detect_style(lines: list[DocLine]) -> str:
    texts = [ln.text for ln in lines]
    if any(SPHINX_FIELD.match(t.strip()) for t in texts):
        return "sphinx"
    for i in range(len(texts) - 1):
        if texts[i].strip().lower() in KNOWN_TITLES and NUMPY_RULE.match(texts[i + 1]):
            return "numpy"
    return "google"


def parse_docstring(
    node: ast.FunctionDef | ast.AsyncFunctionDef, style: str = "auto"
) -> Docstring | None:
    lines = docstring_lines(node)
    if lines is None:
        return None
    if style == "auto":
        style = detect_style(lines)
    parser = PARSERS.get(style)
    if parser is None:
        raise KeyError(f"no docstring parser named {style!r}; known: {', '.join(PARSERS)}")
    doc = parser(lines)
    doc.style = style
    doc.at = lines[0] if lines else None
    return doc


# -- shared pieces -------------------------------------------------------------------------
def join_text(lines: list[DocLine] | list[str]) -> str:
    """Paragraphs joined by a blank line; wrapped lines joined with a space; bullets kept."""
    paragraphs: list[list[str]] = [[]]
    for item in lines:
        text = (item.text if isinstance(item, DocLine) else item).strip()
        if not text:
            if paragraphs[-1]:
                paragraphs.append([])
            continue
        para = paragraphs[-1]
        if para and _BULLET.match(text):
            para.append("\n" + text)
        elif para:
            para.append(" " + text)
        else:
            para.append(text)
    return "\n\n".join("".join(p) for p in paragraphs if p)


def dedent(lines: list[DocLine]) -> list[DocLine]:
    margin = min((ln.indent for ln in lines if ln.text.strip()), default=0)
    if margin == 0:  # the common case for a section's entries: nothing to cut
        return list(lines)
    return [DocLine(ln.text[margin:], ln.line, ln.col + margin) for ln in lines]


def parse_entries(section_lines: list[DocLine], strict: bool = False) -> list[Entry]:
    """Google-style entries: `name (annotation): text` with indented continuation lines.
    `strict` (parameters, as griffe reads them): every line at the entries' indentation starts
    an entry, a nameless one when it is no `name: text` (`*args, **kwargs: ...`, a wrapped
    line that is not indented): it ends the text of the entry before it."""
    entries: list[Entry] = []
    body: list[DocLine] = []
    for ln in dedent(section_lines):
        if not ln.text.strip():
            body.append(ln)
            continue
        match = _ENTRY.match(ln.text) if ln.indent == 0 else None
        if match:
            if entries:
                entries[-1].text = join_text(body)
            name, annotation, first = match.groups()
            entries.append(Entry(name.lstrip("*"), annotation, "", ln))
            body = [DocLine(first or "", ln.line, ln.col)]
        elif entries and not (strict and ln.indent == 0):
            body.append(ln)
        else:
            if entries:
                entries[-1].text = join_text(body)
            entries.append(Entry("", None, "", ln))  # no `name: text`: malformed
            body = [ln]
    if entries:
        entries[-1].text = join_text(body)
    return entries


def _apply_sections(doc: Docstring, sections: list[Section]) -> None:
    for section in sections:
        title = section.title
        if title in PARAM_TITLES:
            for entry in parse_entries(section.lines, strict=True):
                if entry.name:
                    doc.params.setdefault(entry.name, entry)
        elif title in RETURN_TITLES:
            doc.returns = join_text(section.lines) or None
        elif title in RAISES_TITLES:
            doc.raises.extend(e for e in parse_entries(section.lines) if e.name)
        elif title in OWN_TITLES:
            doc.sections["examples" if title == "example" else title] = section


def google_split(lines: list[DocLine]) -> tuple[list[DocLine], list[Section]]:
    """A Google-style docstring's lines as its description and its known sections (dedented)."""
    head: list[DocLine] = []
    sections: list[Section] = []
    ended = False  # prose back at the margin ends a section (as griffe reads it)
    for ln in lines:
        match = _GOOGLE_HEADER.match(ln.text) if ln.indent == 0 else None
        if match and match.group(1).strip().lower() in KNOWN_TITLES:
            sections.append(Section(match.group(1).strip().lower(), ln, []))
            ended = False
        elif sections and not ended and (ln.indent > 0 or not ln.text.strip()):
            sections[-1].lines.append(ln)
        elif sections:
            ended = True  # neither the section's nor the description's
        else:
            head.append(ln)
    for section in sections:
        section.lines = dedent(section.lines)
    return head, sections


# -- the three styles ----------------------------------------------------------------------
def parse_google(lines: list[DocLine]) -> Docstring:
    head, sections = google_split(lines)
    doc = Docstring(description=join_text(head))
    _apply_sections(doc, sections)
    return doc


def parse_numpy(lines: list[DocLine]) -> Docstring:
    head: list[DocLine] = []
    sections: list[Section] = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        title = ln.text.strip().lower()
        if nxt is not None and title in KNOWN_TITLES and NUMPY_RULE.match(nxt.text):
            sections.append(Section(title, ln, []))
            i += 2
            continue
        (sections[-1].lines if sections else head).append(ln)
        i += 1
    doc = Docstring(description=join_text(head))
    for section in sections:
        section.lines = dedent(section.lines)
        if section.title in PARAM_TITLES:
            for entry in numpy_entries(section.lines):
                doc.params.setdefault(entry.name, entry)
        elif section.title in RETURN_TITLES:
            entries = numpy_entries(section.lines)
            texts = [e.text or (e.annotation or e.name) for e in entries]
            doc.returns = "\n\n".join(t for t in texts if t) or None
        elif section.title in RAISES_TITLES:
            doc.raises.extend(numpy_entries(section.lines))
        elif section.title in OWN_TITLES:
            doc.sections["examples" if section.title == "example" else section.title] = section
    return doc


def numpy_entries(lines: list[DocLine]) -> list[Entry]:
    """The `name : type` entries of a NumPy section, each with its indented text."""
    entries: list[Entry] = []
    body: list[DocLine] = []
    for ln in lines:
        if ln.text.strip() and ln.indent == 0:
            if entries:
                entries[-1].text = join_text(body)
            name, _, annotation = ln.text.partition(":")
            entries.append(Entry(name.strip().lstrip("*"), annotation.strip() or None, "", ln))
            body = []
        else:
            body.append(ln)
    if entries:
        entries[-1].text = join_text(body)
    return entries


def parse_sphinx(lines: list[DocLine]) -> Docstring:
    head: list[DocLine] = []
    rest: list[DocLine] = []
    fields: list[tuple[str, str, list[DocLine]]] = []
    in_fields = False
    for ln in lines:
        match = SPHINX_FIELD.match(ln.text.strip()) if ln.indent == 0 else None
        if match:
            in_fields = True
            kind, arg, text = match.groups()
            fields.append((kind, arg.strip(), [DocLine(text, ln.line, ln.col)]))
        elif in_fields and fields and not _ends_field(ln):
            fields[-1][2].append(ln)
        elif in_fields:
            in_fields = False
            rest.append(ln)
        elif rest:
            rest.append(ln)
        else:
            head.append(ln)
    head_text, sections = google_split(head + rest)
    doc = Docstring(description=join_text(head_text))
    for kind, arg, body in fields:
        text = join_text(body)
        at = body[0]
        if kind in ("param", "parameter", "arg", "argument", "key", "keyword"):
            name = arg.split()[-1] if arg else ""
            if name:
                annotation = " ".join(arg.split()[:-1]) or None
                doc.params.setdefault(
                    name.lstrip("*"), Entry(name.lstrip("*"), annotation, text, at)
                )
        elif kind in ("returns", "return"):
            doc.returns = text or None
        elif kind in ("raises", "raise", "except", "exception"):
            doc.raises.append(Entry(arg, None, text, at))
    _apply_sections(doc, sections)
    return doc


def _ends_field(ln: DocLine) -> bool:
    """A Sphinx field's text runs on (as griffe reads it) up to the next line that starts with
    a colon at the margin, or to one of toolgen's own sections."""
    if ln.indent > 0:
        return False
    header = _GOOGLE_HEADER.match(ln.text)
    return ln.text.startswith(":") or bool(header and header.group(1).strip().lower() in OWN_TITLES)


PARSERS: dict[str, Callable[[list[DocLine]], Docstring]] = {
    "google": parse_google,
    "numpy": parse_numpy,
    "sphinx": parse_sphinx,
}
