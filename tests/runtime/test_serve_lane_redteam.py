"""Red team of issue 28's serve lane: a call the server runs on its own thread (a sync
handler, no timeout) never makes the server wait out a retry's backoff or a fallback."""

from __future__ import annotations

import asyncio
from typing import Any

from toolgen._marker import ToolError
from toolgen.serve import Dispatcher

from .descriptors_support import box_of, descriptor

X = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
BUSY = {"code": "BUSY", "description": "busy", "http_status": 503, "retryable": True}


def busy(x: int) -> int:
    raise ToolError("BUSY", "try later", retry_after_ms=20_000)


def test_a_retrys_wait_in_serve_is_awaited_on_the_servers_loop() -> None:
    """The wait before a retry (20 s here, as the error asks) is the server's loop's to
    await: made on its thread it would stop every other request meanwhile. The first call
    reaches the handler, the second would take the short way."""
    made = box_of((descriptor("busy", X, {"type": "integer"}, errors=[BUSY]), busy), max_retries=1)
    waited: list[Any] = []

    async def sleep(seconds: float) -> None:
        waited.append(asyncio.get_running_loop())

    made.sleep = sleep
    made.fallbacks = {}
    server = Dispatcher(made)
    server._entries = {"busy": {"name": "busy"}}

    async def main() -> list[Any]:
        answers = [await server.call_tool("busy", {"x": 1}) for _ in range(2)]
        assert waited and all(loop is asyncio.get_running_loop() for loop in waited)
        return answers

    answers = asyncio.run(main())
    assert [a.model_dump(by_alias=True)["structuredContent"]["error"]["code"] for a in answers] == [
        "BUSY",
        "BUSY",
    ]
    assert len(waited) == 2
