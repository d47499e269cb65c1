"""Red team of issue 28's sync lanes: a timed call whose handler never got going, and a turn
cut short by a Ctrl-C, end as the whole way ends them."""

from __future__ import annotations

import concurrent.futures
import json
import subprocess
import sys

import pytest

from toolgen.runtime import toolbox as toolbox_module

from .descriptors_support import box_of, descriptor

X = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
INTEGER = {"type": "integer"}


def ok(x: int) -> int:
    return x


async def no_wait(seconds: float) -> None:
    return None


@pytest.mark.parametrize("lanes", [True, False])
def test_a_timed_call_whose_thread_never_started_frees_its_share(lanes: bool) -> None:
    """A pool that refuses the handler (shut down by a `close` on another thread, say) costs
    each such call an INTERNAL answer, never one of the tool's `PER_TOOL` threads for good:
    a later call runs, on either way."""
    made = box_of((descriptor("ok", X, INTEGER), ok), timeout=5.0)
    if not lanes:
        made.lane = lambda name: None  # type: ignore[method-assign]
    refusing = concurrent.futures.ThreadPoolExecutor(1)
    refusing.shutdown()
    real = made.workers
    made.sleep = no_wait
    made.workers = lambda: refusing  # type: ignore[method-assign]
    errors = [made.call("ok", {"x": 1}).error for _ in range(toolbox_module.PER_TOOL + 1)]
    assert {error["code"] for error in errors if error is not None} == {"INTERNAL"}
    made.workers = real  # type: ignore[method-assign]
    assert made.call("ok", {"x": 2}).data == 2


SCRIPT = """
import _thread, json, sys, threading, time
sys.path.insert(0, ".")
from tests.runtime.descriptors_support import box_of, descriptor
X = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
release = threading.Event()
def interrupts(x: int) -> int:
    main = threading.main_thread().ident
    while True:  # until the caller's thread waits for this call (the turn's others begun)
        frame = sys._current_frames()[main]
        names = []
        while frame is not None:
            names.append(frame.f_code.co_name)
            frame = frame.f_back
        if "wait" in names and "_answer_here" in names:
            break
        time.sleep(0.001)
    _thread.interrupt_main()  # the caller's thread gets its Ctrl-C once this returns
    return x
def waits(x: int) -> int:
    release.wait(5)
    return x
events = []
made = box_of(
    (descriptor("interrupts", X, {"type": "integer"}), interrupts),
    (descriptor("waits", X, {"type": "integer"}), waits),
    timeout=5.0,
    audit=events.append,
)
calls = [
    {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": '{"x": 3}'}}
    for i, n in enumerate(["interrupts", "waits", "waits"])
]
try:
    made.handle_openai_chat(calls)
except KeyboardInterrupt:
    release.set()
    print(json.dumps([[e["tool"], e["decision"], e.get("reason")] for e in events]))
"""


def test_a_turn_cut_short_by_a_ctrl_c_ends_every_proposed_call_audited() -> None:
    """A sync turn's timed calls are proposed as they begin; a Ctrl-C while the first is
    waited for leaves the others begun: each still ends with an event (the whole way records
    them cancelled). In a process of its own: the Ctrl-C is the main thread's."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=True
    )
    decisions = json.loads(done.stdout)
    proposed = [tool for tool, decision, _ in decisions if decision == "proposed"]
    ended = [tool for tool, decision, _ in decisions if decision != "proposed"]
    assert sorted(proposed) == sorted(ended) == ["interrupts", "waits", "waits"]
    assert [r for t, d, r in decisions if t == "waits" and d == "failed"] == ["cancelled"] * 2
