"""`toolgen fix`: keep each handler's docstring parameter entries in step with its signature.

A source-preserving codemod. For every tool handler toolgen finds, the docstring's parameter
section gets an entry for each exposed parameter it lacks (the `Field(description=...)` text
when there is one, else `PLACEHOLDER`), loses the entries of names that are not parameters at
all, and lists its entries in signature order. Nothing else in the file changes: the module is
read with Python's own parser (as the compiler reads it, so whatever `build` can read, `fix`
can), only the text of the docstring literal is replaced, and inside it only the lines of the
parameter entries move; every other byte (comments, quotes and prefixes, indentation, other
sections, blank lines) is kept. A file that needs nothing is returned as it was, and the fix of
a fixed file changes nothing.

The docstring is read the way the compiler reads it (`toolgen.analyze.docstrings`: the same
style detection, section split and entry grammar for Google, NumPy and Sphinx), so after a fix
the compiler sees exactly the entries the fix meant.

`fix_source` is the pure core: source text in, new text and diagnostics out. `fix_files` is the
edge: it finds the handlers statically (never importing them), works out their exposed
parameters as the compiler does, and writes, diffs or only checks the files.

Diagnostic locations: an added entry (TG801, TG802) is located where it stands in the fixed
text, which is where its author has to go, when the fix is written; when it is only checked or
shown (`--check`, `--diff`), where it would go in the file as it is. A removed or reordered
entry (TG803) is located where it stood in the original text. A placeholder an earlier run
inserted is reported again (TG802) on every run until someone replaces it; the text is not
changed for it.

Left alone, without a diagnostic (the compiler still reports their TG301/TG302): a handler
without a docstring, a docstring on the `def` line (`def f(x): "Doc."`), an implicitly
concatenated docstring, one whose source lines do not map one to one onto its value (escaped
newlines, backslash continuations), a Sphinx field list with other text between its fields, and
LangChain handlers with `args_schema=` (the model describes the parameters).
"""

from __future__ import annotations

import ast
import copy
import difflib
import inspect
import io
import itertools
import re
import stat
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from toolgen.analyze.decorators import decorator_options
from toolgen.analyze.docstrings import (
    KNOWN_TITLES,
    NUMPY_RULE,
    PARAM_TITLES,
    PARSERS,
    PLACEHOLDER,
    SPHINX_FIELD,
    DocLine,
    dedent,
    detect_style,
    docstring_lines,
    docstring_node,
    google_split,
    numpy_entries,
    parse_entries,
)
from toolgen.analyze.handlers import Handler, nested_too_deeply
from toolgen.analyze.markers import config_presets
from toolgen.analyze.registered import find_registrations
from toolgen.analyze.signature import Param, exposed_parameters
from toolgen.analyze.types import FIELD_CALLS, FieldSpec, SchemaBuilder, TypeProblem
from toolgen.config import Config
from toolgen.diagnostics import Diagnostic, Location, sort_diagnostics
from toolgen.output import atomic_write
from toolgen.quoting import CONTROLS, visible
from toolgen.read.discover import SourceFile, list_sources, search_roots, skipped_diagnostics
from toolgen.read.files import NO_OVERLAY, Overlay, Unreadable, read_source
from toolgen.read.index import Module, ModuleIndex, Unparsable, dotted_name, parse_python

FixMode = Literal["write", "diff", "check"]
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

_SPHINX_PARAM_KINDS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})
_WS = re.compile(r"[ \t\f]*")
_LITERAL = re.compile(r"([A-Za-z]*)('''|\"\"\"|'|\")")
_AFTER_ALL = 1 << 30  # sort key of Sphinx fields that are not about a parameter (`:returns:`)


@dataclass(frozen=True)
class FixParam:
    """One parameter a model passes, as the fix needs it."""

    name: str
    description: str | None = None  # from Field(description=...)
    type_text: str | None = None  # the annotation as written (Annotated peeled), for entries


@dataclass
class FixResult:
    source: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    changed: bool = False


@dataclass
class FixReport:
    mode: FixMode
    files: int = 0  # source files examined
    changed: list[str] = field(default_factory=list)  # shown paths changed (or that would be)
    diffs: dict[str, str] = field(default_factory=dict)  # shown path -> unified diff ("diff")
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def diff(self) -> str:
        return "".join(self.diffs[path] for path in self.changed if path in self.diffs)


# -- the pure core -------------------------------------------------------------------------
def fix_source(
    source: str,
    path: str,
    exposed: dict[int, list[FixParam]],
    style: str = "auto",
    in_fixed_text: bool = True,
) -> FixResult:
    """Fix the docstrings of the handlers whose `def` lines are the keys of `exposed`.

    `exposed[line]` lists that handler's exposed parameters in signature order. `path` is only
    used in diagnostics. `style` is "auto" (detected per docstring, as the compiler does) or a
    style the compiler knows. A source that does not parse is returned unchanged with TG804.
    Added entries are located in the fixed text, or with `in_fixed_text=False` (the fix is
    only checked or shown) where they would go in `source`.
    """
    if style != "auto" and style not in PARSERS:
        raise KeyError(f"no docstring style named {style!r}; known: auto, {', '.join(PARSERS)}")
    bom = "\ufeff" if source.startswith("\ufeff") else ""
    text = source[len(bom) :]
    try:
        tree = parse_python(text)
    except Unparsable as exc:
        return FixResult(source, [_not_changed(exc.message, Location(path, *exc.at))])
    functions = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno in exposed
    ]
    if not functions:
        return FixResult(source)
    lines = _lines(text)
    edits: list[_Edit] = []
    replaced: list[tuple[int, int, str]] = []  # (start, end, new literal), offsets in `text`
    for func in functions:
        span = _docstring_span(text, lines, func)
        if span is None:
            continue
        start, end = span
        literal = text[start:end]
        indent = _ws(text[lines[func.body[0].lineno - 1] : start])
        edit = _DocFixer(func, literal, exposed[func.lineno], style, indent).run()
        if edit is None:
            continue
        edits.append(edit)
        if edit.literal != literal:
            replaced.append((start, end, edit.literal))
    if not replaced:
        return FixResult(source, _diagnostics(edits, path, in_fixed_text))
    pieces: list[str] = []
    at = 0
    for start, end, literal in sorted(replaced):
        pieces += [text[at:start], literal]
        at = end
    new_text = "".join(pieces) + text[at:]
    try:
        parse_python(new_text)
    except Unparsable as exc:  # a bug in the fix: never hand back broken code
        raise RuntimeError(f"toolgen fix produced invalid Python for {path}: {exc}") from exc
    return FixResult(bom + new_text, _diagnostics(edits, path, in_fixed_text), changed=True)


_NEWLINE = re.compile(r"\r\n|\r|\n")  # where Python's parser ends a line


def _lines(text: str) -> list[int]:
    """The offset in `text` at which each line starts (line 1 at index 0)."""
    return [0, *(match.end() for match in _NEWLINE.finditer(text))]


def _docstring_span(text: str, lines: list[int], func: FunctionNode) -> tuple[int, int] | None:
    """Where `func`'s docstring literal is in `text` (start and end offsets), when it can be
    replaced: one string literal (not an implicit concatenation) that starts a line of the
    function's body (not `def f(): "Doc."`)."""
    found = docstring_node(func)
    if found is None:
        return None
    node, _ = found
    assert node.end_lineno is not None and node.end_col_offset is not None
    start = _offset(text, lines, node.lineno, node.col_offset)
    end = _offset(text, lines, node.end_lineno, node.end_col_offset)
    if text[lines[node.lineno - 1] : start].strip(" \t\f("):
        return None  # on the `def` line
    try:
        token = next(tokenize.generate_tokens(io.StringIO(text[start:end]).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    return (start, end) if token.string == text[start:end] else None


def _offset(text: str, lines: list[int], line: int, col: int) -> int:
    """The offset in `text` of `line` and `col` as the syntax tree gives them (UTF-8 bytes)."""
    begin = lines[line - 1]
    stop = lines[line] if line < len(lines) else len(text)
    return begin + len(text[begin:stop].encode("utf-8")[:col].decode("utf-8"))


def _not_changed(message: str, where: Location) -> Diagnostic:
    return Diagnostic("TG804", f"{message}; file not changed", where)


@dataclass(frozen=True)
class _Added:
    name: str
    from_field: bool
    section: str
    unwritable: bool = False  # it has a Field description that this literal cannot hold
    lingering: bool = False  # not added now: an earlier fix's placeholder, still there


_Line = tuple[str, _Added | None]  # a raw docstring line, and what the fix added there


@dataclass
class _Edit:
    """One docstring's fix: where it was, its new literal and what changed, for diagnostics."""

    function: str
    start: int  # source line of the literal's first line (original text)
    old_lines: int
    literal: str
    new_lines: int
    #: (index of the line in the new literal, where it goes in the old one, column, what)
    added: list[tuple[int, int, int, _Added]]
    removed: list[tuple[int, int, str]]  # (index of the line in the old literal, column, name)
    reordered: list[tuple[int, int, str]]  # (index in the old literal, column, section title)


def _origins(old: list[str], new: list[str]) -> list[int]:
    """For each line of `new`, the index in `old` of the same line, or of the line an added
    line goes before (`len(old)` after the last)."""
    found: list[int] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        found += range(i1, i2) if tag == "equal" else [i1] * (j2 - j1)
    return found


def _diagnostics(edits: list[_Edit], path: str, in_fixed_text: bool = True) -> list[Diagnostic]:
    """The diagnostics of `edits`; added entries located in the fixed text (`in_fixed_text`:
    it is written) or, in the original, at the docstring line they would go before (its last
    line, for an entry that goes at its end)."""
    found: list[Diagnostic] = []
    shift = 0  # how many lines the fixes above this docstring added
    for edit in sorted(edits, key=lambda e: e.start):
        func = edit.function
        for index, col, name in edit.removed:
            where = Location(path, edit.start + index, col)
            message = f"`{func}`: removed the docstring entry for `{name}`: not a parameter"
            found.append(Diagnostic("TG803", message, where))
        for index, col, title in edit.reordered:
            where = Location(path, edit.start + index, col)
            message = f"`{func}`: reordered the {title} to follow the signature"
            found.append(Diagnostic("TG803", message, where))
        for index, origin, col, added in edit.added:
            line = edit.start + shift + index if in_fixed_text else edit.start + origin
            where = Location(path, line, col)
            if added.lingering:
                message = (
                    f"`{func}`: parameter `{added.name}` still has the placeholder description "
                    f"{PLACEHOLDER!r}; replace it"
                )
                found.append(Diagnostic("TG802", message, where))
            elif added.from_field:
                message = (
                    f"`{func}`: added `{added.name}` to the docstring's {added.section}, "
                    "from its Field(description=...)"
                )
                found.append(Diagnostic("TG801", message, where))
            else:
                why = (
                    " (its Field(description=...) cannot be written in this raw docstring)"
                    if added.unwritable
                    else ""
                )
                message = (
                    f"`{func}`: parameter `{added.name}` needs a description{why}; placeholder "
                    f"{PLACEHOLDER!r} inserted in the docstring's {added.section}"
                )
                found.append(Diagnostic("TG802", message, where))
        shift += edit.new_lines - edit.old_lines
    return sort_diagnostics(found)


# -- one docstring -------------------------------------------------------------------------
@dataclass(eq=False)
class _Block:
    """An entry of a parameter section: raw line indices [start, end), trailing blanks out."""

    name: str  # as the compiler reads it ("" for text before any entry)
    kind: str  # "param"; for Sphinx fields also "type" or "other" (`:returns:` ...)
    start: int
    end: int
    annotated: bool = False


@dataclass
class _Region:
    """One parameter section (or Sphinx field list) of a docstring."""

    style: str  # how new entries are written: google, numpy or sphinx
    title: str  # for messages
    blocks: list[_Block]
    header: int | None  # index of the title line (None for a Sphinx field list)
    insert_at: int  # where entries go while the section has none
    entry_ws: str
    cont_ws: str
    grouped: bool = False  # Sphinx: `:type x:` fields move with `:param x:`


@dataclass
class _Unit:
    order: int
    pieces: list[list[_Line]]
    blocks: list[_Block]


class _DocFixer:
    def __init__(
        self,
        func: FunctionNode,
        literal: str,
        params: list[FixParam],
        style: str,
        stmt_ws: str,
    ) -> None:
        self.func = func
        self.literal = literal
        self.params = params
        self.style = style
        self.stmt_ws = stmt_ws
        self.raw: list[str] = []
        self.start = 0
        self.quote = '"""'
        self.raw_string = False
        self.doc_style = "google"
        self.margin_ws = ""
        self.unit = "    "
        self.sections_at: list[int] = []  # title lines of the sections, for a new section
        self.fields_at: int | None = None  # first Sphinx field
        self.position: dict[str, int] = {}  # signature position of each parameter name
        self.tags: dict[int, _Added] = {}  # entries that still have the placeholder

    # -- reading ---------------------------------------------------------------------------
    def run(self, verify: bool = True) -> _Edit | None:
        match = _LITERAL.match(self.literal)
        if match is None:
            return None
        prefix, quote = match.groups()
        body = self.literal[match.end() : len(self.literal) - len(quote)]
        if "b" in prefix.lower() or "f" in prefix.lower():
            return None
        self.quote, self.raw_string = quote, "r" in prefix.lower()
        newline = "\r\n" if "\r\n" in body else "\n"
        self.raw = body.split(newline)
        found = docstring_node(self.func)
        if found is None:
            return None
        self.start = found[0].lineno
        value = found[1].split("\n")
        if len(value) != len(self.raw):
            return None  # escaped newlines or line continuations: lines do not map one to one
        for raw_line, value_line in zip(self.raw, value, strict=True):
            if (self.raw_string or "\\" not in raw_line) and raw_line != value_line:
                return None
        lines = docstring_lines(self.func)
        if not lines:
            return None  # no docstring text to put a section after
        style = detect_style(lines) if self.style == "auto" else self.style
        self.doc_style = style
        self.margin_ws = self._margin_ws()
        self.unit = "\t" if "\t" in self.margin_ws else "    "
        if style == "numpy":
            regions: list[_Region] | None = self._numpy_regions(lines)
        elif style == "sphinx":
            regions = self._sphinx_regions(lines)
        else:
            regions = self._google_regions(lines)
        edit = None if regions is None else self._fix(regions, newline, prefix)
        changed = edit is not None and edit.literal != self.literal
        if verify and changed and edit is not None and not self._stable(edit.literal):
            return None
        return edit

    def _stable(self, literal: str) -> bool:
        """Does the fix leave its own result alone? Not when the compiler reads the section
        differently once entries moved: text at the title's indentation inside an Args
        section (`Note: ...`, `.. versionadded::`) makes the entries continuation lines, and
        then no fix is safe; the compiler's TG301/TG302 point at the docstring instead."""
        first = self.func.body[0]
        assert isinstance(first, ast.Expr)
        value = ast.literal_eval(literal)
        constant = ast.Constant(value)
        constant.lineno, constant.col_offset = self.start, first.value.col_offset
        func = copy.copy(self.func)
        func.body = [ast.Expr(constant), *self.func.body[1:]]
        again = _DocFixer(func, literal, self.params, self.style, self.stmt_ws).run(verify=False)
        return again is None or again.literal == literal

    def idx(self, line: DocLine) -> int:
        return line.line - self.start

    def blank(self, index: int) -> bool:
        return not self.raw[index].strip()

    def _margin_ws(self) -> str:
        candidates = [ln for ln in self.raw[1:] if ln.strip()]
        if not candidates:
            return self.stmt_ws
        return min((_ws(ln) for ln in candidates), key=lambda ws: len(ws.expandtabs()))

    def _trim(self, start: int, end: int) -> int:
        while end > start + 1 and self.blank(end - 1):
            end -= 1
        return end

    def _blocks(self, starts: list[tuple[str, int, bool]], end: int) -> list[_Block]:
        blocks: list[_Block] = []
        for i, (name, start, annotated) in enumerate(starts):
            stop = starts[i + 1][1] if i + 1 < len(starts) else end
            blocks.append(_Block(name, "param", start, self._trim(start, stop), annotated))
        return blocks

    def _cont_ws(self, blocks: list[_Block], entry_ws: str) -> str:
        for block in blocks:
            for index in range(block.start + 1, block.end):
                if not self.blank(index):
                    return _ws(self.raw[index])
        return entry_ws + self.unit

    def _unit_below(self, header: int, end: int) -> str | None:
        """The indentation step of a section's content under its title line."""
        head_ws = _ws(self.raw[header])
        for index in range(header + 1, end):
            ws = _ws(self.raw[index])
            if not self.blank(index) and len(ws) > len(head_ws) and ws.startswith(head_ws):
                return ws[len(head_ws) :]
        return None

    def _google_regions(self, lines: list[DocLine]) -> list[_Region]:
        _, sections = google_split(lines)
        last = self.idx(lines[-1]) + 1 if lines else 0
        heads = [self.idx(s.header) for s in sections]
        self.sections_at += heads
        ends = [*heads[1:], last] if heads else []
        units = [self._unit_below(header, end) for header, end in zip(heads, ends, strict=True)]
        self.unit = next((u for u in units if u is not None), self.unit)
        regions: list[_Region] = []
        for section, header, end in zip(sections, heads, ends, strict=True):
            if section.title not in PARAM_TITLES:
                continue
            entries = parse_entries(section.lines)
            starts = [(e.name, self.idx(e.at), e.annotation is not None) for e in entries]
            blocks = self._blocks(starts, end)
            head_ws = _ws(self.raw[header])
            entry_ws = _ws(self.raw[blocks[0].start]) if blocks else head_ws + self.unit
            regions.append(
                _Region(
                    "google",
                    section.header.text.strip().rstrip(":").strip() + " section",
                    blocks,
                    header,
                    header + 1,
                    entry_ws,
                    self._cont_ws(blocks, entry_ws),
                )
            )
        return regions

    def _numpy_regions(self, lines: list[DocLine]) -> list[_Region]:
        # the section split of `parse_numpy`: a known title with a rule of dashes under it
        found: list[tuple[str, int, list[DocLine]]] = []
        i = 0
        while i < len(lines):
            ln, nxt = lines[i], lines[i + 1] if i + 1 < len(lines) else None
            title = ln.text.strip().lower()
            if nxt is not None and title in KNOWN_TITLES and NUMPY_RULE.match(nxt.text):
                found.append((title, self.idx(ln), []))
                i += 2
                continue
            if found:
                found[-1][2].append(ln)
            i += 1
        last = self.idx(lines[-1]) + 1 if lines else 0
        self.sections_at += [header for _, header, _ in found]
        for i, (title, header, _) in enumerate(found):
            end = found[i + 1][1] if i + 1 < len(found) else last
            if title not in PARAM_TITLES and (unit := self._unit_below(header, end)):
                self.unit = unit
                break
        regions: list[_Region] = []
        for i, (title, header, body) in enumerate(found):
            if title not in PARAM_TITLES:
                continue
            end = found[i + 1][1] if i + 1 < len(found) else last
            entries = numpy_entries(dedent(body))
            starts = [(e.name, self.idx(e.at), e.annotation is not None) for e in entries]
            blocks = self._blocks(starts, end)
            entry_ws = _ws(self.raw[blocks[0].start]) if blocks else _ws(self.raw[header])
            regions.append(
                _Region(
                    "numpy",
                    self.raw[header].strip() + " section",
                    blocks,
                    header,
                    header + 2,
                    entry_ws,
                    self._cont_ws(blocks, entry_ws),
                )
            )
        return regions

    def _sphinx_regions(self, lines: list[DocLine]) -> list[_Region] | None:
        # the field split of `parse_sphinx`: `:kind arg: text` at the margin, continued by
        # indented or blank lines; other lines go to the Google-style section reader
        fields: list[tuple[str, str, int, int]] = []  # kind, arg, first and last index
        other: list[DocLine] = []
        in_fields = False
        for ln in lines:
            match = SPHINX_FIELD.match(ln.text.strip()) if ln.indent == 0 else None
            if match:
                in_fields = True
                fields.append((match.group(1), match.group(2).strip(), self.idx(ln), self.idx(ln)))
            elif in_fields and fields and (ln.indent > 0 or not ln.text.strip()):
                kind, arg, first, _ = fields[-1]
                fields[-1] = (kind, arg, first, self.idx(ln))
            else:
                in_fields = False
                other.append(ln)
        regions: list[_Region] = []
        about = [i for i, f in enumerate(fields) if f[0] in _SPHINX_PARAM_KINDS or f[0] == "type"]
        if fields:
            self.fields_at = fields[0][2]
        if about:
            span = fields[about[0] : about[-1] + 1]
            blocks: list[_Block] = []
            for kind, arg, first, last in span:
                name = arg.split()[-1].lstrip("*") if arg else ""
                if kind in _SPHINX_PARAM_KINDS:
                    block_kind = "param" if name else "other"
                elif kind == "type":
                    block_kind = "type" if name else "other"
                else:
                    block_kind = "other"
                blocks.append(_Block(name, block_kind, first, self._trim(first, last + 1)))
            covered = all(
                self.blank(index)
                for a, b in itertools.pairwise(blocks)
                for index in range(a.end, b.start)
            )
            if not covered:  # text between the fields: too unusual to move entries through
                return None
            if blocks:
                entry_ws = _ws(self.raw[blocks[0].start])
                regions.append(
                    _Region(
                        "sphinx",
                        ":param fields",
                        blocks,
                        None,
                        blocks[0].start,
                        entry_ws,
                        self._cont_ws(blocks, entry_ws),
                        grouped=True,
                    )
                )
        return regions + self._google_regions(other)

    # -- fixing ----------------------------------------------------------------------------
    def _fix(self, regions: list[_Region], newline: str, prefix: str) -> _Edit | None:
        a = self.func.args
        signature = [x.arg for x in (*a.posonlyargs, *a.args)]
        signature += [a.vararg.arg] if a.vararg else []
        signature += [x.arg for x in a.kwonlyargs]
        signature += [a.kwarg.arg] if a.kwarg else []
        self.position = {name: i for i, name in reversed(list(enumerate(signature)))}
        documented = {b.name for r in regions for b in r.blocks if b.kind == "param"}
        missing: list[FixParam] = []
        for param in self.params:
            if param.name not in documented and param.name not in {p.name for p in missing}:
                missing.append(param)

        self.tags = {
            block.start: _Added(block.name, False, region.title, lingering=True)
            for region in regions
            for block in region.blocks
            if block.kind == "param"
            and any(PLACEHOLDER in text for text in self.raw[block.start : block.end])
        }
        lines = [self._orig(i) for i in range(len(self.raw))]
        replacements: list[tuple[int, int, list[_Line]]] = []
        removed: list[tuple[int, int, str]] = []
        reordered: list[tuple[int, int, str]] = []
        for i, region in enumerate(regions):
            adding = missing if i == 0 else []
            replacement = self._rearrange(region, adding, removed, reordered)
            if replacement is not None:
                replacements.append(replacement)
        if not regions and missing:
            replacements.append(self._new_section(missing))
        if not replacements and not self.tags:
            return None
        for start, end, new in sorted(replacements, key=lambda r: r[0], reverse=True):
            lines[start:end] = new
        quote = self.quote
        if len(lines) > 1 and len(quote) == 1:
            quote *= 3  # a one-line "docstring" that now needs lines
        last = lines[-1][0]
        if last != self.raw[-1] and last.endswith((quote[0], "\\")):
            lines.append((self.margin_ws, None))  # it would run into the closing quotes
        origins = _origins(self.raw, [text for text, _ in lines])
        added = [
            (index, min(origins[index], len(self.raw) - 1), len(_ws(text)) + 1, tag)
            for index, (text, tag) in enumerate(lines)
            if tag
        ]
        literal = prefix + quote + newline.join(text for text, _ in lines) + quote
        if literal == self.literal and not added:
            return None
        return _Edit(
            self.func.name,
            self.start,
            len(self.raw),
            literal,
            len(lines),
            added,
            removed,
            reordered,
        )

    def _orig(self, index: int) -> _Line:
        return self.raw[index], self.tags.get(index)

    def _order(self, name: str) -> int | None:
        """Where an entry for `name` goes (None: not a parameter at all, so the entry goes).

        `x, y` (NumPy) and `options.limit` (a nested field) stay with their parameter.
        """
        if not name:
            return -1  # text before any entry: kept first
        found = [
            self.position[part]
            for piece in name.split(",")
            if (part := piece.strip().lstrip("*").split(".")[0]) in self.position
        ]
        return min(found) if found else None

    def _rearrange(
        self,
        region: _Region,
        adding: list[FixParam],
        removed: list[tuple[int, int, str]],
        reordered: list[tuple[int, int, str]],
    ) -> tuple[int, int, list[_Line]] | None:
        units: list[_Unit] = []
        by_name: dict[str, _Unit] = {}
        gone: list[_Block] = []
        for block in region.blocks:
            piece = [self._orig(i) for i in range(block.start, block.end)]
            order = _AFTER_ALL if block.kind == "other" else self._order(block.name)
            if order is None:
                gone.append(block)
                continue
            if region.grouped and block.kind != "other" and block.name in by_name:
                by_name[block.name].pieces.append(piece)
                by_name[block.name].blocks.append(block)
                continue
            unit = _Unit(order, [piece], [block])
            units.append(unit)
            if region.grouped and block.kind != "other":
                by_name[block.name] = unit
        for param in adding:
            piece = self._entry(region, param)
            if param.name in by_name:  # only its `:type` field was there
                by_name[param.name].pieces.insert(0, piece)
            else:
                order = self.position.get(param.name, _AFTER_ALL - 1)
                units.append(_Unit(order, [piece], []))
        units.sort(key=lambda u: u.order)
        kept = [b for b in region.blocks if b not in gone]
        moved = [b for u in units for b in u.blocks] != kept
        if not gone and not adding and not moved:
            return None
        params_gone = {b.name for b in gone if b.kind == "param"}
        for block in gone:
            if block.kind == "type" and block.name in params_gone:
                continue  # reported with its `:param`
            removed.append((block.start, len(_ws(self.raw[block.start])) + 1, block.name))
        if moved:
            first = kept[0].start
            reordered.append((first, len(_ws(self.raw[first])) + 1, region.title))
        pieces = [piece for unit in units for piece in unit.pieces]
        if not region.blocks:
            return region.insert_at, region.insert_at, [line for p in pieces for line in p]
        if not pieces:
            return self._remove_section(region)
        gaps = [
            [self._orig(i) for i in range(a.end, b.start)]
            for a, b in itertools.pairwise(region.blocks)
        ]
        out: list[_Line] = []
        for k, piece in enumerate(pieces):
            if k:
                out += gaps[k - 1] if k - 1 < len(gaps) else (gaps[-1] if gaps else [])
            out += piece
        return region.blocks[0].start, region.blocks[-1].end, out

    def _remove_section(self, region: _Region) -> tuple[int, int, list[_Line]]:
        """Every entry went: the section goes too, with one of the blank lines around it."""
        start = region.header if region.header is not None else region.blocks[0].start
        end = region.blocks[-1].end
        after = end
        while after < len(self.raw) and self.blank(after):
            after += 1
        if after < len(self.raw):
            end = after  # text follows: keep the blank lines before the section
        else:
            while start > 1 and self.blank(start - 1):
                start -= 1
        return start, end, []

    def _new_section(self, params: list[FixParam]) -> tuple[int, int, list[_Line]]:
        """A parameter section where there was none: after the description, before the
        other sections (a Sphinx field list: before the other fields)."""
        style = self.doc_style if self.doc_style in ("numpy", "sphinx") else "google"
        margin = self.margin_ws
        if style == "google":
            title, header = "Args section", [f"{margin}Args:"]
            entry_ws = margin + self.unit
            cont_ws = entry_ws + self.unit
        elif style == "numpy":
            title, header = "Parameters section", [f"{margin}Parameters", f"{margin}----------"]
            entry_ws, cont_ws = margin, margin + self.unit
        else:
            title, header = ":param fields", []
            entry_ws = margin if self.fields_at is None else _ws(self.raw[self.fields_at])
            cont_ws = entry_ws + self.unit
        region = _Region(style, title, [], None, 0, entry_ws, cont_ws)
        entries = [line for p in params for line in self._entry(region, p)]
        if style == "sphinx" and self.fields_at is not None:
            return self.fields_at, self.fields_at, entries
        block: list[_Line] = [(text, None) for text in header] + entries
        if self.sections_at:
            at = min(self.sections_at)
            if at > 0 and self.blank(at - 1):
                block.append(("", None))
            return at, at, block
        last = max(i for i in range(len(self.raw)) if not self.blank(i))
        block.insert(0, ("", None))
        if last == len(self.raw) - 1:  # the closing quotes were on the last text line
            block.append((margin, None))
        return last + 1, last + 1, block

    def _entry(self, region: _Region, param: FixParam) -> list[_Line]:
        text = self._text(param.description)
        from_field = text is not None
        body = text or [PLACEHOLDER]
        unwritable = not from_field and bool(param.description and param.description.strip())
        tag = _Added(param.name, from_field, region.title, unwritable)
        type_text = param.type_text
        if region.style == "numpy":
            typed = bool(type_text) and (
                not region.blocks or any(b.annotated for b in region.blocks)
            )
            head = f"{region.entry_ws}{param.name}" + (f" : {type_text}" if typed else "")
            return [(head, tag)] + [(f"{region.cont_ws}{t}" if t else "", None) for t in body]
        if region.style == "sphinx":
            head = f"{region.entry_ws}:param {param.name}: {body[0]}"
        else:
            typed = bool(type_text) and any(b.annotated for b in region.blocks)
            if type_text and ")" in type_text:
                typed = False  # the entry grammar cannot read it back
            annotation = f" ({type_text})" if typed else ""
            head = f"{region.entry_ws}{param.name}{annotation}: {body[0]}"
        return [(head, tag)] + [(f"{region.cont_ws}{t}" if t else "", None) for t in body[1:]]

    def _text(self, description: str | None) -> list[str] | None:
        """The description's lines as they must be written in this literal; None when there
        is none, or it cannot be written here (a raw string holding its own quotes)."""
        if description is None or not description.strip():
            return None
        lines = [line.rstrip() for line in inspect.cleandoc(description).splitlines()]
        quote = self.quote if len(self.quote) == 3 else self.quote * 3
        joined = "\n".join(lines)
        if self.raw_string:  # no escape to write a control character with (a NUL is no Python)
            return None if quote in joined or CONTROLS.search(joined) else lines
        lines = [visible(line.replace("\\", "\\\\")) for line in lines]
        if quote in joined:
            lines = [line.replace(quote[0], "\\" + quote[0]) for line in lines]
        return lines


def _ws(text: str) -> str:
    match = _WS.match(text)
    return match.group(0) if match else ""


# -- the edge: files, handlers and their exposed parameters --------------------------------
def fix_files(config: Config, mode: FixMode) -> FixReport:
    """Fix every configured source file: "write" writes the changed files (atomically),
    "diff" collects unified diffs, "check" only says which files would change."""
    files, listing = list_sources(config.sources, config.root)
    limit = config.max_source_bytes
    index = fix_index(config, files)
    report = FixReport(mode, files=len(files))
    report.diagnostics.extend(skipped_diagnostics(listing, config.display))
    registered = registrations(index, files, config)
    for file in files:
        shown = config.display(file.path)
        try:  # as the compiler reads it, in its own encoding (a BOM kept in the text)
            _, source, encoding = read_source(str(file.path), limit)
        except Unreadable as exc:
            report.diagnostics.append(exc.diagnostic(shown))
            continue
        exposed = exposed_params(index, file, config, report.diagnostics, registered)
        result = fix_source(source, shown, exposed, config.docstring_style, mode == "write")
        try:
            data = result.source.encode(encoding) if result.changed else b""
        except UnicodeEncodeError as exc:  # then what the fix says it added is not
            report.diagnostics.append(_unencodable(exc, result.source, shown, encoding))
            continue
        report.diagnostics.extend(result.diagnostics)
        if not result.changed:
            continue
        report.changed.append(shown)
        if mode == "diff":
            report.diffs[shown] = "".join(
                difflib.unified_diff(
                    source.splitlines(keepends=True),
                    result.source.splitlines(keepends=True),
                    f"a/{shown}",
                    f"b/{shown}",
                )
            )
        elif mode == "write":
            mode_bits = stat.S_IMODE(file.path.stat().st_mode)
            atomic_write(file.path, data)
            file.path.chmod(mode_bits)  # atomic_write makes files 0o644; keep the user's mode
    report.diagnostics = sort_diagnostics(report.diagnostics)
    return report


def _unencodable(exc: UnicodeEncodeError, text: str, shown: str, encoding: str) -> Diagnostic:
    """TG016 for fixed `text` that `encoding` cannot hold, at its first such character."""
    line = text.count("\n", 0, exc.start) + 1
    col = exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1
    char = text[exc.start]
    message = (
        f"file not changed: the fix would add {char!r} (U+{ord(char):04X}), which its "
        f"encoding, {encoding} (its coding comment), cannot hold"
    )
    return Diagnostic("TG016", message, Location(shown, line, col))


def _handlers(module: Module, index: ModuleIndex, config: Config) -> list[Handler]:
    """The handlers `module`'s unit registers, as `toolgen build` finds them."""
    return find_registrations(module, index, config_presets(config), dict(config.env)).handlers


def fix_index(
    config: Config, files: list[SourceFile], overlay: Overlay = NO_OVERLAY
) -> ModuleIndex:
    """The index the fix reads `files` with, as the compiler would (`overlay`: the text an
    editor holds unsaved, for `toolgen lsp`'s code actions)."""
    roots = search_roots(files, config.root)
    limit = config.max_source_bytes
    return ModuleIndex(
        roots, config.display, limit, config.library_paths, config.root, config.sources, overlay
    )


def registrations(
    index: ModuleIndex, files: list[SourceFile], config: Config
) -> dict[Path, list[Handler]]:
    """The handlers every source file registers, by the file that defines each function (a
    call such as `mcp.tool()(fn)` may register a function of another file)."""
    found: dict[Path, list[Handler]] = {}
    for file in files:
        module = index.add_file(file.module, file.path)
        if module is None:
            continue
        for handler in find_registrations(
            module, index, config_presets(config), dict(config.env)
        ).handlers:
            found.setdefault(handler.module.path, []).append(handler)
    return found


def exposed_params(
    index: ModuleIndex,
    file: SourceFile,
    config: Config,
    problems: list[Diagnostic] | None = None,
    registered: dict[Path, list[Handler]] | None = None,
) -> dict[int, list[FixParam]]:
    """For each handler defined in `file`, by `def` line: the parameters a model passes, as
    the compiler decides them (`exposed_parameters`). A handler
    nested too deeply to analyse is left out, with the compiler's TG202 in `problems`.
    `registered` has the handlers of every file (`registrations`), for functions that another
    file registers; without it, those that `file` registers itself."""
    module = index.add_file(file.module, file.path)
    if module is not None and module.path != file.path:
        # another file already has this module name: read this one on its own
        index = ModuleIndex(
            index.search_roots,
            config.display,
            index.limit,
            index.library_roots,
            index.project,
            index.data_roots,
            index.overlay,
        )
        module = index.add_file(file.module, file.path)
    if module is None:
        return {}
    found: dict[int, list[FixParam]] = {}
    if registered is not None and module.path == file.path:
        handlers = registered.get(file.path, [])
    else:
        handlers = find_registrations(
            module, index, config_presets(config), dict(config.env)
        ).handlers
    for handler in handlers:
        if handler.module.path != file.path:
            continue  # a function of another file, which that file's fix describes
        if decorator_options(handler, index).args_schema is not None:
            continue  # LangChain `args_schema=Model`: the model describes the parameters
        try:
            found[handler.node.lineno] = _handler_params(handler, index, config)
        except RecursionError:
            if problems is not None:
                problems.append(nested_too_deeply(handler))
    return found


def _handler_params(handler: Handler, index: ModuleIndex, config: Config) -> list[FixParam]:
    module = handler.module
    builder = SchemaBuilder(index)
    params, _ = exposed_parameters(handler, config.skip_params, builder)
    return [
        FixParam(p.name, _field_description(builder, p, module), _type_text(index, p, module))
        for p in params
    ]


def _field_description(builder: SchemaBuilder, param: Param, module: Module) -> str | None:
    """The description `Field(...)` gives the parameter: in its default or its annotation."""
    try:
        spec = FieldSpec()
        if param.default is not None and _is_field_call(builder, param.default, module):
            assert isinstance(param.default, ast.Call)
            spec = builder.field_call(param.default, module)
        if param.annotation is not None:
            _, spec = builder.field_schema(param.annotation, module, spec)
        description = spec.description
    except TypeProblem:  # the compiler reports it; read what can be read
        description = _loose_description(builder, param, module)
    return description if isinstance(description, str) and description.strip() else None


def _loose_description(builder: SchemaBuilder, param: Param, module: Module) -> str | None:
    calls: list[ast.expr] = []
    if param.default is not None:
        calls.append(param.default)
    node = param.annotation
    if isinstance(node, ast.Subscript) and _is_annotated(builder.index, node, module):
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        calls += reversed(elements[1:])  # outer metadata wins: read it first
    for call in calls:
        if not _is_field_call(builder, call, module):
            continue
        try:
            assert isinstance(call, ast.Call)
            description = builder.field_call(call, module).description
        except TypeProblem:
            continue
        if isinstance(description, str):
            return description
    return None


def _is_field_call(builder: SchemaBuilder, node: ast.expr, module: Module) -> bool:
    if not isinstance(node, ast.Call) or dotted_name(node.func) is None:
        return False
    called = builder.index.resolve_expr(module, node.func)
    return called is not None and called.path in FIELD_CALLS


def _is_annotated(index: ModuleIndex, node: ast.Subscript, module: Module) -> bool:
    symbol = index.resolve_expr(module, node.value) if dotted_name(node.value) else None
    return symbol is not None and symbol.path == "typing.Annotated"


def _type_text(index: ModuleIndex, param: Param, module: Module) -> str | None:
    """The parameter's type as its author wrote it, without `Annotated[...]` metadata."""
    node = param.annotation
    if isinstance(node, ast.Subscript) and _is_annotated(index, node, module):
        node = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    try:
        return ast.unparse(node)
    except RecursionError:  # the compiler reads `int | int | ...` that deep: write no type
        return None
