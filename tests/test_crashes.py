"""Crashes and wedges (red-team issue, part 4): folder trees a thousand levels deep in the
sources or in `out`, configuration files whose `tool` table is no table or whose path the
system refuses, and catalogs whose names collide with what `out` reserves or cannot be
written as `build` reports them. Each is a located diagnostic or just works; never a
traceback, and `check` is never green while a file `build` listed is missing."""

from __future__ import annotations

import os
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import Project, Run, tool_source
from test_fuzz import CONFIG_VALUES, TOML_VALUES, fuzz, toml_value
from toolgen.config import defaults, load_config
from toolgen.diagnostics import UserError
from toolgen.watch.loop import ChangeFilter

DEPTH = 1100  # past Python's default recursion limit of 1000


def _no_traceback(result: Run) -> None:
    for text in (result.out, result.err):
        assert "Traceback" not in text and "internal error" not in text, text[-3000:]


def _deep(base: Path, depth: int = DEPTH) -> Path:
    """`depth` folders `d/d/...` below `base` (made one at a time: `os.makedirs` recurses);
    the deepest."""
    folder = base
    for _ in range(depth):
        folder = folder / "d"
        folder.mkdir()
    return folder


def _remove_deep(base: Path) -> None:
    """Remove the tree `_deep` made under `base`, deepest first (`shutil.rmtree` recurses)."""
    top = base / "d"
    if not top.is_dir():
        return
    folders = [top]
    while (folders[-1] / "d").is_dir():
        folders.append(folders[-1] / "d")
    for folder in reversed(folders):
        for entry in folder.iterdir():
            if not entry.is_dir():
                entry.unlink()
        folder.rmdir()


@pytest.fixture
def deep_places(project: Project) -> Iterator[list[Path]]:
    """Folders whose deep trees are removed after the test (pytest's cleanup recurses)."""
    places: list[Path] = []
    yield places
    for place in places:
        _remove_deep(place)


# -- folder trees a thousand levels deep -------------------------------------------------------
def test_a_source_tree_a_thousand_folders_deep_builds(
    project: Project, run, deep_places: list[Path]
) -> None:
    project.write("src/tools.py", tool_source())
    deep_places.append(project.root / "src")
    bottom = _deep(project.root / "src")
    (bottom / "far.py").write_text(tool_source("far_lookup"))
    result = run("build", cwd=project.root)
    _no_traceback(result)
    assert result.code == 0, result.out[-3000:]
    assert project.descriptor("far_lookup")["source"]["module"] == "far"
    check = run("check", "--no-cache", cwd=project.root)
    _no_traceback(check)
    assert check.code == 0, check.out[-3000:]


def test_build_watch_follows_a_source_tree_a_thousand_folders_deep(
    project: Project, deep_places: list[Path]
) -> None:
    project.write("src/tools.py", tool_source())
    deep_places.append(project.root / "src")
    bottom = _deep(project.root / "src")
    watched = ChangeFilter(load_config(None, cwd=project.root))  # the folders it watches
    assert bottom in watched.folders
    assert watched.counts(bottom / "new.py")


@pytest.mark.parametrize("under", ["openai", "descriptors", "mine"])
def test_out_holding_a_tree_a_thousand_folders_deep_builds_and_checks(
    project: Project, run, deep_places: list[Path], under: str
) -> None:
    """In a renderer's folder (walked for symlinks and for the stamp) or a folder of one's
    own in `out`."""
    project.write("src/tools.py", tool_source())
    assert run("build", cwd=project.root).code == 0
    (project.out / under).mkdir(exist_ok=True)
    deep_places.append(project.out / under)
    (_deep(project.out / under) / "mine.json").write_text("{}\n")
    project.write("src/tools.py", tool_source(params="query: str, page: int = 1"))
    for args in (("build",), ("check",), ("build", "--no-cache"), ("check", "--no-cache")):
        result = run(*args, cwd=project.root)
        _no_traceback(result)
        assert result.code == 0, (args, result.out[-3000:])
    assert "page" in project.descriptor("lookup")["parameters"]["properties"]


# -- configuration: `tool` no table, paths the system refuses, values of the wrong type ---------
@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("tool = 5\n", "1:1", "`tool` must be a table ([tool]), not a number"),
        ('tool = "x"\n', "1:1", "`tool` must be a table ([tool]), not a string"),
        ("[[tool]]\n", "1:1", "`tool` must be a table ([tool]), not an array"),
        ("[tool]\ntoolgen = 5\n", "2:1", "[tool] toolgen: must be a table ([tool.toolgen])"),
        ("tool.toolgen = []\n", "1:6", "[tool] toolgen: must be a table ([tool.toolgen]), not"),
        ("tool = {toolgen = 1.5}\n", "1:9", "[tool] toolgen: must be a table ([tool.toolgen])"),
    ],
)
@pytest.mark.parametrize("given", [False, True])
def test_a_tool_table_that_is_no_table_is_a_located_tg002(
    project: Project, run, text: str, where: str, message: str, given: bool
) -> None:
    project.write("src/tools.py", tool_source())
    project.write("pyproject.toml", text)
    result = run("build", *(("--config", "pyproject.toml") if given else ()), cwd=project.root)
    _no_traceback(result)
    assert result.code == 2
    assert f"pyproject.toml:{where}: TG002 [error] {message}" in result.out, result.out
    assert not project.out.exists()


def _refused(project: Project, how: str) -> str:
    """A `--config` path the system refuses, made in `project` as `how` says."""
    if how == "nul":
        return "pyproject\x00.toml"
    if how == "too long":
        return "a" * 300 + ".toml"
    if how == "folder":
        return "src"
    if how == "fifo":
        os.mkfifo(project.root / "fifo.toml")
        return "fifo.toml"
    if how == "device":
        return os.devnull
    if how == "loop":
        (project.root / "loop.toml").symlink_to("loop.toml")
        return "loop.toml"
    assert how == "missing"
    return "missing.toml"


@pytest.mark.parametrize(
    ("how", "why"),
    [
        ("nul", "has a NUL character, which no file name can hold"),
        ("too long", "cannot be used: File name too long"),
        ("folder", "is a folder: give a TOML file (a pyproject.toml)"),
        ("fifo", "is a FIFO, not a regular file: give a TOML file (a pyproject.toml)"),
        ("device", "is a character device, not a regular file: give a TOML file"),
        ("loop", "is a symlink loop"),
        ("missing", "does not exist"),
    ],
)
@pytest.mark.parametrize("command", ["build", "check"])
def test_a_config_path_the_system_refuses_is_tg001(
    project: Project, run, how: str, why: str, command: str
) -> None:
    """Each was a traceback (OSError, ValueError) or, for a FIFO, "does not exist"."""
    project.write("src/tools.py", tool_source())
    result = run(command, "--config", _refused(project, how), cwd=project.root)
    _no_traceback(result)
    assert result.code == 2
    assert "TG001 [error] configuration file " in result.out
    assert why in result.out, result.out


@pytest.mark.parametrize("refused", ["stat", "open"])
def test_a_config_file_without_permission_is_tg001(
    project: Project, run, monkeypatch: pytest.MonkeyPatch, refused: str
) -> None:
    """No permission to look it up (a folder on its way) or to open it: refused here, as
    root reads any file."""
    from toolgen import config

    def denied(*args: object, **kwargs: object) -> object:
        raise PermissionError(13, "Permission denied", str(args[0]))

    project.write("src/tools.py", tool_source())
    project.write("locked.toml", '[tool.toolgen]\nsources = ["src"]\n')
    if refused == "stat":
        real_stat = os.stat

        def stat(path: object, *args: object, **kwargs: object) -> object:
            if str(path).endswith("locked.toml"):
                return denied(path)
            return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "stat", stat)
    else:
        monkeypatch.setattr(config, "open_regular", denied, raising=False)
    result = run("build", "--config", "locked.toml", cwd=project.root)
    _no_traceback(result)
    assert result.code == 2
    assert "TG001 [error]" in result.out and "locked.toml" in result.out, result.out
    assert "Permission denied" in result.out
    assert not project.out.exists()


#: A `[tool.toolgen]` table setting `{key}` to `{value}` in each of TOML's ways of writing it
#: (after `sources`, set the same way); the key's place is where `{key}` is written.
FORMS = {
    "bare": '[tool.toolgen]\nsources = ["src"]\n{key} = {value}\n',
    "quoted": '[tool.toolgen]\nsources = ["src"]\n"{key}" = {value}\n',
    "literal": "[tool.toolgen]\nsources = ['src']\n'{key}' = {value}\n",
    "dotted": 'tool.toolgen.sources = ["src"]\ntool.toolgen.{key} = {value}\n',
    "under tool": '[tool]\ntoolgen.sources = ["src"]\ntoolgen . {key} = {value}\n',
    "inline": '[tool]\ntoolgen = {{sources = ["src"], {key} = {value}}}\n',
    "indented": '[tool.toolgen]\n  sources = ["src"]\n  # {value}\n\t{key}={value}  # a comment\n',
}
KEYS = [key for key in defaults() if key != "sources"]


def _place(text: str, key: str) -> str:
    """line:column where `key` is written last in `text` (after the `[tool]` header)."""
    quoted = max(text.rfind(f"{q}{key}{q}") for q in ('"', "'"))
    offset = quoted if quoted >= 0 else text.rfind(key)
    line = text.count("\n", 0, offset) + 1
    return f"{line}:{offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_value_of_the_wrong_type_is_located_at_its_key_however_written(
    project: Project, form: str
) -> None:
    """`[5]` is the wrong type for every key: each is reported where the key is written (it
    was the file's first line for all but a bare `key =` at the start of a line)."""
    (project.root / "src").mkdir()
    for key in KEYS:
        text = FORMS[form].format(key=key, value="[5]")
        project.write("pyproject.toml", text)
        with pytest.raises(UserError) as raised:
            load_config(None, cwd=project.root)
        places = {str(d.location) for d in raised.value.diagnostics}
        assert places == {f"pyproject.toml:{_place(text, key)}"}, (key, text, places)
        codes = {d.code for d in raised.value.diagnostics}
        assert codes == {"TG002"}, key


def test_a_section_of_the_wrong_type_is_located_at_its_header(project: Project) -> None:
    (project.root / "src").mkdir()
    for key in KEYS:
        text = f'[tool.toolgen]\nsources = ["src"]\n\n  [tool.toolgen.{key}]\nx = 5\n'
        project.write("pyproject.toml", text)
        # a table's wrong key is `x`; any other key is wrong as a table
        tables = ("rules", "decorators", "framework_versions", "env", "contract", "lsp")
        expected = "pyproject.toml:5:1" if key in tables else "pyproject.toml:4:3"
        with pytest.raises(UserError) as raised:
            load_config(None, cwd=project.root)
        assert {str(d.location) for d in raised.value.diagnostics} == {expected}, key


@fuzz(150)
@given(st.data())
def test_random_values_in_every_key_are_located_diagnostics(data: st.DataObject) -> None:
    """Any TOML value in any key, written in any form: a checked config, or TG002s (and
    TG003, TG004, TG008 for paths) each at a line of the file that sets what it names."""
    form = data.draw(st.sampled_from(sorted(FORMS)))
    key = data.draw(st.sampled_from([*KEYS, "sources"]))
    value = toml_value(data.draw(TOML_VALUES | CONFIG_VALUES.get(key, TOML_VALUES)))
    if key == "sources":
        text = FORMS[form].replace("sources", "out").format(key="sources", value=value)
        text = text.replace('["src"]', '"generated"').replace("['src']", "'generated'")
    else:
        text = FORMS[form].format(key=key, value=value)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        (root / "src").mkdir(parents=True)
        (root / "pyproject.toml").write_text(text, encoding="utf-8")
        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return  # e.g. a key repeated inside an inline table: TG001, tested elsewhere
        try:
            load_config(None, cwd=root)
        except UserError as exc:
            lines = text.splitlines()
            for diagnostic in exc.diagnostics:
                assert diagnostic.code in ("TG002", "TG003", "TG004", "TG008"), diagnostic
                assert diagnostic.location is not None, diagnostic
                line = lines[diagnostic.location.line - 1]
                # `out` inside a source (`sources = [""]` is the project): TG004 is at `out`
                ours = key in line or (diagnostic.code == "TG004" and line.startswith("out"))
                assert ours or "toolgen" in line, (diagnostic, text)


def test_a_config_of_many_bad_keys_is_a_short_report(project: Project, run) -> None:
    """20,000 unknown keys were 20,000 diagnostics, each found by reading the file again from
    its start (21 s; a million keys would not end): now the first hundred, and a count."""
    keys = "".join(f"k{i} = {i}\n" for i in range(20_000))
    project.write("pyproject.toml", f'[tool.toolgen]\nsources = ["src"]\n{keys}')
    project.write("src/tools.py", tool_source())
    result = run("build", cwd=project.root)
    _no_traceback(result)
    assert result.code == 2
    lines = result.out.splitlines()
    assert len(lines) == 101, lines[-3:]
    assert "pyproject.toml:3:1: TG002 [error] [tool.toolgen] k0: unknown key" in lines[0]
    assert lines[-1] == (
        "pyproject.toml:1:1: TG002 [error] 19,900 more problems with the configuration are not "
        "shown: fix these first"
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("skip_params", "[" + ", ".join(f'"p{i}"' for i in range(1001)) + "]"),
        ("decorators", "{" + ", ".join(f'"m.d{i}" = "fastmcp"' for i in range(1001)) + "}"),
    ],
)
def test_a_list_or_table_is_read_up_to_a_thousand_entries(
    project: Project, run, key: str, value: str
) -> None:
    """Each skip_params entry is matched against every parameter, and each decorator is a
    marker looked for in every file: a million of them would make a build take days."""
    project.write("pyproject.toml", f'[tool.toolgen]\nsources = ["src"]\n{key} = {value}\n')
    project.write("src/tools.py", tool_source())
    result = run("build", cwd=project.root)
    _no_traceback(result)
    assert result.code == 2
    assert result.out == (
        f"pyproject.toml:3:1: TG002 [error] [tool.toolgen] {key}: has 1,001 entries; at most "
        "1,000 are read\n"
    )


# -- catalogs: names `out` reserves, and names that cannot be written as reported ---------------
def _server(name: str, tool: str) -> str:
    """A module with one FastMCP server assigned to `name`, holding the tool `tool`."""
    return (
        f"from fastmcp import FastMCP\n\n{name} = FastMCP('{name}')\n\n\n"
        f"@{name}.tool\ndef {tool}(query: str) -> str:\n"
        f"    '''Look up {tool} in the catalog.'''\n    return query\n"
    )


def _servers(project: Project, modules: dict[str, tuple[str, str]]) -> None:
    """A project of FastMCP servers: module path -> (server name, tool)."""
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src"]\nmarkers = ["fastmcp"]\n')
    for path, (server, tool) in modules.items():
        project.write(path, _server(server, tool))


def _as_built(project: Project) -> None:
    """Every file the manifest lists is there, holding what it says: what `build` reported."""
    import hashlib
    import json

    listed = json.loads((project.out / "manifest.json").read_text())["files"]
    for path, sha in listed.items():
        data = (project.out / path).read_bytes()  # FileNotFoundError: listed, never written
        assert hashlib.sha256(data).hexdigest() == sha, path


def test_a_catalog_named_like_the_manifest_takes_another_name(project: Project, run) -> None:
    """Servers `json` in modules `manifest` and `other`: the catalog `manifest.json` was a
    folder where the manifest goes, and every later build stopped "interrupted"."""
    _servers(project, {"src/manifest.py": ("json", "first"), "src/other.py": ("json", "second")})
    for args in (("build",), ("build",), ("check",), ("check", "--no-cache")):
        result = run(*args, cwd=project.root)
        _no_traceback(result)
        assert result.code == 0, (args, result.out)
    assert sorted(p.name for p in project.out.iterdir()) == [
        "_manifest.json", "manifest.json", "other.json"
    ]  # fmt: skip
    assert (project.out / "_manifest.json" / "descriptors" / "first.json").is_file()
    _as_built(project)


@pytest.mark.parametrize("reserved", ["descriptors", "mcp", "docs", "python", "Openai"])
def test_a_catalog_never_takes_a_renderers_folder(project: Project, run, reserved: str) -> None:
    """A catalog `descriptors` made `out/descriptors/` look like one server's files (the run
    time then found no tool at all); the platforms' folders are reserved too, in any case."""
    from toolgen.runtime.catalog import GeneratedFilesError, catalogs_in, load

    _servers(project, {"src/app.py": (reserved, "first"), "src/admin.py": ("admin", "second")})
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert sorted(p.name for p in project.out.iterdir()) == [
        "admin", f"app.{reserved}", "manifest.json"
    ]  # fmt: skip
    assert catalogs_in(project.out) == ["admin", f"app.{reserved}"]
    with pytest.raises(GeneratedFilesError, match="holds a catalog per server"):
        load(project.out)
    assert load(project.out, f"app.{reserved}").names == ["first"]
    _as_built(project)


def test_catalogs_differ_in_more_than_case(project: Project, run) -> None:
    """`Admin` and `admin` are one folder where case is ignored (macOS, Windows)."""
    _servers(project, {"src/one.py": ("Admin", "first"), "src/two.py": ("admin", "second")})
    assert run("build", cwd=project.root).code == 0
    names = sorted(p.name for p in project.out.iterdir())
    assert names == ["manifest.json", "one.Admin", "two.admin"]
    assert len({name.casefold() for name in names}) == len(names)
    _as_built(project)


def test_a_module_name_with_a_hyphen_names_a_catalog(project: Project, run) -> None:
    """`my-tools.mcp` was reported written and never was: the journal moves only paths
    toolgen produces, and that one was not."""
    _servers(project, {"src/my-tools.py": ("mcp", "first"), "src/other.py": ("mcp", "second")})
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    assert (project.out / "my-tools.mcp" / "descriptors" / "first.json").is_file()
    _as_built(project)
    assert run("check", "--no-cache", cwd=project.root).code == 0


def test_a_catalog_that_is_not_ascii_is_refused_not_reported_written(project: Project, run) -> None:
    """`café` was staged, listed in the manifest and reported written, never written, and
    `check` was green. Its server's tools are left out with TG020; the rest is written."""
    _servers(project, {"src/a.py": ("café", "first"), "src/b.py": ("other", "second")})
    project.write("src/c.py", _server("café", "third").replace("café = ", "café = café2 = "))
    result = run("build", cwd=project.root)
    _no_traceback(result)
    assert result.code == 1, result.out
    assert (
        "src/a.py:7:1: TG020 [error] 1 tool of server `a.café` left out: its catalog's folder "
        "would be `a.café`, which is not ASCII; assign the server to a name of ASCII letters, "
        "digits and underscores"
    ) in result.out
    assert "1 tool of server `c.café` left out" in result.out
    assert "toolgen: 2 tools left out for errors: first (src/a.py:7:1), third (src/c.py:7:1)" in (
        result.out
    )
    assert sorted(p.name for p in project.out.iterdir()) == ["manifest.json", "other"]
    _as_built(project)
    for args in (("check",), ("check", "--no-cache")):
        check = run(*args, cwd=project.root)
        assert check.code == 1 and "TG020" in check.out, check.out


def test_a_file_toolgen_does_not_produce_is_never_reported_written(project: Project) -> None:
    """The journal moves only paths toolgen produces (a forged journal's others are not
    followed): `write` refuses anything else before it stages a byte."""
    from toolgen.output import WriteError, write

    project.out.mkdir()
    with pytest.raises(WriteError, match="toolgen writes no file by that name there"):
        write(project.out, {"descriptors/a.json": b"{}\n", "café/descriptors/a.json": b"{}\n"})
    assert list(project.out.iterdir()) == []


# -- a duplicate among several servers, whatever errors either twin has -------------------------
def test_a_twin_with_an_error_on_another_server_is_no_duplicate(project: Project, run) -> None:
    """Names are unique per catalog: `status` with an error on `two` leaves `one`'s alone. A
    server whose only tool has an error is a catalog still (fixing it moves no file)."""
    _servers(project, {"src/one.py": ("one", "status"), "src/two.py": ("two", "status")})
    broken = project.root / "src" / "two.py"
    broken.write_text(broken.read_text().replace("query: str", "query: Unknown"))
    result = run("build", cwd=project.root)
    assert result.code == 1, result.out
    assert "TG102" not in result.out and "TG201" in result.out
    assert sorted(p.name for p in project.out.iterdir()) == ["manifest.json", "one"]
    assert (project.out / "one" / "descriptors" / "status.json").is_file()
    twin = '\n\n@one.tool(name="status")\ndef again(q: Unknown) -> str:\n    """Look again."""\n'
    (project.root / "src" / "one.py").write_text(_server("one", "status") + twin)
    result = run("build", cwd=project.root)
    assert result.code == 1, result.out
    assert result.out.count("TG102 [error] tool name `status` is already used") == 2
    assert "(catalog one); neither is published" in result.out
    assert not (project.out / "one" / "descriptors" / "status.json").exists()


def test_a_tool_mounted_under_a_name_no_tool_can_have_is_tg103(project: Project, run) -> None:
    """`main.mount(sub, namespace="n" * 150)` lists `sub`'s `f` as `nnn..._f`, longer than a
    descriptor's name: it was staged, listed in the manifest and never written (the journal
    moves only what toolgen produces), and `check --against` was a traceback."""
    project.write("pyproject.toml", '[tool.toolgen]\nsources = ["src"]\nmarkers = ["fastmcp"]\n')
    project.write(
        "src/s.py",
        "from fastmcp import FastMCP\n\nmain = FastMCP('main')\nsub = FastMCP('sub')\n"
        f"main.mount(sub, namespace='{'n' * 150}')\n\n\n"
        "@sub.tool\ndef f(q: str) -> str:\n    '''Look f up.'''\n    return q\n\n\n"
        "@main.tool\ndef g(q: str) -> str:\n    '''Look g up.'''\n    return q\n",
    )
    result = run("build", cwd=project.root)
    _no_traceback(result)
    assert result.code == 1, result.out
    assert f"src/s.py:9:1: TG103 [error] `f` is mounted as `{'n' * 150}_f`: tool name " in (
        result.out
    )
    assert "1 tool left out for errors: f (src/s.py:9:1)" in result.out
    assert project.descriptor("g")["name"] == "g"
    _as_built(project)
