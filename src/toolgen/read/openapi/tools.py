"""Routes to listed tools: route maps, names, and the `tools/list` entry as the given
FastMCP version serves it (after the component callback and the list-time dereference)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .dereference import dereference, has_ref
from .inputs import input_schema
from .model import BAD_SHAPE, Component, Converted, OpenAPIError, Route, RouteMap
from .outputs import output_schema
from .schemas import node_count

Version = tuple[int, int, int]
# each tool's dereference is bounded; this bounds their sum (a hostile document with many
# routes that each inline a large graph)
MAX_LISTED = 20_000_000
_ANNOTATION_ORDER = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def route_map_for(route: Route, maps: Sequence[RouteMap]) -> RouteMap:
    """`_determine_route_type`: the first map whose methods, pattern (`re.search`) and tags
    (a subset of the route's) match; TOOL otherwise."""
    for m in maps:
        if m.methods == "*" or route.method in m.methods:
            try:
                found = re.search(m.pattern, route.path)
            except re.error:
                found = None
            if found:
                if m.tags and not m.tags <= set(route.tags):
                    continue
                return m
    return RouteMap()


def slugify(text: str) -> str:
    if not text:
        return ""
    slug = re.sub(r"[\s\-\.]+", "_", text)
    slug = re.sub(r"[^a-zA-Z0-9_]", "", slug)
    slug = re.sub(r"_+", "_", slug)
    return slug.strip("_")


def default_name(route: Route, mcp_names: Mapping[str, str], v4: bool) -> str:
    if route.operation_id:
        op = route.operation_id
        name = mcp_names[op] if op in mcp_names else op.split("__")[0]
    else:
        name = route.summary or f"{route.method}_{route.path}"
    slug = slugify(name)
    if not slug and v4:
        slug = slugify(f"{route.method}_{route.path}")
    return slug[:56]


class Names:
    """`_get_unique_name`: `_2`, `_3` for repeats among tools; 4.x skips a suffixed name
    that is already taken and reserves the one it hands out."""

    def __init__(self, v4: bool) -> None:
        self.used: Counter[str] = Counter()
        self.v4 = v4

    def unique(self, name: str) -> str:
        self.used[name] += 1
        if self.used[name] == 1:
            return name
        new = f"{name}_{self.used[name]}"
        if self.v4:
            while new in self.used:
                self.used[name] += 1
                new = f"{name}_{self.used[name]}"
            self.used[new] += 1
        return new


def description(route: Route, version: Version) -> str:
    text = route.description or route.summary or f"Executes {route.method} {route.path}"
    if version < (3, 0, 0):
        # 2.x `format_simple_description`: described path parameters appended
        parts = [text]
        described = [p for p in route.parameters if p.location == "path" and p.description]
        if described:
            parts.append("\n\n**Path Parameters:**")
            parts += [f"\n- **{p.name}**: {p.description}" for p in described]
        text = "\n".join(parts)
    return text


def _annotations(value: dict[str, Any]) -> dict[str, Any]:
    """ToolAnnotations' field order, `None` dropped, other keys after."""
    first = {k: value[k] for k in _ANNOTATION_ORDER if value.get(k) is not None}
    return {
        **first,
        **{k: v for k, v in value.items() if k not in _ANNOTATION_ORDER and v is not None},
    }


def _meta(c: Component, version: Version) -> dict[str, Any] | None:
    meta = dict(c.meta or {})
    tags = sorted(c.tags)
    if version < (3, 0, 0):
        upstream = meta.get("_fastmcp")
        meta["_fastmcp"] = (
            {**upstream, "tags": tags} if isinstance(upstream, dict) else {"tags": tags}
        )
        return meta
    upstream = meta.get("fastmcp")
    public = (
        {k: v for k, v in upstream.items() if not str(k).startswith("_")}
        if isinstance(upstream, dict)
        else {}
    )
    meta["fastmcp"] = {**public, "tags": tags}
    if version >= (4, 0, 0):
        meta = {k: v for k, v in meta.items() if v is not None}
    return meta


def listed(c: Component, version: Version) -> dict[str, Any]:
    """`Tool.to_mcp_tool` through the dereference middleware, in wire key order."""
    entry: dict[str, Any] = {"name": c.name}
    ann = c.annotations if isinstance(c.annotations, dict) else None
    title = c.title or (ann or {}).get("title")
    if not title and version >= (4, 0, 0):
        title = c.name.replace("_", " ").replace("-", " ").title()
    if title:
        entry["title"] = title
    if c.description is not None:
        entry["description"] = c.description
    deref = version >= (3, 0, 0)
    params = c.parameters
    if deref and ("$defs" in params or has_ref(params)):
        params = dereference(params, version)
    entry["inputSchema"] = params
    out = c.output_schema
    if out is not None:
        if deref and ("$defs" in out or has_ref(out)):
            out = dereference(out, version)
        entry["outputSchema"] = out
    if ann is not None:
        entry["annotations"] = _annotations(ann)
    meta = _meta(c, version)
    if meta:
        entry["_meta"] = meta
    return entry


def build(
    routes: list[Route],
    problems: list[str],
    *,
    version: Version,
    route_maps: Sequence[RouteMap],
    route_map_fn: Callable[[Route, str], str | None] | None,
    component_fn: Callable[[Route, Component], None] | None,
    mcp_names: Mapping[str, str],
    tags: frozenset[str],
    validate_output: bool,
) -> Converted:
    v4 = version >= (4, 0, 0)
    names = Names(v4)
    tools: dict[str, Component] = {}
    for route in routes:
        where = f"{route.method} {route.path}"
        chosen = route_map_for(route, route_maps)
        kind = chosen.mcp_type
        if route_map_fn is not None:
            try:
                new = route_map_fn(route, kind)
            except Exception as e:  # FastMCP logs a failing route_map_fn and keeps the type
                problems.append(f"{where}: route_map_fn failed: {e}")
                new = None
            if new is not None:
                kind = new
        if kind != "TOOL":
            continue
        name = default_name(route, mcp_names, v4)
        try:
            params = input_schema(route, version)
            out = output_schema(route, version, validate_output)
        except BAD_SHAPE as e:
            problems.append(f"{where}: {type(e).__name__}: {e}")
            continue
        component = Component(
            name=names.unique(name),
            title=None,
            description=description(route, version),
            parameters=params,
            output_schema=out,
            tags=set(route.tags) | set(chosen.mcp_tags) | set(tags),
        )
        if component_fn is not None:
            try:
                component_fn(route, component)
            except Exception as e:  # FastMCP logs it and lists the tool as it was left
                problems.append(f"{where}: mcp_component_fn failed: {e}")
        tools[component.name] = component
    entries = []
    size = 0
    for c in tools.values():
        try:
            entry = listed(c, version)
        except BAD_SHAPE as e:
            problems.append(f"tool {c.name}: {e}")
            continue
        size += node_count(entry)
        if size > MAX_LISTED:
            raise OpenAPIError(f"the listing would hold more than {MAX_LISTED} schema nodes")
        entries.append(entry)
    return Converted(entries, problems)
