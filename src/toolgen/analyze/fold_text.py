"""f-strings, `str.format` and `%` folded, with plain placeholders only: no attribute or index
in a field, widths and precisions of up to 3 digits, not the locale's `n`; an enum member
printed as every Python version prints it, or refused."""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolgen.analyze.fold_base import Ctx, Member, NotStatic, has_member, source

if TYPE_CHECKING:
    from toolgen.analyze.folding import Folder

#: a format spec toolgen applies: fill and align, sign, `#`, `0`, a width and precision of up
#: to 3 digits, grouping, and a type other than the locale's `n`
_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?#?0?\d{0,3}[,_]?(?:\.\d{1,3})?[bcdeEfFgGosxX%]?", re.S)
_PERCENT = re.compile(r"%(?:\((\w*)\))?[-+ #0]*\d{0,3}(?:\.\d{1,3})?[sdiouxXeEfFgGcra%]")


class TextFolder:
    """The text part of a `Folder`."""

    def __init__(self, folder: Folder) -> None:
        self.folder = folder

    def joined(self, node: ast.JoinedStr, ctx: Ctx) -> str:
        """An f-string."""
        parts: list[str] = []
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                spec = "" if part.format_spec is None else self.folder.value(part.format_spec, ctx)
                value = self.folder.value(part.value, ctx)
                conversion = chr(part.conversion) if part.conversion > 0 else ""
                parts.append(self.text(value, str(spec), conversion, node, ctx))
            else:
                parts.append(str(self.folder.value(part, ctx)))
            self.folder.check_size("".join(parts), node, ctx)
        return "".join(parts)

    def text(self, value: Any, spec: str, conversion: str, node: ast.AST, ctx: Ctx) -> str:
        """`format(value, spec)` after `!s`/`!r`/`!a`, as Python prints it on every version."""
        shown = source(node)
        if not _SPEC.fullmatch(spec):
            why = f"`{shown}` uses the format spec `{spec}`, which toolgen does not apply"
            raise NotStatic(node, ctx.module, why)
        value = self.printable(value, conversion, node, ctx)
        if conversion:
            converters: dict[str, Callable[[Any], str]] = {"s": str, "r": repr, "a": ascii}
            value = converters[conversion](value)
        text: str = self.folder.guard(node, ctx, lambda: format(value, spec))
        return text

    def printable(self, value: Any, conversion: str, node: ast.AST, ctx: Ctx) -> Any:
        """`value` with an enum member as what Python prints for it, through `str()` when
        `conversion` is "s", else through `format()`."""
        if isinstance(value, Member):
            text = value.str_text if conversion == "s" else value.format_text
            if conversion in ("r", "a"):
                why = f"`{source(node)}` prints the repr of `{value.text()}`"
                raise NotStatic(node, ctx.module, why)
            if text == "varies":
                how = "str()" if conversion else "format()"
                why = (
                    f"`{source(node)}` prints `{value.text()}` through {how}, which Python 3.10 "
                    "and 3.11 print differently: use `.value` or `.name`"
                )
                raise NotStatic(node, ctx.module, why)
            return value.value if text == "value" else value.text()
        if has_member(value):
            why = f"`{source(node)}` prints a container of enum members"
            raise NotStatic(node, ctx.module, why)
        return value

    def percent(self, template: str, args: Any, node: ast.BinOp, ctx: Ctx) -> str:
        rest = _PERCENT.sub("", template)
        reprs = any(m.group(0)[-1] in "ra" for m in _PERCENT.finditer(template))
        if reprs and has_member(args):
            why = f"`{source(node)}` prints the repr of an enum member"
            raise NotStatic(node, ctx.module, why)
        if "%" in rest:
            why = f"`{source(node)}` uses a `%` conversion toolgen does not apply"
            raise NotStatic(node, ctx.module, why)
        if isinstance(args, tuple):
            args = tuple(self.printable(a, "s", node, ctx) for a in args)
        elif isinstance(args, dict):
            args = {k: self.printable(v, "s", node, ctx) for k, v in args.items()}
        else:
            args = self.printable(args, "s", node, ctx)
        result: str = self.folder.guard(node, ctx, lambda: template % args)
        self.folder.check_size(result, node, ctx)
        return result

    def str_format(
        self, template: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call, ctx: Ctx
    ) -> str:
        try:
            fields = list(string.Formatter().parse(template))
        except ValueError as exc:
            raise NotStatic(
                node, ctx.module, f"`{source(node)}` raises ValueError ({exc})"
            ) from None
        converted = False
        for _, name, spec, conversion in fields:
            plain = name is None or name == "" or name.isdigit() or name.isidentifier()
            if not plain or (spec and not _SPEC.fullmatch(spec)) or "{" in (spec or ""):
                why = f"`{source(node)}` has a placeholder toolgen does not fill (`{{{name}}}`)"
                raise NotStatic(node, ctx.module, why)
            converted = converted or bool(conversion)
        if converted and has_member([args, kwargs]):
            why = f"`{source(node)}` converts enum members (`!s`, `!r`) in its placeholders"
            raise NotStatic(node, ctx.module, why)
        args = [self.printable(a, "", node, ctx) for a in args]
        kwargs = {k: self.printable(v, "", node, ctx) for k, v in kwargs.items()}
        result: str = self.folder.guard(node, ctx, lambda: template.format(*args, **kwargs))
        self.folder.check_size(result, node, ctx)
        return result
