"""The pre-commit hooks of `.pre-commit-hooks.yaml`, run by pre-commit itself on a temporary
git repository: `toolgen-check` passes on current generated files and fails, naming the file,
after a handler edit; `toolgen-build` regenerates them.

pre-commit installs the hooks' own virtualenv with pip (toolgen from a copy of this working
tree, its dependencies from the package index, pip's cache kept), once for the whole test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CONFIG, REPO, Project, tool_source

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")

#: what pip needs to install toolgen, and the hooks file pre-commit reads
HOOK_REPO_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "src")


def git(cwd: Path, *args: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def hook_repo(folder: Path, env: dict[str, str]) -> str:
    """This working tree (uncommitted changes too) as a one-commit git repository; its sha."""
    folder.mkdir()
    for name in HOOK_REPO_FILES:
        source = REPO / name
        if source.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
            shutil.copytree(source, folder / name, ignore=ignore)
        else:
            shutil.copy2(source, folder / name)
    git(folder, "init", "-q", env=env)
    git(folder, "add", "-A", env=env)
    git(folder, "commit", "-q", "-m", "toolgen", env=env)
    return git(folder, "rev-parse", "HEAD", env=env)


def test_pre_commit_hooks_check_and_build(tmp_path: Path) -> None:
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[init]\n\tdefaultBranch = main\n")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PRE_COMMIT_COLOR": "never",
        "GIT_CONFIG_GLOBAL": str(gitconfig),  # no user hooks, signing or templates
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }
    rev = hook_repo(tmp_path / "toolgen", env)

    project = Project(tmp_path / "proj")
    project.write("pyproject.toml", CONFIG)
    project.write("src/tools.py", tool_source(name="lookup"))
    project.write("src/more.py", tool_source(name="search"))
    project.write(
        ".pre-commit-config.yaml",
        f"""
        repos:
          - repo: {tmp_path / "toolgen"}
            rev: {rev}
            hooks:
              - id: toolgen-check
              - id: toolgen-build
        """,
    )
    built = subprocess.run(
        [sys.executable, "-m", "toolgen", "build", "-q"], cwd=project.root, check=False
    )
    assert built.returncode == 0
    git(project.root, "init", "-q", env=env)
    git(project.root, "add", "-A", env=env)
    git(project.root, "commit", "-q", "-m", "tools", env=env)

    def hook(hook_id: str, *files: str) -> subprocess.CompletedProcess[str]:
        which = ["--files", *files] if files else ["--all-files"]
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", hook_id, *which],
            cwd=project.root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )

    current = hook("toolgen-check")  # the first run installs the hooks' environment
    assert current.returncode == 0, current.stdout + current.stderr
    assert "toolgen check" in current.stdout and "Passed" in current.stdout

    project.write("src/tools.py", tool_source(name="lookup", params="query: str, limit: int"))
    git(project.root, "add", "-A", env=env)
    drifted = hook("toolgen-check")
    assert drifted.returncode == 1, drifted.stdout + drifted.stderr
    assert "Failed" in drifted.stdout
    assert "generated/descriptors/lookup.json: changed" in drifted.stdout
    assert "generated/descriptors/search.json" not in drifted.stdout
    assert "run `toolgen build`" in drifted.stdout

    rebuilt = hook("toolgen-build")
    # pre-commit fails a hook that changed files, so that the commit is retried with them
    assert rebuilt.returncode == 1, rebuilt.stdout + rebuilt.stderr
    assert "files were modified by this hook" in rebuilt.stdout
    assert "limit" in project.descriptor("lookup")["parameters"]["properties"]
    changed = git(project.root, "diff", "--name-only", env=env).splitlines()
    assert "generated/descriptors/lookup.json" in changed
    assert "generated/descriptors/search.json" not in changed

    git(project.root, "add", "-A", env=env)
    again = hook("toolgen-check")
    assert again.returncode == 0, again.stdout + again.stderr

    # A commit with no Python file in it can still drift: the hooks run on every commit.
    git(project.root, "commit", "-q", "-m", "limit", env=env)
    responses = project.out / "openai" / "responses.json"
    responses.write_text(responses.read_text() + " ")
    edited = hook("toolgen-check", "generated/openai/responses.json")
    assert edited.returncode == 1, edited.stdout + edited.stderr
    assert "generated/openai/responses.json: changed" in edited.stdout
    git(project.root, "checkout", "--", "generated", env=env)
    project.write("pyproject.toml", CONFIG + 'platforms = ["openai"]\n')
    configured = hook("toolgen-check", "pyproject.toml")
    assert configured.returncode == 1, configured.stdout + configured.stderr
    assert "generated/mcp/tools.json: stale" in configured.stdout
