"""`toolgen.runtime`: the compiled contract at run time. The model proposes a call; the
descriptors `toolgen build` wrote decide it (find, parse, validate, authorize, gate,
idempotency, execute), and the answer is one of the envelopes of the reference.

Imports without the MCP SDK; only `toolgen.runtime.adapters.mcp` (and `toolgen serve`) need it.
"""

from toolgen._marker import ToolError
from toolgen.runtime.context import CallContext, ConfirmationRequest, StepUpRequest
from toolgen.runtime.result import ToolResult
from toolgen.runtime.store import open_store
from toolgen.runtime.toolbox import Toolbox

__all__ = [
    "CallContext",
    "ConfirmationRequest",
    "StepUpRequest",
    "ToolError",
    "ToolResult",
    "Toolbox",
    "open_store",
]
