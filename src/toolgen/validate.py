"""JSON Schema validation (2020-12) of examples, with jsonschema imported only when needed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SchemaError:
    pointer: str  # JSON pointer into the instance
    keyword: str  # the schema keyword that failed, e.g. "required", "maximum"
    message: str

    def __str__(self) -> str:
        return f"{self.pointer}: {self.message}"


def schema_errors(schema: dict[str, Any], instance: Any) -> list[SchemaError]:
    """Each way `instance` fails `schema`, located by JSON pointer; [] if valid."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema)
    found = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path)):
        pointer = "/" + "/".join(str(p) for p in error.absolute_path)
        found.append(SchemaError(pointer, str(error.validator), error.message))
    return found


def schema_problems(schema: Any) -> list[SchemaError]:
    """Each way `schema` is no JSON Schema (2020-12, checked against its metaschema)."""
    from jsonschema import Draft202012Validator

    return schema_errors(Draft202012Validator.META_SCHEMA, schema)
