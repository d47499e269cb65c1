"""`toolgen check --against REF`: contract changes classified by reference/breaking.md, on a
temporary git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import Project

HANDLER = '''
from typing import Literal
from typing_extensions import TypedDict
from toolgen import tool


class Hit(TypedDict):
    title: str
    url: str


@tool({decorator})
def search(query: str{params}) -> {returns}:
    """Search the catalog. Use it for product questions.

    Args:
        query: Words.{docs}

    Errors:
        NOT_FOUND: Nothing matches.{errors}

    Idempotency:
        idempotent: {idempotent}
        safe: true
        destructive: false
    """
    raise NotImplementedError
'''

BASE = {
    "decorator": 'version="1.0.0"',
    "params": ', mode: Literal["fast", "deep"] = "fast", limit: int = 10',
    "docs": "\n        mode: How hard to look.\n        limit: Most results.",
    "returns": "list[Hit]",
    "errors": "",
    "idempotent": "true",
}


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture
def repo(project: Project, run) -> Project:  # type: ignore[no-untyped-def]
    project.write("src/tools.py", HANDLER.format(**BASE))
    assert run("build", cwd=project.root).code == 0
    _git(project.root, "init", "-q")
    _git(project.root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    _git(project.root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "v1")
    return project


def _change(repo: Project, run, **changes: str):  # type: ignore[no-untyped-def]
    repo.write("src/tools.py", HANDLER.format(**{**BASE, **changes}))
    assert run("build", cwd=repo.root).code == 0
    return run("check", "--against", "HEAD", cwd=repo.root)


CASES = [
    (
        {"params": ", region: str" + BASE["params"], "docs": "\n        region: R." + BASE["docs"]},
        "TG952 [error] input-required-added tool=search /properties/region: new required parameter",
    ),
    (
        {
            "params": BASE["params"] + ", region: str = 'eu'",
            "docs": BASE["docs"] + "\n        region: R.",
        },
        "TG955 [info] input-optional-added tool=search /properties/region",
    ),
    (
        {
            "params": ', mode: Literal["fast", "deep"] = "fast"',
            "docs": "\n        mode: How hard to look.",
        },
        "TG954 [error] input-param-removed tool=search /properties/limit: parameter `limit` removed",
    ),
    (
        {"params": ', mode: Literal["fast"] = "fast", limit: int = 10'},
        "TG958 [error] input-enum-narrowed tool=search /properties/mode: allowed values removed",
    ),
    (
        {"params": ', mode: Literal["fast", "deep", "exact"] = "fast", limit: int = 10'},
        "TG959 [info] input-enum-widened tool=search /properties/mode",
    ),
    (
        {
            "params": ', mode: Literal["fast", "deep"] = "fast", limit: Annotated[int, Field(le=50)] = 10'
        },
        "TG960 [error] input-constraint-tightened tool=search /properties/limit/maximum: maximum unset -> 50",
    ),
    (
        {"params": ', mode: Literal["fast", "deep"] = "deep", limit: int = 10'},
        'TG961 [warning] input-default-changed tool=search /properties/mode: default "fast" -> "deep"',
    ),
    (
        {"params": ', mode: Literal["fast", "deep"] = "fast", limit: str = "10"'},
        "TG956 [error] input-type-narrowed tool=search /properties/limit: type ['integer'] -> ['string']",
    ),
    (
        {"params": ', mode: Literal["fast", "deep"] = "fast", limit: float = 10'},
        "TG957 [info] input-type-widened tool=search /properties/limit",
    ),
    (
        {"returns": "list[str]"},
        "TG962 [error] output-required-removed tool=search /returns/items/properties/title",
    ),
    (
        {"errors": "\n        RATE_LIMITED: Too many calls. Recovery: wait."},
        "TG968 [warning] error-added tool=search /errors: new error code RATE_LIMITED",
    ),
    (
        {"idempotent": "false"},
        "TG970 [error] idempotent-weakened tool=search /idempotency/idempotent",
    ),
    ({"decorator": 'version="0.9.0"'}, "TG976 [error] version-decreased tool=search /version"),
]


@pytest.mark.parametrize(("changes", "expected"), CASES, ids=lambda c: str(c)[:40])
def test_rule(repo: Project, run, changes: dict[str, str], expected: str) -> None:
    if "Annotated" in changes.get("params", ""):
        changes = {**changes, "params": changes["params"]}
        HANDLER_IMPORTS = "from typing import Annotated\nfrom pydantic import Field\n"
        repo.write("src/tools.py", HANDLER_IMPORTS + HANDLER.format(**{**BASE, **changes}))
        assert run("build", cwd=repo.root).code == 0
        result = run("check", "--against", "HEAD", cwd=repo.root)
    else:
        result = _change(repo, run, **changes)
    assert expected in result.out, result.out
    def_line = (repo.root / "src" / "tools.py").read_text().splitlines().index(
        next(
            line
            for line in (repo.root / "src" / "tools.py").read_text().splitlines()
            if line.startswith("def search")
        )
    ) + 1
    assert f"src/tools.py:{def_line}:1: " in result.out  # located at the handler's def
    breaking = " [error] " in expected
    assert result.code == (1 if breaking else 0), result.out
    assert ("TG975 [error] breaking-without-major-bump tool=search" in result.out) == breaking


def test_major_version_bump_turns_errors_into_info(repo: Project, run) -> None:
    result = _change(
        repo,
        run,
        decorator='version="2.0.0"',
        params=', mode: Literal["fast", "deep"] = "fast"',
        docs="\n        mode: How hard to look.",
    )
    assert result.code == 0, result.out
    assert "TG954 [info] input-param-removed tool=search" in result.out
    assert "TG975" not in result.out


def test_removed_tool(repo: Project, run) -> None:
    repo.write("src/tools.py", "")
    (repo.root / "src" / "tools.py").unlink()
    repo.write("src/other.py", HANDLER.format(**BASE).replace("def search", "def find"))
    assert run("build", cwd=repo.root).code == 0
    result = run("check", "--against", "HEAD", cwd=repo.root)
    assert result.code == 1
    assert "TG950 [error] tool-removed tool=search /: the tool is gone" in result.out


def test_removing_a_deprecated_tool_is_info(repo: Project, run) -> None:
    _change(repo, run, decorator='version="1.1.0", deprecated=True, replacement="find"')
    _git(repo.root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", "deprecate")
    (repo.root / "src" / "tools.py").unlink()
    repo.write("src/other.py", HANDLER.format(**BASE).replace("def search", "def find"))
    assert run("build", cwd=repo.root).code == 0
    result = run("check", "--against", "HEAD", cwd=repo.root)
    assert result.code == 0, result.out
    assert "TG951 [info] tool-removed-deprecated tool=search" in result.out


def test_ignore_entry_lets_one_change_through(repo: Project, run) -> None:
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


def test_missing_ref_is_a_clear_error(repo: Project, run) -> None:
    result = run("check", "--against", "no-such-ref", cwd=repo.root)
    assert result.code == 2
    assert "TG010 [error]" in result.out


def test_unchanged_contract_is_clean_and_github_format(repo: Project, run) -> None:
    assert run("check", "--against", "HEAD", cwd=repo.root).code == 0
    _change(repo, run, idempotent="false")
    github = run("check", "--against", "HEAD", "--format", "github", cwd=repo.root)
    assert "::error file=src/tools.py,line=12,col=1,title=TG970::idempotent-weakened" in github.out
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
                "safe": True,
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


@pytest.mark.parametrize(("rule", "changes"), UNIT_CASES, ids=lambda c: str(c)[:30])
def test_rule_table(rule: str, changes: dict[str, object]) -> None:
    from toolgen.breaking import BREAKING_RULES, compare, findings_to_diagnostics

    old, new = {"t": _descriptor()}, {"t": _descriptor(**changes)}
    findings = compare(old, new)
    assert rule in {f.rule for f in findings}, findings
    diagnostics = findings_to_diagnostics(findings, old, new, [], {})
    level, code = BREAKING_RULES[rule]
    assert any(d.code == code and d.severity is level for d in diagnostics)
    assert compare(old, {"t": _descriptor()}) == []  # and an unchanged tool has none


def test_every_breaking_rule_is_tested() -> None:
    from toolgen.breaking import BREAKING_RULES

    text = Path(__file__).read_text()
    assert [
        rule for rule in BREAKING_RULES if f'"{rule}' not in text and f" {rule} " not in text
    ] == []
