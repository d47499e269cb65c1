"""`toolgen.runtime`: the compiled contract at run time. The model proposes a call; the
descriptors `toolgen build` wrote decide it (find, parse, validate, authorize, gate,
idempotency, execute), and the answer is one of the envelopes of the reference.

`ToolChoice` says what the model may do with its tools, in each vendor's form; the loops
(`loop_openai_chat`, `loop_openai_responses`, `loop_anthropic`, `loop_gemini`, and their
`aloop_*` twins) ask the caller's model function and answer its calls through the `Toolbox`
until the model stops (`toolgen.runtime.loops`).

Imports without the MCP SDK; only `toolgen.runtime.adapters.mcp` (and `toolgen serve`) need it.
"""

from toolgen._marker import ToolError
from toolgen.runtime.choice import ToolChoice
from toolgen.runtime.context import CallContext, ConfirmationRequest, StepUpRequest
from toolgen.runtime.keys import generate_idempotency_key
from toolgen.runtime.loops import LoopResult, StopReason
from toolgen.runtime.loops.anthropic import aloop_anthropic, loop_anthropic
from toolgen.runtime.loops.gemini import aloop_gemini, loop_gemini
from toolgen.runtime.loops.openai import (
    aloop_openai_chat,
    aloop_openai_responses,
    loop_openai_chat,
    loop_openai_responses,
)
from toolgen.runtime.outputs import Block, Replace
from toolgen.runtime.result import ToolResult
from toolgen.runtime.store import open_store
from toolgen.runtime.toolbox import Toolbox

__all__ = [
    "Block",
    "CallContext",
    "ConfirmationRequest",
    "LoopResult",
    "Replace",
    "StepUpRequest",
    "StopReason",
    "ToolChoice",
    "ToolError",
    "ToolResult",
    "Toolbox",
    "aloop_anthropic",
    "aloop_gemini",
    "aloop_openai_chat",
    "aloop_openai_responses",
    "generate_idempotency_key",
    "loop_anthropic",
    "loop_gemini",
    "loop_openai_chat",
    "loop_openai_responses",
    "open_store",
]
