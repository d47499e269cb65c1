#!/usr/bin/env python3
"""A seeded random draw of published packages with LangChain, openai-agents and pydantic-ai
tools (see README.md, "The rule").

    draw.py list   [--from PYPI_TSV]      write candidates-langchain.txt, candidates-agents.txt
    draw.py run    --pool langchain|agents [--target N] [--jobs 2] [--deadline HH:MM]
                                          examine the pool's candidates in the drawn order,
                                          record the accepted ones (oracle/NAME.json), append
                                          each verdict to draw.jsonl
    draw.py render                        write draw.toml and corpus.toml from draw.jsonl

Run it with any Python 3.11+ that has `packaging` (e.g. the project's venv). Scratch space
(wheels, venvs, homes) is under $FWCORPUS_SCRATCH (default /tmp/fwcorpus), never in the
repository, and each candidate's venv is removed once it is examined. `uv` (UV env var or
on PATH) creates and fills the venvs, with its cache in $UV_CACHE_DIR (default
SCRATCH/uvcache). record.py runs in each package's venv, in a network namespace of its own
(`unshare -n`, which needs root).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import urllib.request
import zipfile
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import parse_wheel_filename
from packaging.version import Version

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the draws' shared module

from pypi_draw import (  # noqa: E402
    latest_release,
    normalize,
    project_page,
    python_for,
    tail,
    toml_list,
    toml_str,
)

SEED = 20261129
SCRATCH = Path(os.environ.get("FWCORPUS_SCRATCH", "/tmp/fwcorpus"))
UV_CACHE = os.environ.get("UV_CACHE_DIR", str(SCRATCH / "uvcache"))
PYTHON = "3.12"
UV = os.environ.get("UV") or shutil.which("uv") or "uv"
STATE = HERE / "draw.jsonl"
INSTALL_TIMEOUT = 600
RECORD_TIMEOUT = 300
lock = threading.Lock()

# The pools: which names are candidates, which are left out, what import makes a wheel's code
# a user of the framework, what is installed with it, and which recorded tools count.
POOLS: dict[str, dict[str, Any]] = {
    "langchain": {
        "match": lambda n: "langchain" in n,
        "exclude": {"langchain", "langchain-core", "langchain-community", "langchain-classic"},
        # module whose import makes the code a user: (pattern after `import`/`from`, install)
        "frameworks": {"langchain": (r"langchain\w*", "langchain-core")},
        "counted": ("langchain-class", "langchain-function"),
        "target_counts": ("langchain-class",),
    },
    "agents": {
        "match": lambda n: (
            ("agents" in n or "pydantic-ai" in n or "pydanticai" in n) and "langchain" not in n
        ),
        "exclude": {"openai-agents", "pydantic-ai", "pydantic-ai-slim"},
        "frameworks": {
            "agents": (r"agents\b", "openai-agents"),
            "pydantic_ai": (r"pydantic_ai\b", "pydantic-ai-slim[openai]"),
        },
        "counted": ("openai-agents", "pydantic-ai"),
        "target_counts": ("openai-agents", "pydantic-ai"),
    },
}
MARKER = {
    "langchain-class": "langchain",
    "langchain-function": "langchain",
    "openai-agents": "openai-agents",
    "pydantic-ai": "pydantic-ai",
}
# model providers' keys that frameworks read when an agent or model is built at import
PROVIDER_KEYS = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "GROQ_API_KEY",
    "MISTRAL_API_KEY",
    "COHERE_API_KEY",
    "TAVILY_API_KEY",
]


# --------------------------------------------------------------------------- helpers


def run(
    cmd: list[str], timeout: float, env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[int, str]:
    """Run in a new process group; on time-out kill that group (only what we started)."""
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        code = 124
    with contextlib.suppress(ProcessLookupError):  # children that outlived the command
        os.killpg(proc.pid, signal.SIGKILL)
    return code, out or ""


_tags: set[str] = set()


def py_tags() -> set[str]:
    if not _tags:
        _code, out = run(
            [
                str(python_for(PYTHON)),
                "-c",
                "from pip._vendor.packaging import tags\n"
                "print('\\n'.join(str(t) for t in tags.sys_tags()))",
            ],
            60,
        )
        _tags.update(out.split())
    return _tags


def candidates_file(pool: str) -> Path:
    return HERE / f"candidates-{pool}.txt"


# --------------------------------------------------------------------------- list


def cmd_list(args: argparse.Namespace) -> int:
    src = Path(args.from_)
    names: set[str] = set()
    with src.open(encoding="utf-8") as fh:
        next(fh)  # header
        for line in fh:
            names.add(normalize(line.split("\t", 1)[0].strip()))
    stamp = dt.datetime.fromtimestamp(src.stat().st_mtime, dt.UTC).strftime("%Y-%m-%d")
    for pool, spec in POOLS.items():
        chosen = sorted(n for n in names if spec["match"](n) and n not in spec["exclude"])
        body = "\n".join(chosen) + "\n"
        digest = hashlib.sha256(body.encode()).hexdigest()
        candidates_file(pool).write_text(
            f"# pool {pool}: PyPI project names (PEP 503 normalized) from {src.name} "
            f"(a listing of PyPI's projects dated {stamp}); rule in README.md\n"
            f"# count {len(chosen)}; sha256 of the name lines {digest}\n" + body,
            encoding="utf-8",
        )
        print(f"{candidates_file(pool).name}: {len(chosen)} candidates, sha256 {digest}")
    return 0


def load_candidates(pool: str) -> list[str]:
    names = [
        ln.strip()
        for ln in candidates_file(pool).read_text(encoding="utf-8").splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    order = sorted(names)
    random.Random(f"{SEED}-{pool}").shuffle(order)
    return order


# --------------------------------------------------------------------------- one candidate


def pick_wheel(files: list[dict[str, Any]]) -> dict[str, Any] | None:
    tags = py_tags()
    for f in sorted(files, key=lambda f: f["filename"]):
        if not f["filename"].endswith(".whl"):
            continue
        rp = f.get("requires-python")
        if rp:
            with contextlib.suppress(InvalidSpecifier):
                spec = SpecifierSet(rp)
                if Version(PYTHON + ".0") not in spec and Version(PYTHON + ".99") not in spec:
                    continue
        try:
            wtags = {str(t) for t in parse_wheel_filename(f["filename"])[3]}
        except Exception:
            continue
        if wtags & tags:
            return f
    return None


def wheel_facts(whl: Path, pool: str) -> dict[str, Any]:
    """Top-level packages and modules, the frameworks the code imports, env names it reads."""
    z = zipfile.ZipFile(whl)
    tops: set[str] = set()
    py_text: list[str] = []
    for raw in z.namelist():
        n = raw[2:] if raw.startswith("./") else raw  # a few wheels write "./name"
        first = n.split("/", 1)[0]
        if first.endswith((".dist-info", ".data")):
            continue
        if "/" in n:
            if n.endswith(".py"):
                tops.add(first)
        elif n.endswith(".py") and n != "__init__.py":
            tops.add(n)
        if n.endswith(".py"):
            py_text.append(z.read(raw).decode("utf-8", "replace"))
    text = "\n".join(py_text)
    own = {t.removesuffix(".py") for t in tops}
    imports = {
        mod
        for mod, (pattern, _install) in POOLS[pool]["frameworks"].items()
        if mod not in own and re.search(rf"^\s*(from|import)\s+{pattern}", text, re.M)
    }
    env_names = sorted(
        set(
            re.findall(
                r"""(?:getenv|environ\.get|environ\[|environ\.setdefault|env\.get)\(?\s*["']([A-Z][A-Z0-9_]{2,})["']""",
                text,
            )
        )
    )
    return {"tops": sorted(tops), "imports": sorted(imports), "env_names": env_names}


DUMMY_PAT = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|_PASS$|^PASS|API|URL|URI|ENDPOINT|HOST|DSN|USER|ACCOUNT"
    r"|_ID$|EMAIL|PROJECT|ORG|TENANT|REGION|DOMAIN|WORKSPACE|SERVER|BASE"
)


def dummy_env(names: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for n in [*PROVIDER_KEYS, *names]:
        if not DUMMY_PAT.search(n):
            continue
        if re.search(r"URL|URI|ENDPOINT|DSN|BASE", n):
            env[n] = "http://127.0.0.1:9"
        elif "HOST" in n:
            env[n] = "127.0.0.1"
        elif "EMAIL" in n:
            env[n] = "dummy@example.com"
        elif "REGION" in n:
            env[n] = "us-east-1"
        else:
            env[n] = "dummy"
    env.setdefault("AWS_REGION", "us-east-1")
    return env


def examine(pool: str, pos: int, name: str) -> dict[str, Any]:
    """One candidate's verdict. Its scratch folder (wheel, venv, home) is removed afterwards,
    whatever the verdict: the oracle is what is kept, and venvs soon fill the disk."""
    work = SCRATCH / "c" / name
    try:
        return _examine(pool, pos, name, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _examine(pool: str, pos: int, name: str, work: Path) -> dict[str, Any]:
    res: dict[str, Any] = {
        "pool": pool,
        "pos": pos,
        "name": name,
        "examined": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }

    def reject(reason: str, detail: str = "") -> dict[str, Any]:
        return res | {"verdict": "rejected", "reason": reason, "detail": detail}

    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        page = project_page(name)
    except Exception as exc:
        return reject("no project page", str(exc)[:200])
    latest, files = latest_release(page)
    if latest is None:
        return reject("no release files")
    res["version"] = str(latest)
    wf = pick_wheel(files)
    if wf is None:
        return reject(
            f"no wheel of the latest release for CPython {PYTHON}",
            f"files: {', '.join(f['filename'] for f in files)[:200]}",
        )
    whl = work / wf["filename"]
    try:
        with urllib.request.urlopen(wf["url"], timeout=300) as resp, whl.open("wb") as fh:
            shutil.copyfileobj(resp, fh)
        facts = wheel_facts(whl, pool)
    except Exception as exc:
        return reject("wheel download or unpacking fails", str(exc)[:200])
    if not facts["imports"]:
        want = " or ".join(POOLS[pool]["frameworks"])
        return reject(f"its code does not import {want}")
    venv = work / "venv"
    env = dict(os.environ, UV_CACHE_DIR=UV_CACHE)
    code, out = run([UV, "venv", "-q", "-p", str(python_for(PYTHON)), str(venv)], 120, env=env)
    frameworks = [POOLS[pool]["frameworks"][m][1] for m in facts["imports"]]
    if code == 0:
        code, out = run(
            [UV, "pip", "install", "-q", "-p", str(venv / "bin" / "python"), str(whl), *frameworks],
            INSTALL_TIMEOUT,
            env=env,
        )
    if code != 0:
        return reject(f"install fails on Python {PYTHON}", tail(out))
    home = work / "home"
    home.mkdir()
    dummies = dummy_env(facts["env_names"])
    renv = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "TMPDIR": str(home),
    } | dummies
    oracle_tmp = work / "record.json"
    code, out = run(
        [
            "unshare",
            "-n",
            "sh",
            "-c",
            'ip link set lo up && exec "$@"',
            "sh",
            str(venv / "bin" / "python"),
            str(HERE / "record.py"),
            "--out",
            str(oracle_tmp),
            "--package",
            name,
            *facts["tops"],
        ],
        RECORD_TIMEOUT,
        env=renv,
        cwd=home,
    )
    if code == 124:
        return reject("recording times out", tail(out))
    if not oracle_tmp.exists():
        return reject("recorder fails", tail(out))
    rec = json.loads(oracle_tmp.read_text(encoding="utf-8"))
    counts: dict[str, int] = {}
    for t in rec["tools"]:
        counts[t["framework"]] = counts.get(t["framework"], 0) + 1
    res |= {
        "counts": counts,
        "unbuilt": len(rec["unbuilt"]),
        "modules_imported": rec["modules"]["imported"],
        "modules_failed": len(rec["modules"]["failed"]),
        "recorded_with": rec["versions"],
    }
    counted = sum(counts.get(f, 0) for f in POOLS[pool]["counted"])
    if counted == 0:
        detail = f"{rec['modules']['imported']} modules imported"
        if rec["modules"]["failed"]:
            first = rec["modules"]["failed"][0]
            detail += (
                f", {len(rec['modules']['failed'])} failed (first: {first['module']}: "
                f"{first['error'][:120]})"
            )
        if rec["unbuilt"]:
            detail += f"; {len(rec['unbuilt'])} tool classes need arguments"
        if rec["errors"]:
            detail += "; " + "; ".join(rec["errors"])[:200]
        if rec["unbuilt"] and pool == "langchain":
            return reject("no LangChain tool built without arguments", detail)
        return reject("the framework finds no tool", detail)
    rec["requirement"] = f"{name}=={latest}"
    rec["wheel"] = wf["filename"]
    (HERE / "oracle").mkdir(exist_ok=True)
    (HERE / "oracle" / f"{name}.json").write_text(
        json.dumps(rec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    markers = sorted({MARKER[f] for f in counts})
    return res | {
        "verdict": "accepted",
        "reason": "",
        "tools": sum(counts.values()),
        "requirement": f"{name}=={latest}",
        "sources": facts["tops"],
        "markers": markers,
        "python": PYTHON,
        "env": dummies,
        "wheel": wf["filename"],
    }


# --------------------------------------------------------------------------- run / render


def load_state() -> dict[tuple[str, str], dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    if STATE.exists():
        for line in STATE.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                out[rec["pool"], rec["name"]] = rec
    return out


def cmd_run(args: argparse.Namespace) -> int:
    pool = args.pool
    order = load_candidates(pool)
    state = load_state()
    deadline = None
    if args.deadline:
        hh, mm = map(int, args.deadline.split(":"))
        now = dt.datetime.now(dt.UTC)
        deadline = now.replace(hour=hh, minute=mm, second=0, microsecond=0)

    def counted_prefix() -> int:
        """Tools that count toward the target, in the longest examined prefix."""
        k = 0
        for nm in order:
            rec = state.get((pool, nm))
            if rec is None:
                break
            if rec["verdict"] == "accepted":
                k += sum(rec["counts"].get(f, 0) for f in POOLS[pool]["target_counts"])
        return k

    def save(rec: dict[str, Any]) -> None:
        with lock:
            state[pool, rec["name"]] = rec
            with STATE.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
        print(
            f"#{rec['pos']} {rec['name']} {rec.get('version', '')}: {rec['verdict']}"
            f" {rec.get('reason', '')} {rec.get('counts', '')} "
            f"(counted so far {counted_prefix()})",
            flush=True,
        )

    todo = iter([(i + 1, nm) for i, nm in enumerate(order) if (pool, nm) not in state])
    with ThreadPoolExecutor(args.jobs) as ex:
        running: set[Any] = set()
        while True:
            stop = counted_prefix() >= args.target or (
                deadline is not None and dt.datetime.now(dt.UTC) >= deadline
            )
            while not stop and len(running) < args.jobs:
                nxt = next(todo, None)
                if nxt is None:
                    stop = True
                    break
                running.add(ex.submit(examine, pool, *nxt))
            if not running:
                break
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                try:
                    save(fut.result())
                except Exception as exc:  # a bug in this script, not a verdict
                    print(f"error: {exc!r}", file=sys.stderr, flush=True)
    print(f"counted tools in the examined prefix: {counted_prefix()}")
    return 0


def toml_table(d: dict[str, Any]) -> str:
    if not d:
        return "{}"
    return "{ " + ", ".join(f"{toml_str(k)} = {json.dumps(v)}" for k, v in d.items()) + " }"


def cmd_render(args: argparse.Namespace) -> int:
    state = load_state()
    lines = ["# Every candidate examined, per pool in the drawn order (draw.py; README.md).", ""]
    corpus = [
        "# The frameworks corpus (README.md, draw.py): one [[package]] per accepted candidate.",
        "# compare.py reads name, requirement, sources, markers; oracle/NAME.json holds what",
        "# the frameworks publish. sources = every top-level package and module of the wheel;",
        "# markers = the frameworks whose tools were recorded; env = the dummy variables the",
        "# recording ran with; counts = recorded tools per framework.",
        "",
    ]
    total_tools = 0
    accepted = 0
    for pool in POOLS:
        order = load_candidates(pool)
        head = candidates_file(pool).read_text(encoding="utf-8").splitlines()[:2]
        recs = sorted((r for (p, _n), r in state.items() if p == pool), key=lambda r: r["pos"])
        acc = [r for r in recs if r["verdict"] == "accepted"]
        lines += [
            f"# pool {pool}: candidates {len(order)} ({head[1].lstrip('# ')}); seed {SEED}-{pool}",
            f"# examined {len(recs)}, accepted {len(acc)}",
            "",
        ]
        for r in recs:
            lines += [
                "[[candidate]]",
                f"pool = {toml_str(pool)}",
                f"pos = {r['pos']}",
                f"name = {toml_str(r['name'])}",
            ]
            if r.get("version"):
                lines.append(f"version = {toml_str(r['version'])}")
            lines.append(f"verdict = {toml_str(r['verdict'])}")
            if r["verdict"] == "accepted":
                lines.append(f"counts = {toml_table(r['counts'])}")
            else:
                lines.append(f"reason = {toml_str(r['reason'])}")
                if r.get("detail"):
                    lines.append(f"detail = {toml_str(r['detail'])}")
            if r.get("unbuilt"):
                lines.append(f"unbuilt = {r['unbuilt']}")
            lines += [f"examined = {toml_str(r['examined'])}", ""]
        for r in acc:
            corpus += [
                "[[package]]",
                f"name = {toml_str(r['name'])}",
                f"requirement = {toml_str(r['requirement'])}",
                f"pool = {toml_str(pool)}",
                f"sources = {toml_list(r['sources'])}",
                f"markers = {toml_list(r['markers'])}",
                f"counts = {toml_table(r['counts'])}",
                f"unbuilt = {r.get('unbuilt', 0)}",
                f"draw_pos = {r['pos']}",
                f"python = {toml_str(r['python'])}",
                f"recorded_with = {toml_table(r['recorded_with'])}",
                f"env = {toml_table(r['env'])}",
                "",
            ]
            total_tools += r["tools"]
        accepted += len(acc)
    (HERE / "draw.toml").write_text("\n".join(lines), encoding="utf-8")
    (HERE / "corpus.toml").write_text("\n".join(corpus), encoding="utf-8")
    print(f"corpus.toml: {accepted} packages, {total_tools} tools")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("list")
    p.add_argument("--from", dest="from_", default="/work/.library/env/packages/pypi.tsv")
    p = sub.add_parser("run")
    p.add_argument("--pool", choices=sorted(POOLS), required=True)
    p.add_argument("--target", type=int, default=100, help="counted tools to stop at")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--deadline", default=None, help="UTC HH:MM: start no candidate after it")
    sub.add_parser("render")
    args = ap.parse_args(argv)
    return {"list": cmd_list, "run": cmd_run, "render": cmd_render}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
