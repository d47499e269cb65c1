"""What a forked child makes anew: `os.fork()` copies a process with one thread, the one that
forked. A lock another thread held then stays held in the child forever, and threads, event
loops and connections the parent's objects started are not the child's (a loop's epoll
instance and a connection's socket are even shared with the parent, so they are left alone,
never closed). Objects that keep such things register here and are told, in the child, before
anything else runs there."""

from __future__ import annotations

import os
import weakref
from typing import Protocol


class Forked(Protocol):
    def _forked(self) -> None:
        """In a forked child: drop what is the parent's, make new locks."""


_live: weakref.WeakSet[Forked] = weakref.WeakSet()

#: What the parent's objects used, kept in the child so that nothing there closes it.
inherited: list[object] = []


def renew_in_child(thing: Forked) -> None:
    """Call `thing._forked()` in every child forked while `thing` lives."""
    _live.add(thing)


def _in_child() -> None:
    for thing in list(_live):
        thing._forked()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_in_child)
