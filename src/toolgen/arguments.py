"""The command line's arguments: the parser of `toolgen ...`, and a build's or check's
`Request` made from what it parsed.

Apart from the command line (`toolgen.cli`) because the watch's socket server parses the
arguments its clients send exactly as the command line would.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
from pathlib import Path

from toolgen._version import __version__
from toolgen.render.registry import platform_names
from toolgen.run import Request


def _positive_int(text: str) -> int:
    """An argparse type: a whole number of 1 or more (anything else is a usage error)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return value


@functools.cache  # a process that answers many commands (the watch's socket server): made once
def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolgen",
        description="Compile typed Python tool handlers into descriptors and platform payloads.",
    )
    parser.add_argument("--version", action="version", version=f"toolgen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(
        sub: argparse.ArgumentParser, formats: tuple[str, ...] = ("text", "json", "github")
    ) -> None:
        sub.add_argument(
            "paths",
            nargs="*",
            metavar="PATH",
            help="files or folders to scan instead of the configured `sources`",
        )
        sub.add_argument(
            "--config",
            metavar="FILE",
            type=Path,
            help="TOML file with a [tool.toolgen] table (default: nearest pyproject.toml)",
        )
        sub.add_argument(
            "--format",
            choices=formats,
            default="text",
            help="how to print diagnostics (default: text, `path:line:col: CODE [level] msg`)",
        )

    def verbose(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--verbose",
            "-v",
            action="store_true",
            help="also print the notes (diagnostics at level info; one line counts them)",
        )

    def no_cache(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--no-cache",
            action="store_true",
            help="neither read nor write the cache folder (.toolgen_cache/, or "
            "$TOOLGEN_CACHE_DIR; TOOLGEN_NO_CACHE=1 does the same)",
        )

    build = commands.add_parser("build", help="write generated files (only those that change)")
    common(build)
    no_cache(build)
    verbose(build)
    build.add_argument("--out", metavar="DIR", help="output folder (default: config `out`)")
    build.add_argument("--quiet", "-q", action="store_true", help="print errors only")
    build.add_argument(
        "--watch",
        action="store_true",
        help="build, then rebuild whenever a source or the config changes (Ctrl-C stops)",
    )

    check = commands.add_parser(
        "check", help="fail when generated files differ from what build would write"
    )
    common(check)
    no_cache(check)
    verbose(check)
    check.add_argument("--out", metavar="DIR", help="output folder (default: config `out`)")
    check.add_argument("--diff", action="store_true", help="show a unified diff of changed files")
    check.add_argument(
        "--against",
        metavar="REF",
        help="also classify each tool's contract changes since the descriptors at git REF",
    )
    check.add_argument(
        "--verify-runtime",
        action="store_true",
        help="also import the handlers (in a child process) and compare each parameters schema "
        "with pydantic's at run time; the only option that runs user code",
    )
    check.add_argument(
        "--fail-on",
        choices=("error", "warning", "info"),
        default="error",
        help="lowest diagnostic level that fails the check (default: error)",
    )
    schema = commands.add_parser(
        "schema",
        help="print a published JSON Schema: the descriptor format (descriptors/*.json), or a "
        "command's --format json report",
    )
    schema.add_argument(
        "name",
        nargs="?",
        choices=("descriptor", "check-report", "build-report"),
        default="descriptor",
        help="which schema (default: descriptor); each is also in schemas/NAME.schema.json",
    )
    schema.set_defaults(format="text")

    fix = commands.add_parser(
        "fix", help="add, remove and order docstring parameter entries to match the signatures"
    )
    common(fix)
    fix_mode = fix.add_mutually_exclusive_group()
    fix_mode.add_argument(
        "--diff", action="store_true", help="print what would change; write nothing"
    )
    fix_mode.add_argument(
        "--check", action="store_true", help="exit 1 if a file would change; write nothing"
    )

    lsp = commands.add_parser(
        "lsp",
        help="the language server (stdio): diagnostics as you type, generated files on save",
    )
    lsp.add_argument("--config", metavar="FILE", type=Path, help="TOML file with [tool.toolgen]")
    lsp.set_defaults(format="text", paths=[])

    serve = commands.add_parser(
        "serve",
        help="serve the generated tools over MCP (stdio); imports and runs the handlers",
    )
    serve.add_argument("--config", metavar="FILE", type=Path, help="TOML file with [tool.toolgen]")
    serve.add_argument("--out", metavar="DIR", help="generated folder (default: config `out`)")
    serve.add_argument(
        "--page-size", type=int, default=100, metavar="N", help="tools per tools/list page"
    )
    serve.add_argument(
        "--catalog",
        metavar="NAME",
        help="which server's tools, in a project of several (generated/NAME/)",
    )
    serve.add_argument(
        "--store",
        metavar="URL",
        default="sqlite:///.toolgen/runtime.db",
        help="idempotency store: memory://, sqlite:///PATH (default: .toolgen/runtime.db), "
        "redis://HOST:PORT/DB",
    )
    serve.add_argument(
        "--audit",
        metavar="PATH",
        help="append audit events to this JSON-lines file (default: the toolgen.audit logger)",
    )
    serve.add_argument(
        "--scope",
        metavar="SCOPE",
        action="append",
        default=[],
        dest="scopes",
        help="a permission every call holds (repeatable); tools needing others are refused",
    )
    serve.add_argument(
        "--confirm-timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="how long to wait for the client's answer to a confirmation or step-up request "
        "(default 120); a call nobody confirms in time is answered REQUIRES_HUMAN_APPROVAL, "
        "one nobody steps up for STEP_UP_REQUIRED",
    )
    serve.add_argument(
        "--timeout",
        default="30",
        metavar="SECONDS",
        help="how long a call's handler may run before the call is answered TIMEOUT "
        "(default 30), or none: every tool runs with no timeout, a sync handler on the "
        "server's own thread (it serves nothing else meanwhile), but a tool that can be given "
        "an idempotency key keeps 30 (its key's lease needs a bound), and an idempotent or "
        "safe tool, or one with a fallback, still runs on a worker thread",
    )
    serve.add_argument(
        "--principal",
        metavar="NAME",
        help="who makes the calls: it scopes their idempotency keys and is in their audit "
        "events (default: the environment variable TOOLGEN_PRINCIPAL, else none: the calls of "
        "every client share one scope)",
    )
    serve.set_defaults(format="text", paths=[])

    rules = commands.add_parser("rules", help="list every rule: code, default level, summary")
    rules.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="text table (default), JSON, or the Markdown of docs/rules.md",
    )

    show = commands.add_parser(
        "show",
        help="print one tool's descriptor or platform payload (exit 1: the tool is not in that "
        "payload, and why; exit 2: no such tool, or the platform is not configured)",
    )
    show.add_argument("name", help="the tool's name")
    show.add_argument("--config", metavar="FILE", type=Path, help="TOML file with [tool.toolgen]")
    show.add_argument(
        "--platform",
        choices=("descriptor", *platform_names()),
        default="descriptor",
        help="what to show (default: the canonical descriptor)",
    )
    show.set_defaults(format="text", paths=[])

    stats = commands.add_parser(
        "stats", help="payload size per tool and platform, largest first, and catalog totals"
    )
    common(stats, ("text", "json"))  # a table, not annotations: no github format
    stats.add_argument(
        "--top",
        type=_positive_int,
        default=20,
        metavar="N",
        help="rows to show in the text format, largest first: 1 or more (default: 20)",
    )
    init = commands.add_parser(
        "init",
        help="set an existing project up: find its tools, add a [tool.toolgen] table (and an "
        "example tool when it has none)",
    )
    init.add_argument(
        "--path", metavar="DIR", type=Path, default=Path(), help="the project (default: .)"
    )
    init.add_argument(
        "--sources",
        metavar="DIR",
        help="the `sources` entry, relative to the project (default: where the tools are "
        "registered), and the folder of the example tool when there are none (default: "
        "src/<package>/tools, <package>/tools or tools)",
    )
    init.set_defaults(format="text", paths=[])
    return parser


def request_of(args: argparse.Namespace, argv: list[str] | None) -> Request:
    """The `Request` of a parsed `build` or `check` (`argv`: the arguments as given, to
    remember a replayed answer under; None for a watch, whose answers are not remembered)."""
    names = {f.name for f in dataclasses.fields(Request)} - {"argv"}
    given = {name: value for name, value in vars(args).items() if name in names}
    return Request(**given, argv=None if given.get("watch") else argv)
