"""The unit cache: one compiled source file per entry, reused while nothing it read changed.

An entry is found by the hash of the configuration, toolgen's code, the search roots, and the
file's path, module name and bytes. It holds the file's descriptors, diagnostics and ignore
comments, and its dependencies: the sha256 of every other file the analysis read (models,
re-exports) and every module path it looked for and did not find. The entry is used only if
all of those still hold, so editing a model re-analyses exactly the handlers that use it.
Files with error-level diagnostics are not stored: they are the ones being edited, and cheap
to analyse again.

Each tool's render (its descriptor file and its entries in each platform payload) is stored
with it, so an unchanged tool is neither analysed nor rendered again; units are therefore
written by `save`, after rendering.

A process that builds again and again (`toolgen build --watch`) also keeps the units of its
last build in `memory` (a `Memory` it holds on to), checked the same way: no entry is read
from disk and no descriptor validated again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolgen.analyze.handlers import Mount
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import Location, diagnostic_from_dict, has_errors
from toolgen.file_units import FileUnit, T
from toolgen.incremental.cache import file_sha, load_entry, present, prune, store_entry
from toolgen.policy import FileSuppressions
from toolgen.read.discover import SourceFile
from toolgen.read.files import NO_OVERLAY, Overlay, Unreadable
from toolgen.read.index import Dependencies
from toolgen.render.jsonout import dump_json
from toolgen.render.project import ToolRender

KIND = "units"
KEEP = 512  # entries kept at least, whatever the project's size

Renders = dict[int, tuple[ToolDescriptor, ToolRender]]
#: The units of the last build, by key: each with its dependencies as stored on disk (files
#: read with their sha256, paths looked for and missing), and its tools' renders.
Memory = dict[str, tuple[FileUnit[ToolDescriptor], dict[str, Any], Renders]]


class UnitCache:
    """`get`/`put` compiled files (a `toolgen.compiler.UnitStore`) in the cache folder, and in
    `memory` when given (see the module's doc)."""

    def __init__(
        self,
        folder: Path,
        config_key: str,
        memory: Memory | None = None,
        later: list[Callable[[], None]] | None = None,
        limit: int | None = None,
        overlay: Overlay = NO_OVERLAY,
    ) -> None:
        self.folder = folder
        self.overlay = overlay  # unsaved text, hashed instead of the file (`toolgen lsp`)
        self.limit = limit  # a file larger is not hashed (`max_source_bytes`: it is not read)
        self.config_key = config_key
        self.memory = memory
        self.later = later  # where to leave the writing of entries (`toolgen.incremental.session`)
        self._used: Memory = {}  # this run's units, to be the memory of the next
        self._shas: dict[str, str | None] = {}
        self._exists: dict[str, bool] = {}
        self.hits = 0
        self.files = 0  # files looked up in this run
        #: Renders of the tools of units found in the cache, by id() of their descriptor
        #: (kept with it, so that the id cannot be reused by another object).
        self.known: dict[int, tuple[ToolDescriptor, ToolRender]] = {}
        #: compiled units, stored by `save`
        self._pending: list[tuple[str, FileUnit[ToolDescriptor]]] = []

    def sha(self, path: str) -> str | None:
        if path not in self._shas:
            held = self.overlay.get(path)
            if isinstance(held, Unreadable):
                self._shas[path] = None  # no bytes: never taken from the cache
            elif held is not None:  # over the cap: not read, as `file_sha` says
                over = self.limit is not None and len(held) > self.limit
                self._shas[path] = None if over else hashlib.sha256(held).hexdigest()
            else:
                self._shas[path] = file_sha(path, self.limit)
        return self._shas[path]

    def exists(self, path: str) -> bool:
        if path not in self._exists:
            self._exists[path] = present(path)
        return self._exists[path]

    def _key(self, file: SourceFile, roots: tuple[str, ...]) -> str | None:
        sha = self.sha(str(file.path))
        if sha is None:
            return None
        text = "\0".join((self.config_key, str(file.path), file.module, sha, *roots))
        # a path whose bytes are not UTF-8 holds lone surrogates: hashed as they are
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, file: SourceFile, roots: tuple[str, ...]) -> FileUnit[ToolDescriptor] | None:
        self.files += 1
        key = self._key(file, roots)
        if key is None:
            return None
        kept = self.memory.get(key) if self.memory is not None else None
        entry = kept[1] if kept else load_entry(self.folder, KIND, key)
        if not self._current(entry):
            return None
        try:
            unit, renders = kept[0::2] if kept else _restore(entry)
        except Exception:  # a damaged or foreign entry is a miss: a cache never breaks a run
            return None
        self.hits += 1
        self.known.update(renders)
        self._used[key] = (unit, entry, renders)
        return unit

    def get_with(
        self, file: SourceFile, roots: tuple[str, ...], tool: Callable[[dict[str, Any]], T]
    ) -> FileUnit[T] | None:
        """The unit as stored, each of its tools made by `tool` from its stored form (its
        descriptor text, `where`, name, visibility and render): what a spooled build takes,
        no descriptor validated. Neither `known` nor the memory learn of it."""
        self.files += 1
        key = self._key(file, roots)
        entry = load_entry(self.folder, KIND, key) if key is not None else None
        if entry is None or not self._current(entry):
            return None
        try:
            unit = restore_with(entry, tool)
        except Exception:  # a damaged or foreign entry is a miss
            return None
        self.hits += 1
        return unit

    def _current(self, entry: Any) -> bool:
        """Whether `entry` is one of ours whose files read are unchanged."""
        try:
            if any(self.sha(path) != sha for path, sha in entry["read"].items()):
                return False
            return not any(self.exists(path) for path in entry["missing"])
        except Exception:  # None, or not an entry of ours
            return False

    def put(self, file: SourceFile, roots: tuple[str, ...], unit: FileUnit[ToolDescriptor]) -> None:
        """Keep a compiled unit, to be stored with its tools' renders by `save`."""
        key = self._storable(file, roots, unit)
        if key is not None:
            self._pending.append((key, unit))

    def store_now(
        self,
        file: SourceFile,
        roots: tuple[str, ...],
        unit: FileUnit[ToolDescriptor],
        renders: dict[int, ToolRender],
    ) -> None:
        """Store a compiled unit with its tools' renders at once (a spooled build does, in the
        process that compiled it); `prune` is left to `done`."""
        key = self._storable(file, roots, unit)
        if key is not None:
            store_entry(self.folder, KIND, key, _entry(unit, renders))

    def done(self) -> None:
        """After a spooled build: keep the folder's size in bounds."""
        if self.hits < self.files:
            prune(self.folder, KIND, keep=max(KEEP, 4 * self.files))

    def _storable(
        self, file: SourceFile, roots: tuple[str, ...], unit: FileUnit[ToolDescriptor]
    ) -> str | None:
        """The key to store `unit` under; None when it is not to be stored: it has errors, or
        the file changed while it was being read."""
        key = self._key(file, roots)
        if key is None or has_errors(unit.all_diagnostics()):
            return None
        if unit.dependencies.read.get(str(file.path)) != self.sha(str(file.path)):
            return None
        return key

    def save(self, renders: dict[int, ToolRender]) -> None:
        """Store the units compiled in this run, with the renders of their tools; and this
        run's units as the memory, when there is one."""
        entries = [(key, _entry(unit, renders)) for key, unit in self._pending]
        for (key, unit), (_, entry) in zip(self._pending, entries, strict=True):
            mine = {id(d): (d, renders[id(d)]) for d, _ in unit.tools if id(d) in renders}
            self._used[key] = (unit, {"read": entry["read"], "missing": entry["missing"]}, mine)
        self._pending.clear()
        if self.later is None:
            self._store(entries)
        elif entries:
            self.later.append(lambda: self._store(entries))
        if self.memory is not None:
            self.memory.clear()
            self.memory.update(self._used)

    def _store(self, entries: list[tuple[str, dict[str, Any]]]) -> None:
        for key, entry in entries:
            store_entry(self.folder, KIND, key, entry)
        if entries:  # room for every file in several versions; the oldest go first
            prune(self.folder, KIND, keep=max(KEEP, 4 * self.files))


def _entry(unit: FileUnit[ToolDescriptor], renders: dict[int, ToolRender]) -> dict[str, Any]:
    tools = []
    for descriptor, where in unit.tools:
        render = renders.get(id(descriptor))  # None: not rendered (a duplicate name)
        text = render.descriptor if render else dump_json(descriptor.to_json_dict()).decode()
        tools.append(
            {
                "name": descriptor.name,
                "visible": descriptor.visible,
                "descriptor": text,
                "where": [where.path, where.line, where.col],
                "render": render.to_json() if render else None,
            }
        )
    return {
        "shown": unit.shown,
        "suppressions": unit.suppressions.to_json(),
        "tools": tools,
        "diagnostics": [d.to_dict() for d in unit.diagnostics],
        "read": unit.dependencies.read,
        "missing": sorted(unit.dependencies.missing),
        "servers": unit.servers,
        "mounts": [[m.parent, m.child, m.namespace, list(m.tool_names)] for m in unit.mounts],
        "found": [[*_place(at), known, root] for at, known, root in unit.found],
        "handlers": [
            [*_place(where), *_place(at), known, root, [d.to_dict() for d in problems]]
            for where, (at, known, root), problems in unit.handlers
        ],
        "reached": [list(where) for where in unit.reached],
        "native": [[*_place(where), *_place(at)] for where, at in unit.native],
    }


def _place(where: Location) -> list[Any]:
    return [where.path, where.line, where.col]


def _root(stored: Any) -> tuple[str, int, int, str] | None:
    if stored is None:
        return None
    path, line, col, name = stored
    return (str(path), int(line), int(col), str(name))


def _restore(
    entry: dict[str, Any],
) -> tuple[FileUnit[ToolDescriptor], dict[int, tuple[ToolDescriptor, ToolRender]]]:
    renders: dict[int, tuple[ToolDescriptor, ToolRender]] = {}

    def tool(stored: dict[str, Any]) -> ToolDescriptor:
        descriptor = ToolDescriptor.model_validate_json(stored["descriptor"])
        if stored["render"] is not None:
            render = ToolRender.from_json(stored["descriptor"], stored["render"])
            renders[id(descriptor)] = (descriptor, render)
        return descriptor

    return restore_with(entry, tool), renders


def restore_with(entry: dict[str, Any], tool: Callable[[dict[str, Any]], T]) -> FileUnit[T]:
    """The unit stored in `entry`, each tool made by `tool` from its stored form. TypeError
    (or KeyError, ValueError) when it holds what this toolgen does not write: an entry is
    sealed (ours), but a run must not trip over one later (`_check`)."""
    _check(entry)
    tools = []
    for stored in entry["tools"]:
        path, line, col = stored["where"]
        tools.append((tool(stored), Location(str(path), int(line), int(col))))
    unit = FileUnit(
        entry["shown"],
        FileSuppressions.from_json(entry["suppressions"]),
        tools,
        [diagnostic_from_dict(d) for d in entry["diagnostics"]],
        Dependencies(
            {str(path): str(sha) for path, sha in entry["read"].items()},
            {str(path) for path in entry["missing"]},
        ),
    )
    unit.servers = [None if s is None else str(s) for s in entry["servers"]]
    unit.mounts = [
        Mount(str(parent), str(child), namespace, tuple((str(a), str(b)) for a, b in names))
        for parent, child, namespace, names in entry["mounts"]
    ]
    unit.found = [
        (Location(str(path), int(line), int(col)), int(known), _root(root))
        for path, line, col, known, root in entry["found"]
    ]
    unit.handlers = [
        (
            Location(str(path), int(line), int(col)),
            (Location(str(at_path), int(at_line), int(at_col)), int(known), _root(root)),
            [diagnostic_from_dict(d) for d in rows],
        )
        for path, line, col, at_path, at_line, at_col, known, root, rows in entry["handlers"]
    ]
    unit.reached = [
        (str(path), int(line), int(col), str(name)) for path, line, col, name in entry["reached"]
    ]
    unit.native = [
        (Location(str(path), int(line), int(col)), Location(str(at), int(at_line), int(at_col)))
        for path, line, col, at, at_line, at_col in entry["native"]
    ]
    return unit


def _check(entry: dict[str, Any]) -> None:
    """TypeError unless `entry` has the types `_entry` writes, where a wrong one would pass
    unnoticed here and break a later step (pydantic checks each descriptor's own text). The
    values of each kind are gathered and checked at once: an edit's rebuild checks every
    unit it reuses."""
    texts = [entry["shown"], *entry["read"], *entry["read"].values(), *entry["missing"]]
    texts += [m[2] for m in entry["mounts"] if m[2] is not None]
    numbers: list[Any] = []
    flags: list[Any] = []
    blobs: list[Any] = []
    for stored in entry["tools"]:
        texts += (stored["name"], stored["descriptor"])
        flags.append(stored["visible"])
        numbers += stored["where"][1:]
        render = stored["render"]
        if render is not None:
            blobs += render["chunks"].values()
            texts += [p for pair in render["problems"] for p in pair]
            texts += [t for pair in render["sections"].values() for t in pair]
            numbers += [n for tally in render["tallies"].values() for n in tally]
            texts += [*render["chunks"], *render["sections"], *render["tallies"]]
            texts.append(render["description"])
    rows = list(entry["diagnostics"])
    roots = [stored[4] for stored in entry["found"] if stored[4] is not None]
    roots += [stored[7] for stored in entry["handlers"] if stored[7] is not None]
    for path, line, col, name in [*roots, *entry["reached"]]:
        texts += (path, name)
        numbers += (line, col)
    for path, line, col, at_path, at_line, at_col in entry["native"]:
        texts += (path, at_path)
        numbers += (line, col, at_line, at_col)
    for path, line, col, known, _ in entry["found"]:
        texts.append(path)
        numbers += (line, col, known)
    for path, line, col, at_path, at_line, at_col, known, _, told in entry["handlers"]:
        texts += (path, at_path)
        numbers += (line, col, at_line, at_col, known)
        rows += told
    for row in rows:
        texts += (row["code"], row["message"], row["level"])
        if row["path"] is not None:
            texts.append(row["path"])
            numbers += (row["line"], row["col"])
    for values, kind in ((texts, str), (numbers, int), (flags, bool), (blobs, bytes)):
        if not set(map(type, values)) <= {kind}:
            raise TypeError(f"not all {kind.__name__}")
