"""toolgen's own docstring sections: Errors, Examples, Idempotency, Side Effects, Permissions.

Grammar (DESIGN §1):

- `Errors:` one entry per code, `CODE: description` or `CODE (http_status, retryable): ...`,
  with an optional `Recovery: ...` sentence. Standard codes get taxonomy defaults.
- `Examples:` doctest style: prose lines are the prompt, `>>> name(k=v, ...)` the call (keyword
  arguments, literal values), the following lines the result as JSON or a Python literal; a result
  `{"error": {...}}` is an error example. A line `Notes: ...` after the result (continued on the
  lines below it) is the example's notes: one sentence on what it shows.
- `Idempotency:` `key: value` lines for idempotent, safe, destructive, open_world.
- `Side Effects:` / `Permissions:` bullet lines.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from toolgen.analyze.docstrings import DocLine, Section, dedent, join_text, parse_entries
from toolgen.analyze.literals import jsonable, literal_value
from toolgen.descriptor import STANDARD_ERRORS, Taxonomy
from toolgen.diagnostics import Diagnostic, Location

IDEMPOTENCY_KEYS = ("idempotent", "safe", "destructive", "open_world")
_CODE = re.compile(r"^[A-Z][A-Z0-9_]*$")
_RECOVERY = re.compile(r"\s*\bRecovery:\s*", re.IGNORECASE)
_NOTES = re.compile(r"^Notes:\s*", re.IGNORECASE)
_TRUE = {"true", "yes"}
_FALSE = {"false", "no"}


def _new_block() -> dict[str, Any]:
    """An example being read: its prompt's lines, its call's, its result's, its notes'."""
    return {"prose": [], "call": [], "result": [], "notes": [], "at": None}


class SectionReader:
    """Reads the sections of one docstring, collecting located diagnostics."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.diagnostics: list[Diagnostic] = []

    def _at(self, line: DocLine) -> Location:
        return Location(self.path, line.line, line.col + line.indent)

    def _report(self, code: str, message: str, line: DocLine) -> None:
        self.diagnostics.append(Diagnostic(code, message, self._at(line)))

    # -- Errors ------------------------------------------------------------------------------
    def errors(self, section: Section) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for entry in parse_entries(section.lines):
            if not entry.name or not _CODE.match(entry.name):
                self._report(
                    "TG304",
                    f"Errors entry {entry.at.text.strip()!r}: expected `CODE: description` with "
                    "an upper-case code",
                    entry.at,
                )
                continue
            status: int | None = None
            retryable: bool | None = None
            for part in (p.strip() for p in (entry.annotation or "").split(",") if p.strip()):
                low = part.lower().replace("_", "-")
                # ASCII digits (not "²"), not too many to be a status (`int` refuses 4,300)
                if part.isascii() and part.isdigit() and len(part) < 9 and 100 <= int(part) <= 599:
                    status = int(part)
                elif low in ("retryable", "retryable=true", "retry"):
                    retryable = True
                elif low in ("not retryable", "non-retryable", "retryable=false", "no retry"):
                    retryable = False
                else:
                    self._report(
                        "TG304",
                        f"Errors entry {entry.name}: cannot read {part!r}; expected an HTTP "
                        "status (100-599), `retryable` or `not retryable`",
                        entry.at,
                    )
            description, recovery = entry.text, ""
            match = _RECOVERY.search(entry.text)
            if match:
                description, recovery = entry.text[: match.start()], entry.text[match.end() :]
            standard = STANDARD_ERRORS.get(entry.name)
            if standard is None:
                if status is None or retryable is None:
                    self._report(
                        "TG305",
                        f"error code {entry.name} is not in the standard taxonomy; state its "
                        f"HTTP status and whether it is retryable, e.g. "
                        f"`{entry.name} (409, not retryable):`",
                        entry.at,
                    )
                    continue
                standard = Taxonomy(status, retryable, None)
            found.append(
                {
                    "code": entry.name,
                    "description": description.strip(),
                    "http_status": standard.http_status if status is None else status,
                    "retryable": standard.retryable if retryable is None else retryable,
                    "recovery": recovery.strip() or standard.recovery,
                }
            )
        return found

    # -- Idempotency -------------------------------------------------------------------------
    def idempotency(self, section: Section) -> dict[str, bool]:
        hints: dict[str, bool] = {}
        for line in dedent(section.lines):
            text = line.text.strip()
            if not text:
                continue
            key, sep, value = text.partition(":")
            key = key.strip().lower().replace(" ", "_").replace("-", "_")
            value = value.strip().lower()
            if not sep or key not in IDEMPOTENCY_KEYS:
                self._report(
                    "TG306",
                    f"Idempotency line {text!r}: expected `key: true|false` with key one of "
                    f"{', '.join(IDEMPOTENCY_KEYS)}",
                    line,
                )
            elif value not in _TRUE | _FALSE:
                self._report("TG306", f"Idempotency {key}: {value!r} is not true or false", line)
            else:
                hints[key] = value in _TRUE
        return hints

    # -- Side Effects / Permissions ------------------------------------------------------------
    def bullets(self, section: Section) -> list[str]:
        items: list[str] = []
        for line in section.lines:
            text = line.text.strip()
            if not text:
                continue
            if text[:2] in ("- ", "* ", "+ "):
                items.append(text[2:].strip())
            elif items and line.indent > 0:
                items[-1] += " " + text
            else:
                items.extend(p.strip() for p in text.split(",") if p.strip())
        return items

    # -- Examples ----------------------------------------------------------------------------
    def examples(self, section: Section, names: set[str]) -> list[tuple[dict[str, Any], DocLine]]:
        """Each example as a descriptor dict, with the line of its call for later checks."""
        blocks: list[dict[str, Any]] = []
        current = _new_block()
        lines = [*dedent(section.lines), DocLine("", 0, 1)]
        for line in lines:
            text = line.text.strip()
            if text.startswith(">>>"):
                if current["call"]:
                    blocks.append(current)
                    current = _new_block()
                current["call"].append(text[3:].strip())
                current["at"] = line
            elif text.startswith("...") and current["call"] and not current["result"]:
                current["call"].append(text[3:].strip())
            elif not text:
                if current["call"] and (current["result"] or current["notes"]):
                    blocks.append(current)
                    current = _new_block()
                elif current["prose"] and not current["call"]:
                    current["prose"].append("")
            elif current["call"] and (current["notes"] or _NOTES.match(text)):
                current["notes"].append(_NOTES.sub("", text, count=1))
            elif current["call"]:
                current["result"].append(text)
            else:
                current["prose"].append(text)
        if current["call"]:
            blocks.append(current)
        out: list[tuple[dict[str, Any], DocLine]] = []
        for block in blocks:
            parsed = self._example(block, names)
            if parsed is not None:
                out.append((parsed, block["at"]))
        return out

    def _example(self, block: dict[str, Any], names: set[str]) -> dict[str, Any] | None:
        at: DocLine = block["at"]
        source = " ".join(block["call"])
        try:
            call = ast.parse(source, mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # also NUL, surrogates
            self._report("TG307", f"example call `{source}` is not valid Python", at)
            return None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            self._report("TG307", f"example `{source}` must be a call of the tool by name", at)
            return None
        if call.func.id not in names:
            self._report(
                "TG307",
                f"example calls `{call.func.id}`, expected {' or '.join(sorted(names))}",
                at,
            )
            return None
        if call.args or any(kw.arg is None for kw in call.keywords):
            self._report("TG307", f"example `{source}` must pass keyword arguments only", at)
            return None
        arguments: dict[str, Any] = {}
        for kw in call.keywords:
            try:
                value = literal_value(kw.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                self._report("TG307", f"example argument `{kw.arg}` is not a literal value", at)
                return None
            try:
                arguments[str(kw.arg)] = jsonable(value)
            except (ValueError, RecursionError) as exc:  # 1e999, 1j, ...
                self._report("TG307", f"example argument `{kw.arg}`: {exc}", at)
                return None
        example: dict[str, Any] = {}
        prompt = join_text(block["prose"]).rstrip(":").strip()
        if prompt:
            example["prompt"] = prompt
        example["arguments"] = arguments
        if block["result"]:
            text = "\n".join(block["result"])
            try:
                result = json.loads(text)
            except (ValueError, RecursionError):
                try:
                    result = ast.literal_eval(text)
                except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                    self._report("TG307", "example result is neither JSON nor a Python literal", at)
                    return None
            try:  # Python's json reads NaN, Infinity and 1e999 (as inf): JSON has no such value
                result = jsonable(result)
            except (ValueError, RecursionError) as exc:
                self._report("TG307", f"example result: {exc}", at)
                return None
            if isinstance(result, dict) and set(result) == {"error"}:
                error = result["error"]
                if not isinstance(error, dict) or not isinstance(error.get("code"), str):
                    self._report(
                        "TG307", 'an error example needs {"error": {"code": "...", ...}}', at
                    )
                    return None
                example["error"] = error
            else:
                example["result"] = result
        notes = " ".join(n for n in block["notes"] if n).strip()
        if notes:
            example["notes"] = notes
        return example
