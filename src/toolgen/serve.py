"""`toolgen serve`: the generated tools over MCP (stdio), calling the real handlers.

The server reads what `toolgen build` wrote - `mcp/tools.json` for `tools/list` and
`descriptors/*.json` for where each handler lives and which errors it declares - and never
recompiles the handlers. Serving is run time, so here (unlike the compiler) user code is
imported and called.

A `tools/call` goes through these steps, each a plain function or method below that the tests
call without a transport:

1. find the tool (`Catalog.find`); unknown and forbidden names are a JSON-RPC error -32602
   whose message lists the available tools;
2. check the arguments: numbers strict JSON has not (NaN, ±Infinity) and nesting deeper than
   `MAX_ARGUMENT_DEPTH` (`serve_guard.value_problems`), then the tool's `inputSchema` (JSON
   Schema 2020-12, `argument_problems`); problems are an `isError` result with a
   `VALIDATION_ERROR` envelope;
3. reach the handler (`resolve_handler`, see there for what can and cannot be reached);
4. turn the JSON arguments into the handler's Python types with pydantic (models, dataclasses,
   UUIDs, enums ...) and call it: async handlers are awaited, sync ones run in a worker thread;
5. dump the return value to JSON with pydantic (by alias, as the schema names the fields), wrap
   it as `{"result": ...}` when the return type is not an object (`render.mcp.wraps`, the
   decision that wrapped the `outputSchema`: a dict is an object and is not wrapped), check it
   against the `outputSchema`, and answer with it as `structuredContent` plus the same JSON as
   text. A value holding NaN or ±Infinity anywhere is `INTERNAL`: the answer is strict JSON.

Failures are results with `isError: true` and an `{"error": {...}}` envelope (as structured
content and as text): `toolgen.ToolError` gets the taxonomy of the code the handler declared;
anything else is `INTERNAL`, not retryable, with a random trace id, its traceback going to
stderr only.
Whatever an answer quotes from the client is cut short (`serve_guard.quote`); malformed
JSON-RPC never reaches the SDK (`serve_guard.check_line`).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import io
import itertools
import json
import re
import secrets
import sys
import traceback
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
import pydantic
import pydantic_core
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaValidationError
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from pydantic.experimental.arguments_schema import generate_arguments_schema

from toolgen import journal
from toolgen._marker import ToolError
from toolgen._version import __version__
from toolgen.config import Config
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import cut
from toolgen.removal import produced
from toolgen.render.mcp import wraps as mcp_wraps
from toolgen.schema_ops import accepts_null
from toolgen.serve_guard import (
    MAX_ARGUMENT_DEPTH,
    MAX_PROBLEMS,
    MAX_SCHEMA_ERRORS,
    GuardedLines,
    claimed_stdin,
    pointer,
    quote,
    value_problems,
)

#: Tools per `tools/list` page; a longer list continues through `nextCursor`.
PAGE_SIZE = 100

#: JSON-RPC "invalid params": an unknown tool, a bad cursor.
INVALID_PARAMS = types.INVALID_PARAMS

#: Longest message of a VALIDATION_ERROR problem (a schema's long enum, say).
MESSAGE_LIMIT = 500

# the cursors this server issues: a tool's index, in plain decimal
_CURSOR = re.compile(r"0|[1-9][0-9]{0,8}")


class GeneratedFilesError(Exception):
    """The generated folder is missing a file `serve` needs, or holds one it cannot read."""


class NotCallable(Exception):
    """The handler of a tool cannot be reached or prepared for calling."""


# -- the catalog: what build wrote ------------------------------------------------------------


@dataclass(frozen=True)
class Catalog:
    """The servable tools: `tools/list` entries in file order, and their descriptors."""

    tools: tuple[dict[str, Any], ...]
    descriptors: Mapping[str, ToolDescriptor]

    @property
    def names(self) -> list[str]:
        return [tool["name"] for tool in self.tools]

    def find(self, name: str) -> tuple[dict[str, Any], ToolDescriptor]:
        """The `tools/list` entry and descriptor of `name`; MCPError -32602 when there is none
        (forbidden tools are never in the catalog, so they are unknown here too)."""
        for tool in self.tools:
            if tool["name"] == name:
                return tool, self.descriptors[name]
        available = ", ".join(self.names) or "(none)"
        raise MCPError(
            INVALID_PARAMS,
            f"unknown tool {quote(name)}; available tools: {available}",
            {"available": self.names},
        )


def load_catalog(out: Path) -> Catalog:
    """Read `mcp/tools.json` and the descriptor of each tool it lists from the generated
    folder `out` (other files in `descriptors/` are not toolgen's concern).

    Forbidden tools are left out even if an entry names one. Raises `GeneratedFilesError`
    when a file is missing or unreadable, a listed tool has no descriptor, or the last build
    was stopped half way (`toolgen.journal`: the files may be of two builds).
    """
    if journal.state(out) == "committed":
        raise GeneratedFilesError(journal.interrupted_message(str(out)))
    tools_file = out / "mcp" / "tools.json"
    if not tools_file.is_file():
        raise GeneratedFilesError(
            f'{tools_file} does not exist; put "mcp" in the configured platforms and run '
            "`toolgen build`" + _catalogs_hint(out)
        )
    try:
        listed = json.loads(tools_file.read_text(encoding="utf-8"))["tools"]
        names = [entry["name"] for entry in listed]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise GeneratedFilesError(f"cannot read the generated files in {out}: {exc}") from None
    descriptors: dict[str, ToolDescriptor] = {}
    tools: list[dict[str, Any]] = []
    for entry, name in zip(listed, names, strict=True):
        path = f"descriptors/{name}.json"
        if not isinstance(name, str) or not produced(path) or not (out / path).is_file():
            raise GeneratedFilesError(
                f"tool {quote(name)} is in {tools_file} but has no descriptor; run `toolgen build`"
            )
        try:
            found = ToolDescriptor.model_validate_json((out / path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise GeneratedFilesError(f"cannot read {out / path}: {exc}") from None
        if found.visible:
            descriptors[name] = found
            tools.append(entry)
    return Catalog(tuple(tools), descriptors)


# -- pure parts: pagination, validation, result envelopes -----------------------------------


def list_tools_page(
    tools: Sequence[dict[str, Any]], cursor: str | None, page_size: int = PAGE_SIZE
) -> types.ListToolsResult:
    """One `tools/list` page. The cursor is the index of the page's first tool, as a string;
    anything else is MCPError -32602."""
    start = 0
    if cursor is not None:
        if not _CURSOR.fullmatch(cursor) or int(cursor) >= len(tools):
            raise MCPError(INVALID_PARAMS, f"invalid cursor {quote(cursor)}")
        start = int(cursor)
    end = start + page_size
    return types.ListToolsResult(
        tools=[types.Tool.model_validate(tool) for tool in tools[start:end]],
        next_cursor=str(end) if end < len(tools) else None,
    )


def _schema_message(error: SchemaValidationError) -> str:
    """jsonschema's message, which quotes the failing value in full, with the value quoted
    short."""
    message = error.message
    if len(message) > MESSAGE_LIMIT:
        message = message.replace(repr(error.instance), quote(error.instance), 1)
    return cut(message, MESSAGE_LIMIT)


def _schema_problems(error: SchemaValidationError) -> list[dict[str, str]]:
    """One jsonschema error as `{"path", "message"}` items; errors about missing or unexpected
    properties point at the property, not at the object holding it."""
    where = list(error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        # one error per missing property; naming them all here is deduplicated by the caller
        required: list[str] = list(typing.cast(Iterable[str], error.validator_value))
        return [
            {"path": pointer([*where, name]), "message": "required property is missing"}
            for name in required
            if name not in instance
        ]
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        known = set(error.schema.get("properties", {})) if isinstance(error.schema, dict) else set()
        extra = [name for name in instance if name not in known]
        if extra:
            return [
                {"path": pointer([*where, name]), "message": "unexpected property"}
                for name in extra[: MAX_PROBLEMS + 1]
            ]
    return [{"path": pointer(where), "message": _schema_message(error)}]


def drop_not_given(arguments: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """Strict-mode clients (OpenAI) must send every parameter, so an optional one arrives as
    null; where the parameter's own type has no null, null means "not given" (its strict
    description says so) and the argument is dropped, leaving the handler's default."""
    required = set(schema.get("required", []))
    properties = schema.get("properties", {})
    return {
        key: value
        for key, value in arguments.items()
        if not (
            value is None
            and key in properties
            and key not in required
            and not accepts_null(properties[key])
        )
    }


def argument_problems(validator: Draft202012Validator, arguments: Any) -> list[dict[str, str]]:
    """The ways `arguments` break the input schema, as `{"path", "message"}`, sorted; the
    first `MAX_SCHEMA_ERRORS` of jsonschema's errors, so that a huge array of wrong items
    costs no more than a small one."""
    errors = itertools.islice(validator.iter_errors(arguments), MAX_SCHEMA_ERRORS)
    found = [p for error in errors for p in _schema_problems(error)]
    unique = {(p["path"], p["message"]): p for p in found}
    return [unique[key] for key in sorted(unique)]


def input_validator(schema: Mapping[str, Any]) -> Draft202012Validator:
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def pydantic_problems(exc: pydantic.ValidationError) -> list[dict[str, str]]:
    """A pydantic argument error as `{"path", "message"}` items."""
    return [
        {"path": pointer(e["loc"]), "message": cut(e["msg"], MESSAGE_LIMIT)}
        for e in exc.errors(include_url=False, include_input=False)
    ]


def error_result(envelope: dict[str, Any]) -> types.CallToolResult:
    """An `isError` result: the envelope `{"error": {...}}` as structured content and text."""
    return types.CallToolResult(
        content=[types.TextContent(text=_strict_json(envelope))],
        structured_content=envelope,
        is_error=True,
    )


def _strict_json(value: Any) -> str:
    """JSON text of `value`; ValueError when it holds NaN or ±Infinity, which JSON has not."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def validation_error_result(problems: list[dict[str, str]]) -> types.CallToolResult:
    """`VALIDATION_ERROR` naming the first `MAX_PROBLEMS` problems."""
    shown = problems[:MAX_PROBLEMS]
    summary = "; ".join(f"{p['path'] or '/'}: {p['message']}" for p in shown)
    if len(problems) > len(shown):
        summary += "; more problems not shown"
    return error_result(
        {
            "error": {
                "code": "VALIDATION_ERROR",
                "message": f"invalid arguments: {summary}",
                "retryable": False,
                "http_status": 400,
                "fields": shown,
            }
        }
    )


def tool_error_result(exc: ToolError, descriptor: ToolDescriptor) -> types.CallToolResult:
    """The envelope of a `ToolError`: the taxonomy of the code as the descriptor declares it.

    A code the descriptor does not declare is still reported, as not retryable, HTTP 500 and
    `"undeclared": true`. Details never override the taxonomy fields.
    """
    details = pydantic_core.to_jsonable_python(exc.details, fallback=repr)
    declared = next((e for e in descriptor.errors if e.code == exc.code), None)
    taxonomy: dict[str, Any]
    if declared is None:
        taxonomy = {"retryable": False, "http_status": 500, "recovery": None, "undeclared": True}
    else:
        taxonomy = {
            "retryable": declared.retryable,
            "http_status": declared.http_status,
            "recovery": declared.recovery,
        }
    body = {"code": exc.code, "message": exc.message, **taxonomy}
    body.update((key, value) for key, value in details.items() if key not in body)
    return error_result({"error": body})


def new_trace_id() -> str:
    return secrets.token_hex(8)


def internal_error_result(trace_id: str, message: str = "internal error") -> types.CallToolResult:
    """`INTERNAL`: what went wrong stays in the server's log, under `trace_id`. Never
    retryable: nothing says the failure is transient, and a broken handler fails again
    (a handler that knows better raises a declared `ToolError`)."""
    return error_result(
        {
            "error": {
                "code": "INTERNAL",
                "message": message,
                "retryable": False,
                "trace_id": trace_id,
            }
        }
    )


def wraps_result(output_schema: Mapping[str, Any] | None, return_schema: Mapping[str, Any]) -> bool:
    """Whether the `outputSchema` wraps the return value as `{"result": ...}`.

    This is the renderer's own decision (`render.mcp.wraps`) on the descriptor's return schema,
    not a comparison of that schema with the published one: with `inline_defs` the published
    schema is inlined and the descriptor's keeps its `$ref`s, so the two never compare equal.
    """
    return output_schema is not None and mcp_wraps(dict(return_schema))


def success_result(
    data: Any, output_schema: dict[str, Any] | None, wrap: bool
) -> types.CallToolResult:
    """A successful result from the JSON-compatible return value `data`.

    With an `outputSchema` the (wrapped if `wrap`) value is the structured content and its JSON
    the text; without one (the handler returns None) there is only the text.
    """
    if output_schema is None:
        return types.CallToolResult(content=[types.TextContent(text=_strict_json(data))])
    structured = {"result": data} if wrap else data
    return types.CallToolResult(
        content=[types.TextContent(text=_strict_json(structured))],
        structured_content=structured,
    )


def log_failure(trace_id: str, what: str, exc: BaseException | None = None) -> None:
    """Write a failure, with its traceback, to stderr (never to the client)."""
    text = f"toolgen serve: [trace {trace_id}] {what}\n"
    if exc is not None:
        text += "".join(traceback.format_exception(exc))
    sys.stderr.write(text)
    sys.stderr.flush()


# -- reaching handlers ----------------------------------------------------------------------


class Recorder:
    """Stands in for the server object that a registration function (`register(server)`)
    attaches its nested handlers to. It records every function handed to `add_tool(fn, ...)`,
    `@tool`, `@tool(...)` or `@recorder(...)` under its `__qualname__`, returning it unchanged."""

    def __init__(self) -> None:
        self.functions: dict[str, Callable[..., Any]] = {}

    def _keep(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        self.functions[getattr(fn, "__qualname__", "")] = fn
        return fn

    def add_tool(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
        return self._keep(fn)

    def tool(self, *args: Any, **kwargs: Any) -> Callable[..., Any]:
        if args and callable(args[0]):  # @server.tool, server.tool(fn, name=...)
            return self._keep(args[0])
        return self._keep  # @server.tool(), @server.tool("name", ...)

    __call__ = tool


@dataclass
class _Reacher:
    """Imports handlers, caching classes' instances and registration functions' recordings."""

    instances: dict[type, Any] = field(default_factory=dict)
    registered: dict[tuple[str, str], Recorder | NotCallable] = field(default_factory=dict)

    def resolve(self, module_name: str, qualname: str) -> Callable[..., Any]:
        if "<locals>" in qualname:
            return self._registered(module_name, qualname)
        owner: Any = importlib.import_module(module_name)
        *path, name = qualname.split(".")
        for part in path:
            owner = getattr(owner, part)
        if inspect.isclass(owner) and not isinstance(
            inspect.getattr_static(owner, name), staticmethod | classmethod
        ):
            owner = self._instance(owner)
        return _unwrap(getattr(owner, name))

    def _instance(self, cls: type) -> Any:
        if cls not in self.instances:
            try:
                self.instances[cls] = cls()
            except Exception as exc:
                raise NotCallable(
                    f"{cls.__qualname__} cannot be instantiated without arguments "
                    f"({type(exc).__name__}: {exc})"
                ) from exc
        return self.instances[cls]

    def _registered(self, module_name: str, qualname: str) -> Callable[..., Any]:
        outer, _, inner = qualname.partition(".<locals>.")
        if "<locals>" in inner or "." in inner:
            raise NotCallable(f"{qualname} is nested too deep to be reached")
        key = (module_name, outer)
        if key not in self.registered:
            recorder = Recorder()
            try:
                register = self.resolve(module_name, outer)
                register(recorder)
                self.registered[key] = recorder
            except Exception as exc:
                self.registered[key] = NotCallable(
                    f"calling {module_name}.{outer}(server) to collect its handlers failed "
                    f"({type(exc).__name__}: {exc})"
                )
        found = self.registered[key]
        if isinstance(found, NotCallable):
            raise found
        if qualname not in found.functions:
            raise NotCallable(f"{module_name}.{outer}(server) did not register {inner}")
        return found.functions[qualname]


def _unwrap(obj: Any) -> Callable[..., Any]:
    """The function itself when a framework decorator replaced it by a tool object that keeps
    it as `.fn` (FastMCP) or `.func` (LangChain)."""
    if not inspect.isroutine(obj):
        for attribute in ("fn", "func"):
            inner = getattr(obj, attribute, None)
            if inspect.isroutine(inner):
                return typing.cast(Callable[..., Any], inner)
    if not callable(obj):
        raise NotCallable(f"{obj!r} is not callable")
    return typing.cast(Callable[..., Any], obj)


def resolve_handler(module_name: str, qualname: str) -> Callable[..., Any]:
    """The handler at `module_name`:`qualname` (a descriptor's `source`), ready to call.

    - a module-level function (`f`), or a static or class method (`Class.f`): imported;
    - a method (`Class.f`): bound to an instance made with `Class()`; a class that needs
      constructor arguments is `NotCallable`;
    - a function nested in a registration function (`register.<locals>.f`): found by calling
      `register(Recorder())` and taking what it registered; deeper nesting, or a registration
      function that fails with the recorder, is `NotCallable`.

    Other exceptions (an import error, a missing attribute) propagate as they are.
    """
    return _Reacher().resolve(module_name, qualname)


def search_paths(config: Config) -> list[Path]:
    """Where the handler modules import from: the roots the compiler resolves names from."""
    from toolgen.discover import discover, search_roots

    return search_roots(discover(config.sources), config.root)


# -- calling ----------------------------------------------------------------------------------


_NAMED = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
)


@dataclass(frozen=True)
class Prepared:
    """A reached handler with its pydantic argument validator and return serializers: `dump`
    to JSON data, `plain` to Python data with the floats as they are (JSON data has a NaN
    under `Any` turned into null), to check for what JSON cannot carry."""

    fn: Callable[..., Any]
    arguments: pydantic_core.SchemaValidator
    dump: Callable[[Any], Any]
    plain: Callable[[Any], Any]


def prepare(fn: Callable[..., Any], parameters: Mapping[str, Any]) -> Prepared:
    """Build the argument validator and the return serializer.

    The arguments go through pydantic's arguments schema of the signature (what
    `pydantic.validate_call` validates with), kept apart from the call so that a pydantic error
    raised inside the handler is not mistaken for bad arguments.
    Parameters that are not in the input schema (a framework's injected context, a wrapper's
    `skip_params`) are left to their defaults; one without a default makes the handler
    `NotCallable`, as nothing here can supply it.
    """
    exposed = set(parameters.get("properties", {}))
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise NotCallable(f"its signature cannot be read ({exc})") from exc
    for p in signature.parameters.values():
        if p.name not in exposed and p.default is p.empty and p.kind in _NAMED:
            raise NotCallable(f"parameter {p.name!r} is not in the input schema and has no default")
    try:
        schema = generate_arguments_schema(
            fn, parameters_callback=lambda _i, name, _a: None if name in exposed else "skip"
        )
        arguments = pydantic_core.SchemaValidator(schema)
    except Exception as exc:
        raise NotCallable(
            f"pydantic cannot read the parameters ({type(exc).__name__}: {exc})"
        ) from exc
    try:
        returns = typing.get_type_hints(fn, include_extras=True).get("return", typing.Any)
        adapter: pydantic.TypeAdapter[Any] | None = pydantic.TypeAdapter(returns)
    except Exception:  # a return type pydantic cannot read: serialize by inference
        adapter = None

    def dump(value: Any) -> Any:
        if adapter is None:
            return pydantic_core.to_jsonable_python(value, by_alias=True)
        return adapter.dump_python(value, mode="json", by_alias=True, warnings=False)

    def plain(value: Any) -> Any:
        if adapter is None:  # inferred: keeps NaN and Infinity as they are
            return pydantic_core.to_jsonable_python(value, by_alias=True)
        return adapter.dump_python(value, by_alias=True, warnings=False)

    return Prepared(fn, arguments, dump, plain)


class Dispatcher:
    """`tools/list` and `tools/call` over a catalog, independent of any transport."""

    def __init__(self, catalog: Catalog, page_size: int = PAGE_SIZE) -> None:
        self.catalog = catalog
        self.page_size = page_size
        self._reacher = _Reacher()
        self._prepared: dict[str, Prepared | NotCallable] = {}
        self._inputs = {t["name"]: input_validator(t["inputSchema"]) for t in catalog.tools}
        self._outputs = {
            t["name"]: Draft202012Validator(t["outputSchema"])
            for t in catalog.tools
            if "outputSchema" in t
        }

    def list_tools(self, cursor: str | None) -> types.ListToolsResult:
        return list_tools_page(self.catalog.tools, cursor, self.page_size)

    def _prepare(self, descriptor: ToolDescriptor) -> Prepared:
        name = descriptor.name
        if name not in self._prepared:
            try:
                fn = self._reacher.resolve(descriptor.source.module, descriptor.source.qualname)
                self._prepared[name] = prepare(fn, descriptor.parameters)
            except NotCallable as exc:
                self._prepared[name] = exc
            except Exception as exc:  # import error, missing attribute ...
                self._prepared[name] = NotCallable(
                    f"{descriptor.source.module}.{descriptor.source.qualname} cannot be "
                    f"imported ({type(exc).__name__}: {exc})"
                )
        found = self._prepared[name]
        if isinstance(found, NotCallable):
            raise found
        return found

    async def call_tool(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Run one `tools/call`; only an unknown tool raises (MCPError -32602). Whatever fails
        unforeseen (a ToolError whose details JSON cannot carry, say) is `INTERNAL`."""
        entry, descriptor = self.catalog.find(name)
        try:
            return await self._call(entry, descriptor, arguments)
        except Exception as exc:
            trace_id = new_trace_id()
            log_failure(trace_id, f"tool {name} failed", exc)
            return internal_error_result(trace_id)

    async def _call(
        self, entry: dict[str, Any], descriptor: ToolDescriptor, arguments: dict[str, Any] | None
    ) -> types.CallToolResult:
        name = descriptor.name
        arguments = drop_not_given({} if arguments is None else arguments, entry["inputSchema"])
        # non-finite numbers and deep nesting first: schema validation would accept the one
        # and recurse along the other
        problems = value_problems(arguments, MAX_ARGUMENT_DEPTH) or argument_problems(
            self._inputs[name], arguments
        )
        if problems:
            return validation_error_result(problems)
        try:
            prepared = self._prepare(descriptor)
        except NotCallable as exc:
            trace_id = new_trace_id()
            log_failure(trace_id, f"tool {name} is not callable: {exc}")
            return internal_error_result(trace_id, f"tool {name!r} is not callable on this server")
        try:
            args, kwargs = prepared.arguments.validate_python(arguments)
        except pydantic.ValidationError as exc:
            return validation_error_result(pydantic_problems(exc))
        trace_id = new_trace_id()
        try:
            if inspect.iscoroutinefunction(prepared.fn):
                value = await prepared.fn(*args, **kwargs)
            else:
                call = functools.partial(prepared.fn, *args, **kwargs)
                value = await anyio.to_thread.run_sync(call)
                if inspect.isawaitable(value):
                    value = await value
        except ToolError as exc:
            return tool_error_result(exc, descriptor)
        except Exception as exc:
            log_failure(trace_id, f"tool {name} raised", exc)
            return internal_error_result(trace_id)
        try:
            for problem in value_problems(prepared.plain(value), limit=1):
                what = f"{problem['path'] or '/'}: {problem['message']}"
                log_failure(trace_id, f"tool {name} returned a value JSON cannot carry: {what}")
                return internal_error_result(trace_id)
            result = success_result(
                prepared.dump(value),
                entry.get("outputSchema"),
                wraps_result(entry.get("outputSchema"), descriptor.returns.schema_),
            )
            output = self._outputs.get(name)
            if output is not None:
                output.validate(result.structured_content)
        except Exception as exc:
            log_failure(trace_id, f"tool {name} returned a value its outputSchema rejects", exc)
            return internal_error_result(trace_id)
        return result


# -- the MCP server and its stdio transport -------------------------------------------------


def build_server(dispatcher: Dispatcher) -> Server[Any]:
    """A low-level MCP server whose `tools/list` and `tools/call` are the dispatcher's."""

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return dispatcher.list_tools(params.cursor if params else None)

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await dispatcher.call_tool(params.name, params.arguments)

    return Server(
        "toolgen",
        version=__version__,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


async def serve_stdio(dispatcher: Dispatcher) -> None:
    """Serve the dispatcher over this process's stdin and stdout until stdin closes; each line
    of stdin passes `serve_guard.check_line` before the SDK reads it."""
    server = build_server(dispatcher)
    with claimed_stdin() as wire:
        text = io.TextIOWrapper(wire, encoding="utf-8", errors="replace")
        lines = GuardedLines(anyio.wrap_file(text))
        stdin = typing.cast("anyio.AsyncFile[str]", lines)
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            lines.answer_on(write_stream)
            await server.run(read_stream, write_stream, server.create_initialization_options())


def add_search_paths(config: Config) -> None:
    """Put the handler modules' roots at the front of `sys.path` (once each)."""
    paths = [str(p) for p in search_paths(config)]
    sys.path[:0] = [p for p in paths if p not in sys.path]


def _catalogs_hint(out: Path) -> str:
    """When `out` holds one folder per server (a project of several): which to name."""
    found = sorted(p.parent.parent.name for p in out.glob("*/mcp/tools.json"))
    if not found:
        return ""
    return f" (this project has a catalog per server: serve one with --catalog {' | '.join(found)})"


def serve(config: Config, page_size: int = PAGE_SIZE, catalog_name: str | None = None) -> int:
    """Serve `config.out`'s tools (those of `catalog_name`, in a project of several servers)
    over stdio until the client leaves; returns the exit code (2 when the generated files
    cannot be read)."""
    out = config.out if not catalog_name else config.out / catalog_name
    if catalog_name and ("/" in catalog_name or catalog_name.startswith(".") or not out.is_dir()):
        print(
            f"toolgen serve: no catalog {catalog_name!r}{_catalogs_hint(config.out)}",
            file=sys.stderr,
        )
        return 2
    try:
        catalog = load_catalog(out)
    except GeneratedFilesError as exc:
        print(f"toolgen serve: {exc}", file=sys.stderr)
        return 2
    add_search_paths(config)
    anyio.run(serve_stdio, Dispatcher(catalog, page_size))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`toolgen serve [--config FILE] [--out DIR] [--page-size N]` until the CLI wires it in."""
    from toolgen.config import load_config
    from toolgen.diagnostics import UserError

    parser = argparse.ArgumentParser(
        prog="toolgen serve", description="Serve the generated tools over MCP (stdio)."
    )
    parser.add_argument("--config", metavar="FILE", type=Path, help="TOML file with [tool.toolgen]")
    parser.add_argument("--out", metavar="DIR", help="generated folder (default: config `out`)")
    parser.add_argument(
        "--page-size", type=int, default=PAGE_SIZE, help=f"tools per tools/list page ({PAGE_SIZE})"
    )
    parser.add_argument("--catalog", metavar="NAME", help="the server's catalog, of several")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.page_size < 1:
        print("toolgen serve: --page-size must be at least 1", file=sys.stderr)
        return 2
    try:
        config = load_config(args.config, cwd=Path.cwd(), out_override=args.out)
    except UserError as exc:
        for diagnostic in exc.diagnostics:
            print(diagnostic.format_text(), file=sys.stderr)
        return 2
    return serve(config, args.page_size, args.catalog)


if __name__ == "__main__":
    sys.exit(main())
