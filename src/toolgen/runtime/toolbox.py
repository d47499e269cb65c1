"""`Toolbox`: the tools of a generated folder, and the decision on every proposed call.

`Toolbox.load(...)` reads what `toolgen build` wrote (never compiling again); `acall` (and its
sync twin `call`) runs the steps of `toolgen.runtime.steps` in order - find, parse, validate,
authorize, gate, idempotency, execute - answers with a `ToolResult` and writes an audit event
per decision.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import random
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime import audit as audit_events
from toolgen.runtime.adapters import bound
from toolgen.runtime.adapters.anthropic import anthropic
from toolgen.runtime.adapters.gemini import gemini
from toolgen.runtime.adapters.openai import openai_chat, openai_responses
from toolgen.runtime.audit import arguments_sha256
from toolgen.runtime.catalog import Catalog, load
from toolgen.runtime.context import CallContext
from toolgen.runtime.handlers import Factory, NotCallable, Prepared, Reacher, prepare
from toolgen.runtime.result import ToolResult, internal_error, new_trace_id
from toolgen.runtime.steps.authorize import authorize
from toolgen.runtime.steps.execute import Fallback, execute, fall_back, invoke, log_failure
from toolgen.runtime.steps.find import find
from toolgen.runtime.steps.gate import (
    confirmation_request,
    for_real,
    gate,
    gated,
    is_dry_run,
)
from toolgen.runtime.steps.idempotency import claim, key_for, store_key, unavailable
from toolgen.runtime.steps.parse import parse
from toolgen.runtime.steps.quick import quick_check, quick_value
from toolgen.runtime.steps.validate import input_validator, validate
from toolgen.runtime.store import IdempotencyStore, StoreUnavailable, open_store, redacted
from toolgen.runtime.sync import run_sync

#: Threads a toolbox runs sync handlers on at most (started only as parallel calls need them;
#: one a timed-out handler still holds is not free).
WORKERS = 32

#: Set on the threads of `Toolbox.workers`.
_handler_thread = threading.local()


def _mark() -> None:
    _handler_thread.marked = True


log = logging.getLogger("toolgen.runtime")


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
        timeout: float | Mapping[str, float] = 30.0,
        max_retries: int = 3,
        fallbacks: Mapping[str, Fallback] | None = None,
        max_concurrency: int = 8,
        audit_arguments: bool = False,
        idempotency_ttl: float = 86400.0,
        in_flight_ttl: float = 300.0,
    ) -> None:
        # the URL is read now (a bad one fails the load, not every keyed call after it);
        # `open_store` opens nothing, and the store is taken into use at the first keyed call
        self._unopened: IdempotencyStore | None = None
        if isinstance(store, str):
            try:
                self._unopened = open_store(store)
            except ValueError as exc:
                raise ValueError(f"store {redacted(store)!r} is not a store URL: {exc}") from None
        _check_lease(timeout, in_flight_ttl)
        self.catalog = catalog
        self.audit = audit_events.sink_for(audit)
        self.timeout = timeout
        self.max_retries = max_retries
        self.fallbacks: Mapping[str, Fallback] = dict(fallbacks or {})
        self.max_concurrency = max_concurrency
        self.audit_arguments = audit_arguments
        self.idempotency_ttl = idempotency_ttl
        self.in_flight_ttl = in_flight_ttl
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
        self._workers: concurrent.futures.ThreadPoolExecutor | None = None
        self._workers_pid = 0
        # what is made once (the store, handlers and their instances, the pool) is made under
        # it: threads calling at once would each make their own (two stores: one key, two runs);
        # reentrant, as a factory or a handler's import may reach the toolbox again
        self._once = threading.RLock()

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
        timeout: float | Mapping[str, float] = 30.0,
        max_retries: int = 3,
        fallbacks: Mapping[str, Fallback] | None = None,
        max_concurrency: int = 8,
        audit_arguments: bool = False,
        idempotency_ttl: float = 86400.0,
        in_flight_ttl: float = 300.0,
    ) -> Toolbox:
        """The tools `toolgen build` wrote into `folder` (`folder/<catalog>/` in a project of
        several servers).

        - `store`: the idempotency store, a URL (`memory://`, `sqlite:///path`,
          `redis://host:port/db`, `rediss://...`) or an `IdempotencyStore`; the URL is checked
          here, the store opened at the first keyed call;
        - `audit`: None (logger `toolgen.audit`), a JSON-lines file path, a logger or a
          callable; `audit_arguments`: put raw arguments in events (else their sha256 only);
        - `handlers`: {"tool": callable} used instead of importing the descriptor's source;
          `factory(cls)`: the instance for methods of classes that need constructor arguments;
          `paths`: folders put at the front of `sys.path` to import handlers from;
        - `timeout`: seconds per call (one number, or {"tool": seconds} with 30 for others);
          `max_retries`: retries of a retryable error (idempotent tools and keyed calls only);
          `fallbacks`: {"tool": callable(arguments, error) -> data};
        - `max_concurrency`: parallel calls of one model turn (the platform adapters);
        - `idempotency_ttl`: how long a finished key replays; `in_flight_ttl`: the lease of a
          running call (a process killed mid-call frees its key after it).

        Raises `GeneratedFilesError` when the folder cannot be read, ValueError for a store
        URL that is not one of those, or for a timeout not below `in_flight_ttl` (a call still
        running when its lease ends would let another call with its key run too).
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
        caller's loop)."""
        return run_sync(lambda: self.acall(name, arguments, context=context))

    async def acall(
        self, name: str, arguments: Any = None, *, context: CallContext | None = None
    ) -> ToolResult:
        """Decide one proposed call: `arguments` is a dict, the raw JSON text, or None."""
        context = context or CallContext()
        call = _Call(self, context, name, arguments)
        try:
            return await call.run()
        except asyncio.CancelledError:  # the caller gave up: the decision still ends audited
            call.record("failed", reason="cancelled")
            raise
        except Exception as exc:  # a step failed unforeseen: the model still gets an answer
            log_failure(call.trace_id, f"deciding a call of {name!r} failed", exc)
            result = internal_error(str(name), call.trace_id)
            call.record("failed", result)
            return result

    async def aclose(self) -> None:
        """Close the store, if this toolbox opened it, and let the threads of sync handlers
        end (a later call starts new ones)."""
        if self._workers is not None:
            self._workers.shutdown(wait=False)
            self._workers = None
        if self._store is not None and isinstance(self._store_spec, str):
            await self._store.aclose()
            self._store = None

    # -- the parts the steps need -------------------------------------------------------------

    def timeout_for(self, name: str) -> float:
        """The timeout of a call of `name`, in seconds."""
        if isinstance(self.timeout, Mapping):
            return float(self.timeout.get(name, 30.0))
        return float(self.timeout)

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
        """The tool's return-schema validator (None when it returns nothing), compiled once."""
        if descriptor.name not in self._returns:
            schema = descriptor.returns.schema_
            self._returns[descriptor.name] = (
                Draft202012Validator(schema) if schema and schema != {"type": "null"} else None
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

    def _prepare(self, descriptor: ToolDescriptor) -> Prepared | NotCallable:
        source = descriptor.source
        try:
            fn = self._overrides.get(descriptor.name) or self._reacher.resolve(
                source.module, source.qualname
            )
            return prepare(fn, descriptor.parameters)
        except NotCallable as exc:
            return exc
        except Exception as exc:  # import error, missing attribute ...
            return NotCallable(
                f"{source.module}.{source.qualname} cannot be imported "
                f"({type(exc).__name__}: {exc})"
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
                self._workers = concurrent.futures.ThreadPoolExecutor(
                    max_workers=WORKERS, thread_name_prefix="toolgen-handler", initializer=_mark
                )
                self._workers_pid = os.getpid()
            return self._workers

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
        """Anthropic Messages: the `tool_use` blocks of `message.content` -> `tool_result`
        blocks (`is_error` for an error envelope)."""
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
        """`ahandle_openai_chat` for synchronous code."""
        return run_sync(lambda: self.ahandle_openai_chat(tool_calls, context=context))

    def handle_openai_responses(
        self, output: Iterable[Any] | None, *, context: CallContext | None = None
    ) -> list[dict[str, Any]]:
        """`ahandle_openai_responses` for synchronous code."""
        return run_sync(lambda: self.ahandle_openai_responses(output, context=context))

    def handle_anthropic(
        self, content: Iterable[Any] | None, *, context: CallContext | None = None
    ) -> list[dict[str, Any]]:
        """`ahandle_anthropic` for synchronous code."""
        return run_sync(lambda: self.ahandle_anthropic(content, context=context))

    def handle_gemini(
        self, parts: Iterable[Any] | None, *, context: CallContext | None = None
    ) -> list[dict[str, Any]]:
        """`ahandle_gemini` for synchronous code."""
        return run_sync(lambda: self.ahandle_gemini(parts, context=context))


class _Call:
    """One call's way through the steps, and its audit events."""

    def __init__(self, box: Toolbox, context: CallContext, name: str, arguments: Any) -> None:
        self.box = box
        self.context = context
        self.name = name
        self.raw = arguments
        self.trace_id = context.trace_id or new_trace_id()
        self.descriptor: ToolDescriptor | None = None
        self.arguments: dict[str, Any] | None = None
        self.started = time.perf_counter()
        self._hashed: tuple[Any, str] | None = None  # (what was hashed, its sha256)
        # the end of a timed-out sync handler's thread that still runs
        self.stuck: concurrent.futures.Future[None] | None = None

    def record(
        self, decision: str, result: ToolResult | None = None, reason: str | None = None
    ) -> None:
        """Write one audit event; a sink that fails is logged, and the call goes on."""
        if not audit_events.wanted(self.box.audit):
            return
        descriptor = self.descriptor
        error = result.error if result is not None else None
        outcome = None
        if result is not None:
            outcome = "ok" if result.ok else "error"
        shown = self.arguments if self.arguments is not None else self.raw
        found = audit_events.event(
            decision,
            trace_id=self.trace_id,
            tool=str(self.name),
            principal=self.context.principal,
            audit_event=descriptor.audit_event if descriptor else None,
            risk=descriptor.risk if descriptor else None,
            arguments_sha256=self._sha256(shown),
            arguments=shown if self.box.audit_arguments and isinstance(shown, dict) else None,
            outcome=outcome,
            error_code=error.get("code") if error else None,
            reason=reason or (error.get("message") if error else None),
            duration_ms=(time.perf_counter() - self.started) * 1000,
            metadata=self.context.metadata,
            fields=error.get("fields") if error else None,
            audit_arguments=self.box.audit_arguments,
        )
        try:
            self.box.audit(found)
        except Exception as exc:
            log_failure(self.trace_id, "the audit sink failed", exc)

    def _sha256(self, shown: Any) -> str:
        """The arguments' hash, computed once per call: the validated arguments of a raw dict
        that validation dropped nothing from are its very items, so they hash the same."""
        hashed, checked = self._hashed, self.arguments
        if hashed is not None:
            of, digest = hashed
            if of is shown or (
                of is self.raw
                and type(of) is dict
                and checked is not None
                and shown is checked
                and len(checked) == len(of)
            ):
                return digest
        digest = arguments_sha256(shown)
        self._hashed = (shown, digest)
        return digest

    def denied(self, result: ToolResult) -> ToolResult:
        self.record("denied", result)
        return result

    async def run(self) -> ToolResult:
        box, context, trace_id = self.box, self.context, self.trace_id
        found = find(box.catalog.descriptors, self.name, trace_id)
        if not isinstance(found, ToolResult):
            self.descriptor = found  # the proposed event names its risk and audit event
        self.record("proposed")
        if isinstance(found, ToolResult):
            return self.denied(found)
        descriptor = found
        parsed = parse(descriptor.name, self.raw, trace_id)
        if isinstance(parsed, ToolResult):
            return self.denied(parsed)
        checked = validate(
            descriptor.name,
            box.validator(descriptor),
            descriptor.parameters,
            parsed,
            trace_id,
            box.quick_check(descriptor),
        )
        if isinstance(checked, ToolResult):
            return self.denied(checked)
        arguments = self.arguments = checked
        refused = await authorize(descriptor, arguments, context, trace_id)
        if refused is not None:
            return self.denied(refused)
        try:
            prepared = box.prepared(descriptor)
        except NotCallable as exc:
            log_failure(trace_id, f"tool {descriptor.name} is not callable: {exc}")
            result = internal_error(
                descriptor.name,
                trace_id,
                f"tool {descriptor.name!r} is not callable on this server",
            )
            self.record("failed", result)
            return result
        timeout = box.timeout_for(descriptor.name)
        returns, quick_returns = box.returns(descriptor), box.quick_returns(descriptor)
        workers = box.workers()

        async def attempt(given: dict[str, Any]) -> ToolResult:
            return await invoke(
                descriptor,
                prepared,
                given,
                trace_id,
                timeout,
                returns,
                quick_returns,
                workers,
                self._stuck,
            )

        if is_dry_run(descriptor, arguments):  # changes nothing: no gate, no key
            result = await attempt(arguments)
            result = _as_dry_run(result)
            self.record("executed" if result.ok else "failed", result, reason="dry run")
            return result
        if gated(descriptor):
            dry_data = None
            if descriptor.dry_run is not None:  # shown to the person; "required" never skips it
                dry = await attempt({**arguments, "dry_run": True})
                if not dry.ok:
                    self.record("failed", dry, reason="the dry run before confirmation failed")
                    return _as_dry_run(dry)
                dry_data = dry.data
            request = confirmation_request(descriptor, arguments, context, trace_id, dry_data)
            stopped = await gate(request, context)
            if stopped is not None:
                self.record("refused", stopped)
                return stopped
            self.record("confirmed")
        key = key_for(descriptor, arguments, context)
        token: str | None = None
        if key is not None:
            key = store_key(key, context.principal)
            try:
                store = box.store()
            except StoreUnavailable as exc:
                return self.denied(unavailable(descriptor.name, trace_id, exc))
            claimed = await claim(store, descriptor, key, arguments, trace_id, box.in_flight_ttl)
            if isinstance(claimed, ToolResult):
                self.record("replayed" if claimed.replayed else "denied", claimed)
                return claimed
            token = claimed
        hints = descriptor.idempotency
        real = for_real(descriptor, arguments)
        try:
            result, attempts = await execute(
                lambda: attempt(real),
                retry=key is not None or bool(hints.idempotent) or bool(hints.safe),
                max_retries=box.max_retries,
                sleep=box.sleep,
                random=box.random,
                lease_s=box.in_flight_ttl if key is not None else None,
                timeout=timeout,
                halt=self._still_running,
            )
        except asyncio.CancelledError:
            if key is not None and token is not None:  # free the key now, not at the lease's end
                await asyncio.shield(self._settle(descriptor.name, key, token, None))
            raise
        if key is not None and token is not None:  # the handler's own answer, not a fallback's
            await asyncio.shield(self._settle(descriptor.name, key, token, result))
        result = await fall_back(box.fallbacks, arguments, result)
        reason = f"{attempts} attempts" if attempts > 1 else None
        if result.fallback:
            reason = f"{reason}, fallback" if reason else "fallback"
        self.record("executed" if result.ok else "failed", result, reason=reason)
        return result

    def _stuck(self, ended: concurrent.futures.Future[None]) -> None:
        self.stuck = ended

    def _still_running(self) -> bool:
        return self.stuck is not None and not self.stuck.done()

    async def _settle(self, name: str, key: str, token: str, result: ToolResult | None) -> None:
        """Keep a success under its key; free the key after a failure or a cancellation (None)
        - once the handler's thread has ended, if a timed-out one still runs (until then
        another call with the key would run beside it). A store that fails here is logged: the
        call has run, and its key expires with its lease."""
        store = self.box.store()
        stuck = self.stuck
        if (result is None or not result.ok) and stuck is not None and not stuck.done():
            trace_id = self.trace_id
            stuck.add_done_callback(lambda _: _abandon_later(store, name, key, token, trace_id))
            return
        try:
            if result is not None and result.ok:
                ttl = self.box.idempotency_ttl
                if await store.finish(name, key, token, result.to_json(), ttl) is False:
                    log.warning(
                        "[trace %s] the lease of the idempotency key of %s ran out before the call "
                        "ended: its result was not kept, and another call may have run",
                        self.trace_id,
                        name,
                    )
            else:
                await store.abandon(name, key, token)
        except StoreUnavailable as exc:
            log.warning(
                "[trace %s] the idempotency store failed after the call: %s", self.trace_id, exc
            )


def _abandon_later(store: IdempotencyStore, tool: str, key: str, token: str, trace_id: str) -> None:
    """Free a key from whichever thread a timed-out handler ends on: on a thread of its own
    with its own event loop (the call's loop may be gone, or be the one running here)."""

    def run() -> None:
        try:
            asyncio.run(store.abandon(tool, key, token))
        except Exception as exc:
            log.warning("[trace %s] freeing the idempotency key failed: %s", trace_id, exc)

    threading.Thread(target=run, name="toolgen-abandon", daemon=True).start()


def _check_lease(timeout: float | Mapping[str, float], in_flight_ttl: float) -> None:
    """Every call must be able to end within its key's lease: refuse a timeout that is not."""
    given = dict(timeout) if isinstance(timeout, Mapping) else {"": timeout}
    for name, seconds in {**given, "": given.get("", 30.0)}.items():
        if float(seconds) >= in_flight_ttl:
            which = f"the timeout of {name}" if name else "the timeout"
            raise ValueError(
                f"{which} ({float(seconds):g} s) must be below in_flight_ttl "
                f"({in_flight_ttl:g} s): a keyed call still running when its lease ends "
                "lets another call with the same key run"
            )


def _as_dry_run(result: ToolResult) -> ToolResult:
    return ToolResult(
        result.tool, result.ok, result.data, result.error, result.trace_id, dry_run=True
    )
