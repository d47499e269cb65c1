"""The tools of a generated folder, as `toolgen build` wrote them (never compiled again).

`load(folder, catalog)` reads the descriptors the build's manifest lists (every file in
`descriptors/` without one; forbidden tools' too: they are known, and never listed or called;
other files there are not toolgen's) and `mcp/tools.json` when the build wrote it (what
`toolgen serve` lists). With `mcp/tools.json`, the tools it lists are the catalog, in its
order; without it, every visible descriptor, by name.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.layout import JOURNAL, MANIFEST, PENDING
from toolgen.names import DESCRIPTOR_NAME
from toolgen.runtime.values import quote

_DESCRIPTOR_FILE = re.compile(rf"{DESCRIPTOR_NAME}\.json")


class GeneratedFilesError(Exception):
    """The generated folder is missing, half written, or holds a file that cannot be read."""


@dataclass(frozen=True)
class Catalog:
    """One catalog's tools: every descriptor by name (`all`, forbidden ones included), the
    visible ones in order (`descriptors`), and the `mcp/tools.json` entries if built."""

    folder: Path
    all: Mapping[str, ToolDescriptor]
    descriptors: Mapping[str, ToolDescriptor]
    mcp_tools: tuple[dict[str, Any], ...] | None

    @property
    def names(self) -> list[str]:
        """The callable tools' names, in catalog order."""
        return list(self.descriptors)


def catalogs_in(folder: Path) -> list[str]:
    """The catalogs of a project of several servers (`folder/<name>/descriptors/`)."""
    return sorted(p.parent.name for p in folder.glob("*/descriptors") if p.is_dir())


def load(folder: str | Path = "generated", catalog: str | None = None) -> Catalog:
    """Read the generated folder (`folder/<catalog>/` when `catalog` is given).

    Raises `GeneratedFilesError` when the folder has no descriptors (naming the catalogs of a
    project of several servers), when the last build stopped half way (its files may be of two
    builds), or when a file cannot be read.
    """
    base = Path(folder)
    if catalog is not None:
        if "/" in catalog or "\\" in catalog or catalog.startswith(".") or not catalog:
            raise GeneratedFilesError(f"no catalog {quote(catalog)} in {base}")
        base = base / catalog
    for out in {Path(folder), base}:  # a project of several servers stages at its top
        if os.path.lexists(out / PENDING / JOURNAL):
            raise GeneratedFilesError(
                f"the last build of {out} was interrupted before it was complete; "
                "run `toolgen build` to complete it"
            )
    descriptors_dir = base / "descriptors"
    if not descriptors_dir.is_dir():
        several = catalogs_in(base) if catalog is None else []
        if several:
            raise GeneratedFilesError(
                f"{base} holds a catalog per server; name one of: {', '.join(several)}"
            )
        raise GeneratedFilesError(f"{descriptors_dir} does not exist; run `toolgen build`")
    found: dict[str, ToolDescriptor] = {}
    for name in _descriptor_names(Path(folder), catalog, descriptors_dir):
        found[name] = _descriptor(descriptors_dir / f"{name}.json")
    tools_file = base / "mcp" / "tools.json"
    mcp_tools = _mcp_tools(base, tools_file, found) if tools_file.is_file() else None
    order = [t["name"] for t in mcp_tools] if mcp_tools is not None else list(found)
    visible = {name: found[name] for name in order if found[name].visible}
    if mcp_tools is not None:  # a forbidden tool is never listed, even if an entry names it
        mcp_tools = tuple(t for t in mcp_tools if t["name"] in visible)
    return Catalog(base, found, visible, mcp_tools)


def _descriptor_names(folder: Path, catalog: str | None, descriptors_dir: Path) -> list[str]:
    """The descriptors the build wrote, by the manifest; every descriptor file without one."""
    manifest = folder / MANIFEST
    if not manifest.is_file():
        return sorted(
            p.name.removesuffix(".json")
            for p in descriptors_dir.iterdir()
            if _DESCRIPTOR_FILE.fullmatch(p.name) and p.is_file()
        )
    try:
        files = json.loads(manifest.read_text(encoding="utf-8"))["files"]
        prefix = f"{catalog}/descriptors/" if catalog else "descriptors/"
        return sorted(
            path.removeprefix(prefix).removesuffix(".json")
            for path in files
            if path.startswith(prefix) and _DESCRIPTOR_FILE.fullmatch(path.removeprefix(prefix))
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise GeneratedFilesError(f"cannot read {manifest}: {exc}") from None


def _descriptor(path: Path) -> ToolDescriptor:
    try:
        return ToolDescriptor.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GeneratedFilesError(f"cannot read {path}: {exc}") from None


def _mcp_tools(
    base: Path, tools_file: Path, found: Mapping[str, ToolDescriptor]
) -> tuple[dict[str, Any], ...]:
    try:
        listed = json.loads(tools_file.read_text(encoding="utf-8"))["tools"]
        names = [entry["name"] for entry in listed]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise GeneratedFilesError(f"cannot read the generated files in {base}: {exc}") from None
    for name in names:
        if not isinstance(name, str) or name not in found:
            raise GeneratedFilesError(
                f"tool {quote(name)} is in {tools_file} but has no descriptor; run `toolgen build`"
            )
    return tuple(listed)
