"""Names in annotations resolve statically across modules and packages."""

from __future__ import annotations

from conftest import Project

MODELS = '''
from pydantic import BaseModel

class Page(BaseModel):
    """A page."""
    size: int = 10
'''

HANDLER = '''
{imports}
from toolgen import tool

@tool
def lookup(page: {annotation}) -> str:
    """Look up.

    Args:
        page: Paging.
    """
    return ""
'''


def _build(project: Project, run, files: dict[str, str]) -> dict[str, object]:
    for relpath, text in files.items():
        project.write(relpath, text)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    return project.descriptor("lookup")["parameters"]


def _page_ref(params: dict[str, object]) -> None:
    assert params["properties"] == {"page": {"description": "Paging.", "$ref": "#/$defs/Page"}}
    assert params["$defs"] == {  # type: ignore[index]
        "Page": {
            "description": "A page.",
            "type": "object",
            "properties": {"size": {"type": "integer", "default": 10}},
        },
    }


def test_relative_import_from_a_sibling_module(project: Project, run) -> None:
    _page_ref(
        _build(
            project,
            run,
            {
                "src/app/__init__.py": "",
                "src/app/models.py": MODELS,
                "src/app/tools.py": HANDLER.format(
                    imports="from .models import Page", annotation="Page"
                ),
            },
        )
    )


def test_two_level_relative_import_and_module_alias(project: Project, run) -> None:
    _page_ref(
        _build(
            project,
            run,
            {
                "src/app/__init__.py": "",
                "src/app/shared/__init__.py": "",
                "src/app/shared/models.py": MODELS,
                "src/app/tools/__init__.py": "",
                "src/app/tools/search.py": HANDLER.format(
                    imports="from ..shared import models as m", annotation="m.Page"
                ),
            },
        )
    )


def test_reexport_through_package_init(project: Project, run) -> None:
    _page_ref(
        _build(
            project,
            run,
            {
                "src/app/__init__.py": "from .models import Page\n__all__ = ['Page']\n",
                "src/app/models.py": MODELS,
                "src/app/tools.py": HANDLER.format(
                    imports="from app import Page", annotation="Page"
                ),
            },
        )
    )


def test_import_module_as_alias(project: Project, run) -> None:
    _page_ref(
        _build(
            project,
            run,
            {
                "src/app/__init__.py": "",
                "src/app/models.py": MODELS,
                "src/app/tools.py": HANDLER.format(
                    imports="import app.models as am", annotation="am.Page"
                ),
            },
        )
    )


def test_type_checking_import_with_future_annotations(project: Project, run) -> None:
    imports = (
        "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from app.models import Page\n"
    )
    _page_ref(
        _build(
            project,
            run,
            {
                "src/app/__init__.py": "",
                "src/app/models.py": MODELS,
                "src/app/tools.py": HANDLER.format(imports=imports, annotation="Page"),
            },
        )
    )


def test_string_annotation(project: Project, run) -> None:
    _page_ref(
        _build(
            project,
            run,
            {
                "src/app/__init__.py": "",
                "src/app/models.py": MODELS,
                "src/app/tools.py": HANDLER.format(
                    imports="from .models import Page", annotation="'Page'"
                ),
            },
        )
    )


def test_models_outside_the_configured_sources_are_found(project: Project, run) -> None:
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src/app/tools"]\n')
    _page_ref(
        _build(
            project,
            run,
            {
                "src/app/__init__.py": "",
                "src/app/models.py": MODELS,
                "src/app/tools/__init__.py": "",
                "src/app/tools/search.py": HANDLER.format(
                    imports="from app.models import Page", annotation="Page"
                ),
            },
        )
    )


def test_marker_through_module_import_and_alias(project: Project, run) -> None:
    handler = HANDLER.format(imports="", annotation="int").replace(
        "from toolgen import tool\n\n@tool", "import toolgen as tg\n\n@tg.tool(risk='low')"
    )
    params = _build(project, run, {"src/tools.py": handler})
    assert params["properties"] == {"page": {"description": "Paging.", "type": "integer"}}


def test_a_local_function_named_tool_is_not_the_marker(project: Project, run) -> None:
    project.write(
        "src/tools.py",
        "def tool(f):\n    return f\n\n@tool\ndef f(x: int) -> int:\n"
        '    """Not a toolgen handler."""\n    return x\n',
    )
    result = run("build", cwd=project.root)
    assert result.code == 0
    assert "TG104 [warning] no @tool handlers found" in result.out
