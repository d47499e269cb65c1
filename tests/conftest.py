from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from toolgen.entry import main

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@dataclass
class Project:
    root: Path

    def write(self, relpath: str, text: str) -> Path:
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    @property
    def out(self) -> Path:
        return self.root / "generated"

    def descriptor(self, name: str) -> dict[str, Any]:
        return json.loads((self.out / "descriptors" / f"{name}.json").read_text())

    def generated(self, relpath: str) -> Any:
        return json.loads((self.out / relpath).read_text())

    def snapshot(self) -> dict[str, bytes]:
        """Every file under generated/, to prove a failing run touched nothing."""
        if not self.out.exists():
            return {}
        return {
            p.relative_to(self.out).as_posix(): p.read_bytes()
            for p in self.out.rglob("*")
            if p.is_file()
        }


def cold_snapshot(project: Project, run: Callable[..., Run]) -> dict[str, bytes]:
    """What a build without any cache, in a copy of the project, writes (`Project.snapshot`)."""
    copy = Project(project.root.parent / "cold")
    shutil.rmtree(copy.root, ignore_errors=True)
    shutil.copytree(project.root, copy.root, ignore=shutil.ignore_patterns(".toolgen_cache"))
    shutil.rmtree(copy.out, ignore_errors=True)
    assert run("build", "--no-cache", cwd=copy.root).code == 0
    return copy.snapshot()


CONFIG = """
[tool.toolgen]
sources = ["src"]
out = "generated"
min_level = 0
"""


@pytest.fixture(autouse=True)
def _cache_secret_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep the cache's per-user secret (`toolgen.incremental.cache.secret`) in a folder of
    the test session's, not in the home folder of whoever runs the tests (a patch of its
    own: a test's `monkeypatch.undo()` keeps it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
        yield


@pytest.fixture
def project(tmp_path: Path) -> Project:
    proj = Project(tmp_path / "proj")
    proj.write("pyproject.toml", CONFIG)
    return proj


@dataclass
class Process:
    """`toolgen ARGV` run as a process of its own, with the modules it imported."""

    code: int
    out: str
    imported: set[str]


def toolgen_process(cwd: Path, *argv: str) -> Process:
    child = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "toolgen", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        timeout=120,
        check=False,
    )
    lines = child.stderr.splitlines()
    imported = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    others = "\n".join(line for line in lines if not line.startswith("import time:"))
    return Process(child.returncode, child.stdout + others, imported)


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    def _run(*args: str, cwd: Path) -> Run:
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return _run


def tool_source(
    name: str = "lookup",
    params: str = "query: str",
    args_doc: str | None = None,
    extra_doc: str = "",
    imports: str = "",
    returns: str = "str",
    decorator: str = '@tool(risk="medium")',
) -> str:
    """A small valid handler module, with the parts a test wants to vary (classified, as
    every tool must be: TG406)."""
    if args_doc is None:
        args_doc = "\n".join(
            f"        {p.split(':')[0].strip()}: The {p.split(':')[0].strip()}."
            for p in params.split(",")
            if p.strip()
        )
    args_section = f"\n    Args:\n{args_doc}\n" if args_doc else ""
    # Python compiles a module only with its `from __future__` imports first (else TG101):
    # moved to the top, they leave the lines below them where they were
    lines = imports.split("\n")
    future = "".join(f"{line}\n" for line in lines if line.startswith("from __future__ "))
    imports = "\n".join(line for line in lines if not line.startswith("from __future__ "))
    return (
        f"{future}from toolgen import tool\n"
        f"{imports}\n\n"
        f"{decorator}\n"
        f"def {name}({params}) -> {returns}:\n"
        f'    """Look something up in the catalog. Use it for product questions.\n'
        f"{args_section}"
        f"{extra_doc}"
        '    """\n'
        "    raise NotImplementedError\n"
    )
