"""From handlers to descriptors: the analysis stages put together, one handler at a time.

`compile_project(config)` is the pure middle of toolgen: it reads source files, never imports
them, and returns descriptors plus diagnostics. Writing files is `toolgen.output`'s job.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from toolgen.analyze.decorators import decorator_options
from toolgen.analyze.docstrings import Docstring, parse_docstring
from toolgen.analyze.handlers import Handler, find_handlers
from toolgen.analyze.sections import SectionReader
from toolgen.analyze.signature import parameters
from toolgen.analyze.types import MISSING, FIELD_CALLS, FieldSpec, SchemaBuilder, TypeProblem
from toolgen.config import Config
from toolgen.descriptor import DEFAULT_RISK, RISK_DEFAULTS, ToolDescriptor
from toolgen.diagnostics import Diagnostic, Location, sort_diagnostics
from toolgen.discover import discover
from toolgen.index import ModuleIndex, dotted_name
from toolgen.validate import schema_errors


#: Every tool can reject invalid arguments: an error example may use this code undeclared, and
#: its arguments are expected not to fit the schema (that is what it shows).
IMPLICIT_ERROR = "VALIDATION_ERROR"


@dataclass
class Compilation:
    descriptors: list[ToolDescriptor] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    locations: dict[str, Location] = field(default_factory=dict)  # tool name -> its def


def compile_project(config: Config) -> Compilation:
    files = discover(config.sources)
    roots = [f.search_root for f in files] + [config.root, config.root / "src"]
    index = ModuleIndex(roots, lambda p: config.display(p))
    result = Compilation()
    seen: dict[str, Location] = {}
    for file in files:
        module = index.add_file(file.module, file.path)
        if module is None:
            continue
        for handler in find_handlers(module, index):
            descriptor, problems = compile_handler(handler, index, config)
            result.diagnostics.extend(problems)
            if descriptor is None:
                continue
            where = module.location(handler.node)
            if descriptor.name in seen:
                result.diagnostics.append(
                    Diagnostic(
                        "TG102",
                        f"tool name `{descriptor.name}` is already used by the handler at "
                        f"{seen[descriptor.name]}",
                        where,
                    )
                )
                continue
            seen[descriptor.name] = where
            result.locations[descriptor.name] = where
            result.descriptors.append(descriptor)
    result.diagnostics.extend(index.diagnostics)
    if not files or (not result.descriptors and not result.diagnostics):
        result.diagnostics.append(
            Diagnostic("TG104", "no @tool handlers found in " + ", ".join(
                config.display(s) for s in config.sources))
        )
    result.descriptors.sort(key=lambda d: d.name)
    result.diagnostics = sort_diagnostics(result.diagnostics)
    return result


def compile_handler(
    handler: Handler, index: ModuleIndex, config: Config
) -> tuple[ToolDescriptor | None, list[Diagnostic]]:
    module, node = handler.module, handler.node
    problems: list[Diagnostic] = []
    options, option_nodes, found = decorator_options(handler)
    problems.extend(found)
    name = options.get("name", node.name)
    if not isinstance(name, str):
        name = node.name

    doc = parse_docstring(node, config.docstring_style) or Docstring()
    reader = SectionReader(module.shown)

    # parameters
    params, found = parameters(handler, config.skip_params)
    problems.extend(found)
    builder = SchemaBuilder(index)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in params:
        if param.annotation is None:
            problems.append(
                Diagnostic(
                    "TG203", f"parameter `{param.name}` has no type annotation",
                    module.location(param.node),
                )
            )
            continue
        try:
            spec = FieldSpec()
            if param.default is not None:
                spec = _default_spec(builder, param.default, module)
            schema, merged = builder.field_schema(param.annotation, module, spec)
        except TypeProblem as exc:
            problems.append(exc.diagnostic)
            continue
        if "description" not in schema:
            entry = doc.params.get(param.name)
            if entry is None or not entry.text:
                problems.append(
                    Diagnostic(
                        "TG301",
                        f"parameter `{param.name}` is not described: add it to the docstring's "
                        "Args section (or give it Field(description=...))",
                        module.location(param.node),
                    )
                )
            else:
                schema = {"description": entry.text, **schema}
        properties[param.name] = schema
        if merged.default is MISSING and not merged.has_factory:
            required.append(param.name)
    known = {p.name for p in params} | {a.arg for a in _all_args(node)}
    for entry_name, entry in doc.params.items():
        if entry_name not in known:
            problems.append(
                Diagnostic(
                    "TG302",
                    f"docstring describes `{entry_name}`, which is not a parameter",
                    Location(module.shown, entry.at.line, entry.at.col),
                )
            )
    parameters_schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters_schema["required"] = required
    parameters_schema["additionalProperties"] = False
    if builder.defs:
        parameters_schema["$defs"] = dict(sorted(builder.defs.items()))

    # returns
    returns_schema: dict[str, Any] = {}
    if node.returns is None:
        problems.append(
            Diagnostic(
                "TG207", f"`{node.name}` has no return annotation", module.location(node)
            )
        )
    else:
        out_builder = SchemaBuilder(index)
        try:
            returns_schema = out_builder.schema(node.returns, module)
            if out_builder.defs:
                returns_schema = {**returns_schema, "$defs": dict(sorted(out_builder.defs.items()))}
        except TypeProblem as exc:
            problems.append(exc.diagnostic)

    # description
    if not doc.description:
        problems.append(
            Diagnostic(
                "TG303",
                f"`{node.name}` needs a docstring whose summary describes the tool",
                module.location(node),
            )
        )

    errors = reader.errors(doc.sections["errors"]) if "errors" in doc.sections else []
    hints = reader.idempotency(doc.sections["idempotency"]) if "idempotency" in doc.sections else {}
    examples = (
        reader.examples(doc.sections["examples"], {node.name, name})
        if "examples" in doc.sections
        else []
    )
    problems.extend(reader.diagnostics)
    for key, section_name in (("side_effects", "side effects"), ("permissions", "permissions")):
        if section_name in doc.sections and key not in options:
            options[key] = reader.bullets(doc.sections[section_name])

    if any(p.severity.rank >= 3 for p in problems):
        return None, problems

    # examples against the contract
    declared = {e["code"] for e in errors} | {IMPLICIT_ERROR}
    for example, at in examples:
        loc = Location(module.shown, at.line, at.col)
        shows_rejection = example.get("error", {}).get("code") == IMPLICIT_ERROR
        for message in [] if shows_rejection else schema_errors(parameters_schema, example["arguments"]):
            problems.append(Diagnostic("TG501", f"example arguments: {message}", loc))
        if "result" in example and returns_schema:
            for message in schema_errors(returns_schema, example["result"]):
                problems.append(Diagnostic("TG502", f"example result: {message}", loc))
        if "error" in example and example["error"]["code"] not in declared:
            problems.append(
                Diagnostic(
                    "TG503",
                    f"example error code {example['error']['code']} is not declared in Errors",
                    loc,
                )
            )

    risk = options.get("risk", DEFAULT_RISK)
    autonomous, confirmation = RISK_DEFAULTS.get(risk, RISK_DEFAULTS[DEFAULT_RISK])
    data: dict[str, Any] = {
        "name": name,
        "description": doc.description,
        "parameters": parameters_schema,
        "returns": {"description": doc.returns, "schema": returns_schema},
        "errors": errors,
        "idempotency": hints,
        "examples": [e for e, _ in examples],
        "risk": risk,
        "autonomous": autonomous,
        "confirmation": confirmation,
        "source": {"module": module.name, "qualname": handler.qualname},
    }
    for key, value in options.items():
        data["tool_search_keywords" if key == "keywords" else key] = value
    try:
        descriptor = ToolDescriptor.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            key = str(error["loc"][0]) if error["loc"] else ""
            option = "keywords" if key == "tool_search_keywords" else key
            at = option_nodes.get(option, handler.decorator)
            path = ".".join(str(p) for p in error["loc"])
            problems.append(
                Diagnostic("TG403", f"`{path}`: {error['msg']}", module.location(at))
            )
        return None, problems
    if any(p.severity.rank >= 3 for p in problems):
        return None, problems
    return descriptor, problems


def _default_spec(builder: SchemaBuilder, default: ast.expr, module: Any) -> FieldSpec:
    if isinstance(default, ast.Call) and dotted_name(default.func):
        called = builder.index.resolve_expr(module, default.func)
        if called is not None and called.path in FIELD_CALLS:
            return builder.field_call(default, module)
    return FieldSpec(default=builder.literal_default(default, module))


def _all_args(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    a = node.args
    extra = [x for x in (a.vararg, a.kwarg) if x is not None]
    return [*a.posonlyargs, *a.args, *a.kwonlyargs, *extra]


def display_path(config: Config, path: Path) -> str:
    return config.display(path)
