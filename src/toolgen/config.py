"""`[tool.toolgen]` configuration: finding it, reading it and checking every value.

Relative paths resolve against the folder of the file the table was read from. The project
root is the nearest folder at or above that file with a `pyproject.toml` or `.git`; `out` must
stay inside it. `load_config` raises `UserError` with located diagnostics; it never returns a config
with a bad value in it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolgen.diagnostics import RULES, Diagnostic, Level, Location, UserError
from toolgen.policy import Policy
from toolgen.render.options import GEMINI_SCHEMAS, MCP_REVISIONS, RenderOptions

PLATFORMS = ("openai", "anthropic", "gemini", "mcp")
MARKER_PRESETS = ("toolgen", "fastmcp", "mcp", "openai-agents", "langchain", "pydantic-ai")
DOCSTRING_STYLES = ("auto", "google", "numpy", "sphinx")

DEFAULTS: dict[str, Any] = {
    "sources": ["."],
    "out": "generated",
    "platforms": list(PLATFORMS),
    "markers": ["toolgen"],
    "skip_params": [],
    "docstring_style": "auto",
    "min_level": 1,
    "rules": {},
    "budget_description_chars": None,
    "budget_catalog_tokens": None,
    "openai_strict": True,
    "anthropic_strict": False,
    "gemini_schema": "openapi",
    "mcp_revision": "2025-11-25",
    "inline_defs": False,
    "breaking_ignore": [],
}
RULE_LEVELS = ("error", "warning", "info", "off")


@dataclass(frozen=True)
class Config:
    """A checked configuration. Paths are absolute."""

    root: Path
    cwd: Path
    config_file: Path | None
    sources: tuple[Path, ...]
    out: Path
    platforms: tuple[str, ...] = PLATFORMS
    markers: tuple[str, ...] = ("toolgen",)
    skip_params: tuple[str, ...] = ()
    docstring_style: str = "auto"
    min_level: int = 1
    rule_levels: dict[str, str] = field(default_factory=dict)
    budget_description_chars: int | None = None
    budget_catalog_tokens: int | None = None
    render: RenderOptions = field(default_factory=RenderOptions)
    #: `[[tool.toolgen.breaking_ignore]]` entries: (rule, tool, pointer, reason)
    breaking_ignore: tuple[tuple[str, str, str, str], ...] = ()
    #: Each path of `sources` and `out` as given (joined to the folder it is relative to),
    #: with what it resolved to: a changed symlink changes the configuration.
    resolved: tuple[tuple[str, str], ...] = ()

    def policy(self) -> Policy:
        return Policy(
            {code: None if lvl == "off" else Level(lvl) for code, lvl in self.rule_levels.items()}
        )

    def display(self, path: Path) -> str:
        """How to show `path` to the user (`relative_display` from the working folder)."""
        return relative_display(path, self.cwd)


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
    shown = relative_display(config_file, cwd)
    if not config_file.is_file():
        raise UserError(Diagnostic("TG001", f"configuration file {shown} does not exist"))
    try:
        text = config_file.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(Diagnostic("TG001", f"cannot read {shown}: {exc}")) from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(toml_error(exc, text, shown)) from None
    table = data.get("tool", {}).get("toolgen")
    if not isinstance(table, dict):
        raise UserError(Diagnostic("TG001", f"{shown} has no [tool.toolgen] table"))
    return _check(table, config_file, text, cwd, sources_override, out_override)


def load_for_args(
    config_file: Path | None, paths: Sequence[str] = (), out: str | None = None
) -> Config:
    """The configuration for a command run in the working folder, from its options:
    `--config FILE` (None: search upwards), `PATH ...` (none: the configured sources) and
    `--out DIR` (None: the configured `out`). `build`, `check` and `build --watch` share it."""
    return load_config(
        config_file, cwd=Path.cwd(), sources_override=list(paths) or None, out_override=out
    )


def toml_error(
    exc: tomllib.TOMLDecodeError, text: str, shown: str, code: str = "TG001", after: str = ""
) -> Diagnostic:
    """A `code` diagnostic for a TOML file that does not parse, at the place tomllib names
    (its end for "at end of document"); `text` is what was parsed, `shown` the file as shown
    to the user, `after` more words for the end of the message."""
    message = str(exc)
    where = re.search(r"\(at line (\d+), column (\d+)\)", message)
    if where:
        line, col = int(where.group(1)), int(where.group(2))
    else:  # "at end of document"
        line, col = text.count("\n") + 1, len(text.rsplit("\n", 1)[-1]) + 1
    message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
    return Diagnostic(code, f"invalid TOML: {message}{after}", Location(shown, line, col))


def relative_display(path: Path, cwd: Path) -> str:
    """How to show `path` to the user: relative to `cwd` when inside it (as ruff and black
    do), else absolute, so that `path:line:col` is always clickable."""
    try:
        return path.relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def project_root(config_file: Path) -> Path:
    """The project a config belongs to: the nearest folder at or above it with a
    `pyproject.toml` or `.git`; the config's own folder when there is none."""
    for folder in (config_file.parent, *config_file.parent.parents):
        if (folder / "pyproject.toml").is_file() or (folder / ".git").exists():
            return folder
    return config_file.parent


def _check(
    table: dict[str, Any],
    config_file: Path,
    text: str,
    cwd: Path,
    sources_override: list[str] | None,
    out_override: str | None,
) -> Config:
    base = config_file.parent  # relative paths in the file resolve against its folder
    root = project_root(config_file)
    shown = relative_display(config_file, cwd)
    lines = text.splitlines()
    problems: list[Diagnostic] = []

    def where(key: str) -> Location:
        """The line that sets `key` (first match), else the file's first line."""
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for number, line in enumerate(lines, 1):
            if pattern.match(line):
                return Location(shown, number, len(line) - len(line.lstrip()) + 1)
        return Location(shown, 1, 1)

    def bad(key: str, why: str) -> None:
        problems.append(Diagnostic("TG002", f"[tool.toolgen] {key}: {why}", where(key)))

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
    markers = choices("markers", MARKER_PRESETS)
    skip_params = str_list("skip_params")
    min_level = values["min_level"]
    if not isinstance(min_level, int) or isinstance(min_level, bool) or not 0 <= min_level <= 3:
        bad("min_level", "must be a whole number from 0 to 3")
        min_level = 1
    rule_levels: dict[str, str] = {}
    if not isinstance(values["rules"], dict):
        bad("rules", "must be a table of rule code = level")
    else:
        for code, level in values["rules"].items():
            if code not in RULES:
                bad("rules", f"unknown rule {code!r} (see `toolgen rules`)")
            elif level not in RULE_LEVELS:
                bad("rules", f"{code}: level must be one of {', '.join(RULE_LEVELS)}")
            else:
                rule_levels[code] = level
    budgets: dict[str, int | None] = {}
    for key in ("budget_description_chars", "budget_catalog_tokens"):
        value = values[key]
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 1
        ):
            bad(key, "must be a positive whole number")
            value = None
        budgets[key] = value
    for key in ("openai_strict", "anthropic_strict", "inline_defs"):
        if not isinstance(values[key], bool):
            bad(key, "must be true or false")
    for key, allowed in (("gemini_schema", GEMINI_SCHEMAS), ("mcp_revision", MCP_REVISIONS)):
        if values[key] not in allowed:
            bad(key, f"must be one of {', '.join(allowed)}")
    ignores: list[tuple[str, str, str, str]] = []
    entries = values["breaking_ignore"]
    if not isinstance(entries, list):
        bad("breaking_ignore", "must be an array of tables with rule, tool, pointer and reason")
        entries = []
    for entry in entries:
        keys = ("rule", "tool", "pointer", "reason")
        if (
            not isinstance(entry, dict)
            or set(entry) != set(keys)
            or not all(isinstance(entry[k], str) for k in keys)
        ):
            bad(
                "breaking_ignore", "each entry needs exactly rule, tool, pointer and reason strings"
            )
        elif not entry["reason"].strip():
            bad("breaking_ignore", f"entry for {entry['rule']} on {entry['tool']} needs a reason")
        else:
            ignores.append((entry["rule"], entry["tool"], entry["pointer"], entry["reason"]))
    style = values["docstring_style"]
    if style not in DOCSTRING_STYLES:
        bad("docstring_style", f"must be one of {', '.join(DOCSTRING_STYLES)}")
    out_value = values["out"]
    if not isinstance(out_value, str) or not out_value:
        bad("out", "must be a non-empty string")
        out_value = "generated"

    if sources_override:
        sources_given = [cwd / s for s in sources_override]
    else:
        sources_given = [base / s for s in str_list("sources")]
    source_paths = [s.resolve() for s in sources_given]  # symlinks followed: see below
    if not sources_override and not source_paths and not problems:
        bad("sources", "must name at least one file or folder")
    # A path given on the command line is located nowhere in the config file.
    given, sources_at = (" (given as PATH)", None) if sources_override else ("", where("sources"))
    for path in source_paths:
        if not path.is_relative_to(root.resolve()):
            message = f"source path {path}{given} is outside the project {root}"
            problems.append(Diagnostic("TG003", message, sources_at))
        if not path.exists():
            message = f"source path {path}{given} does not exist"
            problems.append(Diagnostic("TG003", message, sources_at))

    out_given = (cwd / out_override) if out_override else (base / out_value)
    out = out_given.resolve()  # a symlink is followed here, so one pointing outside is refused
    if not out.is_relative_to(root.resolve()) or out == root.resolve():
        given, out_at = (" (given as --out)", None) if out_override else ("", where("out"))
        message = f"out {out}{given} must be a folder inside the project {root}"
        problems.append(Diagnostic("TG004", message, out_at))
    if problems:
        raise UserError(*problems)
    return Config(
        root=root,
        cwd=cwd.resolve(),
        config_file=config_file,
        sources=tuple(source_paths),
        out=out,
        platforms=tuple(p for p in PLATFORMS if p in platforms),
        markers=tuple(markers),
        skip_params=tuple(skip_params),
        docstring_style=style,
        min_level=min_level,
        rule_levels=rule_levels,
        budget_description_chars=budgets["budget_description_chars"],
        budget_catalog_tokens=budgets["budget_catalog_tokens"],
        breaking_ignore=tuple(ignores),
        resolved=tuple(
            (str(given), str(path))
            for given, path in zip([*sources_given, out_given], [*source_paths, out], strict=True)
        ),
        render=RenderOptions(
            openai_strict=values["openai_strict"],
            anthropic_strict=values["anthropic_strict"],
            gemini_schema=values["gemini_schema"],
            mcp_revision=values["mcp_revision"],
            inline_defs=values["inline_defs"],
        ),
    )
