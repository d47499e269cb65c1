"""Hover of `toolgen lsp`: on a tool's decorator or `def` lines, what the last compile made of
it, as Markdown: its contract (risk, how it is gated, permissions, side effects, errors, dry
run, idempotency, as its descriptor has them), its entry in each platform's payload (the name
and the size, in characters and tokens as `toolgen stats` counts them), and whether the
checked-in generated files hold what a build would write for it now (the descriptor file, and
the tool's entry in each payload), with a short diff where they do not.

No protocol server here: `Hovers.hover` gives lsprotocol's `Hover`, and `server` asks for it.
A tool is found by where the compile says its handler is (`Generated.locations`: the `def`
line, or the call that lists it), its decorators and signature lines with it in the buffer
as it is now.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from toolgen.config import Config
from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import Location
from toolgen.incremental.spool import Content, as_bytes
from toolgen.lsp.live import located
from toolgen.lsp.ranges import lines_of, utf16
from toolgen.pipeline import Generated
from toolgen.read.files import Unreadable, read_capped
from toolgen.read.index import Unparsable, parse_python
from toolgen.render.registry import payloads
from toolgen.stats import CHARS_PER_TOKEN, entry_name
from toolgen.textdiff import unified_diff

#: The most diff lines a hover shows (the rest are counted).
DIFF_LINES = 30
#: The largest checked-in file a hover reads (a payload of ten thousand tools is far less).
MAX_READ = 64 << 20

Entries = dict[str, dict[str, Any]]  # a payload's entries, by tool name


@dataclass(frozen=True)
class _Tool:
    name: str  # qualified: `catalog/name` in a project of several servers
    descriptor: ToolDescriptor | None  # None: left out for its errors

    @property
    def catalog(self) -> str:
        return self.name.rpartition("/")[0]


class Hovers:
    """Hovers over one project's compiles. Keeps each payload it parsed (of a compile, and
    on disk) until it changes: hovering reads them again and again."""

    def __init__(self) -> None:
        self._made: dict[str, tuple[Content, Entries]] = {}  # by path in `out`
        self._disk: dict[Path, tuple[tuple[int, int, int], bytes | None, Entries | None]] = {}

    def hover(
        self, config: Config, result: Generated, path: Path, text: str, line: int
    ) -> types.Hover | None:
        """The hover at 0-based `line` of the file `path` (absolute), whose buffer is
        `text`; None when no tool is defined there."""
        found = tools_at(config, result, path, text, line)
        if found is None:
            return None
        tools, (first, last) = found
        parts = [self._tool(config, result, tool) for tool in tools]
        lines = lines_of(text)
        end = utf16(lines[last], len(lines[last])) if last < len(lines) else 0
        where = types.Range(types.Position(first, 0), types.Position(last, end))
        content = types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(parts))
        return types.Hover(content, where)

    def _tool(self, config: Config, result: Generated, tool: _Tool) -> str:
        descriptor = tool.descriptor
        if descriptor is None:
            return (
                f"**`{tool.name}`**: left out of the generated files for its errors "
                "(see its diagnostics)"
            )
        out: list[str] = [f"**`{tool.name}`** (toolgen tool)", ""]
        out += contract(descriptor)
        out += ["", *self._payloads(result, tool, descriptor)]
        out += ["", *self._drift(config, result, tool)]
        return "\n".join(out)

    # -- the payloads ------------------------------------------------------------------------
    def _payloads(self, result: Generated, tool: _Tool, descriptor: ToolDescriptor) -> list[str]:
        rows = ["| payload | name | characters | ~tokens |", "|---|---|--:|--:|"]
        name = descriptor.name
        for label, (path, key) in payloads().items():
            entries = self._made_entries(result, _in_catalog(tool, path), key)
            if entries is None:
                continue  # a platform not configured
            entry = entries.get(name)
            if entry is None:
                rows.append(f"| {label} | left out: {_left_out(result, descriptor)} | | |")
                continue
            chars = len(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
            tokens = -(-chars // CHARS_PER_TOKEN)
            rows.append(f"| {label} | `{entry_name(entry)}` | {chars:,} | {tokens:,} |")
        return rows if len(rows) > 2 else ["No platform payload is configured."]

    def _made_entries(self, result: Generated, path: str, key: str) -> Entries | None:
        """The entries of the payload `path` of `result`, by name (None: not rendered)."""
        content = result.files.get(path)
        if content is None:
            return None
        kept = self._made.get(path)
        if kept is not None and kept[0] is content:
            return kept[1]
        entries = _entries(json.loads(as_bytes(content)), key) or {}
        self._made[path] = (content, entries)
        return entries

    # -- the checked-in files ----------------------------------------------------------------
    def _drift(self, config: Config, result: Generated, tool: _Tool) -> list[str]:
        """Whether the checked-in files hold this tool as the compile made it, with a short
        diff of what differs."""
        assert tool.descriptor is not None
        name = tool.descriptor.name
        shown = config.display(config.out)
        described = _in_catalog(tool, f"descriptors/{name}.json")
        made = result.files.get(described)
        if made is None:
            return []
        on_disk, _ = self._read(config.out / described, None)
        if on_disk is None:
            return [f"Not in the checked-in files yet: no `{shown}/{described}` (save to build)."]
        differ: list[str] = []  # the descriptor file, when it differs
        entries: list[str] = []  # the payloads whose entry for the tool differs
        diffs: list[str] = []
        new = as_bytes(made)
        if on_disk != new:
            differ.append(f"`{described}`")
            diffs += _diff(on_disk.decode("utf-8", "replace"), new.decode(), described)
        for label, (path, key) in payloads().items():
            where = _in_catalog(tool, path)
            made_entries = self._made_entries(result, where, key)
            if made_entries is None or name not in made_entries:
                continue
            _, checked = self._read(config.out / where, key)
            old = (checked or {}).get(name)
            if old == made_entries[name]:
                continue
            entries.append(label)
            if not diffs:  # the descriptor's diff says it, when it differs
                before = "" if old is None else json.dumps(old, indent=2, ensure_ascii=False)
                after = json.dumps(made_entries[name], indent=2, ensure_ascii=False)
                diffs += _diff(before + "\n", after + "\n", f"{where} ({name})")
        if entries:
            differ.append(f"its entry in {', '.join(entries)}")
        if not differ:
            return [f"Matches the checked-in files (`{shown}`)."]
        said = [f"Differs from the checked-in files (`{shown}`): {'; '.join(differ)}."]
        if len(diffs) > DIFF_LINES:
            diffs = [*diffs[:DIFF_LINES], f"... {len(diffs) - DIFF_LINES} more lines"]
        return [*said, "", "```diff", *diffs, "```"]

    def _read(self, path: Path, key: str | None) -> tuple[bytes | None, Entries | None]:
        """The bytes of a checked-in file (None: there is none) and, with `key`, its entries
        by name; read again only when the file changes."""
        try:
            st = path.stat()
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            return None, None
        kept = self._disk.get(path)
        if kept is not None and kept[0] == stamp and (key is None or kept[2] is not None):
            return kept[1], kept[2]
        try:
            data: bytes | None = read_capped(str(path), MAX_READ)
        except Unreadable:
            data = None
        entries = None
        if key is not None and data is not None:
            try:
                entries = _entries(json.loads(data), key)
            except (ValueError, RecursionError):  # not JSON: every entry differs
                entries = {}
        self._disk[path] = (stamp, data, entries)
        return data, entries


def tools_at(
    config: Config, result: Generated, path: Path, text: str, line: int
) -> tuple[list[_Tool], tuple[int, int]] | None:
    """The tools defined at 0-based `line` of `path` (whose buffer is `text`), and the lines
    of the definition (its decorators and signature); None when there are none."""
    descriptors = dict(zip(result.names, result.descriptors, strict=False))
    places: list[tuple[str, Location]] = [*result.locations.items(), *result.left_out]
    mine = [(name, where) for name, where in places if located(where, config.cwd) == path]
    if not mine:
        return None
    headers = _headers(text)
    for _, where in mine:
        first, last = headers.get(where.line, (where.line, where.line))
        if first - 1 <= line <= last - 1:
            at = [n for n, w in mine if w.line == where.line]
            tools = [_Tool(n, descriptors.get(n)) for n in dict.fromkeys(at)]
            tools.sort(key=lambda t: t.descriptor is None)
            return tools, (first - 1, last - 1)
    return None


def _headers(text: str) -> dict[int, tuple[int, int]]:
    """Each function's `def` line -> the lines of its decorators and signature (1-based)."""
    try:
        tree = parse_python(text)
    except Unparsable:
        return {}
    found: dict[int, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            last = max(node.lineno, node.body[0].lineno - 1)
            found[node.lineno] = (first, last)
    return found


def contract(descriptor: ToolDescriptor) -> list[str]:
    """The contract of `descriptor`, as a Markdown list."""
    d = descriptor
    origins = d.origins or {}

    def source(key: str) -> str:
        layer = origins.get(key)
        return f" (from the {'contract table' if layer == 'contract' else layer})" if layer else ""

    out = [f"- **risk**: `{d.risk}`{source('risk')}"]
    gate = ["runs autonomously" if d.autonomous else "not autonomous"]
    if d.confirmation:
        gate.append("asks for confirmation")
    elif d.confirmation_reason:
        gate.append(f"confirmation waived: {d.confirmation_reason}")
    else:
        gate.append("no confirmation")
    if d.step_up_auth is True:
        gate.append("step-up authentication")
    elif d.step_up_auth:
        gate.append(f"step-up authentication {d.step_up_auth}")
    out.append(f"- **gate**: {', '.join(gate)}{source('confirmation')}")
    if d.permissions:
        permissions = ", ".join(f"`{p}`" for p in d.permissions)
        out.append(f"- **permissions**: {permissions}{source('permissions')}")
    if d.side_effects:
        out.append(f"- **side effects**: {'; '.join(d.side_effects)}{source('side_effects')}")
    if d.errors:
        errors = ", ".join(
            f"`{e.code}` {e.http_status}{' retryable' if e.retryable else ''}" for e in d.errors
        )
        out.append(f"- **errors**: {errors}")
    if d.dry_run:
        out.append(f"- **dry run**: {d.dry_run}{source('dry_run')}")
    hints = d.idempotency
    said = [
        f"{label}: {'yes' if value else 'no'}"
        for label, value in (
            ("idempotent", hints.idempotent),
            ("read-only", hints.safe),
            ("destructive", hints.destructive),
            ("open world", hints.open_world if hints.open_world is not None else d.open_world),
        )
        if value is not None
    ]
    if said:
        out.append(f"- **idempotency**: {', '.join(said)}")
    if d.deprecated:
        instead = f": use `{d.replacement}`" if d.replacement else ""
        out.append(f"- **deprecated**{instead}")
    return out


def _in_catalog(tool: _Tool, path: str) -> str:
    """`path` (relative to `out`) in the folder of the tool's catalog."""
    return f"{tool.catalog}/{path}" if tool.catalog else path


def _entries(document: Any, key: str) -> Entries | None:
    """A payload document's tool entries by name (None: not a payload's shape)."""
    found = document if key == "list" else (document or {}).get(key)
    if not isinstance(found, list):
        return None
    return {entry_name(e): e for e in found if isinstance(e, dict)}


def _left_out(result: Generated, descriptor: ToolDescriptor) -> str:
    """Why a tool is not in a payload: its risk, or what rendering said (TG6xx)."""
    if not descriptor.visible:
        return f"risk `{descriptor.risk}`"
    codes = sorted(
        {
            d.code
            for d in result.diagnostics
            if d.code.startswith("TG6") and d.message.startswith(f"tool {descriptor.name}: ")
        }
    )
    return ", ".join(codes) or "see the diagnostics"


def _diff(old: str, new: str, name: str) -> list[str]:
    lines = unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{name}", f"b/{name}"
    )
    return [line.rstrip("\n") for line in lines]
