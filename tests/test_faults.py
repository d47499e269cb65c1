"""A build killed mid-write (SIGKILL: no cleanup runs) leaves `out` consistent, and the next
build repairs it.

A build writes every new file to a temporary file beside its target first, then renames them
all over their targets (the manifest last). The child process is a real `toolgen build` with
one seam patched: it kills itself at the k-th file, before its temporary file is started, with
its temporary file half-written, or right before its rename. Whatever the moment, each file in
`out` is the complete old or the complete new version (never a partial file), no file is new
unless every temporary file was complete, the manifest is still the old one, and the next
normal build exits 0, leaves no temporary file behind, and `toolgen check` is clean after it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project, tool_source
from toolgen.config import load_config
from toolgen.pipeline import generate
from toolgen.render import MANIFEST

#: The child: `toolgen build`, killed at the K-th file written into `out` (MODE says when).
CHILD = r"""
import os, signal, sys, tempfile
from pathlib import Path

import toolgen.output as output
from toolgen.cli import main

mode, k = sys.argv[1], int(sys.argv[2])
out = Path.cwd().resolve() / "generated"
count = 0


def die():
    os.kill(os.getpid(), signal.SIGKILL)


def ours(path):
    return Path(path).resolve().is_relative_to(out)


real_write, real_replace, real_mkstemp, real_fdopen = (
    output._write_temporary, os.replace, tempfile.mkstemp, os.fdopen
)
renamed = 0


def write_temporary(target, data):  # mode "before": die before the K-th file is started
    global count
    if mode == "before" and count == k:
        die()
    count += 1
    return real_write(target, data)


def replace(src, dst, *args, **kwargs):  # mode "rename": die right before the K-th rename
    global renamed
    if ours(dst):
        if mode == "rename" and renamed == k:
            die()
        renamed += 1
    return real_replace(src, dst, *args, **kwargs)


temp_fds = set()


def mkstemp(*args, **kwargs):
    fd, path = real_mkstemp(*args, **kwargs)
    if ours(path):
        temp_fds.add(fd)
    return fd, path


class HalfWriter:  # mode "partial": the K-th temp file gets half its bytes, then death
    def __init__(self, handle):
        self.handle = handle

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.handle.__exit__(*exc)

    def write(self, data):
        self.handle.write(data[: len(data) // 2])
        self.handle.flush()
        os.fsync(self.handle.fileno())
        die()


def fdopen(fd, *args, **kwargs):
    handle = real_fdopen(fd, *args, **kwargs)
    if mode == "partial" and fd in temp_fds and count - 1 == k:
        return HalfWriter(handle)
    return handle


output._write_temporary = write_temporary
os.replace = replace
tempfile.mkstemp = mkstemp
os.fdopen = fdopen
sys.exit(main(["build", "--quiet"]))
"""

TMP = re.compile(r"^\..+\.tmp$")


def _files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def _temporaries(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if TMP.match(p.name))


def _temporary_order(relpath: str) -> str:
    """Where the temporary file of `relpath` sorts among `_temporaries` (`.NAME.XXXX.tmp`)."""
    folder, _, name = relpath.rpartition("/")
    return f"{folder}/.{name}." if folder else f".{name}."


def _expected(root: Path) -> dict[str, bytes]:
    """What a build of `root` writes: the pipeline's files, computed without writing."""
    with contextlib.chdir(root):
        config = load_config(None, cwd=root, sources_override=None, out_override=None)
        result = generate(config)
    assert not [d for d in result.diagnostics if d.severity.value == "error"]
    return result.files


@pytest.fixture
def changed(project: Project, run) -> tuple[Project, dict[str, bytes], list[str]]:
    """A built project, then handlers edited so that a build rewrites several files (and adds
    some): returns the project, the old files, and the files the next build writes, in the
    order it writes them (the manifest last)."""
    for i in range(4):
        project.write(f"src/t{i}.py", tool_source(name=f"tool_{i}"))
    assert run("build", cwd=project.root).code == 0
    old = _files(project.out)
    for i in range(3):  # a new description changes every platform's payload and descriptors
        source = tool_source(name=f"tool_{i}").replace("Look something up", f"Find entry {i}")
        project.write(f"src/t{i}.py", source)
    project.write("src/t9.py", tool_source(name="tool_9"))  # new files too
    new = _expected(project.root)
    writes = [p for p in new if old.get(p) != new[p]]
    writes = [*sorted(p for p in writes if p != MANIFEST), MANIFEST]
    assert MANIFEST in old and old[MANIFEST] != new[MANIFEST]
    assert len(writes) >= 8, writes
    return project, old, writes


def _kill_build(root: Path, mode: str, k: int) -> None:
    child = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(k)],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, (child.returncode, child.stdout, child.stderr)


#: (mode, which write): before any write, midway, right before the manifest; and a temporary
#: file left complete or half-written, midway and for the manifest itself.
KILLS = [
    ("before", "first"),
    ("before", "middle"),
    ("before", "manifest"),
    ("rename", "first"),
    ("rename", "middle"),
    ("rename", "manifest"),
    ("partial", "middle"),
    ("partial", "manifest"),
]


@pytest.mark.parametrize(("mode", "when"), KILLS)
def test_a_build_killed_mid_write_leaves_whole_files_and_the_next_build_repairs(
    changed: tuple[Project, dict[str, bytes], list[str]], run, mode: str, when: str
) -> None:
    project, old, writes = changed
    new = _expected(project.root)
    k = {"first": 0, "middle": len(writes) // 2, "manifest": len(writes) - 1}[when]
    _kill_build(project.root, mode, k)

    after = _files(project.out)
    leftovers = _temporaries(project.out)
    for relpath, data in after.items():
        if relpath in leftovers:
            continue
        assert data in (old.get(relpath), new.get(relpath)), f"{relpath} is neither old nor new"
        if relpath.endswith(".json"):
            json.loads(data)  # whole, parseable JSON
    assert after[MANIFEST] == old[MANIFEST], "the manifest is renamed last: still the old one"
    done = set(writes[:k]) if mode == "rename" else set()  # renamed only once all are complete
    assert {p for p in writes if after.get(p) == new[p]} == done, "only renamed files are new"
    assert not any(p in after for p in writes if p not in old and p not in done), "no others"
    # temporary files beside their targets: those written before the kill, or not yet renamed
    kept = {"before": writes[:k], "partial": writes[: k + 1], "rename": writes[k:]}[mode]
    assert len(leftovers) == len(kept)
    for leftover, relpath in zip(leftovers, sorted(kept, key=_temporary_order), strict=True):
        folder, name = os.path.split(relpath)
        assert os.path.split(leftover)[0] == folder
        assert os.path.split(leftover)[1].startswith(f".{name}.")

    rebuilt = run("build", cwd=project.root)
    assert rebuilt.code == 0, rebuilt.out
    assert _temporaries(project.out) == [], "the next build removes what the killed one left"
    assert _files(project.out) == new
    check = run("check", cwd=project.root)
    assert check.code == 0, check.out
    assert "is up to date" in check.out


@pytest.mark.parametrize(("mode", "when"), [("rename", "middle"), ("rename", "manifest")])
def test_after_a_killed_build_going_back_to_the_old_sources_restores_the_old_files(
    changed: tuple[Project, dict[str, bytes], list[str]], run, mode: str, when: str
) -> None:
    """The half-new `out` a killed build left must not pass for the old state when the edit is
    undone (nothing may trust a stale record of what `out` holds)."""
    project, old, writes = changed
    k = {"middle": len(writes) // 2, "manifest": len(writes) - 1}[when]
    _kill_build(project.root, mode, k)
    assert _files(project.out) != old  # some files are new already
    for i in range(4):
        project.write(f"src/t{i}.py", tool_source(name=f"tool_{i}"))
    (project.root / "src" / "t9.py").unlink()

    check = run("check", cwd=project.root)
    assert check.code == 1, check.out  # the half-written files are drift
    rebuilt = run("build", cwd=project.root)
    assert rebuilt.code == 0, rebuilt.out
    assert _files(project.out) == old
    assert run("check", cwd=project.root).code == 0
