"""`toolgen lsp`: the language server over stdio (pygls), on `toolgen.lsp.live`.

Every open buffer, change or save marks the project to compile; one compile runs at a time,
on a thread of its own: at once when none runs, else once it is over, `DEBOUNCE_S` after it
(all the changes made meanwhile are one compile, of the text as it is then). Each compile
publishes the diagnostics of every file that has some, and clears those of a file that had
some before.

Code actions (`toolgen.lsp.actions`: `toolgen fix` and the quick fixes) and hovers
(`toolgen.lsp.hover`: a tool's contract, payloads and drift) are worked out from the last
compile and the open buffers, on the compile's thread, one at a time with the compiles.

A save builds as `toolgen build` does, then compiles again. The config files and the sources
are watched on disk too (watchfiles): a change made outside the editor (a `git checkout`, a
config edited elsewhere) compiles again, and a broken config is a diagnostic on the config
file while the server goes on. A watched file replaced on disk, or a root gone and back, is
watched afresh (`_watch_files`).

The protocol's stream is the process's standard output, taken at start: what anything else
writes to standard output goes to standard error instead, so no stray print can break the
stream.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import gc
import logging
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import watchfiles
from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from toolgen import __version__
from toolgen.diagnostics import Diagnostic, Level
from toolgen.incremental.stamp import file_stat
from toolgen.lsp.actions import KINDS, Asked, code_actions
from toolgen.lsp.hover import Hovers
from toolgen.lsp.live import Found, Live
from toolgen.lsp.ranges import lines_of, mentioned, span
from toolgen.read.files import Unreadable, decode, read_capped
from toolgen.render.catalog import rule_anchor

#: How long after a compile the next starts, when changes came while it ran: keystrokes that
#: come closer are one compile.
DEBOUNCE_S = 0.03

#: The watch of the files on disk: a batch of changes is reported after `STEP_MS` of quiet
#: (`DEBOUNCE_MS` at most), and the watch says it is armed after `ARMED_MS` without one.
DEBOUNCE_MS, STEP_MS, ARMED_MS = 400, 50, 300

#: What only a save finds (writing the generated files): kept until the next save.
SAVE_CODES = frozenset({"TG008", "TG009", "TG011", "TG022"})

_SEVERITY = {
    Level.ERROR: types.DiagnosticSeverity.Error,
    Level.WARNING: types.DiagnosticSeverity.Warning,
    Level.INFO: types.DiagnosticSeverity.Information,
}

log = logging.getLogger("toolgen.lsp")

T = TypeVar("T")


class ToolgenServer(LanguageServer):
    """The server, with the project it compiles (`live`, made at `initialize`)."""

    def __init__(self, config_file: Path | None) -> None:
        super().__init__("toolgen", __version__, max_workers=2)
        self.config_file = config_file
        self.live: Live | None = None
        self.last: Found | None = None  # the last compile (hovers and code actions read it)
        self.saved: dict[Path, list[Diagnostic]] = {}  # `SAVE_CODES` found by the last save
        self.shown: dict[Path, list[types.Diagnostic]] = {}  # what each file shows now
        #: what each file's `shown` was made from: its diagnostics, and its text (a buffer's)
        #: or its `stat` (a file's), of which the ranges depend
        self._published: dict[Path, tuple[object, ...]] = {}
        self._links: dict[str, types.CodeDescription] = {}  # each rule's, made once
        self._frozen = False  # what the first compile left is kept out of the collector's way
        self.rules_page: Path | None = None
        self.hovers = Hovers()
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="toolgen-compile")
        self._dirty: asyncio.Event | None = None
        self._worker: asyncio.Task[None] | None = None
        self._saving = threading.Event()  # a save runs on the compile's thread
        self._watching: threading.Event | None = None
        self._watched: tuple[str, ...] = ()  # what `_watching` watches

    # -- what the handlers call --------------------------------------------------------------
    def changed(self) -> None:
        """Compile soon (see the module's doc)."""
        if self._dirty is None:
            self._dirty = asyncio.Event()
        self._dirty.set()
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._compiles())

    async def save(self) -> None:
        """Build (or check), then compile again."""
        live = self.live
        if live is None:
            return
        found = await asyncio.get_running_loop().run_in_executor(self._pool, self._save, live)
        self.saved = {
            path: kept
            for path, diagnostics in found.by_file.items()
            if (kept := [d for d in diagnostics if d.code in SAVE_CODES])
        }
        if found.config is None:  # a broken config: its problems are what there is to show
            self._publish(found)
            return
        self.changed()

    def _save(self, live: Live) -> Found:
        """`live.save()`, on the compile's thread, known to be running (`saving`)."""
        self._saving.set()
        try:
            return live.save()[0]
        finally:
            self._saving.clear()

    def buffers(self) -> dict[Path, str]:
        """The text of every open file, by absolute path (`_path`: a URI that names no file
        is no file's buffer)."""
        found: dict[Path, str] = {}
        for uri, document in list(self.workspace.text_documents.items()):
            path = _path(uri)
            if path is not None:
                found[path] = document.source
        return found

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """The actions for `params` (`toolgen.lsp.actions`), worked out on the compile's
        thread (one piece of work at a time) with the last compile's configuration."""
        found, path = self.last, _path(params.text_document.uri)
        if found is None or found.config is None or path is None:
            return []
        document = self.workspace.get_text_document(params.text_document.uri)
        context = params.context
        edits = self.client_capabilities.workspace
        asked = Asked(
            path,
            params.text_document.uri,
            document.source,
            document.version,
            [d for d in context.diagnostics if d.source == "toolgen"],
            context.only,
            context.trigger_kind == types.CodeActionTriggerKind.Invoked,
            bool(edits and edits.workspace_edit and edits.workspace_edit.document_changes),
        )
        work = functools.partial(code_actions, found.config, found.result, asked, self.buffers())
        return await self._answer(work, [], "code actions")

    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        """What the last compile made of the tool defined where `params` points (see
        `toolgen.lsp.hover`)."""
        found, path = self.last, _path(params.text_document.uri)
        if found is None or found.config is None or found.result is None or path is None:
            return None
        text = self.workspace.get_text_document(params.text_document.uri).source
        line = params.position.line
        work = functools.partial(self.hovers.hover, found.config, found.result, path, text, line)
        return await self._answer(work, None, "hover")

    async def _answer(self, work: Callable[[], T], otherwise: T, what: str) -> T:
        """`work()` on the compile's thread; `otherwise` when it fails (our bug: logged, and
        the server goes on, as after a failed compile)."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, work)
        except Exception:
            log.exception("toolgen lsp: the %s failed (please report it)", what)
            return otherwise

    # -- compiling --------------------------------------------------------------------------
    async def _compiles(self) -> None:
        assert self._dirty is not None
        loop = asyncio.get_running_loop()
        wait = 0.0  # the first change is compiled at once; those made meanwhile are gathered
        while self._dirty.is_set():
            await asyncio.sleep(wait)
            wait = DEBOUNCE_S
            self._dirty.clear()
            live = self.live
            if live is None:
                return
            buffers = self.buffers()
            try:
                found = await loop.run_in_executor(self._pool, live.compile, buffers)
            except Exception:  # our bug: logged, and the server goes on
                log.exception("toolgen lsp: the compile failed (please report it)")
                continue
            for note in found.notes:
                self.window_log_message(types.LogMessageParams(types.MessageType.Warning, note))
                if found.config is None:  # nothing else shows why there is nothing to show
                    self.window_show_message(
                        types.ShowMessageParams(types.MessageType.Warning, note)
                    )
            self.last = found
            self._publish(found)
            self._watch(found)
            if not self._frozen and found.config is not None:
                # what the first compile made stays (modules, caches, the units): the
                # collector need not walk it again on every later compile
                self._frozen = True
                gc.freeze()

    def _publish(self, found: Found) -> None:
        """Publish each file's diagnostics where they changed; clear those of files that had
        some and have none now. A file whose diagnostics and text are what they were when
        last published is not looked at again (a compile of a large project finds thousands
        of diagnostics, nearly all of them the last compile's)."""
        by_file = {path: list(diagnostics) for path, diagnostics in found.by_file.items()}
        for path, saved in self.saved.items():
            by_file.setdefault(path, []).extend(saved)
        buffers = self.buffers()
        cwd = found.config.cwd if found.config is not None else Path.cwd()
        project = (cwd, found.config.root if found.config is not None else cwd)
        texts: dict[Path, list[str]] = {}  # each file's lines, read once

        def lines(path: Path) -> list[str]:
            if path not in texts:
                texts[path] = _lines(path, buffers)
            return texts[path]

        for path in sorted(set(by_file) | set(self.shown)):
            diagnostics = tuple(by_file.get(path, ()))
            key = (diagnostics, buffers[path] if path in buffers else file_stat(str(path)))
            if self._published.get(path) == key:
                continue
            self._published[path] = key
            shown = [self._diagnostic(d, lines(path), project, lines) for d in diagnostics]
            if shown == self.shown.get(path, []):
                continue
            if shown:
                self.shown[path] = shown
            else:
                self.shown.pop(path, None)
                self._published.pop(path, None)
            uri = from_fs_path(str(path))
            if uri is not None:
                params = types.PublishDiagnosticsParams(uri=uri, diagnostics=shown)
                self.text_document_publish_diagnostics(params)

    def _diagnostic(
        self,
        found: Diagnostic,
        text: list[str],
        project: tuple[Path, Path],
        lines: Callable[[Path], list[str]],
    ) -> types.Diagnostic:
        """`found` in the protocol's terms, in a file of lines `text`; `lines` gives those
        of the other files it names (`project`: the folder paths are shown from, and the
        project's)."""
        where = found.location
        (sl, sc), (el, ec) = span(text, where.line, where.col) if where else ((0, 0), (0, 0))
        related = []
        for path, line, col in mentioned(found.message, *project):
            uri = from_fs_path(str(path))
            if uri is None:
                continue
            (rl, rc), (rel, rec) = span(lines(path), line, col)
            place = types.Location(
                uri, types.Range(types.Position(rl, rc), types.Position(rel, rec))
            )
            related.append(types.DiagnosticRelatedInformation(place, "also here"))
        return types.Diagnostic(
            range=types.Range(types.Position(sl, sc), types.Position(el, ec)),
            message=found.message,
            severity=_SEVERITY.get(found.severity, types.DiagnosticSeverity.Hint),
            code=found.code,
            code_description=self._rule_link(found.code),
            source="toolgen",
            related_information=related or None,
        )

    def _rule_link(self, code: str) -> types.CodeDescription | None:
        """Where rule `code` is explained: its heading in the rules page."""
        if self.rules_page is None:
            return None
        if code not in self._links:
            self._links[code] = types.CodeDescription(
                f"{self.rules_page.as_uri()}#{rule_anchor(code)}"
            )
        return self._links[code]

    # -- the files on disk ------------------------------------------------------------------
    def _watch(self, found: Found) -> None:
        """Watch the config files and sources of `found`'s configuration (once; again when
        they change). A configuration that cannot be loaded, with nothing watched yet (it
        was broken from the start): the files its problems are at, to see it fixed."""
        config = found.config
        if config is None:
            if self._watching is None and found.by_file:
                self._start_watch(sorted(found.by_file), None, ())
            return
        roots = [p for p in (config.config_file, config.contract_file, *config.sources) if p]
        key = tuple(sorted(map(str, roots)))
        if self._watching is not None and self._watched == key:
            return
        shown = ", ".join(config.display(p) for p in roots)
        self._start_watch(roots, config.out, key, shown)

    def _start_watch(
        self, roots: list[Path], out: Path | None, key: tuple[str, ...], shown: str = ""
    ) -> None:
        """Watch `roots` (not `out`) instead of what was watched, as `key`."""
        if self._watching is not None:
            self._watching.set()
        stop = threading.Event()
        self._watching, self._watched = stop, key
        loop = asyncio.get_running_loop()
        shown = shown or ", ".join(map(str, roots))

        def armed() -> None:
            message = types.LogMessageParams(types.MessageType.Info, f"watching {shown}")
            loop.call_soon_threadsafe(self.window_log_message, message)

        thread = threading.Thread(
            target=_watch_files,
            args=(roots, out, stop, lambda: loop.call_soon_threadsafe(self.changed), armed),
            name="toolgen-lsp-watch",
            daemon=True,
        )
        thread.start()

    def saving(self) -> bool:
        """Whether a save is running (one that has not started is cancelled by `stop`)."""
        return self._saving.is_set()

    def stop(self) -> None:
        if self._watching is not None:
            self._watching.set()
        self._pool.shutdown(wait=False, cancel_futures=True)


def _watch_files(
    roots: list[Path], out: Path | None, stop: threading.Event, then: Any, armed: Any
) -> None:
    """Call `then()` for each batch of changes to Python files or the config files under
    `roots` (not in `out`, when there is one), until `stop`; `armed()` once the watch sees
    changes (the first quiet interval has passed).

    A file watched by itself that changes may have been replaced (`git checkout`, an editor
    that saves by writing a new file), which ends its watch; a root may be missing, or come
    back: the watch starts afresh after either, with what is there then, and compiles once
    more when it is armed (what changed meanwhile was not seen)."""
    files = {p for p in roots if p.suffix != ".py" and not p.is_dir()}

    def counts(change: object, path: str) -> bool:
        where = Path(path)
        if out is not None and where.is_relative_to(out):
            return False
        return where in files or where.suffix == ".py"

    told = False
    again = False  # a watch afresh: compile once it is armed
    while not stop.is_set():
        there = [p for p in roots if p.exists()]
        if not there:
            stop.wait(ARMED_MS / 1000)
            again = True
            continue
        with contextlib.suppress(Exception):  # a root gone meanwhile: watch afresh
            for batch in watchfiles.watch(
                *there,
                watch_filter=counts,
                stop_event=stop,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                rust_timeout=ARMED_MS,
                yield_on_timeout=True,  # an empty batch: the watch is armed
            ):
                if not told:
                    told = True
                    armed()
                if again or batch:
                    again = False
                    then()
                if any(Path(path) in files for _, path in batch):
                    break
                if [p for p in roots if p.exists()] != there:
                    break
        again = True
        stop.wait(STEP_MS / 1000)  # not busy when a watch cannot start


def _path(uri: str) -> Path | None:
    """The absolute path of a `file:` URI; None for a URI that names no file (not absolute,
    like `file:src/x.py`, which would be read from the server's folder; or holding a NUL)."""
    path = to_fs_path(uri)
    if not path or not Path(path).is_absolute() or "\0" in path:
        return None
    return Path(os.path.normpath(path))


def _lines(path: Path, buffers: dict[Path, str]) -> list[str]:
    """The lines of `path`: its open buffer, else the file (nothing, if it cannot be read)."""
    if path in buffers:
        return lines_of(buffers[path])
    try:
        return lines_of(decode(read_capped(str(path), 10_000_000))[0])
    except Unreadable:
        return []


def make_server(config_file: Path | None) -> ToolgenServer:
    """The server with its handlers."""
    server = ToolgenServer(config_file)

    @server.feature(types.INITIALIZE)
    def initialize(ls: ToolgenServer, params: types.InitializeParams) -> None:
        root = _root(params)
        if root is not None:
            os.chdir(root)  # the config is found from there, as the command line finds it
        ls.live = Live(config_file, Path.cwd())
        ls.rules_page = _rules_page()

    @server.feature(types.INITIALIZED)
    def initialized(ls: ToolgenServer, params: types.InitializedParams) -> None:
        ls.changed()  # the whole project's diagnostics, before any file is opened

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ToolgenServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.changed()

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ToolgenServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.changed()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ToolgenServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.changed()  # the file is read from disk again

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: ToolgenServer, params: types.DidSaveTextDocumentParams) -> None:
        await ls.save()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: ToolgenServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.changed()

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=list(KINDS))
    )
    async def code_action(
        ls: ToolgenServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        return await ls.code_actions(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: ToolgenServer, params: types.HoverParams) -> types.Hover | None:
        return await ls.hover(params)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: ToolgenServer, params: None) -> None:
        ls.stop()

    return server


def _root(params: types.InitializeParams) -> Path | None:
    """The workspace's folder: the first workspace folder, else the root URI or path."""
    uris: Iterable[str | None] = [
        *(folder.uri for folder in params.workspace_folders or []),
        params.root_uri,
    ]
    for uri in uris:
        path = to_fs_path(uri) if uri else None
        if path and Path(path).is_dir():
            return Path(path)
    if params.root_path and Path(params.root_path).is_dir():
        return Path(params.root_path)
    return None


def _rules_page() -> Path | None:
    """Every rule's page (`toolgen rules --format markdown`), written where the server's
    diagnostics can link to it: each code is a heading there."""
    from toolgen.render.catalog import rules_markdown

    try:
        folder = Path(tempfile.mkdtemp(prefix="toolgen-lsp-"))
    except OSError:
        return None
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    page = folder / "rules.md"
    try:
        page.write_text(rules_markdown(), encoding="utf-8")
    except OSError:
        return None
    return page


def main(config_file: Path | None) -> int:
    """Serve on stdio until the client exits."""
    stdout = _take_stdout()
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    server = make_server(config_file)
    server.start_io(sys.stdin.buffer, stdout)
    server.stop()
    if server.saving():
        return 0  # Python waits for the save's thread: its files are written or left whole
    # a compile still running answers no one now: the process need not wait for it
    if server.rules_page is not None:
        shutil.rmtree(server.rules_page.parent, ignore_errors=True)
    logging.shutdown()
    sys.stderr.flush()
    os._exit(0)


def _take_stdout() -> BinaryIO:
    """The process's standard output, for the protocol alone: file descriptor 1 (and
    `sys.stdout`) point at standard error from now on."""
    sys.stdout.flush()
    stream = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stream
