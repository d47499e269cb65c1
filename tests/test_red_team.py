"""Hostile sources of our own (red-team issue, after parts 4-6): a sample of the several
hundred tried, kept as fast tests. Each is built in a fresh project (`test_fuzz`'s contract:
a located diagnostic or a clean build, never a traceback, nothing written outside `out`), and
`check` after it agrees with the build: green after exit 0, red after exit 1, never green
while a file the manifest lists is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import tool_source
from test_fuzz import CONFIG, _project, _run, assert_diagnostics_only

FASTMCP = CONFIG + 'markers = ["fastmcp"]\n'


def _typed(annotation: str, defined: str) -> str:
    return tool_source("lookup", f"x: {annotation}", imports=defined)


def _returning(annotation: str, defined: str) -> str:
    return tool_source("lookup", "q: int", imports=defined, returns=annotation)


def _default(value: str, annotation: str = "object") -> str:
    return tool_source("lookup", f"x: {annotation} = {value}")


def _server(name: str, tool: str = "f", module_header: bool = True) -> str:
    head = "from fastmcp import FastMCP\n" if module_header else ""
    return (
        f"{head}{name} = FastMCP('{name}')\n\n\n@{name}.tool\n"
        f"def {tool}(q: str) -> str:\n    '''Look {tool} up.'''\n    return q\n"
    )


RECURSIVE = {
    "alias of itself": "A = list['A']\n",
    "aliases of each other": "A = list['B']\nB = dict[str, 'A']\n",
    "bare alias cycle": "A = 'B'\nB = 'A'\n",
    "PEP 695 cycle": "type A = B\ntype B = A\n",
    "model of itself": "from pydantic import BaseModel\nclass A(BaseModel):\n    a: 'A'\n",
    "TypedDict of itself": "from typing import TypedDict\nclass A(TypedDict):\n    a: 'A'\n",
    "dataclass of itself": "from dataclasses import dataclass\n@dataclass\nclass A:\n"
    "    a: 'A | None' = None\n",
    "class bases in a cycle": "class A('B'):\n    x: int\nclass B(A):\n    y: int\n",
    "enum member of itself": "import enum\nclass A(enum.Enum):\n    a = 1\n    b = A.a\n",
    "model config of itself": "from pydantic import BaseModel\nclass A(BaseModel):\n"
    "    model_config = A.model_config\n    x: int\n",
}

BOMBS = [
    "10**10**10",
    "'a' * 10**10",
    "[0] * 10**9",
    "str(10**100000)",
    f"int('{'9' * 5000}')",
    "1 << 10**9",
    "'%999d' % 1 * 10**7",
    "__import__('os').system('exit 3')",
    "float('nan')",
    f"{'9' * 5000}",
]

MATCH = "match 1:\n    case 1:\n        Y = int\n    case _:\n        Y = str"
SOURCES: dict[str, dict[str, str]] = {
    **{f"recursive: {k}": {"src/t.py": _typed("A", v)} for k, v in RECURSIVE.items()},
    **{f"recursive return: {k}": {"src/t.py": _returning("A", v)} for k, v in RECURSIVE.items()},
    **{f"default {b[:24]}": {"src/t.py": _default(b)} for b in BOMBS},
    **{
        f"decorator {b[:24]}": {"src/t.py": tool_source(decorator=f"@tool(title={b})")}
        for b in BOMBS
    },
    "bases in a cycle across modules": {
        "src/pkg/__init__.py": "",
        "src/pkg/a.py": "from pkg.b import B\nclass A(B):\n    x: int\n",
        "src/pkg/b.py": "from pkg.a import A\nclass B(A):\n    y: int\n",
        "src/pkg/t.py": _typed("A", "from pkg.a import A"),
    },
    "star imports in a cycle": {
        "src/pkg/__init__.py": "",
        "src/pkg/a.py": "from pkg.b import *\nX = 1\n",
        "src/pkg/b.py": "from pkg.a import *\nY = 2\n",
        "src/pkg/t.py": tool_source(params="x: int = Y", imports="from pkg.a import *"),
    },
    "a module importing itself": {
        "src/t.py": tool_source(params="x: int = t.Z", imports="import t\nfrom t import *\nZ = 3")
    },
    "__all__ tricks": {
        "src/pkg/__init__.py": "",
        "src/pkg/a.py": "__all__ = ['M'] + other\n__all__ += [1, None]\n__all__ *= 100\nM = int\n",
        "src/pkg/t.py": _typed("M", "from pkg.a import *"),
    },
    "names shadowing builtins and typing": {
        "src/t.py": _typed(
            "Optional[List[str]] = None",
            "from typing import Optional, List\nstr = int\nList = dict\nclass int:\n    pass",
        )
    },
    "match statements": {"src/t.py": _typed("Y", MATCH)},
    "NFKC twins": {"src/t.py": tool_source("ﬁnd") + tool_source("find").split("\n\n\n")[1]},
    "a 10,000-decorator handler": {
        "src/t.py": tool_source(decorator="@tool\n" + "@d\n" * 10_000, imports="d = tool")
    },
    "f-string docstring": {"src/t.py": tool_source().replace('    """Look', '    f"""Look')},
    "a docstring status of 5,000 digits": {
        "src/t.py": tool_source(extra_doc=f"\n    Errors:\n        E ({'9' * 5000}, retry): X.\n")
    },
    "an example nested 5,000 deep": {
        "src/t.py": tool_source(
            extra_doc="\n    Examples:\n        >>> lookup(query='x')\n        "
            + "[" * 5000
            + "]" * 5000
            + "\n"
        )
    },
    **{
        f"tool named {name!r}": {"src/t.py": tool_source(decorator=f"@tool(name={name!r})")}
        for name in ["", "..", "a/b", "manifest.json", "descriptors", "x" * 300, "a\x00b", "café"]
    },
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_hostile_sources(name: str) -> None:
    _contract(SOURCES[name])


MANIFEST_LIKE = ["manifest", "_manifest", "x"]  # `json` in each: manifest.json, _manifest.json
SERVERS: dict[str, dict[str, str]] = {
    "a server mounted into itself": {
        "src/s.py": _server("mcp") + "mcp.mount(mcp, namespace='x')\n",
    },
    "servers mounted into each other": {
        "src/s.py": _server("a") + _server("b", "g", False) + "a.mount(b)\nb.mount(a)\n",
    },
    "servers named like out's folders": {
        "src/s.py": "".join(
            _server(n, "f", i == 0) for i, n in enumerate(["mcp", "descriptors", "python"])
        ),
    },
    "servers named alike but for case": {
        "src/s.py": "".join(_server(n, "f", i == 0) for i, n in enumerate(["Mcp", "mcp", "MCP"])),
    },
    "a server named in Cyrillic": {"src/s.py": _server("сервер") + _server("b", "g", False)},
    "servers json in manifest.py, _manifest.py and x.py": {
        f"src/{m}.py": _server("json", f"f{i}") for i, m in enumerate(MANIFEST_LIKE)
    },
    "a factory that calls itself": {
        "src/s.py": "def make():\n    return make()\nmcp = make()\n"
        + _server("mcp").split("\n", 2)[2].replace("mcp = FastMCP('mcp')\n", "")
    },
}


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_hostile_servers(name: str) -> None:
    _contract(SERVERS[name], FASTMCP)


def _contract(files: dict[str, str], config: str = CONFIG) -> None:
    code, _ = assert_diagnostics_only(dict(files), config=config)
    with _project(dict(files), config) as root:
        built, out, _ = _run(root, "build")
        assert built == code, out[-3000:]
        checked, out, _ = _run(root, "check")
        assert (checked == 0) == (built == 0), out[-3000:]
        _listed_files_exist(root / "generated")


def _listed_files_exist(out: Path) -> None:
    manifest = out / "manifest.json"
    if manifest.is_file():
        for path in json.loads(manifest.read_text())["files"]:
            assert (out / path).is_file(), f"{path} is listed and was never written"
