"""Run in a child process by `toolgen check --verify-runtime`: import handlers, ask pydantic.

This is the one place where toolgen imports user code, and only when asked. It reads a JSON
request on stdin and writes a JSON answer on stdout:

    request: {"paths": [...], "skip_params": [...],
              "tools": [{"name", "module", "qualname"}, ...]}
    answer:  {"<name>": {"schema": {...}} | {"error": "..."}}

The schema is what pydantic builds at run time for the handler's signature, the way runtime
tool frameworks do it: a model created from the parameters (`self`/`cls` and skipped names
left out), `model_json_schema()` in validation mode.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from fnmatch import fnmatchcase
from typing import Any


def _function(module_name: str, qualname: str) -> tuple[Any, bool]:
    if "<locals>" in qualname:
        raise LookupError("defined inside a function; it cannot be reached without calling it")
    owner: Any = importlib.import_module(module_name)
    parts = qualname.split(".")
    for part in parts[:-1]:
        owner = getattr(owner, part)
    raw = inspect.getattr_static(owner, parts[-1])
    is_method = len(parts) > 1 and not isinstance(raw, staticmethod | classmethod)
    return getattr(owner, parts[-1]), is_method


def runtime_schema(fn: Any, is_method: bool, skip: list[str]) -> dict[str, Any]:
    from pydantic import create_model

    params = list(inspect.signature(fn).parameters.values())
    if is_method and params:
        params = params[1:]
    fields: dict[str, Any] = {}
    for p in params:
        if any(fnmatchcase(p.name, pattern) for pattern in skip):
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        default = ... if p.default is inspect.Parameter.empty else p.default
        annotation = p.annotation
        if annotation is inspect.Parameter.empty:
            annotation = Any
        elif isinstance(annotation, str):  # `from __future__ import annotations`: evaluate it
            annotation = eval(annotation, fn.__globals__)
        fields[p.name] = (annotation, default)
    schema: dict[str, Any] = create_model(fn.__name__, **fields).model_json_schema()
    return schema


def main() -> None:
    request = json.load(sys.stdin)
    sys.path[:0] = request["paths"]
    answer: dict[str, Any] = {}
    for tool in request["tools"]:
        try:
            fn, is_method = _function(tool["module"], tool["qualname"])
            answer[tool["name"]] = {"schema": runtime_schema(fn, is_method, request["skip_params"])}
        except BaseException as exc:
            answer[tool["name"]] = {"error": f"{type(exc).__name__}: {exc}"}
    sys.stdout.write(json.dumps(answer, default=str))


if __name__ == "__main__":
    main()
