from __future__ import annotations

import subprocess
import sys

import toolgen
from toolgen import tool


def test_bare_marker_returns_the_function_unchanged() -> None:
    def f(x: int) -> int:
        return x + 1

    assert tool(f) is f
    assert f(1) == 2
    assert f.__toolgen_tool__ == {}  # type: ignore[attr-defined]


def test_called_marker_returns_the_function_unchanged_and_records_options() -> None:
    def f() -> str:
        return "ok"

    decorated = tool(risk="high", keywords=["a"])(f)
    assert decorated is f
    assert f.__toolgen_tool__ == {"risk": "high", "keywords": ["a"]}  # type: ignore[attr-defined]


def test_marker_works_as_decorator_syntax_on_methods() -> None:
    class C:
        @tool
        def a(self) -> int:
            return 1

        @tool(risk="low")
        def b(self) -> int:
            return 2

    assert C().a() == 1
    assert C().b() == 2


def test_importing_the_marker_pulls_in_no_heavy_dependency() -> None:
    code = (
        "import sys; from toolgen import tool; "
        "heavy = [m for m in ('griffe', 'libcst', 'black', 'jsonschema', 'pydantic') "
        "if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_reading_the_configuration_pulls_in_no_model_library() -> None:
    """The configuration (its contract tables too) is read before anything is compiled, also
    by commands that never build a descriptor: pydantic is no part of it."""
    code = "import sys, toolgen.config; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_public_api_is_declared_once() -> None:
    assert sorted(toolgen.__all__) == ["ToolError", "__version__", "tool"]
    for name in toolgen.__all__:
        assert hasattr(toolgen, name)


def test_tool_error_carries_code_message_and_details() -> None:
    error = toolgen.ToolError("NOT_FOUND", "no such ticket", ticket_id="T-1")
    assert (error.code, error.message, error.details) == (
        "NOT_FOUND",
        "no such ticket",
        {"ticket_id": "T-1"},
    )
    assert str(error) == "no such ticket"
