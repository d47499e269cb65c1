"""The contract file `toolgen init` writes for a project's existing tools.

Every tool is classified (DESIGN §3), and a framework's tools arrive without a risk. For each
tool no layer classifies, `init` writes a table into `toolgen.contract.toml` with a risk it
suggests from what the framework says (`destructiveHint`, `readOnlyHint`) and from the tool's
name (`delete_`, `send_`, `get_` ...), as a comment: nothing is classified until a person has
read it and set the risk (`toolgen build` warns until then, TG406). A destructive tool is
confirmed at run time meanwhile, whatever its risk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from toolgen.contract_config import table_key
from toolgen.descriptor import ToolDescriptor

CONTRACT_FILE = "toolgen.contract.toml"

#: First words of a tool's name, and the risk they suggest (the first that matches decides).
NAME_RISKS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "high",
        ("delete", "drop", "remove", "destroy", "purge", "wipe", "truncate", "erase", "kill",
         "terminate", "revoke", "reset", "pay", "transfer", "refund", "charge", "deploy",
         "execute", "exec", "run", "shell", "sudo"),
    ),
    (
        "medium",
        ("send", "post", "publish", "create", "update", "write", "set", "add", "put", "patch",
         "edit", "modify", "move", "rename", "upload", "insert", "invite", "approve", "merge",
         "close", "cancel", "schedule", "start", "stop", "restart", "install", "commit", "push"),
    ),
    (
        "low",
        ("get", "list", "search", "read", "fetch", "find", "describe", "show", "query", "count",
         "lookup", "check", "view", "browse", "inspect", "explain", "summarize", "validate"),
    ),
)  # fmt: skip


def suggested_risk(tool: ToolDescriptor) -> tuple[str, str]:
    """A risk to review for `tool`, and why it is suggested."""
    hints = tool.idempotency
    name = tool.name.lstrip("_")
    # the first word however the name is spelt: delete_user, delete-user, deleteUser
    found = re.match(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name)
    first = found.group().lower() if found else ""
    shown = name[: len(first) + (name[len(first) : len(first) + 1] in ("_", "-", "."))]
    by_name = next((risk for risk, words in NAME_RISKS if first in words), None)
    if hints.destructive:
        return "high", "destructiveHint is true"
    if by_name == "high":
        return "high", f"the name starts with `{shown}`"
    if hints.safe:
        return "low", "readOnlyHint is true"
    if by_name is not None:
        return by_name, f"the name starts with `{shown}`"
    return "medium", "neither its annotations nor its name say more"


def contract_text(tools: Iterable[ToolDescriptor], newline: str = "\n") -> str | None:
    """The contract file for the tools no layer classifies (one table per name, in name
    order); None when there are none."""
    unclassified: dict[str, ToolDescriptor] = {}
    for tool in tools:
        if "risk" not in (tool.origins or {}):
            unclassified.setdefault(tool.name, tool)
    if not unclassified:
        return None
    lines = [
        "# Each tool's contract, keyed by its name: what its code does not say (`toolgen init`",
        '# wrote this file; the README\'s "Adding the contract to existing tools" lists every',
        "# field). Every tool needs a risk (low, medium, high, critical, forbidden): review the",
        "# suggestion under each table, then set it. `toolgen build` warns until you do; a",
        "# destructive tool is confirmed before it runs whatever its risk.",
    ]
    for name, tool in sorted(unclassified.items()):
        risk, why = suggested_risk(tool)
        lines += [
            "",
            f"[{table_key(name)}]",
            f"# review: suggested risk {risk} ({why})",
            f'# risk = "{risk}"',
        ]
    return newline.join(lines) + newline
