"""One run of `toolgen build` or `toolgen check`: a typed request in, an exit code out, with
what the command prints written to the stream it is given.

The command line (`toolgen.cli`) makes the `Request` from its arguments; the watch
(`toolgen.watch.loop`) and its socket server (`toolgen.watch.socket_server`) make one too, and
pass the `Session` they keep between builds. A run tries, in order: the stamp
(`toolgen.incremental.stamp`: nothing changed, print what the last run printed), then a build
from the cached units (`toolgen.incremental.units`), in memory in a session, else spooled.
"""

from __future__ import annotations

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
from toolgen.incremental.stamp import Written, record, replay_loaded
from toolgen.incremental.stamp import load as load_stamp
from toolgen.incremental.stamp import written as written_by

if TYPE_CHECKING:
    from toolgen.config import Config
    from toolgen.incremental.session import Session
    from toolgen.incremental.spool import Content
    from toolgen.incremental.stamp import Outcome
    from toolgen.incremental.units import UnitCache
    from toolgen.output import Drift, Seen, UnsafeOut, WriteReport
    from toolgen.pipeline import Generated
    from toolgen.removal import Kept

#: The codes of `check --against`'s findings: shown at level info too (they were asked for).
BREAKING = ("TG95", "TG96", "TG97")

#: Codes that mean the run could not look at the project properly: exit 2, not 1.
FATAL_CODES = frozenset(
    {"TG001", "TG002", "TG003", "TG004", "TG005", "TG008", "TG010", "TG011", "TG015", "TG101"}
)


@dataclass(frozen=True)
class Request:
    """What a command was asked to do: the command, the paths and config file it reads, and its
    options (as the command line names them; each command reads its own)."""

    command: str
    paths: Sequence[str] = ()
    config: Path | None = None
    format: str = "text"
    out: str | None = None
    no_cache: bool = False
    verbose: bool = False
    quiet: bool = False
    watch: bool = False
    diff: bool = False
    against: str | None = None
    verify_runtime: bool = False
    fail_on: str = "error"
    jobs: int | None = None  # worker processes (None: as many as the machine has)
    #: The arguments as given, to remember a replayed answer under (`toolgen.incremental.answers`);
    #: None when it is not to be remembered (a watch's own builds).
    argv: list[str] | None = None


@dataclass
class Run:
    """A request, and the session of the process that runs it (None: a run of its own)."""

    request: Request
    session: Session | None = None

    def execute(self, stream: TextIO) -> int:
        """Run a `build` or `check` and print its report on `stream`; the exit code. A problem
        with the user's input (`UserError`) is printed as diagnostics (exit 2)."""
        command = build if self.request.command == "build" else check
        try:
            return command(self, stream)
        except UserError as exc:
            print_user_error(exc, self.request.format, stream)
            return 2


def print_user_error(exc: UserError, fmt: str, stream: TextIO) -> None:
    """The diagnostics of a run that could not look at the project, in the format asked for."""
    if fmt == "json":
        print_json({"diagnostics": [d.to_dict() for d in exc.diagnostics]}, stream)
    else:
        print_diagnostics(exc.diagnostics, fmt, stream)


def guarded(command: Callable[[], int], fmt: str) -> int:
    """`command()`'s exit code, with what can go wrong around a command said as the command line
    says it: the user's input (exit 2, as diagnostics), Ctrl-C (130), a reader gone (0), our own
    bug (2, with its traceback on stderr); and cache entries not trusted, on stderr."""
    try:
        return command()
    except UserError as exc:
        print_user_error(exc, fmt, sys.stdout)
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
    (`toolgen.incremental.cache.trusted`), as `_cache` says of a cache folder."""
    from toolgen.incremental.cache import DISTRUSTED

    if DISTRUSTED:
        others = len(set(DISTRUSTED)) - 1  # an entry may be read twice (a stamp)
        also = f" (and {plural(others, 'other')})" if others else ""
        print(
            f"toolgen: not using the cache entry {escape_name(DISTRUSTED[0])}{also}: it is not "
            "a file of this user's that only they (or the project's group) can write to",
            file=sys.stderr,
        )
        DISTRUSTED.clear()


def load(run: Run) -> Config:
    from toolgen.config import load_for_args

    return load_for_args(run.request.config, run.request.paths, run.request.out)


def print_diagnostics(diagnostics: Sequence[Diagnostic], fmt: str, stream: TextIO) -> None:
    """Text or GitHub lines; the JSON format prints one report object instead."""
    stream.write(format_lines(diagnostics, fmt))


def exit_for(diagnostics: Sequence[Diagnostic], threshold: Level) -> int:
    return _status({(d.code, d.severity) for d in diagnostics}, threshold)


def _status(found: set[tuple[str, Level]], threshold: Level) -> int:
    """The exit code for diagnostics of these (code, level) pairs."""
    if any(code in FATAL_CODES for code, _ in found):
        return 2
    return 1 if any(level.rank >= threshold.rank for _, level in found) else 0


def print_json(payload: dict[str, object], stream: TextIO) -> None:
    print(json.dumps(payload, indent=2, ensure_ascii=False), file=stream)


def build(run: Run, stream: TextIO) -> int:
    from toolgen.output import WriteReport

    started = time.time_ns()  # before anything is read (see `toolgen.incremental.stamp`)
    config = load(run)
    folder, key = _cache(run, config)
    outcome, written = _replay(run, config, folder, key, started)
    if outcome is not None:  # nothing changed since the last good build (so: no errors)
        assert folder is not None
        _read(run, outcome.read)
        unchanged = WriteReport(unchanged=outcome.files)
        lines = outcome.lines.get(run.request.format, "")  # none for JSON: the rows say it
        lines = "" if run.request.quiet else lines
        rows = outcome.rows if run.request.format == "json" and not run.request.quiet else []
        text = io.StringIO()
        code = _build_report(run, text, config, rows, lines, _Built(outcome.tools, unchanged))
        return _replayed(run, stream, config, (folder, key, outcome), text.getvalue(), code)

    with _generating(run, config, folder, key) as (result, session):
        _read(run, frozenset(result.inputs.read))
        status = exit_for(result.diagnostics, Level.ERROR)
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
    if run.request.quiet:
        shown = [d for d in shown if d.severity is Level.ERROR]
    notes = run.request.verbose
    rows, lines = [d.to_dict() for d in shown], format_lines(shown, run.request.format, notes)
    built = _Built(len(result.descriptors), report, result.left_out)
    _build_report(run, stream, config, rows, lines, built)
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
    run: Run, config: Config, folder: Path | None, key: str
) -> Iterator[tuple[Generated, Session | None]]:
    """What a build makes, with the session it used: in memory in a process that builds
    again, else spooled (`toolgen.pipeline`), the spool open until the block ends. Where
    the spool cannot be written (no room or no right in the temporary folder), in memory."""
    from toolgen.incremental.spool import Spool
    from toolgen.pipeline import generate, generate_spooled

    session = _session(run, folder, key)
    if session is not None:
        units = _units(config, folder, key, session)
        yield generate(config, units, _jobs(run), session.render), session
        return
    spool = None
    try:
        spool = Spool.temporary()
        result = generate_spooled(config, _units(config, folder, key, None), _jobs(run), spool)
    except OSError as exc:
        if spool is not None:
            spool.close()
        reason = exc.strerror or str(exc)
        print(
            f"toolgen: cannot keep the build's temporary files in {exc.filename or '$TMPDIR'} "
            f"({reason}); building in memory",
            file=sys.stderr,
        )
        yield generate(config, _units(config, folder, key, None), _jobs(run)), None
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


def _read(run: Run, read: frozenset[str]) -> None:
    """Tell a session the files this build read (what `toolgen build --watch` watches)."""
    if run.session is not None:
        run.session.remember_read(read)


def _replay(
    run: Run, config: Config, folder: Path | None, key: str, started: int
) -> tuple[Outcome | None, Written]:
    """The stamped outcome of the last build or check (`toolgen.incremental.stamp.replay`), if
    nothing it depends on changed; and, for a run of its own, what the stamp says of the generated
    files (`toolgen.incremental.stamp.written`: a session knows more). A session that saw a file it
    read change does not look."""
    session: Session | None = run.session
    if folder is None or (session is not None and session.changed_since_read(key)):
        return None, {}
    if run.request.verbose:  # the stamp keeps the lines without the notes
        return None, written_by(load_stamp(folder, key), str(config.out)) if not session else {}
    stamp = load_stamp(folder, key)
    outcome = replay_loaded(stamp, folder, key, started)
    return outcome, written_by(stamp, str(config.out)) if session is None and not outcome else {}


def _replayed(
    run: Run,
    stream: TextIO,
    config: Config,
    stamp: tuple[Path, str, Outcome],
    text: str,
    code: int,
) -> int:
    """Print what a run answered from the `stamp` (folder, key, outcome) says, remember it
    for the same invocation (`toolgen.incremental.answers`), and return its exit code."""
    stream.write(text)
    if run.request.argv is not None:
        from toolgen.incremental.answers import remember

        folder, key, outcome = stamp
        remember(
            folder, run.request.argv, run.request.config, config, key, outcome.ident, text, code
        )
    return code


def _cache(run: Run, config: Config) -> tuple[Path | None, str]:
    """The cache folder (None with `--no-cache`, or when it is not one to trust) and the key
    of this configuration."""
    from toolgen.diagnostics import relative_display
    from toolgen.incremental.cache import usable
    from toolgen.incremental.keys import cache_dir, config_key

    folder = cache_dir(config, not run.request.no_cache)
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
    """Stamp a clean run, for the next one to replay (`toolgen.incremental.stamp`); not one that
    saw a file change while it read (its output may mix old and new bytes). In a session, once
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


def _jobs(run: Run) -> int:
    from toolgen.parallel import default_jobs

    if run.session is not None:
        return 1  # a process that keeps a session has threads (the socket server): no forks
    jobs = run.request.jobs
    return int(jobs) if jobs else default_jobs()


def _session(run: Run, folder: Path | None, key: str) -> Session | None:
    """What a process that builds again keeps (`toolgen.incremental.session`), for this
    configuration; None for a run of its own, or without the cache."""
    session: Session | None = run.session
    return session.use(key, folder) if session is not None and folder is not None else None


def _units(
    config: Config, folder: Path | None, key: str, session: Session | None
) -> UnitCache | None:
    from toolgen.incremental.units import UnitCache

    if folder is None:
        return None
    if session is None:
        return UnitCache(folder, key, limit=config.max_source_bytes)
    return UnitCache(folder, key, session.memory, session.later, config.max_source_bytes)


def _build_report(
    run: Run,
    stream: TextIO,
    config: Config,
    rows: list[dict[str, Any]],
    lines: str,
    built: _Built,
) -> int:
    """Print what a build found (`rows` for JSON, else `lines`) and did, ending with the
    handlers it left out."""
    report, left_out = built.report, built.left_out
    if run.request.format == "json":
        print_json(
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
    if run.request.format == "text":
        if report is not None and report.completed:
            print(
                f"toolgen: completed the interrupted build of {config.display(config.out)} "
                f"({plural(report.completed, 'file')} moved or removed)",
                file=stream,
            )
        if report is None:
            print("toolgen: errors found; nothing was written", file=stream)
        elif not run.request.quiet:
            print(
                f"toolgen: {plural(built.tools, 'tool')}; {plural(len(report.written), 'file')} "
                f"written, {len(report.removed)} removed, {report.unchanged} unchanged "
                f"in {config.display(config.out)}",
                file=stream,
            )
    if left_out and run.request.format != "json":
        listed = ", ".join(f"{name} ({where})" for name, where in left_out)
        message = f"{plural(len(left_out), 'tool')} left out for errors: {listed}"
        if run.request.format == "github":
            print(f"::error title=toolgen: tools left out::{message}", file=stream)
        else:
            print(f"toolgen: {message}", file=stream)
    return 0


def check(run: Run, stream: TextIO) -> int:
    from toolgen.output import Drift

    started = time.time_ns()  # before anything is read (see `toolgen.incremental.stamp`)
    config = load(run)
    plain = not (
        run.request.against or run.request.verify_runtime
    )  # only the drift check can be replayed
    folder, key = _cache(run, config)
    outcome, written = _replay(run, config, folder, key, started) if plain else (None, {})
    if outcome is not None:  # nothing changed since the last clean check or build
        assert folder is not None
        lines = outcome.lines.get(run.request.format, "")  # none for JSON: the rows say it
        rows = outcome.rows if run.request.format == "json" else []
        threshold = Level(run.request.fail_on)
        code = _status({(c, Level(level)) for c, level in outcome.found}, threshold)
        # only a failing run needs the count (the rows are JSON text until asked for)
        failing = _failing([row["level"] for row in outcome.rows], threshold) if code else {}
        clean = _Checked(rows, lines, outcome.tools, Drift(), False, False, failing)
        text = io.StringIO()
        _check_report(run, text, config, clean)
        return _replayed(run, stream, config, (folder, key, outcome), text.getvalue(), code)

    with _generating(run, config, folder, key) as (result, session):
        return _checked(run, stream, config, (folder, key, started, written), result, session)


def _checked(
    run: Run,
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
    plain = not (run.request.against or run.request.verify_runtime)
    blocked = has_errors(result.diagnostics)  # the handlers themselves have errors
    if run.request.against and not blocked:
        from toolgen.breaking import Ignore, baseline, findings_to_diagnostics, parameter_locations
        from toolgen.breaking import compare as compare_contracts

        old = baseline(config.out, run.request.against)
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
    if run.request.verify_runtime and not blocked:
        from toolgen.verify_runtime import verify_runtime

        found = verify_runtime(config, result.descriptors, result.locations, result.search_roots)
        found = config.policy().apply(found)  # the configured levels of TG7xx
        result.diagnostics = sort_diagnostics([*result.diagnostics, *found])
    blocked = blocked or exit_for(result.diagnostics, Level(run.request.fail_on)) == 2
    seen = session.seen if session else None
    try:
        drift = Drift() if blocked else compare(config.out, result.files, seen, written)
    except UnsafeOut as exc:
        raise _unsafe(config, exc) from None
    if drift.kept:
        result.diagnostics = sort_diagnostics([*result.diagnostics, *_kept(config, drift.kept)])
    status = exit_for(result.diagnostics, Level(run.request.fail_on))
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
        if run.request.format == "json"
        else format_lines(
            found, run.request.format, run.request.verbose, BREAKING if run.request.against else ()
        ),
        len(result.descriptors),
        drift,
        blocked,
        has_errors(found),
        _failing([d.severity.value for d in found], Level(run.request.fail_on)),
        lambda path: unified_diff(
            config.out, path, _bytes(result.files[path]), config.display(config.out / path)
        ),
    )
    _check_report(run, stream, config, checked)
    return status


def _bytes(content: Content) -> bytes:
    from toolgen.incremental.spool import as_bytes

    return as_bytes(content)


def _build_command(run: Run) -> str:
    """The `toolgen build` that goes with this run: its PATHs, --config and --out, quoted for
    a shell, so that the hint can be pasted as it is."""
    import shlex

    words = ["toolgen", "build", *map(str, run.request.paths or [])]
    if run.request.config is not None:
        words += ["--config", str(run.request.config)]
    if run.request.out:
        words += ["--out", str(run.request.out)]
    return " ".join(shlex.quote(w) if escape_name(w) == w else _bytes_word(w) for w in words)


def _bytes_word(word: str) -> str:
    """A word with bytes that are not UTF-8 (a file name), as bash and zsh read it back:
    `$'...'` with `\\xNN` escapes."""
    data = os.fsencode(word)
    plain = set(range(32, 127)) - {ord("\\"), ord("'")}
    return "$'" + "".join(chr(b) if b in plain else f"\\x{b:02x}" for b in data) + "'"


def _fix_hint(run: Run) -> str:
    return f"run `{_build_command(run)}` to update the generated files"


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


def _check_report(run: Run, stream: TextIO, config: Config, checked: _Checked) -> None:
    drift = checked.drift
    out_shown = config.display(config.out)
    kinds = (("missing", drift.missing), ("changed", drift.changed), ("stale", drift.stale))
    if run.request.format == "json":
        payload: dict[str, object] = {
            "diagnostics": checked.rows,
            "tools": checked.tools,
            "drift": {
                **{kind: [f"{out_shown}/{p}" for p in paths] for kind, paths in kinds},
                "interrupted": drift.interrupted,
            },
            "fail_on": run.request.fail_on,
            "failing": checked.failing,
        }
        print_json(payload, stream)
        return
    stream.write(checked.lines)
    if drift.interrupted and run.request.format == "github":
        from toolgen.journal import interrupted_message

        message = interrupted_message(out_shown, _build_command(run))
        print(f"::error file={out_shown},title=interrupted::{message}", file=stream)
    for kind, paths in kinds:
        for path in paths:
            if run.request.format == "github":
                print(
                    f"::error file={out_shown}/{path},title={kind}::{kind}; {_fix_hint(run)}",
                    file=stream,
                )
                continue
            print(f"{out_shown}/{path}: {kind}", file=stream)
            if kind == "changed" and run.request.diff and checked.diff:
                print(checked.diff(path), end="", file=stream)
    if run.request.format == "text":
        if checked.blocked:
            print(
                f"toolgen: the handlers have errors; fix them, then run `{_build_command(run)}`",
                file=stream,
            )
        elif checked.errors:
            print("toolgen: contract problems found (see above)", file=stream)
        elif drift.interrupted:
            from toolgen.journal import interrupted_message

            message = interrupted_message(out_shown, _build_command(run))
            print(f"toolgen: {message}", file=stream)
        elif drift.clean:
            tools = plural(checked.tools, "tool")
            print(f"toolgen: {tools}; {out_shown} is up to date", file=stream)
        else:
            print(f"toolgen: {out_shown} is out of date; {_fix_hint(run)}", file=stream)
    if checked.failing and not checked.blocked:  # the exit code's reason, last
        message = _failing_message(checked.failing, run.request.fail_on)
        if run.request.format == "github":
            print(f"::error title=toolgen --fail-on::{message}", file=stream)
        else:
            print(f"toolgen: {message}", file=stream)
