"""The one JSON form of every generated file: UTF-8, 2-space indent, trailing newline."""

from __future__ import annotations

import json
from typing import Any


def dump_json(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()
