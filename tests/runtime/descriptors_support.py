"""A toolbox over descriptors made in the test (any parameters schema, any handler), without a
build: for schemas no handler signature writes (a hand-edited descriptor, another framework's).

Not a conftest.py (see stores_support.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime import Toolbox
from toolgen.runtime.catalog import Catalog


def descriptor(
    name: str,
    parameters: Mapping[str, Any],
    returns: Mapping[str, Any] | None = None,
    **fields: Any,
) -> ToolDescriptor:
    """A low-risk tool `name` taking `parameters`, returning `returns` (anything if None)."""
    return ToolDescriptor.model_validate(
        {
            "name": name,
            "description": f"The tool {name}.",
            "parameters": dict(parameters),
            "returns": {"description": None, "schema": dict(returns or {})},
            "errors": [],
            "idempotency": {"idempotent": True, "safe": True},
            "examples": [],
            "source": {"module": "nowhere", "qualname": name},
            **fields,
        }
    )


def box_of(*tools: tuple[ToolDescriptor, Callable[..., Any]], **options: Any) -> Toolbox:
    """A toolbox of `tools` ((descriptor, handler) pairs), memory store, no timeout unless
    given."""
    found = {d.name: d for d, _ in tools}
    options.setdefault("store", "memory://")
    options.setdefault("timeout", None)
    return Toolbox(
        Catalog(Path(), found, found, None),
        handlers={d.name: fn for d, fn in tools},
        **options,
    )
