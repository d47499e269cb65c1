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


@toolgen.tool(risk="medium", category="support", version="1.2.0")
def create_ticket(
    subject: Annotated[str, Field(min_length=3, max_length=200)],
    body: str,
    idempotency_key: uuid.UUID,
    priority: Priority = Priority.NORMAL,
    severity: Severity | None = None,
    tags: list[str] | None = None,
) -> "Ticket":
    """Open a new support ticket on behalf of the customer.

    Calls with the same idempotency_key create the ticket once and return it again.

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

    Idempotency:
        idempotent: true
        safe: false
        destructive: false
    """
    raise NotImplementedError


@toolgen.tool(risk="low", category="tasks")
def create_task(
    title: str,
    priority: Priority = Priority.NORMAL,
    due: dt.date | None = None,
    estimate_hours: Annotated[float, Field(gt=0, le=80)] | None = None,
) -> str:
    """Create a follow-up task for the support team.

    Args:
        title: What needs doing.
        priority: How urgent the task is.
        due: Day the task is due, if any.
        estimate_hours: Expected effort in hours.

    Returns:
        The new task's identifier.

    Examples:
        A task due on a date:

        >>> create_task(title="Call the customer back", priority="urgent", due="2026-12-01")
        "TASK-77"

    Idempotency:
        idempotent: false
        safe: false
        destructive: false
    """
    raise NotImplementedError
