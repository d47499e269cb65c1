"""How a value too long to show in full is cut in a message: one rule for the compiler's
diagnostics and the runtime's answers (standard library only, so the runtime may import it)."""

from __future__ import annotations

#: The most characters a message quotes of a value it did not make (a path, a client's text).
QUOTE_LIMIT = 200


def cut(text: str, limit: int = QUOTE_LIMIT) -> str:
    """`text`, or its first `limit` characters and a note of its length when it is longer."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (cut, {len(text):,} characters)"
