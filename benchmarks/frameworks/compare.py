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
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FRAMEWORKS = ("langchain-class", "langchain-function", "openai-agents", "pydantic-ai")
MAX_DEPTH = 4


# --------------------------------------------------------------------------- schema shape
# (copied from ../realworld/compare.py: a secondary, looser view of a schema difference)


def _resolve(
    schema: Any, root: dict[str, Any], seen: tuple[str, ...]
) -> tuple[Any, tuple[str, ...]]:
    """Follow $ref (local, #/$defs/X or #/definitions/X) and merge its siblings."""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in seen:
            return {"$recursive": ref.rsplit("/", 1)[-1]}, seen
        target: Any = None
        if ref.startswith("#/"):
            target = root
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            return {"$unresolved": ref}, seen
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings}
        seen = (*seen, ref)
    return schema, seen


def shape(schema: Any, root: dict[str, Any], depth: int = 1, seen: tuple[str, ...] = ()) -> Any:
    """The normalized type shape of a (sub)schema."""
    if schema is True or schema == {}:
        return "any"
    if schema is False:
        return "never"
    if not isinstance(schema, dict):
        return {"$invalid": repr(schema)}
    schema, seen = _resolve(schema, root, seen)
    if "$recursive" in schema or "$unresolved" in schema:
        return schema
    # allOf with one member (pydantic's wrapper for a $ref with siblings) is that member
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        rest = {k: v for k, v in schema.items() if k != "allOf"}
        inner, seen = _resolve(all_of[0], root, seen)
        if isinstance(inner, dict):
            schema = {**inner, **rest}
    out: dict[str, Any] = {}
    typ = schema.get("type")
    if isinstance(typ, list):
        out["type"] = sorted(typ)
    elif typ is not None:
        out["type"] = [typ]
    if "enum" in schema:
        out["enum"] = sorted(json.dumps(v, sort_keys=True) for v in schema["enum"])
    if "const" in schema:
        out["const"] = json.dumps(schema["const"], sort_keys=True)
    if depth >= MAX_DEPTH:
        for key in ("items", "prefixItems", "anyOf", "oneOf", "allOf", "properties"):
            if key in schema:
                out[key] = "..."
        return out
    nxt = depth + 1
    items = schema.get("items")
    if isinstance(items, list):
        out["prefixItems"] = [shape(s, root, nxt, seen) for s in items]
    elif items is not None:
        out["items"] = shape(items, root, nxt, seen)
    if isinstance(schema.get("prefixItems"), list):
        out["prefixItems"] = [shape(s, root, nxt, seen) for s in schema["prefixItems"]]
    for key in ("anyOf", "oneOf", "allOf"):
        members = schema.get(key)
        if isinstance(members, list):
            shaped = [shape(s, root, nxt, seen) for s in members]
            out[key] = sorted(shaped, key=lambda s: json.dumps(s, sort_keys=True))
    props = schema.get("properties")
    if isinstance(props, dict):
        out["properties"] = {k: shape(v, root, nxt, seen) for k, v in sorted(props.items())}
        out["required"] = sorted(schema.get("required") or [])
    addl = schema.get("additionalProperties")
    if isinstance(addl, dict) and addl:
        out["additionalProperties"] = shape(addl, root, nxt, seen)
    elif addl is False:
        out["additionalProperties"] = "never"
    return out or "any"


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


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def fetch_wheel(requirement: str, cache: Path) -> Path:
    m = re.fullmatch(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;]+)\s*", requirement)
    if not m:
        raise RuntimeError(f"requirement must be pinned as NAME==VERSION: {requirement!r}")
    prefix = f"{_norm(m.group(1))}-{m.group(2)}-".lower()
    cache.mkdir(parents=True, exist_ok=True)

    def find() -> Path | None:
        for whl in sorted(cache.glob("*.whl")):
            if whl.name.lower().startswith(prefix):
                return whl
        return None

    whl = find()
    if whl is None:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--ignore-requires-python",
            "--only-binary=:all:",
            "--python-version",
            "3.12",
            "--disable-pip-version-check",
            "-q",
            requirement,
            "-d",
            str(cache),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        whl = find()
        if whl is None:
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
            raise RuntimeError(f"pip download {requirement} failed:\n{tail}")
    return whl


def unpack(whl: Path, cache: Path) -> Path:
    dest = cache / "unpacked" / whl.stem
    marker = dest / ".complete"
    if not marker.exists():
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        try:
            with zipfile.ZipFile(whl) as zf:
                zf.extractall(dest)
            marker.write_text("ok\n")
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)  # a half-unpacked wheel only takes room
            raise
    return dest


def toml_list(values: list[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def _link_or_copy(src: str, dst: str) -> None:
    """A hard link to the unpacked wheel's file where the file system allows one (toolgen
    writes only under generated/, so sharing the files is safe), else a copy."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def make_project(entry: dict[str, Any], unpacked: Path) -> Path:
    project = Path(tempfile.mkdtemp(prefix=f"frameworks-{_norm(entry['name'])}-"))
    try:
        for rel in entry["sources"]:
            src, dst = unpacked / rel, project / rel
            if src.is_dir():
                shutil.copytree(
                    src,
                    dst,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
                    copy_function=_link_or_copy,
                )
            elif src.is_file():
                dst.parent.mkdir(parents=True, exist_ok=True)
                _link_or_copy(str(src), str(dst))
            else:
                raise RuntimeError(f"{rel} is not in the wheel")
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
        project = make_project(entry, unpack(fetch_wheel(entry["requirement"], cache), cache))
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


def pct(a: int, b: int) -> str:
    return f"{(100.0 * a / b) if b else 0.0:.1f}%"


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
