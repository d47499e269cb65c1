"""Step 2, parse: the arguments as a dict, from a dict, a mapping, JSON text, or None.

Text that is not JSON, JSON cut short (the model hit its output limit) and JSON that is not an
object are a `VALIDATION_ERROR`: a partial call never runs; so is an object that repeats a name
(which value counts differs between parsers: a person shown the call in one could approve other
arguments than the handler gets). An integer longer than Python reads
(`sys.get_int_max_str_digits`, 4,300 digits by default) is read as one beyond a double's range,
which validation names at its field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolgen.runtime.result import ToolResult, validation_error
from toolgen.runtime.values import quote


def parse(tool: str, arguments: Any, trace_id: str) -> dict[str, Any] | ToolResult:
    """`arguments` as a dict, or a `VALIDATION_ERROR` saying why they are not one."""
    if arguments is None:
        return {}
    if isinstance(arguments, bytes | bytearray):
        try:
            arguments = arguments.decode("utf-8")
        except UnicodeDecodeError:
            return _problem(tool, trace_id, "arguments are not UTF-8 text")
    if isinstance(arguments, str):
        if not arguments.strip():  # some models send "" for a call without arguments
            return {}
        try:
            arguments = _loads(arguments)
        except json.JSONDecodeError as exc:
            # the text ended inside a value: a string never closed, or nothing where a value,
            # a comma or a bracket had to follow
            if exc.msg.startswith("Unterminated string") or exc.pos >= len(arguments.rstrip()):
                why = "arguments are truncated JSON (the text ends before the value does)"
            else:
                why = f"arguments are not valid JSON ({exc.msg} at character {exc.pos})"
            return _problem(tool, trace_id, why)
        except RecursionError:
            return _problem(tool, trace_id, "arguments are nested too deep")
        except _Repeated as exc:
            why = f"arguments repeat the name {quote(exc.name)} (names in an object are unique)"
            return _problem(tool, trace_id, why)
    if isinstance(arguments, Mapping):
        if not all(isinstance(key, str) for key in arguments):
            return _problem(tool, trace_id, "argument names must be strings")
        return dict(arguments)
    return _problem(tool, trace_id, f"arguments must be a JSON object, not {_kind(arguments)}")


#: Stands for an integer too long to read: beyond a double's range, as it is.
_BEYOND = 10**309


class _Repeated(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's names and values as a dict; `_Repeated` for a name given twice."""
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise _Repeated(name)
            seen.add(name)
    return found


def _loads(text: str) -> Any:
    try:
        return _DECODER.decode(text)
    except (json.JSONDecodeError, _Repeated):
        raise
    except ValueError:  # an integer too long to read: read again, keeping its place
        return _LONG_INTS.decode(text)


def _int_or_beyond(digits: str) -> int:
    try:
        return int(digits)
    except ValueError:
        return -_BEYOND if digits.startswith("-") else _BEYOND


def _problem(tool: str, trace_id: str, message: str) -> ToolResult:
    return validation_error(tool, trace_id, [{"path": "", "message": message}])


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    return "null" if value is None else type(value).__name__


# made once: a decoder with hooks costs what `json.loads` does; `json.loads` given them makes
# a new one each time
_DECODER = json.JSONDecoder(object_pairs_hook=_unique)
_LONG_INTS = json.JSONDecoder(object_pairs_hook=_unique, parse_int=_int_or_beyond)
