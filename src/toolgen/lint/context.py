"""What a lint rule is given and what it gives back."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from toolgen.descriptor import ToolDescriptor

Finding = tuple[str, str, ast.AST | None]  # code, message, where (None: the handler)


@dataclass(frozen=True)
class LintContext:
    params: dict[str, ast.AST]  # exposed parameter name -> its node
    has_default: dict[str, bool]


Rule = Callable[[ToolDescriptor, LintContext], Iterator[Finding]]
