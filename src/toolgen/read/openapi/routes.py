"""The document to routes, as FastMCP's `parse_openapi_to_http_routes` makes them.

FastMCP validates the document with openapi_pydantic and dumps every schema back with
`model_dump(mode="json", by_alias=True, exclude_none=True)`; `dump` reproduces that dump on
plain data: the model's field order (extensions last), `None` values dropped, numbers
coerced (`minimum: 1` becomes `1.0`), and a `$ref` object dumped as a Reference whose other
keys are copied as written."""

from __future__ import annotations

import math
from typing import Any

from .model import (
    BAD_SHAPE,
    JSON,
    OpenAPIError,
    Parameter,
    RequestBody,
    Response,
    Route,
    RouteError,
)
from .schemas import (
    NonLocalRef,
    component_name,
    deeper,
    discriminator_target,
    node_count,
    replace_ref_with_defs,
)

# Nodes the reading may visit in all: a small document whose schemas are referenced from
# everywhere cannot make the conversion run for hours.
MAX_WORK = 20_000_000

_S30 = (
    "title",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxProperties",
    "minProperties",
    "required",
    "enum",
    "type",
    "allOf",
    "oneOf",
    "anyOf",
    "not",
    "items",
    "properties",
    "additionalProperties",
    "description",
    "format",
    "default",
    "nullable",
    "discriminator",
    "readOnly",
    "writeOnly",
    "xml",
    "externalDocs",
    "example",
    "deprecated",
)
_S31 = (
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "prefixItems",
    "items",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "discriminator",
    "xml",
    "externalDocs",
    "example",
)
_ONE_30 = frozenset({"not", "items", "additionalProperties"})
_ONE_31 = _ONE_30 | {
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
}
_LIST_30 = frozenset({"allOf", "oneOf", "anyOf"})
_LIST_31 = _LIST_30 | {"prefixItems"}
_MAP_30 = frozenset({"properties"})
_MAP_31 = _MAP_30 | {"patternProperties", "dependentSchemas"}
_FLOAT_30 = frozenset({"multipleOf", "maximum", "minimum"})
_FLOAT_31 = _FLOAT_30 | {"exclusiveMaximum", "exclusiveMinimum"}
_INT = frozenset(
    {
        "maxLength",
        "minLength",
        "maxItems",
        "minItems",
        "maxProperties",
        "minProperties",
        "maxContains",
        "minContains",
    }
)
_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_LOCATIONS = ("path", "query", "header", "cookie")


def _model(value: Any, fields: tuple[tuple[str, Any], ...], what: str) -> JSON:
    """A small openapi_pydantic model (Discriminator, XML, ExternalDocumentation) dumped:
    fields in order with their defaults, then extensions."""
    if not isinstance(value, dict):
        raise RouteError(f"{what} is not an object")
    out: JSON = {}
    for name, default in fields:
        v = value.get(name, default)
        if v is not None:
            out[name] = v
    out.update({k: v for k, v in value.items() if k not in dict(fields) and v is not None})
    return out


def _number(value: Any, key: str, integer: bool) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise RouteError(f"schema keyword {key!r} is not a number")
    try:
        number = float(value)
        if integer:
            if not number.is_integer():
                raise ValueError
            return int(number)
        if not math.isfinite(number) and not isinstance(value, float):
            raise ValueError
    except (ValueError, OverflowError):
        raise RouteError(f"schema keyword {key!r} is not a number") from None
    return number


def dump(schema: Any, v31: bool, depth: int = 0) -> Any:
    """openapi_pydantic's Schema/Reference dump of one schema."""
    depth = deeper(depth)
    if not isinstance(schema, dict):
        raise RouteError("a schema is not an object")
    if "$ref" in schema:
        if not isinstance(schema["$ref"], str):
            raise RouteError("a $ref is not a string")
        order = ("$ref", "summary", "description") if v31 else ("$ref",)
        out = {k: schema[k] for k in order if schema.get(k) is not None}
        out.update({k: v for k, v in schema.items() if k not in order and v is not None})
        return out
    fields = _S31 if v31 else _S30
    one, many, named = (_ONE_31, _LIST_31, _MAP_31) if v31 else (_ONE_30, _LIST_30, _MAP_30)
    floats = _FLOAT_31 if v31 else _FLOAT_30
    out = {}
    for key in (*[f for f in fields if f in schema], *[k for k in schema if k not in fields]):
        value = schema[key]
        if value is None:
            continue
        if key not in fields:
            out[key] = value  # an extension or unknown keyword is kept as written
        elif key in one:
            out[key] = (
                value
                if isinstance(value, bool) and key == "additionalProperties"
                else (dump(value, v31, depth))
            )
        elif key in many:
            if not isinstance(value, list):
                raise RouteError(f"schema keyword {key!r} is not a list")
            out[key] = [dump(x, v31, depth) for x in value]
        elif key in named:
            if not isinstance(value, dict):
                raise RouteError(f"schema keyword {key!r} is not an object")
            out[key] = {str(n): dump(x, v31, depth) for n, x in value.items()}
        elif key in floats:
            out[key] = _number(value, key, integer=False)
        elif key in _INT:
            out[key] = _number(value, key, integer=True)
        elif key == "type":
            types = value if v31 and isinstance(value, list) else [value]
            if not all(isinstance(t, str) and t in _TYPES for t in types) or (
                not v31 and value == "null"
            ):
                raise RouteError(f"unknown schema type {value!r}")
            out[key] = value
        elif key in ("required", "enum"):
            if not isinstance(value, list) or ((key == "enum" or not v31) and not value):
                raise RouteError(f"schema keyword {key!r} must be a non-empty list")
            out[key] = value
        elif key == "discriminator":
            out[key] = _model(value, (("propertyName", None), ("mapping", None)), key)
        elif key == "xml":
            fs = (
                ("name", None),
                ("namespace", None),
                ("prefix", None),
                ("attribute", False),
                ("wrapped", False),
            )
            out[key] = _model(value, fs, key)
        elif key == "externalDocs":
            out[key] = _model(value, (("description", None), ("url", None)), key)
        else:
            out[key] = value
    return out


class Document:
    """The document with FastMCP's reference resolution and schema extraction."""

    def __init__(self, spec: JSON, *, v4: bool) -> None:
        self.spec = spec
        self.v4 = v4
        version = spec.get("openapi")
        if not isinstance(version, str):
            raise OpenAPIError("the document has no 'openapi' version string")
        self.version = version
        self.v31 = not version.startswith("3.0")
        self.work = 0
        # one extraction per schema object: a component used by many routes is read once
        self.extracted: dict[tuple[int, bool], JSON] = {}

    def spend(self, nodes: int) -> None:
        self.work += nodes
        if self.work > MAX_WORK:
            raise OpenAPIError(f"the document is too large to convert ({MAX_WORK} nodes read)")

    def resolve(self, item: Any) -> tuple[Any, bool]:
        """`_resolve_ref`: follow `$ref` objects; says whether the target is a typed part of
        the document (dumped) or an extension (kept as written)."""
        typed = True
        for _ in range(64):
            if not (isinstance(item, dict) and "$ref" in item and typed):
                return item, typed
            ref = item["$ref"]
            if not isinstance(ref, str):
                return item, typed
            if not ref.startswith("#/"):
                raise NonLocalRef(ref)
            node: Any = self.spec
            for part in ref.strip("#/").split("/"):
                if part.isdigit() and isinstance(node, list) and int(part) < len(node):
                    node = node[int(part)]
                elif isinstance(node, dict):
                    node = node.get(part)
                else:
                    node = None
                if node is None:
                    raise RouteError(f"reference {ref!r} does not resolve")
                typed = typed and not part.startswith("x-")
            item = node
        raise RouteError("references form a cycle")

    def schema(self, obj: Any) -> JSON:
        """`_extract_schema_as_dict`: resolve the top, dump, rewrite references."""
        resolved, typed = self.resolve(obj)
        key = (id(resolved), typed)
        if key not in self.extracted:
            if typed:
                result = dump(resolved, self.v31)
            elif isinstance(resolved, dict):
                result = resolved
            else:
                result = {}
            self.extracted[key] = replace_ref_with_defs(result, v4=self.v4)
            self.spend(node_count(self.extracted[key]))
        # callers set keys at the top (a default, an example, a marker); nothing below
        # the top is ever changed in place, so sharing it is safe
        return dict(self.extracted[key])

    def default_of(self, obj: Any) -> Any:
        resolved, typed = self.resolve(obj)
        if typed and isinstance(resolved, dict) and "$ref" not in resolved:
            return resolved.get("default")
        return None


def _text(value: Any, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise RouteError(f"{what} is not a string")
    return value


def _parameters(doc: Document, op_params: Any, item_params: Any) -> list[Parameter]:
    out: list[Parameter] = []
    seen: set[tuple[str, str]] = set()
    for raw in [*(op_params or []), *(item_params or [])]:
        param, _ = doc.resolve(raw)
        if not isinstance(param, dict) or not isinstance(param.get("name"), str):
            raise RouteError("a parameter has no name")
        where = param.get("in")
        if where not in _LOCATIONS:
            raise RouteError(f"parameter {param['name']!r} has an unknown location {where!r}")
        key = (param["name"], where)
        if key in seen:
            continue
        seen.add(key)
        schema: JSON = {}
        if param.get("schema"):
            schema = doc.schema(param["schema"])
            default = doc.default_of(param["schema"])
            if default is not None:
                schema["default"] = default
        elif isinstance(param.get("content"), dict) and param["content"]:
            media = next(iter(param["content"].values()))
            if isinstance(media, dict) and media.get("schema"):
                schema = doc.schema(media["schema"])
                default = doc.default_of(media["schema"])
                if default is not None:
                    schema["default"] = default
        if doc.v4 and param.get("example") is not None:
            # 4.x: the parameter's own example replaces the schema's
            schema.pop("example", None)
            schema.pop("examples", None)
            schema["example"] = param["example"]
        out.append(
            Parameter(
                param["name"],
                where,
                bool(param.get("required", False)),
                schema,
                _text(param.get("description"), "a parameter description"),
            )
        )
    return out


def _request_body(doc: Document, raw: Any) -> RequestBody | None:
    if not raw:
        return None
    body, _ = doc.resolve(raw)
    if not isinstance(body, dict):
        return None
    content: dict[str, JSON] = {}
    for media_type, media in (body.get("content") or {}).items():
        if isinstance(media, dict) and media.get("schema"):
            content[media_type] = doc.schema(media["schema"])
    return RequestBody(
        bool(body.get("required", False)),
        _text(body.get("description"), "a request body description"),
        content,
    )


def _success(code: str) -> bool:
    try:
        return 200 <= int(code) < 300
    except ValueError:
        return code.lower() in ("default", "2xx")


def _responses(doc: Document, raw: Any) -> dict[str, Response]:
    if not isinstance(raw, dict) or not raw:
        return {}
    codes = {str(c): r for c, r in raw.items()}
    primary = next(
        ((c, codes[c]) for c in ("200", "201", "202", "204", "207") if c in codes), None
    ) or next(((c, r) for c, r in codes.items() if _success(c)), None)
    if primary is None:
        return {}
    code, resp_raw = primary
    out: dict[str, Response] = {}
    response, _ = doc.resolve(resp_raw)
    if isinstance(response, dict):
        content: dict[str, JSON] = {}
        for media_type, media in (response.get("content") or {}).items():
            if isinstance(media, dict) and media.get("schema"):
                ms = media["schema"]
                top = None
                ref = ms.get("$ref") if isinstance(ms, dict) else None
                if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                    pointer = ref.removeprefix("#/components/schemas/")
                    if not doc.v4:
                        top = ref.split("/")[-1]
                    elif "/" not in pointer:
                        top = pointer
                schema = doc.schema(ms)
                if top:
                    schema["x-fastmcp-top-level-schema"] = top
                content[media_type] = schema
            else:
                content.setdefault(media_type, {})
        out[code] = Response(_text(response.get("description"), "a description"), content)
    if doc.v4:
        # 4.x also keeps the other success responses without a body: no output schema then
        for other, other_raw in codes.items():
            if other == code or not other.startswith("2"):
                continue
            try:
                resp, _ = doc.resolve(other_raw)
            except RouteError:
                continue
            if isinstance(resp, dict) and not resp.get("content"):
                out[other] = Response(resp.get("description"), {})
    return out


def _closure(
    doc: Document,
    roots: list[Any],
    defs: dict[str, JSON],
    *,
    follow_discriminator: bool = False,
    collected: set[str] | None = None,
) -> set[str]:
    """The transitive `$defs` a schema needs (iterative: component graphs can be cyclic)."""
    found = collected if collected is not None else set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        doc.spend(1)
        if isinstance(node, dict):
            names: list[str] = []
            ref = node.get("$ref")
            if isinstance(ref, str):
                name = component_name(ref, v4=doc.v4)
                if name is None and doc.v4:
                    continue  # 4.x stops at a reference it cannot name
                if name is not None:
                    names.append(name)
            disc = node.get("discriminator") if follow_discriminator else None
            if isinstance(disc, dict) and isinstance(disc.get("mapping"), dict):
                for target in disc["mapping"].values():
                    if isinstance(target, str) and (name := discriminator_target(target)):
                        names.append(name)
            for name in names:
                if name not in found and name in defs:
                    found.add(name)
                    stack.append(defs[name])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _definitions(doc: Document) -> dict[str, JSON]:
    components = doc.spec.get("components")
    schemas = components.get("schemas") if isinstance(components, dict) else None
    if schemas is not None and not isinstance(schemas, dict):
        raise OpenAPIError("'components.schemas' is not a mapping")
    defs: dict[str, JSON] = {}
    for name, schema in (schemas or {}).items():
        try:
            defs[str(name)] = doc.schema(schema)
        except NonLocalRef:
            raise
        except BAD_SHAPE:
            continue  # FastMCP logs a definition it cannot extract and goes on
    return {n: replace_ref_with_defs(s, v4=doc.v4) for n, s in defs.items()}


def parse_routes(spec: Any, *, v4: bool, problems: list[str]) -> list[Route]:
    """Routes in document order (paths, then get, put, post, delete, options, head, patch,
    trace). A route that cannot be read is reported in `problems` and left out."""
    if not isinstance(spec, dict):
        raise OpenAPIError("the document is not a mapping")
    doc = Document(spec, v4=v4)
    if not doc.version.startswith("3."):
        raise OpenAPIError(f"unsupported OpenAPI version {doc.version!r} (3.0 or 3.1 needed)")
    paths = spec.get("paths")
    if paths is not None and not isinstance(paths, dict):
        raise OpenAPIError("'paths' is not a mapping")
    try:
        defs = _definitions(doc)
    except NonLocalRef as e:
        raise OpenAPIError(f"non-local reference {e} (FastMCP refuses the document)") from None
    routes: list[Route] = []
    for path, item in (paths or {}).items():
        if not isinstance(item, dict):
            problems.append(f"{path}: the path item is not a mapping")
            continue
        for method in _METHODS:
            op = item.get(method)
            if op is None:
                continue
            where = f"{method.upper()} {path}"
            try:
                if not isinstance(op, dict):
                    raise RouteError("the operation is not a mapping")
                routes.append(_route(doc, str(path), method, op, item, defs))
            except NonLocalRef as e:
                raise OpenAPIError(
                    f"{where}: non-local reference {e} (FastMCP refuses the document)"
                ) from None
            except BAD_SHAPE as e:
                problems.append(f"{where}: {type(e).__name__}: {e}")
    return routes


def _route(
    doc: Document, path: str, method: str, op: JSON, item: JSON, defs: dict[str, JSON]
) -> Route:
    params = _parameters(doc, op.get("parameters"), item.get("parameters"))
    body = _request_body(doc, op.get("requestBody"))
    responses = _responses(doc, op.get("responses"))
    needed = _closure(doc, [p.schema_ for p in params if p.schema_], defs)
    if body:
        needed = _closure(
            doc,
            list(body.content_schema.values()),
            defs,
            follow_discriminator=doc.v4,
            collected=needed,
        )
    out_needed: set[str] = set()
    for resp in responses.values():
        for content in resp.content_schema.values():
            _closure(doc, [content], defs, collected=out_needed)
            top = content.get("x-fastmcp-top-level-schema")
            if isinstance(top, str) and top in defs:
                out_needed.add(top)
                _closure(doc, [defs[top]], defs, collected=out_needed)
    tags = op.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise RouteError("'tags' is not a list of strings")
    op_id = _text(op.get("operationId"), "operationId")
    return Route(
        path=path,
        method=method.upper(),
        operation_id=op_id,
        summary=_text(op.get("summary"), "summary"),
        description=_text(op.get("description"), "description"),
        tags=list(tags),
        extensions={k: v for k, v in op.items() if isinstance(k, str) and k.startswith("x-")},
        parameters=params,
        request_body=body,
        responses=responses,
        # FastMCP iterates a set here (hash order); document order is the stable choice
        request_schemas={n: s for n, s in defs.items() if n in needed},
        response_schemas={n: s for n, s in defs.items() if n in out_needed},
        openapi_version=doc.version,
    )
