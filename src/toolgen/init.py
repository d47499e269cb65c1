"""`toolgen init`: set an existing project up for toolgen.

It reads the project first, statically (`toolgen.detect`: nothing is imported): the tool
frameworks its Python files import (tests aside) set `markers`, and the files that register
tools with them set `sources` (`common_sources`: the folder they share, never the project
folder itself, so that `out` has a folder of its own). It says what it found ("found 18
FastMCP tools in src/app/server.py"), counted as `toolgen build` will count them.

It adds a `[tool.toolgen]` table to the project's `pyproject.toml` (appended as text, so every
byte already there stays as it was; the file is created only when missing). Only a project
with no tools yet gets an example handler, which compiles cleanly at conformance level 3. It
never overwrites a file: a project that already has the table is set up, and nothing is
changed; an example file that exists is left as it is. Running it twice is the same as
running it once.

Where the example goes (`sources`), unless `--sources DIR` says (relative to the project):
`src/<package>/tools/` when the project has a `src/` layout (the package named like the project,
or the only one), `<package>/tools/` for a flat layout named like the project, else `tools/`.
A folder created inside a package gets an `__init__.py`, so it is a subpackage, and `init`
says so. `--sources DIR` that holds tools is the `sources` entry, and no example is written.

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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolgen.config import MARKER_PRESETS, Config, installed_packages, loads_toml, toml_error
from toolgen.descriptor import ToolDescriptor
from toolgen.detect import LABELS, Registered, Scan, count_tools, scan_project
from toolgen.diagnostics import Diagnostic, Location, UserError, plural, relative_display
from toolgen.init_contract import CONTRACT_FILE, contract_text
from toolgen.read.discover import module_name
from toolgen.render.registry import platform_names

EXAMPLE_FILE = "example_tool.py"
EXAMPLE_TOOL = "greet_user"
OUT = "generated"
#: Where the output goes when `generated` is taken (a file, or a folder that holds sources).
OUT_INSTEAD = "toolgen_generated"

PACKAGE_INIT = '"""Tool handlers, compiled by toolgen into descriptors (`toolgen build`)."""\n'

EXAMPLE_HANDLER = '''\
"""An example tool handler written by `toolgen init`: copy it, then delete it.

toolgen reads this file without importing it. The signature, the type hints, the
docstring's sections and the decorator's literal arguments become the descriptor
`generated/descriptors/greet_user.json` and the OpenAI, Anthropic, Gemini and MCP
payloads beside it. Run `toolgen build` after every edit (or `toolgen build --watch`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolgen import ToolError, tool

GREETINGS = {"en": "Hello, {name}!", "fr": "Bonjour, {name} !", "de": "Hallo, {name}!"}


@tool(
    risk="low",
    category="example",
    keywords=["greeting", "welcome message", "say hello"],
    version="1.0.0",
    latency_p50_ms=1,
)
def greet_user(
    name: Annotated[str, Field(max_length=100)],
    language: Literal["en", "fr", "de"] = "en",
) -> str:
    """Write a one-sentence greeting for a user, in English, French or German.

    Use it to welcome someone. Read-only; it only builds the text and sends nothing.

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
    #: the `sources` entries, relative to the project, as written in the table
    sources: tuple[str, ...]
    #: the example handler to write; None when the project has tools already
    example: Path | None
    #: `__init__.py` to write because the example's folder is new and inside a package
    package_init: Path | None
    markers: tuple[str, ...] = ("toolgen",)
    out: str = OUT
    #: what init found in the project, to print first
    found: list[str] = field(default_factory=list)
    #: the contract file to write for the tools no layer classifies (`toolgen.init_contract`)
    contract: str | None = None


def config_table(
    sources: str | Sequence[str],
    newline: str = "\n",
    markers: Sequence[str] = ("toolgen",),
    *,
    example: bool = True,
    out: str = OUT,
    versions: dict[str, str] | None = None,
    contract: bool = False,
) -> str:
    """The `[tool.toolgen]` table `init` appends: for a project that gets the `example`, one
    that makes every tool reach level 1; for one whose tools it found, levels are reported and
    required of none (the project raises `min_level` when its tools are ready). `versions`:
    the installed version of each framework whose publication rules make the MCP entries,
    pinned so that a `check` elsewhere (CI) makes the same files."""
    entries = [sources] if isinstance(sources, str) else list(sources)
    others = ", ".join(m for m in MARKER_PRESETS if m not in markers)
    found = "" if list(markers) == ["toolgen"] else "found by `toolgen init`"
    comment = "; ".join(c for c in (found, others and f"also: {others}") if c)
    level = (
        "min_level = 1  # the conformance level (0-3) every tool must reach; the example reaches 3"
        if example
        else "min_level = 0  # levels are reported; set 1-3 to make every tool reach that level"
    )
    lines = [
        "[tool.toolgen]",
        "# `toolgen build` compiles the typed tool handlers in `sources` into descriptors and",
        "# platform payloads in `out`; commit `out`, and run `toolgen check` in CI.",
        f"sources = {_toml_list(entries)}",
        f"out = {_toml_list([out])[1:-1]}",
        f"platforms = {_toml_list(list(platform_names()))}",
        f"markers = {_toml_list(markers)}  # {comment}",
        level,
    ]
    if contract:
        lines.append(
            f'contract_file = "{CONTRACT_FILE}"  # each tool\'s risk and contract: review it'
        )
    if versions:
        pinned = ", ".join(f'{name} = "{version}"' for name, version in sorted(versions.items()))
        lines.append(
            f"framework_versions = {{{pinned}}}  # as installed here: the MCP entries follow "
            "its rules; change it when you upgrade"
        )
    return newline.join(lines) + newline


def _toml_list(values: Iterable[str]) -> str:
    return "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in values) + "]"


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
    """Check and read the project, and decide what to write; raises `UserError` (TG006) on
    bad input."""
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
    if isinstance(tool_table, dict) and "toolgen" in tool_table:
        return InitPlan(project, pyproject, None, (), None, None)
    if sources is not None and not (project / sources).resolve().is_relative_to(project):
        raise _fail(f"--sources {sources} is outside the project {relative_display(project, cwd)}")
    scan = _scan(project, cwd)
    # init's own example, from a run that failed later, is no tool of the project's
    scan.registered = {f: n for f, n in scan.registered.items() if not _is_example(f)}
    plan = _adopt(project, pyproject, sources, scan, cwd) or _unreadable(project, pyproject, scan)
    if plan is None:
        plan = _with_example(project, pyproject, sources, scan, data, cwd)
    newline = "\r\n" if b"\r\n" in existing else "\n"
    out = _out_folder(project, plan.sources)
    example = plan.example is not None
    versions = _installed_versions(plan.markers)
    # a link there, even to nowhere, is never written through: it is left as it is
    contract = plan.contract if not os.path.lexists(project / CONTRACT_FILE) else None
    table = config_table(
        plan.sources,
        newline,
        plan.markers,
        example=example,
        out=out,
        versions=versions,
        contract=contract is not None,
    )
    addition = appended(existing, table, newline)
    try:  # e.g. an inline `tool = {...}` table cannot take a [tool.toolgen] header
        after = loads_toml((existing + addition).decode("utf-8"))
        ok = after["tool"]["toolgen"]["sources"] == list(plan.sources)
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        ok = False
    if not ok:
        raise _fail(f"cannot append a [tool.toolgen] table to {shown}; add it by hand")
    notes = _notes(scan, plan.markers, example)
    if plan.contract is not None and contract is None:
        notes.append(f"toolgen: {CONTRACT_FILE} exists; left as it is, and not named")
    found = [*plan.found, *notes]
    return replace(plan, addition=addition, out=out, found=found, contract=contract)


def _installed_versions(markers: Sequence[str]) -> dict[str, str]:
    """The installed version (major.minor) of each framework in `markers` whose publication
    rules depend on it (read from its METADATA, never imported)."""
    from toolgen.frameworks import DISTRIBUTIONS, framework

    found = {}
    for name in markers:
        if name in DISTRIBUTIONS:
            installed = framework(name, {})
            if installed.installed:
                found[name] = ".".join(installed.version.split(".")[:2])
    return found


def _scan(project: Path, cwd: Path) -> Scan:
    try:
        return scan_project(project, lambda path: relative_display(path, cwd))
    except OSError as exc:
        raise _cannot_read(exc, cwd) from None


def _cannot_read(exc: OSError, cwd: Path) -> UserError:
    """TG006 for a folder of the project that cannot be listed."""
    where = relative_display(Path(exc.filename), cwd) if exc.filename else "a folder"
    return _fail(f"cannot read {where}: {exc.strerror or exc}")


def _is_example(path: Path) -> bool:
    try:
        return path.name == EXAMPLE_FILE and path.read_bytes() == EXAMPLE_HANDLER.encode()
    except OSError:
        return False


def _adopt(
    project: Path, pyproject: Path, sources: str | None, scan: Scan, cwd: Path
) -> InitPlan | None:
    """The plan for a project with tools: `sources` where they are registered, `markers` the
    frameworks that register them, and what `toolgen build` will find with those; None when
    the project has no tools it can read."""
    entries: tuple[str, ...]
    if sources is not None:
        entries = ((project / sources).resolve().relative_to(project).as_posix(),)
    else:  # with the files that mount servers into others: their tools are listed there
        entries = common_sources(project, [*scan.registered, *scan.mounting])
    used = [p for p in scan.imported if any(c[p] for c in scan.registered.values())]
    markers = tuple(used or scan.imported)
    if not entries or not markers:
        return None
    config = Config(
        root=project,
        cwd=cwd.resolve(),
        config_file=pyproject,
        sources=tuple((project / e).resolve() for e in entries),
        out=project / OUT,
        markers=markers,
        library_paths=installed_packages(),
    )
    try:
        counted = count_tools(config)
    except OSError as exc:
        raise _cannot_read(exc, cwd) from None
    if not counted:
        return None
    found = found_lines(counted, project, entries, cwd)
    return InitPlan(
        project,
        pyproject,
        None,
        entries,
        None,
        None,
        markers,
        found=found,
        contract=contract_text(_tools(config)),
    )


def _tools(config: Config) -> list[ToolDescriptor]:
    """The project's tools as `toolgen build` compiles them, each by its own name (a mounted
    server's before the mount's prefix: what a contract table is keyed by)."""
    from toolgen.compiler import compile_units

    return compile_units(config, lambda unit, file, roots: unit).descriptors


def _unreadable(project: Path, pyproject: Path, scan: Scan) -> InitPlan | None:
    """The plan for a project that registers tools in ways no static reader can follow
    (TG106), with nothing else found: no example (it has tools); `sources` the packages
    that import the frameworks and write those registrations, where a decorator of the
    project's own that collects the tools is likely used (`_notes` says to declare it)."""
    markers = tuple(p for p in scan.imported if p != "toolgen")
    if not scan.unfollowed or not markers:
        return None
    entries = common_sources(project, map(_package, [*scan.importing, *scan.unfollowed]))
    labels = " or ".join(LABELS[m] for m in markers)
    found = [f"toolgen: found no {labels} tool registered in a way it can read"]
    return InitPlan(project, pyproject, None, entries, None, None, markers, found=found)


def _package(path: Path) -> Path:
    """The outermost package `path` is in, or `path` when it is in none."""
    name, root = module_name(path)
    inside = "." in name or path.name == "__init__.py"
    return root / name.split(".")[0] if inside else path


def _with_example(
    project: Path,
    pyproject: Path,
    sources: str | None,
    scan: Scan,
    data: dict[str, Any],
    cwd: Path,
) -> InitPlan:
    """The plan for a project with no tools yet: the example, in `sources` or where
    `default_sources` says."""
    chosen = default_sources(project, data) if sources is None else sources
    what = f"--sources {sources}" if sources is not None else f"the sources folder {chosen}"
    folder = (project / chosen).resolve()
    if not folder.is_relative_to(project):
        raise _fail(f"{what} is outside the project {relative_display(project, cwd)}")
    _check_folder(folder, project, what, cwd)
    example = folder / EXAMPLE_FILE
    if example.exists() and not example.is_file():
        raise _fail(f"{relative_display(example, cwd)} is not a file")
    package_init = None
    if not folder.exists() and (folder.parent / "__init__.py").is_file():
        package_init = folder / "__init__.py"
    markers = ("toolgen", *(m for m in scan.imported if m != "toolgen"))
    shown = relative_display(project if sources is None else folder, cwd)
    found = [f"toolgen: found no tools in {'the project' if shown == '.' else shown}"]
    if sources is not None and scan.registered:  # elsewhere than the --sources given
        where = ", ".join(
            relative_display(project / e, cwd) for e in common_sources(project, scan.registered)
        )
        found.append(f"toolgen: the project registers tools outside --sources, in {where}")
    entries = (folder.relative_to(project).as_posix(),)
    return InitPlan(project, pyproject, None, entries, example, package_init, markers, found=found)


def common_sources(project: Path, files: Iterable[Path]) -> tuple[str, ...]:
    """The `sources` entries that hold `files`, relative to the project: the folder they
    have in common (a file alone is itself), or, when that is the project folder (where
    `out` is), that of each top-level file or folder they are in."""
    paths = sorted(set(files))
    if not paths:
        return ()
    groups: dict[str, list[Path]] = {"": paths}
    if Path(os.path.commonpath(paths)) == project:
        groups = {}
        for path in paths:
            groups.setdefault(path.relative_to(project).parts[0], []).append(path)
    entries = [Path(os.path.commonpath(group)) for group in groups.values()]
    return tuple(sorted(e.relative_to(project).as_posix() for e in entries))


def found_lines(counted: Registered, project: Path, entries: Sequence[str], cwd: Path) -> list[str]:
    """One line per framework, such as `found 18 FastMCP tools in src/app/server.py`; with
    more than one `sources` entry, how many in each."""
    lines = []
    for preset, label in LABELS.items():
        per_entry: dict[str, int] = {}
        for path, counts in counted.items():
            if counts[preset]:
                entry = next(e for e in entries if path.is_relative_to((project / e).resolve()))
                shown = relative_display(project / entry, cwd)
                per_entry[shown] = per_entry.get(shown, 0) + counts[preset]
        if not per_entry:
            continue
        total = plural(sum(per_entry.values()), f"{label} tool")
        if len(per_entry) == 1:
            lines.append(f"toolgen: found {total} in {next(iter(per_entry))}")
        else:
            each = ", ".join(f"{n} in {e}" for e, n in per_entry.items())
            lines.append(f"toolgen: found {total}: {each}")
    return lines


def _notes(scan: Scan, markers: Sequence[str], example: bool) -> list[str]:
    """What init saw and cannot read: a framework imported with no tool found, and
    registrations no static reader can follow (TG106); then where a project's own tool
    decorator is declared, which is the usual reason."""
    registered = {p for counts in scan.registered.values() for p in counts}
    notes = [
        f"toolgen: the project imports {LABELS[p]}, but no {LABELS[p]} tool registered in a "
        "way toolgen can read"
        for p in scan.imported
        if p not in registered and p != "toolgen" and (p not in markers or example)
    ]
    notes += [d.format_text() for found in scan.unfollowed.values() for d in found]
    if scan.unfollowed:
        notes.append(
            "toolgen: tools that a decorator of the project's own collects are read once it "
            "is declared in [tool.toolgen.decorators] (see the README)"
        )
    return notes


def _out_folder(project: Path, entries: Sequence[str]) -> str:
    """`generated`, unless it is a file or overlaps a source (the configuration refuses
    that, TG004): then `toolgen_generated`."""
    sources = [(project / e).resolve() for e in entries]
    for name in (OUT, OUT_INSTEAD):
        out = (project / name).resolve()
        if out.exists() and not out.is_dir():
            continue
        if not any(out.is_relative_to(s) or s.is_relative_to(out) for s in sources):
            return name
    raise _fail(f"{OUT} and {OUT_INSTEAD} are both taken; add the [tool.toolgen] table by hand")


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
    """The example's folder and files, or the contract file, never over an existing file.
    Each step is said in `done`, and named in `made` once it is complete on disk (for a
    failure's message)."""
    if plan.contract is not None:
        contract = plan.project / CONTRACT_FILE
        shown = relative_display(contract, cwd)
        if _create(contract, plan.contract):
            made.append(f"wrote {shown}")
            count = plan.contract.count("\n[")
            done.append(
                f"toolgen: wrote {shown}: a risk to review for each of {plural(count, 'tool')}"
                " (the build warns until each is set)"
            )
    if plan.example is None:
        return
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
        if path == plan.example:
            what = f", an example tool ({EXAMPLE_TOOL})"
        else:  # said, since it changes the user's own package
            package, _, name = module_name(path)[0].rpartition(".")
            what = f": `{name}` is a new subpackage of your package `{package}`"
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
    settings = f"sources = {_toml_list(plan.sources)}, markers = {_toml_list(plan.markers)}"
    done.insert(0, f"toolgen: {what} a [tool.toolgen] table ({settings})")
    done.append(
        f"next: `toolgen build` writes {plan.out}/; commit it, and run `toolgen check` in CI "
        "(or the toolgen-check pre-commit hook)"
    )
    return [*plan.found, *done]


def init_project(project: Path, sources: str | None, *, cwd: Path) -> list[str]:
    """`toolgen init`: plan, then apply; the lines to print."""
    return apply_init(plan_init(project, sources, cwd=cwd), cwd=cwd)
