"""The console script (`toolgen`, `python -m toolgen`): the fast path, then the command line.

A `toolgen build` or `toolgen check` is first offered to a running `toolgen build --watch` of
the project (`toolgen.watch.protocol.forward`: it has the last build in memory), then answered
from a remembered answer when it still holds (`toolgen.incremental.answers.answer`); only when
neither answers is the command line (`toolgen.cli`) imported. Python start-up and these small
standard-library modules are all such a run pays for: neither argparse, nor the configuration
reader, nor json or hashlib (unless a file must be hashed), nor the compiler. Nothing imports
this module but the console script and `toolgen.__main__`.
"""

from __future__ import annotations

import sys

from toolgen.incremental.answers import answer
from toolgen.watch.protocol import forward

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from collections.abc import Sequence


def run() -> None:
    """The console script (`toolgen`) and `python -m toolgen`."""
    try:
        sys.exit(main(sys.argv[1:], process=True))
    except KeyboardInterrupt:
        sys.exit(130)


def main(argv: Sequence[str], *, process: bool = False) -> int:
    """The exit code of `toolgen ARGV`: from a running `toolgen build --watch` that answers
    (it has everything in memory), else from a remembered answer when it still holds, else
    from the full command line (`toolgen.cli`; with `process`, tuned for a process of its
    own)."""
    code = forward(list(argv))
    if code is None:
        code = answer(list(argv))
    if code is not None:
        return code
    from toolgen import cli

    return cli.run_main(argv) if process else cli.main(argv)
