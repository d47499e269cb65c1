"""Good-practice rules (TG9xx): on each finished descriptor, and on each catalog as a whole.

`lint(tool, context)` runs every rule in `RULES_BY_CODE`. A rule returns the message and the node
to point at, or nothing; the caller turns that into a located diagnostic, so suppressions and
configured levels apply like everywhere else. `lint_catalog(tools)` runs the rules that need a
catalog's visible tools side by side (near-duplicate siblings, the size of the set), as
`CatalogTool`s; each finding names the tool it is located at.

The rules live by subject: `practice` (names, length, parameter shapes, write safety),
`wording` (what a description and names say), `shape` (parameters, results, writes,
examples), `catalog` (tools side by side).
"""

from __future__ import annotations

from toolgen.descriptor import ToolDescriptor
from toolgen.lint import catalog, practice, shape, wording
from toolgen.lint.catalog import CatalogFinding, CatalogTool
from toolgen.lint.context import Finding, LintContext, Rule

RULES_BY_CODE: dict[str, Rule] = {**practice.RULES, **wording.RULES, **shape.RULES}


def lint(tool: ToolDescriptor, ctx: LintContext) -> list[Finding]:
    return [finding for rule in RULES_BY_CODE.values() for finding in rule(tool, ctx)]


def lint_catalog(tools: list[CatalogTool]) -> list[CatalogFinding]:
    return [finding for rule in catalog.RULES.values() for finding in rule(tools)]


__all__ = [
    "RULES_BY_CODE",
    "CatalogFinding",
    "CatalogTool",
    "Finding",
    "LintContext",
    "lint",
    "lint_catalog",
]
