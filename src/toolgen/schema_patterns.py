"""JSON Schema validation whose patterns run in linear time: the compiler's check of a
repository's examples and the runtime's check of a model's arguments and a handler's result.

jsonschema matches `pattern` and `patternProperties` with Python's `re`, which backtracks:
`^(a+)+$` against forty a's and a `!` takes days, holding the GIL all along (no other thread,
no event loop runs meanwhile, so no timeout can end it). Here every pattern a schema applies to
a value is matched by pydantic-core's engine (Rust's `regex` crate: linear in the text, no
backtracking), the engine pydantic itself checks a handler's `Field(pattern=...)` with, so the
two checks agree: a search (not anchored), `$` the end of the text (`re` also matched before a
final newline), `\\d` and `\\w` Unicode as in `re`, ECMA-262's `\\uXXXX` escapes.

The runtime keeps each pattern compiled; the compiler, checking a repository's examples,
compiles them for each match and keeps none (a compiled pattern may take megabytes, and a
repository may hold any number). A pattern that engine cannot compile (look-around, a
back-reference, a pattern that is no pattern, one too large) proves nothing about a value:
matching it raises `UncheckablePattern`, and the caller decides (the runtime answers INTERNAL,
the compiler reports a problem). So does `unevaluatedProperties` in a schema that also has
`patternProperties`, as jsonschema would match those with `re` to find the evaluated
properties (neither toolgen nor pydantic writes that).
"""

from __future__ import annotations

import functools
import re
import typing
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import ValidationError
from pydantic_core import CoreConfig, SchemaError, SchemaValidator, core_schema

from toolgen.quoting import cut

#: Patterns the runtime keeps compiled (a catalog's patterns are few, and the deployer's own).
_KEPT = 1024


class UncheckablePattern(Exception):
    """A schema's pattern that the linear engine cannot compile: no value is proven to match
    it. `pattern` is the pattern, `why` the engine's reason."""

    def __init__(self, pattern: str, why: str) -> None:
        super().__init__(f"the pattern {pattern!r}: {why}")
        self.pattern, self.why = pattern, why


#: A pattern's search, or why it cannot be compiled (a reason, not the exception: one raised
#: again and again would keep each raise's traceback).
Search = Callable[[str], bool] | str


def _compile(pattern: str) -> Search:
    config = CoreConfig(regex_engine="rust-regex")
    try:
        checker = SchemaValidator(core_schema.str_schema(pattern=pattern, strict=True), config)
    except SchemaError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        return cut(lines[-1] if lines else "not a pattern")
    except Exception as exc:  # an odd pattern (a lone surrogate, say) the binding refuses
        return cut(f"{type(exc).__name__}: {exc}")
    return checker.isinstance_python


_kept = functools.lru_cache(maxsize=_KEPT)(_compile)


def matches(pattern: str, text: str, *, keep: bool = True) -> bool:
    """Does `pattern` match somewhere in `text`? `UncheckablePattern` when it cannot tell.
    `keep`: keep the pattern compiled for the next match (a compiled pattern may take some
    megabytes, the engine's limit being 10 MB: a repository's own, any number of them, are
    compiled for each match and dropped after it)."""
    found = (_kept if keep else _compile)(pattern)
    if isinstance(found, str):
        raise UncheckablePattern(pattern, found)
    return found(text)


# -- the keywords that run patterns, as jsonschema's but for the engine --------------------
# jsonschema calls them (validator, keyword's value, instance, schema) and takes their errors.

Keyword = Callable[..., Iterator[ValidationError]]


def _keywords(keep: bool) -> dict[str, Keyword]:
    """`pattern`, `patternProperties` and `additionalProperties` (which reads the first),
    matching as `matches(..., keep=keep)`."""

    def match(pattern: str, text: str) -> bool:
        return matches(pattern, text, keep=keep)

    def pattern(
        validator: Draft202012Validator, pattern: str, instance: Any, schema: Mapping[str, Any]
    ) -> Iterator[ValidationError]:
        if validator.is_type(instance, "string") and not match(pattern, instance):
            yield ValidationError(f"{instance!r} does not match {pattern!r}")

    def pattern_properties(
        validator: Draft202012Validator,
        patterns: Mapping[str, Any],
        instance: Any,
        schema: Mapping[str, Any],
    ) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        for pattern, subschema in patterns.items():
            for name, value in instance.items():
                if isinstance(name, str) and match(pattern, name):
                    yield from validator.descend(value, subschema, path=name, schema_path=pattern)

    def additional_properties(
        validator: Draft202012Validator, allowed: Any, instance: Any, schema: Mapping[str, Any]
    ) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        properties = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        extras = {
            name
            for name in instance
            if name not in properties
            and not (isinstance(name, str) and any(match(p, name) for p in patterns))
        }
        if validator.is_type(allowed, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], allowed, path=extra)
        elif not allowed and extras:
            listed = ", ".join(repr(each) for each in sorted(extras, key=str))
            if patterns:
                verb = "does" if len(extras) == 1 else "do"
                regexes = ", ".join(repr(each) for each in sorted(patterns))
                yield ValidationError(f"{listed} {verb} not match any of the regexes: {regexes}")
            else:
                verb = "was" if len(extras) == 1 else "were"
                yield ValidationError(
                    f"Additional properties are not allowed ({listed} {verb} unexpected)"
                )

    return {
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "additionalProperties": additional_properties,
    }


#: jsonschema's own `unevaluatedProperties`.
_UNEVALUATED = Draft202012Validator.VALIDATORS["unevaluatedProperties"]


def _unevaluated_beside_patterns(
    validator: Draft202012Validator, unevaluated: Any, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, "object") and instance:
        raise UncheckablePattern(
            "patternProperties", "unevaluatedProperties beside it would be matched with `re`"
        )
    yield from _UNEVALUATED(validator, unevaluated, instance, schema)


def _extended(keywords: Mapping[str, Any]) -> type[Draft202012Validator]:
    """jsonschema's 2020-12 validator with `keywords` its own: a class of its making that
    answers all that one does (not a subclass, which jsonschema warns against)."""
    made = validators.extend(Draft202012Validator, keywords)  # type: ignore[no-untyped-call]
    return typing.cast("type[Draft202012Validator]", made)


#: The classes by (keep, whether the schema has `patternProperties`).
_CLASSES = {
    (keep, beside): _extended(
        {**_keywords(keep), "unevaluatedProperties": _unevaluated_beside_patterns}
        if beside
        else _keywords(keep)
    )
    for keep in (True, False)
    for beside in (True, False)
}


#: Longer values are not left in `re`'s cache of compiled patterns, which keeps 512 whatever
#: their size: a client's could hold a megabyte each.
_CACHED_REGEX = 1000


def _is_regex(instance: object) -> bool:
    """jsonschema's `format: regex` (a client's value, compiled with `re`: compiling is linear),
    and a pattern nested too deep for `re` to read is no regex either (jsonschema let its
    RecursionError out)."""
    if not isinstance(instance, str):
        return True
    re.compile(instance)
    if len(instance) > _CACHED_REGEX:
        re.purge()
    return True


def _formats() -> FormatChecker:
    checker = FormatChecker(())
    checker.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)
    checker.checks("regex", raises=(re.error, RecursionError, OverflowError))(_is_regex)
    return checker


#: The 2020-12 format checks, `regex` as `_is_regex`.
FORMATS = _formats()


#: The types of JSON's scalars.
_LEAVES = frozenset({str, int, float, bool, type(None)})


def _has_pattern_properties(schema: Any) -> bool:
    """Does `patternProperties` appear anywhere in `schema` (a key of any of its objects)?"""
    stack = [schema]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _LEAVES:  # most of a schema: told apart before the slower checks
            continue
        if kind is dict or isinstance(item, Mapping):
            if "patternProperties" in item:
                return True
            stack.extend(item.values())
        elif kind is list or isinstance(item, list):
            stack.extend(item)
    return False


def validator_for(
    schema: Mapping[str, Any], *, formats: bool = False, keep: bool = True
) -> Draft202012Validator:
    """jsonschema's 2020-12 validator of `schema` with its patterns matched as `matches` does
    (`UncheckablePattern` out of `iter_errors`, `validate` and `is_valid` for one it cannot
    read; `keep` as there); `formats` checks `format` too (`FORMATS`)."""
    cls = _CLASSES[keep, _has_pattern_properties(schema)]
    return cls(schema, format_checker=FORMATS if formats else None)
