"""Record what a framework version really publishes for the publication fixtures.

    python scripts/record_published.py --python VENV/bin/python fastmcp|mcp

Runs the fixture server (`tests/fixtures/published/fastmcp_tools.py` or `sdk_tools.py`) with
the interpreter `--python` (a virtual environment with the framework version to record:
`python3 -m venv /tmp/fm3 && /tmp/fm3/bin/pip install fastmcp==3.4.11`), lists its tools over
stdio with the official MCP client of this interpreter (an `initialize` handshake, as clients
do), and writes them, sorted by name, as `model_dump(mode="json", by_alias=True,
exclude_none=True)` to `tests/fixtures/published/recorded/<framework>-<version>.json`.
`tests/test_publication.py` builds the fixture with `framework_versions` set to that version
and compares toolgen's `mcp/tools.json` with the file, key order included.

The MCP SDK fixture is written for mcp 2 (`mcp.server.mcpserver.MCPServer`); under mcp 1.x the
server side maps that module to `mcp.server.fastmcp`, whose `FastMCP` takes the same arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
RECORDED = FIXTURES / "published" / "recorded"
SERVERS = {"fastmcp": ("published.fastmcp_tools", "mcp"), "mcp": ("published.sdk_tools", "server")}


def serve(module: str, attr: str) -> None:
    """Run the fixture server over stdio (in the recorded version's interpreter)."""
    try:
        importlib.import_module("mcp.server.mcpserver")
    except ImportError:  # mcp 1.x: the same server under its old name
        v1 = importlib.import_module("mcp.server.fastmcp")
        shim = types.ModuleType("mcp.server.mcpserver")
        shim.MCPServer = v1.FastMCP  # type: ignore[attr-defined]
        shim.Context = v1.Context  # type: ignore[attr-defined]
        sys.modules["mcp.server.mcpserver"] = shim
    sys.path.insert(0, str(FIXTURES))
    getattr(importlib.import_module(module), attr).run()


def version_of(python: str, framework: str) -> str:
    code = f"from importlib.metadata import version; print(version({framework!r}))"
    return subprocess.run(
        [python, "-c", code], check=True, capture_output=True, text=True
    ).stdout.strip()


async def listed(python: str, module: str, attr: str) -> list[dict[str, Any]]:
    """The tools the server `attr` of the fixture module `module` (under tests/fixtures/)
    lists when `python` runs it, as a client gets them."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=python,
        args=[str(Path(__file__).resolve()), "--serve", module, attr],
        env={"PATH": os.environ.get("PATH", ""), "FASTMCP_SHOW_CLI_BANNER": "false"},
    )
    with open(os.devnull, "w") as quiet:
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.list_tools()
    tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools]
    return sorted(tools, key=lambda t: t["name"])


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    parser.add_argument("framework", choices=sorted(SERVERS))
    args = parser.parse_args()
    version = version_of(args.python, args.framework)
    tools = asyncio.run(listed(args.python, *SERVERS[args.framework]))
    out = RECORDED / f"{args.framework}-{version}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(tools, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out.relative_to(REPO)}: {len(tools)} tools")


if __name__ == "__main__":
    main()
