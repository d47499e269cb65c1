"""Compiling in several processes gives exactly what one process gives, and a failing worker
only costs time."""

from __future__ import annotations

import os

import pytest

from conftest import Project
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
