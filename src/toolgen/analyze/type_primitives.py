"""Schemas of the types that are not classes: scalars, formats, pydantic's ready-made types,
containers, unions and literals."""

from __future__ import annotations

import ast
from typing import Any

from toolgen.analyze.type_base import (
    BuilderBase,
    Schema,
    flatten_or,
    is_str,
    json_type,
    subscript_args,
    text_of,
)
from toolgen.analyze.type_tables import FIXED_SCHEMAS, INSTANCE_ONLY, STRING_FORMATS
from toolgen.read.index import Module, Symbol, dotted_name


class PrimitiveSchemas(BuilderBase):
    """One `<kind>_schema` per kind of scalar, container and union (see `types.EXTERNAL_KINDS`)."""

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
            message = f"`{text_of(node)}`: a mapping takes two types, keys and values"
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
        if len(args) == 1 and not isinstance(args[0], ast.Constant) and isinstance(values[0], list):
            # `Literal[NAMES]` of a tuple: the subscript's tuple is its arguments, as Python
            # reads `Literal[("a", "b")]` (folded data has no tuples: one list stands for it)
            values = values[0]
        if all(_hashable(v) for v in values):  # dedupe, keeping 1 and True apart
            values = list({(type(v), v): v for v in values}.values())
        types = {json_type(v) for v in values}
        out: Schema = {"const": values[0]} if len(values) == 1 else {"enum": values}
        if len(types) == 1:
            out["type"] = types.pop() or "null"  # Literal[None]: pydantic says "null"
        return out

    def qualifier_schema(
        self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
    ) -> Schema:
        if not args:
            raise self.problem("TG202", f"{symbol.path} needs a type", node, module)
        return self.schema(args[0], module)

    def _union(self, members: list[ast.expr], module: Module) -> Schema:
        """Like typing and pydantic: nested unions are flattened and `None` goes last, while
        a member that is a union only in its schema (an `Annotated` one) keeps its order."""
        branches: list[Schema] = []
        has_none = False
        instance_only: tuple[ast.expr, Module] | None = None  # the first member left out
        for member, home in self._flat_members(members, module, 0):
            if isinstance(member, ast.Constant) and member.value is None:
                has_none = True
                continue
            if self._is_skipped(member, home):
                continue  # `X | SkipJsonSchema[None]`: accepted, but not shown in the schema
            if self.arbitrary and self._instance_only(member, home):
                instance_only = instance_only or (member, home)
                continue
            schema = self.schema(member, home)
            for branch in schema["anyOf"] if set(schema) == {"anyOf"} else [schema]:
                if branch not in branches:
                    branches.append(branch)
        if instance_only is not None and not branches:
            # pydantic has no schema for a union of such types alone: say which, as for one
            return self.schema(*instance_only)
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
            if is_str(node):
                node = self._forward_ref(node, home)
            if isinstance(node, ast.Name | ast.Attribute) and depth < 20:
                symbol = self._resolve(node, home, strict=False, follow=True)
                if symbol.kind == "assign" and symbol.module:
                    value = symbol.node
                    if isinstance(value, ast.expr) and self._union_members(value, symbol.module):
                        node, home = value, symbol.module
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
                flat += self._flat_members(flatten_or(node), home, depth + 1)
                continue
            if isinstance(node, ast.Subscript) and dotted_name(node.value):
                path = self._resolve(node.value, home, strict=False).path
                if path in ("typing.Union", "typing.Optional"):
                    args = subscript_args(node)
                    if path == "typing.Optional":
                        args = [*args[:1], ast.Constant(None)]
                    flat += self._flat_members(args, home, depth + 1)
                    continue
            flat.append((node, home))
        return flat

    def _union_members(self, node: ast.expr, module: Module) -> int:
        """How many types other than None a union annotation names (0: not a union)."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            members = flatten_or(node)
        elif isinstance(node, ast.Subscript) and dotted_name(node.value):
            path = self._resolve(node.value, module, strict=False).path
            if path not in ("typing.Union", "typing.Optional"):
                return 0
            members = subscript_args(node)
        else:
            return 0
        return sum(
            1
            for m in members
            if not (isinstance(m, ast.Constant) and m.value is None)
            and not self._is_skipped(m, module)
        )

    def _instance_only(self, node: ast.expr, module: Module) -> bool:
        """Is `node` a type pydantic checks only with `isinstance` (no JSON schema)?"""
        if dotted_name(node) is None:
            return False
        return self._resolve(node, module, strict=False).path in INSTANCE_ONLY

    def _is_skipped(self, node: ast.expr, module: Module) -> bool:
        if is_str(node):
            node = self._forward_ref(node, module)
        if not isinstance(node, ast.Subscript) or dotted_name(node.value) is None:
            return False
        return self._resolve(node.value, module, strict=False).path == ("pydantic.SkipJsonSchema")


def _hashable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool) or value is None
