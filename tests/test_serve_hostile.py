"""`toolgen serve` against hostile input (issue 15): non-finite numbers in both directions,
malformed JSON-RPC, deep nesting, huge values and cursors. Over stdio both with the official
client and line by line (what the SDK's client cannot send), and the pure parts in process."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from test_serve import (
    EXAMPLE_TOOLS,
    HEX16,
    REPO,
    SERVER_ENTRY,
    call,
    example_tool,
    over_stdio,
    server_parameters,
)
from toolgen.cli import main as toolgen_main
from toolgen.diagnostics import QUOTE_LIMIT, cut
from toolgen.runtime.result import validation_error
from toolgen.runtime.steps.validate import argument_problems, input_validator
from toolgen.runtime.values import MAX_ARGUMENT_DEPTH, MAX_PROBLEMS, quote, value_problems
from toolgen.serve import Dispatcher, list_tools_page, load_toolbox
from toolgen.serve_guard import check_line


def strict_json(text: str) -> Any:
    """JSON as the standard has it: NaN and Infinity are not JSON."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    """The error envelope, the text being strict JSON equal to the structured content."""
    assert result.is_error is True
    [content] = result.content
    assert isinstance(content, types.TextContent)
    assert strict_json(content.text) == result.structured_content
    assert result.structured_content["status"] == "error"
    error: dict[str, Any] = result.structured_content["error"]
    return error


def internal_trace(result: types.CallToolResult) -> str:
    """The trace id of an `INTERNAL` result, which says nothing else."""
    error = error_of(result)
    assert error == {
        "code": "INTERNAL",
        "message": "internal error",
        "retryable": False,
        "human_review": False,
        "http_status": 500,
        "trace_id": error["trace_id"],
    }
    assert HEX16.match(error["trace_id"])
    trace_id: str = error["trace_id"]
    return trace_id


def deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def deep_text(levels: int) -> str:
    """JSON of arrays nested `levels` deep (too deep for `json.dumps`)."""
    return "[" * levels + "]" * levels


def request(request_id: Any, method: str, params: Any = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)


def tools_call(request_id: Any, name: str, arguments: Any) -> str:
    return request(request_id, "tools/call", {"name": name, "arguments": arguments})


# -- a server spoken to line by line ---------------------------------------------------------


class RawServer:
    """`toolgen serve` as a subprocess written to line by line, as a client without the SDK."""

    def __init__(self, config_file: Path, errlog: IO[str], *extra: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVER_ENTRY, "--config", str(config_file), *extra],
            cwd=config_file.parent,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        for line in lines:
            self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        """The next message, strict JSON; a server that stays silent fails the test here."""
        line = self.lines.get(timeout=60)
        assert line is not None, "the server closed stdout without answering"
        message: dict[str, Any] = strict_json(line.decode())
        return message

    def initialize(self, capabilities: dict[str, Any] | None = None) -> None:
        params = {
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities or {},
            "clientInfo": {"name": "raw", "version": "1"},
        }
        self.send(request(0, "initialize", params))
        assert self.receive()["id"] == 0
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.reader.join(timeout=60)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()

    def close(self) -> list[dict[str, Any]]:
        """Close stdin; what the server still wrote before exiting."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0
        self.reader.join(timeout=60)
        rest: list[dict[str, Any]] = []
        while (line := self.lines.get(timeout=60)) is not None:
            rest.append(strict_json(line.decode()))
        return rest


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[RawServer]:
    """The examples' server (calculator ...) spoken to line by line."""
    with (tmp_path / "err.log").open("w") as log:
        server = RawServer(REPO / "pyproject.toml", log)
        try:
            server.initialize()
            yield server
        finally:
            server.stop()


# -- non-finite numbers --------------------------------------------------------------------------


def test_calculator_overflow_is_internal_with_the_official_client(tmp_path: Path) -> None:
    """Was: text `{"result": Infinity}`, structuredContent `{"result": null}`, and the client
    raised on the null against the outputSchema."""
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        arguments = {"operation": "multiply", "a": 1e308, "b": 10}
        seen["overflow"] = await client.call_tool("calculator", arguments)
        seen["fine"] = await client.call_tool("calculator", {**arguments, "a": 2})

    log = over_stdio(server_parameters(REPO / "pyproject.toml"), tmp_path / "err.log", session)
    trace_id = internal_trace(seen["overflow"])
    assert (
        f"[trace {trace_id}] tool calculator returned a value JSON cannot carry: "
        "/: must be a finite number (got Infinity)\n"
    ) in log
    assert seen["fine"].structured_content == {"result": 20.0}


def test_calculator_overflow_answer_is_strict_json(raw: RawServer) -> None:
    raw.send(tools_call(1, "calculator", {"operation": "multiply", "a": 1e308, "b": 10}))
    answer = raw.receive()  # strict_json: no Infinity anywhere on the wire
    assert answer["id"] == 1
    result = answer["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "INTERNAL"
    assert strict_json(result["content"][0]["text"]) == result["structuredContent"]
    assert raw.close() == []


def test_non_finite_arguments_are_validation_errors(raw: RawServer) -> None:
    """Was: NaN and Infinity (JSON has neither) accepted and computed with."""
    base = '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": '
    raw.send(
        base % 1 + '"calculator", "arguments": {"operation": "add", "a": NaN, "b": 1}}}',
        base % 2 + '"calculator", "arguments": {"operation": "add", "a": 1, "b": Infinity}}}',
        base % 3 + '"calculator", "arguments": {"operation": "add", "a": -Infinity, "b": 1e999}}}',
    )
    answers = {a["id"]: a["result"] for a in (raw.receive(), raw.receive(), raw.receive())}
    fields = {}
    for request_id, result in answers.items():
        assert result["isError"] is True
        error = result["structuredContent"]["error"]
        assert (error["code"], error["http_status"]) == ("VALIDATION_ERROR", 400)
        fields[request_id] = error["fields"]
    assert fields == {
        1: [{"path": "/a", "message": "must be a finite number (got NaN)"}],
        2: [{"path": "/b", "message": "must be a finite number (got Infinity)"}],
        3: [
            {"path": "/a", "message": "must be a finite number (got -Infinity)"},
            {"path": "/b", "message": "must be a finite number (got Infinity)"},
        ],
    }
    assert raw.close() == []


def test_value_problems_find_what_json_cannot_carry() -> None:
    value = {"a": [1.5, {"b": float("nan")}], "c": -float("inf"), "d": 10**400, "e": True}
    assert value_problems(value) == [
        {"path": "/a/1/b", "message": "must be a finite number (got NaN)"},
        {"path": "/c", "message": "must be a finite number (got -Infinity)"},
        {"path": "/d", "message": "must be a number within ±1.8e308 (got a larger integer)"},
    ]
    assert value_problems({"a": 1e308, "b": -(10**300), "c": [None, "NaN"]}) == []
    assert value_problems(deep(10_000)) == []  # no depth limit asked: no recursion either
    nested = {"x": deep(MAX_ARGUMENT_DEPTH)}  # the object is level 1: one level too many
    [problem] = value_problems(nested, MAX_ARGUMENT_DEPTH)
    assert problem["message"] == f"nested deeper than {MAX_ARGUMENT_DEPTH} levels"
    assert value_problems({"x": deep(MAX_ARGUMENT_DEPTH - 1)}, MAX_ARGUMENT_DEPTH) == []
    assert len(value_problems([float("nan")] * 1000)) == MAX_PROBLEMS


# -- the fixture of hostile handlers, in process and over stdio --------------------------------

HOSTILE = '''
from __future__ import annotations

import sys
from typing import Any

from pydantic import BaseModel

from toolgen import ToolError, tool


class Node(BaseModel):
    """A tree."""

    children: list[Node] = []


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a * b


@tool
def nested(q: str) -> dict[str, Any]:
    """Return a NaN deep inside a dict.

    Args:
        q: Ignored.
    """
    return {"values": [1.0, {"deeper": float("nan")}]}


@tool
def odd_details(q: str) -> str:
    """Raise a declared error whose details JSON cannot carry.

    Args:
        q: Ignored.

    Errors:
        NOT_FOUND: Never found.
    """
    raise ToolError("NOT_FOUND", "nothing", ratio=float("inf"))


@tool
def count_nodes(tree: Node) -> int:
    """Count the nodes of a tree (a recursive schema).

    Args:
        tree: The tree.
    """
    return 1 + sum(count_nodes(child) for child in tree.children)


@tool
def read_stdin(q: str) -> str:
    """Read this process's stdin.

    Args:
        q: Ignored.
    """
    return sys.stdin.read()
'''


@pytest.fixture(scope="module")
def hostile_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    (root / "src").mkdir()
    (root / "src" / "hostile_tools.py").write_text(HOSTILE)
    (root / "pyproject.toml").write_text(
        '[tool.toolgen]\nsources = ["src"]\nplatforms = ["mcp"]\nmin_level = 0\n'
    )
    assert toolgen_main(["build", "--config", str(root / "pyproject.toml"), "--quiet"]) == 0
    return root


@pytest.fixture
def hostile(hostile_project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Dispatcher]:
    monkeypatch.syspath_prepend(str(hostile_project / "src"))
    monkeypatch.delitem(sys.modules, "hostile_tools", raising=False)
    yield Dispatcher(load_toolbox(hostile_project / "generated", store="memory://"))
    monkeypatch.delitem(sys.modules, "hostile_tools", raising=False)


def test_non_finite_results_are_internal(
    hostile: Dispatcher, capsys: pytest.CaptureFixture[str]
) -> None:
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("multiply", {"a": 1e308, "b": 10}, "/: must be a finite number (got Infinity)"),
        ("multiply", {"a": 1e308, "b": -10}, "/: must be a finite number (got -Infinity)"),
        ("nested", {"q": "x"}, "/values/1/deeper: must be a finite number (got NaN)"),
    ]
    for name, arguments, where in cases:
        trace_id = internal_trace(call(hostile, name, arguments))
        log = capsys.readouterr().err
        trace = f"[trace {trace_id}] tool {name} returned a value JSON cannot carry: "
        assert f"{trace}{where}\n" in log, name
    assert call(hostile, "multiply", {"a": 2, "b": 3}).structured_content == {"result": 6.0}


def test_tool_error_details_json_cannot_carry_are_internal(
    hostile: Dispatcher, capsys: pytest.CaptureFixture[str]
) -> None:
    trace_id = internal_trace(call(hostile, "odd_details", {"q": "x"}))
    log = capsys.readouterr().err
    assert f"[trace {trace_id}] tool odd_details failed\nTraceback" in log
    assert "Out of range float values are not JSON compliant" in log


def test_deep_arguments_in_process(hostile: Dispatcher) -> None:
    """10,000 levels (and just past the limit) are a VALIDATION_ERROR, never a RecursionError,
    also against a recursive schema; within the limit the handler runs."""
    # {"tree": {"children": [{...}]}}: the arguments object, then two levels a node
    wraps = (MAX_ARGUMENT_DEPTH - 2) // 2
    tree: dict[str, Any] = {}
    for _ in range(wraps):
        tree = {"children": [tree]}
    result = call(hostile, "count_nodes", {"tree": tree})
    assert result.structured_content == {"result": wraps + 1}
    for more in (1, 5_000):
        deeper = tree
        for _ in range(more):
            deeper = {"children": [deeper]}
        error = error_of(call(hostile, "count_nodes", {"tree": deeper}))
        assert error["code"] == "VALIDATION_ERROR"
        [field] = error["fields"]
        assert field["message"] == f"nested deeper than {MAX_ARGUMENT_DEPTH} levels"
        assert field["path"].startswith("/tree/children/0/children/0/")
        assert len(json.dumps(error)) < 2_000


def test_a_handler_reading_stdin_reads_nothing_of_the_client(
    hostile_project: Path, tmp_path: Path
) -> None:
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        seen["read"] = await client.call_tool("read_stdin", {"q": "x"})
        seen["after"] = await client.call_tool("multiply", {"a": 2, "b": 3})

    over_stdio(server_parameters(hostile_project / "pyproject.toml"), tmp_path / "e", session)
    assert seen["read"].structured_content == {"result": ""}
    assert seen["after"].structured_content == {"result": 6.0}


# -- malformed JSON-RPC --------------------------------------------------------------------------

INVALID_REQUEST_ID = 'invalid request: "id" must be a string or an integer'

MALFORMED = [
    # (line, id answered, code, message)
    (request(1, "tools/list", "page two"), 1, -32600, "invalid request: params must be an object"),
    (request({"a": 1}, "tools/list"), None, -32600, INVALID_REQUEST_ID),
    (request([1], "tools/list"), None, -32600, INVALID_REQUEST_ID),
    (request(2.5, "tools/list"), None, -32600, INVALID_REQUEST_ID),
    (request(3.0, "tools/list"), None, -32600, INVALID_REQUEST_ID),
    (request(True, "tools/list"), None, -32600, INVALID_REQUEST_ID),
    (request(None, "tools/list"), None, -32600, INVALID_REQUEST_ID),
    ('{"jsonrpc": "2.0", "id": NaN, "method": "tools/list"}', None, -32600, INVALID_REQUEST_ID),
    (
        request(4, "tools/list").replace('"2.0"', '"1.0"'),
        4,
        -32600,
        'invalid request: "jsonrpc" must be "2.0"',
    ),
    ('{"id": 5, "method": "tools/list"}', 5, -32600, 'invalid request: "jsonrpc" must be "2.0"'),
    (request(6, "tools/list", [1, 2]), 6, -32602, "invalid params: params must be an object"),
    ('{"jsonrpc": "2.0", "id": 7}', 7, -32600, 'invalid request: "method" must be a string'),
    (
        tools_call(8, "calculator", {"a": "deep"}).replace('"deep"', deep_text(10_000)),
        8,
        -32602,
        "invalid params: nested too deeply",
    ),
    (
        tools_call(9, "calculator", {"a": "deep"}).replace('"deep"', deep_text(500)),
        9,
        -32602,
        "invalid params: nested too deeply",
    ),
    (
        '{"jsonrpc": "2.0", "id": 14, "method": "ping", "x": ' + deep_text(10_000) + "}",
        14,
        -32600,
        "invalid request: nested too deeply",
    ),
    (
        '{"jsonrpc": "2.0", "method": "ping", "id": ' + deep_text(10_000) + "}",
        None,
        -32600,
        INVALID_REQUEST_ID,
    ),
    (deep_text(10_000), None, -32600, "invalid request: not a JSON object"),
    (
        '{"jsonrpc": "2.0", "id": "x", "method": "tools/list", "params": {"cursor": "1"',
        None,
        -32700,
        "parse error: Expecting ',' delimiter: line 1 column 79 (char 78)",
    ),
    (
        json.dumps([json.loads(request(10, "tools/list"))]),
        None,
        -32600,
        "invalid request: not a JSON object (batches are not supported)",
    ),
    ('"tools/list"', None, -32600, "invalid request: not a JSON object"),
    (
        tools_call(11, "calculator", [1, 2]),
        11,
        -32602,
        'invalid params: "arguments" must be an object',
    ),
    (
        request(12, "tools/call", {"name": 5}),
        12,
        -32602,
        'invalid params: tools/call needs "name", a string',
    ),
    (
        request(13, "x" * 100_000),
        13,
        -32601,
        "method not found: " + quote("x" * 100_000),
    ),
]


@pytest.mark.parametrize(("line", "request_id", "code", "message"), MALFORMED)
def test_check_line(line: str, request_id: Any, code: int, message: str) -> None:
    rejected = check_line(line)
    assert rejected is not None
    assert (rejected.id, rejected.code, rejected.message, rejected.answer) == (
        request_id,
        code,
        message,
        True,
    )


@pytest.mark.parametrize(
    "line",
    [
        request(1, "tools/list"),
        request("a", "tools/list", {"cursor": "1"}),
        tools_call(2, "calculator", {"a": float("nan")}),  # left to the dispatcher
        tools_call(3, "calculator", None),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps({"jsonrpc": "2.0", "id": 9, "result": {}}),
    ],
)
def test_check_line_passes_what_the_sdk_takes(line: str) -> None:
    assert check_line(line) is None


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"}',
        '{"jsonrpc": "1.0", "method": "notifications/initialized"}',
        '{"jsonrpc": "2.0", "id": 1, "result": "not an object"}',
        '{"jsonrpc": "2.0", "method": "x", "params": {"a": ' + deep_text(10_000) + "}}",
    ],
)
def test_malformed_notifications_and_responses_are_never_answered(line: str) -> None:
    rejected = check_line(line)
    assert rejected is not None and rejected.answer is False


def test_each_malformed_request_gets_exactly_one_answer(raw: RawServer) -> None:
    """Was: no answer at all (the SDK's transport drops them), so a client hangs."""
    raw.send(*(line for line, *_ in MALFORMED))
    expected = sorted((json.dumps(i), c, m) for _, i, c, m in MALFORMED)
    answers = [raw.receive() for _ in MALFORMED]
    got = sorted((json.dumps(a["id"]), a["error"]["code"], a["error"]["message"]) for a in answers)
    assert got == expected
    assert all(set(a) == {"jsonrpc", "id", "error"} for a in answers)
    # still serving, and nothing more was written for them
    raw.send(request("last", "tools/list"))
    last = raw.receive()
    assert last["id"] == "last"
    assert [t["name"] for t in last["result"]["tools"]] == [t["name"] for t in EXAMPLE_TOOLS]
    assert raw.close() == []


def test_malformed_notifications_get_no_answer_over_stdio(raw: RawServer) -> None:
    raw.send(
        '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"}',
        "",
        "   ",
        request("after", "ping"),
    )
    assert raw.receive() == {"jsonrpc": "2.0", "id": "after", "result": {}}
    assert raw.close() == []


# -- large values are quoted short --------------------------------------------------------------


def test_quote_and_cut() -> None:
    assert quote("short") == "'short'"
    assert quote("x" * QUOTE_LIMIT) == repr("x" * QUOTE_LIMIT)
    assert quote("x" * 50_000) == repr("x" * QUOTE_LIMIT) + "… (cut, 50,000 characters)"
    assert quote([1, 2]) == "[1, 2]"
    assert len(quote(list(range(100_000)))) < 2 * QUOTE_LIMIT
    assert len(quote({"k": "v" * 100_000})) < 2 * QUOTE_LIMIT
    assert quote(10**5000) == "<int>"
    assert cut("abc", 2) == "ab… (cut, 3 characters)"
    assert cut("abc") == "abc"


def test_schema_problems_quote_the_value_short() -> None:
    calculator = input_validator(example_tool("calculator")["inputSchema"])
    huge = "x" * 1_000_000
    [problem] = argument_problems(calculator, {"operation": huge, "a": 1, "b": 2})
    assert problem == {
        "path": "/operation",
        "message": quote(huge) + " is not one of ['add', 'subtract', 'multiply', 'divide']",
    }
    [problem] = argument_problems(calculator, {"operation": "add", "a": 1, "b": 2, huge: 1})
    path = ("/" + huge)[:QUOTE_LIMIT] + "… (cut, 1,000,001 characters)"
    assert problem == {"path": path, "message": "unexpected property"}


def test_many_problems_are_capped() -> None:
    calculator = input_validator(example_tool("calculator")["inputSchema"])
    arguments = {"operation": "add", "a": 1, "b": 2, **{f"k{i:03}": i for i in range(500)}}
    problems = argument_problems(calculator, arguments)
    assert len(problems) == MAX_PROBLEMS + 1  # enough to know that there are more
    error = validation_error("calculator", "t", problems).error
    assert error is not None
    assert error["fields"] == problems[:MAX_PROBLEMS]
    assert error["message"].endswith("/k009: unexpected property; more problems not shown")


def test_a_50_mb_bad_argument_gets_a_small_answer(tmp_path: Path) -> None:
    """Was: the argument echoed back four times over (message and fields, text and
    structured)."""
    huge = "x" * 50_000_000
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        arguments = {"operation": huge, "a": 1, "b": 2}
        seen["bad"] = await client.call_tool("calculator", arguments)
        with pytest.raises(MCPError) as caught:
            await client.call_tool(huge, {})
        seen["name"] = caught.value

    over_stdio(server_parameters(REPO / "pyproject.toml"), tmp_path / "err.log", session)
    answer = seen["bad"].model_dump_json(by_alias=True)
    assert len(answer) < 4_000
    error = error_of(seen["bad"])
    assert error["fields"] == [
        {
            "path": "/operation",
            "message": quote(huge) + " is not one of ['add', 'subtract', 'multiply', 'divide']",
        }
    ]
    assert "(cut, 50,000,000 characters)" in error["message"]
    assert seen["name"].code == -32602
    assert seen["name"].message.startswith(f"unknown tool {quote(huge)}; available tools: ")
    assert len(seen["name"].message) < 4_000


# -- cursors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("cursor", ["05", "+1", " 1", "1 ", "\u0661", "\u00b2", "9" * 5000, "-0"])
def test_cursors_not_issued_are_invalid(cursor: str) -> None:
    tools = [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(20)]
    with pytest.raises(MCPError) as caught:
        list_tools_page(tools, cursor, page_size=2)
    assert caught.value.code == -32602
    assert caught.value.message == f"invalid cursor {quote(cursor)}"
    assert len(caught.value.message) < 300
    assert [t.name for t in list_tools_page(tools, "18", page_size=2).tools] == ["t18", "t19"]


def test_a_5000_digit_cursor_over_stdio(tmp_path: Path) -> None:
    """Was: error code 0 with Python's "Exceeds the limit (4300 digits) ..." message."""
    seen: dict[str, Any] = {}

    async def session(client: Client) -> None:
        with pytest.raises(MCPError) as caught:
            await client.list_tools(cursor="9" * 5000)
        seen["error"] = caught.value
        seen["after"] = await client.list_tools()

    over_stdio(server_parameters(REPO / "pyproject.toml"), tmp_path / "err.log", session)
    assert seen["error"].code == -32602
    assert seen["error"].message == f"invalid cursor {quote('9' * 5000)}"
    assert "4300" not in seen["error"].message
    assert len(seen["after"].tools) == len(EXAMPLE_TOOLS)
