"""The human and typed outputs: docs/tools.md and python/tools.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, Project

GENERATED = [
    REPO / "generated",
    REPO / "tests" / "golden" / "zoo",
    *sorted((REPO / "tests" / "golden" / "frameworks").iterdir()),
]


def test_generated_python_passes_mypy_strict(tmp_path: Path) -> None:
    files = []
    for i, folder in enumerate(GENERATED):  # one mypy run; distinct module names
        copy = tmp_path / f"tools_{i}.py"
        copy.write_text((folder / "python" / "tools.py").read_text())
        files.append(str(copy))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *files],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("folder", GENERATED, ids=lambda f: f.name)
def test_generated_python_is_black_formatted_and_importable(folder: Path) -> None:
    import black

    source = (folder / "python" / "tools.py").read_text()
    mode = black.Mode(line_length=100, target_versions={black.TargetVersion.PY311})
    assert black.format_str(source, mode=mode) == source
    namespace: dict[str, object] = {}
    exec(compile(source, "tools.py", "exec"), namespace)
    arguments = namespace["ARGUMENTS"]
    assert isinstance(arguments, dict)
    descriptors = sorted(p.stem for p in (folder / "descriptors").glob("*.json"))
    assert set(arguments) <= set(descriptors)


def test_examples_typed_arguments() -> None:
    source = (REPO / "generated" / "python" / "tools.py").read_text()
    assert "class SearchWebArgs(TypedDict):" in source
    assert "    query: str\n" in source
    assert "    num_results: NotRequired[int]\n" in source
    assert 'date_restrict: NotRequired[Literal["d1", "w1", "m1", "m3", "m6", "y1"] | None]' in (
        source
    )
    assert "read_private_key" not in source  # forbidden tools reach no output but descriptors


def test_docs_catalog_has_a_section_per_visible_tool() -> None:
    text = (REPO / "generated" / "docs" / "tools.md").read_text()
    assert "## search_web\n" in text
    assert "| `query` | string | yes |  | Search keywords" in text
    assert "| `RATE_LIMITED` | 429 | yes | back off for retry_after_seconds. |" in text
    assert '>>> search_web(query="solar eclipse 2026", num_results=3)' in text
    assert "idempotent: yes, safe: yes, destructive: no, open_world: yes" in text
    assert "read_private_key" not in text


def test_odd_property_names_use_the_functional_typeddict_form(project: Project, run) -> None:
    project.write(
        "src/tools.py",
        """
        from typing_extensions import TypedDict
        from toolgen import tool

        Headers = TypedDict("Headers", {"content-type": str, "from": str})

        class Query(TypedDict):
            text: str

        @tool
        def fetch(query: Query, class_: int = 0) -> str:
            \"\"\"Fetch a page. Use it for web pages.

            Args:
                query: What to fetch.
                class_: A reserved word with an underscore.
            \"\"\"
            return ""
        """,
    )
    assert run("build", cwd=project.root).code == 0
    source = (project.out / "python" / "tools.py").read_text()
    assert "class FetchArgs(TypedDict):" in source
    assert "class Query(TypedDict):" in source
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "-c", source],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout


def test_a_long_field_description_is_wrapped_to_the_modules_line_length(
    project: Project, run
) -> None:  # type: ignore[no-untyped-def]
    """black leaves comments as they are: a long description made a `#:` line past the
    module's line length, which the project's own linter then reports in generated/."""
    words = " ".join(f"word{i}" for i in range(60))
    project.write(
        "src/tools.py",
        f'''
        from toolgen import tool

        @tool(risk="low")
        def find_words(text: str) -> str:
            """Find words in a text. Use it for word lists.

            Args:
                text: {words}.
            """
            return ""
        ''',
    )
    assert run("build", cwd=project.root).code == 0
    source = (project.out / "python" / "tools.py").read_text()
    assert max(len(line) for line in source.splitlines()) <= 100
    comments = [line[7:] for line in source.splitlines() if line.startswith("    #: word")]
    assert len(comments) > 1 and " ".join(comments) == words + "."
