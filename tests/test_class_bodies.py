"""Class bodies shared by the schema builders of one index (`toolgen.analyze.bodies`): a
tool gets the body a builder of its own would build, never one another tool changed, and never
one built from a module since read again; taking a body marks what building it would use."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import Project
from toolgen.analyze import bodies
from toolgen.analyze.types import SchemaBuilder
from toolgen.config import load_config
from toolgen.incremental.units import UnitCache
from toolgen.pipeline import generate
from toolgen.read.index import Module, ModuleIndex

UNITS = "Size = int\n"

MODELS = '''
from pydantic import BaseModel

from .units import Size


class Page(BaseModel):
    """A page of results."""

    size: Size = 10
'''

HANDLER = '''
from toolgen import tool
from .models import Page


@tool
def {name}(page: Page) -> int:
    """Look things up.

    Args:
        page: Which page.
    """
    return 0
'''


@pytest.fixture
def shop(project: Project) -> Project:
    project.write("src/shop/__init__.py", "")
    project.write("src/shop/units.py", UNITS)
    project.write("src/shop/models.py", MODELS)
    project.write("src/shop/a.py", HANDLER.format(name="first"))
    project.write("src/shop/b.py", HANDLER.format(name="second"))
    return project


def _sizes(project: Project) -> dict[str, object]:
    """Each tool's schema of `Page.size`, from a build that uses the project's unit cache."""
    config = load_config(None, cwd=project.root)
    result = generate(config, UnitCache(project.root / ".toolgen_cache", "test-key"))
    return {d.name: d.parameters["$defs"]["Page"]["properties"]["size"] for d in result.descriptors}


def test_a_shared_body_records_the_modules_it_stands_on(shop: Project) -> None:
    """Both handler files take `Page`, whose body is built once; editing the module of the
    alias it uses must recompile both files, so the file that took the shared body depends on
    that module too."""
    first = _sizes(shop)
    assert first == {name: {"type": "integer", "default": 10} for name in ("first", "second")}
    shop.write("src/shop/units.py", "Size = str\n")
    assert _sizes(shop) == {name: {"type": "string", "default": 10} for name in ("first", "second")}


def _built(
    index: ModuleIndex, annotation: str, where: str = "shop.a"
) -> tuple[SchemaBuilder, dict[str, object]]:
    """A new builder, and the schema it made of `annotation` as written in module `where`."""
    module = index.get(where)
    assert isinstance(module, Module)
    builder = SchemaBuilder(index)
    return builder, builder.schema(ast.parse(annotation, mode="eval").body, module)


def _page(index: ModuleIndex) -> tuple[SchemaBuilder, dict[str, object]]:
    """A new builder's schema of `Page` as named in `shop.a`, and the builder."""
    builder, schema = _built(index, "Page")
    assert schema == {"$ref": "#/$defs/Page"}
    return builder, builder.defs["Page"]


def _index(project: Project) -> ModuleIndex:
    return ModuleIndex([project.root / "src"], str)


def test_each_builder_gets_its_own_copy(shop: Project) -> None:
    index = _index(shop)
    _, first = _page(index)
    expected = {
        "description": "A page of results.",
        "properties": {"size": {"default": 10, "type": "integer"}},
        "type": "object",
    }
    assert first == expected
    first["properties"]["size"]["type"] = "changed"  # type: ignore[index]
    first["description"] = "changed"
    _, second = _page(index)
    assert second == expected
    second["description"] = "changed"  # the second builder got the kept body: not that either
    _, third = _page(index)
    assert third == expected


def _count_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kind of each class body built from here on, listed as it is built."""
    built: list[str] = []
    original = SchemaBuilder._build_body

    def counting(self: SchemaBuilder, symbol: object, kind: str) -> object:
        built.append(kind)
        return original(self, symbol, kind)  # type: ignore[arg-type]

    monkeypatch.setattr(SchemaBuilder, "_build_body", counting)
    return built


def test_a_body_is_built_once_per_index(shop: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    built = _count_builds(monkeypatch)
    index = _index(shop)
    _page(index)
    _page(index)
    assert built == ["model"]
    _page(_index(shop))  # another index shares nothing with this one
    assert built == ["model", "model"]


def test_a_body_built_inside_an_alias_is_shared(
    shop: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _count_builds(monkeypatch)
    shop.write("src/shop/a.py", "from .models import Page\nPages = list[Page]\n")
    index = _index(shop)
    builder, pages = _built(index, "Pages")
    assert pages == {"type": "array", "items": {"$ref": "#/$defs/Page"}}
    _, page = _page(index)
    assert page == builder.defs["Page"]
    assert built == ["model"]


def test_a_body_built_from_a_module_read_again_since_is_built_again(shop: Project) -> None:
    index = _index(shop)
    _, first = _page(index)
    assert first["properties"] == {"size": {"default": 10, "type": "integer"}}
    (shop.root / "src/shop/units.py").write_text("Size = str\n")
    index.release("shop.units")  # the class's own module is kept: the same class node
    _, again = _page(index)
    assert again["properties"] == {"size": {"default": 10, "type": "string"}}


def test_a_body_with_a_reference_to_a_class_is_not_shared(project: Project) -> None:
    """`Outer`'s body refers to `Inner` by `$ref`, which names a `$defs` entry of one builder."""
    project.write("src/shop/__init__.py", "")
    project.write(
        "src/shop/a.py",
        "from pydantic import BaseModel\n"
        "class Inner(BaseModel):\n    n: int\n"
        "class Page(BaseModel):\n    inner: Inner\n",
    )
    index = _index(project)
    _page(index)
    shared = bodies.for_index(index)
    kept = {key[1] for key in shared._bodies}
    assert kept == {"shop.a.Inner"}
    builder, page = _page(index)
    assert page["properties"] == {"inner": {"$ref": "#/$defs/Inner"}}
    assert builder.defs["Inner"]["properties"] == {"n": {"type": "integer"}}


def test_the_oldest_body_goes_first(shop: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bodies, "MAX_BODIES", 1)
    shop.write("src/shop/a.py", "from .models import Page\nfrom .units import Size\n")
    shop.write(
        "src/shop/more.py",
        "from pydantic import BaseModel\nclass Other(BaseModel):\n    n: int\n",
    )
    index = _index(shop)
    _page(index)
    _built(index, "Other", where="shop.more")
    assert [key[1] for key in bodies.for_index(index)._bodies] == ["shop.more.Other"]


def test_bodies_go_with_their_index(tmp_path: Path) -> None:
    index = ModuleIndex([tmp_path], str)
    shared = bodies.for_index(index)
    assert bodies.for_index(index) is shared
    count = len(bodies._BY_INDEX)
    del index, shared
    assert len(bodies._BY_INDEX) == count - 1
