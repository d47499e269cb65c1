"""toolgen: a static schema compiler for LLM tools.

The only name most code needs is the marker::

    from toolgen import tool

    @tool(risk="low")
    def search_web(query: str) -> list[str]:
        \"\"\"Search the web.\"\"\"

`tool` is a no-op at run time: it returns the function unchanged, so servers can keep it in
production code. Importing this package stays cheap; the compiler (`toolgen.pipeline`) and the
command line (`toolgen.cli`) are imported only when used.

Public API:

- `tool`: the handler marker.
- `ToolError`: raise it from a handler to fail with a declared error code (`toolgen serve`).
- `__version__`: the toolgen version, recorded in `generated/manifest.json`.
"""

from toolgen._marker import ToolError, tool
from toolgen._version import __version__

__all__ = ["ToolError", "__version__", "tool"]
