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
- `__version__`: the toolgen version, recorded in `generated/manifest.json`.
"""

from toolgen._marker import tool
from toolgen._version import __version__

__all__ = ["__version__", "tool"]
