"""The reading stage: what toolgen reads of a project, never importing or running it.

- `discover`: the source files the configuration names;
- `files`: a source file's bytes, to a cap, and its text in the codec Python would use;
- `newer`: syntax newer than the running Python, read all the same;
- `index`: every module parsed once with `ast`, its top-level names bound, imports followed.
"""
