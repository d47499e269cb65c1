"""Handler text in the generated files people read or import (docs/tools.md,
python/tools.py): its control characters made visible.

A description is whatever a docstring or a string literal says, escapes included. JSON
escapes control characters itself; Markdown and Python do not: an ESC in docs/tools.md
rewrites the terminal of whoever runs `git diff` or `cat` on it (a review can be shown other
text), a NUL makes git take the file for binary and Python refuse the module.
"""

from __future__ import annotations

import re

#: The C0 controls but the line feed and the tab, DEL, and the C1 controls (which some
#: terminals act on too).
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """`text` with each control character as its `\\xNN` escape: in a Python string literal,
    the same text again (lower-case hex, as black writes it)."""
    return CONTROLS.sub(lambda found: f"\\x{ord(found.group()):02x}", text)
