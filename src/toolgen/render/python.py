"""Typed Python for callers of the tools: a TypedDict of arguments per tool, a Literal of the
tool names and the descriptors' paths, in black's style (generated/python/tools.py).

The module is written in black's own layout block by block; only a block that black would lay
out differently (a line over 100 characters, a docstring of several lines) goes through black
itself. Formatting the whole module with black costs seconds at a thousand tools; the result is
the same bytes, which the tests check with black.
"""

from __future__ import annotations

import functools
import itertools
import json
import keyword
import re
from collections.abc import Iterable
from typing import Any, Protocol


def render(
    tools: Iterable[Typed], report: Any, options: Any = None, *, memo: Memo | None = None
) -> dict[str, Any]:
    """The module; with a `memo`, each tool's blocks are kept in it for the next call."""
    return {"python/tools.py": python_module(tools, memo)}


_WORD_BREAK = re.compile(r"[^A-Za-z0-9]+")


@functools.lru_cache(maxsize=4096)
def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in _WORD_BREAK.split(name) if part)


class _Writer:
    """Collects class and alias definitions, one per distinct schema."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.names: dict[str, str] = {}  # canonical schema JSON -> Python name
        self.taken: set[str] = set()
        self.log: list[tuple[str, str]] = []  # each name taken: (its schema's key or "", name)

    def unique(self, wanted: str, key: str = "") -> str:
        name, n = wanted, 2
        while name in self.taken or keyword.iskeyword(name):
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
            self.blocks.append(_black_style(f"{name} = {self.type_of(schema, defs, name)}\n"))
        return name

    def typed_dict(self, name: str, schema: dict[str, Any], defs: dict[str, Any]) -> str:
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
                if description:
                    body.append(f"    #: {_comment(description)}\n")
                body.append(f"    {key}: {annotation}\n")
            block = f"class {name}(TypedDict):\n" + ("".join(body) or "    pass\n")
        else:
            fields = [f"{json.dumps(k)}: {a}" for k, a, _ in items]
            block = _collection(f"{name} = TypedDict({json.dumps(name)}, {{", fields, "})")
        return _black_style(block)

    def type_of(self, schema: dict[str, Any], defs: dict[str, Any], hint: str) -> str:
        if "$ref" in schema:
            ref = str(schema["$ref"]).removeprefix("#/$defs/")
            return self.named(_camel(ref), defs.get(ref, {}), defs)
        if "const" in schema:
            return f"Literal[{_literal(schema['const'])}]"
        if "enum" in schema:
            return f"Literal[{', '.join(_literal(v) for v in schema['enum'])}]"
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
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else "Any"


LINE_LENGTH = 100


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
    from black import format_str  # only a block black would change needs black
    from black.mode import Mode, TargetVersion

    mode = Mode(line_length=LINE_LENGTH, target_versions={TargetVersion.PY311})
    return format_str(block, mode=mode)


def _doc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', "'''")


def _comment(text: str) -> str:
    return " ".join(text.split())


HEADER = """\
\"\"\"Typed arguments of the tools. Generated by toolgen from the handlers; do not edit.\"\"\"

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict
"""


class Memo:
    """What the last `python_module` made of each tool, for a process that builds again
    (`toolgen build --watch`): a tool's blocks depend on the tool and on the names the tools
    before it took, so each is kept under (the tool, the `state` before it), where a state is
    a number standing for the names taken so far (`after`). When one tool changes, the tools
    before it are taken as they were, and the tools after it too once the names taken are the
    same again (the changed tool took the same names)."""

    def __init__(self) -> None:
        #: (id of the tool, state before it) -> (the tool, its blocks, its names, state after)
        self.tools: dict[tuple[int, int], tuple[Any, list[str], tuple[Any, ...], int]] = {}
        self.states: dict[tuple[int, tuple[Any, ...]], int] = {}  # (before, names) -> after
        self.numbers = itertools.count(1)

    def after(self, state: int, log: tuple[Any, ...], used: dict[Any, int]) -> int:
        key = (state, log)
        number = self.states.get(key) or next(self.numbers)
        used[key] = number
        return number


class Typed(Protocol):
    """What the module is made from: a tool's name and its parameters schema."""

    @property
    def name(self) -> str: ...

    @property
    def parameters(self) -> dict[str, Any]: ...


def python_module(tools: Iterable[Typed], memo: Memo | None = None) -> str:
    """The module, the tools taken one by one (a run of its own need not hold them all:
    `toolgen.render.spooled` reads them back one at a time)."""
    writer = _Writer()
    args: list[tuple[str, str]] = []
    kept, states = {}, {}
    state = 0
    for tool in tools:
        hit = memo.tools.get((id(tool), state)) if memo else None
        if hit is not None and hit[0] is tool:
            _, blocks, log, after = hit
            writer.replay(blocks, log)
            states[(state, log)] = after
        else:
            first, logged = len(writer.blocks), len(writer.log)
            schema = {k: v for k, v in tool.parameters.items() if k != "$defs"}
            defs = tool.parameters.get("$defs", {})
            name = writer.unique(f"{_camel(tool.name)}Args")
            writer.blocks.append(writer.typed_dict(name, {**schema, "description": None}, defs))
            blocks, log = writer.blocks[first:], tuple(writer.log[logged:])
            after = memo.after(state, log, states) if memo else state + 1
        if memo:  # a run of its own keeps nothing
            kept[(id(tool), state)] = (tool, blocks, log, after)
        args.append((tool.name, log[0][1]))  # the first name a tool takes is its Args class
        state = after
    if memo:
        memo.tools, memo.states = kept, states
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
