"""What a process that builds again and again keeps between builds: `toolgen build --watch`,
and the builds and checks it answers for other processes (`toolgen.server`).

It holds the units of the last build in memory (`toolgen.unit_cache`: nothing is read back from
disk or validated again) and what it last wrote or read in each generated file
(`toolgen.output`: an unchanged file is not read again). Both belong to one configuration
(its cache key); another one starts afresh.

What only later runs need (the stamp, the units written to the cache folder) waits in `later`
until the build's answer is out: the process runs it (`flush`) before its next build.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from toolgen.output import Seen
from toolgen.unit_cache import Memory


@dataclass
class Session:
    key: str = ""  # the configuration's cache key (`toolgen.cache.config_key`)
    memory: Memory = field(default_factory=dict)
    seen: Seen = field(default_factory=dict)
    later: list[Callable[[], None]] = field(default_factory=list)

    def flush(self) -> None:
        """Do what was left for `later`."""
        while self.later:
            self.later.pop(0)()

    def use(self, key: str) -> Session:
        """This session for the configuration `key`: emptied if it held another's."""
        self.flush()  # left by a build that failed before it was done
        if key != self.key:
            self.key, self.memory, self.seen = key, {}, {}
        return self
