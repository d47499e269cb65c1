"""What the example loops share: the toolbox, the caller, the question and the scripted
answer. The same conversation on every platform: the model asks for `calculator` (its real
handler runs), `get_weather` (answered by the override below: the example's handler calls a
service) and `delete_user` (critical: a person is asked, says no, and the call is refused),
all in one turn, then answers from the three results."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from toolgen.runtime import CallContext, ConfirmationRequest, LoopResult, Toolbox

REPO = Path(__file__).resolve().parent.parent.parent
GENERATED = REPO / "generated"

QUESTION = "What is 6 x 7, the weather in Lisbon, and delete u-42."

#: The model's first turn: three calls, (id, tool, arguments).
CALLS = [
    ("call_1", "calculator", {"operation": "multiply", "a": 6, "b": 7}),
    ("call_2", "get_weather", {"location": "Lisbon, Portugal"}),
    ("call_3", "delete_user", {"user_id": "u-42", "mode": "hard"}),
]


def tools(path: str) -> Any:
    """The tool definitions `toolgen build` wrote for a platform (what a real request sends)."""
    return json.loads((GENERATED / path).read_text(encoding="utf-8"))


def answer(results: dict[str, Any]) -> str:
    """The scripted model's last turn, from the envelopes it was sent, by call id."""
    product = results["call_1"]["data"]
    weather = results["call_2"]["data"]
    refused = results["call_3"]["error"]
    return (
        f"6 x 7 = {product:g}. Lisbon: {weather['conditions']}, "
        f"{weather['temperature_c']} °C. I did not delete u-42: {refused['message']}"
    )


def get_weather(location: str, units: str = "metric") -> dict[str, Any]:
    """The example's weather handler calls a service; the loops answer for it."""
    return {"location": location, "temperature_c": 19.5, "conditions": "sunny",
            "observed_at": "2026-11-26T10:00:00Z"}  # fmt: skip


def ask(request: ConfirmationRequest) -> bool:
    """Where a person would be asked. This demo shows the request and says no."""
    print(f"confirm? {request.tool} ({request.risk}) {request.arguments}", file=sys.stderr)
    return False


def toolbox() -> Toolbox:
    """The examples' tools, with every decision audited to stderr."""
    return Toolbox.load(
        GENERATED,
        store="memory://",  # one process; sqlite:///... or redis://... to share keys
        audit=lambda event: print("audit:", event["decision"], event["tool"], file=sys.stderr),
        handlers={"get_weather": get_weather},
        factory=lambda cls: cls("acme"),  # AdminTools takes its tenant
        paths=[REPO / "examples"],
    )


def context() -> CallContext:
    """The caller: may delete users and has just signed in again; confirmations go to `ask`."""
    return CallContext(
        principal="user-42", scopes={"users:delete"}, confirm=ask, step_up=lambda r: True
    )


def report(result: LoopResult, said: str) -> None:
    """The model's answer on stdout, why the loop stopped on stderr."""
    print(said)
    print(f"stopped: {result.reason} ({result.stop}) after {result.turns} turns", file=sys.stderr)
