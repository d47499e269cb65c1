"""What the caller of a tool brings to each call, and what the runtime asks it.

`CallContext` is given per call: who calls (`principal`), with which `scopes`, and the two
callbacks a person answers (`confirm`, `step_up`). `ConfirmationRequest` and `StepUpRequest`
are what those callbacks receive.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ConfirmationRequest:
    """What a person is asked to confirm before a gated tool runs.

    `dry_run_result` is the tool's own dry-run answer (for tools that declare `dry_run`), so the
    person sees what would happen; `side_effects` and `permissions` come from the descriptor.
    """

    tool: str
    arguments: dict[str, Any]
    risk: str
    description: str
    side_effects: tuple[str, ...]
    permissions: tuple[str, ...]
    audit_event: str | None
    dry_run_result: Any | None
    principal: str | None
    trace_id: str


@dataclass(frozen=True)
class StepUpRequest:
    """What the step-up callback receives for a tool with `step_up_auth`: `condition` is the
    descriptor's condition text when it has one (`"when more than 10 recipients"`)."""

    tool: str
    arguments: dict[str, Any]
    risk: str
    condition: str | None
    principal: str | None
    trace_id: str


@dataclass(frozen=True)
class CallContext:
    """Who calls and how to ask them; one per call (or shared by a conversation's calls).

    - `scopes`: the permissions the caller holds (any iterable of str; kept as a frozenset);
    - `confirm(ConfirmationRequest)`: True to let a gated tool run; without it gated tools
      answer the human-review envelope;
    - `step_up(StepUpRequest)`: True once the caller re-authenticated; without it tools with
      `step_up_auth` are refused;
    - `idempotency_key`: one call's key for a declared non-idempotent write that has no
      `idempotency_key` parameter (the platform adapters make it per call: `key:call_id`,
      the call's id in its turn, `#n` its place when it has none); keys are scoped by
      `principal`;
    - `trace_id`: the call's trace id (else a new random one per call; the platform adapters
      make it per call too: `trace_id:call_id`);
    - `metadata`: passed through to every audit event of the call.
    """

    principal: str | None = None
    scopes: frozenset[str] = frozenset()
    confirm: Callable[[ConfirmationRequest], bool | Awaitable[bool]] | None = None
    step_up: Callable[[StepUpRequest], bool | Awaitable[bool]] | None = None
    idempotency_key: str | None = None
    trace_id: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        scopes: Iterable[str] = self.scopes
        if isinstance(scopes, str):  # one scope given bare, not its letters
            scopes = (scopes,)
        object.__setattr__(self, "scopes", frozenset(scopes))


async def ask(callback: Callable[[Any], bool | Awaitable[bool]] | None, request: Any) -> bool:
    """Ask a person through `callback`: only a literal True is a yes; no callback, another
    answer, or a callback that fails is a no (the failure is the caller's to log)."""
    if callback is None:
        return False
    answer = callback(request)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer is True
