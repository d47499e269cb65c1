"""How loud toolgen's rules are on code nobody here wrote: diagnostics per tool on real servers.

Builds every entry of a real-world corpus (the shared one, the seeded draw, or both) the way
its compare.py does, but with toolgen's defaults (no `min_level`, and every platform unless
`--platforms mcp`), reads `toolgen build --format json`, and prints per rule code how many
diagnostics it gave at each level, then warnings per tool (notes, level info, are not counted).
Issue 30's bar: at most 0.2 warnings per tool. The last line gives the figure with TG406 aside
too: it is no heuristic but DESIGN §3's "every tool is classified", one warning for each tool
no layer gives a risk, which is every tool of a framework project before its team has set them.
`--examples CODE` prints a few located messages of that code, to judge its false positives by
reading them.

    python benchmarks/lint_corpus.py "$(command -v toolgen)" [--corpus FILE ...] [--examples TG913]
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "realworld"))
sys.path.insert(0, str(HERE))

from realworld.compare import make_project  # type: ignore[import-not-found]  # noqa: E402
from wheel_projects import fetch_wheel, unpack  # noqa: E402

SHARED = HERE.parent.parent / "shared" / "realworld" / "corpus.toml"
DRAW = HERE / "realworld" / "corpus.toml"


def build(
    entry: dict[str, Any], cmd: list[str], cache: Path, platforms: str | None
) -> dict[str, Any]:
    """One entry built: its tool count and its diagnostics (dicts as `--format json` prints)."""
    try:
        unpacked = unpack(fetch_wheel(entry["requirement"], cache), cache)
        project = make_project(entry, unpacked, -1)
    except Exception as exc:
        return {"name": entry["name"], "tools": 0, "diagnostics": [], "failed": str(exc)}
    try:
        config = project / "pyproject.toml"
        text = config.read_text(encoding="utf-8")
        if platforms is None:  # toolgen's default platforms: every one
            text = text.replace('platforms = ["mcp"]\n', "")
        config.write_text(text, encoding="utf-8")
        proc = subprocess.run(
            [*cmd, "build", "--no-cache", "--format", "json", "--verbose", "--config", str(config)],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=600,
        )
        diagnostics = _diagnostics(proc.stdout)
        tools = set()
        for catalog in (project / "generated").rglob("tools.json"):
            if catalog.parent.name == "mcp":
                data = json.loads(catalog.read_text(encoding="utf-8"))
                tools |= {(str(catalog), t["name"]) for t in data.get("tools", [])}
        for d in diagnostics:
            d["path"] = f"{entry['name']}/{d.get('path', '')}"
        return {"name": entry["name"], "tools": len(tools), "diagnostics": diagnostics}
    finally:
        shutil.rmtree(project, ignore_errors=True)


def _diagnostics(text: str) -> list[dict[str, Any]]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return []
    found = value.get("diagnostics") if isinstance(value, dict) else None
    return [d for d in found if isinstance(d, dict)] if isinstance(found, list) else []


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("toolgen_cmd")
    ap.add_argument("--corpus", nargs="+", default=[str(SHARED), str(DRAW)])
    ap.add_argument("--platforms", choices=["mcp"], default=None)
    ap.add_argument("--examples", nargs="*", default=[], metavar="CODE")
    ap.add_argument("--seed", type=int, default=30, help="draws the --examples sample")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "realworld-wheels"))
    args = ap.parse_args(argv)
    cmd = shlex.split(args.toolgen_cmd)
    entries = [
        e for corpus in args.corpus for e in tomllib.loads(Path(corpus).read_text())["server"]
    ]
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda e: build(e, cmd, Path(args.cache), args.platforms), entries))
    tools = sum(r["tools"] for r in results)
    by_code: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[str, list[str]] = defaultdict(list)
    for r in results:
        if r.get("failed"):
            print(f"{r['name']}: setup failed: {r['failed']}", file=sys.stderr)
        for d in r["diagnostics"]:
            by_code[d["code"]][d.get("level", "?")] += 1
            where = f"{d['path']}:{d.get('line', '?')}"
            examples[d["code"]].append(f"  {where}: {d.get('message', '')}")
    print(f"{len(results)} servers, {tools} tools")
    for code in sorted(by_code):
        counts = ", ".join(f"{n} {level}" for level, n in sorted(by_code[code].items()))
        print(f"{code}: {counts}")
    warnings = sum(c.get("warning", 0) for c in by_code.values())
    errors = sum(c.get("error", 0) for c in by_code.values())
    per_tool = warnings / tools if tools else 0.0
    for code in args.examples:
        picked = examples.get(code, [])
        print(f"\n{code}: {len(picked)} (up to 25 drawn with seed {args.seed})")
        for line in sorted(random.Random(args.seed).sample(picked, min(25, len(picked)))):
            print(line)
    unclassified = by_code.get("TG406", Counter()).get("warning", 0)
    aside = (warnings - unclassified) / tools if tools else 0.0
    print(
        f"\nwarnings per tool: {per_tool:.3f} ({warnings} warnings, {errors} errors, {tools} tools)"
        f"; with TG406 aside ({unclassified}): {aside:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
