"""`toolgen show` and `toolgen stats`: compile a project in memory, write nothing, and say what
one tool's document is (`show`) or what the payloads cost (`stats`, `toolgen.stats`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolgen.diagnostics import Diagnostic, Level

if TYPE_CHECKING:
    from toolgen.config import Config
    from toolgen.pipeline import Generated
    from toolgen.stats import Measured


@dataclass(frozen=True)
class Shown:
    """One tool's document (`document`), or why there is none (`problem`, with the errors of
    handlers that may be the tool asked for); `return_code` 0, or 1 (the tool is not in that
    payload) or 2 (no such tool, or the platform is not configured)."""

    return_code: int
    document: Any = None
    problem: str = ""
    errors: list[Diagnostic] = field(default_factory=list)


def show(config: Config, name: str, platform: str) -> Shown:
    """Tool `name`'s (`catalog/name` in a project of several servers) canonical descriptor
    (`platform` "descriptor") or its entry in a platform's payload."""
    from toolgen.incremental.spool import as_bytes
    from toolgen.pipeline import generate
    from toolgen.stats import entry_name, first_payload, payload_entries

    result = generate(config)
    names = sorted(result.locations)  # `catalog/name` when the project has several servers
    if name not in names:
        errors = [d for d in result.diagnostics if d.severity is Level.ERROR]
        known = ", ".join(names) or "none"
        return Shown(2, problem=f"no tool named {name!r}; tools: {known}", errors=errors)
    catalog, _, tool = name.rpartition("/")
    folder = f"{catalog}/" if catalog else ""
    if platform == "descriptor":
        return Shown(0, json.loads(as_bytes(result.files[f"{folder}descriptors/{tool}.json"])))
    label = first_payload(platform)
    entries = payload_entries(result.files, label, catalog)
    if entries is None:
        return Shown(2, problem=f"platform {platform} is not configured")
    found = [e for e in entries if entry_name(e) == tool]
    if not found:
        why = _left_out(result, tool)
        return Shown(1, problem=f"{name} is not in the {platform} payload: {why}")
    return Shown(0, found[0])


def _left_out(result: Generated, name: str) -> str:
    """Why a tool reaches no entry in a payload: its risk, or what rendering reported."""
    descriptor = next(d for d in result.descriptors if d.name == name)
    if not descriptor.visible:
        return f"its risk is {descriptor.risk} (such tools reach no payload)"
    said = [  # what rendering reported (TG6xx): e.g. a model Gemini cannot take
        d
        for d in result.diagnostics
        if d.code.startswith("TG6") and d.message.startswith(f"tool {name}: ")
    ]
    reasons = [f"{d.code} {d.message.removeprefix(f'tool {name}: ')}" for d in said]
    return "; ".join(reasons) or "nothing says why (please report it)"


def stats(config: Config) -> Measured:
    """What the project's payloads cost, per tool and per catalog (`toolgen.stats.measure`)."""
    from toolgen.pipeline import generate
    from toolgen.stats import measure

    result = generate(config)
    levels = [(d.name, d.conformance_level) for d in result.descriptors]
    return measure(result.files, levels, result.diagnostics, config.min_level)
