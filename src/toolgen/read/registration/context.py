"""What the meaning of a framework's names is given: the presets as plain data (`Framework`),
and what it needs of the interpreter (`Context`)."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from toolgen.read.index import Module
from toolgen.read.registration.effects import Effect, NoteKind
from toolgen.read.registration.values import Unknown, Value


class PresetLike(Protocol):
    """What the interpreter reads of a marker preset (`toolgen.analyze.markers.Preset`)."""

    @property
    def name(self) -> str: ...
    @property
    def functions(self) -> frozenset[str]: ...
    @property
    def methods(self) -> frozenset[str]: ...
    @property
    def factories(self) -> frozenset[str]: ...
    @property
    def version(self) -> tuple[int, ...]: ...
    @property
    def tool_bases(self) -> frozenset[str]: ...


@dataclass(frozen=True)
class Framework:
    name: str
    functions: frozenset[str] = frozenset()  # decorator functions: `@function_tool`
    methods: frozenset[str] = frozenset()  # decorator methods of its servers: `@mcp.tool`
    factories: frozenset[str] = frozenset()  # its server classes: `FastMCP`
    version: tuple[int, ...] = ()  # the version that publishes; () the newest
    tool_bases: frozenset[str] = frozenset()  # its tool base classes: LangChain's `BaseTool`

    @classmethod
    def of(cls, preset: PresetLike) -> Framework:
        return cls(
            preset.name,
            preset.functions,
            preset.methods,
            preset.factories,
            preset.version,
            preset.tool_bases,
        )


class Context(Protocol):
    """What the meaning of a framework's names needs of the interpreter."""

    @property
    def frameworks(self) -> Sequence[Framework]: ...
    @property
    def site(self) -> Module: ...  # the module being evaluated where the call is written
    @property
    def branches(self) -> tuple[tuple[int, int], ...]: ...  # `Registered.branches`
    def record(self, effect: Effect) -> None: ...
    def recorded(self) -> list[Effect]: ...  # the unit's effects so far (a transform edits them)
    def attribute(self, owner: Value, attr: str, node: ast.AST) -> Value: ...
    def note(self, kind: NoteKind, message: str, node: ast.AST | None) -> Unknown: ...
    def mutated(self, owner: Value, followed: bool) -> None: ...  # a container changed
    def unknown(self, why: str, node: ast.AST | None) -> Unknown: ...
    def call(
        self,
        callee: Value,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.AST,
        known: bool = True,
    ) -> Value: ...


def shown(node: ast.AST, limit: int = 60) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 3] + "..."
