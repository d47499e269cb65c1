"""Argument and result types shared by the support tools."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import Annotated, Literal

from pydantic import BaseModel, Field
from typing_extensions import NotRequired, TypedDict


class Priority(str, Enum):
    """How urgent the work is."""

    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"
    URGENT = "urgent"


class Severity(IntEnum):
    """Incident severity, 1 being the most severe."""

    SEV1 = 1
    SEV2 = 2
    SEV3 = 3


class TicketStatus(str, Enum):
    """Where a ticket is in its life cycle."""

    OPEN = "open"
    PENDING = "pending"
    SOLVED = "solved"
    CLOSED = "closed"


class Page(BaseModel):
    """Which page of results to return."""

    limit: int = Field(20, ge=1, le=100, description="Results per page.")
    cursor: str | None = Field(None, description="Opaque cursor from the previous page.")
    order: Literal["asc", "desc"] = Field("desc", description="Sort by creation time.")


class TicketFilter(BaseModel):
    """Conditions every returned ticket meets."""

    status: list[TicketStatus] = Field(default_factory=list, description="Allowed statuses.")
    assignee: str | None = Field(None, description="Login of the assigned agent.")
    created_after: dt.datetime | None = Field(None, description="Only tickets created later.")


class Recipient(TypedDict):
    """Who receives a message."""

    email: Annotated[str, Field(description="Address the message goes to.")]
    name: NotRequired[Annotated[str, Field(description="Name shown beside the address.")]]


@dataclass
class Attachment:
    """A file attached to an outgoing message."""

    filename: Annotated[str, Field(description="Name the recipient sees.")]
    content_type: Annotated[str, Field(description="MIME type of the file.")] = (
        "application/octet-stream"
    )
    url: Annotated[str | None, Field(description="Where the file is fetched from.")] = None


class SearchHit(TypedDict):
    """One search result."""

    title: str
    url: str
    snippet: NotRequired[str]


class Ticket(BaseModel):
    """A support ticket."""

    id: str = Field(description="Ticket identifier, e.g. T-1042.")
    subject: str
    status: TicketStatus
    priority: Priority = Priority.NORMAL
    tags: list[str] = Field(default_factory=list)


class TicketPage(BaseModel):
    """A page of tickets."""

    tickets: list[Ticket]
    next_cursor: str | None = None


@dataclass
class Forecast:
    """Weather at one place."""

    location: str
    temperature_c: float
    conditions: str
    observed_at: dt.datetime
    tags: list[str] = field(default_factory=list)


class DeliveryReport(TypedDict):
    """What happened to a message."""

    message_id: str
    status: Literal["queued", "sent", "rejected"]
