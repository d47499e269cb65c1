"""The platforms' wire formats over `Toolbox.acall`: each module maps a platform's tool calls
to calls and `ToolResult`s back to that platform's results. `mcp` needs the MCP SDK."""
