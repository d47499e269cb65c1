"""The schema patterns the compiler runs over a repository's own values (its examples) are
matched in linear time: an untrusted repository cannot hold `build` or `check` with a
backtracking pattern. The engine itself: `toolgen.schema_patterns`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from conftest import Project
from toolgen.schema_patterns import UncheckablePattern, matches, validator_for
from toolgen.validate import schema_errors

EVIL = "a" * 40 + "!"

SOURCE = f'''
from typing import Annotated

from pydantic import Field

from toolgen import tool


@tool
def find(code: Annotated[str, Field(pattern=r"^(a+)+$")]) -> str:
    """Find a code in the catalog. Use it for product questions.

    Args:
        code: The code.

    Examples:
        >>> find(code="{EVIL}")
        'x'
    """
    raise NotImplementedError
'''


@pytest.mark.parametrize("command", ["build", "check"])
def test_an_example_against_a_backtracking_pattern_does_not_hold_the_compiler(
    project: Project, command: str
) -> None:
    """`^(a+)+$` checked against a docstring example of 40 a's and a `!`: a backtracking
    engine takes days; the example is reported as not matching at once."""
    project.write("src/tools.py", SOURCE)
    done = subprocess.run(
        [sys.executable, "-m", "toolgen", command],
        cwd=project.root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        timeout=60,  # generous: it answers at once, or in days
        check=False,
    )
    output = done.stdout + done.stderr
    assert "does not match" in output, output
    assert "Traceback" not in output


def test_matches_searches_in_linear_time() -> None:
    assert matches("^(a+)+$", "a" * 100_000) is True
    assert matches("^(a+)+$", "a" * 100_000 + "!") is False
    assert matches("b", "abc") is True  # a search, not anchored
    assert matches("^\\d+$", "12\n") is False  # `$` is the end of the text
    assert matches("^[\\u0041-\\u005A]+$", "ABC") is True  # ECMA-262's escapes


@pytest.mark.parametrize("pattern", ["(?=a)", "(a)\\1", "(", "a{1000}{1000}{1000}"])
def test_a_pattern_it_cannot_read_is_uncheckable(pattern: str) -> None:
    with pytest.raises(UncheckablePattern) as raised:
        matches(pattern, "a")
    assert raised.value.pattern == pattern
    found = schema_errors({"type": "string", "pattern": pattern}, "a")
    assert [(e.keyword, e.message[:17]) for e in found] == [("pattern", "cannot be checked")]


def test_unevaluated_properties_beside_pattern_properties_is_uncheckable() -> None:
    """jsonschema would match the `patternProperties` with `re` to find what is evaluated."""
    both = {"patternProperties": {"^a": {}}, "unevaluatedProperties": False}
    with pytest.raises(UncheckablePattern):
        list(validator_for(both).iter_errors({"b": 1}))
    assert validator_for(both).is_valid({})  # nothing to match
    alone = {"properties": {"a": {}}, "unevaluatedProperties": False}
    assert [e.message for e in validator_for(alone).iter_errors({"a": 1, "b": 2})] == [
        "Unevaluated properties are not allowed ('b' was unexpected)"
    ]


PATTERNS = ["^a", "b", "[0-9]+", "^x_[a-z]*$", "^(ab|cd){2}", ".", "^$"]
SCHEMAS: list[dict[str, Any]] = [
    *({"type": "string", "pattern": p} for p in PATTERNS),
    *({"type": "object", "patternProperties": {p: {"type": "integer"}}} for p in PATTERNS),
    *(
        {"patternProperties": {p: {}, "^z": {"type": "string"}}, "additionalProperties": False}
        for p in PATTERNS
    ),
    *(
        {
            "properties": {"k": {}},
            "patternProperties": {p: {}},
            "additionalProperties": {"type": "null"},
        }
        for p in PATTERNS
    ),
    {"properties": {"a": {}}, "additionalProperties": False},
    {"propertyNames": {"pattern": "^[a-z]+$"}},
    {"type": "array", "items": {"pattern": "^[0-9]{3}$"}},
]
INSTANCES: list[Any] = [
    "", "a", "ab", "abab", "xab", "x_", "x_abc", "x_A", "123", "b", "cdcd", 7, None, [],
    {}, {"a": 1}, {"b": "x"}, {"k": None}, {"k": 1}, {"zz": 1}, {"zz": "s", "a": 2},
    {"x_q": 1, "9": 2, "": 3}, {"A": 1}, ["123", "12", 5], ["999"],
]  # fmt: skip


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: json.dumps(s)[:60])
def test_the_same_errors_as_jsonschemas_where_both_engines_agree(schema: dict[str, Any]) -> None:
    """Patterns without what the two engines read differently (`$` before a final newline):
    the same messages at the same places as jsonschema's own validator."""
    theirs, ours = Draft202012Validator(schema), validator_for(schema)
    for instance in INSTANCES:
        expected = sorted((list(e.absolute_path), e.message) for e in theirs.iter_errors(instance))
        found = sorted((list(e.absolute_path), e.message) for e in ours.iter_errors(instance))
        assert found == expected, instance


MANY_LARGE = textwrap.dedent(
    """
    from toolgen.validate import schema_errors

    # 150 patterns of a few megabytes each once compiled (a Unicode class repeated)
    for i in range(150):
        pattern = "\\\\w{%d}%s" % (30 + i % 50, "xyz"[i // 50])
        schema = {"type": "object", "properties": {"v": {"type": "string", "pattern": pattern}}}
        schema_errors(schema, {"v": "abc"})
    # this process's own peak: ru_maxrss would also count the parent's size at the fork,
    # which Linux carries across exec (a long test run's pytest is larger than the bound)
    with open("/proc/self/status") as status:
        peak = next(line for line in status if line.startswith("VmHWM:"))
    print(int(peak.split()[1]) // 1024)
    """
)


def test_a_repositorys_patterns_are_not_kept_compiled() -> None:
    """A repository's examples checked against 150 large patterns: kept compiled, they held
    about 500 MiB; compiled for each match and dropped, the peak is what pydantic-core's own
    small cache of compiled patterns holds."""
    done = subprocess.run(
        [sys.executable, "-c", MANY_LARGE],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    peak_mib = int(done.stdout)
    assert peak_mib < 350, peak_mib
