"""A quick check of the common case of step 3: flat arguments of plain values.

`quick_check(schema)` compiles an object schema into a predicate that answers True only when
the arguments are provably valid: every value a str (without a lone surrogate), bool, None,
finite float or int within a double's range (so `value_problems` finds nothing) that meets its
property's `type`, string `enum`, length and bound keywords, every required property present
and no property the schema does not name. Anything else - a nested value, a keyword it does
not know (`format`, `pattern`, `$ref` ...), an enum of other values - answers False, which
only means "not proven": the full validation (`value_problems` and jsonschema) then decides
and words the problems. A schema it cannot read at all gets no quick check (None).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from toolgen.runtime.values import MAX_NUMBER, surrogate

#: A property's compiled keywords: True when the value is provably valid.
Check = Callable[[Any], bool]

#: Keywords that say nothing about validity.
_ANNOTATIONS = frozenset(
    [
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
    ]
)
#: Keywords of the object schema itself that the check reads or may ignore (`$defs` only
#: matter through a `$ref`, which a property's check does not know).
_TOP = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "$defs"}
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_LENGTHS = ("minLength", "maxLength")
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),  # an integral float is one too, but is left to jsonschema
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}
#: Every type name; objects and arrays are never proven here.
_TYPE_NAMES = frozenset(_TYPES) | {"object", "array"}


def plain(value: Any) -> bool:
    """A value `value_problems` finds nothing in, of an exact JSON scalar type."""
    kind = type(value)
    if kind is str:
        return not surrogate(value)
    if kind is bool or value is None:
        return True
    if kind is int:
        return bool(abs(value) <= MAX_NUMBER)
    if kind is float:
        return math.isfinite(value)
    return False


def _is_number(value: Any) -> bool:
    return type(value) is int or type(value) is float


def _property(schema: Any) -> Check | None:
    """The check of one property's schema, or None when it uses a keyword not known here."""
    if not isinstance(schema, Mapping):
        return None
    alone = _lone_type(schema)
    if alone is not None and alone in _ALONE:
        return _ALONE[alone]  # the usual case, a type and annotations: one call per value
    checks: list[Check] = []
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        found = _keyword(keyword, value)
        if found is None:
            return None
        checks.append(found)
    if len(checks) == 1:
        only = checks[0]
        return lambda v: plain(v) and only(v)
    return lambda v: plain(v) and all(check(v) for check in checks)


def _keyword(keyword: str, value: Any) -> Check | None:
    """The check of one keyword of a property's schema, None for one not known here."""
    if keyword == "type":
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names:
            return None
        if not all(isinstance(n, str) and n in _TYPE_NAMES for n in names):
            return None
        return _of_type(tuple(k for n in names for k in _TYPES.get(n, ())))
    if keyword == "enum":
        if not isinstance(value, list):
            return None
        # only a string is matched here: jsonschema tells 1, 1.0 and True apart its own way
        return _in(frozenset(e for e in value if isinstance(e, str)))
    if keyword in _LENGTHS:
        if type(value) is not int or value < 0:
            return None
        return _length(keyword, value)
    if keyword in _BOUNDS:
        return _bound(keyword, value) if _is_number(value) else None
    if keyword == "anyOf":
        if not isinstance(value, list) or not value:
            return None
        branches = [_property(branch) for branch in value]
        known = [b for b in branches if b is not None]
        if len(known) < len(branches):
            return None
        return lambda v: any(b(v) for b in known)
    return None


def _number(v: Any) -> bool:
    kind = type(v)
    if kind is int:
        return bool(-MAX_NUMBER <= v <= MAX_NUMBER)
    return kind is float and math.isfinite(v)


#: A lone `type` keyword's whole check: `plain(v) and _of_type(...)(v)` in one call.
_ALONE: dict[str, Check] = {
    "string": lambda v: type(v) is str and not surrogate(v),
    "integer": lambda v: type(v) is int and -MAX_NUMBER <= v <= MAX_NUMBER,
    "number": _number,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
}

#: The types whose lone check is `type(v) is` a Python type (and, for an int, a bound).
_EXACT = {"string": str, "integer": int, "boolean": bool}


def _lone_type(schema: Any) -> str | None:
    """The type name of a schema that says nothing but its `type` (annotations aside)."""
    if not isinstance(schema, Mapping):
        return None
    found = schema.get("type")
    keywords = [k for k in schema if k not in _ANNOTATIONS]
    return found if keywords == ["type"] and isinstance(found, str) else None


def _of_type(kinds: tuple[type, ...]) -> Check:
    return lambda v: type(v) in kinds


def _in(strings: frozenset[str]) -> Check:
    return lambda v: type(v) is str and v in strings


def _length(keyword: str, limit: int) -> Check:
    if keyword == "minLength":
        return lambda v: type(v) is not str or len(v) >= limit
    return lambda v: type(v) is not str or len(v) <= limit


def _bound(keyword: str, limit: float) -> Check:
    if keyword == "minimum":
        return lambda v: not _is_number(v) or v >= limit
    if keyword == "maximum":
        return lambda v: not _is_number(v) or v <= limit
    if keyword == "exclusiveMinimum":
        return lambda v: not _is_number(v) or v > limit
    return lambda v: not _is_number(v) or v < limit


def _unproven(value: Any) -> bool:
    return False


def quick_value(schema: Any) -> Check | None:
    """The quick check of one value against `schema` (a return schema, say): True only when
    the value is a plain scalar the schema provably accepts; None for a schema it cannot
    read."""
    return _property(schema)


def quick_check(schema: Any) -> Callable[[dict[str, Any]], bool] | None:
    """The quick check of an input schema (see the module's text), or None when the schema
    is not a flat object schema it can read."""
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        return None
    if not set(schema) <= _TOP or schema.get("additionalProperties", True) not in (True, False):
        return None
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        return None
    if not all(isinstance(name, str) for name in required):
        return None
    checks = {name: _property(sub) or _unproven for name, sub in properties.items()}
    kinds = {name: _EXACT.get(_lone_type(sub) or "") for name, sub in properties.items()}
    if None not in kinds.values():  # only strings, integers and booleans: no call per value

        def typed(arguments: dict[str, Any]) -> bool:
            for name in required:
                if name not in arguments:
                    return False
            for name, value in arguments.items():
                kind = type(value)
                if kinds.get(name) is not kind:
                    return False
                if kind is int and not -MAX_NUMBER <= value <= MAX_NUMBER:
                    return False
                if kind is str and not value.isascii() and surrogate(value):
                    return False
            return True

        return typed

    def check(arguments: dict[str, Any]) -> bool:
        for name in required:
            if name not in arguments:
                return False
        for name, value in arguments.items():
            found = checks.get(name)
            # a property the schema does not name is left to jsonschema and value_problems
            if found is None or not found(value):
                return False
        return True

    return check
