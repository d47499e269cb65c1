#!/usr/bin/env python3
"""A seeded random draw of published Python MCP servers from PyPI (see README.md, "The rule").

    draw.py list   [--from PYPI_TSV]       write candidates.txt (names containing "mcp")
    draw.py run    [--target 40] [--jobs 2] [--deadline HH:MM]
                                           examine candidates in the drawn order, record the
                                           usable ones (oracle/NAME.json), append to draw.jsonl
    draw.py render                         write draw.toml and corpus.toml from draw.jsonl

Run it with the recording client's Python (the official `mcp` client and `packaging`
installed, e.g. /tmp/corpus/client/bin/python). Scratch space (venvs, homes, logs) is under
$CORPUS_SCRATCH (default /tmp/corpus), never in the repository. `uv` (UV env var or on PATH)
creates and fills the servers' venvs; `pip download` fetches the wheels.
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

SEED = 20261128
SCRATCH = Path(os.environ.get("CORPUS_SCRATCH", "/tmp/corpus"))
PYTHONS = ["3.12", "3.13", "3.11", "3.10"]  # order of preference
UV = os.environ.get("UV") or shutil.which("uv") or "uv"
CANDIDATES = HERE / "candidates.txt"
STATE = HERE / "draw.jsonl"
FRAMEWORKS = ("mcp", "fastmcp")  # an installed one of these makes it a (Python) MCP server
LAUNCH_ARGS = [[], ["--transport", "stdio"]]
SCREEN_TIMEOUT = 25.0
RECORD_TIMEOUT = 60.0
MAX_LAUNCHERS = 2
lock = threading.Lock()


# --------------------------------------------------------------------------- helpers


def run(
    cmd: list[str], timeout: float, env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[int, str]:
    """Run in a new process group; on time-out kill that group (only what we started)."""
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
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
    with contextlib.suppress(ProcessLookupError):  # a server that outlived its client
        os.killpg(proc.pid, signal.SIGKILL)
    return code, out or ""


_tags: dict[str, set[str]] = {}


def tags_of(ver: str) -> set[str]:
    if ver not in _tags:
        _code, out = run(
            [
                str(python_for(ver)),
                "-c",
                "from pip._vendor.packaging import tags\n"
                "print('\\n'.join(str(t) for t in tags.sys_tags()))",
            ],
            60,
        )
        _tags[ver] = set(out.split())
    return _tags[ver]


def pip_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PIP_CONFIG_FILE"] = os.devnull  # PyPI only: no local indexes, links or constraints
    for k in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT"):
        env.pop(k, None)
    return env


# --------------------------------------------------------------------------- list


def cmd_list(args: argparse.Namespace) -> int:
    src = Path(args.from_)
    names: set[str] = set()
    with src.open(encoding="utf-8") as fh:
        next(fh)  # header
        for line in fh:
            name = line.split("\t", 1)[0].strip()
            if "mcp" in normalize(name):
                names.add(normalize(name))
    ordered = sorted(names)
    body = "\n".join(ordered) + "\n"
    digest = hashlib.sha256(body.encode()).hexdigest()
    stamp = dt.datetime.fromtimestamp(src.stat().st_mtime, dt.UTC).strftime("%Y-%m-%d")
    CANDIDATES.write_text(
        f"# PyPI project names (PEP 503 normalized) containing 'mcp', from {src.name} "
        f"(a listing of PyPI's projects dated {stamp})\n"
        f"# count {len(ordered)}; sha256 of the name lines {digest}\n" + body,
        encoding="utf-8",
    )
    print(f"{CANDIDATES}: {len(ordered)} candidates, sha256 {digest}")
    return 0


def load_candidates() -> list[str]:
    names = [
        ln.strip()
        for ln in CANDIDATES.read_text(encoding="utf-8").splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    order = sorted(names)
    random.Random(SEED).shuffle(order)
    return order


# --------------------------------------------------------------------------- one candidate


def pick_wheel(files: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    for ver in PYTHONS:
        pyv = Version(ver + ".99")
        tags = tags_of(ver)
        for f in files:
            if not f["filename"].endswith(".whl"):
                continue
            rp = f.get("requires-python")
            if rp:
                try:
                    if pyv not in SpecifierSet(rp) and Version(ver + ".0") not in SpecifierSet(rp):
                        continue
                except InvalidSpecifier:
                    pass
            try:
                wtags = {str(t) for t in parse_wheel_filename(f["filename"])[3]}
            except Exception:
                continue
            if wtags & tags:
                return ver, f
    return None


def wheel_facts(whl: Path) -> dict[str, Any]:
    z = zipfile.ZipFile(whl)
    tops: set[str] = set()
    mains: list[str] = []
    guarded: list[str] = []
    scripts: list[str] = []
    py_text: list[str] = []
    for raw in z.namelist():
        n = raw[2:] if raw.startswith("./") else raw  # a few wheels write "./name"
        first = n.split("/", 1)[0]
        if first.endswith((".dist-info", ".data")):
            if n.endswith(".dist-info/entry_points.txt"):
                section = None
                for line in z.read(raw).decode("utf-8", "replace").splitlines():
                    line = line.strip()
                    if line.startswith("["):
                        section = line.strip("[]").strip()
                    elif section == "console_scripts" and "=" in line:
                        scripts.append(line.split("=", 1)[0].strip())
            continue
        if "/" in n:
            if n.endswith((".py", ".pyi")):
                tops.add(first)
            if re.fullmatch(r"[^/]+/__main__\.py", n):
                mains.append(first)
        elif n.endswith(".py") and n != "__init__.py":
            tops.add(n)
        if n.endswith(".py"):
            src = z.read(raw).decode("utf-8", "replace")
            py_text.append(src)
            if (
                re.search(r"^if\s+__name__\s*==\s*['\"]__main__['\"]", src, re.M)
                and (
                    re.search(r"^\s*(from|import)\s+(mcp|fastmcp)\b", src, re.M)
                    or "tools/list" in src
                )
                and not n.endswith("/__main__.py")
            ):
                mod = n[:-3].replace("/", ".")
                guarded.append(mod[: -len(".__init__")] if mod.endswith(".__init__") else mod)
    text = "\n".join(py_text)
    imports = {fw for fw in FRAMEWORKS if re.search(rf"^\s*(from|import)\s+{fw}\b", text, re.M)}
    env_names = sorted(
        set(
            re.findall(
                r"""(?:getenv|environ\.get|environ\[|environ\.setdefault|env\.get)\(?\s*["']([A-Z][A-Z0-9_]{2,})["']""",
                text,
            )
        )
    )
    guarded.sort(key=lambda m: (m.count("."), m))
    return {
        "tops": sorted(tops),
        "mains": sorted(set(mains)),
        "guarded": guarded,
        "tools_list": "tools/list" in text,
        "scripts": scripts,
        "imports": imports,
        "env_names": env_names,
    }


DUMMY_PAT = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|_PASS$|^PASS|API|URL|URI|ENDPOINT|HOST|DSN|USER|ACCOUNT"
    r"|_ID$|EMAIL|PROJECT|ORG|TENANT|REGION|DOMAIN|WORKSPACE|SERVER|BASE"
)


def dummy_env(names: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for n in names:
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


def launchers(name: str, facts: dict[str, Any]) -> list[list[str]]:
    scripts = facts["scripts"]
    exact = [s for s in scripts if normalize(s) == name]
    mcpish = sorted(s for s in scripts if s not in exact and re.search(r"mcp|server", s, re.I))
    rest = sorted(s for s in scripts if s not in exact and s not in mcpish)
    out = [[s] for s in exact + mcpish + rest]
    out += [["-m", m] for m in facts["mains"]]
    out += [["-m", m] for m in facts["guarded"]]
    return out[:MAX_LAUNCHERS]


def record_cmd(
    venv: Path,
    out: Path,
    log: Path,
    env: dict[str, str],
    launch: list[str],
    repeat: int,
    timeout: float,
    home: Path,
) -> list[str]:
    cmd = [
        "unshare",
        "-n",
        "sh",
        "-c",
        'ip link set lo up && exec "$@"',
        "sh",
        sys.executable,
        str(HERE / "record.py"),
        "--python",
        str(venv / "bin" / "python"),
        "--out",
        str(out),
        "--log",
        str(log),
        "--timeout",
        str(timeout),
        "--repeat",
        str(repeat),
        "--cwd",
        str(home),
    ]
    for k, v in env.items():
        cmd += ["--env", f"{k}={v}"]
    return [*cmd, "--", *launch]


IMPORT_FAIL = re.compile(r"ImportError|ModuleNotFoundError|cannot import name|AttributeError: ")
TRACEBACK = "Traceback (most recent call last)"


SUBCOMMANDS = ["stdio", "serve", "server", "mcp", "run", "start"]


def usage_words(logs: str) -> list[str]:
    """Subcommands or positional choices that a failing run's usage text offers (at most 2)."""
    offered: set[str] = set()
    for group in re.findall(r"\{([a-z0-9_,-]+)\}", logs):
        offered.update(group.split(","))
    for group in re.findall(r"choose from ([^)]*)\)", logs):
        offered.update(re.findall(r"'([^']+)'", group))
    for block in re.findall(r"Commands:\s*\n((?:[ \t│|]+.*\n?)+)", logs):
        offered.update(re.findall(r"^[ \t│|]+([a-z][a-z0-9_-]*)", block, re.M))
    for block in re.findall(r"Commands ─*╮\n((?:│.*\n?)+)", logs):
        offered.update(re.findall(r"^│\s+([a-z][a-z0-9_-]*)", block, re.M))
    return [w for w in SUBCOMMANDS if w in offered][:2]


def classify(logs: str, timed_out: bool) -> str:
    low = logs.lower()
    if IMPORT_FAIL.search(logs):
        return "fails on its dependencies' API (today's and as of its release date)"
    if re.search(
        r"failed to resolve|name resolution|name or service not known|getaddrinfo"
        r"|connection refused|connecterror|connection error|all connection attempts"
        r"|network is unreachable|errno 101|errno 111|errno -3",
        low,
    ):
        return "needs the network or a live service at start"
    if re.search(
        r"api[_ -]?key|credential|secret|password|unauthori[sz]ed|\btoken\b"
        r"|environment variable|env var|not set|must be set|is required|missing",
        low,
    ):
        return "needs credentials or configuration a dummy value does not satisfy"
    if re.search(
        r"usage:|error: argument|unrecognized arguments|required: |missing argument"
        r"|no such option|got unexpected extra argument",
        low,
    ):
        return "needs launch arguments"
    if timed_out:
        return "no tools/list answer over stdio in time"
    return "exits or fails without answering tools/list over stdio"


def examine(pos: int, name: str) -> dict[str, Any]:
    """One candidate's verdict. Its venv is removed afterwards, whatever the verdict: the
    oracle and the logs are what is kept, and venvs would soon fill the scratch disk."""
    try:
        return _examine(pos, name)
    finally:
        shutil.rmtree(SCRATCH / "c" / name / "venv", ignore_errors=True)


def _examine(pos: int, name: str) -> dict[str, Any]:
    res: dict[str, Any] = {
        "pos": pos,
        "name": name,
        "examined": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    work = SCRATCH / "c" / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        page = project_page(name)
    except Exception as exc:
        return res | {"verdict": "rejected", "reason": "no project page", "detail": str(exc)[:200]}
    latest, files = latest_release(page)
    if latest is None:
        return res | {"verdict": "rejected", "reason": "no release files", "detail": ""}
    res["version"] = str(latest)
    pick = pick_wheel(files)
    if pick is None:
        sorted({f["filename"].rsplit(".", 1)[-1] for f in files})
        return res | {
            "verdict": "rejected",
            "reason": "no wheel of the latest release for CPython 3.10-3.13",
            "detail": f"files: {', '.join(f['filename'] for f in files)[:200]}",
        }
    pyver, wf = pick
    res["python"] = pyver
    dl = work / "wheel"
    code, out = run(
        [
            str(python_for("3.12")),
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            pyver,
            "-d",
            str(dl),
            f"{name}=={latest}",
        ],
        300,
        env=pip_env(),
    )
    whls = sorted(dl.glob("*.whl"))
    if code != 0 or not whls:
        return res | {"verdict": "rejected", "reason": "wheel download fails", "detail": tail(out)}
    whl = whls[0]
    facts = wheel_facts(whl)
    venv = work / "venv"
    env = dict(os.environ, UV_CACHE_DIR=str(SCRATCH / "uvcache"))
    # resolution 1: today's dependencies; 2 (only when 1 fails at import): the dependencies
    # as they were one day after the wheel's upload (uv --exclude-newer)
    uploaded = wf.get("upload-time", "")
    cutoff = ""
    if uploaded:
        t = dt.datetime.fromisoformat(uploaded.replace("Z", "+00:00")) + dt.timedelta(days=1)
        cutoff = t.strftime("%Y-%m-%dT%H:%M:%SZ")
    found: tuple[list[str], dict[str, str]] | None = None
    n = 0
    logs_text = ""
    timed_out = False
    for resolution in ["", cutoff]:
        if resolution == cutoff and (not cutoff or TRACEBACK not in logs_text):
            break
        shutil.rmtree(venv, ignore_errors=True)
        code, out = run([UV, "venv", "-q", "-p", str(python_for(pyver)), str(venv)], 120, env=env)
        if code == 0:
            code, out = run(
                [UV, "pip", "install", "-q", "-p", str(venv / "bin" / "python"), str(whl)]
                + (["--exclude-newer", resolution] if resolution else []),
                900,
                env=env,
            )
        if code != 0:
            shutil.rmtree(venv, ignore_errors=True)
            if resolution:
                break  # keep the first resolution's verdict
            return res | {
                "verdict": "rejected",
                "reason": f"install fails on Python {pyver}",
                "detail": tail(out),
            }
        code, out = run(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import importlib.metadata as m, json\n"
                "v = {}\n"
                "for d in ('mcp', 'fastmcp', 'pydantic'):\n"
                "    try: v[d] = m.version(d)\n"
                "    except m.PackageNotFoundError: pass\n"
                "print(json.dumps(v))",
            ],
            60,
        )
        try:
            versions = json.loads(out.strip().splitlines()[-1])
        except Exception:
            versions = {}
        if not any(fw in versions for fw in FRAMEWORKS) and not facts["tools_list"]:
            shutil.rmtree(venv, ignore_errors=True)
            return res | {
                "verdict": "rejected",
                "reason": "not a Python MCP server (no mcp/fastmcp installed with it, "
                "no 'tools/list' in its code)",
                "detail": "",
            }
        res["recorded_with"] = ", ".join(f"{k} {v}" for k, v in versions.items())
        res["exclude_newer"] = resolution
        launch_list = launchers(name, facts)
        if not launch_list:
            shutil.rmtree(venv, ignore_errors=True)
            return res | {
                "verdict": "rejected",
                "reason": "nothing to launch (no console script, no __main__)",
                "detail": "",
            }
        home = work / "home"
        dummies = dummy_env(facts["env_names"])
        env_variants: list[dict[str, str]] = [{}]
        if dummies:
            env_variants.append(dummies)
        logs_text = ""
        timed_out = False
        # round 1: no env, then the dummies named in the code; round 2 (only if round 1
        # fails): also dummies for the variables that the failing runs' stderr names;
        # round 3: the subcommands/choices among SUBCOMMANDS that a usage text offers
        rounds: list[Any] = ["code", "stderr-env", "usage-args"]
        all_envs = list(env_variants)
        for rnd in rounds:
            arg_variants = LAUNCH_ARGS
            envs = env_variants
            if rnd == "stderr-env":
                named = {
                    v
                    for v in re.findall(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b", logs_text)
                    if DUMMY_PAT.search(v) and v not in dummies and len(v) <= 60
                }
                if not named:
                    continue
                envs = [dummies | dummy_env(sorted(named))]
                all_envs += envs
            elif rnd == "usage-args":
                words = usage_words(logs_text)
                if not words:
                    continue
                arg_variants = [[w] for w in words]
                envs = all_envs
            for launch in launch_list:
                for extra in arg_variants:
                    for envv in envs:
                        n += 1
                        shutil.rmtree(home, ignore_errors=True)
                        home.mkdir()
                        e = {"HOME": str(home)} | envv
                        log = work / f"try{n}.log"
                        code, out = run(
                            record_cmd(
                                venv,
                                work / "try.json",
                                log,
                                e,
                                launch + extra,
                                1,
                                SCREEN_TIMEOUT,
                                home,
                            ),
                            SCREEN_TIMEOUT + 30,
                        )
                        logtxt = log.read_text("utf-8", "replace") if log.exists() else ""
                        logs_text += logtxt + "\n" + out
                        if code == 0:
                            found = (launch + extra, e)
                            break
                        if "no tools/list answer within" in out or code == 124:
                            timed_out = True
                    if found:
                        break
                if found:
                    break
            if found:
                break
        if found:
            break
    if not found:
        shutil.rmtree(venv, ignore_errors=True)
        return res | {
            "verdict": "rejected",
            "reason": classify(logs_text, timed_out),
            "detail": tail(logs_text),
            "attempts": n,
        }
    launch, e = found
    ntools = len(json.loads((work / "try.json").read_text()))
    if ntools == 0:
        shutil.rmtree(venv, ignore_errors=True)
        return res | {"verdict": "rejected", "reason": "zero tools", "detail": "", "launch": launch}
    oracle = HERE / "oracle" / f"{name}.json"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir()
    log = work / "record.log"
    code, out = run(
        record_cmd(venv, oracle, log, e, launch, 2, RECORD_TIMEOUT, home), 2 * RECORD_TIMEOUT + 60
    )
    if code != 0:
        oracle.unlink(missing_ok=True)
        reason = (
            "tool list changes between runs"
            if code == 3
            else "listing fails on the recording run (--repeat 2)"
        )
        return res | {
            "verdict": "rejected",
            "reason": reason,
            "detail": tail(out),
            "launch": launch,
        }
    tools = json.loads(oracle.read_text())
    markers = [fw for fw in ("fastmcp", "mcp") if fw in facts["imports"]] or ["fastmcp", "mcp"]
    return res | {
        "verdict": "accepted",
        "reason": "",
        "tools": len(tools),
        "requirement": f"{name}=={latest}",
        "copy": facts["tops"],
        "sources": facts["tops"],
        "markers": markers,
        "launch": launch,
        "env": e,
        "wheel": whl.name,
        "home": str(work / "home"),
    }


# --------------------------------------------------------------------------- run / render


def load_state() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if STATE.exists():
        for line in STATE.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                out[rec["name"]] = rec
    return out


def cmd_run(args: argparse.Namespace) -> int:
    order = load_candidates()
    state = load_state()
    deadline = None
    if args.deadline:
        hh, mm = map(int, args.deadline.split(":"))
        now = dt.datetime.now(dt.UTC)
        deadline = now.replace(hour=hh, minute=mm, second=0, microsecond=0)

    def accepted_prefix() -> int:
        # accepted among the longest examined prefix of the drawn order
        k = 0
        for nm in order:
            if nm not in state:
                break
            k += state[nm]["verdict"] == "accepted"
        return k

    def save(rec: dict[str, Any]) -> None:
        with lock:
            state[rec["name"]] = rec
            with STATE.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
        print(
            f"#{rec['pos']} {rec['name']} {rec.get('version', '')}: {rec['verdict']}"
            f" {rec.get('reason', '')} {rec.get('tools', '')}",
            flush=True,
        )

    todo = iter([(i + 1, nm) for i, nm in enumerate(order) if nm not in state])
    with ThreadPoolExecutor(args.jobs) as pool:
        running = set()
        while True:
            stop = accepted_prefix() >= args.target or (
                deadline is not None and dt.datetime.now(dt.UTC) >= deadline
            )
            while not stop and len(running) < args.jobs:
                nxt = next(todo, None)
                if nxt is None:
                    stop = True
                    break
                running.add(pool.submit(examine, *nxt))
            if not running:
                break
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                try:
                    save(fut.result())
                except Exception as exc:  # a bug in this script, not a verdict
                    print(f"error: {exc!r}", file=sys.stderr, flush=True)
    print(f"accepted in the examined prefix: {accepted_prefix()}")
    return 0


def toml_table(d: dict[str, str]) -> str:
    return "{ " + ", ".join(f"{k} = {toml_str(v)}" for k, v in d.items()) + " }" if d else "{}"


def cmd_render(args: argparse.Namespace) -> int:
    order = load_candidates()
    state = load_state()
    recs = sorted(state.values(), key=lambda r: r["pos"])
    head = CANDIDATES.read_text(encoding="utf-8").splitlines()[:2]
    lines = [
        "# Every candidate examined, in the drawn order (draw.py run; rule in README.md).",
        f"# candidates: {len(order)} ({head[1].lstrip('# ')}); seed {SEED}",
        f"# examined {len(recs)}, accepted {sum(r['verdict'] == 'accepted' for r in recs)}",
        "",
    ]
    for r in recs:
        lines.append("[[candidate]]")
        lines.append(f"pos = {r['pos']}")
        lines.append(f"name = {toml_str(r['name'])}")
        if r.get("version"):
            lines.append(f"version = {toml_str(r['version'])}")
        lines.append(f"verdict = {toml_str(r['verdict'])}")
        if r["verdict"] == "accepted":
            lines.append(f"tools = {r['tools']}")
        else:
            lines.append(f"reason = {toml_str(r['reason'])}")
            if r.get("detail"):
                lines.append(f"detail = {toml_str(r['detail'])}")
        lines.append(f"examined = {toml_str(r['examined'])}")
        lines.append("")
    (HERE / "draw.toml").write_text("\n".join(lines), encoding="utf-8")
    acc = [r for r in recs if r["verdict"] == "accepted"]
    out = [
        "# Real-world corpus: a seeded random draw of Python MCP servers from PyPI",
        "# (README.md, draw.py). Fields as in the shared corpus: compare.py reads name,",
        "# requirement, copy, sources, markers, skip_params; the rest says how the oracle",
        "# (oracle/NAME.json) was recorded. copy = sources = every top-level package and module",
        "# of the wheel; markers = the frameworks its code imports (both when it imports neither).",
        "",
    ]
    for r in acc:
        env = {k: v.replace(str(SCRATCH), "$SCRATCH") for k, v in r["env"].items()}
        out += [
            "[[server]]",
            f"name = {toml_str(r['name'])}",
            f"requirement = {toml_str(r['requirement'])}",
            f"copy = {toml_list(r['copy'])}",
            f"sources = {toml_list(r['sources'])}",
            f"markers = {toml_list(r['markers'])}",
            "skip_params = []",
            f"tools = {r['tools']}",
            f"draw_pos = {r['pos']}",
            f"python = {toml_str(r['python'])}",
            f"launch = {toml_list(r['launch'])}",
            f"env = {toml_table(env)}",
            f"recorded_with = {toml_str(r['recorded_with'])}",
        ]
        if r.get("exclude_newer"):
            out.append(f"exclude_newer = {toml_str(r['exclude_newer'])}")
        out.append("")
    (HERE / "corpus.toml").write_text("\n".join(out), encoding="utf-8")
    print(
        f"draw.toml: {len(recs)} examined; corpus.toml: {len(acc)} servers, "
        f"{sum(r['tools'] for r in acc)} tools"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("list")
    p.add_argument("--from", dest="from_", default="/work/.library/env/packages/pypi.tsv")
    p = sub.add_parser("run")
    p.add_argument("--target", type=int, default=40)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--deadline", default=None, help="UTC HH:MM: start no candidate after it")
    sub.add_parser("render")
    args = ap.parse_args(argv)
    return {"list": cmd_list, "run": cmd_run, "render": cmd_render}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
