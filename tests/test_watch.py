"""`toolgen build --watch`: rebuild on each relevant change, survive broken edits, exit 0 on
Ctrl-C. The loop is tested with a stand-in for `watchfiles.watch`, then for real in a child
process."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from watchfiles import Change

from conftest import CONFIG, Project, tool_source
from toolgen.arguments import parser, request_of
from toolgen.config import load_config
from toolgen.watch.loop import DEBOUNCE_MS, STEP_MS, ChangeFilter, watch_build

TIMEOUT = 20.0  # seconds to wait for any one thing the watcher does (a slow 2-core CI box)


@pytest.fixture
def tools(project: Project) -> Project:
    project.write("src/tools.py", tool_source(name="lookup"))
    return project


def test_only_python_sources_and_the_config_count(tools: Project) -> None:
    (tools.root / "src" / "pkg").mkdir()
    config = load_config(None, cwd=tools.root)
    counts = ChangeFilter(config)
    src, out = tools.root / "src", tools.root / "generated"
    assert counts.roots() == [src, tools.root / "pyproject.toml"]
    assert counts(Change.modified, str(src / "tools.py"))
    assert counts(Change.added, str(src / "pkg" / "new.py"))
    assert counts(Change.deleted, str(src / "gone.py"))
    assert counts(Change.modified, str(tools.root / "pyproject.toml"))
    assert not counts(Change.modified, str(src / "notes.txt"))
    assert not counts(Change.modified, str(src / "tools.py.swp"))
    assert not counts(Change.modified, str(src / ".tools.py"))  # discovery skips hidden files
    assert not counts(Change.modified, str(src / "__pycache__" / "tools.py"))
    assert not counts(Change.modified, str(src / ".venv" / "lib" / "x.py"))
    assert not counts(Change.modified, str(src / "build" / "x.py"))
    assert not counts(Change.modified, str(tools.root / "other.py"))  # not a source
    assert not counts(Change.modified, str(out / "python" / "tools.py"))  # the build's own


def test_a_source_file_counts(project: Project) -> None:
    project.write("handlers.py", tool_source())
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["handlers.py"]\n')
    counts = ChangeFilter(load_config(None, cwd=project.root))
    assert counts(Change.modified, str(project.root / "handlers.py"))
    assert not counts(Change.modified, str(project.root / "other.py"))


def test_a_folder_renamed_moved_in_or_away_counts(tools: Project, tmp_path: Path) -> None:
    """On Linux a folder's rename or move is one change of the folder's own path, with no
    `.py` suffix and no change for the files in it: it counts when the path is a folder now
    or was a source folder the filter knew."""
    src = tools.root / "src"
    tools.write("src/pkg/sub/deep.py", tool_source(name="deep"))
    tools.write("src/.hidden/h.py", tool_source(name="hidden"))
    counts = ChangeFilter(load_config(None, cwd=tools.root))
    (src / "pkg").rename(src / "renamed")  # renamed in place: one change each side
    assert counts(Change.added, str(src / "renamed"))
    assert counts(Change.deleted, str(src / "pkg"))
    assert not counts(Change.deleted, str(src / "pkg"))  # forgotten once it is gone...
    assert counts(Change.deleted, str(src / "renamed" / "sub"))  # ...the new name is known
    outside = tmp_path / "elsewhere"
    (outside / "moved").mkdir(parents=True)
    (outside / "moved" / "m.py").write_text(tool_source(name="moved"))
    (outside / "moved").rename(src / "moved")  # moved in
    assert counts(Change.added, str(src / "moved"))
    (src / "moved").rename(outside / "moved")  # and away again: known since it came
    assert counts(Change.deleted, str(src / "moved"))
    (src / "renamed").rename(outside / "renamed")
    assert counts(Change.deleted, str(src / "renamed"))
    # not folders discovery reads, and not folders at all
    (src / ".hidden").rename(src / ".hidden2")
    assert not counts(Change.added, str(src / ".hidden2"))
    assert not counts(Change.deleted, str(src / ".hidden"))
    (src / "build").mkdir()
    assert not counts(Change.added, str(src / "build"))
    assert not counts(Change.deleted, str(src / "LICENSE"))  # an unknown path, not a folder
    (src / "notes").write_text("x")
    assert not counts(Change.added, str(src / "notes"))
    (tools.root / "generated" / "python").mkdir(parents=True)
    assert not counts(Change.added, str(tools.root / "generated" / "python"))
    assert not counts(Change.added, str(outside / "moved"))  # not under a source


MODELS = "from typing import Literal\n\nUnit = Literal[{units}]\n"


def test_a_module_imported_from_outside_the_sources_is_watched(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`models.py` beside `src` is no source, but the handler imports it: its edit rebuilds,
    and the watch follows when the handler imports another module instead."""
    monkeypatch.chdir(project.root)
    project.write("models.py", MODELS.format(units='"c", "f"'))
    project.write("other.py", MODELS.format(units='"k", "m"'))
    imports = "from models import Unit"
    project.write("src/tools.py", tool_source(params="unit: Unit", imports=imports))
    models, other = project.root / "models.py", project.root / "other.py"
    roots = (project.root / "src", project.root / "pyproject.toml")
    calls: list[tuple[Path, ...]] = []

    def units() -> list[str]:
        return list(project.descriptor("lookup")["parameters"]["properties"]["unit"]["enum"])

    def fake_watch(*paths: Path, **options: Any) -> Iterator[set[tuple[Change, str]]]:
        calls.append(paths)
        counts = options["watch_filter"]
        if len(calls) == 1:
            assert units() == ["c", "f"]
            assert counts(Change.modified, str(models))
            assert not counts(Change.modified, str(other))  # read by no build yet
            project.write("models.py", MODELS.format(units='"c", "f", "k"'))
            yield {(Change.modified, str(models))}
            raise AssertionError("a change of a file watched by itself restarts the watch")
        if len(calls) == 2:
            assert units() == ["c", "f", "k"]
            changed = tool_source(params="unit: Unit", imports="from other import Unit")
            project.write("src/tools.py", changed)
            yield {(Change.modified, str(project.root / "src" / "tools.py"))}
            raise AssertionError("a build that reads other files restarts the watch")
        assert units() == ["k", "m"]  # built once, not again before watching afresh

    stream = io.StringIO()
    assert watch_build(_watch_args(), stream, watch_fn=fake_watch) == 0
    assert calls == [(*roots, models), (*roots, models), (*roots, other)]
    text = stream.getvalue()
    assert "toolgen: watching src, pyproject.toml, models.py (Ctrl-C" in text
    assert "toolgen: watching src, pyproject.toml, other.py (Ctrl-C" in text
    assert text.count(" 1 tool; ") == 3, text  # one build each: first, models.py, tools.py


def test_an_imported_module_is_watched_when_the_first_build_is_answered_from_the_stamp(
    project: Project, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watch started on an up-to-date project: its first build replays the stamp, which
    says what the last real build read."""
    project.write("models.py", MODELS.format(units='"c", "f"'))
    imports = "from models import Unit"
    project.write("src/tools.py", tool_source(params="unit: Unit", imports=imports))
    assert run("build", cwd=project.root).code == 0
    monkeypatch.chdir(project.root)
    calls: list[tuple[Path, ...]] = []

    def fake_watch(*paths: Path, **options: Any) -> Iterator[set[tuple[Change, str]]]:
        calls.append(paths)
        yield from ()

    stream = io.StringIO()
    assert watch_build(_watch_args(), stream, watch_fn=fake_watch) == 0
    assert "0 files written" in stream.getvalue()  # replayed: nothing to do
    assert calls == [
        (project.root / "src", project.root / "pyproject.toml", project.root / "models.py")
    ]


def _watch_args(*extra: str) -> Any:
    return request_of(parser().parse_args(["build", "--watch", *extra]), None)


def test_the_loop_rebuilds_survives_errors_and_follows_the_config(
    tools: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tools.root)
    source, config = tools.root / "src" / "tools.py", tools.root / "pyproject.toml"
    calls: list[tuple[tuple[Path, ...], dict[str, Any]]] = []

    def fake_watch(*paths: Path, **options: Any) -> Iterator[set[tuple[Change, str]]]:
        calls.append((paths, options))
        if len(calls) == 1:
            tools.write("src/tools.py", tool_source(name="renamed"))
            yield {(Change.modified, str(source))}
            assert tools.descriptor("renamed")["name"] == "renamed"
            tools.write("src/tools.py", "def broken(:\n")
            yield {(Change.modified, str(source))}
            assert (tools.out / "descriptors" / "renamed.json").exists()  # nothing written
            tools.write("src/tools.py", tool_source(name="renamed"))
            tools.write("pyproject.toml", "[tool.toolgen\n")  # broken config: printed, kept
            yield {(Change.modified, str(config))}
            raise AssertionError("a config change restarts the watch")
        if len(calls) == 2:
            tools.write("pyproject.toml", CONFIG.replace('"src"', '"src", "more"'))
            tools.write("more/extra.py", tool_source(name="extra"))
            yield {(Change.modified, str(config))}
            raise AssertionError("a config change restarts the watch")
        # stop_event set: watchfiles' generator simply ends

    stream = io.StringIO()
    assert watch_build(_watch_args(), stream, watch_fn=fake_watch) == 0
    text = stream.getvalue()
    assert len(calls) == 3
    assert calls[0][0] == (tools.root / "src", config)
    assert calls[2][0] == (tools.root / "src", tools.root / "more", config)  # the new sources
    options = calls[0][1]
    assert (options["debounce"], options["step"]) == (DEBOUNCE_MS, STEP_MS)
    assert isinstance(options["watch_filter"], ChangeFilter)
    assert "src/tools.py:1:12: TG101 [error]" in text
    assert "pyproject.toml:1:14: TG001 [error] invalid TOML" in text
    assert "toolgen: changed: pyproject.toml; building" in text
    assert tools.descriptor("extra")["name"] == "extra"
    assert "Traceback" not in text


def test_ctrl_c_while_watching_exits_0(tools: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tools.root)

    def interrupted(*paths: Path, **options: Any) -> Iterator[set[tuple[Change, str]]]:
        raise KeyboardInterrupt
        yield set()  # a generator, like watchfiles.watch

    stream = io.StringIO()
    assert watch_build(_watch_args(), stream, watch_fn=interrupted) == 0
    assert stream.getvalue().splitlines()[-1].startswith("toolgen: watching src, pyproject.toml")


def test_a_stop_event_ends_the_real_watch(tools: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tools.root)
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    stream = io.StringIO()
    started = time.monotonic()
    assert watch_build(_watch_args("--quiet"), stream, stop_event=stop) == 0
    assert time.monotonic() - started < TIMEOUT
    assert stream.getvalue() == ""  # --quiet: errors only
    assert tools.descriptor("lookup")["name"] == "lookup"


def test_an_unusable_config_at_start_exits_2(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["nowhere"]\n')
    result = run("build", "--watch", cwd=project.root)
    assert result.code == 2
    assert "TG003 [error] source path" in result.out


class Child:
    """`toolgen build --watch` in a child process; its output collected by a thread."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "toolgen", "build", "--watch"],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # a shell without job control starts background jobs with SIGINT ignored; Ctrl-C
            # in a terminal is what is tested, so the child gets the default disposition
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self.lines: list[str] = []
        assert self.process.stdout is not None
        self.reader = threading.Thread(target=self._read, args=(self.process.stdout,))
        self.reader.start()

    def _read(self, pipe: Any) -> None:
        for line in pipe:
            self.lines.append(line)

    @property
    def out(self) -> str:
        return "".join(self.lines)

    def wait_for(self, done: Callable[[], bool], what: str, redo: Callable[[], None]) -> None:
        """Poll `done`; `redo` the edit every few seconds, in case the first one came before
        the watch was set up."""
        deadline = time.monotonic() + TIMEOUT
        next_redo = time.monotonic() + 4
        while not done():
            assert self.process.poll() is None, f"watcher exited:\n{self.out}"
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {TIMEOUT} s; output:\n{self.out}")
            if time.monotonic() > next_redo:
                redo()
                next_redo = time.monotonic() + 4
            time.sleep(0.1)

    def stop(self) -> None:
        """Kill it if it still runs; close its pipes."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=TIMEOUT)
        self.reader.join(timeout=TIMEOUT)
        for pipe in (self.process.stderr, self.process.stdout):
            if pipe is not None:
                pipe.close()


def test_build_watch_sees_a_folder_moved_in_and_away(tools: Project, tmp_path: Path) -> None:
    """The real watcher: a package moved into the sources, then away, is built, then gone."""
    outside, inside = tmp_path / "elsewhere" / "pkg", tools.root / "src" / "pkg"
    outside.mkdir(parents=True)
    (outside / "moved.py").write_text(tool_source(name="moved"))
    descriptor = tools.out / "descriptors" / "moved.json"
    child = Child(tools.root)

    def move(source: Path, target: Path) -> Callable[[], None]:
        def again() -> None:  # in case the first move came before the watch was set up
            target.rename(source)
            source.rename(target)

        source.rename(target)
        return again

    try:
        child.wait_for(lambda: "toolgen: watching" in child.out, "first build", lambda: None)
        time.sleep(0.5)
        child.wait_for(descriptor.is_file, "the moved-in tool built", move(outside, inside))
        child.wait_for(
            lambda: not descriptor.exists(), "the moved-away tool removed", move(inside, outside)
        )
        assert (tools.out / "descriptors" / "lookup.json").is_file()
        assert "Traceback" not in child.out
    finally:
        child.stop()


def test_build_watch_in_a_child_process(tools: Project) -> None:
    child = Child(tools.root)
    descriptors = tools.out / "descriptors"
    try:
        child.wait_for(lambda: "toolgen: watching" in child.out, "first build", lambda: None)
        assert (descriptors / "lookup.json").is_file()

        def edit(text: str) -> Callable[[], None]:
            def write() -> None:
                tools.write("src/more.py", text)

            write()
            return write

        redo = edit(tool_source(name="second"))
        child.wait_for((descriptors / "second.json").is_file, "new descriptor", redo)

        redo = edit("from toolgen import tool\n\n@tool\ndef third(:\n")
        child.wait_for(lambda: "TG101 [error]" in child.out, "syntax error diagnostic", redo)
        time.sleep(0.5)
        assert child.process.poll() is None  # still watching
        assert "src/more.py:4:11: TG101 [error]" in child.out
        assert (descriptors / "second.json").is_file()  # nothing written by the failed build

        redo = edit(tool_source(name="third"))

        def rebuilt() -> bool:  # the new descriptor written and the stale one removed
            return (descriptors / "third.json").is_file() and not (
                descriptors / "second.json"
            ).exists()

        child.wait_for(rebuilt, "rebuild after the fix", redo)

        child.process.send_signal(signal.SIGINT)
        assert child.process.wait(timeout=TIMEOUT) == 0
        child.reader.join(timeout=TIMEOUT)
        assert child.process.stderr is not None
        errors = child.process.stderr.read()
        assert errors == ""
        assert "Traceback" not in child.out
    finally:
        child.stop()


def test_build_watch_follows_an_imported_module_saved_by_replacing_it(project: Project) -> None:
    """The real watcher on a file outside the sources, saved the way many editors save:
    written beside it, then renamed over it (which ends a watch of the file itself)."""
    project.write("models.py", MODELS.format(units='"c", "f"'))
    project.write(
        "src/tools.py", tool_source(params="unit: Unit", imports="from models import Unit")
    )
    descriptor = project.out / "descriptors" / "lookup.json"
    child = Child(project.root)

    def save(units: str) -> Callable[[], None]:
        def again() -> None:
            project.write("models.tmp", MODELS.format(units=units))
            (project.root / "models.tmp").replace(project.root / "models.py")

        again()
        return again

    def enum() -> list[str]:
        return list(json.loads(descriptor.read_text())["parameters"]["properties"]["unit"]["enum"])

    try:
        child.wait_for(lambda: "models.py (Ctrl-C" in child.out, "first build", lambda: None)
        time.sleep(0.5)
        child.wait_for(lambda: enum() == ["c", "k"], "the first save", save('"c", "k"'))
        child.wait_for(lambda: enum() == ["c", "m"], "a second save", save('"c", "m"'))
        assert "Traceback" not in child.out
    finally:
        child.stop()
