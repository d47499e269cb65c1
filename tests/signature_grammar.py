"""A seeded random grammar of tool-handler signatures, for measuring toolgen against pydantic.

`generate_case(rng, index)` draws one small package, `sigpkg_<index>`:

- `models.py`: the named types the handler uses (enums, TypedDicts, dataclasses, pydantic
  models, type aliases, validator functions), each drawn from the same grammar;
- `tools.py`: one `@tool` handler whose parameters use them, imported across modules in varied
  styles (`from .models import X`, `from . import models`, `import <pkg>.models as m`,
  re-exports through `__init__.py`, absolute imports);
- `__init__.py`: a docstring and the re-exports `tools.py` relies on.

The grammar is a weighted choice over constructs, nested at most `MAX_DEPTH` levels deep; every
drawn signature is valid for pydantic at run time (required parameters first, defaults valid
for their types, constraints only on types that take them). Nothing here knows what toolgen
supports: constructs are drawn by weight alone.

Every case is deterministic in (`rng` state, `index`); `generate_cases(count, seed)` seeds one
`random.Random` per index, so case 42 is the same whether 50 or 1,000 cases are drawn. The one
dependence on the environment: pydantic's `EmailStr` is drawn only when `email_validator` is
installed.

`Case.files(only=[...])` renders the package with a subset of the handler's parameters, and only
the definitions and imports they need: the script uses it to reduce a failing signature to the
parameter that fails.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 3
#: At most this many named definitions (classes and aliases) per case, to keep cases small.
MAX_NAMED = 7

#: Parameter and field names: none shadows a type or module name used in generated code, a
#: BaseModel attribute, or an import alias (`t`, `te`, `pd`, `at`, `dt`, `m`, `models`, `pkg`).
NAMES = (
    "query", "limit", "tags", "target", "payload", "options", "filters", "owner", "labels",
    "window", "amount", "ratio", "flag", "mode", "kind", "region", "cursor", "priority", "notes",
    "created", "deadline", "attempts", "threshold", "title", "value", "items", "scope", "level",
    "source", "weight", "count", "label", "color", "status", "user_id", "page", "offset", "lang",
    "retries", "enabled", "score", "extra", "start", "end", "size", "unit", "channel", "topic",
)  # fmt: skip
CLASS_WORDS = (
    "Color", "Level", "Shape", "Status", "Item", "Record", "Filter", "Window", "Point", "Contact",
    "Address", "Options", "Payload", "Spec", "Entry", "Range", "Tag", "Query", "Target", "Rule",
)  # fmt: skip
ALIAS_WORDS = ("Tags", "MaybeInt", "UserId", "StringList", "Ids", "Names", "Score", "Matrix")
MEMBER_NAMES = ("RED", "GREEN", "BLUE", "LOW", "HIGH", "ON", "OFF", "FAST", "SLOW", "AUTO")
VERBS = ("search", "create", "update", "list", "fetch", "send", "lookup", "delete", "schedule")
DESCRIPTIONS = (
    "How many items to return.",
    "The search query.",
    "Optional filter: only matching entries are kept.",
    "Temperature in °C.",
    "A tag, in lower case.",
    "When to stop.",
)
STR_SAMPLES = ("abc", "x", "", "hello world", "a-1", "red")
INT_SAMPLES = (0, 1, 3, 42, -7, 100)
FLOAT_SAMPLES = (0.5, 1.0, 2, -1.5, 3.25)
PATTERNS = ("^[a-z]+$", "^x", "^[A-Z][a-z]*$", r"^\d+$", "^[a-z0-9_-]{2,16}$")

#: Local names a module may be imported under (one is drawn per module and generated file).
MODULE_ALIASES = {
    "typing": ("typing", "t"),
    "typing_extensions": ("typing_extensions", "te"),
    "collections.abc": ("cabc",),
    "pydantic": ("pydantic", "pd"),
    "annotated_types": ("annotated_types", "at"),
    "datetime": ("dt",),
    "uuid": ("uuid",),
    "decimal": ("decimal",),
    "pathlib": ("pathlib",),
    "enum": ("enum",),
    "dataclasses": ("dataclasses",),
}

#: pydantic's ready-made constrained types: category and valid sample values.
HELPER_TYPES: dict[str, tuple[str, tuple[Any, ...]]] = {
    "PositiveInt": ("int", (1, 7)),
    "NegativeInt": ("int", (-1, -5)),
    "NonNegativeInt": ("int", (0, 3)),
    "NonPositiveInt": ("int", (0, -2)),
    "PositiveFloat": ("float", (0.5, 2.0)),
    "NegativeFloat": ("float", (-0.5,)),
    "NonNegativeFloat": ("float", (0.0, 1.5)),
    "StrictStr": ("str", ("abc",)),
    "StrictInt": ("int", (3,)),
    "StrictFloat": ("float", (1.5,)),
    "StrictBool": ("bool", (True,)),
    "SecretStr": ("other", ()),
    "HttpUrl": ("other", ()),
    "AnyUrl": ("other", ()),
}

if importlib.util.find_spec("email_validator") is not None:  # pydantic's EmailStr needs it
    HELPER_TYPES["EmailStr"] = ("other", ())

#: Standard-library types pydantic renders as formatted strings (or number|string for Decimal).
SPECIAL_TYPES = (
    ("datetime", "datetime"),
    ("datetime", "date"),
    ("datetime", "time"),
    ("datetime", "timedelta"),
    ("uuid", "UUID"),
    ("decimal", "Decimal"),
    ("pathlib", "Path"),
)

#: Categories of types that take constraints (see `_Generator._constraints` for which ones).
CONSTRAINABLE = ("int", "float", "decimal", "str", "bytes", "seq", "map")

_MARK = re.compile(r"@@(\w+)@@")


def py(value: Any) -> str:
    """Python source for a literal value (strings double-quoted, as people write them)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(py(v) for v in value) + "]"
    if isinstance(value, tuple):
        if len(value) == 1:
            return f"({py(value[0])},)"
        return "(" + ", ".join(py(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py(k)}: {py(v)}" for k, v in value.items()) + "}"
    return repr(value)


@dataclass(frozen=True)
class Sample:
    """A valid value of a type, as source (`@@Name@@` marks a reference to a named type) and as
    the value constraints are checked against (an enum member's value)."""

    src: str
    value: Any
    mutable: bool = False  # a list/dict/set display: not a dataclass default

    @staticmethod
    def of(value: Any) -> Sample:
        return Sample(py(value), value, isinstance(value, list | dict | set))


@dataclass
class T:
    """A drawn type: its source in the module it was drawn for, and what defaults it takes."""

    src: str
    cat: str = "other"  # which constraints apply: one of CONSTRAINABLE, or "bool"/"other"
    nullable: bool = False  # None is already one of its values
    samples: list[Sample] = field(default_factory=list)
    factory: str | None = None  # a default_factory that makes a valid value (list, dict, set)


@dataclass
class Definition:
    """A top-level statement of models.py: a class, an alias or a validator function."""

    name: str
    kind: str
    text: str = ""
    deps: set[str] = field(default_factory=set)
    t: T | None = None  # how a reference to it behaves (src rendered per module)
    fields: list[str] = field(default_factory=list)  # a class's field names, inherited too


@dataclass
class Param:
    name: str
    annotation: str
    default: str | None  # source, or None for a required parameter without a default
    doc: str
    features: set[str] = field(default_factory=set)
    refs: set[str] = field(default_factory=set)  # definitions used directly


@dataclass
class _Imports:
    """Imports of one generated module, each with the owners (definitions or parameters) that
    use it, so that a reduced case renders only the imports it needs."""

    from_imports: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    module_imports: dict[tuple[str, str | None], set[str]] = field(default_factory=dict)

    def render(self, keep: Callable[[set[str]], bool]) -> list[str]:
        lines = [
            f"import {module}" if alias is None else f"import {module} as {alias}"
            for (module, alias), owners in sorted(
                self.module_imports.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")
            )
            if keep(owners)
        ]
        grouped: dict[str, list[str]] = {}
        for (module, name), owners in self.from_imports.items():
            if keep(owners):
                grouped.setdefault(module, []).append(name)
        for module in sorted(grouped, key=lambda m: (m.startswith("."), m)):
            lines.append(f"from {module} import {', '.join(sorted(set(grouped[module])))}")
        return lines


@dataclass
class Case:
    """One generated package with one handler."""

    index: int
    package: str
    tool_name: str
    params: list[Param]
    summary: str
    returns_doc: bool
    models_doc: str
    models_future: bool
    tools_future: bool
    definitions: list[Definition]
    models_imports: _Imports
    tools_imports: _Imports
    reexports: list[str]
    star_reexport: bool
    features: set[str] = field(default_factory=set)

    @property
    def module(self) -> str:
        return f"{self.package}.tools"

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def needed(self, params: Iterable[Param]) -> set[str]:
        """Names of the definitions `params` need, transitively."""
        by_name = {d.name: d for d in self.definitions}
        todo = [r for p in params for r in p.refs]
        seen: set[str] = set()
        while todo:
            name = todo.pop()
            if name in seen or name not in by_name:
                continue
            seen.add(name)
            todo.extend(by_name[name].deps)
        return seen

    def files(self, only: Iterable[str] | None = None, suffix: str = "") -> dict[str, str]:
        """Relative path -> source of the package; `only` keeps just those parameters, and
        `suffix` renames the package and the tool (to run reductions of a case side by side)."""
        params = self.params if only is None else [self.param(n) for n in only]
        needed = self.needed(params)
        kept = {p.name for p in params} | {"*"}
        files = {
            "__init__.py": self._init(needed),
            "models.py": self._models(needed),
            "tools.py": self._tools(params, kept),
        }
        if suffix:
            files = {
                k: v.replace(self.package, self.package + suffix).replace(
                    f"def {self.tool_name}(", f"def {self.tool_name}{suffix}("
                )
                for k, v in files.items()
            }
        return {f"{self.package}{suffix}/{k}": v for k, v in files.items()}

    def _init(self, needed: set[str]) -> str:
        lines = [f'"""Generated signature case {self.index}."""', ""]
        if self.star_reexport and self.reexports:
            lines.append("from .models import *  # noqa: F403")
        else:
            names = [n for n in self.reexports if n in needed]
            lines.extend(f"from .models import {n} as {n}" for n in names)
        return "\n".join(lines).rstrip() + "\n"

    def _models(self, needed: set[str]) -> str:
        lines = [f'"""{self.models_doc}"""', ""]
        if self.models_future:
            lines += ["from __future__ import annotations", ""]
        imports = self.models_imports.render(lambda owners: bool(owners & (needed | {"*"})))
        if imports:
            lines += [*imports, ""]
        for d in self.definitions:
            if d.name in needed and d.text:
                lines += ["", d.text.rstrip(), ""]
        return "\n".join(lines).rstrip() + "\n"

    def _tools(self, params: list[Param], kept: set[str]) -> str:
        lines = [f'"""Handler of generated signature case {self.index}."""', ""]
        if self.tools_future:
            lines += ["from __future__ import annotations", ""]
        lines += self.tools_imports.render(lambda owners: bool(owners & kept))
        lines += ["", "", "@tool"]
        if params:
            lines.append(f"def {self.tool_name}(")
            for p in params:
                default = "" if p.default is None else f" = {p.default}"
                lines.append(f"    {p.name}: {p.annotation}{default},")
            lines.append(") -> None:")
        else:
            lines.append(f"def {self.tool_name}() -> None:")
        lines.append(f'    """{self.summary}')
        if params:
            lines += ["", "    Args:"]
            lines += [f"        {p.name}: {p.doc}" for p in params]
        if self.returns_doc:
            lines += ["", "    Returns:", "        Nothing."]
        lines += ['    """', "    return None"]
        return "\n".join(lines) + "\n"

    def source(self, only: Iterable[str] | None = None, suffix: str = "") -> str:
        """The package's files with more than a docstring, for a report."""
        return show_files(self.files(only, suffix))


class _Module:
    """Import bookkeeping and name references for one generated module."""

    def __init__(self, gen: _Generator, where: str) -> None:
        self.gen = gen
        self.where = where  # "models" or "tools"
        self.future = False  # `from __future__ import annotations`
        self.imports = _Imports()
        self.bound: dict[str, tuple[str, ...]] = {}
        self.styles: dict[tuple[str, str], str] = {}
        self.aliases: dict[str, str] = {}

    def _bind(self, local: str, key: tuple[str, ...]) -> bool:
        return self.bound.setdefault(local, key) == key

    def from_import(self, module: str, name: str) -> str | None:
        if not self._bind(name, ("from", module, name)):
            return None
        self.imports.from_imports.setdefault((module, name), set()).add(self.gen.owner(self))
        return name

    def module_import(self, module: str, alias: str | None) -> str | None:
        local = alias or module.split(".")[0]
        if not self._bind(local, ("import", module, alias or "")):
            return None
        self.imports.module_imports.setdefault((module, alias), set()).add(self.gen.owner(self))
        return alias or module

    def module_ref(self, module: str) -> str:
        if module not in self.aliases:
            self.aliases[module] = self.gen.rng.choice(MODULE_ALIASES[module])
        alias = self.aliases[module]
        ref = self.module_import(module, None if alias == module else alias)
        if ref is None:
            ref = self.module_import(module, "_" + module.replace(".", "_"))
        assert ref is not None
        return ref

    def ext(self, module: str, name: str) -> str:
        """A reference to `module.name`, imported `from module import name` or as a module."""
        key = (module, name)
        if key not in self.styles:
            self.styles[key] = "from" if self.gen.rng.random() < 0.75 else "module"
        if self.styles[key] == "from":
            local = self.from_import(module, name)
            if local is not None:
                return local
        return f"{self.module_ref(module)}.{name}"

    def typing(self, name: str) -> str:
        """A typing construct, from `typing` mostly and from `typing_extensions` sometimes."""
        key = ("typing-choice", name)
        if key not in self.styles:
            self.styles[key] = "typing_extensions" if self.gen.rng.random() < 0.15 else "typing"
        return self.ext(self.styles[key], name)

    def abc(self, name: str) -> str:
        """Sequence/Mapping/Iterable from collections.abc or typing."""
        key = ("abc-choice", name)
        if key not in self.styles:
            self.styles[key] = "collections.abc" if self.gen.rng.random() < 0.5 else "typing"
        return self.ext(self.styles[key], name)

    def named(self, name: str) -> str:
        """A reference to a definition of models.py, from this module."""
        return self.gen.reference(self, name)

    def render(self, src: str) -> str:
        """A sample's source with its named references resolved for this module."""
        return _MARK.sub(lambda m: self.named(m[1]), src)


class _Generator:
    def __init__(self, rng: random.Random, index: int) -> None:
        self.rng = rng
        self.index = index
        self.pkg = f"sigpkg_{index:04d}"
        self.models = _Module(self, "models")
        self.tools = _Module(self, "tools")
        self.definitions: list[Definition] = []
        self.by_name: dict[str, Definition] = {}
        self.owners: list[str] = []  # definitions being drawn, innermost last
        self.param: Param | None = None
        self.ref_styles: dict[str, str] = {}
        self.reexports: list[str] = []
        self.counter = 0
        self.case_features: set[str] = set()
        self.tools_future = False

    # -- bookkeeping -----------------------------------------------------------------------
    def tag(self, *names: str) -> None:
        target = self.param.features if self.param is not None else self.case_features
        target.update(names)

    def owner(self, module: _Module) -> str:
        if module.where == "models":
            return self.owners[-1] if self.owners else "*"
        return self.param.name if self.param is not None else "*"

    def reference(self, module: _Module, name: str) -> str:
        if module.where == "models":
            if self.owners and self.owners[-1] != name:
                self.by_name[self.owners[-1]].deps.add(name)
            return name
        assert self.param is not None
        self.param.refs.add(name)
        if name not in self.ref_styles:
            self.ref_styles[name] = self.pick(
                (4, "from_rel"),
                (1.5, "from_abs"),
                (2, "module_rel"),
                (2, "module_alias"),
                (0.7, "module_abs"),
                (1.5, "reexport_rel"),
                (1, "reexport_pkg"),
            )
        style = self.ref_styles[name]
        self.tag(f"import:{style}")
        pkg = self.pkg
        if style.startswith("reexport") and name not in self.reexports:
            self.reexports.append(name)
        ref: str | None
        if style == "from_rel":
            ref = module.from_import(".models", name)
        elif style == "from_abs":
            ref = module.from_import(f"{pkg}.models", name)
        elif style == "module_rel":
            ref = f"{module.from_import('.', 'models')}.{name}"
        elif style == "module_alias":
            ref = f"{module.module_import(f'{pkg}.models', 'm')}.{name}"
        elif style == "module_abs":
            ref = f"{module.module_import(f'{pkg}.models', None)}.{name}"
        elif style == "reexport_rel":
            ref = module.from_import(".", name)
        else:
            ref = f"{module.module_import(pkg, 'pkg')}.{name}"
        assert ref is not None and not ref.startswith("None")
        return ref

    def pick(self, *choices: tuple[float, str]) -> str:
        weights = [w for w, _ in choices]
        return self.rng.choices([c for _, c in choices], weights=weights)[0]

    def fresh(self, words: tuple[str, ...]) -> str:
        self.counter += 1
        return f"{self.rng.choice(words)}{self.counter}"

    def new_definition(self, name: str, kind: str) -> Definition:
        d = Definition(name, kind)
        self.by_name[name] = d
        return d

    def finish(self, d: Definition) -> None:
        self.definitions.append(d)

    def named_count(self) -> int:
        return sum(1 for d in self.by_name.values() if d.kind != "function")

    # -- the grammar -----------------------------------------------------------------------
    def draw(self, mod: _Module, depth: int) -> T:
        """A type, in `mod`, at nesting `depth` (0 = a parameter's annotation)."""
        leaves: list[tuple[float, str]] = [
            (6, "str"),
            (6, "int"),
            (3, "float"),
            (3, "bool"),
            (1, "bytes"),
            (0.3, "none"),
            (1, "any"),
            (0.5, "object"),
            (4, "literal"),
            (4, "enum"),
            (3.5, "special"),
            (5, "helper"),
        ]
        composites: list[tuple[float, str]] = [
            (6, "optional"),
            (3, "union"),
            (4, "list"),
            (1.5, "set"),
            (2, "dict"),
            (1.2, "tuple_var"),
            (1.2, "tuple_fixed"),
            (2.5, "abc"),
            (4, "annotated"),
            (2.5, "annotated_types"),
            (1.5, "annotated_stack"),
            (1, "conlist"),
            (3, "typeddict"),
            (3, "dataclass"),
            (4, "model"),
            (4.5, "alias"),
        ]
        scale = (1.0, 0.55, 0.3, 0.0)[min(depth, MAX_DEPTH)]
        named_ok = self.named_count() < MAX_NAMED
        choices = list(leaves)
        for weight, name in composites:
            if name in ("typeddict", "dataclass", "model", "alias") and not named_ok:
                continue
            if scale:
                choices.append((weight * scale, name))
        if not named_ok:
            choices = [(w, n) for w, n in choices if n != "enum" or self._reusable("enum")]
        production = self.pick(*choices)
        result: T = getattr(self, f"t_{production}")(mod, depth)
        return result

    def _reusable(self, kind: str) -> list[Definition]:
        return [d for d in self.definitions if d.kind == kind and d.t is not None]

    def _ref_t(self, mod: _Module, d: Definition) -> T:
        assert d.t is not None
        return T(mod.named(d.name), d.t.cat, d.t.nullable, list(d.t.samples), d.t.factory)

    def _reuse(self, mod: _Module, kind: str) -> T | None:
        """Sometimes an earlier definition of the same kind instead of a new one."""
        found = self._reusable(kind)
        if found and (self.named_count() >= MAX_NAMED or self.rng.random() < 0.2):
            self.tag(f"{kind}:reused")
            return self._ref_t(mod, self.rng.choice(found))
        return None

    # leaves
    def t_str(self, mod: _Module, depth: int) -> T:
        self.tag("scalar:str")
        return T("str", "str", samples=self._samples(STR_SAMPLES))

    def t_int(self, mod: _Module, depth: int) -> T:
        self.tag("scalar:int")
        return T("int", "int", samples=self._samples(INT_SAMPLES))

    def t_float(self, mod: _Module, depth: int) -> T:
        self.tag("scalar:float")
        return T("float", "float", samples=self._samples(FLOAT_SAMPLES))

    def t_bool(self, mod: _Module, depth: int) -> T:
        self.tag("scalar:bool")
        return T("bool", "bool", samples=self._samples((True, False)))

    def t_bytes(self, mod: _Module, depth: int) -> T:
        self.tag("scalar:bytes")
        return T("bytes", "bytes", samples=[Sample('b"data"', b"data")])

    def t_none(self, mod: _Module, depth: int) -> T:
        self.tag("scalar:None")
        return T("None", nullable=True, samples=[Sample.of(None)])

    def t_any(self, mod: _Module, depth: int) -> T:
        self.tag("scalar:Any")
        return T(mod.ext("typing", "Any"), samples=self._samples((None, 1, "x", [1, 2])))

    def t_object(self, mod: _Module, depth: int) -> T:
        self.tag("scalar:object")
        return T("object", samples=self._samples((None, 1, "x")))

    def _samples(self, values: Iterable[Any], k: int = 2) -> list[Sample]:
        values = list(values)
        return [Sample.of(v) for v in self.rng.sample(values, min(k, len(values)))]

    def t_literal(self, mod: _Module, depth: int) -> T:
        pool: list[Any] = ["a", "b", "fast", "slow", "x", 0, 1, 2, 42, -1, True, False, None]
        count = self.rng.choice((1, 2, 2, 3, 3, 4))
        values: list[Any] = []
        while len(values) < count:
            v = self.rng.choice(pool)
            if not any(type(v) is type(u) and v == u for u in values):
                values.append(v)
        for v in values:
            self.tag(f"literal:{type(v).__name__}")
        if len({type(v) for v in values}) > 1:
            self.tag("literal:mixed")
        src = f"{mod.typing('Literal')}[{', '.join(py(v) for v in values)}]"
        return T(src, nullable=None in values, samples=[Sample.of(v) for v in values])

    def t_enum(self, mod: _Module, depth: int) -> T:
        reused = self._reuse(mod, "enum")
        if reused:
            return reused
        kind = self.pick((4, "str_mixin"), (3, "IntEnum"), (3, "StrEnum"), (1, "Enum"))
        return self._ref_t(mod, self.define_enum(kind))

    def define_enum(self, kind: str) -> Definition:
        name = self.fresh(CLASS_WORDS)
        d = self.new_definition(name, "enum")
        self.owners.append(name)
        m = self.models
        self.tag(f"enum:{kind}")
        if kind == "str_mixin":
            bases = f"str, {m.ext('enum', 'Enum')}"
        elif kind == "Enum":
            bases = m.ext("enum", "Enum")
        else:
            bases = m.ext("enum", kind)
        members = self.rng.sample(MEMBER_NAMES, self.rng.choice((2, 2, 3, 4)))
        use_auto = kind in ("IntEnum", "StrEnum") and self.rng.random() < 0.25
        body = self._class_doc()
        values: list[Any] = []
        for i, member in enumerate(members):
            if use_auto:
                self.tag("enum:auto")
                body.append(f"    {member} = {m.ext('enum', 'auto')}()")
                values.append(member.lower() if kind == "StrEnum" else i + 1)
                continue
            value: Any
            if kind == "IntEnum":
                value = self.rng.choice((i + 1, (i + 1) * 10, i))
                if value in values:
                    value = 100 + i
            else:
                value = member.lower() if self.rng.random() < 0.7 else f"{member.lower()}-{i}"
            values.append(value)
            body.append(f"    {member} = {py(value)}")
        d.text = f"class {name}({bases}):\n" + "\n".join(body)
        d.t = T(
            name,
            samples=[
                Sample(f"@@{name}@@.{mem}", v) for mem, v in zip(members, values, strict=True)
            ],
        )
        self.owners.pop()
        self.finish(d)
        return d

    def _class_doc(self) -> list[str]:
        r = self.rng.random()
        if r < 0.4:
            return ['    """A generated type."""', ""]
        if r < 0.5:
            self.tag("class:multiline_doc")
            return ['    """A generated type.', "", "    With a second paragraph.", '    """', ""]
        return []

    def t_special(self, mod: _Module, depth: int) -> T:
        module, name = self.rng.choice(SPECIAL_TYPES)
        self.tag(f"special:{name}")
        return T(mod.ext(module, name), "decimal" if name == "Decimal" else "other")

    def t_helper(self, mod: _Module, depth: int) -> T:
        if self.rng.random() < 0.4:
            call = self.pick((3, "conint"), (2, "confloat"), (3, "constr"))
            cat = {"conint": "int", "confloat": "float", "constr": "str"}[call]
            self.tag(f"helper:{call}")
            values = {"int": INT_SAMPLES, "float": FLOAT_SAMPLES, "str": STR_SAMPLES}[cat]
            cons = self._constraints(cat, at_least=1)
            kwargs = [f"{k}={py(v)}" for k, v in cons]
            if call == "constr" and self.rng.random() < 0.2:
                kwargs.append("strip_whitespace=True")
                self.tag("helper:constr_strip")
            src = f"{mod.ext('pydantic', call)}({', '.join(kwargs)})"
            return T(src, cat, samples=self._keep(self._samples(values, 3), cons))
        name = self.rng.choice(list(HELPER_TYPES))
        cat, values = HELPER_TYPES[name]
        self.tag(f"helper:{name}")
        return T(mod.ext("pydantic", name), cat, samples=self._samples(values))

    # constraints
    def _constraints(self, cat: str, at_least: int = 0, family: str = "field") -> list[tuple]:
        """Constraint keywords for a category, as (keyword, value) pairs."""
        out: list[tuple[str, Any]] = []
        while len(out) < max(at_least, 1):
            out = []
            if cat in ("int", "float", "decimal"):
                if self.rng.random() < 0.6:
                    lows = {"int": (-5, 0, 1, 2), "float": (0, 0.5, -1.5), "decimal": (0, 1)}
                    out.append((self.rng.choice(("ge", "gt")), self.rng.choice(lows[cat])))
                if self.rng.random() < 0.6:
                    highs = {"int": (10, 100, 1000), "float": (1, 10.0, 99.5), "decimal": (1000,)}
                    out.append((self.rng.choice(("le", "lt")), self.rng.choice(highs[cat])))
                if cat != "decimal" and self.rng.random() < 0.25:
                    out.append(("multiple_of", self.rng.choice((2, 5) if cat == "int" else (0.5,))))
            elif cat in ("str", "bytes", "seq", "map"):
                if self.rng.random() < 0.6:
                    out.append(
                        ("min_length", self.rng.choice((0, 1, 2) if cat != "str" else (1, 3)))
                    )
                if self.rng.random() < 0.6:
                    out.append(("max_length", self.rng.choice((3, 5, 10, 64))))
                if cat == "str" and family == "field" and self.rng.random() < 0.5:
                    out.append(("pattern", self.rng.choice(PATTERNS)))
            else:
                return []
        return out

    def _keep(self, samples: list[Sample], cons: list[tuple[str, Any]]) -> list[Sample]:
        return [s for s in samples if _satisfies(s.value, cons)]

    def _field_call(
        self,
        mod: _Module,
        t: T,
        *,
        default: Sample | None,
        cons: list[tuple[str, Any]],
        extra: tuple[str, ...] = (),
    ) -> str:
        args: list[str] = []
        if default is not None:
            if self.rng.random() < 0.7:
                args.append(mod.render(default.src))
            else:
                args.append(f"default={mod.render(default.src)}")
                self.tag("field:default_kw")
        for k, v in cons:
            args.append(f"{k}={py(v)}")
            self.tag(f"field:{k}")
        if self.rng.random() < 0.35:
            args.append(f"description={py(self.rng.choice(DESCRIPTIONS))}")
            self.tag("field:description")
        plain = [s for s in t.samples if "@@" not in s.src and s.value is not None]
        if plain and self.rng.random() < 0.2:
            args.append(f"examples=[{', '.join(s.src for s in plain[:2])}]")
            self.tag("field:examples")
        args.extend(extra)
        return f"{mod.ext('pydantic', 'Field')}({', '.join(args)})"

    # composites
    def t_optional(self, mod: _Module, depth: int) -> T:
        inner = self.draw(mod, depth + 1)
        for _ in range(3):
            if not inner.nullable:
                break
            inner = self.draw(mod, depth + 1)
        if inner.nullable:
            return inner
        style = self.pick((5, "pipe"), (3, "Optional"), (1, "Union"), (0.5, "none_first"))
        self.tag(f"optional:{style}")
        if style == "pipe":
            src = f"{inner.src} | None"
        elif style == "Optional":
            src = f"{mod.typing('Optional')}[{inner.src}]"
        elif style == "Union":
            src = f"{mod.typing('Union')}[{inner.src}, None]"
        else:
            src = f"None | {inner.src}"
        return T(src, inner.cat, True, [*inner.samples, Sample.of(None)], inner.factory)

    def t_union(self, mod: _Module, depth: int) -> T:
        members: list[T] = []
        for _ in range(self.rng.choice((2, 2, 3))):
            t = self.draw(mod, depth + 1)
            if all(t.src != u.src for u in members):
                members.append(t)
        if len(members) == 1:
            return members[0]
        pipe = self.rng.random() < 0.5
        self.tag("union:pipe" if pipe else "union:Union")
        if self.rng.random() < 0.15:
            members.append(T("None", nullable=True, samples=[Sample.of(None)]))
            self.tag("union:with_None")
        if pipe:
            src = " | ".join(m.src for m in members)
        else:
            src = f"{mod.typing('Union')}[{', '.join(m.src for m in members)}]"
        samples = [s for m in members for s in m.samples[:1]]
        return T(src, nullable=any(m.nullable for m in members), samples=samples)

    def _container_samples(self, item: T, wrap: Callable[[list[Any]], Any]) -> list[Sample]:
        out = [Sample.of(wrap([]))]
        if item.samples:
            s = self.rng.choice(item.samples)
            empty = py(wrap([]))
            inner = s.src + ("," if empty == "()" else "")
            out.append(Sample(empty[0] + inner + empty[-1], wrap([s.value]), empty != "()"))
        return out

    def t_list(self, mod: _Module, depth: int) -> T:
        if self.rng.random() < 0.06:
            self.tag("list:bare")
            return T("list", "seq", samples=[Sample.of([])], factory="list")
        item = self.draw(mod, depth + 1)
        typing_list = self.rng.random() < 0.15
        self.tag("list:typing.List" if typing_list else "list:builtin")
        head = mod.ext("typing", "List") if typing_list else "list"
        return T(
            f"{head}[{item.src}]",
            "seq",
            samples=self._container_samples(item, list),
            factory="list",
        )

    def draw_hashable(self, mod: _Module, depth: int) -> T:
        production = self.pick(
            (3, "str"), (3, "int"), (1, "float"), (1, "bool"), (2, "literal"), (2, "enum"),
            (1, "special"), (1, "helper"),
        )  # fmt: skip
        if production == "enum" and self.named_count() >= MAX_NAMED and not self._reusable("enum"):
            production = "str"
        t: T = getattr(self, f"t_{production}")(mod, depth)
        return t

    def t_set(self, mod: _Module, depth: int) -> T:
        head = self.pick((3, "set"), (2, "frozenset"), (0.5, "Set"), (0.3, "FrozenSet"))
        self.tag(f"set:{head}")
        item = self.draw_hashable(mod, depth + 1)
        if head in ("Set", "FrozenSet"):
            head = mod.ext("typing", head)
        return T(f"{head}[{item.src}]", "seq", factory="set" if head == "set" else None)

    def _key(self, mod: _Module, depth: int) -> tuple[T, Any]:
        kind = self.pick((7, "str"), (1, "int"), (1, "literal"), (1, "enum"))
        self.tag(f"dict_key:{kind}")
        if kind == "str":
            return T("str", "str"), "k"
        if kind == "int":
            return T("int", "int"), 1
        if kind == "literal":
            values = self.rng.sample(["a", "b", "c"], 2)
            return T(f"{mod.typing('Literal')}[{', '.join(py(v) for v in values)}]"), values[0]
        found = [
            d
            for d in self._reusable("enum")
            if d.t is not None and all(isinstance(s.value, str) for s in d.t.samples)
        ]
        if found and (self.rng.random() < 0.5 or self.named_count() >= MAX_NAMED):
            return self._ref_t(mod, self.rng.choice(found)), None
        if self.named_count() >= MAX_NAMED:
            return T("str", "str"), "k"
        return self._ref_t(mod, self.define_enum(self.rng.choice(("str_mixin", "StrEnum")))), None

    def _map(self, mod: _Module, depth: int, head: str) -> T:
        key, key_value = self._key(mod, depth + 1)
        value = self.draw(mod, depth + 1)
        samples = [Sample("{}", {}, True)]
        if key_value is not None and value.samples:
            s = self.rng.choice(value.samples)
            samples.append(Sample(f"{{{py(key_value)}: {s.src}}}", {key_value: s.value}, True))
        return T(f"{head}[{key.src}, {value.src}]", "map", samples=samples, factory="dict")

    def t_dict(self, mod: _Module, depth: int) -> T:
        r = self.rng.random()
        if r < 0.06:
            self.tag("dict:bare")
            return T("dict", "map", samples=[Sample("{}", {}, True)], factory="dict")
        if r < 0.2:
            self.tag("dict:str_Any")
            return T(
                f"dict[str, {mod.ext('typing', 'Any')}]",
                "map",
                samples=[Sample("{}", {}, True), Sample('{"k": 1}', {"k": 1}, True)],
                factory="dict",
            )
        typing_dict = r > 0.9
        self.tag("dict:typing.Dict" if typing_dict else "dict:builtin")
        return self._map(mod, depth, mod.ext("typing", "Dict") if typing_dict else "dict")

    def t_abc(self, mod: _Module, depth: int) -> T:
        name = self.pick((3, "Sequence"), (2, "Mapping"), (2, "Iterable"))
        head = mod.abc(name)
        self.tag(f"abc:{name}:{mod.styles[('abc-choice', name)]}")
        if name == "Mapping":
            t = self._map(mod, depth, head)
            t.factory = None
            return t
        item = self.draw(mod, depth + 1)
        samples = self._container_samples(item, list)
        if name == "Iterable":
            return T(f"{head}[{item.src}]", samples=samples[:1])
        return T(f"{head}[{item.src}]", "seq", samples=samples)

    def t_tuple_var(self, mod: _Module, depth: int) -> T:
        typing_tuple = self.rng.random() < 0.15
        self.tag("tuple:var")
        head = mod.ext("typing", "Tuple") if typing_tuple else "tuple"
        item = self.draw(mod, depth + 1)
        samples = self._container_samples(item, tuple)
        return T(f"{head}[{item.src}, ...]", "seq", samples=samples)

    def t_tuple_fixed(self, mod: _Module, depth: int) -> T:
        self.tag("tuple:fixed")
        items = [self.draw(mod, depth + 1) for _ in range(self.rng.choice((1, 2, 2, 3)))]
        samples: list[Sample] = []
        if all(i.samples for i in items):
            picked = [self.rng.choice(i.samples) for i in items]
            inner = ", ".join(s.src for s in picked) + ("," if len(picked) == 1 else "")
            samples.append(Sample(f"({inner})", tuple(s.value for s in picked)))
        return T(f"tuple[{', '.join(i.src for i in items)}]", samples=samples)

    def _markers(self, mod: _Module, t: T, count: int) -> tuple[list[str], list[Sample]]:
        """Annotated metadata for `t`, and the samples that still satisfy it."""
        markers: list[str] = []
        samples = list(t.samples)
        for _ in range(count):
            kind = self.pick((4, "field"), (4, "annotated_types"), (1, "doc"), (1.2, "validator"))
            if kind == "annotated_types" and t.cat not in CONSTRAINABLE:
                kind = "field"
            if kind == "field":
                cons = self._constraints(t.cat) if t.cat in CONSTRAINABLE else []
                samples = self._keep(samples, cons)
                if not cons and self.rng.random() < 0.6:
                    markers.append(
                        f"{mod.ext('pydantic', 'Field')}("
                        f"description={py(self.rng.choice(DESCRIPTIONS))})"
                    )
                    self.tag("field:description")
                    continue
                markers.append(
                    self._field_call(mod, T(t.src, t.cat, samples=samples), default=None, cons=cons)
                )
            elif kind == "annotated_types":
                cons = self._constraints(t.cat, family="at")
                samples = self._keep(samples, cons)
                markers.extend(self._at_markers(mod, cons))
            elif kind == "doc":
                self.tag("annotated:plain_metadata")
                markers.append(py("some metadata"))
            else:
                markers.append(self._validator(mod))
        return markers, samples

    def _at_markers(self, mod: _Module, cons: list[tuple[str, Any]]) -> list[str]:
        given = dict(cons)
        out: list[str] = []
        lower = [k for k in ("ge", "gt") if k in given]
        upper = [k for k in ("le", "lt") if k in given]
        if lower and upper and self.rng.random() < 0.6:
            self.tag("annotated_types:Interval")
            kw = ", ".join(f"{k}={py(given.pop(k))}" for k in (*lower, *upper))
            out.append(f"{mod.ext('annotated_types', 'Interval')}({kw})")
        if "min_length" in given and "max_length" in given and self.rng.random() < 0.6:
            self.tag("annotated_types:Len")
            lo, hi = given.pop("min_length"), given.pop("max_length")
            out.append(f"{mod.ext('annotated_types', 'Len')}({lo}, {hi})")
        names = {"ge": "Ge", "gt": "Gt", "le": "Le", "lt": "Lt", "multiple_of": "MultipleOf"}
        names |= {"min_length": "MinLen", "max_length": "MaxLen"}
        for k, v in given.items():
            self.tag(f"annotated_types:{names[k]}")
            out.append(f"{mod.ext('annotated_types', names[k])}({py(v)})")
        return out

    def _validator(self, mod: _Module) -> str:
        kind = self.pick(
            (3, "BeforeValidator"),
            (3, "AfterValidator"),
            (2, "PlainValidator"),
            (2, "WrapValidator"),
        )
        self.tag(f"validator:{kind}")
        fn = self.define_function(kind == "WrapValidator")
        return f"{mod.ext('pydantic', kind)}({mod.named(fn)})"

    def define_function(self, wrap: bool) -> str:
        self.counter += 1
        name = f"{'wrap' if wrap else 'normalize'}_{self.counter}"
        d = self.new_definition(name, "function")
        if wrap:
            d.text = f"def {name}(value, handler):\n    return handler(value)"
        else:
            d.text = f"def {name}(value):\n    return value"
        self.finish(d)
        return name

    def draw_constrainable(self, mod: _Module, depth: int) -> T:
        """A type that takes constraints (for Annotated to constrain it)."""
        choices = [(4, "str"), (4, "int"), (2, "float"), (1, "bytes"), (1, "helper")]
        choices.append((0.7, "decimal"))
        if depth < MAX_DEPTH:
            choices += [(2, "list"), (1, "dict"), (0.5, "set"), (0.5, "tuple_var")]
        production = self.pick(*choices)
        if production == "decimal":
            self.tag("special:Decimal")
            return T(mod.ext("decimal", "Decimal"), "decimal")
        t: T = getattr(self, f"t_{production}")(mod, depth)
        return t

    def draw_field(self, mod: _Module, depth: int) -> T:
        """A dataclass or model field's type: a container now and then (for default factories)."""
        if depth < MAX_DEPTH and self.rng.random() < 0.2:
            production = self.pick((3, "list"), (1.5, "dict"), (1, "set"))
            t: T = getattr(self, f"t_{production}")(mod, depth)
            return t
        return self.draw(mod, depth)

    def t_annotated_types(self, mod: _Module, depth: int) -> T:
        """`Annotated[X, Ge(...), MaxLen(...), ...]`: annotated_types markers on their own."""
        inner = self.draw_constrainable(mod, depth + 1)
        if inner.cat not in CONSTRAINABLE:
            inner = self.t_int(mod, depth + 1)
        cons = self._constraints(inner.cat, family="at")
        markers = self._at_markers(mod, cons)
        src = f"{mod.typing('Annotated')}[{inner.src}, {', '.join(markers)}]"
        return T(src, inner.cat, inner.nullable, self._keep(inner.samples, cons), inner.factory)

    def t_annotated(self, mod: _Module, depth: int) -> T:
        if self.rng.random() < 0.5:
            inner = self.draw_constrainable(mod, depth + 1)
        else:
            inner = self.draw(mod, depth + 1)
        count = self.rng.choice((1, 1, 1, 2))
        markers, samples = self._markers(mod, inner, count)
        self.tag("annotated:single")
        src = f"{mod.typing('Annotated')}[{inner.src}, {', '.join(markers)}]"
        return T(src, inner.cat, inner.nullable, samples, inner.factory)

    def t_annotated_stack(self, mod: _Module, depth: int) -> T:
        inner = self.draw(mod, depth + 2) if depth + 2 <= MAX_DEPTH else self.t_int(mod, depth)
        head = mod.typing("Annotated")
        m1, samples = self._markers(mod, inner, 1)
        middle = T(f"{head}[{inner.src}, {', '.join(m1)}]", inner.cat, inner.nullable, samples)
        m2, samples = self._markers(mod, middle, 1)
        self.tag("annotated:stacked")
        src = f"{head}[{middle.src}, {', '.join(m2)}]"
        return T(src, inner.cat, inner.nullable, samples, inner.factory)

    def t_conlist(self, mod: _Module, depth: int) -> T:
        self.tag("helper:conlist")
        item = self.draw(mod, depth + 1)
        cons = self._constraints("seq", at_least=1)
        kwargs = "".join(f", {k}={py(v)}" for k, v in cons)
        samples = self._keep(self._container_samples(item, list), cons)
        return T(f"{mod.ext('pydantic', 'conlist')}({item.src}{kwargs})", "seq", samples=samples)

    # named classes
    def _start_class(self, kind: str, words: tuple[str, ...] = CLASS_WORDS) -> Definition:
        name = self.fresh(words)
        d = self.new_definition(name, kind)
        self.owners.append(name)
        return d

    def _end_class(self, d: Definition) -> None:
        self.owners.pop()
        self.finish(d)

    def _field_names(self, count: int) -> list[str]:
        return self.rng.sample(NAMES, count)

    def t_typeddict(self, mod: _Module, depth: int) -> T:
        reused = self._reuse(mod, "typeddict")
        if reused:
            return reused
        return self._ref_t(mod, self.define_typeddict(depth, allow_base=True))

    def define_typeddict(self, depth: int, allow_base: bool) -> Definition:
        base: Definition | None = None
        if allow_base and self.rng.random() < 0.25 and self.named_count() + 2 <= MAX_NAMED:
            base = self.define_typeddict(depth, allow_base=False)
        d = self._start_class("typeddict")
        m = self.models
        total = self.rng.random() < 0.3
        if base is not None:
            self.tag("typeddict:inherits")
            head = m.named(base.name)
        else:
            head = m.ext("typing_extensions", "TypedDict")
        if total:
            self.tag("typeddict:total_false")
            head += ", total=False"
        body = self._class_doc()
        inherited = set(base.fields) if base is not None else set()
        names = [n for n in self._field_names(4) if n not in inherited]
        for fname in names[: self.rng.choice((1, 2, 2, 3))]:
            t = self.draw(m, depth + 1)
            annotation = t.src
            r = self.rng.random()
            if r < 0.15:
                annotation = f"{m.typing('Required')}[{annotation}]"
                self.tag("typeddict:Required")
            elif r < 0.35:
                annotation = f"{m.typing('NotRequired')}[{annotation}]"
                self.tag("typeddict:NotRequired")
            body.append(f"    {fname}: {annotation}")
            inherited.add(fname)
        d.text = f"class {d.name}({head}):\n" + "\n".join(body)
        d.t = T(d.name)
        d.fields = sorted(inherited)
        self._end_class(d)
        return d

    def t_dataclass(self, mod: _Module, depth: int) -> T:
        reused = self._reuse(mod, "dataclass")
        if reused:
            return reused
        d = self._start_class("dataclass")
        m = self.models
        decorator = self.pick((5, "dataclass"), (1, "module"), (1, "frozen"))
        self.tag(f"dataclass:{decorator}")
        if decorator == "module":
            line = f"@{m.module_ref('dataclasses')}.dataclass"
        elif decorator == "frozen":
            line = f"@{m.ext('dataclasses', 'dataclass')}(frozen=True)"
        else:
            line = f"@{m.ext('dataclasses', 'dataclass')}"
        required: list[str] = []
        optional: list[str] = []
        for fname in self._field_names(self.rng.choice((1, 2, 3, 4))):
            t = self.draw_field(m, depth + 1)
            immutable = [s for s in t.samples if not s.mutable]
            r = self.rng.random()
            if r < 0.2 and immutable:
                self.tag("dataclass:default")
                value = m.render(self.rng.choice(immutable).src)
                optional.append(f"    {fname}: {t.src} = {value}")
            elif r < 0.32 and immutable:
                self.tag("dataclass:field_default")
                value = m.render(self.rng.choice(immutable).src)
                optional.append(
                    f"    {fname}: {t.src} = {m.ext('dataclasses', 'field')}(default={value})"
                )
            elif r < 0.6 and t.factory:
                self.tag("dataclass:default_factory")
                call = f"{m.ext('dataclasses', 'field')}(default_factory={t.factory})"
                optional.append(f"    {fname}: {t.src} = {call}")
            else:
                required.append(f"    {fname}: {t.src}")
        body = self._class_doc() + required + optional
        d.text = f"{line}\nclass {d.name}:\n" + "\n".join(body)
        d.t = T(d.name)
        self._end_class(d)
        return self._ref_t(mod, d)

    def t_model(self, mod: _Module, depth: int) -> T:
        reused = self._reuse(mod, "model")
        if reused:
            return reused
        return self._ref_t(mod, self.define_model(depth, allow_base=True))

    def define_model(self, depth: int, allow_base: bool) -> Definition:
        base: Definition | None = None
        if allow_base and self.rng.random() < 0.25 and self.named_count() + 2 <= MAX_NAMED:
            base = self.define_model(depth, allow_base=False)
        d = self._start_class("model")
        m = self.models
        if base is not None:
            self.tag("model:inherits")
            head = m.named(base.name)
        else:
            head = m.ext("pydantic", "BaseModel")
        body = self._class_doc()
        if self.rng.random() < 0.25:
            extra = self.pick((4, "forbid"), (1, "allow"), (0.5, "ignore"))
            self.tag(f"model:extra_{extra}")
            body.append(f"    model_config = {m.ext('pydantic', 'ConfigDict')}(extra={py(extra)})")
            body.append("")
        taken = set(base.fields) if base is not None else set()
        names = [n for n in self._field_names(5) if n not in taken]
        for fname in names[: self.rng.choice((1, 2, 2, 3, 4))]:
            t = self.draw_field(m, depth + 1)
            body.append(f"    {fname}: {t.src}{self._model_default(t, fname)}")
            taken.add(fname)
        if self.rng.random() < 0.15:
            self.tag("model:recursive")
            name = d.name
            fname = self.rng.choice([n for n in ("children", "parent", "nodes") if n not in taken])
            plain = m.future and self.rng.random() < 0.5
            ref = name if plain else f'"{name}"'
            if fname == "parent":
                style = self.pick((1, "Optional"), (1, "quoted_pipe"))
                if style == "Optional" or not plain:
                    body.append(f"    {fname}: {m.typing('Optional')}[{ref}] = None")
                else:
                    body.append(f"    {fname}: {name} | None = None")
            elif self.rng.random() < 0.5:
                body.append(f"    {fname}: list[{ref}] = []")
            else:
                field_call = f"{m.ext('pydantic', 'Field')}(default_factory=list)"
                body.append(f"    {fname}: list[{ref}] = {field_call}")
            taken.add(fname)
        d.text = f"class {d.name}({head}):\n" + "\n".join(body)
        d.t = T(d.name)
        d.fields = sorted(taken)
        self._end_class(d)
        return d

    def _model_default(self, t: T, fname: str) -> str:
        m = self.models
        r = self.rng.random()
        if t.factory and self.rng.random() < 0.3:
            self.tag("model:default_factory")
            return f" = {m.ext('pydantic', 'Field')}(default_factory={t.factory})"
        if r < 0.4:
            return ""
        if r < 0.6 and t.samples:
            self.tag("model:default")
            return f" = {m.render(self.rng.choice(t.samples).src)}"
        if r < 0.68 and t.factory:
            self.tag("model:default_factory")
            return f" = {m.ext('pydantic', 'Field')}(default_factory={t.factory})"
        cons = (
            self._constraints(t.cat) if t.cat in CONSTRAINABLE and self.rng.random() < 0.7 else []
        )
        samples = self._keep(t.samples, cons)
        default = self.rng.choice(samples) if samples and self.rng.random() < 0.6 else None
        extra: list[str] = []
        if self.rng.random() < 0.25:
            alias = fname.split("_")[0] + "".join(w.title() for w in fname.split("_")[1:])
            extra.append(f"alias={py(alias + 'Alias')}")
            self.tag("field:alias")
        self.tag("model:Field")
        call = self._field_call(
            m, T(t.src, t.cat, samples=samples), default=default, cons=cons, extra=extra
        )
        return f" = {call}"

    def t_alias(self, mod: _Module, depth: int) -> T:
        reused = self._reuse(mod, "alias")
        if reused:
            return reused
        kind = self.pick((3, "plain"), (2, "TypeAlias"), (2, "NewType"), (4, "validator"))
        self.tag(f"alias:{kind}")
        d = self._start_class("alias", ALIAS_WORDS)
        m = self.models
        if kind == "NewType":
            base, cat, values = self.rng.choice(
                (("str", "str", STR_SAMPLES), ("int", "int", INT_SAMPLES),
                 ("float", "float", FLOAT_SAMPLES), ("UUID", "other", ())),
            )  # fmt: skip
            src = m.ext("uuid", "UUID") if base == "UUID" else base
            d.text = f"{d.name} = {m.typing('NewType')}({py(d.name)}, {src})"
            t = T(d.name, cat, samples=self._samples(values))
        else:
            inner = self.draw(m, depth + 1)
            value = inner.src
            samples = inner.samples
            if kind == "validator":
                markers = [self._validator(m)]
                value = f"{m.typing('Annotated')}[{value}, {', '.join(markers)}]"
            if kind == "TypeAlias":
                d.text = f"{d.name}: {m.typing('TypeAlias')} = {value}"
            else:
                d.text = f"{d.name} = {value}"
            t = T(d.name, inner.cat, inner.nullable, samples, inner.factory)
        d.t = t
        self._end_class(d)
        return self._ref_t(mod, d)

    # the handler
    def parameter(self, name: str) -> Param:
        p = Param(name, "", None, f"The {name.replace('_', ' ')} to use.")
        self.param = p
        t = self.draw(self.tools, 0)
        p.annotation = t.src
        p.default = self._param_default(t)
        self.param = None
        return p

    def _param_default(self, t: T) -> str | None:
        mod = self.tools
        if self.rng.random() < 0.5:
            return None
        options: list[tuple[float, str]] = [(0.6, "field_description")]
        if t.samples:
            options += [(4, "literal"), (1.5, "field_default")]
        kind = self.pick(*options)
        if kind == "literal":
            s = self.rng.choice(t.samples)
            if s.value is None:
                self.tag("default:None")
            elif "@@" in s.src:
                self.tag("default:enum_member")
            else:
                self.tag(f"default:{type(s.value).__name__}")
            return mod.render(s.src)
        self.tag(f"default:{kind}")
        cons: list[tuple[str, Any]] = []
        samples = t.samples
        if kind == "field_default" and t.cat in CONSTRAINABLE and self.rng.random() < 0.7:
            cons = self._constraints(t.cat)
            samples = self._keep(samples, cons)
        if kind == "field_description" or not samples:
            return (
                f"{mod.ext('pydantic', 'Field')}(description={py(self.rng.choice(DESCRIPTIONS))})"
            )
        return self._field_call(mod, t, default=self.rng.choice(samples), cons=cons)

    def case(self) -> Case:
        rng = self.rng
        self.models.future = rng.random() < 0.5
        self.tools_future = rng.random() < 0.5
        if self.models.future:
            self.tag("future:models")
        if self.tools_future:
            self.tag("future:tools")
        self.tools.imports.from_imports[("toolgen", "tool")] = {"*"}
        self.tools.bound["tool"] = ("from", "toolgen", "tool")
        count = rng.choice((1, 2, 2, 3, 3, 3, 4, 4, 5))
        params = [self.parameter(n) for n in self._field_names(count)]
        # Python needs parameters without a default first; keep the drawn order otherwise.
        params.sort(key=lambda p: p.default is not None)
        features = set(self.case_features)
        for p in params:
            features |= p.features
        return Case(
            index=self.index,
            package=self.pkg,
            tool_name=f"{rng.choice(VERBS)}_{self.index:04d}",
            params=params,
            summary=f"Generated handler number {self.index}.",
            returns_doc=rng.random() < 0.3,
            models_doc=f"Named types of generated signature case {self.index}.",
            models_future=self.models.future,
            tools_future=self.tools_future,
            definitions=self.definitions,
            models_imports=self.models.imports,
            tools_imports=self.tools.imports,
            reexports=self.reexports,
            star_reexport=rng.random() < 0.2,
            features=features,
        )


def show_files(files: dict[str, str]) -> str:
    """Generated files with more than a docstring, one after the other, for a report."""
    return "\n".join(
        f"# --- {path}\n{text}"
        for path, text in files.items()
        if any(
            line and not line.startswith(('"""', "from __future__")) for line in text.splitlines()
        )
    )


def _satisfies(value: Any, cons: list[tuple[str, Any]]) -> bool:
    if value is None:
        return True
    for key, bound in cons:
        if key == "ge" and not value >= bound:
            return False
        if key == "gt" and not value > bound:
            return False
        if key == "le" and not value <= bound:
            return False
        if key == "lt" and not value < bound:
            return False
        if key == "multiple_of" and abs(value / bound - round(value / bound)) > 1e-9:
            return False
        if key == "min_length" and not len(value) >= bound:
            return False
        if key == "max_length" and not len(value) <= bound:
            return False
        if key == "pattern" and not (isinstance(value, str) and re.search(bound, value)):
            return False
    return True


def generate_case(rng: random.Random, index: int) -> Case:
    """One case drawn with `rng`; its package is `sigpkg_<index>` and its tool is unique."""
    return _Generator(rng, index).case()


def case_rng(seed: int, index: int) -> random.Random:
    return random.Random(f"toolgen-signatures:{seed}:{index}")


def generate_cases(count: int, seed: int = 0, start: int = 0) -> list[Case]:
    """Cases `start` .. `start + count - 1` for `seed`, each from its own seeded generator."""
    return [generate_case(case_rng(seed, i), i) for i in range(start, start + count)]
