"""Unified diffs that stay fast on generated files of hundreds of thousands of lines.

`difflib.unified_diff` compares whole files with `SequenceMatcher`, which takes minutes on a
payload of 10,000 tools (its lines repeat a lot: `"type": "string",`). Here the files are
first aligned on their common start and end, then on the lines that occur exactly once in
each (a tool's name, its description: the anchors of patience diff, in an order both files
share), and `SequenceMatcher` only compares what lies between two anchors. The output has
`difflib.unified_diff`'s form, with its three lines of context.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Iterator, Sequence
from typing import Literal

Tag = Literal["replace", "delete", "insert", "equal"]
Opcode = tuple[Tag, int, int, int, int]


def unified_diff(a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str) -> Iterator[str]:
    """`difflib.unified_diff(a, b, fromfile, tofile)` (lines with their line ends)."""
    started = False
    for group in _Matcher(opcodes(a, b)).get_grouped_opcodes(3):
        if not started:
            started = True
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in b[j1:j2])


def _range(start: int, stop: int) -> str:
    """A hunk's range as `difflib` writes it."""
    length = stop - start
    beginning = start + 1
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1  # an empty range begins one line before
    return f"{beginning},{length}"


class _Matcher(difflib.SequenceMatcher[str]):
    """`SequenceMatcher`'s grouping of given opcodes."""

    def __init__(self, codes: list[Opcode]) -> None:
        super().__init__(None, "", "")
        self.codes = codes

    def get_opcodes(self) -> list[Opcode]:
        return self.codes


def common_ends(a: Sequence[object], b: Sequence[object]) -> tuple[int, int]:
    """How many items `a` and `b` start with alike, and how many more they end with alike
    (never counting an item twice)."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return start, end


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """What `SequenceMatcher(None, a, b).get_opcodes()` says, found by anchors (see the
    module's doc): the same kind of answer, not always the same one."""
    start, end = common_ends(a, b)
    a2, b2 = len(a) - end, len(b) - end
    codes: list[Opcode] = [("equal", 0, start, 0, start)]
    lo_a = lo_b = start
    for i, j in _increasing(_unique_pairs(a, b, start, a2, start, b2)):
        _gap(a, b, lo_a, i, lo_b, j, codes)
        codes.append(("equal", i, i + 1, j, j + 1))
        lo_a, lo_b = i + 1, j + 1
    _gap(a, b, lo_a, a2, lo_b, b2, codes)
    codes.append(("equal", a2, len(a), b2, len(b)))
    return _merged(codes)


def _unique_pairs(
    a: Sequence[str], b: Sequence[str], a1: int, a2: int, b1: int, b2: int
) -> list[tuple[int, int]]:
    counts: dict[str, list[int]] = {}  # line -> [times in a, index in a, times in b, in b]
    for i in range(a1, a2):
        seen = counts.setdefault(a[i], [0, i, 0, 0])
        seen[0] += 1
    for j in range(b1, b2):
        found = counts.get(b[j])
        if found is not None:
            found[2] += 1
            found[3] = j
    return sorted((i, j) for n, i, m, j in counts.values() if n == 1 and m == 1)


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of `pairs` (sorted by i) whose j increase too (patience sorting)."""
    tops: list[int] = []  # the j at the top of each pile
    top_index: list[int] = []  # which pair is on top of each pile
    before: list[int] = []  # for each pair, the pair on top of the pile to its left
    for k, (_, j) in enumerate(pairs):
        pile = bisect.bisect_left(tops, j)
        before.append(top_index[pile - 1] if pile else -1)
        if pile == len(tops):
            tops.append(j)
            top_index.append(k)
        else:
            tops[pile], top_index[pile] = j, k
    run: list[tuple[int, int]] = []
    k = top_index[-1] if top_index else -1
    while k >= 0:
        run.append(pairs[k])
        k = before[k]
    return run[::-1]


def _gap(
    a: Sequence[str], b: Sequence[str], a1: int, a2: int, b1: int, b2: int, codes: list[Opcode]
) -> None:
    """The opcodes of a[a1:a2] against b[b1:b2] (no anchor between them)."""
    if a1 == a2 and b1 == b2:
        return
    if a1 == a2 or b1 == b2:
        codes.append(("insert" if a1 == a2 else "delete", a1, a2, b1, b2))
        return
    matcher = difflib.SequenceMatcher(None, a[a1:a2], b[b1:b2])
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        codes.append((tag, a1 + i1, a1 + i2, b1 + j1, b1 + j2))


def _merged(codes: list[Opcode]) -> list[Opcode]:
    """Adjacent opcodes joined: equal with equal, and changes with changes (a replace, or
    an insert or delete when one side is empty); empty ones dropped."""
    out: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if i1 == i2 and j1 == j2:
            continue
        if out and (out[-1][0] == "equal") == (tag == "equal"):
            i1, j1 = out[-1][1], out[-1][3]
            out.pop()
            if tag != "equal":
                tag = "insert" if i1 == i2 else "delete" if j1 == j2 else "replace"
        out.append((tag, i1, i2, j1, j2))
    return out or [("equal", 0, 0, 0, 0)]
