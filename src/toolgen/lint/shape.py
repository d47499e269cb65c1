"""Rules on a tool's parameters, results, writes and examples (issue 30)."""

from __future__ import annotations

from toolgen.lint.context import Rule

RULES: dict[str, Rule] = {}
