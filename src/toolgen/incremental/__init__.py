"""The incremental wing: what toolgen keeps between runs, and when it may reuse it."""
