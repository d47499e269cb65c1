#!/usr/bin/env python3
"""Benchmark toolgen against the floor and the run-time peer (DESIGN §5, issue 6).

Usage: python benchmarks/run.py [--tools 1000] [--repeat 3] [--big 10000]

Generates the corpora with ../shared/bench/make_corpus.py into a temporary folder, then times
whole processes (interpreter start and imports included, like the reference programs):

- floor: `floor_and_peer.py floor` (ast.parse of every file)
- peer:  `floor_and_peer.py peer` (import the corpus and build each schema with pydantic)
- cold build: `toolgen build` with no generated folder
- no-op check: `toolgen check` right after a build
- one-file rebuild: `toolgen build` after editing one handler file
- with --big N: a cold build of N tools, reported as a multiple of the first corpus's build

Each figure is the best of --repeat runs; peak memory is the build's maximum resident set.
Prints a Markdown table of seconds and ratios.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "bench"


def run(cmd: list[str], cwd: Path) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before)


def best(cmd: list[str], cwd: Path, repeat: int, before: object = None) -> tuple[float, int]:
    times, peaks = [], []
    for _ in range(repeat):
        if callable(before):
            before()
        seconds, peak = run(cmd, cwd)
        times.append(seconds)
        peaks.append(peak)
    return min(times), max(peaks)


def corpus(n: int, folder: Path) -> Path:
    target = folder / f"corpus_{n}"
    subprocess.run(
        [sys.executable, str(SHARED / "make_corpus.py"), str(n), str(target)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--big", type=int, default=0, help="also time a cold build of N tools")
    args = parser.parse_args()
    toolgen = [sys.executable, "-m", "toolgen"]
    reference = [sys.executable, str(SHARED / "floor_and_peer.py")]
    with tempfile.TemporaryDirectory(dir=HERE.parent.parent) as tmp:
        base = corpus(args.tools, Path(tmp))
        out = base / "generated"

        def clean() -> None:
            shutil.rmtree(out, ignore_errors=True)

        floor, _ = best([*reference, "floor", str(base)], base, args.repeat)
        peer, _ = best([*reference, "peer", str(base)], base, 1)
        cold, peak = best([*toolgen, "build", "-q"], base, args.repeat, clean)
        noop, _ = best([*toolgen, "check"], base, args.repeat)
        target = base / "benchpkg" / "tools_0.py"

        def touch() -> None:
            text = target.read_text()
            target.write_text(
                text.replace("catalog 0.", "catalog zero.", 1)
                if "catalog 0." in text
                else text.replace("catalog zero.", "catalog 0.", 1)
            )

        one, _ = best([*toolgen, "build", "-q"], base, args.repeat, touch)
        rows = [
            ("floor (ast.parse)", floor, "1.00x", ""),
            ("peer (pydantic at run time)", peer, f"{peer / floor:.2f}x", ""),
            (
                "cold build",
                cold,
                f"{cold / floor:.2f}x",
                f"{cold / peer:.2f}x peer (bar 3x floor, 0.2x peer)",
            ),
            ("no-op check", noop, f"{noop / floor:.2f}x", "bar 0.5x floor"),
            ("build after editing one file", one, f"{one / floor:.2f}x", "bar 0.75x floor"),
        ]
        print(f"{args.tools} tools, best of {args.repeat}, Python {sys.version.split()[0]}")
        print()
        print("| run | seconds | vs floor | note |")
        print("| --- | ---: | ---: | --- |")
        for name, seconds, ratio, note in rows:
            print(f"| {name} | {seconds:.3f} | {ratio} | {note} |")
        print(f"| peak memory, cold build | {peak / 1024:.0f} MiB | | bar 150 MiB |")
        if args.big:
            big = corpus(args.big, Path(tmp))
            big_cold, big_peak = best([*toolgen, "build", "-q"], big, 1)
            print(
                f"| cold build, {args.big} tools | {big_cold:.3f} | "
                f"{big_cold / cold:.2f}x the {args.tools}-tool build | bar 11x; "
                f"peak {big_peak / 1024:.0f} MiB |"
            )


if __name__ == "__main__":
    main()
