"""Values from a client, checked and quoted: what strict JSON cannot carry, how deep
arguments may nest, and quoting a value short so a large input is never echoed at length.

Moved here from `toolgen.serve_guard` so that the runtime (which must import without the MCP
SDK) checks arguments and results exactly as `toolgen serve` did.
"""

from __future__ import annotations

import math
import re
import reprlib
import sys
from collections.abc import Iterable
from typing import Any

from toolgen.quoting import QUOTE_LIMIT, cut

#: Nesting depth of tool arguments (the arguments object is level 1); deeper is a
#: VALIDATION_ERROR, as schema validation recurses along it.
MAX_ARGUMENT_DEPTH = 64

#: Nesting depth of a result: pydantic's serializer refuses deeper ones anyway, and the
#: walk that looks for what JSON cannot carry stops there.
MAX_RESULT_DEPTH = 255

#: Problems a VALIDATION_ERROR lists at most, and schema errors read to find them.
MAX_PROBLEMS = 10
MAX_SCHEMA_ERRORS = 100

# Integers beyond a double's range are rejected like the non-finite floats: most clients
# cannot read them, and Python cannot even print one of more than 4,300 digits.
MAX_NUMBER = sys.float_info.max

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = QUOTE_LIMIT
_SHORT.maxlevel = 3


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """`repr(value)` of a client's value, cut after about `limit` characters."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… (cut, {len(value):,} characters)"
    try:
        return cut(_SHORT.repr(value), limit)
    except ValueError:  # an integer too long for Python to print
        return f"<{type(value).__name__}>"


# -- values: arguments in, results out ------------------------------------------------------


def pointer(parts: Iterable[Any]) -> str:
    """A JSON pointer (RFC 6901) to the value at `parts`, cut short when a key is long."""
    return cut("".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts))


#: Half of a UTF-16 pair, alone: what `os.listdir` gives for a name that is not UTF-8.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

#: Marks the end of a container's children in `value_problems`' walk.
_LEAVE: Any = object()


def has_lone_surrogate(text: str) -> bool:
    """Does `text` hold a lone surrogate, which no UTF-8 text (so no JSON on a wire) holds?"""
    return not text.isascii() and _LONE_SURROGATE.search(text) is not None


def holds_lone_surrogate(data: Any) -> bool:
    """Does JSON data (dicts, lists and scalars, as a serializer makes them: no cycle) hold a
    string or key with a lone surrogate? The quick question; `value_problems` says where."""
    stack = [data]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if not item.isascii() and _LONE_SURROGATE.search(item) is not None:
                return True
        elif kind is dict:
            if any(type(key) is str and has_lone_surrogate(key) for key in item):
                return True
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return False


def value_problems(
    value: Any, max_depth: int | None = None, limit: int = MAX_PROBLEMS, *, text: bool = False
) -> list[dict[str, str]]:
    """Where `value` (decoded JSON, or what a handler returned) holds what strict JSON cannot
    carry - NaN, ±Infinity, an integer beyond a double's range, a container that holds itself
    - and, with `max_depth`, a container nested deeper; with `text`, a string or key with a
    lone surrogate: up to `limit` `{"path", "message"}` items. Walks with a stack, each item
    linked to its container's entry (a path is spelled out only for a problem), so neither
    depth nor size makes it more than one step per item."""
    problems: list[dict[str, str]] = []
    # (its container's entry, its key, its depth, the item); _LEAVE: a container's end
    stack: list[tuple[Any, Any, int, Any]] = [(None, None, 0, value)]
    inside: set[int] = set()  # the containers around the item walked: a cycle comes back
    while stack and len(problems) < limit:
        entry = stack.pop()
        up, _, depth, item = entry
        if up is _LEAVE:
            inside.discard(item)
            continue
        message = None
        kind = type(item)
        if kind is str or kind is bool or item is None:  # the usual leaves, first
            if text and kind is str and has_lone_surrogate(item):
                message = "must be text UTF-8 can carry (got a lone surrogate)"
        elif isinstance(item, float) and not math.isfinite(item):
            shown = "NaN" if math.isnan(item) else ("Infinity" if item > 0 else "-Infinity")
            message = f"must be a finite number (got {shown})"
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > MAX_NUMBER:
            message = "must be a number within ±1.8e308 (got a larger integer)"
        elif text and isinstance(item, str) and has_lone_surrogate(item):
            message = "must be text UTF-8 can carry (got a lone surrogate)"
        elif isinstance(item, dict | list | tuple | set | frozenset):
            if max_depth is not None and depth >= max_depth:
                message = f"nested deeper than {max_depth} levels"
            elif id(item) in inside:
                message = "must not hold itself (got a cycle)"
            elif (
                text
                and isinstance(item, dict)
                and any(isinstance(key, str) and has_lone_surrogate(key) for key in item)
            ):
                message = "must have keys UTF-8 can carry (got a lone surrogate)"
            else:
                inside.add(id(item))
                stack.append((_LEAVE, None, depth, id(item)))
                pairs = item.items() if isinstance(item, dict) else enumerate(item)
                stack.extend((entry, key, depth + 1, child) for key, child in pairs)
        if message is not None:
            problems.append({"path": pointer(_parts(entry)), "message": message})
    return sorted(problems, key=lambda p: (p["path"], p["message"]))


def _parts(entry: tuple[Any, Any, int, Any]) -> list[Any]:
    """The keys from the root to `entry`'s item (`value_problems`' links, followed up)."""
    parts: list[Any] = []
    while entry[0] is not None:
        parts.append(entry[1])
        entry = entry[0]
    return parts[::-1]
