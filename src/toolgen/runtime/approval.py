"""`approval_url`: where a person can approve a call that was stopped for want of a yes
(`Toolbox.load(approval_url=...)`).

reference/runtime.md: "Ask a person (`human_review: true` ..., code such as
`REQUIRES_HUMAN_APPROVAL`, optionally an `approval_url`)". Given a callable, the toolbox asks
it for a link each time a gated call is answered `REQUIRES_HUMAN_APPROVAL` (no confirm
callback, a no, no answer in time), and only then: `approval_url(request)` gets the
`ConfirmationRequest` (the tool, a copy of the arguments, the risk, side effects, the dry
run's answer, the principal, the trace id) and returns the URL, or None for none; it may be
async. The URL goes into the envelope's error object as `approval_url` (under MCP, into the
structured content too, which is that envelope).

A URL is put there only when it is one a person can open and the model may read: text, an
`http` or `https` URL with a host, in ASCII (percent-encode the rest), no spaces or control
characters, no user name or password in it (the model's context is no place for a
credential), at most `MAX_URL` characters. A callable that raises or answers anything else
leaves the field out; that is logged (with what it raised), and the model gets the envelope as
it would without one.
"""

from __future__ import annotations

import inspect
import logging
import urllib.parse
from collections.abc import Awaitable, Callable

from toolgen.runtime.context import ConfirmationRequest
from toolgen.runtime.escapes import handlers_own
from toolgen.runtime.result import ToolResult

log = logging.getLogger("toolgen.runtime")

#: `approval_url(request)`: the URL, or None for none (see the module's text).
ApprovalUrl = Callable[[ConfirmationRequest], str | Awaitable[str | None] | None]

#: The longest URL put into an envelope.
MAX_URL = 2048


async def with_approval_url(
    make: ApprovalUrl, request: ConfirmationRequest, stopped: ToolResult
) -> None:
    """Put the URL `make` gives for `request` into `stopped`'s error object (before its trace
    id, which stays last), when it gives a usable one."""
    if stopped.error is None or stopped.error.get("code") != "REQUIRES_HUMAN_APPROVAL":
        return
    try:
        found: object = make(request)
        if inspect.isawaitable(found):
            found = await found
    except BaseException as exc:
        if not handlers_own(exc):
            raise
        log.error(
            "[trace %s] the approval_url callable failed: the answer has no approval_url",
            request.trace_id,
            exc_info=exc,
        )
        return
    if found is None:
        return
    if not usable(found):
        log.warning(
            "[trace %s] the approval_url callable answered a %s that is no http(s) URL a "
            "person can open (see toolgen.runtime.approval): the answer has no approval_url",
            request.trace_id,
            type(found).__name__,
        )
        return
    error = stopped.error
    trace_id = error.pop("trace_id", request.trace_id)
    error["approval_url"] = found
    error["trace_id"] = trace_id


def usable(url: object) -> bool:
    """Is `url` one to put into an envelope (see the module's text)?"""
    if type(url) is not str or not url.isascii() or len(url) > MAX_URL:
        return False
    if any(c <= " " or c == "\x7f" for c in url):
        return False
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname
        credentials = parts.username is not None or parts.password is not None
        parts.port  # noqa: B018 (read for its ValueError: a port that is no number)
    except ValueError:  # a bracketed host that is no IPv6 address, a port that is no number
        return False
    return parts.scheme in ("http", "https") and bool(host) and not credentials
