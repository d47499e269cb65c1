"""What the user turned down or off: rule levels from config and `# toolgen: ignore[...]`.

- `[tool.toolgen.rules]` sets a rule's level (`error`, `warning`, `info`) or turns it `off`.
- `# toolgen: ignore[TG301]` (or `# toolgen: ignore` for every rule) on a line suppresses what
  is reported on that line; on a handler's decorator or `def` line it suppresses it for the
  whole handler.

Rules whose level is fixed (`Rule.configurable` false: configuration, parse and I/O problems,
and those the compiler answers by leaving a tool out, such as TG102) cannot be suppressed; the
configuration refuses a level for them (TG002).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from toolgen.diagnostics import RULES, Diagnostic, Level

UNSUPPRESSIBLE = frozenset(code for code, rule in RULES.items() if not rule.configurable)
_IGNORE = re.compile(r"#\s*toolgen:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")

#: `None` in a code set: every rule.
Codes = frozenset[str] | None


def _merge(a: Codes | bool, b: Codes) -> Codes | bool:
    """Union of two suppressions (False: nothing suppressed yet)."""
    if a is False:
        return b
    if a is None or b is None:
        return None
    assert isinstance(a, frozenset)
    return a | b


@dataclass
class FileSuppressions:
    """The ignore comments of one file, and the handlers' line spans."""

    lines: dict[int, Codes] = field(default_factory=dict)
    spans: list[tuple[int, int, Codes]] = field(default_factory=list)  # first, last, codes

    @classmethod
    def parse(cls, source: str) -> FileSuppressions:
        found = cls()
        if "toolgen:" not in source:  # the common case costs one substring search
            return found
        for number, line in enumerate(source.splitlines(), 1):
            match = _IGNORE.search(line)
            if match:
                codes = match.group(1)
                found.lines[number] = (
                    None
                    if codes is None or not codes.strip()
                    else frozenset(c.strip().upper() for c in codes.split(",") if c.strip())
                )
        return found

    def to_json(self) -> dict[str, Any]:
        def codes(c: Codes) -> list[str] | None:
            return None if c is None else sorted(c)

        return {
            "lines": [[n, codes(c)] for n, c in self.lines.items()],
            "spans": [[first, last, codes(c)] for first, last, c in self.spans],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileSuppressions:
        def codes(c: list[str] | None) -> Codes:
            return None if c is None else frozenset(c)

        return cls(
            {int(n): codes(c) for n, c in data["lines"]},
            [(int(first), int(last), codes(c)) for first, last, c in data["spans"]],
        )

    def add_handler(self, first: int, def_line: int, last: int) -> None:
        codes: Codes | bool = False
        for number in range(first, def_line + 1):
            if number in self.lines:
                codes = _merge(codes, self.lines[number])
        if codes is not False:
            self.spans.append((first, last, codes if not isinstance(codes, bool) else None))

    def suppresses(self, diagnostic: Diagnostic) -> bool:
        if diagnostic.code in UNSUPPRESSIBLE or diagnostic.location is None:
            return False
        line = diagnostic.location.line
        if line in self.lines and _covers(self.lines[line], diagnostic.code):
            return True
        return any(
            first <= line <= last and _covers(codes, diagnostic.code)
            for first, last, codes in self.spans
        )


def _covers(codes: Codes, code: str) -> bool:
    return codes is None or code in codes


@dataclass(frozen=True)
class Policy:
    """Rule levels from the configuration; `None` for a rule turned off."""

    levels: dict[str, Level | None] = field(default_factory=dict)

    def apply(
        self,
        diagnostics: Iterable[Diagnostic],
        files: dict[str, FileSuppressions] | None = None,
    ) -> list[Diagnostic]:
        kept: list[Diagnostic] = []
        for d in diagnostics:
            if d.code in UNSUPPRESSIBLE:
                kept.append(d)
                continue
            where = d.location.path if d.location else None
            if files and where in files and files[where].suppresses(d):
                continue
            if d.code in self.levels:
                level = self.levels[d.code]
                if level is None:
                    continue
                d = Diagnostic(d.code, d.message, d.location, level)
            kept.append(d)
        return kept
