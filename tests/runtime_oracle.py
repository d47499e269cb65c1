"""The correctness oracle: the parameters schema pydantic builds at run time for a handler.

Only tests import user code, and only fixture code: toolgen itself never does. The oracle mirrors
what the runtime peers do underneath (a pydantic model created from the signature), then drops
what the design says toolgen leaves out (titles).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import create_model

from toolgen.verify_runtime import as_toolgen_closes


def runtime_parameters_schema(
    fn: Callable[..., Any], *, skip_first: bool = False
) -> dict[str, Any]:
    module = sys.modules[fn.__module__]
    params = list(inspect.signature(fn).parameters.values())
    if skip_first:
        params = params[1:]
    fields: dict[str, Any] = {}
    for p in params:
        annotation = p.annotation
        if isinstance(annotation, str):
            annotation = eval(annotation, vars(module))
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (annotation, default)
    schema = create_model(fn.__name__, **fields).model_json_schema()
    return drop_titles(schema)


def drop_titles(value: Any, *, in_properties: bool = False) -> Any:
    if isinstance(value, dict):
        return {
            k: drop_titles(v, in_properties=(k in ("properties", "$defs") and not in_properties))
            for k, v in value.items()
            if in_properties or k != "title"
        }
    if isinstance(value, list):
        return [drop_titles(v) for v in value]
    return value


def closed_as_toolgen_closes(runtime: dict[str, Any]) -> dict[str, Any]:
    """pydantic's schema with its nested objects closed (`additionalProperties: false`) where
    toolgen closes them on purpose (DESIGN §3: a model must not invent arguments, at any
    depth); objects pydantic leaves open (`extra="allow"`, dicts) stay open. The root is left
    as pydantic makes it (`comparable` leaves toolgen's closed root out)."""
    return as_toolgen_closes(runtime)


def comparable(static: dict[str, Any], runtime: dict[str, Any]) -> dict[str, Any]:
    """toolgen's schema minus its deliberate additions, for comparison with `runtime`.

    Deliberate differences (DESIGN §3):
    - the root is closed (`additionalProperties: false`): a model must not invent arguments;
    - every parameter is described, from the docstring when Field(description=...) is absent;
      pydantic knows no docstrings, so those descriptions are compared only where pydantic has one;
    - `properties` is present even when empty and `required` absent when empty, like pydantic.
    """
    out = {k: v for k, v in static.items() if k != "additionalProperties"}
    runtime_props = runtime.get("properties", {})
    props = {}
    for name, schema in static.get("properties", {}).items():
        if "description" not in runtime_props.get(name, {}):
            schema = {k: v for k, v in schema.items() if k != "description"}
        props[name] = schema
    out["properties"] = props
    return out


def framework_listing(
    folder: Path, module: str, preset: str = "fastmcp", attr: str = "mcp"
) -> list[dict[str, Any]]:
    """The `tools/list` a fixture project's server answers, asked of the framework itself:
    `module` imported from `folder` (and forgotten after, with its package, so the next
    fixture of the same name is imported afresh), its server `attr` listed through FastMCP's
    client, or by the MCP SDK's server."""
    import asyncio
    import importlib

    package = module.partition(".")[0]

    def forget() -> None:
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]

    forget()
    sys.path.insert(0, str(folder))
    try:
        server = getattr(importlib.import_module(module), attr)
    finally:
        sys.path.remove(str(folder))
        forget()

    async def listing() -> list[Any]:
        if preset == "fastmcp":
            import fastmcp

            async with fastmcp.Client(server) as client:
                return list(await client.list_tools())
        return list(await server.list_tools())

    tools = asyncio.run(listing())
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
