"""Hostile input in the sources and the cache: files that are no regular files, too large, not
UTF-8 by name, coded in another encoding, refused by Python's compiler, symlinked out of the
project; and cache entries that someone else could have written. Each gives a located
diagnostic or a miss, never a hang, a crash or a believed forgery."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import Project, Run, tool_source
from toolgen.config import load_config
from toolgen.diagnostics import UserError
from toolgen.incremental import cache
from toolgen.incremental.stamp import file_stat
from toolgen.read import files as reading

Runner = Callable[..., Run]


def _toolgen(cwd: Path, *argv: str | bytes) -> subprocess.CompletedProcess[str]:
    """`toolgen ARGV` in a process of its own, killed (and the test failed) if it hangs; its
    output strictly UTF-8, so that a name that is not would crash it."""
    return subprocess.run(
        [sys.executable, "-m", "toolgen", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PYTHONIOENCODING": "utf-8"},
        timeout=60,
        check=False,
    )


@pytest.fixture
def good(project: Project) -> Project:
    project.write("src/good.py", tool_source(name="good_tool"))
    return project


# -- file names that are not UTF-8 -------------------------------------------------------
def test_a_file_name_that_is_not_utf8_is_reported_in_build_and_check(good: Project) -> None:
    """It crashed `build` and `check` (`UnicodeEncodeError` in the unit cache's key): now a
    warning that shows the name's bytes as escapes, in every format, warm or cold."""
    (good.root / "src").joinpath(os.fsdecode(b"\xff.py")).write_text(tool_source(name="other"))
    expected = (
        "src/\\xff.py:1:1: TG014 [warning] not read: its module name `\\xff` is not valid "
        "UTF-8, so no descriptor can name it and Python cannot import it: rename it"
    )
    for argv in (("build",), ("check",), ("check",), ("check", "--no-cache")):
        result = _toolgen(good.root, *argv)
        assert (result.returncode, result.stderr) == (0, ""), result.stdout + result.stderr
        assert expected in result.stdout
    github = _toolgen(good.root, "check", "--format", "github")
    assert "::warning file=src/\\xff.py,line=1" in github.stdout
    report = json.loads(_toolgen(good.root, "check", "--format", "json").stdout)
    assert {"code": "TG014", "path": "src/\\xff.py"}.items() <= report["diagnostics"][0].items()
    assert json.loads((good.out / "manifest.json").read_text())  # the build wrote, in UTF-8
    named = _toolgen(good.root, "build", b"src/\xff.py")
    assert (named.returncode, named.stderr) == (2, "")
    assert "src/\\xff.py:1:1: TG005 [error] cannot read src/\\xff.py: its module name" in (
        named.stdout
    )


def test_a_folder_name_that_is_not_utf8_holds_sources_that_build(good: Project) -> None:
    """A module's name is what must be UTF-8: a file in a folder that is no package, whose
    name is not, is compiled (and kept in the unit cache) with its path shown escaped."""
    folder = good.root / "src" / os.fsdecode(b"caf\xe9")
    folder.mkdir()
    ghost = "        query: The query.\n        ghost: Not a parameter."
    (folder / "tools.py").write_text(tool_source(name="brew", args_doc=ghost))
    for _ in range(2):  # cold, then from the unit cache
        result = _toolgen(good.root, "build")
        assert (result.returncode, result.stderr) == (0, ""), result.stdout
        assert "src/caf\\xe9/tools.py:10:9: TG302 [warning] docstring describes `ghost`" in (
            result.stdout
        )
    assert good.descriptor("brew")["source"]["module"] == "tools"
    only = _toolgen(good.root, "check", b"src/caf\xe9")  # good_tool is stale then
    assert (only.returncode, only.stderr) == (1, "")
    hint = "run `toolgen build $'src/caf\\xe9'` to update the generated files"  # bash's quoting
    assert only.stdout.endswith(f"generated is out of date; {hint}\n")


# -- files that are no regular files ------------------------------------------------------
@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda path: os.mkfifo(path), "a FIFO, not a regular file"),
        (
            lambda path: path.symlink_to("/dev/zero"),
            "a symlink to a character device (/dev/zero), not to a regular file",
        ),
    ],
    ids=["fifo", "dev-zero"],
)
def test_what_is_no_regular_file_is_skipped_without_opening_it(
    good: Project, make: Callable[[Path], None], what: str
) -> None:
    """A FIFO blocked the build forever, and /dev/zero read until the process was killed:
    found by walking, each is now a warning and the build goes on (in a process of its own,
    killed if it hangs); named as a source, an error. `fix` and `stats` skip it too."""
    make(good.root / "src" / "odd.py")
    result = _toolgen(good.root, "build")
    assert (result.returncode, result.stderr) == (0, ""), result.stdout
    assert f"src/odd.py:1:1: TG014 [warning] not read: {what}" in result.stdout
    assert good.descriptor("good_tool")
    assert _toolgen(good.root, "check").returncode == 0
    fixed = _toolgen(good.root, "fix", "--check")
    assert (fixed.returncode, fixed.stderr) == (0, "")
    assert "src/odd.py:1:1: TG014 [warning]" in fixed.stdout
    assert _toolgen(good.root, "stats").returncode == 0
    named = _toolgen(good.root, "build", "src/odd.py")
    if "symlink" in what:  # it resolves to /dev/zero, outside the project: the config says so
        assert "TG003 [error] source path /dev/zero (given as PATH) is outside" in named.stdout
    else:
        assert "src/odd.py:1:1: TG005 [error] cannot read src/odd.py: a FIFO" in named.stdout
    assert (named.returncode, named.stderr) == (2, "")


def test_a_fifo_in_place_of_a_read_file_is_not_waited_for(tmp_path: Path) -> None:
    """Between the `stat` that finds a file and the reading of it, a FIFO may take its place:
    the reader opens without waiting and checks what it opened."""
    os.mkfifo(tmp_path / "pipe.py")
    with pytest.raises(reading.Unreadable, match="a FIFO, not a regular file"):
        reading.read_capped(str(tmp_path / "pipe.py"), 100)
    assert cache.file_sha(str(tmp_path / "pipe.py")) is None


# -- the size cap --------------------------------------------------------------------------
def test_a_source_over_the_cap_is_an_error_for_that_file(project: Project, run: Runner) -> None:
    config = '[tool.toolgen]\nsources = ["src"]\nmin_level = 0\nmax_source_bytes = {}\n'
    project.write("pyproject.toml", config.format(2000))
    project.write("src/good.py", tool_source(name="good_tool"))
    big = tool_source(name="big_tool") + "# padding\n" * 400
    (project.root / "src" / "big.py").write_text(big)
    result = run("build", cwd=project.root)
    assert result.code == 2
    assert [line for line in result.out.splitlines() if "[error]" in line] == [
        f"src/big.py:1:1: TG005 [error] cannot read src/big.py: the file has {len(big):,} bytes, "
        "over the cap of 2,000 (`max_source_bytes` in [tool.toolgen])"
    ]
    assert cache.file_sha(str(project.root / "src" / "big.py"), 2000) is None  # not read
    project.write("pyproject.toml", config.format(5000))
    assert run("build", cwd=project.root).code == 0


@pytest.mark.parametrize("value", ["0", "-1", '"10 MB"', "true", "1.5"])
def test_the_cap_must_be_a_positive_whole_number(project: Project, value: str) -> None:
    project.write(
        "pyproject.toml", f'[tool.toolgen]\nsources = ["src"]\nmax_source_bytes = {value}\n'
    )
    (project.root / "src").mkdir()
    with pytest.raises(UserError) as caught:
        load_config(project.root / "pyproject.toml", cwd=project.root)
    (problem,) = caught.value.diagnostics
    assert str(problem.location) == "pyproject.toml:3:1"
    assert (problem.code, problem.message) == (
        "TG002",
        "[tool.toolgen] max_source_bytes: must be a positive whole number of bytes",
    )


def test_the_default_cap_holds_the_benchmarks_largest_module(project: Project) -> None:
    """benchmarks/run.py builds one module of about 5 MB: the default must take it."""
    (project.root / "src").mkdir()
    config = load_config(project.root / "pyproject.toml", cwd=project.root)
    assert config.max_source_bytes == reading.MAX_SOURCE_BYTES == 10_000_000


class _Endless(io.RawIOBase):
    """A file that says it is empty (as /proc files do) and never ends; counts what is read."""

    given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = len(buffer)
        buffer[:size] = b"x" * size
        self.given += size
        return size


def test_no_more_than_the_cap_and_a_byte_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    endless = _Endless()
    empty = os.stat_result((0o100644, 0, 0, 1, 0, 0, 0, 0, 0, 0))
    monkeypatch.setattr(reading, "open_regular", lambda path: (io.BufferedReader(endless), empty))
    with pytest.raises(reading.Unreadable, match="has grown over the cap of 1,000"):
        reading.read_capped("endless.py", 1000)
    assert endless.given <= 1001 + io.DEFAULT_BUFFER_SIZE  # the cap, a byte, and one buffer


# -- symlinks out of the project -----------------------------------------------------------
def test_a_symlinked_file_outside_the_project_is_refused(good: Project, run: Runner) -> None:
    """The README says every source must resolve inside the project: a symlinked file found
    by walking was compiled anyway, its docstring in the payloads."""
    outside = good.root.parent / "elsewhere" / "secret.py"
    outside.parent.mkdir()
    outside.write_text(tool_source(name="secret").replace("the catalog", "the private files"))
    (good.root / "src" / "secret.py").symlink_to(outside)
    before = good.snapshot()
    result = run("build", cwd=good.root)
    assert (result.code, result.err) == (2, "")
    assert (
        f"src/secret.py:1:1: TG015 [error] not read: a symlink to {outside}, outside the "
        f"project {good.root}; every source must resolve inside the project"
    ) in result.out
    assert good.snapshot() == before
    assert "private files" not in result.out
    assert run("check", cwd=good.root).code == 2
    inside = good.root / "vendor" / "secret.py"  # a symlink that stays inside is read
    inside.parent.mkdir()
    inside.write_text(outside.read_text())
    (good.root / "src" / "secret.py").unlink()
    (good.root / "src" / "secret.py").symlink_to(inside)
    assert run("build", cwd=good.root).code == 0
    assert "the private files" in good.descriptor("secret")["description"]


# -- PEP 263 coding comments ---------------------------------------------------------------
HANDLER = '''from toolgen import tool


@tool
def cafe(q: str = "é", n: int = 1) -> str:
    """Cherche un café à Paris, près de l'Opéra. Use it for {symbol} questions.

    Args:
        q: La requête.
    """
    raise NotImplementedError
'''


@pytest.mark.parametrize(
    ("header", "encoding", "symbol"),
    [
        ("# -*- coding: latin-1 -*-\n", "latin-1", "£"),
        ("#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n", "cp1252", "€"),
        ("", "utf-8-sig", "€"),  # a BOM, no comment
    ],
)
def test_a_file_in_its_declared_encoding_builds_as_python_reads_it(
    project: Project, run: Runner, header: str, encoding: str, symbol: str
) -> None:
    """A valid latin-1 file was refused (TG005). Its text, and every position the compiler
    reports in it, are now what they are in the same file saved as UTF-8."""
    text = header + HANDLER.replace("{symbol}", symbol)
    (project.root / "src").mkdir()
    (project.root / "src" / "coded.py").write_bytes(text.encode(encoding))
    coded = run("build", cwd=project.root)
    plain_text = header.replace("latin-1", "utf-8").replace("cp1252", "utf-8") + text[len(header) :]
    (project.root / "src" / "coded.py").write_text(plain_text)
    plain = run("build", cwd=project.root)
    assert coded.code == plain.code == 1  # `n` is not described

    def found(out: str) -> list[str]:  # what each build said but how many files it wrote
        return [line for line in out.splitlines() if " files written, " not in line]

    assert found(coded.out) == found(plain.out)
    line = header.count("\n") + 5
    col = (header + HANDLER).splitlines()[line - 1].index("n: int") + 1
    assert f"src/coded.py:{line}:{col}: TG301 [error] parameter `n` is not described" in coded.out
    (project.root / "src" / "coded.py").write_bytes(
        text.replace(", n: int = 1", "").encode(encoding)
    )
    assert run("build", cwd=project.root).code == 0
    description = project.descriptor("cafe")["description"]
    assert description.startswith(f"Cherche un café à Paris, près de l'Opéra. Use it for {symbol}")


def test_fix_writes_a_file_back_in_its_own_encoding(project: Project, run: Runner) -> None:
    path = project.root / "src" / "coded.py"
    path.parent.mkdir()
    text = "# -*- coding: latin-1 -*-\n" + HANDLER.replace("{symbol}", "£")
    path.write_bytes(text.encode("latin-1"))
    result = run("fix", cwd=project.root)
    assert result.code == 0, result.out
    assert "src/coded.py:11:9: TG802 [warning] `cafe`: parameter `n` needs a description" in (
        result.out
    )
    fixed = path.read_bytes().decode("latin-1")  # still latin-1: b"\xe9" for é
    assert fixed == text.replace(
        "        q: La requête.\n",
        "        q: La requête.\n        n: TODO: describe this parameter.\n",
    )


def test_fix_refuses_what_the_files_encoding_cannot_hold(project: Project, run: Runner) -> None:
    """The description `fix` copies from Field(...) has "→", which latin-1 has not."""
    path = project.root / "src" / "coded.py"
    path.parent.mkdir()
    text = "# -*- coding: latin-1 -*-\n" + tool_source(
        name="route",
        params='to: Annotated[str, Field(description="Where it goes \\u2192 there.")], q: str',
        args_doc="        q: La requête.",
        imports="from typing import Annotated\nfrom pydantic import Field",
    )
    path.write_bytes(text.encode("latin-1"))
    for mode in ((), ("--diff",), ("--check",)):
        result = run("fix", *mode, cwd=project.root)
        assert result.code == 2, (mode, result.out)
        assert (
            "src/coded.py:11:27: TG016 [error] file not changed: the fix would add '→' "
            "(U+2192), which its encoding, iso-8859-1 (its coding comment), cannot hold"
        ) in result.out
        assert "TG801" not in result.out  # nothing was added
        assert path.read_bytes() == text.encode("latin-1")


@pytest.mark.parametrize(
    ("source", "where", "message"),
    [
        (b"# -*- coding: klingon -*-\nx = 1\n", "1:1", "unknown encoding: klingon"),
        (b"#!/usr/bin/env python\n# coding: klingon\n", "2:1", "unknown encoding: klingon"),
        (b"# coding: rot13\n", "1:1", "'rot13' is not a text encoding"),
        (b"# coding: undefined\nx = 1\n", "1:1", "decoding with 'undefined'"),
        (b"#!/bin/python\n# coding: punycode\nx = '>'\n", "2:1", "decoding with 'punycode'"),
        (
            b"\xef\xbb\xbf# coding: latin-1\n",
            "1:1",
            "the coding comment names latin-1, but the file starts with a UTF-8 BOM",
        ),
    ],
)
def test_a_coding_python_refuses_is_tg101_at_its_comment(
    good: Project, run: Runner, source: bytes, where: str, message: str
) -> None:
    """An unknown coding built with exit 0 (the file was read as UTF-8)."""
    with pytest.raises(SyntaxError):
        compile(source, "bad.py", "exec")
    (good.root / "src" / "bad.py").write_bytes(source)
    result = run("build", cwd=good.root)
    assert result.code == 2
    assert f"src/bad.py:{where}: TG101 [error] cannot parse: {message}" in result.out


@pytest.mark.parametrize(
    ("source", "where"),
    [
        ("from __future__ import nope\n", "1:1"),
        ("from __future__ import braces\n", "1:1"),
        ("from __future__ import annotations, nope\n", "1:1"),
        ('"""Doc."""\nimport os\nfrom __future__ import annotations\n', "3:1"),
        ("x = 1; from __future__ import annotations\n", "1:8"),
        (
            "from __future__ import annotations; import os; from __future__ import division\n",
            "1:48",
        ),
        ("def f():\n    from __future__ import annotations\n", "2:5"),
        (
            "from __future__ import annotations\n\nclass A:\n    from __future__ import division\n",
            "4:5",
        ),
    ],
)
def test_a_future_import_python_refuses_is_tg101_where_python_says(
    good: Project, run: Runner, source: str, where: str
) -> None:
    """These parse, but Python will not compile them: they built with exit 0. The line and
    message are Python's; the column is the `from` (Python says one less when an import on
    the same line comes first)."""
    with pytest.raises(SyntaxError) as python:
        compile(source, "bad.py", "exec")
    said = python.value
    assert where.startswith(f"{said.lineno}:")
    (good.root / "src" / "bad.py").write_text(source)
    result = run("build", cwd=good.root)
    assert result.code == 2
    assert f"src/bad.py:{where}: TG101 [error] cannot parse: {said.msg}" in result.out


def test_future_imports_python_takes_are_fine(good: Project, run: Runner) -> None:
    source = (
        '"""Doc."""\n\n# from __future__ import nothing: a comment\n'
        "from __future__ import annotations\nfrom __future__ import division, generator_stop\n"
        + tool_source(name="later", imports='NOTE = "from __future__ import x, in a string"')
    )
    compile(source, "fine.py", "exec")
    good.write("src/fine.py", source)
    result = run("build", cwd=good.root)
    assert result.code == 0, result.out


# -- cache entries -------------------------------------------------------------------------
def _edit(project: Project) -> None:
    """An edit that changes the tool's descriptor: `check` must say so."""
    project.write("src/good.py", tool_source(name="good_tool").replace("catalog", "shop"))


def _forge_stamps(project: Project, mode: int) -> None:
    """What someone who can write the stamps does: vouch for the sources as they are now,
    so that the last run's answer is given again."""
    folder = project.root / ".toolgen_cache"
    for path in (folder / "stamps").glob("*.json"):
        stamp = cache.load_entry(folder, "stamps", path.stem)
        for source in stamp["read"]:
            sha = hashlib.sha256(Path(source).read_bytes()).hexdigest()
            stamp["read"][source] = (sha, *file_stat(source))
        cache.store_entry(folder, "stamps", path.stem, stamp)
        path.chmod(mode)


@pytest.mark.parametrize("mode", [0o600, 0o666, 0o602])
def test_a_stamp_others_can_write_is_not_believed(good: Project, run: Runner, mode: int) -> None:
    """A world-writable stamp let another user forge `check`'s answer. The forgery works on
    a stamp of the user's own (which only the user can write): that is the control."""
    assert run("build", cwd=good.root).code == 0
    assert run("check", cwd=good.root).code == 0
    _edit(good)
    _forge_stamps(good, mode)
    result = run("check", cwd=good.root)
    if mode == 0o600:
        assert (result.code, result.err) == (0, "")  # the user's own stamp is believed
        return
    assert result.code == 1
    assert "generated/descriptors/good_tool.json: changed" in result.out
    assert "toolgen: not using the cache entry " in result.err
    assert "it is not a file of this user's that only they" in result.err


def test_a_remembered_answer_others_can_write_is_not_believed(good: Project, run: Runner) -> None:
    """`toolgen.entry` prints a remembered answer before anything else: it applies the same
    rule to the entries it reads."""
    assert run("build", cwd=good.root).code == 0
    run("check", cwd=good.root)
    assert run("check", cwd=good.root).code == 0  # remembered now
    folder = good.root / ".toolgen_cache"
    (entry,) = (folder / "quick").glob("*.json")
    remembered = cache.load_entry(folder, "quick", entry.stem)
    remembered["text"] = "forged: all clear\n"
    cache.store_entry(folder, "quick", entry.stem, remembered)
    assert run("check", cwd=good.root).out == "forged: all clear\n"  # the control
    entry.chmod(0o646)
    result = run("check", cwd=good.root)
    assert "forged" not in result.out
    assert result.out.endswith("generated is up to date\n")
    assert "not using the cache entry" in result.err


def test_a_symlinked_entry_is_not_followed(good: Project, run: Runner) -> None:
    assert run("build", cwd=good.root).code == 0
    assert run("check", cwd=good.root).code == 0
    _edit(good)
    _forge_stamps(good, 0o600)
    for stamp in (good.root / ".toolgen_cache" / "stamps").glob("*.json"):
        forged = good.root / f"{stamp.stem}.forged"
        stamp.rename(forged)
        stamp.symlink_to(forged)
    assert run("check", cwd=good.root).code == 1


def test_entries_are_written_for_the_user_alone(good: Project, run: Runner) -> None:
    mask = os.umask(0o002)  # a group-shared project's umask
    try:
        assert run("build", cwd=good.root).code == 0
        assert run("check", cwd=good.root).code == 0
        assert run("check", cwd=good.root).code == 0
    finally:
        os.umask(mask)
    entries = list((good.root / ".toolgen_cache").glob("*/*.json"))
    assert {e.parent.name for e in entries} >= {"units", "stamps", "python", "quick"}
    assert {oct(e.stat().st_mode & 0o777) for e in entries} == {oct(0o600)}


def _stat(mode: int, uid: int, gid: int) -> os.stat_result:
    return os.stat_result((0o100000 | mode, 0, 0, 1, uid, gid, 0, 0, 0, 0))


def test_trust_follows_the_folder_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's own entry, written by no one else; writable by its group only when that is
    the user's own group, or the folder it is in is writable by the same group (whose members
    could replace the entry in any case)."""
    (tmp_path / "units").mkdir()
    (tmp_path / "units").chmod(0o755)
    uid, gid = os.getuid(), (tmp_path / "units").stat().st_gid
    monkeypatch.setattr(os, "getgid", lambda: gid)
    entry = str(tmp_path / "units" / "entry.json")
    assert cache.trusted(_stat(0o600, uid, gid), entry)
    assert cache.trusted(_stat(0o644, uid, gid), entry)
    assert not cache.trusted(_stat(0o600, uid + 1, gid), entry)  # another user's
    assert not cache.trusted(_stat(0o602, uid, gid), entry)  # anyone may write it
    assert cache.trusted(_stat(0o620, uid, gid), entry)  # the user's own group
    monkeypatch.setattr(os, "getgid", lambda: gid + 1)  # now the group is another one
    assert not cache.trusted(_stat(0o620, uid, gid), entry)
    (tmp_path / "units").chmod(0o775)  # ... that may replace the entry anyway
    assert cache.trusted(_stat(0o620, uid, gid), entry)
