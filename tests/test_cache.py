"""The cache folder: the no-op stamp and the unit cache give the same answers as a cold run,
and notice every change that matters (sources, models they use, new modules, generated files)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, Project
from toolgen import output
from toolgen.config import load_config
from toolgen.descriptor import ToolDescriptor
from toolgen.incremental import cache, stamp
from toolgen.incremental import units as unit_cache
from toolgen.incremental.cache import FOLDER, ours, store_entry
from toolgen.incremental.units import UnitCache
from toolgen.pipeline import generate

MODELS = '''
from pydantic import BaseModel


class Page(BaseModel):
    """A page of results."""

    size: int = 10
'''

HANDLERS = '''
from toolgen import tool
from .models import Page


@tool
def search(query: str, page: Page) -> list[str]:
    """Search the catalog.

    Args:
        query: Words to look for.
        page: Which page.
    """
    return []


@tool
def count(query: str) -> int:
    """Count matches.

    Args:
        query: Words to look for.
    """
    return 0
'''


@pytest.fixture
def shop(project: Project) -> Project:
    project.write("src/shop/__init__.py", "")
    project.write("src/shop/models.py", MODELS)
    project.write("src/shop/tools.py", HANDLERS)
    project.write("src/shop/other.py", HANDLERS.replace("search", "find").replace("count", "n"))
    return project


def _units(project: Project) -> tuple[list[dict[str, Any]], UnitCache]:
    config = load_config(None, cwd=project.root)
    cache = UnitCache(project.root / ".toolgen_cache", "test-key")
    result = generate(config, cache)
    return [d.to_json_dict() for d in result.descriptors], cache


def test_unit_cache_gives_what_a_cold_compile_gives(shop: Project) -> None:
    cold, first = _units(shop)
    assert first.hits == 0
    warm, second = _units(shop)
    assert warm == cold
    assert second.hits == 4  # __init__, models, tools, other


def test_editing_a_model_recompiles_the_handlers_that_use_it(shop: Project) -> None:
    _units(shop)
    shop.write("src/shop/models.py", MODELS.replace("size: int = 10", "size: int = 25"))
    descriptors, cache = _units(shop)
    pages = [
        d["parameters"]["$defs"]["Page"] for d in descriptors if d["name"] in ("search", "find")
    ]  # type: ignore[index]
    assert [p["properties"]["size"]["default"] for p in pages] == [25, 25]
    assert cache.hits == 1  # only __init__.py: models changed, both handler files use it


def test_a_new_module_that_shadows_a_name_is_noticed(shop: Project) -> None:
    """`from pages import Page` is found in the second search root (the project root); a
    `pages.py` created in the first one (src/) shadows it. The unit cache remembers the paths it
    looked for and did not find, so it notices."""
    shop.write("src/shop/tools.py", HANDLERS.replace(".models", "pages"))
    shop.write("pages.py", MODELS)
    first, _ = _units(shop)
    shop.write("src/pages.py", MODELS.replace("size: int = 10", "size: int = 3"))
    second, cache = _units(shop)

    def size(descriptors: list[dict[str, Any]]) -> object:
        search = next(d for d in descriptors if d["name"] == "search")
        return search["parameters"]["$defs"]["Page"]["properties"]["size"]["default"]

    assert (size(first), size(second)) == (10, 3)
    assert cache.hits == 3  # __init__, models and other.py did not look for `pages`
    cold = generate(load_config(None, cwd=shop.root)).descriptors
    assert second == [d.to_json_dict() for d in cold]


def test_descriptors_survive_the_json_round_trip() -> None:
    config = load_config(None, cwd=REPO)
    for descriptor in generate(config).descriptors:
        dumped = descriptor.to_json_dict()
        assert ToolDescriptor.model_validate(dumped).to_json_dict() == dumped


def test_a_damaged_cache_is_a_miss_not_an_error(shop: Project, run) -> None:  # type: ignore[no-untyped-def]
    assert run("build", cwd=shop.root).code == 0
    for entry in (shop.root / ".toolgen_cache").rglob("*.json"):
        entry.write_text('{"read": 1, "tools": [[{"name": 5}]]')
    result = run("check", cwd=shop.root)
    assert result.code == 0, result.out + result.err
    assert "generated is up to date" in result.out


def test_no_op_check_replays_the_cold_diagnostics(shop: Project, run) -> None:  # type: ignore[no-untyped-def]
    """One-sentence descriptions are notes (TG902): a replayed check counts them too."""
    assert run("build", cwd=shop.root).code == 0
    cold = run("check", "--no-cache", cwd=shop.root)
    assert "notes not shown (TG902 x" in cold.out
    first = run("check", cwd=shop.root)
    again = run("check", cwd=shop.root)  # from the stamp
    assert cold.out == first.out == again.out
    assert cold.code == first.code == again.code
    as_json = run("check", "--format", "json", cwd=shop.root).json()
    cold_json = run("check", "--format", "json", "--no-cache", cwd=shop.root).json()
    assert as_json == cold_json


def test_replayed_json_rows_are_the_cold_rows_when_stamped_in_batches(
    shop: Project,
    run,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    monkeypatch.setattr(stamp, "ROWS_AT_ONCE", 2)
    assert run("build", cwd=shop.root).code == 0
    cold = run("check", "--format", "json", "--no-cache", cwd=shop.root).json()
    assert len(cold["diagnostics"]) > 2
    run("check", cwd=shop.root)  # stamped
    assert run("check", "--format", "json", cwd=shop.root).json() == cold


@pytest.mark.parametrize(
    "change", ["edit", "delete", "stale", "interrupted", "source", "new_source"]
)
def test_the_stamp_notices_every_change(shop: Project, run, change: str) -> None:  # type: ignore[no-untyped-def]
    assert run("build", cwd=shop.root).code == 0
    assert run("check", cwd=shop.root).code == 0  # stamped
    out = shop.out
    if change == "edit":
        path = out / "descriptors" / "search.json"
        path.write_text(path.read_text().replace("catalog", "catalug"))
    elif change == "delete":
        (out / "mcp" / "tools.json").unlink()
    elif change == "stale":  # a file an older manifest listed, restored with that manifest
        (out / "descriptors" / "gone.json").write_text("{}\n")
        manifest = json.loads((out / "manifest.json").read_text())
        manifest["files"]["descriptors/gone.json"] = hashlib.sha256(b"{}\n").hexdigest()
        (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    elif change == "interrupted":  # what a build killed after its commit leaves
        pending = out / ".toolgen-pending"
        pending.mkdir()
        (pending / "0").write_bytes((out / "mcp" / "tools.json").read_bytes())
        (pending / "journal.json").write_text(
            json.dumps({"toolgen_journal": 1, "moves": [["0", "mcp/tools.json"]], "removals": []})
        )
    elif change == "source":
        shop.write("src/shop/tools.py", HANDLERS.replace("Count", "Tally"))
    else:
        shop.write(
            "src/shop/more.py",
            HANDLERS.replace("search", "s2").replace("count", "c2"),
        )
    result = run("check", cwd=shop.root)
    assert result.code == 1, result.out
    said = "was interrupted" if change == "interrupted" else "out of date"
    assert said in result.out
    assert run("build", cwd=shop.root).code == 0
    assert run("check", cwd=shop.root).code == 0
    assert run("check", "--no-cache", cwd=shop.root).code == 0
    assert not (out / ".toolgen-pending").exists()
    assert not (out / "descriptors" / "gone.json").exists()


def test_no_cache_and_the_cache_dir_variable(
    shop: Project, run, monkeypatch, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    assert run("build", "--no-cache", cwd=shop.root).code == 0
    assert not (shop.root / ".toolgen_cache").exists()
    monkeypatch.setenv("TOOLGEN_NO_CACHE", "1")
    assert run("check", cwd=shop.root).code == 0
    assert not (shop.root / ".toolgen_cache").exists()
    monkeypatch.delenv("TOOLGEN_NO_CACHE")
    monkeypatch.setenv("TOOLGEN_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert run("check", cwd=shop.root).code == 0
    assert not (shop.root / ".toolgen_cache").exists()
    assert (tmp_path / "elsewhere" / "stamps").is_dir()
    assert (tmp_path / "elsewhere" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_cache_folder_others_can_write_is_not_used(
    shop: Project, run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Its entries could be anybody's (marshal is not made for hostile data): the run says so
    on stderr, builds without it, and writes nothing into it."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("TOOLGEN_CACHE_DIR", str(shared))
    for command in ("build", "check"):
        result = run(command, cwd=shop.root)
        assert result.code == 0, result.out
        assert f"not using the cache folder {shared}: it is not a folder of this" in result.err
    assert list(shared.iterdir()) == []
    shared.chmod(0o755)  # the user's own again: used, and quietly
    result = run("check", cwd=shop.root)
    assert (result.code, result.err) == (0, "")
    assert (shared / "stamps").is_dir()


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and groups")
def test_a_group_shared_project_trusts_its_group_writable_cache(tmp_path: Path) -> None:
    """umask 002 in a setgid project folder of a team's group: the cache folder is writable by
    that group, which can write the project anyway. Not so in a folder the group cannot write."""
    group = next(g for g in (*os.getgroups(), 65534) if g != os.getgid())
    project, cache = tmp_path / "project", tmp_path / "project" / FOLDER
    cache.mkdir(parents=True)
    try:
        for folder in (project, cache):
            os.chown(folder, -1, group)
            folder.chmod(0o2775)
    except PermissionError:
        pytest.skip("no other group to give the folders to")
    assert cache.stat().st_gid != os.getgid()
    assert ours(str(cache))
    project.chmod(0o2755)  # the group cannot write the project: its cache is not to be trusted
    assert not ours(str(cache))
    project.chmod(0o2777)
    cache.chmod(0o2777)  # anybody can write it
    assert not ours(str(cache))


def test_deleting_the_cache_is_always_safe(shop: Project, run) -> None:  # type: ignore[no-untyped-def]
    assert run("build", cwd=shop.root).code == 0
    before = shop.snapshot()
    shutil.rmtree(shop.root / ".toolgen_cache")
    assert run("check", cwd=shop.root).code == 0
    assert run("build", cwd=shop.root).code == 0
    assert shop.snapshot() == before


def test_a_config_change_misses(shop: Project, run) -> None:  # type: ignore[no-untyped-def]
    assert run("build", cwd=shop.root).code == 0
    text = (shop.root / "pyproject.toml").read_text()
    shop.write("pyproject.toml", text + 'platforms = ["openai"]\n')
    result = run("check", cwd=shop.root)
    assert result.code == 1
    assert "stale" in result.out
    manifest = json.loads((shop.out / "manifest.json").read_text())
    assert "mcp/tools.json" in manifest["files"]


def test_the_stamp_notices_a_new_module_that_shadows_an_import(shop: Project, run) -> None:  # type: ignore[no-untyped-def]
    """A `pydantic.py` appearing in the project root (a search root, outside `sources`) changes
    what `from pydantic import BaseModel` means in models.py: the stamp looked for it."""
    assert run("build", cwd=shop.root).code == 0
    assert run("check", cwd=shop.root).code == 0  # stamped
    shop.write("pydantic.py", "from dataclasses import dataclass as BaseModel\n")
    cold = run("check", "--no-cache", cwd=shop.root)
    assert "up to date" not in cold.out  # the shadow does change the result
    warm = run("check", cwd=shop.root)
    assert (warm.code, warm.out) == (cold.code, cold.out)


@pytest.mark.parametrize("options", ["", "anthropic_strict = true\ninline_defs = true\n"])
def test_an_incremental_build_writes_what_a_cold_build_writes(
    project: Project,
    run,
    options: str,  # type: ignore[no-untyped-def]
) -> None:
    """The examples, built warm after editing a model and a handler (their units are
    compiled and rendered again, the others come from the cache), equal a cold build."""
    shutil.copytree(
        REPO / "examples", project.root / "examples", ignore=shutil.ignore_patterns("__pycache__")
    )
    project.write(
        "pyproject.toml",
        '[tool.toolgen]\nsources = ["examples"]\nout = "generated"\n' + options,
    )
    assert run("build", cwd=project.root).code == 0
    models = project.root / "examples" / "support" / "models.py"
    models.write_text(models.read_text().replace('"""', '"""Edited. ', 1))
    search = project.root / "examples" / "support" / "search.py"
    search.write_text(
        search.read_text().replace("def ", "def  ", 1).replace("def  ", "def ", 1) + "\n# edited\n"
    )
    warm = run("build", cwd=project.root)
    assert warm.code == 0, warm.out
    incremental = project.snapshot()
    shutil.rmtree(project.out)
    cold = run("build", "--no-cache", cwd=project.root)
    assert cold.code == 0
    assert project.snapshot() == incremental
    assert warm.out.splitlines()[:-1] == cold.out.splitlines()[:-1]  # same diagnostics


def test_an_edit_that_keeps_size_and_mtime_is_still_noticed(
    shop: Project,
    run,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """The stamp trusts an unchanged `stat` for files older than the stamped run; ctime, which
    no tool can set back, gives away an edit that restores size and mtime."""
    import os
    import time

    from toolgen.incremental import cache, stamp

    monkeypatch.setattr(stamp, "RACY_NS", 0)  # trust stats at once (the default waits 2 s)
    hashed: list[str] = []
    real_sha = cache.file_sha
    monkeypatch.setattr(stamp, "file_sha", lambda p: hashed.append(p) or real_sha(p))
    assert run("build", cwd=shop.root).code == 0
    time.sleep(0.05)
    assert run("check", cwd=shop.root).code == 0
    assert any(p.endswith("search.json") for p in hashed)  # written by the stamped run: read
    hashed.clear()
    time.sleep(0.05)
    assert run("check", cwd=shop.root).code == 0
    assert hashed == []  # stamped afresh: every stat unchanged and older, nothing read
    target = shop.out / "descriptors" / "search.json"
    before = target.stat()
    target.write_text(target.read_text().replace("catalog", "catalug"))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_size == before.st_size
    result = run("check", cwd=shop.root)
    assert result.code == 1
    assert "generated/descriptors/search.json: changed" in result.out


def _same_as_cold(project: Project, run, *args: str) -> None:  # type: ignore[no-untyped-def]
    """`check` with the cache says exactly what a cold `check` says."""
    warm = run("check", *args, cwd=project.root)
    cold = run("check", "--no-cache", *args, cwd=project.root)
    assert (warm.code, warm.out) == (cold.code, cold.out)


def test_a_new_search_root_that_shadows_an_import_misses_the_units(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """A new source folder is a new search root, ahead of the project root: its `models.py`
    now answers `from models import Page`. The units were made with other roots."""
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["tools", "extra"]\nmin_level = 0\n')
    project.write("extra/README", "")
    project.write("models.py", MODELS)
    project.write("tools/a.py", HANDLERS.replace(".models", "models"))
    assert run("build", cwd=project.root).code == 0
    project.write("extra/models.py", MODELS.replace("size: int = 10", "title: str"))
    result = run("check", cwd=project.root)
    assert "generated/descriptors/search.json: changed" in result.out
    _same_as_cold(project, run)


def test_two_sources_with_one_module_name_are_each_compiled(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """`v1/handlers.py` and `v2/handlers.py` are both module `handlers`: each is compiled from
    its own bytes, cold or cached."""
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["v1", "v2"]\nmin_level = 0\n')
    project.write(
        "v1/handlers.py",
        HANDLERS.replace("from .models import Page\n", "")
        .replace("page: Page", "page: int")
        .replace("count", "one"),
    )
    project.write(
        "v2/handlers.py",
        HANDLERS.replace("from .models import Page\n", "")
        .replace("page: Page", "page: int")
        .replace("search", "find")
        .replace("count", "two"),
    )
    assert run("build", "--no-cache", cwd=project.root).code == 0
    assert sorted(p.stem for p in (project.out / "descriptors").iterdir()) == [
        "find",
        "one",
        "search",
        "two",
    ]
    assert run("build", cwd=project.root).code == 0
    path = project.root / "v1" / "handlers.py"
    path.write_text(path.read_text() + "\n# edited\n")
    assert run("build", cwd=project.root).code == 0
    _same_as_cold(project, run)


def test_a_package_wins_over_a_module_of_the_same_name(project: Project, run) -> None:  # type: ignore[no-untyped-def]
    """As in Python: `app/models/__init__.py` is `app.models`, not `app/models.py`; a
    `models.py` added beside the package changes nothing, cached or cold."""
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src/app"]\nmin_level = 0\n')
    project.write("src/app/__init__.py", "")
    project.write("src/app/models/__init__.py", MODELS)
    project.write("src/app/more.py", HANDLERS.replace(".models", "app.models"))
    assert run("build", cwd=project.root).code == 0
    before = project.descriptor("search")
    project.write("src/app/models.py", MODELS.replace("size: int = 10", "title: str"))
    _same_as_cold(project, run)
    assert run("build", cwd=project.root).code == 0
    assert project.descriptor("search") == before


def test_a_file_saved_during_a_run_is_not_stamped(
    shop: Project,
    run,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """A unit taken from the cache was checked against models.py before it was saved; another
    file compiled after the save read the new bytes. A run that saw two versions of one file
    leaves no stamp, so nothing replays its mixed output."""
    assert run("build", cwd=shop.root).code == 0
    shutil.rmtree(shop.root / ".toolgen_cache" / "stamps")
    shop.write(
        "src/shop/other.py", HANDLERS.replace("search", "find").replace("count", "n") + "#\n"
    )
    real_restore = unit_cache.restore_with
    models = str((shop.root / "src/shop/models.py").resolve())

    def restore_with(entry, tool):  # type: ignore[no-untyped-def]
        unit = real_restore(entry, tool)
        if unit.shown.endswith("tools.py"):
            unit.dependencies.read[models] = "0" * 64  # as read before the save
        return unit

    monkeypatch.setattr(unit_cache, "restore_with", restore_with)
    assert run("build", cwd=shop.root).code == 0
    assert not list((shop.root / ".toolgen_cache" / "stamps").glob("*.json"))
    monkeypatch.setattr(unit_cache, "restore_with", real_restore)
    assert run("build", cwd=shop.root).code == 0
    assert list((shop.root / ".toolgen_cache" / "stamps").glob("*.json"))


def project_default(project: Project, name: str) -> object:
    return project.descriptor(name)["parameters"]["$defs"]["Page"]["properties"]["size"]["default"]


def test_a_known_render_is_used_only_for_its_own_descriptor() -> None:
    """Renders from the cache are found by id() of the descriptor; an id that now belongs to
    another object (the first was freed) must not pick up the old render."""
    from toolgen.render.options import RenderOptions
    from toolgen.render.project import render_project, render_tool, render_tools
    from toolgen.render.sink import Memory

    config = load_config(None, cwd=REPO)
    first, second = generate(config).descriptors[:2]
    stale = render_tool(first, config.platforms, RenderOptions())
    known = {id(second): (first, stale)}  # as if `first` had lived at `second`'s address

    def files(known: dict[int, Any] | None) -> dict[str, Any]:
        renders = render_tools([second], config.platforms, RenderOptions(), known)
        sink = Memory()
        tools = [sink.keep(second.name, second.visible, renders[id(second)], second)]
        made, _ = render_project(tools, config.platforms, RenderOptions(), sink, lambda *_: None)
        return made

    assert files(known) == files(None)


def test_other_toolgen_code_misses(shop: Project, run, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The cache key holds a hash of toolgen's own source, not only its version number."""
    from toolgen.incremental import keys

    assert run("build", cwd=shop.root).code == 0
    assert "1 file written" not in run("build", cwd=shop.root).out
    key = keys.config_key(load_config(None, cwd=shop.root))
    monkeypatch.setattr(keys, "code_fingerprint", lambda: "other code")
    assert keys.config_key(load_config(None, cwd=shop.root)) != key


@pytest.mark.parametrize(
    "damage",
    [
        '{"read": 1, "tools": [[{"name": 5}]]}',
        '{"read": [], "missing": [], "tools": [], "shown": "x", "suppressions": {},'
        ' "diagnostics": []}',
        "[1, 2]",
        "null",
        "not json",
    ],
)
def test_a_damaged_entry_of_any_shape_is_a_miss(shop: Project, run, damage: str) -> None:  # type: ignore[no-untyped-def]
    assert run("build", cwd=shop.root).code == 0
    for entry in (shop.root / ".toolgen_cache").rglob("*.json"):
        entry.write_text(damage)
    result = run("check", cwd=shop.root)
    assert (result.code, result.err) == (0, ""), result.out + result.err
    shop.write("src/shop/tools.py", HANDLERS.replace("Count", "Tally"))
    assert run("build", cwd=shop.root).code == 0
    _same_as_cold(shop, run)


def test_a_render_without_its_sections_is_a_miss(shop: Project, run) -> None:  # type: ignore[no-untyped-def]
    """An entry whose bytes are whole (its checksum holds) but whose content is not what this
    toolgen writes: the render lacks its sections."""
    folder = shop.root / ".toolgen_cache"
    assert run("build", cwd=shop.root).code == 0
    for entry in (folder / "units").glob("*.json"):
        data = cache.load_entry(folder, "units", entry.stem)
        for tool in data["tools"]:
            del tool["render"]["sections"]
        store_entry(folder, "units", entry.stem, data)  # sealed as toolgen seals it
    (shop.out / "docs" / "tools.md").unlink()
    result = run("build", cwd=shop.root)
    assert (result.code, result.err) == (0, "")
    _same_as_cold(shop, run)


def test_the_cache_keeps_the_newest_entries_only(
    shop: Project, run, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    import os
    import time

    from toolgen.incremental import stamp
    from toolgen.incremental import units as unit_cache

    monkeypatch.setattr(unit_cache, "KEEP", 6)
    assert run("build", cwd=shop.root).code == 0
    stamps, units = shop.root / ".toolgen_cache" / "stamps", shop.root / ".toolgen_cache" / "units"
    old = time.time_ns() - 3600 * 10**9
    for n in range(stamp.KEEP + 5):  # entries of other configurations, as toolgen seals them
        store_entry(shop.root / ".toolgen_cache", "stamps", f"{n:040d}", {})
        os.utime(stamps / f"{n:040d}.json", ns=(old, old))
    secret = cache.secret()
    assert secret is not None
    half = cache.seal(secret, "units", "x", b"the rest of the entry")[:60]  # a killed run's
    (units / ".x.json.123.tmp").write_bytes(half)
    os.utime(units / ".x.json.123.tmp", ns=(old, old))
    (units / "abc.json").write_text("not toolgen's: never removed")
    os.utime(units / "abc.json", ns=(old, old))
    for n in range(20):  # twenty versions of tools.py: twenty new units
        shop.write("src/shop/tools.py", HANDLERS + f"\n# version {n}\n")
        assert run("build", cwd=shop.root).code == 0
    assert len(list(stamps.glob("*.json"))) == stamp.KEEP
    assert len(list(units.glob("*.json"))) == 4 * 4 + 1  # four files in this project: 4 each
    assert not (units / ".x.json.123.tmp").exists()
    assert (units / "abc.json").read_text() == "not toolgen's: never removed"
    assert run("check", cwd=shop.root).code == 0
    _same_as_cold(shop, run)


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_a_replayed_build_prints_what_a_compiled_one_prints(shop: Project, run, fmt: str) -> None:  # type: ignore[no-untyped-def]
    assert run("build", cwd=shop.root).code == 0
    replayed = run("build", "--format", fmt, cwd=shop.root)
    compiled = run("build", "--format", fmt, "--no-cache", cwd=shop.root)
    assert (replayed.code, replayed.out, replayed.err) == (compiled.code, compiled.out, "")
    quiet = run("build", "-q", "--format", fmt, cwd=shop.root)
    if fmt == "json":
        assert quiet.json()["diagnostics"] == []
    else:
        assert (quiet.code, quiet.out) == (0, "")


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The generated files read to compare them (by name), from now on; every `stat` of
    them is trusted as soon as it is older than the run that saw it."""
    monkeypatch.setattr(stamp, "RACY_NS", 0)
    monkeypatch.setattr(stamp, "FINE_RACY_NS", 0)
    names: list[str] = []
    holds_spooled, read = output._holds_spooled, output._read

    def spooled(path: str, data: Any) -> bool | None:
        names.append(Path(path).name)
        return holds_spooled(path, data)

    def read_bytes(path: Path, limit: int) -> bytes | None:
        names.append(path.name)
        return read(path, limit)

    monkeypatch.setattr(output, "_holds_spooled", spooled)
    monkeypatch.setattr(output, "_read", read_bytes)
    return names


@pytest.mark.parametrize("command", ["build", "check"])
def test_a_run_after_an_edit_reads_only_what_the_stamp_cannot_vouch_for(
    shop: Project,
    run,
    opened: list[str],
    command: str,  # type: ignore[no-untyped-def]
) -> None:
    """The last stamp cannot be replayed after an edit, but it still says which generated
    files hold which bytes: those whose `stat` it trusts are not read again."""
    assert run("build", cwd=shop.root).code == 0
    assert run("check", cwd=shop.root).code == 0  # stamped, every file old enough to trust
    time.sleep(0.01)
    shop.write("src/shop/tools.py", HANDLERS.replace("Search the catalog", "Search the shop"))
    opened.clear()
    result = run(command, cwd=shop.root)
    assert result.code == (0 if command == "build" else 1), result.out + result.err
    assert "search.json" not in opened and "find.json" not in opened
    if command == "check":
        assert "generated/descriptors/search.json: changed" in result.out
        assert "generated/descriptors/find.json" not in result.out
    else:
        assert "Search the shop" in (shop.out / "descriptors" / "search.json").read_text()
        assert run("check", "--no-cache", cwd=shop.root).code == 0


def test_a_generated_file_changed_behind_the_stamp_is_read(
    shop: Project,
    run,
    opened: list[str],  # type: ignore[no-untyped-def]
) -> None:
    assert run("build", cwd=shop.root).code == 0
    assert run("check", cwd=shop.root).code == 0
    time.sleep(0.01)
    target = shop.out / "descriptors" / "find.json"
    before = target.stat()
    target.write_text(target.read_text().replace('"find"', '"fnid"'))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # its ctime still moves
    shop.write("src/shop/tools.py", HANDLERS.replace("Search the catalog", "Search the shop"))
    opened.clear()
    result = run("check", cwd=shop.root)
    assert "find.json" in opened
    assert "generated/descriptors/find.json: changed" in result.out
    assert run("build", cwd=shop.root).code == 0
    assert '"fnid"' not in target.read_text()
    assert run("check", "--no-cache", cwd=shop.root).code == 0


@pytest.mark.parametrize("stored", ["missing", None, 5, ["shown"], {"text": "x"}])
def test_a_render_without_a_text_description_is_a_miss(shop: Project, run, stored: Any) -> None:  # type: ignore[no-untyped-def]
    """An entry written before the render kept its description, or one whose description is
    not a text, is a miss for a spooled build (the command line) and an in-memory one alike."""
    folder = shop.root / ".toolgen_cache"
    assert run("build", cwd=shop.root).code == 0
    for entry in (folder / "units").glob("*.json"):
        data = cache.load_entry(folder, "units", entry.stem)
        for tool in data["tools"]:
            if stored == "missing":
                del tool["render"]["description"]
            else:
                tool["render"]["description"] = stored
        store_entry(folder, "units", entry.stem, data)  # sealed as toolgen seals it
    (shop.out / "docs" / "tools.md").unlink()
    result = run("build", cwd=shop.root)
    assert (result.code, result.err) == (0, "")
    _same_as_cold(shop, run)
    for entry in (folder / "units").glob("*.json"):
        entry.unlink()
    cold, first = _units(shop)  # stores entries under the test key: damaged the same way
    untouched = 0  # the units of files without tools
    for entry in (folder / "units").glob("*.json"):
        data = cache.load_entry(folder, "units", entry.stem)
        untouched += not data["tools"]
        for tool in data["tools"]:
            tool["render"].pop("description")
        store_entry(folder, "units", entry.stem, data)
    warm, used = _units(shop)
    assert (first.hits, warm, used.hits) == (0, cold, untouched)
    assert _units(shop)[1].hits == used.files  # stored again whole: all hits now
