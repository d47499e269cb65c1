"""What every part of the schema builder shares: its state, names resolved to symbols, values
folded, and problems located (at the project's annotation when met inside a library)."""

from __future__ import annotations

import ast
import sys
from typing import TYPE_CHECKING, Any

from toolgen.analyze import bodies
from toolgen.analyze.field_spec import FieldSpec
from toolgen.analyze.folding import NotStatic, fold
from toolgen.analyze.scopes import Scope
from toolgen.analyze.type_tables import EXTERNAL_KINDS
from toolgen.diagnostics import Diagnostic, cut
from toolgen.read.index import LIBRARY, Module, ModuleIndex, Symbol, dotted_name, well_known

Schema = dict[str, Any]

#: The most types one annotation may be read as (aliases written out), and one builder (a
#: tool's parameters, or its return type) in all: see `BuilderBase.counted`. A pydantic model
#: of 20,000 fields takes about 20,000; the benchmarks' tools at most 21.
MAX_TYPE_STEPS = 2_000
MAX_TOOL_STEPS = 200_000


class TypeProblem(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class BuilderBase:
    """The state of one `SchemaBuilder` and the services its parts (`type_primitives`,
    `type_metadata`, `type_classes`) share."""

    def __init__(
        self, index: ModuleIndex, scope: Scope | None = None, *, arbitrary: bool = False
    ) -> None:
        self.index = index
        #: where a handler's defaults and metadata are evaluated (the functions around it)
        self.scope = scope
        #: the model being built allows arbitrary types (the framework's arguments model,
        #: `Preset.arbitrary_types`, or a model's config): see `arbitrary`
        self._arbitrary = [arbitrary]
        self.defs: dict[str, Schema] = {}
        self._def_names: dict[str, str] = {}
        self._expanding: set[str] = set()
        #: `extra` of the models being built: pydantic applies a model's config to the stdlib
        #: dataclasses and TypedDicts it contains
        self._extra: list[Any] = [None]
        #: project classes whose bases are known not to lead back to them
        self._acyclic: set[str] = set()
        #: each model's config (`model_config`) once read, by its class: asked for each
        #: field, it was read again from the class body each time (N fields: N² statements)
        self._configs: dict[ast.ClassDef, dict[str, Any]] = {}
        #: how many references to named classes were made (a body without one is shareable)
        self._named_refs = 0
        self._bodies = bodies.for_index(index)
        #: the innermost annotation being built in a project module: where a problem met
        #: inside a library module is reported (`problem`)
        self._anchor: tuple[ast.AST, Module] | None = None
        #: the budget (`counted`): types read for this builder, and for the annotation being
        #: read (`_reading`: where it is; `_open`: the `schema` and `field_schema` calls open
        #: for it). A named class's body counts apart: its fields are annotations of their own.
        self._steps = 0
        self._type_steps = 0
        self._reading: tuple[ast.AST, Module] | None = None
        self._open = 0
        #: warnings met while building: what a schema was published without (a field's
        #: description toolgen cannot read leaves the schema right, only less described)
        self.notes: list[Diagnostic] = []

    @property
    def arbitrary(self) -> bool:
        """Does the model around allow arbitrary types? Then a union member of
        `INSTANCE_ONLY` is left out of the union's schema, as pydantic leaves it out."""
        return self._arbitrary[-1]

    def _reads(self, node: ast.AST, module: Module) -> tuple[ast.AST, Module] | None:
        """Enter `schema` or `field_schema` for `node` (`_leaves` on the way out): the anchor
        before it, as `_anchored` gives it; the first call for an annotation starts its count."""
        if self._open == 0:
            self._type_steps, self._reading = 0, (node, module)
        self._open += 1
        return self._anchored(node, module)

    def _leaves(self, outer: tuple[ast.AST, Module] | None) -> None:
        self._open -= 1
        self._anchor = outer

    def counted(self) -> None:
        """One more type read: TG109 at the annotation past `MAX_TYPE_STEPS` types for it
        (aliases are written out wherever they are used: two uses of an alias of two uses of
        ... double at each level), or past `MAX_TOOL_STEPS` for the builder."""
        self._steps += 1
        self._type_steps += 1
        if self._type_steps <= MAX_TYPE_STEPS and self._steps <= MAX_TOOL_STEPS:
            return
        node, module = self._reading or self._anchor or (None, None)
        assert node is not None and module is not None
        if self._steps > MAX_TOOL_STEPS:
            why = f"the types of this tool take more than {MAX_TOOL_STEPS:,} steps to read"
        else:
            why = (
                f"`{cut(text_of(node), 80)}` is more than {MAX_TYPE_STEPS:,} types written out "
                "(an alias is written out wherever it is used, and one that uses another "
                "twice doubles at each level): make a type used many times a class"
            )
        raise self.problem("TG109", why, node, module)

    def _body_apart(self) -> tuple[int, int, tuple[ast.AST, Module] | None]:
        """Start a named class's body: its fields count as annotations of their own; what
        `_body_done` takes back."""
        saved = (self._open, self._type_steps, self._reading)
        self._open = 0
        return saved

    def _body_done(self, saved: tuple[int, int, tuple[ast.AST, Module] | None]) -> None:
        self._open, self._type_steps, self._reading = saved

    def _anchored(self, node: ast.AST, module: Module) -> tuple[ast.AST, Module] | None:
        """Make `node` the anchor when it is written in the project; the anchor before."""
        outer = self._anchor
        if not module.library:
            self._anchor = (node, module)
        return outer

    def _resolve(
        self, node: ast.expr, module: Module, *, strict: bool = True, follow: bool | None = None
    ) -> Symbol:
        """What `node` names. `strict`: TG201 when that is nothing toolgen can read. `follow`
        (by default, as `strict`): a name from outside the project that toolgen's table does
        not know is looked up in the installed packages (not for paths compared as they are
        imported, such as a framework's context class)."""
        dotted = dotted_name(node)
        if dotted is None:
            if not strict:
                return Symbol("", "external")
            raise self.problem("TG202", f"unsupported annotation `{text_of(node)}`", node, module)
        symbol = self.index.resolve(module, dotted)
        if symbol is None:
            if not strict:
                return Symbol(dotted, "external")
            why = self.index.unreadable_behind((module.name, dotted))
            message = f"cannot resolve `{dotted}` in module {module.name}"
            raise self.problem("TG201", message + (f" ({why})" if why else ""), node, module)
        if not strict and follow is None and symbol.is_external and not _known(symbol.path):
            # a re-export of a name toolgen knows (`from mcp.types import Field`): that name
            found = None if _stdlib(symbol.path) else self.index.resolve_library(symbol.path)
            if found is not None and found.is_external and _known(found.path):
                return found
        follow = strict if follow is None else follow
        if follow and symbol.is_external and not _known(symbol.path) and not _stdlib(symbol.path):
            found = self.index.resolve_library(symbol.path)
            if found is not None and (not found.is_external or _known(found.path)):
                return found
            if strict:
                why = self._not_installed(symbol.path, found)
                raise self.problem("TG201", f"cannot resolve `{dotted}`: {why}", node, module)
        if strict and symbol.is_external and not _known(symbol.path):
            message = f"cannot resolve `{dotted}`: {symbol.path} is outside the project and not "
            raise self.problem("TG201", message + "a type toolgen knows", node, module)
        return symbol

    def _not_installed(self, path: str, found: Symbol | None) -> str:
        """Why the external `path` is nothing toolgen can read (`resolve_library` gave
        `found`): not found anywhere (and where it looked), or not in the library module that
        was found, or in a library file that cannot be read."""
        why = self.index.unreadable_behind((LIBRARY, path))
        if why:
            return f"{path} leads to a library file toolgen cannot read: {why}"
        if found is None:  # a library module was found, without that name
            parts = path.split(".")
            for i in range(len(parts) - 1, 0, -1):
                module = self.index.library(".".join(parts[:i]))
                if module is not None:
                    where = f"{module.name} ({module.shown})"
                    return f"{path} is not defined in the installed module {where}"
            return f"{path} is not defined where its module is installed"
        if not self.index.library_roots:
            return (
                f"{path} is outside the project, and no library folder is read "
                "(`library_paths = []`)"
            )
        looked = ", ".join(self.index.where_looked())
        end = found.path  # where the name leads (through a library's own imports, perhaps)
        leads = "" if end == path else f" (through an installed package, {end})"
        return (
            f"{path} is outside the project{leads}, and module {end.rpartition('.')[0] or end} "
            f"is found neither there nor in the library folders (looked in: {looked})"
        )

    def _literal(self, node: ast.expr, module: Module) -> Any:
        """A value in metadata (`Field(ge=MIN)`, `MinLen(3)`, a class attribute's default);
        TG205 at what is not static."""
        try:
            return fold(node, module, self.index, self.scope)
        except NotStatic as exc:
            raise self.problem("TG205", exc.why, exc.node, exc.module) from None

    def literal_default(self, node: ast.expr, module: Module) -> Any:
        """A parameter's default; TG206 when it is not static."""
        try:
            return fold(node, module, self.index, self.scope)
        except NotStatic as exc:
            raise self.problem("TG206", f"default {exc.why}", node, module) from None

    def _forward_ref(self, node: ast.expr, module: Module) -> ast.expr:
        assert isinstance(node, ast.Constant) and isinstance(node.value, str)
        try:
            parsed = ast.parse(node.value.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # also NUL, lone surrogate
            raise self.problem(
                "TG202", f"string annotation {node.value!r} is not valid Python", node, module
            ) from None
        for child in ast.walk(parsed):  # positions inside the string point at the string
            if hasattr(child, "lineno"):
                child.lineno, child.col_offset = node.lineno, node.col_offset  # type: ignore[attr-defined]
        return parsed

    def problem(self, code: str, message: str, node: ast.AST, module: Module) -> TypeProblem:
        """A located diagnostic; one met in a library module is located at the project's
        annotation that led there, with the library's place in its message."""
        if module.library and self._anchor is not None:
            at, home = self._anchor
            message = f"{message} (in the installed module {module.name}, {module.location(node)})"
            return TypeProblem(Diagnostic(code, message, home.location(at)))
        return TypeProblem(Diagnostic(code, message, module.location(node)))

    if TYPE_CHECKING:  # defined by one part of `SchemaBuilder`, used by the others

        def schema(self, node: ast.expr, module: Module) -> Schema: ...

        def _dispatch(
            self, symbol: Symbol, node: ast.expr, module: Module, args: list[ast.expr] | None
        ) -> Schema: ...

        def _kind_of(self, symbol: Symbol | None) -> str | None: ...

        def _union_members(self, node: ast.expr, module: Module) -> int: ...

        def call_schema(self, call: ast.Call, module: Module) -> Schema: ...

        def field_schema(
            self,
            annotation: ast.expr,
            module: Module,
            spec: FieldSpec | None = None,
            *,
            nested: bool = False,
        ) -> tuple[Schema, FieldSpec]: ...

        def field_call(self, call: ast.Call, module: Module) -> FieldSpec: ...

        def _check_extra(self, extra: dict[str, Any], node: ast.AST, module: Module) -> None: ...


def _known(path: str) -> bool:
    """Whether toolgen's table answers for the external `path` (it is never read)."""
    return path in EXTERNAL_KINDS or well_known(path)


def _stdlib(path: str) -> bool:
    """Whether the external `path` is in Python's standard library (never in a library root)."""
    return path.partition(".")[0] in sys.stdlib_module_names


def flatten_or(node: ast.expr) -> list[ast.expr]:
    """The members of `A | B | C`, in order."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*flatten_or(node.left), *flatten_or(node.right)]
    return [node]


def subscript_args(node: ast.Subscript) -> list[ast.expr]:
    """The arguments of `X[...]`."""
    inner = node.slice
    return list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]


def is_str(node: ast.expr) -> bool:
    """Whether `node` is a string annotation (a forward reference)."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def json_type(value: Any) -> str | None:
    """The JSON Schema type of a folded value (None for None)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def text_of(node: ast.AST) -> str:
    """The node as written, for messages."""
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover
        return type(node).__name__
