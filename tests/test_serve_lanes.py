"""`toolgen serve`'s short way (`Dispatcher`): a call of a tool with no timeout whose sync
handler is known runs on the server's thread with no hop; whatever the handler raises or
returns, it answers as the hop does. In process, over the hostile handlers of
test_serve_handlers."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from test_serve_handlers import project  # noqa: F401  (the fixture)
from toolgen.runtime import CallContext
from toolgen.serve import Dispatcher, load_toolbox

#: Sync handlers that raise, or return what JSON cannot carry, or echo.
SYNC = [
    "exits",
    "interrupts",
    "closes",
    "bare",
    "cancels",
    "listing",
    "cycle",
    "bytes_error",
    "path_result",
    "echo",
]


def dispatcher(root: Path, timeout: Any, handlers: Any = None) -> Dispatcher:
    box = load_toolbox(
        root / "generated",
        store="memory://",
        timeout=timeout,
        paths=[root / "src"],
        handlers=handlers,
    )
    return Dispatcher(box)


def shown(answer: Any) -> Any:
    """The answer without the trace id an error carries (each call has its own)."""
    dumped = answer.model_dump(by_alias=True, exclude_unset=True)
    error = (dumped.get("structuredContent") or {}).get("error")
    if error is not None:
        error.pop("trace_id")
        dumped.pop("content")  # the same envelope as text
    return dumped


def test_a_known_sync_handler_with_no_timeout_runs_on_the_servers_thread(
    project: Path,  # noqa: F811
) -> None:
    runs: list[int] = []

    def echo(q: str) -> str:
        runs.append(threading.get_ident())
        return q

    here = dispatcher(project, None, {"echo": echo})
    hop = dispatcher(project, 5.0, {"echo": echo})
    context = CallContext(principal="p")

    async def main() -> tuple[list[Any], int]:
        answers = [await here.call_tool("echo", {"q": str(i)}, context) for i in range(3)]
        answers.append(await hop.call_tool("echo", {"q": "3"}, context))
        return answers, threading.get_ident()

    answers, server = asyncio.run(main())
    assert [a.structured_content for a in answers] == [{"result": str(i)} for i in range(4)]
    # the first call reaches the handler (the whole way, a hop); with a timeout, always a hop
    assert [ident == server for ident in runs] == [False, True, True, False]


def test_the_short_way_answers_as_the_hop_does(project: Path) -> None:  # noqa: F811
    here, hop = dispatcher(project, None), dispatcher(project, 5.0)
    context = CallContext(principal="p")
    seen: dict[str, list[Any]] = {}

    async def main() -> None:
        for name in SYNC:
            for box in (here, hop):
                for _ in range(2):  # the second call of `here` takes the short way
                    answer = await box.call_tool(name, {"q": "x"}, context)
                    seen.setdefault(name, []).append(shown(answer))

    asyncio.run(main())
    for name, answers in seen.items():
        assert answers[1:] == answers[:1] * 3, name
    assert seen["echo"][0]["structuredContent"] == {"result": "x"}
    assert seen["exits"][0]["structuredContent"]["error"]["code"] == "INTERNAL"


def test_a_handler_on_the_servers_thread_may_run_a_loop_of_its_own(
    project: Path,  # noqa: F811
) -> None:
    async def twice(q: str) -> str:
        return q * 2

    runs: list[int] = []

    def echo(q: str) -> str:
        runs.append(threading.get_ident())
        return asyncio.run(twice(q))

    here = dispatcher(project, None, {"echo": echo})

    async def main() -> tuple[list[Any], int]:
        answers = [await here.call_tool("echo", {"q": "ab"}) for _ in range(2)]
        # the server's loop is its own again after the call
        await asyncio.sleep(0)
        return answers, threading.get_ident()

    answers, server = asyncio.run(main())
    assert [a.structured_content for a in answers] == [{"result": "abab"}] * 2
    assert runs[1] == server
