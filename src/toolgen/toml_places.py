"""Where each key of a TOML document is written, so that a configuration error points at it.

`tomllib` gives values, not places. `places(text)` reads a document `tomllib` has already
accepted, once and without recursion, and gives the (line, column) of the first place that
names each key path: a table header (`[tool.toolgen.rules]`), a key (`out = ...`, `"out" =
...`), a dotted key (`tool.toolgen.out = ...`, `rules.TG301 = ...`) or a key of an inline
table (`toolgen = {out = 5}`, `rules = {TG301 = "off"}`). Each prefix of a path is placed too
(`tool.toolgen.out` also places `tool` and `tool.toolgen`, each at its own part; a header
places its table and the tables above it at its `[`). The keys of
inline tables in an array are placed under the array's path (`breaking_ignore.rule`).

One pass, linear in the text: a configuration of a million keys is located as fast as it is
parsed, and every key asked for is a dictionary lookup.
"""

from __future__ import annotations

import json
import re

Path = tuple[str, ...]

#: A token, after the blanks and comment before it (skipped in the pattern: they are most of
#: a document's tokens).
_TOKEN = re.compile(
    r"[ \t\r]*(?:#[^\n]*)?(?:"
    + "|".join(
        (
            r'(?P<text>"""(?:[^"\\]|\\[\s\S]|"(?!""))*"{3,5}'  # multi-line strings
            r"|'''(?:[^']|'(?!''))*'{3,5})",
            r'(?P<basic>"(?:[^"\\\n]|\\.)*")',
            r"(?P<literal>'[^'\n]*')",
            r"(?P<newline>\n)",
            r"(?P<punct>[\[\]{}=,.])",
            r"(?P<bare>[^\s\[\]{}=,.#\"']+)",
        )
    )
    + ")"
)


def _key(kind: str, token: str) -> str:
    """A key part as TOML reads it: bare, 'literal' or "basic" (JSON's escapes, near enough
    for a place)."""
    if kind == "literal":
        return token[1:-1]
    if kind == "basic":
        try:
            value = json.loads(token)
        except ValueError:
            return token[1:-1]
        return value if isinstance(value, str) else token[1:-1]
    return token


def places(text: str) -> dict[Path, tuple[int, int]]:
    """The (line, column) of the first place that names each key path of `text` (see the
    module's doc)."""
    found: dict[Path, tuple[int, int]] = {}
    line, start = 1, 0  # the current line, and the offset where it starts
    table: Path = ()  # the current table's path (its header)
    #: each open `{` or `[` of a value: ("{" or "[", the path whose keys or items it holds)
    nests: list[tuple[str, Path]] = []
    parts: list[str] = []  # the key (or header) read so far
    holder: Path = ()  # the path of the value being read
    state = "key"  # key, header, value, or after (a value)
    header_at = (1, 1)  # where the header being read starts (its `[`): where it places
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or ""
        token = match.group(kind)
        column = match.start(kind) - start + 1
        if kind == "newline" or kind == "text":
            if kind == "newline" or "\n" in token:
                line += token.count("\n")
                start = match.start(kind) + token.rindex("\n") + 1
            if kind == "newline":
                if not nests:  # a top-level line ends: the next starts a key or header
                    state, parts = "key", []
                continue
        named = kind in ("bare", "basic", "literal")
        if state in ("key", "header") and named:
            parts.append(_key(kind, token))
            if state == "header":
                found.setdefault(tuple(parts), header_at)
            else:
                path = (*(nests[-1][1] if nests else table), *parts)
                found.setdefault(path, (line, column))
        elif state == "key" and token == "[" and not nests and not parts:
            state, header_at = "header", (line, column)
        elif state == "header" and token == "]":
            table, state = tuple(parts), "after"
        elif state == "key" and token == "=":
            holder = (*(nests[-1][1] if nests else table), *parts)
            state = "value"
        elif state == "value" and token in ("{", "["):
            nests.append((token, holder))
            state, parts = ("key", []) if token == "{" else ("value", parts)
        elif state != "header" and token in ("}", "]") and nests:
            nests.pop()  # an empty table or array, a trailing comma, or the end of one
            state = "after"
        elif state == "value":
            state = "after"  # a scalar (a float or date may go on in tokens: ignored)
        elif state == "after" and token == "," and nests:
            if nests[-1][0] == "{":
                state, parts = "key", []
            else:
                state, holder = "value", nests[-1][1]
    return found


def names(text: str) -> list[tuple[str, int, int]]:
    """Every bare or quoted token of `text` (a key's part, or a string value): what it reads
    as a key, and where it starts and ends (offsets)."""
    found: list[tuple[str, int, int]] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or ""
        if kind in ("bare", "basic", "literal"):
            found.append((_key(kind, match.group(kind)), match.start(kind), match.end(kind)))
    return found
