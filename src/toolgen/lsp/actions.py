"""Code actions of `toolgen lsp`: the edits a diagnostic has one obvious answer to, computed on
the text an editor holds unsaved. No protocol server here: what an action is comes from
lsprotocol's types, and `server` asks for them.

- `toolgen fix` for one handler (a quick fix of its TG301 and TG302: the missing entries
  added, the stale ones removed, the entries in signature order) and for the whole file (a
  source action, `source.fixAll.toolgen`). It is `toolgen fix` itself (`fix_source`), with the
  handlers and their exposed parameters found as the command finds them, reading the open
  buffers instead of their files; a parameter without a Field(description=...) gets the same
  placeholder the command inserts, which the compiler still reports (TG301) until it is
  replaced.
- TG905 (a parameter that accepts null has no default): `= None`, the rule's own remedy,
  where the signature can take it.
- TG021 (a contract table names no tool, and one tool's name is close): the table renamed to
  that name, when renaming the key where it is written is all it takes (the TOML read again
  must be the same document with that one table renamed).

Each edit replaces only what changes (`text_edits`), so a client keeps the cursor and the
marks of the rest of the file.
"""

from __future__ import annotations

import ast
import bisect
import copy
import os
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from toolgen.config import Config
from toolgen.contract_config import table_key
from toolgen.diagnostics import Diagnostic
from toolgen.fix import FixParam, exposed_params, fix_index, fix_source, registrations
from toolgen.lsp.live import in_sources, located, overlay_of
from toolgen.lsp.ranges import Offsets
from toolgen.pipeline import Generated
from toolgen.read.discover import list_sources
from toolgen.read.index import Unparsable, dotted_name, parse_python
from toolgen.textdiff import common_ends, opcodes
from toolgen.toml_places import names

#: The kind of the action that fixes every docstring of a file.
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.toolgen"
#: Every kind of action the server returns (what it advertises).
KINDS = (types.CodeActionKind.QuickFix.value, FIX_ALL)
#: The diagnostics `toolgen fix` answers.
DOCSTRING_CODES = frozenset({"TG301", "TG302"})

_NAMED = re.compile(r"`([^`]*)`")
_NO_TOOL = re.compile(r"^contract table `(.*)` names no tool \(did you mean (.+)\?\)$", re.S)


@dataclass(frozen=True)
class Asked:
    """A code action request, as this module needs it."""

    path: Path  # absolute
    uri: str
    text: str  # the buffer as the editor holds it
    version: int | None
    #: toolgen's diagnostics the client says are at the range
    diagnostics: Sequence[types.Diagnostic]
    only: Sequence[str] | None  # the kinds asked for (None: any)
    invoked: bool  # asked for by the user, not on a cursor move
    versioned: bool = False  # the client takes `documentChanges` (edits of a version)


def wanted(kind: str, asked: Asked) -> bool:
    """Whether `asked` wants actions of `kind`: one of its kinds, or one under them. Fixing a
    whole file is worked out only when asked for by kind or by the user."""
    if asked.only is None:
        return kind == types.CodeActionKind.QuickFix.value or asked.invoked
    return any(kind == only or kind.startswith(f"{only}.") for only in asked.only)


def code_actions(
    config: Config, result: Generated | None, asked: Asked, buffers: Mapping[Path, str]
) -> list[types.CodeAction]:
    """Every action for `asked`: `result` is the last compile (which handlers it found in
    the file), `buffers` every open buffer's text by absolute path."""
    actions: list[types.CodeAction] = []
    ours = [d for d in asked.diagnostics if d.source == "toolgen"]
    quick = wanted(types.CodeActionKind.QuickFix.value, asked)
    if asked.path.suffix == ".py" and in_sources(config, asked.path):
        doc = [d for d in ours if d.code in DOCSTRING_CODES]
        fix_all = wanted(FIX_ALL, asked)
        if (quick and doc) or fix_all:
            fixer = _Fixer(config, result, asked, buffers)
            if quick:
                actions += fixer.quick_fixes(doc)
            if fix_all:
                actions += fixer.fix_all()
        if quick:
            for found in ours:
                if found.code == "TG905":
                    actions += _default_none(asked, found)
    elif quick and any(_same(asked.path, p) for p in (config.config_file, config.contract_file)):
        for found in ours:
            if found.code == "TG021":
                actions += _rename_table(config, asked, found)
    return actions


def _same(path: Path, other: Path | None) -> bool:
    """Whether `path` is the file `other` (both absolute), through any links."""
    return other is not None and os.path.realpath(path) == os.path.realpath(other)


# -- toolgen fix ----------------------------------------------------------------------------
class _Fixer:
    """`toolgen fix` of one file's buffer, its handlers found as the command finds them."""

    def __init__(
        self,
        config: Config,
        result: Generated | None,
        asked: Asked,
        buffers: Mapping[Path, str],
    ) -> None:
        self.config = config
        self.asked = asked
        self.shown = config.display(asked.path)
        try:
            tree = parse_python(asked.text)
        except Unparsable:  # the fix changes nothing in a file it cannot read
            self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
            self.exposed: dict[int, list[FixParam]] = {}
            return
        self.functions = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        self.exposed = self._exposed(result, buffers)

    def _exposed(
        self, result: Generated | None, buffers: Mapping[Path, str]
    ) -> dict[int, list[FixParam]]:
        """The exposed parameters of each handler of the file, by `def` line. The handlers a
        file registers itself are found reading it alone; only when the last compile found
        others among its functions (one another file registers) are all files read, as the
        command reads them."""
        config, path = self.config, self.asked.path
        files, _ = list_sources(config.sources, config.root)
        file = next((f for f in files if _same(path, f.path)), None)
        if file is None:
            return {}
        index = fix_index(config, files, overlay_of({**buffers, path: self.asked.text}))
        exposed = exposed_params(index, file, config)
        functions = {f.lineno for f in self.functions}
        if (_handler_lines(config, result, path) & functions) - set(exposed):
            exposed = exposed_params(index, file, config, None, registrations(index, files, config))
        return exposed

    def quick_fixes(self, found: list[types.Diagnostic]) -> list[types.CodeAction]:
        """The fix of each handler that has diagnostics among `found`, with those it
        answers."""
        handlers = [f for f in self.functions if f.lineno in self.exposed]
        by_handler: dict[int, list[types.Diagnostic]] = {}
        for diagnostic in found:
            line = diagnostic.range.start.line + 1
            around = [f for f in handlers if _first_line(f) <= line <= (f.end_lineno or 0)]
            if around:  # the innermost handler it is in
                handler = max(around, key=_first_line)
                by_handler.setdefault(handler.lineno, []).append(diagnostic)
        actions = []
        for line, diagnostics in sorted(by_handler.items()):
            action = self._handler_fix(line, diagnostics)
            if action is not None:
                actions.append(action)
        return actions

    def _handler_fix(
        self, line: int, diagnostics: list[types.Diagnostic]
    ) -> types.CodeAction | None:
        style = self.config.docstring_style
        fixed = fix_source(self.asked.text, self.shown, {line: self.exposed[line]}, style)
        if not fixed.changed:
            return None
        added, removed, reordered = _changes(fixed.diagnostics)
        answered = [
            d
            for d in diagnostics
            if (d.code == "TG301" and _first_name(d.message) in added)
            or (d.code == "TG302" and _first_name(d.message) in removed)
        ]
        if not answered:
            return None
        function = _first_name(fixed.diagnostics[0].message) if fixed.diagnostics else None
        steps = [f"add `{n}`" for n in added] + [f"remove `{n}`" for n in removed]
        steps += ["reorder the entries"] if reordered else []
        title = f"Fix the docstring of `{function}`: {', '.join(steps)}"
        return types.CodeAction(
            title=title,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=answered,
            is_preferred=True,
            edit=workspace_edit(self.asked, text_edits(self.asked.text, fixed.source)),
        )

    def fix_all(self) -> list[types.CodeAction]:
        """`toolgen fix` of every handler in the file, when it changes anything."""
        if not self.exposed:
            return []
        style = self.config.docstring_style
        fixed = fix_source(self.asked.text, self.shown, self.exposed, style)
        if not fixed.changed:
            return []
        return [
            types.CodeAction(
                title="toolgen: fix docstrings in this file",
                kind=FIX_ALL,
                edit=workspace_edit(self.asked, text_edits(self.asked.text, fixed.source)),
            )
        ]


def _handler_lines(config: Config, result: Generated | None, path: Path) -> set[int]:
    """The `def` lines of the handlers the last compile found in `path` (published or left
    out for their errors)."""
    if result is None:
        return set()
    places = [*result.locations.values(), *(where for _, where in result.left_out)]
    return {where.line for where in places if located(where, config.cwd) == path}


def _first_line(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return min([d.lineno for d in node.decorator_list] + [node.lineno])


def _first_name(message: str) -> str | None:
    found = _NAMED.search(message)
    return found.group(1) if found else None


def _changes(said: list[Diagnostic]) -> tuple[list[str], list[str], bool]:
    """What a fix did, from what it says (`toolgen.fix._diagnostics`): the names it added
    entries for, the names whose entries it removed, and whether it reordered entries."""
    added: list[str] = []
    removed: list[str] = []
    reordered = False
    for diagnostic in said:
        names = _NAMED.findall(diagnostic.message)
        if diagnostic.code == "TG803" and "reordered" in diagnostic.message:
            reordered = True
        elif len(names) < 2:
            continue
        elif diagnostic.code == "TG803":
            removed.append(names[1])
        elif diagnostic.code == "TG801" or (
            diagnostic.code == "TG802" and "inserted" in diagnostic.message
        ):
            added.append(names[1])
    return added, removed, reordered


# -- TG905: `= None` -----------------------------------------------------------------------
def _default_none(asked: Asked, found: types.Diagnostic) -> list[types.CodeAction]:
    """`= None` after the annotation of the parameter `found` is at, when it has none and
    Python takes one there (no parameter without a default follows it)."""
    text = asked.text
    try:
        tree = parse_python(text)
    except Unparsable:
        return []
    where = Offsets(text)
    at = where.offset(found.range.start.line, found.range.start.character)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for arg, default in _defaults(node.args):
            if _offset(where, arg.lineno, arg.col_offset) != at:
                continue
            annotation = arg.annotation
            if default is not None or annotation is None or _field_default(annotation):
                return []
            assert annotation.end_lineno is not None and annotation.end_col_offset is not None
            end = _offset(where, annotation.end_lineno, annotation.end_col_offset)
            new = f"{text[:end]} = None{text[end:]}"
            try:
                parse_python(new)
            except Unparsable:  # a parameter without a default follows
                return []
            return [_quick_fix(f"Default `{arg.arg}` to None", found, asked, text, new)]
    return []


def _defaults(args: ast.arguments) -> Iterator[tuple[ast.arg, ast.expr | None]]:
    """Each named parameter of `args` with its default (None: it has none)."""
    positional = [*args.posonlyargs, *args.args]
    padded: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    yield from zip(positional, [*padded, *args.defaults], strict=True)
    yield from zip(args.kwonlyargs, args.kw_defaults, strict=True)


def _field_default(annotation: ast.expr) -> bool:
    """Whether a `Field(...)` in the annotation gives a default (`= None` would give two)."""
    for node in ast.walk(annotation):
        if isinstance(node, ast.Call) and (dotted_name(node.func) or "").endswith("Field"):
            keywords = {k.arg for k in node.keywords}
            if node.args or keywords & {"default", "default_factory", None}:
                return True
    return False


def _offset(where: Offsets, line: int, col: int) -> int:
    """The offset of the syntax tree's (`line`, `col`: UTF-8 bytes into the line)."""
    start = where.starts[line - 1]
    text = where.text[start : start + col]  # as many characters as bytes, at least
    return start + len(text.encode("utf-8")[:col].decode("utf-8", "ignore"))


# -- TG021: the table renamed -------------------------------------------------------------
def _rename_table(config: Config, asked: Asked, found: types.Diagnostic) -> list[types.CodeAction]:
    """The contract table `found` names renamed to the tool it suggests, when renaming keys
    where they are written gives the same document with that one table renamed."""
    said = _NO_TOOL.match(found.message)
    if said is None:
        return []
    name, new = said.group(1), said.group(2)
    text = asked.text
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    in_file = _same(asked.path, config.contract_file)
    inside = () if in_file else ("tool", "toolgen", "contract")
    expected = _renamed(document, inside, name, new)
    if expected is None:
        return []
    keys = [(start, end) for key, start, end in names(text) if key == name]
    line, where = found.range.start.line, Offsets(text)
    here = [key for key in keys if where.position(key[0])[0] == line]
    # every key of that name at once (a table and its sub-tables), else one on its line
    for chosen in [keys, *([key] for key in here)]:
        new_text = _replaced(text, chosen, table_key(new))
        try:
            if tomllib.loads(new_text) != expected:
                continue
        except tomllib.TOMLDecodeError:
            continue
        return [_quick_fix(f"Rename the contract table to `{new}`", found, asked, text, new_text)]
    return []


def _renamed(
    document: dict[str, Any], inside: tuple[str, ...], name: str, new: str
) -> dict[str, Any] | None:
    """`document` with the table `name` of the tables at `inside` named `new` (None: there
    is no such table, or a table named `new` already)."""
    renamed = copy.deepcopy(document)
    tables: Any = renamed
    for key in inside:
        tables = tables.get(key) if isinstance(tables, dict) else None
    if not isinstance(tables, dict) or name not in tables or new in tables:
        return None
    tables[new] = tables.pop(name)
    return renamed


def _replaced(text: str, spans: list[tuple[int, int]], by: str) -> str:
    pieces: list[str] = []
    at = 0
    for start, end in sorted(spans):
        pieces += [text[at:start], by]
        at = end
    return "".join(pieces) + text[at:]


# -- edits --------------------------------------------------------------------------------
def text_edits(old: str, new: str) -> list[types.TextEdit]:
    """The edits that make `old` into `new`, each replacing only what changes: whole lines
    added or removed, else the lines that differ less the characters they share at both
    ends."""
    where = Offsets(old)
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    # what the two share, to whole lines of `old`: added or removed lines are whole lines
    head = where.starts[bisect.bisect_right(where.starts, head) - 1]
    at = bisect.bisect_left(where.starts, len(old) - tail)
    tail = len(old) - (where.starts[at] if at < len(where.starts) else len(old))
    a = old[head : len(old) - tail].splitlines(keepends=True)
    b = new[head : len(new) - tail].splitlines(keepends=True)
    edits: list[types.TextEdit] = []
    starts_a = _starts(a, head)
    starts_b = _starts(b, head)
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag == "equal":
            continue
        start, end = starts_a[i1], starts_a[i2]
        given = new[starts_b[j1] : starts_b[j2]]
        if tag == "replace":
            start, end, given = _trimmed(old, start, end, given)
        (sl, sc), (el, ec) = where.position(start), where.position(end)
        edits.append(
            types.TextEdit(types.Range(types.Position(sl, sc), types.Position(el, ec)), given)
        )
    return edits


def _starts(lines: list[str], at: int) -> list[int]:
    """Where each of `lines` starts, and where the last ends, from offset `at`."""
    found = [at]
    for line in lines:
        found.append(found[-1] + len(line))
    return found


def _trimmed(old: str, start: int, end: int, given: str) -> tuple[int, int, str]:
    """The replacement of `old[start:end]` by `given`, less what both start and end with;
    never splitting a `\\r\\n`."""
    head, tail = common_ends(old[start:end], given)
    start, end = start + head, end - tail
    given = given[head : len(given) - tail]
    if 0 < start < len(old) and old[start - 1] == "\r" and old[start] == "\n":
        start, given = start - 1, "\r" + given
    if 0 < end < len(old) and old[end - 1] == "\r" and old[end] == "\n":
        end, given = end + 1, given + "\n"
    return start, end, given


def _quick_fix(
    title: str, found: types.Diagnostic, asked: Asked, text: str, new: str
) -> types.CodeAction:
    """The quick fix of `found` that makes the buffer's `text` into `new`."""
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[found],
        edit=workspace_edit(asked, text_edits(text, new)),
    )


def workspace_edit(asked: Asked, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    """`edits` of the buffer `asked` is about: of its version, when the client takes that."""
    if asked.versioned:
        document = types.OptionalVersionedTextDocumentIdentifier(asked.uri, asked.version)
        change = types.TextDocumentEdit(document, list(edits))
        return types.WorkspaceEdit(document_changes=[change])
    return types.WorkspaceEdit(changes={asked.uri: edits})
