"""Named types: enums, TypedDicts, dataclasses and pydantic models (their fields, config and
aliases), and type aliases, plain (`X = int | str`) or named (a `$defs` entry of its own)."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import alias_generators

from toolgen.analyze.field_spec import MISSING, FieldSpec
from toolgen.analyze.folding import ENUM_BASES, NotStatic, enum_values
from toolgen.analyze.type_base import (
    BuilderBase,
    Schema,
    is_str,
    json_type,
    subscript_args,
    text_of,
)
from toolgen.analyze.type_metadata import FIELD_CALLS, claimed, property_name
from toolgen.analyze.type_tables import CON_FUNCTIONS
from toolgen.diagnostics import Diagnostic
from toolgen.read.index import Module, Symbol, dotted_name
from toolgen.schema_ops import drop_titles

TYPEDDICT_BASES = frozenset({"typing.TypedDict"})
MODEL_BASES = frozenset({"pydantic.BaseModel"})
DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
DATACLASS_FIELD_CALLS = frozenset({"dataclasses.field"})
#: pydantic's own alias generators (pure functions of a field name), by path.
ALIAS_GENERATORS: dict[str, Callable[[str], str]] = {
    "pydantic.alias_generators.to_camel": alias_generators.to_camel,
    "pydantic.alias_generators.to_pascal": alias_generators.to_pascal,
    "pydantic.alias_generators.to_snake": alias_generators.to_snake,
}
ALIAS_GENERATOR_CLASSES = frozenset({"pydantic.AliasGenerator", "pydantic.aliases.AliasGenerator"})
#: The keys of a model's config read as values (`alias_generator` is read apart).
CONFIG_KEYS = frozenset(
    {"extra", "json_schema_extra", "arbitrary_types_allowed", "use_attribute_docstrings"}
)


@dataclass
class ClassField:
    name: str
    annotation: ast.expr
    value: ast.expr | None
    module: Module
    total: bool = True  # TypedDict: the `total=` of the class that declares the field
    owner: Symbol | None = None  # the class that declares the field
    #: where the field is named in its class; its docstring (the string after it), if any
    target: ast.expr | None = None
    doc: str | None = None


class ClassSchemas(BuilderBase):
    """Named classes and type aliases: `$defs` entries referenced with `$ref`, like pydantic."""

    def alias_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        value, home = symbol.node, symbol.module
        assert home is not None
        if not isinstance(value, ast.expr):
            raise self.problem("TG202", f"`{text_of(node)}` is not a type", node, module)
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
                    "TG202", f"`{text_of(node)}` is bound to a call, not a type", node, module
                )
        if args:
            raise self.problem(
                "TG202", f"generic alias `{text_of(node)}` not supported", node, module
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
                "TG202", f"generic alias `{text_of(node)}` not supported", node, module
            )
        return self._named(symbol, "typealias")

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

    def enum_schema(self, symbol: Symbol, node: ast.expr, module: Module, _: Any) -> Schema:
        return self._named(symbol, "enum")

    def typeddict_schema(self, symbol: Symbol, node: ast.expr, module: Module, _: Any) -> Schema:
        return self._named(symbol, "typeddict")

    def dataclass_schema(self, symbol: Symbol, node: ast.expr, module: Module, _: Any) -> Schema:
        return self._named(symbol, "dataclass")

    def model_schema(self, symbol: Symbol, node: ast.expr, module: Module, _: Any) -> Schema:
        return self._named(symbol, "model")

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

    def _named(self, symbol: Symbol, kind: str) -> Schema:
        self._named_refs += 1
        name = self._def_names.get(symbol.path)
        if name is None:
            name = symbol.path.rsplit(".", 1)[-1]
            if name in self.defs:
                name = symbol.path.replace(".", "__")
            self._def_names[symbol.path] = name
            self.defs[name] = {}
            saved = self._body_apart()
            try:
                self.defs[name] = self._class_body(symbol, kind)
            finally:
                self._body_done(saved)
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
        # a model's own config decides for its fields; a dataclass's, the model's around it
        key = (node, symbol.path, kind, extra, kind != "model" and self.arbitrary)
        found = self._bodies.get(key, self.index)
        if found is not None:
            body, notes = found
            self.notes.extend(notes)
            return body
        refs, told = self._named_refs, len(self.notes)
        with self.index.tracking() as used:
            body = self._build_body(symbol, kind)
        if self._named_refs == refs:  # no `$ref` in it: the same in every builder
            self._bodies.put(key, body, used, self.index, tuple(self.notes[told:]))
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
        types = {json_type(v) for v in values}
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
        for i, stmt in enumerate(node.body):
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                name = stmt.target.id
                if (
                    name.startswith("_")
                    or name == "model_config"
                    or self._is_classvar(stmt.annotation, module)
                ):
                    continue
                after = node.body[i + 1] if i + 1 < len(node.body) else None
                doc = _text(after) if after is not None else None
                fields[name] = ClassField(
                    name,
                    stmt.annotation,
                    stmt.value,
                    module,
                    total,
                    owner=symbol,
                    target=stmt.target,
                    doc=doc,
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
        """`model_config = ConfigDict(...)` (or a dict) of a model and its bases, as literals
        (read once per class and builder: not to be changed)."""
        node = symbol.node
        assert isinstance(node, ast.ClassDef)
        found = self._configs.get(node)
        if found is None:
            found = self._configs[node] = self._read_model_config(symbol)
        return found

    def _read_model_config(self, symbol: Symbol) -> dict[str, Any]:
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
                    if kw.arg in CONFIG_KEYS:
                        config[kw.arg] = self._literal(kw.value, module)
                    elif kw.arg == "alias_generator":
                        config[kw.arg] = self._alias_generator(kw.value, module)
            elif isinstance(value, ast.Dict):
                for key, item in zip(value.keys, value.values, strict=True):
                    name = key.value if isinstance(key, ast.Constant) else None
                    if name in CONFIG_KEYS:
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
            f"alias_generator `{text_of(node)}` cannot be applied without running it: use one "
            f"of pydantic.alias_generators ({known}), or give each field an alias"
        )
        raise self.problem("TG202", message, node, module)

    def _is_classvar(self, annotation: ast.expr, module: Module) -> bool:
        target = annotation.value if isinstance(annotation, ast.Subscript) else annotation
        found = self._resolve(target, module, strict=False) if dotted_name(target) else None
        return found is not None and found.path == "typing.ClassVar"

    def _object_body(self, symbol: Symbol, kind: str) -> Schema:
        config = self.model_config(symbol) if kind == "model" else {}
        extra = config.get("extra") if kind == "model" else self._extra[-1]
        arbitrary = config.get("arbitrary_types_allowed") is True if kind == "model" else None
        if kind == "dataclass" and self._is_pydantic_dataclass(symbol):
            extra, arbitrary = None, False  # a pydantic dataclass has a config of its own
        self._extra.append(extra)
        self._arbitrary.append(self.arbitrary if arbitrary is None else arbitrary)
        try:
            out = self._fields_body(symbol, kind)
        finally:
            self._extra.pop()
            self._arbitrary.pop()
        if extra in ("forbid", "allow"):
            out["additionalProperties"] = extra == "allow"
        if isinstance(config.get("json_schema_extra"), dict):
            if symbol.node is not None and symbol.module is not None:  # a project model's
                self._check_extra(config["json_schema_extra"], symbol.node, symbol.module)
            out.update(drop_titles(config["json_schema_extra"]))
        return out

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
        owners: dict[str, str] = {}  # a property's name: the field that has it
        for f in self.class_fields(symbol):
            spec = self._value_spec(f.value, f.module, kind)
            if spec.description is None and f.doc is not None and self._reads_docs(f, kind):
                spec.description = inspect.cleandoc(f.doc)
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
            if name in properties:
                raise self.problem(
                    "TG210", claimed(name, owners[name], f.name), f.annotation, f.module
                )
            owners[name] = f.name
            properties[name] = schema
            if "description" not in schema:
                self._undescribed(f, kind)
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

    def _reads_docs(self, f: ClassField, kind: str) -> bool:
        """Does pydantic describe field `f` by the string after it? For a model's field, when
        the config of the class that declares it says `use_attribute_docstrings=True`."""
        if kind != "model" or f.owner is None:
            return False
        return self.model_config(f.owner).get("use_attribute_docstrings") is True

    def _undescribed(self, f: ClassField, kind: str) -> None:
        """TG309 at field `f` of a project class: its schema has no description. Named by its
        class (`Address.street`), which is where it is fixed, and told once per class and
        tool however many parameters reach it (a shared body tells its notes again)."""
        if f.module.library or f.owner is None or f.target is None:
            return  # an installed package's model: not the project's to describe
        owner = f.owner.path.rsplit(".", 1)[-1]
        how = (
            "give it Field(description=...), or a docstring below it "
            "(with use_attribute_docstrings=True)"
            if kind == "model"
            else "give it Annotated[..., Field(description=...)]"
            if kind == "typeddict"
            else "give it Field(description=...)"
        )
        message = f"field `{owner}.{f.name}` is not described: {how}"
        self.notes.append(Diagnostic("TG309", message, f.module.location(f.target)))

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
            node = self._forward_ref(node, module) if is_str(node) else node
            if not isinstance(node, ast.Subscript):
                return total
            path = self._resolve(node.value, module, strict=False).path
            if path == "typing.Required":
                return True
            if path == "typing.NotRequired":
                return False
            if path in ("typing.Annotated", "typing.ReadOnly"):
                node = subscript_args(node)[0]
                continue
            return total


def _text(stmt: ast.stmt) -> str | None:
    """The string `stmt` is, when it is one written alone (an attribute's docstring)."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        value = stmt.value.value
        return value if isinstance(value, str) else None
    return None
