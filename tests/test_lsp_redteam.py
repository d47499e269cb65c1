"""Red-team tests of `toolgen lsp`: hostile buffers, URIs and workspaces, driven through the
real server (pytest-lsp) as in `tests/test_lsp.py`, or through `toolgen.lsp.live.Live` where
the protocol adds nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from tests.conftest import Project
from tests.test_lsp import HANDLER, codes, editor, open_file, save, until, watching

from toolgen.lsp.live import Live

TYPED = HANDLER.replace("query: str)", "query: str, n: int)")  # TG301: `n` is undescribed


def open_uri(client: LanguageClient, uri: str, text: str) -> None:
    """A buffer under any URI at all (not only a file's)."""
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
    )


@pytest.mark.asyncio
async def test_a_buffer_whose_path_holds_a_nul_costs_nothing(project: Project) -> None:
    """`file:///...%00...` names no file: the project is compiled as if it were not open."""
    shop = project.write("src/shop.py", HANDLER)
    async with editor(project.root) as client:
        open_uri(client, (project.root / "src").as_uri() + "/evil%00.py", TYPED)
        open_file(client, shop, TYPED)
        await until(lambda: codes(client, shop) == ["TG301"], "the project compiled")


def test_a_buffer_whose_path_holds_a_nul_is_not_a_crash_in_process(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    shop = project.write("src/shop.py", HANDLER)
    monkeypatch.chdir(project.root)
    live = Live(None, project.root)
    found = live.compile({Path(str(project.root) + "/src/a\0.py"): TYPED, shop: TYPED})
    assert [d.code for d in found.by_file[shop]] == ["TG301"]


@pytest.mark.asyncio
async def test_a_relative_file_uri_is_not_the_file_it_names_from_the_workspace(
    project: Project,
) -> None:
    """`file:src/shop.py` is no absolute path: it must not stand for the project's
    src/shop.py (the server's folder is the workspace)."""
    shop = project.write("src/shop.py", HANDLER)
    other = project.write("src/other.py", HANDLER.replace("def lookup", "def other"))
    async with editor(project.root) as client:
        open_uri(client, "file:src/shop.py", TYPED)
        open_file(client, other, TYPED.replace("def lookup", "def other"))
        await until(lambda: codes(client, other) == ["TG301"], "the buffer of other.py")
        assert codes(client, shop) == []


@pytest.mark.asyncio
async def test_a_config_replaced_on_disk_is_still_watched(project: Project) -> None:
    """`git checkout`, and editors that save by writing a new file, replace the config file:
    the watch of the old file ends, and later changes must still be seen."""
    shop = project.write("src/shop.py", HANDLER)
    config = project.root / "pyproject.toml"
    good = config.read_text()
    async with editor(project.root) as client:
        open_file(client, shop, TYPED)
        await until(lambda: codes(client, shop) == ["TG301"], "TG301")
        await until(lambda: watching(client), "the watch")
        config.unlink()
        new = config.with_name("pyproject.toml.new")
        new.write_text(good)
        new.replace(config)  # a new file where the old one was
        await until(lambda: codes(client, shop) == ["TG301"], "TG301 still")
        config.write_text(good + "unknown_key = 1\n")
        await until(lambda: codes(client, config) == ["TG002"], "TG002 on the new config file")
        config.write_text(good)
        await until(lambda: codes(client, config) == [], "the config fixed")


@pytest.mark.asyncio
async def test_a_config_broken_from_the_start_and_fixed_on_disk_is_seen(project: Project) -> None:
    """Nothing loaded yet, so no sources to watch: the config file is watched all the same."""
    shop = project.write("src/shop.py", TYPED)
    config = project.root / "pyproject.toml"
    good = config.read_text()
    config.write_text(good + "unknown_key = 1\n")
    async with editor(project.root) as client:
        await until(lambda: codes(client, config) == ["TG002"], "TG002")
        await until(lambda: watching(client), "the watch of the config file")
        config.write_text(good)
        await until(lambda: codes(client, shop) == ["TG301"], "the project compiled")
        assert codes(client, config) == []


@pytest.mark.xfail(
    strict=True,
    reason="a config naming a missing source does not load (TG003), so the server knows no "
    "sources to watch: only the config file is, and a folder made later is not seen until "
    "an editor event",
)
@pytest.mark.asyncio
async def test_sources_made_after_the_start_are_watched(project: Project) -> None:
    """The config names `src`, which is not there yet: once it is made (a `git checkout`),
    a handler written to it on disk is compiled without any editor event."""
    async with editor(project.root) as client:
        await until(lambda: watching(client), "the watch")
        shop = project.write("src/shop.py", TYPED)
        for _ in range(250):  # a few seconds, not `until`'s minute: this is known to fail
            if codes(client, shop) == ["TG301"]:
                break
            await asyncio.sleep(0.02)
        assert codes(client, shop) == ["TG301"]


@pytest.mark.asyncio
async def test_a_range_after_an_astral_character_counts_utf16(project: Project) -> None:
    shop = project.write("src/shop.py", HANDLER)
    typed = HANDLER.replace("def lookup(query: str)", 'def lookup(query: str = "😀😀", n: int = 1)')
    async with editor(project.root) as client:
        open_file(client, shop, typed)
        await until(lambda: codes(client, shop) == ["TG301"], "TG301")
        (found,) = client.diagnostics[shop.as_uri()]
        line = typed.splitlines()[4]
        start = len(line[: line.index(" n:") + 1].encode("utf-16-le")) // 2
        assert found.range == types.Range(types.Position(4, start), types.Position(4, start + 1))


@pytest.mark.asyncio
async def test_a_symlink_in_out_is_tg011_on_save_and_nothing_is_written_through_it(
    project: Project, tmp_path: Path
) -> None:
    shop = project.write("src/shop.py", HANDLER)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    project.out.mkdir()
    (project.out / "descriptors").symlink_to(elsewhere)
    async with editor(project.root) as client:
        open_file(client, shop)
        save(client, shop)
        config = project.root / "pyproject.toml"
        await until(lambda: "TG011" in codes(client, config), "TG011 at the config file")
        (found,) = client.diagnostics[config.as_uri()]
        assert found.range.start == types.Position(0, 0)
        assert "generated/descriptors" in found.message
        assert list(elsewhere.iterdir()) == []
        assert (project.out / "descriptors").is_symlink()
