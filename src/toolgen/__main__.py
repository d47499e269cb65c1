"""`python -m toolgen`: the same as the `toolgen` command."""

from toolgen.entry import run

run()
