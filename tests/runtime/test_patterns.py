"""Schema patterns at run time: matched in linear time, so no value can hold validation (or the
event loop it runs on) for long; a pattern the linear engine cannot read fails closed."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from toolgen.runtime import CallContext

from .descriptors_support import box_of, descriptor

#: Exponential for a backtracking engine on `EVIL`; instant for a linear one.
BACKTRACKING = "^(a+)+$"
EVIL = "a" * 40 + "!"

#: Each way a schema runs a pattern over a client's value, and what the call must answer.
#: Run in a child process: a backtracking match holds the GIL, so no thread of this process
#: could even notice the hang.
SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path
    from toolgen.descriptor import ToolDescriptor
    from toolgen.runtime import Toolbox
    from toolgen.runtime.catalog import Catalog

    EVIL = sys.argv[1]
    PATTERN = sys.argv[2]

    def tool(name, parameters, returns=None):
        return ToolDescriptor.model_validate({
            "name": name, "description": "d", "parameters": parameters,
            "returns": {"description": None, "schema": returns or {}}, "errors": [],
            "idempotency": {"idempotent": True, "safe": True}, "examples": [],
            "source": {"module": "nowhere", "qualname": name}})

    tools = [
        tool("value", {"type": "object", "properties": {"code": {"type": "string",
             "pattern": PATTERN}}}),
        tool("names", {"type": "object", "patternProperties": {PATTERN: {"type": "integer"}}}),
        tool("extra", {"type": "object", "patternProperties": {PATTERN: {}},
             "additionalProperties": False}),
        tool("keys", {"type": "object", "propertyNames": {"pattern": PATTERN}}),
        tool("result", {"type": "object"}, {"type": "string", "pattern": PATTERN}),
    ]
    found = {t.name: t for t in tools}
    handlers = {name: (lambda **kw: EVIL) for name in found}
    box = Toolbox(Catalog(Path("."), found, found, None), store="memory://", audit=lambda e: None,
                  handlers=handlers, timeout=None)
    calls = [("value", {"code": EVIL}), ("names", {EVIL: "x"}), ("extra", {EVIL: 1}),
             ("keys", {EVIL: 1}), ("result", {})]
    out = []
    for name, arguments in calls:
        out.append([name, box.call(name, arguments).error["code"]])
        answer = asyncio.run(box.acall(name, json.dumps(arguments)))
        out.append([name, answer.error["code"]])
    print(json.dumps(out))
    """
)


def test_a_backtracking_pattern_does_not_hold_validation() -> None:
    """`^(a+)+$` against 40 a's and a `!`: a backtracking engine takes longer than any test
    waits; each call must answer, whichever keyword ran the pattern (`pattern`,
    `patternProperties`, `additionalProperties` beside them, `propertyNames`, a return
    schema's `pattern`)."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, EVIL, BACKTRACKING],
        capture_output=True,
        text=True,
        timeout=60,  # generous: the child answers at once, or in days
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answered = json.loads(done.stdout)
    expected = {
        "value": "VALIDATION_ERROR",
        "names": "VALIDATION_ERROR",
        "extra": "VALIDATION_ERROR",
        "keys": "VALIDATION_ERROR",
        "result": "INTERNAL",  # a handler's result that breaks its return schema
    }
    assert answered == [[name, code] for name, code in expected.items() for _ in (1, 2)]


def _code_tool() -> Any:
    return descriptor(
        "code",
        {
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^[A-Z]{2}\\d+$"}},
            "required": ["code"],
        },
    )


def test_a_pattern_is_searched_as_json_schema_and_pydantic_read_it() -> None:
    """Unanchored search; `$` is the end of the text (Python's `re` also matched before a
    final newline); `\\d` any decimal digit, as pydantic's own check of the handler's
    arguments reads it (the same engine)."""
    ran: list[str] = []
    box = box_of((_code_tool(), lambda code: ran.append(code) or code))
    assert box.call("code", {"code": "AB12"}).ok
    assert box.call("code", {"code": "AB\u0661\u0662"}).ok  # Arabic-Indic digits
    refused = box.call("code", {"code": "AB12\n"})
    assert refused.error is not None and refused.error["code"] == "VALIDATION_ERROR"
    assert refused.error["fields"][0]["path"] == "/code"
    assert ran == ["AB12", "AB\u0661\u0662"]
    unanchored = descriptor(
        "word", {"type": "object", "properties": {"w": {"type": "string", "pattern": "b"}}}
    )
    box = box_of((unanchored, lambda w: w))
    assert box.call("word", {"w": "abc"}).ok
    assert not box.call("word", {"w": "xyz"}).ok


@pytest.mark.parametrize("pattern", ["^(?=x)a", "^(a)\\1$", "(", "a{1000}{1000}{1000}"])
def test_a_pattern_the_linear_engine_cannot_read_fails_closed(
    pattern: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Look-around, a back-reference, a pattern that is not one, or one too large to compile:
    no value is proven to match it, so the call answers INTERNAL (the tool's contract cannot
    be checked here; the model cannot fix that) and the handler does not run; the log says
    why."""
    ran: list[Any] = []
    tool = descriptor(
        "odd",
        {"type": "object", "properties": {"v": {"type": "string", "pattern": pattern}}},
    )
    events: list[dict[str, Any]] = []
    box = box_of((tool, lambda v=None: ran.append(v)), audit=events.append)
    with caplog.at_level(logging.ERROR, logger="toolgen.runtime"):
        result = box.call("odd", {"v": "xa"}, context=CallContext(principal="p"))
    assert result.error is not None and result.error["code"] == "INTERNAL"
    assert result.error["retryable"] is False
    assert ran == []
    assert [e["decision"] for e in events] == ["proposed", "denied"]
    assert "cannot be checked" in caplog.text and json.dumps(pattern)[1:-1] in caplog.text
    assert box.call("odd", {}).ok  # a call that gives no value to match still runs
