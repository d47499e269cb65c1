"""Randomised differential test: for generated handler signatures (see `signature_grammar`),
toolgen's static parameters schema equals the one pydantic builds at run time.

Each case is a small package written into a temporary folder. toolgen reads a batch of them
first, without importing anything; only then does the test import each handler and ask pydantic
(`runtime_oracle`). Equality is measured, not required case by case: the suite asserts a rate of
at least `MIN_RATE` and prints every unequal case. A toolgen error diagnostic (the signature is
refused) counts as unequal. Generated code pydantic itself rejects (an exception or a warning at
run time) is a bug in the grammar, and fails the test on its own.

`scripts/signature_equality.py` runs the same harness on 1,000 signatures and groups the
differences into classes.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sys
import tempfile
import traceback
import typing
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from runtime_oracle import closed_as_toolgen_closes, comparable, runtime_parameters_schema
from signature_grammar import Case, generate_cases, show_files
from toolgen.config import load_config
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import Diagnostic
from toolgen.pipeline import generate

SEED = 0
SMOKE_COUNT = 300
FULL_COUNT = 1000
MIN_RATE = 0.99
BATCH_SIZE = 50


# -- comparing schemas -------------------------------------------------------------------------
def normalise_defs(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with its `$defs` renamed `Def0`, `Def1`, ... in order of first reference.

    toolgen names a definition after its class; pydantic may disambiguate differently. The order
    is a walk of the root (keys sorted, lists in order), then of each definition as it is first
    referenced; definitions nothing references come last, by name.
    """
    defs = schema.get("$defs", {})
    order: list[str] = []

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            for key in sorted(node):
                value = node[key]
                if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                    name = value.removeprefix("#/$defs/")
                    if name not in order:
                        order.append(name)
                elif key != "$defs":
                    visit(value)
        elif isinstance(node, list):
            for item in node:
                visit(item)

    visit(schema)
    i = 0
    while i < len(order):
        visit(defs.get(order[i]))
        i += 1
    order += sorted(name for name in defs if name not in order)
    names = {name: f"Def{n}" for n, name in enumerate(order)}

    def rename(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                    out[key] = "#/$defs/" + names[value.removeprefix("#/$defs/")]
                elif key == "$defs":
                    continue
                else:
                    out[key] = rename(value)
            return out
        if isinstance(node, list):
            return [rename(item) for item in node]
        return node

    result = rename(schema)
    if defs:
        result["$defs"] = {names[name]: rename(defs[name]) for name in order if name in defs}
    return result


def canonical(value: Any) -> Any:
    """A form whose `==` is JSON equality: `true` is not `1` (Python says it is), `1` is `1.0`."""
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, bool):
        return ("<bool>", value)
    return value


@dataclass(frozen=True)
class Diff:
    """One difference: `missing` (only pydantic has it), `extra` (only toolgen), `changed`,
    or `reordered` (a list with the same items in another order)."""

    path: tuple[str | int, ...]
    kind: str
    toolgen: Any = None
    pydantic: Any = None

    def where(self) -> str:
        return "".join(f"[{p}]" if isinstance(p, int) else f"/{p}" for p in self.path) or "/"

    def __str__(self) -> str:
        if self.kind == "missing":
            return f"{self.where()}: missing in toolgen, pydantic has {_short(self.pydantic)}"
        if self.kind == "extra":
            return f"{self.where()}: only toolgen has {_short(self.toolgen)}"
        if self.kind == "reordered":
            return (
                f"{self.where()}: same items in another order: toolgen {_short(self.toolgen)}, "
                f"pydantic {_short(self.pydantic)}"
            )
        return f"{self.where()}: toolgen {_short(self.toolgen)} != pydantic {_short(self.pydantic)}"


def _short(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _key(value: Any) -> str:
    return json.dumps(canonical(value), sort_keys=True)


def diff(static: Any, runtime: Any, path: tuple[str | int, ...] = ()) -> list[Diff]:
    if isinstance(static, dict) and isinstance(runtime, dict):
        out: list[Diff] = []
        for key in runtime:
            if key not in static:
                out.append(Diff((*path, key), "missing", pydantic=runtime[key]))
        for key in static:
            if key not in runtime:
                out.append(Diff((*path, key), "extra", toolgen=static[key]))
            else:
                out.extend(diff(static[key], runtime[key], (*path, key)))
        return out
    if isinstance(static, list) and isinstance(runtime, list) and len(static) == len(runtime):
        if canonical(static) != canonical(runtime) and sorted(map(_key, static)) == sorted(
            map(_key, runtime)
        ):
            return [Diff(path, "reordered", static, runtime)]
        return [
            d
            for i, (a, b) in enumerate(zip(static, runtime, strict=True))
            for d in diff(a, b, (*path, i))
        ]
    if canonical(static) != canonical(runtime):
        return [Diff(path, "changed", static, runtime)]
    return []


# -- running cases -----------------------------------------------------------------------------
@dataclass
class Job:
    """A case to run, possibly reduced to some parameters (`suffix` keeps names unique)."""

    case: Case
    only: tuple[str, ...] | None = None
    suffix: str = ""
    override: dict[str, str] | None = None  # edited files (the script's minimiser)

    @property
    def package(self) -> str:
        return self.case.package + self.suffix

    @property
    def module(self) -> str:
        return f"{self.package}.tools"

    @property
    def tool(self) -> str:
        return self.case.tool_name + self.suffix

    def files(self) -> dict[str, str]:
        if self.override is not None:
            return dict(self.override)
        return self.case.files(self.only, self.suffix)

    def source(self) -> str:
        return show_files(self.files())

    def features(self) -> set[str]:
        if self.only is None:
            return set(self.case.features)
        return {f for name in self.only for f in self.case.param(name).features}


@dataclass
class Outcome:
    job: Job
    #: equal | differs | refused (toolgen error) | missing (no descriptor, no error) |
    #: crash (toolgen raised) | invalid (pydantic rejects the generated code: a grammar bug)
    status: str
    static: dict[str, Any] | None = None
    runtime: dict[str, Any] | None = None
    errors: list[Diagnostic] = field(default_factory=list)
    diffs: list[Diff] = field(default_factory=list)
    detail: str = ""

    @property
    def equal(self) -> bool:
        return self.status == "equal"

    def report(self, *, source: bool = True) -> str:
        job = self.job
        only = f" (only {', '.join(job.only)})" if job.only else ""
        lines = [f"case {job.case.index} `{job.tool}`{only}: {self.status}"]
        lines += [f"  {d.format_text()}" for d in self.errors]
        lines += [f"  {d}" for d in self.diffs[:12]]
        if len(self.diffs) > 12:
            lines.append(f"  ... {len(self.diffs) - 12} more differences")
        if self.detail:
            lines += ["  " + line for line in self.detail.rstrip().splitlines()]
        if source:
            lines += ["    " + line for line in job.source().splitlines()]
        return "\n".join(lines)


def _toolgen(root: Path, jobs: Sequence[Job]) -> tuple[list[ToolDescriptor], list[Diagnostic]]:
    sources = ", ".join(json.dumps(job.package) for job in jobs)
    config_file = root / "pyproject.toml"
    config_file.write_text(  # the signatures are about types, not complete contracts
        f'[tool.toolgen]\nsources = [{sources}]\nout = "generated"\nmin_level = 0\n'
    )
    result = generate(load_config(config_file, cwd=root))
    return result.descriptors, result.diagnostics


def _write(root: Path, jobs: Iterable[Job]) -> None:
    for job in jobs:
        for relpath, text in job.files().items():
            path = root / relpath
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def _static(root: Path, jobs: list[Job]) -> dict[str, Outcome | tuple[Any, list[Diagnostic]]]:
    """Per package: (descriptor or None, its error diagnostics), or an Outcome if toolgen
    crashed. A crash in a batch is retried one package at a time, to pin it down."""
    try:
        descriptors, diagnostics = _toolgen(root, jobs)
    except Exception:
        if len(jobs) == 1:
            return {jobs[0].package: Outcome(jobs[0], "crash", detail=traceback.format_exc())}
        out: dict[str, Outcome | tuple[Any, list[Diagnostic]]] = {}
        for job in jobs:
            single = root / f"single_{job.package}"
            shutil.copytree(root / job.package, single / job.package)
            out.update(_static(single, [job]))
        return out
    by_module = {d.source.module: d for d in descriptors}
    errors: dict[str, list[Diagnostic]] = {job.package: [] for job in jobs}
    unplaced: list[Diagnostic] = []
    for d in diagnostics:
        if d.severity.value != "error":
            continue
        package = d.location.path.split("/")[0] if d.location else ""
        errors.get(package, unplaced).append(d)
    result: dict[str, Outcome | tuple[Any, list[Diagnostic]]] = {}
    for job in jobs:
        descriptor = by_module.get(job.module)
        found = errors[job.package] or ([] if descriptor else unplaced)
        result[job.package] = (descriptor, found)
    return result


def _fresh_typing_caches() -> None:
    """Forget typing's caches of subscripted forms, as a fresh process would.

    `Literal["a", 1] == Literal[1, "a"]` (the order is ignored), so `Optional[Literal[1, "a"]]`
    can come back from the cache as the `Optional[Literal["a", 1]]` an earlier case built, and
    pydantic then lists the enum in that case's order: the schema would depend on which cases
    ran before.
    """
    for cleanup in getattr(typing, "_cleanups", ()):
        cleanup()


def _runtime(job: Job) -> tuple[dict[str, Any] | None, str]:
    """pydantic's schema for the job's handler, or None and why pydantic rejects the code."""
    _fresh_typing_caches()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            module = importlib.import_module(job.module)
            schema = closed_as_toolgen_closes(runtime_parameters_schema(getattr(module, job.tool)))
        except Exception:
            return None, traceback.format_exc(limit=-3)
    if caught:
        return None, "\n".join(f"{w.category.__name__}: {w.message}" for w in caught)
    return schema, ""


def run_jobs(jobs: Sequence[Job], workdir: Path, batch_size: int = BATCH_SIZE) -> list[Outcome]:
    """Every job through toolgen (statically, a batch at a time) and then pydantic."""
    outcomes: list[Outcome] = []
    workdir.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(jobs), batch_size):
        batch = list(jobs[start : start + batch_size])
        root = Path(tempfile.mkdtemp(prefix="batch_", dir=workdir))
        _write(root, batch)
        static = _static(root, batch)
        sys.path.insert(0, str(root))
        importlib.invalidate_caches()
        try:
            for job in batch:
                outcomes.append(_outcome(job, static[job.package]))
        finally:
            sys.path.remove(str(root))
            for job in batch:
                for name in [m for m in sys.modules if m.split(".")[0] == job.package]:
                    del sys.modules[name]
    return outcomes


def _outcome(job: Job, static: Outcome | tuple[Any, list[Diagnostic]]) -> Outcome:
    runtime, problem = _runtime(job)
    if runtime is None:
        return Outcome(job, "invalid", detail=problem)
    if isinstance(static, Outcome):
        static.runtime = runtime
        return static
    descriptor, errors = static
    if errors:
        return Outcome(job, "refused", runtime=runtime, errors=errors)
    if descriptor is None:
        return Outcome(job, "missing", runtime=runtime)
    ours = normalise_defs(comparable(descriptor.parameters, runtime))
    theirs = normalise_defs(runtime)
    if canonical(ours) == canonical(theirs):
        return Outcome(job, "equal", ours, theirs)
    return Outcome(job, "differs", ours, theirs, diffs=diff(ours, theirs))


def run_cases(cases: Sequence[Case], workdir: Path) -> list[Outcome]:
    return run_jobs([Job(case) for case in cases], workdir)


# -- the tests ---------------------------------------------------------------------------------
def _check(cases: Sequence[Case], workdir: Path) -> None:
    outcomes = run_cases(cases, workdir)
    invalid = [o for o in outcomes if o.status == "invalid"]
    assert not invalid, "the grammar generated code pydantic rejects:\n\n" + "\n\n".join(
        o.report() for o in invalid
    )
    unequal = [o for o in outcomes if not o.equal]
    rate = 1 - len(unequal) / len(outcomes)
    if rate < MIN_RATE:
        statuses = Counter(o.status for o in unequal)
        pytest.fail(
            f"static schema == pydantic schema for {len(outcomes) - len(unequal)}/{len(outcomes)}"
            f" generated signatures ({rate:.1%}, need {MIN_RATE:.0%}); unequal: "
            + ", ".join(f"{n} {s}" for s, n in statuses.most_common())
            + "\n\n"
            + "\n\n".join(o.report() for o in unequal),
            pytrace=False,
        )


def test_generated_signatures_match_pydantic(tmp_path: Path) -> None:
    _check(generate_cases(SMOKE_COUNT, SEED), tmp_path)


@pytest.mark.skipif(
    os.environ.get("TOOLGEN_SLOW") != "1", reason="1,000 signatures: set TOOLGEN_SLOW=1"
)
def test_generated_signatures_match_pydantic_full(tmp_path: Path) -> None:
    _check(generate_cases(FULL_COUNT, SEED), tmp_path)


#: Constructs the grammar must draw often: (feature prefix, at least this many cases of 1,000).
COVERAGE = {
    "scalar:": 500, "optional:pipe": 100, "optional:Optional": 60, "optional:Union": 15,
    "optional:none_first": 10, "union:": 100, "union:with_None": 10, "literal:str": 100,
    "literal:int": 100, "literal:bool": 50, "literal:NoneType": 30, "enum:str_mixin": 50,
    "enum:IntEnum": 50, "enum:StrEnum": 50, "enum:Enum": 15, "enum:auto": 20,
    "typeddict:total_false": 30, "typeddict:Required": 20, "typeddict:NotRequired": 30,
    "typeddict:inherits": 20, "dataclass:": 100, "dataclass:default": 15,
    "dataclass:field_default": 15, "dataclass:default_factory": 20, "model:default": 50,
    "model:default_factory": 20, "model:Field": 50, "model:inherits": 20,
    "model:extra_forbid": 20, "model:recursive": 20, "field:alias": 20, "field:ge": 20,
    "field:le": 20, "field:gt": 20, "field:lt": 20, "field:multiple_of": 20,
    "field:min_length": 30, "field:max_length": 30, "field:pattern": 15,
    "field:description": 100, "field:examples": 30, "list:": 100, "set:set": 20,
    "set:frozenset": 20, "dict:": 50, "tuple:var": 30, "tuple:fixed": 30, "abc:Sequence": 30,
    "abc:Mapping": 20, "abc:Iterable": 15, "annotated:single": 100, "annotated:stacked": 30,
    "annotated_types:Ge": 10, "annotated_types:Gt": 10, "annotated_types:Le": 10,
    "annotated_types:Lt": 10, "annotated_types:MinLen": 20, "annotated_types:MaxLen": 20,
    "annotated_types:MultipleOf": 15, "annotated_types:Interval": 15, "annotated_types:Len": 15,
    "helper:PositiveInt": 10, "helper:NegativeInt": 10, "helper:NonNegativeInt": 10,
    "helper:NonPositiveInt": 5, "helper:PositiveFloat": 10, "helper:StrictStr": 8,
    "helper:StrictInt": 8, "helper:StrictBool": 5, "helper:SecretStr": 8, "helper:HttpUrl": 5,
    "helper:AnyUrl": 8, "helper:conint": 20, "helper:constr": 20, "helper:confloat": 20,
    "helper:conlist": 20, "special:datetime": 20, "special:date": 20, "special:time": 20,
    "special:timedelta": 20, "special:UUID": 20, "special:Decimal": 20, "special:Path": 20,
    "alias:plain": 30, "alias:TypeAlias": 20, "alias:NewType": 20, "alias:validator": 30,
    "validator:BeforeValidator": 20, "validator:PlainValidator": 15,
    "validator:WrapValidator": 15, "validator:AfterValidator": 20, "import:from_rel": 50,
    "import:from_abs": 30, "import:module_rel": 30, "import:module_alias": 30,
    "import:module_abs": 15, "import:reexport_rel": 20, "import:reexport_pkg": 20,
    "default:None": 25, "default:enum_member": 30, "default:field_default": 30,
    "default:field_description": 30, "future:models": 300, "future:tools": 300,
}  # fmt: skip


def test_grammar_is_deterministic_and_covers_every_construct() -> None:
    cases = generate_cases(FULL_COUNT, SEED)
    again = generate_cases(5, SEED, start=40)
    assert [c.files() for c in cases[40:45]] == [c.files() for c in again]
    counts: Counter[str] = Counter()
    for case in cases:
        for prefix in COVERAGE:
            if any(f.startswith(prefix) for f in case.features):
                counts[prefix] += 1
    rare = {p: counts[p] for p, least in COVERAGE.items() if counts[p] < least}
    assert not rare, f"constructs drawn too rarely (cases of {FULL_COUNT}): {rare}"
