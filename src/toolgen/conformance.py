"""Conformance levels of a tool contract (the seed specification's three levels).

- Level 1: the seven blocks are present: name, description, parameters, returns (described),
  at least one declared error, the idempotency hints (idempotent, safe, destructive) and at least
  one example.
- Level 2: level 1, every error carries the taxonomy (status, retryable, recovery for retryable
  ones), the open_world hint is stated too, and two or more examples including an error one.
- Level 3: level 2, 3-7 tool search keywords, a latency hint, and a version (and a replacement
  when deprecated): the deprecation policy.
"""

from __future__ import annotations

from toolgen.descriptor import ToolDescriptor

HINTS = ("idempotent", "safe", "destructive")


def missing_by_level(tool: ToolDescriptor) -> dict[int, list[str]]:
    """For each level, what the tool lacks to reach it (empty list: that level's own
    requirements are met)."""
    hints = tool.idempotency
    level1 = []
    if not tool.returns.description:
        level1.append("a Returns section")
    if not tool.errors:
        level1.append("an Errors section")
    unstated = [h for h in HINTS if getattr(hints, h) is None]
    if unstated:
        level1.append(f"Idempotency hints ({', '.join(unstated)})")
    if not tool.examples:
        level1.append("an example")
    level2 = []
    if any(e.retryable and not e.recovery for e in tool.errors):
        level2.append("a Recovery for every retryable error")
    if hints.open_world is None and tool.open_world is None:
        level2.append("the open_world hint")
    if len(tool.examples) < 2 or not any(e.error is not None for e in tool.examples):
        level2.append("two examples, one of them an error")
    level3 = []
    if not 3 <= len(tool.tool_search_keywords or []) <= 7:
        level3.append("3-7 search keywords")
    if tool.latency_p50_ms is None:
        level3.append("a latency hint (latency_p50_ms)")
    if tool.version is None:
        level3.append("a version")
    if tool.deprecated and not tool.replacement:
        level3.append("a replacement for the deprecated tool")
    return {1: level1, 2: level2, 3: level3}


def conformance_level(tool: ToolDescriptor) -> int:
    level = 0
    for number, missing in sorted(missing_by_level(tool).items()):
        if missing:
            break
        level = number
    return level
