"""`toolgen check --against REF`: contract changes classified by reference/breaking.md, on a
temporary git repository.

Every rule of `toolgen.breaking.BREAKING_RULES` is produced end to end: a handler source
change on top of a committed v1, `toolgen build`, then `toolgen check --against HEAD`, with
every breaking-rule line of the report (code, level, rule id, tool, pointer, message and
location) and the exit code asserted. The unit tests further down drive the differ directly.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conftest import Project, Run
from toolgen.breaking import BREAKING_RULES

HANDLER = '''
from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import NotRequired, TypedDict
from toolgen import tool


class Hit(TypedDict):{hit}


@tool({decorator})
def search(query: str{params}) -> {returns}:
    """{summary}

    Args:
        query: Words.{docs}

    Errors:{errors}

    Idempotency:{hints}
    """
    raise NotImplementedError
'''

BASE = {
    "decorator": 'version="1.0.0", risk="medium"',
    "summary": "Search the catalog. Use it for product questions.",
    "params": ', mode: Literal["fast", "deep"] = "fast", limit: int = 10',
    "docs": "\n        mode: How hard to look.\n        limit: Most results.",
    "returns": "list[Hit]",
    "hit": (
        "\n    title: str"
        "\n    url: str"
        '\n    kind: Literal["page", "product"]'
        "\n    snippet: NotRequired[str]"
    ),
    "errors": "\n        NOT_FOUND: Nothing matches.",
    "hints": (
        "\n        idempotent: true"
        "\n        safe: true"
        "\n        destructive: false"
        "\n        open_world: false"
    ),
}

RunCLI = Callable[..., Run]
BREAKING_CODES = {code for _, code in BREAKING_RULES.values()}
CODE = re.compile(r"(?:^|: )(TG\d{3}) \[")
#: An expected line: code, level, rule id (a leading `@` stands for the location).
LINE = re.compile(r"^@?(TG\d{3}) \[(\w+)\] ([a-z-]+) tool=search /")


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def repo(project: Project, run: RunCLI) -> Project:
    project.write("src/tools.py", HANDLER.format(**BASE))
    assert run("build", cwd=project.root).code == 0
    _git(project.root, "init", "-q")
    _git(project.root, "add", "-A")
    _git(project.root, "commit", "-qm", "v1")
    return project


def _change(repo: Project, run: RunCLI, **changes: str) -> Run:
    repo.write("src/tools.py", HANDLER.format(**{**BASE, **changes}))
    assert run("build", cwd=repo.root).code == 0
    return run("check", "--against", "HEAD", cwd=repo.root)


def _remove_search(repo: Project, run: RunCLI) -> Run:
    """src/tools.py deleted, another tool `find` added elsewhere: `search` is gone."""
    (repo.root / "src" / "tools.py").unlink()
    repo.write("src/other.py", HANDLER.format(**BASE).replace("def search", "def find"))
    assert run("build", cwd=repo.root).code == 0
    return run("check", "--against", "HEAD", cwd=repo.root)


def _edit(slot: str, old: str, new: str) -> dict[str, str]:
    """One slot of BASE with `old` replaced by `new`: the source change a case makes."""
    assert old in BASE[slot], (slot, old)
    return {slot: BASE[slot].replace(old, new)}


def _def_line(repo: Project) -> int:
    lines = (repo.root / "src" / "tools.py").read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.startswith("def search"))


def _parameter_at(repo: Project, line: str) -> str | None:
    """`src/tools.py:LINE:COL: ` of the parameter an expected `line` is about, when the
    handler (still) has it: such a finding points at the parameter, not at the `def`."""
    found = re.search(r" /(?:parameters/)?properties/([^/: ]+)", line)
    if not found or not (repo.root / "src" / "tools.py").exists():
        return None
    number = _def_line(repo)
    source = (repo.root / "src" / "tools.py").read_text().splitlines()[number - 1]
    column = source.find(f"{found.group(1)}: ")
    return f"src/tools.py:{number}:{column + 1}: " if column > 0 else None


def _unbumped(count: int = 1) -> str:
    return (
        "@TG975 [error] breaking-without-major-bump tool=search /version: "
        f"{count} breaking change{'' if count == 1 else 's'} without a major version bump"
    )


@dataclass(frozen=True)
class Case:
    id: str
    #: Slots of BASE the working tree changes (on top of BASE, not of `before`).
    changes: dict[str, str]
    #: Every TG950-TG978 line `check` prints, in any order; a leading `@` stands for the
    #: handler's `src/tools.py:LINE:1: ` (for a removed tool, with no handler, its baseline
    #: descriptor's `generated/descriptors/search.json:1:1: `). The exit code is 1 exactly
    #: when one is an error.
    expected: tuple[str, ...]
    #: Committed on top of v1 before `changes` (e.g. deprecating the tool first).
    before: dict[str, str] = field(default_factory=dict)
    #: `_remove_search` instead of `changes`.
    removed: bool = False


CASES = [
    # -- the tool itself ---------------------------------------------------------------------
    Case(
        "tool-removed",
        {},
        ("@TG950 [error] tool-removed tool=search /: the tool is gone",),
        removed=True,
    ),
    Case(
        "tool-removed-deprecated",
        {},
        ("@TG951 [info] tool-removed-deprecated tool=search /: the tool is gone",),
        before={"decorator": 'version="1.1.0", risk="medium", deprecated=True, replacement="find"'},
        removed=True,
    ),
    # -- input: the parameters (request direction) -----------------------------------------
    Case(
        "input-required-added",
        {"params": ", region: str" + BASE["params"], "docs": "\n        region: R." + BASE["docs"]},
        (
            "@TG952 [error] input-required-added tool=search /properties/region: "
            "new required parameter `region`",
            _unbumped(),
        ),
    ),
    Case(
        "input-became-required",
        _edit("params", '= "fast", ', ", "),
        (
            "@TG953 [error] input-became-required tool=search /properties/mode: "
            "`mode` is now required",
            _unbumped(),
        ),
    ),
    Case(
        "input-param-removed",
        {
            "params": ', mode: Literal["fast", "deep"] = "fast"',
            "docs": "\n        mode: How hard to look.",
        },
        (
            "@TG954 [error] input-param-removed tool=search /properties/limit: "
            "parameter `limit` removed",
            _unbumped(),
        ),
    ),
    Case(
        "input-param-removed-with-major-bump",
        {
            "decorator": 'version="2.0.0", risk="medium"',
            "params": ', mode: Literal["fast", "deep"] = "fast"',
            "docs": "\n        mode: How hard to look.",
        },
        (
            "@TG954 [info] input-param-removed tool=search /properties/limit: "
            "parameter `limit` removed",
            # callers know the tool by its name: a major version bump alone does not do
            "@TG978 [error] breaking-without-new-name tool=search /name: the tool keeps its "
            "name through 1 breaking change under a major version bump (1.0.0 -> 2.0.0), and "
            "callers know a tool by its name alone: publish the new contract as a new tool "
            "(`search_v2`) and keep this one, deprecated with that replacement",
        ),
    ),
    Case(
        "input-optional-added",
        {
            "params": BASE["params"] + ", region: str = 'eu'",
            "docs": BASE["docs"] + "\n        region: R.",
        },
        (
            "@TG955 [info] input-optional-added tool=search /properties/region: "
            "new optional parameter `region`",
        ),
    ),
    Case(
        "input-type-narrowed",
        _edit("params", "limit: int = 10", 'limit: str = "10"'),
        (
            "@TG956 [error] input-type-narrowed tool=search /properties/limit: "
            "type ['integer'] -> ['string']",
            '@TG961 [warning] input-default-changed tool=search /properties/limit: default 10 -> "10"',
            _unbumped(),
        ),
    ),
    Case(
        "input-type-widened",
        _edit("params", "limit: int = 10", "limit: float = 10"),
        (
            "@TG957 [info] input-type-widened tool=search /properties/limit: "
            "type ['integer'] -> ['number']",
        ),
    ),
    Case(
        "input-enum-narrowed",
        _edit("params", 'Literal["fast", "deep"]', 'Literal["fast"]'),
        (
            "@TG958 [error] input-enum-narrowed tool=search /properties/mode: "
            "allowed values removed",
            _unbumped(),
        ),
    ),
    Case(
        "input-enum-narrowed-in-an-optional",
        {"params": ', mode: Literal["fast"] | None = "fast", limit: int = 10'},
        (
            "@TG958 [error] input-enum-narrowed tool=search /properties/mode: "
            "allowed values removed",
            _unbumped(),
        ),
        before={"params": ', mode: Literal["fast", "deep"] | None = "fast", limit: int = 10'},
    ),
    Case(
        "input-enum-widened",
        _edit("params", 'Literal["fast", "deep"]', 'Literal["fast", "deep", "exact"]'),
        ("@TG959 [info] input-enum-widened tool=search /properties/mode: allowed values added",),
    ),
    Case(
        "input-constraint-tightened",
        _edit("params", "limit: int = 10", "limit: Annotated[int, Field(le=50)] = 10"),
        (
            "@TG960 [error] input-constraint-tightened tool=search /properties/limit/maximum: "
            "maximum unset -> 50",
            _unbumped(),
        ),
    ),
    Case(
        "input-default-changed",
        _edit("params", '= "fast"', '= "deep"'),
        (
            "@TG961 [warning] input-default-changed tool=search /properties/mode: "
            'default "fast" -> "deep"',
        ),
    ),
    # -- output: the result (response direction) -------------------------------------------
    Case(
        "output-required-removed",
        _edit("hit", "\n    title: str", ""),
        (
            "@TG962 [error] output-required-removed tool=search "
            "/returns/items/properties/title: result property `title` removed",
            _unbumped(),
        ),
    ),
    Case(
        "output-replaced-by-a-scalar",
        {"returns": "list[str]"},
        (
            "@TG965 [error] output-type-changed tool=search /returns/items: "
            "type ['object'] -> ['string']",
            "@TG962 [error] output-required-removed tool=search "
            "/returns/items/properties/title: result property `title` removed",
            "@TG962 [error] output-required-removed tool=search "
            "/returns/items/properties/url: result property `url` removed",
            "@TG962 [error] output-required-removed tool=search "
            "/returns/items/properties/kind: result property `kind` removed",
            "@TG963 [warning] output-optional-removed tool=search "
            "/returns/items/properties/snippet: result property `snippet` removed",
            _unbumped(4),
        ),
    ),
    Case(
        "output-optional-removed",
        _edit("hit", "\n    snippet: NotRequired[str]", ""),
        (
            "@TG963 [warning] output-optional-removed tool=search "
            "/returns/items/properties/snippet: result property `snippet` removed",
        ),
    ),
    Case(
        "output-became-optional",
        _edit("hit", "url: str", "url: NotRequired[str]"),
        (
            "@TG964 [error] output-became-optional tool=search /returns/items/properties/url: "
            "`url` is no longer guaranteed",
            _unbumped(),
        ),
    ),
    Case(
        "output-became-nullable",
        _edit("hit", "url: str", "url: str | None"),
        (
            "@TG964 [error] output-became-optional tool=search /returns/items/properties/url: "
            "result may now be null",
            _unbumped(),
        ),
    ),
    Case(
        "output-became-nullable-at-the-root",
        {"returns": "list[Hit] | None"},
        (
            "@TG964 [error] output-became-optional tool=search /returns: result may now be null",
            _unbumped(),
        ),
    ),
    Case(
        # a model result became nullable: its properties are all still there
        "output-model-became-nullable",
        {"returns": "Hit | None"},
        (
            "@TG964 [error] output-became-optional tool=search /returns: result may now be null",
            _unbumped(),
        ),
        before={"returns": "Hit"},
    ),
    Case(
        # a narrower result (no more null) is one every caller already handles
        "output-no-longer-nullable",
        {"returns": "list[Hit]"},
        (),
        before={"returns": "list[Hit] | None"},
    ),
    Case(
        "output-became-optional-in-a-nullable-model",
        _edit("hit", "url: str", "url: NotRequired[str]") | {"returns": "Hit | None"},
        (
            "@TG964 [error] output-became-optional tool=search /returns/properties/url: "
            "`url` is no longer guaranteed",
            _unbumped(),
        ),
        before={"returns": "Hit | None"},
    ),
    Case(
        "output-type-changed",
        _edit("hit", "url: str", "url: int"),
        (
            "@TG965 [error] output-type-changed tool=search /returns/items/properties/url: "
            "type ['string'] -> ['integer']",
            _unbumped(),
        ),
    ),
    Case(
        "output-type-widened",
        _edit("hit", "url: str", "url: str | int"),
        (
            "@TG965 [error] output-type-changed tool=search /returns/items/properties/url: "
            "type ['string'] -> ['integer', 'string']",
            _unbumped(),
        ),
    ),
    Case(
        "output-enum-widened",
        _edit("hit", '"page", "product"', '"page", "product", "video"'),
        (
            "@TG966 [warning] output-enum-widened tool=search /returns/items/properties/kind: "
            "new values a caller may not handle",
        ),
    ),
    Case(
        "output-property-added",
        {"hit": BASE["hit"] + "\n    score: float"},
        (
            "@TG967 [info] output-property-added tool=search /returns/items/properties/score: "
            "new result property `score`",
        ),
    ),
    # -- errors, hints, risk, version, docs ---------------------------------------------------
    Case(
        "error-added",
        {"errors": BASE["errors"] + "\n        RATE_LIMITED: Too many calls. Recovery: wait."},
        ("@TG968 [warning] error-added tool=search /errors: new error code RATE_LIMITED",),
    ),
    Case(
        "error-removed",
        _edit("errors", "NOT_FOUND: Nothing matches.", "RATE_LIMITED: Too many calls."),
        (
            "@TG968 [warning] error-added tool=search /errors: new error code RATE_LIMITED",
            "@TG969 [info] error-removed tool=search /errors: error code NOT_FOUND no longer declared",
        ),
    ),
    Case(
        "idempotent-weakened",
        _edit("hints", "idempotent: true", "idempotent: false"),
        (
            "@TG970 [error] idempotent-weakened tool=search /idempotency/idempotent: "
            "no longer idempotent",
            _unbumped(),
        ),
    ),
    Case(
        "readonly-weakened",
        _edit("hints", "safe: true", "safe: false"),
        (
            "@TG971 [error] readonly-weakened tool=search /idempotency/safe: no longer read-only",
            _unbumped(),
        ),
    ),
    Case(
        # destructiveHint means something only for a tool that is not read-only
        "destructive-added",
        {
            "hints": BASE["hints"]
            .replace("safe: true", "safe: false")
            .replace("destructive: false", "destructive: true")
        },
        (
            "@TG972 [error] destructive-added tool=search /idempotency/destructive: "
            "now destructive",
            _unbumped(),
        ),
        before=_edit("hints", "safe: true", "safe: false"),
    ),
    Case(
        "destructive-added-to-a-read-only-tool",
        {
            "hints": BASE["hints"]
            .replace("safe: true", "safe: false")
            .replace("destructive: false", "destructive: true")
        },
        (
            "@TG971 [error] readonly-weakened tool=search /idempotency/safe: no longer read-only",
            "@TG972 [error] destructive-added tool=search /idempotency/destructive: "
            "now destructive",
            _unbumped(2),
        ),
    ),
    Case(
        # MCP's destructiveHint defaults to true, but only where readOnlyHint is false: a
        # read-only tool's is false, stated or not
        "destructive-unset-on-a-read-only-tool",
        _edit("hints", "\n        destructive: false", ""),
        (),
    ),
    Case(
        # ... and a read-only tool that states destructive: true is no more destructive
        "destructive-stated-on-a-read-only-tool",
        _edit("hints", "destructive: false", "destructive: true"),
        (),
    ),
    Case(
        # no longer read-only, destructive not stated: MCP's default (true) applies now
        "readonly-weakened-with-destructive-unset",
        {
            "hints": BASE["hints"]
            .replace("safe: true", "safe: false")
            .replace("\n        destructive: false", "")
        },
        (
            "@TG971 [error] readonly-weakened tool=search /idempotency/safe: no longer read-only",
            "@TG972 [error] destructive-added tool=search /idempotency/destructive: "
            "now destructive",
            _unbumped(2),
        ),
    ),
    Case(
        # MCP's destructiveHint defaults to true: stating it changes nothing a client sees
        "destructive-stated-where-mcp-assumed-it",
        _edit("hints", "destructive: false", "destructive: true"),
        (),
        before=_edit("hints", "\n        destructive: false", ""),
    ),
    Case(
        "risk-raised",
        {"decorator": BASE["decorator"].replace('risk="medium"', 'risk="high"')},
        (
            "@TG973 [error] risk-raised tool=search /risk: risk raised from medium to high",
            _unbumped(),
        ),
    ),
    Case(
        "openworld-added",
        _edit("hints", "open_world: false", "open_world: true"),
        (
            "@TG974 [warning] openworld-added tool=search /idempotency/open_world: "
            "now reaches the open world",
        ),
    ),
    Case(
        # MCP's openWorldHint defaults to true: stating it changes nothing a client sees
        "openworld-stated-where-mcp-assumed-it",
        _edit("hints", "open_world: false", "open_world: true"),
        (),
        before=_edit("hints", "\n        open_world: false", ""),
    ),
    Case(
        "version-decreased",
        {"decorator": 'version="0.9.0", risk="medium"'},
        (
            "@TG976 [error] version-decreased tool=search /version: "
            "version went back from 1.0.0 to 0.9.0",
            _unbumped(),
        ),
    ),
    Case(
        "docs-changed-description",
        _edit("summary", "the catalog", "the product catalog"),
        ("@TG977 [info] docs-changed tool=search /description: description changed",),
    ),
    Case(
        "docs-changed-title",
        {"decorator": BASE["decorator"] + ', title="Catalog search"'},
        ("@TG977 [info] docs-changed tool=search /title: title changed",),
    ),
    Case(
        "docs-changed-parameter-description",
        _edit("docs", "How hard to look.", "How hard to search."),
        (
            "@TG977 [info] docs-changed tool=search /parameters/properties/mode/description: "
            "description changed",
        ),
    ),
    Case(
        "docs-changed-parameter-examples",
        _edit("params", "limit: int = 10", "limit: Annotated[int, Field(examples=[20])] = 10"),
        (
            "@TG977 [info] docs-changed tool=search /parameters/properties/limit/examples: "
            "examples changed",
        ),
        before=_edit(
            "params", "limit: int = 10", "limit: Annotated[int, Field(examples=[5])] = 10"
        ),
    ),
    Case(
        "docs-changed-output-property-description",
        _edit("hit", "url: str", 'url: Annotated[str, Field(description="Where to find it.")]'),
        (
            "@TG977 [info] docs-changed tool=search "
            "/returns/schema/$defs/Hit/properties/url/description: description changed",
        ),
        before=_edit("hit", "url: str", 'url: Annotated[str, Field(description="Where it is.")]'),
    ),
]


def _breaking_lines(out: str) -> list[str]:
    return sorted(
        line
        for line in out.splitlines()
        if (m := CODE.search(line)) and m.group(1) in BREAKING_CODES
    )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_rule(repo: Project, run: RunCLI, case: Case) -> None:
    if case.before:
        _change(repo, run, **case.before)
        _git(repo.root, "commit", "-qam", "before")
    if case.removed:
        result = _remove_search(repo, run)
        at = "generated/descriptors/search.json:1:1: "  # the handler is gone: its descriptor
    else:
        result = _change(repo, run, **case.changes)
        at = f"src/tools.py:{_def_line(repo)}:1: "  # located at the handler's def
    expected = sorted(
        line.replace("@", _parameter_at(repo, line) or at, 1) if line[0] == "@" else line
        for line in case.expected
    )
    assert _breaking_lines(result.out) == expected, result.out
    breaking = any(" [error] " in line for line in expected)
    assert result.code == (1 if breaking else 0), result.out


def test_a_new_tool_name_is_the_way_through_a_breaking_change(repo: Project, run: RunCLI) -> None:
    """The breaking contract published as `search_v2` (version 2.0.0), with `search` kept and
    deprecated in its favour: nothing breaks (the new tool has nothing to compare with), so
    `check --against` passes, where the same change under the old name fails (TG978)."""
    deprecated = 'version="1.0.0", deprecated=True, replacement="search_v2"'
    repo.write("src/tools.py", HANDLER.format(**{**BASE, "decorator": deprecated}))
    breaking = {
        "decorator": 'version="2.0.0"',
        "params": ', mode: Literal["fast", "deep"] = "fast"',
        "docs": "\n        mode: How hard to look.",
    }
    v2 = HANDLER.format(**{**BASE, **breaking}).replace("def search(", "def search_v2(")
    repo.write("src/tools_v2.py", v2)
    assert run("build", cwd=repo.root).code == 0
    result = run("check", "--against", "HEAD", cwd=repo.root)
    assert result.code == 0, result.out
    assert "TG978" not in result.out and "[error]" not in result.out, result.out


def test_breaking_rules_are_the_rule_tables_own() -> None:
    """Each breaking rule id names the TG code whose rule-table summary starts with it, and
    takes that code's level: the levels are stated in the rule table only."""
    from toolgen.breaking import BREAKING_CODES
    from toolgen.diagnostics import RULES

    for rule, (level, code) in BREAKING_RULES.items():
        assert RULES[code].summary.startswith(f"{rule}: "), (rule, code)
        assert level is RULES[code].level, rule
    in_table = {c for c, r in RULES.items() if r.summary.split(":")[0] in BREAKING_CODES}
    assert in_table == set(BREAKING_CODES.values())


def test_every_breaking_rule_has_an_end_to_end_case() -> None:
    """Each rule is produced, at its table level, by some real source change above."""
    assert len({case.id for case in CASES}) == len(CASES)
    produced: set[tuple[str, str, str]] = set()
    for case in CASES:
        for line in case.expected:
            m = LINE.match(line)
            assert m, line
            assert m.group(1) == BREAKING_RULES[m.group(3)][1], line  # code matches rule id
            produced.add((m.group(1), m.group(2), m.group(3)))
    missing = [
        rule
        for rule, (level, code) in BREAKING_RULES.items()
        if (code, level.value, rule) not in produced
    ]
    assert missing == []


def test_ignore_entry_lets_one_change_through(repo: Project, run: RunCLI) -> None:
    repo.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n\n'
        "[[tool.toolgen.breaking_ignore]]\n"
        'rule = "input-param-removed"\ntool = "search"\npointer = "/properties/limit"\n'
        'reason = "nobody sent limit"\n',
    )
    result = _change(
        repo,
        run,
        params=', mode: Literal["fast", "deep"] = "fast"',
        docs="\n        mode: How hard to look.",
    )
    assert result.code == 0, result.out
    assert "input-param-removed" not in result.out
    assert _breaking_lines(result.out) == []


def test_ignore_entry_for_a_removed_tool_uses_the_printed_pointer(
    repo: Project, run: RunCLI
) -> None:
    repo.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n\n'
        "[[tool.toolgen.breaking_ignore]]\n"
        'rule = "tool-removed"\ntool = "search"\npointer = "/"\nreason = "never shipped"\n',
    )
    result = _remove_search(repo, run)
    assert result.code == 0, result.out
    assert _breaking_lines(result.out) == []


TABLE = '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n\n'  # lines 1-5
IGNORE = "[[tool.toolgen.breaking_ignore]]\n"
REMOVED = (
    ', mode: Literal["fast", "deep"] = "fast"',
    "\n        mode: How hard to look.",
)  # params and docs without `limit`: input-param-removed at /properties/limit


@pytest.mark.parametrize("rule", ["input-param-removed", "TG954"])
def test_ignore_entry_names_its_rule_by_id_or_by_code(
    repo: Project, run: RunCLI, rule: str
) -> None:
    """docs/rules.md lists the rules by code: an entry may name either."""
    repo.write(
        "pyproject.toml",
        f'{TABLE}{IGNORE}rule = "{rule}"\ntool = "search"\npointer = "/properties/limit"\n'
        'reason = "nobody sent limit"\n',
    )
    result = _change(repo, run, params=REMOVED[0], docs=REMOVED[1])
    assert result.code == 0, result.out
    assert _breaking_lines(result.out) == []


def test_configured_levels_apply_to_breaking_rules(repo: Project, run: RunCLI) -> None:
    """`[tool.toolgen.rules]` sets a breaking rule's level like any other's: input-param-removed
    (TG954) down to a warning lets `check` pass (and leaves no error to ask a major bump for),
    docs-changed (TG977) off is not reported at all."""
    rules = '[tool.toolgen.rules]\nTG954 = "warning"\nTG977 = "off"\n'
    repo.write("pyproject.toml", TABLE + rules)
    summary = "Search the whole catalog. Use it for product questions."  # docs-changed
    result = _change(repo, run, params=REMOVED[0], docs=REMOVED[1], summary=summary)
    assert result.code == 0, result.out
    (line,) = _breaking_lines(result.out)
    assert "TG954 [warning] input-param-removed tool=search /properties/limit" in line
    assert run("check", "--against", "HEAD", "--fail-on", "warning", cwd=repo.root).code == 1
    repo.write("pyproject.toml", TABLE)  # the table's levels again: an error, and no bump
    result = run("check", "--against", "HEAD", cwd=repo.root)
    assert result.code == 1, result.out
    assert [line.split(" tool=")[0] for line in _breaking_lines(result.out)] == [
        f"src/tools.py:{_def_line(repo)}:1: TG954 [error] input-param-removed",
        f"src/tools.py:{_def_line(repo)}:1: TG975 [error] breaking-without-major-bump",
        f"src/tools.py:{_def_line(repo)}:1: TG977 [info] docs-changed",
    ]


def test_ignore_entry_by_code_for_a_removed_tool(repo: Project, run: RunCLI) -> None:
    repo.write(
        "pyproject.toml",
        f'{TABLE}{IGNORE}rule = "TG950"\ntool = "search"\npointer = "/"\nreason = "never shipped"\n',
    )
    result = _remove_search(repo, run)
    assert result.code == 0, result.out
    assert _breaking_lines(result.out) == []


def test_bad_ignore_entries_are_located_at_their_lines(repo: Project, run: RunCLI) -> None:
    repo.write(
        "pyproject.toml",
        TABLE
        + IGNORE  # line 6
        + 'rule = "TG999"\ntool = "search"\npointer = "/"\nreason = "r"\n\n'  # 7-11
        + IGNORE  # 12
        + 'rule = "no-such-rule"\ntool = "search"\npointer = "/"\nreason = "r"\n\n'  # 13-17
        + IGNORE  # 18
        + 'rule = "TG950"\ntool = "search"\npointer = "/"\nreason = " "\n\n'  # 19-23
        + IGNORE  # 24
        + '  rule = "tool-removed"\ntool = "search"\nreasn = "typo"\n\n'  # 25-28
        + IGNORE  # 29
        + 'rule = "TG950"\ntool = "search"\npointer = 1\nreason = "r"\n',  # 30-33
    )
    result = run("check", "--against", "HEAD", cwd=repo.root)
    assert result.code == 2, result.out
    needs = "each entry needs exactly rule, tool, pointer and reason strings"
    known = (
        "(a breaking rule id such as tool-removed, or its code, TG950-TG978; see `toolgen rules`)"
    )
    at = "TG002 [error] [tool.toolgen] breaking_ignore: entry"
    assert sorted(result.out.splitlines()) == sorted(
        [
            f"pyproject.toml:7:1: {at} 1: unknown rule 'TG999' {known}",
            f"pyproject.toml:13:1: {at} 2: unknown rule 'no-such-rule' {known}",
            f"pyproject.toml:22:1: {at} 3: the entry for TG950 on search needs a reason",
            f"pyproject.toml:27:1: {at} 4: unknown key 'reasn'; {needs}",
            f"pyproject.toml:24:1: {at} 4: missing pointer, reason; {needs}",
            f"pyproject.toml:32:1: {at} 5: pointer must be a string",
        ]
    ), result.out


@pytest.mark.parametrize(
    ("text", "at", "message"),
    [
        (  # an inline array: an unknown rule where it is written
            'breaking_ignore = [\n  {rule = "TG999", tool = "s", pointer = "/", reason = "r"},\n]\n',
            "6:12",
            "entry 1: unknown rule 'TG999'",
        ),
        (  # its other problems at the `breaking_ignore =` line
            'breaking_ignore = [\n  {rule = "TG950", tool = "s", pointer = "/"},\n]\n',
            "5:1",
            "entry 1: missing reason",
        ),
        ("breaking_ignore = 3\n", "5:1", "must be an array of tables"),
        (  # a table, not an array of them
            '\n[tool.toolgen.breaking_ignore]\nrule = "TG950"\n',
            "6:1",
            "must be an array of tables ([[tool.toolgen.breaking_ignore]])",
        ),
    ],
)
def test_other_ignore_forms_are_located(
    repo: Project, run: RunCLI, text: str, at: str, message: str
) -> None:
    repo.write("pyproject.toml", TABLE.rstrip("\n") + "\n" + text)
    result = run("check", "--against", "HEAD", cwd=repo.root)
    assert result.code == 2, result.out
    assert result.out.startswith(
        f"pyproject.toml:{at}: TG002 [error] [tool.toolgen] breaking_ignore: {message}"
    ), result.out


def test_missing_ref_is_a_clear_error(repo: Project, run: RunCLI) -> None:
    result = run("check", "--against", "no-such-ref", cwd=repo.root)
    assert result.code == 2
    assert result.out.startswith(
        "TG010 [error] --against no-such-ref: no such commit or ref 'no-such-ref' in this "
        "repository; check the name, or fetch it first\n"
    ), result.out
    assert "shallow" not in result.out


def test_a_ref_missing_from_a_shallow_clone_says_to_fetch_it(
    repo: Project, run: RunCLI, tmp_path: Path
) -> None:
    _change(repo, run, **_edit("hints", "idempotent: true", "idempotent: false"))
    _git(repo.root, "commit", "-qam", "v2")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", "--depth=1", repo.root.as_uri(), str(clone))
    result = run("check", "--against", "HEAD~1", cwd=clone)
    assert result.code == 2, result.out
    assert (
        "TG010 [error] --against HEAD~1: no such commit or ref 'HEAD~1' in this repository; "
        "this clone is shallow and may not have it: fetch it first"
    ) in result.out
    assert run("check", "--against", "HEAD", cwd=clone).code == 0


def test_a_removed_tool_is_located_at_its_baseline_descriptor(repo: Project, run: RunCLI) -> None:
    """No handler is left to point at: the descriptor at the ref, where the working tree has it."""
    _remove_search(repo, run)
    github = run("check", "--against", "HEAD", "--format", "github", cwd=repo.root)
    assert (
        "::error file=generated/descriptors/search.json,line=1,col=1,title=TG950::tool-removed"
    ) in github.out, github.out
    data = run("check", "--against", "HEAD", "--format", "json", cwd=repo.root).json()
    (row,) = [d for d in data["diagnostics"] if d["code"] == "TG950"]
    assert (row["path"], row["line"], row["col"]) == ("generated/descriptors/search.json", 1, 1)


SCHEMA = "has a `parameters` that is not a JSON Schema"


@pytest.mark.parametrize(
    ("baseline", "message"),
    [
        (
            '<<<<<<< HEAD\n{"name": "search"}\n=======\n{"name": "search"}\n>>>>>>> other\n',
            "is not valid JSON (line 1, column 1: Expecting value)",
        ),
        ('{"name": "search", "risk": "extreme"}', "has an unknown risk 'extreme' (known: low, "),
        ('{"name": "search", "idempotency": []}', "has a `idempotency` that is not a JSON object"),
        ('{"name": "search", "errors": [{}]}', "has an `errors` entry without a `code` string"),
        ("[]", "is not a JSON object"),
        ('{"parameters": ' + "[" * 100_000 + "]" * 100_000 + "}", "is nested too deeply"),
        # a schema the differ cannot read: located by its pointer below `parameters`
        ('{"parameters": {"type": 5}}', f"{SCHEMA}: /type is not a JSON string or array"),
        ('{"parameters": {"properties": []}}', f"{SCHEMA}: /properties is not a JSON object"),
        (
            '{"parameters": {"properties": {"a": 3}}}',
            f"{SCHEMA}: /properties/a is not a JSON object or boolean",
        ),
        ('{"parameters": {"required": "x"}}', f"{SCHEMA}: /required is not a JSON array"),
        ('{"parameters": {"required": [1]}}', f"{SCHEMA}: /required is not an array of strings"),
        (
            '{"parameters": {"properties": {"a": {"enum": 7}}}}',
            f"{SCHEMA}: /properties/a/enum is not a JSON array",
        ),
        ('{"parameters": {"anyOf": {}}}', f"{SCHEMA}: /anyOf is not a JSON array"),
        ('{"parameters": {"maximum": true}}', f"{SCHEMA}: /maximum is not a JSON number"),
        (
            '{"parameters": ' + '{"items": ' * 80 + "{}" + "}" * 80 + "}",
            f"{SCHEMA}: /items/items/items",  # ... is nested too deeply
        ),
        (
            '{"returns": {"schema": {"items": 3}}}',
            "has a `returns.schema` that is not a JSON Schema: /items is not a JSON object or "
            "boolean",
        ),
        (
            '{"returns": {"schema": {"items": {"$ref": 12}}}}',
            "has a `returns.schema` that is not a JSON Schema: /items/$ref is not a JSON string",
        ),
        (
            '{"returns": {"schema": {"items": {"$ref": "#/$defs/Hit"}}}}',
            "has a `returns.schema` that is not a JSON Schema: /items/$ref names no definition "
            "in `$defs`: #/$defs/Hit",
        ),
    ],
)
def test_an_unusable_baseline_descriptor_is_a_clear_error(
    repo: Project, run: RunCLI, baseline: str, message: str
) -> None:
    (repo.out / "descriptors" / "search.json").write_text(baseline)
    _git(repo.root, "commit", "-qam", "a broken baseline")
    assert run("build", cwd=repo.root).code == 0  # the working tree is fine again
    result = run("check", "--against", "HEAD", cwd=repo.root)
    assert result.code == 2, result.out
    assert result.out.startswith(
        f"TG010 [error] baseline descriptor HEAD:generated/descriptors/search.json {message}"
    ), result.out
    assert "commit a fixed one, or name another ref" in result.out
    assert "Traceback" not in result.out + result.err


def _commit_baseline(repo: Project, run: RunCLI, edit: Callable[[dict[str, Any]], None]) -> None:
    """Commit `search`'s descriptor edited by hand; the working tree is built again."""
    descriptor = repo.descriptor("search")
    edit(descriptor)
    (repo.out / "descriptors" / "search.json").write_text(json.dumps(descriptor, indent=2))
    _git(repo.root, "commit", "-qam", "a baseline edited by hand")
    assert run("build", cwd=repo.root).code == 0


def test_a_nested_output_title_edit_is_docs_changed(repo: Project, run: RunCLI) -> None:
    """toolgen drops titles, so only a baseline edited by hand can differ in one: located where
    it was made, reported once, and info (no failure under the default `--fail-on error`)."""
    assert run("check", "--against", "HEAD", "--fail-on", "info", cwd=repo.root).code == 0

    def titled(descriptor: dict[str, Any]) -> None:
        descriptor["returns"]["schema"]["$defs"]["Hit"]["properties"]["url"]["title"] = "Link"

    _commit_baseline(repo, run, titled)
    result = run("check", "--against", "HEAD", cwd=repo.root)
    assert _breaking_lines(result.out) == [
        f"src/tools.py:{_def_line(repo)}:1: TG977 [info] docs-changed tool=search "
        "/returns/schema/$defs/Hit/properties/url/title: title changed"
    ], result.out
    assert result.code == 0, result.out
    assert run("check", "--against", "HEAD", "--fail-on", "info", cwd=repo.root).code == 1


@pytest.mark.parametrize(
    "hit", [{"$ref": "#/$defs/Hit"}, {"anyOf": [{"$ref": "#/$defs/Hit"}]}], ids=str
)
def test_a_baseline_with_a_looping_ref_is_compared_as_far_as_it_can_be(
    repo: Project, run: RunCLI, hit: dict[str, Any]
) -> None:
    """A definition that is only itself stands for any value: the result gained properties."""

    def looping(descriptor: dict[str, Any]) -> None:
        descriptor["returns"]["schema"]["$defs"]["Hit"] = hit

    _commit_baseline(repo, run, looping)
    result = run("check", "--against", "HEAD", cwd=repo.root)
    at = f"src/tools.py:{_def_line(repo)}:1: "
    assert _breaking_lines(result.out) == sorted(
        f"{at}TG967 [info] output-property-added tool=search /returns/items/properties/{name}: "
        f"new result property `{name}`"
        for name in ("title", "url", "kind", "snippet")
    ), result.out
    assert result.code == 0, result.out
    assert "Traceback" not in result.out + result.err


TREE = '''
from typing_extensions import NotRequired, TypedDict
from toolgen import tool


class Node(TypedDict):
    """{doc}"""

    name: {name}
    left: NotRequired["Node"]
    right: NotRequired["Node"]


@tool(version="1.0.0")
def tree(root: str) -> Node:
    """Get a tree. Use it for family trees.

    Args:
        root: Whose tree.
    """
    raise NotImplementedError
'''


def test_a_recursive_model_is_compared_once(repo: Project, run: RunCLI) -> None:
    """A model that holds itself twice is compared once, not once per path 30 levels deep
    (2**30 paths: `check --against` never ended)."""
    repo.write("src/tree.py", TREE.format(doc="A person.", name="str"))
    assert run("build", cwd=repo.root).code == 0
    _git(repo.root, "add", "-A")
    _git(repo.root, "commit", "-qm", "tree")
    repo.write("src/tree.py", TREE.format(doc="A person in the tree.", name="int"))
    assert run("build", cwd=repo.root).code == 0
    result = run("check", "--against", "HEAD", cwd=repo.root)
    lines = (repo.root / "src" / "tree.py").read_text().splitlines()
    at = f"src/tree.py:{lines.index('def tree(root: str) -> Node:') + 1}:1: "
    assert _breaking_lines(result.out) == sorted(
        [
            f"{at}TG965 [error] output-type-changed tool=tree /returns/properties/name: "
            "type ['string'] -> ['integer']",
            f"{at}TG975 [error] breaking-without-major-bump tool=tree /version: "
            "1 breaking change without a major version bump",
            f"{at}TG977 [info] docs-changed tool=tree /returns/schema/$defs/Node/description: "
            "description changed",
        ]
    ), result.out
    assert result.code == 1, result.out


def test_unchanged_contract_is_clean_and_github_format(repo: Project, run: RunCLI) -> None:
    assert run("check", "--against", "HEAD", cwd=repo.root).code == 0
    _change(repo, run, **_edit("hints", "idempotent: true", "idempotent: false"))
    github = run("check", "--against", "HEAD", "--format", "github", cwd=repo.root)
    line = _def_line(repo)
    assert f"::error file=src/tools.py,line={line},col=1,title=TG970::idempotent-weakened" in (
        github.out
    )
    data = run("check", "--against", "HEAD", "--format", "json", cwd=repo.root).json()
    assert {d["code"] for d in data["diagnostics"]} >= {"TG970", "TG975"}


def _descriptor(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "name": "t",
        "description": "Do it. Really.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer", "default": 1}},
            "required": ["a"],
        },
        "returns": {
            "schema": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "state": {"enum": ["open", "closed"]},
                    "note": {"type": "string"},
                },
                "required": ["id", "state"],
            }
        },
        "errors": [{"code": "NOT_FOUND"}],
        "idempotency": {
            "idempotent": True,
            "safe": True,
            "destructive": False,
            "open_world": False,
        },
        "risk": "low",
        "version": "1.0.0",
    }
    base.update(overrides)
    return base


def _returns(**props: object) -> dict[str, object]:
    schema = _descriptor()["returns"]["schema"]  # type: ignore[index]
    return {"schema": {**schema, **props}}


UNIT_CASES = [
    (
        "input-became-required",
        {
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            }
        },
    ),
    (
        "output-optional-removed",
        {
            "returns": _returns(
                properties={"id": {"type": "string"}, "state": {"enum": ["open", "closed"]}}
            )
        },
    ),
    ("output-became-optional", {"returns": _returns(required=["id"])}),
    (
        "output-type-changed",
        {
            "returns": _returns(
                properties={
                    "id": {"type": "integer"},
                    "state": {"enum": ["open", "closed"]},
                    "note": {"type": "string"},
                }
            )
        },
    ),
    (
        "output-enum-widened",
        {
            "returns": _returns(
                properties={
                    "id": {"type": "string"},
                    "state": {"enum": ["open", "closed", "merged"]},
                    "note": {"type": "string"},
                }
            )
        },
    ),
    (
        "output-property-added",
        {
            "returns": _returns(
                properties={
                    "id": {"type": "string"},
                    "state": {"enum": ["open", "closed"]},
                    "note": {"type": "string"},
                    "url": {"type": "string"},
                }
            )
        },
    ),
    ("error-removed", {"errors": []}),
    (
        "readonly-weakened",
        {
            "idempotency": {
                "idempotent": True,
                "safe": False,
                "destructive": False,
                "open_world": False,
            }
        },
    ),
    (
        "destructive-added",
        {
            "idempotency": {
                "idempotent": True,
                "safe": False,
                "destructive": True,
                "open_world": False,
            }
        },
    ),
    ("risk-raised", {"risk": "high"}),
    (
        "openworld-added",
        {
            "idempotency": {
                "idempotent": True,
                "safe": True,
                "destructive": False,
                "open_world": True,
            }
        },
    ),
    ("docs-changed", {"description": "Do it differently. Really."}),
]


def test_a_tool_without_a_handler_location_is_located_at_its_baseline_descriptor() -> None:
    from toolgen.breaking import Baseline, Ignore, compare, findings_to_diagnostics
    from toolgen.diagnostics import Location

    descriptor = Location("generated/descriptors/t.json")
    old = Baseline({"t": _descriptor()}, {"t": descriptor})
    new = {"t": _descriptor(risk="high")}
    found = findings_to_diagnostics(compare(old, new), old, new, [], {})
    assert {(d.code, d.location) for d in found} == {
        ("TG973", descriptor),
        ("TG975", descriptor),
    }
    handler = Location("src/t.py", 3, 1)
    found = findings_to_diagnostics(compare(old, new), old, new, [], {"t": handler})
    assert {d.location for d in found} == {handler}
    ignored = [Ignore("TG973", "t", "/risk", "on purpose")]  # by code, as by id
    assert findings_to_diagnostics(compare(old, new), old, new, ignored, {}) == []


@pytest.mark.parametrize(("rule", "changes"), UNIT_CASES, ids=lambda c: str(c)[:30])
def test_rule_table(rule: str, changes: dict[str, object]) -> None:
    from toolgen.breaking import compare, findings_to_diagnostics

    old, new = {"t": _descriptor()}, {"t": _descriptor(**changes)}
    findings = compare(old, new)
    assert rule in {f.rule for f in findings}, findings
    diagnostics = findings_to_diagnostics(findings, old, new, [], {})
    level, code = BREAKING_RULES[rule]
    assert any(d.code == code and d.severity is level for d in diagnostics)
    assert compare(old, {"t": _descriptor()}) == []  # and an unchanged tool has none


SPREAD = '''
from typing import Annotated

from pydantic import Field
from toolgen import tool


@tool(version="1.0.0")
def search(
    query: str,
    limit: Annotated[{kind}, Field(description="Most results.")] = 10,
) -> list[str]:
    """Search the catalog. Use it for product questions.

    Args:
        query: Words.
        limit: Most results.
    """
    raise NotImplementedError
'''


def test_a_finding_about_a_parameter_points_at_its_line(project: Project, run: RunCLI) -> None:
    """In a signature over several lines; a finding about the whole tool stays at the `def`."""
    project.write("src/tools.py", SPREAD.format(kind="int"))
    assert run("build", cwd=project.root).code == 0
    _git(project.root, "init", "-q")
    _git(project.root, "add", "-A")
    _git(project.root, "commit", "-qm", "v1")
    project.write("src/tools.py", SPREAD.format(kind="bool"))
    assert run("build", cwd=project.root).code == 0
    result = run("check", "--against", "HEAD", cwd=project.root)
    assert result.code == 1, result.out
    assert _breaking_lines(result.out) == [
        "src/tools.py:10:5: TG956 [error] input-type-narrowed tool=search /properties/limit: "
        "type ['integer'] -> ['boolean']",
        "src/tools.py:8:1: TG975 [error] breaking-without-major-bump tool=search /version: "
        "1 breaking change without a major version bump",
    ]
