"""How a value too long to show in full is cut in a message: one rule for the compiler's
diagnostics and the runtime's answers (standard library only, so the runtime may import it);
and how control characters in user text are shown where nothing escapes them (a printed
diagnostic, docs/tools.md, python/tools.py)."""

from __future__ import annotations

import re

#: The most characters a message quotes of a value it did not make (a path, a client's text).
QUOTE_LIMIT = 200


def cut(text: str, limit: int = QUOTE_LIMIT) -> str:
    """`text`, or its first `limit` characters and a note of its length when it is longer."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (cut, {len(text):,} characters)"


#: The C0 controls but the line feed and the tab, DEL, and the C1 controls (some terminals
#: act on those too). Printed or written as they are, an ESC rewrites the terminal of whoever
#: reads a CI log or runs `git diff` on a generated file (a review can be shown other text),
#: and a NUL makes git take a file for binary and Python refuse a module.
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """`text` with each control character as its `\\xNN` escape: in a Python string literal,
    the same text again (lower-case hex, as black writes it)."""
    return CONTROLS.sub(_escape, text) if CONTROLS.search(text) else text


def _escape(found: re.Match[str]) -> str:
    return f"\\x{ord(found.group()):02x}"
