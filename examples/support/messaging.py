"""Outgoing email: to customers, to outside addresses, and in bulk."""

from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field

from toolgen import tool as toolgen_tool

from . import models
from .models import Attachment, DeliveryReport, Recipient


@toolgen_tool(risk="medium", category="messaging")
def send_email(
    to: Recipient,
    subject: Annotated[str, Field(max_length=150)],
    body: str,
    cc: list[Recipient] = [],
    attachments: list[Attachment] | None = None,
) -> DeliveryReport:
    """Send an email to a customer from the support mailbox.

    Args:
        to: The main recipient.
        subject: Subject line.
        body: Plain-text body.
        cc: Further recipients who get a copy.
        attachments: Files to attach, by URL.

    Returns:
        The delivery status of the message.

    Errors:
        VALIDATION_ERROR: An address or attachment is invalid.
        RATE_LIMITED: Too many messages sent recently.

    Examples:
        Send a short reply with one attachment:

        >>> send_email(to={"email": "ana@example.com", "name": "Ana"}, subject="Your refund", body="It is on its way.", attachments=[{"filename": "receipt.pdf", "content_type": "application/pdf"}])
        {"message_id": "m-1", "status": "queued"}

    Idempotency:
        idempotent: false
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
)
def send_external_email(
    to: Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+$")],
    subject: str,
    body: str,
    reason: Optional[str] = None,
) -> models.DeliveryReport:
    """Send an email to an address outside the company, after a human confirms it.

    Args:
        to: External email address.
        subject: Subject line.
        body: Plain-text body.
        reason: Why the message must leave the company, for the audit log.

    Returns:
        The delivery status of the message.

    Errors:
        FORBIDDEN: The address is on the block list.

    Examples:
        Send a quote to a supplier:

        >>> send_external_email(to="sales@supplier.example", subject="Quote", body="Please send a quote.")
        {"message_id": "m-9", "status": "sent"}

    Idempotency:
        idempotent: false
        safe: false
        destructive: false
        open_world: true
    """
    raise NotImplementedError


@toolgen_tool(risk="high", category="messaging", dry_run="supported")
def bulk_send_emails(
    recipients: Annotated[list[Recipient], Field(min_length=1, max_length=500)],
    subject: str,
    body: str,
    dry_run: bool = True,
) -> list[DeliveryReport]:
    """Send the same email to many customers at once.

    With dry_run true (the default) nothing is sent and the reports say what would happen.

    Args:
        recipients: Everyone who gets the message.
        subject: Subject line.
        body: Plain-text body.
        dry_run: Only report what would be sent.

    Returns:
        One delivery report per recipient.

    Errors:
        RATE_LIMITED: The daily bulk quota is used up.

    Examples:
        Preview a notice to two customers:

        >>> bulk_send_emails(recipients=[{"email": "a@example.com"}, {"email": "b@example.com"}], subject="Maintenance", body="Sunday 02:00 UTC.")
        [{"message_id": "dry-1", "status": "queued"}, {"message_id": "dry-2", "status": "queued"}]

    Idempotency:
        idempotent: false
        safe: false
        destructive: false
        open_world: true
    """
    raise NotImplementedError
