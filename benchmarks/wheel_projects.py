"""What the compare scripts share (`realworld/compare.py`, `frameworks/compare.py`): pinned
wheels fetched and unpacked once, a throwaway project made of a wheel's sources (hard links,
so a large wheel costs no space twice), and the looser view of a schema ("its shape") they
report beside exact equality. Each script puts this folder on `sys.path` to import it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

MAX_DEPTH = 4


# --------------------------------------------------------------------------- schema shape
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


# --------------------------------------------------------------------------- wheels


def norm(name: str) -> str:
    """A distribution name as wheel file names spell it."""
    return re.sub(r"[-_.]+", "_", name).lower()


def fetch_wheel(requirement: str, cache: Path, python: str | None = None) -> Path:
    """The pinned wheel of `requirement` in `cache`, downloaded there once (for `python`, a
    version like "3.12", when given)."""
    m = re.fullmatch(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;]+)\s*", requirement)
    if not m:
        raise RuntimeError(f"requirement must be pinned as NAME==VERSION: {requirement!r}")
    prefix = f"{norm(m.group(1))}-{m.group(2)}-"
    cache.mkdir(parents=True, exist_ok=True)

    def find() -> Path | None:
        for whl in sorted(cache.glob("*.whl")):
            if whl.name.lower().startswith(prefix.lower()):
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
            "--disable-pip-version-check",
            "-q",
            *(["--python-version", python] if python else []),
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
    """A hard link to the unpacked wheel's file where the file system allows one: some wheels
    carry hundreds of megabytes that toolgen never writes to, and a copy per run fills a small
    disk. toolgen writes only under generated/, so sharing the files is safe."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def copy_sources(unpacked: Path, project: Path, paths: list[str]) -> None:
    """The wheel's `paths` (folders and files) put into `project`, as hard links where the
    file system allows; a path the wheel does not have is an error."""
    for rel in paths:
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


def pct(a: int, b: int) -> str:
    return f"{(100.0 * a / b) if b else 0.0:.1f}%"
