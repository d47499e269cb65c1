"""The event loop `toolgen serve` runs on: what an async handler does to it costs its own call.

Async handlers run on the server's loop, so two things a handler may do there would end the
server, not the call:

- a task it starts raises `SystemExit` or `KeyboardInterrupt`: asyncio lets either end the
  loop's run from any task. Under `serve` a real Ctrl-C never arrives that way (the runner's
  SIGINT handler cancels the main task instead), so such an exception fails that task alone
  (`runtime.escapes.task_factory`) and reaches whoever awaits it (the handler: its call is
  `INTERNAL`);
- it calls `loop.stop()`: the loop's run would end before the server did. A stop asked from
  inside a task (asyncio's own stop comes from a callback, when the main task is done) is
  ignored, with a line on stderr.
"""

from __future__ import annotations

import asyncio
import logging

from toolgen.runtime.escapes import task_factory

log = logging.getLogger("toolgen.runtime")


class _ServeLoop(asyncio.SelectorEventLoop):
    def stop(self) -> None:
        task = asyncio.current_task(self)
        if task is not None:
            log.error("a handler stopped the event loop (task %r): ignored", task.get_name())
            return
        super().stop()


def new_loop() -> asyncio.AbstractEventLoop:
    """A loop for `anyio.run(..., backend_options={"loop_factory": new_loop})`."""
    loop = _ServeLoop()
    loop.set_task_factory(task_factory)
    return loop
