"""`toolgen.lsp.live` in process: what the language server compiles, without the protocol."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from tests.conftest import Project
from tests.test_lsp import HANDLER

from toolgen.lsp.live import Live
from toolgen.lsp.ranges import mentioned


@pytest.fixture
def live(project: Project, monkeypatch: pytest.MonkeyPatch) -> Live:
    monkeypatch.chdir(project.root)
    return Live(None, project.root)


def _typed(name: str) -> str:
    return HANDLER.replace("query: str)", f"query: str, {name}: int)")


def test_a_buffer_is_compiled_instead_of_its_file(project: Project, live: Live) -> None:
    shop = project.write("src/shop.py", HANDLER)
    assert live.compile({}).by_file == {}
    found = live.compile({shop: _typed("limit")})
    (diagnostic,) = found.by_file[shop]
    assert (diagnostic.code, diagnostic.location) == ("TG301", diagnostic.location)
    assert "`limit`" in diagnostic.message
    assert shop.read_text() == HANDLER
    assert live.compile({}).by_file == {}  # the buffer closed: the file as it is on disk


def test_a_module_imported_by_a_handler_is_read_from_its_buffer(
    project: Project, live: Live
) -> None:
    models = project.write("src/models.py", 'RISK = "low"\n')
    shop = project.write(
        "src/shop.py",
        HANDLER.replace('@tool(risk="low")', "@tool(risk=RISK)").replace(
            "from toolgen import tool", "from toolgen import tool\n\nfrom models import RISK"
        ),
    )
    assert live.compile({}).by_file == {}
    found = live.compile({models: "import os\n\nRISK = os.environ['R']\n"})
    assert {d.code for d in found.by_file[shop]} == {"TG401", "TG406"}
    assert live.compile({}).by_file == {}


def test_compiling_again_and_again_keeps_no_more_memory(project: Project, live: Live) -> None:
    """What one compile read and evaluated is let go by the next: the registration
    interpreter's table (weak keys) once kept every compile's index, with its parsed
    modules, alive. Counted by kind, not bytes: interned strings and caches filled once
    grow the bytes too."""
    shop = project.write("src/shop.py", HANDLER)
    for n in range(20):
        live.compile({shop: _typed(f"warm{n}")})
    before = _alive()
    for n in range(200):
        live.compile({shop: _typed(f"n{n}")})
    after = _alive()
    assert after["ModuleIndex"] <= 1
    assert after["Module"] <= max(before["Module"], 2)
    assert after["ast.FunctionDef"] <= max(before["ast.FunctionDef"], 2)


def _alive() -> dict[str, int]:
    import ast

    from toolgen.read.index import Module, ModuleIndex

    gc.collect()
    found = dict.fromkeys(("ModuleIndex", "Module", "ast.FunctionDef"), 0)
    for thing in gc.get_objects():
        if isinstance(thing, ModuleIndex):
            found["ModuleIndex"] += 1
        elif isinstance(thing, Module):
            found["Module"] += 1
        elif isinstance(thing, ast.FunctionDef):
            found["ast.FunctionDef"] += 1
    return found


def test_the_cache_folder_is_read_never_written(project: Project, live: Live) -> None:
    shop = project.write("src/shop.py", HANDLER)
    live.compile({shop: _typed("unsaved")})
    cache = project.root / ".toolgen_cache"
    kept = [p for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
    assert not any(b"unsaved" in p.read_bytes() for p in kept)


def test_a_character_its_coding_cannot_hold_is_tg005_at_it(project: Project, live: Live) -> None:
    shop = project.write("src/shop.py", "# -*- coding: latin-1 -*-\n" + HANDLER)
    text = shop.read_text().replace("The query.", "The query in \u20ac.")
    found = live.compile({shop: text})
    (diagnostic,) = found.by_file[shop]
    assert diagnostic.code == "TG005"
    assert "iso-8859-1 (its coding comment)" in diagnostic.message  # latin-1, as Python names it
    assert "U+20AC" in diagnostic.message
    assert diagnostic.location is not None
    line = text.splitlines()[diagnostic.location.line - 1]
    assert line[diagnostic.location.col - 1] == "\u20ac"


def test_a_message_names_related_places_only_in_the_project(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.py").write_text("x = 1\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("s\n")
    (project / "src" / "link.py").symlink_to(outside)
    message = (
        f"see src/a.py:1:1, {outside}:1:1, ../secret.txt:1:1, src/link.py:1:1 and src/none.py:2:2"
    )
    assert mentioned(message, project, project) == [(project / "src" / "a.py", 1, 1)]
