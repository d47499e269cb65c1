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

from toolgen.contract_config import EXAMPLE_KEYS, HINT_KEYS, ContractEntry, table_key
from toolgen.descriptor import DEFAULT_RISK, RISK_DEFAULTS, STANDARD_ERRORS, Layer
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
        example = {k: given[k] for k in EXAMPLE_KEYS if k in given}
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


#: A problem of the merged contract: its code, its message, and the contract key it is about
#: (where the layer that states that key says it is where it is reported).
Finding = tuple[str, str, str]


def safety(contract: Contract) -> tuple[dict[str, Any], list[Finding]]:
    """The descriptor's `autonomous`, `confirmation` and `confirmation_reason` as the merged
    contract makes them, and what contradicts (DESIGN §3):

    - the risk sets the defaults; `autonomous` and `confirmation` may only make a tool
      stricter than its risk (TG404);
    - a destructive tool is confirmed, whatever its risk, unless its contract says
      `confirmation=False` with a `reason` (TG408 for half of that; TG404 for a confirmed
      destructive tool stated autonomous);
    - a tool that needs confirmation is not autonomous unless a layer says so;
    - a flag is true or false: text such as "false" is TG403, as it would read as a bool
      after these checks (a high-risk tool written unconfirmed)."""
    options, findings = contract.options, []
    flags = {key: options.get(key) for key in ("autonomous", "confirmation")}
    flags |= {HINT_PREFIX + hint: value for hint, value in contract.hints.items()}
    for key, value in flags.items():
        if value is not None and not isinstance(value, bool):
            findings.append(
                ("TG403", f"`{key}`: must be true or false, not {cut(repr(value))}", key)
            )
    if findings:
        return {}, findings
    risk = options.get("risk", DEFAULT_RISK)
    autonomous, confirmation = RISK_DEFAULTS.get(risk, RISK_DEFAULTS[DEFAULT_RISK])
    if risk in ("high", "critical", "forbidden") and options.get("autonomous") is True:
        findings.append(("TG404", f"a {risk} tool cannot be autonomous", "autonomous"))
    if confirmation and options.get("confirmation") is False:
        message = f"a {risk} tool needs confirmation: `confirmation=False` loosens its risk level"
        findings.append(("TG404", message, "confirmation"))
    fields: dict[str, Any] = {
        "autonomous": options.get("autonomous", autonomous),
        "confirmation": options.get("confirmation", confirmation),
    }
    destructive = contract.hints.get("destructive") is True
    waived = options.get("confirmation") is False
    reason = options.get("reason")
    if reason is not None and not (destructive and waived):
        message = (
            "`reason` says why a destructive tool runs without confirmation: give it with "
            "`confirmation=False`, on a tool whose `destructive` hint is true"
        )
        findings.append(("TG408", message, "reason"))
    if destructive and waived and reason is None:
        message = (
            "a destructive tool is confirmed before it runs: `confirmation=False` needs "
            '`reason="..."` saying why this one may run unconfirmed'
        )
        findings.append(("TG408", message, "confirmation"))
    elif destructive and waived:
        fields["confirmation_reason"] = reason
    elif destructive:
        if options.get("autonomous") is True:
            message = (
                "a destructive tool is confirmed, so it is not autonomous: drop "
                '`autonomous=True`, or waive confirmation with `confirmation=False, reason="..."`'
            )
            findings.append(("TG404", message, "autonomous"))
        fields["confirmation"], fields["autonomous"] = True, False
    if fields["confirmation"] and "autonomous" not in options:  # a person's yes first
        fields["autonomous"] = False
    return fields, findings


def classify_hint(name: str, native: bool, contract_file: str | None) -> str:
    """TG406's message for a tool no layer states the risk of, with the one line that
    classifies it (`contract_file`: the contract file, as shown)."""
    levels = "low, medium, high, critical or forbidden"
    if native:
        return f"tool {name} states no risk: give `@tool(risk=...)` ({levels})"
    table = f"[tool.toolgen.contract.{table_key(name)}]"
    if contract_file is not None:
        table = f"[{table_key(name)}] in {contract_file}"
    return f'tool {name} states no risk: add `risk = "..."` ({levels}) to {table}'


def with_table(
    entry: ContractEntry, errors: list[dict[str, Any]], contract: Contract
) -> tuple[list[dict[str, Any]], list[tuple[dict[str, Any], Location]], list[Diagnostic]]:
    """`errors` with the table's over those of the same code (their origins and places in
    `contract`), the table's examples, and the problems of both."""
    found, problems = table_errors(entry)
    examples, more = table_examples(entry)
    replaced = {error["code"] for error in found}
    for error in found:
        key = f"errors.{error['code']}"
        contract.origins[key] = "contract"
        contract.places[key] = entry.where(key)
    kept = [error for error in errors if error["code"] not in replaced]
    return kept + found, examples, problems + more
