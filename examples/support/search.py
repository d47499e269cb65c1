"""Read-only lookups: the web, tickets, the weather, arithmetic."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolgen import ToolError, tool

from .models import Forecast, Page, SearchHit, TicketFilter, TicketPage


@tool(
    risk="low",
    category="search",
    keywords=["web search", "look up", "news"],
    version="2.1.0",
    latency_p50_ms=800,
    cost_hint="metered",
)
def search_web(
    query: Annotated[str, Field(min_length=2, max_length=300)],
    num_results: Annotated[int, Field(ge=1, le=10)] = 5,
    date_restrict: Literal["d1", "w1", "m1", "m3", "m6", "y1"] | None = None,
) -> list[SearchHit]:
    """Search the internet for real-time information using a search engine.

    Read-only; does not modify any data. Use for news, docs and fact checks; do not use
    for private internal documents.

    Args:
        query: Search keywords or a natural-language question; never a URL or SQL.
        num_results: Number of results to return.
        date_restrict: Time range filter: d1 = last day, w1 = last week, m1 = last month,
            m3 = last 3 months, m6 = last 6 months, y1 = last year.

    Returns:
        The hits, best first.

    Errors:
        RATE_LIMITED: Search quota exceeded. Recovery: back off for retry_after_seconds.
        UPSTREAM_TIMEOUT (504, retryable): The search engine did not answer in time.
            Recovery: retry once with fewer results.

    Examples:
        Latest news about a topic:

        >>> search_web(query="solar eclipse 2026", num_results=3)
        [{"title": "Eclipse guide", "url": "https://example.com/a"}]

        An empty query is rejected:

        >>> search_web(query="")
        {"error": {"code": "VALIDATION_ERROR", "message": "query is too short"}}

    Idempotency:
        idempotent: true
        safe: true
        destructive: false
        open_world: true
    """
    raise NotImplementedError


@tool(
    risk="low",
    category="support",
    keywords=["tickets", "support cases", "customer issues"],
    version="1.0.0",
    latency_p50_ms=120,
)
def ticket_search(
    text: Annotated[str, Field(min_length=1, description="Words to look for in tickets.")],
    filter: TicketFilter | None = None,
    page: Page | None = None,
) -> TicketPage:
    """Find support tickets whose subject or body matches the text.

    Use it to find earlier cases before opening a ticket. Returns one page of tickets; pass
    `page.cursor` from the previous result to continue.

    Args:
        text: Words to look for in tickets.
        filter: Conditions the tickets must meet.
        page: Which page to return.

    Returns:
        Matching tickets, newest first, and a cursor for the next page.

    Errors:
        VALIDATION_ERROR: The filter or page is invalid.

    Examples:
        Open tickets that mention refunds:

        >>> ticket_search(text="refund", filter={"status": ["open"]}, page={"limit": 2})
        {"tickets": [{"id": "T-1042", "subject": "Refund please", "status": "open"}], "next_cursor": "c2"}

        A page size over the limit is rejected:

        >>> ticket_search(text="refund", page={"limit": 500})
        {"error": {"code": "VALIDATION_ERROR", "message": "page.limit must be at most 100"}}

    Idempotency:
        idempotent: true
        safe: true
        destructive: false
        open_world: false
    """
    raise NotImplementedError


@tool(
    risk="low",
    category="weather",
    keywords=["weather", "forecast", "temperature"],
    version="1.3.0",
    latency_p50_ms=350,
    cost_hint="cheap",
)
def get_weather(
    location: Annotated[str, Field(min_length=2, max_length=100)],
    units: Literal["metric", "imperial"] = "metric",
) -> Forecast:
    """Get the current weather for a city or place name.

    Use it for conditions right now; it has no forecasts.

    Args:
        location: City and country, e.g. "Lisbon, Portugal".
        units: Unit system for temperatures.

    Returns:
        The current conditions.

    Errors:
        NOT_FOUND: No place matches the location.
        UNAVAILABLE: The weather service is down. Recovery: try again in a minute.

    Examples:
        Weather in Lisbon:

        >>> get_weather(location="Lisbon, Portugal")
        {"location": "Lisbon, Portugal", "temperature_c": 21.5, "conditions": "sunny", "observed_at": "2026-11-22T10:00:00Z"}

        An unknown place:

        >>> get_weather(location="Atlantis")
        {"error": {"code": "NOT_FOUND", "message": "no such place"}}

    Idempotency:
        idempotent: true
        safe: true
        destructive: false
        open_world: true
    """
    raise NotImplementedError


@tool(
    risk="low",
    category="math",
    keywords=["arithmetic", "calculate", "math"],
    version="1.0.0",
    latency_p50_ms=1,
    cost_hint="free",
)
def calculator(  # toolgen: ignore[TG918]  the name models know for this tool
    operation: Literal["add", "subtract", "multiply", "divide"],
    a: float,
    b: float,
) -> float:
    """Compute one arithmetic operation on two numbers exactly.

    Use this instead of doing arithmetic in your head.

    Args:
        operation: The operation to apply to a and b.
        a: The first operand.
        b: The second operand.

    Returns:
        The result of `a <operation> b`.

    Errors:
        DIVISION_BY_ZERO (400, not retryable): b is zero and the operation is divide.

    Examples:
        Add two numbers:

        >>> calculator(operation="add", a=2, b=3.5)
        5.5

        Divide by zero:

        >>> calculator(operation="divide", a=1, b=0)
        {"error": {"code": "DIVISION_BY_ZERO", "message": "cannot divide by zero"}}

    Idempotency:
        idempotent: true
        safe: true
        destructive: false
        open_world: false
    """
    if operation == "add":
        return a + b
    if operation == "subtract":
        return a - b
    if operation == "multiply":
        return a * b
    if b == 0:
        raise ToolError("DIVISION_BY_ZERO", "cannot divide by zero")
    return a / b
