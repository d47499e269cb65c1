"""`check --against REF` in a hostile checkout (red team): everything in the work tree and in
the history at REF is the pull request's. git is run on the repository toolgen finds (the
nearest `.git` at or above `out`, which no commit can hold), never on one git's own search
would take from a folder a pull request committed; what git prints is read to a cap, as bytes,
and anything that is no descriptor is TG010, never a traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import Project, Run
from test_breaking import RunCLI

HANDLER = '''\
from toolgen import tool


@tool
def search(query: str) -> str:
    """Search the catalog. Use it for product questions.

    Args:
        query: The query.
    """
    raise NotImplementedError
'''


def _git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=root,
        capture_output=True,
        input=stdin,
        check=True,
    )
    return done.stdout.decode()


def _repo(project: Project, run: RunCLI) -> Project:
    project.write("src/tools.py", HANDLER)
    assert run("build", cwd=project.root).code == 0
    _git(project.root, "init", "-q")
    _git(project.root, "add", "-A")
    _git(project.root, "commit", "-qm", "v1")
    return project


def _clean(result: Run) -> None:
    assert "Traceback" not in result.out + result.err, result.out + result.err
    assert "internal error" not in result.out + result.err, result.out + result.err


def test_a_committed_folder_that_looks_like_a_repository_runs_nothing(
    project: Project, run: RunCLI, tmp_path: Path
) -> None:
    """A folder with HEAD, objects/ and refs/ is a repository to git's own search, and its
    `config` is then read: a promisor remote on the `ext::` transport runs a command as soon
    as an object is missing. With `out` inside it, `git` run from `out` took it for the
    repository (`core.worktree` made it one with a work tree)."""
    probe = tmp_path / "ran"
    _repo(project, run)
    evil = project.root / "evil"
    (evil / "objects" / "info").mkdir(parents=True)
    (evil / "objects" / "info" / "keep").write_text("")
    (evil / "refs" / "heads").mkdir(parents=True)
    (evil / "refs" / "heads" / "main").write_text("1" * 40 + "\n")
    (evil / "HEAD").write_text("ref: refs/heads/main\n")
    (evil / "config").write_text(
        "[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tworktree = wt\n"
        "[extensions]\n\tpartialClone = origin\n"
        f'[remote "origin"]\n\tpromisor = true\n\turl = ext::touch {probe}\n'
        '[protocol "ext"]\n\tallow = always\n'
    )
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nout = "evil/wt/generated"\nmin_level = 0\n',
    )
    assert run("build", cwd=project.root).code == 0
    _git(project.root, "add", "-A")
    _git(project.root, "commit", "-qm", "a repository in disguise")
    result = run("check", "--against", "HEAD", cwd=project.root)
    _clean(result)
    assert not probe.exists(), "git ran a command of the checkout's"
    # the real repository was read: the baseline is the tool as committed, unchanged
    assert result.code == 0, result.out


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b'{"name": "search", "title": "\xff"}', "is not UTF-8 text"),
        (b'{"name": "search", "version": ' + b"9" * 5000 + b"}", "is not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "is nested too deeply"),
    ],
)
def test_a_baseline_descriptor_python_cannot_read_is_tg010(
    project: Project, run: RunCLI, content: bytes, why: str
) -> None:
    repo = _repo(project, run)
    (repo.out / "descriptors" / "search.json").write_bytes(content)
    _git(repo.root, "commit", "-qam", "a hostile baseline")
    assert run("build", cwd=repo.root).code == 0
    result = run("check", "--against", "HEAD", cwd=repo.root)
    _clean(result)
    assert result.code == 2, result.out
    assert result.out.startswith(
        f"TG010 [error] baseline descriptor HEAD:generated/descriptors/search.json {why}"
    ), result.out


def test_a_baseline_descriptor_larger_than_the_cap_is_not_read(
    project: Project, run: RunCLI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A blob of zeros packs a thousandfold: a commit of a megabyte can hold a descriptor of
    a gigabyte, which was read whole into memory (and decoded, and parsed)."""
    import toolgen.breaking

    repo = _repo(project, run)
    monkeypatch.setattr(toolgen.breaking, "MAX_BASELINE_BYTES", 1000)
    (repo.out / "descriptors" / "search.json").write_bytes(b" " * 1001 + b"{}")
    _git(repo.root, "commit", "-qam", "a large baseline")
    assert run("build", cwd=repo.root).code == 0
    result = run("check", "--against", "HEAD", cwd=repo.root)
    _clean(result)
    assert result.code == 2, result.out
    assert result.out.startswith(
        "TG010 [error] baseline descriptor HEAD:generated/descriptors/search.json is "
        "larger than 1000 bytes"
    ), result.out


def test_odd_names_in_the_baseline_folder_are_read_as_names(project: Project, run: RunCLI) -> None:
    """`git ls-tree` output split on white space made `a b.json` two names (and `git show` of
    `b.json` failed); a folder or a symlink named `*.json` is no descriptor."""
    repo = _repo(project, run)
    descriptors = repo.out / "descriptors"
    (descriptors / "search.json").rename(descriptors / "a b.json")
    (descriptors / "x.json").mkdir()
    (descriptors / "x.json" / "y").write_text("")
    (descriptors / "l.json").symlink_to("a b.json")
    _git(repo.root, "add", "-A")
    _git(repo.root, "commit", "-qm", "odd names")
    (descriptors / "x.json" / "y").unlink()
    (descriptors / "x.json").rmdir()
    (descriptors / "l.json").unlink()
    (descriptors / "a b.json").rename(descriptors / "search.json")
    assert run("build", cwd=repo.root).code == 0
    result = run("check", "--against", "HEAD", "--verbose", cwd=repo.root)
    _clean(result)
    assert result.code == 0, result.out  # `a b.json` holds `search` as it was


def test_a_ref_is_resolved_once(project: Project, run: RunCLI) -> None:
    """A ref is a commit: a `:` search or a tree is refused, not read as a path."""
    _repo(project, run)
    for ref in ("HEAD:generated", "HEAD^{tree}", "--output=x", "HEAD\nx"):
        result = run("check", f"--against={ref}", cwd=project.root)
        _clean(result)
        assert result.code == 2, (ref, result.out)
        assert result.out.startswith("TG010 [error] --against"), result.out
    assert not (project.root / "x").exists()


def _diamonds(depth: int, leaf: str) -> dict[str, object]:
    """A model whose two fields are the next model, `depth` deep: 2^depth places, one per
    path, for a handful of definitions."""
    defs: dict[str, object] = {
        f"D{i}": {
            "type": "object",
            "properties": {p: {"$ref": f"#/$defs/D{i + 1}"} for p in ("a", "b")},
            "required": ["a", "b"],
        }
        for i in range(depth)
    }
    defs[f"D{depth}"] = {"type": leaf}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs}


def test_a_definition_used_twice_at_each_level_is_compared_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each pair of definitions is descended into once, at the first place it is met: every
    place of a 25-deep diamond was walked (and reported), 2^25 of them."""
    import toolgen.breaking as breaking

    calls = 0
    walk = breaking._walk

    def counted(*args: object) -> None:
        nonlocal calls
        calls += 1
        walk(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(breaking, "_walk", counted)
    found = breaking.schema_changes(_diamonds(25, "string"), _diamonds(25, "integer"), "input")
    assert calls <= 4 * 25 + 10, calls
    # the change is still found, at the first place a caller meets it (and the other one of
    # its own level)
    first = "/properties/x" + "/properties/a" * 25
    assert ("input-type-narrowed", first, "type ['string'] -> ['integer']") in found
    assert len(found) == 2, found


def test_ignore_entries_are_looked_up_not_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """A thousand `breaking_ignore` entries (the most read) against each of many findings."""
    import toolgen.breaking as breaking

    calls = 0
    rule_id = breaking.rule_id

    def counted(name: str) -> str | None:
        nonlocal calls
        calls += 1
        return rule_id(name)

    monkeypatch.setattr(breaking, "rule_id", counted)
    findings = [
        breaking.Finding("input-param-removed", "t", f"/properties/p{i}", "removed")
        for i in range(2000)
    ]
    ignores = [breaking.Ignore("TG954", "t", f"/properties/p{i}", "ok") for i in range(0, 2000, 2)]
    found = breaking.findings_to_diagnostics(findings, {}, {}, ignores, {})
    assert calls <= len(ignores) + len(findings), calls
    shown = [d.message for d in found if d.code == "TG954"]
    assert len(shown) == 1000
    assert all(int(m.split(" /properties/p")[1].split(":")[0]) % 2 == 1 for m in shown)
