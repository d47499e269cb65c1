"""A key is the same key however the arguments spell it: a UUID the schema types (`format:
uuid`) in any letter case, an integer key written as 5 or 5.0. Any text is a key, a lone
surrogate too, and any result is kept, on every store."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from toolgen.cli import main as toolgen_main
from toolgen.runtime import Toolbox
from toolgen.runtime.result import ToolResult
from toolgen.runtime.steps.idempotency import store_key, stored
from toolgen.runtime.store import Replay, Started

from .stores_support import (  # noqa: F401 - fixtures
    PAY,
    redis_url_fixture,
    store_url_fixture,
)

TOOLS = '''
from uuid import UUID

from toolgen import tool

RUNS: list[str] = []


@tool(risk="medium")
def pay(amount: int, idempotency_key: UUID) -> dict[str, object]:
    """Pay.

    Args:
        amount: Cents.
        idempotency_key: Client-chosen key.

    Idempotency:
        idempotent: false
        safe: false
    """
    RUNS.append("pay")
    return {"amount": amount, "key": str(idempotency_key)}


@tool(risk="medium")
def pay_maybe(amount: int, idempotency_key: UUID | None = None) -> dict[str, object]:
    """Pay, with a key or not.

    Args:
        amount: Cents.
        idempotency_key: Client-chosen key.

    Idempotency:
        idempotent: false
        safe: false
    """
    RUNS.append("pay_maybe")
    return {"amount": amount}


@tool(risk="medium")
def count(amount: int, idempotency_key: int) -> int:
    """Count, keyed by a number.

    Args:
        amount: How much.
        idempotency_key: Client-chosen key.

    Idempotency:
        idempotent: false
        safe: false
    """
    RUNS.append("count")
    return amount
'''


@pytest.fixture(scope="module")
def keyed_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("keyforms")
    (root / "kf_tools").mkdir()
    (root / "kf_tools" / "__init__.py").write_text("")
    (root / "kf_tools" / "tools.py").write_text(TOOLS)
    (root / "pyproject.toml").write_text(
        '[tool.toolgen]\nsources = ["kf_tools"]\nout = "generated"\nplatforms = ["mcp"]\n'
        '[tool.toolgen.rules]\nTG902 = "off"\n'
    )
    assert toolgen_main(["build", "--config", str(root / "pyproject.toml"), "--quiet"]) == 0
    return root


@pytest.fixture
def forms_box(
    keyed_project: Path, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Toolbox, list[str]]]:
    monkeypatch.syspath_prepend(str(keyed_project))
    import kf_tools.tools

    kf_tools.tools.RUNS.clear()
    box = Toolbox.load(keyed_project / "generated", store=store_url, audit=lambda e: None)
    yield box, kf_tools.tools.RUNS
    asyncio.run(box.aclose())


def test_a_uuid_key_in_other_letter_case_is_the_same_key(
    forms_box: tuple[Toolbox, list[str]],
) -> None:
    box, runs = forms_box
    key = uuid.uuid4()
    first = box.call("pay", {"amount": 5, "idempotency_key": str(key).upper()})
    assert first.ok and not first.replayed
    for spelled in (str(key), str(key).upper(), str(key).title()):
        again = box.call("pay", {"amount": 5, "idempotency_key": spelled})
        assert again.ok and again.replayed, spelled
        reused = box.call("pay", {"amount": 6, "idempotency_key": spelled})
        assert reused.error is not None and reused.error["code"] == "IDEMPOTENCY_KEY_REUSED"
    maybe = box.call("pay_maybe", {"amount": 5, "idempotency_key": str(key).upper()})
    assert maybe.ok and not maybe.replayed
    assert box.call("pay_maybe", {"amount": 5, "idempotency_key": str(key)}).replayed
    assert runs == ["pay", "pay_maybe"]
    # other UUIDs are other keys
    assert not box.call("pay", {"amount": 5, "idempotency_key": str(uuid.uuid4())}).replayed


def test_an_integer_key_is_a_key_however_it_is_written(
    forms_box: tuple[Toolbox, list[str]],
) -> None:
    box, runs = forms_box
    key = uuid.uuid4().int % 10**12
    assert box.call("count", {"amount": 3, "idempotency_key": key}).data == 3
    assert box.call("count", {"amount": 3, "idempotency_key": key}).replayed
    assert box.call("count", json.dumps({"amount": 3, "idempotency_key": float(key)})).replayed
    assert runs == ["count"]


def test_a_lone_surrogate_in_a_key_or_a_result_is_kept(
    make_box: Callable[..., Toolbox], store_url: str
) -> None:
    # a key argument that is no Unicode text never reaches the store (validation refuses it),
    # a result holding one (what os.listdir gives for a non-UTF-8 name) is INTERNAL and frees
    # its key; what does reach a store with one (a context's key, say) is kept and read back
    runs: list[str] = []

    def transfer(amount: int, to: str, idempotency_key: str) -> dict[str, object]:
        runs.append(to)
        return {"sent": amount, "to": to + "\udc00"}

    box = make_box(handlers={"transfer": transfer}, store=store_url)
    try:
        tail = uuid.uuid4().hex
        in_key = '{"amount": 5, "to": "acct", "idempotency_key": "\\ud800' + tail + '"}'
        refused = box.call("transfer", in_key, context=PAY)
        assert not refused.ok and refused.error is not None
        assert refused.error["code"] == "VALIDATION_ERROR"
        assert refused.error["fields"][0]["path"] == "/idempotency_key"
        assert runs == []
        in_result = '{"amount": 5, "to": "acct", "idempotency_key": "k-' + tail + '"}'
        for _ in range(2):  # the key is freed each time, never left in flight
            failed = box.call("transfer", in_result, context=PAY)
            assert failed.error is not None and failed.error["code"] == "INTERNAL", failed
        assert runs == ["acct", "acct"]

        async def kept() -> None:
            store = box.store()
            key = store_key("\ud800" + tail, "someone")
            result = ToolResult("transfer", True, {"to": "acct\udc00"}, trace_id="t")
            begun = await store.begin("transfer", key, "fp", 30.0)
            assert isinstance(begun, Started)
            assert await store.finish("transfer", key, begun.token, stored(result), 60.0)
            again = await store.begin("transfer", key, "fp", 30.0)
            assert isinstance(again, Replay)
            assert ToolResult.from_json("transfer", again.result, "t").data == result.data

        asyncio.run(kept())
    finally:
        asyncio.run(box.aclose())
