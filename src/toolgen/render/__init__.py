"""Rendering: descriptors to the files under `generated/`, one module per platform.

Each platform module has `render(tools, report, options) -> {relative path: JSON value}` and
sees only visible tools (forbidden ones never reach a payload); the platforms are listed in
`toolgen.render.registry`. `toolgen.render.project` puts them
together: `render_project` adds the descriptors themselves and the manifest.
Rendering is pure; writing is `toolgen.output`'s job.

This package module stays light (no platform module imported), so that reading the
configuration or checking an up-to-date tree does not pay for the renderers.
"""

from __future__ import annotations

from typing import Any

from toolgen.layout import MANIFEST as MANIFEST  # there: the runtime reads it too
from toolgen.render.registry import CATALOG as CATALOG
from toolgen.render.registry import folders, produced_pattern


def __getattr__(name: str) -> Any:
    """`FOLDERS`, the folders of `out` that renderers write into, and `PRODUCED`, every file a
    build can produce as a regular expression of its path relative to `out` (each but the
    manifest also in a catalog's folder): both from the platforms' registry
    (`toolgen.render.registry`), as it stands. Nothing else in `out` is ever removed
    (`toolgen.removal`); a test renders every platform and checks each file it makes against
    `PRODUCED`."""
    if name not in ("FOLDERS", "PRODUCED"):  # a submodule not imported yet, among others
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return folders() if name == "FOLDERS" else produced_pattern()
