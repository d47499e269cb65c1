"""Step 6, idempotency: a keyed call claims its key in the store before it runs, and settles
it after.

The key is the `idempotency_key` argument of a tool that has that parameter (any JSON value
but null and ""; one the schema types as a UUID in its canonical spelling, so that one UUID
is one key in any letter case; an integral number however it is written), else the context's
`idempotency_key` for a declared non-idempotent write (not idempotent, not safe).
Keys are scoped by the context's `principal` (`store_key`): one principal's key never replays
another's result nor blocks them; calls without a principal share one scope.
The fingerprint is the sha256 of the arguments' canonical JSON without the key. Same key and
arguments, finished: the stored result, replayed; other arguments: `IDEMPOTENCY_KEY_REUSED`;
still running: `IDEMPOTENCY_KEY_IN_PROGRESS` (retryable). A store that fails: `UNAVAILABLE`,
and the handler does not run (fail closed).

`settle` keeps a success under the key, or frees the key after a failure; the keeper
(`toolgen.runtime.keeper`) renews the key's lease until then.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime.audit import arguments_sha256
from toolgen.runtime.context import CallContext
from toolgen.runtime.keeper import KEEPER, Held
from toolgen.runtime.result import ToolResult, failure
from toolgen.runtime.store import (
    IdempotencyStore,
    InFlight,
    Replay,
    Reused,
    Started,
    StoreUnavailable,
)
from toolgen.runtime.values import surrogate

log = logging.getLogger("toolgen.runtime")

#: The parameter that carries a key.
KEY = "idempotency_key"


def takes_key(descriptor: ToolDescriptor) -> bool:
    """Does the tool have an `idempotency_key` parameter?"""
    return KEY in descriptor.parameters.get("properties", {})


def non_idempotent_write(descriptor: ToolDescriptor) -> bool:
    """Is the tool declared a write that is not idempotent?"""
    hints = descriptor.idempotency
    return hints.idempotent is False and hints.safe is not True


def keyable(descriptor: ToolDescriptor) -> bool:
    """Can a call of the tool be given a key (`key_for`): a key parameter, or a declared
    non-idempotent write (the context's key)?"""
    return takes_key(descriptor) or non_idempotent_write(descriptor)


def key_for(
    descriptor: ToolDescriptor, arguments: dict[str, Any], context: CallContext
) -> object | None:
    """The call's idempotency key in its canonical form (see the module's text), or None for
    a call without one."""
    if takes_key(descriptor):
        given: object = arguments.get(KEY)
        if given is None or given == "":
            return None
        if isinstance(given, str):
            if _typed_uuid(descriptor.parameters["properties"][KEY]):
                try:
                    return str(uuid.UUID(given))
                except ValueError:  # not a UUID: the handler's own check refuses it
                    return given
            return given
        if isinstance(given, float) and given.is_integer():
            return int(given)  # 5.0 is the integer 5 to the schema and to pydantic
        return given
    if non_idempotent_write(descriptor):
        return context.idempotency_key or None
    return None


def _typed_uuid(schema: Any) -> bool:
    """Does the key's schema type it as a UUID (alone, or among the branches of a union)?"""
    if not isinstance(schema, dict):
        return False
    if schema.get("format") == "uuid":
        return True
    return any(
        isinstance(branches, list) and any(_typed_uuid(branch) for branch in branches)
        for branches in (schema.get("anyOf"), schema.get("oneOf"))
    )


#: The mark of a key scoped by principal; a key without a principal that happens to start with
#: it is scoped too, so no key given bare can name another principal's entry.
SCOPED = "principal:"


def store_key(key: object, principal: str | None) -> str:
    """The key as the store holds it: a text key itself without a principal, else the
    principal and the key, written unambiguously as JSON (a key that is no text too). Text
    UTF-8 cannot carry (a lone surrogate) is written with escapes, which every store takes."""
    if (
        principal is None
        and isinstance(key, str)
        and not key.startswith(SCOPED)
        and not surrogate(key)
    ):
        return key
    text = json.dumps([principal, key], ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    if surrogate(text):
        text = json.dumps([principal, key], separators=(",", ":"), sort_keys=True)
    return SCOPED + text


def fingerprint(arguments: dict[str, Any]) -> str:
    """sha256 of the arguments' canonical JSON (sorted keys, no spaces), the key left out:
    `audit.arguments_sha256`, plain (not the events' keyed fingerprint, so that a kept key
    matches after a restart whatever the audit secret), of arguments that passed validation
    (JSON values nested no deeper than `MAX_ARGUMENT_DEPTH`, so they always write out)."""
    return arguments_sha256({k: v for k, v in arguments.items() if k != KEY})


async def claim(
    store: IdempotencyStore,
    descriptor: ToolDescriptor,
    key: str,
    arguments: dict[str, Any],
    trace_id: str,
    lease_s: float,
) -> str | ToolResult:
    """The token that owns the key, or the result that ends the call (a replay or an error)."""
    name = descriptor.name
    try:
        begun = await store.begin(name, key, fingerprint(arguments), lease_s)
    except StoreUnavailable as exc:
        return unavailable(name, trace_id, exc)
    if isinstance(begun, Started):
        return begun.token
    if isinstance(begun, Replay):
        found = ToolResult.from_json(name, begun.result, trace_id)
        return ToolResult(
            name, found.ok, found.data, found.error, trace_id, replayed=True, dry_run=found.dry_run
        )
    if isinstance(begun, Reused):
        return failure(
            name,
            trace_id,
            "IDEMPOTENCY_KEY_REUSED",
            "this idempotency key was used with other arguments",
        )
    assert isinstance(begun, InFlight)
    return failure(
        name,
        trace_id,
        "IDEMPOTENCY_KEY_IN_PROGRESS",
        "a call with this idempotency key is still running",
        retry_after_ms=begun.retry_after_ms,
    )


def stored(result: ToolResult) -> str:
    """The text a success is kept as: its JSON, with escapes where UTF-8 cannot carry it (a
    lone surrogate), so that every store takes it; it reads back the same."""
    text = result.to_json()
    if not surrogate(text):
        return text
    return json.dumps(result.envelope(), allow_nan=False)


async def settle(held: Held, result: ToolResult | None, ttl_s: float) -> None:
    """Keep a success under its key for `ttl_s` seconds; free the key after a failure or a
    cancellation (None). A store that fails here is logged: the call has run, and its key
    expires with its lease. Cut off (cancelled again, the caller's event loop torn down, the
    coroutine closed), the keeper does it: a held key is never left renewed for good."""
    held.settling = True
    try:
        await _settle(held, result, ttl_s)
    except BaseException:
        KEEPER.run(lambda: _settle(held, result, ttl_s, again=True))
        raise
    KEEPER.release(held)


async def _settle(held: Held, result: ToolResult | None, ttl_s: float, again: bool = False) -> None:
    """`settle`'s store call; `again`: the keeper's run of one cut off, which may have been
    done already (a refused `finish` says nothing then), and which releases the key itself."""
    store, name = held.store, held.tool
    try:
        if result is not None and result.ok:
            kept = await store.finish(name, held.key, held.token, stored(result), ttl_s)
            if kept is False and not again:
                log.warning(
                    "[trace %s] the lease of the idempotency key of %s ran out before the call "
                    "ended: its result was not kept, and another call may have run",
                    held.trace_id,
                    name,
                )
        else:
            await store.abandon(name, held.key, held.token)
    except StoreUnavailable as exc:
        log.warning(
            "[trace %s] the idempotency store failed after the call: %s", held.trace_id, exc
        )
    except Exception as exc:  # a store of one's own that breaks its contract: the call ran
        log.error("[trace %s] settling the idempotency key failed", held.trace_id, exc_info=exc)
    finally:
        if again:
            KEEPER.release(held)


def unavailable(tool: str, trace_id: str, exc: StoreUnavailable) -> ToolResult:
    """`UNAVAILABLE`: the idempotency store failed, so the call did not run."""
    log.warning("[trace %s] the idempotency store failed: %s", trace_id, exc)
    return failure(
        tool,
        trace_id,
        "UNAVAILABLE",
        "the idempotency store is unavailable; the call did not run",
        retry_after_ms=1000,
    )
