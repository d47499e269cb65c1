"""What a process that builds again and again keeps between builds: `toolgen build --watch`,
and the builds and checks it answers for other processes (`toolgen.watch.socket_server`).

It holds the units of the last build in memory (`toolgen.incremental.units`: nothing is read back
from disk or validated again), what it last wrote or read in each generated file
(`toolgen.output`: an unchanged file is not read again), and what rendering can reuse
(`toolgen.render.project.RenderMemo`: unchanged tools' indented entries, file hashes, Python
blocks). All of it belongs to one configuration (its cache key); another one starts afresh.

What only later runs need (the stamp, the units written to the cache folder) waits in `later`
until the build's answer is out: the process runs it (`flush`) before its next build. So does
freeing the blocks of a generated file that a build replaces (`retire`): renaming a new file
over a big old one costs milliseconds that the answer need not wait for.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from toolgen.incremental.cache import make_folder, open_kind, secret, tag
from toolgen.incremental.stamp import Stat, file_stat
from toolgen.incremental.units import Memory
from toolgen.output import Seen
from toolgen.render.project import RenderMemo


@dataclass
class Session:
    key: str = ""  # the configuration's cache key (`toolgen.incremental.cache.config_key`)
    memory: Memory = field(default_factory=dict)
    seen: Seen = field(default_factory=dict)
    render: RenderMemo = field(default_factory=RenderMemo)
    later: list[Callable[[], None]] = field(default_factory=list)
    trash: Path | None = None  # where `retire` keeps old files (in the cache folder)
    read: frozenset[str] = frozenset()  # every file the last analysis read (the watch's too)
    #: the `stat` of each file in `read` just after the build of `key` that read it
    read_stats: dict[str, Stat] = field(default_factory=dict)
    _names: itertools.count[int] = field(default_factory=itertools.count)

    def retire(self, path: Path) -> None:
        """Keep the file at `path` (about to be replaced) alive under another name until
        `later`: its blocks are freed then. Nothing happens where it cannot be linked, or
        the trash folder is reached through a symlink. The name is sealed (`_trash_name`):
        only such files are ever removed from there."""
        key = secret()
        if self.trash is None or key is None:
            return
        kept = _trash_name(key, f"{os.getpid()}.{next(self._names)}")
        folder = self.trash.parent
        try:
            make_folder(folder)  # a session writes its cache entries later (`later`)
            fd = open_kind(folder, TRASH, make=True)
        except OSError:
            return
        try:
            os.link(path, kept, dst_dir_fd=fd, follow_symlinks=False)
        except OSError:  # not there yet, another file system, no hard links
            return
        finally:
            os.close(fd)
        self.later.append(lambda: _unlink(folder, kept))

    def remember_read(self, read: frozenset[str]) -> None:
        """Keep the files a build read, with their `stat` now (`changed_since_read`)."""
        self.read = read
        self.read_stats = {path: file_stat(path) for path in read}

    def changed_since_read(self, key: str) -> bool:
        """Whether a file that the last build of `key` read has changed since, by its `stat`.
        Then that build's stamp cannot hold: a build need not read it to find out. (The stamp
        is what says a build can be skipped: this only saves reading it when it cannot.)"""
        return key == self.key and any(file_stat(p) != st for p, st in self.read_stats.items())

    def flush(self) -> None:
        """Do what was left for `later`."""
        while self.later:
            self.later.pop(0)()

    def use(self, key: str, folder: Path) -> Session:
        """This session for the configuration `key` and cache `folder`: emptied if it held
        another's."""
        self.flush()  # left by a build that failed before it was done
        if key != self.key:
            self.key, self.memory, self.seen, self.render = key, {}, {}, RenderMemo()
        self.trash = folder / TRASH
        sealing = secret()
        with contextlib.suppress(OSError):  # what a killed watch kept, and only that
            fd = open_kind(folder, TRASH)
            try:
                with os.scandir(fd) as entries:
                    names = [entry.name for entry in entries]
                for old in names:
                    retired, _, _ = old.rpartition("-")
                    killed = not retired.startswith(f"{os.getpid()}.")
                    if killed and sealing is not None and _trash_name(sealing, retired) == old:
                        os.unlink(old, dir_fd=fd)
            finally:
                os.close(fd)
        return self


TRASH = "trash"


def _trash_name(key: bytes, name: str) -> str:
    """`name` sealed with the user's secret: a file so named in the trash is toolgen's."""
    return f"{name}-{tag(key, f'{TRASH}/{name}').decode()}"


def _unlink(folder: Path, name: str) -> None:
    """Remove `name` from the trash in the cache `folder` (not through a symlink)."""
    with contextlib.suppress(OSError):
        fd = open_kind(folder, TRASH)
        try:
            os.unlink(name, dir_fd=fd)
        finally:
            os.close(fd)
