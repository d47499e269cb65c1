"""Payload sizes: tool definitions are re-sent on every model turn, so their size is a cost.

Sizes are of the compact JSON each platform receives per tool; tokens are estimated at four
characters a token (a common rule of thumb for English text and JSON; exact counts depend on
the model's tokenizer).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolgen.diagnostics import Diagnostic, Level
from toolgen.incremental.spool import Content, as_bytes
from toolgen.render.registry import PLATFORMS, payloads

CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class ToolSize:
    platform: str
    tool: str
    chars: int

    @property
    def tokens(self) -> int:
        return math.ceil(self.chars / CHARS_PER_TOKEN)


def entry_name(entry: dict[str, Any]) -> str:
    """A tool entry's name, in the flat or the Chat Completions (`function`) shape."""
    return str(entry.get("name") or entry.get("function", {}).get("name", "?"))


def payload_entries(
    files: Mapping[str, Content], platform: str, catalog: str = ""
) -> list[dict[str, Any]] | None:
    """The tool entries of one payload, by its label (`toolgen.render.registry.Payload`), of
    `catalog` when a project has several servers; None when it was not rendered."""
    path, key = payloads()[platform]
    path = f"{catalog}/{path}" if catalog else path
    if path not in files:
        return None
    document = json.loads(as_bytes(files[path]))
    entries: list[dict[str, Any]] = document if key == "list" else document.get(key, [])
    return entries


def catalogs(files: Mapping[str, Content]) -> list[str]:
    """The catalogs `files` hold: [""] for a project of one server, else each server's."""
    found = {
        path.rpartition("/")[0].rpartition("/")[0]
        for path in files
        if path.endswith("/descriptors") or "/descriptors/" in path
    }
    return sorted(found) or [""]


def tool_sizes(files: Mapping[str, Content]) -> list[ToolSize]:
    """Every tool's size on every platform that was rendered, largest first (a tool of one
    of several servers named `catalog/tool`)."""
    sizes = []
    labels = payloads()
    for catalog in catalogs(files):
        for platform in labels:
            for entry in payload_entries(files, platform, catalog) or []:
                compact = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
                name = f"{catalog}/{entry_name(entry)}" if catalog else entry_name(entry)
                sizes.append(ToolSize(platform, name, len(compact)))
    return sorted(sizes, key=lambda s: (-s.chars, s.platform, s.tool))


def first_payload(platform: str) -> str:
    """The label of a platform's first payload (`payload_entries`): what `toolgen show
    --platform` shows."""
    return PLATFORMS[platform].payloads[0].label


def catalog_totals(sizes: list[ToolSize]) -> dict[str, tuple[int, int]]:
    """Per platform: (characters, estimated tokens) of the whole catalog."""
    totals: dict[str, int] = {}
    for size in sizes:
        totals[size.platform] = totals.get(size.platform, 0) + size.chars
    return {p: (c, math.ceil(c / CHARS_PER_TOKEN)) for p, c in sorted(totals.items())}


@dataclass(frozen=True)
class Measured:
    """What `toolgen stats` reports: every tool's size (largest first), each catalog's totals,
    each tool's conformance level (name, level), and the diagnostics that go with the numbers:
    the budgets (TG930, TG931) and the errors of handlers that are therefore not counted."""

    sizes: list[ToolSize]
    totals: dict[str, tuple[int, int]]
    levels: list[tuple[str, int]]
    diagnostics: list[Diagnostic]
    min_level: int = 0


def measure(
    files: Mapping[str, Content],
    levels: list[tuple[str, int]],
    diagnostics: Sequence[Diagnostic],
    min_level: int = 0,
) -> Measured:
    """`Measured` of a build's `files`, its tools' `levels` and its `diagnostics`."""
    sizes = tool_sizes(files)
    budgets = [d for d in diagnostics if d.code in ("TG930", "TG931") or d.severity is Level.ERROR]
    return Measured(sizes, catalog_totals(sizes), levels, budgets, min_level)
