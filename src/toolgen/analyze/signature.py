"""The parameters a model may pass: the signature minus `self`/`cls` and injected names."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from fnmatch import fnmatchcase

from toolgen.analyze.handlers import Handler
from toolgen.analyze.types import SchemaBuilder
from toolgen.diagnostics import Diagnostic


@dataclass(frozen=True)
class Param:
    name: str
    annotation: ast.expr | None
    default: ast.expr | None
    node: ast.arg
    star: str = ""  # "*" for `*args`, "**" for `**kwargs`


def parameters(
    handler: Handler, skip_params: tuple[str, ...]
) -> tuple[list[Param], list[Diagnostic]]:
    args = handler.node.args
    module = handler.module
    problems: list[Diagnostic] = []
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += list(args.defaults)
    pairs = list(zip(positional, defaults, strict=True))
    if handler.in_class and not handler.is_static and pairs:
        pairs = pairs[1:]  # self / cls
    posonly = {id(a) for a in args.posonlyargs}
    # `*args` and `**kwargs` are properties of their own name where the framework says so
    # (the MCP SDK: required, of their annotation), in the signature's order
    published = bool(handler.preset.star_params)
    if published and args.vararg is not None:
        pairs.append((args.vararg, None))
    pairs += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    if published and args.kwarg is not None:
        pairs.append((args.kwarg, None))
    stars = {id(args.vararg): "*", id(args.kwarg): "**"}

    filled, private = handler.preset.filled_params, handler.preset.private_underscore

    def skipped(name: str) -> bool:
        if name in filled or (private and name.startswith("_")):
            return True
        return any(fnmatchcase(name, pattern) for pattern in skip_params)

    params: list[Param] = []
    for arg, default in pairs:
        if skipped(arg.arg):
            continue
        if id(arg) in posonly:
            problems.append(
                Diagnostic(
                    "TG204",
                    f"parameter `{arg.arg}` is positional-only; a model passes arguments by name",
                    module.location(arg),
                )
            )
            continue
        params.append(Param(arg.arg, arg.annotation, default, arg, stars.get(id(arg), "")))
    for star, kind in ((args.vararg, "*"), (args.kwarg, "**")):
        if star is not None and not skipped(star.arg) and not published:
            problems.append(
                Diagnostic(
                    "TG204",
                    f"`{kind}{star.arg}` cannot be described to a model; name the parameters "
                    "(or list it in skip_params if a wrapper fills it)",
                    module.location(star),
                )
            )
    return params, problems


def exposed_parameters(
    handler: Handler, skip_params: tuple[str, ...], builder: SchemaBuilder
) -> tuple[list[Param], list[Diagnostic]]:
    """The parameters a model passes, as `build` describes them and `fix` documents them: no
    self/cls, no name `skip_params` matches, no framework context (the first parameter of a
    context-first method, or one whose type names a context class, also through an alias),
    no dependency the framework injects (`bz = Depends(get_bz)`); and the TG204s of the
    parameters a model cannot pass."""
    params, problems = parameters(handler, skip_params)
    preset = handler.preset
    if handler.method in preset.context_first_methods and params:
        params = params[1:]  # e.g. pydantic-ai `@agent.tool`: the RunContext comes first
    if preset.context_types:
        params = [
            p
            for p in params
            if p.annotation is None
            or not builder.refers_to(p.annotation, handler.module, preset.context_types)
        ]
    if preset.injected_markers:
        params = [
            p
            for p in params
            if p.annotation is None
            or not builder.marked_with(p.annotation, handler.module, preset.injected_markers)
        ]
    if preset.injected_by:
        params = [p for p in params if not _injected(p.default, handler, builder)]
    return params, problems


def _injected(default: ast.expr | None, handler: Handler, builder: SchemaBuilder) -> bool:
    """Whether `default` makes a dependency the framework injects: a call of a callable of
    `Preset.injected_by`, written there or bound to the name written there."""
    module = handler.module
    if isinstance(default, ast.Name):  # a module-level name: its binding is the value
        found = builder.index.resolve(module, default.id)
        if found is None or found.module is None or found.kind != "assign":
            return False
        if not isinstance(found.node, ast.expr):
            return False
        default, module = found.node, found.module
    if not isinstance(default, ast.Call):
        return False
    called = builder.index.resolve_expr(module, default.func)
    if called is None or not called.is_external:
        return False
    return any(
        called.path == owner or called.path.startswith(f"{owner}.")
        for owner in handler.preset.injected_by
    )
