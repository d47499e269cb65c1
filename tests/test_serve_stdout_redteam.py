"""Red team of issue 28's `claimed_stdout`: what a handler writes to fd 1 or 2 never reaches
the wire, even in a server started with stderr closed."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import os
from toolgen.serve_stdout import claimed_stdout
with claimed_stdout() as wire:
    assert wire is not None
    os.write(1, b"stray output\\n")  # a handler's print, a child's output
    os.write(wire, b"the wire\\n")
"""


def test_stray_output_misses_the_wire_when_stderr_is_closed() -> None:
    """With fd 2 closed, a duplicate of fd 1 made the lowest free way is fd 2 itself: fd 1
    was then pointed at the wire again, and every stray write went into the protocol."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        timeout=60,
        check=True,
        preexec_fn=lambda: os.close(2),  # the server started with stderr closed
    )
    assert done.stdout == b"the wire\n"
