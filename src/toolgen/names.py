"""Tool names: the rule each platform has for them, and the names a descriptor may have.

Each platform checks a tool's name its own way (see the reference in the README): a name one
of them refuses leaves the tool out of that platform's payload only (TG608), and a name that
no configured platform accepts, or that cannot name a descriptor file, is TG103.
"""

from __future__ import annotations

import re

#: Each platform's own rule for a tool name.
PLATFORM_NAMES: dict[str, str] = {
    "openai": r"[A-Za-z0-9_-]{1,64}",
    "anthropic": r"[A-Za-z0-9_-]{1,64}",
    "gemini": r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}",
    "mcp": r"[A-Za-z0-9_.-]{1,128}",
}
#: The names a descriptor may have: what at least one platform accepts that can also name the
#: descriptor's file everywhere (no `:`, which Windows refuses; no leading `.` or `-`, which
#: hide a file or read as an option). `toolgen.render.PRODUCED` follows it.
DESCRIPTOR_NAME = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"

_COMPILED = {platform: re.compile(rule) for platform, rule in PLATFORM_NAMES.items()}
_DESCRIPTOR = re.compile(DESCRIPTOR_NAME)


def accepts(platform: str, name: str) -> bool:
    """Whether `platform` takes a tool of this name."""
    return _COMPILED[platform].fullmatch(name) is not None


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
        rules = "; ".join(f"{p}: ^{PLATFORM_NAMES[p]}$" for p in platforms)
        return f"tool name {name!r} is accepted by none of the configured platforms ({rules})"
    return None
