#!/usr/bin/env python3
"""Measure how many published framework tools toolgen reads as the frameworks publish them.

    python3 compare.py TOOLGEN_CMD [--verbose] [--only NAME ...] [--corpus corpus.toml]

For each [[package]] of corpus.toml: download the pinned wheel (pip download --no-deps,
cached under TMPDIR/frameworks-wheels), unpack it, hard-link its `sources` into a fresh
temporary project, write a pyproject.toml whose [tool.toolgen] table says sources, markers,
platforms = ["openai"], out = "generated", min_level = 0 and the env the tools were recorded
with, run `TOOLGEN_CMD build --config pyproject.toml` in it, and compare the entries of
generated/openai/chat_completions.json with the payloads recorded from the frameworks
(oracle/NAME.json, draw.py and record.py), tool by tool, matched by name:

  (a) extracted: toolgen wrote a tool of that name;
  (b) schema: its `function.parameters` equals the recorded one, as parsed JSON (key order
      aside, nothing else ignored);
  (c) description: its `function.description` equals the recorded one, character for
      character.

A tool counts as read correctly when all three hold. Beside (b), a looser view is counted:
the schema's shape (property names, required set and each property's type shape, with
titles, descriptions, defaults and formats ignored; the normalization of
../realworld/compare.py) equal.

One line per package:
    NAME: M/N schemas match, N/T tools extracted, descriptions D/N, exit CODE (shapes S/N)
(T recorded tools, N of them extracted, M of those with an equal schema, D with an equal
description; CODE is toolgen's exit code), and the last lines of toolgen's output when it
fails. Then the summary: per framework (langchain-class, langchain-function, openai-agents,
pydantic-ai) and in all, the share of recorded tools read correctly. It always exits 0: it
is a measurement, not a test.

TOOLGEN_CMD is split like a shell word list ("toolgen", "/path/venv/bin/toolgen",
"python -m toolgen").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the compare scripts' shared module

from wheel_projects import (  # noqa: E402
    copy_sources,
    fetch_wheel,
    norm,
    pct,
    shape,
    toml_list,
    unpack,
)

FRAMEWORKS = ("langchain-class", "langchain-function", "openai-agents", "pydantic-ai")


def schema_shape(schema: Any) -> Any:
    """Property names, required set and type shape per property of a parameters schema."""
    if not isinstance(schema, dict):
        return {"$invalid": repr(schema)}
    props = schema.get("properties") or {}
    return {
        "properties": sorted(props),
        "required": sorted(schema.get("required") or []),
        "shapes": {name: shape(sub, schema) for name, sub in sorted(props.items())},
    }


# --------------------------------------------------------------------------- comparison


@dataclass
class ToolResult:
    name: str
    framework: str
    extracted: bool = False
    schema_equal: bool = False
    shape_equal: bool = False
    description_equal: bool = False
    diff: str = ""

    @property
    def correct(self) -> bool:
        return self.extracted and self.schema_equal and self.description_equal


@dataclass
class Result:
    name: str
    tools: list[ToolResult] = field(default_factory=list)
    only_toolgen: list[str] = field(default_factory=list)
    exit_code: int | None = None
    note: str = ""

    def count(self, what: str) -> int:
        return sum(bool(getattr(t, what)) for t in self.tools)


def function_of(entry: Any) -> dict[str, Any]:
    """The `function` object of a Chat Completions tool entry (or {})."""
    if isinstance(entry, dict) and isinstance(entry.get("function"), dict):
        return entry["function"]
    return {}


def first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two JSON values first differ, as `path: toolgen | framework` (short)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a:
                return f"{path}/{key}: missing | {_short(b[key])}"
            if key not in b:
                return f"{path}/{key}: {_short(a[key])} | missing"
            if a[key] != b[key]:
                return first_difference(a[key], b[key], f"{path}/{key}")
        return ""
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{path}/{i}")
        return ""
    return f"{path or '/'}: {_short(a)} | {_short(b)}"


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def judge(tr: ToolResult, got: dict[str, Any], want: dict[str, Any]) -> ToolResult:
    """Fill in how toolgen's `function` object `got` compares with the recorded `want`."""
    tr.extracted = True
    tr.schema_equal = got.get("parameters") == want.get("parameters")
    tr.shape_equal = tr.schema_equal or (
        schema_shape(got.get("parameters")) == schema_shape(want.get("parameters"))
    )
    tr.description_equal = got.get("description") == want.get("description")
    diffs = []
    if not tr.schema_equal:
        diffs.append("schema " + first_difference(got.get("parameters"), want.get("parameters")))
    if not tr.description_equal:
        diffs.append(
            "description " + first_difference(got.get("description"), want.get("description"))
        )
    tr.diff = "; ".join(diffs)
    return tr


def compare_tools(name: str, oracle: list[dict[str, Any]], produced: list[Any]) -> Result:
    """Each recorded tool against toolgen's entry of the same name; of several entries of
    that name (agents of one package may share tool names), the one that agrees most."""
    res = Result(name=name)
    by_name: dict[str, list[dict[str, Any]]] = {}
    for entry in produced:
        fn = function_of(entry)
        if isinstance(fn.get("name"), str):
            by_name.setdefault(fn["name"], []).append(fn)
    recorded = set()
    for tool in oracle:
        want = function_of(tool.get("payload"))
        tname = want.get("name", tool.get("name", ""))
        recorded.add(tname)
        framework = tool.get("framework", "?")
        tried = [
            judge(ToolResult(name=tname, framework=framework), got, want)
            for got in by_name.get(tname, [])
        ]
        best = max(
            tried,
            key=lambda t: (t.correct, t.schema_equal, t.description_equal, t.shape_equal),
            default=ToolResult(name=tname, framework=framework),
        )
        res.tools.append(best)
    res.only_toolgen = sorted(set(by_name) - recorded)
    return res


# --------------------------------------------------------------------------- wheels, projects


def make_project(entry: dict[str, Any], unpacked: Path) -> Path:
    project = Path(tempfile.mkdtemp(prefix=f"frameworks-{norm(entry['name'])}-"))
    try:
        copy_sources(unpacked, project, entry["sources"])
        env = entry.get("env") or {}
        pairs = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in sorted(env.items()))
        (project / "pyproject.toml").write_text(
            "[project]\n"
            f"name = {json.dumps('frameworks-' + entry['name'])}\n"
            'version = "0"\n\n'
            "[tool.toolgen]\n"
            f"sources = {toml_list(entry['sources'])}\n"
            'out = "generated"\n'
            'platforms = ["openai"]\n'
            f"markers = {toml_list(entry['markers'])}\n"
            "min_level = 0\n" + (f"env = {{{pairs}}}\n" if pairs else ""),
            encoding="utf-8",
        )
    except BaseException:
        shutil.rmtree(project, ignore_errors=True)
        raise
    return project


def read_generated(project: Path) -> tuple[list[Any], str]:
    """Every entry of every generated/**/openai/chat_completions.json (one per served
    object when toolgen writes several), and the problems met reading them."""
    entries: list[Any] = []
    problems = ""
    gen = project / "generated"
    for path in sorted(gen.rglob("chat_completions.json")) if gen.exists() else []:
        if path.parent.name != "openai":
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            problems += f"\n  ({path.relative_to(project)} is not JSON: {exc})"
            continue
        if isinstance(data, list):
            entries += data
    return entries, problems


def run_entry(
    entry: dict[str, Any], cmd: list[str], cache: Path, keep: bool, timeout: float, oracle: Path
) -> Result:
    name = entry["name"]
    recorded = json.loads((oracle / f"{name}.json").read_text(encoding="utf-8"))["tools"]
    try:
        wheel = fetch_wheel(entry["requirement"], cache, "3.12")  # the draw's Python
        project = make_project(entry, unpack(wheel, cache))
    except Exception as exc:  # download or copy failed: nothing to compare
        res = compare_tools(name, recorded, [])
        res.note = f"  setup failed: {exc}"
        return res
    try:
        try:
            proc = subprocess.run(
                [*cmd, "build", "--config", "pyproject.toml"],
                cwd=project,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            code, output = proc.returncode, (proc.stderr or "") + (proc.stdout or "")
        except subprocess.TimeoutExpired:
            code, output = 124, f"(toolgen build timed out after {timeout:.0f} s)"
        except OSError as exc:
            code, output = 127, f"cannot run {cmd[0]}: {exc}"
        produced, problems = read_generated(project)
        res = compare_tools(name, recorded, produced)
        res.exit_code = code
        if code != 0:
            lines = output.strip().splitlines()[-5:]
            res.note = "\n".join("  | " + line[:300] for line in lines)
            errors: dict[str, int] = {}
            for m in re.finditer(r"\b(TG\d+) \[error\]", output):
                errors[m.group(1)] = errors.get(m.group(1), 0) + 1
            if errors:
                res.note += "\n  errors: " + ", ".join(
                    f"{c} x{n}" for c, n in sorted(errors.items(), key=lambda kv: -kv[1])
                )
        res.note += problems
        if keep:
            res.note += ("\n" if res.note else "") + f"  project kept at {project}"
        return res
    finally:
        if not keep:
            shutil.rmtree(project, ignore_errors=True)


# --------------------------------------------------------------------------- summary


def summary(results: list[Result]) -> list[str]:
    """The closing lines: per framework, then in all."""
    tools = [t for r in results for t in r.tools]
    lines = []
    for fw in (*FRAMEWORKS, "all"):
        ts = [t for t in tools if fw in ("all", t.framework)]
        ext = [t for t in ts if t.extracted]
        ok = sum(t.correct for t in ts)
        label = "all frameworks" if fw == "all" else fw
        lines.append(
            f"{label}: {pct(ok, len(ts))} read correctly ({ok}/{len(ts)}); extracted "
            f"{len(ext)}/{len(ts)}, schemas equal {sum(t.schema_equal for t in ext)}/{len(ext)},"
            f" descriptions equal {sum(t.description_equal for t in ext)}/{len(ext)}; schema"
            f" shapes equal {sum(t.shape_equal for t in ext)}/{len(ext)}"
        )
    extra = sum(len(r.only_toolgen) for r in results)
    lines.append(f"tools only in toolgen: {extra}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Compare toolgen's OpenAI payloads with what the frameworks publish."
    )
    ap.add_argument("toolgen_cmd", metavar="TOOLGEN_CMD", help='e.g. "toolgen"')
    ap.add_argument(
        "--verbose", "-v", action="store_true", help="print each tool that is not read correctly"
    )
    ap.add_argument("--only", nargs="+", metavar="NAME", default=None, help="only these packages")
    ap.add_argument("--corpus", default=str(HERE / "corpus.toml"), help="the corpus file")
    ap.add_argument(
        "--cache",
        default=str(Path(tempfile.gettempdir()) / "frameworks-wheels"),
        help="where downloaded wheels are kept (default: TMPDIR/frameworks-wheels)",
    )
    ap.add_argument("--keep", action="store_true", help="keep the temporary projects")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per toolgen build")
    args = ap.parse_args(argv)

    cmd = shlex.split(args.toolgen_cmd)
    with open(args.corpus, "rb") as fh:
        entries = tomllib.load(fh).get("package", [])
    if args.only:
        wanted = set(args.only)
        unknown = wanted - {e["name"] for e in entries}
        if unknown:
            print(f"unknown corpus entries: {', '.join(sorted(unknown))}", file=sys.stderr)
        entries = [e for e in entries if e["name"] in wanted]
    oracle = Path(args.corpus).resolve().parent / "oracle"
    results = []
    for entry in entries:
        res = run_entry(entry, cmd, Path(args.cache), args.keep, args.timeout, oracle)
        results.append(res)
        n = res.count("extracted")
        code = res.exit_code if res.exit_code is not None else "-"
        print(
            f"{res.name}: {res.count('schema_equal')}/{n} schemas match, "
            f"{n}/{len(res.tools)} tools extracted, descriptions "
            f"{res.count('description_equal')}/{n}, exit {code} "
            f"(shapes {res.count('shape_equal')}/{n})",
            flush=True,
        )
        if res.note:
            print(res.note)
        if args.verbose:
            missing = [f"{t.name} ({t.framework})" for t in res.tools if not t.extracted]
            if missing:
                print(f"  not extracted ({len(missing)}): {', '.join(missing)}")
            if res.only_toolgen:
                print(f"  only in toolgen ({len(res.only_toolgen)}): {', '.join(res.only_toolgen)}")
            for t in res.tools:
                if t.extracted and not t.correct:
                    print(f"  {t.name} ({t.framework}): {t.diff}")
    for line in summary(results):
        print(line)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        os._exit(0)
