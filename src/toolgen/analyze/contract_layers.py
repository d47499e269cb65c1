"""A tool's contract from its layers (DESIGN §3, "The contract for tools toolgen did not write").

Highest first: the project's contract table (`toolgen.contract_config`), a `@tool(...)` (the
decorator of toolgen's own handler, or one stacked with a framework's), the framework's own
arguments and annotations (`destructiveHint` -> destructive, `needs_approval` ->
confirmation), the docstring's sections (`Idempotency:`, `Permissions:`, `Side Effects:`,
`Errors:`). Each value is the highest layer's that states it, and `origins` says which layer
that was, so `toolgen show` can tell a reviewer where to change it.

Two layers a team writes in the same place must agree: a stacked `@tool` that says otherwise
than the framework's own arguments (another name, `open_world=False` under
`openWorldHint=True`) is TG407 at the `@tool`'s keyword, as neither is plainly the one meant.
A contract table is the project's word over the code's, as the specification orders them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toolgen.contract_config import HINT_KEYS, ContractEntry
from toolgen.descriptor import STANDARD_ERRORS, Layer
from toolgen.diagnostics import Diagnostic, Location, cut

#: The hints a layer states, as `origins` names them.
HINT_PREFIX = "idempotency."
#: A stacked `@tool` keyword, and the framework's hint that says the same.
SAME_AS_HINT = {"open_world": "open_world"}
_CODE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass
class Stated:
    """What one layer states: `@tool` keywords (`options`), idempotency hints, and where each
    is written (hints under `idempotency.<hint>`)."""

    layer: Layer
    options: dict[str, Any] = field(default_factory=dict)
    hints: dict[str, bool] = field(default_factory=dict)
    places: dict[str, Location] = field(default_factory=dict)


@dataclass
class Contract:
    """The layers merged: each value, the layer it comes from and where that layer says it."""

    options: dict[str, Any] = field(default_factory=dict)
    hints: dict[str, bool] = field(default_factory=dict)
    origins: dict[str, Layer] = field(default_factory=dict)
    places: dict[str, Location] = field(default_factory=dict)


def merged(layers: Sequence[Stated]) -> Contract:
    """`layers` (lowest first) as one contract: a higher layer's value replaces a lower's."""
    contract = Contract()
    for stated in layers:
        for key, value in stated.options.items():
            contract.options[key] = value
            contract.origins[key] = stated.layer
            if key in stated.places:
                contract.places[key] = stated.places[key]
        for hint, value in stated.hints.items():
            key = HINT_PREFIX + hint
            contract.hints[hint] = value
            contract.origins[key] = stated.layer
            if key in stated.places:
                contract.places[key] = stated.places[key]
    return contract


def disagreements(framework: Stated, stacked: Stated) -> list[Diagnostic]:
    """TG407 for each value a stacked `@tool` states otherwise than the framework's own
    arguments, at the `@tool`'s keyword."""
    problems = []
    for key, value in stacked.options.items():
        if key in framework.options:
            theirs, there = framework.options[key], framework.places.get(key)
        elif key in SAME_AS_HINT and SAME_AS_HINT[key] in framework.hints:
            hint = HINT_PREFIX + SAME_AS_HINT[key]
            theirs, there = framework.hints[SAME_AS_HINT[key]], framework.places.get(hint)
        else:
            continue
        if not _same(value, theirs):
            problems.append(disagreement(key, value, theirs, there, stacked.places.get(key)))
    return problems


def disagreement(
    key: str, value: Any, theirs: Any, there: Location | None, at: Location | None
) -> Diagnostic:
    """TG407: a stacked `@tool`'s `key` is `value`, the framework's `theirs` (given `there`)."""
    what = "publishes the tool as" if key == "name" else "is given"
    said = f" at {there}" if there is not None else ""
    message = (
        f"@tool({key}={cut(repr(value))}) disagrees with the framework, which {what} "
        f"{cut(repr(theirs))}{said}: state it in one place"
    )
    return Diagnostic("TG407", message, at)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return list(a) == list(b)
    return bool(type(a) is type(b) and a == b)


def table_layer(entry: ContractEntry) -> Stated:
    """A contract table's fields as a layer (errors and examples apart: `table_errors`,
    `table_examples`)."""
    stated = Stated("contract")
    for key, value in entry.values.items():
        if key in ("errors", "examples"):
            continue
        if key in HINT_KEYS:
            stated.hints[key] = value  # not a bool: the descriptor's check says so (TG403)
            stated.places[HINT_PREFIX + key] = entry.where(key)
        else:
            stated.options[key] = value
            stated.places[key] = entry.where(key)
    return stated


def table_errors(entry: ContractEntry) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """The `errors` of a contract table as the `Errors:` section makes them: a standard code
    takes the taxonomy's defaults for what it does not state; another code must state its
    HTTP status and whether it is retryable (TG305)."""
    found: list[dict[str, Any]] = []
    problems: list[Diagnostic] = []
    for code, given in (entry.values.get("errors") or {}).items():
        at = entry.where(f"errors.{code}")
        if not code or code[0].isdigit() or code[0] == "_" or not set(code) <= _CODE_CHARS:
            message = f"error code {cut(repr(code))}: expected an upper-case code like NOT_FOUND"
            problems.append(Diagnostic("TG304", message, at))
            continue
        spec = {"description": given} if isinstance(given, str) else dict(given)
        standard = STANDARD_ERRORS.get(code)
        if standard is None and ("http_status" not in spec or "retryable" not in spec):
            message = (
                f"error code {code} is not in the standard taxonomy; state its "
                "`http_status` and `retryable`"
            )
            problems.append(Diagnostic("TG305", message, at))
            continue
        found.append(
            {
                "code": code,
                "description": spec.get("description", ""),
                "http_status": spec.get("http_status", standard and standard.http_status),
                "retryable": spec.get("retryable", standard and standard.retryable),
                "recovery": spec.get("recovery", standard and standard.recovery),
            }
        )
    return found, problems


def table_examples(
    entry: ContractEntry,
) -> tuple[list[tuple[dict[str, Any], Location]], list[Diagnostic]]:
    """The `examples` of a contract table, each with where it is written, as the `Examples:`
    section makes them (their arguments and results are checked with the docstring's)."""
    at = entry.where("examples")
    found: list[tuple[dict[str, Any], Location]] = []
    problems: list[Diagnostic] = []
    for number, given in enumerate(entry.values.get("examples") or [], 1):
        if not _is_json(given):  # a TOML date or time is no JSON value
            message = f"examples[{number}]: a TOML date or time is no JSON value; write a string"
            problems.append(Diagnostic("TG307", message, at))
            continue
        example = {k: given[k] for k in ("prompt", "arguments", "result", "error") if k in given}
        error = example.get("error")
        coded = isinstance(error, dict) and isinstance(error.get("code"), str)
        if error is not None and not coded:
            message = f"examples[{number}]: `error` must be a table with a `code`"
            problems.append(Diagnostic("TG307", message, at))
            continue
        found.append((example, at))
    return found, problems


def _is_json(value: Any) -> bool:
    """Whether `value` (as TOML reads it) holds only JSON's kinds of value, walked without
    recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float) and not math.isfinite(item):
            return False  # TOML's inf and nan: JSON has neither
        elif item is not None and not isinstance(item, str | int | float | bool):
            return False
    return True
