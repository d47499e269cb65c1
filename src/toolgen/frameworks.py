"""Which version of FastMCP or of the MCP SDK publishes a project's tools, and what it does.

A framework preset's `mcp/tools.json` is what that framework serves, and that depends on its
version: `framework_versions` in the configuration says which one, else the version installed
where toolgen runs (read from its `*.dist-info/METADATA`, never imported), else the newest
rules toolgen knows. `Framework` answers the questions the publication rules ask
(`toolgen.analyze.publication`).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: Preset -> the distributions that install it, the one holding the code first (fastmcp 3 and
#: 4 install their code as `fastmcp-slim`).
DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "fastmcp": ("fastmcp_slim", "fastmcp"),
    "mcp": ("mcp",),
}
#: What an unknown version stands for: the newest of its kind ("4" is the newest 4.x).
NEWEST = 999
#: Without a configured or installed version: the newest rules toolgen knows.
DEFAULTS: dict[str, tuple[int, ...]] = {"fastmcp": (4, NEWEST, NEWEST), "mcp": (2, NEWEST, NEWEST)}
VERSION = re.compile(r"^(0|[1-9]\d{0,3})(\.(0|[1-9]\d{0,3})){0,2}$")


@dataclass(frozen=True)
class Framework:
    """A framework at a version; `origin` says where the version came from: "config", the
    path of the installed distribution's METADATA, or "default"."""

    name: str
    version: str
    origin: str = "default"

    @property
    def at(self) -> tuple[int, ...]:
        """The version as numbers; what it leaves out is the newest ("4" is 4.999.999)."""
        if not VERSION.match(self.version):
            return DEFAULTS[self.name]
        parts = [int(p) for p in self.version.split(".")]
        return tuple([*parts, NEWEST, NEWEST][:3])

    @property
    def installed(self) -> bool:
        """Whether the version was read from an installed distribution (`origin` its METADATA)."""
        return self.origin not in ("config", "default")

    def since(self, *version: int) -> bool:
        return self.at >= version

    # -- the rules that differ between versions ------------------------------------------
    @property
    def wire_order(self) -> bool:
        """mcp 2's wire models (and fastmcp 4, on them) put a schema's `$schema`,
        `properties`, `required` and `type` first."""
        return self.since(4) if self.name == "fastmcp" else self.since(2)

    @property
    def structured_output(self) -> bool:
        """The MCP SDK publishes `outputSchema` and `title` from 1.10 on."""
        return self.name == "fastmcp" or self.since(1, 10)


def framework(
    name: str, configured: dict[str, str], paths: Sequence[str] | None = None
) -> Framework:
    """The version of `name` that publishes: configured, else installed, else the newest."""
    if name in configured:
        return Framework(name, configured[name], "config")
    found = installed(DISTRIBUTIONS[name], sys.path if paths is None else paths)
    if found is not None:
        return Framework(name, found[0], found[1])
    return Framework(name, ".".join(str(p) for p in DEFAULTS[name][:1]), "default")


@functools.cache
def installed_framework(name: str) -> Framework:
    """`framework(name)` without configuration, looked up once per process (for a preset
    that reaches the compiler without being in `markers`)."""
    return framework(name, {})


def installed(names: tuple[str, ...], paths: Sequence[str]) -> tuple[str, str] | None:
    """The version and METADATA path of the first of `names` installed in `paths` (the
    first folder that has one wins, as for an import)."""
    for folder in paths:
        try:
            entries = [entry.name for entry in Path(folder or ".").iterdir()]
        except OSError:
            continue
        found: dict[str, str] = {}
        for entry in entries:
            if entry.endswith(".dist-info"):
                name = entry[: -len(".dist-info")].partition("-")[0]
                found.setdefault(re.sub(r"[-_.]+", "_", name).lower(), entry)
        for name in names:
            if name in found:
                metadata = Path(folder or ".") / found[name] / "METADATA"
                version = _version(metadata)
                if version is not None:
                    return version, str(metadata)
    return None


def _version(metadata: Path) -> str | None:
    try:
        with metadata.open(encoding="utf-8", errors="replace") as stream:
            for line in stream:
                if line.startswith("Version:"):
                    version = line.partition(":")[2].strip()
                    match = re.match(r"\d+(\.\d+){0,2}", version)
                    return match.group(0) if match else None
                if not line.strip():
                    break  # the headers end at the first blank line
    except OSError:
        return None
    return None
