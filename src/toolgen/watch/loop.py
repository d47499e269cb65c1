"""`toolgen build --watch`: build, then rebuild on every change to a source or the config.

It watches the configured sources (or the `PATH ...` given) and the config file with
watchfiles. Changes are grouped by watchfiles' own debounce: a batch is handled once no new
change has come for `STEP_MS`, or after `DEBOUNCE_MS` at most. Only changes that could change
the output count: Python files and folders that discovery would read (not hidden, not in
`SKIP_DIRS`; a folder renamed, moved in or moved away is one change of its own path), and the
config file; anything under `out` (the build's own writes) is ignored.

Every build is a normal `toolgen build` (`toolgen.run.Run`) with its usual output, in one
process that keeps the last build in memory (`toolgen.incremental.session`); while it runs, it also
answers `toolgen build` and `toolgen check` from other processes (`toolgen.watch.socket_server`),
one build at a time with its own. A build that fails (a syntax error mid-edit, a broken config)
prints its diagnostics and the watch goes on; Ctrl-C ends it with exit 0.

A module that the handlers import from outside the sources (a models module elsewhere in the
project) is watched too, file by file: each build says which files it read
(`Session.read`), and the watch follows when that set changes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from toolgen.config import Config, load_for_args
from toolgen.diagnostics import UserError, relative_display
from toolgen.read.discover import SKIP_DIRS
from toolgen.report_format import emit
from toolgen.run import Request, Run

if TYPE_CHECKING:
    from toolgen.watch.socket_server import Server

DEBOUNCE_MS = 1600  # the longest a batch of changes is held before a build
STEP_MS = 100  # a batch is complete after this long without a new change
WAIT_S = 0.25  # how often to look again for a config or source that is briefly gone

Changes = set[tuple[Any, str]]  # watchfiles' (Change, path) pairs
WatchFn = Callable[..., Iterable[Changes]]


class StopEvent(Protocol):
    def is_set(self) -> bool: ...


class ChangeFilter:
    """Which changed paths can change the build's output (watchfiles' `watch_filter`).

    A folder renamed, moved in or moved away is one change of the folder's own path (none for
    the files in it), so a path counts too when it is a folder now or was one: the filter
    keeps the folders under the sources it has seen (at the start, and each that comes).
    """

    def __init__(self, config: Config, read: Iterable[str] = ()) -> None:
        self.config_file = config.config_file
        self.contract_file = config.contract_file
        self.out = config.out
        self.sources = config.sources
        self.folders: set[Path] = set()
        for source in self.sources:
            self._remember(source)
        #: Python files the last build read outside the sources (imported models), that are
        #: there now: each is watched by itself.
        self.imported = imported(config, read)

    def __call__(self, change: object, path: str) -> bool:
        return self.counts(Path(path))

    def counts(self, path: Path) -> bool:
        if path in (self.config_file, self.contract_file) or path in self.imported:
            return True
        if path.is_relative_to(self.out):
            return False
        for source in self.sources:
            if path == source:
                return True
            if path.is_relative_to(source):  # what discovery skips, relative to the source
                if _skipped(path.relative_to(source).parts):
                    return False
                return path.suffix == ".py" or self._folder(path)
        return False

    def _folder(self, path: Path) -> bool:
        """`path` is a folder (added, moved in, renamed to), or was one (deleted, moved away,
        renamed from); the known folders follow."""
        if path.is_dir() and not path.is_symlink():  # discovery does not follow a link
            self._remember(path)
            return True
        if path in self.folders:
            self.folders = {f for f in self.folders if not f.is_relative_to(path)}
            return True
        return False

    def _remember(self, folder: Path) -> None:
        """`folder` and the folders under it that discovery would walk (with a stack, not by
        recursion: a tree a thousand folders deep is no RecursionError)."""
        stack = [folder]
        while stack:
            folder = stack.pop()
            if not folder.is_dir() or folder.is_relative_to(self.out):
                continue
            self.folders.add(folder)
            with contextlib.suppress(OSError):  # gone again, or unreadable: discovery will say
                for entry in folder.iterdir():
                    if not _skipped((entry.name,)) and entry.is_dir() and not entry.is_symlink():
                        stack.append(entry)

    def needed(self) -> list[Path]:
        """What must be there to watch: each source (folder or file), the config file and the
        contract file it names."""
        files = (self.config_file, self.contract_file)
        found = [*self.sources, *(file for file in files if file is not None)]
        return list(dict.fromkeys(found))

    def roots(self) -> list[Path]:
        """What to watch: `needed`, and the imported files."""
        return [*self.needed(), *self.imported]


def imported(config: Config, read: Iterable[str]) -> list[Path]:
    """The Python files in `read` (a build's `Session.read`) outside the sources and `out`
    that are there now (one that is gone is looked for again after the next build)."""
    found = sorted(
        path
        for path in map(Path, read)
        if path.suffix == ".py"
        and not path.is_relative_to(config.out)
        and not any(path == s or path.is_relative_to(s) for s in config.sources)
    )
    return [path for path in found if path.is_file()]


def _skipped(parts: tuple[str, ...]) -> bool:
    """A path with these parts (below a source) is one discovery does not read."""
    return any(p.startswith(".") or p in SKIP_DIRS for p in parts)


def _load(request: Request) -> Config:
    return load_for_args(request.config, request.paths, request.out)


def _build(run: Run, stream: TextIO) -> None:
    """One normal build; its problems are printed, never raised (the watch goes on)."""
    try:
        emit(run.execute(), stream)  # a config file broken mid-edit is a fatal report
        assert run.session is not None
        run.session.flush()
    except Exception:  # our bug: say so as `main` does, and keep watching
        stream.flush()
        print("toolgen: internal error (please report it):", file=sys.stderr)
        traceback.print_exc()
    stream.flush()


def _wait_for(paths: list[Path], stop_event: StopEvent | None) -> bool:
    """Until every path exists again (an editor replacing a file deletes it first); False if
    stopped meanwhile."""
    while not all(p.exists() for p in paths):
        if stop_event is not None and stop_event.is_set():
            return False
        time.sleep(WAIT_S)
    return True


def watch_build(
    request: Request,
    stream: TextIO,
    *,
    stop_event: StopEvent | None = None,
    watch_fn: WatchFn | None = None,
) -> int:
    """Build, then rebuild on each relevant change until Ctrl-C (exit 0) or `stop_event`.

    `watch_fn` stands in for `watchfiles.watch` (tests); it is called with the paths to watch
    and watchfiles' keyword arguments, and yields sets of `(change, path)`.
    """
    if watch_fn is None:
        import watchfiles

        watch_fn = watchfiles.watch
    from toolgen.incremental.session import Session

    # one process (no forks), which keeps the last build's work in memory between builds
    session = Session()
    build_run = Run(dataclasses.replace(request, watch=False, jobs=1, argv=None), session)
    talk = request.format == "text" and not request.quiet
    announced: list[Path] = []
    cwd = Path.cwd()
    lock = threading.Lock()  # one build at a time: the watch's, or one it answers
    server = None
    try:
        config = _load(build_run.request)  # a config unusable from the start: exit 2, as build
        server = _serve(build_run, config, lock)
        if talk and server is not None:
            print(
                "toolgen: `toolgen build` and `toolgen check` here are answered by this watch",
                file=stream,
                flush=True,
            )
        built = False  # by the last batch, which changed what to watch
        while True:
            if not built:
                with lock:
                    _build(build_run, stream)
            built = False
            changes = ChangeFilter(config, session.read)
            if not _wait_for(changes.needed(), stop_event):
                return 0
            roots = changes.roots()
            if talk and roots != announced:
                shown = ", ".join(relative_display(p, cwd) for p in roots)
                print(f"toolgen: watching {shown} (Ctrl-C to stop)", file=stream, flush=True)
                announced = roots
            for batch in watch_fn(
                *roots,
                watch_filter=changes,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                stop_event=stop_event,
                raise_interrupt=True,
            ):
                paths = sorted({Path(path) for _, path in batch})
                if talk:
                    shown = ", ".join(relative_display(p, cwd) for p in paths)
                    print(f"toolgen: changed: {shown}; building", file=stream, flush=True)
                if any(p in roots and not p.is_dir() for p in paths):
                    break  # the config (or a file watched by itself) changed: see below
                with lock:
                    _build(build_run, stream)
                if imported(config, session.read) != changes.imported:
                    built = True  # e.g. a handler imports another models module now
                    break
            else:
                return 0  # stop_event was set
            # The config may name other sources now, and an editor that saves by replacing a
            # file has ended its watch: wait until it is back, reload, build, watch afresh.
            if not _wait_for(changes.needed(), stop_event):
                return 0
            with contextlib.suppress(UserError):  # a broken config: the build will say so
                config = _load(build_run.request)
    except KeyboardInterrupt:
        return 0
    finally:
        if server is not None:
            server.stop()


def _serve(run: Run, config: Config, lock: threading.Lock) -> Server | None:
    """Answer other processes' builds and checks (`toolgen.watch.socket_server`), when the cache is
    on and no other watch of the project does."""
    from toolgen.incremental.keys import cache_dir
    from toolgen.watch.socket_server import Server

    folder = cache_dir(config, not run.request.no_cache)
    if folder is None or run.session is None:
        return None
    server = Server(folder, run.session, lock)
    return server if server.start() else None
