"""Newer Python syntax, read on the Python toolgen runs on (never compiled, never run).

When `ast.parse` refuses a source, `parse_newer` rewrites each construct of a newer Python that
it knows into text this Python parses, of the same width and with line breaks where they were,
so that every other node keeps its exact position; parses that; and puts back in the tree what
each rewrite stood for:

- PEP 695 type aliases, `type X[T] = V` (3.12): written `X        = V`, read back as a
  `TypeAlias` statement (`ast.TypeAlias` on 3.12+, one of this module's before), its name where
  it was written. Its type parameters are not kept (the same as any generic alias: not read).
- PEP 695 type parameters of functions and classes, `def f[T](...)`, `class C[T](...)` (3.12;
  with PEP 696 defaults, 3.13): blanked out; names they bind are unknown to toolgen.
- PEP 701 f-strings (3.12): quotes reused inside a replacement field, backslashes, comments and
  line breaks there. Each string (or implicitly concatenated run of strings) this Python cannot
  parse becomes a placeholder name, read back as the `ast.JoinedStr` Python 3.12 makes of it:
  its text decoded, each field's expression parsed on its own (the same way, so nesting works)
  at its own position, conversions, format specs and `=` as Python has them.

Not read: t-strings (PEP 750) and `except A, B:` without parentheses (PEP 758), both Python
3.14: the syntax error then says which Python reads them. A source that still fails is refused
with its own syntax error, at its place in the rewritten text (the same place in the source).
"""

from __future__ import annotations

import ast
import sys
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

#: String prefixes (lowercased); with `f` or `t` a string has replacement fields.
PREFIXES = frozenset(
    {"r", "u", "b", "br", "rb", "f", "fr", "rf", "t", "tr", "rt"},
)
ESCAPES = {
    "\n": "",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
RUNNING = f"{sys.version_info.major}.{sys.version_info.minor}"


class _TypeAlias(ast.stmt):
    """`type X = V` (PEP 695) as Python 3.12's `ast.TypeAlias` holds it, on older Pythons."""

    _fields = ("name", "type_params", "value")


_TypeAlias.__name__ = _TypeAlias.__qualname__ = "TypeAlias"  # as `ast.dump` shows it on 3.12


#: What a PEP 695 alias is in the tree: Python's own node where it has one.
TypeAlias: Any = getattr(ast, "TypeAlias", _TypeAlias)


class _Fail(Exception):
    """The text is not what this reader knows how to rewrite."""


@dataclass
class _Text:
    text: str  # as written, braces undoubled, escapes not decoded
    start: int
    end: int


@dataclass
class _Field:
    start: int  # the `{`
    end: int  # after the `}`
    expr: tuple[int, int]
    debug: str | None = None  # `x = ` of a self-documenting field `{x = }`
    conversion: int = -1
    spec: list[_Text | _Field] | None = None
    spec_at: int = 0  # the `:` before the spec


@dataclass
class _Literal:
    start: int
    end: int
    prefix: str
    quote: str
    parts: list[_Text | _Field] = field(default_factory=list)

    @property
    def formatted(self) -> bool:
        return "f" in self.prefix or "t" in self.prefix


@dataclass
class _Token:
    kind: str  # "str", "name", "op" or "nl" (a line break that ends a statement)
    start: int
    end: int
    literal: _Literal | None = None


def _is_name_char(c: str) -> bool:
    return c.isalnum() or c == "_" or ord(c) > 127


class _Scanner:
    """Python's tokens as far as the rewrite needs them: strings (with their fields), names,
    one-character operators and the line breaks that end statements."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.n = len(src)

    def tokens(self) -> list[_Token]:
        src, n = self.src, self.n
        out: list[_Token] = []
        i = depth = 0
        while i < n:
            c = src[i]
            if c in " \t\f":
                i += 1
            elif c == "\\" and src.startswith("\n", i + 1):
                i += 2
            elif c == "\n":
                if depth == 0:
                    out.append(_Token("nl", i, i + 1))
                i += 1
            elif c == "#":
                i = self._line_end(i)
            elif c in "'\"":
                literal = self.string(i, "", i)
                out.append(_Token("str", i, literal.end, literal))
                i = literal.end
            elif _is_name_char(c):
                j = i + 1
                while j < n and _is_name_char(src[j]):
                    j += 1
                word = src[i:j]
                if j < n and src[j] in "'\"" and word.lower() in PREFIXES:
                    literal = self.string(j, word.lower(), i)
                    out.append(_Token("str", i, literal.end, literal))
                    j = literal.end
                else:
                    out.append(_Token("name", i, j))
                i = j
            else:
                depth += 1 if c in "([{" else -1 if c in ")]}" and depth else 0
                out.append(_Token("op", i, i + 1))
                i += 1
        return out

    def _line_end(self, i: int) -> int:
        end = self.src.find("\n", i)
        return self.n if end < 0 else end

    def string(self, at: int, prefix: str, start: int) -> _Literal:
        """The string literal whose quote is at `at` (its prefix from `start`)."""
        src = self.src
        quote = src[at : at + 3] if src[at : at + 3] in ('"""', "'''") else src[at]
        literal = _Literal(start, 0, prefix, quote)
        i = at + len(quote)
        if literal.formatted:
            literal.parts, i = self._parts(i, quote, "r" in prefix, spec=False)
            literal.end = i
            return literal
        while i < self.n:
            if src[i] == "\\":
                i += 2
            elif src.startswith(quote, i):
                literal.end = i + len(quote)
                return literal
            elif src[i] == "\n" and len(quote) == 1:
                break
            else:
                i += 1
        raise _Fail

    def _parts(self, i: int, quote: str, raw: bool, spec: bool) -> tuple[list[_Text | _Field], int]:
        """The text and fields of an f-string from `i` to its closing quote (after which it
        returns), or of a format spec to its closing brace (at which it returns)."""
        src = self.src
        parts: list[_Text | _Field] = []
        text: list[str] = []
        begin = i

        def flush(end: int) -> None:
            if text:
                parts.append(_Text("".join(text), begin, end))
                text.clear()

        while i < self.n:
            c = src[i]
            if src.startswith(quote, i):
                if spec:
                    break
                flush(i)
                return parts, i + len(quote)
            if c == "}" and spec:
                flush(i)
                return parts, i
            if c == "\\":
                if not raw and src.startswith("N{", i + 1):  # a named escape, not a field
                    close = src.find("}", i)
                    if close < 0:
                        break
                    text.append(src[i : close + 1])
                    i = close + 1
                else:
                    text.append(src[i : i + 2])
                    i += 2
            elif c in "{}" and src.startswith(c, i + 1):
                text.append(c)
                i += 2
            elif c == "{":
                flush(i)
                found = self._field(i, quote, raw)
                parts.append(found)
                i = begin = found.end
            elif c == "}" or (c == "\n" and len(quote) == 1):
                break
            else:
                text.append(c)
                i += 1
        raise _Fail

    def _field(self, start: int, quote: str, raw: bool) -> _Field:
        """The replacement field whose `{` is at `start`."""
        src = self.src
        i, depth = start + 1, 0
        while i < self.n:
            c = src[i]
            if c == "#":
                i = self._line_end(i)
            elif c in "'\"":
                i = self.string(i, "", i).end
            elif _is_name_char(c):
                j = i + 1
                while j < self.n and _is_name_char(src[j]):
                    j += 1
                if j < self.n and src[j] in "'\"" and src[i:j].lower() in PREFIXES:
                    j = self.string(j, src[i:j].lower(), i).end
                i = j
            elif c in "([{":
                depth += 1
                i += 1
            elif c in ")]" or (c == "}" and depth):
                depth -= 1
                i += 1
            elif depth == 0 and c in "}!:=" and not self._operator(i):
                return self._field_end(start, i, quote, raw)
            else:
                i += 1
        raise _Fail

    def _operator(self, i: int) -> bool:
        """Whether the `!`, `:` or `=` at `i` is part of an operator (`!=`, `==`, `<=`, ...)."""
        src = self.src
        c = src[i]
        if c == "=":
            return src.startswith("=", i + 1) or src[i - 1] in "=!<>"
        return c == "!" and src.startswith("=", i + 1)

    def _field_end(self, start: int, i: int, quote: str, raw: bool) -> _Field:
        src = self.src
        found = _Field(start, 0, (start + 1, i))
        if src[i] == "=":
            j = i + 1
            while j < self.n and src[j] in " \t\n\f":
                j += 1
            if j >= self.n or src[j] not in "}!:":
                raise _Fail
            found.debug = src[start + 1 : j]
            i = j
        if src[i] == "!":
            name = src[i + 1 : i + 2]
            if name not in ("r", "s", "a"):
                raise _Fail
            found.conversion = ord(name)
            i += 2
        if src.startswith(":", i):
            found.spec_at = i
            found.spec, i = self._parts(i + 1, quote, raw, spec=True)
        if not src.startswith("}", i):
            raise _Fail
        found.end = i + 1
        return found


@dataclass
class _Rewrite:
    """What a source's rewrite stands for, and where."""

    text: str
    #: each f-string placeholder's (line, byte column) -> the string literals it stands for
    strings: dict[tuple[int, int], list[_Literal]] = field(default_factory=dict)
    #: each rewritten `type` statement's (line, byte column) -> (name, its line, byte column)
    aliases: dict[tuple[int, int], tuple[str, int, int]] = field(default_factory=dict)
    changed: bool = False
    #: a construct of a newer Python that is not rewritten (said if the source still fails)
    newer: _Newer | None = None


class _Positions:
    def __init__(self, src: str) -> None:
        self.src = src
        self.starts = [0]
        for i, c in enumerate(src):
            if c == "\n":
                self.starts.append(i + 1)

    def at(self, offset: int) -> tuple[int, int]:
        """(1-based line, byte column) of a character offset, as `ast` counts them."""
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        line_start = self.starts[lo]
        return lo + 1, len(self.src[line_start:offset].encode("utf-8", "surrogatepass"))


def _segments(chars: list[str], start: int, end: int) -> list[tuple[int, int, int]]:
    """The lines of `chars[start:end]`: (from, to, width in UTF-8 bytes, as `ast` counts)."""
    found: list[tuple[int, int, int]] = []
    begin = start
    for i in range(start, end + 1):
        if i == end or chars[i] == "\n":
            width = sum(len(c.encode("utf-8", "surrogatepass")) for c in chars[begin:i])
            found.append((begin, i, width))
            begin = i + 1
    return found


def _blank(chars: list[str], start: int, end: int, head: str) -> None:
    """Overwrite `chars[start:end]` with `head` and spaces, each line as wide in bytes as it
    was and its line break kept, each line that goes on ending with a backslash."""
    lines = _segments(chars, start, end)
    for number, (begin, stop, width) in enumerate(lines):
        text = head if number == 0 else ""
        tail = "\\" if number < len(lines) - 1 else ""
        room = width - len(text.encode()) - len(tail)
        if room < 0 or (begin == stop and (text or tail)):
            raise _Fail  # no room (an empty line cannot hold the backslash)
        chars[begin:stop] = [text + " " * room + tail, *[""] * (stop - begin - 1)][: stop - begin]


def _placeholder(chars: list[str], start: int, end: int) -> None:
    """Overwrite `chars[start:end]` with `(___)`, a name in parentheses (which let it span
    lines), each line as wide in bytes as it was."""
    lines = _segments(chars, start, end)
    for number, (begin, stop, width) in enumerate(lines):
        first, last = number == 0, number == len(lines) - 1
        fill = width - first - last
        if fill < (1 if first else 0):
            raise _Fail
        text = ("(" if first else "") + ("_" if first else " ") * fill + (")" if last else "")
        chars[begin:stop] = [text, *[""] * (stop - begin - 1)][: stop - begin]


def _rewrite(src: str, every: bool = False) -> _Rewrite:
    """`src` with each newer construct rewritten (see the module's doc), and what each stands
    for; `every`: every f-string, also those this Python parses."""
    tokens = _Scanner(src).tokens()
    where = _Positions(src)
    chars = list(src)
    out = _Rewrite(src)
    count = len(tokens)
    i = 0
    while i < count:
        tok = tokens[i]
        if tok.kind == "str":
            j = i
            while j + 1 < count and tokens[j + 1].kind == "str":
                j += 1
            group = [t.literal for t in tokens[i : j + 1] if t.literal is not None]
            text = src[tok.start : tokens[j].end]
            if any(lit.formatted for lit in group) and (every or not _parses(text)):
                if any("t" in lit.prefix for lit in group):
                    raise _Newer("t-strings", "3.14", tok.start, src)
                end = tokens[j].end
                _placeholder(chars, tok.start, end)
                line, col = where.at(tok.start)
                out.strings[(line, col + 1)] = group
                out.changed = True
            i = j + 1
            continue
        word = src[tok.start : tok.end] if tok.kind == "name" else ""
        named = i + 2 < count and tokens[i + 1].kind == "name"
        if word == "type" and named and _statement_start(tokens, i, src):
            k = _closing(tokens, i + 2, src) + 1 if _is(src, tokens[i + 2], "[") else i + 2
            if k < count and _is(src, tokens[k], "=") and not src.startswith("=", tokens[k].end):
                name = tokens[i + 1]
                alias = src[name.start : name.end]
                _blank(chars, tok.start, tokens[k].start, alias)
                out.aliases[where.at(tok.start)] = (alias, *where.at(name.start))
                out.changed = True
                i = k
                continue
        if word in ("def", "class") and named and _is(src, tokens[i + 2], "["):
            k = _closing(tokens, i + 2, src)
            _blank(chars, tokens[i + 2].start, tokens[k].end, "")
            out.changed = True
            i = k + 1
            continue
        if word == "except" and out.newer is None and _unparenthesized(tokens, i, src):
            out.newer = _Newer(
                "several exception types without parentheses", "3.14", tok.start, src
            )
        i += 1
    out.text = "".join(chars)
    return out


def _is(src: str, tok: _Token, *ops: str) -> bool:
    return tok.kind == "op" and src[tok.start] in ops


def _statement_start(tokens: list[_Token], i: int, src: str) -> bool:
    """Whether token `i` starts a statement: first, after a line break, `;` or a `:`."""
    return i == 0 or tokens[i - 1].kind == "nl" or _is(src, tokens[i - 1], ";", ":")


def _closing(tokens: list[_Token], i: int, src: str) -> int:
    """The index of the bracket that closes the one at token `i`."""
    depth = 0
    for k in range(i, len(tokens)):
        if tokens[k].kind == "op" and src[tokens[k].start] in "([{":
            depth += 1
        elif tokens[k].kind == "op" and src[tokens[k].start] in ")]}":
            depth -= 1
            if depth == 0:
                return k
    raise _Fail


def _unparenthesized(tokens: list[_Token], i: int, src: str) -> bool:
    """Whether the `except` at token `i` lists several types without parentheses."""
    depth = 0
    for tok in tokens[i + 1 :]:
        text = src[tok.start : tok.end]
        if tok.kind == "nl" or (depth == 0 and text in (":", "as")):
            return False
        if tok.kind == "op" and text in "([{":
            depth += 1
        elif tok.kind == "op" and text in ")]}":
            depth -= 1
        elif depth == 0 and text == ",":
            return True
    return False


class _Newer(Exception):
    """A construct of Python `version` that is not read: at character `offset`."""

    def __init__(self, what: str, version: str, offset: int, src: str) -> None:
        super().__init__(what)
        self.what, self.version = what, version
        self.line = src.count("\n", 0, offset) + 1
        self.col = offset - (src.rfind("\n", 0, offset) + 1) + 1

    def error(self) -> SyntaxError:
        message = f"{self.what} need Python {self.version} (toolgen runs on Python {RUNNING})"
        return SyntaxError(message, ("", self.line, self.col, "", None, None))


def _source_column(source: str, rewritten: str, line: int, offset: int) -> int:
    """The 1-based character column in `source` of column `offset` of the rewritten text's
    `line` (the two lines have the same bytes before each place, not the same characters)."""
    old, new = (text.split("\n")[line - 1 : line] or [""] for text in (source, rewritten))
    width = len(new[0][: offset - 1].encode("utf-8", "surrogatepass"))
    return len(old[0].encode("utf-8", "surrogatepass")[:width].decode("utf-8", "replace")) + 1


def _parses(text: str) -> bool:
    try:
        ast.parse(f"({text}\n)", mode="eval")
    except SyntaxError:
        return False
    return True


def parse_newer(
    source: str,
    filename: str,
    error: SyntaxError,
    mode: Literal["exec", "eval"] = "exec",
    *,
    every: bool = False,
) -> ast.AST:
    """The tree of `source`, which `ast.parse` refused with `error`, read as a newer Python
    would (see the module's doc); a SyntaxError when that cannot be done: `error`, or the
    rewritten source's (at the same place in `source`), or one that names the Python needed.
    `every`: rewrite every f-string, also those this Python parses (to compare the two)."""
    try:
        rewrite = _rewrite(source, every)
    except _Newer as exc:
        raise exc.error() from None
    except (_Fail, RecursionError):
        raise error from None
    try:
        if not rewrite.changed:
            raise error
        tree = ast.parse(rewrite.text, filename=filename, mode=mode)
    except SyntaxError as exc:
        if rewrite.newer is not None:
            raise rewrite.newer.error() from None
        if exc.lineno and exc.offset:  # in characters of the source's line, not the rewrite's
            exc.offset = _source_column(source, rewrite.text, exc.lineno, exc.offset)
        raise
    try:
        read: ast.AST = _ReadBack(source, rewrite).visit(tree)
    except (_Fail, RecursionError):
        raise error from None
    return read


Node = TypeVar("Node", bound=ast.expr)


class _ReadBack(ast.NodeTransformer):
    """Puts back in the parsed tree what each rewrite stood for."""

    def __init__(self, source: str, rewrite: _Rewrite) -> None:
        self.source = source
        self.rewrite = rewrite
        self.where = _Positions(source)

    def visit_Name(self, node: ast.Name) -> ast.expr:
        group = self.rewrite.strings.get((node.lineno, node.col_offset))
        if group is None:
            return node
        return self._joined(group)

    def visit_Assign(self, node: ast.Assign) -> ast.stmt:
        self.generic_visit(node)
        alias = self.rewrite.aliases.get((node.lineno, node.col_offset))
        if alias is None:
            return node
        name, line, col = alias
        target = ast.Name(id=name, ctx=ast.Store())
        target.lineno, target.col_offset = line, col
        target.end_lineno, target.end_col_offset = line, col + len(name.encode())
        stmt: ast.stmt = TypeAlias(name=target, type_params=[], value=node.value)
        return ast.copy_location(stmt, node)

    # -- f-strings ---------------------------------------------------------------------------
    def _joined(self, group: list[_Literal]) -> ast.JoinedStr:
        values: list[ast.expr] = []
        for literal in group:
            if not literal.formatted:
                value = ast.literal_eval(self.source[literal.start : literal.end])
                if not isinstance(value, str):
                    raise _Fail
                self._text(values, value, literal.start, literal.end)
                continue
            values.extend(self._values(literal.parts, literal))
        return self._located(ast.JoinedStr(values=_merged(values)), group[0].start, group[-1].end)

    def _values(self, parts: list[_Text | _Field], literal: _Literal) -> list[ast.expr]:
        values: list[ast.expr] = []
        for part in parts:
            if isinstance(part, _Text):
                text = part.text if "r" in literal.prefix else _decode(part.text)
                self._text(values, text, part.start, part.end)
                continue
            if part.debug is not None:
                self._text(values, part.debug, part.expr[0], part.expr[1])
            conversion = part.conversion
            if part.debug is not None and conversion == -1 and part.spec is None:
                conversion = ord("r")  # `{x=}` shows repr(x), as Python does
            spec = None
            if part.spec is not None:
                spec_values = _merged(self._values(part.spec, literal))
                spec_node = ast.JoinedStr(values=spec_values)
                spec = self._located(spec_node, part.spec_at, part.end - 1)
            value = self._expression(*part.expr)
            formatted = ast.FormattedValue(value=value, conversion=conversion, format_spec=spec)
            values.append(self._located(formatted, part.start, part.end))
        return values

    def _text(self, values: list[ast.expr], text: str, start: int, end: int) -> None:
        if text:
            values.append(self._located(ast.Constant(value=text), start, end))

    def _expression(self, start: int, end: int) -> ast.expr:
        """A field's expression, parsed on its own (newer syntax in it read the same way),
        every node at its place in the source."""
        text = self.source[start:end]
        if not text.strip():
            raise _Fail
        wrapped = f"({text}\n)"
        tree: ast.AST
        unchanged = SyntaxError("no f-string in it")
        try:  # f-strings in it read the same way (their pieces where Python 3.12 puts them)
            tree = parse_newer(wrapped, "<f-string>", unchanged, mode="eval", every=True)
        except SyntaxError as exc:
            if exc is not unchanged:
                raise
            tree = ast.parse(wrapped, mode="eval")
        assert isinstance(tree, ast.Expression)
        line, col = self.where.at(start)
        for node in ast.walk(tree.body):
            _shift(node, line, col)
        return tree.body

    def _located(self, node: Node, start: int, end: int) -> Node:
        node.lineno, node.col_offset = self.where.at(start)
        node.end_lineno, node.end_col_offset = self.where.at(end)
        return node


def _shift(node: ast.AST, line: int, col: int) -> None:
    """Move `node` from its place in `(text\\n)` to `text`'s place at (line, byte column)."""
    for first, column in (("lineno", "col_offset"), ("end_lineno", "end_col_offset")):
        if getattr(node, first, None) is None:
            continue
        at = getattr(node, first)
        if at == 1:
            setattr(node, column, getattr(node, column) - 1 + col)
        setattr(node, first, at + line - 1)


def _merged(values: list[ast.expr]) -> list[ast.expr]:
    """Adjacent text parts joined into one constant, as Python's parser joins them."""
    out: list[ast.expr] = []
    for value in values:
        last = out[-1] if out else None
        if (
            isinstance(value, ast.Constant)
            and isinstance(value.value, str)
            and isinstance(last, ast.Constant)
            and isinstance(last.value, str)
        ):
            joined = ast.Constant(value=last.value + value.value)
            ast.copy_location(joined, last)
            joined.end_lineno, joined.end_col_offset = value.end_lineno, value.end_col_offset
            out[-1] = joined
        else:
            out.append(value)
    return out


def _decode(text: str) -> str:
    """The value of a string literal's text with its escapes, as Python reads them (an
    unknown escape stays as written)."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = text[i + 1]
        if e in ESCAPES:
            out.append(ESCAPES[e])
            i += 2
        elif e in "01234567":
            j = i + 1
            while j < min(i + 4, n) and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[i + 1 : j], 8)))
            i = j
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            digits = text[i + 2 : i + 2 + width]
            if len(digits) != width or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise _Fail
            out.append(chr(int(digits, 16)))
            i += 2 + width
        elif e == "N" and text.startswith("{", i + 2):
            close = text.find("}", i)
            try:
                out.append(unicodedata.lookup(text[i + 3 : close]))
            except KeyError:
                raise _Fail from None
            i = close + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)
