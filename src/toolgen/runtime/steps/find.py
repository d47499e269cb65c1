"""Step 1, find: the tool's descriptor, or `NOT_FOUND` listing the callable tools.

A forbidden tool is answered exactly like one that does not exist: what an agent must not see,
it must not find.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime.result import ToolResult, unknown_tool
from toolgen.runtime.values import quote


def find(
    visible: Mapping[str, ToolDescriptor], name: str, trace_id: str
) -> ToolDescriptor | ToolResult:
    """The descriptor of `name` among the `visible` (callable) tools, else `NOT_FOUND`."""
    found = visible.get(name) if isinstance(name, str) else None
    if found is None or not found.visible:
        # a name that is no text is quoted (str() of an integer too long to print raises)
        shown = name if isinstance(name, str) else quote(name)
        return unknown_tool(shown, trace_id, list(visible))
    return found
