"""What is said about a type beside it: `Field(...)`, `Annotated` metadata (annotated_types
markers, validators, `WithJsonSchema`), pydantic's `con*()` calls, and how each constrains,
describes or replaces the type's schema."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable
from typing import Any

from toolgen.analyze.field_spec import MISSING, FieldSpec, Step
from toolgen.analyze.type_base import (
    BuilderBase,
    Schema,
    TypeProblem,
    is_str,
    subscript_args,
    text_of,
)
from toolgen.analyze.type_tables import (
    BOUND_KEYWORDS,
    CON_CONSTRAINTS,
    CON_FUNCTIONS,
    CONSTRAINED_TYPES,
)
from toolgen.diagnostics import Diagnostic, Level
from toolgen.read.index import Module, Symbol, dotted_name
from toolgen.schema_ops import drop_titles

FIELD_CALLS = frozenset({"pydantic.Field"})
ALIAS_CHOICES = frozenset({"pydantic.AliasChoices", "pydantic.aliases.AliasChoices"})
ALIAS_PATHS = frozenset({"pydantic.AliasPath", "pydantic.aliases.AliasPath"})
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
#: `Field` arguments that only describe: one toolgen cannot read is left out, with a warning.
TEXT_ONLY = frozenset({"description", "examples"})
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


class MetadataSchemas(BuilderBase):
    """Field and `Annotated` metadata applied to a type's schema, in pydantic's order."""

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
                "TG202", f"`{text_of(call)}` is a call, not a type toolgen can read", call, module
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
        outer = self._reads(annotation, module)
        try:
            return self._field_schema(annotation, module, spec, nested)
        finally:
            self._leaves(outer)

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
            if is_str(inner):
                inner = self._forward_ref(inner, home)
            if isinstance(inner, ast.Subscript):
                resolved = self._resolve(inner.value, home)
                kind = self._kind_of(resolved)
                args = subscript_args(inner)
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
            type_args = subscript_args(inner) if isinstance(inner, ast.Subscript) else None
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
                f"`{text_of(node)}`: Annotated takes a type and at least one metadata item, "
                "as in Annotated[int, Field(ge=0)]"
            )
            raise self.problem("TG202", message, node, module)

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
            if kw.arg in TEXT_ONLY:
                try:
                    value = self._literal(kw.value, module)
                except TypeProblem as exc:  # the schema stays right without it
                    found = exc.diagnostic
                    why = f"{found.message}; published without Field({kw.arg}=...)"
                    self.notes.append(Diagnostic("TG205", why, found.location, Level.WARNING))
                    continue
            else:
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

    def unannotated_schema(
        self, spec: FieldSpec, where: ast.AST, module: Module, json_type: str | None = None
    ) -> tuple[Schema, FieldSpec]:
        """Schema of a parameter without an annotation: pydantic validates it as `Any` (any
        value, so no type) unless the framework says `json_type`, with what its default
        (`spec`) says."""
        merged = FieldSpec()
        merged.merge(spec)
        merged.steps = list(spec.steps)
        base: Schema = {"type": json_type} if json_type else {}
        return self.decorate(base, merged, where, module), merged

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


def property_name(spec: FieldSpec, name: str, generate: Callable[[str], str] | None = None) -> str:
    """The name pydantic validates a field or parameter by (and gives its property): its
    `validation_alias`, else its `alias`, else what the model's alias generator makes of
    `name`, else `name`."""
    if spec.validation_alias is not None:
        return spec.validation_alias or name
    if spec.alias:
        return spec.alias
    return generate(name) if generate is not None else name


def claimed(name: str, first: str, second: str) -> str:
    """TG210's message: `first` and then `second` take the property name `name`."""
    return (
        f"`{second}` takes the name `{name}` in the schema, which `{first}` already has (an "
        "alias or an alias generator): the schema would list it twice and one value would "
        "fill both; give each a name of its own"
    )


def constraint_problem(key: str, value: Any) -> str | None:
    """Why `value` is no value for constraint `key` (None: it is one): bounds are finite
    numbers, `multiple_of` one above 0, lengths whole numbers from 0, a pattern a regular
    expression that compiles."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if key in NUMERIC_CONSTRAINTS:
        # an int is finite (and `isfinite` cannot take one beyond a float's range)
        if not number or not (isinstance(value, int) or math.isfinite(value)):
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


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _applies(key: str, kind: Any) -> bool:
    if key in NUMERIC_CONSTRAINTS:
        return kind in ("integer", "number")
    if key in ("min_length", "max_length"):
        return kind in LENGTH_KEYS
    return key == "pattern" and kind == "string"
