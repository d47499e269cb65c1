"""The one JSON form of every generated file: UTF-8, 2-space indent, trailing newline.

Serialised by pydantic-core (already loaded for the descriptor model): the same bytes as
`json.dumps(value, indent=2, ensure_ascii=False)` for everything toolgen emits except small
float exponents (`1e-7` rather than `1e-07`), and about nine times faster, which matters at
thousands of tools.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import to_json


def dump_json(value: Any) -> bytes:
    return to_json(value, indent=2) + b"\n"
