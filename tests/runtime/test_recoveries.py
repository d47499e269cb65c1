"""Every standard error code has a recovery (DESIGN §3), and what answers with one carries it:
the runtime's own envelopes, and a handler's `ToolError` of a code its docstring declares
without a `Recovery:` sentence (the compiler's default)."""

from __future__ import annotations

import ast
import textwrap
from typing import Any

import pytest

from toolgen.analyze.docstrings import parse_docstring
from toolgen.analyze.sections import SectionReader
from toolgen.descriptor import STANDARD_ERRORS, ErrorSpec
from toolgen.runtime import ToolError
from toolgen.runtime.result import failure

from .descriptors_support import box_of, descriptor

#: What DESIGN §3 says in its own words; the others' recoveries are toolgen's.
DESIGN_SAYS = {
    "VALIDATION_ERROR": "re-prompt with corrected arguments",
    "RATE_LIMITED": "back off using Retry-After",
    "INTERNAL": "exponential backoff, max 3 attempts",
    "TIMEOUT": "single retry, then abort",
}


def test_every_standard_code_has_a_recovery() -> None:
    """Was: UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT and UNAVAILABLE had none."""
    missing = [code for code, taxonomy in STANDARD_ERRORS.items() if not taxonomy.recovery]
    assert missing == []
    assert {code: STANDARD_ERRORS[code].recovery for code in DESIGN_SAYS} == DESIGN_SAYS


@pytest.mark.parametrize("code", sorted(STANDARD_ERRORS))
def test_the_runtimes_own_envelope_of_each_code_carries_its_recovery(code: str) -> None:
    error = failure("t", "trace", code, "it failed").envelope()["error"]
    assert error["recovery"] == STANDARD_ERRORS[code].recovery
    assert (error["http_status"], error["retryable"]) == (
        STANDARD_ERRORS[code].http_status,
        STANDARD_ERRORS[code].retryable,
    )


def _declared(codes: list[str]) -> list[dict[str, Any]]:
    """The `errors` the compiler makes of an `Errors:` section naming `codes`, no recovery."""
    entries = "\n".join(f"        {code}: It failed." for code in codes)
    source = f'def f():\n    """Do it.\n\n    Errors:\n{entries}\n    """\n'
    node = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(node, ast.FunctionDef)
    doc = parse_docstring(node)
    assert doc is not None
    reader = SectionReader("x.py")
    found = reader.errors(doc.sections["errors"])
    assert reader.diagnostics == []
    return found


def test_a_declared_standard_code_answers_with_its_recovery() -> None:
    """A docstring that names a standard code gets its recovery by default, and a handler's
    `ToolError` of that code carries it to the model."""
    codes = sorted(STANDARD_ERRORS)
    declared = _declared(codes)
    assert {e["code"]: e["recovery"] for e in declared} == {
        code: STANDARD_ERRORS[code].recovery for code in codes
    }

    def act(code: str) -> str:
        raise ToolError(code, "it failed")

    tool = descriptor("act", {"type": "object", "properties": {"code": {"type": "string"}}})
    tool = tool.model_copy(
        update={
            "errors": [ErrorSpec.model_validate(e) for e in declared],
            "idempotency": tool.idempotency.model_copy(update={"idempotent": False}),
        }
    )
    box = box_of((tool, act))
    for code in codes:
        result = box.call("act", {"code": code})
        assert result.error is not None and result.error["code"] == code
        recovery = result.error["recovery"]
        assert isinstance(recovery, str) and recovery, code
        assert recovery == STANDARD_ERRORS[code].recovery, code
