"""What a forked child makes anew: `os.fork()` copies a process with one thread, the one that
forked. A lock another thread held then stays held in the child forever, and threads, event
loops and connections the parent's objects started are not the child's (a loop's epoll
instance and a connection's socket are even shared with the parent, so they are left alone,
never closed). Objects that keep such things register here and are told, in the child, before
anything else runs there; one whose thread may be inside a library that a fork would leave
half way (sqlite's locks) is also asked to hold it still across the fork (`Quiesced`)."""

from __future__ import annotations

import os
import weakref
from typing import Protocol


class Forked(Protocol):
    def _forked(self) -> None:
        """In a forked child: drop what is the parent's, make new locks."""


class Quiesced(Forked, Protocol):
    def _before_fork(self) -> None:
        """In the parent, just before a fork: wait until its thread is at rest, and hold it."""

    def _after_fork_in_parent(self) -> None:
        """In the parent, just after the fork: let its thread go on."""


_live: weakref.WeakSet[Forked] = weakref.WeakSet()
_still: weakref.WeakSet[Quiesced] = weakref.WeakSet()
#: Those held still by the fork under way, in the order they were held.
_held: list[Quiesced] = []

#: What the parent's objects used, kept in the child so that nothing there closes it.
inherited: list[object] = []


def renew_in_child(thing: Forked) -> None:
    """Call `thing._forked()` in every child forked while `thing` lives."""
    _live.add(thing)


def hold_still_at_fork(thing: Quiesced) -> None:
    """Call `thing._before_fork()` before every fork and `_after_fork_in_parent()` after it
    (and `_forked()` in the child) while `thing` lives."""
    _still.add(thing)
    _live.add(thing)


def _before() -> None:
    for thing in list(_still):
        thing._before_fork()
        _held.append(thing)


def _in_parent() -> None:
    while _held:
        _held.pop()._after_fork_in_parent()


def _in_child() -> None:
    _held.clear()
    for thing in list(_live):
        thing._forked()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before, after_in_parent=_in_parent, after_in_child=_in_child)
