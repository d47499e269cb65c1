"""`toolgen lsp` driven as an editor drives it: a real LSP client (pytest-lsp) starts the
server as a process of its own and talks to it over stdio."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from pytest_lsp.client import make_test_lsp_client
from tests.conftest import REPO, Project
from tests.test_registrations import catalog_project

from toolgen.analyze.docstrings import PLACEHOLDER
from toolgen.lsp.actions import FIX_ALL, text_edits
from toolgen.stats import tool_sizes

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
async def editor(
    root: Path,
    *args: str,
    capabilities: types.ClientCapabilities | None = None,
    answers: list[types.InitializeResult] | None = None,
) -> AsyncIterator[LanguageClient]:
    """A client with `toolgen lsp ARGS` started for the workspace `root` (what the server
    answered to `initialize` added to `answers`)."""
    client = make_test_lsp_client()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    await client.start_io(sys.executable, "-m", "toolgen", "lsp", *args, env=env, cwd=root)
    try:
        answer = await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities or types.ClientCapabilities(),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
            )
        )
        if answers is not None:
            answers.append(answer)
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


# -- code actions ---------------------------------------------------------------------------
def applied(text: str, edits: list[types.TextEdit]) -> str:
    """`text` with `edits` made as a client makes them: every range of the text as it was,
    in 0-based lines and UTF-16 columns."""
    starts = [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]

    def offset(at: types.Position) -> int:
        start = starts[at.line]
        units = 0
        for index, char in enumerate(text[start:]):
            if units >= at.character or char in "\r\n":
                return start + index
            units += 2 if ord(char) > 0xFFFF else 1
        return len(text)

    spans = sorted((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits)
    out, at = [], 0
    for start, end, new in spans:
        assert start >= at, "overlapping edits"
        out += [text[at:start], new]
        at = end
    return "".join(out) + text[at:]


def only_edits(action: types.CodeAction, path: Path) -> list[types.TextEdit]:
    """The edits of `action`, all of them of `path` (a client without `documentChanges`)."""
    assert action.edit is not None and action.edit.changes is not None
    assert list(action.edit.changes) == [path.as_uri()]
    return list(action.edit.changes[path.as_uri()])


async def actions_at(
    client: LanguageClient,
    path: Path,
    where: types.Range,
    only: list[str] | None = None,
    trigger: types.CodeActionTriggerKind = types.CodeActionTriggerKind.Invoked,
) -> list[types.CodeAction]:
    """The code actions for `where`, with the diagnostics the client shows there."""
    shown = [
        d
        for d in _at(client, path)
        if d.range.start.line <= where.end.line and d.range.end.line >= where.start.line
    ]
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=where,
            context=types.CodeActionContext(diagnostics=shown, only=only, trigger_kind=trigger),
        )
    )
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


def quick(actions: list[types.CodeAction]) -> list[types.CodeAction]:
    return [a for a in actions if a.kind == types.CodeActionKind.QuickFix]


def placeholder_said(client: LanguageClient, path: Path) -> bool:
    return [(str(d.code), "replace the placeholder" in d.message) for d in _at(client, path)] == [
        ("TG301", True)
    ]


@pytest.mark.asyncio
async def test_the_server_says_it_answers_code_actions_of_its_kinds_and_hovers(
    project: Project,
) -> None:
    answers: list[types.InitializeResult] = []
    async with editor(project.root, answers=answers):
        pass
    (answer,) = answers
    offered = answer.capabilities.code_action_provider
    assert isinstance(offered, types.CodeActionOptions)
    assert list(offered.code_action_kinds or []) == ["quickfix", "source.fixAll.toolgen"]
    assert answer.capabilities.hover_provider


@pytest.mark.asyncio
async def test_a_quick_fix_adds_the_entry_toolgen_fix_adds(
    project: Project, shop: Path, run: Callable[..., Any]
) -> None:
    typed = HANDLER.replace("query: str)", "query: str, limit: int)")
    async with editor(project.root) as client:
        open_file(client, shop)
        edit(client, shop, typed, 2)
        await until(lambda: codes(client, shop) == ["TG301"], "TG301")
        (found,) = _at(client, shop)
        offered = await actions_at(client, shop, found.range)
        # asked for by the user (no kind said): the file's fix is offered too
        assert [a.kind for a in offered] == [types.CodeActionKind.QuickFix, FIX_ALL]
        action = offered[0]
        assert action.title == "Fix the docstring of `lookup`: add `limit`"
        assert action.kind == types.CodeActionKind.QuickFix
        assert list(action.diagnostics or []) == [found]
        # one line inserted, after the entry of `query`: nothing else is touched
        (inserted,) = only_edits(action, shop)
        assert inserted.range == types.Range(types.Position(9, 0), types.Position(9, 0))
        assert inserted.new_text == f"        limit: {PLACEHOLDER}\n"
        fixed = applied(typed, [inserted])
        edit(client, shop, fixed, 3)
        # the placeholder is no description: the compiler says so, where the parameter is
        await until(lambda: placeholder_said(client, shop), "TG301 about the placeholder")
        assert _at(client, shop)[0].range == found.range
        assert shop.read_text() == HANDLER  # nothing was saved
    shop.write_text(typed)
    run("fix", cwd=project.root)
    assert shop.read_text() == fixed  # what the command writes, to the byte


@pytest.mark.asyncio
async def test_a_quick_fix_removes_a_stale_entry(project: Project, shop: Path) -> None:
    stale = HANDLER.replace("query: The query.", "query: The query.\n        limit: How many.")
    async with editor(project.root) as client:
        open_file(client, shop, stale)
        await until(lambda: codes(client, shop) == ["TG302"], "TG302")
        (found,) = _at(client, shop)
        (action,) = quick(await actions_at(client, shop, found.range))
        assert action.title == "Fix the docstring of `lookup`: remove `limit`"
        assert list(action.diagnostics or []) == [found]
        (removed,) = only_edits(action, shop)  # its line, and nothing else
        assert removed == types.TextEdit(
            types.Range(types.Position(9, 0), types.Position(10, 0)), new_text=""
        )
        fixed = applied(stale, [removed])
        assert fixed == HANDLER
        edit(client, shop, fixed, 2)
        await until(lambda: codes(client, shop) == [], "no diagnostic")


@pytest.mark.asyncio
async def test_a_quick_fix_reaches_a_function_another_file_registers(project: Project) -> None:
    config = project.root / "pyproject.toml"
    config.write_text(config.read_text() + 'markers = ["fastmcp"]\n')
    project.write("src/app/__init__.py", "")
    handlers = project.write(
        "src/app/handlers.py",
        HANDLER.replace("from toolgen import tool\n", "")
        .replace('@tool(risk="low")\n', "")
        .replace("query: str)", "query: str, limit: int)"),
    )
    project.write(
        "src/app/server.py",
        "from fastmcp import FastMCP\n\nfrom app.handlers import lookup\n\n"
        'mcp = FastMCP("shop")\nmcp.tool()(lookup)\n',
    )
    async with editor(project.root) as client:
        open_file(client, handlers)
        await until(lambda: codes(client, handlers) == ["TG301"], "TG301")
        (found,) = _at(client, handlers)
        (action,) = quick(await actions_at(client, handlers, found.range))
        assert action.title == "Fix the docstring of `lookup`: add `limit`"
        (inserted,) = only_edits(action, handlers)
        assert inserted.new_text == f"        limit: {PLACEHOLDER}\n"


def test_the_edits_make_the_new_text_from_the_old() -> None:
    """`text_edits` on texts of every kind of line break and of characters beyond UTF-16's
    first plane, each made by a few random edits of the other."""
    pieces = ["a", "b", " ", "\n", "\r\n", "\r", "é", "😀"]
    chosen = random.Random(29)
    for _ in range(3000):
        old = "".join(chosen.choice(pieces) for _ in range(chosen.randint(0, 24)))
        new = list(old)
        for _ in range(chosen.randint(0, 4)):
            at = chosen.randint(0, len(new))
            if chosen.random() < 0.5 or not new:
                new.insert(at, chosen.choice(pieces))
            else:
                del new[min(at, len(new) - 1)]
        made = "".join(new)
        assert applied(old, text_edits(old, made)) == made, (old, made)


TWO = '''\
from toolgen import tool


@tool(risk="low")
def lookup(query: str, limit: int) -> str:
    """Look something up in the catalog. Use it for product questions.

    Args:
        query: The query.
    """
    raise NotImplementedError


@tool(risk="low")
def fetch(order_id: int, verbose: bool = False) -> str:
    """Fetch one order by its id. Use it when the user names an order.

    Args:
        verbose: Whether to say more.
        order_id: The order's id.
        gone: Not a parameter any more.
    """
    raise NotImplementedError
'''


@pytest.mark.asyncio
async def test_fixing_a_whole_file_is_a_source_action_that_toolgen_fix_agrees_with(
    project: Project, run: Callable[..., Any]
) -> None:
    tools = project.write("src/tools.py", TWO)
    versioned = types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)
        )
    )
    whole = types.Range(types.Position(0, 0), types.Position(0, 0))
    async with editor(project.root, capabilities=versioned) as client:
        open_file(client, tools)
        edit(client, tools, TWO, 2)
        await until(lambda: sorted(codes(client, tools)) == ["TG301", "TG302"], "both")
        # as a client asks on a cursor move: no file is fixed for that
        moved = await actions_at(
            client, tools, whole, trigger=types.CodeActionTriggerKind.Automatic
        )
        assert moved == []
        asked = [types.CodeActionKind.SourceFixAll.value]
        (action,) = await actions_at(
            client, tools, whole, asked, types.CodeActionTriggerKind.Automatic
        )
        assert action.kind == "source.fixAll.toolgen"
        assert action.title == "toolgen: fix docstrings in this file"
        assert action.edit is not None and action.edit.document_changes is not None
        (change,) = action.edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == tools.as_uri()
        assert change.text_document.version == 2  # the buffer's version it was made for
        edits = [e for e in change.edits if isinstance(e, types.TextEdit)]
        assert len(edits) == len(change.edits) >= 2  # each docstring its own edit
        fixed = applied(TWO, edits)
        edit(client, tools, fixed, 3)
        await until(lambda: placeholder_said(client, tools), "only the placeholder's TG301")
    run("fix", cwd=project.root)
    assert tools.read_text() == fixed


@pytest.mark.asyncio
async def test_a_nullable_parameter_without_a_default_gets_none_where_it_can(
    project: Project, shop: Path
) -> None:
    nullable = HANDLER.replace("query: str)", "query: str, when: int | None)").replace(
        "query: The query.", "query: The query.\n        when: The day, if any."
    )
    before = project.write(
        "src/before.py",
        nullable.replace("lookup", "find_first").replace(
            "query: str, when: int | None)", "when: int | None, query: str)"
        ),
    )
    async with editor(project.root) as client:
        open_file(client, shop, nullable)
        open_file(client, before)
        await until(lambda: codes(client, shop) == ["TG905"], "TG905")
        await until(lambda: codes(client, before) == ["TG905"], "TG905 before a required one")
        # a parameter that a required one follows cannot take a default: nothing offered
        (other,) = _at(client, before)
        assert quick(await actions_at(client, before, other.range)) == []
        (found,) = _at(client, shop)
        (action,) = quick(await actions_at(client, shop, found.range))
        assert action.title == "Default `when` to None"
        assert list(action.diagnostics or []) == [found]
        fixed = applied(nullable, only_edits(action, shop))
        assert "def lookup(query: str, when: int | None = None) -> str:" in fixed
        edit(client, shop, fixed, 2)
        await until(lambda: codes(client, shop) == [], "no diagnostic")


@pytest.mark.asyncio
async def test_a_contract_table_of_no_tool_is_renamed_to_the_tool_it_means(
    project: Project, shop: Path
) -> None:
    config = project.root / "pyproject.toml"
    table = '[tool.toolgen.contract.lookpu]\nrisk = "low"\n\n'
    errors = '[tool.toolgen.contract.lookpu.errors]\nNOT_FOUND = "No such product."\n'
    config.write_text(config.read_text() + "\n" + table + errors)
    async with editor(project.root) as client:
        open_file(client, config)
        open_file(client, shop)
        await until(lambda: codes(client, config) == ["TG021"], "TG021")
        (found,) = _at(client, config)
        assert "did you mean lookup?" in found.message
        (action,) = await actions_at(client, config, found.range)
        assert action.title == "Rename the contract table to `lookup`"
        assert list(action.diagnostics or []) == [found]
        edits = only_edits(action, config)
        assert [e.new_text for e in edits] == ["up", "up"]  # the table and its sub-table
        fixed = applied(config.read_text(), edits)
        assert "[tool.toolgen.contract.lookup]\n" in fixed
        assert "[tool.toolgen.contract.lookup.errors]\n" in fixed
        config.write_text(fixed)  # the editor saves it
        save(client, config)
        await until(lambda: codes(client, config) == [], "the table names the tool")
        descriptor = project.out / "descriptors" / "lookup.json"
        await until(descriptor.exists, "the build on save")
        assert [e["code"] for e in project.descriptor("lookup")["errors"]] == ["NOT_FOUND"]


# -- hovers ---------------------------------------------------------------------------------
async def hover_text(client: LanguageClient, path: Path, line: int) -> str | None:
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            position=types.Position(line, 2),
        )
    )
    if found is None:
        return None
    assert isinstance(found.contents, types.MarkupContent)
    assert found.contents.kind == types.MarkupKind.Markdown
    return found.contents.value


async def hover_until(
    client: LanguageClient, path: Path, line: int, check: Callable[[str], bool], what: str
) -> str:
    """The hover at `line` once `check` holds of it (the server answers from its last
    compile)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        said = await hover_text(client, path, line)
        if said is not None and check(said):
            return said
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; the hover says {said!r}")
        await asyncio.sleep(0.02)


def checked_in(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}


@pytest.mark.asyncio
async def test_a_hover_on_a_tool_shows_its_contract_payloads_and_drift(
    project: Project, shop: Path, run: Callable[..., Any]
) -> None:
    contract = (
        HANDLER.replace(
            '@tool(risk="low")',
            '@tool(risk="high", permissions=["catalog:read"], dry_run="supported")',
        )
        .replace("def lookup(query: str)", "def lookup(query: str, dry_run: bool = False)")
        .replace(
            "query: The query.", "query: The query.\n        dry_run: Only say what would happen."
        )
    )
    shop.write_text(contract)
    assert run("build", cwd=project.root).code == 0
    built = checked_in(project.out)
    sizes = tool_sizes(built)
    assert {s.platform for s in sizes} == {
        "openai-chat", "openai-responses", "anthropic", "gemini", "mcp"
    }  # fmt: skip
    async with editor(project.root) as client:
        open_file(client, shop)
        said = await hover_until(client, shop, 4, bool, "the hover of the def line")
        assert "**`lookup`**" in said
        assert "- **risk**: `high` (from the decorator)" in said
        assert "- **gate**: not autonomous, asks for confirmation" in said
        assert "- **permissions**: `catalog:read`" in said
        assert "- **dry run**: supported" in said
        for size in sizes:  # what `toolgen stats` counts, from the files the build wrote
            assert f"| {size.platform} | `lookup` | {size.chars:,} | {size.tokens:,} |" in said
        assert "Matches the checked-in files (`generated`)." in said
        assert await hover_text(client, shop, 3) == said  # the decorator's line
        assert await hover_text(client, shop, 11) is None  # the body

        edit(client, shop, contract.replace("Look something up", "Look anything up"), 2)
        said = await hover_until(client, shop, 4, lambda s: "Differs" in s, "the drift")
        assert (
            "Differs from the checked-in files (`generated`): `descriptors/lookup.json`; its "
            "entry in openai-chat, openai-responses, anthropic, gemini, mcp." in said
        )
        diff = said.split("```diff\n")[1].split("```")[0].splitlines()
        assert (
            '-  "description": "Look something up in the catalog. Use it for product questions.",'
            in diff
        )
        assert (
            '+  "description": "Look anything up in the catalog. Use it for product questions.",'
            in diff
        )
    assert checked_in(project.out) == built  # a hover writes nothing


@pytest.mark.asyncio
async def test_a_hover_names_each_tool_of_a_function_that_servers_publish_twice(
    tmp_path: Path, run: Callable[..., Any]
) -> None:
    root = catalog_project(tmp_path)
    servers = root / "catalogs" / "multi" / "servers.py"
    line = servers.read_text().splitlines().index("def status_admin(verbose: bool = False) -> str:")
    async with editor(root) as client:
        open_file(client, servers)
        said = await hover_until(client, servers, line, bool, "the hover")
        first, second = said.split("\n\n---\n\n")
        assert first.startswith("**`admin/status_admin`**")
        assert second.startswith("**`admin/status`**")
        assert "| mcp | `status` |" in second
        assert (
            "Not in the checked-in files yet: no `generated/admin/descriptors/status.json`"
            in second
        )


def test_only_the_server_speaks_the_protocol() -> None:
    """Code actions and hovers are worked out without pygls (lsprotocol's types only)."""
    folder = REPO / "src" / "toolgen" / "lsp"
    for name in ("actions.py", "hover.py", "live.py", "ranges.py"):
        tree = ast.parse((folder / name).read_text())
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not {m for m in imported if m.split(".")[0] == "pygls"}, name
