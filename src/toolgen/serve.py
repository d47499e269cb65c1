"""`toolgen serve`: the generated tools over MCP (stdio), a thin adapter over
`toolgen.runtime.Toolbox`.

The server lists what `toolgen build` wrote to `mcp/tools.json` (`tools/list`, paged) and hands
every `tools/call` to the toolbox, which decides it as it decides any platform's call (find,
parse, validate, authorize, gate, idempotency, execute, audit: see the README's "Run time")
and whose `ToolResult` `toolgen.runtime.adapters.mcp` maps to a `CallToolResult`. Two things
stay MCP's own: an unknown (or forbidden) tool is the JSON-RPC error -32602 the MCP spec asks
for, listing the available tools; and a call that needs a person's confirmation, or a step-up,
asks the client by elicitation (`elicitation/create`) when it declared that capability and the
session can send it requests (protocol 2025-11-25 and before), else it answers the human-review
envelope (`STEP_UP_REQUIRED` for a step-up). Every call is made by the one principal serve was
given (`--principal`, `TOOLGEN_PRINCIPAL`), which scopes idempotency keys and is audited.
Whatever an answer quotes from the client is cut short (`runtime.values.quote`); malformed
JSON-RPC never reaches the SDK (`serve_guard.check_line`); every request read gets one answer,
also when stdin closes while calls are pending (`serve_answers`). Failures are logged to stderr
under their trace id, never sent to the client.
"""

from __future__ import annotations

import asyncio
import io
import logging
import math
import os
import re
import sys
import threading
import time
import typing
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from toolgen import serve_loop
from toolgen._version import __version__
from toolgen.config import Config
from toolgen.layout import JOURNAL, PENDING
from toolgen.runtime import CallContext, Toolbox
from toolgen.runtime.adapters.mcp import (
    call_tool_result,
    elicit_confirmation,
    elicit_step_up,
    supports_elicitation,
)
from toolgen.runtime.call import Lane
from toolgen.runtime.catalog import Catalog, GeneratedFilesError
from toolgen.runtime.catalog import load as load_catalog
from toolgen.runtime.escapes import handlers_own
from toolgen.runtime.result import internal_error, new_trace_id
from toolgen.runtime.steps.idempotency import keyable
from toolgen.runtime.values import quote
from toolgen.schema_ops import wraps
from toolgen.serve_answers import DRAIN_TIMEOUT, AnsweringStream, Answers, answer_the_rest
from toolgen.serve_guard import GuardedLines, claimed_stdin
from toolgen.serve_stdout import LineWriter, claimed_stdout

T = TypeVar("T")

#: Tools per `tools/list` page; a longer list continues through `nextCursor`.
PAGE_SIZE = 100

#: JSON-RPC "invalid params": an unknown tool, a bad cursor.
INVALID_PARAMS = types.INVALID_PARAMS

#: The idempotency store `serve` uses unless `--store` names another (the toolbox's default).
DEFAULT_STORE = "sqlite:///.toolgen/runtime.db"

#: Seconds a call's handler may run (`--timeout`), and what a tool that can be given an
#: idempotency key keeps under `--timeout none`.
TIMEOUT = 30.0

#: Seconds the client has to answer a confirmation or step-up request (`--confirm-timeout`).
CONFIRM_TIMEOUT = 120.0

#: The environment variable that names the principal when `--principal` does not.
PRINCIPAL_ENV = "TOOLGEN_PRINCIPAL"

#: The longest principal, in characters.
PRINCIPAL_LIMIT = 256

#: Seconds the process may take to end once serving stopped, before threads that handlers
#: left running (hung ones, ones they started) are no longer waited for.
EXIT_GRACE = 5.0

# the cursors this server issues: a tool's index, in plain decimal
_CURSOR = re.compile(r"0|[1-9][0-9]{0,8}")


def principal_problem(name: str) -> str | None:
    """Why `name` cannot name the principal (None when it can). It is written into every
    audit event and scopes every idempotency key, so it is text a person reads as one name:
    not empty, no white space around it, no control characters (a surrogate is what an
    environment value that is not UTF-8 reads as), at most `PRINCIPAL_LIMIT` characters."""
    if not name.strip():
        return "must name the caller (it is empty)"
    if name != name.strip():
        return "must not start or end with white space"
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in name):
        return "must not hold control characters or bytes that are not UTF-8"
    if len(name) > PRINCIPAL_LIMIT:
        return f"must be at most {PRINCIPAL_LIMIT} characters"
    return None


# -- the catalog: what build wrote ------------------------------------------------------------


def load_toolbox(out: Path, timeout: float | None = TIMEOUT, **options: Any) -> Toolbox:
    """The toolbox of the generated folder `out`, which must hold `mcp/tools.json` (what
    `tools/list` answers). `timeout`: seconds per call, or None for none but for the tools
    that can be given an idempotency key, which keep `TIMEOUT` (their key's lease needs a
    bound). `options` go to `Toolbox.load`. Raises `GeneratedFilesError`."""
    tools_file = out / "mcp" / "tools.json"
    if not tools_file.is_file() and not (out / PENDING / JOURNAL).exists():
        raise GeneratedFilesError(
            f'{tools_file} does not exist; put "mcp" in the configured platforms and run '
            "`toolgen build`" + _catalogs_hint(out)
        )
    timeouts: float | dict[str, float | None] = TIMEOUT if timeout is None else timeout
    if timeout is None:
        descriptors = load_catalog(out).descriptors.values()
        timeouts = {"*": None, **{d.name: TIMEOUT for d in descriptors if keyable(d)}}
    return Toolbox.load(out, timeout=timeouts, **options)


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


class Dispatcher:
    """`tools/list` and `tools/call` over a toolbox, independent of any transport.

    A call of a tool with a short way (`Toolbox.lane`: a sync handler, no timeout, ungated,
    no step-up, no dry run, no key) whose handler is known to be sync runs on the server's
    own thread, in the request's task, with no thread hop (about 90 µs of a call's 100-250
    µs in process). The trade-off, taken only where the toolbox was given no timeout for the
    tool (`serve`'s default is 30 s: then every call hops): while such a handler runs, the
    server does nothing else. Requests are still read (on the reader's thread) and each gets
    its answer once the handler returns; a `notifications/cancelled` for the call arrives
    after its answer and is ignored, as MCP allows; SIGINT and the end of stdin are acted on
    then; a confirmation another call waits for keeps its clock running. A tool that may run
    long should keep a timeout: with one, its calls hop, and the server answers `TIMEOUT`
    while it still runs. The first call of a tool takes the whole way (it reaches the
    handler, never before a call gets that far), and so does every call of an async one,
    and of one whose error may be retried (an idempotent or safe tool: the backoff is
    awaited) or answered by a fallback.
    """

    def __init__(self, box: Toolbox, page_size: int = PAGE_SIZE) -> None:
        log_to_stderr()
        self.box = box
        self.page_size = page_size
        self.tools = list(box.catalog.mcp_tools or ())
        self._entries = {t["name"]: t for t in self.tools}
        self._lanes: dict[str, Lane | None] = {}
        self._wrapped: dict[str, bool] = {}  # `schema_ops.wraps` of each tool's return

    @property
    def catalog(self) -> Catalog:
        return self.box.catalog

    def list_tools(self, cursor: str | None) -> types.ListToolsResult:
        return list_tools_page(self.tools, cursor, self.page_size)

    async def call_tool(
        self, name: str, arguments: Any, context: CallContext | None = None
    ) -> types.CallToolResult:
        """Run one `tools/call` through the toolbox; only an unknown (or forbidden) tool
        raises: MCPError -32602 listing the available tools, after the toolbox has found
        nothing and written that call's `proposed` and `denied` audit events."""
        entry = self._entries.get(name)
        if entry is None:
            if name not in self.box.catalog.descriptors:
                # the toolbox's find refuses it (NOT_FOUND) and audits that, as on any platform;
                # a callable tool this server does not list is refused without being run
                await self.box.acall(name, arguments, context=context)
            available = [t["name"] for t in self.tools]
            raise MCPError(
                INVALID_PARAMS,
                f"unknown tool {quote(name)}; available tools: {', '.join(available) or '(none)'}",
                {"available": available},
            )
        descriptor = self.box.catalog.descriptors[name]
        try:
            lane = self._lane(name)
            if lane is not None:
                given = context if context is not None else CallContext()
                result = _loop_hidden(lambda: lane.call(self.box, arguments, given))
                outputs = self.box.outputs
                if outputs is not None:  # labelled and screened as `Toolbox.call` does
                    result = await outputs.after(arguments, result, given)
            else:
                result = await self.box.acall(name, arguments, context=context)
            wrapped = self._wrapped.get(name)
            if wrapped is None:
                wrapped = self._wrapped[name] = wraps(descriptor.returns.schema_)
            answer = call_tool_result(result, descriptor, entry.get("outputSchema"), wrapped)
            # what the transport will write: a value it cannot would end the server's output
            # for good, so it is found here and costs this call alone
            answer.model_dump_json(by_alias=True, exclude_unset=True)
            return answer
        except BaseException as exc:
            if not handlers_own(exc) and not _cancelled_by_its_handler(exc):
                raise  # the call was cancelled: serving stops, or the client gave up
            trace_id = new_trace_id()
            logging.getLogger("toolgen.runtime").error(
                "[trace %s] the answer to a call of %s cannot be written",
                trace_id,
                name,
                exc_info=exc,
            )
            return call_tool_result(internal_error(name, trace_id), descriptor, None)

    def _lane(self, name: str) -> Lane | None:
        """The tool's short way, when it has one and its handler is known to be sync."""
        if name in self._lanes:
            lane = self._lanes[name]
        else:
            lane = self._lanes[name] = self.box.lane(name)
        if lane is None or lane.timeout is not None:  # a timed call waits on a thread
            return None
        # a retry's backoff (as long as the error asks, up to `MAX_DELAY`) and a fallback
        # (maybe async) would be waited for on this thread, every other request with them
        if lane.retry or name in self.box.fallbacks:
            return None
        return lane if lane.known_sync(self.box) else None


def _loop_hidden(run: Callable[[], T]) -> T:
    """`run()` on this thread with its running loop hidden, as on a worker thread: a sync
    handler that runs an event loop of its own (a sync wrapper of an async client) must not
    find the server's running."""
    loop = asyncio._get_running_loop()
    asyncio._set_running_loop(None)
    try:
        return run()
    finally:
        asyncio._set_running_loop(loop)


def _cancelled_by_its_handler(exc: BaseException) -> bool:
    """Is `exc` a cancellation of the request's task that no cancel scope asked for (the
    client's `notifications/cancelled` and the server's end cancel scopes): one its handler
    made (`asyncio.current_task().cancel()`)? Then the task is uncancelled, and the call is
    `INTERNAL`."""
    if not isinstance(exc, anyio.get_cancelled_exc_class()):
        return False
    if anyio.current_effective_deadline() == -math.inf:  # a scope around the call is cancelled
        return False
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()
    return True


# -- the MCP server and its stdio transport -------------------------------------------------


def build_server(
    dispatcher: Dispatcher,
    scopes: Iterable[str] = (),
    confirm_timeout: float = CONFIRM_TIMEOUT,
    principal: str | None = None,
    answers: Answers | None = None,
) -> Server[Any]:
    """A low-level MCP server whose `tools/list` and `tools/call` are the dispatcher's; a call
    is made by `principal` holding `scopes`, and is confirmed (and passes a step-up) by
    elicitation when the client can be asked and answers within `confirm_timeout` seconds
    (before `answers` says its input ended)."""
    granted = frozenset(scopes)

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return dispatcher.list_tools(params.cursor if params else None)

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session = ctx.session
        confirm = step_up = None
        # elicitation needs a back-channel (a session of 2025-11-25 and before); the stateless
        # protocol asks through `input_required` results, not supported here yet
        if supports_elicitation(session.client_capabilities) and session.can_send_request:

            async def elicit(message: str, schema: dict[str, Any]) -> types.ElicitResult:
                def ask() -> Awaitable[types.ElicitResult]:
                    return session.elicit_form(message, schema, ctx.request_id)

                # once stdin has closed, no answer can come: the call goes on without one
                return await answers.ask_client(ask) if answers is not None else await ask()

            confirm = elicit_confirmation(elicit, confirm_timeout)
            step_up = elicit_step_up(elicit, confirm_timeout)
        context = CallContext(principal=principal, scopes=granted, confirm=confirm, step_up=step_up)
        return await dispatcher.call_tool(params.name, params.arguments, context)

    return Server(
        "toolgen",
        version=__version__,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


class _Stderr(logging.Handler):
    """Writes the runtime's failures to whatever `sys.stderr` is at the time, as
    `toolgen serve: [trace ...] ...` with the traceback."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(f"toolgen serve: {self.format(record)}\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


def log_to_stderr() -> None:
    """Send the runtime's failure log to stderr (once), never to the client."""
    logger = logging.getLogger("toolgen.runtime")
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        logger.addHandler(_Stderr(logging.WARNING))
        logger.propagate = False


async def serve_stdio(
    dispatcher: Dispatcher,
    scopes: Iterable[str] = (),
    confirm_timeout: float = CONFIRM_TIMEOUT,
    principal: str | None = None,
    drain: float = DRAIN_TIMEOUT,
) -> None:
    """Serve the dispatcher over this process's stdin and stdout until stdin closes and every
    request read is answered (`serve_answers`: the calls still pending get `drain` seconds);
    each line of stdin passes `serve_guard.check_line` before the SDK reads it."""
    answers = Answers()
    server = build_server(dispatcher, scopes, confirm_timeout, principal, answers)
    with claimed_stdin() as wire, claimed_stdout() as out:
        text = io.TextIOWrapper(wire, encoding="utf-8", errors="replace")
        lines = GuardedLines(_lines(text), answers, drain)
        stdin = typing.cast("anyio.AsyncFile[str]", lines)
        stdout = None if out is None else typing.cast("anyio.AsyncFile[str]", LineWriter(out))
        try:
            async with stdio_server(stdin=stdin, stdout=stdout) as (read_stream, write_stream):
                lines.answer_on(write_stream)
                answering = AnsweringStream(write_stream, answers)
                await server.run(read_stream, answering, server.create_initialization_options())
                await answer_the_rest(write_stream, answers)
                await write_stream.aclose()  # the transport's writer ends once it wrote all
        except BaseExceptionGroup as group:
            _stopping(group)


#: What the SDK's stdio tasks raise when the session's streams close under them.
_CLOSED = (anyio.BrokenResourceError, anyio.ClosedResourceError)


def _stopping(group: BaseExceptionGroup) -> None:
    """SIGINT cancels serving, which closes the session's streams while the SDK's stdin reader
    may be handing one a line: its `BrokenResourceError` is part of stopping, and the
    cancellation goes on (`serve` then exits 130). Anything else, or the same while nothing
    is stopping, is raised as it is."""
    task = asyncio.current_task()
    _, rest = group.split(_CLOSED)
    if task is None or not task.cancelling() or rest is not None:
        raise group
    raise asyncio.CancelledError


async def _lines(text: typing.TextIO) -> AsyncIterator[str]:
    """The lines of `text`, each read on a worker thread that a cancellation leaves behind
    (SIGINT stops serving at once, not at the client's next line)."""
    while line := await anyio.to_thread.run_sync(text.readline, abandon_on_cancel=True):
        yield line


def _end_within(code: int, grace: float) -> None:
    """End the process with `code` if it has not ended `grace` seconds from now: threads that
    handlers left running (a hung handler's, one a handler started) would otherwise keep it
    alive for ever, as Python waits for them at exit."""

    def end() -> None:
        time.sleep(grace)
        alive = [t.name for t in threading.enumerate() if t.is_alive() and not t.daemon]
        with_threads = f" ({len(alive)} threads still running)" if alive else ""
        try:
            sys.stderr.write(f"toolgen serve: ending without waiting any longer{with_threads}\n")
            sys.stderr.flush()
        finally:
            os._exit(code)

    threading.Thread(target=end, name="toolgen-serve-exit", daemon=True).start()


def search_paths(config: Config) -> list[Path]:
    """Where the handler modules import from: the roots the compiler resolves names from."""
    from toolgen.read.discover import discover, search_roots

    return search_roots(discover(config.sources), config.root)


def _catalogs_hint(out: Path) -> str:
    """When `out` holds one folder per server (a project of several): which to name."""
    found = sorted(p.parent.parent.name for p in out.glob("*/mcp/tools.json"))
    if not found:
        return ""
    return f" (this project has a catalog per server: serve one with --catalog {' | '.join(found)})"


def serve(
    config: Config,
    page_size: int = PAGE_SIZE,
    catalog_name: str | None = None,
    *,
    store: str = DEFAULT_STORE,
    audit: str | None = None,
    scopes: Sequence[str] = (),
    confirm_timeout: float = CONFIRM_TIMEOUT,
    principal: str | None = None,
    timeout: float | None = TIMEOUT,
) -> int:
    """Serve `config.out`'s tools (those of `catalog_name`, in a project of several servers)
    over stdio until the client leaves or SIGINT, with the idempotency `store`, the `audit`
    log (a JSON-lines file; None: the `toolgen.audit` logger), the `principal` who makes every
    call (its idempotency keys are its own) with the `scopes` it holds, and `confirm_timeout`
    seconds for the client to answer a confirmation or step-up request; returns the exit
    code (2 when the generated files cannot be read, 130 after SIGINT). Once it has served,
    the process ends within `EXIT_GRACE` seconds whatever threads handlers left."""
    out = config.out if not catalog_name else config.out / catalog_name
    if catalog_name and ("/" in catalog_name or catalog_name.startswith(".") or not out.is_dir()):
        print(
            f"toolgen serve: no catalog {catalog_name!r}{_catalogs_hint(config.out)}",
            file=sys.stderr,
        )
        return 2
    try:
        box = load_toolbox(out, timeout, store=store, audit=audit, paths=search_paths(config))
    except (GeneratedFilesError, ValueError) as exc:
        print(f"toolgen serve: {exc}", file=sys.stderr)
        return 2
    code = 0
    try:
        anyio.run(
            serve_stdio,
            Dispatcher(box, page_size),
            scopes,
            confirm_timeout,
            principal,
            backend_options={"loop_factory": serve_loop.new_loop},
        )
    except KeyboardInterrupt:  # SIGINT: serving stopped, as asked
        print("toolgen serve: interrupted", file=sys.stderr)
        code = 130
    _end_within(code, EXIT_GRACE)
    return code
