"""What `Field(...)`, annotated_types markers and validators say about one field, gathered
before it is applied to the field's schema (shared by every part of the schema builder)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Schema = dict[str, Any]

#: A `FieldSpec` default that says there is none.
MISSING: Any = object()

#: One step of what metadata does to a type's schema, in pydantic's order of application:
#: ("constraint", key, value), ("validator", None, None) or ("replace", None, schema).
Step = tuple[str, str | None, Any]


@dataclass
class FieldSpec:
    """What `Field(...)`, annotated_types markers and validators say about one field."""

    default: Any = MISSING
    has_factory: bool = False
    steps: list[Step] = field(default_factory=list)
    description: str | None = None
    examples: list[Any] | None = None
    alias: str | None = None
    #: `validation_alias`, as the name it gives the property ("": the field's own name)
    validation_alias: str | None = None
    deprecated: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    override: Schema | None = None  # WithJsonSchema: the schema to show, whatever else applies

    def merge(self, other: FieldSpec, *, nested: bool = False) -> None:
        if nested and any(kind == "replace" for kind, _, _ in other.steps):
            # inside a type (not at a field), a PlainValidator's schema replaces what the
            # metadata before it described; a field keeps its description and examples
            self.description, self.examples, self.extra = None, None, {}
        if other.default is not MISSING:
            self.default = other.default
        self.has_factory = self.has_factory or other.has_factory
        self.steps.extend(other.steps)
        self.description = other.description or self.description
        self.examples = other.examples if other.examples is not None else self.examples
        self.alias = other.alias or self.alias
        if other.validation_alias is not None:
            self.validation_alias = other.validation_alias
        self.deprecated = self.deprecated or other.deprecated
        self.extra.update(other.extra)
        self.override = other.override if other.override is not None else self.override

    def constrain(self, key: str, value: Any) -> FieldSpec:
        self.steps.append(("constraint", key, value))
        return self

    @property
    def replaces(self) -> bool:
        """Does some step replace the type's schema (so building it would be wasted)?"""
        return self.override is not None or any(kind == "replace" for kind, _, _ in self.steps)
