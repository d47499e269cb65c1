"""What a stamp keeps of the generated folder `out`: its entries, and the folders they depend on.

Moved out of `toolgen.output` so that the stamp (`toolgen.incremental.stamp`) reads the folder
without importing the writer, which itself trusts the stamp's `stat` rule.
"""

from __future__ import annotations

import os
from pathlib import Path

from toolgen.layout import PENDING
from toolgen.render import FOLDERS, MANIFEST


def listing(out: Path, looked: set[str] | None = None) -> list[str]:
    """What a stamp keeps of `out`'s entries (`toolgen.incremental.stamp`): the top-level
    entries toolgen writes or refuses (its folders, the manifest, the pending folder, any
    symlink), and every entry below its folders (folders end with `/`, symlinks with `@`). Each
    folder listed is added to `looked`: while none of them changes, neither does the result."""
    base = str(out)
    looked = set() if looked is None else looked
    looked.add(base)
    found: list[str] = []
    try:
        with os.scandir(base) as entries:
            top = sorted(entries, key=lambda e: e.name)
    except OSError:
        return found
    for entry in top:
        if entry.is_symlink():
            found.append(f"{entry.name}@")
        elif entry.name in FOLDERS and entry.is_dir(follow_symlinks=False):
            found.append(f"{entry.name}/")
            found.extend(_walk(base, entry.name, looked))
        elif entry.name in (MANIFEST, PENDING):
            found.append(entry.name)
    return found


def _walk(base: str, relfolder: str, looked: set[str]) -> list[str]:
    try:
        with os.scandir(f"{base}/{relfolder}") as entries:
            listed = sorted(entries, key=lambda e: e.name)
    except OSError:
        return []
    looked.add(f"{base}/{relfolder}")
    found = []
    for entry in listed:
        rel = f"{relfolder}/{entry.name}"
        if entry.is_symlink():
            found.append(f"{rel}@")
        elif entry.is_dir(follow_symlinks=False):
            found.append(f"{rel}/")
            found.extend(_walk(base, rel, looked))
        else:
            found.append(rel)
    return found
