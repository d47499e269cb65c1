"""`python -m toolgen`: the same as the `toolgen` command."""

from toolgen.cli import run

run()
