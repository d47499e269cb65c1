"""JSON Schema validation (2020-12) of examples and payloads, with jsonschema imported lazily."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


def schema_errors(schema: dict[str, Any], instance: Any) -> list[str]:
    """Messages for each way `instance` fails `schema`, located by JSON pointer; [] if valid."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema)
    messages = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path)):
        pointer = "/" + "/".join(str(p) for p in error.absolute_path)
        messages.append(f"{pointer}: {error.message}")
    return messages


@lru_cache(maxsize=1)
def _metaschema_validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(Draft202012Validator.META_SCHEMA)


def metaschema_errors(schema: dict[str, Any]) -> list[str]:
    """Messages for each way `schema` is not a valid JSON Schema 2020-12 document."""
    return [e.message for e in _metaschema_validator().iter_errors(schema)]
