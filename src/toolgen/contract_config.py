"""The contract tables: a tool's contract written in the configuration, not in its code.

A team that arrives with FastMCP, LangChain or Agents SDK tools gives them a contract without
editing them: `[tool.toolgen.contract.<tool name>]` tables beside the rest of the
configuration, or the top-level tables of the TOML file `contract_file` names (what
`toolgen init` writes). A table may state every contract field `@tool(...)` takes but `name`
(the table's own name says which tool), the `Idempotency:` hints (`idempotent`, `safe`,
`destructive`), `reason` (why a destructive tool runs without a person's confirmation),
`errors` (code = description, or a table as the `Errors:` section states it) and `examples`.

This module checks the tables' shape where they are written (an unknown field is TG002 at its
key); what the values must be is the descriptor's business, checked for each tool it applies
to (`toolgen.analyze.layers`), so a bad value is located the same way and costs that tool
alone. Which tool a table names is known only once the project is compiled: a name no tool
has is TG021 (`toolgen.compiler`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolgen._marker import TOOL_KEYWORDS
from toolgen.diagnostics import Diagnostic, Location, cut

#: The idempotency hints a table may state, each as its own key.
HINT_KEYS = ("idempotent", "safe", "destructive")
#: Every key a contract table may have.
CONTRACT_KEYS = tuple(sorted((TOOL_KEYWORDS - {"name"}) | set(HINT_KEYS) | {"errors", "examples"}))
#: What an `errors` entry given as a table may have (`Errors:` states the same).
ERROR_KEYS = ("description", "http_status", "retryable", "recovery")
#: What an `examples` entry may have.
EXAMPLE_KEYS = ("prompt", "arguments", "result", "error", "notes")


@dataclass(frozen=True)
class ContractEntry:
    """One tool's contract table: its values as written (checked later, per tool), where each
    key is written, and where the table is (its header)."""

    name: str
    values: Mapping[str, Any]
    at: Location
    places: Mapping[str, Location] = field(default_factory=dict)

    def where(self, key: str) -> Location:
        """Where `key` is written; the table's header when it is not placed."""
        return self.places.get(key, self.at)


def table_key(name: str) -> str:
    """`name` as a TOML key: bare when it can be, else quoted (a bare `users.delete` is two
    keys)."""
    bare = name.isascii() and all(c.isalnum() or c in "_-" for c in name)
    return name if bare and name else json.dumps(name)


#: Where a key path inside the contract tables is written (the table's name first).
Where = Callable[..., Location]


def contract_entries(
    tables: Any, where: Where, shown: str
) -> tuple[dict[str, ContractEntry], list[Diagnostic]]:
    """The entries of `tables` (tool name -> its table) and the problems of their shape;
    `shown` is how the tables are named in messages (`[tool.toolgen.contract]`)."""
    entries: dict[str, ContractEntry] = {}
    problems: list[Diagnostic] = []
    if not isinstance(tables, dict):
        message = f"{shown}: must be a table of tool name = table of contract fields"
        return {}, [Diagnostic("TG002", message, where())]
    for name, table in tables.items():
        if not isinstance(table, dict):
            message = f"{shown}.{cut(name)}: must be a table of contract fields"
            problems.append(Diagnostic("TG002", message, where(name)))
            continue
        bad = [key for key in table if key not in CONTRACT_KEYS]
        for key in bad:
            message = (
                f"{shown}.{cut(name)}: unknown contract field {cut(repr(key))} "
                f"(known: {', '.join(CONTRACT_KEYS)})"
            )
            problems.append(Diagnostic("TG002", message, where(name, key)))
        problems.extend(_errors_shape(table.get("errors"), f"{shown}.{cut(name)}", name, where))
        problems.extend(_examples_shape(table.get("examples"), f"{shown}.{cut(name)}", name, where))
        if bad:
            continue
        places = {key: where(name, key) for key in table}
        errors = table.get("errors")
        for code in errors if isinstance(errors, dict) else ():
            places[f"errors.{code}"] = where(name, "errors", code)
        entries[name] = ContractEntry(name, dict(table), where(name), places)
    return entries, problems


def _errors_shape(errors: Any, shown: str, name: str, where: Where) -> list[Diagnostic]:
    if errors is None:
        return []
    if not isinstance(errors, dict):
        message = f"{shown}.errors: must be a table of CODE = description (or a table)"
        return [Diagnostic("TG002", message, where(name, "errors"))]
    problems = []
    for code, entry in errors.items():
        at = where(name, "errors", code)
        if isinstance(entry, dict):
            for key in entry:
                if key not in ERROR_KEYS:
                    message = (
                        f"{shown}.errors.{cut(code)}: unknown field {cut(repr(key))} "
                        f"(known: {', '.join(ERROR_KEYS)})"
                    )
                    problems.append(Diagnostic("TG002", message, at))
        elif not isinstance(entry, str):
            message = f"{shown}.errors.{cut(code)}: must be a description, or a table"
            problems.append(Diagnostic("TG002", message, at))
    return problems


def _examples_shape(examples: Any, shown: str, name: str, where: Where) -> list[Diagnostic]:
    if examples is None:
        return []
    at = where(name, "examples")
    if not isinstance(examples, list) or not all(isinstance(e, dict) for e in examples):
        message = f"{shown}.examples: must be a list of tables ({', '.join(EXAMPLE_KEYS)})"
        return [Diagnostic("TG002", message, at)]
    problems = []
    for number, example in enumerate(examples, 1):
        for key in example:
            if key not in EXAMPLE_KEYS:
                message = (
                    f"{shown}.examples[{number}]: unknown field {cut(repr(key))} "
                    f"(known: {', '.join(EXAMPLE_KEYS)})"
                )
                problems.append(Diagnostic("TG002", message, at))
        if not isinstance(example.get("arguments"), dict):
            message = f"{shown}.examples[{number}]: needs `arguments`, a table"
            problems.append(Diagnostic("TG002", message, at))
    return problems
