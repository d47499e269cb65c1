"""JSON Schema (2020-12) validation of values and of schemas, jsonschema imported only when used."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


@dataclass(frozen=True)
class SchemaError:
    pointer: str  # JSON pointer into the instance
    keyword: str  # the schema keyword that failed, e.g. "required", "maximum"
    message: str

    def __str__(self) -> str:
        return f"{self.pointer}: {self.message}"


@cache
def _validator_class() -> type[Validator]:
    """jsonschema's 2020-12 validator, imported on first use (most commands never validate)."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator


def is_valid(schema: dict[str, Any], instance: Any) -> bool:
    """Whether `instance` fits `schema`: `not schema_errors(schema, instance)`, stopping at the
    first error instead of collecting, locating and sorting them all."""
    return bool(_validator_class()(schema).is_valid(instance))


def schema_errors(schema: dict[str, Any], instance: Any) -> list[SchemaError]:
    """Each way `instance` fails `schema`, located by JSON pointer; [] if valid."""
    validator = _validator_class()(schema)
    found = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path)):
        pointer = "/" + "/".join(str(p) for p in error.absolute_path)
        found.append(SchemaError(pointer, str(error.validator), error.message))
    return found


def schema_problems(schema: Any) -> list[SchemaError]:
    """Each way `schema` is no JSON Schema (2020-12, checked against its metaschema)."""
    return schema_errors(_validator_class().META_SCHEMA, schema)
