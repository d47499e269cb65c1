"""Calls folded: the project's small helper functions (arguments bound as Python binds them,
then a body of assignments, `if`s and `return`s), a few pure builtins, string and dict
methods, records (`ToolAnnotations(...)`: the dict of its keywords) and enum lookups."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from toolgen.analyze.fold_base import (
    MAX_LENGTH,
    Ctx,
    NotStatic,
    equal_form,
    is_int,
    source,
    type_name,
    which,
)
from toolgen.read.index import Module, Symbol, dotted_name

if TYPE_CHECKING:
    from toolgen.analyze.folding import Folder

#: decorators that leave what a helper returns as its body says
TRANSPARENT_DECORATORS = frozenset({"functools.cache", "functools.lru_cache"})

_STR_METHODS = frozenset(
    {"lower", "upper", "strip", "lstrip", "rstrip", "startswith", "endswith", "removeprefix"}
    | {"removesuffix", "replace", "split", "join", "format"}
)
_BUILTINS = frozenset(
    {"list", "tuple", "set", "frozenset", "sorted", "dict", "len", "str", "int", "float", "bool"}
    | {"range", "enumerate", "zip"}
)
_FELL_OFF = object()  # a helper body that ended without `return`


class CallFolder:
    """The call part of a `Folder`."""

    def __init__(self, folder: Folder) -> None:
        self.folder = folder

    def call(self, node: ast.Call, ctx: Ctx) -> Any:
        """A call: of a helper, a builtin, a method, a record or an enum."""
        func, shown = node.func, source(node)
        if not isinstance(func, ast.Name | ast.Attribute):
            raise NotStatic(node, ctx.module, f"`{shown}` calls the result of an expression")
        written = dotted_name(func) or ""
        if self.folder.is_local(func, ctx):
            if isinstance(func, ast.Attribute):
                return self.method(node, func, ctx)
            folder = self.folder
            try:
                value = folder.value(func, ctx)
            except NotStatic as exc:
                raise folder.wrap(exc, f"`{shown}` calls `{written}`", func, node, ctx) from None
            raise NotStatic(node, ctx.module, f"`{shown}` calls a {type_name(value)}")
        symbol = self.folder.index.resolve_expr(ctx.module, func)
        if symbol is None and isinstance(func, ast.Attribute):
            return self.method(node, func, ctx)  # `PREFIX.upper()`: a constant's method
        path = symbol.path if symbol is not None else written
        if self.folder.records(path):
            return self.record(node, ctx)
        if symbol is None:
            if written in _BUILTINS and written not in ctx.module.names:
                # `sorted`, `len`: builtins the index does not list
                return self.builtin(written, node, ctx)
            undefined = self.folder.undefined(written, ctx.module)
            why = which(f"`{shown}` calls `{written}`", undefined, written)
            raise NotStatic(node, ctx.module, why)
        if symbol.module is None:
            name = path.removeprefix("builtins.")
            if path.startswith("builtins.") and name in _BUILTINS:
                return self.builtin(name, node, ctx)
            raise NotStatic(node, ctx.module, self.outside_call(shown, written, path))
        if symbol.kind == "function" and isinstance(
            symbol.node, ast.FunctionDef | ast.AsyncFunctionDef
        ):
            return self.helper(symbol, symbol.node, symbol.module, node, ctx)
        if symbol.kind == "class" and isinstance(symbol.node, ast.ClassDef):
            kind = self.folder.enums.kind(symbol.node, symbol.module)
            if kind is not None:
                return self.folder.enums.call(symbol, symbol.node, kind, node, ctx)
        what = "makes an object of class" if symbol.kind == "class" else "calls"
        why = f"`{shown}` {what} `{path}`, which toolgen does not evaluate"
        raise NotStatic(node, ctx.module, why)

    def outside_call(self, shown: str, written: str, path: str) -> str:
        if path.startswith("builtins."):
            name = path.removeprefix("builtins.")
            return f"`{shown}` calls the builtin `{name}`, which toolgen does not evaluate"
        unread = self.folder.unreadable(path)
        if unread:
            return f"`{shown}` calls `{written}`, from `{unread}`, which toolgen could not read"
        return (
            f"`{shown}` calls `{path}`, from outside the project's sources: its result is "
            "known only at run time"
        )

    def arguments(self, node: ast.Call, ctx: Ctx) -> tuple[list[Any], dict[str, Any]]:
        args = self.folder.items(node.args, ctx, ordered=True)
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            value = self.folder.value(kw.value, ctx)
            if kw.arg is not None:
                kwargs[kw.arg] = value
            elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
                kwargs.update(value)
            else:
                why = f"`**{source(kw.value)}` unpacks a {type_name(value)}, not a dict of names"
                raise NotStatic(kw.value, ctx.module, why)
        return args, kwargs

    def method(self, node: ast.Call, func: ast.Attribute, ctx: Ctx) -> Any:
        """A string's or dict's method of those toolgen evaluates."""
        owner = equal_form(self.folder.value(func.value, ctx))
        args, kwargs = self.arguments(node, ctx)
        name = func.attr
        if isinstance(owner, str) and name in _STR_METHODS:
            if name == "format":
                return self.folder.text.str_format(owner, args, kwargs, node, ctx)
            if name == "join" and len(args) == 1:
                items = self.folder.iterate(args[0], node, ctx, ordered=True)
                args = [[equal_form(i) for i in items]]
            if any(not _is_text_argument(a) for a in [*args, *kwargs.values()]):
                why = f"`{source(node)}` passes `{name}` arguments toolgen does not evaluate"
                raise NotStatic(node, ctx.module, why)
            if name == "replace" and len(args) >= 2 and isinstance(args[0], str):
                new = args[1] if isinstance(args[1], str) else ""
                if (owner.count(args[0]) + 1) * len(new) > MAX_LENGTH:
                    why = f"`{source(node)}` makes a value too large to fold"
                    raise NotStatic(node, ctx.module, why)
            result = self.folder.guard(node, ctx, lambda: getattr(owner, name)(*args, **kwargs))
            self.folder.check_size(result, node, ctx)
            return result
        if isinstance(owner, dict) and name == "get" and not kwargs and 1 <= len(args) <= 2:
            key, default = equal_form(args[0]), args[1] if args[1:] else None
            return self.folder.guard(node, ctx, lambda: owner.get(key, default))
        why = (
            f"`{source(node)}` calls the method `{name}` of a {type_name(owner)}, which toolgen "
            "does not evaluate"
        )
        raise NotStatic(node, ctx.module, why)

    def builtin(self, name: str, node: ast.Call, ctx: Ctx) -> Any:
        """`list(X)`, `sorted(X)`, `dict(a=1)`, `str(n)` ...: as Python computes them."""
        args, kwargs = self.arguments(node, ctx)
        refused = NotStatic(
            node, ctx.module, f"`{source(node)}` calls `{name}` in a way toolgen does not evaluate"
        )
        if name in ("range", "enumerate", "zip"):
            return self.sequence(name, args, kwargs, node, ctx, refused)
        if name == "dict":
            if len(args) > 1:
                raise refused
            out: dict[Any, Any] = {}
            if args and isinstance(args[0], dict):
                out.update(args[0])
            elif args:
                pairs = self.folder.iterate(args[0], node, ctx, ordered=True)
                self.folder.guard(node, ctx, lambda: out.update(dict(pairs)))
            out.update(kwargs)
            return out
        if len(args) > 1 or (kwargs and not (name == "sorted" and set(kwargs) == {"reverse"})):
            raise refused
        if name in ("list", "tuple", "set", "frozenset", "sorted"):
            ordered = name in ("list", "tuple")
            items = self.folder.iterate(args[0], node, ctx, ordered=ordered) if args else []
            if name == "list":
                return items
            if name == "tuple":
                return tuple(items)
            if name == "sorted":
                reverse = self.folder.truth(kwargs.get("reverse", False))
                flat = [equal_form(i, deep=True) for i in items]
                return self.folder.guard(node, ctx, lambda: sorted(flat, reverse=reverse))
            made = self.folder.guard(node, ctx, lambda: {equal_form(i) for i in items})
            return made if name == "set" else frozenset(made)
        if not args:
            empty = {"str": "", "int": 0, "float": 0.0, "bool": False}
            if name not in empty:
                raise refused
            return empty[name]
        value = args[0]
        if name == "len":
            if not isinstance(value, str | bytes | list | tuple | set | frozenset | dict):
                raise refused
            return len(value)
        if name == "str":  # as `!s` prints it
            return self.folder.text.text(value, "", "s", node, ctx)
        if name == "bool":
            return self.folder.truth(value)
        value = equal_form(value)
        if not isinstance(value, int | float | str):
            raise refused
        return self.folder.guard(node, ctx, lambda: (int if name == "int" else float)(value))

    def sequence(
        self,
        name: str,
        args: list[Any],
        kwargs: dict[str, Any],
        node: ast.Call,
        ctx: Ctx,
        refused: NotStatic,
    ) -> list[Any]:
        """`range(...)`, `enumerate(X, start)`, `zip(X, Y)`: what iterating them gives."""
        folder = self.folder
        if name == "range":
            if kwargs or not 1 <= len(args) <= 3 or not all(is_int(a) for a in args):
                raise refused
            numbers = folder.guard(node, ctx, lambda: range(*args))
            if len(numbers) > MAX_LENGTH:
                raise NotStatic(node, ctx.module, f"`{source(node)}` is too long to fold")
            return list(numbers)
        if name == "enumerate":
            start = kwargs.pop("start", args[1] if len(args) == 2 else 0)
            if kwargs or len(args) not in (1, 2) or not is_int(start):
                raise refused
            items = folder.iterate(args[0], node, ctx, ordered=True)
            return [(start + i, item) for i, item in enumerate(items)]
        if kwargs:
            raise refused
        columns = [folder.iterate(a, node, ctx, ordered=True) for a in args]
        return list(zip(*columns, strict=False))

    def record(self, node: ast.Call, ctx: Ctx) -> dict[str, Any]:
        """`ToolAnnotations(readOnlyHint=True)`: the dict of its keyword arguments."""
        args, kwargs = self.arguments(node, ctx)
        if args:
            why = f"`{source(node)}` passes positional arguments where keywords are read"
            raise NotStatic(node, ctx.module, why)
        return kwargs

    def helper(
        self,
        symbol: Symbol,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        home: Module,
        node: ast.Call,
        ctx: Ctx,
    ) -> Any:
        """A project function's result: its arguments bound, then its body evaluated (made of
        assignments, `if`s and `return`s)."""
        shown = source(node)
        if isinstance(fn, ast.AsyncFunctionDef):
            why = f"`{shown}` calls `{fn.name}`, a coroutine function: it makes no value itself"
            raise NotStatic(node, ctx.module, why)
        for decorator in fn.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            found = self.folder.index.resolve_expr(home, target)
            if found is None or found.path not in TRANSPARENT_DECORATORS:
                why = (
                    f"`{shown}` calls `{fn.name}`, which is decorated with "
                    f"`@{source(decorator)}`: toolgen does not run what that makes of it"
                )
                raise NotStatic(node, ctx.module, why)
        args, kwargs = self.arguments(node, ctx)
        self.folder.enter(f"call:{symbol.path}", shown, node, ctx)
        try:
            local = self.bind(fn, home, args, kwargs, node, ctx)
            result = self.run(fn.body, Ctx(home, None, local), fn)
        except NotStatic as exc:
            where = "" if home is ctx.module else f" ({home.location(fn)})"
            head = f"`{shown}` calls `{fn.name}`{where}"
            raise self.folder.wrap(exc, head, node, node, ctx) from None
        finally:
            self.folder.chain.pop()
        return None if result is _FELL_OFF else result

    def bind(
        self,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        home: Module,
        args: list[Any],
        kwargs: dict[str, Any],
        node: ast.Call,
        ctx: Ctx,
    ) -> dict[str, Any]:
        """The helper's parameters bound to the call's arguments, as Python binds them (the
        defaults folded where the helper is defined)."""
        a = fn.args
        positional = [*a.posonlyargs, *a.args]
        defaults: dict[str, ast.expr] = {}
        with_default = positional[len(positional) - len(a.defaults) :]
        for param, default in zip(with_default, a.defaults, strict=True):
            defaults[param.arg] = default
        for param, kw_default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
            if kw_default is not None:
                defaults[param.arg] = kw_default

        def refuse(message: str) -> NotStatic:
            why = f"`{source(node)}` raises TypeError ({fn.name}() {message})"
            return NotStatic(node, ctx.module, why)

        local: dict[str, Any] = {p.arg: v for p, v in zip(positional, args, strict=False)}
        extra = args[len(positional) :]
        if a.vararg is not None:
            local[a.vararg.arg] = tuple(extra)
        elif extra:
            raise refuse(f"takes {len(positional)} positional arguments, not {len(args)}")
        named = {p.arg for p in [*a.args, *a.kwonlyargs]}
        extras: dict[str, Any] = {}
        for key, value in kwargs.items():
            if key in named and key in local:
                raise refuse(f"got multiple values for argument '{key}'")
            if key in named:
                local[key] = value
            elif a.kwarg is not None:
                extras[key] = value
            else:
                raise refuse(f"got an unexpected keyword argument '{key}'")
        if a.kwarg is not None:
            local[a.kwarg.arg] = extras
        for param in [*positional, *a.kwonlyargs]:
            if param.arg not in local:
                if param.arg not in defaults:
                    raise refuse(f"missing required argument: '{param.arg}'")
                local[param.arg] = self.folder.value(defaults[param.arg], Ctx(home))
        return local

    def run(self, body: list[ast.stmt], ctx: Ctx, fn: ast.FunctionDef) -> Any:
        """What a helper's statements return (`_FELL_OFF` when they end without `return`)."""
        assert ctx.local is not None
        for stmt in body:
            if isinstance(stmt, ast.Pass) or _is_docstring(stmt):
                continue
            if isinstance(stmt, ast.Return):
                return None if stmt.value is None else self.folder.value(stmt.value, ctx)
            if isinstance(stmt, ast.If):
                test = self.folder.value(stmt.test, ctx)
                branch = stmt.body if self.folder.truth(test) else stmt.orelse
                result = self.run(branch, ctx, fn)
                if result is not _FELL_OFF:
                    return result
                continue
            targets: list[ast.expr] = []
            assigned: ast.expr | None = None
            if isinstance(stmt, ast.Assign):
                targets, assigned = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign):
                targets, assigned = [stmt.target], stmt.value
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if assigned is not None and len(names) == len(targets):
                value = self.folder.value(assigned, ctx)
                for name in names:
                    ctx.local[name] = value
                continue
            why = (
                f"line {stmt.lineno} of `{fn.name}` is {_statement(stmt)}: toolgen evaluates "
                "helpers made of assignments, `if`s and `return`s"
            )
            raise NotStatic(stmt, ctx.module, why)
        return _FELL_OFF


def _is_text_argument(value: Any) -> bool:
    """An argument a string method takes: text, a count, None, or strings (`startswith`)."""
    if isinstance(value, tuple | list):
        return all(isinstance(v, str) for v in value)
    return value is None or (isinstance(value, str | int) and not isinstance(value, bool))


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _statement(stmt: ast.stmt) -> str:
    kinds = {
        "For": "a `for` loop",
        "AsyncFor": "a `for` loop",
        "While": "a `while` loop",
        "Try": "a `try` statement",
        "With": "a `with` statement",
        "AsyncWith": "a `with` statement",
        "Raise": "a `raise`",
        "Expr": "an expression statement",
        "Import": "an import",
        "ImportFrom": "an import",
        "AugAssign": "an augmented assignment",
        "Match": "a `match` statement",
    }
    name = type(stmt).__name__
    return kinds.get(name, f"a statement toolgen does not run ({name})")
