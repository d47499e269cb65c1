"""Diagnostics as data: a stable rule code, a level, a message and a source location.

Every problem toolgen finds in user input becomes a `Diagnostic`; nothing in the pipeline prints
or exits. The CLI formats them (`format_text`, `format_github`, `to_json`) and turns their levels
into an exit code.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Level(StrEnum):
    """How serious a diagnostic is. `error` blocks `build` (nothing is written)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


@dataclass(frozen=True)
class Rule:
    code: str
    level: Level
    summary: str


def _rules(*rows: tuple[str, Level, str]) -> dict[str, Rule]:
    return {code: Rule(code, level, summary) for code, level, summary in rows}


E, W, I = Level.ERROR, Level.WARNING, Level.INFO  # noqa: E741

#: Every rule toolgen can report, by stable code. Codes are never reused.
RULES: dict[str, Rule] = _rules(
    # TG0xx: configuration, command line and files
    ("TG001", E, "configuration file missing, unreadable or without a [tool.toolgen] table"),
    ("TG002", E, "invalid configuration value"),
    ("TG003", E, "a configured source path does not exist"),
    ("TG004", E, "output folder resolves outside the project"),
    ("TG005", E, "source file cannot be read or decoded"),
    # TG1xx: discovery
    ("TG101", E, "syntax error in a source file"),
    ("TG102", E, "two tools have the same name"),
    ("TG103", E, "tool name is not valid on every platform"),
    ("TG104", W, "no tool handlers found in the configured sources"),
    # TG2xx: signatures and types
    ("TG201", E, "annotation names something that cannot be resolved statically"),
    ("TG202", E, "type construct not supported"),
    ("TG203", E, "parameter has no type annotation"),
    ("TG204", E, "parameter kind cannot be exposed to a model (*args, **kwargs, positional-only)"),
    ("TG205", E, "Field(...) or constraint argument is not a literal"),
    ("TG206", E, "default value is not a literal that can be put into a schema"),
    ("TG207", W, "return type not annotated; returns schema left open"),
    # TG3xx: docstrings
    ("TG301", E, "parameter has no entry in the docstring's Args section"),
    ("TG302", W, "docstring documents a parameter the signature does not have"),
    ("TG303", E, "tool has no docstring summary to use as its description"),
    ("TG304", E, "malformed Errors entry"),
    ("TG305", E, "error code outside the standard taxonomy without http status and retryable"),
    ("TG306", E, "malformed Idempotency line"),
    ("TG307", E, "malformed example"),
    # TG4xx: decorator arguments
    ("TG401", E, "decorator argument is not a literal"),
    ("TG402", E, "unknown decorator argument"),
    ("TG403", E, "invalid decorator argument value"),
    # TG5xx: examples against the contract
    ("TG501", E, "example arguments do not validate against the parameters schema"),
    ("TG502", E, "example result does not validate against the returns schema"),
    ("TG503", E, "example error code is not declared in Errors"),
    ("TG504", W, "example omits required arguments (kept in the descriptor, not sent as input)"),
    # TG6xx: platform rendering
    ("TG601", W, "schema cannot be OpenAI-strict; rendered with strict: false"),
    ("TG602", W, "construct not representable in Gemini's schema subset; tool left out of Gemini"),
    # TG7xx: --verify-runtime (the handlers imported in a child process, on request only)
    ("TG701", E, "static parameters schema differs from pydantic's schema at run time"),
    ("TG702", W, "handler could not be verified at run time"),
)


@dataclass(frozen=True, order=True)
class Location:
    """A place in a file: `path` as shown to the user, 1-based line and column."""

    path: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    location: Location | None = None
    level: Level | None = None  # None: the rule's default level

    def __post_init__(self) -> None:
        if self.code not in RULES:
            raise KeyError(f"unknown diagnostic code {self.code!r}; add it to RULES")
        if self.level is None:
            object.__setattr__(self, "level", RULES[self.code].level)

    @property
    def severity(self) -> Level:
        assert self.level is not None
        return self.level

    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location or Location("")
        return (loc.path, loc.line, loc.col, self.code, self.message)

    def format_text(self) -> str:
        where = f"{self.location}: " if self.location else ""
        return f"{where}{self.code} [{self.severity.value}] {self.message}"

    def format_github(self) -> str:
        kind = {"error": "error", "warning": "warning", "info": "notice"}[self.severity.value]
        props = ""
        if self.location:
            loc = self.location
            props = f" file={loc.path},line={loc.line},col={loc.col},"
        title = f"title={self.code}"
        message = self.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return f"::{kind}{props or ' '}{title}::{message}"

    def to_dict(self) -> dict[str, Any]:
        loc = self.location
        return {
            "code": self.code,
            "level": self.severity.value,
            "message": self.message,
            "path": loc.path if loc else None,
            "line": loc.line if loc else None,
            "col": loc.col if loc else None,
        }


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Level.ERROR for d in diagnostics)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    unique = {(d.code, d.message, d.location, d.severity): d for d in diagnostics}
    return sorted(unique.values(), key=Diagnostic.sort_key)


class UserError(Exception):
    """A problem with the user's input that stops a run (exit code 2); carries diagnostics."""

    def __init__(self, *diagnostics: Diagnostic) -> None:
        super().__init__("; ".join(d.format_text() for d in diagnostics))
        self.diagnostics = list(diagnostics)
