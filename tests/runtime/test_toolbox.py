"""`Toolbox`: loading, the envelopes, sync and async calls, and what the runtime must not
depend on."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolgen.layout import JOURNAL, PENDING
from toolgen.runtime import CallContext, Toolbox, ToolResult
from toolgen.runtime.catalog import GeneratedFilesError

REPO = Path(__file__).resolve().parents[2]


def test_load_lists_visible_tools(make_box: Callable[..., Toolbox]) -> None:
    box = make_box()
    assert "read_secret" not in box.names
    assert [t.name for t in box.tools] == box.names
    assert box.names == [t["name"] for t in box.catalog.mcp_tools or ()]


def test_load_the_examples() -> None:
    box = Toolbox.load(REPO / "generated", store="memory://")
    assert "read_private_key" not in box.names and "calculator" in box.names


def test_load_errors(tmp_path: Path, built: Path) -> None:
    with pytest.raises(GeneratedFilesError, match="does not exist; run `toolgen build`"):
        Toolbox.load(tmp_path / "nothing")
    several = tmp_path / "several"
    for name in ("alpha", "beta"):
        shutil.copytree(built / "generated", several / name)
    with pytest.raises(GeneratedFilesError) as caught:
        Toolbox.load(several)
    assert str(caught.value) == f"{several} holds a catalog per server; name one of: alpha, beta"
    assert Toolbox.load(several, catalog="beta", store="memory://").names
    (several / "beta" / PENDING).mkdir()
    (several / "beta" / PENDING / JOURNAL).write_text("{}")
    with pytest.raises(GeneratedFilesError, match="was interrupted before it was complete"):
        Toolbox.load(several, catalog="beta")
    with pytest.raises(ValueError, match="is not a store URL"):
        Toolbox.load(built / "generated", store="postgres://x")


def test_the_three_kinds_of_error(make_box: Callable[..., Toolbox], handlers: Any) -> None:
    box = make_box(max_retries=0)
    fix = box.call("lookup", {}).error
    handlers.FAILS["fetch_quote"] = 5
    later = box.call("fetch_quote", {"symbol": "X"}).error
    person = box.call("publish", {"text": "x"}).error
    kinds = [(e["retryable"], e["human_review"]) for e in (fix, later, person) if e]
    assert kinds == [(False, False), (True, False), (False, True)]


def test_envelopes_and_json() -> None:
    ok = ToolResult("t", True, {"a": "é"}, trace_id="abc")
    assert ok.envelope() == {"status": "ok", "data": {"a": "é"}}
    assert ok.to_json() == '{"status": "ok", "data": {"a": "é"}}'
    error = ToolResult("t", False, error={"code": "X", "trace_id": "abc"}, trace_id="abc")
    assert error.envelope() == {"status": "error", "error": {"code": "X", "trace_id": "abc"}}
    again = ToolResult.from_json("t", error.to_json(), "new")
    assert again.error == {"code": "X", "trace_id": "new"} and again.trace_id == "new"
    with pytest.raises(ValueError):
        ToolResult("t", True, float("nan")).to_json()  # strict JSON only


def test_arguments_as_json_text_and_truncated(make_box: Callable[..., Toolbox]) -> None:
    box = make_box()
    assert box.call("lookup", '{"q": "x"}').data == {"q": "x", "limit": 3}
    truncated = box.call("lookup", '{"q": "x", "lim')
    assert truncated.error is not None and truncated.error["code"] == "VALIDATION_ERROR"


def test_a_given_trace_id_is_kept(make_box: Callable[..., Toolbox]) -> None:
    result = make_box().call("lookup", {"q": "x"}, context=CallContext(trace_id="mine"))
    assert result.trace_id == "mine"


def test_call_works_inside_a_running_loop(make_box: Callable[..., Toolbox]) -> None:
    box = make_box()

    async def inside() -> tuple[ToolResult, ToolResult]:
        plain = box.call("lookup", {"q": "sync"})  # a sync call from async code
        awaited = await box.acall("lookup", {"q": "async"})
        return plain, awaited

    plain, awaited = asyncio.run(inside())
    assert plain.data == {"q": "sync", "limit": 3}
    assert awaited.data == {"q": "async", "limit": 3}


def test_the_runtime_imports_without_the_mcp_sdk_or_the_compiler() -> None:
    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("mcp", "mcp_types", "anyio"):
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, Block())
import toolgen.runtime
from toolgen.runtime.toolbox import Toolbox
banned = ("toolgen.config", "toolgen.read.discover", "toolgen.journal", "toolgen.render",
          "toolgen.analyze", "toolgen.cli", "toolgen.output", "toolgen.compiler")
print(sorted(m for m in sys.modules if m.startswith(banned)))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.replace("'", '"')) == []


def test_threads_calling_at_once_share_one_store_and_one_handler(
    make_box: Callable[..., Toolbox], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What is made once is made under a lock: the first users wait at a barrier inside the
    maker, which only one thread may enter (the barrier then times out and the maker goes on);
    without the lock several would pass it, each making its own."""
    import threading

    import toolgen.runtime.toolbox as toolbox_module

    inside = threading.Barrier(2, timeout=0.5)
    stores: list[Any] = []
    prepared: list[Any] = []

    def once(made: list[Any], make: Callable[..., Any]) -> Callable[..., Any]:
        def maker(*args: Any) -> Any:
            made.append(1)
            try:
                inside.wait()
            except threading.BrokenBarrierError:
                inside.reset()
            return make(*args)

        return maker

    monkeypatch.setattr(toolbox_module, "open_store", once(stores, toolbox_module.open_store))
    monkeypatch.setattr(toolbox_module, "prepare", once(prepared, toolbox_module.prepare))
    box = make_box()
    lookup = box.catalog.descriptors["lookup"]
    start = threading.Barrier(8)
    seen: list[tuple[Any, Any]] = []

    def use() -> None:
        start.wait()
        seen.append((box.store(), box.prepared(lookup)))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (len(stores), len(prepared)) == (1, 1)
    assert len({id(store) for store, _ in seen}) == 1
    assert len({id(handler) for _, handler in seen}) == 1


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("sqlite://runtime.db", "sqlite URLs have no host"),  # two slashes: a host, no path
        ("redis://localhost:port/0", "bad port"),
        ("redis://:secret@localhost/x", "must be a number"),
    ],
)
def test_a_bad_store_url_fails_the_load(built: Path, url: str, says: str) -> None:
    with pytest.raises(ValueError, match=says) as raised:
        Toolbox.load(built / "generated", store=url)
    assert "secret" not in str(raised.value)


def test_store_urls_are_read_at_load_and_opened_at_first_use(built: Path, tmp_path: Path) -> None:
    database = tmp_path / "keys" / "runtime.db"
    box = Toolbox.load(built / "generated", store=f"sqlite:///{database}".replace("///", "////"))
    assert not database.parent.exists() and box._store is None  # read, not opened
    assert Toolbox.load(built / "generated", store="rediss://localhost:6380/0")._store is None


def test_no_timeout_for_tools_that_can_be_given_a_key_names_them_all() -> None:
    """One error that lists every such tool and a mapping that would load, not one per try."""
    with pytest.raises(ValueError) as caught:
        Toolbox.load(REPO / "generated", store="memory://", timeout=None)
    keyed = ["bulk_send_emails", "create_task", "create_ticket", "send_email"]
    message = str(caught.value)
    assert message.startswith(", ".join([*keyed, "send_external_email"]) + " can be given")
    assert "each needs a timeout below in_flight_ttl (300 s)" in message
    mapping = {"*": None, **dict.fromkeys([*keyed, "send_external_email"], 30.0)}
    assert f"(timeout={json.dumps(mapping).replace('null', 'None')}: none for" in message
    assert Toolbox.load(REPO / "generated", store="memory://", timeout=mapping).names
