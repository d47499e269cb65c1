"""The registration interpreter's values as the data they stand for (a decorator's options,
a listed tool's fields), or why they cannot be known."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

from toolgen.read.registration.values import (
    Const,
    Mapping,
    Record,
    SchemaOf,
    Seq,
    Unknown,
    Value,
)

#: What a `Model.model_json_schema()` is (the analysis computes it); None: not known.
SchemaMaker = Callable[[SchemaOf], "dict[str, Any] | None"]

#: The SDK's field names, as the wire spells them (mcp 2 takes snake case too).
WIRE_NAMES = {
    "input_schema": "inputSchema",
    "output_schema": "outputSchema",
    "read_only_hint": "readOnlyHint",
    "destructive_hint": "destructiveHint",
    "idempotent_hint": "idempotentHint",
    "open_world_hint": "openWorldHint",
    "meta": "_meta",
}


class NotKnown(Exception):
    def __init__(self, why: str, node: ast.AST | None) -> None:
        super().__init__(why)
        self.why = why
        self.node = node


def known_value(value: Value, at: ast.AST, schema_of: SchemaMaker | None = None) -> Any:
    """`value` as the JSON data it stands for (None: a field left out). `schema_of` gives
    the schema of a model's `model_json_schema()`."""
    if isinstance(value, Const):
        known = value.value
        if known is None or isinstance(known, bool | int | str):
            return known
        if isinstance(known, float) and math.isfinite(known):
            return known
        raise NotKnown(f"{type(known).__name__} is no JSON value", at)
    if isinstance(value, Seq):
        return [known_value(item, at, schema_of) for item in value.items]
    if isinstance(value, Mapping):
        if value.partial:
            raise NotKnown("a dict with keys known only at run time", at)
        found: dict[str, Any] = {}
        for key, item in value.entries.values():
            if not (isinstance(key, Const) and isinstance(key.value, str)):
                raise NotKnown("a dict key that is not a string", at)
            found[key.value] = known_value(item, at, schema_of)
        return found
    if isinstance(value, Record) and value.path == "ToolAnnotations":
        fields = {
            WIRE_NAMES.get(k, k): known_value(v, value.node, schema_of)
            for k, v in value.kwargs.items()
        }
        return {k: v for k, v in fields.items() if v is not None}
    if isinstance(value, SchemaOf) and value.called and schema_of is not None:
        schema = schema_of(value)
        if schema is None:
            raise NotKnown(f"the schema of `{value.cls.qualname}` cannot be made", value.node)
        return schema
    if isinstance(value, Unknown):
        raise NotKnown(value.why, value.node or at)
    raise NotKnown(f"a {type(value).__name__.lower()} where data is expected", at)
