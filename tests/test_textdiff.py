"""`toolgen.textdiff`: unified diffs that apply, in difflib's form, and that never hand
`SequenceMatcher` more than the lines between two anchors (what keeps `check --diff` fast on
a payload of 10,000 tools)."""

from __future__ import annotations

import difflib
import random
import re
from typing import Any

import pytest

from toolgen import textdiff

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")


def apply(a: list[str], diff: list[str]) -> list[str]:
    """`a` patched by a unified diff (checking every context and removed line)."""
    out: list[str] = []
    at = 0  # lines of `a` used so far
    for line in diff[2:]:
        hunk = HUNK.fullmatch(line)
        if hunk:
            start = int(hunk[1]) - (0 if hunk[2] == "0" else 1)
            out.extend(a[at:start])
            at = start
        elif line[0] in " -":
            assert a[at] == line[1:], (at, line)
            at += 1
            if line[0] == " ":
                out.append(line[1:])
        else:
            assert line[0] == "+"
            out.append(line[1:])
    return out + a[at:]


def lines(words: list[str]) -> list[str]:
    return [w + "\n" for w in words]


@pytest.mark.parametrize("seed", range(300))
def test_a_diff_applies_and_says_nothing_when_equal(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = [f"w{n}" for n in range(rng.choice([2, 5, 40]))]
    a = lines([rng.choice(alphabet) for _ in range(rng.randrange(0, 60))])
    b = list(a)
    for _ in range(rng.randrange(0, 6)):
        at = rng.randrange(0, len(b) + 1)
        kind = rng.choice(["insert", "delete", "replace"])
        if kind != "insert" and at < len(b):
            del b[at : at + rng.randrange(1, 4)]
        if kind != "delete":
            b[at:at] = lines([rng.choice(alphabet) for _ in range(rng.randrange(1, 4))])
    diff = list(textdiff.unified_diff(a, b, "a/x", "b/x"))
    if a == b:
        assert diff == []
        return
    assert diff[:2] == ["--- a/x\n", "+++ b/x\n"]
    assert apply(a, diff) == b


def test_one_change_among_unique_lines_reads_as_difflib_writes_it() -> None:
    a = lines([f"line {n}" for n in range(40)])
    b = [*a[:17], "changed\n", "added\n", *a[19:]]
    ours = list(textdiff.unified_diff(a, b, "a/f", "b/f"))
    assert ours == list(difflib.unified_diff(a, b, "a/f", "b/f"))
    only_added = list(textdiff.unified_diff(a[:3], [*a[:3], "end\n"], "a/f", "b/f"))
    assert only_added == list(difflib.unified_diff(a[:3], [*a[:3], "end\n"], "a/f", "b/f"))


def test_a_large_payload_is_compared_between_anchors_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """20,000 tool entries whose lines mostly repeat; three of them edited far apart."""
    entry = '  {{\n    "name": "tool_{n}",\n    "type": "object",\n    "required": true\n  }},\n'
    a = "".join(entry.format(n=n) for n in range(20_000)).splitlines(keepends=True)
    b = list(a)
    for n in (5, 9_000, 19_990):
        b[5 * n + 2] = '    "type": "string",\n'
        b.insert(5 * n + 3, '    "nullable": true,\n')
    compared: list[int] = []
    real = textdiff.difflib.SequenceMatcher

    def counting(junk: Any, x: list[str], y: list[str]) -> Any:
        compared.append(len(x) + len(y))
        return real(junk, x, y)

    monkeypatch.setattr(textdiff.difflib, "SequenceMatcher", counting)
    diff = list(textdiff.unified_diff(a, b, "a/p", "b/p"))
    assert apply(a, diff) == b
    assert sum(line.startswith("@@") for line in diff) == 3
    assert compared and max(compared) < 20
