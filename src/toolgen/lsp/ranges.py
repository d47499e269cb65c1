"""Where a diagnostic is, in the protocol's terms: toolgen's places are a line and a column
(1-based, in characters); the protocol's are ranges of 0-based lines and columns in UTF-16
code units. Pure functions over a file's text.

A place names where something starts; its range runs to the end of what starts there: a
name (dotted, or a decorator's `@name`), else one character (a zero-width range at the end
of a line). Other places a message names (`path:line:col`: the twin of a duplicate name, a
value bound in another module) are its related places.
"""

from __future__ import annotations

import bisect
import os
import re
from pathlib import Path

#: A range: (start line, start column), (end line, end column), all 0-based, UTF-16.
Span = tuple[tuple[int, int], tuple[int, int]]

_BREAK = re.compile(r"\r\n|\r|\n")
_TOKEN = re.compile(r"@?[^\W\d][\w.]*|\S")
#: `path:line:col` inside a message (a path has no spaces, quotes or brackets)
_PLACE = re.compile(r"(?<![\w/.:-])([^\s`'\"(),;]+?):(\d+):(\d+)(?!\d)")


def lines_of(text: str) -> list[str]:
    """`text`'s lines as Python and the protocol count them (`\\n`, `\\r\\n` or `\\r`)."""
    return _BREAK.split(text)


def utf16(line: str, chars: int) -> int:
    """The UTF-16 column of the character column `chars` (0-based) of `line`."""
    head = line[:chars]
    return len(head) + sum(1 for c in head if ord(c) > 0xFFFF)


def span(lines: list[str], line: int, col: int) -> Span:
    """The range of what starts at toolgen's (`line`, `col`) in a file of `lines`; a place
    beyond the text is at its end."""
    if not lines:
        return (0, 0), (0, 0)
    row = min(max(line, 1), len(lines)) - 1
    text = lines[row]
    start = min(max(col, 1) - 1, len(text))
    found = _TOKEN.match(text, start)
    end = found.end() if found else start
    return (row, utf16(text, start)), (row, utf16(text, end))


def chars(line: str, units: int) -> int:
    """The character column (0-based) of the UTF-16 column `units` of `line`."""
    count = 0
    for at, c in enumerate(line):
        if count >= units:
            return at
        count += 2 if ord(c) > 0xFFFF else 1
    return len(line)


class Offsets:
    """Offsets into one text (in characters) as the protocol's positions, and back."""

    def __init__(self, text: str) -> None:
        self.text = text
        #: where each line starts, its line break counted as the protocol counts it
        self.starts = [0, *(m.end() for m in _BREAK.finditer(text))]

    def position(self, offset: int) -> tuple[int, int]:
        """The (line, UTF-16 column) of `offset`, both 0-based."""
        row = bisect.bisect_right(self.starts, offset) - 1
        start = self.starts[row]
        return row, utf16(self.text[start:offset], offset - start)

    def offset(self, line: int, units: int) -> int:
        """The offset of the protocol's (`line`, UTF-16 column `units`), within the text."""
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return start + chars(self.text[start:end].rstrip("\r\n"), units)


def mentioned(message: str, cwd: Path, project: Path) -> list[tuple[Path, int, int]]:
    """The places `message` names as `path:line:col` of the project's files (paths relative
    to `cwd`; files that exist and resolve inside `project`, as a message may quote user
    text), in the order named: (absolute path, line, col)."""
    found: list[tuple[Path, int, int]] = []
    inside = Path(os.path.realpath(project))
    for match in _PLACE.finditer(message):
        path = Path(os.path.normpath(cwd / match.group(1)))
        if Path(os.path.realpath(path)).is_relative_to(inside) and path.is_file():
            found.append((path, int(match.group(2)), int(match.group(3))))
    return found
