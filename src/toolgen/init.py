"""`toolgen init`: set an existing project up for toolgen.

It adds a `[tool.toolgen]` table to the project's `pyproject.toml` (appended as text, so every
byte already there stays as it was; the file is created only when missing) and an example
handler that compiles cleanly at conformance level 3. It never overwrites a file: a project that
already has the table is set up, and nothing is changed; an example file that exists is left as
it is. Running it twice is the same as running it once.

Where the example goes (`sources`), unless `--sources DIR` says (relative to the project):
`src/<package>/tools/` when the project has a `src/` layout (the package named like the project,
or the only one), `<package>/tools/` for a flat layout named like the project, else `tools/`.
A folder created inside a package gets an `__init__.py`, so it is a subpackage.

`plan_init` reads and checks everything first (problems raise `UserError`, TG006, before
anything is written); `apply_init` writes and says what it did.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgen.diagnostics import Diagnostic, Location, UserError

EXAMPLE_FILE = "example_tool.py"
EXAMPLE_TOOL = "greet_user"
OUT = "generated"

PACKAGE_INIT = '"""Tool handlers, compiled by toolgen into descriptors (`toolgen build`)."""\n'

EXAMPLE_HANDLER = '''\
"""An example tool handler written by `toolgen init`: copy it, then delete it.

toolgen reads this file without importing it. The signature, the type hints, the
docstring's sections and the decorator's literal arguments become the descriptor
`generated/descriptors/greet_user.json` and the OpenAI, Anthropic, Gemini and MCP
payloads beside it. Run `toolgen build` after every edit (or `toolgen build --watch`).
"""

from __future__ import annotations

from typing import Literal

from toolgen import ToolError, tool

GREETINGS = {"en": "Hello, {name}!", "fr": "Bonjour, {name} !", "de": "Hallo, {name}!"}


@tool(
    risk="low",
    category="example",
    keywords=["greeting", "welcome message", "say hello"],
    version="1.0.0",
    latency_p50_ms=1,
)
def greet_user(name: str, language: Literal["en", "fr", "de"] = "en") -> str:
    """Write a one-sentence greeting for a user, in English, French or German.

    Read-only; it only builds the text and sends nothing.

    Args:
        name: The user's name, as they wrote it.
        language: The language of the greeting.

    Returns:
        The greeting.

    Errors:
        VALIDATION_ERROR: The name is empty.

    Examples:
        Greet a user in French:

        >>> greet_user(name="Ada", language="fr")
        "Bonjour, Ada !"

        An empty name is rejected:

        >>> greet_user(name="")
        {"error": {"code": "VALIDATION_ERROR", "message": "name is empty"}}

    Idempotency:
        idempotent: true
        safe: true
        destructive: false
        open_world: false
    """
    if not name.strip():
        raise ToolError("VALIDATION_ERROR", "name is empty")
    return GREETINGS[language].format(name=name.strip())
'''


@dataclass(frozen=True)
class InitPlan:
    """What `apply_init` will do. Paths are absolute."""

    project: Path
    pyproject: Path
    #: the bytes to append to pyproject.toml (the whole file when it does not exist yet);
    #: None when the project already has a [tool.toolgen] table: then nothing is done at all
    addition: bytes | None
    sources: str  # the `sources` entry, relative to the project, as written in the table
    example: Path
    #: `__init__.py` to write because the example's folder is new and inside a package
    package_init: Path | None


def config_table(sources: str, newline: str = "\n") -> str:
    """The `[tool.toolgen]` table `init` appends."""
    lines = [
        "[tool.toolgen]",
        "# `toolgen build` compiles the typed tool handlers in `sources` into descriptors and",
        "# platform payloads in `out`; commit `out`, and run `toolgen check` in CI.",
        f"sources = [{json.dumps(sources, ensure_ascii=False)}]",
        f'out = "{OUT}"',
        'platforms = ["openai", "anthropic", "gemini", "mcp"]',
        'markers = ["toolgen"]  # also: fastmcp, mcp, openai-agents, langchain, pydantic-ai',
        "min_level = 1  # the conformance level (0-3) every tool must reach; the example reaches 3",
    ]
    return newline.join(lines) + newline


def appended(existing: bytes, table: str, newline: str) -> bytes:
    """What to append to `existing` so that `table` follows it after one blank line."""
    if not existing:
        return table.encode()
    gap = "" if existing.endswith(b"\n") else newline
    if not existing.endswith((b"\n\n", b"\r\n\r\n")):
        gap += newline
    return (gap + table).encode()


def default_sources(project: Path, data: dict[str, Any]) -> str:
    """Where the example goes when `--sources` is not given (see the module docstring)."""
    name = data.get("project", {}).get("name") if isinstance(data.get("project"), dict) else None
    package = re.sub(r"[-_.]+", "_", name).lower() if isinstance(name, str) else None
    src = project / "src"
    if src.is_dir():
        packages = sorted(
            d.name for d in src.iterdir() if d.is_dir() and (d / "__init__.py").is_file()
        )
        if package in packages:
            return f"src/{package}/tools"
        if len(packages) == 1:
            return f"src/{packages[0]}/tools"
    if package and (project / package / "__init__.py").is_file():
        return f"{package}/tools"
    return "tools"


def _fail(message: str, location: Location | None = None) -> UserError:
    return UserError(Diagnostic("TG006", f"{message}; nothing was changed", location))


def _shown(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd.resolve()).as_posix() or "."
    except ValueError:
        return path.as_posix()


def _read_pyproject(pyproject: Path, shown: str) -> tuple[bytes, dict[str, Any]]:
    if not pyproject.exists():
        return b"", {}
    if not pyproject.is_file():
        raise _fail(f"{shown} is not a file")
    try:
        raw = pyproject.read_bytes()
        return raw, tomllib.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(f"cannot read {shown}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        location = Location(shown, int(where.group(1)), int(where.group(2))) if where else None
        message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(exc))
        raise _fail(f"{shown} is not valid TOML ({message}); fix it first", location) from None


def plan_init(project: Path, sources: str | None, *, cwd: Path) -> InitPlan:
    """Check the project and decide what to write; raises `UserError` (TG006) on bad input."""
    project = (cwd / project).resolve()
    if not project.is_dir():
        raise _fail(f"{_shown(project, cwd)} is not a folder (--path DIR names a project)")
    pyproject = project / "pyproject.toml"
    shown = _shown(pyproject, cwd)
    existing, data = _read_pyproject(pyproject, shown)
    tool_table = data.get("tool", {})
    configured = isinstance(tool_table, dict) and "toolgen" in tool_table
    folder = (project / (sources or default_sources(project, data))).resolve()
    if not folder.is_relative_to(project):
        raise _fail(f"--sources {sources} is outside the project {_shown(project, cwd)}")
    if folder.exists() and not folder.is_dir():
        raise _fail(f"--sources {sources} is not a folder")
    relative = folder.relative_to(project).as_posix()
    package_init = None
    if not folder.exists() and (folder.parent / "__init__.py").is_file():
        package_init = folder / "__init__.py"
    addition = None
    if not configured:
        newline = "\r\n" if b"\r\n" in existing else "\n"
        addition = appended(existing, config_table(relative, newline), newline)
        try:  # e.g. an inline `tool = {...}` table cannot take a [tool.toolgen] header
            after = tomllib.loads((existing + addition).decode("utf-8"))
            ok = after["tool"]["toolgen"]["sources"] == [relative]
        except (tomllib.TOMLDecodeError, KeyError, TypeError):
            ok = False
        if not ok:
            raise _fail(f"cannot append a [tool.toolgen] table to {shown}; add it by hand")
    return InitPlan(project, pyproject, addition, relative, folder / EXAMPLE_FILE, package_init)


def apply_init(plan: InitPlan, *, cwd: Path) -> list[str]:
    """Write what `plan` says, never over an existing file; return what was done, one line each."""
    shown = _shown(plan.pyproject, cwd)
    if plan.addition is None:
        return [f"toolgen: {shown} already has a [tool.toolgen] table; nothing changed"]
    done = []
    created = not plan.pyproject.exists()
    with open(plan.pyproject, "ab") as handle:  # append: what is there stays byte for byte
        handle.write(plan.addition)
    what = f"created {shown} with" if created else f"added to {shown}"
    done.append(f"toolgen: {what} a [tool.toolgen] table (sources = [{json.dumps(plan.sources)}])")
    for path, text in ((plan.package_init, PACKAGE_INIT), (plan.example, EXAMPLE_HANDLER)):
        if path is None:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(path, "x", encoding="utf-8", newline="\n") as handle:  # never overwrites
                handle.write(text)
        except FileExistsError:
            done.append(f"toolgen: {_shown(path, cwd)} exists; left as it is")
            continue
        what = f", an example tool ({EXAMPLE_TOOL})" if path == plan.example else ""
        done.append(f"toolgen: wrote {_shown(path, cwd)}{what}")
    done.append(
        "next: `toolgen build` writes generated/; commit it, and run `toolgen check` in CI "
        "(or the toolgen-check pre-commit hook)"
    )
    return done


def init_project(project: Path, sources: str | None, *, cwd: Path) -> list[str]:
    """`toolgen init`: plan, then apply; the lines to print."""
    return apply_init(plan_init(project, sources, cwd=cwd), cwd=cwd)
