"""What an existing project holds, for `toolgen init`: the tool frameworks it imports, and
where it registers tools.

Nothing is imported or run. The files are parsed into a `ModuleIndex` as a build parses its
sources (`toolgen.compiler.compile_units`), and the handlers are found by the compiler's own
finder (`find_registrations`), so that `count_tools` counts what `toolgen build` finds with
the same configuration: each handler is compiled, or left out for its errors.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from toolgen.analyze.markers import PRESETS, Preset, config_presets
from toolgen.analyze.registered import find_registrations
from toolgen.config import Config, installed_packages
from toolgen.diagnostics import Diagnostic
from toolgen.read.discover import SourceFile, list_sources, search_roots, unlisted
from toolgen.read.files import MAX_SOURCE_BYTES
from toolgen.read.index import ModuleIndex

#: The marker preset that an import of each module (or of a module inside it) asks for.
FRAMEWORK_MODULES = {
    "toolgen": "toolgen",
    "fastmcp": "fastmcp",
    "mcp.server.fastmcp": "mcp",
    "mcp.server.mcpserver": "mcp",
    "mcp.server.lowlevel": "mcp",  # the low-level server: its tools are what it lists
    "mcp.server.Server": "mcp",
    "agents": "openai-agents",
    "langchain_core": "langchain",
    "langchain.tools": "langchain",
    "langchain.agents": "langchain",
    "pydantic_ai": "pydantic-ai",
}
#: Names `mcp.server` re-exports its servers by (`from mcp.server import FastMCP`).
MCP_SERVERS = frozenset({"FastMCP", "MCPServer", "fastmcp", "mcpserver", "Server", "lowlevel"})
#: How each preset's tools are named to the user ("found 18 FastMCP tools").
LABELS = {
    "toolgen": "toolgen",
    "fastmcp": "FastMCP",
    "mcp": "MCP SDK",
    "openai-agents": "OpenAI Agents",
    "langchain": "LangChain",
    "pydantic-ai": "Pydantic AI",
}
#: Folders whose tools are a test's, not the project's.
TEST_FOLDERS = frozenset({"tests", "test"})

#: Handlers by the file their registration is written in, then by preset name.
Registered = dict[Path, Counter[str]]


@dataclass
class Scan:
    """What `scan_project` found."""

    imported: list[str] = field(default_factory=list)  # presets, in `PRESETS` order
    #: the files that import a framework other than toolgen
    importing: list[Path] = field(default_factory=list)
    registered: Registered = field(default_factory=dict)
    #: registrations no static reader can follow (TG106, at the call), by file
    unfollowed: dict[Path, list[Diagnostic]] = field(default_factory=dict)
    #: the files that mount a server into another (their tools are listed by the other)
    mounting: list[Path] = field(default_factory=list)


def is_test(path: Path, project: Path) -> bool:
    """A test module, or a file in a test folder: its tools are not the project's."""
    name = path.name
    if name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py"):
        return True
    return bool(TEST_FOLDERS & set(path.relative_to(project).parts[:-1]))


def scan_project(project: Path, display: Callable[[Path], str]) -> Scan:
    """The frameworks the project's Python files import (tests aside), and the handlers
    each of those frameworks registers, by file. May raise `OSError` (a folder that cannot
    be listed)."""
    files, listing = list_sources((project,), project)
    unread = unlisted(listing)
    if unread:  # a folder that cannot be listed may hold the tools: say so, as before
        raise OSError(0, unread[0][1], unread[0][0])
    files = [f for f in files if not is_test(f.path, project)]
    index = _index(files, project, display, MAX_SOURCE_BYTES, installed_packages())
    imported: set[str] = set()
    importing: list[Path] = []
    for file in files:
        module = index.add_file(file.module, file.path)
        frameworks = _frameworks(module.tree, index) if module is not None else set()
        imported |= frameworks
        if frameworks - {"toolgen"}:
            importing.append(file.path)
    scan = Scan([name for name in PRESETS if name in imported], importing)
    if scan.imported:
        presets = [PRESETS[name] for name in scan.imported]
        scan.registered = _registrations(files, index, presets, scan.unfollowed, scan.mounting)
    return scan


def count_tools(config: Config) -> Registered:
    """The handlers `toolgen build` finds with `config`, by registration file and preset."""
    files, _ = list_sources(config.sources, config.root)
    index = _index(
        files, config.root, config.display, config.max_source_bytes, config.library_paths
    )
    return _registrations(files, index, config_presets(config), {})


def _index(
    files: list[SourceFile],
    root: Path,
    display: Callable[[Path], str],
    limit: int,
    libraries: tuple[Path, ...],
) -> ModuleIndex:
    """The index a build of `files` reads them with (`compile_units`)."""
    return ModuleIndex(search_roots(files, root), display, limit, libraries, root)


def _registrations(
    files: list[SourceFile],
    index: ModuleIndex,
    presets: list[Preset],
    unfollowed: dict[Path, list[Diagnostic]],
    mounting: list[Path] | None = None,
) -> Registered:
    found: Registered = {}
    for file in files:
        module = index.add_file(file.module, file.path)
        if module is None:  # unreadable or not Python: the build says so
            continue
        registrations = find_registrations(module, index, presets)
        if registrations.unfollowed:
            unfollowed[file.path] = registrations.unfollowed
        if registrations.mounts and mounting is not None:
            mounting.append(file.path)
        counted = Counter(h.preset.name for h in registrations.handlers)
        counted.update(tool.preset for tool in registrations.listed)  # servers' listed tools
        if counted:
            found[file.path] = counted
    return found


def _frameworks(tree: ast.Module, index: ModuleIndex) -> set[str]:
    """The presets the imports anywhere in `tree` ask for. A module the project itself
    defines (its own `agents` package) is not the framework."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module == "mcp.server":
                names += [f"mcp.server.{a.name}" for a in node.names if a.name in MCP_SERVERS]
        else:
            continue
        for name in names:
            for prefix, preset in FRAMEWORK_MODULES.items():
                if name != prefix and not name.startswith(prefix + "."):
                    continue
                if index.get(name.split(".")[0]) is None:  # not a module of the project's own
                    found.add(preset)
    return found
