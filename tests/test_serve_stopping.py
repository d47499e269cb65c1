"""SIGINT stops `toolgen serve` with exit code 130 even when the MCP SDK's stdin reader is
handing the session a line as its streams close (`serve._stopping`): that reader's
`BrokenResourceError` is part of stopping, not an internal error."""

from __future__ import annotations

import asyncio

import anyio
import pytest

from toolgen.serve import _stopping


def _closed() -> BaseExceptionGroup:
    return BaseExceptionGroup("unhandled errors in a TaskGroup", [anyio.BrokenResourceError()])


def test_a_closed_stream_while_cancelled_goes_on_as_the_cancellation() -> None:
    async def serving() -> None:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()  # what the runner does on SIGINT
        try:
            await asyncio.sleep(1)
        except asyncio.CancelledError:
            _stopping(_closed())

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(serving())


def test_a_closed_stream_while_serving_is_raised_as_it_is() -> None:
    async def serving() -> None:
        _stopping(_closed())

    with pytest.raises(BaseExceptionGroup):
        asyncio.run(serving())


def test_another_error_while_cancelled_is_raised_as_it_is() -> None:
    async def serving() -> None:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        try:
            await asyncio.sleep(1)
        except asyncio.CancelledError:
            group = BaseExceptionGroup("errors", [anyio.BrokenResourceError(), ValueError("x")])
            _stopping(group)

    with pytest.raises(BaseExceptionGroup) as raised:
        asyncio.run(serving())
    assert any(isinstance(e, ValueError) for e in raised.value.exceptions)
