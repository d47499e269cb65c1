"""What FastMCP's `FastMCP.from_openapi(spec, ...)` publishes in `tools/list`, computed from
the OpenAPI document as plain data (dict, list, str, int, float, bool, None).

Modelled versions, chosen by `version` (each checked differentially against fastmcp
2.14.5, 3.0.0, 3.2.4, 3.4.11 and 4.2.3 on generated documents; the release of each change
was read from FastMCP's history):

- 3.2.1 to 3.4.x: the input schema goes through the OpenAPI to JSON Schema conversion (3.0
  `nullable`, `oneOf` to `anyOf`). From 3.4.3 a name repeated across parameter locations is
  suffixed and a discriminator's tag stays required; from 3.4.8 (assumed: after 3.4.7,
  before 3.4.11) the list-time dereference has size limits;
- 4.x (as 4.2.3): a default `title` from the name, a parameter's `example` copied into its
  schema, `allOf`/`$ref` body merging, discriminator flattening, readOnly/writeOnly scoping,
  3.0 boolean exclusive bounds, no output schema beside a bodiless success response, whole
  `$ref` pointers, a reserved `_2` suffix, `_meta` without `None` values;
- 3.0.0 to 3.2.0: the input schema is not converted (the output schema is, in every
  version); the dereference strips discriminators from 3.2.0, and 3.0.0 cannot list a
  cyclic schema (that tool is a problem here; FastMCP fails the whole listing);
- 2.x (2.14): `_fastmcp` meta, the "**Path Parameters:**" description block, and no
  list-time dereference (`$ref`/`$defs` kept). The legacy parser of 2.13 and older is not
  modelled.

Known approximations: FastMCP validates the whole document with openapi_pydantic and fails
on the first invalid part; here only what the conversion reads is checked, and a route that
cannot be read is skipped and named in `Converted.problems`. Which `$ref` targets are typed
(dumped by openapi_pydantic) or kept as written is decided by the pointer (an `x-` segment
means as written). `$defs` keep document order where FastMCP iterates a set (only visible
when a cycle keeps them). Before 3.4.8 FastMCP inlines a schema of any size; one too big to
inline is a problem here instead.

It never imports fastmcp, openapi_pydantic or the analysed code, never reads files or the
network, and never raises anything but `OpenAPIError`: every walk is bounded in depth and
the dereference in size, so cyclic references or hostile documents end as problems.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .model import (
    MCP_TYPES,
    Component,
    Converted,
    OpenAPIError,
    Parameter,
    RequestBody,
    Response,
    Route,
    RouteMap,
)
from .routes import parse_routes
from .tools import build

__all__ = [
    "MCP_TYPES",
    "Component",
    "Converted",
    "OpenAPIError",
    "Parameter",
    "RequestBody",
    "Response",
    "Route",
    "RouteMap",
    "convert",
    "parse",
]

# the newest behaviour `parse` models when no version is given
_LATEST = (4, 2, 3)


def _guarded_parse(spec: Any, version: tuple[int, int, int], problems: list[str]) -> list[Route]:
    try:
        return parse_routes(spec, v4=version >= (4, 0, 0), problems=problems)
    except OpenAPIError:
        raise
    except (RecursionError, MemoryError) as e:
        raise OpenAPIError(f"the document is too deep or too large: {type(e).__name__}") from None


def parse(spec: dict[str, Any], *, version: tuple[int, int, int] = _LATEST) -> list[Route]:
    """The routes FastMCP's parser makes, in document order. Raises OpenAPIError."""
    return _guarded_parse(spec, version, [])


def convert(
    spec: dict[str, Any],
    *,
    version: tuple[int, int, int],
    route_maps: Sequence[RouteMap] = (),
    route_map_fn: Callable[[Route, str], str | None] | None = None,
    component_fn: Callable[[Route, Component], None] | None = None,
    mcp_names: Mapping[str, str] | None = None,
    tags: frozenset[str] = frozenset(),
    validate_output: bool = True,
) -> Converted:
    """The `tools/list` entries `FastMCP.from_openapi` serves for this document."""
    problems: list[str] = []
    routes = _guarded_parse(spec, version, problems)
    try:
        return build(
            routes,
            problems,
            version=version,
            route_maps=route_maps,
            route_map_fn=route_map_fn,
            component_fn=component_fn,
            mcp_names=mcp_names or {},
            tags=tags,
            validate_output=validate_output,
        )
    except (RecursionError, MemoryError) as e:
        raise OpenAPIError(f"the document is too deep or too large: {type(e).__name__}") from None
