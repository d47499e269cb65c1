"""Outgoing email: to customers, to outside addresses, and in bulk."""

from __future__ import annotations

import uuid
from typing import Annotated, Literal, Optional

from pydantic import Field

from toolgen import tool as toolgen_tool

from . import models
from .models import Attachment, DeliveryReport, Recipient


@toolgen_tool(
    risk="medium",
    category="messaging",
    keywords=["email", "reply to customer", "send message"],
    version="1.1.0",
    latency_p50_ms=400,
)
def send_email(
    to: Recipient,
    subject: Annotated[str, Field(max_length=150)],
    body: str,
    idempotency_key: uuid.UUID,
    cc: list[Recipient] = [],
    attachments: list[Attachment] | None = None,
) -> DeliveryReport:
    """Send an email to a customer from the support mailbox.

    Use it for customers; other addresses need send_external_email. The message is queued
    at once; a retry with the same idempotency_key sends nothing new.

    Args:
        to: The main recipient.
        subject: Subject line.
        body: Plain-text body.
        idempotency_key: Client-chosen key that makes retries safe.
        cc: Further recipients who get a copy.
        attachments: Files to attach, by URL.

    Returns:
        The delivery status of the message.

    Errors:
        VALIDATION_ERROR: An address or attachment is invalid.
        RATE_LIMITED: Too many messages sent recently.

    Examples:
        Send a short reply with one attachment:

        >>> send_email(to={"email": "ana@example.com", "name": "Ana"}, subject="Your refund", body="It is on its way.", idempotency_key="9c1e4a52-0d7b-4e0f-8a6b-2f3c4d5e6f70", attachments=[{"filename": "receipt.pdf", "content_type": "application/pdf"}])
        {"message_id": "m-1", "status": "queued"}

        Too many messages in a short time:

        >>> send_email(to={"email": "ana@example.com"}, subject="Hi", body="Hello.", idempotency_key="9c1e4a52-0d7b-4e0f-8a6b-2f3c4d5e6f71")
        {"error": {"code": "RATE_LIMITED", "message": "try again in 30 seconds"}}

    Idempotency:
        idempotent: true
        safe: false
        destructive: false
        open_world: true
    """
    raise NotImplementedError


@toolgen_tool(
    risk="critical",
    category="messaging",
    permissions=["email:send_external"],
    side_effects=["Sends an email to an address outside the company."],
    audit_event="email.external_sent",
    keywords=["external email", "supplier", "partner message"],
    version="1.0.0",
    latency_p50_ms=600,
)
def send_external_email(
    to: Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+$")],
    subject: Annotated[str, Field(max_length=150)],
    body: str,
    idempotency_key: uuid.UUID,
    reason: Optional[str] = None,
) -> models.DeliveryReport:
    """Send an email to an address outside the company, after a human confirms it.

    Use it only for suppliers and partners; customers get send_email.

    Args:
        to: External email address.
        subject: Subject line.
        body: Plain-text body.
        idempotency_key: Client-chosen key that makes retries safe.
        reason: Why the message must leave the company, for the audit log.

    Returns:
        The delivery status of the message.

    Errors:
        FORBIDDEN: The address is on the block list.

    Examples:
        Send a quote to a supplier:

        >>> send_external_email(to="sales@supplier.example", subject="Quote", body="Please send a quote.", idempotency_key="1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d")
        {"message_id": "m-9", "status": "sent"}

        A blocked address:

        >>> send_external_email(to="spam@blocked.example", subject="Hi", body="Hello.", idempotency_key="1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5e")
        {"error": {"code": "FORBIDDEN", "message": "address is on the block list"}}

    Idempotency:
        idempotent: true
        safe: false
        destructive: false
        open_world: true
    """
    raise NotImplementedError


@toolgen_tool(
    risk="high",
    category="messaging",
    dry_run="supported",
    keywords=["newsletter", "announcement", "mass email"],
    version="1.0.0",
    latency_p50_ms=2500,
    cost_hint="metered",
)
def bulk_send_emails(
    recipients: Annotated[list[Recipient], Field(min_length=1, max_length=500)],
    subject: Annotated[str, Field(max_length=150)],
    body: str,
    idempotency_key: uuid.UUID,
    environment: Literal["staging", "production"] = "staging",
    dry_run: bool = True,
) -> list[DeliveryReport]:
    """Send the same email to many customers at once.

    Use it instead of many send_email calls. With dry_run true (the default) nothing is sent
    and the reports say what would happen.

    Args:
        recipients: Everyone who gets the message.
        subject: Subject line.
        body: Plain-text body.
        idempotency_key: Client-chosen key that makes retries safe.
        environment: Where to send from; staging delivers only to the test inboxes.
        dry_run: Only report what would be sent.

    Returns:
        One delivery report per recipient.

    Errors:
        RATE_LIMITED: The daily bulk quota is used up. Recovery: send the rest tomorrow.

    Examples:
        Preview a notice to two customers:

        >>> bulk_send_emails(recipients=[{"email": "a@example.com"}, {"email": "b@example.com"}], subject="Maintenance", body="Sunday 02:00 UTC.", environment="production", idempotency_key="7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d")
        [{"message_id": "dry-1", "status": "queued"}, {"message_id": "dry-2", "status": "queued"}]

        An empty recipient list is rejected:

        >>> bulk_send_emails(recipients=[], subject="Maintenance", body="Sunday.", environment="production", idempotency_key="7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0e")
        {"error": {"code": "VALIDATION_ERROR", "message": "recipients must not be empty"}}

    Idempotency:
        idempotent: true
        safe: false
        destructive: false
        open_world: true
    """
    raise NotImplementedError
