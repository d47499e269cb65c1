"""Schemas of named classes, built once per module index and shared by its schema builders.

Each tool's `SchemaBuilder` starts with no `$defs`, so every tool that takes a project class
built its schema again (at 1,000 tools, the same few models hundreds of times). The body of a
class that refers to no other named class comes out the same in any builder, given the same
syntax trees and the same `extra` from the model around it: `ClassBodies` keeps those bodies,
each with the modules its building used. A body is taken only while the index still holds each
of those modules as it did (none released and parsed again since), and taking it marks them
used, as building it would have (`ModuleIndex.touched`: the unit cache's dependencies).
"""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass
from typing import Any

from toolgen.diagnostics import Diagnostic
from toolgen.read.index import Module, ModuleIndex
from toolgen.schema_ops import copied

Schema = dict[str, Any]

#: How many bodies one index keeps (the oldest go first): every class of a large project.
MAX_BODIES = 4096

#: The class, its path, its kind ("model", "enum", ...), the `extra` config around it and
#: whether the model around allows arbitrary types (not asked for a model: its own config says).
BodyKey = tuple[ast.ClassDef, str, str, str | None, bool]


@dataclass(frozen=True)
class _Body:
    schema: Schema
    #: each module name its building used, and the module the index held then (None: none)
    modules: tuple[tuple[str, weakref.ref[Module] | None], ...]
    #: the notes its building made (a field without a description): told by every builder
    #: that takes it, as by the one that built it, so a tool's notes do not depend on which
    #: tool was compiled first
    notes: tuple[Diagnostic, ...] = ()


class ClassBodies:
    """The shared bodies of one index (`for_index`); every schema handed out is a copy."""

    def __init__(self) -> None:
        self._bodies: dict[BodyKey, _Body] = {}

    def get(self, key: BodyKey, index: ModuleIndex) -> tuple[Schema, tuple[Diagnostic, ...]] | None:
        """The body kept for `key`, with the notes its building made; None when there is
        none, or its modules were read again since."""
        found = self._bodies.get(key)
        if found is None:
            return None
        for name, held in found.modules:
            module = index.held(name)  # marks it used, as building the body did
            if module is not (held() if held is not None else None):
                del self._bodies[key]  # read again since: the body may differ
                return None
        schema: Schema = copied(found.schema)
        return schema, found.notes

    def put(
        self,
        key: BodyKey,
        schema: Schema,
        used: set[str],
        index: ModuleIndex,
        notes: tuple[Diagnostic, ...] = (),
    ) -> None:
        """Keep the body built for `key`, and the notes building it made; `used`: the module
        names its building used (a body that read a source by its path, not as a module, is
        not kept)."""
        if any("@" in name for name in used):  # `ModuleIndex.add_file`'s keys
            return
        modules = []
        for name in sorted(used):
            module = index.held(name)
            modules.append((name, None if module is None else weakref.ref(module)))
        if len(self._bodies) >= MAX_BODIES:
            del self._bodies[next(iter(self._bodies))]
        self._bodies[key] = _Body(copied(schema), tuple(modules), notes)


_BY_INDEX: weakref.WeakKeyDictionary[ModuleIndex, ClassBodies] = weakref.WeakKeyDictionary()


def for_index(index: ModuleIndex) -> ClassBodies:
    """The bodies shared by the builders of `index` (dropped with it)."""
    bodies = _BY_INDEX.get(index)
    if bodies is None:
        bodies = _BY_INDEX[index] = ClassBodies()
    return bodies
