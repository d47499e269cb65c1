"""Data a server loads as it starts: `json.load(f)`, `json.loads(text)`, `yaml.safe_load(...)`
of a file of the project (`files`) or of a known string, as the values they give.

YAML is read with PyYAML's safe loader (the C one when PyYAML has it): plain data only,
whichever loader the code names, so a document cannot make toolgen build objects. A document
that does not load (or that a server loading it would reject) gives `Unknown`. What a
document holds is bounded (`MAX_DATA_VALUES`, `MAX_DATA_DEPTH`): YAML's aliases let a small
file stand for a huge tree.
"""

from __future__ import annotations

import ast
import datetime
import json
import math
from typing import Any

from toolgen.read.registration.values import Const, Mapping, Opened, Seq, Unknown, Value

#: The most values a loaded document may hold, and how deep it may nest.
MAX_DATA_VALUES = 2_000_000
MAX_DATA_DEPTH = 200
#: What loads JSON, and YAML, from a file or a string.
JSON_LOADERS = frozenset({"json.load", "json.loads", "orjson.loads", "ujson.load", "ujson.loads"})
YAML_LOADERS = frozenset({"yaml.safe_load", "yaml.load", "yaml.full_load", "yaml.unsafe_load"})


class TooLarge(Exception):
    pass


def load(path: str, args: list[Value], node: ast.AST) -> Value | None:
    """The value of calling the loader `path` with `args`; None: `path` is no loader."""
    if path not in JSON_LOADERS and path not in YAML_LOADERS:
        return None
    source = args[0] if args else None
    if isinstance(source, Opened):
        source = source.contents()
    if not (isinstance(source, Const) and isinstance(source.value, str | bytes)):
        return None
    try:
        data = _yaml(source.value) if path in YAML_LOADERS else json.loads(source.value)
        return value_of(data)
    except (ValueError, TooLarge, RecursionError) as exc:
        return Unknown(f"`{path}` cannot load it ({type(exc).__name__})", node)
    except Exception as exc:  # PyYAML's own errors (YAMLError, its constructors')
        return Unknown(f"`{path}` cannot load it ({type(exc).__name__})", node)


def _yaml(text: str | bytes) -> Any:
    import yaml  # only where a server reads YAML

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    # PyYAML builds the whole node graph before a value is made: a 30 MB flow list is 15
    # million nodes (gigabytes, a minute). Its events are counted first, one at a time, and
    # a document of more than the values it may hold (an alias is one) is not loaded.
    for count, _ in enumerate(yaml.parse(text, Loader=loader)):
        if count > MAX_DATA_VALUES * 2:  # a value is at most a start and an end event
            raise TooLarge
    return yaml.load(text, Loader=loader)


def value_of(data: Any) -> Value:
    """`data` (what a JSON or YAML loader gives) as the interpreter's values; `TooLarge`
    past the bounds."""
    count = 0

    def convert(item: Any, depth: int) -> Value:
        nonlocal count
        count += 1
        if count > MAX_DATA_VALUES or depth > MAX_DATA_DEPTH:
            raise TooLarge
        if isinstance(item, dict):
            entries: dict[object, tuple[Value, Value]] = {}
            for key, inner in item.items():
                if not isinstance(key, str | int | float | bool) and key is not None:
                    raise ValueError("a key that is no constant")
                entries[key] = (Const(key), convert(inner, depth + 1))
            return Mapping(entries)
        if isinstance(item, list):
            return Seq([convert(inner, depth + 1) for inner in item])
        if isinstance(item, float) and not math.isfinite(item):
            return Const(item)
        if item is None or isinstance(item, str | int | float | bool):
            return Const(item)
        if isinstance(item, datetime.date | datetime.time):
            return Const(item)  # a YAML date, as the server has it
        raise ValueError(f"a {type(item).__name__}")

    return convert(data, 0)
