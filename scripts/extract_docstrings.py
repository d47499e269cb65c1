"""Extract real docstrings from the real-world corpus' wheels for the griffe agreement test.

    python scripts/extract_docstrings.py ../shared/realworld/corpus.toml

Downloads each pinned wheel of the corpus (`pip download --no-deps`, as `compare.py` does),
reads every function's docstring statically (no import) and writes
`tests/fixtures/docstrings/realworld.json`: per package, its requirement, its license (from the
wheel's metadata) and its docstrings, each with the file and function it comes from. Kept: every
docstring of a function decorated as a tool (what a framework publishes), and the first
`--others` (default 20) other docstrings of the package that griffe or toolgen reads sections in;
duplicates once. Packages under a copyleft license (GPL, AGPL, LGPL), or whose metadata names
no license, are left out, since their text cannot be copied into this MIT-licensed repository:
the script says which.

`tests/test_griffe_agreement.py` reads the file, so the test needs neither the network nor the
corpus; run this again to refresh it when the corpus changes.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from toolgen.analyze import griffe_docs  # noqa: E402
from toolgen.analyze.docstrings import parse_docstring  # noqa: E402

OUT = REPO / "tests" / "fixtures" / "docstrings" / "realworld.json"
COPYLEFT = ("GPL", "AGPL", "LGPL")


def wheel(requirement: str, folder: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--ignore-requires-python",
            "--only-binary",
            ":all:",
            "-q",
            "-d",
            str(folder),
            requirement,
        ],
        check=True,
    )
    name = requirement.split("==")[0].replace("-", "_").replace(".", "_").lower()
    found = [w for w in folder.glob("*.whl") if w.name.lower().startswith(name + "-")]
    return found[0]


def license_of(archive: zipfile.ZipFile) -> str:
    metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    text = archive.read(metadata).decode("utf-8", "replace")
    headers = text.split("\n\n", 1)[0].splitlines()
    for key in ("License-Expression:", "License:"):
        for line in headers:
            if line.startswith(key) and line[len(key) :].strip():
                return line[len(key) :].strip()
    for line in headers:
        if line.startswith("Classifier: License ::"):
            return line.rsplit("::", 1)[1].strip()
    files = [n for n in archive.namelist() if "/licenses/" in n or n.endswith("LICENSE")]
    if files:
        first = archive.read(files[0]).decode("utf-8", "replace").strip().splitlines()
        return first[0].strip() if first else "unknown"
    return "unknown"


def structured(node: ast.FunctionDef | ast.AsyncFunctionDef, text: str) -> bool:
    sections = (
        s for style in ("google", "numpy", "sphinx") for s in griffe_docs.parse(text, style)
    )
    if any(s.kind != "text" for s in sections):
        return True
    doc = parse_docstring(node)
    return bool(doc and (doc.params or doc.sections))


def docstrings(archive: zipfile.ZipFile, others: int) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    rest: list[dict[str, Any]] = []
    seen: set[str] = set()
    for path in sorted(n for n in archive.namelist() if n.endswith(".py")):
        try:
            tree = ast.parse(archive.read(path))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            text = ast.get_docstring(node, clean=False)
            if not text or text in seen or not structured(node, text):
                continue
            seen.add(text)
            entry = {"path": path, "function": node.name, "line": node.lineno, "text": text}
            decorated = any("tool" in ast.unparse(d) for d in node.decorator_list)
            (tools if decorated else rest).append(entry)
    rest.sort(key=lambda e: (e["path"], e["line"]))
    return sorted(tools + rest[:others], key=lambda e: (e["path"], e["line"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="the real-world corpus.toml")
    parser.add_argument("--others", type=int, default=20)
    args = parser.parse_args()
    entries = tomllib.loads(args.corpus.read_text(encoding="utf-8"))["server"]
    packages: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for entry in entries:
            with zipfile.ZipFile(wheel(entry["requirement"], Path(tmp))) as archive:
                license_ = license_of(archive)
                if license_ == "unknown" or any(word in license_ for word in COPYLEFT):
                    print(f"left out {entry['requirement']}: {license_}")
                    continue
                found = docstrings(archive, args.others)
            packages.append(
                {"requirement": entry["requirement"], "license": license_, "docstrings": found}
            )
            print(f"{entry['requirement']} ({license_}): {len(found)} docstrings")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(packages, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(REPO)}: {sum(len(p['docstrings']) for p in packages)} docstrings")


if __name__ == "__main__":
    main()
