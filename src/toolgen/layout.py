"""Names of the files and folders `toolgen build` writes, shared by the writer and the runtime.

Standard library only (nothing at all, in fact): `toolgen.runtime` reads these names to refuse
a half-applied build without importing the writer.
"""

from __future__ import annotations

#: The folder a build stages its files in (`toolgen.journal`); refused as a symlink too.
PENDING = ".toolgen-pending"

#: The journal inside `PENDING`: once it exists the build is committed but not yet applied.
JOURNAL = "journal.json"

#: The list of what a build wrote, with each file's sha256 (at the top of `out`).
MANIFEST = "manifest.json"
