"""Platform adapters: one model turn's tool calls in, one result item per call out.

Each platform module reads the calls of a turn (the official SDK's objects or plain dicts) into
`Job`s (`chat_jobs`, ...), asks `call(name, arguments, call_id)` for each, concurrently and at
most `limit` at a time (`answer_all`), and answers in the platform's wire format
(reference/runtime.md), in the order of the calls and under their ids:

- `toolgen.runtime.adapters.openai`: `openai_chat(tool_calls, call, limit)` and
  `openai_responses(output, call, limit)`;
- `toolgen.runtime.adapters.anthropic`: `anthropic(message, call, limit)` (or its `content`);
- `toolgen.runtime.adapters.gemini`: `gemini(parts, call, limit)`;
- `toolgen.runtime.adapters.mcp`: a `ToolResult` as MCP's `CallToolResult` (needs the MCP SDK;
  `toolgen serve` uses it).

`call` is `Toolbox.acall` bound to the turn's context (`bound`), whose idempotency key and
trace id become each call's own. The id `call` is given is the call's in the turn (`marks`):
the platform's, or its place for a call without one, so no two calls of a turn share one. A
call that raises costs only its own result: an INTERNAL error envelope, the exception logged
and never shown to the model. `answer_here` answers the same jobs one after another on the
calling thread, with a synchronous `call` (`bound_here`): what the sync `Toolbox.handle_*`
take when no call of the turn has anything to wait for (`Toolbox.lane`).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from toolgen.runtime.escapes import handlers_own
from toolgen.runtime.result import new_trace_id
from toolgen.runtime.values import escaped

log = logging.getLogger("toolgen.runtime")


class ResultLike(Protocol):
    """What the adapters need of a call's result (`toolgen.runtime.ToolResult` is one)."""

    @property
    def ok(self) -> bool: ...

    def to_json(self) -> str: ...

    def envelope(self) -> dict[str, Any]: ...


#: One call: the tool's name, its arguments as they arrived (JSON text, a dict, or {}), and the
#: call's id in the turn (`marks`; None only when a caller asks for a call of no turn).
Call = Callable[[str, Any, str | None], Awaitable[ResultLike]]


#: `Call` for synchronous code, in two halves: the call begun from the calling thread, and
#: the function that gives its answer (`Toolbox.begin`: a handler with a timeout runs on a
#: worker thread meanwhile, so that a turn's calls run at once).
CallHere = Callable[[str, Any, str | None], Callable[[], ResultLike]]


def bound(acall: Callable[..., Awaitable[ResultLike]], context: Any) -> Call:
    """`call` for an adapter: `acall(name, arguments, context=...)` (the Toolbox's) with the
    turn's context, made per call (`per_call`): a context's `idempotency_key` keys one call,
    so each call of the turn gets `f"{key}:{call_id}"`, and its trace id
    `f"{trace_id}:{call_id}"`. Distinct calls of a turn (or of a conversation sharing the
    context) then never share a key, and a call sent again under its id (a turn handled again)
    is replayed."""

    async def call(name: str, arguments: Any, call_id: str | None) -> ResultLike:
        return await acall(name, arguments, context=per_call(context, call_id))

    return call


def bound_here(call: Callable[..., Callable[[], ResultLike]], context: Any) -> CallHere:
    """`bound` for a synchronous `call(name, arguments, context=...)` (`Toolbox.begin`): each
    call's context made by `per_call` alike."""

    def here(name: str, arguments: Any, call_id: str | None) -> Callable[[], ResultLike]:
        return call(name, arguments, context=per_call(context, call_id))

    return here


def per_call(context: Any, call_id: str | None) -> Any:
    """`context` with its idempotency key and trace id (those it has) suffixed by `call_id`
    (see `bound`)."""
    if call_id is None or not dataclasses.is_dataclass(context) or isinstance(context, type):
        return context
    changes = {
        field: f"{given}:{call_id}"
        for field in ("idempotency_key", "trace_id")
        if (given := getattr(context, field, None)) is not None
    }
    return dataclasses.replace(context, **changes) if changes else context


def marks(ids: list[Any]) -> list[str]:
    """Each call's id in its turn: the platform's id; `#n`, its place in the turn, for a call
    without one (Gemini's Developer API may leave them out); `id#n` for an id the turn
    repeats (results are matched by id, so it should not). A turn handled again gets the
    same marks, so its keyed calls replay."""
    named = [None if found is None else str(found) for found in ids]
    repeated = {found for found, n in collections.Counter(named).items() if n > 1}
    return [
        f"#{place}" if found is None else (f"{found}#{place}" if found in repeated else found)
        for place, found in enumerate(named)
    ]


def get(item: Any, *names: str) -> Any:
    """The first of `names` that `item` has: an attribute of an SDK object, a key of a dict
    (several names for the spellings of one field); None when it has none."""
    for name in names:
        value = item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)
        if value is not None:
            return value
    return None


def echoed(value: Any) -> Any:
    """What an answer repeats of the platform's call (its id, its name), with a lone surrogate
    escaped: the answer must be writable as UTF-8, and text with one could not be sent."""
    return escaped(value) if isinstance(value, str) else value


def tool_name(item: Any) -> str:
    """A call's tool name; a missing one is the empty name, which no tool has."""
    name = get(item, "name")
    return name if isinstance(name, str) else ""


def arguments(value: Any) -> Any:
    """The arguments as they arrived; none at all are an empty object."""
    return {} if value is None else value


@dataclass(frozen=True)
class Envelope:
    """A result as its envelope (ResultLike): what the adapters answer on their own."""

    body: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.body.get("status") == "ok"

    def envelope(self) -> dict[str, Any]:
        return self.body

    def to_json(self) -> str:
        return json.dumps(self.body, ensure_ascii=False, allow_nan=False)


def error(code: str, message: str, http_status: int, recovery: str | None = None) -> Envelope:
    """A non-retryable error envelope in the runtime's shape, with a new trace id (of the
    runtime's format, so that logs and answers read alike), and `recovery` when given."""
    body = {
        "code": code,
        "message": message,
        "http_status": http_status,
        "retryable": False,
        "human_review": False,
    }
    if recovery is not None:
        body["recovery"] = recovery
    body["trace_id"] = new_trace_id()
    return Envelope({"status": "error", "error": body})


@dataclass(frozen=True)
class Job:
    """One call of the turn: what to ask `call`, and how to answer it on the platform."""

    name: str
    arguments: Any
    answer: Callable[[ResultLike], dict[str, Any]]
    refused: ResultLike | None = None  # decided by the adapter: `call` is not asked
    call_id: Any = None  # the platform's id of the call, if it has one


async def answer_all(jobs: Iterable[Job], call: Call, limit: int) -> list[dict[str, Any]]:
    """The answers of `jobs`, in their order, at most `limit` calls running at a time."""
    _check_limit(limit)
    gate = asyncio.Semaphore(limit)
    turn = list(jobs)
    ids = marks([job.call_id for job in turn])
    current = asyncio.current_task()
    async with asyncio.TaskGroup() as group:
        tasks = [
            group.create_task(_answer(job, i, call, gate, current))
            for job, i in zip(turn, ids, strict=True)
        ]
    return [task.result() for task in tasks]


def answer_here(jobs: Iterable[Job], call: CallHere, limit: int) -> list[dict[str, Any]]:
    """The answers of `jobs` as `answer_all` gives them (the same ids, the same answer for a
    call that raises), each call begun from this thread in turn, at most `limit` begun and
    not yet answered at a time. `limit` is checked alike, so a toolbox's bad
    `max_concurrency` fails every turn, whichever way it takes."""
    _check_limit(limit)
    turn = list(jobs)
    ids = marks([job.call_id for job in turn])
    answers: list[dict[str, Any]] = []
    pending: collections.deque[tuple[Job, Callable[[], ResultLike]]] = collections.deque()
    try:
        for job, call_id in zip(turn, ids, strict=True):
            if len(pending) >= limit:
                answers.append(_answer_here(*pending.popleft()))
            pending.append((job, _begun(job, call_id, call)))
        while pending:
            answers.append(_answer_here(*pending.popleft()))
    except BaseException:  # a Ctrl-C: the calls begun and never answered end as cancelled
        for _, answer in pending:
            abandon = getattr(answer, "abandon", None)
            if abandon is not None:
                abandon()
        raise
    return answers


def _begun(job: Job, call_id: str, call: CallHere) -> Callable[[], ResultLike]:
    if job.refused is not None:
        refused = job.refused
        return lambda: refused
    try:
        return call(job.name, job.arguments, call_id)
    except BaseException as exc:
        if not handlers_own(exc):  # a Ctrl-C
            raise
        failed = _failed(job)
        return lambda: failed


def _answer_here(job: Job, answer: Callable[[], ResultLike]) -> dict[str, Any]:
    try:
        return job.answer(answer())
    except BaseException as exc:
        if not handlers_own(exc):  # a Ctrl-C
            raise
        return job.answer(_failed(job))


def _check_limit(limit: int) -> None:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")


def _failed(job: Job) -> Envelope:
    """The answer of a call that raised (logged, with the trace id the answer carries)."""
    failure = error("INTERNAL", "internal error", 500)
    trace_id = failure.body["error"]["trace_id"]
    log.exception("tool call %r failed (trace_id %s)", job.name, trace_id)
    return failure


async def _answer(
    job: Job, call_id: str, call: Call, gate: asyncio.Semaphore, turn: asyncio.Task[Any] | None
) -> dict[str, Any]:
    if job.refused is not None:
        return job.answer(job.refused)
    async with gate:
        try:
            # the platform's item is made here too: a result that cannot be written as JSON
            # fails this call alone
            return job.answer(await call(job.name, job.arguments, call_id))
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError) and turn is not None:
                # this call's own task, cancelled while the turn is not: by its handler
                if turn.cancelling() > 0:
                    raise
                task = asyncio.current_task()
                if task is not None:
                    task.uncancel()
            elif not handlers_own(exc):  # a Ctrl-C
                raise
            return job.answer(_failed(job))
