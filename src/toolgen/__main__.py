"""`python -m toolgen`: the same as the `toolgen` command."""

from toolgen.quick import run

run()
