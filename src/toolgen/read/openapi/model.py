"""The values the conversion passes around: routes (as FastMCP's `HTTPRoute`), route maps,
the editable tool, the result, and the one error `parse`/`convert` may raise."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

JSON = dict[str, Any]


class OpenAPIError(Exception):
    """The document cannot be read at all (the message says why)."""


class RouteError(Exception):
    """One route cannot be converted; `convert` lists it as a problem and skips the route."""


# What reading a part of a malformed document can raise: that part is a problem, as FastMCP
# logs and skips an operation whose processing raises.
BAD_SHAPE = (
    RouteError,
    RecursionError,
    TypeError,
    AttributeError,
    KeyError,
    ValueError,
    IndexError,
)


@dataclass(frozen=True)
class Parameter:
    """FastMCP's `ParameterInfo` (its schema attribute is `schema_` there too)."""

    name: str
    location: str  # path, query, header or cookie
    required: bool
    schema_: JSON
    description: str | None = None


@dataclass(frozen=True)
class RequestBody:
    """FastMCP's `RequestBodyInfo`: one schema per media type, in document order."""

    required: bool
    description: str | None
    content_schema: dict[str, JSON]


@dataclass(frozen=True)
class Response:
    """FastMCP's `ResponseInfo`."""

    description: str | None
    content_schema: dict[str, JSON]


@dataclass(frozen=True)
class Route:
    """One operation, with the attribute names of FastMCP's `HTTPRoute`."""

    path: str
    method: str  # upper case
    operation_id: str | None
    summary: str | None
    description: str | None
    tags: list[str]
    extensions: dict[str, Any]  # the operation's x-* keys
    parameters: list[Parameter]
    request_body: RequestBody | None
    responses: dict[str, Response]
    request_schemas: dict[str, JSON]
    response_schemas: dict[str, JSON]
    openapi_version: str


MCP_TYPES = ("TOOL", "RESOURCE", "RESOURCE_TEMPLATE", "EXCLUDE")


@dataclass(frozen=True)
class RouteMap:
    """FastMCP's `RouteMap`; `mcp_type` is one of `MCP_TYPES`."""

    methods: Literal["*"] | tuple[str, ...] = "*"
    pattern: str = r".*"
    tags: frozenset[str] = frozenset()
    mcp_type: str = "TOOL"
    mcp_tags: frozenset[str] = frozenset()


@dataclass
class Component:
    """The tool a `mcp_component_fn` may edit (the fields of FastMCP's `OpenAPITool`)."""

    name: str
    title: str | None
    description: str | None
    parameters: JSON  # the input schema
    output_schema: JSON | None
    tags: set[str] = field(default_factory=set)
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None


@dataclass
class Converted:
    """`tools/list` entries in wire form, and one problem per route that was skipped."""

    tools: list[dict[str, Any]]
    problems: list[str]
