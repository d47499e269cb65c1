"""What a few names of the standard library mean: the builtins code that registers tools
uses (`list`, `getattr`, `staticmethod`, ...), `functools.wraps`/`partial`, and reads of the
process environment, which is absent: `os.getenv("X", d)` is `d` (what a server started with
nothing set publishes), or the value the configuration gives for `X`; and the command line,
which is empty (`sys.argv` is `[""]`)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import operator
import textwrap
from collections.abc import Callable
from collections.abc import Mapping as MappingABC
from typing import Any

from toolgen.read.registration import registries
from toolgen.read.registration.context import Context
from toolgen.read.registration.values import (
    ArgParser,
    Bound,
    Class,
    Const,
    ContainerMethod,
    External,
    FilePath,
    Function,
    Mapping,
    ModuleValue,
    Opened,
    Partial,
    Record,
    Seq,
    Server,
    ToolHandle,
    Unknown,
    Value,
)

#: The most items `range(...)` or a repetition makes: more is not a list of tools.
MAX_ITEMS = 10_000
#: The longest string, and the largest integer (in bits: below Python's limit for turning
#: one into text), an operation makes: past them the value is unknown, not computed.
MAX_TEXT = 100_000
MAX_INT_BITS = 12_000


def fits(value: object) -> bool:
    """Whether a computed constant is small enough to keep computing with."""
    if isinstance(value, str | bytes):
        return len(value) <= MAX_TEXT
    if isinstance(value, int):
        return value.bit_length() <= MAX_INT_BITS
    return True


#: Paths whose value is a constant (`if TYPE_CHECKING:` imports only types).
CONSTANTS: dict[str, Value] = {
    "typing.TYPE_CHECKING": Const(False),
    "typing_extensions.TYPE_CHECKING": Const(False),
}

ENV_GETTERS = frozenset({"os.getenv", "os.environ.get", "os.environ.setdefault"})


def process_value(path: str) -> Value | None:
    """What a name of the process's state is when it starts with nothing given: `sys.argv`
    is a program name and no arguments (a fresh list each time: code may change it)."""
    if path == "sys.argv":
        return Seq([Const("")])
    return CONSTANTS.get(path)


def items(value: Value) -> list[Value] | None:
    """The values iterating over `value` gives, when known."""
    if isinstance(value, Seq):
        return list(value.items)
    if isinstance(value, Mapping) and not value.partial:
        return [key for key, _ in value.entries.values()]
    if isinstance(value, Const) and isinstance(value.value, str | bytes):
        if len(value.value) > MAX_ITEMS:
            return None
        return [Const(c) for c in value.value]
    if isinstance(value, Class) and is_enum(value):  # its members (each is its value here)
        members = [v for k, v in value.namespace.items() if not k.startswith("_")]
        if all(isinstance(m, Const) and hashable(m.value) for m in members):
            return list({m.value: m for m in members if isinstance(m, Const)}.values())
    return None


def is_enum(cls: Class) -> bool:
    """Whether `cls` derives from one of `enum`'s classes (directly, or through the project's
    own classes, at most 16 of them)."""
    queue: list[Value] = list(cls.bases)
    for _ in range(16):
        if not queue:
            return False
        base = queue.pop(0)
        if isinstance(base, External) and base.path.startswith("enum."):
            return True
        if isinstance(base, Class):
            queue.extend(base.bases)
    return False


def call_stdlib(
    ctx: Context,
    env: MappingABC[str, str],
    path: str,
    args: list[Value],
    kwargs: dict[str, Value],
    node: ast.AST,
) -> Value | None:
    """The value of calling `path` (a name of the standard library), or None when it is not
    one given a meaning here."""
    if path in ENV_GETTERS:
        return env_read(ctx, env, args, kwargs, node)
    if path == "functools.partial" and args:
        return Partial(args[0], tuple(args[1:]), tuple(kwargs.items()))
    if path == "functools.wraps" and args:
        # `wraps(f)` is `partial(update_wrapper, wrapped=f)`, as functools defines it
        return Partial(External("functools.update_wrapper"), (), (("wrapped", args[0]),))
    if path == "functools.update_wrapper":
        wrapper = args[0] if args else kwargs.get("wrapper")
        wrapped = args[1] if len(args) > 1 else kwargs.get("wrapped")
        if isinstance(wrapper, Function) and wrapped is not None:
            return dataclasses.replace(wrapper, wrapped=wrapped)
        return wrapper if wrapper is not None else Unknown("update_wrapper of nothing", node)
    if path in RUNNERS and args:  # `anyio.run(main, x)`: the runner calls it
        return ctx.call(args[0], args[1:], kwargs, node)
    if path in ("typing.cast", "typing_extensions.cast") and len(args) == 2:
        return args[1]  # `cast(T, x)` is `x`
    if path == "asyncio.run" and args:  # `asyncio.run(main())`: an `async def` ran when called
        return args[0]
    if path in ("copy.copy", "copy.deepcopy") and args:
        return copied(args[0], deep=path == "copy.deepcopy")
    if path in TEXT_FUNCTIONS and len(args) == 1 and not kwargs:
        text = args[0]
        if isinstance(text, Const) and isinstance(text.value, str) and fits(text.value):
            return Const(TEXT_FUNCTIONS[path](text.value))
        return None
    module, _, name = path.rpartition(".")
    if module == "builtins" and name in BUILTINS:
        return BUILTINS[name](args, kwargs, node)
    return None


#: Functions of one string the standard library computes from it alone (a tool's description
#: is often written `textwrap.dedent("""...""")`).
TEXT_FUNCTIONS: dict[str, Callable[[str], str]] = {
    "textwrap.dedent": textwrap.dedent,
    "inspect.cleandoc": inspect.cleandoc,
}


#: What runs an async function it is given, with the arguments after it.
RUNNERS = frozenset({"anyio.run", "trio.run"})


#: How deep `copy.deepcopy` copies (below: the values themselves, not copies).
MAX_COPY_DEPTH = 100


def copied(
    value: Value,
    deep: bool,
    budget: list[int] | None = None,
    memo: dict[int, Value] | None = None,
    depth: int = 0,
) -> Value:
    """`copy.copy(x)`, `copy.deepcopy(x)` of a known list or dict (a new one, as mutating
    the copy leaves the original alone); any other value is itself (at most `MAX_ITEMS`
    containers are copied, `MAX_COPY_DEPTH` deep). A container met again (one that holds
    itself) is its copy again, as `deepcopy`'s memo makes it."""
    budget = budget if budget is not None else [MAX_ITEMS]
    memo = memo if memo is not None else {}
    if id(value) in memo:
        return memo[id(value)]
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_COPY_DEPTH:
        return value
    if isinstance(value, Seq):
        made = Seq([], value.kind)
        memo[id(value)] = made
        if deep:
            made.items.extend(copied(i, deep, budget, memo, depth + 1) for i in value.items)
        else:
            made.items.extend(value.items)
        return made
    if isinstance(value, Mapping):
        copy = Mapping({}, value.partial)
        memo[id(value)] = copy
        for k, (key, item) in value.entries.items():
            copy.entries[k] = (key, copied(item, deep, budget, memo, depth + 1) if deep else item)
        return copy
    return value


def env_read(
    ctx: Context,
    env: MappingABC[str, str],
    args: list[Value],
    kwargs: dict[str, Value],
    node: ast.AST,
) -> Value:
    key = args[0] if args else kwargs.get("key")
    default = args[1] if len(args) > 1 else kwargs.get("default", Const(None))
    if not (isinstance(key, Const) and isinstance(key.value, str)):
        why = "reads an environment variable toolgen cannot name"
        ctx.note("env", why, node)
        return ctx.unknown(why, node)
    if key.value in env:
        ctx.note("env", f"reads ${key.value}: the configured value is used", node)
        return Const(env[key.value])
    ctx.note("env", f"reads ${key.value}: unset when toolgen reads it, its default is used", node)
    return default


def env_item(ctx: Context, env: MappingABC[str, str], key: Value, node: ast.AST) -> Value:
    """`os.environ["X"]`: the configured value, else unknown (the server would not start)."""
    if isinstance(key, Const) and isinstance(key.value, str) and key.value in env:
        ctx.note("env", f"reads ${key.value}: the configured value is used", node)
        return Const(env[key.value])
    why = f"reads `{ast.unparse(node)}`, which has no default"
    ctx.note("env", why, node)
    return ctx.unknown(why, node)


Builtin = Callable[[list[Value], dict[str, Value], ast.AST], Value]


def _sequence(kind: str) -> Builtin:
    def make(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
        if not args:
            return Seq([], "tuple" if kind == "tuple" else "set" if kind == "set" else "list")
        found = items(args[0])
        if found is None:
            return Unknown(f"{kind}() of a value toolgen cannot know", node)
        if kind == "set":
            return Seq(_distinct(found), "set")
        if kind == "sorted":
            return Seq(_sorted(found, kwargs), "list")
        return Seq(found, "tuple" if kind == "tuple" else "list")

    return make


def _distinct(found: list[Value]) -> list[Value]:
    """The items of a set: one of equal constants (others are kept: toolgen cannot tell)."""
    seen: set[object] = set()
    kept: list[Value] = []
    for item in found:
        if isinstance(item, Const) and hashable(item.value):
            if item.value in seen:
                continue
            seen.add(item.value)
        kept.append(item)
    return kept


def _sorted(found: list[Value], kwargs: dict[str, Value]) -> list[Value]:
    """`sorted(...)` of constants Python can order, without `key`; in the order given
    otherwise (what toolgen reads of a list of tools does not depend on its order)."""
    reverse = kwargs.get("reverse", Const(False))
    constants = [i for i in found if isinstance(i, Const)]
    if "key" in kwargs or not isinstance(reverse, Const) or len(constants) != len(found):
        return found
    keyed: list[tuple[Any, Const]] = [(c.value, c) for c in constants]
    try:
        keyed.sort(key=operator.itemgetter(0), reverse=bool(reverse.value))
    except TypeError:  # values Python does not order (`1 < "a"`)
        return found
    return [c for _, c in keyed]


def _dict(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
    made = Mapping()
    if args and isinstance(args[0], Mapping):
        made.entries.update(args[0].entries)
    elif args:
        return Unknown("dict() of a value toolgen cannot know", node)
    for key, value in kwargs.items():
        made.entries[key] = (Const(key), value)
    return made


def _range(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
    numbers = [a.value for a in args if isinstance(a, Const) and type(a.value) is int]
    if len(numbers) != len(args) or not 1 <= len(numbers) <= 3:
        return Unknown("range() of values toolgen cannot know", node)
    try:
        made = range(*numbers)
        count = len(made)
    except (ValueError, OverflowError):  # a step of 0, or more than a machine word counts
        return Unknown("a range() that raises, or of too many numbers", node)
    if count > MAX_ITEMS:
        return Unknown(f"range() of more than {MAX_ITEMS} numbers", node)
    return Seq([Const(n) for n in made], "tuple")


def _enumerate(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
    found = items(args[0]) if args else None
    if found is None:
        return Unknown("enumerate() of a value toolgen cannot know", node)
    return Seq([Seq([Const(i), v], "tuple") for i, v in enumerate(found)], "tuple")


def _zip(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
    lists = [items(a) for a in args]
    if any(found is None for found in lists):
        return Unknown("zip() of a value toolgen cannot know", node)
    known = [found for found in lists if found is not None]
    return Seq([Seq(list(row), "tuple") for row in zip(*known, strict=False)], "tuple")


def _reversed(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
    found = items(args[0]) if args else None
    if found is None:
        return Unknown("reversed() of a value toolgen cannot know", node)
    return Seq(found[::-1], "tuple")


def _len(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
    found = items(args[0]) if args else None
    return (
        Unknown("len() of a value toolgen cannot know", node)
        if found is None
        else Const(len(found))
    )


def truth(value: Value) -> bool | None:
    """`bool(value)`, when toolgen knows it."""
    if isinstance(value, Const):
        try:
            return bool(value.value)
        except (TypeError, ValueError):  # a constant's truth: never raises, kept safe
            return None
    if isinstance(value, Seq):
        return bool(value.items)
    if isinstance(value, Mapping):
        return True if value.entries else (None if value.partial else False)
    if isinstance(value, Function | Bound | Class | ModuleValue | Server | Partial):
        return True
    if isinstance(value, FilePath | Record | ArgParser | Opened):  # no __bool__/__len__
        return True
    return None


def _any_all(wanted: bool) -> Builtin:
    """`any(...)` (`wanted` True) and `all(...)` of known items: one item that is `wanted`
    decides; else every item must be known."""

    def make(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
        found = items(args[0]) if len(args) == 1 else None
        if found is None:
            return Unknown("any()/all() of a value toolgen cannot know", node)
        truths = [truth(item) for item in found]
        if wanted in truths:
            return Const(wanted)
        if None in truths:
            return Unknown("any()/all() of items toolgen cannot know", node)
        return Const(not wanted)

    return make


#: What `isinstance` tells of a known value, by the builtin classes it is an instance of.
KINDS_OF: dict[str, frozenset[str]] = {
    "list": frozenset({"list"}),
    "tuple": frozenset({"tuple"}),
    "set": frozenset({"set"}),
}


def _isinstance(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
    """`isinstance(x, dict)` of a known container or constant and builtin classes."""
    if len(args) != 2:
        return Unknown("isinstance() of other arguments", node)
    value, classes = args
    wanted = classes.items if isinstance(classes, Seq) else [classes]
    paths = [c.path for c in wanted if isinstance(c, External)]
    if isinstance(value, ToolHandle) and len(paths) == len(wanted):
        # a tool of a framework's registry: of its tool classes, and of no builtin class
        if any(registries.is_tool_class(p) for p in paths):
            return Const(True)
        if all(p.startswith(("builtins.", "fastmcp.", "mcp.")) for p in paths):
            return Const("builtins.object" in paths)
    if len(paths) != len(wanted) or not all(p.startswith("builtins.") for p in paths):
        return Unknown("isinstance() of a class toolgen cannot tell", node)
    names = {p.removeprefix("builtins.") for p in paths}
    if isinstance(value, Seq):
        kinds = KINDS_OF[value.kind]
    elif isinstance(value, Mapping):
        kinds = frozenset({"dict"})
    elif isinstance(value, Const):
        kinds = frozenset(c.__name__ for c in type(value.value).__mro__)
    else:
        return Unknown("isinstance() of a value toolgen cannot know", node)
    return Const(bool(kinds & names) or "object" in names)


def _method_kind(kind: str) -> Builtin:
    """`staticmethod(f)`, `classmethod(f)`: the function, bound differently."""

    def make(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
        first = args[0] if args else Unknown(f"{kind}() of nothing", node)
        if isinstance(first, Function):
            return dataclasses.replace(first, kind="static" if kind == "staticmethod" else "class")
        return first

    return make


def _none(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
    return Const(None)


def _convert(kind: type) -> Builtin:
    def make(args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
        if not args:
            return Const(kind())
        if isinstance(args[0], Const) and len(args) == 1:
            try:
                value = args[0].value
                if kind is str and not isinstance(value, str | int | float | bool | None):
                    return Unknown("str() of a value toolgen does not convert", node)
                return Const(kind(value))
            except (TypeError, ValueError, OverflowError):
                return Unknown(f"{kind.__name__}() raises here", node)
        if kind is bool and isinstance(args[0], Function | Bound):
            return Const(True)
        return Unknown(f"{kind.__name__}() of a value toolgen cannot know", node)

    return make


BUILTINS: dict[str, Builtin] = {
    "list": _sequence("list"),
    "tuple": _sequence("tuple"),
    "set": _sequence("set"),
    "frozenset": _sequence("set"),
    "sorted": _sequence("sorted"),
    "dict": _dict,
    "range": _range,
    "enumerate": _enumerate,
    "zip": _zip,
    "reversed": _reversed,
    "len": _len,
    "isinstance": _isinstance,
    "any": _any_all(True),
    "all": _any_all(False),
    "staticmethod": _method_kind("staticmethod"),
    "classmethod": _method_kind("classmethod"),
    "print": _none,
    "str": _convert(str),
    "int": _convert(int),
    "bool": _convert(bool),
    "float": _convert(float),
}


_STR_METHODS = frozenset(
    {"upper", "lower", "strip", "lstrip", "rstrip", "replace", "startswith", "endswith", "split"}
)


def container_call(
    ctx: Context, method: ContainerMethod, args: list[Value], node: ast.AST
) -> Value:
    """`TOOLS.append(f)`, `REGISTRY.items()`, `"x".upper()`: what lists of tools are made of."""
    owner, name = method.owner, method.name
    if (isinstance(owner, Seq) and name in SEQ_MUTATORS) or (
        isinstance(owner, Mapping) and name in MAPPING_MUTATORS
    ):
        ctx.mutated(owner, True)  # one not followed is made unknown below
    return _container_call(ctx, method, args, node)


def _container_call(
    ctx: Context, method: ContainerMethod, args: list[Value], node: ast.AST
) -> Value:
    owner, name = method.owner, method.name
    if isinstance(owner, Seq | Mapping) and name == "copy" and not args:
        return copied(owner, deep=False)
    if isinstance(owner, Seq) and owner.kind == "set" and name in ("add", "update"):
        added = args if name == "add" else [i for a in args for i in (items(a) or [a])]
        one = name == "update" or len(args) == 1
        if one and all(isinstance(a, Const) and hashable(a.value) for a in added):
            owner.items[:] = _distinct([*owner.items, *added])
            return Const(None)
    if isinstance(owner, Mapping) and name in ("pop", "setdefault") and args:
        key = args[0]
        if isinstance(key, Const) and hashable(key.value) and not owner.partial:
            default = args[1] if len(args) > 1 else Const(None)
            if name == "setdefault":
                return owner.entries.setdefault(key.value, (key, default))[1]
            if key.value in owner.entries:
                return owner.entries.pop(key.value)[1]
            if len(args) > 1:
                return default
    if isinstance(owner, Seq) and name == "append" and len(args) == 1:
        owner.items.append(args[0])
        return Const(None)
    if isinstance(owner, Seq) and name == "extend" and len(args) == 1:
        found = items(args[0])
        if found is not None and len(owner.items) + len(found) <= MAX_ITEMS:
            owner.items.extend(found)
            return Const(None)
    if isinstance(owner, Seq) and name == "insert" and len(args) == 2:
        at = args[0]
        if isinstance(at, Const) and type(at.value) is int and abs(at.value) <= MAX_ITEMS:
            owner.items.insert(at.value, args[1])
            return Const(None)
    if isinstance(owner, Mapping) and not owner.partial:
        if name == "items":
            return Seq([Seq([k, v], "tuple") for k, v in owner.entries.values()], "list")
        if name == "values":
            return Seq([v for _, v in owner.entries.values()], "list")
        if name == "keys":
            return Seq([k for k, _ in owner.entries.values()], "list")
    if isinstance(owner, Mapping) and name == "get" and args:
        key = args[0]
        if isinstance(key, Const) and hashable(key.value):
            if key.value in owner.entries:
                return owner.entries[key.value][1]
            if not owner.partial:
                return args[1] if len(args) > 1 else Const(None)
    if isinstance(owner, Mapping) and name == "update" and args and isinstance(args[0], Mapping):
        owner.entries.update(args[0].entries)
        return Const(None)
    if isinstance(owner, Const) and isinstance(owner.value, str) and name == "join" and args:
        parts = items(args[0])
        if _hash_ordered(args[0]):
            return Unknown("a join of a set of strings: their order changes from run to run", node)
        texts = [p.value for p in parts or [] if isinstance(p, Const) and isinstance(p.value, str)]
        if parts is not None and len(texts) == len(parts):
            if sum(map(len, texts)) + len(owner.value) * len(texts) > MAX_TEXT:
                return Unknown("a string toolgen does not compute: it would be too long", node)
            return Const(owner.value.join(texts))
    if isinstance(owner, Const) and isinstance(owner.value, str) and name in _STR_METHODS:
        constants = [a.value for a in args if isinstance(a, Const)]
        if len(constants) == len(args):
            if name == "replace" and _replaced_too_long(owner.value, constants):
                return Unknown("a string toolgen does not compute: it would be too long", node)
            try:
                result = getattr(owner.value, name)(*constants)
            except (ArithmeticError, TypeError, ValueError, IndexError, KeyError):
                return ctx.note("unfollowed", f"`str.{name}` raises here", node)
            if isinstance(result, list):
                if len(result) > MAX_ITEMS:
                    return Unknown(f"`str.{name}` of more than {MAX_ITEMS} parts", node)
                return Seq([Const(r) for r in result], "list")
            return Const(result)
    if isinstance(owner, Seq) and name == "clear" and not args:
        owner.items.clear()
        return Const(None)
    if isinstance(owner, Mapping) and name == "clear" and not args:
        owner.entries.clear()
        owner.partial = False
        return Const(None)
    gone = args[0] if len(args) == 1 else None
    removes = isinstance(owner, Seq) and owner.kind == "set" and name in ("discard", "remove")
    if removes and isinstance(gone, Const) and hashable(gone.value):
        assert isinstance(owner, Seq)
        owner.items[:] = [
            i for i in owner.items if not (isinstance(i, Const) and i.value == gone.value)
        ]
        return Const(None)
    why = f"`{name}` of a value toolgen does not follow"
    if isinstance(owner, Seq) and name in SEQ_MUTATORS:
        # it changed in a way toolgen cannot follow: what it holds is no longer known (its one
        # unknown item makes every use of it unknown, as a loop over it runs once)
        owner.items[:] = [Unknown(why, node)]
    elif isinstance(owner, Mapping) and name in MAPPING_MUTATORS:
        owner.entries.clear()
        owner.partial = True
    return Unknown(why, node)


#: Methods that change a list or set, and a dict, in place: one toolgen does not follow (or
#: with arguments it cannot know) leaves the container unknown, never as it was.
SEQ_MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "remove",
        "pop",
        "clear",
        "sort",
        "reverse",
        "add",
        "discard",
        "update",
        "difference_update",
        "intersection_update",
        "symmetric_difference_update",
    }
)
MAPPING_MUTATORS = frozenset({"update", "pop", "popitem", "clear", "setdefault"})


def _hash_ordered(value: Value) -> bool:
    """Whether iterating `value` gives its items in an order Python makes up each run: a set
    of two strings or more (their hashes are salted per process)."""
    if not (isinstance(value, Seq) and value.kind == "set"):
        return False
    texts = [i for i in value.items if isinstance(i, Const) and isinstance(i.value, str | bytes)]
    return len(value.items) > 1 and bool(texts)


def _replaced_too_long(text: str, args: list[object]) -> bool:
    """Whether `text.replace(*args)` could be longer than `MAX_TEXT` (it is not computed)."""
    new = args[1] if len(args) > 1 else ""
    if not isinstance(new, str):
        return False
    return len(text) + (len(text) + 1) * len(new) > MAX_TEXT


def hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
