"""Step 1, find: unknown and forbidden tools are answered alike, listing the callable ones."""

from __future__ import annotations

from collections.abc import Callable

from toolgen.runtime import Toolbox
from toolgen.runtime.steps.find import find


def test_find_returns_the_descriptor(make_box: Callable[..., Toolbox]) -> None:
    box = make_box()
    found = find(box.catalog.descriptors, "lookup", "t")
    assert not isinstance(found, type(None)) and getattr(found, "name", None) == "lookup"


def test_unknown_and_forbidden_tools_read_the_same(make_box: Callable[..., Toolbox]) -> None:
    box = make_box()
    assert "read_secret" in box.catalog.all  # known to the runtime ...
    assert "read_secret" not in box.names  # ... and never callable
    answers = {}
    for name in ("read_secret", "no_such_tool"):
        result = box.call(name, {"name": "x"})
        assert not result.ok and result.error is not None
        error = dict(result.error)
        assert error.pop("trace_id") == result.trace_id
        answers[name] = error
    listed = ", ".join(box.names)
    for name, error in answers.items():
        assert error == {
            "code": "NOT_FOUND",
            "message": f"unknown tool {name!r}; available tools: {listed}",
            "retryable": False,
            "human_review": False,
            "http_status": 404,
            "recovery": "call one of the available tools",
            "available": box.names,
        }


def test_a_forbidden_tool_never_runs(make_box: Callable[..., Toolbox], handlers: object) -> None:
    box = make_box()
    box.call("read_secret", {"name": "x"})
    assert handlers.CALLS["read_secret"] == 0  # type: ignore[attr-defined]
