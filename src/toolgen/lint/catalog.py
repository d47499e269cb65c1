"""Rules that read a catalog's tools side by side (issue 30)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

CatalogFinding = tuple[str, str, str]  # code, message, the name of the tool it is located at


class CatalogTool(NamedTuple):
    """What the catalog rules read of one visible tool: what a model sees of it."""

    name: str
    description: str


CatalogRule = Callable[[list[CatalogTool]], Iterator[CatalogFinding]]

RULES: dict[str, CatalogRule] = {}
