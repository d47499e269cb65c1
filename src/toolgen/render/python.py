"""Typed Python for callers of the tools: a TypedDict of arguments per tool, a Literal of the
tool names and the descriptors' paths, in black's style (generated/python/tools.py).

The module is written in black's own layout block by block; only a block that black would lay
out differently (a line over 100 characters, a docstring of several lines) goes through black
itself. Formatting the whole module with black costs seconds at a thousand tools; the result is
the same bytes, which the tests check with black.

black's time grows faster than the block (20,000 values of one `Literal`: 5 s; 100,000: about
100 s), so a `Literal` of many values goes to black as a few stand-in values as wide as the
widest, which black lays out one per line as it would the real ones; the values are then put
where the stand-ins are (`_StandIns`).
"""

from __future__ import annotations

import functools
import itertools
import json
import keyword
import re
import string
import textwrap
from collections.abc import Callable, Iterable
from typing import Any, Protocol, overload

from toolgen.quoting import visible


def render(
    tools: Iterable[Any],
    report: Any,
    options: Any = None,
    *,
    memo: Memo | StoredMemo | None = None,
) -> dict[str, Any]:
    """The module (`python_module`: `Typed` tools, `Keyed` with a `StoredMemo`); with a
    `memo`, each tool's blocks are kept in it for the next call."""
    return {"python/tools.py": python_module(tools, memo)}


_WORD_BREAK = re.compile(r"[^A-Za-z0-9]+")


@functools.lru_cache(maxsize=4096)
def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in _WORD_BREAK.split(name) if part)


#: The names the module defines or imports itself: a model named `Literal` or `ToolName` gets
#: another name, not one that hides them.
_MODULE_NAMES = frozenset(
    [
        "annotations",
        "Any",
        "Literal",
        "NotRequired",
        "TypedDict",
        "ToolName",
        "DESCRIPTORS",
        "ARGUMENTS",
    ]
)


class _Writer:
    """Collects class and alias definitions, one per distinct schema."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.names: dict[str, str] = {}  # canonical schema JSON -> Python name
        self.taken: set[str] = set()
        self.log: list[tuple[str, str]] = []  # each name taken: (its schema's key or "", name)
        self.stand_ins = _StandIns()

    def unique(self, wanted: str, key: str = "") -> str:
        if not wanted or wanted[0].isdigit():  # `1abc` (a tool's name), `` (a model `ñ`)
            wanted = f"_{wanted}"
        name, n = wanted, 2
        while name in self.taken or keyword.iskeyword(name) or name in _MODULE_NAMES:
            name, n = f"{wanted}{n}", n + 1
        self.taken.add(name)
        self.log.append((key, name))
        return name

    def replay(self, blocks: list[str], log: tuple[tuple[str, str], ...]) -> None:
        """Do again what a tool did (`Memo`): add its blocks, take its names."""
        self.blocks.extend(blocks)
        self.log.extend(log)
        for key, name in log:
            self.taken.add(name)
            if key:
                self.names[key] = name

    def named(self, wanted: str, schema: dict[str, Any], defs: dict[str, Any]) -> str:
        key = json.dumps([wanted, schema], sort_keys=True)
        if key in self.names:
            return self.names[key]
        name = self.unique(wanted, key)
        self.names[key] = name
        if schema.get("type") == "object" and "properties" in schema:
            self.blocks.append(self.typed_dict(name, schema, defs))
        else:
            alias = self.stand_ins.black_style(
                lambda: f"{name} = {self.type_of(schema, defs, name)}\n"
            )
            self.blocks.append(alias)
        return name

    def typed_dict(self, name: str, schema: dict[str, Any], defs: dict[str, Any]) -> str:
        return self.stand_ins.black_style(lambda: self._typed_dict(name, schema, defs))

    def _typed_dict(self, name: str, schema: dict[str, Any], defs: dict[str, Any]) -> str:
        required = set(schema.get("required", []))
        items = []
        for key, prop in schema.get("properties", {}).items():
            annotation = self.type_of(prop, defs, f"{name}{_camel(key)}")
            if key not in required:
                annotation = f"NotRequired[{annotation}]"
            items.append((key, annotation, prop.get("description")))
        doc = schema.get("description")
        if all(k.isidentifier() and not keyword.iskeyword(k) for k, _, _ in items):
            body = [f'    """{_doc(doc)}"""\n'] + (["\n"] if items else []) if doc else []
            for key, annotation, description in items:
                if description:  # wrapped: black leaves a comment's length as it is
                    body += [f"    #: {line}\n" for line in _comment_lines(description)]
                body.append(f"    {key}: {annotation}\n")
            block = f"class {name}(TypedDict):\n" + ("".join(body) or "    pass\n")
        else:
            fields = [f"{json.dumps(k)}: {a}" for k, a, _ in items]
            block = _collection(f"{name} = TypedDict({json.dumps(name)}, {{", fields, "})")
        return block

    def type_of(self, schema: dict[str, Any], defs: dict[str, Any], hint: str) -> str:
        if "$ref" in schema:
            ref = str(schema["$ref"]).removeprefix("#/$defs/")
            return self.named(_camel(ref), defs.get(ref, {}), defs)
        if "const" in schema:
            return f"Literal[{_literal(schema['const'])}]"
        if "enum" in schema:
            return f"Literal[{self.stand_ins.members([_literal(v) for v in schema['enum']])}]"
        if "anyOf" in schema:
            return " | ".join(dict.fromkeys(self.type_of(b, defs, hint) for b in schema["anyOf"]))
        kind = schema.get("type")
        if isinstance(kind, list):
            return " | ".join(self.type_of({**schema, "type": k}, defs, hint) for k in kind)
        if kind == "array":
            if "prefixItems" in schema:
                members = [self.type_of(s, defs, hint) for s in schema["prefixItems"]]
                return f"tuple[{', '.join(members) or '()'}]"
            return f"list[{self.type_of(schema.get('items', {}), defs, hint)}]"
        if kind == "object":
            if schema.get("properties"):
                return self.named(hint, schema, defs)
            extra = schema.get("additionalProperties", True)
            value = "Any" if extra in (True, False) else self.type_of(extra, defs, hint)
            return f"dict[str, {value}]"
        if kind == "string" and schema.get("contentMediaType") == "application/json":
            return "str"
        return {
            "string": "str",
            "integer": "int",
            "number": "float",
            "boolean": "bool",
            "null": "None",
        }.get(str(kind), "Any")


def _literal(value: Any) -> str:
    if value is None or isinstance(value, bool | int):
        return repr(value)
    # JSON escapes the C0 controls; DEL and C1 as escapes too (the same string)
    return visible(json.dumps(value, ensure_ascii=False)) if isinstance(value, str) else "Any"


LINE_LENGTH = 100


class _BlackCalls:
    """How many blocks black has formatted in this process (`StoredMemo` keeps no tool that
    needed it)."""

    calls = 0


_BLACK = _BlackCalls()


def _collection(opening: str, items: list[str], closing: str) -> str:
    """A bracketed list the way black writes it: on one line when it fits, else one item per
    line with a trailing comma."""
    line = f"{opening}{', '.join(items)}{closing}"
    if len(line) <= LINE_LENGTH or not items:
        return line + "\n"
    return opening + "\n" + "".join(f"    {item},\n" for item in items) + closing + "\n"


def _black_style(block: str) -> str:
    """`block` as black writes it: as it is when it already is, else formatted by black."""
    simple_docs = all(
        line.count('"""') in (0, 2) and not line.rstrip().endswith('\\"""')
        for line in block.splitlines()
    )
    if simple_docs and all(len(line) <= LINE_LENGTH for line in block.splitlines()):
        return block
    _BLACK.calls += 1
    from black import format_str  # only a block black would change needs black
    from black.mode import Mode, TargetVersion

    mode = Mode(line_length=LINE_LENGTH, target_versions={TargetVersion.PY311})
    return format_str(block, mode=mode)


class _StandIns:
    """black's layout of a block with `Literal`s of many values, in time that grows with the
    block: black gets a few stand-in values for each such `Literal`, and the values go where
    it put them, one per line.

    black puts the values of a `Literal` one per line when they do not fit on one line; what
    else it decides depends on them only through that, and through whether each line it would
    make fits (its "second opinion"). So the stand-ins are as wide as the widest value
    (black's width: East Asian wide characters count 2), and too many to fit on one line too
    (tests/test_hostile_nesting.py compares with black given the values). Each `Literal` has
    its own stand-in, a string no other text of the block holds. Values black would write
    otherwise (a string with a `\\"`, which it requotes) are not stood in for; a block that
    black did not lay out as expected (a stand-in not on lines of its own) is made again with
    the values themselves."""

    def __init__(self) -> None:
        self.groups: dict[str, tuple[str, int, list[str]]] = {}  # values -> stand-in, count, values
        self.used: list[str] = []  # the stand-ins of the blocks being made, in order
        self.off = False  # while a block is made again without stand-ins

    def members(self, values: list[str]) -> str:
        """`values` as the members of a `Literal[...]` in a block: a few stand-ins for many."""
        text = ", ".join(values)
        if self.off or len(values) < _MANY_VALUES or any('\\"' in v for v in values):
            return text
        if text not in self.groups:
            # a stand-in is a string: 3 wide at least, as wide as narrower values for black,
            # which puts each of more values than fit on a line on a line of its own
            width = max(3, *map(_width, values))
            stand_in = _stand_in(len(self.groups), width)
            if stand_in is None:
                return text
            count = max(2, (LINE_LENGTH + 2) // (width + 2) + 1)  # more than fit on a line
            self.groups[text] = (stand_in, count, values)
        stand_in, count, _ = self.groups[text]
        self.used.append(text)
        return ", ".join([stand_in] * count)

    def black_style(self, make: Callable[[], str]) -> str:
        """The block `make` returns, as black writes it (`_black_style`), with the values of
        the stand-ins in it."""
        first = len(self.used)
        block = make()
        used = [self.groups[text] for text in dict.fromkeys(self.used[first:])]
        del self.used[first:]  # the blocks made inside this one took theirs already
        if used:
            laid_out = _put_back(block, _black_style(block), used)
            if laid_out is not None:
                return laid_out
            self.off = True
            try:
                block = make()
            finally:
                self.off = False
        return _black_style(block)


#: How many values a `Literal` has before it goes to black as stand-ins; black takes about
#: 30 ms for this many, and its time grows faster than the number of values.
_MANY_VALUES = 128
_STAND_IN_CHARS = "~^`|" + string.ascii_letters + string.digits


def _width(text: str) -> int:
    """How wide black takes `text` to be on a line."""
    if text.isascii():
        return len(text)
    from black.strings import str_width

    return int(str_width(text))


def _stand_in(number: int, width: int) -> str | None:
    """The `number`th stand-in of `width` characters (a string literal), if there is one."""
    inner = ""
    while number or not inner:
        number, digit = divmod(number, len(_STAND_IN_CHARS))
        inner += _STAND_IN_CHARS[digit]
    if len(inner) > width - 2:
        return None
    return f'"{inner.ljust(width - 2, "~")}"'


def _put_back(block: str, formatted: str, used: Iterable[tuple[str, int, list[str]]]) -> str | None:
    """`formatted` (black's layout of `block`) with each run of a stand-in's lines replaced
    by one line per value; None when a stand-in is anywhere else in `block`, or black did not
    put each run on lines of its own."""
    runs: list[tuple[int, str, int, list[str]]] = []  # (where in `block`, stand-in, count, values)
    for stand_in, count, values in used:
        run = ", ".join([stand_in] * count)
        at = block.find(run)
        while at >= 0:
            runs.append((at, stand_in, count, values))
            at = block.find(run, at + len(run))
        if block.count(stand_in) != count * sum(r[1] == stand_in for r in runs):
            return None  # the stand-in is in other text too
    runs.sort()
    lines = formatted.splitlines(keepends=True)
    out: list[str] = []
    i = 0
    for _, stand_in, count, values in runs:
        while i < len(lines) and lines[i].strip() != stand_in + ",":
            out.append(lines[i])
            i += 1
        if i == len(lines):
            return None
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        if lines[i : i + count] != [f"{indent}{stand_in},\n"] * count:
            return None
        out += [f"{indent}{value},\n" for value in values]
        i += count
    return "".join(out + lines[i:])


def _doc(text: str) -> str:
    (
        """`text` between the quotes of a docstring: a quote at either end padded with a space,
    as black pads it (`"""
        "hi"
        """` is no Python), control characters as escapes."""
    )
    text = visible(text.replace("\\", "\\\\")).replace('"""', "'''")
    before = " " if text.startswith('"') else ""
    after = " " if text.endswith('"') else ""
    return before + text + after


def _comment(text: str) -> str:
    return visible(" ".join(text.split()))


def _comment_lines(text: str) -> list[str]:
    """A field's description as `#:` lines of a class body that fit the module's lines."""
    width = LINE_LENGTH - len("    #: ")
    return textwrap.wrap(_comment(text), width, break_long_words=False, break_on_hyphens=False)


HEADER = """\
\"\"\"Typed arguments of the tools. Generated by toolgen from the handlers; do not edit.\"\"\"

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict
"""


#: What a tool did to the module: its blocks, and the names it took ((schema key, name) each).
Blocks = list[str]
Log = tuple[tuple[str, str], ...]


class Memo:
    """What the last `python_module` made of each tool, for a process that builds again
    (`toolgen build --watch`): a tool's blocks depend on the tool and on the names the tools
    before it took, so each is kept under (the tool, the `state` before it), where a state is
    a number standing for the names taken so far (`made`). When one tool changes, the tools
    before it are taken as they were, and the tools after it too once the names taken are the
    same again (the changed tool took the same names)."""

    start = 0

    def __init__(self) -> None:
        #: (id of the tool, state before it) -> (the tool, its blocks, its names, state after)
        self.tools: dict[tuple[int, int], tuple[Any, Blocks, Log, int]] = {}
        self.states: dict[tuple[int, Log], int] = {}  # (before, names) -> after
        self.numbers = itertools.count(1)
        self._tools: dict[tuple[int, int], tuple[Any, Blocks, Log, int]] = {}  # this call's
        self._states: dict[tuple[int, Log], int] = {}

    def find(self, tool: Typed, state: int) -> tuple[Blocks, Log, int] | None:
        hit = self.tools.get((id(tool), state))
        if hit is None or hit[0] is not tool:
            return None
        _, blocks, log, after = hit
        self._keep(tool, state, blocks, log, after)
        return blocks, log, after

    def made(self, tool: Typed, state: int, blocks: Blocks, log: Log, black: bool) -> int:
        after = self.states.get((state, log)) or next(self.numbers)
        self._keep(tool, state, blocks, log, after)
        return after

    def _keep(self, tool: Typed, state: int, blocks: Blocks, log: Log, after: int) -> None:
        self._tools[(id(tool), state)] = (tool, blocks, log, after)
        self._states[(state, log)] = after

    def done(self) -> None:
        """Keep what this call used, for the next."""
        self.tools, self.states, self._tools, self._states = self._tools, self._states, {}, {}


class StoredMemo:
    """`Memo` for runs of their own, kept in the cache folder between them (`entries`, plain
    data): a tool is known by `Typed.key` (its descriptor's sha256), and a state by a hash of
    the names taken before it, so that the next process finds what this one made. A tool
    whose blocks black formatted is not kept: black's layout may change with its version,
    which the cache is not keyed by (black is seldom needed, see `_black_style`)."""

    start = ""

    def __init__(self, entries: dict[str, Any] | None = None) -> None:
        self.entries: dict[str, Any] = entries if isinstance(entries, dict) else {}
        self.used: dict[str, list[Any]] = {}  # what to store for the next run
        self.changed = False  # whether `done` left other entries than it was given

    def find(self, tool: Keyed, state: str) -> tuple[Blocks, Log, str] | None:
        key = f"{tool.key}:{state}"
        hit = self.entries.get(key)
        try:
            blocks, log, after = hit  # type: ignore[misc]
            found = (list(blocks), tuple((k, n) for k, n in log), str(after))
        except (TypeError, ValueError):  # no entry, or not one of ours: render the tool
            return None
        self.used[key] = [found[0], [list(pair) for pair in found[1]], found[2]]
        return found

    def made(self, tool: Keyed, state: str, blocks: Blocks, log: Log, black: bool) -> str:
        import hashlib

        after = hashlib.sha256(json.dumps([state, log]).encode()).hexdigest()[:32]
        if not black:
            self.used[f"{tool.key}:{state}"] = [blocks, [list(pair) for pair in log], after]
        return after

    def done(self) -> None:
        """Keep only what this call used (the cache stays the size of the project)."""
        self.changed = self.used.keys() != self.entries.keys()
        self.entries, self.used = self.used, {}


class Typed(Protocol):
    """What the module is made from: a tool's name and its parameters schema."""

    @property
    def name(self) -> str: ...

    @property
    def parameters(self) -> dict[str, Any]: ...


class Keyed(Typed, Protocol):
    """A tool for a `StoredMemo`, with a `key` that changes with its name and parameters (a
    tool found in the memo is not asked for its `parameters`)."""

    @property
    def key(self) -> str: ...


@overload
def python_module(tools: Iterable[Typed], memo: Memo | None = None) -> str: ...


@overload
def python_module(tools: Iterable[Keyed], memo: StoredMemo) -> str: ...


def python_module(tools: Iterable[Any], memo: Memo | StoredMemo | None = None) -> str:
    """The module, the tools taken one by one (a run of its own need not hold them all:
    `toolgen.render.sink` reads them back one at a time). With a `memo`, a tool it holds
    for the same state is not rendered again, and what this call made is kept in it."""
    writer = _Writer()
    args: list[tuple[str, str]] = []
    state: Any = memo.start if memo else 0
    for tool in tools:
        hit = memo.find(tool, state) if memo else None
        if hit is not None:
            blocks, log, state = hit
            writer.replay(blocks, log)
        else:
            first, logged, formatted = len(writer.blocks), len(writer.log), _BLACK.calls
            parameters = tool.parameters  # a spooled tool's are read back each time asked
            schema = {k: v for k, v in parameters.items() if k != "$defs"}
            defs = parameters.get("$defs", {})
            name = writer.unique(f"{_camel(tool.name)}Args")
            writer.blocks.append(writer.typed_dict(name, {**schema, "description": None}, defs))
            blocks, log = writer.blocks[first:], tuple(writer.log[logged:])
            black = _BLACK.calls != formatted
            state = memo.made(tool, state, blocks, log, black) if memo else state + 1
        args.append((tool.name, log[0][1]))  # the first name a tool takes is its Args class
    if memo:
        memo.done()
    names = [json.dumps(name) for name, _ in args]
    source = [
        _collection("ToolName = Literal[", names, "]") if args else "ToolName = str\n",
        "#: Each tool's canonical descriptor, relative to the generated folder.\n"
        + _collection(
            "DESCRIPTORS: dict[ToolName, str] = {",
            [f'{json.dumps(name)}: "descriptors/{name}.json"' for name, _ in args],
            "}",
        ),
        *writer.blocks,
        "#: The arguments TypedDict of each tool, by name.\n"
        + _collection(
            "ARGUMENTS: dict[ToolName, Any] = {",
            [f"{json.dumps(tool)}: {cls}" for tool, cls in args],
            "}",
        ),
    ]
    return HEADER + "\n" + "\n\n".join(source)
