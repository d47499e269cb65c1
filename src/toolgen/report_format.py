"""What the commands print: a build's or check's `Report` (`toolgen.run`) as text, JSON or
GitHub lines, the other commands' output, and `guarded`, which says what goes wrong around a
command the way the command line says it.

The command line (`toolgen.cli`), the watch (`toolgen.watch.loop`) and its socket server
(`toolgen.watch.socket_server`) all print through here, so that a run prints the same bytes
whoever runs it. Nothing here decides an exit code but `guarded` (for what went wrong around
the command): the reports carry theirs.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from toolgen.diagnostics import Diagnostic, Level, UserError, escape_name, format_lines, plural
from toolgen.quoting import visible

if TYPE_CHECKING:
    from toolgen.fix import FixMode, FixReport
    from toolgen.run import Report, Request
    from toolgen.stats import Measured

#: The codes of `check --against`'s findings: shown at level info too (they were asked for).
BREAKING = ("TG95", "TG96", "TG97")


def emit(report: Report, stream: TextIO) -> int:
    """Print `report` on `stream` (and hand what was printed to the report's `remember`);
    its exit code."""
    text = render(report)
    stream.write(text)
    if report.remember is not None:
        report.remember(text)
    return report.return_code


def render(report: Report) -> str:
    """The report as its request's format prints it."""
    if report.fatal:
        return fatal_text(report.diagnostics, report.request.format)
    text = _build_text(report) if report.request.command == "build" else _check_text(report)
    # no control character of a name or a message reaches a terminal or a CI log as it is
    return text if report.request.format == "json" else visible(text)


def fatal_text(diagnostics: Sequence[Diagnostic], fmt: str) -> str:
    """The diagnostics of a run that could not look at the project, in the format asked for."""
    if fmt == "json":
        return json_text({"diagnostics": [d.to_dict() for d in diagnostics]})
    return visible(format_lines(diagnostics, fmt))


def json_text(payload: object) -> str:
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def _shown(report: Report) -> list[Diagnostic]:
    if report.request.quiet:  # `build --quiet`: errors only
        return [d for d in report.diagnostics if d.severity is Level.ERROR]
    return list(report.diagnostics)


def _rows(report: Report) -> list[dict[str, Any]]:
    """The diagnostics as JSON rows (a replayed run's parsed from the stamp's JSON now)."""
    if report.replayed is not None:
        return [] if report.request.quiet else report.replayed.rows
    return [d.to_dict() for d in _shown(report)]


def _lines(report: Report) -> str:
    """The diagnostics as text or GitHub lines (a replayed run's as the stamp keeps them)."""
    fmt = report.request.format
    if report.replayed is not None:
        return "" if report.request.quiet else report.replayed.lines.get(fmt, "")
    asked = BREAKING if report.request.against else ()
    return format_lines(_shown(report), fmt, report.request.verbose, asked)


def _build_text(report: Report) -> str:
    """What a build found (rows for JSON, else lines) and did, ending with the handlers it
    left out."""
    files, left_out, fmt = report.files, report.left_out, report.request.format
    if fmt == "json":
        return json_text(
            {
                "diagnostics": _rows(report),
                "tools": report.tools,
                "written": files.written if files else [],
                "removed": files.removed if files else [],
                "completed": files.completed if files else 0,
                "left_out": [
                    {
                        "name": utf8_text(name),
                        "path": where.path,
                        "line": where.line,
                        "col": where.col,
                    }
                    for name, where in left_out
                ],
            }
        )
    out = [_lines(report)]
    if fmt == "text":
        if files is not None and files.completed:
            out.append(
                f"toolgen: completed the interrupted build of {report.out} "
                f"({plural(files.completed, 'file')} moved or removed)\n"
            )
        if files is None:
            out.append("toolgen: errors found; nothing was written\n")
        elif not report.request.quiet:
            out.append(
                f"toolgen: {plural(report.tools, 'tool')}; {plural(len(files.written), 'file')} "
                f"written, {len(files.removed)} removed, {files.unchanged} unchanged "
                f"in {report.out}\n"
            )
    if left_out:
        # a name is the project's text: a line break in it would start a line of its own
        # (`::error ...`, a workflow command a CI runner acts on)
        listed = ", ".join(f"{one_name(name)} ({where})" for name, where in left_out)
        message = f"{plural(len(left_out), 'tool')} left out for errors: {listed}"
        if fmt == "github":
            out.append(f"::error title=toolgen: tools left out::{message}\n")
        else:
            out.append(f"toolgen: {message}\n")
    return "".join(out)


def utf8_text(text: str) -> str:
    """`text` with each character UTF-8 cannot encode as its escape: a name is the project's
    text, and a lone surrogate in it (`@tool("g\\ud800")`, refused as a name) has no UTF-8
    form, so it is shown escaped, as a diagnostic's message is."""
    return text if text.isascii() else text.encode("utf-8", "backslashreplace").decode("utf-8")


def one_name(name: str) -> str:
    """`name` on one line: its line breaks escaped (and so its backslashes), and what UTF-8
    cannot encode."""
    return utf8_text(name.replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n"))


def _check_text(report: Report) -> str:
    """What a check found: the diagnostics, the drift, and what to do about it; the reason for
    a failing exit code last."""
    from toolgen.output import Drift

    drift, out_shown, fmt = report.drift or Drift(), report.out, report.request.format
    kinds = (("missing", drift.missing), ("changed", drift.changed), ("stale", drift.stale))
    if fmt == "json":
        return json_text(
            {
                "diagnostics": _rows(report),
                "tools": report.tools,
                "drift": {
                    **{kind: [f"{out_shown}/{p}" for p in paths] for kind, paths in kinds},
                    "interrupted": drift.interrupted,
                },
                "fail_on": report.request.fail_on,
                "failing": dict(report.failing),
            }
        )
    command = build_command(report.request)
    fix_hint = f"run `{command}` to update the generated files"
    out = [_lines(report)]
    if drift.interrupted and fmt == "github":
        from toolgen.journal import interrupted_message

        message = interrupted_message(out_shown, command)
        out.append(f"::error file={out_shown},title=interrupted::{message}\n")
    for kind, paths in kinds:
        for path in paths:
            if fmt == "github":
                out.append(f"::error file={out_shown}/{path},title={kind}::{kind}; {fix_hint}\n")
                continue
            out.append(f"{out_shown}/{path}: {kind}\n")
            if kind == "changed" and path in report.diffs:
                out.append(report.diffs[path])
    if fmt == "text":
        if report.blocked:
            out.append(f"toolgen: the handlers have errors; fix them, then run `{command}`\n")
        elif report.errors:
            out.append("toolgen: contract problems found (see above)\n")
        elif drift.interrupted:
            from toolgen.journal import interrupted_message

            out.append(f"toolgen: {interrupted_message(out_shown, command)}\n")
        elif drift.clean:
            out.append(f"toolgen: {plural(report.tools, 'tool')}; {out_shown} is up to date\n")
        else:
            out.append(f"toolgen: {out_shown} is out of date; {fix_hint}\n")
    if report.failing and not report.blocked:  # the exit code's reason, last
        message = _failing_message(report.failing, report.request.fail_on)
        if fmt == "github":
            out.append(f"::error title=toolgen --fail-on::{message}\n")
        else:
            out.append(f"toolgen: {message}\n")
    return "".join(out)


def _failing_message(failing: Mapping[str, int], fail_on: str) -> str:
    """`failing: 1 error, 3 warnings at or above --fail-on warning`."""
    nouns = {"error": "errors", "warning": "warnings", "info": "info"}
    found = ", ".join(plural(n, level, nouns[level]) for level, n in failing.items())
    return f"failing: {found} at or above --fail-on {fail_on}"


def build_command(request: Request) -> str:
    """The `toolgen build` that goes with this request: its PATHs, --config and --out, quoted
    for a shell, so that the hint can be pasted as it is."""
    import shlex

    words = ["toolgen", "build", *map(str, request.paths or [])]
    if request.config is not None:
        words += ["--config", str(request.config)]
    if request.out:
        words += ["--out", str(request.out)]
    return " ".join(shlex.quote(w) if escape_name(w) == w else _bytes_word(w) for w in words)


def _bytes_word(word: str) -> str:
    """A word with bytes that are not UTF-8 (a file name), as bash and zsh read it back:
    `$'...'` with `\\xNN` escapes."""
    data = os.fsencode(word)
    plain = set(range(32, 127)) - {ord("\\"), ord("'")}
    return "$'" + "".join(chr(b) if b in plain else f"\\x{b:02x}" for b in data) + "'"


def fix_text(report: FixReport, mode: FixMode, fmt: str) -> str:
    """`toolgen fix`: its diagnostics, the diff it would apply (`--diff`), and a count."""
    if fmt == "json":
        rows = [d.to_dict() for d in report.diagnostics]
        return json_text({"diagnostics": rows, "changed": report.changed, "diff": report.diff})
    out = [format_lines(report.diagnostics, fmt)]
    if mode == "diff":
        out.append(report.diff)
    if fmt == "text":
        verb = {"write": "fixed", "diff": "would be fixed", "check": "would be fixed"}[mode]
        out.append(f"toolgen: {len(report.changed)} of {plural(report.files, 'file')} {verb}\n")
    return "".join(out)


def rules_text(fmt: str) -> str:
    """`toolgen rules`: every rule as a table, JSON, or the Markdown of docs/rules.md."""
    from toolgen.diagnostics import RULES
    from toolgen.render.catalog import rules_markdown

    if fmt == "markdown":
        return rules_markdown()
    if fmt == "json":
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
        return json_text({"rules": rows})
    lines = []
    for rule in RULES.values():
        fixed = "" if rule.configurable else " (level fixed)"
        lines.append(f"{rule.code}  {rule.level.value:<7}  {rule.summary}{fixed}\n")
    return "".join(lines)


def stats_text(measured: Measured, fmt: str, top: int) -> str:
    """`toolgen stats`: the budgets' diagnostics, then the largest `top` tools and each
    catalog's totals as tables (or all of it as JSON)."""
    sizes, totals, budgets = measured.sizes, measured.totals, measured.diagnostics
    if fmt == "json":
        return json_text(
            {
                "tools": [
                    {"platform": s.platform, "tool": s.tool, "chars": s.chars, "tokens": s.tokens}
                    for s in sizes
                ],
                "catalogs": {p: {"chars": c, "tokens": t} for p, (c, t) in totals.items()},
                "levels": dict(measured.levels),
                "diagnostics": [d.to_dict() for d in budgets],
            }
        )
    out = [format_lines(budgets, fmt)]
    failed = sum(1 for d in budgets if d.severity is Level.ERROR)
    if failed:
        errors = plural(failed, "error")
        out.append(f"toolgen: {errors} above: handlers with errors are not counted\n")
    out.append(f"{'tool':<32} {'platform':<17} {'chars':>7} {'~tokens':>8}\n")
    for size in sizes[:top]:
        out.append(f"{size.tool:<32} {size.platform:<17} {size.chars:>7} {size.tokens:>8}\n")
    if len(sizes) > top:
        out.append(f"... {plural(len(sizes) - top, 'more row')} (--top N)\n")
    out.append("\n")
    out.append(f"{'catalog':<50} {'chars':>7} {'~tokens':>8}\n")
    for platform, (chars, tokens) in totals.items():
        out.append(f"{platform:<50} {chars:>7} {tokens:>8}\n")
    levels = [level for _, level in measured.levels]
    if levels:  # reported; enforced only where the project sets min_level
        counts = ", ".join(f"{n}: {levels.count(n)}" for n in sorted(set(levels)))
        minimum = f" (min_level {measured.min_level})" if measured.min_level else ""
        out.append(f"\nconformance levels{minimum}: {counts} tools\n")
    return "".join(out)


def guarded(command: Callable[[], int], fmt: str) -> int:
    """`command()`'s exit code, with what can go wrong around a command said as the command line
    says it: the user's input (exit 2, as diagnostics), Ctrl-C (130), a reader gone (0), our own
    bug (2, with its traceback on stderr); and cache entries not trusted, on stderr."""
    try:
        return command()
    except UserError as exc:
        sys.stdout.write(fatal_text(exc.diagnostics, fmt))
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `toolgen rules | head`: the reader left; not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception:  # our bug, not the user's input: say so, exit 2
        print("toolgen: internal error (please report it):", file=sys.stderr)
        traceback.print_exc()
        return 2
    finally:
        _distrusted()


def _distrusted() -> None:
    """Say on stderr, in one line, that a run did not believe cache entries
    (`toolgen.incremental.cache.trusted`), as `toolgen.run` says of a cache folder."""
    from toolgen.incremental.cache import DISTRUSTED

    if DISTRUSTED:
        others = len(set(DISTRUSTED)) - 1  # an entry may be read twice (a stamp)
        also = f" (and {plural(others, 'other')})" if others else ""
        print(
            f"toolgen: not using the cache entry {escape_name(DISTRUSTED[0])}{also}: it is not "
            "a file of this user's that only they (or the project's group) can write to",
            file=sys.stderr,
        )
        DISTRUSTED.clear()
