"""Compiling in several processes gives exactly what one process gives, and a failing worker
only costs time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import Project
from forks_support import forks_recorded, left_behind
from toolgen.compiler import compile_project
from toolgen.config import load_config
from toolgen.parallel import map_chunks

HANDLER = '''
from typing import Literal
from toolgen import tool
from .models import Filter{n}


@tool
def tool_{n}(
    query: str, mode: Literal["a", "b"] = "a", where: Filter{n} | None = None
) -> list[str]:
    """Look things up, group {n}.

    Args:
        query: Words.
        mode: How.
        where: Narrowing.
    """
    return []


@tool
def broken_{n}(x) -> int:
    """No annotation: a diagnostic from a worker."""
    return 0
'''


@pytest.fixture
def many(project: Project) -> Project:
    project.write("src/pkg/__init__.py", "")
    models = "from pydantic import BaseModel\n" + "".join(
        f"\n\nclass Filter{n}(BaseModel):\n    size: int = {n}\n" for n in range(20)
    )
    project.write("src/pkg/models.py", models)
    for n in range(20):
        project.write(f"src/pkg/tools_{n}.py", HANDLER.format(n=n))
    return project


def test_workers_compile_what_one_process_compiles(many: Project) -> None:
    config = load_config(None, cwd=many.root)
    one = compile_project(config, jobs=1)
    three = compile_project(config, jobs=3)
    assert [d.to_json_dict() for d in three.descriptors] == [
        d.to_json_dict() for d in one.descriptors
    ]
    assert len(one.descriptors) == 20
    assert three.diagnostics == one.diagnostics
    assert any(d.code == "TG203" for d in one.diagnostics)
    assert three.inputs.read == one.inputs.read
    assert three.locations == one.locations


def test_results_come_back_in_order_whatever_the_jobs() -> None:
    items = list(range(37))
    for jobs in (1, 2, 3, 8):
        assert map_chunks(items, lambda chunk: [i * i for i in chunk], jobs) == [
            i * i for i in items
        ]


def test_a_failing_worker_leaves_its_share_to_this_process() -> None:
    parent = os.getpid()

    def work(chunk: list[int]) -> list[int]:
        if os.getpid() != parent:
            raise RuntimeError("a worker that breaks")
        return [i + 1 for i in chunk]

    assert map_chunks(list(range(20)), work, 4) == list(range(1, 21))


def test_toolgen_jobs_sets_the_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolgen.parallel import default_jobs

    monkeypatch.setenv("TOOLGEN_JOBS", "3")
    assert default_jobs() == 3
    monkeypatch.setenv("TOOLGEN_JOBS", "zero")
    assert 1 <= default_jobs() <= 8


def test_files_rendered_in_workers_are_the_files_one_process_renders(many: Project) -> None:
    from toolgen.pipeline import generate

    config = load_config(None, cwd=many.root)
    one, three = generate(config, None, 1), generate(config, None, 3)
    assert three.files == one.files
    assert three.diagnostics == one.diagnostics


def test_each_item_is_worked_once_by_the_child_that_takes_it() -> None:
    parent = os.getpid()
    made = map_chunks(list(range(60)), lambda chunk: [(i, os.getpid()) for i in chunk], 3)
    assert [i for i, _ in made] == list(range(60))
    assert all(pid != parent for _, pid in made)  # children took them all, none twice


def test_a_child_that_dies_midway_leaves_what_it_took_to_this_process() -> None:
    parent = os.getpid()

    def work(chunk: list[int]) -> list[tuple[int, bool]]:
        if os.getpid() != parent and 7 in chunk:
            os._exit(3)  # what else it took is lost with it too
        return [(i * 2, os.getpid() == parent) for i in chunk]

    made = map_chunks(list(range(30)), work, 2)
    assert [n for n, _ in made] == [i * 2 for i in range(30)]
    assert made[7][1]  # item 7 was done here


def test_positions_that_do_not_fit_a_pipe_are_shared_out_in_advance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import toolgen.parallel as parallel

    monkeypatch.setattr(parallel, "_queue", lambda count: None)
    parent = os.getpid()
    made = map_chunks(list(range(25)), lambda chunk: [(i, os.getpid()) for i in chunk], 3)
    assert [i for i, _ in made] == list(range(25))
    by_child: dict[int, list[int]] = {}
    for i, pid in made:
        by_child.setdefault(pid, []).append(i)
    assert parent not in by_child
    assert sorted(map(tuple, by_child.values())) == [
        tuple(range(first, 25, 3)) for first in range(3)
    ]


def test_the_queue_holds_every_position_once() -> None:
    from toolgen.parallel import _RECORD, _queue

    queue = _queue(20_000)  # more than a pipe holds by default: it is made larger
    assert queue is not None
    try:
        data = b""
        while chunk := os.read(queue, 65536):
            data += chunk
    finally:
        os.close(queue)
    positions = [_RECORD.unpack_from(data, at)[0] for at in range(0, len(data), 4)]
    assert positions == list(range(20_000))


def test_a_task_beside_runs_in_a_child_and_gives_its_result() -> None:
    from toolgen.parallel import beside

    result = beside(lambda: ("made", os.getpid()))
    made, pid = result()
    assert made == "made" and pid != os.getpid()


def test_a_task_beside_whose_child_fails_runs_here(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolgen.parallel import beside

    parent = os.getpid()

    def task() -> int:
        if os.getpid() != parent:
            os._exit(4)
        return 42

    assert beside(task)() == 42

    def no_fork() -> int:
        raise OSError("no more processes")

    monkeypatch.setattr(os, "fork", no_fork)
    assert beside(lambda: os.getpid())() == parent


#: This process's open files, where the system lists them.
FDS = Path("/proc/self/fd")
counts_fds = pytest.mark.skipif(not FDS.is_dir(), reason="counts /proc/self/fd")


def _open_fds() -> set[Path]:
    return set(FDS.iterdir())


@counts_fds
def test_a_fork_that_fails_leaves_no_pipe_open(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolgen.parallel import beside

    def no_fork() -> int:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    before = _open_fds()
    assert map_chunks(list(range(20)), lambda chunk: [i + 1 for i in chunk], 3) == list(
        range(1, 21)
    )
    assert beside(lambda: 7)() == 7
    assert _open_fds() == before


def test_no_pipe_left_for_the_queue_runs_everything_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At the limit of open files, the build is made in this process, as without workers."""

    def no_pipe() -> tuple[int, int]:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(os, "pipe", no_pipe)
    parent = os.getpid()
    made = map_chunks(list(range(20)), lambda chunk: [(i, os.getpid()) for i in chunk], 3)
    assert made == [(i, parent) for i in range(20)]


@counts_fds
def test_an_interruption_while_collecting_leaves_no_child_nor_pipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while the results come in: the children are stopped and reaped (no zombie, none
    working on), their pipes closed."""
    import pickle

    forked = forks_recorded(monkeypatch)
    before = _open_fds()

    def interrupted(data: bytes) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(pickle, "loads", interrupted)
    with pytest.raises(KeyboardInterrupt):
        map_chunks(list(range(40)), lambda chunk: list(chunk), 4)
    monkeypatch.undo()
    assert len(forked) == 4
    assert left_behind(forked) == []
    assert _open_fds() == before


@counts_fds
def test_an_interruption_while_forking_leaves_no_child_nor_pipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    forked = forks_recorded(monkeypatch)
    recording = os.fork

    def third_interrupted() -> int:
        if len(forked) == 2:
            raise KeyboardInterrupt
        return recording()

    monkeypatch.setattr(os, "fork", third_interrupted)
    before = _open_fds()
    with pytest.raises(KeyboardInterrupt):
        map_chunks(list(range(40)), lambda chunk: list(chunk), 4)
    assert len(forked) == 2
    assert left_behind(forked) == []
    assert _open_fds() == before


def test_an_interruption_as_a_child_starts_ends_the_child(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A signal that reaches a child before its work begins (here: as it freezes what it
    inherited) ends the child: it never runs on in its parent's code (this test's, pytest's)."""
    import gc

    parent = os.getpid()
    escaped = tmp_path / "escaped"

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(gc, "freeze", interrupted)
    try:
        made = map_chunks(list(range(20)), lambda chunk: [i * 3 for i in chunk], 2)
    except KeyboardInterrupt:
        if os.getpid() != parent:  # a child that went on as its parent would have
            escaped.write_text(str(os.getpid()))
            os._exit(0)
        raise
    assert made == [i * 3 for i in range(20)]
    assert not escaped.exists()


@counts_fds
def test_a_task_beside_never_asked_for_is_stopped_when_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A caller that fails before it asks for the result closes it: the child (blocked on a
    result larger than its pipe holds) is stopped and reaped, its pipe closed."""
    from toolgen.parallel import beside

    forked = forks_recorded(monkeypatch)
    before = _open_fds()
    result = beside(lambda: b"x" * 1_000_000)
    result.close()
    assert len(forked) == 1
    assert left_behind(forked) == []
    assert _open_fds() == before
    result.close()  # twice: nothing more to do
