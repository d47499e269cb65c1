"""The decision steps of a call, in order: find, parse, validate, authorize, gate,
idempotency, execute (then the answer and the audit, in `toolgen.runtime.toolbox`). Each step
is a plain function that returns what the next step needs, or the `ToolResult` that ends the
call."""
