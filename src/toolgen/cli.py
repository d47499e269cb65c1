"""The command line: `toolgen build` and `toolgen check`. I/O and exit codes live here only.

Exit codes: 0 clean; 1 drift, or findings at or above `--fail-on` (build: an error-level
diagnostic, and then nothing is written); 2 usage, configuration, syntax or internal error.
"""

from __future__ import annotations

import argparse
import functools
import gc
import io
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from toolgen._version import __version__
from toolgen.diagnostics import (
    Diagnostic,
    Level,
    Location,
    UserError,
    escape_name,
    format_lines,
    has_errors,
    plural,
    sort_diagnostics,
)
from toolgen.render.registry import platform_names
from toolgen.stamp import Written, record, replay_loaded
from toolgen.stamp import load as load_stamp
from toolgen.stamp import written as written_by

if TYPE_CHECKING:
    from toolgen.config import Config
    from toolgen.output import Drift, Seen, UnsafeOut, WriteReport
    from toolgen.pipeline import Generated
    from toolgen.removal import Kept
    from toolgen.session import Session
    from toolgen.spool import Content
    from toolgen.stamp import Outcome
    from toolgen.unit_cache import UnitCache

#: The codes of `check --against`'s findings: shown at level info too (they were asked for).
BREAKING = ("TG95", "TG96", "TG97")

#: Codes that mean the run could not look at the project properly: exit 2, not 1.
FATAL_CODES = frozenset(
    {"TG001", "TG002", "TG003", "TG004", "TG005", "TG008", "TG010", "TG011", "TG015", "TG101"}
)


def _positive_int(text: str) -> int:
    """An argparse type: a whole number of 1 or more (anything else is a usage error)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return value


@functools.cache  # a process that answers many commands (`toolgen.server`) makes it once
def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolgen",
        description="Compile typed Python tool handlers into descriptors and platform payloads.",
    )
    parser.add_argument("--version", action="version", version=f"toolgen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(
        sub: argparse.ArgumentParser, formats: tuple[str, ...] = ("text", "json", "github")
    ) -> None:
        sub.add_argument(
            "paths",
            nargs="*",
            metavar="PATH",
            help="files or folders to scan instead of the configured `sources`",
        )
        sub.add_argument(
            "--config",
            metavar="FILE",
            type=Path,
            help="TOML file with a [tool.toolgen] table (default: nearest pyproject.toml)",
        )
        sub.add_argument(
            "--format",
            choices=formats,
            default="text",
            help="how to print diagnostics (default: text, `path:line:col: CODE [level] msg`)",
        )

    def verbose(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--verbose",
            "-v",
            action="store_true",
            help="also print the notes (diagnostics at level info; one line counts them)",
        )

    def no_cache(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--no-cache",
            action="store_true",
            help="neither read nor write the cache folder (.toolgen_cache/, or "
            "$TOOLGEN_CACHE_DIR; TOOLGEN_NO_CACHE=1 does the same)",
        )

    build = commands.add_parser("build", help="write generated files (only those that change)")
    common(build)
    no_cache(build)
    verbose(build)
    build.add_argument("--out", metavar="DIR", help="output folder (default: config `out`)")
    build.add_argument("--quiet", "-q", action="store_true", help="print errors only")
    build.add_argument(
        "--watch",
        action="store_true",
        help="build, then rebuild whenever a source or the config changes (Ctrl-C stops)",
    )

    check = commands.add_parser(
        "check", help="fail when generated files differ from what build would write"
    )
    common(check)
    no_cache(check)
    verbose(check)
    check.add_argument("--out", metavar="DIR", help="output folder (default: config `out`)")
    check.add_argument("--diff", action="store_true", help="show a unified diff of changed files")
    check.add_argument(
        "--against",
        metavar="REF",
        help="also classify each tool's contract changes since the descriptors at git REF",
    )
    check.add_argument(
        "--verify-runtime",
        action="store_true",
        help="also import the handlers (in a child process) and compare each parameters schema "
        "with pydantic's at run time; the only option that runs user code",
    )
    check.add_argument(
        "--fail-on",
        choices=("error", "warning", "info"),
        default="error",
        help="lowest diagnostic level that fails the check (default: error)",
    )
    schema = commands.add_parser(
        "schema",
        help="print a published JSON Schema: the descriptor format (descriptors/*.json), or a "
        "command's --format json report",
    )
    schema.add_argument(
        "name",
        nargs="?",
        choices=("descriptor", "check-report", "build-report"),
        default="descriptor",
        help="which schema (default: descriptor); each is also in schemas/NAME.schema.json",
    )
    schema.set_defaults(format="text")

    fix = commands.add_parser(
        "fix", help="add, remove and order docstring parameter entries to match the signatures"
    )
    common(fix)
    fix_mode = fix.add_mutually_exclusive_group()
    fix_mode.add_argument(
        "--diff", action="store_true", help="print what would change; write nothing"
    )
    fix_mode.add_argument(
        "--check", action="store_true", help="exit 1 if a file would change; write nothing"
    )

    serve = commands.add_parser(
        "serve",
        help="serve the generated tools over MCP (stdio); imports and runs the handlers",
    )
    serve.add_argument("--config", metavar="FILE", type=Path, help="TOML file with [tool.toolgen]")
    serve.add_argument("--out", metavar="DIR", help="generated folder (default: config `out`)")
    serve.add_argument(
        "--page-size", type=int, default=100, metavar="N", help="tools per tools/list page"
    )
    serve.add_argument(
        "--catalog",
        metavar="NAME",
        help="which server's tools, in a project of several (generated/NAME/)",
    )
    serve.set_defaults(format="text", paths=[])

    rules = commands.add_parser("rules", help="list every rule: code, default level, summary")
    rules.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="text table (default), JSON, or the Markdown of docs/rules.md",
    )

    show = commands.add_parser(
        "show",
        help="print one tool's descriptor or platform payload (exit 1: the tool is not in that "
        "payload, and why; exit 2: no such tool, or the platform is not configured)",
    )
    show.add_argument("name", help="the tool's name")
    show.add_argument("--config", metavar="FILE", type=Path, help="TOML file with [tool.toolgen]")
    show.add_argument(
        "--platform",
        choices=("descriptor", *platform_names()),
        default="descriptor",
        help="what to show (default: the canonical descriptor)",
    )
    show.set_defaults(format="text", paths=[])

    stats = commands.add_parser(
        "stats", help="payload size per tool and platform, largest first, and catalog totals"
    )
    common(stats, ("text", "json"))  # a table, not annotations: no github format
    stats.add_argument(
        "--top",
        type=_positive_int,
        default=20,
        metavar="N",
        help="rows to show in the text format, largest first: 1 or more (default: 20)",
    )
    init = commands.add_parser(
        "init",
        help="set an existing project up: find its tools, add a [tool.toolgen] table (and an "
        "example tool when it has none)",
    )
    init.add_argument(
        "--path", metavar="DIR", type=Path, default=Path(), help="the project (default: .)"
    )
    init.add_argument(
        "--sources",
        metavar="DIR",
        help="the `sources` entry, relative to the project (default: where the tools are "
        "registered), and the folder of the example tool when there are none (default: "
        "src/<package>/tools, <package>/tools or tools)",
    )
    init.set_defaults(format="text", paths=[])
    return parser


def main(argv: Sequence[str] | None = None, session: Session | None = None) -> int:
    """Entry point; returns the exit code (the console script exits with it). `session`:
    what a process that builds again keeps between builds (`toolgen.server`)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version exit 0, usage errors exit 2
        return int(exc.code or 0)
    args.session = session
    command: Callable[[argparse.Namespace, TextIO], int] = COMMANDS[args.command]
    # A build or check answered from its stamp is remembered for `toolgen.quick` to repeat.
    watching = getattr(args, "watch", False)
    args.argv = list(sys.argv[1:] if argv is None else argv) if not watching else None
    try:
        return command(args, sys.stdout)
    except UserError as exc:
        if args.format == "json":
            _print_json({"diagnostics": [d.to_dict() for d in exc.diagnostics]}, sys.stdout)
        else:
            _print_diagnostics(exc.diagnostics, args.format, sys.stdout)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `toolgen rules | head`: the reader left; not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception:  # our bug, not the user's input: say so, exit 2
        print("toolgen: internal error (please report it):", file=sys.stderr)
        traceback.print_exc()
        return 2
    finally:
        _distrusted()


def _distrusted() -> None:
    """Say on stderr, in one line, that a run did not believe cache entries
    (`toolgen.cache.trusted`), as `_cache` says of a cache folder."""
    from toolgen.cache import DISTRUSTED

    if DISTRUSTED:
        others = len(set(DISTRUSTED)) - 1  # an entry may be read twice (a stamp)
        also = f" (and {plural(others, 'other')})" if others else ""
        print(
            f"toolgen: not using the cache entry {escape_name(DISTRUSTED[0])}{also}: it is not "
            "a file of this user's that only they (or the project's group) can write to",
            file=sys.stderr,
        )
        DISTRUSTED.clear()


def _load(args: argparse.Namespace) -> Config:
    from toolgen.config import load_for_args

    return load_for_args(args.config, args.paths, getattr(args, "out", None))


def _print_diagnostics(diagnostics: Sequence[Diagnostic], fmt: str, stream: TextIO) -> None:
    """Text or GitHub lines; the JSON format prints one report object instead."""
    stream.write(format_lines(diagnostics, fmt))


def _exit_for(diagnostics: Sequence[Diagnostic], threshold: Level) -> int:
    return _status({(d.code, d.severity) for d in diagnostics}, threshold)


def _status(found: set[tuple[str, Level]], threshold: Level) -> int:
    """The exit code for diagnostics of these (code, level) pairs."""
    if any(code in FATAL_CODES for code, _ in found):
        return 2
    return 1 if any(level.rank >= threshold.rank for _, level in found) else 0


def _print_json(payload: dict[str, object], stream: TextIO) -> None:
    print(json.dumps(payload, indent=2, ensure_ascii=False), file=stream)


def cmd_build(args: argparse.Namespace, stream: TextIO) -> int:
    if getattr(args, "watch", False):
        from toolgen.watch import watch_build

        return watch_build(args, stream)
    from toolgen.output import WriteReport

    started = time.time_ns()  # before anything is read (see `toolgen.stamp`)
    config = _load(args)
    folder, key = _cache(args, config)
    outcome, written = _replay(args, config, folder, key, started)
    if outcome is not None:  # nothing changed since the last good build (so: no errors)
        assert folder is not None
        _read(args, outcome.read)
        unchanged = WriteReport(unchanged=outcome.files)
        lines = outcome.lines.get(args.format, "")  # none for JSON: the rows say it
        lines = "" if args.quiet else lines
        rows = outcome.rows if args.format == "json" and not args.quiet else []
        text = io.StringIO()
        code = _build_report(args, text, config, rows, lines, _Built(outcome.tools, unchanged))
        return _replayed(args, stream, config, (folder, key, outcome), text.getvalue(), code)

    with _generating(args, config, folder, key) as (result, session):
        _read(args, frozenset(result.inputs.read))
        status = _exit_for(result.diagnostics, Level.ERROR)
        seen, retire = (session.seen, session.retire) if session else (None, None)
        # one handler's errors cost that handler: the others are written (exit 1 all the
        # same); a run that could not look at the project (exit 2), or that found no tool
        # where a framework's were expected (TG107), writes nothing
        stop = status == 2 or any(d.code == "TG107" for d in result.diagnostics)
        report = None if stop else _write(config, result.files, seen, retire, written)
        if folder and report is not None and not status:
            _stamp(folder, key, started, config, result, session)
    shown = result.diagnostics
    if report is not None and report.kept:
        shown = sort_diagnostics([*shown, *_kept(config, report.kept)])
    if args.quiet:
        shown = [d for d in shown if d.severity is Level.ERROR]
    notes = getattr(args, "verbose", False)
    rows, lines = [d.to_dict() for d in shown], format_lines(shown, args.format, notes)
    built = _Built(len(result.descriptors), report, result.left_out)
    _build_report(args, stream, config, rows, lines, built)
    return status


@dataclass
class _Built:
    """What a build made: how many tools, what it wrote (None: nothing, for errors that stop
    the run), and the handlers it left out for their errors."""

    tools: int
    report: WriteReport | None
    left_out: list[tuple[str, Location]] = field(default_factory=list)


@contextmanager
def _generating(
    args: argparse.Namespace, config: Config, folder: Path | None, key: str
) -> Iterator[tuple[Generated, Session | None]]:
    """What a build makes, with the session it used: in memory in a process that builds
    again, else spooled (`toolgen.pipeline`), the spool open until the block ends. Where
    the spool cannot be written (no room or no right in the temporary folder), in memory."""
    from toolgen.pipeline import generate, generate_spooled
    from toolgen.spool import Spool

    session = _session(args, folder, key)
    if session is not None:
        units = _units(config, folder, key, session)
        yield generate(config, units, _jobs(args), session.render), session
        return
    spool = None
    try:
        spool = Spool.temporary()
        result = generate_spooled(config, _units(config, folder, key, None), _jobs(args), spool)
    except OSError as exc:
        if spool is not None:
            spool.close()
        reason = exc.strerror or str(exc)
        print(
            f"toolgen: cannot keep the build's temporary files in {exc.filename or '$TMPDIR'} "
            f"({reason}); building in memory",
            file=sys.stderr,
        )
        yield generate(config, _units(config, folder, key, None), _jobs(args)), None
        return
    with spool:
        yield result, None


def _write(
    config: Config,
    files: Mapping[str, Content],
    seen: Seen | None,
    retire: Callable[[Path], None] | None,
    written: Written | None = None,
) -> WriteReport:
    """`toolgen.output.write`, with a file that cannot be written as TG008 (nothing changed,
    unless the message says the build was interrupted) and symlinks in `out` as TG011."""
    from toolgen.output import UnsafeOut, WriteError, write

    try:
        return write(config.out, files, seen, retire, written)
    except WriteError as exc:
        shown = config.display(exc.path)
        message = f"cannot write {shown}: {exc.reason}"
        if not exc.interrupted:
            message += f"; nothing in {config.display(config.out)} was changed"
        raise UserError(Diagnostic("TG008", message, Location(shown, 1, 1))) from None
    except UnsafeOut as exc:
        raise _unsafe(config, exc) from None


def _unsafe(config: Config, exc: UnsafeOut) -> UserError:
    from toolgen.removal import symlink_diagnostics

    return UserError(*symlink_diagnostics(config.out, exc.links, config.display))


def _kept(config: Config, kept: list[Kept]) -> list[Diagnostic]:
    """TG009 for files a build keeps, at the levels the configuration sets."""
    from toolgen.removal import kept_diagnostics

    return config.policy().apply(kept_diagnostics(config.out, kept, config.display))


def _read(args: argparse.Namespace, read: frozenset[str]) -> None:
    """Tell a session the files this build read (what `toolgen build --watch` watches)."""
    if getattr(args, "session", None) is not None:
        args.session.remember_read(read)


def _replay(
    args: argparse.Namespace, config: Config, folder: Path | None, key: str, started: int
) -> tuple[Outcome | None, Written]:
    """The stamped outcome of the last build or check (`toolgen.stamp.replay`), if nothing it
    depends on changed; and, for a run of its own, what the stamp says of the generated files
    (`toolgen.stamp.written`: a session knows more). A session that saw a file it read change
    does not look."""
    session: Session | None = getattr(args, "session", None)
    if folder is None or (session is not None and session.changed_since_read(key)):
        return None, {}
    if getattr(args, "verbose", False):  # the stamp keeps the lines without the notes
        return None, written_by(load_stamp(folder, key), str(config.out)) if not session else {}
    stamp = load_stamp(folder, key)
    outcome = replay_loaded(stamp, folder, key, started)
    return outcome, written_by(stamp, str(config.out)) if session is None and not outcome else {}


def _replayed(
    args: argparse.Namespace,
    stream: TextIO,
    config: Config,
    stamp: tuple[Path, str, Outcome],
    text: str,
    code: int,
) -> int:
    """Print what a run answered from the `stamp` (folder, key, outcome) says, remember it
    for the same invocation (`toolgen.quick`), and return its exit code."""
    stream.write(text)
    if args.argv is not None:
        from toolgen.quick import remember

        folder, key, outcome = stamp
        remember(folder, args.argv, args, config, key, outcome.ident, text, code)
    return code


def _cache(args: argparse.Namespace, config: Config) -> tuple[Path | None, str]:
    """The cache folder (None with `--no-cache`, or when it is not one to trust) and the key
    of this configuration."""
    from toolgen.cache import cache_dir, config_key, usable
    from toolgen.config import relative_display

    folder = cache_dir(config, not args.no_cache)
    if folder is not None and not usable(folder):
        shown = relative_display(folder, config.cwd)
        print(
            f"toolgen: not using the cache folder {shown}: it is not a folder of this user's "
            "that only they (or the project's group) can write to",
            file=sys.stderr,
        )
        folder = None
    return folder, config_key(config) if folder else ""


def _stamp(
    folder: Path,
    key: str,
    started: int,
    config: Config,
    result: Generated,
    session: Session | None,
) -> None:
    """Stamp a clean run, for the next one to replay (`toolgen.stamp`); not one that saw a
    file change while it read (its output may mix old and new bytes). In a session, once
    the answer is out (`Session.later`)."""
    if result.inputs.conflicts:
        return
    if session is not None:
        session.later.append(lambda: _stamp(folder, key, started, config, result, None))
        return
    tools, found = len(result.descriptors), result.diagnostics
    record(
        folder,
        key,
        started,
        result.sources,
        result.inputs,
        config.out,
        result.files,
        result.shas,
        tools,
        found,
    )


def _jobs(args: argparse.Namespace) -> int:
    from toolgen.parallel import default_jobs

    if getattr(args, "session", None) is not None:
        return 1  # a process that keeps a session has threads (`toolgen.server`): no forks
    jobs = getattr(args, "jobs", None)
    return int(jobs) if jobs else default_jobs()


def _session(args: argparse.Namespace, folder: Path | None, key: str) -> Session | None:
    """What a process that builds again keeps (`toolgen.session`), for this configuration;
    None for a run of its own, or without the cache."""
    session: Session | None = getattr(args, "session", None)
    return session.use(key, folder) if session is not None and folder is not None else None


def _units(
    config: Config, folder: Path | None, key: str, session: Session | None
) -> UnitCache | None:
    from toolgen.unit_cache import UnitCache

    if folder is None:
        return None
    if session is None:
        return UnitCache(folder, key, limit=config.max_source_bytes)
    return UnitCache(folder, key, session.memory, session.later, config.max_source_bytes)


def _build_report(
    args: argparse.Namespace,
    stream: TextIO,
    config: Config,
    rows: list[dict[str, Any]],
    lines: str,
    built: _Built,
) -> int:
    """Print what a build found (`rows` for JSON, else `lines`) and did, ending with the
    handlers it left out."""
    report, left_out = built.report, built.left_out
    if args.format == "json":
        _print_json(
            {
                "diagnostics": rows,
                "tools": built.tools,
                "written": report.written if report else [],
                "removed": report.removed if report else [],
                "completed": report.completed if report else 0,
                "left_out": [
                    {"name": name, "path": where.path, "line": where.line, "col": where.col}
                    for name, where in left_out
                ],
            },
            stream,
        )
        return 0
    stream.write(lines)
    if args.format == "text":
        if report is not None and report.completed:
            print(
                f"toolgen: completed the interrupted build of {config.display(config.out)} "
                f"({plural(report.completed, 'file')} moved or removed)",
                file=stream,
            )
        if report is None:
            print("toolgen: errors found; nothing was written", file=stream)
        elif not args.quiet:
            print(
                f"toolgen: {plural(built.tools, 'tool')}; {plural(len(report.written), 'file')} "
                f"written, {len(report.removed)} removed, {report.unchanged} unchanged "
                f"in {config.display(config.out)}",
                file=stream,
            )
    if left_out and args.format != "json":
        listed = ", ".join(f"{name} ({where})" for name, where in left_out)
        message = f"{plural(len(left_out), 'tool')} left out for errors: {listed}"
        if args.format == "github":
            print(f"::error title=toolgen: tools left out::{message}", file=stream)
        else:
            print(f"toolgen: {message}", file=stream)
    return 0


def cmd_check(args: argparse.Namespace, stream: TextIO) -> int:
    from toolgen.output import Drift

    started = time.time_ns()  # before anything is read (see `toolgen.stamp`)
    config = _load(args)
    plain = not (args.against or args.verify_runtime)  # only the drift check can be replayed
    folder, key = _cache(args, config)
    outcome, written = _replay(args, config, folder, key, started) if plain else (None, {})
    if outcome is not None:  # nothing changed since the last clean check or build
        assert folder is not None
        lines = outcome.lines.get(args.format, "")  # none for JSON: the rows say it
        rows = outcome.rows if args.format == "json" else []
        threshold = Level(args.fail_on)
        code = _status({(c, Level(level)) for c, level in outcome.found}, threshold)
        # only a failing run needs the count (the rows are JSON text until asked for)
        failing = _failing([row["level"] for row in outcome.rows], threshold) if code else {}
        clean = _Checked(rows, lines, outcome.tools, Drift(), False, False, failing)
        text = io.StringIO()
        _check_report(args, text, config, clean)
        return _replayed(args, stream, config, (folder, key, outcome), text.getvalue(), code)

    with _generating(args, config, folder, key) as (result, session):
        return _checked(args, stream, config, (folder, key, started, written), result, session)


def _checked(
    args: argparse.Namespace,
    stream: TextIO,
    config: Config,
    cache: tuple[Path | None, str, int, Written],
    result: Generated,
    session: Session | None,
) -> int:
    """`toolgen check` once the build is made: the contract and runtime checks, the drift,
    and the report. `cache` is (folder, key, when the run started, what the stamp says of
    the generated files)."""
    from toolgen.output import Drift, UnsafeOut, compare, unified_diff

    folder, key, started, written = cache
    plain = not (args.against or args.verify_runtime)
    blocked = has_errors(result.diagnostics)  # the handlers themselves have errors
    if args.against and not blocked:
        from toolgen.breaking import Ignore, baseline, findings_to_diagnostics, parameter_locations
        from toolgen.breaking import compare as compare_contracts

        old = baseline(config.out, args.against)
        new = {
            name: d.to_json_dict() for name, d in zip(result.names, result.descriptors, strict=True)
        }
        ignores = [Ignore(*entry) for entry in config.breaking_ignore]
        levels = config.policy().levels
        findings = compare_contracts(old, new)
        parameters = {
            tool: parameter_locations(result.locations[tool], config.cwd, config.max_source_bytes)
            for tool in {f.tool for f in findings} & result.locations.keys()
        }
        found = findings_to_diagnostics(
            findings, old, new, ignores, result.locations, levels, parameters
        )
        result.diagnostics = sort_diagnostics([*result.diagnostics, *found])
    if args.verify_runtime and not blocked:
        from toolgen.verify_runtime import verify_runtime

        found = verify_runtime(config, result.descriptors, result.locations, result.search_roots)
        found = config.policy().apply(found)  # the configured levels of TG7xx
        result.diagnostics = sort_diagnostics([*result.diagnostics, *found])
    blocked = blocked or _exit_for(result.diagnostics, Level(args.fail_on)) == 2
    seen = session.seen if session else None
    try:
        drift = Drift() if blocked else compare(config.out, result.files, seen, written)
    except UnsafeOut as exc:
        raise _unsafe(config, exc) from None
    if drift.kept:
        result.diagnostics = sort_diagnostics([*result.diagnostics, *_kept(config, drift.kept)])
    status = _exit_for(result.diagnostics, Level(args.fail_on))
    if not drift.clean:
        status = max(status, 1)
    elif folder and plain and not blocked:
        _stamp(folder, key, started, config, result, session)
    if blocked:
        status = status or 1
    found = result.diagnostics
    checked = _Checked(
        [d.to_dict() for d in found],
        ""
        if args.format == "json"
        else format_lines(found, args.format, args.verbose, BREAKING if args.against else ()),
        len(result.descriptors),
        drift,
        blocked,
        has_errors(found),
        _failing([d.severity.value for d in found], Level(args.fail_on)),
        lambda path: unified_diff(
            config.out, path, _bytes(result.files[path]), config.display(config.out / path)
        ),
    )
    _check_report(args, stream, config, checked)
    return status


def _bytes(content: Content) -> bytes:
    from toolgen.spool import as_bytes

    return as_bytes(content)


def _build_command(args: argparse.Namespace) -> str:
    """The `toolgen build` that goes with this run: its PATHs, --config and --out, quoted for
    a shell, so that the hint can be pasted as it is."""
    import shlex

    words = ["toolgen", "build", *map(str, getattr(args, "paths", None) or [])]
    if getattr(args, "config", None) is not None:
        words += ["--config", str(args.config)]
    if getattr(args, "out", None):
        words += ["--out", str(args.out)]
    return " ".join(shlex.quote(w) if escape_name(w) == w else _bytes_word(w) for w in words)


def _bytes_word(word: str) -> str:
    """A word with bytes that are not UTF-8 (a file name), as bash and zsh read it back:
    `$'...'` with `\\xNN` escapes."""
    data = os.fsencode(word)
    plain = set(range(32, 127)) - {ord("\\"), ord("'")}
    return "$'" + "".join(chr(b) if b in plain else f"\\x{b:02x}" for b in data) + "'"


def _fix_hint(args: argparse.Namespace) -> str:
    return f"run `{_build_command(args)}` to update the generated files"


def _failing(levels: Sequence[str], threshold: Level) -> dict[str, int]:
    """How many of these diagnostic `levels` are at or above `threshold` (`--fail-on`), by
    level, worst first; levels with none left out."""
    counts = {level.value: levels.count(level.value) for level in Level}
    return {k: n for k, n in counts.items() if n and Level(k).rank >= threshold.rank}


def _failing_message(failing: dict[str, int], fail_on: str) -> str:
    """`failing: 1 error, 3 warnings at or above --fail-on warning`."""
    nouns = {"error": "errors", "warning": "warnings", "info": "info"}
    found = ", ".join(plural(n, level, nouns[level]) for level, n in failing.items())
    return f"failing: {found} at or above --fail-on {fail_on}"


@dataclass
class _Checked:
    """What a check found, compiled or replayed: diagnostics as rows and as printed lines."""

    rows: list[dict[str, Any]]
    lines: str
    tools: int
    drift: Drift
    blocked: bool  # the handlers have errors: nothing was compared
    errors: bool  # error-level diagnostics (contract problems)
    failing: dict[str, int]  # diagnostics at or above --fail-on, by level (`_failing`)
    diff: Callable[[str], str] | None = None  # a changed file's unified diff


def _check_report(
    args: argparse.Namespace, stream: TextIO, config: Config, checked: _Checked
) -> None:
    drift = checked.drift
    out_shown = config.display(config.out)
    kinds = (("missing", drift.missing), ("changed", drift.changed), ("stale", drift.stale))
    if args.format == "json":
        payload: dict[str, object] = {
            "diagnostics": checked.rows,
            "tools": checked.tools,
            "drift": {
                **{kind: [f"{out_shown}/{p}" for p in paths] for kind, paths in kinds},
                "interrupted": drift.interrupted,
            },
            "fail_on": args.fail_on,
            "failing": checked.failing,
        }
        _print_json(payload, stream)
        return
    stream.write(checked.lines)
    if drift.interrupted and args.format == "github":
        from toolgen.journal import interrupted_message

        message = interrupted_message(out_shown, _build_command(args))
        print(f"::error file={out_shown},title=interrupted::{message}", file=stream)
    for kind, paths in kinds:
        for path in paths:
            if args.format == "github":
                print(
                    f"::error file={out_shown}/{path},title={kind}::{kind}; {_fix_hint(args)}",
                    file=stream,
                )
                continue
            print(f"{out_shown}/{path}: {kind}", file=stream)
            if kind == "changed" and args.diff and checked.diff:
                print(checked.diff(path), end="", file=stream)
    if args.format == "text":
        if checked.blocked:
            print(
                f"toolgen: the handlers have errors; fix them, then run `{_build_command(args)}`",
                file=stream,
            )
        elif checked.errors:
            print("toolgen: contract problems found (see above)", file=stream)
        elif drift.interrupted:
            from toolgen.journal import interrupted_message

            message = interrupted_message(out_shown, _build_command(args))
            print(f"toolgen: {message}", file=stream)
        elif drift.clean:
            tools = plural(checked.tools, "tool")
            print(f"toolgen: {tools}; {out_shown} is up to date", file=stream)
        else:
            print(f"toolgen: {out_shown} is out of date; {_fix_hint(args)}", file=stream)
    if checked.failing and not checked.blocked:  # the exit code's reason, last
        message = _failing_message(checked.failing, args.fail_on)
        if args.format == "github":
            print(f"::error title=toolgen --fail-on::{message}", file=stream)
        else:
            print(f"toolgen: {message}", file=stream)


def cmd_fix(args: argparse.Namespace, stream: TextIO) -> int:
    from toolgen.fix import FixMode, fix_files

    config = _load(args)
    mode: FixMode = "diff" if args.diff else "check" if args.check else "write"
    report = fix_files(config, mode)
    if args.format == "json":
        _print_json(
            {
                "diagnostics": [d.to_dict() for d in report.diagnostics],
                "changed": report.changed,
                "diff": report.diff,
            },
            stream,
        )
    else:
        _print_diagnostics(report.diagnostics, args.format, stream)
        if mode == "diff":
            stream.write(report.diff)
        if args.format == "text":
            verb = {"write": "fixed", "diff": "would be fixed", "check": "would be fixed"}[mode]
            files = plural(report.files, "file")
            print(f"toolgen: {len(report.changed)} of {files} {verb}", file=stream)
    if any(d.code in ("TG804", "TG016") or d.code in FATAL_CODES for d in report.diagnostics):
        return 2  # a file that cannot be read, parsed or written, as `build` says it
    return 1 if mode == "check" and report.changed else 0


#: What `pip install 'toolgen[serve]'` adds: the MCP SDK and what it is made of.
SERVE_EXTRA = frozenset({"mcp", "mcp_types", "anyio"})


def cmd_serve(args: argparse.Namespace, stream: TextIO) -> int:
    try:
        from toolgen.serve import serve
    except ModuleNotFoundError as exc:  # the extra is missing: say how to add it
        if (exc.name or "").split(".")[0] not in SERVE_EXTRA:
            raise
        print(
            f"toolgen serve: the MCP SDK is not installed (no module named {exc.name!r}); "
            "install it with: pip install 'toolgen[serve]'",
            file=sys.stderr,
        )
        return 2
    if args.page_size < 1:
        raise UserError(Diagnostic("TG002", "--page-size must be at least 1"))
    return serve(_load(args), page_size=args.page_size, catalog_name=args.catalog)


def cmd_show(args: argparse.Namespace, stream: TextIO) -> int:
    """Print the document on `stream`; why there is none on stderr (exit 1: the tool is not in
    that payload; 2: no such tool, or the platform is not configured)."""
    from toolgen.pipeline import generate
    from toolgen.stats import entry_name, first_payload, payload_entries

    config = _load(args)
    result = generate(config)
    names = sorted(result.locations)  # `catalog/name` when the project has several servers
    if args.name not in names:
        errors = [d for d in result.diagnostics if d.severity is Level.ERROR]
        known = ", ".join(names) or "none"
        print(f"toolgen: no tool named {args.name!r}; tools: {known}", file=sys.stderr)
        if errors:  # the tool may be one of the handlers with an error
            sys.stderr.write(format_lines(errors, "text"))
        return 2
    catalog, _, name = args.name.rpartition("/")
    folder = f"{catalog}/" if catalog else ""
    if args.platform == "descriptor":
        document = json.loads(_bytes(result.files[f"{folder}descriptors/{name}.json"]))
    else:
        label = first_payload(args.platform)
        entries = payload_entries(result.files, label, catalog)
        if entries is None:
            print(f"toolgen: platform {args.platform} is not configured", file=sys.stderr)
            return 2
        found = [e for e in entries if entry_name(e) == name]
        if not found:
            why = _left_out(result, name)
            print(
                f"toolgen: {args.name} is not in the {args.platform} payload: {why}",
                file=sys.stderr,
            )
            return 1
        document = found[0]
    _print_json(document, stream)
    return 0


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


def cmd_rules(args: argparse.Namespace, stream: TextIO) -> int:
    from toolgen.diagnostics import RULES
    from toolgen.render.catalog import rules_markdown

    if args.format == "markdown":
        stream.write(rules_markdown())
    elif args.format == "json":
        rows = [
            {
                "code": r.code,
                "level": r.level.value,
                "configurable": r.configurable,
                "summary": r.summary,
                "help": r.help,
            }
            for r in RULES.values()
        ]
        _print_json({"rules": rows}, stream)
    else:
        for rule in RULES.values():
            fixed = "" if rule.configurable else " (level fixed)"
            print(f"{rule.code}  {rule.level.value:<7}  {rule.summary}{fixed}", file=stream)
    return 0


def cmd_stats(args: argparse.Namespace, stream: TextIO) -> int:
    from toolgen.pipeline import generate
    from toolgen.stats import catalog_totals, tool_sizes

    config = _load(args)
    result = generate(config)
    sizes = tool_sizes(result.files)
    totals = catalog_totals(sizes)
    # the budgets, and the errors of handlers that are therefore not in these numbers
    budgets = [
        d for d in result.diagnostics if d.code in ("TG930", "TG931") or d.severity is Level.ERROR
    ]
    if args.format == "json":
        _print_json(
            {
                "tools": [
                    {"platform": s.platform, "tool": s.tool, "chars": s.chars, "tokens": s.tokens}
                    for s in sizes
                ],
                "catalogs": {p: {"chars": c, "tokens": t} for p, (c, t) in totals.items()},
                "levels": {d.name: d.conformance_level for d in result.descriptors},
                "diagnostics": [d.to_dict() for d in budgets],
            },
            stream,
        )
        return 0
    _print_diagnostics(budgets, args.format, stream)
    failed = sum(1 for d in budgets if d.severity is Level.ERROR)
    if failed:
        print(
            f"toolgen: {plural(failed, 'error')} above: handlers with errors are not counted",
            file=stream,
        )
    print(f"{'tool':<32} {'platform':<17} {'chars':>7} {'~tokens':>8}", file=stream)
    for size in sizes[: args.top]:
        print(f"{size.tool:<32} {size.platform:<17} {size.chars:>7} {size.tokens:>8}", file=stream)
    if len(sizes) > args.top:
        print(f"... {plural(len(sizes) - args.top, 'more row')} (--top N)", file=stream)
    print(file=stream)
    print(f"{'catalog':<50} {'chars':>7} {'~tokens':>8}", file=stream)
    for platform, (chars, tokens) in totals.items():
        print(f"{platform:<50} {chars:>7} {tokens:>8}", file=stream)
    levels = [d.conformance_level for d in result.descriptors]
    if levels:  # reported; enforced only where the project sets min_level
        counts = ", ".join(f"{n}: {levels.count(n)}" for n in sorted(set(levels)))
        minimum = f" (min_level {config.min_level})" if config.min_level else ""
        print(f"\nconformance levels{minimum}: {counts} tools", file=stream)
    return 0


def cmd_init(args: argparse.Namespace, stream: TextIO) -> int:
    from toolgen.init import init_project

    for line in init_project(args.path, args.sources, cwd=Path.cwd()):
        print(line, file=stream)
    return 0


def cmd_schema(args: argparse.Namespace, stream: TextIO) -> int:
    from toolgen.descriptor import descriptor_json_schema
    from toolgen.render.jsonout import dump_json
    from toolgen.reports import report_json_schema

    schema = (
        descriptor_json_schema() if args.name == "descriptor" else report_json_schema(args.name)
    )
    stream.write(dump_json(schema).decode())
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace, TextIO], int]] = {
    "build": cmd_build,
    "check": cmd_check,
    "schema": cmd_schema,
    "rules": cmd_rules,
    "fix": cmd_fix,
    "serve": cmd_serve,
    "show": cmd_show,
    "stats": cmd_stats,
    "init": cmd_init,
}


def run_main(argv: Sequence[str] | None = None) -> int:
    """`main` for a process of its own (the console script, after `toolgen.quick`). A run
    builds many small objects and frees few: collect cycles rarely (about 15% of a cold build
    was the collector's)."""
    gc.set_threshold(100_000, 50, 100)
    return main(argv)
