"""The spooled build (`toolgen.incremental.spool`, `generate_spooled`): a run of its own keeps
rendered texts on disk, not in memory, and makes exactly the files and diagnostics that the
in-memory build makes, in one process or several, from fresh analysis or from the cache."""

from __future__ import annotations

import gc
import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, Project
from forks_support import forks_recorded, left_behind
from toolgen.config import load_config
from toolgen.descriptor import ToolDescriptor
from toolgen.incremental.spool import CHUNK, Piece, Spool, Spooled, as_bytes
from toolgen.incremental.units import UnitCache
from toolgen.output import compare, write
from toolgen.parallel import map_chunks
from toolgen.pipeline import Generated, generate, generate_spooled

HANDLERS = '''
from typing import Literal
from pydantic import BaseModel, Field
from toolgen import tool


class Node(BaseModel):
    """A tree: recursive, so never strict on Anthropic."""

    label: str
    children: list["Node"] = []


@tool
def walk(root: Node) -> int:
    """Count a tree's nodes.

    Args:
        root: The tree.

    Returns:
        How many nodes.
    """
    return 0


@tool(risk="forbidden")
def wipe(target: str) -> None:
    """Wipe everything (never sent to a model).

    Args:
        target: What to wipe.
    """


@tool
def search(
    query: str, limit: int = Field(10, ge=1, le=50), mode: Literal["a", "b"] | None = None
) -> list[str]:
    """Search the shop.

    Args:
        query: Words to look for.
        limit: How many results at most.
        mode: How to match.

    Examples:
        >>> search(query="lamp", limit=2)
        ["lamp"]
    """
    return []
'''

#: A second `wipe`: a duplicate name (TG102), so neither is published.
AGAIN = '''
from toolgen import tool


@tool(risk="forbidden")
def wipe(target: str) -> None:
    """Wipe everything, once more under the same name.

    Args:
        target: What to wipe.
    """
'''

BROKEN = '''
from toolgen import tool


@tool
def broken(x) -> int:
    """No annotation: an error, so this file is never stored in the cache."""
    return 0
'''

MANY = """
from toolgen import tool
{defs}
"""

ONE = '''

@tool
def tool_{n}(a: int, b: str | None = None, c: float | None = None) -> int:
    """Tool number {n}.

    Args:
        a: First.
        b: Second.
        c: Third.
    """
    return {n}
'''


@pytest.fixture
def varied(project: Project) -> Project:
    """Forbidden, recursive and constrained tools, a duplicate name (TG102), a handler with an
    error, enough strict tools to pass Anthropic's per-request limits (TG604), all platforms
    and the inline_defs option."""
    project.write(
        "pyproject.toml",
        """
        [tool.toolgen]
        sources = ["src"]
        out = "generated"
        min_level = 0
        anthropic_strict = true
        inline_defs = true
        """,
    )
    project.write("src/shop/__init__.py", "")
    project.write("src/shop/tools.py", HANDLERS)
    project.write("src/shop/again.py", AGAIN)
    project.write("src/shop/broken.py", BROKEN)
    for group in range(8):  # with the others, enough files for workers (`parallel.MIN_ITEMS`)
        defs = "".join(ONE.format(n=group * 4 + n) for n in range(4))
        project.write(f"src/shop/many_{group}.py", MANY.format(defs=defs))
    return project


def _same(memory: Generated, spooled: Generated) -> None:
    assert sorted(spooled.files) == sorted(memory.files)
    for path, data in memory.files.items():
        assert as_bytes(spooled.files[path]) == data, path
    assert spooled.shas == memory.shas
    assert spooled.diagnostics == memory.diagnostics
    assert spooled.locations == memory.locations
    assert [d.to_json_dict() for d in spooled.descriptors] == [
        d.to_json_dict() for d in memory.descriptors
    ]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_spooled_build_makes_what_the_in_memory_build_makes(varied: Project, jobs: int) -> None:
    config = load_config(None, cwd=varied.root)
    memory = generate(config)
    codes = {d.code for d in memory.diagnostics}
    assert {"TG102", "TG203", "TG603", "TG604"} <= codes  # the cases this project is made to reach
    with Spool.temporary() as spool:
        _same(memory, generate_spooled(config, None, jobs, spool))


def test_the_python_module_made_in_a_child_is_the_one_made_here(
    varied: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With workers and enough tools, the Python module is made in a child of its own while
    the other files are put together: the same bytes, and what its makers report and keep
    comes back here."""
    import toolgen.pipeline as pipeline
    from toolgen.render import project as render

    config = load_config(None, cwd=varied.root)
    where = tmp_path / "made in"

    def noted(typed: Any, on_tool: Any, options: Any, memo: Any = None) -> dict[str, Any]:
        where.write_text(str(os.getpid()))
        on_tool("TG605", typed[0], "a note from the documents")
        return {}

    monkeypatch.setitem(render.DOCUMENTS, "noted", noted)
    memory = generate(config)
    assert any("a note from the documents" in d.message for d in memory.diagnostics)
    monkeypatch.setattr(pipeline, "BESIDE_TOOLS", 1)
    with Spool.temporary() as spool:
        _same(memory, generate_spooled(config, None, 2, spool))
    assert int(where.read_text()) != os.getpid()


def test_the_python_memo_made_in_a_child_is_kept(
    varied: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The memo's entries a child made come back and are stored, as one process stores them."""
    import toolgen.pipeline as pipeline
    from toolgen.incremental.cache import load_entry

    config = load_config(None, cwd=varied.root)
    monkeypatch.setattr(pipeline, "BESIDE_TOOLS", 1)
    stored = {}
    for jobs in (1, 2):
        folder = tmp_path / f"jobs {jobs}"
        with Spool.temporary() as spool:
            generate_spooled(config, UnitCache(folder, "key"), jobs, spool)
        stored[jobs] = load_entry(folder, pipeline.PYTHON, "key")
    assert isinstance(stored[1], dict) and stored[1]
    assert stored[2] == stored[1]


def test_a_render_that_fails_after_the_python_module_is_set_going_leaves_no_child(
    varied: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The spool unreadable while the other files are put together (an OSError: the build
    then runs again in memory): the child making the Python module is stopped and reaped,
    not left waiting on its pipe for as long as the process lives."""
    import toolgen.pipeline as pipeline
    from toolgen.incremental.spool_sink import SpoolSink

    config = load_config(None, cwd=varied.root)
    monkeypatch.setattr(pipeline, "BESIDE_TOOLS", 1)

    def unreadable(self: SpoolSink, files: object) -> dict[str, str]:
        raise OSError(5, "Input/output error")

    forked = forks_recorded(monkeypatch)
    monkeypatch.setattr(SpoolSink, "shas", unreadable)
    with Spool.temporary() as spool, pytest.raises(OSError, match="Input/output"):
        generate_spooled(config, None, 2, spool)
    assert forked  # the workers, and the child beside
    assert left_behind(forked) == []


def test_the_repository_examples_spool_to_the_same_bytes() -> None:
    config = load_config(None, cwd=REPO)
    with Spool.temporary() as spool:
        _same(generate(config), generate_spooled(config, None, 2, spool))


def test_a_spooled_build_from_the_cache_makes_the_same_files(
    varied: Project, tmp_path: Path
) -> None:
    """Units stored by a spooled build (in the worker that compiled them) or by the in-memory
    build are spooled as stored, and give the same files."""
    config = load_config(None, cwd=varied.root)
    memory = generate(config)
    for first in ("spooled", "memory"):
        folder = tmp_path / first
        with Spool.temporary() as spool:
            if first == "spooled":
                generate_spooled(config, UnitCache(folder, "key"), 2, spool)
            else:
                generate(config, UnitCache(folder, "key"))
        again = UnitCache(folder, "key")
        with Spool.temporary() as spool:
            _same(memory, generate_spooled(config, again, 2, spool))
        assert again.hits == again.files - 1  # all but the file with an error (not stored)


def test_a_spooled_build_holds_no_descriptor(varied: Project) -> None:
    """What makes a large project fit in memory: once a file's tools are spooled, their
    descriptors are let go (they are read back only when asked for)."""
    config = load_config(None, cwd=varied.root)
    gc.collect()
    before = {id(o) for o in gc.get_objects() if isinstance(o, ToolDescriptor)}  # other tests'
    with Spool.temporary() as spool:
        result = generate_spooled(config, None, 1, spool)
        gc.collect()
        alive = [o for o in gc.get_objects() if isinstance(o, ToolDescriptor)]
        assert [o for o in alive if id(o) not in before] == []
        assert len(result.descriptors) == 34  # 3 + 32, less the two `wipe`s (a duplicate)
        assert result.descriptors[0].name == "search"  # read back from the spool


def test_spooled_files_are_compared_and_written_by_their_bytes(varied: Project) -> None:
    config = load_config(None, cwd=varied.root)
    with Spool.temporary() as spool:
        result = generate_spooled(config, None, 2, spool)
        assert compare(config.out, result.files).missing  # nothing written yet
        write(config.out, result.files)
        assert compare(config.out, result.files).clean
        for path, content in result.files.items():
            assert (config.out / path).read_bytes() == as_bytes(content)
        payload = config.out / "openai/chat_completions.json"
        text = payload.read_bytes()
        payload.write_bytes(text.replace(b"Tool number 7.", b"Tool number 8."))  # same size
        assert compare(config.out, result.files).changed == ["openai/chat_completions.json"]
        payload.write_bytes(text + b"\n")
        assert compare(config.out, result.files).changed == ["openai/chat_completions.json"]
        write(config.out, result.files)
        assert payload.read_bytes() == text


def _descriptors(result: Generated) -> dict[str, Spooled]:
    files = {p: c for p, c in result.files.items() if p.startswith("descriptors/")}
    assert files and all(isinstance(c, Spooled) for c in files.values())
    return files  # type: ignore[return-value]


def test_a_first_build_links_the_descriptors_its_workers_wrote(varied: Project) -> None:
    """A build into an `out` that holds none yet: each worker keeps each descriptor in a file
    of its own (in a folder of its own: a file system makes one folder's files one at a time),
    and the build links that file into place instead of writing the bytes again (a link makes
    no new file). The files are generated files all the same: readable by all
    whatever the umask, there once the spool is gone, each with its own bytes."""
    config = load_config(None, cwd=varied.root)
    mask = os.umask(0o077)
    try:
        with Spool.temporary() as spool:
            spool.link_into(config.out)
            result = generate_spooled(config, None, 2, spool)
            descriptors = _descriptors(result)
            write(config.out, result.files)
            folders = set()
            for path, content in descriptors.items():
                whole = content.whole_file()
                assert whole is not None and Path(whole).parent.parent == Path(spool.folder)
                assert Path(whole).stat().st_ino == (config.out / path).stat().st_ino, path
                folders.add(Path(whole).parent)
            # each worker's files in a folder of its own (a worker that took no file with
            # a tool has none), none of this process's
            assert 1 <= len(folders) <= 2
            assert str(os.getpid()) not in {folder.name for folder in folders}
        for path in result.files:
            target = config.out / path
            assert target.stat().st_nlink == 1 and target.stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(mask)
    with Spool.temporary() as spool:  # what the same build writes without links
        for path, content in generate_spooled(config, None, 1, spool).files.items():
            assert (config.out / path).read_bytes() == as_bytes(content), path


def test_descriptors_are_linked_only_where_every_one_is_new(varied: Project) -> None:
    """Only a first build links (an `out` with a manifest holds files that may not change,
    and a file made for nothing costs what a link saves), only from forked workers (in the
    process that writes, a file made to be linked costs as much as the file itself)."""
    config = load_config(None, cwd=varied.root)
    with Spool.temporary() as spool:
        spool.link_into(config.out)
        descriptors = _descriptors(generate_spooled(config, None, 1, spool))
        assert all(c.whole_file() is None for c in descriptors.values())  # no workers
    with Spool.temporary() as spool:
        result = generate_spooled(config, None, 2, spool)
        assert all(c.whole_file() is None for c in _descriptors(result).values())  # not asked
        write(config.out, result.files)  # a manifest now
    with Spool.temporary() as spool:
        spool.link_into(config.out)
        descriptors = _descriptors(generate_spooled(config, None, 2, spool))
        assert all(c.whole_file() is None for c in descriptors.values())


def test_a_descriptor_that_cannot_be_linked_is_written(
    varied: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system without links (or a spool moved to another one): the bytes are written."""
    config = load_config(None, cwd=varied.root)

    def no_link(*_: object, **__: object) -> None:
        raise OSError(18, "Invalid cross-device link")

    with Spool.temporary() as spool:
        spool.link_into(config.out)
        result = generate_spooled(config, None, 2, spool)
        assert all(c.whole_file() for c in _descriptors(result).values())
        monkeypatch.setattr(os, "link", no_link)
        write(config.out, result.files)
        assert compare(config.out, result.files).clean
    for path in result.files:
        target = config.out / path
        assert target.stat().st_nlink == 1 and target.stat().st_mode & 0o777 == 0o644


def test_a_spooled_build_reads_each_descriptor_back_once(
    varied: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Python module takes each visible tool's parameters from its spooled descriptor:
    read back once per tool, not once per look at them."""
    config = load_config(None, cwd=varied.root)
    reads: list[Piece] = []
    real_read = Spool.read

    def read(self: Spool, piece: Piece) -> bytes:
        reads.append(piece)
        return real_read(self, piece)

    monkeypatch.setattr(Spool, "read", read)
    with Spool.temporary() as spool:
        result = generate_spooled(config, None, 1, spool)
        pieces = {c.parts[0] for c in _descriptors(result).values()}
        counts = {piece: reads.count(piece) for piece in pieces}
        assert len(counts) == len([d for d in result.descriptors if d.visible])
    assert set(counts.values()) == {1}


def _add_in_workers(spool: Spool, chunk: list[int]) -> list[tuple[int, Piece]]:
    made = [(n, spool.add(f"worker {os.getpid()} item {n}\n".encode())) for n in chunk]
    spool.flush()
    return made


def test_pieces_added_in_forked_workers_are_read_back_here() -> None:
    with Spool.temporary() as spool:
        mine = spool.add(b"from this process")
        items = list(range(40))
        made = map_chunks(items, lambda chunk: _add_in_workers(spool, chunk), 2)
        files = {piece.file for _, piece in made}
        assert 1 <= len(files) <= 2 and mine.file not in files
        writers: dict[str, set[bytes]] = {}  # a file per worker: each file, one worker's
        for n, piece in made:
            text = spool.read(piece)
            assert text.endswith(f" item {n}\n".encode())
            writers.setdefault(piece.file, set()).add(text.split(b" item ")[0])
        assert all(len(pids) == 1 for pids in writers.values())
        assert len(set.union(*writers.values())) == len(files)
        assert spool.read(mine) == b"from this process"  # still waiting in the buffer
        folder = spool.folder
    assert not Path(folder).exists()


def test_spooled_bytes_come_in_chunks_with_their_sha() -> None:
    with Spool.temporary() as spool:
        pieces: list[Any] = [spool.add(bytes([n % 251]) * 50_000) for n in range(60)]
        parts = [b"head", *pieces, b"tail"]
        whole = b"head" + b"".join(spool.read(p) for p in pieces) + b"tail"
        content = Spooled(spool, parts)
        chunks = list(content.chunks())
        assert len(chunks) > 1 and all(len(c) < CHUNK + 50_000 for c in chunks)
        assert b"".join(chunks) == whole == content.read()
        assert content.size == len(whole)
        assert content.sha == hashlib.sha256(whole).hexdigest()


def test_a_build_without_room_for_its_spool_is_made_in_memory(
    varied: Project, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No room or no right in the temporary folder, from the start or once spooling: the
    build says so and is made in memory, with the same files."""
    import tempfile

    assert run("build", cwd=varied.root).code == 1  # an error and a duplicate name
    varied.write("src/shop/broken.py", "")
    varied.write("src/shop/again.py", "")
    assert run("build", cwd=varied.root).code == 0
    expected = varied.snapshot()
    for path in varied.out.rglob("*.json"):
        path.unlink()
    monkeypatch.setattr(tempfile, "tempdir", str(varied.root / "no" / "such" / "folder"))
    done = run("build", "--no-cache", cwd=varied.root)
    assert done.code == 0
    assert "cannot keep the build's temporary files" in done.err and "in memory" in done.err
    assert varied.snapshot() == expected
    monkeypatch.undo()

    calls = {"n": 0}
    real_add = Spool.add

    def add(self: Spool, data: bytes) -> Piece:
        calls["n"] += 1
        if calls["n"] > 20:
            raise OSError(28, "No space left on device", self.folder)
        return real_add(self, data)

    monkeypatch.setattr(Spool, "add", add)
    monkeypatch.setenv("TOOLGEN_JOBS", "1")
    for path in varied.out.rglob("*.json"):
        path.unlink()
    done = run("build", "--no-cache", cwd=varied.root)
    assert done.code == 0 and "No space left on device" in done.err
    assert varied.snapshot() == expected


def test_spools_that_killed_runs_left_are_removed(tmp_path: Path) -> None:
    """Only this user's, whose process is gone, untouched for an hour."""
    import subprocess
    import sys

    from toolgen.incremental.spool import PREFIX, STALE_S, sweep

    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                           capture_output=True, text=True)  # fmt: skip
    gone = int(child.stdout)
    folders = {
        "stale": tmp_path / f"{PREFIX}{gone}-abc",
        "young": tmp_path / f"{PREFIX}{gone}-def",
        "alive": tmp_path / f"{PREFIX}{os.getpid()}-ghi",
        "other": tmp_path / "toolgen-spools-of-nobody",
    }
    for folder in folders.values():
        folder.mkdir()
        (folder / "1.bin").write_bytes(b"x")
    now = folders["young"].stat().st_mtime
    for name in ("stale", "alive", "other"):
        os.utime(folders[name], (now - STALE_S - 1, now - STALE_S - 1))
    sweep(str(tmp_path), now)
    assert {name for name, folder in folders.items() if folder.exists()} == {
        "young",
        "alive",
        "other",
    }
