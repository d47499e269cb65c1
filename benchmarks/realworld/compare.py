#!/usr/bin/env python3
"""Measure how faithfully a static schema tool reproduces what real MCP servers publish.

    python3 compare.py TOOLGEN_CMD [--verbose] [--only NAME ...] [--min-level 0]

For each [[server]] of corpus.toml: download the pinned wheel (pip download --no-deps, cached
under the system temp dir), unpack it, copy its `copy` paths into a fresh temporary project,
write a pyproject.toml with a [tool.toolgen] table (sources, out = "generated", markers,
skip_params, min_level, platforms = ["mcp"]), run `TOOLGEN_CMD build --config pyproject.toml`
in it, read generated/mcp/tools.json and compare it tool by tool with oracle/NAME.json, the
tools/list recorded from the live server (record.py):

  (a) tool names: found by both, only in the oracle, only in toolgen's output;
  (b) for each tool found by both: the property names, the required set and a normalized type
      shape per property ($ref resolved against $defs; type, enum, const, items, prefixItems,
      anyOf/oneOf/allOf members, properties, required and schema-valued additionalProperties,
      recursively to depth 4; titles, descriptions, defaults, formats and key order ignored);
      a tool matches when all three agree;
  (c) separately, equality of the tool description and of each common property description
      (reported, not part of the match).

One line per server:
    NAME: M/N schemas match, K/T tools extracted, descriptions D/N, exit CODE
where N is the number of tools found by both, M of them match, K tools of the oracle's T were
extracted (K = N), D of the N have equal descriptions, CODE is toolgen's exit code.
The last line: realworld fidelity X% (M/N), extracted K of T tools, descriptions Y%.
It always exits 0: it is a measurement, not a test.

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

# --------------------------------------------------------------------------- schema shape


def tool_view(tool: dict[str, Any]) -> dict[str, Any]:
    schema = tool.get("inputSchema") or {}
    props = schema.get("properties") or {}
    return {
        "properties": sorted(props),
        "required": sorted(schema.get("required") or []),
        "shapes": {name: shape(sub, schema) for name, sub in sorted(props.items())},
    }


def descriptions(tool: dict[str, Any]) -> dict[str, Any]:
    schema = tool.get("inputSchema") or {}
    props = schema.get("properties") or {}
    return {
        "description": (tool.get("description") or "").strip(),
        "properties": {
            name: (sub.get("description") or "").strip() if isinstance(sub, dict) else ""
            for name, sub in props.items()
        },
    }


# --------------------------------------------------------------------------- comparison


@dataclass
class Result:
    name: str
    total: int = 0  # T: tools in the oracle
    both: list[str] = field(default_factory=list)
    only_oracle: list[str] = field(default_factory=list)
    only_toolgen: list[str] = field(default_factory=list)
    matched: int = 0
    desc_equal: int = 0
    exit_code: int | None = None
    mismatches: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    desc_mismatches: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    note: str = ""
    error_examples: list[str] = field(default_factory=list)


def _fit(wanted: set[str], tools: list[dict[str, Any]]) -> tuple[int, int]:
    """How well a catalog fits the oracle's names: how many it holds, then how few others."""
    names = {t.get("name") for t in tools}
    return len(wanted & names), -len(names - wanted)


def compare_tools(
    name: str, oracle: list[dict[str, Any]], produced: list[dict[str, Any]]
) -> Result:
    res = Result(name=name, total=len(oracle))
    by_o = {t["name"]: t for t in oracle}
    by_g: dict[str, dict[str, Any]] = {}
    for t in produced:
        if isinstance(t, dict) and isinstance(t.get("name"), str):
            by_g.setdefault(t["name"], t)
    res.both = sorted(set(by_o) & set(by_g))
    res.only_oracle = sorted(set(by_o) - set(by_g))
    res.only_toolgen = sorted(set(by_g) - set(by_o))
    for tname in res.both:
        vo, vg = tool_view(by_o[tname]), tool_view(by_g[tname])
        if vo == vg:
            res.matched += 1
        else:
            res.mismatches.append((tname, *_diff(vg, vo)))
        do, dg = descriptions(by_o[tname]), descriptions(by_g[tname])
        common = set(do["properties"]) & set(dg["properties"])
        same = do["description"] == dg["description"] and all(
            do["properties"][p] == dg["properties"][p] for p in common
        )
        if same:
            res.desc_equal += 1
        else:
            dd_g: dict[str, Any] = {}
            dd_o: dict[str, Any] = {}
            if do["description"] != dg["description"]:
                dd_g["description"], dd_o["description"] = _excerpts(
                    dg["description"], do["description"]
                )
            for p in sorted(common):
                if do["properties"][p] != dg["properties"][p]:
                    eg, eo = _excerpts(dg["properties"][p], do["properties"][p])
                    dd_g.setdefault("properties", {})[p] = eg
                    dd_o.setdefault("properties", {})[p] = eo
            res.desc_mismatches.append((tname, dd_g, dd_o))
    return res


def _excerpts(a: str, b: str, width: int = 80) -> tuple[str, str]:
    """The two texts from a little before their first difference ("@N:" gives its offset)."""
    if len(a) + len(b) <= 2 * width:
        return a, b
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    start = max(0, i - 20)

    def cut(t: str) -> str:
        piece = t[start : start + width]
        return f"@{start}:" + piece + ("..." if start + width < len(t) else "")

    return cut(a), cut(b)


def _diff(vg: dict[str, Any], vo: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Only the parts that differ, toolgen's first."""
    g: dict[str, Any] = {}
    o: dict[str, Any] = {}
    for key in ("properties", "required"):
        if vg[key] != vo[key]:
            g[key], o[key] = vg[key], vo[key]
    for prop in sorted(set(vg["shapes"]) & set(vo["shapes"])):
        if vg["shapes"][prop] != vo["shapes"][prop]:
            g.setdefault("shapes", {})[prop] = vg["shapes"][prop]
            o.setdefault("shapes", {})[prop] = vo["shapes"][prop]
    return g, o


# --------------------------------------------------------------------------- wheels, projects


def console_scripts(unpacked: Path) -> str:
    """The wheel's console scripts as the `[project.scripts]` its project declares (the
    functions a script calls, where a server is often built)."""
    import configparser

    scripts: dict[str, str] = {}
    for listing in sorted(unpacked.glob("*.dist-info/entry_points.txt")):
        parser = configparser.ConfigParser(interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]
        try:
            parser.read_string(listing.read_text(encoding="utf-8"))
        except (configparser.Error, UnicodeDecodeError):
            continue
        if parser.has_section("console_scripts"):
            scripts.update(parser.items("console_scripts"))
    if not scripts:
        return ""
    lines = "".join(f"{json.dumps(k)} = {json.dumps(v)}\n" for k, v in sorted(scripts.items()))
    return "\n[project.scripts]\n" + lines


def served_env(entry: dict[str, Any]) -> str:
    """`env = {...}`: the variables the server was recorded with, as its user would tell
    toolgen (HOME and the recorder's scratch paths are the recorder's, not the server's)."""
    env = {k: v for k, v in entry.get("env", {}).items() if k != "HOME" and "$SCRATCH" not in v}
    if not env:
        return ""
    pairs = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in sorted(env.items()))
    return f"env = {{{pairs}}}\n"


def make_project(entry: dict[str, Any], unpacked: Path, min_level: int) -> Path:
    project = Path(tempfile.mkdtemp(prefix=f"realworld-{norm(entry['name'])}-"))
    try:
        _fill_project(project, entry, unpacked, min_level)
    except BaseException:
        shutil.rmtree(project, ignore_errors=True)
        raise
    return project


def _fill_project(project: Path, entry: dict[str, Any], unpacked: Path, min_level: int) -> None:
    copy_sources(unpacked, project, entry["copy"])
    (project / "pyproject.toml").write_text(
        "[project]\n"
        f"name = {json.dumps('realworld-' + entry['name'])}\n"
        'version = "0"\n' + console_scripts(unpacked) + "\n"
        "[tool.toolgen]\n"
        f"sources = {toml_list(entry['sources'])}\n"
        'out = "generated"\n'
        'platforms = ["mcp"]\n'
        f"markers = {toml_list(entry.get('markers', ['fastmcp', 'mcp']))}\n"
        f"skip_params = {toml_list(entry.get('skip_params', []))}\n"
        + (f"min_level = {min_level}\n" if min_level >= 0 else "")
        + served_env(entry)
        + entry.get("config", ""),  # last: it may open tables of its own
        encoding="utf-8",
    )


def run_entry(
    entry: dict[str, Any],
    cmd: list[str],
    cache: Path,
    min_level: int,
    keep: bool,
    timeout: float,
    oracle_dir: Path = HERE / "oracle",
) -> Result:
    name = entry["name"]
    oracle = json.loads((oracle_dir / f"{name}.json").read_text(encoding="utf-8"))
    try:
        unpacked = unpack(fetch_wheel(entry["requirement"], cache), cache)
        project = make_project(entry, unpacked, min_level)
    except Exception as exc:  # download or copy failed: nothing to compare
        res = compare_tools(name, oracle, [])
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
            code: int = proc.returncode
            stderr, stdout = proc.stderr, proc.stdout
        except subprocess.TimeoutExpired as exc:
            code = 124
            stderr = (
                (exc.stderr or b"").decode()
                if isinstance(exc.stderr, bytes)
                else (exc.stderr or "")
            )
            stdout = ""
            stderr += f"\n(toolgen build timed out after {timeout:.0f} s)"
        except OSError as exc:
            code, stderr, stdout = 127, f"cannot run {cmd[0]}: {exc}", ""
        # one catalog (generated/mcp/tools.json), or one per server object somewhere under
        # generated/: the catalog that holds most of the oracle's tools is compared (of two
        # that hold as many, the one with fewer tools the oracle does not list)
        produced: list[dict[str, Any]] = []
        wanted = {t["name"] for t in oracle}
        gen = project / "generated"
        for out in sorted(gen.rglob("tools.json")) if gen.exists() else []:
            if out.parent.name != "mcp":
                continue
            try:
                data = json.loads(out.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                stderr += f"\n({out.relative_to(project)} is not JSON: {exc})"
                continue
            tools = data.get("tools", []) if isinstance(data, dict) else []
            if _fit(wanted, tools) > _fit(wanted, produced):
                produced = tools
        res = compare_tools(name, oracle, produced)
        res.exit_code = code
        if code != 0:
            lines = (stderr.strip() or stdout.strip()).splitlines()[-5:]
            res.note = "\n".join("  | " + line for line in lines)
            errors: dict[str, list[str]] = {}
            for line in (stderr + "\n" + stdout).splitlines():
                m = re.search(r"\b(TG\d+) \[error\]", line)
                if m:
                    errors.setdefault(m.group(1), []).append(line.strip())
            if errors:
                res.note += "\n  errors: " + ", ".join(
                    f"{c} x{len(v)}" for c, v in sorted(errors.items(), key=lambda kv: -len(kv[1]))
                )
                res.error_examples = [v[0] for _, v in sorted(errors.items())]
        if keep:
            res.note += ("\n" if res.note else "") + f"  project kept at {project}"
        return res
    finally:
        if not keep:
            shutil.rmtree(project, ignore_errors=True)


# --------------------------------------------------------------------------- main


def _compact(obj: Any, limit: int = 2000) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + f"...(+{len(text) - limit} chars)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Compare toolgen's MCP output with the schemas real servers publish."
    )
    ap.add_argument(
        "toolgen_cmd",
        metavar="TOOLGEN_CMD",
        help='the toolgen command, e.g. "toolgen" or "/venv/bin/python -m toolgen"',
    )
    ap.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="print each mismatch (toolgen line, then server line) and missing tools",
    )
    ap.add_argument(
        "--descriptions",
        action="store_true",
        help="with --verbose, print description differences too",
    )
    ap.add_argument(
        "--only", nargs="+", metavar="NAME", default=None, help="only these corpus entries"
    )
    ap.add_argument(
        "--min-level",
        type=int,
        default=0,
        help="[tool.toolgen] min_level (default 0); -1 writes no min_level, so toolgen's own "
        "default applies",
    )
    ap.add_argument("--corpus", default=str(HERE / "corpus.toml"), help="the corpus file")
    ap.add_argument(
        "--cache",
        default=str(Path(tempfile.gettempdir()) / "realworld-wheels"),
        help="where downloaded wheels are kept (default: TMPDIR/realworld-wheels)",
    )
    ap.add_argument("--keep", action="store_true", help="keep the temporary projects")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per toolgen build")
    args = ap.parse_args(argv)

    cmd = shlex.split(args.toolgen_cmd)
    with open(args.corpus, "rb") as fh:
        entries = tomllib.load(fh)["server"]
    if args.only:
        wanted = set(args.only)
        unknown = wanted - {e["name"] for e in entries}
        if unknown:
            print(f"unknown corpus entries: {', '.join(sorted(unknown))}", file=sys.stderr)
        entries = [e for e in entries if e["name"] in wanted]

    cache = Path(args.cache)
    sum_m = sum_n = sum_t = sum_d = sum_extra = 0
    for entry in entries:
        res = run_entry(
            entry,
            cmd,
            cache,
            args.min_level,
            args.keep,
            args.timeout,
            Path(args.corpus).resolve().parent / "oracle",
        )
        n = len(res.both)
        exit_code = res.exit_code if res.exit_code is not None else "-"
        print(
            f"{res.name}: {res.matched}/{n} schemas match, {n}/{res.total} tools extracted, "
            f"descriptions {res.desc_equal}/{n}, exit {exit_code}",
            flush=True,
        )
        if res.note:
            print(res.note)
        if args.verbose:
            for line in res.error_examples:
                code = line.split(" ", 2)[1] if line.count(" ") >= 2 else "error"
                print(f"  first {code}: {line[:300]}")
            if res.only_oracle:
                print(f"  only in server ({len(res.only_oracle)}): {', '.join(res.only_oracle)}")
            if res.only_toolgen:
                print(f"  only in toolgen ({len(res.only_toolgen)}): {', '.join(res.only_toolgen)}")
            for tname, g, o in res.mismatches:
                print(f"  mismatch {tname}")
                print(f"    toolgen {_compact(g)}")
                print(f"    server  {_compact(o)}")
            if args.descriptions:
                for tname, g, o in res.desc_mismatches:
                    print(f"  description {tname}")
                    print(f"    toolgen {_compact(g, 600)}")
                    print(f"    server  {_compact(o, 600)}")
        sum_m += res.matched
        sum_n += n
        sum_t += res.total
        sum_d += res.desc_equal
        sum_extra += len(res.only_toolgen)
    print(
        f"tools only in toolgen: {sum_extra}; schemas matching of all server tools: "
        f"{pct(sum_m, sum_t)} ({sum_m}/{sum_t})"
    )
    print(
        f"realworld fidelity {pct(sum_m, sum_n)} ({sum_m}/{sum_n}), extracted {sum_n} of {sum_t} "
        f"tools, descriptions {pct(sum_d, sum_n)}"
    )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        os._exit(0)
