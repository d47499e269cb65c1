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

from toolgen._version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (see `__getattr__`)
if TYPE_CHECKING:
    from toolgen._marker import ToolError, tool

__all__ = ["ToolError", "__version__", "tool"]


def __getattr__(name: str) -> object:
    """`tool` and `ToolError`, imported on first use: the command line's fast path
    (`toolgen.entry`) imports this package and must not pay for what it does not use."""
    if name in ("tool", "ToolError"):
        from toolgen import _marker

        return getattr(_marker, name)
    raise AttributeError(f"module 'toolgen' has no attribute {name!r}")
