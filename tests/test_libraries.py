"""Names from installed packages: read statically from the library folders (`library_paths`),
after the project and toolgen's table of types, never imported."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import Project, tool_source
from toolgen.config import installed_packages
from toolgen.schema_ops import drop_titles

CONFIG = """
[tool.toolgen]
sources = ["src"]
out = "generated"
min_level = 0
{extra}
"""

#: An installed package of our own: models, a TypedDict, an enum, aliases and re-exports.
LIBRARY = {
    "extlib/__init__.py": """
        from extlib.models import *
        from .kinds import Color as Colour
    """,
    "extlib/models.py": '''
        from dataclasses import dataclass
        from typing import Literal, TypeAlias, Union

        from pydantic import BaseModel, ConfigDict, Field
        from pydantic.alias_generators import to_camel
        from typing_extensions import TypedDict

        from .kinds import Color

        __all__ = ["Point", "Box", "Options", "Size", "Key", "Pair"]

        Size = Literal["s", "m"]
        Key: TypeAlias = Union[str, int]


        class Base(BaseModel):
            model_config = ConfigDict(alias_generator=to_camel)


        class Point(Base):
            """A point."""

            x_pos: int
            color: Color = Color.RED


        class Box(BaseModel):
            corner: Point
            size: Size = Field("s", description="How big.")


        class Options(TypedDict, total=False):
            depth: int


        @dataclass
        class Pair:
            left: int
            right: int = 0
    ''',
    "extlib/kinds.py": """
        import enum

        class Color(str, enum.Enum):
            RED = "red"
            BLUE = "blue"
    """,
}


def _project(tmp_path: Path, extra: str = 'library_paths = ["../lib"]') -> Project:
    project = Project(tmp_path / "proj")
    project.write("pyproject.toml", CONFIG.format(extra=extra))
    lib = Project(tmp_path / "lib")
    for relpath, text in LIBRARY.items():
        lib.write(relpath, text)
    return project


def _build(project: Project, run, params: str, imports: str, code: int = 0):
    project.write("src/tools.py", tool_source(params=params, imports=imports))
    result = run("build", cwd=project.root)
    assert result.code == code, result.out + result.err
    return result


def test_models_typeddicts_enums_dataclasses_and_aliases_from_a_library(tmp_path, run) -> None:
    project = _project(tmp_path)
    imports = "from extlib import Box, Options, Colour, Size, Key, Pair"
    params = "box: Box, opts: Options, color: Colour, size: Size, key: Key, pair: Pair"
    _build(project, run, params, imports)
    parameters = project.descriptor("lookup")["parameters"]
    props = {
        k: {n: v for n, v in p.items() if n != "description"}
        for k, p in parameters["properties"].items()
    }
    assert props == {
        "box": {"$ref": "#/$defs/Box"},
        "opts": {"$ref": "#/$defs/Options"},
        "color": {"$ref": "#/$defs/Color"},
        "size": {"enum": ["s", "m"], "type": "string"},
        "key": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "pair": {"$ref": "#/$defs/Pair"},
    }
    assert parameters["$defs"] == {
        "Box": {
            "type": "object",
            "properties": {
                "corner": {"$ref": "#/$defs/Point"},
                "size": {
                    "description": "How big.",
                    "enum": ["s", "m"],
                    "type": "string",
                    "default": "s",
                },
            },
            "required": ["corner"],
            "additionalProperties": False,  # every model among the parameters is closed
        },
        "Point": {  # the library's base model's alias generator applies
            "description": "A point.",
            "type": "object",
            "properties": {
                "xPos": {"type": "integer"},
                "color": {"$ref": "#/$defs/Color", "default": "red"},
            },
            "required": ["xPos"],
            "additionalProperties": False,
        },
        "Color": {"enum": ["red", "blue"], "type": "string"},
        "Options": {
            "type": "object",
            "properties": {"depth": {"type": "integer"}},
            "additionalProperties": False,
        },
        "Pair": {
            "type": "object",
            "properties": {"left": {"type": "integer"}, "right": {"type": "integer", "default": 0}},
            "required": ["left"],
            "additionalProperties": False,
        },
    }


def test_the_project_comes_first_then_the_table_then_libraries(tmp_path, run) -> None:
    project = _project(tmp_path)
    # a project module of the library's name wins; a library `typing_extensions` that cannot
    # even be parsed is never read (toolgen's table knows its names)
    project.write("src/extlib/__init__.py", "Size = int\n")
    Project(tmp_path / "lib").write("typing_extensions.py", "this is not Python\n")
    _build(
        project,
        run,
        "size: Size, kind: Literal['a']",
        "from extlib import Size\nfrom typing_extensions import Literal",
    )
    props = project.descriptor("lookup")["parameters"]["properties"]
    assert props["size"]["type"] == "integer"
    assert props["kind"]["const"] == "a"


def test_a_module_found_nowhere_is_a_located_tg201_that_says_where_it_looked(tmp_path, run) -> None:
    project = _project(tmp_path)
    result = _build(project, run, "key: FieldT", "from nolib.typing import FieldT", code=1)
    lib = (tmp_path / "lib").resolve()
    assert (
        "src/tools.py:5:17: TG201 [error] cannot resolve `FieldT`: nolib.typing.FieldT is outside "
        "the project, and module nolib.typing is found neither there nor in the library folders "
        f"(looked in: src, ., {lib})"
    ) in result.out


def test_a_name_the_library_module_lacks(tmp_path, run) -> None:
    project = _project(tmp_path)
    result = _build(project, run, "x: Missing", "from extlib.kinds import Missing", code=1)
    shown = (tmp_path / "lib" / "extlib" / "kinds.py").resolve()
    assert (
        "src/tools.py:5:15: TG201 [error] cannot resolve `Missing`: extlib.kinds.Missing is not "
        f"defined in the installed module extlib.kinds ({shown})"
    ) in result.out


def test_a_broken_library_file_is_told_at_the_annotation_not_on_its_own(tmp_path, run) -> None:
    project = _project(tmp_path)
    Project(tmp_path / "lib").write("extlib/kinds.py", "class Color(:\n")
    result = _build(project, run, "c: Colour", "from extlib import Colour", code=1)
    shown = (tmp_path / "lib" / "extlib" / "kinds.py").resolve()
    lines = [line for line in result.out.splitlines() if "TG1" in line or "TG2" in line]
    assert lines == [
        "src/tools.py:5:15: TG201 [error] cannot resolve `Colour`: extlib.Colour leads to a "
        f"library file toolgen cannot read: {shown}:1:13: cannot parse: invalid syntax"
    ]


def test_a_library_type_toolgen_cannot_express_is_located_at_the_users_annotation(
    tmp_path, run
) -> None:
    project = _project(tmp_path)
    Project(tmp_path / "lib").write(
        "oddlib.py",
        """
        from pydantic import BaseModel

        class Odd(BaseModel):
            when: frozenset[complex]
        """,
    )
    result = _build(project, run, "odd: Odd", "from oddlib import Odd", code=1)
    shown = (tmp_path / "lib" / "oddlib.py").resolve()
    assert (
        "src/tools.py:5:17: TG202 [error] `complex` (builtins.complex) is not a supported type "
        f"(in the installed module oddlib, {shown}:4:21)"
    ) in result.out


def test_library_paths_empty_reads_no_library(tmp_path, run) -> None:
    project = _project(tmp_path, "library_paths = []")
    result = _build(project, run, "box: Box", "from extlib import Box", code=1)
    assert (
        "TG201 [error] cannot resolve `Box`: extlib.Box is outside the project, and no library "
        "folder is read (`library_paths = []`)"
    ) in result.out


def test_library_paths_is_checked(tmp_path, run) -> None:
    project = _project(tmp_path, 'library_paths = "lib"')
    result = run("build", cwd=project.root)
    assert result.code == 2
    assert (
        "pyproject.toml:5:1: TG002 [error] [tool.toolgen] library_paths: must be a list of strings"
        in result.out
    )
    project.write("pyproject.toml", CONFIG.format(extra='library_paths = ["nowhere"]'))
    result = run("build", cwd=project.root)
    assert result.code == 2
    assert "TG002 [error] [tool.toolgen] library_paths: nowhere is not a folder" in result.out


def test_a_changed_library_file_is_read_again_from_the_cache(tmp_path, run) -> None:
    project = _project(tmp_path)
    _build(project, run, "pair: Pair", "from extlib import Pair")
    assert "$defs" in project.descriptor("lookup")["parameters"]
    lib = Project(tmp_path / "lib")
    lib.write(
        "extlib/models.py",
        LIBRARY["extlib/models.py"].replace("right: int = 0", "right: str = 'r'"),
    )
    assert run("build", cwd=project.root).code == 0
    pair = project.descriptor("lookup")["parameters"]["$defs"]["Pair"]
    assert pair["properties"]["right"] == {"type": "string", "default": "r"}


def test_the_default_library_folders_are_the_running_pythons_without_the_standard_library() -> None:
    found = installed_packages()
    stdlib = Path(sys.modules["os"].__file__ or "").resolve().parent
    assert stdlib not in found
    assert any(p.name in ("site-packages", "dist-packages") for p in found)
    assert all(p.is_dir() for p in found)


def test_a_type_of_an_installed_package_by_default(project: Project, run) -> None:
    # mcp is one of the test dependencies: its ImageContent is a pydantic model in its source
    project.write(
        "src/tools.py",
        tool_source(imports="from mcp.types import ImageContent", returns="ImageContent"),
    )
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    from mcp.types import ImageContent  # the oracle: what pydantic makes of it at run time

    expected = drop_titles(ImageContent.model_json_schema())
    returns = project.descriptor("lookup")["returns"]["schema"]
    assert returns["$defs"].pop("ImageContent") == {
        k: v for k, v in expected.items() if k != "$defs"
    }
    assert returns == {"$ref": "#/$defs/ImageContent", "$defs": expected["$defs"]}


def test_a_library_that_imports_a_module_found_nowhere_says_which(tmp_path, run) -> None:
    project = _project(tmp_path)
    Project(tmp_path / "lib").write("wrapper/__init__.py", "from missingdep.core import Thing\n")
    result = _build(project, run, "thing: Thing", "from wrapper import Thing", code=1)
    assert (
        "TG201 [error] cannot resolve `Thing`: wrapper.Thing is outside the project (through an "
        "installed package, missingdep.core.Thing), and module missingdep.core is found neither "
        "there nor in the library folders"
    ) in result.out


def test_a_standard_library_name_the_table_does_not_know_is_not_looked_for(tmp_path, run) -> None:
    project = _project(tmp_path)
    result = _build(project, run, "p: PathLike", "from os import PathLike", code=1)
    assert (
        "TG201 [error] cannot resolve `PathLike`: os.PathLike is outside the project and not a "
        "type toolgen knows"
    ) in result.out


def test_field_and_annotated_re_exported_by_a_library_are_pydantics(tmp_path, run) -> None:
    """`from sdk.types import Annotated, Field`, where the installed package re-exports
    typing's and pydantic's: the field is described and constrained as pydantic's is."""
    project = _project(tmp_path)
    Project(tmp_path / "lib").write(
        "sdk/types.py",
        """
        from typing import Annotated
        from pydantic import Field
        """,
    )
    params = 'folder: Annotated[str, Field(description="The folder.", min_length=2)]'
    _build(project, run, params, "from sdk.types import Annotated, Field")
    prop = project.descriptor("lookup")["parameters"]["properties"]["folder"]
    assert prop == {"type": "string", "description": "The folder.", "minLength": 2}
