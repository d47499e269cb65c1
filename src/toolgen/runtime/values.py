"""Values from a client, checked and quoted: what strict JSON cannot carry, how deep
arguments may nest, and quoting a value short so a large input is never echoed at length;
text with a lone surrogate (which no UTF-8 text holds) found, and escaped where it is shown;
any value written as strict JSON that UTF-8 takes (`writable`, for the audit's events).

Moved here from `toolgen.serve_guard` so that the runtime (which must import without the MCP
SDK) checks arguments and results exactly as `toolgen serve` did.
"""

from __future__ import annotations

import math
import re
import reprlib
import sys
from collections.abc import Iterable, Mapping
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

#: A lone surrogate: a JSON escape may write one (`"\\ud800"`), no UTF-8 text can.
_SURROGATE = re.compile("[\ud800-\udfff]")

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


def surrogate(text: str) -> bool:
    """Does `text` hold a lone surrogate? (ASCII text is told at once.)"""
    return not text.isascii() and _SURROGATE.search(text) is not None


def escaped(text: str) -> str:
    """`text` with each lone surrogate written as its escape (`\\ud800`), so that any UTF-8
    writer can take it; other text as it is."""
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# -- values: arguments in, results out ------------------------------------------------------


def pointer(parts: Iterable[Any]) -> str:
    """A JSON pointer (RFC 6901) to the value at `parts`, cut short when a key is long, a lone
    surrogate in a key escaped."""
    return cut(
        escaped("".join("/" + _part(p).replace("~", "~0").replace("/", "~1") for p in parts))
    )


def _part(part: Any) -> str:
    """One step of a pointer: a name, an index (or a Python caller's odd key, quoted)."""
    if isinstance(part, str):
        return part
    try:
        return str(part)
    except ValueError:  # an integer too long for Python to print
        return quote(part)


#: Marks the end of a container's children in `value_problems`' walk.
_LEAVE: Any = object()


def holds_lone_surrogate(data: Any) -> bool:
    """Does JSON data (dicts, lists and scalars, as a serializer makes them: no cycle) hold a
    string or key with a lone surrogate? The quick question; `value_problems` says where."""
    stack = [data]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if surrogate(item):
                return True
        elif kind is dict:
            if any(type(key) is str and surrogate(key) for key in item):
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
    - and, with `max_depth`, a container nested deeper; with `text`, what JSON text cannot
    carry either: a lone surrogate in a string or a name, a name that is no string. Up to
    `limit` `{"path", "message"}` items. Walks with a stack, each item linked to its
    container's entry (a path is spelled out only for a problem), so neither depth nor size
    makes it more than one step per item."""
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
            if text and kind is str and surrogate(item):
                message = "must be Unicode text (got a lone surrogate)"
        elif isinstance(item, float) and not math.isfinite(item):
            shown = "NaN" if math.isnan(item) else ("Infinity" if item > 0 else "-Infinity")
            message = f"must be a finite number (got {shown})"
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > MAX_NUMBER:
            message = "must be a number within ±1.8e308 (got a larger integer)"
        elif isinstance(item, dict | list | tuple | set | frozenset):
            if max_depth is not None and depth >= max_depth:
                message = f"nested deeper than {max_depth} levels"
            elif id(item) in inside:
                message = "must not hold itself (got a cycle)"
            else:
                inside.add(id(item))
                stack.append((_LEAVE, None, depth, id(item)))
                pairs = item.items() if isinstance(item, dict) else enumerate(item)
                if text and isinstance(item, dict):
                    problems.extend(_name_problems(entry, item, limit - len(problems)))
                stack.extend((entry, key, depth + 1, child) for key, child in pairs)
        if message is not None:
            problems.append({"path": pointer(_parts(entry)), "message": message})
    return sorted(problems, key=lambda p: (p["path"], p["message"]))


def _name_problems(
    entry: tuple[Any, Any, int, Any], names: Iterable[Any], limit: int
) -> list[dict[str, str]]:
    """The names of the object of `entry` that JSON text cannot carry, up to `limit`."""
    found: list[dict[str, str]] = []
    parts: tuple[Any, ...] = ()  # spelled out at the first problem only
    named = True
    for name in names:
        if len(found) >= limit:
            break
        if isinstance(name, str) and not surrogate(name):
            continue
        if not found:
            parts = tuple(_parts(entry))
        if not isinstance(name, str):
            if named:  # said once per object
                found.append({"path": pointer(parts), "message": "names must be strings"})
            named = False
        else:
            message = "must be a Unicode name (got a lone surrogate)"
            found.append({"path": pointer((*parts, name)), "message": message})
    return found


# -- values written out whatever they hold (the audit's events) -----------------------------


def writable(value: Any, depth: int = 0) -> Any:
    """`value` as strict JSON that UTF-8 can write: a lone surrogate as its escape, NaN and
    ±Infinity as those words, an integer too long to print as a note of its size, any other
    object as its `str`, names cut (`name`), nesting past `MAX_ARGUMENT_DEPTH` as a note."""
    if isinstance(value, str):
        return escaped(str(value))
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):  # an IntEnum too, as json writes it
        return int(value) if value.bit_length() < _BITS else _long(int(value))
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if depth >= MAX_ARGUMENT_DEPTH and isinstance(value, Mapping | list | tuple | set | frozenset):
        return f"<nested deeper than {MAX_ARGUMENT_DEPTH} levels>"
    if isinstance(value, Mapping):
        written: dict[str, Any] = {}
        for key, item in value.items():
            shown = name(key)
            while shown in written:  # two names cut alike, or 3 and "3": both kept
                shown += "'"
            written[shown] = writable(item, depth + 1)
        return written
    if isinstance(value, list | tuple | set | frozenset):
        return [writable(item, depth + 1) for item in value]
    try:
        return escaped(str(value))  # what the sinks wrote of an object before
    except Exception:  # a str() that fails
        return f"<{type(value).__name__}>"


#: Integers shorter than this many bits are printed whole (well within the 4,300 digits
#: Python prints); a longer one is checked first.
_BITS = 4096


def _long(value: int) -> int | str:
    try:
        str(value)
    except ValueError:
        digits = int(value.bit_length() * math.log10(2)) + 1
        return f"<integer of about {digits:,} digits>"
    return value


def name(value: Any) -> str:
    """A name (a tool's, an argument's) as an event shows it: text, cut, escaped."""
    if type(value) is str and value.isascii() and len(value) <= QUOTE_LIMIT:
        return value  # the usual name, as it is
    text = value if isinstance(value, str) else quote(value)
    return escaped(cut(text))


def _parts(entry: tuple[Any, Any, int, Any]) -> list[Any]:
    """The keys from the root to `entry`'s item (`value_problems`' links, followed up)."""
    parts: list[Any] = []
    while entry[0] is not None:
        parts.append(entry[1])
        entry = entry[0]
    return parts[::-1]
