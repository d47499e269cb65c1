"""Example tool handlers for a customer-support agent (toolgen's own `examples/`)."""
