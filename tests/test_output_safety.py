"""toolgen deletes only what it provably wrote, and writes nothing through a symlink.

Each reproduction of issue 15's first three findings is a test here, run through the real
command line; then a property test throws random trees of generated files, hand-written
files, symlinks and manifest edits in and around `out` at `toolgen.output.write`, and checks
that nothing but toolgen's own unchanged files is ever removed, and nothing outside `out`
changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import Project, tool_source
from toolgen import output, removal
from toolgen.descriptor import NAME_PATTERN
from toolgen.render import FOLDERS, MANIFEST
from toolgen.render.jsonout import dump_json
from toolgen.render.project import manifest_for


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tree(folder: Path) -> dict[str, bytes | str]:
    """Every entry under `folder`, not following symlinks: a file's bytes, a symlink's
    target (as `-> target`), a folder as `/`."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[rel] = f"-> {path.readlink()}"
        elif path.is_dir():
            found[rel] = "/"
        else:
            found[rel] = path.read_bytes()
    return found


@pytest.fixture
def built(project: Project, run) -> Project:  # type: ignore[no-untyped-def]
    project.write("src/tools.py", tool_source())
    project.write("src/more.py", tool_source(name="second"))
    assert run("build", cwd=project.root).code == 0
    return project


def _manifest(project: Project) -> dict[str, object]:
    return json.loads((project.out / MANIFEST).read_text())  # type: ignore[no-any-return]


def _plant(project: Project, entries: dict[str, str]) -> None:
    """Add `entries` to the checked-in manifest, as a pull request could."""
    manifest = _manifest(project)
    manifest["files"] = {**manifest["files"], **entries}  # type: ignore[dict-item]
    (project.out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")


# -- 1. symlinked folders inside `out` ----------------------------------------------------


@pytest.mark.parametrize("folder", ["python", "descriptors", "docs"])
def test_a_symlinked_folder_in_out_is_refused_and_nothing_is_written_through_it(
    built: Project, run, tmp_path: Path, folder: str
) -> None:
    """`generated/python -> /some/dir` once deleted every .py/.json/.md under /some/dir
    and wrote tools.py there. Now: TG011 at the link, exit 2, for build and check alike, and
    neither the folder it points to nor anything in `out` changes."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "a.py").write_text("print('mine')\n")
    (victim / "notes.md").write_text("# mine\n")
    (victim / "sub").mkdir()
    (victim / "sub" / "b.json").write_text("{}\n")
    shutil.rmtree(built.out / folder)
    (built.out / folder).symlink_to(victim)
    built.write("src/third.py", tool_source(name="third"))  # so that a build has work to do
    victim_before, out_before = _tree(victim), _tree(built.out)
    for command in ("build", "check"):
        result = run(command, cwd=built.root)
        assert result.code == 2, result.out
        assert (
            f"generated/{folder}:1:1: TG011 [error] generated/{folder} is a symlinked folder "
            f"(to {victim})"
        ) in result.out
        assert _tree(victim) == victim_before
        assert _tree(built.out) == out_before


def test_the_projects_own_docs_behind_a_symlink_are_not_deleted(built: Project, run) -> None:
    """`generated/docs -> ../docs`: the project's documentation is left as it is."""
    docs = built.write("docs/guide.md", "# Guide\n")
    built.write("docs/tools.md", "# hand-written\n")
    shutil.rmtree(built.out / "docs")
    (built.out / "docs").symlink_to("../docs")
    result = run("build", cwd=built.root)
    assert result.code == 2 and "TG011" in result.out
    assert docs.read_text() == "# Guide\n"
    assert (built.root / "docs" / "tools.md").read_text() == "# hand-written\n"


def test_a_symlink_where_toolgen_writes_a_file_is_refused(built: Project, run) -> None:
    """A symlinked file in place of a generated one: the build writes neither through it
    (its target) nor over it."""
    elsewhere = built.write("notes/tools.json", '{"mine": true}\n')
    (built.out / "mcp" / "tools.json").unlink()
    (built.out / "mcp" / "tools.json").symlink_to(elsewhere)
    result = run("build", cwd=built.root)
    assert result.code == 2
    assert "generated/mcp/tools.json:1:1: TG011 [error] generated/mcp/tools.json is a symlink" in (
        result.out
    )
    assert elsewhere.read_text() == '{"mine": true}\n'
    assert (built.out / "mcp" / "tools.json").is_symlink()


# -- 2. a planted manifest ----------------------------------------------------------------


def test_a_planted_manifest_entry_through_a_symlink_deletes_nothing(built: Project, run) -> None:
    """`generated/up -> ..` with an entry `up/NOTES.txt`: the link itself is refused (TG011),
    and the project's NOTES.txt and pyproject.toml stay."""
    notes = built.write("NOTES.txt", "keep me\n")
    (built.out / "up").symlink_to("..")
    _plant(
        built,
        {
            "up/NOTES.txt": _sha(b"keep me\n"),
            "up/pyproject.toml": _sha((built.root / "pyproject.toml").read_bytes()),
        },
    )
    pyproject = (built.root / "pyproject.toml").read_bytes()
    result = run("build", cwd=built.root)
    assert result.code == 2
    assert "generated/up:1:1: TG011 [error] generated/up is a symlinked folder" in result.out
    assert notes.read_text() == "keep me\n"
    assert (built.root / "pyproject.toml").read_bytes() == pyproject


def test_planted_entries_are_kept_with_the_rule_they_fail(built: Project, run) -> None:
    """Entries for a hand-written file at `out`'s root, for paths out of `out`, and for a
    descriptor-shaped path with a sha256 that is not one: each file stays, and the build
    says which rule it failed (TG009, at the entry's line in the manifest)."""
    readme = built.write("generated/README.txt", "how to use these files\n")
    notes = built.write("NOTES.txt", "keep me\n")
    custom = built.write("generated/descriptors/custom.json", '{"mine": 1}\n')
    _plant(
        built,
        {
            "README.txt": _sha(readme.read_bytes()),
            "../NOTES.txt": _sha(notes.read_bytes()),
            str(notes): _sha(notes.read_bytes()),
            "descriptors/custom.json": "not a sha",
        },
    )
    lines = (built.out / MANIFEST).read_text().splitlines()
    readme_line = next(n for n, line in enumerate(lines, 1) if '"README.txt"' in line)
    result = run("build", cwd=built.root)
    assert result.code == 0, result.out
    assert readme.exists() and notes.exists() and custom.exists()
    assert (
        f"generated/manifest.json:{readme_line}:5: TG009 [warning] kept "
        "generated/README.txt, which the manifest lists: toolgen writes no file by that name "
        "there"
    ) in result.out
    assert "kept ../NOTES.txt, which the manifest lists: its path is not a plain path" in (
        result.out
    )
    assert "kept generated/descriptors/custom.json, which the manifest lists: the manifest's" in (
        result.out
    )
    assert "0 removed" in result.out
    # the new manifest no longer lists them: the next runs are clean and quiet
    assert set(_manifest(built)["files"]) == set(built.snapshot()) - {  # type: ignore[arg-type]
        MANIFEST,
        "README.txt",
        "descriptors/custom.json",
    }
    again = run("check", cwd=built.root)
    assert (again.code, "TG009" in again.out) == (0, False), again.out


def test_a_generated_file_edited_by_hand_is_kept_when_it_is_no_longer_produced(
    built: Project, run
) -> None:
    """Someone's edits are not thrown away with the tool: the stale descriptor they changed
    stays (TG009, in check first, then in the build that drops it from the manifest)."""
    edited = built.out / "descriptors" / "second.json"
    edited.write_text(edited.read_text().replace("catalog", "catalogue (see ticket 42)"))
    (built.root / "src" / "more.py").unlink()
    check = run("check", cwd=built.root)
    assert check.code == 1
    assert "kept generated/descriptors/second.json, which the manifest lists: it was changed " in (
        check.out
    )
    assert "generated/descriptors/second.json: stale" not in check.out
    result = run("build", cwd=built.root)
    assert result.code == 0 and "TG009" in result.out and "0 removed" in result.out
    assert "ticket 42" in edited.read_text()
    assert run("check", cwd=built.root).code == 0


def test_an_unchanged_stale_file_is_removed(built: Project, run) -> None:
    (built.root / "src" / "more.py").unlink()
    check = run("check", cwd=built.root)
    assert "generated/descriptors/second.json: stale" in check.out
    result = run("build", cwd=built.root)
    assert result.code == 0 and "1 removed" in result.out, result.out
    assert not (built.out / "descriptors" / "second.json").exists()


# -- 3. hand-written files in `out`'s folders; `out` overlapping sources --------------------


def test_hand_written_files_in_outs_folders_are_neither_removed_nor_drift(
    built: Project, run
) -> None:
    """`python/__init__.py`, `docs/intro.md`, `descriptors/custom.json` were "4 removed"."""
    mine = {
        "python/__init__.py": "from .tools import *\n",
        "docs/intro.md": "# Our tools\n",
        "descriptors/custom.json": "{}\n",
        "openai/notes.json": "[]\n",
    }
    for relpath, text in mine.items():
        built.write(f"generated/{relpath}", text)
    built.write("src/third.py", tool_source(name="third"))
    result = run("build", cwd=built.root)
    assert result.code == 0 and "0 removed" in result.out, result.out
    for relpath, text in mine.items():
        assert (built.out / relpath).read_text() == text
    assert run("check", cwd=built.root).code == 0
    assert run("check", "--no-cache", cwd=built.root).code == 0


@pytest.mark.parametrize(
    ("sources", "out", "said"),
    [
        ('["tools"]', "tools", "is the source tools"),
        ('["tools"]', "tools/generated", "is inside the source tools"),
        ('["tools/app.py"]', "tools", "holds the source tools/app.py"),
        ('["."]', "generated", "is inside the source ."),
    ],
)
def test_out_overlapping_a_source_is_refused(
    project: Project, run, sources: str, out: str, said: str
) -> None:
    """`out` equal to a source folder once deleted source files (`tools/docs/helpers.py`)."""
    project.write("tools/app.py", tool_source())
    helper = project.write("tools/docs/helpers.py", "X = 1\n")
    project.write(
        "pyproject.toml", f'[tool.toolgen]\nsources = {sources}\nout = "{out}"\nmin_level = 0\n'
    )
    for command in ("build", "check"):
        result = run(command, cwd=project.root)
        assert result.code == 2
        assert f"pyproject.toml:3:1: TG004 [error] out {out} {said}" in result.out
    assert helper.read_text() == "X = 1\n"
    assert not (project.root / "tools" / "descriptors").exists()


def test_out_holding_git_or_the_cache_folder_is_refused(
    project: Project, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.write("src/tools.py", tool_source())
    (project.root / "generated" / ".git").mkdir(parents=True)
    result = run("build", cwd=project.root)
    assert result.code == 2 and "TG004 [error] out generated must not hold a .git folder" in (
        result.out
    )
    shutil.rmtree(project.root / "generated")
    monkeypatch.setenv("TOOLGEN_CACHE_DIR", str(project.root / "generated" / "cache"))
    result = run("build", cwd=project.root)
    assert result.code == 2
    assert "TG004 [error] out generated must not overlap toolgen's cache folder" in result.out


# -- the deletion rule, on random trees -----------------------------------------------------

NAMES = st.sampled_from(["alpha", "beta", "gamma", "delta", "custom", "x"])
PRODUCED_PATHS = st.one_of(
    NAMES.map(lambda n: f"descriptors/{n}.json"),
    st.sampled_from(
        ["mcp/tools.json", "docs/tools.md", "python/tools.py", "openai/responses.json"]
    ),
)
OTHER_PATHS = st.sampled_from(
    [
        "python/__init__.py",
        "docs/intro.md",
        "README.txt",
        "descriptors/sub/x.json",
        "notes/a.json",
        "gemini/extra.json",
    ]
)
#: manifest entries a pull request could plant: out of `out`, absolute, odd
PLANTED = st.sampled_from(
    [
        "../outside/keep.json",
        "up/outside/keep.json",
        "link/x.json",
        "descriptors/../../outside/keep.json",
        "./descriptors/alpha.json",
        "descriptors//alpha.json",
        "",
    ]
)


def _files(names: list[str], version: str) -> dict[str, bytes]:
    files = {p: f"{p} {version}\n".encode() for p in names}
    files[MANIFEST] = dump_json(manifest_for({p: _sha(d) for p, d in sorted(files.items())}))
    return files


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, object]:
    return {
        "old": draw(st.lists(PRODUCED_PATHS, unique=True, max_size=8)),
        "new": draw(st.lists(PRODUCED_PATHS, unique=True, max_size=8)),
        "version": draw(st.sampled_from(["v1", "v2"])),
        "edited": draw(st.lists(PRODUCED_PATHS, unique=True, max_size=3)),
        "hand": draw(st.lists(st.one_of(OTHER_PATHS, PRODUCED_PATHS), unique=True, max_size=4)),
        "planted": draw(
            st.lists(st.one_of(PLANTED, OTHER_PATHS, PRODUCED_PATHS), unique=True, max_size=5)
        ),
        "planted_sha": draw(st.sampled_from(["right", "wrong", "junk"])),
        "links": draw(
            st.lists(
                st.sampled_from(["up", "link", "descriptors", "docs", "mcp/tools.json", "x"]),
                unique=True,
                max_size=2,
            )
        ),
    }


@settings(
    max_examples=int(os.environ.get("TOOLGEN_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=scenarios())
def test_only_toolgens_own_unchanged_files_are_ever_removed(
    tmp_path_factory: pytest.TempPathFactory, case: dict[str, object]
) -> None:
    root = tmp_path_factory.mktemp("tree")
    out, outside = root / "generated", root / "outside"
    outside.mkdir()
    (outside / "keep.json").write_text("outside\n")
    (outside / "x.json").write_text("outside x\n")
    old = _files(list(case["old"]), "old")  # type: ignore[call-overload]
    for relpath, data in old.items():
        (out / relpath).parent.mkdir(parents=True, exist_ok=True)
        (out / relpath).write_bytes(data)
    for relpath in case["edited"]:  # type: ignore[attr-defined]
        if (out / relpath).is_file():
            (out / relpath).write_bytes(b"edited by hand\n")
    for relpath in case["hand"]:  # type: ignore[attr-defined]
        if not (out / relpath).exists():
            (out / relpath).parent.mkdir(parents=True, exist_ok=True)
            (out / relpath).write_bytes(b"hand-written\n")
    manifest = removal.listed(out)
    for relpath in case["planted"]:  # type: ignore[attr-defined]
        target = out / relpath if relpath else out
        right = _sha(target.read_bytes()) if target.is_file() else _sha(b"outside\n")
        manifest[relpath] = {"right": right, "wrong": _sha(b"?"), "junk": 7}[
            case["planted_sha"]  # type: ignore[index]
        ]
    out.mkdir(exist_ok=True)
    (out / MANIFEST).write_text(json.dumps({"files": manifest}))
    for name in case["links"]:  # type: ignore[attr-defined]
        link = out / name
        if link.is_dir():
            shutil.rmtree(link)
        elif link.exists():
            link.unlink()
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(outside if name != "up" else root)
    before, outside_before = _tree(out), _tree(outside)
    new = _files(list(case["new"]), case["version"])  # type: ignore[call-overload]
    with_pyproject = (root / "pyproject.toml").exists()
    try:
        report = output.write(out, new)
    except output.UnsafeOut as exc:
        event("refused: a symlink in out")
        assert _tree(out) == before, "a refused write changed out"
        assert {path for path, _ in exc.links} <= set(case["links"])  # type: ignore[call-overload]
        assert exc.links
    else:
        after = _tree(out)
        for relpath, data in new.items():
            assert after[relpath] == data
        gone = set(before) - set(after)
        for relpath in gone:
            if before[relpath] == "/":
                assert relpath in FOLDERS  # an emptied platform folder
                continue
            # removed: listed, produced, plain, and holding the listed bytes
            assert relpath in manifest and removal.produced(relpath), relpath
            assert _sha(before[relpath]) == manifest[relpath], relpath  # type: ignore[arg-type]
            assert relpath not in new
        assert set(report.removed) == {p for p in gone if before[p] != "/"}
        event(f"removed some: {bool(report.removed)}; kept some: {bool(report.kept)}")
        for relpath, was in before.items():
            if relpath not in new and relpath not in gone:
                assert after[relpath] == was, relpath  # kept as it was
        assert not (out / removal.PENDING).exists()
    assert _tree(outside) == outside_before
    assert (root / "pyproject.toml").exists() == with_pyproject


def test_every_file_a_build_makes_is_one_the_removal_rule_knows(built: Project, run) -> None:
    """`toolgen.render.PRODUCED` names every file any platform writes (here: all four, and
    a descriptor name with a hyphen's shape), and `FOLDERS` every folder they go in: a new
    renderer's file would otherwise never be removed when it goes stale."""
    built.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["src"]\nplatforms = ["openai", "anthropic", "gemini", "mcp"]\n'
        "min_level = 0\n",
    )
    assert run("build", cwd=built.root).code == 0
    made = set(built.snapshot())
    assert len(made) == 10  # 2 descriptors, 5 payloads, 2 documents, the manifest
    assert all(removal.produced(path) for path in made), sorted(made)
    assert {path.split("/")[0] for path in made if "/" in path} == set(FOLDERS)
    # exactly the names a descriptor may have (`toolgen.names.DESCRIPTOR_NAME`): what some
    # platform takes (kebab case, dots, digits first, up to MCP's 128 characters) ...
    for name in ("my-tool", "billing.report", "9lives", "x" * 128):
        assert removal.produced(f"descriptors/{name}.json"), name
        assert re.fullmatch(NAME_PATTERN, name), name
    # ... and nothing a file name should not be (a colon, a leading dot or dash, too long)
    for name in ("ns:tool", ".hidden", "-rf", "x" * 129, "a/b", ""):
        assert not removal.produced(f"descriptors/{name}.json"), name
        assert not re.fullmatch(NAME_PATTERN, name), name
    for odd in ("descriptors/a/b.json", "mcp/tools.json.bak", "docs/intro.md", "x/tools.py"):
        assert not removal.produced(odd)
    # one folder per server in a project of several (`toolgen.compiler.catalog_names`)
    assert removal.produced("admin/mcp/tools.json")
    assert removal.produced("app.server.mcp/descriptors/x.json")
    for odd in ("admin/manifest.json", "a/b/mcp/tools.json", ".x/mcp/tools.json"):
        assert not removal.produced(odd), odd


def test_serve_reads_only_the_listed_descriptors_and_refuses_an_interrupted_build(
    built: Project, run
) -> None:
    """A hand-written file in `descriptors/` is not a descriptor serve must parse; a build
    stopped after its commit may have left files of two builds, which serve does not mix."""
    from toolgen.runtime.catalog import GeneratedFilesError
    from toolgen.runtime.catalog import load as load_catalog

    built.write("generated/descriptors/custom.json", "not JSON at all\n")
    assert [t["name"] for t in load_catalog(built.out).mcp_tools or ()] == ["lookup", "second"]
    pending = built.out / removal.PENDING
    pending.mkdir()
    (pending / "journal.json").write_text('{"toolgen_journal": 1, "moves": [], "removals": []}')
    with pytest.raises(GeneratedFilesError, match=r"the last build of .* was interrupted"):
        load_catalog(built.out)
    assert run("build", cwd=built.root).code == 0
    assert not pending.exists()
    assert len(load_catalog(built.out).mcp_tools or ()) == 2


def test_a_planted_journal_moves_and_removes_nothing_the_rules_forbid(built: Project, run) -> None:
    """`.toolgen-pending/` could be committed, by mistake or on purpose: its journal is read
    as untrusted data. Moves onto paths toolgen does not produce and removals the removal
    rule refuses are not done; what is left is the build's own work."""
    notes = built.write("NOTES.txt", "keep me\n")
    pyproject = (built.root / "pyproject.toml").read_bytes()
    pending = built.out / removal.PENDING
    pending.mkdir()
    (pending / "0").write_text("pwned\n")
    (pending / "1").write_text("pwned\n")
    (pending / "2").write_text("pwned\n")
    journal_text = {
        "toolgen_journal": 1,
        "moves": [["0", "../pyproject.toml"], ["1", "README.txt"], ["../../NOTES.txt", "x.json"]],
        "removals": [["../NOTES.txt", _sha(b"keep me\n")], ["descriptors/lookup.json", "0" * 64]],
    }
    (pending / "journal.json").write_text(json.dumps(journal_text))
    result = run("build", cwd=built.root)
    assert result.code == 0, result.out
    assert (built.root / "pyproject.toml").read_bytes() == pyproject
    assert notes.read_text() == "keep me\n"
    assert not (built.out / "README.txt").exists() and not (built.out / "x.json").exists()
    assert not pending.exists()
    assert run("check", cwd=built.root).code == 0  # lookup.json is as the build makes it


@pytest.mark.parametrize(
    ("journal_text", "said"),
    [
        ("{not json", "is not a journal this version of toolgen wrote"),
        ('{"toolgen_journal": 99, "moves": [], "removals": []}', "is not a journal this"),
    ],
)
def test_a_journal_that_cannot_be_completed_stops_the_build(
    built: Project, run, journal_text: str, said: str
) -> None:
    pending = built.out / removal.PENDING
    pending.mkdir()
    (pending / "journal.json").write_text(journal_text)
    before = built.snapshot()
    check = run("check", cwd=built.root)
    assert check.code == 1 and "the last build of generated was interrupted" in check.out
    result = run("build", cwd=built.root)
    assert result.code == 2
    assert "TG008 [error] cannot write generated/.toolgen-pending/journal.json: " in result.out
    assert said in result.out and "the last build was interrupted" in result.out
    assert built.snapshot() == before


def test_a_pending_folder_holding_anything_else_is_left_alone(built: Project, run) -> None:
    """A staged (uncommitted) folder is discarded, but only its own files: a folder of
    someone's under that name stops the build instead of being emptied."""
    pending = built.out / removal.PENDING
    pending.mkdir()
    (pending / "0").write_text("staged\n")
    mine = built.write(f"generated/{removal.PENDING}/mine.txt", "mine\n")
    assert run("check", cwd=built.root).code == 0  # `out` itself is whole
    built.write("src/third.py", tool_source(name="third"))
    result = run("build", cwd=built.root)
    assert result.code == 2
    assert (
        "TG008 [error] cannot write generated/.toolgen-pending: holds 'mine.txt', which "
        "toolgen did not put there; move it elsewhere; nothing in generated was changed"
    ) in result.out
    assert mine.read_text() == "mine\n"
