"""`toolgen lsp` driven as an editor drives it: a real LSP client (pytest-lsp) starts the
server as a process of its own and talks to it over stdio."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from pytest_lsp.client import make_test_lsp_client
from tests.conftest import Project

HANDLER = '''\
from toolgen import tool


@tool(risk="low")
def lookup(query: str) -> str:
    """Look something up in the catalog. Use it for product questions.

    Args:
        query: The query.
    """
    raise NotImplementedError
'''

WAIT_S = float(
    os.environ.get("LSP_WAIT", 60)
)  # a compile is well under a second; a loaded CI machine is slow


@contextlib.asynccontextmanager
async def editor(root: Path, *args: str) -> AsyncIterator[LanguageClient]:
    """A client with `toolgen lsp ARGS` started for the workspace `root`."""
    client = make_test_lsp_client()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    await client.start_io(sys.executable, "-m", "toolgen", "lsp", *args, env=env, cwd=root)
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
            )
        )
        yield client
        await client.shutdown_session()
    except BaseException:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()  # a failed test does not wait for a server that goes on
        raise
    finally:
        await client.stop()


async def until(check: Callable[[], object], what: str) -> None:
    """Wait until `check()` is true (the server publishes when it is ready)."""
    deadline = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def watching(client: LanguageClient) -> bool:
    """Whether the server said it watches the files on disk."""
    return any(m.message.startswith("watching ") for m in client.log_messages)


def codes(client: LanguageClient, path: Path) -> list[str]:
    return [str(d.code) for d in client.diagnostics.get(path.as_uri(), [])]


def open_file(client: LanguageClient, path: Path, text: str | None = None) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=path.as_uri(),
                language_id="python",
                version=1,
                text=path.read_text() if text is None else text,
            )
        )
    )


def edit(client: LanguageClient, path: Path, text: str, version: int) -> None:
    """Replace the whole buffer (a full-text change, as a client may send)."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def save(client: LanguageClient, path: Path) -> None:
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri())
        )
    )


@pytest.fixture
def shop(project: Project) -> Path:
    return project.write("src/shop.py", HANDLER)


@pytest.mark.asyncio
async def test_an_undescribed_parameter_is_tg301_at_its_range_before_saving(
    project: Project, shop: Path
) -> None:
    typed = HANDLER.replace("query: str)", "query: str, limit: int)")
    async with editor(project.root) as client:
        open_file(client, shop)
        edit(client, shop, typed, 2)
        await until(lambda: "TG301" in codes(client, shop), "TG301")
        (found,) = client.diagnostics[shop.as_uri()]
        line = typed.splitlines()[4]
        start = line.index("limit")
        assert found.range == types.Range(
            types.Position(4, start), types.Position(4, start + len("limit"))
        )
        assert found.severity == types.DiagnosticSeverity.Error
        assert found.source == "toolgen"
        assert "limit" in found.message
        assert found.code_description is not None
        assert found.code_description.href.endswith("rules.md#tg301-error")
        page = Path(found.code_description.href.removeprefix("file://").split("#")[0])
        assert "## TG301 (error)" in page.read_text()
        assert shop.read_text() == HANDLER  # nothing was saved


@pytest.mark.asyncio
async def test_saving_writes_the_generated_files(project: Project, shop: Path) -> None:
    described = HANDLER.replace("query: str)", "query: str, limit: int)").replace(
        "query: The query.", "query: The query.\n        limit: How many at most."
    )
    async with editor(project.root) as client:
        open_file(client, shop)
        edit(client, shop, described, 2)
        shop.write_text(described)  # what the editor does, then tells the server
        save(client, shop)
        descriptor = project.out / "descriptors" / "lookup.json"
        await until(descriptor.exists, "the build on save")
        await until(
            lambda: "limit" in json.loads(descriptor.read_text())["parameters"]["properties"],
            "the new parameter",
        )
        assert codes(client, shop) == []


@pytest.mark.asyncio
async def test_a_syntax_error_mid_typing_is_one_diagnostic_and_the_server_goes_on(
    project: Project, shop: Path
) -> None:
    async with editor(project.root) as client:
        open_file(client, shop)
        broken = HANDLER.replace("def lookup(query: str)", "def lookup(query: str")
        edit(client, shop, broken, 2)
        await until(lambda: codes(client, shop) == ["TG101"], "TG101")
        edit(client, shop, HANDLER.replace("query: str)", "query: str, n: int)"), 3)
        await until(lambda: codes(client, shop) == ["TG301"], "TG301 after the fix")


@pytest.mark.asyncio
async def test_a_file_outside_the_sources_gets_none(project: Project, shop: Path) -> None:
    elsewhere = project.write("scripts/other.py", HANDLER.replace("query: str)", "q, n)"))
    async with editor(project.root) as client:
        open_file(client, elsewhere)
        open_file(client, shop, HANDLER.replace("query: str)", "query: str, n: int)"))
        await until(lambda: "TG301" in codes(client, shop), "the source's TG301")
        assert elsewhere.as_uri() not in client.diagnostics


@pytest.mark.asyncio
async def test_closing_a_buffer_compiles_the_file_on_disk_again(
    project: Project, shop: Path
) -> None:
    async with editor(project.root) as client:
        open_file(client, shop, HANDLER.replace("query: str)", "query: str, n: int)"))
        await until(lambda: "TG301" in codes(client, shop), "TG301 from the buffer")
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=shop.as_uri())
            )
        )
        await until(lambda: codes(client, shop) == [], "the file as saved")


@pytest.mark.asyncio
async def test_a_duplicate_name_links_its_twin(project: Project, shop: Path) -> None:
    twin = project.write(
        "src/twin.py", HANDLER.replace('@tool(risk="low")', '@tool(risk="low", name="lookup")')
    )
    twin.write_text(twin.read_text().replace("def lookup", "def other"))
    async with editor(project.root) as client:
        open_file(client, shop)
        await until(lambda: "TG102" in codes(client, shop), "TG102")
        (found,) = client.diagnostics[shop.as_uri()]
        assert found.related_information is not None
        (related,) = found.related_information
        assert related.location.uri == twin.as_uri()
        assert related.location.range.start == types.Position(4, 0)


@pytest.mark.asyncio
async def test_a_value_bound_in_another_module_links_its_binding(project: Project) -> None:
    models = project.write("src/models.py", 'import os\n\nRISK = os.environ["X"]\n')
    shop = project.write(
        "src/shop.py",
        HANDLER.replace('@tool(risk="low")', "@tool(risk=RISK)").replace(
            "from toolgen import tool", "from toolgen import tool\n\nfrom models import RISK"
        ),
    )
    async with editor(project.root) as client:
        open_file(client, shop)
        await until(lambda: "TG401" in codes(client, shop), "TG401")
        (found,) = [d for d in client.diagnostics[shop.as_uri()] if d.code == "TG401"]
        assert found.related_information is not None
        (related,) = found.related_information
        assert related.location.uri == models.as_uri()
        assert related.location.range.start == types.Position(2, 7)


@pytest.mark.asyncio
async def test_a_broken_config_is_a_diagnostic_on_it_and_the_server_goes_on(
    project: Project, shop: Path
) -> None:
    config = project.root / "pyproject.toml"
    good = config.read_text()
    async with editor(project.root) as client:
        open_file(client, shop, HANDLER.replace("query: str)", "query: str, n: int)"))
        await until(lambda: "TG301" in codes(client, shop), "TG301")
        await until(lambda: watching(client), "the watch of the config file")
        config.write_text(good + "unknown_key = 1\n")
        await until(lambda: codes(client, config) == ["TG002"], "TG002 on the config file")
        (found,) = client.diagnostics[config.as_uri()]
        assert found.range.start.line == good.count("\n")
        config.write_text(good)
        await until(lambda: codes(client, config) == [], "the config fixed")
        await until(lambda: "TG301" in codes(client, shop), "TG301 again")


@pytest.mark.asyncio
async def test_not_writing_on_save_says_the_generated_files_are_out_of_date(
    project: Project, shop: Path
) -> None:
    config = project.root / "pyproject.toml"
    config.write_text(config.read_text() + "\n[tool.toolgen.lsp]\nwrite_on_save = false\n")
    async with editor(project.root) as client:
        open_file(client, shop)
        save(client, shop)
        await until(lambda: "TG022" in codes(client, config), "TG022")
        assert not (project.out / "descriptors").exists()


@pytest.mark.asyncio
async def test_five_hundred_rapid_edits_answer_without_growing(
    project: Project, shop: Path
) -> None:
    """Edits as fast as typing, and edits each answered before the next (a compile each):
    the server's memory after 400 more is what it was after the first 100."""
    async with editor(project.root) as client:
        assert client._server is not None
        pid = client._server.pid
        open_file(client, shop)

        async def edits(first: int, count: int) -> None:
            for version in range(first, first + count):
                name = f"n{version}"  # a new name each time: a new diagnostic
                text = HANDLER.replace("query: str)", f"query: str, {name}: int)")
                edit(client, shop, text, version)
                if version % 4 == 0:  # every fourth is answered before the next is typed
                    await until(
                        lambda name=name: any(f"`{name}`" in d.message for d in _at(client, shop)),
                        f"edit {version}",
                    )
                else:
                    await asyncio.sleep(0.001)
            last = HANDLER.replace("query: str)", f"query: str, last{first}: int)")
            edit(client, shop, last, first + count)
            await until(
                lambda: any(f"last{first}" in d.message for d in _at(client, shop)),
                f"the answer to edit {first + count}",
            )

        await edits(2, 100)  # what a first round of edits allocates for good
        before = _rss_kib(pid)
        await edits(200, 400)
        after = _rss_kib(pid)
        assert after - before < 10 * 1024, (before, after)


def _at(client: LanguageClient, path: Path) -> list[types.Diagnostic]:
    return list(client.diagnostics.get(path.as_uri(), []))


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_without_the_extra_it_says_how_to_install_it(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['pygls'] = None\n"
        "from toolgen.entry import main\n"
        "raise SystemExit(main(['lsp']))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 2
    assert "pip install 'toolgen[lsp]'" in done.stderr


@pytest.mark.asyncio
async def test_hostile_buffers_are_diagnostics_not_crashes(project: Project, shop: Path) -> None:
    config = project.root / "pyproject.toml"
    config.write_text(
        config.read_text().replace("min_level = 0", "min_level = 0\nmax_source_bytes = 4000")
    )
    async with editor(project.root) as client:
        open_file(client, shop)
        client.text_document_did_open(  # a buffer of no file at all
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri="untitled:Untitled-1", language_id="python", version=1, text="def ("
                )
            )
        )
        edit(client, shop, HANDLER + "x = '\ud800'\n", 2)  # a lone surrogate: no UTF-8 file
        await until(lambda: codes(client, shop) == ["TG005"], "TG005 for the surrogate")
        edit(client, shop, HANDLER + "#" * 5000 + "\n", 3)  # over max_source_bytes
        await until(
            lambda: codes(client, shop) == ["TG005"] and "cap" in _at(client, shop)[0].message,
            "TG005 for the size",
        )
        edit(client, shop, HANDLER.replace("query: str)", "query: str, n: int)"), 4)
        await until(lambda: codes(client, shop) == ["TG301"], "the server still compiling")
        assert "untitled:Untitled-1" not in client.diagnostics


@pytest.mark.asyncio
async def test_saving_with_a_broken_config_says_so_on_it(project: Project, shop: Path) -> None:
    config = project.root / "pyproject.toml"
    async with editor(project.root) as client:
        open_file(client, shop)
        config.write_text(config.read_text().replace('out = "generated"', "out = 3"))
        save(client, shop)
        await until(lambda: codes(client, config) == ["TG002"], "TG002 on the config file")
        assert not project.out.exists()


@pytest.mark.asyncio
async def test_no_config_found_is_said_once(tmp_path: Path) -> None:
    handler = tmp_path / "shop.py"
    handler.write_text(HANDLER)
    async with editor(tmp_path) as client:
        open_file(client, handler)
        await until(lambda: client.messages, "a message")
        edit(client, handler, HANDLER.replace("query: str)", "query: str, n: int)"), 2)
        await asyncio.sleep(0.5)
        (said,) = client.messages
        assert said.type == types.MessageType.Warning
        assert "TG001" in said.message
        assert str(tmp_path) in said.message
        assert client.diagnostics == {}
