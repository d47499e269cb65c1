"""Reaching and preparing handlers at run time: handlers are imported here, from each
descriptor's `source` (module and qualname), unless the caller hands one over.

What can be reached (`resolve_handler`): a module-level function, a static or class method, a
method (bound to an instance made with `Class()`, or by the caller's `factory(Class)`), and a
function nested in a registration function (`register(server)`, called with a `Recorder`).
`prepare` builds the pydantic argument validator and return serializers once per handler.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import NoneType
from typing import Any

import pydantic
import pydantic_core
from pydantic.experimental.arguments_schema import generate_arguments_schema

#: Makes an instance of a class whose methods are handlers (`Toolbox.load(factory=...)`).
Factory = Callable[[type], Any]


class NotCallable(Exception):
    """The handler of a tool cannot be reached or prepared for calling."""


class Recorder:
    """Stands in for the server object that a registration function (`register(server)`)
    attaches its nested handlers to. It records every function handed to `add_tool(fn, ...)`,
    `@tool`, `@tool(...)` or `@recorder(...)` under its `__qualname__`, returning it unchanged."""

    def __init__(self) -> None:
        self.functions: dict[str, Callable[..., Any]] = {}

    def _keep(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        self.functions[getattr(fn, "__qualname__", "")] = fn
        return fn

    def add_tool(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
        return self._keep(fn)

    def tool(self, *args: Any, **kwargs: Any) -> Callable[..., Any]:
        if args and callable(args[0]):  # @server.tool, server.tool(fn, name=...)
            return self._keep(args[0])
        return self._keep  # @server.tool(), @server.tool("name", ...)

    __call__ = tool


@dataclass
class Reacher:
    """Imports handlers, caching classes' instances and registration functions' recordings;
    `factory` makes the instances (default: `Class()`)."""

    factory: Factory | None = None
    instances: dict[type, Any] = field(default_factory=dict)
    registered: dict[tuple[str, str], Recorder | NotCallable] = field(default_factory=dict)

    def resolve(self, module_name: str, qualname: str) -> Callable[..., Any]:
        if "<locals>" in qualname:
            return self._registered(module_name, qualname)
        owner: Any = importlib.import_module(module_name)
        *path, name = qualname.split(".")
        for part in path:
            owner = getattr(owner, part)
        if inspect.isclass(owner) and not isinstance(
            inspect.getattr_static(owner, name), staticmethod | classmethod
        ):
            owner = self._instance(owner)
        return _unwrap(getattr(owner, name))

    def _instance(self, cls: type) -> Any:
        if cls not in self.instances:
            try:
                self.instances[cls] = cls() if self.factory is None else self.factory(cls)
            except Exception as exc:
                how = "without arguments" if self.factory is None else "by the factory"
                raise NotCallable(
                    f"{cls.__qualname__} cannot be instantiated {how} ({type(exc).__name__}: {exc})"
                ) from exc
        return self.instances[cls]

    def _registered(self, module_name: str, qualname: str) -> Callable[..., Any]:
        outer, _, inner = qualname.partition(".<locals>.")
        if "<locals>" in inner or "." in inner:
            raise NotCallable(f"{qualname} is nested too deep to be reached")
        key = (module_name, outer)
        if key not in self.registered:
            recorder = Recorder()
            try:
                register = self.resolve(module_name, outer)
                register(recorder)
                self.registered[key] = recorder
            except Exception as exc:
                self.registered[key] = NotCallable(
                    f"calling {module_name}.{outer}(server) to collect its handlers failed "
                    f"({type(exc).__name__}: {exc})"
                )
        found = self.registered[key]
        if isinstance(found, NotCallable):
            raise found
        if qualname not in found.functions:
            raise NotCallable(f"{module_name}.{outer}(server) did not register {inner}")
        return found.functions[qualname]


def _unwrap(obj: Any) -> Callable[..., Any]:
    """The function itself when a framework decorator replaced it by a tool object that keeps
    it as `.fn` (FastMCP) or `.func` (LangChain)."""
    if not inspect.isroutine(obj):
        for attribute in ("fn", "func"):
            inner = getattr(obj, attribute, None)
            if inspect.isroutine(inner):
                return typing.cast(Callable[..., Any], inner)
    if not callable(obj):
        raise NotCallable(f"{obj!r} is not callable")
    return typing.cast(Callable[..., Any], obj)


def resolve_handler(module_name: str, qualname: str) -> Callable[..., Any]:
    """The handler at `module_name`:`qualname` (a descriptor's `source`), ready to call.

    - a module-level function (`f`), or a static or class method (`Class.f`): imported;
    - a method (`Class.f`): bound to an instance made with `Class()`; a class that needs
      constructor arguments is `NotCallable` (`Reacher(factory=...)` can make it);
    - a function nested in a registration function (`register.<locals>.f`): found by calling
      `register(Recorder())` and taking what it registered; deeper nesting, or a registration
      function that fails with the recorder, is `NotCallable`.

    Other exceptions (an import error, a missing attribute) propagate as they are.
    """
    return Reacher().resolve(module_name, qualname)


#: Return annotations whose values need no serializing (`Prepared.exact`).
_EXACT = (str, int, float, bool)

_NAMED = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
)


@dataclass(frozen=True)
class Prepared:
    """A reached handler with its pydantic argument validator and return serializers: `dump`
    to JSON data, `plain` to Python data with the floats as they are (JSON data has a NaN
    under `Any` turned into null), to check for what JSON cannot carry. `exact` is the
    return annotation when it is `str`, `int`, `float` or `bool`: a value of exactly that
    type is its own JSON data (neither serializer changes it). `direct` says that arguments
    the quick check proves valid (`steps.quick`) are what the validator would make of them:
    every parameter is a named one annotated `str`, `int` or `bool` whose schema has that very
    JSON type, with no default or a plain one (pydantic keeps such values as they are), and
    every property of the schema is a parameter. `written` is `dump` save that NaN and the
    infinities stay floats wherever they are, under `Any` too, so that one walk of the data
    sees them (`steps.quick.quick_value`); None when it cannot be made (then `plain` and
    `dump` are walked, as before)."""

    fn: Callable[..., Any]
    arguments: pydantic_core.SchemaValidator
    dump: Callable[[Any], Any]
    plain: Callable[[Any], Any]
    exact: type | None = None
    direct: bool = False
    is_async: bool = False  # `fn` makes a coroutine: awaited on the caller's loop, no thread
    written: Callable[[Any], Any] | None = None


def prepare(fn: Callable[..., Any], parameters: Mapping[str, Any]) -> Prepared:
    """Build the argument validator and the return serializer.

    The arguments go through pydantic's arguments schema of the signature (what
    `pydantic.validate_call` validates with), kept apart from the call so that a pydantic error
    raised inside the handler is not mistaken for bad arguments.
    Parameters that are not in the input schema (a framework's injected context, a wrapper's
    `skip_params`) are left to their defaults; one without a default makes the handler
    `NotCallable`, as nothing here can supply it.
    """
    exposed = set(parameters.get("properties", {}))
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise NotCallable(f"its signature cannot be read ({exc})") from exc
    for p in signature.parameters.values():
        if p.name not in exposed and p.default is p.empty and p.kind in _NAMED:
            raise NotCallable(f"parameter {p.name!r} is not in the input schema and has no default")
    try:
        schema = generate_arguments_schema(
            fn, parameters_callback=lambda _i, name, _a: None if name in exposed else "skip"
        )
        arguments = pydantic_core.SchemaValidator(schema)
    except Exception as exc:
        raise NotCallable(
            f"pydantic cannot read the parameters ({type(exc).__name__}: {exc})"
        ) from exc
    try:
        returns = typing.get_type_hints(fn, include_extras=True).get("return", typing.Any)
        adapter: pydantic.TypeAdapter[Any] | None = pydantic.TypeAdapter(returns)
    except Exception:  # a return type pydantic cannot read: serialize by inference
        adapter = None

    def dump(value: Any) -> Any:
        if adapter is None:
            return pydantic_core.to_jsonable_python(value, by_alias=True)
        return adapter.dump_python(value, mode="json", by_alias=True, warnings=False)

    def plain(value: Any) -> Any:
        if adapter is None:  # inferred: keeps NaN and Infinity as they are
            return pydantic_core.to_jsonable_python(value, by_alias=True)
        return adapter.dump_python(value, by_alias=True, warnings=False)

    exact = returns if adapter is not None and any(returns is t for t in _EXACT) else None
    direct = _direct(fn, signature, parameters)
    is_async = inspect.iscoroutinefunction(fn)
    written = dump if adapter is None else _keeping_non_finite(adapter)
    return Prepared(fn, arguments, dump, plain, exact, direct, is_async, written)


def _keeping_non_finite(adapter: pydantic.TypeAdapter[Any]) -> Callable[[Any], Any] | None:
    """The adapter's JSON-mode dump with every config's `ser_json_inf_nan` set to keep NaN and
    the infinities as floats (JSON mode makes one under `Any`, or in a value of the wrong
    type, null, where no walk of the data can see it); None when pydantic cannot make it.
    For data without them it is the adapter's own dump. `_use_prebuilt=False`: a nested
    model's own serializer would keep its own config."""
    try:
        schema = copy.deepcopy(adapter.core_schema)
        stack: list[Any] = [schema]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                for key, value in node.items():
                    # a schema's config (never a field named "config": fields are schemas)
                    if (
                        key == "config"
                        and "type" in node
                        and isinstance(value, dict)
                        and "type" not in value
                    ):
                        value["ser_json_inf_nan"] = "constants"
                        continue
                    stack.append(value)
            elif isinstance(node, list | tuple):
                stack.extend(node)
        serializer = pydantic_core.SchemaSerializer(
            schema,
            {"ser_json_inf_nan": "constants"},
            _use_prebuilt=False,
        )
    except Exception:  # a default deepcopy refuses, an older pydantic-core ...
        return None

    def written(value: Any) -> Any:
        return serializer.to_python(value, mode="json", by_alias=True, warnings=False)

    return written


#: The annotations of parameters a direct call may take, with their schemas' JSON type.
_DIRECT = {str: "string", int: "integer", bool: "boolean"}


def _direct(
    fn: Callable[..., Any], signature: inspect.Signature, schema: Mapping[str, Any]
) -> bool:
    """See `Prepared.direct`."""
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:
        return False
    properties = schema.get("properties", {})
    if not set(properties) <= set(signature.parameters):
        return False  # a property the handler does not take: pydantic refuses it
    for p in signature.parameters.values():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            return False
        if p.default is not p.empty and type(p.default) not in (str, int, float, bool, NoneType):
            return False  # a pydantic `Field(...)` default, or one pydantic may copy
        if p.name not in properties:
            continue  # left to its default either way
        hint = hints.get(p.name)
        json_type = next((t for kind, t in _DIRECT.items() if hint is kind), None)
        declared = properties[p.name]
        if json_type is None or not isinstance(declared, Mapping):
            return False
        if declared.get("type") != json_type:
            return False
    return True
