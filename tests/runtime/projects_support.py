"""A project of handlers built by `toolgen build` for the run time's tests: one package of
one module, its generated folder beside it, importable while the fixture lasts.

Not a conftest.py (see stores_support.py).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from toolgen.cli import main as toolgen_main


@contextmanager
def built_package(root: Path, package: str, handlers: str, config: str = "") -> Iterator[Path]:
    """`root` holding `package/handlers.py` (the `handlers` source) built into
    `root/generated` (MCP only; `config`: more `[tool.toolgen]` lines), importable from
    `root` until the block ends, when the package is forgotten again."""
    (root / package).mkdir()
    (root / package / "__init__.py").write_text("")
    (root / package / "handlers.py").write_text(handlers)
    (root / "pyproject.toml").write_text(
        f'[tool.toolgen]\nsources = ["{package}"]\nout = "generated"\nplatforms = ["mcp"]\n'
        + config
    )
    assert toolgen_main(["build", "--config", str(root / "pyproject.toml"), "--quiet"]) == 0
    sys.path.insert(0, str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(f"{package}.handlers", None)
        sys.modules.pop(package, None)
