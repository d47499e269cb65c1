"""Step 6, idempotency: a keyed call claims its key in the store before it runs.

The key is the `idempotency_key` argument of a tool that has that parameter, else the
context's `idempotency_key` for a declared non-idempotent write (not idempotent, not safe).
Keys are scoped by the context's `principal` (`store_key`): one principal's key never replays
another's result nor blocks them; calls without a principal share one scope.
The fingerprint is the sha256 of the arguments' canonical JSON without the key. Same key and
arguments, finished: the stored result, replayed; other arguments: `IDEMPOTENCY_KEY_REUSED`;
still running: `IDEMPOTENCY_KEY_IN_PROGRESS` (retryable). A store that fails: `UNAVAILABLE`,
and the handler does not run (fail closed).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.runtime.audit import arguments_sha256
from toolgen.runtime.context import CallContext
from toolgen.runtime.result import ToolResult, failure
from toolgen.runtime.store import (
    IdempotencyStore,
    InFlight,
    Replay,
    Reused,
    Started,
    StoreUnavailable,
)

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
) -> str | None:
    """The call's idempotency key, or None for a call without one."""
    if takes_key(descriptor):
        given = arguments.get(KEY)
        return given if isinstance(given, str) and given else None
    if non_idempotent_write(descriptor):
        return context.idempotency_key
    return None


#: The mark of a key scoped by principal; a key without a principal that happens to start with
#: it is scoped too, so no key given bare can name another principal's entry.
SCOPED = "principal:"


def store_key(key: str, principal: str | None) -> str:
    """The key as the store holds it: the key itself without a principal, else the principal
    and the key, written unambiguously."""
    if principal is None and not key.startswith(SCOPED):
        return key
    return SCOPED + json.dumps([principal, key], ensure_ascii=False, separators=(",", ":"))


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
