"""`[tool.toolgen]` configuration: finding it, reading it and checking every value.

Relative paths resolve against the folder of the file the table was read from. The project
root is the nearest folder at or above that file with a `pyproject.toml` or `.git`; `out` must
stay inside it. `load_config` raises `UserError` with located diagnostics; it never returns a config
with a bad value in it.
"""

from __future__ import annotations

import bisect
import dataclasses
import errno
import itertools
import os
import re
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolgen.contract_config import ContractEntry, contract_entries
from toolgen.diagnostics import (
    RULES,
    Diagnostic,
    Level,
    Location,
    UserError,
    cut,
    relative_display,
)
from toolgen.frameworks import DISTRIBUTIONS, VERSION, Framework, framework, installed_framework
from toolgen.incremental.cache import FOLDER as CACHE_FOLDER
from toolgen.policy import Policy
from toolgen.read.files import MAX_SOURCE_BYTES, NotRegular, open_regular
from toolgen.render import registry
from toolgen.render.options import RenderOptions
from toolgen.toml_places import places

#: The platforms toolgen renders for (`toolgen.render.registry`, as it stands at import).
PLATFORMS = registry.platform_names()
MARKER_PRESETS = ("toolgen", "fastmcp", "mcp", "openai-agents", "langchain", "pydantic-ai")
DOCSTRING_STYLES = ("auto", "google", "numpy", "sphinx")

#: Each key's default; the platforms' own keys (`toolgen.render.registry.Option`) go after
#: `budget_catalog_tokens` (see `defaults`).
_DEFAULTS: dict[str, Any] = {
    "sources": ["."],
    "out": "generated",
    "markers": ["toolgen"],
    "skip_params": [],
    "docstring_style": "auto",
    "min_level": 0,
    "rules": {},
    "budget_description_chars": None,
    "budget_catalog_tokens": None,
    "library_paths": None,  # None: the running Python's (`installed_packages`)
    "inline_defs": False,
    "framework_versions": {},
    "mcp_enriched": False,
    "breaking_ignore": [],
    "max_source_bytes": MAX_SOURCE_BYTES,
    "decorators": {},
    "env": {},
    "contract": {},
    "contract_file": None,
    "lsp": {},
}
RULE_LEVELS = ("error", "warning", "info", "off")


def defaults() -> dict[str, Any]:
    """Each key of `[tool.toolgen]` with its default, in the order the keys are listed: every
    platform by default, and each platform's options."""
    keys = list(_DEFAULTS)
    at = keys.index("budget_catalog_tokens") + 1
    options = {option.key: option.default for option in registry.options()}
    return {
        "sources": _DEFAULTS["sources"],
        "out": _DEFAULTS["out"],
        "platforms": list(registry.platform_names()),
        **{key: _DEFAULTS[key] for key in keys[2:at]},
        **options,
        **{key: _DEFAULTS[key] for key in keys[at:]},
    }


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
    min_level: int = 0
    rule_levels: dict[str, str] = field(default_factory=dict)
    budget_description_chars: int | None = None
    budget_catalog_tokens: int | None = None
    budget_catalog_at: Location | None = None  # the line that sets it (where TG931 points)
    markers_at: Location | None = None  # the line that sets `markers` (where TG107 points)
    render: RenderOptions = field(default_factory=RenderOptions)
    #: `[[tool.toolgen.breaking_ignore]]` entries: (rule id, tool, pointer, reason); a rule
    #: named by its TG code is given here by its id
    breaking_ignore: tuple[tuple[str, str, str, str], ...] = ()
    #: Folders of installed packages, whose sources are read (never imported) for names the
    #: project does not define (`library_paths`; loaded configs default to `installed_packages`)
    library_paths: tuple[Path, ...] = ()
    #: Each path of `sources` and `out` as given (joined to the folder it is relative to),
    #: with what it resolved to: a changed symlink changes the configuration.
    resolved: tuple[tuple[str, str], ...] = ()
    #: The most bytes a Python file toolgen reads may have (a larger one is a TG005 error).
    max_source_bytes: int = MAX_SOURCE_BYTES
    #: The version of each framework preset in `markers` whose publication rules make its
    #: handlers' MCP entries (configured, installed or the newest: `toolgen.frameworks`).
    frameworks: tuple[Framework, ...] = ()
    #: the Python the tools run on, as major and minor: what a docstring is at run time
    #: depends on it (3.13 strips its indentation); `framework_versions = {python = "3.12"}`,
    #: else the Python toolgen runs on
    python: tuple[int, int] = (sys.version_info[0], sys.version_info[1])
    #: toolgen's own (enriched) MCP entries for framework handlers too (`mcp_enriched`).
    mcp_enriched: bool = False
    #: `[tool.toolgen.lsp] write_on_save`: `toolgen lsp` writes the generated files on save
    #: (else it says when they are out of date). Not in the cache key: no build output
    #: depends on it.
    lsp_write_on_save: bool = field(default=True, repr=False)
    #: `[tool.toolgen.decorators]`: a project's own tool decorators, each with the marker
    #: preset whose decorator arguments it takes, and where the entry is written
    decorators: tuple[tuple[str, str, Location], ...] = ()
    #: `[tool.toolgen] env`: the process environment the served object is read with (every
    #: other variable is absent: `os.getenv("X", d)` is `d`), by variable name
    env: tuple[tuple[str, str], ...] = ()
    #: `[project.scripts]` of the same file: (module, function) each console script calls
    scripts: tuple[tuple[str, str], ...] = ()
    #: each tool's contract table, by tool name (`toolgen.contract_config`)
    contract: dict[str, ContractEntry] = field(default_factory=dict)
    #: the TOML file of contract tables `contract_file` names (its bytes are an input)
    contract_file: Path | None = None

    def policy(self) -> Policy:
        return Policy(
            {code: None if lvl == "off" else Level(lvl) for code, lvl in self.rule_levels.items()}
        )

    def display(self, path: Path) -> str:
        """How to show `path` to the user (`relative_display` from the working folder)."""
        return relative_display(path, self.cwd)

    def publisher(self, preset: str) -> Framework | None:
        """The framework whose rules make the MCP entries of `preset`'s handlers; None for
        toolgen's own rendering (`@tool` handlers, other presets, or `mcp_enriched`)."""
        if self.mcp_enriched:
            return None
        found = [f for f in self.frameworks if f.name == preset]
        if found:
            return found[0]
        return installed_framework(preset) if preset in DISTRIBUTIONS else None


def installed_packages() -> tuple[Path, ...]:
    """Where the running Python imports installed packages from: each folder on `sys.path`
    but the standard library's (where `os` is, and folders in it other than a site-packages
    or dist-packages) and the one Python put first for the script or command it runs."""
    stdlib = Path(os.__file__).resolve().parent
    entries = sys.path if sys.flags.safe_path else sys.path[1:]
    found: list[Path] = []
    for entry in entries:
        if not entry:
            continue
        try:
            folder = Path(entry).resolve()
            if not folder.is_dir():
                continue  # a zip file, or nothing
        except (OSError, RuntimeError, ValueError):
            continue
        inside = folder.relative_to(stdlib).parts if folder.is_relative_to(stdlib) else None
        if inside is not None and not {"site-packages", "dist-packages"} & set(inside):
            continue
        found.append(folder)
    return tuple(dict.fromkeys(found))


def find_config(start: Path) -> Path | None:
    """The nearest `pyproject.toml` at or above `start` that has a `[tool.toolgen]` table
    (or one that is no TOML, or whose `tool` is no table: `load_config` says where)."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        try:
            found = candidate.is_file()
        except OSError:  # a folder that cannot be searched: load_config says why
            return candidate
        if not found:  # none there, or no file: look further up
            continue
        try:
            raw = _read_config(candidate)
        except OSError:
            return candidate  # let load_config say why it cannot be read
        try:
            data = loads_toml(_text(raw))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            return candidate  # let load_config report it with a location
        tool = data.get("tool", {})
        if not isinstance(tool, dict) or "toolgen" in tool:
            return candidate
    return None


def _read_config(path: Path) -> bytes:
    """The bytes of the regular file `path` (OSError, or `NotRegular` for anything else: a
    FIFO is never waited on), never more than `MAX_CONFIG_BYTES` of it (a sparse file of a
    terabyte committed as pyproject.toml is not read)."""
    handle, _ = open_regular(str(path))
    with handle:
        data = handle.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise OSError(errno.EFBIG, f"it has more than {MAX_CONFIG_BYTES:,} bytes")
    return data


def _text(data: bytes) -> str:
    """A configuration file's text: UTF-8, its newlines made `\\n` (as `Path.read_text`)."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


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
        _refuse_leading_out(config_file, cwd)
    config_file, text = _config_text(cwd / config_file, cwd)
    shown = relative_display(config_file, cwd)
    try:
        data = loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(toml_error(exc, text, shown)) from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        where = Location(shown, *places(text).get(("tool",), (1, 1)))
        message = f"`tool` must be a table ([tool]), not {_kind_of(tool)}"
        raise UserError(Diagnostic("TG002", message, where))
    if "toolgen" not in tool:
        raise UserError(Diagnostic("TG001", f"{shown} has no [tool.toolgen] table"))
    table = tool["toolgen"]
    if not isinstance(table, dict):
        where = Location(shown, *places(text).get(("tool", "toolgen"), (1, 1)))
        message = f"[tool] toolgen: must be a table ([tool.toolgen]), not {_kind_of(table)}"
        raise UserError(Diagnostic("TG002", message, where))
    config = _check(table, config_file, text, cwd, sources_override, out_override)
    return dataclasses.replace(config, scripts=_scripts(data.get("project")))


def _scripts(project: Any) -> tuple[tuple[str, str], ...]:
    """`[project.scripts]` (PEP 621) as (module, attribute) pairs: the functions a console
    script calls, with no arguments, where a server is often built. An entry that is no
    `module:function` reference is not toolgen's to check, and is passed over."""
    scripts = project.get("scripts") if isinstance(project, dict) else None
    if not isinstance(scripts, dict):
        return ()
    found: list[tuple[str, str]] = []
    for reference in scripts.values():
        if not isinstance(reference, str):
            continue
        module, _, attribute = reference.partition("[")[0].strip().partition(":")
        parts = [*module.split("."), *attribute.split(".")]
        if attribute and all(part.isidentifier() for part in parts):
            found.append((module, attribute))
    return tuple(sorted(set(found)))


def _config_text(given: Path, cwd: Path) -> tuple[Path, str]:
    """The configuration file `given` resolved, and its text; TG001 (a `UserError`) when the
    system refuses the path (a NUL, a name too long, a loop, no permission) or it names no
    regular file (none, a folder, a FIFO, a device)."""
    path, unusable = resolve_path(given)
    shown = relative_display(path, cwd)
    if unusable:
        raise UserError(Diagnostic("TG001", f"configuration file {shown} {unusable}"))
    try:
        data = _read_config(path)
    except FileNotFoundError:
        raise UserError(Diagnostic("TG001", f"configuration file {shown} does not exist")) from None
    except NotRegular as exc:
        what = str(exc.strerror)
        what = "a folder" if what.startswith("a folder") else what
        why = f"is {what}: give a TOML file (a pyproject.toml)"
        raise UserError(Diagnostic("TG001", f"configuration file {shown} {why}")) from None
    except OSError as exc:
        message = f"cannot read {shown}: {exc.strerror or exc}"
        raise UserError(Diagnostic("TG001", message)) from None
    try:
        return path, _text(data)
    except UnicodeDecodeError as exc:
        raise UserError(Diagnostic("TG001", f"cannot read {shown}: {exc}")) from None


def _kind_of(value: Any) -> str:
    """What a TOML value is, in words for a message."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "a date or time"


def _refuse_leading_out(found: Path, cwd: Path) -> None:
    """TG001 when the pyproject.toml the search found is a symlink that resolves outside its
    project (its folder, or the git work tree around it): its paths would then be another
    project's, and a build would write there. (`--config FILE` names a file on purpose.)"""
    try:
        resolved = found.resolve()
        tree = next((f for f in found.parents if (f / ".git").exists()), found.parent)
        inside = resolved.is_relative_to(found.parent.resolve())
        if inside or resolved.is_relative_to(tree.resolve()):
            return
    except (OSError, RuntimeError):  # a loop, a folder not searchable: reading it says why
        return
    shown = relative_display(found, cwd)
    message = (
        f"configuration file {shown} is a symlink to {resolved}, outside the project: "
        "copy the file into the project, or pass it with --config FILE"
    )
    raise UserError(Diagnostic("TG001", message, Location(shown, 1, 1)))


#: The most bytes a configuration file is read for.
MAX_CONFIG_BYTES = 10_000_000


def load_for_args(
    config_file: Path | None, paths: Sequence[str] = (), out: str | None = None
) -> Config:
    """The configuration for a command run in the working folder, from its options:
    `--config FILE` (None: search upwards), `PATH ...` (none: the configured sources) and
    `--out DIR` (None: the configured `out`). `build`, `check` and `build --watch` share it."""
    return load_config(
        config_file, cwd=Path.cwd(), sources_override=list(paths) or None, out_override=out
    )


class TomlTooDeep(tomllib.TOMLDecodeError):
    """A TOML text with a value nested too deeply for tomllib, which recurses into each array
    and inline table: located at the value's first bracket, as tomllib locates its errors."""

    def __init__(self, text: str, pos: int, depth: int) -> None:
        self.doc, self.pos = text, pos
        self.lineno = text.count("\n", 0, pos) + 1
        self.colno = pos - text.rfind("\n", 0, pos)
        self.msg = f"a value nests arrays or inline tables {depth} levels deep, too deep to read"
        ValueError.__init__(self, f"{self.msg} (at line {self.lineno}, column {self.colno})")


def loads_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads`; a value nested too deeply for it is a `TomlTooDeep` (a
    `tomllib.TOMLDecodeError`), never a RecursionError."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise TomlTooDeep(text, *_deepest_value(text)) from None


#: What can hold a bracket that does not nest (strings of the four kinds, comments), and brackets.
_TOML_TOKEN = re.compile(
    "|".join(
        (
            r'"""(?:[^"\\]|\\[\s\S]|"(?!""))*"{3,5}',
            r"'''(?:[^']|'(?!''))*'{3,5}",
            r'"(?:[^"\\\n]|\\.)*"',
            r"'[^'\n]*'",
            r"#[^\n]*",
            r"[\[\]{}]",
        )
    )
)


def _deepest_value(text: str) -> tuple[int, int]:
    """Where the most deeply nested value of `text` starts (the offset of its first bracket),
    and how many arrays and inline tables deep it goes (table headers count 1)."""
    depth = deepest = 0
    start = found = 0
    for match in _TOML_TOKEN.finditer(text):
        bracket = match.group()
        if bracket in ("[", "{"):
            if depth == 0:
                start = match.start()
            depth += 1
            if depth > deepest:
                deepest, found = depth, start
        elif bracket in ("]", "}"):
            depth = max(depth - 1, 0)
    return found, deepest


def toml_error(
    exc: tomllib.TOMLDecodeError, text: str, shown: str, code: str = "TG001", after: str = ""
) -> Diagnostic:
    """A `code` diagnostic for a TOML file that does not parse, at the place tomllib names
    (its end for "at end of document"); `text` is what was parsed, `shown` the file as shown
    to the user, `after` more words for the end of the message."""
    what = "cannot read TOML" if isinstance(exc, TomlTooDeep) else "invalid TOML"
    message = str(exc)
    where = re.search(r"\(at line (\d+), column (\d+)\)", message)
    if where:
        line, col = int(where.group(1)), int(where.group(2))
    else:  # "at end of document"
        line, col = text.count("\n") + 1, len(text.rsplit("\n", 1)[-1]) + 1
    message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
    return Diagnostic(code, f"{what}: {message}{after}", Location(shown, line, col))


def resolve_path(path: Path) -> tuple[Path, str | None]:
    """`path` made absolute with its symlinks followed, and why no file or folder can be
    there (None: one can), to end a message that starts with the path: a NUL character, a
    name or path longer than the system takes, a symlink loop. Such a path is returned as
    given."""
    try:
        resolved = path.resolve()
    except ValueError:  # "embedded null byte"
        return path, "has a NUL character, which no file name can hold"
    except RuntimeError:  # Python 3.11's "Symlink loop from ..."
        return path, "is a symlink loop"
    except OSError as exc:
        return path, f"cannot be used: {exc.strerror or exc}"
    try:
        resolved.stat()
    except (FileNotFoundError, NotADirectoryError):  # not there (yet): the callers' concern
        pass
    except OSError as exc:  # a name too long, a symlink loop (3.12+), no permission
        return resolved, f"cannot be used: {exc.strerror or exc}"
    return resolved, None


def _overlap(out: Path, root: Path, cwd: Path, sources: list[Path]) -> str | None:
    """How `out` overlaps what a build must never write into or delete from (the end of a
    sentence that starts with "out X"), or None: a source file or folder (a build
    would overwrite or remove sources, and read its own output as sources), toolgen's cache
    folder (safe to delete at any time) or a `.git` folder (git's own files)."""
    inside = out.relative_to(root.resolve()).parts
    if inside[0] == CACHE_FOLDER or ".git" in inside:
        where = "toolgen's cache folder" if inside[0] == CACHE_FOLDER else "git's .git folder"
        return f"must be a folder of the project, not in {where}"
    if os.path.lexists(out / ".git"):
        return "must not hold a .git folder"
    cache = _cache_override(cwd)
    if cache is not None and (cache.is_relative_to(out) or out.is_relative_to(cache)):
        return f"must not overlap toolgen's cache folder {cache} (TOOLGEN_CACHE_DIR)"
    for source in sources:
        if out.is_relative_to(source) or source.is_relative_to(out):
            how = "is" if out == source else "is inside" if out.is_relative_to(source) else "holds"
            return (
                f"{how} the source {relative_display(source, cwd)}: a build would write over "
                "sources and read its own output; give `out` a folder of its own, and list "
                "in `sources` the folders that hold the handlers"
            )
    return None


def _cache_override(cwd: Path) -> Path | None:
    """The cache folder `$TOOLGEN_CACHE_DIR` names (as `toolgen.incremental.keys.cache_dir` resolves
    it), if it is set; the default one is in the project root, so out is never in it."""
    override = os.environ.get("TOOLGEN_CACHE_DIR")
    if not override:
        return None
    try:
        return (cwd / override).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def _in_a_file(out: Path) -> str | None:
    """Why `out` cannot be made when a file stands where one of its parent folders must be
    (`out` itself a file is `toolgen.output`'s TG008, written as it would be)."""
    for parent in out.parents:
        if parent.exists():
            return None if parent.is_dir() else f"cannot be made: {parent} is a file, not a folder"
    return None


def project_root(config_file: Path) -> Path:
    """The project a config belongs to: the nearest folder at or above it with a
    `pyproject.toml` or `.git`; the config's own folder when there is none."""
    for folder in (config_file.parent, *config_file.parent.parents):
        if (folder / "pyproject.toml").is_file() or (folder / ".git").exists():
            return folder
    return config_file.parent


_IGNORE_HEADER = re.compile(
    r"""^\s*\[\[?\s*tool\s*\.\s*toolgen\s*\.\s*("breaking_ignore"|breaking_ignore)\s*\]"""
)


def _ignore_headers(lines: list[str]) -> list[tuple[int, int]]:
    """(line, column) of each `[[tool.toolgen.breaking_ignore]]` header (or of a
    `[tool.toolgen.breaking_ignore]` one), in order."""
    return [
        (number, len(line) - len(line.lstrip()) + 1)
        for number, line in enumerate(lines, 1)
        if _IGNORE_HEADER.match(line)
    ]


def _key_in_table(lines: list[str], header: int, key: str) -> tuple[int, int]:
    """(line, column) of `key = ...` in the table whose header is on line `header`; the
    header's own when the table does not set it on a line of its own."""
    pattern = re.compile(rf"""^\s*("{re.escape(key)}"|'{re.escape(key)}'|{re.escape(key)})\s*=""")
    for number in range(header + 1, len(lines) + 1):
        line = lines[number - 1]
        if line.lstrip().startswith("["):  # the next table
            break
        if pattern.match(line):
            return number, len(line) - len(line.lstrip()) + 1
    first = lines[header - 1]
    return header, len(first) - len(first.lstrip()) + 1


def _ignore_entry(entry: Any, prefix: str) -> tuple[str, str, str, str] | list[tuple[str, str]]:
    """A `breaking_ignore` entry as (rule id, tool, pointer, reason), its `rule` named by id or
    by TG code; else its problems, as (the key to locate it at, or "" for the entry; message
    beginning with `prefix`)."""
    keys = ("rule", "tool", "pointer", "reason")
    needs = "each entry needs exactly rule, tool, pointer and reason strings"
    if not isinstance(entry, dict):
        return [("", f"{prefix}not a table; {needs}")]
    problems = [
        (key, f"{prefix}unknown key {key!r}; {needs}") for key in sorted(set(entry) - set(keys))
    ]
    missing = [k for k in keys if k not in entry]
    if missing:
        problems.append(("", f"{prefix}missing {', '.join(missing)}; {needs}"))
    problems += [
        (key, f"{prefix}{key} must be a string")
        for key in keys
        if key in entry and not isinstance(entry[key], str)
    ]
    if problems:
        return problems
    from toolgen.breaking import rule_id  # only for an entry: a `build` never needs it

    rule = rule_id(entry["rule"])
    if rule is None:
        why = (
            f"unknown rule {entry['rule']!r} (a breaking rule id such as tool-removed, or its "
            "code, TG950-TG978; see `toolgen rules`)"
        )
        return [("rule", prefix + why)]
    if not entry["reason"].strip():
        return [
            ("reason", f"{prefix}the entry for {entry['rule']} on {entry['tool']} needs a reason")
        ]
    return (rule, entry["tool"], entry["pointer"], entry["reason"])


#: The most problems a configuration's report shows (the others are counted), and the most
#: entries a list or table key may have: each is matched per parameter or file.
MAX_PROBLEMS = 100
MAX_ENTRIES = 1000


class _Checking:
    """What the per-key validators share: the table with its defaults, where each key is
    set, and the problems found so far."""

    def __init__(self, table: dict[str, Any], text: str, shown: str, base: Path, cwd: Path) -> None:
        self.values = {**defaults(), **table}
        self.lines = text.splitlines()
        self.places = places(text)
        #: each place's line and path, in order (where a value ends)
        self.key_lines = sorted((line, path) for path, (line, _) in self.places.items())
        self.shown, self.base, self.cwd = shown, base, cwd
        self.root = base  # the project's folder (`_check` says which)
        self.problems: list[Diagnostic] = []
        self.unshown = 0  # problems past `MAX_PROBLEMS`, counted only

    def report(self, problem: Diagnostic) -> None:
        """Add a problem; past `MAX_PROBLEMS`, only count it (a table of a million bad
        entries is a short report, fast)."""
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(problem)
        else:
            self.unshown += 1

    def full(self) -> bool:
        """Whether no more problem would be shown."""
        return len(self.problems) >= MAX_PROBLEMS

    def value_end(self, line: int, key: str) -> int:
        """The last line of the value of `key`, which starts on `line`: before the next key
        that is not inside it."""
        inside = ("tool", "toolgen", key)
        at = bisect.bisect_right(self.key_lines, (line, ()))
        for after, path in itertools.islice(self.key_lines, at, None):
            if after > line and path[: len(inside)] != inside:
                return after - 1
        return len(self.lines)

    def where(self, key: str, *inside: str) -> Location:
        """Where `key` of `[tool.toolgen]` (or the key `inside` it) is first written, in any
        of TOML's forms; else where the key is, else the file's first line."""
        path = ("tool", "toolgen", key, *inside)
        while len(path) > 2 and path not in self.places:
            path = path[:-1]
        return Location(self.shown, *self.places.get(path, (1, 1)))

    def bad(self, key: str, why: str, *inside: str) -> None:
        """A problem with `key` (or with its entry `inside`), where it is written."""
        if self.full():
            self.unshown += 1
            return
        where = self.where(key, *inside)
        self.report(Diagnostic("TG002", f"[tool.toolgen] {key}: {why}", where))

    def too_many(self, key: str) -> bool:
        """Whether the list or table `key` has more entries than are read (then a problem)."""
        value = self.values[key]
        if isinstance(value, list | dict) and len(value) > MAX_ENTRIES:
            self.bad(key, f"has {len(value):,} entries; at most {MAX_ENTRIES:,} are read")
            return True
        return False

    def str_list(self, key: str) -> list[str]:
        value = self.values[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.bad(key, "must be a list of strings")
            return []
        if self.too_many(key):
            return []
        return list(dict.fromkeys(value))  # each once: every entry is matched per parameter

    def choices(self, key: str, allowed: tuple[str, ...]) -> list[str]:
        items = self.str_list(key)
        for item in items:
            if item not in allowed:
                self.bad(key, f"unknown value {cut(repr(item))} (allowed: {', '.join(allowed)})")
        return [i for i in items if i in allowed]


#: A key's validator: its value checked (problems reported to the `_Checking`), as `Config`
#: takes it.
Validator = Callable[[_Checking, str], Any]


def _some_of(allowed: Callable[[], tuple[str, ...]]) -> Validator:
    """A list of at least one of the allowed values (`platforms`, `markers`): with none,
    there is nothing to render for, or no way to find a handler."""

    def check(c: _Checking, key: str) -> list[str]:
        found = c.choices(key, allowed())
        if c.values[key] == []:
            c.bad(key, f"must name at least one of {', '.join(allowed())}")
        return found

    return check


def _str_list(c: _Checking, key: str) -> list[str]:
    return c.str_list(key)


def _min_level(c: _Checking, key: str) -> int:
    value = c.values[key]
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3:
        c.bad(key, "must be a whole number from 0 to 3")
        return 0
    return value


def _rules(c: _Checking, key: str) -> dict[str, str]:
    levels: dict[str, str] = {}
    if not isinstance(c.values[key], dict):
        c.bad(key, "must be a table of rule code = level")
        return levels
    if c.too_many(key):
        return levels
    for code, level in c.values[key].items():
        if code not in RULES:
            why = f"unknown rule {code!r} (see `toolgen rules`)"
        elif not RULES[code].configurable:
            rule = RULES[code]
            why = (
                f"{code} ({rule.summary}) cannot be configured: its level is fixed at "
                f"{rule.level.value} (see `toolgen rules`)"
            )
        elif level not in RULE_LEVELS:
            why = f"{code}: level must be one of {', '.join(RULE_LEVELS)}"
        else:
            levels[code] = level
            continue
        place = c.where(key, code)  # the code's own place, rather than the table's
        c.report(Diagnostic("TG002", f"[tool.toolgen] rules: {cut(why)}", place))
    return levels


def _decorators(c: _Checking, key: str) -> tuple[tuple[str, str, Location], ...]:
    decorators: list[tuple[str, str, Location]] = []
    if not isinstance(c.values[key], dict):
        c.bad(key, 'must be a table of "dotted.path.to.decorator" = "preset"')
        return ()
    if c.too_many(key):
        return ()
    for path, preset in c.values[key].items():
        place = c.where(key, path)
        if not all(part.isidentifier() for part in path.split(".")) or "." not in path:
            why = f"{path!r} is not a dotted import path (module.decorator)"
        elif preset not in MARKER_PRESETS:
            why = f"{path}: unknown preset {preset!r} (allowed: {', '.join(MARKER_PRESETS)})"
        else:
            decorators.append((path, preset, place))
            continue
        c.report(Diagnostic("TG002", f"[tool.toolgen] decorators: {cut(why)}", place))
    return tuple(decorators)


def _env(c: _Checking, key: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(c.values[key], dict):
        c.bad(key, 'must be a table of NAME = "value"')
        return ()
    if c.too_many(key):
        return ()
    env: list[tuple[str, str]] = []
    for name, value in c.values[key].items():
        if not isinstance(value, str):
            why = f"{name}: the value must be a string, not {type(value).__name__}"
        elif not name or "=" in name or "\0" in name or "\0" in value:
            why = f"{name!r} = {value!r} cannot be a process environment variable"
        else:
            env.append((name, value))
            continue
        c.report(Diagnostic("TG002", f"[tool.toolgen] env: {cut(why)}", c.where(key, name)))
    return tuple(sorted(env))


#: `[tool.toolgen.lsp]`: each key `toolgen lsp` reads, with its default.
LSP_DEFAULTS = {"write_on_save": True}


def _lsp(c: _Checking, key: str) -> bool:
    """`[tool.toolgen.lsp]`: whether `toolgen lsp` writes the generated files on save."""
    table = c.values[key]
    if not isinstance(table, dict):
        c.bad(key, "must be a table (write_on_save = true or false)")
        return True
    for name in sorted(set(table) - set(LSP_DEFAULTS)):
        c.bad(key, f"{cut(name)}: unknown key (known: {', '.join(LSP_DEFAULTS)})", name)
    value = table.get("write_on_save", LSP_DEFAULTS["write_on_save"])
    if not isinstance(value, bool):
        c.bad(key, "write_on_save: must be true or false", "write_on_save")
        return True
    return value


def _budget(c: _Checking, key: str) -> int | None:
    value = c.values[key]
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        c.bad(key, "must be a positive whole number")
        return None
    return value


def _max_source_bytes(c: _Checking, key: str) -> int:
    value = c.values[key]
    if not isinstance(value, int) or isinstance(value, bool):
        value = 0
    if value < 1:
        c.bad(key, "must be a positive whole number of bytes")
        return MAX_SOURCE_BYTES
    return value


def _framework_versions(c: _Checking, key: str) -> dict[str, str]:
    configured: dict[str, str] = {}
    versions = c.values[key]
    if not isinstance(versions, dict):
        c.bad(key, 'must be a table of framework = version, e.g. {fastmcp = "3"}')
        versions = {}
    if c.too_many(key):
        versions = {}
    for name, version in versions.items():
        if name not in (*DISTRIBUTIONS, "python"):
            known = ", ".join((*DISTRIBUTIONS, "python"))
            c.bad(key, f"unknown framework {cut(repr(name))} (known: {known})", name)
        elif not isinstance(version, str) or not VERSION.match(version):
            why = f'the version must be a string like "4", "4.2" or "4.2.3", not {version!r}'
            c.bad(key, cut(f"{name}: {why}"), name)
        else:
            configured[name] = version
    return configured


def _python(version: str | None) -> tuple[int, int]:
    """`framework_versions`' `python` as (major, minor) ("3" is the newest 3.x), else the
    running Python's."""
    if version is None:
        return sys.version_info[0], sys.version_info[1]
    parts = [int(p) for p in version.split(".")]
    return parts[0], parts[1] if len(parts) > 1 else 999


def _bool(c: _Checking, key: str) -> Any:
    if not isinstance(c.values[key], bool):
        c.bad(key, "must be true or false")
    return c.values[key]


def _one_of(allowed: tuple[str, ...]) -> Validator:
    def check(c: _Checking, key: str) -> Any:
        if c.values[key] not in allowed:
            c.bad(key, f"must be one of {', '.join(allowed)}")
        return c.values[key]

    return check


def _breaking_ignore(c: _Checking, key: str) -> tuple[tuple[str, str, str, str], ...]:
    ignores: list[tuple[str, str, str, str]] = []
    entries = c.values[key]
    lines, shown = c.lines, c.shown
    headers = _ignore_headers(lines)
    if not isinstance(entries, list):
        c.report(
            Diagnostic(
                "TG002",
                "[tool.toolgen] breaking_ignore: must be an array of tables "
                "([[tool.toolgen.breaking_ignore]]) with rule, tool, pointer and reason",
                Location(shown, *headers[0]) if headers else c.where(key),
            )
        )
        entries = []
    if c.too_many(key):
        entries = []
    for number, entry in enumerate(entries, 1):
        # each entry at its `[[tool.toolgen.breaking_ignore]]` line (a key at its own line);
        # the entries of an inline array at the `breaking_ignore =` line (an unknown rule at
        # the first place below it that quotes it)
        header = headers[number - 1] if len(headers) == len(entries) else None
        checked = _ignore_entry(entry, f"[tool.toolgen] breaking_ignore: entry {number}: ")
        for entry_key, why in checked if isinstance(checked, list) else []:
            if header is not None:
                found = _key_in_table(lines, header[0], entry_key) if entry_key else header
                place = Location(shown, *found)
            else:
                place = c.where(key)
                quoted = (f'"{entry["rule"]}"', f"'{entry['rule']}'") if entry_key == "rule" else ()
                end = c.value_end(place.line, key)  # the array's lines, not the rest of the file
                for n, line in enumerate(lines[place.line - 1 : end], place.line):
                    col = max(line.find(q) for q in quoted) if quoted else -1
                    if col >= 0:
                        place = Location(shown, n, col + 2)  # the rule itself, inside its quotes
                        break
            c.report(Diagnostic("TG002", cut(why), place))
        if isinstance(checked, tuple):
            ignores.append(checked)
    return tuple(ignores)


def _docstring_style(c: _Checking, key: str) -> Any:
    if c.values[key] not in DOCSTRING_STYLES:
        c.bad(key, f"must be one of {', '.join(DOCSTRING_STYLES)}")
    return c.values[key]


def _out(c: _Checking, key: str) -> str:
    value = c.values[key]
    if not isinstance(value, str) or not value:
        c.bad(key, "must be a non-empty string")
        return "generated"
    return value


def _library_paths(c: _Checking, key: str) -> tuple[Path, ...]:
    if c.values[key] is None:
        return installed_packages()
    found: tuple[Path, ...] = ()
    for given in c.str_list(key):
        folder, unusable = resolve_path(c.base / given)
        if unusable or not folder.is_dir():
            shown = relative_display(folder, c.cwd)
            c.bad(key, f"{shown} {unusable or 'is not a folder'}")
        else:
            found += (folder,)
    return found


def _contract(c: _Checking, key: str) -> dict[str, ContractEntry]:
    if c.too_many(key):
        return {}

    def where(*path: str) -> Location:
        return c.where(key, *path)

    entries, problems = contract_entries(c.values[key], where, "[tool.toolgen.contract]")
    for problem in problems:
        c.report(problem)
    return entries


def _contract_file(c: _Checking, key: str) -> tuple[Path, dict[str, ContractEntry]] | None:
    """The file `contract_file` names (relative to the configuration's folder) and its
    tables; None when not given or not readable (then a problem)."""
    value = c.values[key]
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        c.bad(key, "must be the path of a TOML file of contract tables")
        return None
    path = c.base / value
    shown = relative_display(path, c.cwd)
    if not Path(os.path.realpath(path)).is_relative_to(c.root.resolve()):
        c.bad(key, f"{shown} is outside the project {c.root}")
        return None
    try:
        text = _text(_read_config(path))
        tables = loads_toml(text)
    except NotRegular as exc:
        c.bad(key, f"{shown} is {exc.strerror}: give a TOML file")
        return None
    except OSError as exc:
        c.bad(key, f"{shown} cannot be read: {exc.strerror or exc}")
        return None
    except UnicodeDecodeError:
        c.bad(key, f"{shown} is not UTF-8")
        return None
    except tomllib.TOMLDecodeError as exc:
        c.report(toml_error(exc, text, shown, "TG002"))
        return None
    found = places(text)

    def where(*path: str) -> Location:
        while path and path not in found:
            path = path[:-1]
        return Location(shown, *found.get(path, (1, 1)))

    entries, problems = contract_entries(tables, where, shown)
    for problem in problems:
        c.report(problem)
    return path.resolve(), entries


def validators() -> dict[str, Validator]:
    """Each key's validator, in the order their problems are reported (`sources` is checked
    with the command line's paths, after them, and `out` as a path last)."""
    options = registry.options()
    return {
        "platforms": _some_of(registry.platform_names),
        "markers": _some_of(lambda: MARKER_PRESETS),
        "skip_params": _str_list,
        "min_level": _min_level,
        "rules": _rules,
        "decorators": _decorators,
        "env": _env,
        "budget_description_chars": _budget,
        "budget_catalog_tokens": _budget,
        "max_source_bytes": _max_source_bytes,
        "framework_versions": _framework_versions,
        **{option.key: _bool for option in options if not option.choices},
        "inline_defs": _bool,
        "mcp_enriched": _bool,
        **{option.key: _one_of(option.choices) for option in options if option.choices},
        "breaking_ignore": _breaking_ignore,
        "docstring_style": _docstring_style,
        "out": _out,
        "library_paths": _library_paths,
        "contract": _contract,
        "contract_file": _contract_file,
        "lsp": _lsp,
    }


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
    c = _Checking(table, text, relative_display(config_file, cwd), base, cwd)
    c.root = root
    problems, where, bad = c.problems, c.where, c.bad
    known = defaults()
    for key in sorted(set(table) - set(known)):
        if c.full():
            c.unshown += 1
            continue
        message = f"[tool.toolgen] {cut(key)}: unknown key (known: {', '.join(known)})"
        c.report(Diagnostic("TG002", message, where(key)))
    checked = {key: validate(c, key) for key, validate in validators().items()}
    markers = checked["markers"]
    configured = checked["framework_versions"]
    frameworks = tuple(framework(name, configured) for name in DISTRIBUTIONS if name in markers)

    def as_shown(path: Path) -> str:  # relative to the working folder when inside it
        return relative_display(path, cwd)

    if sources_override:
        sources_given = [cwd / s for s in sources_override]
    else:
        sources_given = [base / s for s in c.str_list("sources")]
    # A path given on the command line is located nowhere in the config file.
    given, sources_at = (" (given as PATH)", None) if sources_override else ("", where("sources"))
    source_paths = []
    for source in sources_given:
        path, unusable = resolve_path(source)  # symlinks followed: see below
        source_paths.append(path)
        if unusable:
            message = f"source path {as_shown(path)}{given} {unusable}"
            problems.append(Diagnostic("TG003", message, sources_at))
            continue
        if not path.is_relative_to(root.resolve()):
            message = f"source path {as_shown(path)}{given} is outside the project {root}"
            problems.append(Diagnostic("TG003", message, sources_at))
        if not path.exists():
            message = f"source path {as_shown(path)}{given} does not exist"
            problems.append(Diagnostic("TG003", message, sources_at))
    if not sources_override and not source_paths and not problems:
        bad("sources", "must name at least one file or folder")

    out_given = (cwd / out_override) if out_override else (base / checked["out"])
    out, unusable = resolve_path(out_given)  # symlinks followed: one pointing outside is refused
    given, out_at = (" (given as --out)", None) if out_override else ("", where("out"))
    inside = out.relative_to(root.resolve()).parts if out.is_relative_to(root.resolve()) else ()
    if not inside:
        message = f"out {as_shown(out)}{given} must be a folder inside the project {root}"
        problems.append(Diagnostic("TG004", message, out_at))
    elif unusable is None:
        unusable = _in_a_file(out)
        overlap = None if unusable else _overlap(out, root, cwd, source_paths)
        if overlap:
            problems.append(Diagnostic("TG004", f"out {as_shown(out)}{given} {overlap}", out_at))
    if unusable:
        problems.append(Diagnostic("TG008", f"out {as_shown(out)}{given} {unusable}", out_at))
    contract = dict(checked["contract"])
    for name, entry in (checked["contract_file"] or (None, {}))[1].items():
        if name in contract:
            message = (
                f"{entry.at.path}: tool {cut(name)} has a contract table in "
                f"[tool.toolgen.contract] too; keep one"
            )
            problems.append(Diagnostic("TG002", message, entry.at))
        contract[name] = entry
    if c.unshown:
        more = f"{c.unshown:,} more problems with the configuration are not shown: fix these first"
        problems.append(Diagnostic("TG002", more, Location(c.shown, 1, 1)))
    if problems:
        raise UserError(*problems)
    platforms = checked["platforms"]
    # a link to the contract file, pointed elsewhere, changes the configuration too
    contract_given, contract_resolved = [], []
    if checked["contract_file"] is not None:
        contract_given = [c.base / table["contract_file"]]
        contract_resolved = [checked["contract_file"][0]]
    return Config(
        root=root,
        cwd=cwd.resolve(),
        config_file=config_file,
        sources=tuple(source_paths),
        out=out,
        platforms=tuple(p for p in registry.platform_names() if p in platforms),
        markers=tuple(markers),
        skip_params=tuple(checked["skip_params"]),
        docstring_style=checked["docstring_style"],
        min_level=checked["min_level"],
        rule_levels=checked["rules"],
        budget_description_chars=checked["budget_description_chars"],
        budget_catalog_tokens=checked["budget_catalog_tokens"],
        budget_catalog_at=where("budget_catalog_tokens"),
        markers_at=where("markers"),
        breaking_ignore=checked["breaking_ignore"],
        library_paths=checked["library_paths"],
        max_source_bytes=checked["max_source_bytes"],
        frameworks=frameworks,
        python=_python(configured.get("python")),
        mcp_enriched=checked["mcp_enriched"],
        lsp_write_on_save=checked["lsp"],
        decorators=checked["decorators"],
        env=checked["env"],
        contract=contract,
        contract_file=checked["contract_file"][0] if checked["contract_file"] else None,
        resolved=tuple(
            (str(given), str(path))
            for given, path in zip(
                [*sources_given, out_given, *contract_given],
                [*source_paths, out, *contract_resolved],
                strict=True,
            )
        ),
        render=RenderOptions.of(
            {option.key: checked[option.key] for option in registry.options()},
            inline_defs=checked["inline_defs"],
        ),
    )
