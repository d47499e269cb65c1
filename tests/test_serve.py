"""`toolgen serve`: the pure parts one by one, the dispatcher in process, and the whole server
over stdio with the official MCP client, against `examples/` and `tests/fixtures/serve/`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pydantic
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from toolgen import ToolError
from toolgen.cli import main as toolgen_main
from toolgen.config import Config, load_config
from toolgen.descriptor import ToolDescriptor
from toolgen.runtime import CallContext, ToolResult
from toolgen.runtime.adapters.mcp import call_tool_result
from toolgen.runtime.catalog import Catalog, GeneratedFilesError
from toolgen.runtime.catalog import load as load_catalog
from toolgen.runtime.handlers import NotCallable, Recorder, resolve_handler
from toolgen.runtime.result import internal_error, validation_error
from toolgen.runtime.steps.execute import tool_error
from toolgen.runtime.steps.validate import argument_problems, input_validator, pydantic_problems
from toolgen.schema_ops import wraps
from toolgen.serve import PAGE_SIZE, Dispatcher, list_tools_page, load_toolbox, search_paths

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "serve"
GENERATED = REPO / "generated"
EXAMPLE_TOOLS: list[dict[str, Any]] = json.loads((GENERATED / "mcp" / "tools.json").read_text())[
    "tools"
]
HEX16 = re.compile(r"^[0-9a-f]{16}$")


class _Trace:
    """Equal to any trace id: 16 hex digits (every error has one, random per call)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and HEX16.match(other) is not None

    def __repr__(self) -> str:
        return "<16 hex digits>"


TRACE: Any = _Trace()
SERVER_ENTRY = "import sys; from toolgen.cli import main; sys.exit(main(['serve', *sys.argv[1:]]))"
FIXTURE_NAMES = [
    "add",
    "count_words",
    "double",
    "explode",
    "forget",
    "get_note",
    "increment",
    "inspect_arguments",
    "label",
    "list_notes",
    "needs_request",
    "ping",
    "shout",
    "unreachable",
    "whisper",
    "wrong_output",
]  # launch_missiles is forbidden


def example_descriptor(name: str) -> ToolDescriptor:
    path = GENERATED / "descriptors" / f"{name}.json"
    return ToolDescriptor.model_validate_json(path.read_text())


def example_tool(name: str) -> dict[str, Any]:
    return next(t for t in EXAMPLE_TOOLS if t["name"] == name)


# -- the fixture project, built once into a temporary copy -------------------------------------


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Config:
    root = tmp_path_factory.mktemp("serve") / "project"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("__pycache__", "generated"))
    (root / "toolgen.toml").rename(root / "pyproject.toml")  # the copy is its own project
    assert toolgen_main(["build", "--config", str(root / "pyproject.toml"), "--quiet"]) == 0
    return load_config(root / "pyproject.toml", cwd=root)


@pytest.fixture
def imported(project: Config, monkeypatch: pytest.MonkeyPatch) -> Iterator[Config]:
    """The fixture's handler modules importable in this process, and forgotten afterwards."""
    for path in reversed(search_paths(project)):
        monkeypatch.syspath_prepend(str(path))
    yield project
    for name in [m for m in sys.modules if m == "serve_tools" or m.startswith("serve_tools.")]:
        del sys.modules[name]


def run(call: Callable[[], Awaitable[Any]]) -> Any:
    async def bounded() -> Any:
        with anyio.fail_after(20):
            return await call()

    return anyio.run(bounded)


def envelope(result: types.CallToolResult) -> dict[str, Any]:
    """The error object of an `isError` result's envelope `{"status": "error", "error": ...}`,
    checking that text and structure agree."""
    assert result.is_error is True
    [content] = result.content
    assert isinstance(content, types.TextContent)
    assert json.loads(content.text) == result.structured_content
    assert result.structured_content is not None
    assert set(result.structured_content) == {"status", "error"}
    assert result.structured_content["status"] == "error"
    error: dict[str, Any] = result.structured_content["error"]
    return error


def as_mcp(result: ToolResult) -> types.CallToolResult:
    """An error result as MCP sends it (the descriptor is not read for errors)."""
    return call_tool_result(result, example_descriptor("calculator"), None)


def success(result: types.CallToolResult) -> Any:
    assert result.is_error is False
    [content] = result.content
    assert isinstance(content, types.TextContent)
    assert json.loads(content.text) == result.structured_content
    return result.structured_content


# -- pure parts ----------------------------------------------------------------------------------


def _fake_tools(count: int) -> list[dict[str, Any]]:
    return [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(count)]


def test_page_size_default() -> None:
    assert PAGE_SIZE == 100
    page = list_tools_page(_fake_tools(100), None)
    assert (len(page.tools), page.next_cursor) == (100, None)
    page = list_tools_page(_fake_tools(101), None)
    assert (len(page.tools), page.next_cursor) == (100, "100")


def test_pagination_walks_every_tool_once() -> None:
    tools = _fake_tools(5)
    pages: list[tuple[list[str], str | None]] = []
    cursor: str | None = None
    while True:
        page = list_tools_page(tools, cursor, page_size=2)
        pages.append(([t.name for t in page.tools], page.next_cursor))
        cursor = page.next_cursor
        if cursor is None:
            break
    assert pages == [(["t0", "t1"], "2"), (["t2", "t3"], "4"), (["t4"], None)]
    assert list_tools_page([], None, page_size=2).tools == []


@pytest.mark.parametrize("cursor", ["x", "-1", "5", "", "1.0"])
def test_bad_cursor_is_invalid_params(cursor: str) -> None:
    with pytest.raises(MCPError) as caught:
        list_tools_page(_fake_tools(5), cursor, page_size=2)
    assert caught.value.code == -32602
    assert caught.value.message == f"invalid cursor {cursor!r}"


def test_listed_tools_round_trip_unchanged() -> None:
    page = list_tools_page(EXAMPLE_TOOLS, None)
    dumped = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
    assert dumped == EXAMPLE_TOOLS


def test_catalog_of_the_examples_leaves_forbidden_tools_out() -> None:
    catalog = load_catalog(GENERATED)
    assert catalog.names == [t["name"] for t in EXAMPLE_TOOLS]
    assert "read_private_key" not in catalog.names
    assert (GENERATED / "descriptors" / "read_private_key.json").is_file()
    assert sorted(catalog.descriptors) == sorted(catalog.names)
    assert catalog.all["read_private_key"].risk == "forbidden"  # known, never callable
    dispatcher = Dispatcher(load_toolbox(GENERATED, store="memory://"))
    with pytest.raises(MCPError) as caught:
        run(lambda: dispatcher.call_tool("read_private_key", {}))
    assert caught.value.code == -32602
    assert caught.value.message == (
        "unknown tool 'read_private_key'; available tools: " + ", ".join(catalog.names)
    )
    assert caught.value.data == {"available": catalog.names}
    assert catalog.mcp_tools is not None
    assert catalog.mcp_tools[catalog.names.index("calculator")] == example_tool("calculator")
    assert catalog.descriptors["calculator"].source.qualname == "calculator"


@pytest.mark.parametrize("name", ["read_private_key", "nope"])
def test_an_unknown_or_forbidden_tool_is_audited_before_the_error(name: str) -> None:
    """-32602 as the MCP spec asks, and the `proposed` and `denied` events a Toolbox writes
    for a tool it does not find."""
    events: list[dict[str, Any]] = []
    dispatcher = Dispatcher(load_toolbox(GENERATED, store="memory://", audit=events.append))
    context = CallContext(principal="u-7")
    with pytest.raises(MCPError) as caught:
        run(lambda: dispatcher.call_tool(name, {"key_name": "id_rsa"}, context))
    assert caught.value.code == -32602
    assert [(e["tool"], e["decision"], e.get("error_code")) for e in events] == [
        (name, "proposed", None),
        (name, "denied", "NOT_FOUND"),
    ]
    assert {e["principal"] for e in events} == {"u-7"}


def test_catalog_drops_a_forbidden_tool_even_if_listed(tmp_path: Path) -> None:
    shutil.copytree(GENERATED / "descriptors", tmp_path / "descriptors")
    forbidden = json.loads((tmp_path / "descriptors" / "read_private_key.json").read_text())
    listed = [example_tool("calculator"), {"name": "read_private_key", "inputSchema": {}}]
    (tmp_path / "mcp").mkdir()
    (tmp_path / "mcp" / "tools.json").write_text(json.dumps({"tools": listed}))
    assert forbidden["risk"] == "forbidden"
    assert load_catalog(tmp_path).names == ["calculator"]


def test_catalog_errors(tmp_path: Path) -> None:
    tools_file = tmp_path / "mcp" / "tools.json"
    with pytest.raises(GeneratedFilesError) as caught:
        load_toolbox(tmp_path)
    assert str(caught.value) == (
        f'{tools_file} does not exist; put "mcp" in the configured platforms and run '
        "`toolgen build`"
    )
    tools_file.parent.mkdir()
    (tmp_path / "descriptors").mkdir()
    tools_file.write_text(json.dumps({"tools": [{"name": "ghost"}]}))
    with pytest.raises(GeneratedFilesError) as caught:
        load_catalog(tmp_path)
    assert str(caught.value) == (
        f"tool 'ghost' is in {tools_file} but has no descriptor; run `toolgen build`"
    )
    tools_file.write_text("{not json")
    with pytest.raises(GeneratedFilesError) as caught:
        load_catalog(tmp_path)
    assert str(caught.value).startswith(f"cannot read the generated files in {tmp_path}: ")


def test_argument_problems_name_each_field() -> None:
    calculator = input_validator(example_tool("calculator")["inputSchema"])
    assert argument_problems(calculator, {"operation": "add", "a": 2, "b": 3.5}) == []
    assert argument_problems(calculator, {"operation": "mod", "a": "2", "extra": 1}) == [
        {"path": "/a", "message": "'2' is not of type 'number'"},
        {"path": "/b", "message": "required property is missing"},
        {"path": "/extra", "message": "unexpected property"},
        {
            "path": "/operation",
            "message": "'mod' is not one of ['add', 'subtract', 'multiply', 'divide']",
        },
    ]
    assert argument_problems(calculator, {}) == [
        {"path": "/a", "message": "required property is missing"},
        {"path": "/b", "message": "required property is missing"},
        {"path": "/operation", "message": "required property is missing"},
    ]


def test_argument_problems_in_nested_values_and_formats() -> None:
    bulk = input_validator(example_tool("bulk_send_emails")["inputSchema"])
    arguments = {
        "recipients": [{"email": "a@example.com"}, {"name": "no address"}],
        "subject": "s",
        "body": "b",
        "idempotency_key": "not-a-uuid",
    }
    assert argument_problems(bulk, arguments) == [
        {"path": "/idempotency_key", "message": "'not-a-uuid' is not a 'uuid'"},
        {"path": "/recipients/1/email", "message": "required property is missing"},
    ]
    arguments["recipients"] = []
    arguments["idempotency_key"] = "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"
    assert argument_problems(bulk, arguments) == [
        {"path": "/recipients", "message": "[] should be non-empty"}
    ]


def test_validation_error_envelope() -> None:
    problems = [{"path": "/a", "message": "'x' is not of type 'number'"}]
    assert envelope(as_mcp(validation_error("t", "0123456789abcdef", problems))) == {
        "code": "VALIDATION_ERROR",
        "message": "invalid arguments: /a: 'x' is not of type 'number'",
        "retryable": False,
        "human_review": False,
        "http_status": 400,
        "recovery": "re-prompt with corrected arguments",
        "fields": problems,
        "trace_id": "0123456789abcdef",
    }


def test_pydantic_problems_become_fields() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        pydantic.TypeAdapter(dict[str, list[int]]).validate_python({"a": [1, "x"]})
    assert pydantic_problems(caught.value) == [
        {
            "path": "/a/1",
            "message": "Input should be a valid integer, unable to parse string as an integer",
        }
    ]


def test_tool_error_takes_the_declared_taxonomy() -> None:
    create_ticket = example_descriptor("create_ticket")
    error = ToolError("CONFLICT", "key reused", ticket_id="T-1", retryable=True)
    assert envelope(as_mcp(tool_error(error, create_ticket, "t1"))) == {
        "code": "CONFLICT",
        "message": "key reused",
        "retryable": False,  # the descriptor's word, not the details'
        "human_review": False,
        "http_status": 409,
        "recovery": "read the current state, then retry with updated arguments",
        "ticket_id": "T-1",
        "trace_id": "t1",
    }
    bad = ToolError("VALIDATION_ERROR", "bad")
    declared = envelope(as_mcp(tool_error(bad, create_ticket, "t2")))
    assert declared == {
        "code": "VALIDATION_ERROR",
        "message": "bad",
        "retryable": False,
        "human_review": False,
        "http_status": 400,
        "recovery": "re-prompt with corrected arguments",
        "trace_id": "t2",
    }


def test_undeclared_tool_error_is_reported_as_such() -> None:
    calculator = example_descriptor("calculator")
    assert envelope(as_mcp(tool_error(ToolError("OOPS", at=Path("/x")), calculator, "t"))) == {
        "code": "OOPS",
        "message": "OOPS",
        "retryable": False,
        "human_review": False,
        "http_status": 500,
        "recovery": None,
        "undeclared": True,
        "at": "/x",
        "trace_id": "t",
    }


def test_internal_error_envelope() -> None:
    # not retryable: an exception nobody declared is not known to be transient
    assert envelope(as_mcp(internal_error("t", "abc123"))) == {
        "code": "INTERNAL",
        "message": "internal error",
        "retryable": False,
        "human_review": False,
        "http_status": 500,
        "trace_id": "abc123",
    }


def test_wraps_result_reads_the_output_schema() -> None:
    for name, wrapped in [
        ("calculator", True),  # number
        ("bulk_send_emails", True),  # list of TypedDicts
        ("create_download_link", True),  # str
        ("create_ticket", False),  # a model, inlined as the root
        ("get_weather", False),  # a dataclass
        ("delete_user", False),  # None: no outputSchema at all
    ]:
        schema = example_descriptor(name).returns.schema_
        assert wraps(schema) is wrapped or "outputSchema" not in example_tool(name), name


def test_success_result_shapes() -> None:
    output = example_tool("calculator")["outputSchema"]
    calculator = example_descriptor("calculator")
    assert success(call_tool_result(ToolResult("calculator", True, 5.5), calculator, output)) == {
        "result": 5.5
    }
    ticket = {"id": "T-1", "subject": "s", "status": "open", "priority": "normal", "tags": []}
    found = ToolResult("create_ticket", True, ticket)
    assert success(call_tool_result(found, example_descriptor("create_ticket"), {})) == ticket
    bare = call_tool_result(
        ToolResult("delete_user", True), example_descriptor("delete_user"), None
    )
    assert bare.is_error is False and bare.structured_content is None
    assert bare.content == [types.TextContent(text="null")]


def test_recorder_keeps_functions_every_usual_way() -> None:
    recorder = Recorder()

    def a() -> None: ...
    def b() -> None: ...
    def c() -> None: ...
    def d() -> None: ...
    def e() -> None: ...

    assert recorder.add_tool(a, name="x") is a
    assert recorder.tool(b) is b
    assert recorder.tool("named", description="d")(c) is c
    assert recorder(d) is d
    assert recorder()(e) is e
    prefix = "test_recorder_keeps_functions_every_usual_way.<locals>."
    assert list(recorder.functions) == [prefix + n for n in "abcde"]


# -- reaching handlers ---------------------------------------------------------------------------


def test_search_paths_are_the_compilers(project: Config) -> None:
    assert search_paths(project) == [project.root, project.root / "src"]


def test_resolve_reaches_functions_methods_and_registered_handlers(imported: Config) -> None:
    import serve_tools.classes
    import serve_tools.handlers

    assert resolve_handler("serve_tools.handlers", "add") is serve_tools.handlers.add
    increment = resolve_handler("serve_tools.classes", "Counter.increment")
    assert isinstance(increment.__self__, serve_tools.classes.Counter)  # type: ignore[attr-defined]
    assert increment(2) == 2
    assert resolve_handler("serve_tools.classes", "Counter.double")(4) == 8
    shout = resolve_handler("serve_tools.registered", "register.<locals>.shout")
    assert shout("hi") == "HI"
    for name in ("whisper", "count_words"):
        found = resolve_handler("serve_tools.registered", f"register.<locals>.{name}")
        assert found.__name__ == name


@pytest.mark.parametrize(
    ("module", "qualname", "reason"),
    [
        (
            "serve_tools.classes",
            "Database.ping",
            "Database cannot be instantiated without arguments (TypeError: "
            "Database.__init__() missing 1 required positional argument: 'dsn')",
        ),
        (
            "serve_tools.registered",
            "broken_register.<locals>.unreachable",
            "calling serve_tools.registered.broken_register(server) to collect its handlers "
            "failed (RuntimeError: no database configured)",
        ),
        (
            "serve_tools.registered",
            "register.<locals>.missing",
            "serve_tools.registered.register(server) did not register missing",
        ),
        (
            "serve_tools.registered",
            "register.<locals>.f.<locals>.g",
            "register.<locals>.f.<locals>.g is nested too deep to be reached",
        ),
    ],
)
def test_unreachable_handlers(imported: Config, module: str, qualname: str, reason: str) -> None:
    with pytest.raises(NotCallable) as caught:
        resolve_handler(module, qualname)
    assert str(caught.value) == reason


# -- the dispatcher, in process ------------------------------------------------------------------


@pytest.fixture
def dispatcher(imported: Config) -> Dispatcher:
    return Dispatcher(load_toolbox(imported.out, store="memory://"))


def call(dispatcher: Dispatcher, name: str, arguments: dict[str, Any] | None) -> Any:
    return run(lambda: dispatcher.call_tool(name, arguments))


def test_dispatcher_lists_the_fixture(dispatcher: Dispatcher) -> None:
    assert dispatcher.catalog.names == FIXTURE_NAMES
    assert [t.name for t in dispatcher.list_tools(None).tools] == FIXTURE_NAMES
    assert isinstance(dispatcher.catalog, Catalog)


def test_dispatcher_calls_handlers(dispatcher: Dispatcher) -> None:
    assert success(call(dispatcher, "add", {"a": 2, "b": 3.5})) == {"result": 5.5}
    assert success(call(dispatcher, "get_note", {"note_id": "n-1"})) == {
        "id": "n-1",
        "text": "hello",
        "tags": ["greeting"],
    }
    assert success(call(dispatcher, "list_notes", {"tag": "nope"})) == {"result": []}
    assert success(call(dispatcher, "list_notes", None))["result"][0]["id"] == "n-1"
    assert success(call(dispatcher, "increment", {})) == {"result": 1}
    assert success(call(dispatcher, "increment", {"by": 2})) == {"result": 3}  # one instance
    assert success(call(dispatcher, "double", {"n": 21})) == {"result": 42}
    assert success(call(dispatcher, "whisper", {"text": "HeLLo"})) == {"result": "hello"}
    assert success(call(dispatcher, "count_words", {"text": "a b c"})) == {"result": 3}
    assert success(call(dispatcher, "label", {"text": "x"})) == {"result": "r-0:x"}
    forgotten = call(dispatcher, "forget", {"note_id": "n-1"})
    assert forgotten.is_error is False and forgotten.structured_content is None
    assert forgotten.content == [types.TextContent(text="null")]


def test_dispatcher_converts_arguments_to_python_types(dispatcher: Dispatcher) -> None:
    arguments = {
        "filter": {"tag": "x", "since": "2024-05-01"},
        "key": "6f1c1d7a-8f0e-4a43-9d1e-2c8f4b5a9e10",
        "color": "red",
        "box": {"width": 3, "height": 2},
    }
    assert success(call(dispatcher, "inspect_arguments", arguments)) == {
        "filter": "Filter",
        "key": "UUID",
        "color": "Color",
        "box": "Box",
        "area": 6,
        "since": "date",
        "key_version": 4,
    }


def test_dispatcher_errors(dispatcher: Dispatcher, capsys: pytest.CaptureFixture[str]) -> None:
    assert envelope(call(dispatcher, "get_note", {"note_id": "n-9"})) == {
        "code": "NOT_FOUND",
        "message": "no note n-9",
        "retryable": False,
        "human_review": False,
        "http_status": 404,
        "recovery": "check the name or id, or look it up first",
        "note_id": "n-9",
        "trace_id": TRACE,
    }
    assert envelope(call(dispatcher, "get_note", {"note_id": "n-busy"})) == {
        "code": "RATE_LIMITED",
        "message": "slow down",
        "retryable": True,
        "human_review": False,
        "http_status": 429,
        "recovery": "wait a minute.",
        "retry_after_seconds": 60,
        "max_retries": 3,
        "trace_id": TRACE,
    }
    assert envelope(call(dispatcher, "get_note", {"note_id": "n-teapot"})) == {
        "code": "TEAPOT",
        "message": "I am a teapot",
        "retryable": False,
        "human_review": False,
        "http_status": 500,
        "recovery": None,
        "undeclared": True,
        "pot": "brown",
        "trace_id": TRACE,
    }
    assert envelope(call(dispatcher, "get_note", {"note_id": "n"})) == {
        "code": "VALIDATION_ERROR",
        "message": "invalid arguments: /note_id: 'n' is too short",
        "retryable": False,
        "human_review": False,
        "http_status": 400,
        "recovery": "re-prompt with corrected arguments",
        "fields": [{"path": "/note_id", "message": "'n' is too short"}],
        "trace_id": TRACE,
    }
    capsys.readouterr()
    exploded = envelope(call(dispatcher, "explode", {"reason": "s3cr3t"}))
    assert set(exploded) == {
        "code",
        "message",
        "retryable",
        "human_review",
        "http_status",
        "trace_id",
    }
    assert (exploded["code"], exploded["message"], exploded["retryable"]) == (
        "INTERNAL",
        "internal error",
        False,  # a broken handler is not worth retrying
    )
    assert HEX16.match(exploded["trace_id"])
    log = capsys.readouterr().err
    assert log.startswith(f"toolgen serve: [trace {exploded['trace_id']}] tool explode raised\n")
    assert "RuntimeError: secret internals: s3cr3t" in log
    wrong = envelope(call(dispatcher, "wrong_output", {}))
    assert (wrong["code"], wrong["message"], wrong["retryable"]) == (
        "INTERNAL",
        "internal error",
        False,
    )
    log = capsys.readouterr().err
    assert (
        f"[trace {wrong['trace_id']}] tool wrong_output returned a value its return schema" in log
    )
    assert "'not a number' is not of type 'integer'" in log


@pytest.mark.parametrize(
    ("name", "arguments", "reason"),
    [
        ("ping", {}, "Database cannot be instantiated without arguments (TypeError: "),
        ("unreachable", {"text": "x"}, "calling serve_tools.registered.broken_register(server)"),
        (
            "needs_request",
            {"text": "x"},
            "parameter 'request_id' is not in the input schema and has no default",
        ),
    ],
)
def test_dispatcher_reports_unreachable_handlers(
    dispatcher: Dispatcher,
    name: str,
    arguments: dict[str, Any],
    reason: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    error = envelope(call(dispatcher, name, arguments))
    assert error == {
        "code": "INTERNAL",
        "message": f"tool {name!r} is not callable on this server",
        "retryable": False,
        "human_review": False,
        "http_status": 500,
        "trace_id": error["trace_id"],
    }
    assert HEX16.match(error["trace_id"])
    log = capsys.readouterr().err
    assert log.startswith(
        f"toolgen serve: [trace {error['trace_id']}] tool {name} is not callable: "
    )
    assert reason in log


def test_dispatcher_unknown_and_forbidden_tools(dispatcher: Dispatcher) -> None:
    for name in ("launch_missiles", "nope"):
        with pytest.raises(MCPError) as caught:
            call(dispatcher, name, {})
        assert caught.value.code == -32602
        assert caught.value.message == (
            f"unknown tool {name!r}; available tools: {', '.join(FIXTURE_NAMES)}"
        )


# -- over stdio, with the official client --------------------------------------------------------


def server_parameters(config_file: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", SERVER_ENTRY, "--config", str(config_file), *extra],
        cwd=config_file.parent,
    )


def over_stdio(
    parameters: StdioServerParameters,
    errlog: Path,
    session: Callable[[Client], Awaitable[None]],
    mode: Any = "auto",
) -> str:
    """Run `session` against a server subprocess; returns what the server wrote to stderr."""

    async def go() -> None:
        with errlog.open("w") as log:
            transport = stdio_client(parameters, errlog=log)
            async with Client(transport, mode=mode) as client:
                await session(client)

    run(go)
    return errlog.read_text()


def test_examples_over_stdio(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        listed = await client.list_tools()
        assert listed.next_cursor is None
        dumped = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
        assert dumped == EXAMPLE_TOOLS
        assert "read_private_key" not in [t.name for t in listed.tools]

        bad = await client.call_tool("calculator", {"operation": "add", "a": "two", "b": 3.5})
        seen["bad"] = envelope(bad)

        for name in ("read_private_key", "no_such_tool"):
            with pytest.raises(MCPError) as caught:
                await client.call_tool(name, {"key_name": "signing"})
            seen[name] = (caught.value.code, caught.value.message)

        broken = await client.call_tool("get_weather", {"location": "Lisbon"})
        seen["broken"] = broken
        seen["sum"] = await client.call_tool("calculator", {"operation": "add", "a": 2, "b": 3.5})
        seen["zero"] = await client.call_tool("calculator", {"operation": "divide", "a": 1, "b": 0})

    log = over_stdio(server_parameters(REPO / "pyproject.toml"), tmp_path / "err.log", session)
    assert seen["bad"] == {
        "code": "VALIDATION_ERROR",
        "message": "invalid arguments: /a: 'two' is not of type 'number'",
        "retryable": False,
        "human_review": False,
        "http_status": 400,
        "recovery": "re-prompt with corrected arguments",
        "fields": [{"path": "/a", "message": "'two' is not of type 'number'"}],
        "trace_id": TRACE,
    }
    available = ", ".join(t["name"] for t in EXAMPLE_TOOLS)
    for name in ("read_private_key", "no_such_tool"):
        assert seen[name] == (-32602, f"unknown tool {name!r}; available tools: {available}")
    error = envelope(seen["broken"])
    assert error == {
        "code": "INTERNAL",
        "message": "internal error",
        "retryable": False,
        "human_review": False,
        "http_status": 500,
        "trace_id": error["trace_id"],
    }
    assert HEX16.match(error["trace_id"])
    [text] = seen["broken"].content
    assert "Traceback" not in text.text and "NotImplementedError" not in text.text
    assert f"[trace {error['trace_id']}] tool get_weather raised\nTraceback" in log
    assert "\nNotImplementedError\n" in log
    # a real handler of the examples: success, and a declared error from the descriptor
    assert seen["sum"].structured_content == {"result": 5.5}
    assert not seen["sum"].is_error
    assert envelope(seen["zero"]) == {
        "code": "DIVISION_BY_ZERO",
        "message": "cannot divide by zero",
        "retryable": False,
        "human_review": False,
        "http_status": 400,
        "recovery": None,
        "trace_id": TRACE,
    }


def test_fixture_over_stdio(project: Config, tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        names: list[str] = []
        cursors: list[str | None] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            names += [t.name for t in page.tools]
            cursor = page.next_cursor
            cursors.append(cursor)
            if cursor is None:
                break
        seen["names"], seen["cursors"] = names, cursors
        # the client checks structured content against the listed outputSchema itself
        seen["add"] = await client.call_tool("add", {"a": 2, "b": 3.5})
        seen["inspect"] = await client.call_tool(
            "inspect_arguments",
            {
                "filter": {"tag": "x"},
                "key": "6f1c1d7a-8f0e-4a43-9d1e-2c8f4b5a9e10",
                "color": "green",
                "box": {"width": 5},
                "order": "desc",
            },
        )
        seen["shout"] = await client.call_tool("shout", {"text": "hey"})
        seen["missing"] = await client.call_tool("get_note", {"note_id": "n-404"})
        seen["ping"] = await client.call_tool("ping", {})

    config_file = project.root / "pyproject.toml"
    parameters = server_parameters(config_file, "--page-size", "4")
    log = over_stdio(parameters, tmp_path / "err.log", session)
    assert seen["names"] == FIXTURE_NAMES
    assert seen["cursors"] == ["4", "8", "12", None]  # 16 tools: no empty last page
    assert success(seen["add"]) == {"result": 5.5}
    assert success(seen["inspect"]) == {
        "filter": "Filter",
        "key": "UUID",
        "color": "Color",
        "box": "Box",
        "area": 5,
        "since": None,
        "key_version": 4,
    }
    assert success(seen["shout"]) == {"result": "HEY"}
    assert envelope(seen["missing"]) == {
        "code": "NOT_FOUND",
        "message": "no note n-404",
        "retryable": False,
        "human_review": False,
        "http_status": 404,
        "recovery": "check the name or id, or look it up first",
        "note_id": "n-404",
        "trace_id": TRACE,
    }
    ping = envelope(seen["ping"])
    assert ping["message"] == "tool 'ping' is not callable on this server"
    assert f"[trace {ping['trace_id']}] tool ping is not callable: Database cannot" in log


def test_legacy_handshake_over_stdio(project: Config, tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        seen["version"] = client.protocol_version
        seen["names"] = [t.name for t in (await client.list_tools()).tools]
        seen["add"] = await client.call_tool("add", {"a": 1, "b": 2})

    parameters = server_parameters(project.root / "pyproject.toml")
    over_stdio(parameters, tmp_path / "err.log", session, mode="legacy")
    assert seen["version"] == "2025-11-25"
    assert seen["names"] == FIXTURE_NAMES
    assert success(seen["add"]) == {"result": 3.0}


def test_main_reports_a_missing_generated_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.toolgen]\nsources = ["tools"]\n')
    assert toolgen_main(["serve", "--config", str(tmp_path / "pyproject.toml")]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"toolgen serve: {tmp_path / 'generated' / 'mcp' / 'tools.json'} does not exist; "
        'put "mcp" in the configured platforms and run `toolgen build`\n'
    )
    assert toolgen_main(["serve", "--config", str(tmp_path / "missing.toml")]) == 2
    assert "TG001" in capsys.readouterr().out  # the CLI reports diagnostics on stdout
    assert toolgen_main(["serve", "--page-size", "0"]) == 2


def test_null_for_an_optional_parameter_without_null_means_not_given() -> None:
    from toolgen.runtime.steps.validate import drop_not_given

    schema = {
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "limit": {"type": "integer", "default": 5},
            "cursor": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["q"],
    }
    arguments = {"q": None, "limit": None, "cursor": None}
    # `limit` cannot be null: dropped (the handler's default applies); `cursor` may be null;
    # `q` is required, so its null stays and fails validation as it should
    assert drop_not_given(arguments, schema) == {"q": None, "cursor": None}


def test_toolgen_serve_command_lists_the_generated_tools(tmp_path: Path) -> None:
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolgen", "serve", "--config", str(REPO / "pyproject.toml")],
        cwd=REPO,
    )
    names: list[str] = []

    async def session(client: Client) -> None:
        listed = await client.list_tools()
        names.extend(t.name for t in listed.tools)

    over_stdio(parameters, tmp_path / "err.log", session)
    assert names == [t["name"] for t in EXAMPLE_TOOLS]


#: `python -m toolgen ARGV` in a Python where a module of the `serve` extra cannot be imported,
#: as when `pip install toolgen` ran without `[serve]`
WITHOUT = """
import runpy, sys
from importlib.abc import MetaPathFinder

MISSING = sys.argv[1]

class Missing(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == MISSING:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Missing())
sys.argv[:2] = ["toolgen"]
runpy.run_module("toolgen", run_name="__main__")
"""


def serve_without(missing: str) -> subprocess.CompletedProcess[str]:
    """`toolgen serve` on this repository, where module `missing` cannot be imported."""
    return subprocess.run(
        [sys.executable, "-c", WITHOUT, missing, "serve", "--config", "pyproject.toml"],
        cwd=REPO,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,  # were it to serve, it would stop at once
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("missing", ["mcp", "mcp_types", "anyio"])
def test_serve_without_its_extra_says_how_to_install_it(missing: str) -> None:
    child = serve_without(missing)
    assert child.returncode == 2, child.stderr
    assert child.stdout == ""
    assert child.stderr == (
        f"toolgen serve: the MCP SDK is not installed (no module named '{missing}'); "
        "install it with: pip install 'toolgen[serve]'\n"
    )


def test_a_missing_module_that_is_not_the_extra_is_still_an_internal_error() -> None:
    """Only the extra's own modules are the user's to install: any other failing import
    is toolgen's bug, and says so."""
    child = serve_without("jsonschema")
    assert child.returncode == 2
    assert "toolgen: internal error (please report it):" in child.stderr
    assert "toolgen[serve]" not in child.stderr


SHAPES = '''
from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from toolgen import tool


class Page(BaseModel):
    """A page."""

    size: int = 10


class Node(BaseModel):
    """A tree."""

    children: list[Node] = []


@tool
def pages(q: str) -> list[Page]:
    """Return pages. A list of models.

    Args:
        q: The query.
    """
    return [Page()]


@tool
def counts(q: str) -> dict[str, int]:
    """Count words. A dict.

    Args:
        q: The query.
    """
    return {q: 1}


@tool
def anything(q: str) -> dict[str, Any]:
    """Return anything. A free-form dict.

    Args:
        q: The query.
    """
    return {q: [1]}


@tool
def by_name(q: str) -> dict[str, Page]:
    """Return pages by name. A dict of models.

    Args:
        q: The query.
    """
    return {q: Page()}


@tool
def page(q: str) -> Page:
    """Return a page. A model.

    Args:
        q: The query.
    """
    return Page()


@tool
def described(q: str) -> Annotated[Page, Field(description="The page.")]:
    """Return a page. A described model.

    Args:
        q: The query.
    """
    return Page()


@tool
def tree(q: str) -> Node:
    """Return a tree. A recursive model.

    Args:
        q: The query.
    """
    return Node(children=[Node()])
'''

SHAPE_RESULTS = {
    "pages": {"result": [{"size": 10}]},
    "counts": {"x": 1},
    "anything": {"x": [1]},
    "by_name": {"x": {"size": 10}},
    "page": {"size": 10},
    "described": {"size": 10},
    "tree": {"result": {"children": [{"children": []}]}},
}


@pytest.mark.parametrize("inline_defs", [False, True])
def test_structured_content_has_the_shape_of_the_published_output_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inline_defs: bool
) -> None:
    """A dict or a model goes out as it is and anything else as `{"result": ...}`, in the
    `outputSchema` and in `structuredContent` alike, with `inline_defs` too (where the published
    schema is inlined and the descriptor's is not)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "shapes_tools.py").write_text(SHAPES)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.toolgen]\nsources = ["src"]\nmin_level = 0\n'
        f"inline_defs = {str(inline_defs).lower()}\n"
    )
    assert toolgen_main(["build", "--config", str(tmp_path / "pyproject.toml"), "--quiet"]) == 0
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.delitem(sys.modules, "shapes_tools", raising=False)
    dispatcher = Dispatcher(load_toolbox(tmp_path / "generated", store="memory://"))
    published = {t["name"]: t["outputSchema"] for t in dispatcher.tools}
    for name, expected in SHAPE_RESULTS.items():
        wrapped = set(published[name].get("properties", {})) == {"result"}
        assert wrapped is (name in ("pages", "tree")), name
        assert success(call(dispatcher, name, {"q": "x"})) == expected, name
        if inline_defs and name != "tree":  # a recursive model keeps its $defs entry (TG607)
            assert not {"$ref", "$defs"} & set(json.dumps(published[name]).split('"')), name
    assert published["described"]["description"] == "The page."
    monkeypatch.delitem(sys.modules, "shapes_tools", raising=False)


def test_a_critical_tool_is_not_run_without_confirmation_over_stdio(tmp_path: Path) -> None:
    """Was (issue 18): a critical tool ran with no confirmation and no audit event."""
    seen: dict[str, Any] = {}
    key = "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"
    arguments = {"to": "a@example.com", "subject": "s", "body": "b", "idempotency_key": key}

    async def session(client: Client) -> None:
        seen["sent"] = await client.call_tool("send_external_email", arguments)

    audit = tmp_path / "audit.jsonl"
    extra = ("--store", "memory://", "--audit", str(audit), "--scope", "email:send_external")
    parameters = server_parameters(REPO / "pyproject.toml", *extra)
    over_stdio(parameters, tmp_path / "err.log", session, mode="legacy")
    error = envelope(seen["sent"])
    assert (error["code"], error["human_review"], error["retryable"]) == (
        "REQUIRES_HUMAN_APPROVAL",
        True,
        False,
    )
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(e["decision"], e["tool"], e["risk"]) for e in events] == [
        ("proposed", "send_external_email", "critical"),
        ("refused", "send_external_email", "critical"),
    ]
    assert events[1]["trace_id"] == error["trace_id"]
