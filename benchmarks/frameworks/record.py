#!/usr/bin/env python3
"""Record the tools a published package defines, as the frameworks themselves publish them.

    PKG_VENV/bin/python record.py --out OUT.json --package NAME TOP [TOP ...]

Run it with the Python of the package's own venv (the package and its framework installed),
never with the project's: importing the package runs its code. draw.py runs it in a network
namespace of its own, HOME pointed at a scratch folder. TOP is a top-level package or module
of the wheel; every module under it is imported (pkgutil.walk_packages; `__main__` modules
are not), each with a time limit, and the failures are recorded. Then, for each framework
that is installed:

- LangChain (langchain_core): every `BaseTool` subclass defined in one of those modules
  (`cls.__module__` is that module), not abstract, that `cls()` builds with no arguments
  (the ones that cannot be built are listed, not recorded), and every module-level
  `StructuredTool`/`Tool` whose function is defined in the package (what `@tool` makes).
  The payload is `convert_to_openai_tool(tool)`.
- openai-agents (agents): every module-level `FunctionTool` and every `FunctionTool` in the
  `tools` of a module-level `Agent`. The payload is
  `agents.models.chatcmpl_converter.Converter.tool_to_openai(tool)`.
- pydantic-ai (pydantic_ai): the function tools of every module-level `Agent`, module-level
  `Tool` and module-level `FunctionToolset`. The payload is what `OpenAIChatModel` sends:
  the `ToolDefinition` through the model's `customize_request_parameters` (its JSON schema
  transformer), then `_map_tool_definition`.

OUT.json: {"package", "python", "versions", "modules": {"imported", "failed"},
"unbuilt": [...], "tools": [{"framework", "name", "description", "payload", "source", ...}]}
with tools sorted by (framework, name, source). It writes nothing to stdout that matters
(the package may print); the exit code is 0 when OUT.json was written.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import importlib.metadata as md
import inspect
import json
import os
import pkgutil
import signal
import sys
import traceback
from pathlib import Path
from typing import Any

IMPORT_SECONDS = 30
BUILD_SECONDS = 15
DISTS = ("langchain-core", "openai-agents", "pydantic-ai-slim", "pydantic", "openai")


class Timeout(Exception):
    pass


def _alarm(_sig: int, _frame: Any) -> None:
    raise Timeout("time limit")


@contextlib.contextmanager
def limit(seconds: int) -> Any:
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def short_error(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return " ".join(text.split())[:300]


def jsonable(obj: Any) -> Any:
    """A JSON round trip (payloads may hold tuples or pydantic objects)."""
    return json.loads(json.dumps(obj, default=str))


# --------------------------------------------------------------------------- modules


def walk(tops: list[str], failed: list[dict[str, str]]) -> list[Any]:
    """Import every module under the top-level names; return the imported module objects."""
    modules: list[Any] = []
    seen: set[str] = set()

    def load(name: str) -> Any:
        if name in seen:
            return sys.modules.get(name)
        seen.add(name)
        try:
            with limit(IMPORT_SECONDS):
                mod = importlib.import_module(name)
        except BaseException as exc:  # SystemExit and time-outs too: the walk goes on
            if isinstance(exc, KeyboardInterrupt):
                raise
            failed.append({"module": name, "error": short_error(exc)})
            return None
        modules.append(mod)
        return mod

    for top in tops:
        mod = load(top)
        path = getattr(mod, "__path__", None) if mod is not None else None
        if not path:
            continue

        def onerror(name: str) -> None:
            exc = sys.exc_info()[1]
            if name not in seen:
                seen.add(name)
                failed.append({"module": name, "error": short_error(exc) if exc else "?"})

        try:
            infos = list(pkgutil.walk_packages(path, prefix=top + ".", onerror=onerror))
        except BaseException as exc:
            failed.append({"module": top + ".*", "error": short_error(exc)})
            continue
        for info in infos:
            if info.name.rsplit(".", 1)[-1] == "__main__":
                continue
            load(info.name)
    return modules


def in_package(module: str | None, tops: list[str]) -> bool:
    return bool(module) and any(module == t or module.startswith(t + ".") for t in tops)


def source_of(obj: Any, site: Path) -> dict[str, Any]:
    out: dict[str, Any] = {
        "module": getattr(obj, "__module__", None),
        "qualname": getattr(obj, "__qualname__", None),
    }
    with contextlib.suppress(Exception):
        path = Path(inspect.getsourcefile(obj) or "")
        with contextlib.suppress(ValueError):
            path = path.relative_to(site)
        out["file"] = str(path)
        out["line"] = inspect.getsourcelines(obj)[1]
    return out


def wrapped_function(start: Any, tops: list[str]) -> Any:
    """The package's function behind a framework's invoker (closure cells, `__wrapped__` and
    the attributes of invoker objects, breadth first, 4 levels deep), if any."""
    level = [start]
    seen: set[int] = set()
    for _depth in range(5):
        nxt: list[Any] = []
        for fn in level:
            if fn is None or id(fn) in seen:
                continue
            seen.add(id(fn))
            if inspect.isfunction(fn) and in_package(fn.__module__, tops):
                return fn
            for cell in getattr(fn, "__closure__", None) or ():
                with contextlib.suppress(ValueError):
                    nxt.append(cell.cell_contents)
            if hasattr(fn, "__wrapped__"):
                nxt.append(fn.__wrapped__)
            if callable(fn) and not inspect.isfunction(fn) and not isinstance(fn, type):
                with contextlib.suppress(TypeError):
                    nxt += [v for v in vars(fn).values() if callable(v)]
        level = nxt
    return None


# --------------------------------------------------------------------------- LangChain


def record_langchain(
    modules: list[Any], tops: list[str], site: Path, unbuilt: list[dict[str, str]]
) -> list[dict[str, Any]]:
    from langchain_core.tools import BaseTool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    tools: list[dict[str, Any]] = []
    seen: set[int] = set()

    def add(tool: Any, framework: str, origin: Any, attribute: str | None = None) -> None:
        try:
            payload = jsonable(convert_to_openai_tool(tool))
        except BaseException as exc:
            unbuilt.append({"tool": f"{origin}", "error": "convert: " + short_error(exc)})
            return
        rec: dict[str, Any] = {
            "framework": framework,
            "name": tool.name,
            "description": tool.description,
            "payload": payload,
            "source": source_of(origin, site),
        }
        if attribute:
            rec["attribute"] = attribute
        with contextlib.suppress(BaseException):
            schema = tool.tool_call_schema
            if isinstance(schema, dict):
                rec["tool_call_schema"] = jsonable(schema)
            elif hasattr(schema, "model_json_schema"):
                rec["tool_call_schema"] = jsonable(schema.model_json_schema())
        tools.append(rec)

    for mod in modules:
        for attr, obj in list(vars(mod).items()):
            if isinstance(obj, type):
                if (
                    id(obj) in seen
                    or obj.__module__ != mod.__name__
                    or not issubclass(obj, BaseTool)
                    or inspect.isabstract(obj)
                ):
                    continue
                seen.add(id(obj))
                try:
                    with limit(BUILD_SECONDS):
                        tool = obj()
                except BaseException as exc:
                    if isinstance(exc, KeyboardInterrupt):
                        raise
                    unbuilt.append(
                        {"class": f"{obj.__module__}.{obj.__qualname__}", "error": short_error(exc)}
                    )
                    continue
                add(tool, "langchain-class", obj)
            elif isinstance(obj, BaseTool) and id(obj) not in seen:
                if not type(obj).__module__.startswith("langchain_core."):
                    continue  # an instance of a class: the class is what is recorded
                fn = getattr(obj, "func", None) or getattr(obj, "coroutine", None)
                fn = inspect.unwrap(fn) if callable(fn) else fn
                if not in_package(getattr(fn, "__module__", None), tops):
                    continue
                seen.add(id(obj))
                add(obj, "langchain-function", fn, f"{mod.__name__}.{attr}")
    return tools


# --------------------------------------------------------------------------- openai-agents


def record_agents(modules: list[Any], tops: list[str], site: Path) -> list[dict[str, Any]]:
    from agents import Agent, FunctionTool
    from agents.models.chatcmpl_converter import Converter

    tools: list[dict[str, Any]] = []
    seen: set[int] = set()

    def add(tool: Any, where: str) -> None:
        if id(tool) in seen:
            return
        fn = wrapped_function(tool.on_invoke_tool, tops)
        if fn is None:  # a tool of another package that this one imports or uses
            return
        seen.add(id(tool))
        rec: dict[str, Any] = {
            "framework": "openai-agents",
            "name": tool.name,
            "description": tool.description,
            "params_json_schema": jsonable(tool.params_json_schema),
            "strict_json_schema": tool.strict_json_schema,
            "attribute": where,
        }
        try:
            rec["payload"] = jsonable(Converter.tool_to_openai(tool))
        except BaseException as exc:
            rec["payload_error"] = short_error(exc)
        rec["source"] = source_of(fn, site)
        tools.append(rec)

    for mod in modules:
        for attr, obj in list(vars(mod).items()):
            if isinstance(obj, FunctionTool):
                add(obj, f"{mod.__name__}.{attr}")
            elif isinstance(obj, Agent):
                for t in getattr(obj, "tools", None) or []:
                    if isinstance(t, FunctionTool):
                        add(t, f"{mod.__name__}.{attr}.tools")
    return tools


# --------------------------------------------------------------------------- pydantic-ai


def pydantic_ai_payload(tool_def: Any) -> tuple[dict[str, Any], str]:
    """What OpenAIChatModel sends for this ToolDefinition, built without the network."""
    try:
        from pydantic_ai.models import ModelRequestParameters
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(api_key="dummy"))
        params = model.customize_request_parameters(
            ModelRequestParameters(function_tools=[tool_def])
        )
        td = params.function_tools[0]
        try:
            payload = model._map_tool_definition(td, {})  # type: ignore[call-arg]
        except TypeError:  # releases whose mapping takes no model settings
            payload = model._map_tool_definition(td)  # type: ignore[call-arg]
        via = "OpenAIChatModel.customize_request_parameters, _map_tool_definition"
        return jsonable(payload), via
    except Exception as exc:
        err = short_error(exc)
    payload = {
        "type": "function",
        "function": {
            "name": tool_def.name,
            "description": tool_def.description or "",
            "parameters": tool_def.parameters_json_schema,
        },
    }
    if getattr(tool_def, "strict", None):
        payload["function"]["strict"] = tool_def.strict
    return jsonable(payload), f"ToolDefinition fields (the model's mapping failed: {err})"


def record_pydantic_ai(modules: list[Any], tops: list[str], site: Path) -> list[dict[str, Any]]:
    from pydantic_ai import Agent, Tool

    try:
        from pydantic_ai.toolsets import FunctionToolset
    except ImportError:  # older releases
        FunctionToolset = None  # type: ignore[assignment,misc]

    tools: list[dict[str, Any]] = []
    seen: set[int] = set()

    def add(tool: Any, where: str) -> None:
        if id(tool) in seen or not isinstance(tool, Tool):
            return
        fn = getattr(tool, "function", None)
        if not in_package(getattr(fn, "__module__", None), tops):
            return
        seen.add(id(tool))
        td = tool.tool_def
        payload, via = pydantic_ai_payload(td)
        tools.append(
            {
                "framework": "pydantic-ai",
                "name": td.name,
                "description": td.description,
                "tool_def": {
                    "name": td.name,
                    "description": td.description,
                    "parameters_json_schema": jsonable(td.parameters_json_schema),
                    "strict": getattr(td, "strict", None),
                },
                "payload": payload,
                "payload_via": via,
                "attribute": where,
                "source": source_of(fn, site),
            }
        )

    def toolset_tools(ts: Any) -> list[Any]:
        return list((getattr(ts, "tools", None) or {}).values())

    for mod in modules:
        for attr, obj in list(vars(mod).items()):
            where = f"{mod.__name__}.{attr}"
            if isinstance(obj, Tool):
                add(obj, where)
            elif FunctionToolset is not None and isinstance(obj, FunctionToolset):
                for t in toolset_tools(obj):
                    add(t, where)
            elif isinstance(obj, Agent):
                fts = getattr(obj, "_function_toolset", None)
                for t in toolset_tools(fts) if fts is not None else []:
                    add(t, where)
                if fts is None:  # older releases kept a dict of tools on the agent
                    for t in (getattr(obj, "_function_tools", None) or {}).values():
                        add(t, where)
    return tools


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--package", required=True)
    ap.add_argument("tops", nargs="+")
    args = ap.parse_args()
    out = Path(args.out).resolve()
    tops = [t[:-3] if t.endswith(".py") else t for t in args.tops]
    sys.argv = [sys.argv[0]]  # a module that parses arguments at import sees none
    sys.setrecursionlimit(10_000)
    site = Path(next(p for p in sys.path if p.endswith("site-packages")))
    failed: list[dict[str, str]] = []
    modules = walk(tops, failed)
    versions: dict[str, str] = {}
    for dist in DISTS:
        with contextlib.suppress(md.PackageNotFoundError):
            versions[dist] = md.version(dist)
    unbuilt: list[dict[str, str]] = []
    tools: list[dict[str, Any]] = []
    errors: list[str] = []
    for label, fn in (
        ("langchain_core", lambda: record_langchain(modules, tops, site, unbuilt)),
        ("agents", lambda: record_agents(modules, tops, site)),
        ("pydantic_ai", lambda: record_pydantic_ai(modules, tops, site)),
    ):
        try:
            importlib.import_module(label)
        except Exception:
            continue
        try:
            tools += fn()
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            errors.append(f"{label}: {short_error(exc)}")
            traceback.print_exc()
    tools.sort(
        key=lambda t: (t["framework"], t["name"], json.dumps(t.get("source"), sort_keys=True))
    )
    result = {
        "package": args.package,
        "python": ".".join(map(str, sys.version_info[:3])),
        "versions": versions,
        "modules": {"imported": len(modules), "failed": failed},
        "unbuilt": sorted(unbuilt, key=lambda u: json.dumps(u, sort_keys=True)),
        "errors": errors,
        "tools": tools,
    }
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # threads or servers a module started must not keep the process alive


if __name__ == "__main__":
    with contextlib.suppress(RuntimeError):
        asyncio.set_event_loop(asyncio.new_event_loop())
    main()
