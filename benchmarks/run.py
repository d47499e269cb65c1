#!/usr/bin/env python3
"""Benchmark toolgen against the floor and the run-time peer (DESIGN §5, issue 6).

Usage: python benchmarks/run.py [--tools 1000] [--repeat 3] [--big 10000] [--no-watch] [--lsp]
       python benchmarks/run.py --runtime [--repeat 3] [--peers]
       python benchmarks/run.py --literal [--repeat 3]
       python benchmarks/lsp.py [--tools 1000] [--edits 30] [--no-watch] [--profile]

Generates the corpora with ../shared/bench/make_corpus.py into a temporary folder beside the
repository (/tmp is slow to create files on some machines), then times whole processes
(interpreter start and imports included, like the reference programs):

- floor: `floor_and_peer.py floor` (ast.parse of every file)
- peer:  `floor_and_peer.py peer` (import the corpus and build each schema with pydantic)
- cold build: `toolgen build` with no generated folder and no cache folder (the last build's
  are moved aside, not deleted: see `cold_start`); and, last of all, the same right after
  deleting them, which on some file systems costs more than the build (no bar)
- no-op check: `toolgen check` right after a build (answered from the cache's stamp; the
  files just written are hashed), and again once they are older than the stamp's 2 s racy
  window (then their `stat` is trusted)
- one-file rebuild: `toolgen build` after a new edit of one handler file (each run edits a
  handler's description to text never seen before, so the cache cannot have it)
- with `toolgen build --watch` running: the same one-file rebuild, which the watch answers
  (`toolgen.watch.socket_server`), and the time from saving an edit to the new descriptor on disk
  with no command run at all (watchfiles waits for 0.1 s of quiet before it reports a change)
- with --lsp: `toolgen lsp`'s time from a change (an unsaved edit) to the diagnostics it
  publishes, the median of 30 edits (benchmarks/lsp.py, which prints its spread, the same
  beside `build --watch`, and with --profile where a compile's time goes)
- with --big N: a cold build of N tools, reported as a multiple of the first corpus's build,
  and a cold build of one module of about 5 MB (400 handlers), each with its peak memory
- then the run time's table (benchmarks/runtime_calls.py; --runtime: only it, --no-runtime:
  without it): `box.acall` and `box.call` of a small tool and of a realistic one against
  `pydantic.validate_call`, and keyed calls per second with the memory, sqlite and redis
  stores; with --runtime --peers, after it the peers side by side (the shared harness
  ../shared/bench/peers/run.py: one call of `add` and of `create_ticket` through each
  framework's own way, a turn of 8 calls, MCP over stdio, interleaved)
- with --literal, instead of all the above: cold builds of a handler with a `Literal` of 10,000
  values and of one with 100,000 (the bar: at most 10 times as long), and of a handler with a
  list default of 500,000 elements, with its peak memory beside that of `ast.parse` of the same
  file on its own (the floor of any static reader)

Bytecode is compiled first, for toolgen and for the corpus (what `pip install` and a first run
leave behind), so that no run pays for compiling source: this matters where
PYTHONDONTWRITEBYTECODE is set, as on the machines we measure on. Each time is the best of
--repeat runs; memory is the largest resident set of any one toolgen
process (from wait4, per process). Prints a Markdown table of seconds and ratios: against the
floor measured first, and against the floor measured again right after each run (the speed
of the machines we measure on drifts by more than a third within a minute).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import runtime_calls  # benchmarks/runtime_calls.py, beside this file

HERE = Path(__file__).resolve().parent
#: The project's shared folder beside the repository, or beside a folder of worktrees
SHARED = next(
    (p / "shared" / "bench" for p in HERE.parents[1:] if (p / "shared" / "bench").is_dir()),
    HERE.parent.parent / "shared" / "bench",
)
CACHE = ".toolgen_cache"


def run(cmd: list[str], cwd: Path) -> tuple[float, int]:
    """Seconds and peak resident set (KiB) of one child process."""
    start = time.perf_counter()
    child = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = 0  # reaped by wait4; keep Popen from waiting again
    return elapsed, usage.ru_maxrss


def best(
    cmd: list[str],
    cwd: Path,
    repeat: int,
    before: Callable[[], None] | None = None,
    after: Callable[[], None] | None = None,
) -> tuple[float, int]:
    times, peaks = [], []
    for _ in range(repeat):
        if before is not None:
            before()
        seconds, peak = run(cmd, cwd)
        times.append(seconds)
        peaks.append(peak)
        if after is not None:
            after()
    return min(times), max(peaks)


def corpus(n: int, folder: Path) -> Path:
    target = folder / f"corpus_{n}"
    subprocess.run(
        [sys.executable, str(SHARED / "make_corpus.py"), str(n), str(target)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    compile_bytecode(target)
    return target


def compile_bytecode(folder: Path) -> None:
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True)


#: How many edits `--lsp` times (each measured alone: benchmarks/lsp.py).
LSP_EDITS = 30

#: The peers harness's sections of the run time: one call, a model turn, MCP over stdio.
SECTIONS = "runtime,adapters,mcp"


def peers(checkout: Path) -> None:
    """The run time beside openai-agents, pydantic-ai, LangChain, FastMCP and the MCP SDK,
    the same handlers (a flat `add`, a realistic `create_ticket`) through each, interleaved:
    the shared harness's sections 1-3, its tables printed as they are."""
    harness = SHARED / "peers" / "run.py"
    if not harness.is_file():
        print(f"\n(no peers: {harness} is not there)")
        return
    print()
    sys.stdout.flush()
    with tempfile.TemporaryDirectory(dir=checkout.parent) as work:
        subprocess.run(
            [sys.executable, str(harness), str(checkout), "--only", SECTIONS, "--work", work],
            check=True,
        )


def cold_start(base: Path, aside: Path | None = None) -> Callable[[], None]:
    """Before each cold build: no generated folder and no cache folder. With `aside`, the last
    build's are moved into it (deleted with the temporary folder, after the timings), not
    deleted: on a file system without a journal (this machine's ext4), creating a file within
    minutes of deleting thousands costs up to half a millisecond, as the kernel's inode
    allocator steps over each recently freed inode (`recently_deleted` in fs/ext4/ialloc.c),
    and a timed build would pay for the benchmark's own clean-up."""
    runs = iter(range(1_000_000))

    def clean() -> None:
        for folder in (base / "generated", base / CACHE):
            if aside is None:
                shutil.rmtree(folder, ignore_errors=True)
            elif folder.exists():
                target = aside / f"{next(runs)}"
                target.mkdir(parents=True)
                folder.rename(target / folder.name)

    return clean


def creation_speed(folder: Path, count: int = 300) -> float:
    """Microseconds to create an empty file in `folder` (the files are left there, to go with
    the temporary folder): well above 50, files deleted in the last minutes are slowing the
    file system's allocator (`cold_start`), and every build here pays for them."""
    folder.mkdir()
    start = time.perf_counter()
    for n in range(count):
        os.close(os.open(folder / str(n), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    return (time.perf_counter() - start) / count * 1e6


class Editor:
    """Edits one handler's description to a text never used before."""

    def __init__(self, base: Path) -> None:
        self.target = base / "benchpkg" / "tools_0.py"
        self.original = self.target.read_text()
        self.count = 0

    def __call__(self) -> None:
        self.count += 1
        marker = f"catalog 0 (edit {self.count}, {time.time_ns()})."
        self.target.write_text(self.original.replace("catalog 0.", marker, 1))


@contextlib.contextmanager
def watching(toolgen: list[str], base: Path) -> Iterator[None]:
    """`toolgen build --watch` running in `base`, armed (its first build done), until the
    block ends."""
    child = subprocess.Popen(
        [*toolgen, "build", "--watch", "-q"],
        cwd=base,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not (base / CACHE / "watch.sock").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1)  # the first build (an up-to-date stamp), then the watch is armed
        yield
    finally:
        child.send_signal(signal.SIGINT)
        child.wait(timeout=20)


def with_watch(
    toolgen: list[str], base: Path, edit: Editor, repeat: int
) -> tuple[float, int, float | None]:
    """With `build --watch` running: the best seconds and the peak memory of a one-file
    `toolgen build` (answered by the watch), and the best seconds from an edit to the
    rewritten descriptor (None if no edit was picked up)."""
    with watching(toolgen, base):

        def settle() -> None:  # the watch sees the edit too, after the build: let it pass
            time.sleep(0.5)

        answered = best([*toolgen, "build", "-q"], base, repeat, edit, settle)
        latencies = watch_latencies(base, edit, repeat)
        return (*answered, min(latencies) if latencies else None)


def watch_latencies(base: Path, edit: Editor, edits: int) -> list[float]:
    """Seconds from each edit to the rewritten descriptor, with `build --watch` running. An
    edit that is not picked up within 5 s (the watch was not armed yet) is made again."""
    descriptor = base / "generated" / "descriptors" / "tool_0_0.json"
    results: list[float] = []
    deadline = time.monotonic() + 60 + 10 * edits
    while len(results) < edits and time.monotonic() < deadline:
        before = descriptor.read_bytes()
        edit()
        start = time.perf_counter()
        while descriptor.read_bytes() == before and time.perf_counter() - start < 5:
            time.sleep(0.002)
        if descriptor.read_bytes() != before:
            results.append(time.perf_counter() - start)
        time.sleep(0.5)
    return results


def big_module(folder: Path) -> Path:
    """A project of one module of about 5 MB: 400 handlers, each with a 12 kB docstring."""
    root = folder / "bigmodule"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n'
    )
    filler = "Handles one more case of the catalog lookup in the same careful way. " * 180
    handlers = [
        f"@tool\ndef lookup_{i:03}(query: str, page: int = 1) -> str:\n"
        f'    """Look something up in the catalog. Use it for product questions.\n\n'
        f"    {filler}\n\n    Args:\n        query: The query.\n        page: The page.\n"
        f'    """\n    raise NotImplementedError\n'
        for i in range(400)
    ]
    source = "from toolgen import tool\n\n\n" + "\n\n".join(handlers)
    (root / "src" / "big.py").write_text(source)
    return root


def hostile_project(folder: Path, name: str, params: str) -> Path:
    """A project of one handler with `params`, in a module of its own."""
    root = folder / name
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n'
    )
    (root / "src" / "tools.py").write_text(
        "from typing import Literal\n\nfrom toolgen import tool\n\n\n"
        f"@tool\ndef pick({params}) -> str:\n"
        '    """Pick a value from the catalog. Use it for product questions.\n\n'
        f"    Args:\n        {params.split(':')[0]}: The value.\n"
        '    """\n    raise NotImplementedError\n'
    )
    return root


def literal_rows(toolgen: list[str], folder: Path, repeat: int) -> None:
    """Print the --literal table: large literals build in time that grows with their size."""
    rows: list[tuple[str, float, int, str]] = []
    seconds: dict[int, float] = {}
    for count in (10_000, 100_000):
        values = ", ".join(f'"value_{i}"' for i in range(count))
        base = hostile_project(folder, f"literal_{count}", f"choice: Literal[{values}]")
        seconds[count], peak = best([*toolgen, "build", "-q"], base, repeat, cold_start(base))
        note = (
            f"{seconds[count] / seconds[10_000]:.2f}x the 10,000 (bar 10x)"
            if count > 10_000
            else ""
        )
        rows.append((f"cold build, a `Literal` of {count:,} values", seconds[count], peak, note))
    elements = ", ".join(str(i) for i in range(500_000))
    base = hostile_project(folder, "default_500000", f"ids: list[int] = [{elements}]")
    took, peak = best([*toolgen, "build", "-q"], base, repeat, cold_start(base))
    parse = [sys.executable, "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())"]
    _, floor_peak = best([*parse, str(base / "src" / "tools.py")], base, repeat)
    note = f"{peak / floor_peak:.2f}x the peak of `ast.parse` alone ({floor_peak / 1024:.0f} MiB)"
    rows.append(("cold build, a list default of 500,000 elements", took, peak, note))
    print(f"best of {repeat}, Python {sys.version.split()[0]}")
    print()
    print("| run | seconds | peak memory | note |")
    print("| --- | ---: | ---: | --- |")
    for name, secs, kib, note in rows:
        print(f"| {name} | {secs:.3f} | {kib / 1024:.0f} MiB | {note} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--big",
        type=int,
        default=0,
        help="also time a cold build of N tools, and of one 5 MB module",
    )
    parser.add_argument("--no-watch", action="store_true", help="skip the --watch runs")
    parser.add_argument(
        "--lsp",
        action="store_true",
        help="also time `toolgen lsp`: a change to its published diagnostics (benchmarks/lsp.py)",
    )
    parser.add_argument(
        "--runtime",
        action="store_true",
        help="only the run time's table (benchmarks/runtime_calls.py): box.call against "
        "pydantic.validate_call, keyed calls per second per store",
    )
    parser.add_argument("--no-runtime", action="store_true", help="skip the run time's table")
    parser.add_argument(
        "--peers",
        action="store_true",
        help="with --runtime: then the peers side by side, in one interleaved run "
        "(../shared/bench/peers/run.py on this checkout: one call, a turn of 8 calls, MCP over "
        "stdio; it needs the peers installed: pip install -e '.[dev,serve,redis]' langgraph)",
    )
    parser.add_argument(
        "--literal",
        action="store_true",
        help="only time large literals: a Literal of 10,000 and of 100,000 values, a 500,000-"
        "element default",
    )
    args = parser.parse_args()
    toolgen = [sys.executable, "-m", "toolgen"]
    reference = [sys.executable, str(SHARED / "floor_and_peer.py")]
    package = importlib.util.find_spec("toolgen")
    assert package is not None and package.origin, "install toolgen first (pip install -e .)"
    compile_bytecode(Path(package.origin).parent)
    if args.literal:
        with tempfile.TemporaryDirectory() as tmp:  # three files each: /tmp is fine
            literal_rows(toolgen, Path(tmp), args.repeat)
        return
    if args.runtime:
        runtime_calls.print_table(runtime_calls.rows(2000, args.repeat))
        if args.peers:
            peers(HERE.parent)
        return
    with tempfile.TemporaryDirectory(dir=HERE.parent.parent) as tmp:
        base = corpus(args.tools, Path(tmp))

        def floor_now() -> float:
            """The floor again: this machine's speed drifts within a minute."""
            return best([*reference, "floor", str(base)], base, args.repeat)[0]

        floor = floor_now()
        peer, _ = best([*reference, "peer", str(base)], base, 1)
        creating = creation_speed(Path(tmp) / "probe")
        aside = Path(tmp) / "set-aside"
        cold, cold_peak = best(
            [*toolgen, "build", "-q"], base, args.repeat, cold_start(base, aside)
        )
        floors = {"cold": floor_now()}
        noop, noop_peak = best([*toolgen, "check"], base, args.repeat)
        floors["noop"] = floor_now()
        time.sleep(2.5)  # files older than the stamp's 2 s racy window are trusted by stat
        run([*toolgen, "check"], base)  # ...once a check has hashed them and stamped afresh
        settled, _ = best([*toolgen, "check"], base, args.repeat)
        floors["settled"] = floor_now()
        edit = Editor(base)  # one editor: it keeps the file's first text
        one, one_peak = best([*toolgen, "build", "-q"], base, args.repeat, edit)
        floors["one"] = floor_now()
        watched = None if args.no_watch else with_watch(toolgen, base, edit, args.repeat)
        floors["watch"] = floor_now()
        edits = None
        if args.lsp:
            import lsp  # benchmarks/lsp.py, beside this file

            edits = lsp.summary(lsp.lsp_latencies(toolgen, base, LSP_EDITS, 0.2))
            floors["lsp"] = floor_now()
        peak = max(cold_peak, noop_peak, one_peak, watched[1] if watched else 0)

        def ratios(seconds: float, key: str) -> str:
            """Against the first floor, and against the floor measured right after."""
            return f"{seconds / floor:.2f}x | {seconds / floors[key]:.2f}x ({floors[key]:.3f})"

        rows = [
            ("floor (ast.parse)", floor, "1.00x | 1.00x", ""),
            ("peer (pydantic at run time)", peer, f"{peer / floor:.2f}x | ", ""),
            (
                "cold build",
                cold,
                ratios(cold, "cold"),
                f"{cold / peer:.2f}x peer (bar 3x floor, 0.2x peer)",
            ),
            ("no-op check, right after the build", noop, ratios(noop, "noop"), "bar 0.5x floor"),
            ("no-op check, files settled", settled, ratios(settled, "settled"), "bar 0.5x floor"),
            ("build after editing one file", one, ratios(one, "one"), "bar 0.75x floor"),
        ]
        if watched is not None:
            answered, _, latency = watched
            rows.append(
                (
                    "build after editing one file, `build --watch` running",
                    answered,
                    ratios(answered, "watch"),
                    "bar 0.75x floor; answered by the watch",
                )
            )
            if latency is not None:
                rows.append(
                    ("`build --watch`: save to new files", latency, ratios(latency, "watch"), "")
                )
        if edits is not None:
            median, p90, least, most = edits
            rows.append(
                (
                    f"`toolgen lsp`: change to published diagnostics, median of {LSP_EDITS}",
                    median,
                    ratios(median, "lsp"),
                    f"bar 0.15 s; p90 {p90:.3f}, min {least:.3f}, max {most:.3f}",
                )
            )
        print(
            f"{args.tools} tools, best of {args.repeat}, Python {sys.version.split()[0]}; "
            f"creating a file took {creating:.0f} µs before the cold builds"
            + (" (slowed by recent deletions: see `cold_start`)" if creating > 50 else "")
        )
        print()
        print("| run | seconds | vs floor | vs the floor measured next (s) | note |")
        print("| --- | ---: | ---: | ---: | --- |")
        for name, seconds, ratio, note in rows:
            print(f"| {name} | {seconds:.3f} | {ratio} | {note} |")
        print(f"| peak memory (any one run above) | {peak / 1024:.0f} MiB | | | bar 150 MiB |")
        if args.big:
            big = corpus(args.big, Path(tmp))
            big_cold, big_peak = best([*toolgen, "build", "-q"], big, 1)
            print(
                f"| cold build, {args.big} tools | {big_cold:.3f} | "
                f"{big_cold / cold:.2f}x the {args.tools}-tool build | | bar 11x; "
                f"peak {big_peak / 1024:.0f} MiB (bar 150 MiB) |"
            )
            module = big_module(Path(tmp))
            module_cold, module_peak = best([*toolgen, "build", "-q"], module, 1)
            print(
                f"| cold build, one 5 MB module (400 handlers) | {module_cold:.3f} | | | "
                f"peak {module_peak / 1024:.0f} MiB (bar 150 MiB) |"
            )
        # last, as its deletions slow the creation of files for minutes after (`cold_start`)
        deleted, _ = best([*toolgen, "build", "-q"], base, args.repeat, cold_start(base))
        print(
            f"| cold build, right after deleting the last build's files | {deleted:.3f} | "
            f"{deleted / floor:.2f}x | | {deleted / peer:.2f}x peer; no bar: what this "
            "machine's file system adds (see `cold_start`) |"
        )
    if not args.no_runtime:
        print()
        runtime_calls.print_table(runtime_calls.rows(2000, args.repeat))


if __name__ == "__main__":
    main()
