"""`toolgen serve`'s stdout (`toolgen.serve_stdout`): one worker thread per message written,
and fd 1 kept off the wire while serving."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import Any

import anyio
import pytest

from toolgen import serve_stdout
from toolgen.serve_stdout import LineWriter


def test_a_message_is_written_whole_by_one_worker_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    hops: list[Any] = []
    real = anyio.to_thread.run_sync

    async def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
        hops.append(fn)
        return await real(fn, *args, **kwargs)

    monkeypatch.setattr(serve_stdout.anyio.to_thread, "run_sync", counted)
    read, write = os.pipe()
    try:
        writer = LineWriter(write)

        async def send() -> None:
            for message in ('{"id": 1, "name": "café"}', '{"id": 2}'):
                await writer.write(message + "\n")
                await writer.flush()
            await writer.flush()  # nothing pending: no hop, nothing written

        anyio.run(send)
        assert len(hops) == 2
        assert os.read(read, 1000) == '{"id": 1, "name": "café"}\n{"id": 2}\n'.encode()
    finally:
        os.close(read)
        os.close(write)


def test_text_the_wire_cannot_carry_fails_its_flush_as_the_sdks_file_would() -> None:
    read, write = os.pipe()
    try:
        writer = LineWriter(write)

        async def send() -> None:
            await writer.write('{"x": "\ud800"}\n')
            await writer.flush()

        with pytest.raises(UnicodeEncodeError):
            anyio.run(send)
    finally:
        os.close(read)
        os.close(write)


def test_while_serving_fd_1_writes_to_stderr_and_is_given_back() -> None:
    """What a handler prints (to fd 1, as a child process would) misses the wire; the wire
    is fd 1's duplicate; after serving, fd 1 is the wire again."""
    script = textwrap.dedent(
        """
        import os
        from toolgen.serve_stdout import claimed_stdout

        with claimed_stdout() as wire:
            os.write(1, b"stray\\n")
            os.write(wire, b"on the wire\\n")
        os.write(1, b"after\\n")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, check=True, timeout=60
    )
    assert done.stdout == b"on the wire\nafter\n"
    assert done.stderr == b"stray\n"
