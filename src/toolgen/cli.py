"""The command line: parses `toolgen ...`, runs the command, prints, and exits. Only the entry
point (`toolgen.entry`) imports it; `build` and `check` are runs of `toolgen.run`.

Exit codes: 0 clean; 1 drift, or findings at or above `--fail-on` (build: an error-level
diagnostic, and then nothing is written); 2 usage, configuration, syntax or internal error.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from toolgen.arguments import parser, request_of
from toolgen.diagnostics import Diagnostic, Level, UserError, format_lines, plural
from toolgen.run import FATAL_CODES, Run, guarded, print_diagnostics, print_json

if TYPE_CHECKING:
    from toolgen.config import Config
    from toolgen.pipeline import Generated


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (the console script exits with it)."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version exit 0, usage errors exit 2
        return int(exc.code or 0)
    if args.command in ("build", "check"):
        request = request_of(args, list(sys.argv[1:] if argv is None else argv))
        if request.watch:
            from toolgen.watch.loop import watch_build

            return guarded(lambda: watch_build(request, sys.stdout), request.format)
        return guarded(lambda: Run(request).execute(sys.stdout), request.format)
    command: Callable[[argparse.Namespace, TextIO], int] = COMMANDS[args.command]
    return guarded(lambda: command(args, sys.stdout), args.format)


def _load(args: argparse.Namespace) -> Config:
    from toolgen.config import load_for_args

    return load_for_args(args.config, args.paths, getattr(args, "out", None))


def cmd_fix(args: argparse.Namespace, stream: TextIO) -> int:
    from toolgen.fix import FixMode, fix_files

    config = _load(args)
    mode: FixMode = "diff" if args.diff else "check" if args.check else "write"
    report = fix_files(config, mode)
    if args.format == "json":
        print_json(
            {
                "diagnostics": [d.to_dict() for d in report.diagnostics],
                "changed": report.changed,
                "diff": report.diff,
            },
            stream,
        )
    else:
        print_diagnostics(report.diagnostics, args.format, stream)
        if mode == "diff":
            stream.write(report.diff)
        if args.format == "text":
            verb = {"write": "fixed", "diff": "would be fixed", "check": "would be fixed"}[mode]
            files = plural(report.files, "file")
            print(f"toolgen: {len(report.changed)} of {files} {verb}", file=stream)
    if any(d.code in ("TG804", "TG016") or d.code in FATAL_CODES for d in report.diagnostics):
        return 2  # a file that cannot be read, parsed or written, as `build` says it
    return 1 if mode == "check" and report.changed else 0


#: What `pip install 'toolgen[serve]'` adds: the MCP SDK and what it is made of.
SERVE_EXTRA = frozenset({"mcp", "mcp_types", "anyio"})


def cmd_serve(args: argparse.Namespace, stream: TextIO) -> int:
    try:
        from toolgen.serve import serve
    except ModuleNotFoundError as exc:  # the extra is missing: say how to add it
        if (exc.name or "").split(".")[0] not in SERVE_EXTRA:
            raise
        print(
            f"toolgen serve: the MCP SDK is not installed (no module named {exc.name!r}); "
            "install it with: pip install 'toolgen[serve]'",
            file=sys.stderr,
        )
        return 2
    if args.page_size < 1:
        raise UserError(Diagnostic("TG002", "--page-size must be at least 1"))
    return serve(
        _load(args),
        page_size=args.page_size,
        catalog_name=args.catalog,
        store=args.store,
        audit=args.audit,
        scopes=args.scopes,
    )


def cmd_show(args: argparse.Namespace, stream: TextIO) -> int:
    """Print the document on `stream`; why there is none on stderr (exit 1: the tool is not in
    that payload; 2: no such tool, or the platform is not configured)."""
    from toolgen.incremental.spool import as_bytes
    from toolgen.pipeline import generate
    from toolgen.stats import entry_name, first_payload, payload_entries

    config = _load(args)
    result = generate(config)
    names = sorted(result.locations)  # `catalog/name` when the project has several servers
    if args.name not in names:
        errors = [d for d in result.diagnostics if d.severity is Level.ERROR]
        known = ", ".join(names) or "none"
        print(f"toolgen: no tool named {args.name!r}; tools: {known}", file=sys.stderr)
        if errors:  # the tool may be one of the handlers with an error
            sys.stderr.write(format_lines(errors, "text"))
        return 2
    catalog, _, name = args.name.rpartition("/")
    folder = f"{catalog}/" if catalog else ""
    if args.platform == "descriptor":
        document = json.loads(as_bytes(result.files[f"{folder}descriptors/{name}.json"]))
    else:
        label = first_payload(args.platform)
        entries = payload_entries(result.files, label, catalog)
        if entries is None:
            print(f"toolgen: platform {args.platform} is not configured", file=sys.stderr)
            return 2
        found = [e for e in entries if entry_name(e) == name]
        if not found:
            why = _left_out(result, name)
            print(
                f"toolgen: {args.name} is not in the {args.platform} payload: {why}",
                file=sys.stderr,
            )
            return 1
        document = found[0]
    print_json(document, stream)
    return 0


def _left_out(result: Generated, name: str) -> str:
    """Why a tool reaches no entry in a payload: its risk, or what rendering reported."""
    descriptor = next(d for d in result.descriptors if d.name == name)
    if not descriptor.visible:
        return f"its risk is {descriptor.risk} (such tools reach no payload)"
    said = [  # what rendering reported (TG6xx): e.g. a model Gemini cannot take
        d
        for d in result.diagnostics
        if d.code.startswith("TG6") and d.message.startswith(f"tool {name}: ")
    ]
    reasons = [f"{d.code} {d.message.removeprefix(f'tool {name}: ')}" for d in said]
    return "; ".join(reasons) or "nothing says why (please report it)"


def cmd_rules(args: argparse.Namespace, stream: TextIO) -> int:
    from toolgen.diagnostics import RULES
    from toolgen.render.catalog import rules_markdown

    if args.format == "markdown":
        stream.write(rules_markdown())
    elif args.format == "json":
        rows = [
            {
                "code": r.code,
                "level": r.level.value,
                "configurable": r.configurable,
                "summary": r.summary,
                "help": r.help,
            }
            for r in RULES.values()
        ]
        print_json({"rules": rows}, stream)
    else:
        for rule in RULES.values():
            fixed = "" if rule.configurable else " (level fixed)"
            print(f"{rule.code}  {rule.level.value:<7}  {rule.summary}{fixed}", file=stream)
    return 0


def cmd_stats(args: argparse.Namespace, stream: TextIO) -> int:
    from toolgen.pipeline import generate
    from toolgen.stats import catalog_totals, tool_sizes

    config = _load(args)
    result = generate(config)
    sizes = tool_sizes(result.files)
    totals = catalog_totals(sizes)
    # the budgets, and the errors of handlers that are therefore not in these numbers
    budgets = [
        d for d in result.diagnostics if d.code in ("TG930", "TG931") or d.severity is Level.ERROR
    ]
    if args.format == "json":
        print_json(
            {
                "tools": [
                    {"platform": s.platform, "tool": s.tool, "chars": s.chars, "tokens": s.tokens}
                    for s in sizes
                ],
                "catalogs": {p: {"chars": c, "tokens": t} for p, (c, t) in totals.items()},
                "levels": {d.name: d.conformance_level for d in result.descriptors},
                "diagnostics": [d.to_dict() for d in budgets],
            },
            stream,
        )
        return 0
    print_diagnostics(budgets, args.format, stream)
    failed = sum(1 for d in budgets if d.severity is Level.ERROR)
    if failed:
        print(
            f"toolgen: {plural(failed, 'error')} above: handlers with errors are not counted",
            file=stream,
        )
    print(f"{'tool':<32} {'platform':<17} {'chars':>7} {'~tokens':>8}", file=stream)
    for size in sizes[: args.top]:
        print(f"{size.tool:<32} {size.platform:<17} {size.chars:>7} {size.tokens:>8}", file=stream)
    if len(sizes) > args.top:
        print(f"... {plural(len(sizes) - args.top, 'more row')} (--top N)", file=stream)
    print(file=stream)
    print(f"{'catalog':<50} {'chars':>7} {'~tokens':>8}", file=stream)
    for platform, (chars, tokens) in totals.items():
        print(f"{platform:<50} {chars:>7} {tokens:>8}", file=stream)
    levels = [d.conformance_level for d in result.descriptors]
    if levels:  # reported; enforced only where the project sets min_level
        counts = ", ".join(f"{n}: {levels.count(n)}" for n in sorted(set(levels)))
        minimum = f" (min_level {config.min_level})" if config.min_level else ""
        print(f"\nconformance levels{minimum}: {counts} tools", file=stream)
    return 0


def cmd_init(args: argparse.Namespace, stream: TextIO) -> int:
    from toolgen.init import init_project

    for line in init_project(args.path, args.sources, cwd=Path.cwd()):
        print(line, file=stream)
    return 0


def cmd_schema(args: argparse.Namespace, stream: TextIO) -> int:
    from toolgen.descriptor import descriptor_json_schema
    from toolgen.render.jsonout import dump_json
    from toolgen.reports import report_json_schema

    schema = (
        descriptor_json_schema() if args.name == "descriptor" else report_json_schema(args.name)
    )
    stream.write(dump_json(schema).decode())
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace, TextIO], int]] = {
    "schema": cmd_schema,
    "rules": cmd_rules,
    "fix": cmd_fix,
    "serve": cmd_serve,
    "show": cmd_show,
    "stats": cmd_stats,
    "init": cmd_init,
}


def run_main(argv: Sequence[str] | None = None) -> int:
    """`main` for a process of its own (the console script, after `toolgen.entry`). A run
    builds many small objects and frees few: collect cycles rarely (about 15% of a cold build
    was the collector's)."""
    gc.set_threshold(100_000, 50, 100)
    return main(argv)
