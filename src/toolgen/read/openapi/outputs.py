"""The output schema FastMCP gives an operation's tool: the primary success response's
JSON-like content, converted, wrapped when it is not an object, per version."""

from __future__ import annotations

from .model import JSON, Route
from .schemas import replace_ref_with_defs, to_json_schema

Version = tuple[int, int, int]
_V343 = (3, 4, 3)
_JSON_TYPES = (
    "application/json",
    "application/vnd.api+json",
    "application/hal+json",
    "application/ld+json",
    "text/json",
)


def _pick_schema(content: dict[str, JSON]) -> JSON | None:
    schema = next((content[t] for t in _JSON_TYPES if t in content), None)
    if schema is None and content:
        schema = next(iter(content.values()))
    return schema if schema and isinstance(schema, dict) else None


def _primary_schema(route: Route) -> JSON | None:
    """The schema of the primary success response (200, 201, 202, 204, else any 2xx), by its
    JSON-like content type first."""
    responses = route.responses
    resp = next((responses[c] for c in ("200", "201", "202", "204") if c in responses), None)
    if resp is None:
        resp = next((r for c, r in responses.items() if c.startswith("2")), None)
    if resp is None or not resp.content_schema:
        return None
    return _pick_schema(resp.content_schema)


def _wrap(schema: JSON) -> JSON:
    return {
        "type": "object",
        "properties": {"result": schema},
        "required": ["result"],
        "x-fastmcp-wrap-result": True,
    }


def output_v3(route: Route, version: Version) -> JSON | None:
    schema = _primary_schema(route)
    if schema is None:
        return None
    out = replace_ref_with_defs(schema, v4=False)
    defs = route.response_schemas
    ref = out.get("$ref")
    if isinstance(ref, str) and defs and ref.startswith("#/$defs/") and ref.split("/")[-1] in defs:
        out = replace_ref_with_defs(defs[ref.split("/")[-1]], v4=False)
    # unlike the input schema, the output schema was converted before 3.2.1 too
    convert = route.openapi_version.startswith("3")
    if convert:
        out = to_json_schema(out, route.openapi_version, v4=False, tags=version >= _V343)
    if out.get("type") != "object":
        out = _wrap(out)
    if defs:
        out["$defs"] = {
            n: to_json_schema(
                replace_ref_with_defs(s, v4=False),
                route.openapi_version,
                v4=False,
                tags=version >= _V343,
            )
            if convert
            else replace_ref_with_defs(s, v4=False)
            for n, s in defs.items()
        }
    return out


def output_v4(route: Route) -> JSON | None:
    responses = route.responses
    if not responses:
        return None
    if any(c.startswith("2") and not r.content_schema for c, r in responses.items()):
        return None  # a success without a body cannot promise structured output
    schema = _primary_schema(route)
    if schema is None:
        return None
    out = replace_ref_with_defs(schema, v4=True)
    defs = route.response_schemas
    ref = out.get("$ref")
    if isinstance(ref, str) and defs and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in defs:
            out = replace_ref_with_defs(defs[name], v4=True)
    definitions = {n: replace_ref_with_defs(s, v4=True) for n, s in defs.items()}
    version = route.openapi_version
    if version.startswith("3"):
        out = to_json_schema(out, version, v4=True, remove_write_only=True, definitions=definitions)
    own = out.get("$defs") or {}
    inline = {
        n: replace_ref_with_defs(d, v4=True) if isinstance(d, dict) else d
        for n, d in (own.items() if isinstance(own, dict) else [])
    }
    if out.get("type") != "object":
        out = _wrap(out)
    processed: JSON = {}
    if defs:
        processed = dict(definitions)
        if version.startswith("3"):
            processed = {
                n: to_json_schema(
                    s, version, v4=True, remove_write_only=True, definitions=definitions
                )
                for n, s in processed.items()
            }
    if processed or inline:
        out["$defs"] = {**processed, **inline}
    return out


def output_schema(route: Route, version: Version, validate_output: bool) -> JSON | None:
    out = output_v4(route) if version >= (4, 0, 0) else output_v3(route, version)
    if validate_output or out is None:
        return out
    permissive: JSON = {"type": "object", "additionalProperties": True}
    if out.get("x-fastmcp-wrap-result"):
        permissive["x-fastmcp-wrap-result"] = True
        if version >= (4, 0, 0):
            permissive["properties"] = {"result": {}}
    return permissive
