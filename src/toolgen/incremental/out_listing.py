"""What a stamp keeps of the generated folder `out`: its entries, and the folders they depend on.

Moved out of `toolgen.output` so that the stamp (`toolgen.incremental.stamp`) reads the folder
without importing the writer, which itself trusts the stamp's `stat` rule.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
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


def _walk(base: str, top: str, looked: set[str]) -> list[str]:
    """Every entry below `base/top` (`listing`'s form), depth first in name order: with a
    stack, not by recursion, so that a folder tree a thousand levels deep is no
    RecursionError."""
    found: list[str] = []
    stack = [_listed(base, top, looked)]  # each folder's entries yet to see
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        rel, kind = entry
        found.append(rel + kind)
        if kind == "/":
            stack.append(_listed(base, rel, looked))
    return found


def _listed(base: str, relfolder: str, looked: set[str]) -> Iterator[tuple[str, str]]:
    """The entries of `base/relfolder` in name order, as (path relative to `base`, "@" for a
    symlink, "/" for a folder, else ""); none when it cannot be listed."""
    try:
        with os.scandir(f"{base}/{relfolder}") as entries:
            listed = sorted(entries, key=lambda e: e.name)
    except OSError:
        return iter(())
    looked.add(f"{base}/{relfolder}")
    return iter(
        [
            (
                f"{relfolder}/{entry.name}",
                "@" if entry.is_symlink() else "/" if entry.is_dir(follow_symlinks=False) else "",
            )
            for entry in listed
        ]
    )
