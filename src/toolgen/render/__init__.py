"""Rendering: descriptors to the files under `generated/`, one module per platform.

Each platform module has `render(tools, report) -> {relative path: JSON value}` and sees only
visible tools (forbidden ones never reach a payload). `toolgen.render.project` puts them
together: `render_project` adds the descriptors themselves and the manifest, and returns bytes.
Rendering is pure; writing is `toolgen.output`'s job.

This package module stays light (no platform module imported), so that reading the
configuration or checking an up-to-date tree does not pay for the renderers.
"""

from toolgen.layout import MANIFEST as MANIFEST  # moved there: the runtime reads it too

#: The folders of `out` that renderers write into.
FOLDERS = ("descriptors", "openai", "anthropic", "gemini", "mcp", "docs", "python")

#: The folder of one server's files when a project has several (`toolgen.compiler.
#: catalog_names`): the name the server is assigned to, or its dotted path.
CATALOG = r"[A-Za-z_][A-Za-z0-9_.]{0,199}"

#: Every file a build can produce, as a regular expression of its path relative to `out`
#: (each but the manifest also in a catalog's folder). Nothing else in `out` is ever removed
#: (`toolgen.removal`); a test renders every platform and checks each file it makes against
#: this.
PRODUCED = (
    r"manifest\.json"
    rf"|({CATALOG}/)?("
    r"descriptors/[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}\.json"  # toolgen.names.DESCRIPTOR_NAME
    r"|openai/(chat_completions|responses)\.json"
    r"|(anthropic|mcp)/tools\.json"
    r"|gemini/function_declarations\.json"
    r"|docs/tools\.md"
    r"|python/tools\.py"
    r")"
)
