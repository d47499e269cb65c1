"""The registration interpreter's values as the data they stand for (a decorator's options,
a listed tool's fields), or why they cannot be known."""

from __future__ import annotations

import ast
import datetime
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


#: How deeply the data of one value may nest (a list that holds itself never ends), and how
#: many values it may hold (lists that share lists hold them many times over).
MAX_DEPTH = 100
MAX_VALUES = 100_000


#: A JSON Schema's keywords that only say what a value means, never what it may be: in a
#: schema whose other parts are known, one of these that is not is left out, not the schema
#: (a property's description that names the machine's time zone).
ANNOTATIONS = frozenset({"description", "title", "examples", "$comment"})


def known_value(
    value: Value,
    at: ast.AST,
    schema_of: SchemaMaker | None = None,
    most: int = MAX_VALUES,
    left_out: list[NotKnown] | None = None,
) -> Any:
    """`value` as the JSON data it stands for (None: a field left out). `schema_of` gives
    the schema of a model's `model_json_schema()`; `most` caps the values read. With
    `left_out`, the data is a schema: an annotation (`ANNOTATIONS`) in it that cannot be
    known is left out, and why is added there."""
    return _Reader(schema_of, most, left_out).data(value, at, 0)


class _Reader:
    def __init__(
        self, schema_of: SchemaMaker | None, most: int, left_out: list[NotKnown] | None = None
    ) -> None:
        self.schema_of = schema_of
        self.most = most
        self.count = 0
        self.left_out = left_out

    def data(self, value: Value, at: ast.AST, depth: int) -> Any:
        self.count += 1
        if depth > MAX_DEPTH or self.count > self.most:
            why = f"more than {MAX_DEPTH} levels or {self.most} values (or data holding itself)"
            raise NotKnown(f"data of {why}", at)
        return self._data(value, at, depth + 1)

    def _data(self, value: Value, at: ast.AST, depth: int) -> Any:
        schema_of = self.schema_of
        if isinstance(value, Const):
            known = value.value
            if known is None or isinstance(known, bool | int | str):
                return known
            if isinstance(known, float) and math.isfinite(known):
                return known
            if isinstance(known, datetime.date | datetime.time):  # as pydantic's JSON has it
                text = known.isoformat()
                return text[:-6] + "Z" if text.endswith("+00:00") else text
            raise NotKnown(f"{type(known).__name__} is no JSON value", at)
        if isinstance(value, Seq):
            return [self.data(item, at, depth) for item in value.items]
        if isinstance(value, Mapping):
            if value.partial:
                raise NotKnown("a dict with keys known only at run time", at)
            found: dict[str, Any] = {}
            for key, item in value.entries.values():
                if not (isinstance(key, Const) and isinstance(key.value, str)):
                    raise NotKnown("a dict key that is not a string", at)
                try:
                    found[key.value] = self.data(item, at, depth)
                except NotKnown as exc:
                    if self.left_out is None or key.value not in ANNOTATIONS:
                        raise
                    self.left_out.append(exc)
            return found
        if isinstance(value, Record) and value.path == "ToolAnnotations":
            fields = {
                WIRE_NAMES.get(k, k): self.data(v, value.node, depth)
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
