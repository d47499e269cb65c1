"""The platforms toolgen renders for: each one's name, renderer module, folder, files, tool-name
rule and options, the one place the configuration, rendering, writing, `show` and `stats` read.

A platform is one renderer module (its `render(tools, report, options)`, see
`toolgen.render`; with `request_tally` and `request_limits`, its catalog is also checked as
one request, as Anthropic's is) and one entry here. This module imports no renderer, so that
reading the configuration or checking an up-to-date tree does not pay for them.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from toolgen.layout import MANIFEST, PENDING

#: The folder of one server's files when a project has several (`toolgen.compiler.
#: catalog_names`): the name the server is assigned to, or its dotted path (a module's name
#: may have a `-`: `my-tools.mcp`). ASCII only: file systems and git may spell other names
#: differently (NFC, NFD), so a file toolgen reports written could be found under no name.
CATALOG = r"[A-Za-z_][A-Za-z0-9_.-]{0,199}"


@dataclass(frozen=True)
class Payload:
    """A file a platform writes in its folder: its name, its label in `toolgen stats`, and
    where its tool entries are (`list`: the file is the list; else the key of the list)."""

    file: str
    label: str
    entries: str = "list"


@dataclass(frozen=True)
class Option:
    """A `[tool.toolgen]` key of a platform: its default, and its allowed values (none: true
    or false). The renderer reads it as `options.value(key)` (`RenderOptions`)."""

    key: str
    default: bool | str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Platform:
    name: str  # as in `platforms`
    module: str  # the renderer module
    names: str  # the tool names it accepts, as a regular expression (`toolgen.names`)
    payloads: tuple[Payload, ...]
    options: tuple[Option, ...] = ()
    folder: str = ""  # "": the platform's name

    @property
    def where(self) -> str:
        return self.folder or self.name

    @property
    def paths(self) -> tuple[str, ...]:
        """Its files' paths, relative to `out` (or to a catalog's folder)."""
        return tuple(f"{self.where}/{payload.file}" for payload in self.payloads)


#: The platforms, in the order their files and options are listed.
PLATFORMS: dict[str, Platform] = {
    platform.name: platform
    for platform in (
        Platform(
            "openai",
            "toolgen.render.openai",
            r"[A-Za-z0-9_-]{1,64}",
            (
                Payload("chat_completions.json", "openai-chat"),
                Payload("responses.json", "openai-responses"),
            ),
            (Option("openai_strict", True),),
        ),
        Platform(
            "anthropic",
            "toolgen.render.anthropic",
            r"[A-Za-z0-9_-]{1,64}",
            (Payload("tools.json", "anthropic"),),
            (Option("anthropic_strict", False),),
        ),
        Platform(
            "gemini",
            "toolgen.render.gemini",
            r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}",
            (Payload("function_declarations.json", "gemini", "function_declarations"),),
            (Option("gemini_schema", "openapi", ("openapi", "json_schema")),),
        ),
        Platform(
            "mcp",
            "toolgen.render.mcp",
            r"[A-Za-z0-9_.-]{1,128}",
            (Payload("tools.json", "mcp", "tools"),),
            (Option("mcp_revision", "2025-11-25", ("2025-11-25", "2025-06-18")),),
        ),
    )
}

#: The folders of `out` written whatever the platforms: descriptors, then the platforms'
#: folders, then the documents for people and typed callers.
BEFORE = ("descriptors",)
AFTER = ("docs", "python")
#: The files in them, as regular expressions of their paths relative to `out`.
OTHER_FILES = (
    r"descriptors/[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}\.json",  # toolgen.names.DESCRIPTOR_NAME
    r"docs/tools\.md",
    r"python/tools\.py",
)


#: Changes whenever the registry does (what is computed from it is kept until then).
_version = 0


def reserved() -> tuple[str, ...]:
    """The names at the top of `out` that no catalog's folder may take, in any case (a file
    system may ignore it): the manifest, the pending folder and the renderers' folders."""
    return (MANIFEST, PENDING, *folders())


def platform_names() -> tuple[str, ...]:
    return tuple(PLATFORMS)


def folders() -> tuple[str, ...]:
    """The folders of `out` that renderers write into."""
    return _folders(_version)


@functools.cache
def _folders(_: int) -> tuple[str, ...]:
    return (*BEFORE, *(p.where for p in PLATFORMS.values()), *AFTER)


def produced_pattern() -> str:
    """Every file a build can produce, as a regular expression of its path relative to `out`
    (each but the manifest also in a catalog's folder, `CATALOG`)."""
    return _produced(_version).pattern


def produced(relpath: str) -> bool:
    """Whether a build can produce a file at `relpath` (relative to `out`)."""
    return _produced(_version).fullmatch(relpath) is not None


@functools.cache
def _produced(_: int) -> re.Pattern[str]:
    paths = (*OTHER_FILES, *(re.escape(path) for p in PLATFORMS.values() for path in p.paths))
    return re.compile(rf"{re.escape(MANIFEST)}|({CATALOG}/)?({'|'.join(paths)})")


def accepts(platform: str, name: str) -> bool:
    """Whether `platform` takes a tool of this name."""
    return _name_rule(PLATFORMS[platform].names).fullmatch(name) is not None


@functools.cache
def _name_rule(rule: str) -> re.Pattern[str]:
    return re.compile(rule)


def options() -> tuple[Option, ...]:
    """Every platform's options, in the platforms' order."""
    return tuple(option for p in PLATFORMS.values() for option in p.options)


def payloads() -> dict[str, tuple[str, str]]:
    """Each payload's label in `toolgen stats` -> (its path, where its tool entries are)."""
    return {
        payload.label: (f"{p.where}/{payload.file}", payload.entries)
        for p in PLATFORMS.values()
        for payload in p.payloads
    }


@contextlib.contextmanager
def registered(platform: Platform) -> Iterator[Platform]:
    """`platform` known while the block runs (a plug-in platform, or a test's), as if it had an
    entry in `PLATFORMS`; the registry as it was afterwards."""
    global _version
    before = dict(PLATFORMS)
    PLATFORMS[platform.name] = platform
    _version += 1
    try:
        yield platform
    finally:
        PLATFORMS.clear()
        PLATFORMS.update(before)
        _version += 1
