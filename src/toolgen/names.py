"""Tool names: the rule each platform has for them, and the names a descriptor may have.

Each platform checks a tool's name its own way (its rule is in `toolgen.render.registry`; see
the reference in the README): a name one
of them refuses leaves the tool out of that platform's payload only (TG608), and a name that
no configured platform accepts, or that cannot name a descriptor file, is TG103.
"""

from __future__ import annotations

import re

#: The names a descriptor may have: what at least one platform accepts that can also name the
#: descriptor's file everywhere (no `:`, which Windows refuses; no leading `.` or `-`, which
#: hide a file or read as an option). `toolgen.render.PRODUCED` follows it.
DESCRIPTOR_NAME = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"

_DESCRIPTOR = re.compile(DESCRIPTOR_NAME)

__all__ = ["DESCRIPTOR_NAME", "accepts", "name_problem", "rejecting"]


def accepts(platform: str, name: str) -> bool:
    """Whether `platform` takes `name` as a tool's name (its rule in the registry, read only
    here: the descriptor model and the runtime import this module, never the renderers)."""
    from toolgen.render.registry import accepts as platform_accepts

    return platform_accepts(platform, name)


def rejecting(name: str, platforms: tuple[str, ...]) -> list[str]:
    """The platforms of `platforms` that refuse the name."""
    return [p for p in platforms if not accepts(p, name)]


def name_problem(name: object, platforms: tuple[str, ...]) -> str | None:
    """Why `name` cannot be a tool's name with these platforms configured, or None."""
    if not isinstance(name, str):
        return f"tool name {name!r} must be a string"
    if _DESCRIPTOR.fullmatch(name) is None:
        return f"tool name {name!r} must match ^{DESCRIPTOR_NAME}$ (it names the descriptor's file)"
    if platforms and len(rejecting(name, platforms)) == len(platforms):
        from toolgen.render.registry import PLATFORMS

        rules = "; ".join(f"{p}: ^{PLATFORMS[p].names}$" for p in platforms)
        return f"tool name {name!r} is accepted by none of the configured platforms ({rules})"
    return None
