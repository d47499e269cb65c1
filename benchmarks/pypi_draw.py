"""What the seeded draws share (`realworld/draw.py`, `frameworks/draw.py`): PyPI's project
pages and their latest release, the pyenv Python of a version, and small text helpers. Each
draw script puts this folder on `sys.path` to import it.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

from packaging.utils import parse_wheel_filename
from packaging.version import InvalidVersion, Version

PYENV = Path.home() / ".pyenv" / "versions"


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def python_for(ver: str) -> Path:
    found = sorted(PYENV.glob(f"{ver}.*/bin/python"))
    if not found:
        raise RuntimeError(f"no pyenv Python {ver}")
    return found[-1]


def tail(text: str, n: int = 3, width: int = 300) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[-n:])[-width:]


def project_page(name: str) -> dict[str, Any]:
    req = urllib.request.Request(
        f"https://pypi.org/simple/{name}/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.load(resp)


def file_version(filename: str) -> Version | None:
    try:
        if filename.endswith(".whl"):
            return parse_wheel_filename(filename)[1]
        m = re.match(r"^(.+?)-([^-]+?)(\.tar\.gz|\.zip|\.tar\.bz2|\.tgz)$", filename)
        return Version(m.group(2)) if m else None
    except (InvalidVersion, ValueError, Exception):
        return None


def latest_release(page: dict[str, Any]) -> tuple[Version | None, list[dict[str, Any]]]:
    by_ver: dict[Version, list[dict[str, Any]]] = {}
    for f in page.get("files", []):
        if f.get("yanked"):
            continue
        v = file_version(f["filename"])
        if v is not None:
            by_ver.setdefault(v, []).append(f)
    if not by_ver:
        return None, []
    finals = [v for v in by_ver if not v.is_prerelease]
    latest = max(finals) if finals else max(by_ver)
    return latest, by_ver[latest]


def toml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def toml_list(xs: list[str]) -> str:
    return "[" + ", ".join(toml_str(x) for x in xs) + "]"
