"""A build killed at any instant of its write phase (SIGKILL: no cleanup runs) leaves `out`
as the README promises: every file toolgen manages is exactly the old set, or the build's
journal was committed, and then `check` says the last build was interrupted (not a list of
drift) and the next build completes it. No staged or temporary file survives a completed run,
and hand-written files in `out` are never touched.

Two ways in: a child process that kills itself right before each of the write's file system
changes in turn (every instant between two system calls, and also the build that completes
an interrupted one), and real `toolgen build` processes of a few hundred tools sent SIGKILL
at random instants of their write phase.
"""

from __future__ import annotations

import builtins
import hashlib
import io
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import tool_source
from toolgen import journal, output
from toolgen.removal import PENDING
from toolgen.render import MANIFEST
from toolgen.render.jsonout import dump_json
from toolgen.render.project import manifest_for

#: Files in `out` that toolgen did not write: they must come through every kill unchanged.
HAND_WRITTEN = {"python/__init__.py": b"from .tools import *\n", "docs/intro.md": b"# Ours\n"}
KILLED = 77  # a child's exit status when it stopped itself where it was told to


def _managed(out: Path) -> dict[str, bytes]:
    """The files under `out` but the pending folder's and the hand-written ones."""
    return {
        rel: p.read_bytes()
        for p in out.rglob("*")
        if p.is_file()
        and not (rel := p.relative_to(out).as_posix()).startswith(f"{PENDING}/")
        and rel not in HAND_WRITTEN
    }


def _leftovers(out: Path) -> list[str]:
    """What a completed run must not leave: the pending folder, temporary files."""
    return sorted(
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if p.name == PENDING or p.name.endswith((".tmp", ".part"))
    )


def _catalog(names: list[str], version: str, changed: list[str] | None = None) -> dict[str, bytes]:
    """A build's files for tools `names` (those `changed` at version "new"): descriptors,
    payloads and the manifest."""
    files = {
        f"descriptors/{n}.json": f'{{"name": "{n}", "v": "{version}"}}\n'.encode() for n in names
    }
    for name in changed or []:
        files[f"descriptors/{name}.json"] = f'{{"name": "{name}", "v": "new"}}\n'.encode()
    for payload in ("mcp/tools.json", "openai/responses.json", "docs/tools.md"):
        files[payload] = f"{payload} {version} {' '.join(names)}\n".encode()
    shas = {p: hashlib.sha256(d).hexdigest() for p, d in sorted(files.items())}
    files[MANIFEST] = dump_json(manifest_for(shas))
    return files


def _mutating_calls(limit: int, counted: list[int]) -> None:
    """Make this process kill itself right before its `limit`-th change to the file system
    (renames, removals, folders made or removed, files opened for writing), counting them in
    `counted[0]`."""

    def wrap(real: Callable[..., Any], changes: Callable[..., bool]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if changes(*args, **kwargs):
                if counted[0] == limit:
                    os.kill(os.getpid(), signal.SIGKILL)
                counted[0] += 1
            return real(*args, **kwargs)

        return call

    def always(*_: Any, **__: Any) -> bool:
        return True

    for name in ("replace", "rename", "unlink", "remove", "rmdir", "mkdir", "symlink", "link"):
        setattr(os, name, wrap(getattr(os, name), always))
    os.open = wrap(os.open, lambda path, flags, *a, **k: bool(flags & (os.O_WRONLY | os.O_RDWR)))
    writes = wrap(io.open, lambda file, mode="r", *a, **k: any(c in mode for c in "wax+"))
    io.open = builtins.open = writes


def _in_child(work: Callable[[], None], limit: int) -> tuple[int, int]:
    """Run `work` in a forked child killed at its `limit`-th file system change: (how it
    ended: KILLED, 0, or an error status; how many changes it made)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery runs here, whatever happens
        status = 1
        try:
            os.close(read)
            counted = [0]
            _mutating_calls(limit, counted)
            try:
                work()
                status = 0
            finally:
                os.write(write, str(counted[0]).encode())
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        said = pipe.read()
    _, wait_status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(wait_status) and os.WTERMSIG(wait_status) == signal.SIGKILL:
        return KILLED, limit
    return os.waitstatus_to_exitcode(wait_status), int(said or 0)


def _setup(out: Path, files: dict[str, bytes]) -> None:
    if out.exists():
        shutil.rmtree(out)
    for relpath, data in {**files, **HAND_WRITTEN}.items():
        (out / relpath).parent.mkdir(parents=True, exist_ok=True)
        (out / relpath).write_bytes(data)


def test_a_write_killed_before_any_of_its_changes_is_old_or_completed_by_the_next(
    tmp_path: Path,
) -> None:
    """For each k, a write of 50 tools (15 changed, 10 removed, 10 added, payloads and
    manifest changed) is killed right before its k-th change; so is, for every third kill
    after the commit, the next write at a k2 of its own (completing can be killed too).
    Each time: the old set exactly (or the new one, when only the tidying up was left), or
    `check` says interrupted and the next write gives the new set exactly, with no
    leftovers; hand-written files never change."""
    out = tmp_path / "generated"
    names = [f"tool_{i:03}" for i in range(50)]
    old = _catalog(names[:40], "old")
    new = _catalog(names[10:], "old", changed=names[10:25])
    _setup(out, old)
    status, total = _in_child(lambda: output.write(out, new), 10**9)
    assert status == 0 and _managed(out) == new and total > 80
    outcomes = {"old": 0, "committed": 0, "new": 0}
    for k in range(total + 1):
        _setup(out, old)
        status, _ = _in_child(lambda: output.write(out, new), k)
        assert status in (KILLED, 0)
        if journal.state(out) == "committed":
            outcomes["committed"] += 1
            assert output.compare(out, new).interrupted
            if k % 3 == 0:  # kill the write that completes it, too
                status, _ = _in_child(lambda: output.write(out, new), k % 40)
                assert status in (KILLED, 0)
        else:
            now = _managed(out)
            assert now in (old, new), f"killed before change {k}: neither set"
            outcomes["old" if now == old else "new"] += 1
        report = output.write(out, new)
        assert _managed(out) == new, k
        assert _leftovers(out) == [], k
        assert {p: (out / p).read_bytes() for p in HAND_WRITTEN} == HAND_WRITTEN
        assert output.compare(out, new).clean
        assert report.completed or journal.state(out) == ""
    print(f"kills at each of {total + 1} instants: {outcomes}")  # shown with -s
    assert min(outcomes.values()) > 0 and outcomes["old"] > 30, outcomes
    assert outcomes["committed"] > 30, outcomes


# -- real processes, real SIGKILL ------------------------------------------------------------

TOOLS = 300


def _project(root: Path, version: str) -> None:
    """TOOLS handlers in 10 modules; `version` changes a third of their descriptions."""
    for module in range(10):
        parts = []
        for i in range(module * TOOLS // 10, (module + 1) * TOOLS // 10):
            source = tool_source(name=f"tool_{i:03}", params="query: str, limit: int = 5")
            if i % 3 == 0:
                source = source.replace("product questions", f"product questions ({version})")
            parts.append(source if not parts else source.split("\n", 1)[1])
        (root / "src" / f"tools_{module}.py").write_text("\n\n".join(parts))


def _toolgen(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolgen", *argv],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_real_builds_killed_at_random_instants_of_their_write_phase(tmp_path: Path) -> None:
    """`toolgen build` of 300 tools, killed with SIGKILL KILLS times at a random instant of
    its write phase: half of them while it stages (after `out/.toolgen-pending` appears),
    half after its commit (after the journal appears), each spread over that part of the
    phase as a measured run took it. The guarantee holds each time."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n'
    )
    out = root / "generated"
    _project(root, "one")
    assert _toolgen(root, "build").returncode == 0
    for relpath, data in HAND_WRITTEN.items():
        (out / relpath).write_bytes(data)
    old = _managed(out)
    _project(root, "two")
    copy = tmp_path / "expected"
    shutil.copytree(root, copy)
    assert _toolgen(copy, "build").returncode == 0
    new = _managed(copy / "generated")
    assert len(new) > TOOLS and old != new
    shutil.copytree(out, tmp_path / "old")
    windows = _write_phase(root, tmp_path / "old", out)
    rng = random.Random(int(os.environ.get("TOOLGEN_KILL_SEED", "15")))
    kills = int(os.environ.get("TOOLGEN_KILLS", "16"))
    seen = {"old": 0, "interrupted": 0, "new": 0}
    for n in range(kills):
        shutil.rmtree(out)
        shutil.copytree(tmp_path / "old", out)
        child = subprocess.Popen(
            [sys.executable, "-m", "toolgen", "build", "--quiet"],
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        mark, window = (PENDING, windows[0]) if n % 2 else (f"{PENDING}/journal.json", windows[1])
        if _wait_for(out / mark, child):
            time.sleep(rng.uniform(0, window * 1.1))
            child.send_signal(signal.SIGKILL)
        child.wait(timeout=300)
        if journal.state(out) == "committed":
            seen["interrupted"] += 1
            check = _toolgen(root, "check")
            assert check.returncode == 1, check.stdout
            assert "the last build of generated was interrupted" in check.stdout
            assert ": stale" not in check.stdout and ": changed" not in check.stdout
        else:
            now = _managed(out)
            assert now in (old, new), "neither the old set nor the new one"
            seen["old" if now == old else "new"] += 1
        build = _toolgen(root, "build")
        assert build.returncode == 0, build.stdout + build.stderr
        assert _managed(out) == new
        assert _leftovers(out) == []
        assert {p: (out / p).read_bytes() for p in HAND_WRITTEN} == HAND_WRITTEN
    # the kills did land in the write phase (how many after the commit is up to the
    # scheduler: the test above covers every instant on both sides of it)
    assert seen["old"] + seen["interrupted"] >= kills // 4, seen
    staged, applied = (f"{w * 1000:.1f} ms" for w in windows)
    print(f"kills: {seen}; staging {staged}, after the commit {applied}")  # shown with -s


def _write_phase(root: Path, old: Path, out: Path) -> tuple[float, float]:
    """How long a build's write phase takes here, from the old files to the new: staging
    (from the pending folder's appearance to the journal's), and the rest (until the
    pending folder is gone)."""
    shutil.rmtree(out)
    shutil.copytree(old, out)
    child = subprocess.Popen(
        [sys.executable, "-m", "toolgen", "build", "--quiet"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert _wait_for(out / PENDING, child), "the build never staged anything"
    started = time.perf_counter()
    assert _wait_for(out / PENDING / "journal.json", child), "it never committed"
    committed = time.perf_counter()
    while os.path.lexists(out / PENDING) and child.poll() is None:
        pass
    ended = time.perf_counter()
    child.wait(timeout=300)
    return committed - started, ended - committed


def _wait_for(path: Path, child: subprocess.Popen[bytes]) -> bool:
    """Whether `path` appeared while `child` ran (polled as fast as Python goes)."""
    while child.poll() is None:
        if os.path.lexists(path):
            return True
    return os.path.lexists(path)
