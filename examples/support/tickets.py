"""Writes to the ticketing system."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

import toolgen

from .models import Priority, Severity

if TYPE_CHECKING:  # only for the annotations below; toolgen reads it without importing
    from .models import Ticket


@toolgen.tool(
    risk="medium",
    category="support",
    keywords=["open ticket", "report problem", "support request"],
    version="1.2.0",
    latency_p50_ms=250,
)
def create_ticket(
    subject: Annotated[str, Field(min_length=3, max_length=200)],
    body: str,
    idempotency_key: uuid.UUID,
    priority: Priority = Priority.NORMAL,
    severity: Severity | None = None,
    tags: list[str] | None = None,
) -> "Ticket":
    """Open a new support ticket on behalf of the customer.

    Use it when the customer reports a new problem. Calls with the same idempotency_key
    create the ticket once and return it again.

    Args:
        subject: One-line summary of the problem.
        body: Full description, in the customer's words.
        idempotency_key: Client-chosen key that makes retries safe.
        priority: How urgent the ticket is.
        severity: Incident severity, for outages only.
        tags: Labels to attach.

    Returns:
        The created (or previously created) ticket.

    Errors:
        VALIDATION_ERROR: A field is invalid.
        CONFLICT: The key was used before with different content.

    Examples:
        Report a broken login:

        >>> create_ticket(subject="Cannot log in", body="The login page spins forever.", idempotency_key="6f1c1d7a-8f0e-4a43-9d1e-2c8f4b5a9e10", priority="high")
        {"id": "T-1043", "subject": "Cannot log in", "status": "open", "priority": "high"}

        Reusing a key for a different ticket:

        >>> create_ticket(subject="Other problem", body="Something else.", idempotency_key="6f1c1d7a-8f0e-4a43-9d1e-2c8f4b5a9e10")
        {"error": {"code": "CONFLICT", "message": "idempotency_key was used for another ticket"}}

    Idempotency:
        idempotent: true
        safe: false
        destructive: false
        open_world: false
    """
    raise NotImplementedError


@toolgen.tool(
    risk="low",
    category="tasks",
    keywords=["follow up", "todo", "reminder"],
    version="1.0.0",
    latency_p50_ms=90,
)
def create_task(
    title: Annotated[str, Field(max_length=200)],
    idempotency_key: uuid.UUID,
    priority: Priority = Priority.NORMAL,
    due: dt.date | None = None,
    estimate_hours: Annotated[float, Field(gt=0, le=80)] | None = None,
) -> str:
    """Create a follow-up task for the support team.

    Use it for work the team must do later. Calls with the same idempotency_key create the
    task once.

    Args:
        title: What needs doing.
        idempotency_key: Client-chosen key that makes retries safe.
        priority: How urgent the task is.
        due: Day the task is due, if any.
        estimate_hours: Expected effort in hours.

    Returns:
        The new task's identifier.

    Errors:
        VALIDATION_ERROR: A field is invalid, e.g. a due date in the past.

    Examples:
        A task due on a date:

        >>> create_task(title="Call the customer back", idempotency_key="0b6f7e52-3c2d-4f7a-9a51-7d0f1c2e3b4a", priority="urgent", due="2026-12-01")
        "TASK-77"

        An estimate of zero hours is rejected:

        >>> create_task(title="Nothing", idempotency_key="0b6f7e52-3c2d-4f7a-9a51-7d0f1c2e3b4b", estimate_hours=0)
        {"error": {"code": "VALIDATION_ERROR", "message": "estimate_hours must be greater than 0"}}

    Idempotency:
        idempotent: true
        safe: false
        destructive: false
        open_world: false
    """
    raise NotImplementedError
