"""How often toolgen's static parameters schema equals pydantic's, on generated signatures.

    python scripts/signature_equality.py [N] [--seed S] [--no-reduce] [--no-minimise] [--all]

Draws N signatures (default 1,000) from `tests/signature_grammar.py`, runs each through toolgen
(statically) and pydantic (at run time) with the harness of `tests/test_generated_signatures.py`,
and prints the equality rate. Every unequal signature is then reduced to the parameters that
fail on their own; the reduced failures are grouped into classes of difference (toolgen's
diagnostic codes, or the kinds of JSON differences), each printed with its count and its
smallest example, line-minimised, with toolgen's schema (or diagnostic) next to pydantic's.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))

from signature_grammar import generate_cases  # noqa: E402
from test_generated_signatures import Diff, Job, Outcome, run_jobs  # noqa: E402

#: Keys whose value says what kind of difference it is (`type: null` is not `type: array`).
VALUE_KEYS = {"type", "format", "additionalProperties", "uniqueItems", "writeOnly", "const"}
#: JSON Schema keywords for pydantic's constraints, and pydantic's own names for them (which
#: pydantic writes verbatim into a schema when it cannot apply a constraint to the type).
BOUNDS = {
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
    "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "pattern",
}  # fmt: skip
RAW_CONSTRAINTS = {"ge", "gt", "le", "lt", "multiple_of", "min_length", "max_length"}


def _where(diff: Diff) -> str:
    """The diff's last path step, with definition and property names generalised."""
    parts: list[str] = []
    for step in diff.path:
        if isinstance(step, int):
            parts[-1] += "[]"
        elif parts and parts[-1] in ("$defs", "properties"):
            parts.append("*")
        else:
            parts.append(step)
    tail = parts[-2:] if len(parts) >= 2 and parts[-1] == "*" else parts[-1:]
    return "/".join(str(p) for p in tail)


def _shape(value: Any) -> str:
    if isinstance(value, dict):
        for key in ("$ref", "enum", "const", "anyOf", "type"):
            if key in value:
                return (
                    f"{{{key}: {json.dumps(value[key])[:40]}}}" if key == "type" else f"{{{key}}}"
                )
        return "{" + ",".join(sorted(value)) + "}"
    if isinstance(value, bool) or value is None or value == 0:
        return json.dumps(value)
    return ""


def diff_signature(diff: Diff) -> str:
    where = _where(diff)
    key = str(diff.path[-1]) if diff.path else ""
    if diff.kind == "reordered":
        return f"{where}: same items, another order"
    if diff.kind == "changed":
        if key in BOUNDS:
            return "a constraint's value differs (the same constraint given twice)"
        if key in VALUE_KEYS:
            ours, theirs = json.dumps(diff.toolgen), json.dumps(diff.pydantic)
            return f"{where}: toolgen {ours} vs pydantic {theirs}"
        return f"{where}: value differs"
    value = diff.pydantic if diff.kind == "missing" else diff.toolgen
    side = "only pydantic has" if diff.kind == "missing" else "only toolgen has"
    if key == "$defs" or (len(diff.path) > 1 and diff.path[-2] == "$defs"):
        return f"{side} definitions in $defs"
    if key in RAW_CONSTRAINTS:
        who = "pydantic" if diff.kind == "missing" else "toolgen"
        return f"only {who} writes raw constraint keywords (ge, gt, min_length, ...)"
    shown = json.dumps(value) if key in VALUE_KEYS else _shape(value)
    return f"{side} {where}{'=' + shown if shown else ''}"


def message_template(text: str) -> str:
    text = re.sub(r"`[^`]*`", "`…`", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    return re.sub(r"\bsigpkg_\w+|\b\d+\b", "…", text)


def signatures(outcome: Outcome) -> set[str]:
    """The kinds of difference in one outcome; each is a class of the report."""
    if outcome.status == "refused":
        return {f"refused: {d.code} {message_template(d.message)}" for d in outcome.errors}
    if outcome.status == "differs":
        keywords = BOUNDS | RAW_CONSTRAINTS
        moved = [
            d for d in outcome.diffs if d.kind in ("missing", "extra") and d.path[-1] in keywords
        ]
        found = {diff_signature(d) for d in outcome.diffs if all(d is not m for m in moved)}
        if {d.kind for d in moved} == {"missing", "extra"}:
            # The same constraints, written under another name or at another place.
            found.add("constraint keywords named or placed differently (e.g. over a validator)")
        else:
            found |= {diff_signature(d) for d in moved}
        return {f"differs: {s}" for s in found}
    if outcome.status == "crash":
        last = outcome.detail.strip().splitlines()[-1] if outcome.detail.strip() else "?"
        return {f"crash: {message_template(last)}"}
    return {outcome.status}


# -- minimising an example -----------------------------------------------------------------
def _edits(text: str) -> list[tuple[int, int, list[str]]]:
    """Edits that may simplify models.py, biggest first: (start, end, replacement lines).

    Whole top-level statements are deleted; a class-body field is deleted or has its
    annotation replaced by `int` (and its default dropped); then unused imports go. Docstrings
    are kept.
    """
    lines = text.splitlines()
    deletions: list[tuple[int, int, list[str]]] = []
    simpler: list[tuple[int, int, list[str]]] = []
    imports: list[tuple[int, int, list[str]]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(("import ", "from ")) and "__future__" not in line:
            imports.append((i, i + 1, []))
        elif line.startswith(("class ", "def ", "@")) or re.match(r"^\w+(: [\w.]+)? = ", line):
            end = i + 1
            while end < len(lines) and (not lines[end] or lines[end].startswith(" ")):
                end += 1
            if not line.startswith("@"):
                deletions.append((i - 1 if lines[i - 1].startswith("@") else i, end, []))
            in_doc = False
            for j in range(i + 1, end):
                body = lines[j].strip()
                if body.startswith('"""') or in_doc:
                    closes = body.count('"""') % 2 == 1
                    in_doc = in_doc != closes
                    continue
                field = re.match(r"^    (\w+): ", lines[j])
                if field and line.startswith("class "):
                    deletions.append((j, j + 1, []))
                    if lines[j] != f"    {field[1]}: int":
                        simpler.append((j, j + 1, [f"    {field[1]}: int"]))
            i = end
            continue
        i += 1
    return sorted(deletions, key=lambda e: e[0] - e[1]) + simpler + imports


def _apply(text: str, edit: tuple[int, int, list[str]]) -> str:
    start, end, replacement = edit
    lines = text.splitlines()
    lines = lines[:start] + replacement + lines[end:]
    out: list[str] = []
    for n, line in enumerate(lines):  # a class left without a body gets `pass`
        out.append(line)
        if line.startswith("class "):
            rest = [x for x in lines[n + 1 :] if x.strip()]
            if not rest or not rest[0].startswith(" "):
                out.append("    pass")
    return "\n".join(out) + "\n"


def minimise(outcome: Outcome, key: str, workdir: Path, budget: int = 200) -> Outcome:
    """Simplify models.py (one edit at a time, greedily) while the difference `key` stays."""
    best = outcome
    files = outcome.job.files()
    models = next(p for p in files if p.endswith("/models.py"))
    failed: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        lines = files[models].splitlines()
        for edit in _edits(files[models]):
            start, end, replacement = edit
            identity = (tuple(lines[start:end]), tuple(replacement))
            if identity in failed:
                continue
            candidate = {**files, models: _apply(files[models], edit)}
            job = outcome.job
            trial = Job(job.case, job.only, job.suffix, candidate)
            tries += 1
            result = run_jobs([trial], workdir, batch_size=1)[0]
            if result.status != "invalid" and key in signatures(result):
                files, best, progress = candidate, result, True
                failed.clear()  # an edit that failed before may work now
                break
            failed.add(identity)
            if tries >= budget:
                break
    return best


# -- printing ------------------------------------------------------------------------------
def _schema_text(schema: dict[str, Any] | None) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) if schema is not None else "(none)"


def indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line if line else line for line in text.splitlines())


@dataclass
class Item:
    """One unit that is classified: a failing parameter on its own, or a whole case when no
    single parameter fails by itself."""

    outcome: Outcome
    case_index: int

    @property
    def size(self) -> int:
        return len(self.outcome.job.source())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", nargs="?", type=int, default=1000, help="signatures (1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="index of the first case")
    parser.add_argument("--no-reduce", action="store_true", help="classify whole signatures")
    parser.add_argument("--no-minimise", action="store_true", help="show examples as drawn")
    parser.add_argument("--all", action="store_true", help="print every unequal signature too")
    parser.add_argument(
        "--coverage", action="store_true", help="print how often each construct was drawn"
    )
    args = parser.parse_args(argv)

    began = time.perf_counter()
    cases = generate_cases(args.count, args.seed, args.start)
    with tempfile.TemporaryDirectory(prefix="signature_equality_") as tmp:
        work = Path(tmp)
        outcomes = run_jobs([Job(c) for c in cases], work / "full")
        equal = sum(o.equal for o in outcomes)
        statuses = Counter(o.status for o in outcomes)
        print(
            f"seed {args.seed}, cases {args.start}..{args.start + args.count - 1}: static == "
            f"pydantic for {equal}/{len(outcomes)} signatures = {equal / len(outcomes):.1%}"
        )
        print("outcomes: " + ", ".join(f"{n} {s}" for s, n in statuses.most_common()))
        if args.coverage:
            features: Counter[str] = Counter(f for c in cases for f in c.features)
            print("\nconstructs (cases that draw each):")
            for name, n in sorted(features.items()):
                print(f"  {n:5d}  {name}")
        unequal = [o for o in outcomes if not o.equal]
        invalid = [o for o in unequal if o.status == "invalid"]
        if invalid:
            print(f"\n{len(invalid)} signatures pydantic rejects (grammar bugs):")
            for o in invalid:
                print(indent(o.report()))
        failing = [o for o in unequal if o.status != "invalid"]
        if args.all:
            print("\nevery unequal signature:")
            for o in failing:
                print(indent(o.report()) + "\n")

        items = reduce(failing, work / "reduced", whole=args.no_reduce)
        classes: dict[str, list[Item]] = defaultdict(list)
        for item in items:
            for key in signatures(item.outcome):
                classes[key].append(item)
        print(
            f"\n{len(failing)} unequal signatures; {len(items)} failing units (a parameter on "
            f"its own, or a whole signature when no parameter fails alone); {len(classes)} "
            "classes of difference (a unit with several differences is in several classes)\n"
        )
        ordered = sorted(classes.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        for number, (key, members) in enumerate(ordered, 1):
            cases_hit = sorted({m.case_index for m in members})
            alone = sum(signatures(m.outcome) == {key} for m in members)
            common = set.intersection(*(m.outcome.job.features() for m in members))
            example = min(members, key=lambda m: (len(signatures(m.outcome)), m.size)).outcome
            if not args.no_minimise:
                example = minimise(example, key, work / "minimise")
            print(
                f"[{number}] {key}\n    {len(members)} failing units in {len(cases_hit)} "
                f"signatures ({alone} units with no other difference)"
            )
            more = " ..." if len(cases_hit) > 20 else ""
            print(f"    cases: {', '.join(map(str, cases_hit[:20]))}{more}")
            print(f"    constructs in every unit: {', '.join(sorted(common)) or '-'}")
            print(indent(example.report(source=True)))
            if example.status == "differs":
                print("    toolgen (comparable):")
                print(indent(_schema_text(example.static), "      "))
                print("    pydantic:")
                print(indent(_schema_text(example.runtime), "      "))
            print()
    print(f"done in {time.perf_counter() - began:.1f} s")
    return 0


def reduce(failing: list[Outcome], workdir: Path, *, whole: bool) -> list[Item]:
    """Each failing signature's parameters that fail on their own; the whole signature when
    none does (the difference needs two parameters together)."""
    if whole:
        return [Item(o, o.job.case.index) for o in failing]
    jobs = [
        Job(o.job.case, (p.name,), f"_p{i}")
        for o in failing
        if len(o.job.case.params) > 1
        for i, p in enumerate(o.job.case.params)
    ]
    reduced: dict[int, list[Outcome]] = defaultdict(list)
    for outcome in run_jobs(jobs, workdir):
        reduced[outcome.job.case.index].append(outcome)
    items: list[Item] = []
    for o in failing:
        index = o.job.case.index
        if len(o.job.case.params) <= 1:
            items.append(Item(o, index))
            continue
        alone = [r for r in reduced[index] if not r.equal and r.status != "invalid"]
        items.extend(Item(r, index) for r in alone)
        if not alone:
            items.append(Item(o, index))
    return items


if __name__ == "__main__":
    sys.exit(main())
