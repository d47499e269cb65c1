"""One run of `toolgen build` or `toolgen check`: a typed `Request` in, a typed `Report` out.

The command line (`toolgen.cli`) makes the `Request` from its arguments; the watch
(`toolgen.watch.loop`) and its socket server (`toolgen.watch.socket_server`) make one too, and
pass the `Session` they keep between builds. Each prints the `Report` with
`toolgen.report_format` and exits with its `return_code`. A run tries, in order: the stamp
(`toolgen.incremental.stamp`: nothing changed, report what the last run found), then a build
from the cached units (`toolgen.incremental.units`), in memory in a session, else spooled.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from toolgen.diagnostics import (
    Diagnostic,
    Level,
    Location,
    UserError,
    has_errors,
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
class Report:
    """What one `build` or `check` found and did, and its exit code (`return_code`), as black's
    `Report`; `toolgen.report_format` prints it in the format the request asks for.

    A compiled run's report holds its diagnostics as data (`diagnostics`, with TG009 for the
    files a build keeps). A run answered from its stamp (`toolgen.incremental.stamp`: nothing
    changed) holds them as the stamp keeps them, already printed (`replayed`: the lines per
    format and the JSON rows, parsed only when printed as JSON), so that a no-op run stays as
    fast as printing text; such a run is clean, so the rest of its report is counts. When its
    answer is to be remembered (`toolgen.incremental.answers`), `remember` takes the text it
    printed: what the next identical invocation prints without importing the compiler.

    What concerns the machine rather than the project (a cache folder not to trust, a
    temporary folder the spool cannot use) is still said on stderr as the run goes.
    """

    request: Request
    return_code: int
    out: str = ""  # the output folder, as shown
    diagnostics: Sequence[Diagnostic] = ()
    replayed: Outcome | None = None
    tools: int = 0
    #: build: what it wrote, removed, kept and left unchanged (None: nothing, for errors)
    files: WriteReport | None = None
    #: build: handlers left out for their errors, with where each is defined
    left_out: Sequence[tuple[str, Location]] = ()
    drift: Drift | None = None  # check: generated files that differ from what build writes
    blocked: bool = False  # check: the handlers have errors, so nothing was compared
    #: check: diagnostics at or above --fail-on, by level, worst first (`_failing`)
    failing: Mapping[str, int] = field(default_factory=dict)
    #: check --diff: each changed file's unified diff (only the text format prints them)
    diffs: Mapping[str, str] = field(default_factory=dict)
    fatal: bool = False  # the run could not look at the project: diagnostics only, exit 2
    remember: Callable[[str], None] | None = None

    @property
    def errors(self) -> bool:
        """Error-level diagnostics (a replayed run has none)."""
        return has_errors(self.diagnostics)


@dataclass
class Run:
    """A request, and the session of the process that runs it (None: a run of its own)."""

    request: Request
    session: Session | None = None

    def execute(self) -> Report:
        """Run a `build` or `check`; its report. A problem with the user's input (`UserError`)
        is a fatal report (its diagnostics, exit 2)."""
        command = build if self.request.command == "build" else check
        try:
            return command(self)
        except UserError as exc:
            return Report(self.request, 2, diagnostics=exc.diagnostics, fatal=True)


class _Cache(NamedTuple):
    """Where a run's stamp and units are kept: the cache folder (None: no cache, with
    `--no-cache` or a folder not to trust) and the key of the configuration in it ("" without
    a folder); and when the run started, before anything was read (`toolgen.incremental.stamp`)."""

    folder: Path | None
    key: str
    started: int


class _Stamped(NamedTuple):
    """What the stamp of the last run answers: its outcome, if nothing it depends on changed;
    else what it says of the generated files (`toolgen.incremental.stamp.written`)."""

    outcome: Outcome | None
    written: Written


def load(run: Run) -> Config:
    from toolgen.config import load_for_args

    return load_for_args(run.request.config, run.request.paths, run.request.out)


def exit_for(diagnostics: Sequence[Diagnostic], threshold: Level) -> int:
    return _status({(d.code, d.severity) for d in diagnostics}, threshold)


def _status(found: set[tuple[str, Level]], threshold: Level) -> int:
    """The exit code for diagnostics of these (code, level) pairs."""
    if any(code in FATAL_CODES for code, _ in found):
        return 2
    return 1 if any(level.rank >= threshold.rank for _, level in found) else 0


def build(run: Run) -> Report:
    from toolgen.output import WriteReport

    started = time.time_ns()  # before anything is read (see `toolgen.incremental.stamp`)
    config = load(run)
    cache = _cache(run, config, started)
    stamped = _replay(run, config, cache)
    if stamped.outcome is not None:  # nothing changed since the last good build (so: no errors)
        outcome = stamped.outcome
        _read(run, outcome.read)
        replayed = Report(
            run.request,
            0,
            out=config.display(config.out),
            replayed=outcome,
            tools=outcome.tools,
            files=WriteReport(unchanged=outcome.files),
        )
        return _remembered(run, config, cache, replayed)

    with _generating(run, config, cache, writes=True) as (result, session):
        _read(run, frozenset(result.inputs.read))
        status = exit_for(result.diagnostics, Level.ERROR)
        seen, retire = (session.seen, session.retire) if session else (None, None)
        # one handler's errors cost that handler: the others are written (exit 1 all the
        # same); a run that could not look at the project (exit 2), or that found no tool
        # where a framework's were expected (TG107), writes nothing
        stop = status == 2 or any(d.code == "TG107" for d in result.diagnostics)
        files = None if stop else _write(config, result.files, seen, retire, stamped.written)
        if cache.folder and files is not None and not status:
            _stamp(cache, config, result, session)
    found = result.diagnostics
    if files is not None and files.kept:
        found = sort_diagnostics([*found, *_kept(config, files.kept)])
    return Report(
        run.request,
        status,
        out=config.display(config.out),
        diagnostics=found,
        tools=len(result.descriptors),
        files=files,
        left_out=result.left_out,
    )


@contextmanager
def _generating(
    run: Run, config: Config, cache: _Cache, writes: bool = False
) -> Iterator[tuple[Generated, Session | None]]:
    """What a build makes, with the session it used: in memory in a process that builds
    again, else spooled (`toolgen.pipeline`), the spool open until the block ends. Where
    the spool cannot be written (no room or no right in the temporary folder), in memory."""
    from toolgen.incremental.spool import Spool
    from toolgen.pipeline import generate, generate_spooled

    session = _session(run, cache)
    if session is not None:
        yield generate(config, _units(config, cache, session), _jobs(run), session.render), session
        return
    spool = None
    try:
        spool = Spool.temporary()
        if writes:
            spool.link_into(config.out)
        result = generate_spooled(config, _units(config, cache, None), _jobs(run), spool)
    except OSError as exc:
        if spool is not None:
            spool.close()
        reason = exc.strerror or str(exc)
        print(
            f"toolgen: cannot keep the build's temporary files in {exc.filename or '$TMPDIR'} "
            f"({reason}); building in memory",
            file=sys.stderr,
        )
        yield generate(config, _units(config, cache, None), _jobs(run)), None
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


def _replay(run: Run, config: Config, cache: _Cache) -> _Stamped:
    """What the stamp of the last build or check answers (`_Stamped`). The outcome only if
    nothing it depends on changed (`toolgen.incremental.stamp.replay`); what the stamp says of
    the generated files only for a run of its own (a session knows more). A session that saw
    a file it read change does not look."""
    session: Session | None = run.session
    folder, key = cache.folder, cache.key
    if folder is None or (session is not None and session.changed_since_read(key)):
        return _Stamped(None, {})
    if run.request.verbose:  # the stamp keeps the lines without the notes
        written = written_by(load_stamp(folder, key), str(config.out)) if not session else {}
        return _Stamped(None, written)
    stamp = load_stamp(folder, key)
    outcome = replay_loaded(stamp, folder, key, cache.started)
    written = written_by(stamp, str(config.out)) if session is None and not outcome else {}
    return _Stamped(outcome, written)


def _remembered(run: Run, config: Config, cache: _Cache, report: Report) -> Report:
    """A report answered from the stamp, which remembers what it prints for the same
    invocation (`toolgen.incremental.answers`), when the run has one."""
    argv, folder, outcome = run.request.argv, cache.folder, report.replayed
    if argv is None or folder is None or outcome is None:
        return report

    def remember_printed(text: str) -> None:
        from toolgen.incremental.answers import remember

        code = report.return_code
        remember(folder, argv, run.request.config, config, cache.key, outcome.ident, text, code)

    report.remember = remember_printed
    return report


def _cache(run: Run, config: Config, started: int) -> _Cache:
    """The cache folder (None with `--no-cache`, or when it is not one to trust) and the key
    of this configuration, for a run that started at `started`."""
    from toolgen.diagnostics import relative_display
    from toolgen.incremental.keys import config_key

    folder, why = trusted_cache(config, not run.request.no_cache)
    if why is not None:
        assert folder is not None
        shown = relative_display(folder, config.cwd)
        print(f"toolgen: not using the cache folder {shown}: {why}", file=sys.stderr)
        folder = None
    return _Cache(folder, config_key(config) if folder else "", started)


def trusted_cache(config: Config, use: bool = True) -> tuple[Path | None, str | None]:
    """The cache folder of `config` (None when `use` is off), and why it is not to be
    trusted (None: it is)."""
    from toolgen.incremental.cache import holds_secret, refused, secret, secret_problem
    from toolgen.incremental.keys import cache_dir

    folder = cache_dir(config, use)
    why = None
    if folder is not None and os.path.lexists(folder):
        why = refused(str(folder))
    if folder is not None and why is None:
        if holds_secret(str(config.root)):  # asked first: `secret()` makes the secret
            why = "the project holds the folder of the key of its entries (set XDG_CACHE_HOME)"
        elif secret() is None:
            why = secret_problem()
    return folder, why


def _stamp(cache: _Cache, config: Config, result: Generated, session: Session | None) -> None:
    """Stamp a clean run, for the next one to replay (`toolgen.incremental.stamp`); not one that
    saw a file change while it read (its output may mix old and new bytes). In a session, once
    the answer is out (`Session.later`)."""
    if result.inputs.conflicts:
        return
    if session is not None:
        session.later.append(lambda: _stamp(cache, config, result, None))
        return
    assert cache.folder is not None
    tools, found = len(result.descriptors), result.diagnostics
    record(
        cache.folder,
        cache.key,
        cache.started,
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


def _session(run: Run, cache: _Cache) -> Session | None:
    """What a process that builds again keeps (`toolgen.incremental.session`), for this
    configuration; None for a run of its own, or without the cache."""
    session: Session | None = run.session
    if session is None or cache.folder is None:
        return None
    return session.use(cache.key, cache.folder)


def _units(config: Config, cache: _Cache, session: Session | None) -> UnitCache | None:
    from toolgen.incremental.units import UnitCache

    if cache.folder is None:
        return None
    if session is None:
        return UnitCache(cache.folder, cache.key, limit=config.max_source_bytes)
    return UnitCache(
        cache.folder, cache.key, session.memory, session.later, config.max_source_bytes
    )


def check(run: Run) -> Report:
    from toolgen.output import Drift

    started = time.time_ns()  # before anything is read (see `toolgen.incremental.stamp`)
    config = load(run)
    cache = _cache(run, config, started)
    plain = not (run.request.against or run.request.verify_runtime)  # only drift is replayed
    stamped = _replay(run, config, cache) if plain else _Stamped(None, {})
    if stamped.outcome is not None:  # nothing changed since the last clean check or build
        outcome = stamped.outcome
        threshold = Level(run.request.fail_on)
        code = _status({(c, Level(level)) for c, level in outcome.found}, threshold)
        # only a failing run needs the count (the rows are JSON text until asked for)
        failing = _failing([row["level"] for row in outcome.rows], threshold) if code else {}
        replayed = Report(
            run.request,
            code,
            out=config.display(config.out),
            replayed=outcome,
            tools=outcome.tools,
            drift=Drift(),
            failing=failing,
        )
        return _remembered(run, config, cache, replayed)

    with _generating(run, config, cache) as (result, session):
        return _checked(run, config, cache, stamped.written, result, session)


def _checked(
    run: Run,
    config: Config,
    cache: _Cache,
    written: Written,
    result: Generated,
    session: Session | None,
) -> Report:
    """`toolgen check` once the build is made: the contract and runtime checks, and the drift
    (`written`: what the stamp says of the generated files)."""
    from toolgen.output import Drift, UnsafeOut, compare, unified_diff

    request = run.request
    plain = not (request.against or request.verify_runtime)
    blocked = has_errors(result.diagnostics)  # the handlers themselves have errors
    if request.against and not blocked:
        found = _breaking(config, result, request.against)
        result.diagnostics = sort_diagnostics([*result.diagnostics, *found])
    if request.verify_runtime and not blocked:
        from toolgen.verify_runtime import verify_runtime

        found = verify_runtime(config, result.descriptors, result.locations, result.search_roots)
        found = config.policy().apply(found)  # the configured levels of TG7xx
        result.diagnostics = sort_diagnostics([*result.diagnostics, *found])
    blocked = blocked or exit_for(result.diagnostics, Level(request.fail_on)) == 2
    seen = session.seen if session else None
    try:
        drift = Drift() if blocked else compare(config.out, result.files, seen, written)
    except UnsafeOut as exc:
        raise _unsafe(config, exc) from None
    if drift.kept:
        result.diagnostics = sort_diagnostics([*result.diagnostics, *_kept(config, drift.kept)])
    status = exit_for(result.diagnostics, Level(request.fail_on))
    if not drift.clean:
        status = max(status, 1)
    elif cache.folder and plain and not blocked:
        _stamp(cache, config, result, session)
    if blocked:
        status = status or 1
    found = result.diagnostics
    diffs = {}
    if request.diff and request.format == "text":  # made now: the spool closes with the run
        diffs = {
            path: unified_diff(
                config.out, path, _bytes(result.files[path]), config.display(config.out / path)
            )
            for path in drift.changed
        }
    return Report(
        request,
        status,
        out=config.display(config.out),
        diagnostics=found,
        tools=len(result.descriptors),
        drift=drift,
        blocked=blocked,
        failing=_failing([d.severity.value for d in found], Level(request.fail_on)),
        diffs=diffs,
    )


def _breaking(config: Config, result: Generated, against: str) -> list[Diagnostic]:
    """`check --against REF`: each tool's contract changes since the descriptors at REF."""
    from toolgen.breaking import Ignore, baseline, findings_to_diagnostics, parameter_locations
    from toolgen.breaking import compare as compare_contracts

    old = baseline(config.out, against)
    new = {name: d.to_json_dict() for name, d in zip(result.names, result.descriptors, strict=True)}
    ignores = [Ignore(*entry) for entry in config.breaking_ignore]
    levels = config.policy().levels
    findings = compare_contracts(old, new)
    parameters = {
        tool: parameter_locations(result.locations[tool], config.cwd, config.max_source_bytes)
        for tool in {f.tool for f in findings} & result.locations.keys()
    }
    locations = result.locations
    return findings_to_diagnostics(findings, old, new, ignores, locations, levels, parameters)


def _bytes(content: Content) -> bytes:
    from toolgen.incremental.spool import as_bytes

    return as_bytes(content)


def _failing(levels: Sequence[str], threshold: Level) -> dict[str, int]:
    """How many of these diagnostic `levels` are at or above `threshold` (`--fail-on`), by
    level, worst first; levels with none left out."""
    counts = {level.value: levels.count(level.value) for level in Level}
    return {k: n for k, n in counts.items() if n and Level(k).rank >= threshold.rank}
