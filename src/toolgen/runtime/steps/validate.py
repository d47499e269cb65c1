"""Step 3, validate: the arguments against the tool's parameters (JSON Schema 2020-12).

Strict-mode nulls for optional parameters are dropped first (`drop_not_given`); then what
strict JSON cannot carry (a lone surrogate too, which no UTF-8 text holds: no store, log or
client could write it) and nesting deeper than `MAX_ARGUMENT_DEPTH` (`values.value_problems`:
schema validation would accept the one and recurse along the other); then the schema, with a
validator compiled once per tool (`input_validator`, its patterns matched in linear time by
`toolgen.schema_patterns`). Problems are a `VALIDATION_ERROR` with `fields: [{path, message}]`
(inside a union, the problems of the one branch of the value's type, where that is one);
a pattern that cannot be checked so is `INTERNAL` (the model cannot fix that), logged.
"""

from __future__ import annotations

import itertools
import logging
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pydantic
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaValidationError

from toolgen.quoting import cut
from toolgen.runtime.result import ToolResult, internal_error, validation_error
from toolgen.runtime.values import (
    MAX_ARGUMENT_DEPTH,
    MAX_PROBLEMS,
    MAX_SCHEMA_ERRORS,
    pointer,
    quote,
    value_problems,
)
from toolgen.schema_ops import accepts_null
from toolgen.schema_patterns import UncheckablePattern, validator_for

log = logging.getLogger("toolgen.runtime")

#: Longest message of a VALIDATION_ERROR problem (a schema's long enum, say).
MESSAGE_LIMIT = 500


def _schema_message(error: SchemaValidationError) -> str:
    """jsonschema's message, which quotes the failing value in full, with the value quoted
    short."""
    message = error.message
    if len(message) > MESSAGE_LIMIT:
        message = message.replace(repr(error.instance), quote(error.instance), 1)
    return cut(message, MESSAGE_LIMIT)


def _schema_problems(error: SchemaValidationError) -> list[dict[str, str]]:
    """One jsonschema error as `{"path", "message"}` items; errors about missing or unexpected
    properties point at the property, not at the object holding it."""
    where = list(error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        # one error per missing property; naming them all here is deduplicated by the caller
        required: list[str] = list(typing.cast(Iterable[str], error.validator_value))
        return [
            {"path": pointer([*where, name]), "message": "required property is missing"}
            for name in required
            if name not in instance
        ]
    fitting = _fitting_branch(error)
    if fitting is not None:  # as many as `argument_problems` takes of the whole
        return [p for sub in fitting[:MAX_SCHEMA_ERRORS] for p in _schema_problems(sub)]
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        known = set(error.schema.get("properties", {})) if isinstance(error.schema, dict) else set()
        extra = [name for name in instance if name not in known]
        if extra:
            return [
                {"path": pointer([*where, name]), "message": "unexpected property"}
                for name in extra[: MAX_PROBLEMS + 1]
            ]
    return [{"path": pointer(where), "message": _schema_message(error)}]


def _fitting_branch(error: SchemaValidationError) -> list[SchemaValidationError] | None:
    """The errors of the one branch of a failed union whose type the value has (`Address |
    None` given an object): what is wrong inside it, where it is (`/address/geo/alt`), says
    more than "not valid under any of the given schemas". None when no branch, or several,
    take the value's type."""
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        return None
    branches: dict[object, list[SchemaValidationError]] = {}
    for sub in error.context:
        branch = sub.relative_schema_path[0] if sub.relative_schema_path else None
        branches.setdefault(branch, []).append(sub)
    fitting = [
        subs
        for subs in branches.values()
        if not any(sub.validator == "type" and not sub.relative_path for sub in subs)
    ]
    return fitting[0] if len(fitting) == 1 else None


def drop_not_given(arguments: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """Strict-mode clients (OpenAI) must send every parameter, so an optional one arrives as
    null; where the parameter's own type has no null, null means "not given" (its strict
    description says so) and the argument is dropped, leaving the handler's default."""
    required = set(schema.get("required", []))
    properties = schema.get("properties", {})
    return {
        key: value
        for key, value in arguments.items()
        if not (value is None and _null_is_not_given(key, properties, required))
    }


def may_drop(schema: Mapping[str, Any]) -> bool:
    """Can `drop_not_given` drop anything from arguments for `schema`: has it an optional
    parameter whose type has no null?"""
    required = set(schema.get("required", []))
    properties = schema.get("properties", {})
    return any(_null_is_not_given(key, properties, required) for key in properties)


def _null_is_not_given(key: str, properties: Mapping[str, Any], required: set[str]) -> bool:
    """Does a null for `key` mean "not given": an optional parameter whose type has no null?"""
    return key in properties and key not in required and not accepts_null(properties[key])


def argument_problems(validator: Draft202012Validator, arguments: Any) -> list[dict[str, str]]:
    """The ways `arguments` break the input schema, as `{"path", "message"}`, sorted; the
    first `MAX_SCHEMA_ERRORS` of jsonschema's errors, so that a huge array of wrong items
    costs no more than a small one."""
    errors = itertools.islice(validator.iter_errors(arguments), MAX_SCHEMA_ERRORS)
    found = [p for error in errors for p in _schema_problems(error)]
    unique = {(p["path"], p["message"]): p for p in found}
    return [unique[key] for key in sorted(unique)]


def input_validator(schema: Mapping[str, Any]) -> Draft202012Validator:
    return validator_for(schema, formats=True)


def pydantic_problems(exc: pydantic.ValidationError) -> list[dict[str, str]]:
    """A pydantic argument error as `{"path", "message"}` items."""
    return [
        {"path": pointer(e["loc"]), "message": cut(e["msg"], MESSAGE_LIMIT)}
        for e in exc.errors(include_url=False, include_input=False)
    ]


def validate(
    tool: str,
    validator: Draft202012Validator,
    schema: Mapping[str, Any],
    arguments: dict[str, Any],
    trace_id: str,
    quick: Callable[[dict[str, Any]], bool] | None = None,
) -> dict[str, Any] | ToolResult:
    """The arguments to call with (strict-mode nulls dropped), or a `VALIDATION_ERROR`.

    `quick` (`steps.quick.quick_check` of the schema) may prove them valid first, cheaply;
    what it does not prove goes through the full validation, which words the problems."""
    arguments = drop_not_given(arguments, schema)
    if quick is not None and quick(arguments):
        return arguments
    try:
        problems = value_problems(arguments, MAX_ARGUMENT_DEPTH, text=True) or argument_problems(
            validator, arguments
        )
    except UncheckablePattern as exc:
        log.error("[trace %s] the arguments of %s cannot be checked: %s", trace_id, tool, exc)
        return internal_error(tool, trace_id, f"the arguments of {tool} cannot be checked here")
    if problems:
        return validation_error(tool, trace_id, problems)
    return arguments
