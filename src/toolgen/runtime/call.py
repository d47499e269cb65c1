"""One call's way through the steps (`Call`), and the short way of a sync call (`Lane`).

`Call.run` is the whole way: find, parse, validate, authorize, gate, idempotency, execute, an
audit event per decision. `Lane` is what `Toolbox.call` takes from synchronous code when the
steps that may wait have nothing to do: a tool with a sync handler and no timeout, that no
person gates, no step-up guards and no key is given for. The step functions that never wait
then run on the calling thread, the handler too, as a direct call would run it: no event
loop, no other thread. `Lane.call` goes shorter still while no audit event is wanted and the
quick check proves the arguments valid; whatever it cannot prove it leaves, untouched and
unrecorded, to the way that words the problem.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import time
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime import audit as audit_events
from toolgen.runtime.approval import with_approval_url
from toolgen.runtime.audit import arguments_hmac
from toolgen.runtime.context import CallContext
from toolgen.runtime.escapes import handlers_own
from toolgen.runtime.handlers import NotCallable
from toolgen.runtime.keeper import KEEPER, Held
from toolgen.runtime.result import ToolResult, failure, internal_error, new_trace_id
from toolgen.runtime.steps.authorize import permitted, stepped_up
from toolgen.runtime.steps.execute import (
    Attempt,
    Retries,
    Started,
    Timed,
    answer,
    execute,
    execute_here,
    fall_back,
    invoke,
    invoke_here,
    late,
    log_failure,
)
from toolgen.runtime.steps.find import find
from toolgen.runtime.steps.gate import (
    confirmation_request,
    for_real,
    gate,
    gated,
    is_dry_run,
    waived_confirmation,
)
from toolgen.runtime.steps.idempotency import claim, key_for, settle, store_key, unavailable
from toolgen.runtime.steps.parse import parse
from toolgen.runtime.steps.validate import validate
from toolgen.runtime.store import StoreUnavailable
from toolgen.runtime.sync import run_sync
from toolgen.runtime.values import escaped, name, quote, writable

if TYPE_CHECKING:
    from toolgen.runtime.toolbox import Toolbox

log = logging.getLogger("toolgen.runtime")


#: A lane whose handler was not reached yet.
_UNREACHED: Any = object()

#: The threads outlived by the attempts of a handler that runs on the caller's thread: none.
_NONE: list[concurrent.futures.Future[Any]] = []


class Begun:
    """A call begun from this thread (`Toolbox.begin`): called, it waits for its answer.
    `abandon()` ends one whose answer will never be asked for - a Ctrl-C ended its turn
    while another call was waited for - as the whole way ends its cancelled calls: its
    handler's run given up, its decision recorded (`adapters.answer_here`)."""

    __slots__ = ("_abandon", "_answer")

    def __init__(self, answer: Callable[[], ToolResult], abandon: Callable[[], None]) -> None:
        self._answer, self._abandon = answer, abandon

    def __call__(self) -> ToolResult:
        return self._answer()

    def abandon(self) -> None:
        self._abandon()


class Lane:
    """What the short way of a tool's sync calls needs, found once (`Toolbox.lane`, from the
    descriptor alone): `quick` the quick check of its arguments (`steps.quick`), `retry`
    whether a retryable error is retried (an idempotent or safe tool), `nulls` whether a null
    argument may be a strict-mode "not given" that validation drops
    (`steps.validate.drop_not_given`), `timeout` the tool's timeout: with one, the handler
    runs on a worker thread that the calling thread waits for (`steps.execute.Timed`),
    with none on the calling thread itself (`invoke_here`). The handler is reached
    (imported, its class made) at the first call that gets as far as it, never before, as on
    the whole way. No key is ever given here: a tool that can be given one takes the whole
    way."""

    __slots__ = ("_attempt", "descriptor", "nulls", "quick", "retry", "timeout")

    def __init__(
        self,
        descriptor: ToolDescriptor,
        quick: Callable[[dict[str, Any]], bool] | None,
        retry: bool,
        nulls: bool,
        timeout: float | None = None,
    ) -> None:
        self.descriptor, self.quick, self.retry, self.nulls = descriptor, quick, retry, nulls
        self.timeout = timeout
        # the handler's attempt on this thread; None when it is async or cannot be reached
        # (the whole way's steps answer both); one attribute, so threads see it whole
        self._attempt: Any = _UNREACHED

    def reached(self, box: Toolbox) -> Attempt | None:
        """The handler's attempt from this thread (`steps.execute.invoke_here`, or with a
        timeout `Timed`), reached once."""
        found = self._attempt
        if found is _UNREACHED:
            found = None
            try:
                prepared = box.prepared(self.descriptor)
            except NotCallable:
                prepared = None
            if prepared is not None and not prepared.is_async:
                descriptor, timeout = self.descriptor, self.timeout
                returns, quick_returns = box.returns(descriptor), box.quick_returns(descriptor)
                if timeout is None:
                    found = invoke_here(descriptor, prepared, returns, quick_returns)
                else:
                    found = Timed(descriptor, prepared, timeout, box, returns, quick_returns)
            self._attempt = found
        return typing.cast("Attempt | None", found)

    def known_sync(self, box: Toolbox) -> bool:
        """Is the handler known to be a sync one, without reaching it now: reached by this
        lane already, or prepared by a call of the whole way (which reaches it alike)?"""
        if self._attempt is _UNREACHED:
            if not box.was_prepared(self.descriptor.name):
                return False
            self.reached(box)
        return self._attempt is not None

    @property
    def off_thread(self) -> bool:
        """Was the handler reached and found to be async (or not callable)? Its calls then go
        on with the whole way's steps, on a loop (`Call.run_here`)."""
        return self._attempt is None

    def proven(self, box: Toolbox, arguments: Any, context: CallContext) -> bool:
        """May the call go straight to its handler? With no audit event wanted and arguments
        the quick check proves valid (a dict, without a null that validation would drop),
        the steps that never wait have nothing to say: the tool is found, the arguments are
        an object and valid, no permission is needed that the caller lacks."""
        quick, permissions = self.quick, self.descriptor.permissions
        return not (
            quick is None
            or type(arguments) is not dict
            or not quick(arguments)
            or (self.nulls and None in arguments.values())
            or (permissions and not context.scopes.issuperset(permissions))
            or audit_events.wanted(box.audit)
        )

    def call(self, box: Toolbox, arguments: Any, context: CallContext) -> ToolResult:
        """The call from this thread: at once to its handler when `proven`, else through
        `Call.run_here`, which takes the steps one by one, recording them."""
        quick, permissions = self.quick, self.descriptor.permissions
        if (  # `proven`, spelled out: this is every short call's way
            quick is None
            or type(arguments) is not dict
            or not quick(arguments)
            or (self.nulls and None in arguments.values())
            or (permissions and not context.scopes.issuperset(permissions))
            or audit_events.wanted(box.audit)
        ):
            return Call(box, context, self.descriptor.name, arguments).run_here(self)
        trace_id = context.trace_id or new_trace_id()  # `_trace_of`, inline: every short call's
        if type(trace_id) is not str or not trace_id.isascii():
            trace_id = _written(trace_id)
        # a handler that runs here leaves no thread behind: the list stays empty
        stuck: list[concurrent.futures.Future[Any]] = _NONE if self.timeout is None else []
        try:
            attempt = self._attempt
            if attempt is _UNREACHED:
                attempt = self.reached(box)
            if attempt is None:
                return Call(box, context, self.descriptor.name, arguments).run_here(self)
            result: ToolResult = attempt(arguments, trace_id, True, stuck)
            if result.ok:
                return result
        except BaseException as exc:  # a step failed unforeseen: the model still gets an answer
            if not handlers_own(exc):
                raise
            return Call(box, context, self.descriptor.name, arguments, trace_id).crashed(exc)
        return self._failed(box, context, arguments, trace_id, attempt, result, stuck)

    def begin(self, box: Toolbox, arguments: Any, context: CallContext) -> Callable[[], ToolResult]:
        """`call` in two halves, so that a turn's calls run at once: a handler with a
        timeout is set going on its worker thread now, and the function returned waits for
        its answer; any other call is answered now."""
        descriptor = self.descriptor
        if self.timeout is None:
            answered = self.call(box, arguments, context)
            return lambda: answered
        if not self.proven(box, arguments, context):
            return Call(box, context, descriptor.name, arguments).begin_here(self)
        trace_id = _trace_of(context)
        try:
            attempt = self._attempt
            if attempt is _UNREACHED:
                attempt = self.reached(box)
            if not isinstance(attempt, Timed):  # an async handler, or none to reach
                answered = Call(box, context, descriptor.name, arguments).run_here(self)
                return lambda: answered
            started = attempt.start(arguments, trace_id, True)
        except BaseException as exc:
            if not handlers_own(exc):
                raise
            answered = Call(box, context, descriptor.name, arguments, trace_id).crashed(exc)
            return lambda: answered
        timed = attempt

        def end() -> ToolResult:
            stuck: list[concurrent.futures.Future[Any]] = []
            try:
                result = started if isinstance(started, ToolResult) else timed.wait(started, stuck)
                if result.ok:
                    return result
            except BaseException as exc:
                if not handlers_own(exc):
                    raise
                return Call(box, context, descriptor.name, arguments, trace_id).crashed(exc)
            return self._failed(box, context, arguments, trace_id, timed, result, stuck)

        if isinstance(started, ToolResult):
            return end
        return Begun(end, lambda: timed.abandon(started))

    def _failed(
        self,
        box: Toolbox,
        context: CallContext,
        arguments: dict[str, Any],
        trace_id: str,
        attempt: Attempt,
        result: ToolResult,
        stuck: list[concurrent.futures.Future[Any]],
    ) -> ToolResult:
        """After a first attempt straight to the handler that failed: its retries and
        fallback (`Call.retried`), and its event."""
        call = Call(box, context, self.descriptor.name, arguments, trace_id)
        try:
            given = call.arguments = dict(arguments)  # for the fallback: a copy, as parsed
            call.descriptor = self.descriptor
            return call.retried(given, attempt, self.retry, result, stuck)
        except BaseException as exc:  # a step failed unforeseen: the model still gets an answer
            if not handlers_own(exc):
                raise
            return call.crashed(exc)


class Call:
    """One call's way through the steps, and its audit events."""

    __slots__ = (
        "_fingerprint",
        "arguments",
        "box",
        "context",
        "descriptor",
        "name",
        "pool",
        "raw",
        "result_of",
        "started",
        "stuck",
        "trace_id",
    )

    def __init__(
        self,
        box: Toolbox,
        context: CallContext,
        name: str,
        arguments: Any,
        trace_id: str | None = None,
    ) -> None:
        self.box = box
        self.context = context
        self.name = name
        self.raw = arguments
        self.trace_id: str = trace_id or _trace_of(context)  # a given one: `_trace_of` made it
        self.descriptor: ToolDescriptor | None = None
        self.arguments: dict[str, Any] | None = None
        self.started = time.perf_counter()
        self._fingerprint: tuple[Any, str] | None = None  # (what was hashed, its hmac)
        # the end of a sync handler's thread that outlived its attempt (timed out, cancelled)
        self.stuck: concurrent.futures.Future[Any] | None = None
        self.pool: concurrent.futures.Executor | None = None  # the threads of sync handlers
        # the result of a value the handler returned (a late one's, on the keeper's loop)
        self.result_of: Callable[[Any], ToolResult] | None = None

    def record(
        self, decision: str, result: ToolResult | None = None, reason: str | None = None
    ) -> bool:
        """Write one audit event: True once the sink took it (or none is wanted). An event
        the sink cannot take is logged at ERROR, whole, so it is not lost; whether the call
        may go on unrecorded is the caller's to decide: before the handler it may not
        (`unrecorded`), after it the call has happened and its answer says so."""
        if not audit_events.wanted(self.box.audit):
            return True
        descriptor = self.descriptor
        error = result.error if result is not None else None
        outcome = None
        if result is not None:
            outcome = "ok" if result.ok else "error"
        shown = self.arguments if self.arguments is not None else self.raw
        found = audit_events.event(
            decision,
            trace_id=self.trace_id,
            tool=self.name,
            principal=self.context.principal,
            audit_event=descriptor.audit_event if descriptor else None,
            risk=descriptor.risk if descriptor else None,
            arguments_hmac=self._hmac(shown),
            arguments=shown if self.box.audit_arguments and isinstance(shown, dict) else None,
            outcome=outcome,
            error_code=error.get("code") if error else None,
            reason=reason or (error.get("message") if error else None),
            duration_ms=(time.perf_counter() - self.started) * 1000,
            metadata=self.context.metadata,
            fields=error.get("fields") if error else None,
            audit_arguments=self.box.audit_arguments,
            confirmation_waived=waived_confirmation(descriptor),
        )
        failed = audit_events.write(self.box.audit, found)
        if failed is None:
            return True
        # written again: the sink may have changed it (and it may hold anything then); ASCII,
        # as the log's stream may have any encoding
        kept = json.dumps(writable(found))
        log.error(
            "[trace %s] the audit sink could not write this event: %s",
            self.trace_id,
            kept,
            exc_info=failed,
        )
        return False

    def unrecorded(self) -> ToolResult:
        """The answer of a call whose decision to run could not be recorded: it does not run
        unaudited. `UNAVAILABLE`, retryable (the sink may take events again soon)."""
        result = failure(
            name(self.name),
            self.trace_id,
            "UNAVAILABLE",
            "the audit log is unavailable; the call did not run",
            retry_after_ms=1000,
        )
        return self.denied(result)

    def _hmac(self, shown: Any) -> str:
        """The arguments' fingerprint, computed once per call: the validated arguments of a
        raw dict that validation dropped nothing from are its very items, so they hash the
        same."""
        hashed, checked = self._fingerprint, self.arguments
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
        digest = arguments_hmac(shown, self.box.audit_key)
        self._fingerprint = (shown, digest)
        return digest

    def denied(self, result: ToolResult) -> ToolResult:
        self.record("denied", result)
        return result

    def crashed(self, exc: BaseException) -> ToolResult:
        """A step failed unforeseen: logged, and the model still gets an answer."""
        shown = name(self.name)
        log_failure(self.trace_id, f"deciding a call of {shown!r} failed", exc)
        result = internal_error(shown, self.trace_id)
        self.record("failed", result)
        return result

    def front(self) -> tuple[ToolDescriptor, dict[str, Any]] | ToolResult:
        """The steps that never wait: find, parse, validate and the permissions of
        authorize; the tool and the arguments to call with, or the answer that ends the call
        (recorded)."""
        box, trace_id = self.box, self.trace_id
        found = find(box.catalog.descriptors, self.name, trace_id)
        if not isinstance(found, ToolResult):
            self.descriptor = found  # the proposed event names its risk and audit event
        if not self.record("proposed"):
            return self.unrecorded()
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
        self.arguments = checked
        refused = permitted(descriptor, self.context.scopes, trace_id)
        if refused is not None:
            return self.denied(refused)
        return descriptor, checked

    def run_here(self, lane: Lane) -> ToolResult:
        """The call from this thread (`Toolbox.lane` found it may be): the steps that never
        wait, then the handler; an error goes on to `retried`. A handler that turns out async
        or cannot be reached goes on with the whole way's steps (`decide`)."""
        return self.begin_here(lane)()

    def begin_here(self, lane: Lane) -> Callable[[], ToolResult]:
        """`run_here` in two halves (`Lane.begin`): a handler with a timeout set going now,
        the function returned waiting for its answer; any other call answered now."""
        try:
            front = self.front()
            if isinstance(front, ToolResult):
                return lambda: front
            descriptor, arguments = front
            attempt = lane.reached(self.box)
            if attempt is None:
                answered = run_sync(lambda: self.decide(descriptor, arguments))
                return lambda: answered
            # not `proven`: what jsonschema accepts as an integer may be 1.0, which pydantic
            # makes into 1 for the handler
            stuck: list[concurrent.futures.Future[Any]] = []
            if isinstance(attempt, Timed):
                started = attempt.start(arguments, self.trace_id, False)
                timed = attempt
                return Begun(
                    lambda: self._answered(lane, arguments, timed, started, stuck),
                    lambda: self._abandoned(timed, started),
                )
            result = attempt(arguments, self.trace_id, False, stuck)
        except BaseException as exc:
            answered = self._interrupted(exc)
            return lambda: answered
        answered = self._answered(lane, arguments, attempt, result, stuck)
        return lambda: answered

    def _answered(
        self,
        lane: Lane,
        arguments: dict[str, Any],
        attempt: Attempt,
        started: ToolResult | Started,
        stuck: list[concurrent.futures.Future[Any]],
    ) -> ToolResult:
        """The first attempt's answer (waited for, when `started`), its event or its
        retries (`retried`)."""
        try:
            if isinstance(started, ToolResult):
                result = started
            else:
                assert isinstance(attempt, Timed)
                result = attempt.wait(started, stuck)
            if result.ok:
                self.record("executed", result)
                return result
            return self.retried(arguments, attempt, lane.retry, result, stuck)
        except BaseException as exc:
            return self._interrupted(exc)

    def _abandoned(self, timed: Timed, started: ToolResult | Started) -> None:
        """A begun call whose answer will never be asked for (`Begun.abandon`): its run given
        up, its decision recorded as the whole way's cancelled call."""
        if isinstance(started, Started):
            timed.abandon(started)
        self.record("failed", reason="cancelled")

    def _interrupted(self, exc: BaseException) -> ToolResult:
        """A step that failed unforeseen is answered; a Ctrl-C in the handler, say, goes on,
        its decision recorded."""
        if handlers_own(exc):
            return self.crashed(exc)
        self.record("failed", reason="interrupted")
        raise exc

    def retried(
        self,
        arguments: dict[str, Any],
        attempt: Attempt,
        retry: bool,
        first: ToolResult,
        stuck: list[concurrent.futures.Future[Any]],
    ) -> ToolResult:
        """After a first attempt from this thread that failed: its retries, as `Retries`
        decides them, from this thread too (outside any event loop: a handler may run one of
        its own; none while the thread of an attempt that timed out still runs, the `stuck`
        ones' last), then the fallback and the event. The waits and a fallback (which may be
        async) run on this thread's loop, as on the whole way."""
        box, trace_id = self.box, self.trace_id

        def sleep(delay: float) -> None:
            async def wait() -> None:
                await box.sleep(delay)

            run_sync(wait)

        plan = Retries(
            retry=retry,
            max_retries=box.max_retries,
            random=box.random,
            halt=lambda: bool(stuck) and not stuck[-1].done(),
        )
        result, attempts = execute_here(
            lambda: attempt(arguments, trace_id, False, stuck), first, plan, sleep
        )
        if not result.ok and result.tool in box.fallbacks and self.descriptor is not None:
            accept = self._accept(self.descriptor)
            result = run_sync(lambda: fall_back(box.fallbacks, arguments, result, accept))
        return self._ended(result, attempts)

    async def run(self) -> ToolResult:
        front = self.front()
        if isinstance(front, ToolResult):
            return front
        return await self.decide(*front)

    async def decide(self, descriptor: ToolDescriptor, arguments: dict[str, Any]) -> ToolResult:
        """The steps after those that never wait (`front`): the step-up, the handler reached,
        the dry run, the gate, the key, execute, the fallback."""
        box, context, trace_id = self.box, self.context, self.trace_id
        refused = await stepped_up(descriptor, arguments, context, trace_id)
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
        # an async handler takes no thread (its timeout's end is not one held: `Toolbox.held`)
        workers = self.pool = None if prepared.is_async else box.workers()

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
                box.occupy,
            )

        if is_dry_run(descriptor, arguments):  # changes nothing: no gate, no key
            # said outright: a handler whose own default differs (edited after the build, or
            # handed over) must not run for real, ungated, answered as a dry run
            result = await attempt({**arguments, "dry_run": True})
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
                if box.approval_url is not None:  # a request of its own: `confirm` had the first
                    again = confirmation_request(descriptor, arguments, context, trace_id, dry_data)
                    await with_approval_url(box.approval_url, again, stopped)
                self.record("refused", stopped)
                return stopped
            if not self.record("confirmed"):
                return self.unrecorded()
        hints = descriptor.idempotency
        real = for_real(descriptor, arguments)
        key = key_for(descriptor, arguments, context)
        held: Held | None = None
        if key is not None:
            scoped = store_key(key, context.principal)
            try:
                store = box.store()
            except StoreUnavailable as exc:
                return self.denied(unavailable(descriptor.name, trace_id, exc))
            lease = box.in_flight_ttl
            claimed = await claim(store, descriptor, scoped, arguments, trace_id, lease)
            if isinstance(claimed, ToolResult):
                self.record("replayed" if claimed.replayed else "denied", claimed)
                return claimed
            # renewed while the call runs, until it is settled (`_settle` on every way out)
            held = KEEPER.hold(store, descriptor.name, scoped, claimed, lease, trace_id)
            self.result_of = lambda value: answer(
                descriptor.name, prepared, value, trace_id, returns, quick_returns
            )
        self.stuck = None
        try:
            plan = Retries(
                retry=held is not None or bool(hints.idempotent) or bool(hints.safe),
                max_retries=box.max_retries,
                random=box.random,
                lease_s=box.in_flight_ttl if held is not None else None,
                timeout=timeout or 0.0,  # a tool given a key has one (`_check_lease`)
                # keyed, no retry once a thread outlived its attempt: it may have done the write
                halt=self._outlived if held is not None else self._still_running,
            )
            result, attempts = await execute(lambda: attempt(real), plan, box.sleep)
        except GeneratorExit:  # the coroutine is closed: it may not wait any more
            if held is not None:
                KEEPER.run(lambda: self._settle(held, None))
            raise
        except BaseException:  # cancelled, a step's own failure, a Ctrl-C
            if held is not None:  # free the key now, not at the lease's end
                await self._settle(held, None)
            raise
        if held is not None:  # the handler's own answer, not a fallback's
            await self._settle(held, result)
        return await self._conclude(arguments, result, attempts)

    async def _conclude(
        self, arguments: dict[str, Any], result: ToolResult, attempts: int
    ) -> ToolResult:
        """The tool's fallback for a final error, and the decision's event."""
        if result.ok or result.tool not in self.box.fallbacks or self.descriptor is None:
            return self._ended(result, attempts)
        accept = self._accept(self.descriptor)
        return self._ended(await fall_back(self.box.fallbacks, arguments, result, accept), attempts)

    def _accept(self, descriptor: ToolDescriptor) -> Callable[[Any], ToolResult]:
        """The checks of a handler's return, for the data of the tool's fallback."""
        box, name, trace_id = self.box, descriptor.name, self.trace_id
        prepared = box.prepared(descriptor)
        returns, quick = box.returns(descriptor), box.quick_returns(descriptor)
        who = f"the fallback of {name}"
        return lambda data: answer(name, prepared, data, trace_id, returns, quick, who)

    def _ended(self, result: ToolResult, attempts: int) -> ToolResult:
        """The decision's event for the call's answer."""
        reason = f"{attempts} attempts" if attempts > 1 else None
        if result.fallback:
            reason = f"{reason}, fallback" if reason else "fallback"
        self.record("executed" if result.ok else "failed", result, reason=reason)
        return result

    def _stuck(self, ended: concurrent.futures.Future[Any]) -> None:
        self.stuck = ended
        if not ended.done():
            self.box.held(self.pool, ended)

    def _still_running(self) -> bool:
        return self.stuck is not None and not self.stuck.done()

    def _outlived(self) -> bool:
        return self.stuck is not None

    async def _settle(self, held: Held, result: ToolResult | None) -> None:
        """Keep a success under its key; free the key after a failure or a cancellation
        (None). When a sync handler's thread outlived its attempt, what that handler did
        settles the key instead, once it ends (the keeper renews the key until then)."""
        stuck = self.stuck
        if stuck is None:
            await settle(held, result, self.box.idempotency_ttl)
            return
        stuck.add_done_callback(lambda ended: KEEPER.run(lambda: self._late(held, ended)))

    async def _late(self, held: Held, ended: concurrent.futures.Future[Any]) -> None:
        """On the keeper's loop, once a thread that outlived its attempt has ended."""
        result = await self._outcome(ended)
        if result is not None and result.ok:
            log.warning(
                "[trace %s] %s ended after its call was answered: its result is kept under its "
                "idempotency key, and a retry with the key replays it",
                self.trace_id,
                self.name,
            )
        await settle(held, result, self.box.idempotency_ttl)

    async def _outcome(self, ended: concurrent.futures.Future[Any]) -> ToolResult | None:
        """The result of what a handler's thread ran to (`steps.execute.late`)."""
        assert self.descriptor is not None and self.result_of is not None
        timeout = self.box.timeout_for(self.descriptor.name)
        return await late(ended, self.descriptor, self.trace_id, self.result_of, timeout)


def _trace_of(context: CallContext) -> str:
    """The call's trace id: the context's, written so any writer takes it, or a new one."""
    found = context.trace_id or new_trace_id()
    return found if type(found) is str and found.isascii() else _written(found)


def _written(trace_id: Any) -> str:
    """A caller's trace id as text any writer takes (it goes into answers, events and logs):
    a lone surrogate escaped, a value that is no text quoted."""
    return escaped(trace_id if isinstance(trace_id, str) else quote(trace_id))


def _as_dry_run(result: ToolResult) -> ToolResult:
    return ToolResult(
        result.tool, result.ok, result.data, result.error, result.trace_id, dry_run=True
    )
