"""`[tool.toolgen]` configuration: finding it, reading it and checking every value.

Relative paths resolve against the folder of the file the table was read from (the project
root). `load_config` raises `UserError` with located diagnostics; it never returns a config
with a bad value in it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolgen.diagnostics import Diagnostic, Location, UserError

PLATFORMS = ("openai", "anthropic", "gemini", "mcp")
MARKER_PRESETS = ("toolgen",)
#: Presets named in the design that a later version will read; today they are a clear error.
PLANNED_MARKER_PRESETS = ("fastmcp", "mcp", "openai-agents", "langchain", "pydantic-ai")
DOCSTRING_STYLES = ("auto", "google", "numpy", "sphinx")

DEFAULTS: dict[str, Any] = {
    "sources": ["."],
    "out": "generated",
    "platforms": list(PLATFORMS),
    "markers": ["toolgen"],
    "skip_params": [],
    "docstring_style": "auto",
}


@dataclass(frozen=True)
class Config:
    """A checked configuration. Paths are absolute."""

    root: Path
    config_file: Path | None
    sources: tuple[Path, ...]
    out: Path
    platforms: tuple[str, ...] = PLATFORMS
    markers: tuple[str, ...] = ("toolgen",)
    skip_params: tuple[str, ...] = ()
    docstring_style: str = "auto"
    extra: dict[str, Any] = field(default_factory=dict)

    def display(self, path: Path) -> str:
        """How to show `path` in diagnostics: relative to the project root when inside it."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()


def find_config(start: Path) -> Path | None:
    """The nearest `pyproject.toml` at or above `start` that has a `[tool.toolgen]` table."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return candidate  # let load_config report it with a location
            if "toolgen" in data.get("tool", {}):
                return candidate
    return None


def load_config(
    config_file: Path | None,
    *,
    cwd: Path,
    sources_override: list[str] | None = None,
    out_override: str | None = None,
) -> Config:
    """Read and check the configuration.

    `config_file` None: search upwards from `cwd`. Command-line overrides (`PATH ...`, `--out`)
    resolve against `cwd`, like any command-line path.
    """
    if config_file is None:
        config_file = find_config(cwd)
        if config_file is None:
            raise UserError(
                Diagnostic(
                    "TG001",
                    f"no pyproject.toml with a [tool.toolgen] table at or above {cwd}; "
                    "pass --config FILE or add the table",
                )
            )
    config_file = (cwd / config_file).resolve()
    shown = str(config_file)
    if not config_file.is_file():
        raise UserError(Diagnostic("TG001", f"configuration file {shown} does not exist"))
    try:
        data = tomllib.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(Diagnostic("TG001", f"cannot read {shown}: {exc}")) from None
    except tomllib.TOMLDecodeError as exc:
        line, col = getattr(exc, "lineno", 1), getattr(exc, "colno", 1)
        raise UserError(
            Diagnostic("TG001", f"invalid TOML: {exc.msg}", Location(shown, line, col))
        ) from None
    table = data.get("tool", {}).get("toolgen")
    if not isinstance(table, dict):
        raise UserError(Diagnostic("TG001", f"{shown} has no [tool.toolgen] table"))
    return _check(table, config_file, cwd, sources_override, out_override)


def _check(
    table: dict[str, Any],
    config_file: Path,
    cwd: Path,
    sources_override: list[str] | None,
    out_override: str | None,
) -> Config:
    root = config_file.parent
    where = Location(str(config_file), 1, 1)
    problems: list[Diagnostic] = []

    def bad(key: str, why: str) -> None:
        problems.append(Diagnostic("TG002", f"[tool.toolgen] {key}: {why}", where))

    unknown = sorted(set(table) - set(DEFAULTS))
    for key in unknown:
        bad(key, f"unknown key (known: {', '.join(DEFAULTS)})")
    values = {**DEFAULTS, **table}

    def str_list(key: str) -> list[str]:
        value = values[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            bad(key, "must be a list of strings")
            return []
        return list(value)

    def choices(key: str, allowed: tuple[str, ...]) -> list[str]:
        items = str_list(key)
        for item in items:
            if item not in allowed:
                bad(key, f"unknown value {item!r} (allowed: {', '.join(allowed)})")
        return [i for i in items if i in allowed]

    platforms = choices("platforms", PLATFORMS)
    markers = str_list("markers")
    for marker in markers:
        if marker in PLANNED_MARKER_PRESETS:
            bad("markers", f"preset {marker!r} is not supported yet (supported: toolgen)")
        elif marker not in MARKER_PRESETS:
            bad("markers", f"unknown preset {marker!r} (supported: toolgen)")
    skip_params = str_list("skip_params")
    style = values["docstring_style"]
    if style not in DOCSTRING_STYLES:
        bad("docstring_style", f"must be one of {', '.join(DOCSTRING_STYLES)}")
    out_value = values["out"]
    if not isinstance(out_value, str) or not out_value:
        bad("out", "must be a non-empty string")
        out_value = "generated"

    if sources_override:
        source_paths = [(cwd / s).resolve() for s in sources_override]
    else:
        source_paths = [(root / s).resolve() for s in str_list("sources")]
        if not source_paths and not problems:
            bad("sources", "must name at least one file or folder")
    for path in source_paths:
        if not path.exists():
            problems.append(Diagnostic("TG003", f"source path {path} does not exist", where))

    out = (cwd / out_override).resolve() if out_override else (root / out_value).resolve()
    if not out.is_relative_to(root.resolve()) or out == root.resolve():
        problems.append(
            Diagnostic("TG004", f"out {out} must be a folder inside the project {root}", where)
        )
    if problems:
        raise UserError(*problems)
    return Config(
        root=root,
        config_file=config_file,
        sources=tuple(source_paths),
        out=out,
        platforms=tuple(p for p in PLATFORMS if p in platforms),
        markers=tuple(markers),
        skip_params=tuple(skip_params),
        docstring_style=style,
    )
