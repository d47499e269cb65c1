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
            "additionalProperties": False,  # closed, as the root is
        },
    }


def _app(project: Project, run, tools: str, imports: str, annotation: str) -> None:
    """Build package `app` (models in app/models.py, the handler in `tools`) and check that
    the handler's `page` parameter resolved to the Page model."""
    files = {"src/app/__init__.py": "", "src/app/models.py": MODELS}
    files[tools] = HANDLER.format(imports=imports, annotation=annotation)
    _page_ref(_build(project, run, files))


def test_relative_import_from_a_sibling_module(project: Project, run) -> None:
    _app(project, run, "src/app/tools.py", "from .models import Page", "Page")


def test_two_level_relative_import_and_module_alias(project: Project, run) -> None:
    project.write("src/app/shared/__init__.py", "")
    project.write("src/app/shared/models.py", MODELS)
    project.write("src/app/tools/__init__.py", "")
    _app(project, run, "src/app/tools/search.py", "from ..shared import models as m", "m.Page")


def test_reexport_through_package_init(project: Project, run) -> None:
    project.write("src/app/lib/__init__.py", "from ..models import Page\n__all__ = ['Page']\n")
    _app(project, run, "src/app/tools.py", "from app.lib import Page", "Page")


def test_import_module_as_alias(project: Project, run) -> None:
    _app(project, run, "src/app/tools.py", "import app.models as am", "am.Page")


def test_type_checking_import_with_future_annotations(project: Project, run) -> None:
    imports = (
        "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from app.models import Page\n"
    )
    _app(project, run, "src/app/tools.py", imports, "Page")


def test_string_annotation(project: Project, run) -> None:
    _app(project, run, "src/app/tools.py", "from .models import Page", "'Page'")


def test_models_outside_the_configured_sources_are_found(project: Project, run) -> None:
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src/app/tools"]\nmin_level = 0\n')
    project.write("src/app/tools/__init__.py", "")
    _app(project, run, "src/app/tools/search.py", "from app.models import Page", "Page")


def test_same_class_name_in_two_modules_gets_two_defs(project: Project, run) -> None:
    project.write("src/app/__init__.py", "")
    project.write("src/app/a.py", MODELS)
    project.write("src/app/b.py", MODELS.replace('"""A page."""', '"""Another page."""'))
    handler = HANDLER.format(imports="from app import a, b", annotation="a.Page, other: b.Page")
    handler = handler.replace("page: Paging.", "page: Paging.\n        other: More paging.")
    project.write("src/app/tools.py", handler)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    params = project.descriptor("lookup")["parameters"]
    assert params["properties"]["page"]["$ref"] == "#/$defs/Page"
    assert params["properties"]["other"]["$ref"] == "#/$defs/app__b__Page"
    assert params["$defs"]["app__b__Page"]["description"] == "Another page."


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
    assert 'TG104 [warning] no tool found in src with markers = ["toolgen"]' in result.out


def test_star_import_from_a_known_outside_module(project: Project, run) -> None:
    project.write(
        "src/tools.py", HANDLER.format(imports="from typing import *", annotation="Optional[int]")
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    page = project.descriptor("lookup")["parameters"]["properties"]["page"]
    assert page == {"description": "Paging.", "anyOf": [{"type": "integer"}, {"type": "null"}]}


def test_a_released_module_is_parsed_again_when_used(project: Project) -> None:
    """The compiler frees each source's syntax tree after its handlers are compiled; a later
    use of the module parses it again and resolves the same names to the same places."""
    from toolgen.read.index import ModuleIndex

    project.write("src/pkg/__init__.py", "")
    project.write(
        "src/pkg/models.py",
        "from pydantic import BaseModel\nclass Page(BaseModel):\n    n: int = 1\n",
    )
    project.write("src/pkg/tools.py", "from .models import Page as P\n")
    index = ModuleIndex([project.root / "src"], str)
    tools = index.get("pkg.tools")
    assert tools is not None
    first = index.resolve(tools, "P")
    assert first is not None and first.module is not None
    index.release("pkg.models")
    again = index.resolve(tools, "P")
    assert again is not None and again.module is not None
    assert (again.path, again.kind) == (first.path, first.kind) == ("pkg.models.Page", "class")
    assert again.module is not first.module  # parsed anew: the old tree can be freed
