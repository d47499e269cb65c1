"""JSON Schema (2020-12) validation of values and of schemas, jsonschema imported only when used.

The values are a repository's own (its examples), and so are the schemas' patterns: they are
matched in linear time (`toolgen.schema_patterns`), so no repository can hold a build with a
backtracking one; a pattern that cannot be checked so is a problem of the value it meets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator


@dataclass(frozen=True)
class SchemaError:
    pointer: str  # JSON pointer into the instance
    keyword: str  # the schema keyword that failed, e.g. "required", "maximum"
    message: str

    def __str__(self) -> str:
        return f"{self.pointer}: {self.message}"


def _validator(schema: dict[str, Any]) -> Draft202012Validator:
    """jsonschema's 2020-12 validator of `schema`, imported on first use (most commands never
    validate), its patterns linear."""
    from toolgen.schema_patterns import validator_for

    # a repository's patterns are compiled for each match and kept by none: there may be any
    # number of them, each of megabytes
    return validator_for(schema, keep=False)


def is_valid(schema: dict[str, Any], instance: Any) -> bool:
    """Whether `instance` fits `schema`: `not schema_errors(schema, instance)`, stopping at the
    first error instead of collecting, locating and sorting them all."""
    from toolgen.schema_patterns import UncheckablePattern

    try:
        return bool(_validator(schema).is_valid(instance))
    except UncheckablePattern:
        return False


def schema_errors(schema: dict[str, Any], instance: Any) -> list[SchemaError]:
    """Each way `instance` fails `schema`, located by JSON pointer; [] if valid. A pattern
    that cannot be checked (`UncheckablePattern`) is the one error, at the root."""
    from toolgen.schema_patterns import UncheckablePattern

    validator = _validator(schema)
    try:
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    except UncheckablePattern as exc:
        return [SchemaError("/", "pattern", f"cannot be checked: {exc}")]
    found = []
    for error in errors:
        pointer = "/" + "/".join(str(p) for p in error.absolute_path)
        found.append(SchemaError(pointer, str(error.validator), error.message))
    return found


def schema_problems(schema: Any) -> list[SchemaError]:
    """Each way `schema` is no JSON Schema (2020-12, checked against its metaschema)."""
    from jsonschema import Draft202012Validator

    return schema_errors(Draft202012Validator.META_SCHEMA, schema)
