"""Rendering: descriptors to the files under `generated/`, one module per platform.

Each platform module has `render(tools, report) -> {relative path: JSON value}` and sees only
visible tools (forbidden ones never reach a payload). `toolgen.render.project` puts them
together: `render_project` adds the descriptors themselves and the manifest, and returns bytes.
Rendering is pure; writing is `toolgen.output`'s job.

This package module stays light (no platform module imported), so that reading the
configuration or checking an up-to-date tree does not pay for the renderers.
"""

MANIFEST = "manifest.json"
