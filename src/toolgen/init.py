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
anything is written); `apply_init` writes the example first and `pyproject.toml` last, and says
what it did. A write that fails there (a full disk, a folder made read-only meanwhile) is a
TG006 too, which says what had been written before it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgen.config import loads_toml, relative_display, toml_error
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


def _read_pyproject(pyproject: Path, shown: str) -> tuple[bytes, dict[str, Any]]:
    if not pyproject.exists():
        return b"", {}
    if not pyproject.is_file():
        raise _fail(f"{shown} is not a file")
    try:
        raw = pyproject.read_bytes()
        text = raw.decode("utf-8")
        return raw, loads_toml(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(f"cannot read {shown}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        after = "; fix it first; nothing was changed"
        raise UserError(toml_error(exc, text, shown, "TG006", after)) from None


def _check_folder(folder: Path, project: Path, what: str, cwd: Path) -> None:
    """`folder` and each of its parents up to `project` is a folder or does not exist yet."""
    for path in (folder, *folder.parents):
        if path.exists() and not path.is_dir():
            named = what if path == folder else f"{what}: {relative_display(path, cwd)}"
            raise _fail(f"{named} is not a folder")
        if path == project:
            return


def plan_init(project: Path, sources: str | None, *, cwd: Path) -> InitPlan:
    """Check the project and decide what to write; raises `UserError` (TG006) on bad input."""
    project = (cwd / project).resolve()
    if not project.is_dir():
        raise _fail(
            f"{relative_display(project, cwd)} is not a folder (--path DIR names a project)"
        )
    if sources is not None and not sources.strip():
        raise _fail("--sources is empty; name the folder for the example tool")
    pyproject = project / "pyproject.toml"
    shown = relative_display(pyproject, cwd)
    existing, data = _read_pyproject(pyproject, shown)
    tool_table = data.get("tool", {})
    configured = isinstance(tool_table, dict) and "toolgen" in tool_table
    chosen = default_sources(project, data) if sources is None else sources
    what = f"--sources {sources}" if sources is not None else f"the sources folder {chosen}"
    folder = (project / chosen).resolve()
    if not folder.is_relative_to(project):
        raise _fail(f"{what} is outside the project {relative_display(project, cwd)}")
    _check_folder(folder, project, what, cwd)
    example = folder / EXAMPLE_FILE
    if example.exists() and not example.is_file():
        raise _fail(f"{relative_display(example, cwd)} is not a file")
    relative = folder.relative_to(project).as_posix()
    package_init = None
    if not folder.exists() and (folder.parent / "__init__.py").is_file():
        package_init = folder / "__init__.py"
    addition = None
    if not configured:
        newline = "\r\n" if b"\r\n" in existing else "\n"
        addition = appended(existing, config_table(relative, newline), newline)
        try:  # e.g. an inline `tool = {...}` table cannot take a [tool.toolgen] header
            after = loads_toml((existing + addition).decode("utf-8"))
            ok = after["tool"]["toolgen"]["sources"] == [relative]
        except (tomllib.TOMLDecodeError, KeyError, TypeError):
            ok = False
        if not ok:
            raise _fail(f"cannot append a [tool.toolgen] table to {shown}; add it by hand")
    return InitPlan(project, pyproject, addition, relative, example, package_init)


def _append(path: Path, data: bytes, size: int | None) -> None:
    """Append `data` to `path` (created when missing: `size` None, else its length now); on
    failure, put the file back as it was before raising."""
    try:
        with open(path, "ab") as handle:  # append: what is there stays byte for byte
            handle.write(data)
    except OSError:
        with contextlib.suppress(OSError):
            if size is None:
                path.unlink(missing_ok=True)
            else:
                os.truncate(path, size)
        raise


def _intact(path: Path, size: int | None) -> bool:
    """`path` is as it was: missing (`size` None) or of its old length."""
    try:
        return path.stat().st_size == size if size is not None else not path.exists()
    except OSError:
        return False


def _create(path: Path, text: str) -> bool:
    """Write `text` to the new file `path`; False when it exists (it is never overwritten). A
    write that fails leaves no part of the file behind."""
    opened = False
    try:
        with open(path, "x", encoding="utf-8", newline="\n") as handle:
            opened = True
            handle.write(text)
    except FileExistsError:
        return False
    except OSError:
        if opened:
            with contextlib.suppress(OSError):
                path.unlink()
        raise
    return True


def _write_files(plan: InitPlan, cwd: Path, done: list[str], made: list[str]) -> None:
    """The example's folder and files, never over an existing file. Each step is said in
    `done`, and named in `made` once it is complete on disk (for a failure's message)."""
    missing = [p for p in (plan.example.parent, *plan.example.parent.parents) if not p.exists()]
    for folder in reversed(missing):
        folder.mkdir()
        made.append(f"created {relative_display(folder, cwd)}/")
    for path, text in ((plan.package_init, PACKAGE_INIT), (plan.example, EXAMPLE_HANDLER)):
        if path is None:
            continue
        shown = relative_display(path, cwd)
        if not _create(path, text):
            done.append(f"toolgen: {shown} exists; left as it is")
            continue
        made.append(f"wrote {shown}")
        what = f", an example tool ({EXAMPLE_TOOL})" if path == plan.example else ""
        done.append(f"toolgen: wrote {shown}{what}")


def _failed(problem: str, made: list[str], untouched: str | None) -> UserError:
    """TG006 for a write that failed after `made` (what is on disk already); `untouched`
    says how pyproject.toml was left, None: it may hold part of the table."""
    if not made and untouched:
        return _fail(problem)
    so_far = f"{', '.join(made)}, but " if made else ""
    state = untouched or "may hold part of the [tool.toolgen] table: check its end"
    return UserError(
        Diagnostic(
            "TG006",
            f"{problem}; {so_far}{state}; fix the problem, then run `toolgen init` again",
        )
    )


def apply_init(plan: InitPlan, *, cwd: Path) -> list[str]:
    """Write what `plan` says, never over an existing file; return what was done, one line each.

    The example's folder and files come first and `pyproject.toml` last, so a project is only
    configured once its example is in place. A write that fails raises `UserError` (TG006)
    that says what had been written before it.
    """
    shown = relative_display(plan.pyproject, cwd)
    if plan.addition is None:
        return [f"toolgen: {shown} already has a [tool.toolgen] table; nothing changed"]
    done: list[str] = []
    made: list[str] = []
    untouched = f"{shown} was not {'changed' if plan.pyproject.exists() else 'created'}"
    try:
        _write_files(plan, cwd, done, made)
    except OSError as exc:
        where = relative_display(Path(exc.filename), cwd) if exc.filename else "a file"
        raise _failed(f"cannot write {where}: {exc.strerror or exc}", made, untouched) from None
    verb = "append a [tool.toolgen] table to" if plan.pyproject.exists() else "create"
    try:
        size = plan.pyproject.stat().st_size if verb != "create" else None
    except OSError as exc:
        raise _failed(f"cannot {verb} {shown}: {exc.strerror or exc}", made, untouched) from None
    try:
        _append(plan.pyproject, plan.addition, size)
    except OSError as exc:
        state = untouched if _intact(plan.pyproject, size) else None
        raise _failed(f"cannot {verb} {shown}: {exc.strerror or exc}", made, state) from None
    what = f"added to {shown}" if size is not None else f"created {shown} with"
    table = f"toolgen: {what} a [tool.toolgen] table (sources = [{json.dumps(plan.sources)}])"
    done.insert(0, table)
    done.append(
        "next: `toolgen build` writes generated/; commit it, and run `toolgen check` in CI "
        "(or the toolgen-check pre-commit hook)"
    )
    return done


def init_project(project: Path, sources: str | None, *, cwd: Path) -> list[str]:
    """`toolgen init`: plan, then apply; the lines to print."""
    return apply_init(plan_init(project, sources, cwd=cwd), cwd=cwd)
