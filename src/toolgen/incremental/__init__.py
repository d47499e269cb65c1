"""The incremental wing: what toolgen keeps between runs, and when it may reuse it.

What can be reused is answered at one place, the stamp (`stamp.replay`): a run's outcome may be
reused when every file it read still has the same bytes, every path it looked for is still
missing, and `out` holds the same files. Around it:

- `answers` (the console script's fast path) adds only what the configuration was made of (the
  invocation, the config files) and then asks the same stamp; it never decides on its own;
- `units` reuses one source file's compiled and rendered tools while what that file read holds
  (a finer grain of the same question, for a run that must compile);
- `session` keeps the last build in memory in a process that builds again (the watch);
- `spool` keeps a run of its own's rendered bytes on disk; `cache` is the folder it all lives
  in, and `keys` the configuration's key that every entry is filed under.
"""
