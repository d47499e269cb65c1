"""Type annotations to JSON Schema, statically, the way pydantic v2 renders them at run time.

Reference semantics: `pydantic.create_model(...).model_json_schema()` (mode "validation") for
the same signature, with titles dropped. Named classes (enums, TypedDicts, dataclasses, pydantic
models) and named type aliases (PEP 695 `type X = ...`, `TypeAliasType`) become `$defs` entries
referenced with `$ref`, like pydantic.

A name from outside the project that toolgen's table does not know is looked up in the installed
packages' sources (`ModuleIndex.resolve_library`). A problem met inside such a library module is
reported at the user's annotation that led there, naming the place in the library.

`SchemaBuilder.schema` dispatches on the kind of the resolved type to a method named
`<kind>_schema`; a kind without a method fails loudly. Problems in user code raise `TypeProblem`
carrying a located diagnostic; the caller records it and moves on to the next parameter.
"""

from __future__ import annotations

import ast
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import alias_generators

from toolgen.analyze import bodies
from toolgen.analyze.folding import ENUM_BASES, NotStatic, enum_values, fold
from toolgen.analyze.scopes import Scope
from toolgen.diagnostics import Diagnostic
from toolgen.index import LIBRARY, Module, ModuleIndex, Symbol, dotted_name, well_known
from toolgen.schema_ops import drop_titles

Schema = dict[str, Any]

MISSING: Any = object()


class TypeProblem(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


BOUND_KEYWORDS = {
    "ge": "minimum",
    "gt": "exclusiveMinimum",
    "le": "maximum",
    "lt": "exclusiveMaximum",
}

#: pydantic's bounded numbers (`Annotated[int, Gt(0)]` and so on): the type and its bound at 0.
CONSTRAINED_TYPES: dict[str, tuple[str, str]] = {
    "pydantic.PositiveInt": ("integer", "gt"),
    "pydantic.NegativeInt": ("integer", "lt"),
    "pydantic.NonNegativeInt": ("integer", "ge"),
    "pydantic.NonPositiveInt": ("integer", "le"),
    "pydantic.PositiveFloat": ("number", "gt"),
    "pydantic.NegativeFloat": ("number", "lt"),
    "pydantic.NonNegativeFloat": ("number", "ge"),
    "pydantic.NonPositiveFloat": ("number", "le"),
}

#: pydantic's ready-made types: the schema of each, as pydantic renders it.
FIXED_SCHEMAS: dict[str, Schema] = {
    **{f"pydantic.{n}": {"type": "integer"} for n in ("StrictInt",)},
    "pydantic.StrictStr": {"type": "string"},
    "pydantic.StrictBool": {"type": "boolean"},
    "pydantic.StrictFloat": {"type": "number"},
    "pydantic.StrictBytes": {"type": "string", "format": "binary"},
    **{
        path: {"type": kind, BOUND_KEYWORDS[bound]: 0}
        for path, (kind, bound) in CONSTRAINED_TYPES.items()
    },
    "pydantic.SecretStr": {"type": "string", "format": "password", "writeOnly": True},
    "pydantic.SecretBytes": {"type": "string", "format": "password", "writeOnly": True},
    "pydantic.HttpUrl": {"type": "string", "format": "uri", "minLength": 1, "maxLength": 2083},
    **{
        f"pydantic.{n}": {"type": "string", "format": "uri", "minLength": 1}
        for n in ("AnyUrl", "AnyHttpUrl", "FileUrl", "FtpUrl", "WebsocketUrl", "AnyWebsocketUrl")
    },
    "pydantic.EmailStr": {"type": "string", "format": "email"},
    "pydantic.NameEmail": {"type": "string", "format": "name-email"},
    "pydantic.FilePath": {"type": "string", "format": "file-path"},
    "pydantic.DirectoryPath": {"type": "string", "format": "directory-path"},
    "pydantic.NewPath": {"type": "string", "format": "path"},
    **{f"pydantic.UUID{v}": {"type": "string", "format": f"uuid{v}"} for v in (1, 3, 4, 5)},
    "pydantic.FutureDate": {"type": "string", "format": "date"},
    "pydantic.PastDate": {"type": "string", "format": "date"},
    **{
        f"pydantic.{n}": {"type": "string", "format": "date-time"}
        for n in ("AwareDatetime", "NaiveDatetime", "FutureDatetime", "PastDatetime")
    },
    "pydantic.Base64Str": {"type": "string", "format": "base64"},
    "pydantic.Base64Bytes": {"type": "string", "format": "base64"},
    "pydantic.IPvAnyAddress": {"type": "string", "format": "ipvanyaddress"},
    "pydantic.IPvAnyInterface": {"type": "string", "format": "ipvanyinterface"},
    "pydantic.IPvAnyNetwork": {"type": "string", "format": "ipvanynetwork"},
    **{
        f"ipaddress.IPv{v}{kind}": {"type": "string", "format": f"ipv{v}{kind.lower()}"}
        for v in (4, 6)
        for kind in ("Network", "Interface")
    },
    "ipaddress.IPv4Address": {"type": "string", "format": "ipv4"},
    "ipaddress.IPv6Address": {"type": "string", "format": "ipv6"},
}

#: pydantic's `con*()` functions: the base schema and the keywords that are constraints.
CON_FUNCTIONS: dict[str, Schema] = {
    "pydantic.conint": {"type": "integer"},
    "pydantic.confloat": {"type": "number"},
    "pydantic.constr": {"type": "string"},
    "pydantic.conbytes": {"type": "string", "format": "binary"},
    "pydantic.condecimal": {"anyOf": [{"type": "number"}, {"type": "string"}]},
    "pydantic.conlist": {"type": "array"},
    "pydantic.conset": {"type": "array", "uniqueItems": True},
    "pydantic.confrozenset": {"type": "array", "uniqueItems": True},
}
CON_CONSTRAINTS = frozenset(
    {"gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern"}
)

#: Resolved external paths and the kind of type they are; each kind has a `<kind>_schema`.
EXTERNAL_KINDS: dict[str, str] = {
    "builtins.str": "str",
    "builtins.int": "int",
    "builtins.float": "float",
    "builtins.bool": "bool",
    "builtins.bytes": "bytes",
    "builtins.None": "none",
    "builtins.object": "any",
    "typing.Any": "any",
    "builtins.list": "list",
    "typing.List": "list",
    "typing.Sequence": "list",
    "typing.MutableSequence": "list",
    "typing.Iterable": "list",
    "typing.Collection": "list",
    "builtins.set": "set",
    "typing.Set": "set",
    "typing.MutableSet": "set",
    "typing.AbstractSet": "set",
    "builtins.frozenset": "set",
    "typing.FrozenSet": "set",
    "builtins.tuple": "tuple",
    "typing.Tuple": "tuple",
    "builtins.dict": "dict",
    "typing.Dict": "dict",
    "typing.Mapping": "dict",
    "typing.MutableMapping": "dict",
    "typing.Optional": "optional",
    "typing.Union": "union",
    "typing.Literal": "literal",
    "typing.Annotated": "annotated",
    "typing.Required": "qualifier",
    "typing.NotRequired": "qualifier",
    "typing.ReadOnly": "qualifier",
    "datetime.datetime": "format",
    "datetime.date": "format",
    "datetime.time": "format",
    "datetime.timedelta": "format",
    "uuid.UUID": "format",
    "pathlib.Path": "format",
    "pathlib.PurePath": "format",
    "decimal.Decimal": "decimal",
    "pydantic.Json": "json",
    "pydantic.SkipJsonSchema": "skip",
    **dict.fromkeys(FIXED_SCHEMAS, "fixed"),
}

STRING_FORMATS = {
    "datetime.datetime": "date-time",
    "datetime.date": "date",
    "datetime.time": "time",
    "datetime.timedelta": "duration",
    "uuid.UUID": "uuid",
    "pathlib.Path": "path",
    "pathlib.PurePath": "path",
}

TYPEDDICT_BASES = frozenset({"typing.TypedDict"})
MODEL_BASES = frozenset({"pydantic.BaseModel"})
DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
FIELD_CALLS = frozenset({"pydantic.Field"})
#: pydantic's own alias generators (pure functions of a field name), by path.
ALIAS_GENERATORS: dict[str, Callable[[str], str]] = {
    "pydantic.alias_generators.to_camel": alias_generators.to_camel,
    "pydantic.alias_generators.to_pascal": alias_generators.to_pascal,
    "pydantic.alias_generators.to_snake": alias_generators.to_snake,
}
ALIAS_GENERATOR_CLASSES = frozenset({"pydantic.AliasGenerator", "pydantic.aliases.AliasGenerator"})
ALIAS_CHOICES = frozenset({"pydantic.AliasChoices", "pydantic.aliases.AliasChoices"})
ALIAS_PATHS = frozenset({"pydantic.AliasPath", "pydantic.aliases.AliasPath"})
DATACLASS_FIELD_CALLS = frozenset({"dataclasses.field"})
VALIDATORS = frozenset(
    {
        "pydantic.BeforeValidator",
        "pydantic.AfterValidator",
        "pydantic.PlainValidator",
        "pydantic.WrapValidator",
    }
)

#: annotated_types markers and the Field keyword each stands for.
ANNOTATED_TYPES = {
    "annotated_types.Gt": "gt",
    "annotated_types.Ge": "ge",
    "annotated_types.Lt": "lt",
    "annotated_types.Le": "le",
    "annotated_types.MultipleOf": "multiple_of",
    "annotated_types.MinLen": "min_length",
    "annotated_types.MaxLen": "max_length",
}

NUMERIC_CONSTRAINTS = {**BOUND_KEYWORDS, "multiple_of": "multipleOf"}
#: `Field()` arguments whose value must be of a kind (as pydantic types them), and its name.
FIELD_VALUE_KINDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "description": (str, "a string"),
    "examples": (list, "a list"),
    "alias": (str, "a string"),
    "deprecated": ((bool, str), "a boolean or a string"),
    "json_schema_extra": (dict, "a dict"),
}
LENGTH_KEYS = {
    "string": ("minLength", "maxLength"),
    "array": ("minItems", "maxItems"),
    "object": ("minProperties", "maxProperties"),
}
FIELD_KEYWORDS = frozenset(
    {
        "default",
        "default_factory",
        "description",
        "examples",
        "title",
        "alias",
        "validation_alias",
        "serialization_alias",
        "json_schema_extra",
        "deprecated",
        "strict",
        "pattern",
        "min_length",
        "max_length",
        "frozen",
        "exclude",
        "repr",
        "init",
        "kw_only",
        "discriminator",
        "union_mode",
        "allow_inf_nan",
        "max_digits",
        "decimal_places",
        *NUMERIC_CONSTRAINTS,
    }
)


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


@dataclass
class ClassField:
    name: str
    annotation: ast.expr
    value: ast.expr | None
    module: Module
    total: bool = True  # TypedDict: the `total=` of the class that declares the field
    owner: Symbol | None = None  # the class that declares the field


class SchemaBuilder:
    """Builds schemas for one tool's parameters (or returns); collects the shared `$defs`."""

    def __init__(self, index: ModuleIndex, scope: Scope | None = None) -> None:
        self.index = index
        #: where a handler's defaults and metadata are evaluated (the functions around it)
        self.scope = scope
        self.defs: dict[str, Schema] = {}
        self._def_names: dict[str, str] = {}
        self._expanding: set[str] = set()
        #: `extra` of the models being built: pydantic applies a model's config to the stdlib
        #: dataclasses and TypedDicts it contains
        self._extra: list[Any] = [None]
        #: project classes whose bases are known not to lead back to them
        self._acyclic: set[str] = set()
        #: how many references to named classes were made (a body without one is shareable)
        self._named_refs = 0
        self._bodies = bodies.for_index(index)
        #: the innermost annotation being built in a project module: where a problem met
        #: inside a library module is reported (`problem`)
        self._anchor: tuple[ast.AST, Module] | None = None

    def _anchored(self, node: ast.AST, module: Module) -> tuple[ast.AST, Module] | None:
        """Make `node` the anchor when it is written in the project; the anchor before."""
        outer = self._anchor
        if not module.library:
            self._anchor = (node, module)
        return outer

    # -- entry points ----------------------------------------------------------------------
    def schema(self, node: ast.expr, module: Module) -> Schema:
        """The schema of the type written as `node` in `module`."""
        outer = self._anchored(node, module)
        try:
            return self._schema(node, module)
        finally:
            self._anchor = outer

    def _schema(self, node: ast.expr, module: Module) -> Schema:
        if isinstance(node, ast.Constant):
            if node.value is None:
                return {"type": "null"}
            if isinstance(node.value, str):
                return self.schema(self._forward_ref(node, module), module)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self._union([*_flatten_or(node)], module)
        if isinstance(node, ast.Subscript):
            symbol = self._resolve(node.value, module)
            return self._dispatch(symbol, node, module, _subscript_args(node))
        if isinstance(node, ast.Name | ast.Attribute):
            return self._dispatch(self._resolve(node, module), node, module, None)
        if isinstance(node, ast.Call):
            return self.call_schema(node, module)
        raise self.problem("TG202", f"unsupported annotation `{_text(node)}`", node, module)

    def call_schema(self, call: ast.Call, module: Module) -> Schema:
        """`conint(gt=0)`, `constr(pattern=...)`, `conlist(int, min_length=1)`, ..."""
        base, steps = self._con_parts(call, module)
        return self.decorate(base, FieldSpec(steps=steps), call, module)

    def _con_parts(self, call: ast.Call, module: Module) -> tuple[Schema, list[Step]]:
        """A `con*()` call as its base schema and its constraints, in pydantic's order."""
        called = self._resolve(call.func, module)
        base = CON_FUNCTIONS.get(called.path)
        if base is None:
            raise self.problem(
                "TG202", f"`{_text(call)}` is a call, not a type toolgen can read", call, module
            )
        schema = dict(base)
        keywords = {kw.arg: kw.value for kw in call.keywords if kw.arg}
        if schema.get("type") == "array":
            item = call.args[0] if call.args else keywords.pop("item_type", None)
            schema["items"] = self.schema(item, module) if item is not None else {}
        constraints = {
            key: self._literal(value, module)
            for key, value in keywords.items()
            if key in CON_CONSTRAINTS
            and not (isinstance(value, ast.Constant) and value.value is None)
        }
        if schema.get("type") == "array" and constraints.get("min_length") == 0:
            del constraints["min_length"]  # conlist/conset: pydantic shows no minItems of 0
        if "pattern" in constraints and not isinstance(constraints["pattern"], str):
            raise self.problem("TG205", "constr(pattern=...) must be a string", call, module)
        for key, value in constraints.items():
            self._check_constraint(key, value, keywords[key], module)
        return schema, [("constraint", key, value) for key, value in constraints.items()]

    def field_schema(
        self,
        annotation: ast.expr,
        module: Module,
        spec: FieldSpec | None = None,
        *,
        nested: bool = False,
    ) -> tuple[Schema, FieldSpec]:
        """Schema of a parameter or field: the type, its constraints, description, default.

        Metadata is applied in pydantic's order: the default's `Field(...)` constraints first,
        then the type's own (`PositiveInt`, `conint(...)`), then each `Annotated` level from
        the innermost out, following aliases on the way; the last word wins.
        """
        outer = self._anchored(annotation, module)
        try:
            return self._field_schema(annotation, module, spec, nested)
        finally:
            self._anchor = outer

    def _field_schema(
        self, annotation: ast.expr, module: Module, spec: FieldSpec | None, nested: bool
    ) -> tuple[Schema, FieldSpec]:
        levels: list[tuple[list[ast.expr], Module]] = []
        type_steps: list[Step] = []
        base: Schema | None = None
        inner, home = annotation, module
        seen: set[str] = set()
        resolved: Symbol | None = None  # what `inner` (or its origin) names, once resolved
        while True:  # peel Annotated[...], qualifiers and aliases, collecting metadata
            resolved = None
            if _is_str(inner):
                inner = self._forward_ref(inner, home)
            if isinstance(inner, ast.Subscript):
                resolved = self._resolve(inner.value, home)
                kind = self._kind_of(resolved)
                args = _subscript_args(inner)
                if kind == "annotated":
                    self._check_annotated(inner, args, home)
                    levels.append((args[1:], home))
                    inner = args[0]
                    continue
                if kind == "qualifier" and args:
                    inner = args[0]
                    continue
            elif isinstance(inner, ast.Name | ast.Attribute):
                symbol = resolved = self._resolve(inner, home)
                value = symbol.node
                if symbol.kind == "assign" and isinstance(value, ast.expr) and symbol.module:
                    if symbol.path not in seen and self._peelable(value, symbol.module):
                        seen.add(symbol.path)
                        inner, home = value, symbol.module
                        continue
                elif symbol.path in CONSTRAINED_TYPES:
                    kind_name, bound = CONSTRAINED_TYPES[symbol.path]
                    base, type_steps = {"type": kind_name}, [("constraint", bound, 0)]
            elif isinstance(inner, ast.Call):
                called = self._resolve(inner.func, home, strict=False)
                if called.path == "typing.NewType" and len(inner.args) == 2:
                    inner = inner.args[1]
                    continue
                base, type_steps = self._con_parts(inner, home)
            break
        merged = FieldSpec()
        for metas, where in reversed(levels):  # innermost first: outer metadata wins
            for meta in metas:
                merged.merge(self.metadata(meta, where), nested=nested)
        steps = [*(spec.steps if spec else []), *type_steps, *merged.steps]
        if spec is not None:
            merged.merge(spec)  # `= Field(...)` wins for everything but constraints (above)
        merged.steps = steps
        if base is None and merged.replaces:
            base = {}
        elif base is None and resolved is not None:  # as `schema` would, without resolving again
            type_args = _subscript_args(inner) if isinstance(inner, ast.Subscript) else None
            base = self._dispatch(resolved, inner, home, type_args)
        elif base is None:
            base = self.schema(inner, home)
        members = self._union_members(inner, home)
        return self.decorate(base, merged, inner, home, members=members), merged

    def _peelable(self, value: ast.expr, module: Module) -> bool:
        """An alias whose value the field reader follows (a type expression or con*/NewType
        call); TypeVar and other calls are left to `alias_schema` to refuse."""
        if not isinstance(value, ast.Call):
            return True
        called = self._resolve(value.func, module, strict=False).path
        return called == "typing.NewType" or called in CON_FUNCTIONS

    def _union_members(self, node: ast.expr, module: Module) -> int:
        """How many types other than None a union annotation names (0: not a union)."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            members = _flatten_or(node)
        elif isinstance(node, ast.Subscript) and dotted_name(node.value):
            path = self._resolve(node.value, module, strict=False).path
            if path not in ("typing.Union", "typing.Optional"):
                return 0
            members = _subscript_args(node)
        else:
            return 0
        return sum(
            1
            for m in members
            if not (isinstance(m, ast.Constant) and m.value is None)
            and not self._is_skipped(m, module)
        )

    # -- metadata -------------------------------------------------------------------------
    def metadata(self, node: ast.expr, module: Module) -> FieldSpec:
        """FieldSpec from one `Annotated` metadata item; unknown items are ignored."""
        if not isinstance(node, ast.Call):
            return FieldSpec()
        symbol = self._resolve(node.func, module, strict=False)
        path = symbol.path if symbol else ""
        if path in FIELD_CALLS:
            return self.field_call(node, module)
        if path in ANNOTATED_TYPES and len(node.args) == 1:
            value = self._literal(node.args[0], module)
            self._check_constraint(ANNOTATED_TYPES[path], value, node.args[0], module)
            return FieldSpec().constrain(ANNOTATED_TYPES[path], value)
        if path in ("annotated_types.Len", "annotated_types.Interval"):
            names = (
                ("min_length", "max_length") if path.endswith("Len") else ("gt", "ge", "lt", "le")
            )
            bound = dict(zip(names, node.args, strict=False))
            bound.update({kw.arg: kw.value for kw in node.keywords if kw.arg})
            constraints = {
                k: self._literal(v, module)
                for k, v in bound.items()
                if not (isinstance(v, ast.Constant) and v.value is None)
            }
            if path.endswith("Len") and constraints.get("min_length") == 0:
                del constraints["min_length"]
            spec = FieldSpec()
            for key, value in constraints.items():
                self._check_constraint(key, value, bound[key], module)
                spec.constrain(key, value)
            return spec
        if path == "pydantic.WithJsonSchema" and node.args:
            value = self._literal(node.args[0], module)
            if isinstance(value, dict):
                return FieldSpec(override=drop_titles(value))
        if path in VALIDATORS:
            input_type = next(
                (kw.value for kw in node.keywords if kw.arg == "json_schema_input_type"), None
            )
            if input_type is not None:
                return FieldSpec(steps=[("replace", None, self.schema(input_type, module))])
            if path == "pydantic.PlainValidator":
                return FieldSpec(steps=[("replace", None, {})])
            return FieldSpec(steps=[("validator", path.removeprefix("pydantic."), None)])
        return FieldSpec()

    def field_call(self, call: ast.Call, module: Module) -> FieldSpec:
        spec = FieldSpec()
        if call.args and not _is_ellipsis(call.args[0]):
            spec.default = self._literal(call.args[0], module)
        for kw in call.keywords:
            if kw.arg is None or kw.arg not in FIELD_KEYWORDS:
                name = "**" if kw.arg is None else kw.arg
                raise self.problem("TG205", f"Field(): unsupported argument `{name}`", kw, module)
            if kw.arg == "default_factory":
                spec.has_factory = True
                continue
            if kw.arg == "default" and _is_ellipsis(kw.value):
                continue  # `Field(default=...)`, like `Field(...)`: required
            if kw.arg == "validation_alias":
                spec.validation_alias = self._validation_name(kw.value, module)
                continue
            if kw.arg in {
                "title",
                "strict",
                "frozen",
                "exclude",
                "repr",
                "init",
                "kw_only",
                "serialization_alias",
                "union_mode",
                "discriminator",
                "allow_inf_nan",
                "max_digits",
                "decimal_places",
            }:
                continue  # no effect on the validation schema toolgen renders
            value = self._literal(kw.value, module)
            kinds = FIELD_VALUE_KINDS.get(kw.arg)
            if kinds is not None and not isinstance(value, kinds[0]):
                message = f"Field({kw.arg}=...) must be {kinds[1]}"
                raise self.problem("TG205", message, kw, module)
            if kw.arg == "default":
                spec.default = value
            elif kw.arg == "description":
                spec.description = value
            elif kw.arg == "examples":
                spec.examples = value
            elif kw.arg == "alias":
                spec.alias = value
            elif kw.arg == "deprecated":
                spec.deprecated = bool(value)
            elif kw.arg == "json_schema_extra":
                self._check_extra(value, kw, module)
                spec.extra.update(value)
            else:
                self._check_constraint(kw.arg, value, kw.value, module)
                spec.constrain(kw.arg, value)
        return spec

    def decorate(
        self,
        schema: Schema,
        spec: FieldSpec,
        where: ast.AST,
        module: Module,
        *,
        members: int = 0,
    ) -> Schema:
        """Apply the metadata steps to the type, then add description, examples and default.

        Like pydantic: a validator that replaces the schema (PlainValidator) discards the
        constraints before it. A constraint after a validator cannot reach the validated type:
        a numeric bound stays as its raw keyword (`"ge": 1`), a pattern is not shown, and a
        length bound still reaches the type through a BeforeValidator but otherwise becomes
        `minLength`/`maxLength` beside it. A bound on a union of several types, or on an open
        schema, stays raw as well.
        """
        steps = spec.steps
        replaced = [i for i, (kind, _, _) in enumerate(steps) if kind == "replace"]
        validator = "PlainValidator" if replaced else None
        if replaced:
            schema, steps = steps[replaced[-1]][2], steps[replaced[-1] + 1 :]
        raw: Schema = {}
        for kind, key, value in steps:
            if kind == "validator":
                validator = key
            elif key is None or (validator and key == "pattern"):
                continue
            elif (
                validator
                and key in ("min_length", "max_length")
                and (validator != "BeforeValidator" or not schema)
            ):
                raw[LENGTH_KEYS["string"][key == "max_length"]] = value
            elif (validator and key in NUMERIC_CONSTRAINTS) or not schema:
                raw[key] = value
            else:
                constrained = self._constrain(schema, key, value, where, module, members=members)
                if constrained is None:
                    raw[key] = value
                else:
                    schema = constrained
        if spec.override is not None:
            schema, raw = spec.override, {}
        out: Schema = {}
        if spec.description is not None:
            out["description"] = spec.description
        out.update(schema)
        out.update(raw)
        if spec.deprecated:
            out["deprecated"] = True
        if spec.examples is not None:
            out["examples"] = spec.examples
        out.update(spec.extra)
        if spec.default is not MISSING:
            out["default"] = spec.default
        return out

    def _constrain(
        self,
        schema: Schema,
        key: str,
        value: Any,
        where: ast.AST,
        module: Module,
        *,
        members: int = 0,
    ) -> Schema | None:
        """`schema` with one constraint applied; None where pydantic keeps it raw (a union of
        several types). `members`: how many non-None types the annotation's union names."""
        if members > 1:
            return None
        if "anyOf" in schema:
            branches = list(schema["anyOf"])
            real = [i for i, b in enumerate(branches) if b != {"type": "null"}]
            if len(real) == 1:  # Optional[X]: the one real member takes it
                targets = real
            else:  # one type rendered as several (Decimal): the branches it applies to
                targets = [i for i in real if _applies(key, branches[i].get("type"))]
                if not targets:
                    raise self._no_constraint(key, "a union", where, module)
            for i in targets:
                branches[i] = self._constrain(branches[i], key, value, where, module) or branches[i]
            return {**schema, "anyOf": branches}
        kind = schema.get("type")
        if not _applies(key, kind):
            raise self._no_constraint(key, f"type {kind or 'unknown'}", where, module)
        out = dict(schema)
        if key in NUMERIC_CONSTRAINTS:
            out[NUMERIC_CONSTRAINTS[key]] = value
        elif key in ("min_length", "max_length"):
            out[LENGTH_KEYS[str(kind)][key == "max_length"]] = value
        else:
            out["pattern"] = value
        return out

    def _no_constraint(self, key: str, what: str, where: ast.AST, module: Module) -> TypeProblem:
        message = f"constraint `{key}` does not apply to a schema of {what}"
        return self.problem("TG202", message, where, module)

    # -- dispatch --------------------------------------------------------------------------
    def _dispatch(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        kind = self._kind_of(symbol)
        if kind is None:
            raise self.problem(
                "TG202", f"`{_text(node)}` ({symbol.path}) is not a supported type", node, module
            )
        method: Callable[[Symbol, ast.expr, Module, list[ast.expr] | None], Schema] | None
        method = getattr(self, f"{kind}_schema", None)
        if method is None:  # a kind in the tables above without its method: our bug
            raise NotImplementedError(f"SchemaBuilder has no method {kind}_schema")
        schema: Schema = method(symbol, node, module, args)
        return schema

    def _kind_of(self, symbol: Symbol | None) -> str | None:
        if symbol is None:
            return None
        if symbol.is_external:
            return EXTERNAL_KINDS.get(symbol.path)
        if symbol.kind == "class":
            return self.class_kind(symbol)
        if symbol.kind == "typealias" or self._alias_type(symbol) is not None:
            return "typealias"
        if symbol.kind == "assign":
            return "alias"
        return None

    def _alias_type(self, symbol: Symbol) -> ast.expr | None:
        """The value of a named type alias: `type X = V` (PEP 695), or `X = TypeAliasType("X",
        V)`; None for anything else."""
        node, module = symbol.node, symbol.module
        if symbol.kind == "typealias":
            value = getattr(node, "value", None)
            return value if isinstance(value, ast.expr) else None
        if not (symbol.kind == "assign" and isinstance(node, ast.Call) and module is not None):
            return None
        if self._resolve(node.func, module, strict=False).path != "typing.TypeAliasType":
            return None
        values = {kw.arg: kw.value for kw in node.keywords if kw.arg}
        return node.args[1] if len(node.args) > 1 else values.get("value")

    def class_kind(self, symbol: Symbol) -> str | None:
        """enum, typeddict, dataclass or model, following project base classes."""
        node, module = symbol.node, symbol.module
        assert isinstance(node, ast.ClassDef) and module is not None
        self._check_bases(symbol)
        for dec in node.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            found = self._resolve(target, module, strict=False, follow=True)
            if found is not None and found.path in DATACLASS_DECORATORS:
                return "dataclass"
        for base in node.bases:
            found = self._resolve(base, module, strict=False, follow=True)
            if found is None:
                continue
            if found.path in ENUM_BASES:
                return "enum"
            if found.path in TYPEDDICT_BASES:
                return "typeddict"
            if found.path in MODEL_BASES:
                return "model"
            if found.kind == "class" and found.path != symbol.path:
                kind = self.class_kind(found)
                if kind in ("enum", "typeddict", "model"):
                    return kind
        return None

    def _check_bases(self, symbol: Symbol, trail: tuple[str, ...] = ()) -> None:
        """TG202 at the base that leads a class back to itself (`class A(B)` and `class B(A)`:
        the names toolgen reads, the last binding of each, make no class hierarchy). A class
        that names itself (`class A(A)`, subclassing an earlier `A`) is left to the callers."""
        if symbol.path in self._acyclic:
            return
        node, module = symbol.node, symbol.module
        assert isinstance(node, ast.ClassDef) and module is not None
        trail = (*trail, symbol.path)
        for base in node.bases:
            found = self._resolve(base, module, strict=False, follow=True)
            if found.kind != "class" or found.module is None or found.path == symbol.path:
                continue
            if found.path in trail:
                cycle = trail[trail.index(found.path) :]  # ends with this class: start there
                names = " -> ".join(p.rsplit(".", 1)[-1] for p in (symbol.path, *cycle))
                message = f"the bases of class `{node.name}` lead back to it ({names})"
                raise self.problem("TG202", message, base, module)
            self._check_bases(found, trail)
        self._acyclic.add(symbol.path)

    def _resolve(
        self, node: ast.expr, module: Module, *, strict: bool = True, follow: bool | None = None
    ) -> Symbol:
        """What `node` names. `strict`: TG201 when that is nothing toolgen can read. `follow`
        (by default, as `strict`): a name from outside the project that toolgen's table does
        not know is looked up in the installed packages (not for paths compared as they are
        imported, such as a framework's context class)."""
        dotted = dotted_name(node)
        if dotted is None:
            if not strict:
                return Symbol("", "external")
            raise self.problem("TG202", f"unsupported annotation `{_text(node)}`", node, module)
        symbol = self.index.resolve(module, dotted)
        if symbol is None:
            if not strict:
                return Symbol(dotted, "external")
            why = self.index.unreadable_behind((module.name, dotted))
            message = f"cannot resolve `{dotted}` in module {module.name}"
            raise self.problem("TG201", message + (f" ({why})" if why else ""), node, module)
        follow = strict if follow is None else follow
        if follow and symbol.is_external and not _known(symbol.path) and not _stdlib(symbol.path):
            found = self.index.resolve_library(symbol.path)
            if found is not None and (not found.is_external or _known(found.path)):
                return found
            if strict:
                why = self._not_installed(symbol.path, found)
                raise self.problem("TG201", f"cannot resolve `{dotted}`: {why}", node, module)
        if strict and symbol.is_external and not _known(symbol.path):
            message = f"cannot resolve `{dotted}`: {symbol.path} is outside the project and not "
            raise self.problem("TG201", message + "a type toolgen knows", node, module)
        return symbol

    def _not_installed(self, path: str, found: Symbol | None) -> str:
        """Why the external `path` is nothing toolgen can read (`resolve_library` gave
        `found`): not found anywhere (and where it looked), or not in the library module that
        was found, or in a library file that cannot be read."""
        why = self.index.unreadable_behind((LIBRARY, path))
        if why:
            return f"{path} leads to a library file toolgen cannot read: {why}"
        if found is None:  # a library module was found, without that name
            parts = path.split(".")
            for i in range(len(parts) - 1, 0, -1):
                module = self.index.library(".".join(parts[:i]))
                if module is not None:
                    where = f"{module.name} ({module.shown})"
                    return f"{path} is not defined in the installed module {where}"
            return f"{path} is not defined where its module is installed"
        if not self.index.library_roots:
            return (
                f"{path} is outside the project, and no library folder is read "
                "(`library_paths = []`)"
            )
        looked = ", ".join(self.index.where_looked())
        end = found.path  # where the name leads (through a library's own imports, perhaps)
        leads = "" if end == path else f" (through an installed package, {end})"
        return (
            f"{path} is outside the project{leads}, and module {end.rpartition('.')[0] or end} "
            f"is found neither there nor in the library folders (looked in: {looked})"
        )

    # -- one method per kind -----------------------------------------------------------------
    def str_schema(self, *_: Any) -> Schema:
        return {"type": "string"}

    def int_schema(self, *_: Any) -> Schema:
        return {"type": "integer"}

    def float_schema(self, *_: Any) -> Schema:
        return {"type": "number"}

    def bool_schema(self, *_: Any) -> Schema:
        return {"type": "boolean"}

    def bytes_schema(self, *_: Any) -> Schema:
        return {"type": "string", "format": "binary"}

    def none_schema(self, *_: Any) -> Schema:
        return {"type": "null"}

    def any_schema(self, *_: Any) -> Schema:
        return {}

    def format_schema(self, symbol: Symbol, *_: Any) -> Schema:
        return {"type": "string", "format": STRING_FORMATS[symbol.path]}

    def fixed_schema(self, symbol: Symbol, *_: Any) -> Schema:
        return dict(FIXED_SCHEMAS[symbol.path])

    def json_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        content = self.schema(args[0], module) if args else {}
        return {"type": "string", "contentMediaType": "application/json", "contentSchema": content}

    def skip_schema(self, symbol: Symbol, node: ast.expr, module: Module, _: Any) -> Schema:
        raise self.problem(
            "TG202", "SkipJsonSchema[...] is supported as a union member only", node, module
        )

    def decimal_schema(self, *_: Any) -> Schema:
        return {"anyOf": [{"type": "number"}, {"type": "string"}]}

    def list_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        items = self.schema(args[0], module) if args else {}
        return {"type": "array", "items": items}

    def set_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        return {**self.list_schema(symbol, node, module, args), "uniqueItems": True}

    def tuple_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        if isinstance(node, ast.Subscript) and not args:  # tuple[()]
            return {"type": "array", "minItems": 0, "maxItems": 0}
        if not args:
            return {"type": "array", "items": {}}
        if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
            return {"type": "array", "items": self.schema(args[0], module)}
        items = [self.schema(a, module) for a in args]
        return {
            "type": "array",
            "prefixItems": items,
            "minItems": len(items),
            "maxItems": len(items),
        }

    def dict_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        if not args:
            return {"type": "object", "additionalProperties": True}
        if len(args) != 2:  # `dict[str]`: Python refuses it (pydantic would, too)
            message = f"`{_text(node)}`: a mapping takes two types, keys and values"
            raise self.problem("TG202", message, node, module)
        keys = self.schema(args[0], module)
        values = self.schema(args[1], module)
        out: Schema = {"type": "object", "additionalProperties": values or True}
        # like pydantic: string-like key constraints only, without the implied "type"
        if keys.get("type", "string") == "string":
            names = {k: v for k, v in keys.items() if k != "type"}
            if names:
                out["propertyNames"] = names
        return out

    def optional_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        if not args or len(args) != 1:
            raise self.problem("TG202", "Optional takes exactly one type", node, module)
        return self._union([node], module)

    def union_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        if not args:
            raise self.problem("TG202", "Union needs at least one type", node, module)
        return self._union([node], module)

    def literal_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        if not args:
            raise self.problem("TG202", "Literal needs at least one value", node, module)
        values: list[Any] = []
        for arg in args:
            values.append(self._literal(arg, module))
        if all(_hashable(v) for v in values):  # dedupe, keeping 1 and True apart
            values = list({(type(v), v): v for v in values}.values())
        types = {_json_type(v) for v in values}
        out: Schema = {"const": values[0]} if len(values) == 1 else {"enum": values}
        if len(types) == 1:
            out["type"] = types.pop() or "null"  # Literal[None]: pydantic says "null"
        return out

    def annotated_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        self._check_annotated(node, args, module)
        schema, _ = self.field_schema(node, module, nested=True)
        return schema

    def _check_annotated(self, node: ast.expr, args: list[ast.expr] | None, module: Module) -> None:
        """TG202 for `Annotated` without a type and metadata, which Python refuses at run
        time (bare, `Annotated[()]`, `Annotated[int]`)."""
        if args is None or len(args) < 2:
            message = (
                f"`{_text(node)}`: Annotated takes a type and at least one metadata item, "
                "as in Annotated[int, Field(ge=0)]"
            )
            raise self.problem("TG202", message, node, module)

    def qualifier_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        if not args:
            raise self.problem("TG202", f"{symbol.path} needs a type", node, module)
        return self.schema(args[0], module)

    def alias_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        value, home = symbol.node, symbol.module
        assert home is not None
        if not isinstance(value, ast.expr):
            raise self.problem("TG202", f"`{_text(node)}` is not a type", node, module)
        if symbol.path in self._expanding:
            raise self.problem(
                "TG202", f"type alias `{symbol.path}` refers to itself", node, module
            )
        if isinstance(value, ast.Call):  # NewType("X", base) stands for its base type
            called = self._resolve(value.func, home, strict=False)
            if called.path == "typing.NewType" and len(value.args) == 2:
                value = value.args[1]
            elif called.path in CON_FUNCTIONS:
                return self.call_schema(value, home)
            else:
                raise self.problem(
                    "TG202", f"`{_text(node)}` is bound to a call, not a type", node, module
                )
        if args:
            raise self.problem(
                "TG202", f"generic alias `{_text(node)}` not supported", node, module
            )
        self._expanding.add(symbol.path)
        try:
            schema, _ = self.field_schema(value, home, nested=True)
            return schema
        finally:
            self._expanding.discard(symbol.path)

    def typealias_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        """A named alias, as pydantic shows a `TypeAliasType`: a `$defs` entry of its own."""
        if args:
            raise self.problem(
                "TG202", f"generic alias `{_text(node)}` not supported", node, module
            )
        return self._named(symbol, "typealias")

    def enum_schema(self, symbol: Symbol, node: ast.expr, module: Module, _: Any) -> Schema:
        return self._named(symbol, "enum")

    def typeddict_schema(self, symbol: Symbol, node: ast.expr, module: Module, _: Any) -> Schema:
        return self._named(symbol, "typeddict")

    def dataclass_schema(self, symbol: Symbol, node: ast.expr, module: Module, _: Any) -> Schema:
        return self._named(symbol, "dataclass")

    def model_schema(self, symbol: Symbol, node: ast.expr, module: Module, _: Any) -> Schema:
        return self._named(symbol, "model")

    # -- named classes ----------------------------------------------------------------------
    def _named(self, symbol: Symbol, kind: str) -> Schema:
        self._named_refs += 1
        name = self._def_names.get(symbol.path)
        if name is None:
            name = symbol.path.rsplit(".", 1)[-1]
            if name in self.defs:
                name = symbol.path.replace(".", "__")
            self._def_names[symbol.path] = name
            self.defs[name] = {}
            self.defs[name] = self._class_body(symbol, kind)
        return {"$ref": f"#/$defs/{name}"}

    def _class_body(self, symbol: Symbol, kind: str) -> Schema:
        """The `$defs` entry of a named class of `kind`. One that refers to no other named
        class is built once per index and shared (`toolgen.analyze.bodies`), unless the
        `extra` around it is no plain string. (Inside the expansion of a type alias, a body
        that names the alias is an error, never kept; and one kept from outside names no alias
        whose expansion leads to the class, as that would have been a reference to a class.)"""
        extra = self._extra[-1]
        node = symbol.node
        if kind == "typealias":  # its value, as the type of a field (a reference to itself
            value = self._alias_type(symbol)  # in it: `$ref`, as the `$defs` entry is made)
            assert value is not None and symbol.module is not None
            return self.field_schema(value, symbol.module, nested=True)[0]
        if not (extra is None or isinstance(extra, str)):
            return self._build_body(symbol, kind)
        assert isinstance(node, ast.ClassDef)
        key = (node, symbol.path, kind, extra)
        found = self._bodies.get(key, self.index)
        if found is not None:
            return found
        refs = self._named_refs
        with self.index.tracking() as used:
            body = self._build_body(symbol, kind)
        if self._named_refs == refs:  # no `$ref` in it: the same in every builder
            self._bodies.put(key, body, used, self.index)
        return body

    def _build_body(self, symbol: Symbol, kind: str) -> Schema:
        return self._enum_body(symbol) if kind == "enum" else self._object_body(symbol, kind)

    def _enum_body(self, symbol: Symbol) -> Schema:
        node, module = symbol.node, symbol.module
        assert isinstance(node, ast.ClassDef) and module is not None
        try:
            values = list(enum_values(node, module, self.index).values())
        except NotStatic as exc:
            raise self.problem("TG205", exc.why, exc.node, exc.module) from None
        if not values:
            raise self.problem("TG202", f"enum {node.name} has no members", node, module)
        out: Schema = {}
        doc = ast.get_docstring(node)
        if doc:
            out["description"] = doc
        out["enum"] = values
        types = {_json_type(v) for v in values}
        if len(types) == 1 and None not in types:
            out["type"] = types.pop()
        return out

    def class_fields(self, symbol: Symbol) -> list[ClassField]:
        """Annotated fields of a class and its project base classes, bases first."""
        node, module = symbol.node, symbol.module
        assert isinstance(node, ast.ClassDef) and module is not None
        fields: dict[str, ClassField] = {}
        for base in self._project_bases(symbol):
            for f in self.class_fields(base):
                fields[f.name] = f
        total = self._class_keyword(node, module, "total", True)
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                name = stmt.target.id
                if (
                    name.startswith("_")
                    or name == "model_config"
                    or self._is_classvar(stmt.annotation, module)
                ):
                    continue
                fields[name] = ClassField(
                    name, stmt.annotation, stmt.value, module, total, owner=symbol
                )
        return list(fields.values())

    def _project_bases(self, symbol: Symbol) -> list[Symbol]:
        node, module = symbol.node, symbol.module
        assert isinstance(node, ast.ClassDef) and module is not None
        self._check_bases(symbol)
        bases = []
        for base in node.bases:
            found = self._resolve(base, module, strict=False, follow=True)
            if found.kind == "class" and found.module is not None and found.path != symbol.path:
                bases.append(found)
        return bases

    def _class_keyword(self, node: ast.ClassDef, module: Module, name: str, default: Any) -> Any:
        for kw in node.keywords:
            if kw.arg == name:
                return self._literal(kw.value, module)
        return default

    def model_config(self, symbol: Symbol) -> dict[str, Any]:
        """`model_config = ConfigDict(...)` (or a dict) of a model and its bases, as literals."""
        node, module = symbol.node, symbol.module
        assert isinstance(node, ast.ClassDef) and module is not None
        config: dict[str, Any] = {}
        for base in self._project_bases(symbol):
            config.update(self.model_config(base))
        for stmt in node.body:
            target = (
                stmt.targets[0] if isinstance(stmt, ast.Assign) else getattr(stmt, "target", None)
            )
            value = getattr(stmt, "value", None)
            if not (isinstance(target, ast.Name) and target.id == "model_config") or value is None:
                continue
            if isinstance(value, ast.Call):
                for kw in value.keywords:
                    if kw.arg in ("extra", "json_schema_extra"):
                        config[kw.arg] = self._literal(kw.value, module)
                    elif kw.arg == "alias_generator":
                        config[kw.arg] = self._alias_generator(kw.value, module)
            elif isinstance(value, ast.Dict):
                for key, item in zip(value.keys, value.values, strict=True):
                    name = key.value if isinstance(key, ast.Constant) else None
                    if name in ("extra", "json_schema_extra"):
                        config[name] = self._literal(item, module)
                    elif name == "alias_generator":
                        config[name] = self._alias_generator(item, module)
        return config

    def _alias_generator(self, node: ast.expr, module: Module) -> str | None:
        """The path of the function that names a model's properties (`alias_generator`, or
        an `AliasGenerator`'s validation or plain alias); TG202 for one toolgen cannot run."""
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        if isinstance(node, ast.Call) and dotted_name(node.func):
            called = self._resolve(node.func, module, strict=False).path
            if called in ALIAS_GENERATOR_CLASSES:
                chosen = {kw.arg: kw.value for kw in node.keywords}
                if node.args:
                    chosen.setdefault("alias", node.args[0])
                inner = chosen.get("validation_alias", chosen.get("alias"))
                return None if inner is None else self._alias_generator(inner, module)
        elif dotted_name(node):
            path = self._resolve(node, module, strict=False).path
            if path in ALIAS_GENERATORS:
                return path
        known = ", ".join(name.rpartition(".")[2] for name in ALIAS_GENERATORS)
        message = (
            f"alias_generator `{_text(node)}` cannot be applied without running it: use one "
            f"of pydantic.alias_generators ({known}), or give each field an alias"
        )
        raise self.problem("TG202", message, node, module)

    def _validation_name(self, node: ast.expr, module: Module) -> str:
        """The property name a `validation_alias` gives: a string; the first choice of
        `AliasChoices` that is a name (a string, or an `AliasPath` of one); "" for the
        field's own name (an `AliasPath` into nested data, as pydantic's schema does)."""
        single = self._alias_path_name(node, module)
        if single is not None:
            return single
        if isinstance(node, ast.Call) and dotted_name(node.func):
            called = self._resolve(node.func, module, strict=False).path
            if called in ALIAS_CHOICES:
                names = (self._alias_path_name(arg, module) for arg in node.args)
                return next((name for name in names if name is not None), "")
            if called in ALIAS_PATHS:
                return ""
        message = "Field(validation_alias=...) must be a string, AliasChoices or AliasPath"
        raise self.problem("TG205", message, node, module)

    def _alias_path_name(self, node: ast.expr, module: Module) -> str | None:
        """The name of a one-step path: a string, or `AliasPath("name")`."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Call) and dotted_name(node.func) and not node.keywords:
            called = self._resolve(node.func, module, strict=False).path
            if called in ALIAS_PATHS and len(node.args) == 1:
                return self._alias_path_name(node.args[0], module)
        return None

    def _is_classvar(self, annotation: ast.expr, module: Module) -> bool:
        target = annotation.value if isinstance(annotation, ast.Subscript) else annotation
        found = self._resolve(target, module, strict=False) if dotted_name(target) else None
        return found is not None and found.path == "typing.ClassVar"

    def _object_body(self, symbol: Symbol, kind: str) -> Schema:
        config = self.model_config(symbol) if kind == "model" else {}
        extra = config.get("extra") if kind == "model" else self._extra[-1]
        if kind == "dataclass" and self._is_pydantic_dataclass(symbol):
            extra = None  # a pydantic dataclass has a config of its own
        self._extra.append(extra)
        try:
            out = self._fields_body(symbol, kind)
        finally:
            self._extra.pop()
        if extra in ("forbid", "allow"):
            out["additionalProperties"] = extra == "allow"
        if isinstance(config.get("json_schema_extra"), dict):
            if symbol.node is not None and symbol.module is not None:  # a project model's
                self._check_extra(config["json_schema_extra"], symbol.node, symbol.module)
            out.update(drop_titles(config["json_schema_extra"]))
        return out

    def _check_constraint(self, key: str, value: Any, node: ast.AST, module: Module) -> None:
        """TG209 when a constraint's value is not one its JSON Schema keyword takes (so that
        pydantic would refuse it, or the schema would be invalid)."""
        why = constraint_problem(key, value)
        if why:
            raise self.problem("TG209", f"constraint `{key}={value!r}`: {why}", node, module)

    def _check_extra(self, extra: dict[str, Any], node: ast.AST, module: Module) -> None:
        """TG208 when what `json_schema_extra` adds is no JSON Schema (it goes in as it is)."""
        from toolgen.validate import schema_problems

        problems = schema_problems(extra)
        if problems:
            message = f"json_schema_extra is not a valid JSON Schema: {problems[0]}"
            raise self.problem("TG208", message, node, module)

    def _is_pydantic_dataclass(self, symbol: Symbol) -> bool:
        node, module = symbol.node, symbol.module
        assert isinstance(node, ast.ClassDef) and module is not None
        for dec in node.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            if self._resolve(target, module, strict=False).path == "pydantic.dataclasses.dataclass":
                return True
        return False

    def _fields_body(self, symbol: Symbol, kind: str) -> Schema:
        node, module = symbol.node, symbol.module
        assert isinstance(node, ast.ClassDef) and module is not None
        properties: Schema = {}
        required: list[str] = []
        generator = self.model_config(symbol).get("alias_generator") if kind == "model" else None
        generate = ALIAS_GENERATORS[generator] if generator else None
        for f in self.class_fields(symbol):
            spec = self._value_spec(f.value, f.module, kind)
            # a model's config reaches the types of the fields it declares itself
            owner_extra = (
                self.model_config(f.owner).get("extra")
                if kind == "model" and f.owner is not None
                else self._extra[-1]
            )
            self._extra.append(owner_extra)
            try:
                schema, merged = self.field_schema(f.annotation, f.module, spec)
            finally:
                self._extra.pop()
            name = property_name(merged, f.name, generate)
            properties[name] = schema
            if kind == "typeddict":
                if self._typeddict_required(f.annotation, f.module, bool(f.total)):
                    required.append(name)
            elif merged.default is MISSING and not merged.has_factory:
                required.append(name)
        out: Schema = {}
        doc = ast.get_docstring(node)
        if doc:
            out["description"] = doc
        out["type"] = "object"
        out["properties"] = properties
        if required:
            out["required"] = required
        return out

    def _value_spec(self, value: ast.expr | None, module: Module, kind: str) -> FieldSpec:
        """FieldSpec from a class attribute's right-hand side (`= 3`, `= Field(...)`)."""
        if value is None:
            return FieldSpec()
        if isinstance(value, ast.Call):
            called = (
                self._resolve(value.func, module, strict=False) if dotted_name(value.func) else None
            )
            if called is not None and called.path in FIELD_CALLS:
                return self.field_call(value, module)
            if called is not None and called.path in DATACLASS_FIELD_CALLS:
                spec = FieldSpec()
                for kw in value.keywords:
                    if kw.arg == "default":
                        spec.default = self._literal(kw.value, module)
                    elif kw.arg == "default_factory":
                        spec.has_factory = True
                return spec
        return FieldSpec(default=self._literal(value, module))

    def _typeddict_required(self, annotation: ast.expr, module: Module, total: bool) -> bool:
        node = annotation
        while True:
            node = self._forward_ref(node, module) if _is_str(node) else node
            if not isinstance(node, ast.Subscript):
                return total
            path = self._resolve(node.value, module, strict=False).path
            if path == "typing.Required":
                return True
            if path == "typing.NotRequired":
                return False
            if path in ("typing.Annotated", "typing.ReadOnly"):
                node = _subscript_args(node)[0]
                continue
            return total

    # -- helpers ---------------------------------------------------------------------------
    def _union(self, members: list[ast.expr], module: Module) -> Schema:
        """Like typing and pydantic: nested unions are flattened and `None` goes last, while
        a member that is a union only in its schema (an `Annotated` one) keeps its order."""
        branches: list[Schema] = []
        has_none = False
        for member, home in self._flat_members(members, module, 0):
            if isinstance(member, ast.Constant) and member.value is None:
                has_none = True
                continue
            if self._is_skipped(member, home):
                continue  # `X | SkipJsonSchema[None]`: accepted, but not shown in the schema
            schema = self.schema(member, home)
            for branch in schema["anyOf"] if set(schema) == {"anyOf"} else [schema]:
                if branch not in branches:
                    branches.append(branch)
        if has_none and {"type": "null"} not in branches:
            branches.append({"type": "null"})
        return branches[0] if len(branches) == 1 else {"anyOf": branches}

    def _flat_members(
        self, members: list[ast.expr], module: Module, depth: int
    ) -> list[tuple[ast.expr, Module]]:
        """Union members with nested unions (written out, or through a plain alias) expanded,
        as `typing` itself flattens them."""
        flat: list[tuple[ast.expr, Module]] = []
        for member in members:
            node, home = member, module
            if _is_str(node):
                node = self._forward_ref(node, home)
            if isinstance(node, ast.Name | ast.Attribute) and depth < 20:
                symbol = self._resolve(node, home, strict=False, follow=True)
                if symbol.kind == "assign" and symbol.module:
                    value = symbol.node
                    if isinstance(value, ast.expr) and self._union_members(value, symbol.module):
                        node, home = value, symbol.module
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
                flat += self._flat_members(_flatten_or(node), home, depth + 1)
                continue
            if isinstance(node, ast.Subscript) and dotted_name(node.value):
                path = self._resolve(node.value, home, strict=False).path
                if path in ("typing.Union", "typing.Optional"):
                    args = _subscript_args(node)
                    if path == "typing.Optional":
                        args = [*args[:1], ast.Constant(None)]
                    flat += self._flat_members(args, home, depth + 1)
                    continue
            flat.append((node, home))
        return flat

    def refers_to(
        self, node: ast.expr, module: Module, paths: frozenset[str], depth: int = 0
    ) -> bool:
        """Does the annotation name one of `paths` (a framework's context type), also as
        `Ctx[...]`, `Optional[Ctx]`, `Annotated[Ctx, ...]` or through an alias?"""
        if depth > 20:
            return False
        if _is_str(node):
            try:
                node = self._forward_ref(node, module)
            except TypeProblem:
                return False
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return any(self.refers_to(n, module, paths, depth + 1) for n in _flatten_or(node))
        if isinstance(node, ast.Subscript):
            origin = self._resolve(node.value, module, strict=False)
            if origin.path in ("typing.Optional", "typing.Union", "typing.Annotated"):
                args = _subscript_args(node)
                args = args[:1] if origin.path == "typing.Annotated" else args
                return any(self.refers_to(a, module, paths, depth + 1) for a in args)
            node = node.value
        if dotted_name(node) is None:
            return False
        symbol = self._resolve(node, module, strict=False)
        if symbol.path in paths:
            return True
        if symbol.kind == "assign" and isinstance(symbol.node, ast.expr) and symbol.module:
            return self.refers_to(symbol.node, symbol.module, paths, depth + 1)
        return False

    def _is_skipped(self, node: ast.expr, module: Module) -> bool:
        if _is_str(node):
            node = self._forward_ref(node, module)
        if not isinstance(node, ast.Subscript) or dotted_name(node.value) is None:
            return False
        return self._resolve(node.value, module, strict=False).path == ("pydantic.SkipJsonSchema")

    def _literal(self, node: ast.expr, module: Module) -> Any:
        """A value in metadata (`Field(ge=MIN)`, `MinLen(3)`, a class attribute's default);
        TG205 at what is not static."""
        try:
            return fold(node, module, self.index, self.scope)
        except NotStatic as exc:
            raise self.problem("TG205", exc.why, exc.node, exc.module) from None

    def literal_default(self, node: ast.expr, module: Module) -> Any:
        """A parameter's default; TG206 when it is not static."""
        try:
            return fold(node, module, self.index, self.scope)
        except NotStatic as exc:
            raise self.problem("TG206", f"default {exc.why}", node, module) from None

    def _forward_ref(self, node: ast.expr, module: Module) -> ast.expr:
        assert isinstance(node, ast.Constant) and isinstance(node.value, str)
        try:
            parsed = ast.parse(node.value.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # also NUL, lone surrogate
            raise self.problem(
                "TG202", f"string annotation {node.value!r} is not valid Python", node, module
            ) from None
        for child in ast.walk(parsed):  # positions inside the string point at the string
            if hasattr(child, "lineno"):
                child.lineno, child.col_offset = node.lineno, node.col_offset  # type: ignore[attr-defined]
        return parsed

    def problem(self, code: str, message: str, node: ast.AST, module: Module) -> TypeProblem:
        """A located diagnostic; one met in a library module is located at the project's
        annotation that led there, with the library's place in its message."""
        if module.library and self._anchor is not None:
            at, home = self._anchor
            message = f"{message} (in the installed module {module.name}, {module.location(node)})"
            return TypeProblem(Diagnostic(code, message, home.location(at)))
        return TypeProblem(Diagnostic(code, message, module.location(node)))


def property_name(spec: FieldSpec, name: str, generate: Callable[[str], str] | None = None) -> str:
    """The name pydantic validates a field or parameter by (and gives its property): its
    `validation_alias`, else its `alias`, else what the model's alias generator makes of
    `name`, else `name`."""
    if spec.validation_alias is not None:
        return spec.validation_alias or name
    if spec.alias:
        return spec.alias
    return generate(name) if generate is not None else name


def _known(path: str) -> bool:
    """Whether toolgen's table answers for the external `path` (it is never read)."""
    return path in EXTERNAL_KINDS or well_known(path)


def _stdlib(path: str) -> bool:
    """Whether the external `path` is in Python's standard library (never in a library root)."""
    return path.partition(".")[0] in sys.stdlib_module_names


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def constraint_problem(key: str, value: Any) -> str | None:
    """Why `value` is no value for constraint `key` (None: it is one): bounds are finite
    numbers, `multiple_of` one above 0, lengths whole numbers from 0, a pattern a regular
    expression that compiles."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if key in NUMERIC_CONSTRAINTS:
        if not number or not math.isfinite(value):
            return "must be a finite number"
        if key == "multiple_of" and value <= 0:
            return "must be greater than 0"
    elif key in ("min_length", "max_length"):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return "must be a whole number, 0 or more"
    elif key == "pattern":
        if not isinstance(value, str):
            return "must be a string"
        try:
            re.compile(value)
        except re.error as exc:
            return f"is not a regular expression ({exc})"
    return None


def _applies(key: str, kind: Any) -> bool:
    if key in NUMERIC_CONSTRAINTS:
        return kind in ("integer", "number")
    if key in ("min_length", "max_length"):
        return kind in LENGTH_KEYS
    return key == "pattern" and kind == "string"


def _flatten_or(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_flatten_or(node.left), *_flatten_or(node.right)]
    return [node]


def _subscript_args(node: ast.Subscript) -> list[ast.expr]:
    inner = node.slice
    return list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]


def _is_str(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _json_type(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _hashable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool) or value is None


def _text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover
        return type(node).__name__
