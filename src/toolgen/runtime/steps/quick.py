"""The compiled check of step 3, and of what a handler returns: proofs that skip jsonschema.

`quick_check(schema)` compiles an input schema into a predicate that answers True only when
the arguments are provably valid: safe to carry (every string without a lone surrogate, every
number finite and within a double's range, nesting within `MAX_ARGUMENT_DEPTH`, so that
`value_problems` finds nothing) and accepted by the schema. Flat arguments of plain values
take a check of their own, a loop over the properties; any other object schema takes the
proof of results below with `format` and `pattern` asserted as the input validator asserts
them (nested objects, arrays, `$ref`, unions, enums, bounds, lengths, `uniqueItems` of
strings). Whatever it does not prove - a keyword it does not know (`multipleOf`, `not`,
`oneOf` ...), an integral float for an integer, an enum of other values - answers False,
which only means "not proven": the full validation (`value_problems` and jsonschema) then
decides and words the problems. A schema it cannot read at all, or one with a `$ref` it does
not resolve itself, gets no quick check (None). tests/runtime/test_validator_differential.py
holds it to jsonschema's decision over generated schemas and values.

`quick_value(schema)` does the same for what a handler returns, as the JSON data sent: one walk
that proves the data both safe to write and accepted by the return schema, nested or not
(objects, arrays, `$ref`, unions ...), so that neither jsonschema nor the walks that word a
problem run for a result it proves.
"""

from __future__ import annotations

import math
import re
import typing
from collections.abc import Callable, Mapping
from typing import Any

from toolgen.runtime.values import MAX_NUMBER, surrogate
from toolgen.schema_patterns import FORMATS, UncheckablePattern, matches

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


def quick_value(schema: Any) -> Check | None:
    """The quick check of a value a tool returns, as JSON data, against its return `schema`
    (`_proof`): True only when the data is both safe to write (what `value_problems`
    looks for: no NaN or infinity, no integer beyond a double's range, no lone surrogate in a
    string or a name, not nested deeper than `PROVEN_DEPTH`) and accepted by the schema, in
    one walk; None for a schema that is no object, or none it can prove a value against."""
    return _proof(schema, results=True)


# -- results: one walk that proves JSON data safe and accepted ------------------------------
#
# Why a proof and not trust: a value pydantic serialized from the declared return type is
# not always one its schema accepts - a model made with `model_construct()` lacks required
# fields, a field assigned after validation holds any value (serialized by inference), a
# constrained type is never checked on the way out, a descriptor may be edited after the
# build - so the schema is still checked, by this walk, which implements the keywords it
# knows as jsonschema does and answers False ("not proven": jsonschema and the walks that
# word the problem decide) for anything else: a keyword it does not know, a value of a type
# it does not expect.

#: Levels of nesting a result is proven within; deeper data is left to the full checks (the
#: walk recurses, a level for each).
PROVEN_DEPTH = 64

#: One schema's proof: (data, its depth) -> proven safe and accepted.
Proof = Callable[[Any, int], bool]

#: Keywords of a schema the run time's return validator does not assert: `format` (it is
#: built without a format checker, `Toolbox.returns`), a discriminator (OpenAPI's).
_RESULT_ANNOTATIONS = _ANNOTATIONS | {"format", "discriminator"}

#: Keywords that say how an object's or an array's items are checked (walked by the node).
_OBJECT = ("properties", "required", "additionalProperties")
_ARRAY = ("items", "prefixItems", "minItems", "maxItems")


def _no(value: Any, depth: int) -> bool:
    return False


#: A lone surrogate, or the replacement character that pydantic's JSON mode writes for one in
#: a `str`-typed name (where the walk of the data would not see it): either is left to the
#: full checks, which look at the value as the handler made it.
_DOUBTFUL = re.compile("[\ud800-\udfff\ufffd]")


def _text(value: str) -> bool:
    return value.isascii() or _DOUBTFUL.search(value) is None


def _safe_scalar(value: Any) -> bool:
    """A JSON scalar strict UTF-8 JSON carries (`plain`, for the exact types JSON data has)."""
    kind = type(value)
    if kind is str:
        return _text(value)
    if kind is bool or value is None:
        return True
    if kind is int:
        return bool(-MAX_NUMBER <= value <= MAX_NUMBER)
    if kind is float:
        return math.isfinite(value)
    return False


def _name(key: Any) -> bool:
    return type(key) is str and _text(key)


#: `_ALONE`, a string proven only without a doubtful character too.
_RESULT_ALONE: dict[str, Check] = {
    **_ALONE,
    "string": lambda v: type(v) is str and _text(v),
}


def _safe(value: Any, depth: int) -> bool:
    """JSON data (dicts, lists, scalars) that strict UTF-8 JSON carries, within the depth."""
    kind = type(value)
    if kind is dict:
        if depth >= PROVEN_DEPTH:
            return False
        return all(_name(k) and _safe(v, depth + 1) for k, v in value.items())
    if kind is list:
        if depth >= PROVEN_DEPTH:
            return False
        return all(_safe(v, depth + 1) for v in value)
    return _safe_scalar(value)


def _typed(names: Any) -> Check | None:
    """`type`: the exact Python types of JSON data. An integral float, which jsonschema takes
    as an integer, is not proven one."""
    listed = [names] if isinstance(names, str) else names
    if not isinstance(listed, list) or not listed:
        return None
    kinds: set[type] = set()
    for name in listed:
        if name == "object":
            kinds.add(dict)
        elif name == "array":
            kinds.add(list)
        elif isinstance(name, str) and name in _TYPES:
            kinds.update(_TYPES[name])
        else:
            return None
    frozen = frozenset(kinds)
    return lambda v: type(v) in frozen


def _member(values: Any) -> Check | None:
    """`enum`: a string, None or a boolean among the values (matched by type: jsonschema
    tells 1 and True apart), a number equal to a number among them; other values unproven."""
    if not isinstance(values, list):
        return None
    strings = frozenset(e for e in values if type(e) is str)
    numbers = [e for e in values if type(e) is int or type(e) is float]
    others = [e for e in values if e is None or type(e) is bool]

    def member(v: Any) -> bool:
        kind = type(v)
        if kind is str:
            return v in strings
        if kind is int or kind is float:
            return any(e == v for e in numbers)
        return any(e is v for e in others)

    return member


def _unique(flag: Any) -> Check | None:
    """`uniqueItems`: an array of distinct strings (jsonschema's equality of other items,
    where 1 and 1.0 are one value and 1 and True are not, is left to it)."""
    if flag is False:
        return lambda v: True
    if flag is not True:
        return None
    return lambda v: (
        type(v) is not list or (all(type(item) is str for item in v) and len(set(v)) == len(v))
    )


def _pattern(value: Any) -> Check | None:
    """`pattern`, matched as the run time's validator matches it (`schema_patterns`). A
    schema with one that cannot be matched so gets no proof (`_raises_somewhere`)."""
    if not isinstance(value, str):
        return None

    def match(v: Any) -> bool:  # the pattern compiles (`_raises_somewhere`)
        return type(v) is not str or matches(value, v)

    return match


def _format(value: Any) -> Check | None:
    """`format`, checked by the very checker the input validator is built with."""
    if not isinstance(value, str):
        return None

    def conforms(v: Any) -> bool:
        try:
            return FORMATS.conforms(v, value)
        except Exception:  # a check that fails unforeseen proves nothing; jsonschema decides
            return False

    return conforms


class _Results:
    """Compiles one schema (its `$defs` at the root) into a `Proof`: of a return value
    (`results=True`: `format` is no assertion there, `Toolbox.returns`) or of a call's
    arguments (`format` and `pattern` asserted, as `steps.validate.input_validator`)."""

    def __init__(self, root: Mapping[str, Any], results: bool = True) -> None:
        defs = root.get("$defs", {})
        self.defs: Mapping[str, Any] = defs if isinstance(defs, Mapping) else {}
        self.refs: dict[str, list[Proof]] = {}  # a def's proof, filled once compiled
        self.annotations = _RESULT_ANNOTATIONS if results else _ARGUMENT_ANNOTATIONS
        self.asserted = _ASSERTED if results else _ARGUMENT_ASSERTED

    def ref(self, ref: Any) -> Proof:
        if not _resolved(ref, self.defs):  # the root, `#` (`_raises_somewhere`: no other)
            return _no
        name = ref.removeprefix("#/$defs/")
        holder = self.refs.get(name)
        if holder is None:
            holder = self.refs[name] = [_no]  # a recursive reference finds it filled in later
            holder[0] = self.node(self.defs[name], root=False)
        return lambda v, d: holder[0](v, d)

    def node(self, schema: Any, root: bool) -> Proof:
        if schema is True:
            return _safe
        if not isinstance(schema, Mapping):
            return _no
        alone = _lone_type(schema)
        if alone is not None and alone in _RESULT_ALONE:  # the usual leaf: one call
            leaf = _RESULT_ALONE[alone]
            return lambda v, d: leaf(v)
        scalar: list[Check] = []  # checks of the value alone
        whole: list[Proof] = []  # proofs of the value and all it holds
        for keyword, value in schema.items():
            if keyword in self.annotations or keyword in _OBJECT or keyword in _ARRAY:
                continue
            if keyword == "$defs" and root:
                continue
            if keyword == "$ref":
                whole.append(self.ref(value))
            elif keyword in ("anyOf", "allOf"):
                if not isinstance(value, list) or not value:
                    return _no
                branches = [self.node(branch, root=False) for branch in value]
                whole.append(_any(branches) if keyword == "anyOf" else _all(branches))
            elif keyword == "const":
                found = _member([value])
                assert found is not None
                scalar.append(found)
            else:
                compiled = self.asserted.get(keyword)
                known = compiled(value) if compiled is not None else _keyword(keyword, value)
                if known is None:
                    return _no
                scalar.append(known)
        own = any(k in schema for k in _OBJECT + _ARRAY)
        if whole and not own:  # what they prove holds all the value holds: no walk of its own
            walk = None
        else:
            walk = self.walker(schema)
            if walk is None:
                return _no
        return _joined(scalar, whole, walk)

    def walker(self, schema: Mapping[str, Any]) -> Proof | None:
        """The proof of the value's items: an object's by `properties`, `required` and
        `additionalProperties`, an array's by `prefixItems`, `items` and their counts, and
        a scalar's safety."""
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        extra = schema.get("additionalProperties", True)
        if not isinstance(properties, Mapping) or not isinstance(required, list):
            return None
        if not all(type(n) is str for n in required):
            return None
        named = {n: self.node(sub, root=False) for n, sub in properties.items()}
        others = None if extra is False else _safe if extra is True else self.node(extra, False)
        prefix_schemas = schema.get("prefixItems", [])
        items = schema.get("items", True)
        if not isinstance(prefix_schemas, list):
            return None
        prefix = [self.node(sub, root=False) for sub in prefix_schemas]
        rest = None if items is False else _safe if items is True else self.node(items, False)
        least, most = schema.get("minItems", 0), schema.get("maxItems")
        if type(least) is not int or (most is not None and type(most) is not int):
            return None

        def walk(v: Any, d: int) -> bool:
            kind = type(v)
            if kind is dict:
                if d >= PROVEN_DEPTH:
                    return False
                for n in required:
                    if n not in v:
                        return False
                for key, item in v.items():
                    if not _name(key):
                        return False
                    proof = named.get(key, others)
                    if proof is None or not proof(item, d + 1):
                        return False
                return True
            if kind is list:
                if d >= PROVEN_DEPTH or len(v) < least or (most is not None and len(v) > most):
                    return False
                for i, item in enumerate(v):
                    proof = prefix[i] if i < len(prefix) else rest
                    if proof is None or not proof(item, d + 1):
                        return False
                return True
            return _safe_scalar(v)

        return walk


#: The keywords a proof compiles its own way (the others as the quick check's `_keyword`).
_ASSERTED: dict[str, Callable[[Any], Check | None]] = {
    "type": _typed,
    "enum": _member,
    "uniqueItems": _unique,
}
#: A call's arguments: `format` and `pattern` are checked too.
_ARGUMENT_ASSERTED = {**_ASSERTED, "format": _format, "pattern": _pattern}
#: Keywords jsonschema takes as annotations of arguments (a discriminator is OpenAPI's).
_ARGUMENT_ANNOTATIONS = _ANNOTATIONS | {"discriminator"}


def _any(branches: list[Proof]) -> Proof:
    return lambda v, d: any(b(v, d) for b in branches)


def _all(branches: list[Proof]) -> Proof:
    return lambda v, d: all(b(v, d) for b in branches)


def _joined(scalar: list[Check], whole: list[Proof], walk: Proof | None) -> Proof:
    proofs = [*whole, walk] if walk is not None else whole
    if len(proofs) == 1:  # the usual node: a few checks of its own, then one walk
        proof = proofs[0]
        if not scalar:
            return proof
        if len(scalar) == 1:
            check = scalar[0]
            return lambda v, d: check(v) and proof(v, d)
        if len(scalar) == 2:
            first, second = scalar
            return lambda v, d: first(v) and second(v) and proof(v, d)
    return lambda v, d: all(c(v) for c in scalar) and all(p(v, d) for p in proofs)


def _raises_somewhere(schema: Any) -> bool:
    """Does `schema` hold a pattern the run time's validator cannot match
    (`schema_patterns.UncheckablePattern`), `unevaluatedProperties` beside
    `patternProperties`, or a `$ref` other than `#` and a name of its `$defs` (which
    jsonschema may not resolve)? Its validation may raise wherever a value reaches one, in a
    branch of a union too, whatever the other branches say: no value of it is proven."""
    found_defs = schema.get("$defs", {}) if isinstance(schema, Mapping) else {}
    defs = found_defs if isinstance(found_defs, Mapping) else {}
    stack: list[Any] = [schema]
    keys: set[str] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            keys.update(k for k in item if isinstance(k, str))
            if "$ref" in item and item["$ref"] != "#" and not _resolved(item["$ref"], defs):
                return True
            if "$id" in item or "$dynamicRef" in item:  # a reference resolved elsewhere
                return True
            patterns = [item.get("pattern")]
            found = item.get("patternProperties")
            if isinstance(found, Mapping):
                patterns.extend(found)
            for pattern in patterns:
                if isinstance(pattern, str) and not _matchable(pattern):
                    return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return "patternProperties" in keys and "unevaluatedProperties" in keys


def _resolved(ref: Any, defs: Mapping[str, Any]) -> bool:
    """Is `ref` a name of the root's `$defs` that needs no escaping (no `/`, `~`, `%`)?"""
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return False
    name = ref.removeprefix("#/$defs/")
    return not any(c in name for c in "/~%") and name in defs


def _matchable(pattern: str) -> bool:
    try:
        matches(pattern, "")
    except UncheckablePattern:
        return False
    return True


def _proof(schema: Any, results: bool) -> Check | None:
    """The proof of a tool's result (`quick_value`), or with `results=False` of a call's
    arguments (`quick_check`); None for a schema that is no object or that no value could be
    proven against."""
    if not isinstance(schema, Mapping):
        return None
    if _raises_somewhere(schema):
        return None
    alone = _lone_type(schema)
    if results and alone is not None and alone in _RESULT_ALONE:
        return _RESULT_ALONE[alone]  # a scalar's check: one call, nothing to recurse into
    proof = _Results(schema, results).node(schema, root=True)
    if proof is _no:  # a keyword it does not know at the root: never proven, never tried
        return None

    def proven(value: Any) -> bool:
        try:
            return proof(value, 0)
        except RecursionError:  # a deep stack already: not proven here
            return False

    return proven


def quick_check(schema: Any) -> Callable[[dict[str, Any]], bool] | None:
    """The quick check of an input schema (see the module's text), or None when the schema
    is no object schema it can read. A flat one of plain values gets the check below; any
    other the proof of results, with `format` and `pattern` asserted (nested objects,
    arrays, `$ref`, unions ...)."""
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        return None
    if not set(schema) <= _TOP or schema.get("additionalProperties", True) not in (True, False):
        return _proof(schema, results=False)
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        return None
    if not all(isinstance(name, str) for name in required):
        return None
    if any(type(name) is not str or surrogate(name) for name in properties):
        # a name no UTF-8 text holds (a hand-edited descriptor's): the proof checks names
        return _proof(schema, results=False)
    found = {name: _property(sub) for name, sub in properties.items()}
    if None in found.values():  # a nested value, a `$ref`, a `format` ...: the proof
        return _proof(schema, results=False)
    checks = typing.cast(dict[str, Check], found)
    kinds = {name: _EXACT.get(_lone_type(sub) or "") for name, sub in properties.items()}
    if None not in kinds.values():  # only strings, integers and booleans: no call per value
        # every property required (the usual case): as many arguments, each a property's,
        # are all of them
        count = len(properties) if set(required) == set(properties) else None

        def typed(arguments: dict[str, Any]) -> bool:
            if count is not None:
                if len(arguments) != count:
                    return False
            else:
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
