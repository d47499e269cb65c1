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
from collections.abc import Callable

from toolgen.analyze.field_spec import MISSING, FieldSpec
from toolgen.analyze.type_base import (
    Schema,
    TypeProblem,
    flatten_or,
    is_str,
    subscript_args,
    text_of,
)
from toolgen.analyze.type_classes import ClassSchemas
from toolgen.analyze.type_metadata import FIELD_CALLS, MetadataSchemas, claimed, property_name
from toolgen.analyze.type_primitives import PrimitiveSchemas
from toolgen.analyze.type_tables import EXTERNAL_KINDS
from toolgen.read.index import Module, Symbol, dotted_name

__all__ = [
    "FIELD_CALLS",
    "MISSING",
    "FieldSpec",
    "Schema",
    "SchemaBuilder",
    "TypeProblem",
    "claimed",
    "property_name",
]


class SchemaBuilder(PrimitiveSchemas, MetadataSchemas, ClassSchemas):
    """Builds schemas for one tool's parameters (or returns); collects the shared `$defs`.

    `schema` dispatches on the kind of the resolved type to the method `<kind>_schema` of the
    part that knows it: scalars, containers and unions (`type_primitives`), `Annotated` and
    `Field` metadata (`type_metadata`), named classes and aliases (`type_classes`); what they
    share (state, resolving names, folding values, locating problems) is `type_base`'s.
    """

    def schema(self, node: ast.expr, module: Module) -> Schema:
        """The schema of the type written as `node` in `module`."""
        outer = self._reads(node, module)
        try:
            return self._schema(node, module)
        finally:
            self._leaves(outer)

    def _schema(self, node: ast.expr, module: Module) -> Schema:
        if isinstance(node, ast.Constant):
            if node.value is None:
                return {"type": "null"}
            if isinstance(node.value, str):
                return self.schema(self._forward_ref(node, module), module)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self._union([*flatten_or(node)], module)
        if isinstance(node, ast.Subscript):
            symbol = self._resolve(node.value, module)
            return self._dispatch(symbol, node, module, subscript_args(node))
        if isinstance(node, ast.Name | ast.Attribute):
            return self._dispatch(self._resolve(node, module), node, module, None)
        if isinstance(node, ast.Call):
            return self.call_schema(node, module)
        raise self.problem("TG202", f"unsupported annotation `{text_of(node)}`", node, module)

    def _dispatch(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        self.counted()
        kind = self._kind_of(symbol)
        if kind is None:
            raise self.problem(
                "TG202", f"`{text_of(node)}` ({symbol.path}) is not a supported type", node, module
            )
        method: Callable[[Symbol, ast.expr, Module, list[ast.expr] | None], Schema] | None
        method = getattr(self, f"{kind}_schema", None)
        if method is None:  # a kind `_kind_of` gives without its method: our bug
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

    def _unquoted(self, node: ast.expr, module: Module) -> ast.expr | None:
        """An annotation as written, a quoted one read; None when the quotes hold no type."""
        if not is_str(node):
            return node
        try:
            return self._forward_ref(node, module)
        except TypeProblem:
            return None

    def marked_with(
        self, node: ast.expr, module: Module, paths: frozenset[str], depth: int = 0
    ) -> bool:
        """Does `Annotated[T, ...]` (also through an alias, or in `Optional[...]`) carry one of
        `paths` among its metadata, as the class or an instance (`InjectedState("x")`)?"""
        unquoted = self._unquoted(node, module) if depth <= 20 else None
        if unquoted is None:
            return False
        node = unquoted
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return any(self.marked_with(n, module, paths, depth + 1) for n in flatten_or(node))
        if isinstance(node, ast.Subscript):
            origin = self._resolve(node.value, module, strict=False)
            args = subscript_args(node)
            if origin.path == "typing.Annotated":
                return any(self.is_marker(m, module, paths, depth + 1) for m in args[1:])
            if origin.path in ("typing.Optional", "typing.Union"):
                return any(self.marked_with(a, module, paths, depth + 1) for a in args)
            return False
        if dotted_name(node) is None:
            return False
        symbol = self._resolve(node, module, strict=False)
        if symbol.kind == "assign" and isinstance(symbol.node, ast.expr) and symbol.module:
            return self.marked_with(symbol.node, symbol.module, paths, depth + 1)
        return False

    def is_marker(self, meta: ast.expr, module: Module, paths: frozenset[str], depth: int) -> bool:
        """Is `Annotated` metadata `meta` one of `paths` as the framework tells it: the class or
        an instance of it or of a subclass (LangChain checks `isinstance`/`issubclass`), also
        through a name bound to one (`Inj = InjectedToolArg`)?"""
        named = meta.func if isinstance(meta, ast.Call) else meta
        if depth > 20 or dotted_name(named) is None:
            return False
        symbol = self._resolve(named, module, strict=False)
        if symbol.path in paths:
            return True
        if symbol.module is None:
            return False
        if symbol.kind == "assign" and isinstance(symbol.node, ast.expr):
            return self.is_marker(symbol.node, symbol.module, paths, depth + 1)
        if symbol.kind == "class" and isinstance(symbol.node, ast.ClassDef):
            bases = symbol.node.bases
            return any(self.is_marker(b, symbol.module, paths, depth + 1) for b in bases)
        return False

    def refers_to(
        self, node: ast.expr, module: Module, paths: frozenset[str], depth: int = 0
    ) -> bool:
        """Does the annotation name one of `paths` (a framework's context type), also as
        `Ctx[...]`, `Optional[Ctx]`, `Annotated[Ctx, ...]` or through an alias?"""
        unquoted = self._unquoted(node, module) if depth <= 20 else None
        if unquoted is None:
            return False
        node = unquoted
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return any(self.refers_to(n, module, paths, depth + 1) for n in flatten_or(node))
        if isinstance(node, ast.Subscript):
            origin = self._resolve(node.value, module, strict=False)
            if origin.path in ("typing.Optional", "typing.Union", "typing.Annotated"):
                args = subscript_args(node)
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
