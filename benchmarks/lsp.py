#!/usr/bin/env python3
"""Benchmark `toolgen lsp`: the time from a change to the diagnostics it publishes (issue 29),
beside the time `toolgen build --watch` takes from a save to the new files on disk.

Usage: python benchmarks/lsp.py [--tools 1000] [--edits 30] [--pause 0.2] [--no-watch]
       python benchmarks/lsp.py --profile [--tools 1000] [--edits 10]

Generates the corpus as benchmarks/run.py does (../shared/bench/make_corpus.py, bytecode
compiled, in a temporary folder beside the repository) and builds it once, so that the
generated folder and the cache folder are there, as in a checkout. Then:

- `toolgen lsp`, started as a process and driven by a small JSON-RPC client over its stdio
  (`Client`): initialize with the corpus as the workspace, open `benchpkg/tools_0.py`, make two
  edits whose diagnostics are waited for, untimed (the first pays for what a first compile of
  an edit imports), then --edits edits, one at a time: each replaces the whole buffer (a
  full-text didChange), alternately adding a parameter the docstring does not describe (a new
  name each time: TG301 names it) and removing it again, so each must publish a set of
  diagnostics not seen before. TG301 is an error, so the handler is left out of the catalog
  and back in at each edit, as happens while one types.
  Each time is from writing the notification to reading the publishDiagnostics that shows the
  edit, on the client; after each answer the client waits --pause before the next edit, so
  each is measured alone. An edit made while no compile runs is compiled at once (the
  server's `DEBOUNCE_S` gathers only the edits made during a compile), so none waits for it.
- with `toolgen build --watch` running (benchmarks/run.py's `watching`): the time from saving
  an edit of a handler's description to the new descriptor on disk, --edits times (watchfiles
  waits for 0.1 s of quiet before it reports a change; that is part of every time).

Prints a Markdown table of each one's median, 90th percentile, least and largest time, with
the floor (`ast.parse` of the corpus in a process of its own, as run.py measures it) before and
after, for how fast the machine was meanwhile.

With --profile, instead: an edit's work in the server, in this process, without the protocol
(`toolgen.lsp.live.Live.compile`, then the server's publication of what it found), warmed by
two edits: the median time of each over --edits edits, then the functions with the most
cumulative and own time over --edits more, under cProfile.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import json
import os
import pstats
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import run  # benchmarks/run.py, beside this file

HERE = Path(__file__).resolve().parent
HANDLER = Path("benchpkg") / "tools_0.py"
#: Where an edit adds its parameter: first in the corpus's first handler.
SIGNATURE = "def tool_0_0(\n"


def edited(original: str, count: int) -> tuple[str, Callable[[list[dict[str, Any]]], bool]]:
    """The `count`th edit (from 1) of the handler file: an odd one adds the parameter
    `extra_<count>`, which no docstring describes; an even one is the file as it was. With it,
    whether a publication's diagnostics show it."""
    if count % 2 == 0:
        return original, lambda found: not any("`extra_" in d["message"] for d in found)
    name = f"extra_{count}"
    text = original.replace(SIGNATURE, f"{SIGNATURE}    {name}: int,\n", 1)
    return text, lambda found: any(f"`{name}`" in d["message"] for d in found)


class Client:
    """Just enough of an LSP client: messages framed with Content-Length over a process's
    stdio. A thread reads what the server sends; each publishDiagnostics is queued with the
    moment its body was read, and a request from the server gets an empty answer."""

    def __init__(self, command: list[str], cwd: Path, log: BinaryIO) -> None:
        self.process = subprocess.Popen(
            command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log
        )
        self.published: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self._answers: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._ids = iter(range(1, 1_000_000))
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def send(self, message: dict[str, Any]) -> float:
        """Write `message`; the moment just before it was written."""
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        frame = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        assert self.process.stdin is not None
        with self._lock:
            start = time.perf_counter()
            self.process.stdin.write(frame)
            self.process.stdin.flush()
        return start

    def notify(self, method: str, params: dict[str, Any] | None = None) -> float:
        return self.send({"method": method, "params": params})

    def request(self, method: str, params: Any, timeout: float = 60) -> Any:
        number = next(self._ids)
        reply: queue.Queue[dict[str, Any]] = queue.Queue()
        self._answers[number] = reply
        self.send({"id": number, "method": method, "params": params})
        return reply.get(timeout=timeout).get("result")

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if line == b"" or length is None:
                return  # the server is gone
            body = stream.read(length)
            arrived = time.perf_counter()
            message = json.loads(body)
            if message.get("method") == "textDocument/publishDiagnostics":
                self.published.put((arrived, message["params"]))
            elif "method" in message and "id" in message:
                self.send({"id": message["id"], "result": None})
            elif "id" in message and message["id"] in self._answers:
                self._answers.pop(message["id"]).put(message)

    def close(self) -> None:
        """Shut the server down as an editor does (killed if it does not exit)."""
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit")
            self.process.wait(timeout=10)
        except (queue.Empty, OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


def answer(client: Client, uri: str, shows: Callable[[list[dict[str, Any]]], bool]) -> float:
    """When the first publication of `uri` that `shows` the edit arrived (60 s at most)."""
    deadline = time.monotonic() + 60
    while True:
        arrived, params = client.published.get(timeout=max(0.0, deadline - time.monotonic()))
        if params["uri"] == uri and shows(params["diagnostics"]):
            return arrived


def lsp_latencies(toolgen: list[str], base: Path, edits: int, pause: float) -> list[float]:
    """Seconds from each edit's didChange to the diagnostics that show it (see the module's
    doc). The server's standard error is shown if it fails."""
    path = (base / HANDLER).resolve()
    uri = path.as_uri()
    original = path.read_text()
    with tempfile.TemporaryFile() as log:
        client = Client([*toolgen, "lsp"], base, log)
        try:
            root = base.resolve().as_uri()
            client.request(
                "initialize",
                {
                    "processId": os.getpid(),
                    "rootUri": root,
                    "capabilities": {},
                    "workspaceFolders": [{"uri": root, "name": base.name}],
                },
            )
            client.notify("initialized", {})
            document = {"uri": uri, "languageId": "python", "version": 1, "text": original}
            client.notify("textDocument/didOpen", {"textDocument": document})
            times: list[float] = []
            for count in range(1, edits + 3):  # the first two: a warm-up edit and its undoing
                text, shows = edited(original, count)
                change = {
                    "textDocument": {"uri": uri, "version": count + 1},
                    "contentChanges": [{"text": text}],
                }
                sent = client.notify("textDocument/didChange", change)
                arrived = answer(client, uri, shows)
                if count > 2:
                    times.append(arrived - sent)
                time.sleep(pause)
                while not client.published.empty():  # none of these answers the next edit
                    client.published.get_nowait()
            return times
        except BaseException:
            log.seek(0)
            sys.stderr.write(log.read().decode(errors="replace")[-4000:])
            raise
        finally:
            client.close()


def built_corpus(toolgen: list[str], tools: int, folder: Path) -> Path:
    """The corpus, built once (its generated folder and cache folder are there)."""
    base = run.corpus(tools, folder)
    subprocess.run([*toolgen, "build", "-q"], cwd=base, check=True, stdout=subprocess.DEVNULL)
    return base


def summary(times: list[float]) -> tuple[float, float, float, float]:
    """Median, 90th percentile, least and largest of `times`."""
    p90 = statistics.quantiles(times, n=10, method="inclusive")[-1] if len(times) > 1 else times[0]
    return statistics.median(times), p90, min(times), max(times)


def rows(
    toolgen: list[str], base: Path, edits: int, pause: float, watch: bool
) -> list[tuple[str, list[float], str]]:
    """(name, times, note) of each measurement, on the built corpus `base`."""
    lsp = lsp_latencies(toolgen, base, edits, pause)
    found = [
        (
            "`toolgen lsp`: change to published diagnostics",
            lsp,
            "bar median 0.15 s",
        ),
        ("... adding an undescribed parameter", lsp[0::2], ""),
        ("... removing it", lsp[1::2], ""),
    ]
    if watch:
        with run.watching(toolgen, base):
            saved = run.watch_latencies(base, run.Editor(base), edits)
        if saved:
            found.append(("`build --watch`: save to new files", saved, "watchfiles waits 0.1 s"))
    return found


def profile(base: Path, edits: int) -> None:
    """An edit's work in the server, in this process (no protocol): `Live.compile`, then the
    publication (`ToolgenServer._publish`: the diagnostics in the protocol's terms, compared
    with what each file shows). Seconds per edit of each, and the top functions of a profile
    of --edits more edits."""
    from toolgen.lsp.live import Live
    from toolgen.lsp.server import ToolgenServer, _rules_page  # a look inside, for a profile

    os.chdir(base)
    live = Live(None, base.resolve())
    server = ToolgenServer(None)
    server.live, server.rules_page = live, _rules_page()
    path = (base / HANDLER).resolve()
    original = path.read_text()
    buffers: dict[Path, str] = {}
    server.buffers = lambda: dict(buffers)  # type: ignore[method-assign]  # no client
    server.text_document_publish_diagnostics = lambda params: None  # type: ignore[method-assign]

    def one(count: int) -> tuple[float, float]:
        buffers[path] = edited(original, count)[0]
        start = time.perf_counter()
        found = live.compile(buffers)
        compiled = time.perf_counter()
        server._publish(found)
        return compiled - start, time.perf_counter() - compiled

    for count in (1, 2):  # the warm-up: what a first edit's compile imports
        one(count)
    compiles, publications = zip(*(one(n) for n in range(3, 3 + edits)), strict=True)
    print(
        f"{edits} edits, median seconds per edit: Live.compile {statistics.median(compiles):.3f}, "
        f"ToolgenServer._publish {statistics.median(publications):.3f}"
    )
    profiler = cProfile.Profile()
    profiler.enable()
    for count in range(3 + edits, 3 + 2 * edits):
        one(count)
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(40)
    stats.sort_stats("tottime").print_stats(25)
    if server.rules_page is not None:
        shutil.rmtree(server.rules_page.parent, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--pause", type=float, default=0.2, help="seconds after each answer")
    parser.add_argument("--no-watch", action="store_true", help="skip `build --watch`")
    parser.add_argument(
        "--profile", action="store_true", help="profile Live.compile in this process instead"
    )
    args = parser.parse_args()
    toolgen = [sys.executable, "-m", "toolgen"]
    package = importlib.util.find_spec("toolgen")
    assert package is not None and package.origin, "install toolgen first (pip install -e .)"
    run.compile_bytecode(Path(package.origin).parent)
    with tempfile.TemporaryDirectory(dir=HERE.parent.parent) as tmp:
        base = built_corpus(toolgen, args.tools, Path(tmp))
        if args.profile:
            profile(base, args.edits)
            return
        floor = [sys.executable, str(run.SHARED / "floor_and_peer.py"), "floor", str(base)]
        before = run.best(floor, base, 3)[0]
        measured = rows(toolgen, base, args.edits, args.pause, not args.no_watch)
        after = run.best(floor, base, 3)[0]
    print(
        f"{args.tools} tools, {args.edits} edits each, Python {sys.version.split()[0]}; "
        f"the floor (ast.parse) took {before:.3f} s before and {after:.3f} s after"
    )
    print()
    print("| run | median (s) | p90 | min | max | note |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name, times, note in measured:
        median, p90, least, most = summary(times)
        print(f"| {name} | {median:.3f} | {p90:.3f} | {least:.3f} | {most:.3f} | {note} |")


if __name__ == "__main__":
    main()
