"""What `toolgen lsp` does, without the protocol: compile the project with the text an editor
holds unsaved (`Live.compile`), and build when a file is saved (`Live.save`).

A compile reads every open buffer instead of its file (`toolgen.read.files.Overlay`) and the
rest of the project from disk. It keeps what it compiled in memory, in the same `Session` the
watch keeps (units by the sha256 of the bytes they were compiled from, and what rendering can
reuse), so a keystroke compiles one file again; it never writes the cache folder (those units
come from text that was never saved). A save is a plain `toolgen build` (or a `check`, with
`[tool.toolgen.lsp] write_on_save = false`) in the same session, with the same guarantees.

Every diagnostic is located at a file: a configuration problem at the config file, one with no
place at the config file's first line, and so is one a save found in `out` (TG011, TG008,
TG009: no buffer shows `out`). Only files inside the sources and the config files get any
(`Found.by_file`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from toolgen.config import Config, load_for_args
from toolgen.diagnostics import Diagnostic, Location, UserError
from toolgen.incremental.keys import config_key
from toolgen.incremental.session import Session
from toolgen.incremental.units import UnitCache
from toolgen.pipeline import Generated, generate
from toolgen.read.files import Overlay, encode_source
from toolgen.run import Report, Request, Run, trusted_cache


@dataclass
class Found:
    """What one compile or save found: each file's diagnostics (a file with none is not
    listed: the server clears what it showed there), and the config it ran with (None: the
    configuration could not be loaded)."""

    by_file: dict[Path, list[Diagnostic]] = field(default_factory=dict)
    config: Config | None = None
    #: the compile's result, for hovers and code actions (None after a save, or a failure)
    result: Generated | None = None
    #: said once, for the editor's log: why the cache folder is not used, and a problem
    #: with no file to show it at (no config file found: TG001)
    notes: list[str] = field(default_factory=list)


class Live:
    """One project: its configuration (`config_file`, else found from `cwd` as the command
    line finds it) and what it keeps between compiles. Not thread-safe: one call at a time."""

    def __init__(self, config_file: Path | None, cwd: Path) -> None:
        self.config_file = config_file
        self.cwd = cwd
        self.session = Session()
        self._said: set[str] = set()
        self._last_config_file: Path | None = None

    def load(self) -> Config:
        """The configuration as it is on disk now (`UserError` when it is broken)."""
        return load_for_args(self.config_file, (), None)

    def compile(self, buffers: Mapping[Path, str]) -> Found:
        """Every diagnostic of the project, with `buffers` (open files' unsaved text, by
        absolute path) read instead of their files."""
        try:
            config = self.load()
        except UserError as exc:
            return self._broken(exc)
        self._said = {note for note in self._said if not note.startswith(_BROKEN)}
        overlay = overlay_of(buffers)
        found = Found(config=config)
        units = self._units(config, overlay, found.notes)
        result = generate(config, units, 1, self.session.render, overlay, lazy=True)
        found.result = result
        found.by_file = self._placed(config, result.diagnostics)
        return found

    def save(self) -> tuple[Found, Report]:
        """Build as `toolgen build` does (or check, when the configuration says not to
        write on save, with TG022 where the generated files are out of date)."""
        try:
            config = self.load()
        except UserError as exc:
            return self._broken(exc), Report(Request("build"), 2, diagnostics=exc.diagnostics)
        command = "build" if config.lsp_write_on_save else "check"
        request = Request(command, config=self.config_file, quiet=True)
        report = Run(request, self.session).execute()
        found = list(report.diagnostics)
        if report.drift is not None and not report.drift.clean:
            found.append(_out_of_date(config, report))
        return Found(self._placed(config, found), config), report

    def _units(self, config: Config, overlay: Overlay, notes: list[str]) -> UnitCache | None:
        """The unit cache for a compile: the session's memory, the cache folder read but
        never written (None without a folder to trust: every file is compiled)."""
        folder, why = trusted_cache(config)
        if why is not None:
            self._note(notes, f"toolgen lsp: not using the cache folder {folder}: {why}")
            folder = None
        if folder is None:
            return None
        session = self.session.use(config_key(config), folder)
        thrown: list[Callable[[], None]] = []  # where entries would wait to be stored: never
        return UnitCache(
            folder, session.key, session.memory, thrown, config.max_source_bytes, overlay
        )

    def _note(self, notes: list[str], note: str) -> None:
        """Add `note` to `notes` unless it was said before."""
        if note not in self._said:
            self._said.add(note)
            notes.append(note)

    def _broken(self, exc: UserError) -> Found:
        """A configuration that cannot be loaded: its problems, each at its file (one with
        no file to be at is a note)."""
        found = Found()
        for diagnostic in exc.diagnostics:
            path = self._path_of(diagnostic.location, self.cwd) or self._config_path()
            if path is not None:
                found.by_file.setdefault(path, []).append(diagnostic)
            else:
                text = f"{_BROKEN}{diagnostic.code} {diagnostic.message} (in {self.cwd})"
                self._note(found.notes, text)
        return found

    def _config_path(self) -> Path | None:
        """The config file, as the last configuration that loaded named it, or as given."""
        if self.config_file is not None:
            return Path(os.path.normpath(self.cwd / self.config_file))
        return self._last_config_file

    def _placed(
        self, config: Config, diagnostics: list[Diagnostic]
    ) -> dict[Path, list[Diagnostic]]:
        """`diagnostics` by the file they are at, kept only for files in the sources and the
        config files. One at a file in `out` (what a save found writing it: a symlink there,
        a file that cannot be written) is at the config file's first line: the editor has no
        buffer of `out`, and the save's failure must show."""
        self._last_config_file = config.config_file
        own = {p for p in (config.config_file, config.contract_file) if p is not None}
        by_file: dict[Path, list[Diagnostic]] = {}
        kept: dict[str, Path | None] = {}  # each shown path: its file, if it is kept
        moved: set[str] = set()  # shown paths in `out`
        for diagnostic in diagnostics:
            shown = diagnostic.location.path if diagnostic.location else ""
            if shown not in kept:
                path = self._path_of(diagnostic.location, config.cwd) or config.config_file
                if path is not None and path.is_relative_to(config.out):
                    path = config.config_file
                    moved.add(shown)
                keep = path is not None and (path in own or in_sources(config, path))
                kept[shown] = path if keep else None
            path = kept[shown]
            if path is not None:
                if shown in moved:
                    where = Location(config.display(path), 1, 1)
                    diagnostic = dataclasses.replace(diagnostic, location=where)
                by_file.setdefault(path, []).append(diagnostic)
        return by_file

    @staticmethod
    def _path_of(location: Location | None, cwd: Path) -> Path | None:
        return located(location, cwd)


def located(location: Location | None, cwd: Path) -> Path | None:
    """The absolute path of the file `location` is in (its path is relative to `cwd`)."""
    if location is None or not location.path:
        return None
    return Path(os.path.normpath(cwd / location.path))


def overlay_of(buffers: Mapping[Path, str]) -> Overlay:
    """Open buffers' unsaved text (by absolute path), as a compile reads it: the bytes a save
    would write."""
    return Overlay({str(path): encode_source(text) for path, text in buffers.items()})


#: How a note of a configuration that cannot be loaded starts (said again once it loads).
_BROKEN = "toolgen lsp: cannot compile: "


def in_sources(config: Config, path: Path) -> bool:
    """Whether `path` (absolute) is a source of `config`: in a source folder (not in `out`),
    or a source file itself."""
    if path.is_relative_to(config.out):
        return False
    return any(path == source or path.is_relative_to(source) for source in config.sources)


def _out_of_date(config: Config, report: Report) -> Diagnostic:
    """TG022 for a check that found the generated files not matching the sources, at the
    config file."""
    drift = report.drift
    assert drift is not None
    names = [*drift.changed, *drift.missing, *drift.stale]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    out = config.display(config.out)
    message = f"{out} is out of date ({shown or 'interrupted build'}): run `toolgen build`"
    where = config.display(config.config_file) if config.config_file else ""
    return Diagnostic("TG022", message, Location(where, 1, 1) if where else None)
