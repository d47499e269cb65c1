"""Red team of issue 28's quick check: it never proves arguments that the full validation
(`value_problems` and jsonschema) refuses."""

from __future__ import annotations

from typing import Any

import pytest

from toolgen.runtime.steps.quick import quick_check
from toolgen.runtime.steps.validate import argument_problems, input_validator
from toolgen.runtime.values import MAX_ARGUMENT_DEPTH, value_problems


def refused(schema: dict[str, Any], arguments: dict[str, Any]) -> list[dict[str, str]]:
    return value_problems(arguments, MAX_ARGUMENT_DEPTH, text=True) or argument_problems(
        input_validator(schema), arguments
    )


@pytest.mark.parametrize("kind", ["string", "array"])
def test_a_property_named_with_a_lone_surrogate_is_never_proven(kind: str) -> None:
    """A hand-edited descriptor may name a property `"\\ud800"`: an argument of that name is
    one no UTF-8 text can carry, refused by the full validation, so never proven."""
    schema = {"type": "object", "properties": {"\ud800": {"type": kind}}}
    arguments = {"\ud800": "a" if kind == "string" else []}
    assert refused(schema, arguments)
    check = quick_check(schema)
    assert check is None or not check(arguments)
