"""`toolgen check --verify-runtime`: compare the static parameters schema with pydantic's.

Handlers are imported in a child process (`toolgen._verify_runtime_child`), never in toolgen's own,
so user code cannot disturb the run. Every difference becomes a diagnostic located at the
handler, naming the JSON pointer where the static and run-time views part.

Compared after the normalisation the design calls deliberate: titles dropped on pydantic's
side, and its nested objects closed as toolgen closes them (`schema_ops.closed_objects`); on
toolgen's side the closed root (`additionalProperties: false`) and descriptions that came from
the docstring (pydantic cannot see docstrings) are left out.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from toolgen.config import Config
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import Diagnostic, Location
from toolgen.schema_ops import closed_objects, drop_titles

#: How long the child process may take to import every handler module.
TIMEOUT_SECONDS = 300


def verify_runtime(
    config: Config,
    descriptors: Sequence[ToolDescriptor],
    locations: dict[str, Location],
    search_paths: list[str],
) -> list[Diagnostic]:
    request = {
        "paths": search_paths,
        "skip_params": list(config.skip_params),
        "tools": [
            {"name": d.name, "module": d.source.module, "qualname": d.source.qualname}
            for d in descriptors
        ],
    }
    try:
        done = subprocess.run(
            [sys.executable, "-m", "toolgen._verify_runtime_child"],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            cwd=config.root,
            check=False,
        )
        answer: dict[str, Any] = json.loads(done.stdout or "{}")
    except (subprocess.TimeoutExpired, ValueError, OSError) as exc:
        return [Diagnostic("TG702", f"--verify-runtime could not run the handlers: {exc}")]
    if done.returncode != 0 and not answer:
        tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return [Diagnostic("TG702", f"--verify-runtime child process failed: {tail[0]}")]
    found: list[Diagnostic] = []
    for descriptor in descriptors:
        where = locations.get(descriptor.name)
        result = answer.get(descriptor.name, {"error": "no answer"})
        if "error" in result:
            found.append(
                Diagnostic(
                    "TG702",
                    f"tool {descriptor.name}: not verified at run time ({result['error']})",
                    where,
                )
            )
            continue
        runtime = as_toolgen_closes(drop_titles(result["schema"]))
        static = static_view(descriptor.parameters, runtime)
        for pointer, mine, theirs in differences(static, runtime):
            found.append(
                Diagnostic(
                    "TG701",
                    f"tool {descriptor.name} {pointer or '/'}: static schema "
                    f"{_short(mine)} differs from pydantic at run time {_short(theirs)}",
                    where,
                )
            )
    return found


def as_toolgen_closes(runtime: dict[str, Any]) -> dict[str, Any]:
    """pydantic's schema with its nested objects closed as toolgen closes them (its root is
    compared without `additionalProperties`, on both sides): an object pydantic leaves open
    (`extra="allow"`, a dict) stays open, so a difference there is still seen."""
    closed: dict[str, Any] = closed_objects(runtime)
    if "additionalProperties" not in runtime:
        closed.pop("additionalProperties", None)
    return closed


def static_view(static: dict[str, Any], runtime: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in static.items() if k != "additionalProperties"}
    runtime_props = runtime.get("properties", {})
    out["properties"] = {
        name: schema
        if "description" in runtime_props.get(name, {})
        else {k: v for k, v in schema.items() if k != "description"}
        for name, schema in static.get("properties", {}).items()
    }
    return out


MISSING = object()


def differences(a: Any, b: Any, pointer: str = "") -> list[tuple[str, Any, Any]]:
    """Where `a` and `b` differ, as (JSON pointer, a's value, b's value), deepest first."""
    if isinstance(a, dict) and isinstance(b, dict):
        found: list[tuple[str, Any, Any]] = []
        for key in [*a, *(k for k in b if k not in a)]:
            found += differences(a.get(key, MISSING), b.get(key, MISSING), f"{pointer}/{key}")
        return found
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in differences(x, y, f"{pointer}/{i}")
        ]
    return [] if a == b else [(pointer, a, b)]


def _short(value: Any) -> str:
    if value is MISSING:
        return "(absent)"
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."
