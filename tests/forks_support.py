"""Forked children a test made: recorded as they are forked, and none left behind."""

from __future__ import annotations

import os
import signal

import pytest


def forks_recorded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ids of the children forked from now on (in this process)."""
    forked: list[int] = []
    fork = os.fork

    def recording() -> int:
        pid = fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recording)
    return forked


def left_behind(pids: list[int]) -> list[int]:
    """Those of `pids` still running or not reaped (each is then killed and reaped: the
    test leaves nothing behind either)."""
    left = []
    for pid in pids:
        try:
            if os.waitpid(pid, os.WNOHANG) == (0, 0):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        except ChildProcessError:  # reaped already, as it should be
            continue
        left.append(pid)
    return left
