"""The command line: parses `toolgen ...`, runs the command, prints, and exits. Only the entry
point (`toolgen.entry`) imports it. The parsed arguments stop here: `build` and `check` become a
`toolgen.run.Request`, the other commands get plain arguments; what each prints is made by
`toolgen.report_format`.

Exit codes: 0 clean; 1 drift, or findings at or above `--fail-on` (build: an error-level
diagnostic, and then nothing is written); 2 usage, configuration, syntax or internal error.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolgen.arguments import parser, request_of
from toolgen.diagnostics import Diagnostic, UserError, format_lines
from toolgen.report_format import emit, guarded, json_text
from toolgen.run import FATAL_CODES, Run

if TYPE_CHECKING:
    from toolgen.fix import FixMode


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
        return guarded(lambda: emit(Run(request).execute(), sys.stdout), request.format)
    return guarded(COMMANDS[args.command](args), args.format)


def cmd_fix(config: Path | None, paths: Sequence[str], mode: FixMode, fmt: str) -> int:
    from toolgen.config import load_for_args
    from toolgen.fix import fix_files
    from toolgen.report_format import fix_text

    report = fix_files(load_for_args(config, paths), mode)
    sys.stdout.write(fix_text(report, mode, fmt))
    if any(d.code in ("TG804", "TG016") or d.code in FATAL_CODES for d in report.diagnostics):
        return 2  # a file that cannot be read, parsed or written, as `build` says it
    return 1 if mode == "check" and report.changed else 0


#: What `pip install 'toolgen[serve]'` adds: the MCP SDK and what it is made of.
SERVE_EXTRA = frozenset({"mcp", "mcp_types", "anyio"})


def cmd_serve(
    config: Path | None,
    out: str | None,
    page_size: int,
    catalog: str | None,
    store: str,
    audit: str | None,
    scopes: list[str],
    confirm_timeout: float,
    principal: str | None,
    timeout: str = "30",
) -> int:
    try:
        from toolgen.serve import PRINCIPAL_ENV, principal_problem, serve
    except ModuleNotFoundError as exc:
        return _without_extra(exc, "serve", "the MCP SDK is", SERVE_EXTRA)
    from toolgen.config import load_for_args

    if page_size < 1:
        raise UserError(Diagnostic("TG002", "--page-size must be at least 1"))
    if not confirm_timeout > 0 or confirm_timeout == float("inf"):
        raise UserError(
            Diagnostic("TG002", "--confirm-timeout must be a number of seconds above 0")
        )
    seconds = _serve_timeout(timeout)
    given = "--principal"
    if principal is None and PRINCIPAL_ENV in os.environ:
        principal, given = os.environ[PRINCIPAL_ENV], PRINCIPAL_ENV
    if principal is not None and (problem := principal_problem(principal)):
        raise UserError(Diagnostic("TG002", f"{given} {problem}"))
    return serve(
        load_for_args(config, (), out),
        page_size=page_size,
        catalog_name=catalog,
        store=store,
        audit=audit,
        scopes=scopes,
        confirm_timeout=confirm_timeout,
        principal=principal,
        timeout=seconds,
    )


#: What `pip install 'toolgen[lsp]'` adds: pygls and the protocol's types.
LSP_EXTRA = frozenset({"pygls", "lsprotocol", "cattrs"})


def cmd_lsp(config: Path | None) -> int:
    try:
        from toolgen.lsp.server import main as serve_lsp
    except ModuleNotFoundError as exc:
        return _without_extra(exc, "lsp", "pygls and lsprotocol are", LSP_EXTRA)
    return serve_lsp(config)


def _without_extra(exc: ModuleNotFoundError, command: str, what: str, extra: frozenset[str]) -> int:
    """Exit 2 saying how to install the extra of `command` that is missing (`what` it adds,
    with its verb), when that is what `exc` is; else `exc` again (our bug)."""
    if (exc.name or "").split(".")[0] not in extra:
        raise exc
    print(
        f"toolgen {command}: {what} not installed (no module named {exc.name!r}); "
        f"install it with: pip install 'toolgen[{command}]'",
        file=sys.stderr,
    )
    return 2


def _serve_timeout(given: str) -> float | None:
    """`--timeout`: seconds above 0, or `none`."""
    if given.strip().lower() == "none":
        return None
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < math.inf:
        raise UserError(
            Diagnostic("TG002", "--timeout must be a number of seconds above 0, or none")
        )
    return seconds


def cmd_show(config: Path | None, name: str, platform: str) -> int:
    """Print the document on stdout; why there is none on stderr (exit 1: the tool is not in
    that payload; 2: no such tool, or the platform is not configured)."""
    from toolgen.config import load_for_args
    from toolgen.inspection import show

    shown = show(load_for_args(config), name, platform)
    if shown.problem:
        print(f"toolgen: {shown.problem}", file=sys.stderr)
        if shown.errors:  # the tool may be one of the handlers with an error
            sys.stderr.write(format_lines(shown.errors, "text"))
        return shown.return_code
    sys.stdout.write(json_text(shown.document))
    return shown.return_code


def cmd_rules(fmt: str) -> int:
    from toolgen.report_format import rules_text

    sys.stdout.write(rules_text(fmt))
    return 0


def cmd_stats(config: Path | None, paths: Sequence[str], fmt: str, top: int) -> int:
    from toolgen.config import load_for_args
    from toolgen.inspection import stats
    from toolgen.report_format import stats_text

    sys.stdout.write(stats_text(stats(load_for_args(config, paths)), fmt, top))
    return 0


def cmd_init(path: Path, sources: str | None) -> int:
    from toolgen.init import init_project

    for line in init_project(path, sources, cwd=Path.cwd()):
        print(line)
    return 0


def cmd_schema(name: str) -> int:
    from toolgen.descriptor import descriptor_json_schema
    from toolgen.render.jsonout import dump_json
    from toolgen.reports import report_json_schema

    schema = descriptor_json_schema() if name == "descriptor" else report_json_schema(name)
    sys.stdout.write(dump_json(schema).decode())
    return 0


def _fix_mode(args: argparse.Namespace) -> FixMode:
    return "diff" if args.diff else "check" if args.check else "write"


#: Each command but `build` and `check`: its parsed arguments -> the run of the command
#: with plain arguments (the parsed arguments go no further than this table).
COMMANDS: dict[str, Callable[[argparse.Namespace], Callable[[], int]]] = {
    "schema": lambda a: lambda: cmd_schema(a.name),
    "rules": lambda a: lambda: cmd_rules(a.format),
    "fix": lambda a: lambda: cmd_fix(a.config, a.paths, _fix_mode(a), a.format),
    "serve": lambda a: (
        lambda: cmd_serve(
            a.config,
            a.out,
            a.page_size,
            a.catalog,
            a.store,
            a.audit,
            a.scopes,
            a.confirm_timeout,
            a.principal,
            a.timeout,
        )
    ),
    "lsp": lambda a: lambda: cmd_lsp(a.config),
    "show": lambda a: lambda: cmd_show(a.config, a.name, a.platform),
    "stats": lambda a: lambda: cmd_stats(a.config, a.paths, a.format, a.top),
    "init": lambda a: lambda: cmd_init(a.path, a.sources),
}


def run_main(argv: Sequence[str] | None = None) -> int:
    """`main` for a process of its own (the console script, after `toolgen.entry`). A run
    builds many small objects and frees few: collect cycles rarely (about 15% of a cold build
    was the collector's)."""
    gc.set_threshold(100_000, 50, 100)
    return main(argv)
