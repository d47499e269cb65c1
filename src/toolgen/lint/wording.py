"""Rules on what a tool's description and names say (issue 30)."""

from __future__ import annotations

from toolgen.lint.context import Rule

RULES: dict[str, Rule] = {}
