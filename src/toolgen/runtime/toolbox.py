"""`Toolbox`: the tools of a generated folder, and the decision on every proposed call.

`Toolbox.load(...)` reads what `toolgen build` wrote (never compiling again); `acall` (and its
sync twin `call`) runs the steps of `toolgen.runtime.steps` in order - find, parse, validate,
authorize, gate, idempotency, execute - answers with a `ToolResult` and writes an audit event
per decision (`toolgen.runtime.call`); a success of an open-world tool is labelled untrusted,
and a screen given sees each success before the model does (`toolgen.runtime.outputs`). The
toolbox keeps what is made once per tool or once for all: validators, prepared handlers, each
tool's `Lane`, the store, the worker threads.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import random
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from jsonschema import Draft202012Validator

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime import audit as audit_events
from toolgen.runtime.adapters import Job, answer_all, answer_here, bound, bound_here
from toolgen.runtime.adapters.anthropic import anthropic, anthropic_jobs
from toolgen.runtime.adapters.gemini import gemini, gemini_jobs
from toolgen.runtime.adapters.openai import (
    chat_jobs,
    openai_chat,
    openai_responses,
    responses_jobs,
)
from toolgen.runtime.approval import ApprovalUrl
from toolgen.runtime.call import Call, Lane
from toolgen.runtime.catalog import Catalog, load
from toolgen.runtime.context import CallContext
from toolgen.runtime.escapes import handlers_own
from toolgen.runtime.forks import hold_still_at_fork
from toolgen.runtime.handlers import Factory, NotCallable, Prepared, Reacher, prepare
from toolgen.runtime.outputs import Outputs, Screen, open_world
from toolgen.runtime.result import ToolResult, internal_error, new_trace_id
from toolgen.runtime.steps.execute import Fallback
from toolgen.runtime.steps.gate import gated
from toolgen.runtime.steps.idempotency import keyable
from toolgen.runtime.steps.quick import quick_check, quick_value
from toolgen.runtime.steps.validate import input_validator, may_drop
from toolgen.runtime.store import IdempotencyStore, StoreUnavailable, open_store, redacted
from toolgen.runtime.sync import run_sync
from toolgen.schema_patterns import validator_for

#: Threads a toolbox runs sync handlers on at most (started only as parallel calls need them;
#: one a timed-out handler still holds is not free).
WORKERS = 32

#: Threads that timed-out sync handlers may hold in all before `Toolbox.held` starts no new
#: pool: hung handlers then cost calls their wait, not ever more threads.
HELD_LIMIT = 4 * WORKERS

#: Seconds a fork waits for a thread that is reaching a handler (importing it, making its
#: pydantic schema) before it goes on: a child forked in the middle of that could hang on a
#: library's lock; a factory may take any time, and the fork must not wait for it forever.
FORK_WAIT = 2.0

#: Threads the sync handlers of one tool may hold at once, running or timed out and still
#: running (`Toolbox.occupy`): a tool whose handlers hang leaves the rest to the others.
PER_TOOL = WORKERS // 2

#: Set on the threads of `Toolbox.workers`.
_handler_thread = threading.local()


def _mark() -> None:
    _handler_thread.marked = True


log = logging.getLogger("toolgen.runtime")

#: The context of a call given none (immutable, its metadata too: it serves every such call).
_NO_CONTEXT = CallContext(metadata=MappingProxyType({}))

#: Seconds per call: one number, or {"tool": seconds} (others "*"'s, else 30); None is none.
Timeout = float | None | Mapping[str, float | None]


class Toolbox:
    """The tools of one catalog and the decision on every call; see `Toolbox.load`.

    `sleep` and `random` are the waits and the jitter of retries (tests replace them).
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        store: str | IdempotencyStore = "sqlite:///.toolgen/runtime.db",
        audit: str | Path | logging.Logger | Callable[[dict[str, Any]], None] | None = None,
        handlers: Mapping[str, Callable[..., Any]] | None = None,
        factory: Factory | None = None,
        timeout: Timeout = 30.0,
        max_retries: int = 3,
        fallbacks: Mapping[str, Fallback] | None = None,
        max_concurrency: int = 8,
        audit_arguments: bool = False,
        idempotency_ttl: float = 86400.0,
        in_flight_ttl: float = 300.0,
        audit_secret: str | bytes | None = None,
        approval_url: ApprovalUrl | None = None,
        screen: Screen | None = None,
    ) -> None:
        # the URL is read now (a bad one fails the load, not every keyed call after it);
        # `open_store` opens nothing, and the store is taken into use at the first keyed call
        self._unopened: IdempotencyStore | None = None
        if isinstance(store, str):
            try:
                self._unopened = open_store(store)
            except ValueError as exc:
                raise ValueError(f"store {redacted(store)!r} is not a store URL: {exc}") from None
        _check_lease(timeout, in_flight_ttl, catalog)
        for given, what in ((approval_url, "approval_url"), (screen, "screen")):
            if given is not None and not callable(given):
                raise TypeError(f"{what} must be callable, not {type(given).__name__}")
        self.catalog = catalog
        self.audit = audit_events.sink_for(audit)
        self.audit_key = audit_events.keyed(audit_events.secret_for(audit_secret))
        # a copy: a mapping the caller changes later would escape the checks above
        self._timeout = MappingProxyType(dict(timeout)) if isinstance(timeout, Mapping) else timeout
        self.max_retries = max_retries
        self.fallbacks: Mapping[str, Fallback] = dict(fallbacks or {})
        self.max_concurrency = max_concurrency
        self.audit_arguments = audit_arguments
        self.idempotency_ttl = idempotency_ttl
        self.in_flight_ttl = in_flight_ttl
        self.approval_url = approval_url
        untrusted = frozenset(d.name for d in catalog.descriptors.values() if open_world(d))
        # None when there is nothing to label or screen: a call then costs one `is None`
        self._outputs = (
            Outputs(self, screen, untrusted) if screen is not None or untrusted else None
        )
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        self.random: Callable[[], float] = random.random
        self._store_spec = store
        self._store: IdempotencyStore | None = None if isinstance(store, str) else store
        self._overrides = dict(handlers or {})
        self._reacher = Reacher(factory)
        self._prepared: dict[str, Prepared | NotCallable] = {}
        self._validators: dict[str, Draft202012Validator] = {}
        self._quick: dict[str, Callable[[dict[str, Any]], bool] | None] = {}
        self._returns: dict[str, Draft202012Validator | None] = {}
        self._quick_returns: dict[str, Callable[[Any], bool] | None] = {}
        self._lanes: dict[str, Lane | None] = {}
        self._workers: concurrent.futures.ThreadPoolExecutor | None = None
        self._workers_pid = 0
        self._held = 0  # threads of `_workers` that timed-out handlers still hold
        self._held_total = 0  # and of every pool of this toolbox
        self._occupied: dict[str, int] = {}  # threads each tool's sync handlers hold
        self._occupied_pid = os.getpid()
        # what is made once (the store, handlers and their instances, the pool) is made under
        # it: threads calling at once would each make their own (two stores: one key, two runs);
        # reentrant, as a factory or a handler's import may reach the toolbox again
        self._once = threading.RLock()
        self._fork_waited = False
        hold_still_at_fork(self)

    def _before_fork(self) -> None:
        # a thread that reaches a handler may be inside a library whose own locks a fork
        # would leave taken for good (pydantic-core's, an import's): wait for it, a while
        self._fork_waited = self._once.acquire(timeout=FORK_WAIT)

    def _after_fork_in_parent(self) -> None:
        if self._fork_waited:
            self._fork_waited = False
            self._once.release()

    def _forked(self) -> None:
        # another thread may hold the lock still (a factory that took longer than the wait)
        self._once = threading.RLock()
        self._fork_waited = False

    @classmethod
    def load(
        cls,
        folder: str | Path = "generated",
        *,
        catalog: str | None = None,
        store: str | IdempotencyStore = "sqlite:///.toolgen/runtime.db",
        audit: str | Path | logging.Logger | Callable[[dict[str, Any]], None] | None = None,
        handlers: Mapping[str, Callable[..., Any]] | None = None,
        factory: Factory | None = None,
        paths: Iterable[str | Path] = (),
        timeout: Timeout = 30.0,
        max_retries: int = 3,
        fallbacks: Mapping[str, Fallback] | None = None,
        max_concurrency: int = 8,
        audit_arguments: bool = False,
        idempotency_ttl: float = 86400.0,
        in_flight_ttl: float = 300.0,
        audit_secret: str | bytes | None = None,
        approval_url: ApprovalUrl | None = None,
        screen: Screen | None = None,
    ) -> Toolbox:
        """The tools `toolgen build` wrote into `folder` (`folder/<catalog>/` in a project of
        several servers).

        - `store`: the idempotency store, a URL (`memory://`, `sqlite:///path`,
          `redis://host:port/db`, `rediss://...`) or an `IdempotencyStore`; the URL is checked
          here, the store opened at the first keyed call;
        - `audit`: None (logger `toolgen.audit`: a handler on it collects the events, the
          root's do not), a JSON-lines file path (kept open until `aclose`), a logger or a
          (synchronous) callable; `audit_arguments`: put raw arguments in events (else only
          their fingerprint, keyed by `audit_secret`: at least 16 bytes, else the environment's
          `TOOLGEN_AUDIT_SECRET`, else a random secret of this process);
        - `handlers`: {"tool": callable} used instead of importing the descriptor's source;
          `factory(cls)`: the instance for methods of classes that need constructor arguments;
          `paths`: folders put at the front of `sys.path` to import handlers from;
        - `timeout`: seconds per call (one number, or {"tool": seconds} with {"*": seconds}
          for the others, else 30);
          None is no timeout: a sync handler called from sync code (`call`) then runs on the
          calling thread, like a direct call (with a timeout it runs on a worker thread, so
          that the call can answer `TIMEOUT` while it still runs); a tool that can be given
          an idempotency key needs a timeout below `in_flight_ttl`;
          `max_retries`: retries of a retryable error (idempotent tools and keyed calls only;
          `TIMEOUT` gets at most one, `INTERNAL` two, as their recoveries say);
          `fallbacks`: {"tool": callable(arguments, error) -> data};
        - `max_concurrency`: parallel calls of one model turn (the platform adapters);
        - `idempotency_ttl`: how long a finished key replays; `in_flight_ttl`: the lease of a
          running call (a process killed mid-call frees its key after it);
        - `approval_url(request)`: the URL where a person can approve a call answered
          `REQUIRES_HUMAN_APPROVAL`, put into its error object (`toolgen.runtime.approval`);
        - `screen(tool, result, context)`: sees each success before the model does, and lets
          it pass (None), replaces its data (`Replace`) or withholds it (`Block`:
          `OUTPUT_BLOCKED`) (`toolgen.runtime.outputs`, which also labels the data of
          `open_world` tools as untrusted).

        Raises `GeneratedFilesError` when the folder cannot be read, TypeError for an async
        audit callable or an `approval_url` or `screen` that is not callable, ValueError for
        a store URL that is not one of those, an audit secret shorter than 16 bytes, or for a
        timeout not below `in_flight_ttl`, or none for a tool that can be given a key (a call
        still running when its lease ends would let another call with its key run too).
        """
        found = load(folder, catalog)
        for path in reversed([str(p) for p in paths]):
            if path not in sys.path:
                sys.path.insert(0, path)
        return cls(
            found,
            store=store,
            audit=audit,
            handlers=handlers,
            factory=factory,
            timeout=timeout,
            max_retries=max_retries,
            fallbacks=fallbacks,
            max_concurrency=max_concurrency,
            audit_arguments=audit_arguments,
            idempotency_ttl=idempotency_ttl,
            in_flight_ttl=in_flight_ttl,
            audit_secret=audit_secret,
            approval_url=approval_url,
            screen=screen,
        )

    # -- what the tools are -----------------------------------------------------------------

    @property
    def tools(self) -> list[ToolDescriptor]:
        """The callable (not forbidden) tools' descriptors, in catalog order."""
        return list(self.catalog.descriptors.values())

    @property
    def names(self) -> list[str]:
        """The callable tools' names, in catalog order."""
        return self.catalog.names

    # -- calling ----------------------------------------------------------------------------

    def call(
        self, name: str, arguments: Any = None, *, context: CallContext | None = None
    ) -> ToolResult:
        """`acall` for synchronous code: on an event loop this thread keeps for its calls, or,
        inside a running event loop, on a worker thread's own loop (so it never blocks on the
        caller's loop); with no loop running here, the short way when the tool has one
        (`Toolbox.lane`)."""
        context = context or _NO_CONTEXT
        try:
            lane = self._lanes.get(name)
        except TypeError:  # a name that is no string: the whole way answers it
            lane = None
        else:
            if lane is None and name not in self._lanes:
                lane = self.lane(name)
        # inside a running loop (a notebook's, say) a handler that runs a loop of its own
        # must not find that one running: it takes a worker thread, as before
        # (`_get_running_loop` is what `get_running_loop` asks, without raising for "none")
        if (
            lane is not None
            and asyncio._get_running_loop() is None
            # a handler calling a timed tool waits on its own loop's threads (`workers`)
            and (lane.timeout is None or not getattr(_handler_thread, "marked", False))
        ):
            if self._outputs is None:
                return lane.call(self, arguments, context)
            return self._outputs.here(arguments, lane.call(self, arguments, context), context)
        try:
            return run_sync(lambda: self.acall(name, arguments, context=context))
        except BaseException as exc:
            # nobody but the handler cancels the task a sync call runs in, and what a task
            # the handler started raises out of the loop (asyncio lets a SystemExit or a
            # KeyboardInterrupt of any task end the loop's run) is the handler's too; the
            # call's events are written, its key freed (the call was cancelled as it ended)
            if not handlers_own(exc):
                raise
            trace_id = context.trace_id or new_trace_id()
            log.error("[trace %s] a call of %r ended its event loop", trace_id, name, exc_info=exc)
            return internal_error(name if isinstance(name, str) else "", trace_id)

    def begin(
        self, name: str, arguments: Any = None, *, context: CallContext | None = None
    ) -> Callable[[], ToolResult]:
        """`call` in two halves, for a turn's calls from synchronous code: the handler of a
        tool with a timeout set going now on its worker thread (`Lane.begin`), the function
        returned waiting for its answer; any other call made when that function is called,
        so that it runs on this thread while those handlers run on theirs."""
        context = context or _NO_CONTEXT
        lane = self._lanes.get(name) if isinstance(name, str) else None
        if (
            lane is not None
            and lane.timeout is not None
            and asyncio._get_running_loop() is None
            and not getattr(_handler_thread, "marked", False)
        ):
            if self._outputs is None:
                return lane.begin(self, arguments, context)
            return self._outputs.begun(arguments, lane.begin(self, arguments, context), context)
        return lambda: self.call(name, arguments, context=context)

    async def acall(
        self, name: str, arguments: Any = None, *, context: CallContext | None = None
    ) -> ToolResult:
        """Decide one proposed call: `arguments` is a dict, the raw JSON text, or None."""
        context = context or _NO_CONTEXT
        call = Call(self, context, name, arguments)
        try:
            result = await call.run()
        except BaseException as exc:
            if handlers_own(exc):  # a step failed unforeseen: the model still gets an answer
                return call.crashed(exc)
            # the caller gave up, or a Ctrl-C: the decision still ends audited
            cancelled = isinstance(exc, asyncio.CancelledError)
            call.record("failed", reason="cancelled" if cancelled else "interrupted")
            raise
        if self._outputs is None:
            return result
        return await self._outputs.after(arguments, result, context)

    async def aclose(self) -> None:
        """Close the store, if this toolbox opened it, and the audit file, and let the threads
        of sync handlers end (a later call starts new ones, and opens the file again)."""
        if isinstance(self.audit, audit_events.JsonLinesSink):
            self.audit.close()
        if self._workers is not None:
            self._workers.shutdown(wait=False)
            self._workers = None
        if self._store is not None and isinstance(self._store_spec, str):
            await self._store.aclose()
            self._store = None

    # -- the parts the steps need -------------------------------------------------------------

    @property
    def outputs(self) -> Outputs | None:
        """What labels and screens the answers (`toolgen.runtime.outputs`); None when no tool
        is to be labelled and no screen was given. A caller that calls a `Lane` itself
        passes its answers through it (`toolgen serve`)."""
        return self._outputs

    @property
    def timeout(self) -> Timeout:
        """Seconds per call, as given to the load (which checked them against the keys'
        leases, so they cannot be changed after it)."""
        return self._timeout

    def timeout_for(self, name: str) -> float | None:
        """The timeout of a call of `name`, in seconds; None for none."""
        return _seconds(self._timeout, name)

    def lane(self, name: str) -> Lane | None:
        """The short way of a sync call of `name` (see `toolgen.runtime.call`), found from its
        descriptor once, or None when its calls take the whole way: an unknown tool, one
        gated, guarded by a step-up, with a dry run, or one that can be given a key. A tool
        with a timeout has one too: its handler runs on a worker thread that the caller's
        thread waits for, with no event loop between them."""
        descriptor = self.catalog.descriptors.get(name) if isinstance(name, str) else None
        if descriptor is None:
            return None  # not kept: a model may propose any number of unknown names
        lane = None
        try:
            if not (
                gated(descriptor)
                or descriptor.step_up_auth
                or descriptor.dry_run is not None
                or keyable(descriptor)
            ):
                hints = descriptor.idempotency
                lane = Lane(
                    descriptor,
                    self.quick_check(descriptor),
                    retry=bool(hints.idempotent) or bool(hints.safe),
                    nulls=may_drop(descriptor.parameters),
                    timeout=self.timeout_for(name),
                )
        except Exception as exc:  # a hand-edited descriptor, say: the whole way answers
            log.warning("tool %s takes the whole way: its short way failed (%s)", name, exc)
        self._lanes[name] = lane
        return lane

    def validator(self, descriptor: ToolDescriptor) -> Draft202012Validator:
        """The tool's input validator, compiled once."""
        found = self._validators.get(descriptor.name)
        if found is None:
            found = self._validators[descriptor.name] = input_validator(descriptor.parameters)
        return found

    def quick_check(self, descriptor: ToolDescriptor) -> Callable[[dict[str, Any]], bool] | None:
        """The tool's quick check of valid arguments (`steps.quick`), compiled once."""
        name = descriptor.name
        if name not in self._quick:
            self._quick[name] = quick_check(descriptor.parameters)
        return self._quick[name]

    def returns(self, descriptor: ToolDescriptor) -> Draft202012Validator | None:
        """The tool's return-schema validator (None when it returns nothing), compiled once,
        its patterns linear (`toolgen.schema_patterns`)."""
        if descriptor.name not in self._returns:
            schema = descriptor.returns.schema_
            self._returns[descriptor.name] = (
                validator_for(schema) if schema and schema != {"type": "null"} else None
            )
        return self._returns[descriptor.name]

    def quick_returns(self, descriptor: ToolDescriptor) -> Callable[[Any], bool] | None:
        """The quick check of the tool's return value (`steps.quick`), compiled once."""
        name = descriptor.name
        if name not in self._quick_returns:
            self._quick_returns[name] = quick_value(descriptor.returns.schema_)
        return self._quick_returns[name]

    def prepared(self, descriptor: ToolDescriptor) -> Prepared:
        """The tool's handler, reached and prepared once; `NotCallable` when it cannot be."""
        name = descriptor.name
        found = self._prepared.get(name)
        if found is None:
            with self._once:
                found = self._prepared.get(name)
                if found is None:
                    found = self._prepared[name] = self._prepare(descriptor)
        if isinstance(found, NotCallable):
            raise found
        return found

    def was_prepared(self, name: str) -> bool:
        """Was the handler of `name` reached and prepared already (by a call that got as far
        as it)? Never reaches it."""
        return isinstance(self._prepared.get(name), Prepared)

    def _prepare(self, descriptor: ToolDescriptor) -> Prepared | NotCallable:
        source = descriptor.source
        try:
            fn = self._overrides.get(descriptor.name) or self._reacher.resolve(
                source.module, source.qualname
            )
            return prepare(fn, descriptor.parameters)
        except NotCallable as exc:
            return exc
        except BaseException as exc:  # import error, missing attribute, a module's sys.exit ...
            if not handlers_own(exc):
                raise
            try:
                said = str(exc)
            except BaseException:  # an exception whose text fails too
                said = "its text cannot be shown"
            return NotCallable(
                f"{source.module}.{source.qualname} cannot be imported "
                f"({type(exc).__name__}: {said})"
            )

    def workers(self) -> concurrent.futures.ThreadPoolExecutor | None:
        """The threads sync handlers run on, started as calls need them: the toolbox's own,
        whichever event loop calls, so that a thread serves many calls (a sync call's loop
        would otherwise start its own) and handlers do not queue behind the loop's other
        work in its default executor. None on a handler's thread: a handler that calls a
        tool again runs it on its own loop's default executor, never waiting for a thread
        of a pool that the calling handlers may have filled."""
        if getattr(_handler_thread, "marked", False):
            return None
        workers = self._workers
        if workers is not None and self._workers_pid == os.getpid():
            return workers
        with self._once:
            if self._workers is None or self._workers_pid != os.getpid():
                # a forked child has none of the parent's threads, whatever the pool believes
                if self._workers_pid != os.getpid():
                    self._held_total = 0
                self._workers = concurrent.futures.ThreadPoolExecutor(
                    max_workers=WORKERS, thread_name_prefix="toolgen-handler", initializer=_mark
                )
                self._workers_pid = os.getpid()
                self._held = 0
            return self._workers

    def held(
        self, pool: concurrent.futures.Executor | None, ended: concurrent.futures.Future[Any]
    ) -> None:
        """A timed-out sync handler still holds a thread of `pool` (one of the toolbox's)
        until `ended`. Once half of the current pool is held so, later calls get a new pool:
        handlers that hang cannot starve every call after them. The old pool is not shut
        down (a call that took it before may still submit to it); its threads end as their
        handlers return and it is collected. Each hung handler still holds its thread, as
        nothing can stop a thread: past `HELD_LIMIT` held in all, no new pool is started, and
        calls wait for the pool's threads (and time out) as a full pool makes them."""
        if pool is None:
            return
        with self._once:
            self._held_total += 1
            if pool is self._workers:
                self._held += 1
                if self._held >= max(1, WORKERS // 2) and self._held_total < HELD_LIMIT:
                    log.warning(
                        "%d sync handlers that timed out still run; later calls get new threads",
                        self._held_total,
                    )
                    self._workers = None

        def release(_: concurrent.futures.Future[Any]) -> None:
            with self._once:
                self._held_total -= 1
                if pool is self._workers:
                    self._held -= 1

        ended.add_done_callback(release)

    def occupy(self, name: str) -> Callable[[], None] | None:
        """One thread for a sync handler of `name`: its release (once the thread ended), or
        None when the tool's handlers hold `PER_TOOL` threads already - then the call is
        answered at once (`UNAVAILABLE`, retryable), so that handlers that hang cost their
        own tool's calls, not every sync tool's thread."""
        with self._once:
            if self._occupied_pid != os.getpid():  # a forked child has none of the threads
                self._occupied, self._occupied_pid = {}, os.getpid()
            counts = self._occupied
            taken = counts.get(name, 0)
            if taken >= PER_TOOL:
                return None
            counts[name] = taken + 1

        def release() -> None:
            with self._once:
                counts[name] -= 1

        return release

    def store(self) -> IdempotencyStore:
        """The idempotency store, opened on first use; `StoreUnavailable` when it cannot be."""
        found = self._store
        if found is not None:
            return found
        with self._once:
            if self._store is None:
                assert isinstance(self._store_spec, str)
                unopened, self._unopened = self._unopened, None
                try:
                    self._store = unopened or open_store(self._store_spec)
                except StoreUnavailable:
                    raise
                except Exception as exc:
                    raise StoreUnavailable(f"cannot open the store: {type(exc).__name__}") from exc
            return self._store

    # -- platform adapters ------------------------------------------------------------------
    # One model turn's tool calls in, one result item per call out, in the calls' order and
    # under their ids, at most `max_concurrency` at a time (`toolgen.runtime.adapters`).

    async def ahandle_openai_chat(
        self, tool_calls: Iterable[Any] | None, *, context: CallContext | None = None
    ) -> list[dict[str, Any]]:
        """OpenAI Chat Completions: `message.tool_calls` -> `{"role": "tool", "tool_call_id",
        "content"}` messages."""
        return await openai_chat(tool_calls, bound(self.acall, context), self.max_concurrency)

    async def ahandle_openai_responses(
        self, output: Iterable[Any] | None, *, context: CallContext | None = None
    ) -> list[dict[str, Any]]:
        """OpenAI Responses: the `function_call` items of `response.output` ->
        `{"type": "function_call_output", "call_id", "output"}` items (others are skipped)."""
        return await openai_responses(output, bound(self.acall, context), self.max_concurrency)

    async def ahandle_anthropic(
        self, content: Iterable[Any] | None, *, context: CallContext | None = None
    ) -> list[dict[str, Any]]:
        """Anthropic Messages: the `tool_use` blocks of a message -> `tool_result` blocks
        (`is_error` for an error envelope). Given the message itself (not only its
        `content`), a reply cut off at `max_tokens` runs none of its calls: each is answered
        with a `VALIDATION_ERROR`, as its input may be incomplete."""
        return await anthropic(content, bound(self.acall, context), self.max_concurrency)

    async def ahandle_gemini(
        self, parts: Iterable[Any] | None, *, context: CallContext | None = None
    ) -> list[dict[str, Any]]:
        """Gemini: the `function_call` parts of `candidate.content.parts` ->
        `{"function_response": {"id"?, "name", "response"}}` parts."""
        return await gemini(parts, bound(self.acall, context), self.max_concurrency)

    def handle_openai_chat(
        self, tool_calls: Iterable[Any] | None, *, context: CallContext | None = None
    ) -> list[dict[str, Any]]:
        """`ahandle_openai_chat` for synchronous code (`Toolbox._turn`)."""
        return self._turn(chat_jobs(tool_calls), context)

    def handle_openai_responses(
        self, output: Iterable[Any] | None, *, context: CallContext | None = None
    ) -> list[dict[str, Any]]:
        """`ahandle_openai_responses` for synchronous code (`Toolbox._turn`)."""
        return self._turn(responses_jobs(output), context)

    def handle_anthropic(
        self, content: Iterable[Any] | None, *, context: CallContext | None = None
    ) -> list[dict[str, Any]]:
        """`ahandle_anthropic` for synchronous code (`Toolbox._turn`)."""
        return self._turn(anthropic_jobs(content), context)

    def handle_gemini(
        self, parts: Iterable[Any] | None, *, context: CallContext | None = None
    ) -> list[dict[str, Any]]:
        """`ahandle_gemini` for synchronous code (`Toolbox._turn`)."""
        return self._turn(gemini_jobs(parts), context)

    def _turn(self, jobs: list[Job], context: CallContext | None) -> list[dict[str, Any]]:
        """The answers of one turn's calls from synchronous code. When every call of it has
        a short way (`Toolbox._here`), from this thread with no event loop (`begin`): the
        handlers of tools with a timeout set going on worker threads together (at most
        `max_concurrency` at a time) and waited for in turn, the others run on this thread
        one after another meanwhile (running them at once would only add a thread hop per
        call). Else
        as `ahandle_*` answers them, concurrently, on this thread's loop. Either way the
        same answers, under the same ids and contexts, and the same events; only their order
        between calls differs."""
        if asyncio._get_running_loop() is None and all(self._here(job) for job in jobs):
            return answer_here(jobs, bound_here(self.begin, context), self.max_concurrency)
        return run_sync(lambda: answer_all(jobs, bound(self.acall, context), self.max_concurrency))

    def _here(self, job: Job) -> bool:
        """May this call of a turn be made from the calling thread with no loop? Yes for one
        the adapter answers itself, for a tool the catalog has not (answered at once: not
        found), and for one with a short way (`Toolbox.lane`) whose handler is not known to
        be async (it may wait on a loop, and then the turn's calls should wait together); a
        handler not reached yet is taken to be sync: reaching it here would import it before
        any call of it got that far, and an async one found later takes the whole way on
        this thread, answered alike."""
        if job.refused is not None:
            return True
        name = job.name
        if name not in self.catalog.descriptors:
            return True
        lane = self._lanes[name] if name in self._lanes else self.lane(name)
        return lane is not None and not lane.off_thread


#: The key of a timeout mapping that gives the tools it does not name their timeout.
OTHERS = "*"


def _seconds(timeout: Timeout, name: str) -> float | None:
    """The timeout of a call of `name`, in seconds; None for none."""
    if isinstance(timeout, Mapping):
        timeout = timeout[name] if name in timeout else timeout.get(OTHERS, 30.0)
    return None if timeout is None else float(timeout)


def _check_lease(timeout: Timeout, in_flight_ttl: float, catalog: Catalog) -> None:
    """Every call must be able to end within its key's lease: refuse a timeout that is not,
    and no timeout for a tool that can be given a key."""
    given = dict(timeout) if isinstance(timeout, Mapping) else {OTHERS: timeout}
    for name, seconds in {**given, OTHERS: given.get(OTHERS, 30.0)}.items():
        if seconds is not None and float(seconds) >= in_flight_ttl:
            which = "the timeout" if name == OTHERS else f"the timeout of {name}"
            raise ValueError(
                f"{which} ({float(seconds):g} s) must be below in_flight_ttl "
                f"({in_flight_ttl:g} s): a keyed call still running when its lease ends "
                "lets another call with the same key run"
            )
    unbounded = [
        d.name
        for d in catalog.descriptors.values()
        if keyable(d) and _seconds(timeout, d.name) is None
    ]
    if unbounded:
        names = ", ".join(unbounded)
        bounded = ", ".join(f'"{name}": 30.0' for name in unbounded)
        they = "it needs a timeout" if len(unbounded) == 1 else "each needs a timeout"
        raise ValueError(
            f"{names} can be given an idempotency key, so {they} below in_flight_ttl "
            f"({in_flight_ttl:g} s), not None: a keyed call still running when its lease "
            "ends lets another call with the same key run "
            f'(timeout={{"*": None, {bounded}}}: none for the others)'
        )
