"""What a hostile repository cannot do to `build` and `check` (issue: the red team's cache,
link, hang and permission findings). CI runs `toolgen check` on pull requests, so everything
in the checkout is the attacker's: a committed cache folder, symlinks anywhere, FIFOs where
files are expected, folders that cannot be read or written.

- Nothing from the repository is believed as a cache: entries are authenticated with a secret
  of the user's, kept outside any project, so a forged stamp, unit or remembered answer (made
  exactly as toolgen makes them, with another secret) is a miss, and `check` does the full work.
- No path toolgen reads or writes leads out of the project through a symlink, and the cache
  deletes only entries it wrote.
- Only regular files are read, to a cap: no hang, no endless read.
- Damaged or odd data and permission errors are misses or located diagnostics, never a
  traceback, and a build that cannot complete changes nothing in `out`.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import resource
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import CONFIG as CONFIG_TEXT
from conftest import Project, Run, tool_source
from toolgen.incremental import cache
from toolgen.incremental.stamp import file_stat
from toolgen.watch import protocol

Runner = Callable[..., Run]

CACHE = ".toolgen_cache"


def _toolgen(
    cwd: Path,
    *argv: str,
    env: dict[str, str] | None = None,
    prefix: list[str] | None = None,
    memory: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """`toolgen ARGV` in a process of its own, killed (and the test failed) if it hangs;
    `memory`: the most bytes of address space it may take (an endless read fails fast)."""

    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [*(prefix or []), sys.executable, "-m", "toolgen", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **(env or {})},
        timeout=60,
        check=False,
        preexec_fn=limit,
    )


def _tree(folder: Path) -> dict[str, str]:
    """Every entry under `folder` (not following symlinks), with its bytes or link target."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[rel] = f"-> {path.readlink()}"
        elif path.is_dir():
            found[rel] = "/"
        else:
            found[rel] = path.read_bytes().hex()
    return found


def _secret_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, who: str) -> None:
    """Be `who`: a user whose cache secret lives in a folder of their own."""
    home = tmp_path / f"home-{who}"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))


MODELS = """
from typing import Literal

Kind = Literal["book", "film"]
"""

HANDLER = '''
from toolgen import tool
from shop.models import Kind


@tool
def search(query: str, kind: Kind = "book") -> str:
    """Search the catalog. Use it for product questions.

    Args:
        query: The query.
        kind: The kind.
    """
    raise NotImplementedError
'''


@pytest.fixture
def shop(project: Project) -> Project:
    project.write("src/shop/__init__.py", "")
    project.write("src/shop/models.py", MODELS)
    project.write("src/shop/tools.py", HANDLER)
    return project


def _as_checked_out(folder: Path) -> None:
    """The modes a git checkout gives what it writes (umask 022)."""
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


# -- 1. a forged cache ---------------------------------------------------------------------
def _forge(project: Project, kinds: tuple[str, ...]) -> None:
    """What the attacker commits: toolgen's own entries of the last build, each vouching for
    the files as they are now (edited), written as toolgen writes them (with the attacker's
    own secret, the only thing the attacker does not have of the CI's)."""
    folder = project.root / CACHE
    for kind in kinds:
        for path in (folder / kind).glob("*.json"):
            entry = cache.load_entry(folder, kind, path.stem)
            assert entry is not None, path
            for source, was in entry["read"].items():
                sha = hashlib.sha256(Path(source).read_bytes()).hexdigest()
                # a stamp keeps each file's `stat` with its sha256, a unit the sha256 alone
                entry["read"][source] = sha if isinstance(was, str) else (sha, *file_stat(source))
            cache.store_entry(folder, kind, path.stem, entry)


@pytest.mark.parametrize("kinds", [("stamps",), ("units",)], ids=["stamp", "units"])
def test_a_committed_cache_forged_without_the_secret_does_not_make_check_green(
    shop: Project, run: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kinds: Any
) -> None:
    """A committed `.toolgen_cache` made `check` in a fresh clone say "up to date" while the
    handlers (here: a model they import) had changed. The attacker builds on a machine of
    their own (same CI path: the key is predictable), edits the model, and forges the
    entries to vouch for the edit. In CI (another user's secret) they are misses: `check`
    is as strict as `check --no-cache`."""
    _secret_home(tmp_path, monkeypatch, "attacker")
    assert run("build", cwd=shop.root).code == 0
    assert run("check", cwd=shop.root).code == 0  # stamped
    shop.write("src/shop/models.py", MODELS.replace('"film"', '"film", "game"'))
    _forge(shop, kinds)
    if kinds == ("units",):
        shutil.rmtree(shop.root / CACHE / "stamps")
        shutil.rmtree(shop.root / CACHE / "quick", ignore_errors=True)
    assert run("check", cwd=shop.root).code == 0  # the forgery works where it was made
    _as_checked_out(shop.root)  # a fresh clone of the pull request

    _secret_home(tmp_path, monkeypatch, "ci")
    strict = run("check", "--no-cache", cwd=shop.root)
    assert strict.code == 1 and "generated/descriptors/search.json: changed" in strict.out
    result = run("check", cwd=shop.root)
    assert (result.code, result.out) == (strict.code, strict.out)
    assert _toolgen(shop.root, "check").returncode == 1  # the console script's shortcut too


def test_a_remembered_answer_forged_without_the_secret_is_not_printed(
    shop: Project, run: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The console script prints a remembered answer before anything else loads."""
    _secret_home(tmp_path, monkeypatch, "attacker")
    assert run("build", cwd=shop.root).code == 0
    run("check", cwd=shop.root)
    assert run("check", cwd=shop.root).code == 0  # remembered now
    folder = shop.root / CACHE
    (entry,) = (folder / "quick").glob("*.json")
    remembered = cache.load_entry(folder, "quick", entry.stem)
    remembered["text"] = "forged: all clear\n"
    cache.store_entry(folder, "quick", entry.stem, remembered)
    assert run("check", cwd=shop.root).out == "forged: all clear\n"  # where it was made
    _secret_home(tmp_path, monkeypatch, "ci")
    result = run("check", cwd=shop.root)
    assert "forged" not in result.out
    assert result.out.endswith("generated is up to date\n")


Reply = Callable[[bytes], bytes]  # what a listener answers to a request (after `accepted`)


@pytest.fixture
def listener(project: Project) -> Iterator[Callable[[Reply], None]]:
    """A process of the user's own that listens where the watch does and answers every
    request with what the function it is given makes of the request."""
    folder = project.root / CACHE
    folder.mkdir(mode=0o700)
    replies: list[Reply] = []
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        server.bind(str(folder / protocol.SOCKET))
    finally:
        os.umask(old)
    server.listen(4)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            with connection, connection.makefile("rb") as stream:
                connection.settimeout(5)
                request = stream.read()  # the whole request (the client shuts its side)
                connection.sendall(protocol.ACCEPTED + replies[-1](request))
                connection.shutdown(socket.SHUT_WR)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    os.chdir(project.root)
    yield replies.append
    stop.set()
    thread.join()
    server.close()


def test_a_listener_without_the_secret_does_not_answer_check(
    project: Project,
    listener: Callable[[Reply], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Whatever listens on the watch's socket (here: a process of the user's own that is no
    toolgen watch, and does not hold the secret) must prove it holds the user's secret: the
    answer of a watch is believed exactly as a cache entry is."""
    project.write("src/tools.py", tool_source())
    forged = marshal.dumps((0, "toolgen: generated is up to date\n", ""))
    listener(lambda _: b"ok\n" + forged)
    assert protocol.forward(["check"]) is None
    assert capsys.readouterr().out == ""
    listener(lambda _: b"ok " + b"0" * 64 + b"\n" + forged)
    assert protocol.forward(["check"]) is None
    assert capsys.readouterr().out == ""
    listener(lambda request: _sealed(request, forged))  # the control: a watch's own seal
    assert protocol.forward(["check"]) == 0
    assert capsys.readouterr().out == "toolgen: generated is up to date\n"


# -- 2. links lead out and delete ------------------------------------------------------------
def _victim(tmp_path: Path) -> Path:
    """A folder of the user's outside the project, full of files named like cache entries
    and staged files, and old enough for any pruning."""
    victim = tmp_path / "victim"
    victim.mkdir()
    old = time.time_ns() - 7200 * 10**9
    names = [f"{n:040x}.json" for n in range(40)] + ["q0123456789abcdef.json", "notes.txt"]
    names += ["0", "1", "journal.json", "journal.json.part", ".gitignore", "123.4"]
    names += [f".{'a' * 40}.json.99.tmp"]
    for name in names:
        (victim / name).write_text(f"the user's {name}\n")
        os.utime(victim / name, ns=(old, old))
    return victim


def _exercise(shop: Project, run: Runner) -> list[Run]:
    """Builds and checks that store, prune and read every kind of cache entry."""
    runs = [run("build", cwd=shop.root), run("check", cwd=shop.root), run("check", cwd=shop.root)]
    for n in range(3):
        shop.write("src/shop/tools.py", HANDLER + f"\n# version {n}\n")
        runs += [run("build", cwd=shop.root), run("check", cwd=shop.root)]
    return runs


@pytest.mark.parametrize("link", [CACHE, f"{CACHE}/stamps", f"{CACHE}/units", f"{CACHE}/quick"])
def test_a_symlinked_cache_folder_deletes_and_writes_nothing_outside(
    shop: Project,
    run: Runner,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    link: str,
) -> None:
    """A committed `.toolgen_cache/stamps -> ~` let pruning delete all but the 16 newest
    files of the folder it points to. A cache folder or entry folder that is a symlink is not
    used (said once on stderr), and nothing is read, written or removed through it."""
    monkeypatch.setattr(time, "time_ns", time.time_ns)
    victim = _victim(tmp_path)
    before = _tree(victim)
    (shop.root / link).parent.mkdir(parents=True, exist_ok=True)
    (shop.root / link).symlink_to(victim)
    for result in _exercise(shop, run):
        assert result.code == 0, result.out + result.err
    assert _tree(victim) == before
    assert (shop.root / link).is_symlink()


def test_a_cache_dir_variable_at_a_folder_in_use_deletes_none_of_its_files(
    shop: Project, run: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`TOOLGEN_CACHE_DIR` pointed at a folder already in use made pruning delete all but
    its 16 newest files: the cache deletes only entries it wrote."""
    used = tmp_path / "used"
    used.mkdir()
    for kind in ("stamps", "units", "quick", "python", "trash"):
        (tmp_path / kind).mkdir()
        shutil.copytree(_victim(tmp_path / kind), used / kind)
    before = _tree(used)
    monkeypatch.setenv("TOOLGEN_CACHE_DIR", str(used))
    for result in _exercise(shop, run):
        assert result.code == 0, result.out + result.err
    after = _tree(used)
    assert {k: v for k, v in after.items() if k in before} == before
    assert {k.partition("/")[0] for k in after.keys() - before.keys()} >= {"stamps", "units"}


def test_a_symlinked_pending_folder_is_refused_before_anything_is_touched(
    shop: Project, run: Runner, tmp_path: Path
) -> None:
    """`out/.toolgen-pending -> somewhere` made `build` delete the files there named like
    staged files (`0`, `1`, `journal.json`, ...)."""
    assert run("build", cwd=shop.root).code == 0
    victim = _victim(tmp_path)
    before, out_before = _tree(victim), shop.snapshot()
    (shop.out / ".toolgen-pending").symlink_to(victim)
    for command in ("build", "check"):
        result = run(command, cwd=shop.root)
        assert result.code == 2, result.out + result.err
        assert "generated/.toolgen-pending:1:1: TG011 [error]" in result.out, result.out
    assert _tree(victim) == before
    assert shop.snapshot() == out_before


@pytest.mark.parametrize("sources", ["src", "src/shop/tools.py"])
def test_a_model_module_symlinked_out_of_the_project_is_not_read(
    shop: Project, run: Runner, tmp_path: Path, sources: str
) -> None:
    """A model module that is a symlink out of the project was read: a secret file that
    parses as Python ended up in the generated files and `toolgen show`. (Under a source
    folder it is a source too, which discovery refused already for `build`; imported from
    elsewhere in the project, it was read by every command.)"""
    shop.write("pyproject.toml", CONFIG_TEXT.replace('"src"', f'"{sources}"'))
    secret = tmp_path / "secrets" / "credentials.py"
    secret.parent.mkdir()
    secret.write_text(
        'from typing import Literal\n\nKind = Literal["book", "hunter2-secret-token"]\n'
    )
    models = shop.root / "src" / "shop" / "models.py"
    models.unlink()
    models.symlink_to(secret)
    for argv in (("build",), ("check",), ("show", "search"), ("stats",)):
        result = run(*argv, cwd=shop.root)
        assert "hunter2" not in result.out + result.err, argv
        assert result.code == (0 if argv == ("stats",) else 2), (argv, result.out)
        assert (
            f"src/shop/models.py:1:1: TG015 [error] not read: a symlink to {secret}, outside "
            f"the project {shop.root}"
        ) in result.out + result.err, result.out
    assert not shop.out.exists()


# -- 3. hangs and floods ---------------------------------------------------------------------
@pytest.mark.parametrize("command", ["check", "build"])
def test_a_fifo_for_the_manifest_does_not_hang(shop: Project, run: Runner, command: str) -> None:
    assert run("build", cwd=shop.root).code == 0
    (shop.out / "manifest.json").unlink()
    os.mkfifo(shop.out / "manifest.json")
    result = _toolgen(shop.root, command)
    assert "Traceback" not in result.stderr, result.stderr
    if command == "check":
        assert result.returncode == 1
        assert "generated/manifest.json: changed" in result.stdout, result.stdout
    else:
        assert result.returncode == 2
        assert (
            "generated/manifest.json:1:1: TG008 [error] cannot write generated/manifest.json: "
            "it is not a regular file"
        ) in result.stdout, result.stdout


@pytest.mark.parametrize("journal", ["fifo", "dev-zero", "huge"])
def test_a_journal_that_is_no_regular_file_or_too_large_is_not_read(
    shop: Project, run: Runner, journal: str
) -> None:
    """A FIFO for the journal hung `build`; a symlink to /dev/zero read without end."""
    assert run("build", cwd=shop.root).code == 0
    before = shop.snapshot()
    pending = shop.out / ".toolgen-pending"
    pending.mkdir()
    path = pending / "journal.json"
    if journal == "fifo":
        os.mkfifo(path)
    elif journal == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        with open(path, "wb") as handle:  # sparse: takes no room
            handle.truncate(1 << 40)
    check = _toolgen(shop.root, "check")
    assert check.returncode == 1 and "was interrupted" in check.stdout, check.stdout
    result = _toolgen(shop.root, "build", memory=2 << 30)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 2, result.stdout
    assert "TG008 [error] cannot write generated/.toolgen-pending/journal.json" in result.stdout
    shutil.rmtree(pending)  # (a sparse terabyte the snapshot would read)
    assert shop.snapshot() == before


# -- 4. odd data and permissions ---------------------------------------------------------------
def _entry(folder: Path, kind: str) -> tuple[str, dict[str, Any]]:
    (path,) = (folder / kind).glob("*.json")
    entry = cache.load_entry(folder, kind, path.stem)
    assert isinstance(entry, dict)
    return path.stem, entry


@pytest.mark.parametrize(
    ("kind", "field", "value"),
    [
        ("stamps", "tools", "many"),
        ("stamps", "lines", 5),
        ("stamps", "lines", {"text": 5, "github": b""}),
        ("stamps", "found", [("TG001", "nonsense")]),
        ("stamps", "found", 7),
        ("stamps", "rows", 3),
        ("stamps", "ident", None),
        ("stamps", "read", {"/nonexistent": 5}),
        ("stamps", "outputs", [1, 2]),
        ("quick", "text", 5),
        ("quick", "code", "x"),
        ("quick", "code", 2**70),
        ("quick", "facts", {"files": 5, "links": [], "exists": []}),
        ("quick", "stamp", 12),
    ],
)
def test_an_entry_with_fields_of_unexpected_types_is_a_miss(
    shop: Project, run: Runner, kind: str, field: str, value: Any
) -> None:
    """An entry whose bytes are whole (its check holds: toolgen wrote them, of another
    version or with a bug) but whose fields are not what this toolgen expects was a
    traceback; it is a miss."""
    assert run("build", cwd=shop.root).code == 0
    run("check", cwd=shop.root)
    run("check", cwd=shop.root)  # remembered
    folder = shop.root / CACHE
    key, entry = _entry(folder, kind)
    entry[field] = value
    cache.store_entry(folder, kind, key, entry)
    strict = run("check", "--no-cache", cwd=shop.root)
    for fmt in ("text", "json", "github"):
        result = run("check", "--format", fmt, cwd=shop.root)
        again = run("check", "--format", fmt, "--no-cache", cwd=shop.root)
        assert (result.code, result.out) == (again.code, again.out)
    assert strict.code == 0
    process = _toolgen(shop.root, "check")
    assert (process.returncode, process.stderr) == (0, ""), process.stderr


def _retyped(entry: dict[str, Any], where: str) -> None:
    """Give one value of a unit `entry` (see `toolgen.incremental.units`) a wrong type."""
    tool = entry["tools"][0]
    if where == "shown":
        entry["shown"] = 5
    elif where == "missing":
        entry["missing"] = [*entry["missing"], 5]
    elif where == "tool name":
        tool["name"] = b"search"
    elif where == "tool line":
        tool["where"] = (tool["where"][0], "1", 1)
    elif where == "visible":
        tool["visible"] = 1
    elif where == "chunk":
        chunks = tool["render"]["chunks"]
        chunks[next(iter(chunks))] = "text"
    else:
        entry["diagnostics"] = [{"code": "TG901", "message": 5, "level": "info", "path": None}]


@pytest.mark.parametrize(
    "where", ["shown", "missing", "tool name", "tool line", "visible", "chunk", "diagnostic"]
)
def test_a_unit_with_values_of_unexpected_types_is_a_miss(
    shop: Project, run: Runner, where: str
) -> None:
    """A reused file's unit (an edit rebuilds the others from theirs) whose bytes are whole
    but whose values are not what this toolgen writes is analysed again."""
    shop.write("src/shop/more.py", tool_source(name="count"))
    assert _toolgen(shop.root, "build").returncode == 0  # the cache key of a process's run
    folder = shop.root / CACHE
    units = [path.stem for path in (folder / "units").glob("*.json")]
    found = [(key, cache.load_entry(folder, "units", key)) for key in units]
    ((key, entry),) = [(k, e) for k, e in found if e["shown"].endswith("more.py")]
    _retyped(entry, where)
    cache.store_entry(folder, "units", key, entry)
    shop.write("src/shop/tools.py", HANDLER.replace("Search", "Look for", 1))
    process = _toolgen(shop.root, "build")
    assert (process.returncode, process.stderr) == (0, ""), process.stderr
    assert run("check", "--no-cache", cwd=shop.root).code == 0
    assert shop.descriptor("count")["name"] == "count"


def _sealed(request: bytes, body: bytes) -> bytes:
    """The `ok` line and `body` as a watch that holds the user's secret sends them."""
    seal = getattr(protocol, "sealed_reply", None)
    if seal is None:  # toolgen before replies were sealed
        return b"ok\n" + body
    _, _, nonce = marshal.loads(request.partition(b"\n")[2])
    return seal(nonce, body)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "body",
    [
        marshal.dumps(("x", "out", "")),
        marshal.dumps((0, 5, "")),
        marshal.dumps((0, "out", None)),
        marshal.dumps((2**80, "out", "")),
        marshal.dumps([0, "out"]),
        b"\x00garbage",
        b"",
    ],
    ids=["code-str", "out-int", "err-none", "code-huge", "list", "garbage", "empty"],
)
def test_a_malformed_reply_from_the_watch_is_no_answer(
    project: Project,
    listener: Callable[[Reply], None],
    capsys: pytest.CaptureFixture[str],
    body: bytes,
) -> None:
    """Sealed as a watch seals it, but not what a watch of this version sends: the client
    runs the command itself (was a traceback)."""
    project.write("src/tools.py", tool_source())
    listener(lambda request: _sealed(request, body))
    assert protocol.forward(["check"]) is None
    assert capsys.readouterr() == ("", "")


def _unprivileged() -> list[str]:
    """The prefix of a command whose permission bits hold: root bypasses them, so as root the
    process runs without capabilities (util-linux's setpriv)."""
    if not hasattr(os, "getuid") or os.getuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: permission bits do not stop root")
    return [setpriv, "--inh-caps=-all", "--bounding-set=-all", "--"]


@pytest.fixture
def restore_modes(tmp_path: Path) -> Iterator[list[Path]]:
    """Folders made unreadable or unwritable by a test, made usable again afterwards (pytest
    must be able to remove them)."""
    changed: list[Path] = []
    yield changed
    for path in changed:
        path.chmod(0o755)


def test_a_folder_in_out_that_cannot_be_written_is_refused_before_the_commit(
    shop: Project, run: Runner, restore_modes: list[Path]
) -> None:
    """Found only when the files were moved in, after the commit: `out` was left half old,
    half new. Now the build refuses before it stages anything, and `out` is unchanged."""
    prefix = _unprivileged()
    shop.write("src/shop/other.py", tool_source(name="other"))
    assert run("build", cwd=shop.root).code == 0
    shop.write("src/shop/tools.py", HANDLER.replace("Search the catalog", "Search the shop"))
    shop.write("src/shop/other.py", tool_source(name="other").replace("catalog", "shop"))
    before = shop.snapshot()
    locked = shop.out / "descriptors"
    locked.chmod(0o555)
    restore_modes.append(locked)
    result = _toolgen(shop.root, "build", prefix=prefix)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, result.stdout
    assert (
        "generated/descriptors:1:1: TG008 [error] cannot write generated/descriptors: "
        "Permission denied; nothing in generated was changed"
    ) in result.stdout, result.stdout
    assert shop.snapshot() == before
    assert not (shop.out / ".toolgen-pending").exists()
    check = _toolgen(shop.root, "check", prefix=prefix)
    assert check.returncode == 1 and "was interrupted" not in check.stdout


def test_a_pending_folder_that_cannot_be_removed_is_a_diagnostic(
    shop: Project, run: Runner, restore_modes: list[Path]
) -> None:
    prefix = _unprivileged()
    assert run("build", cwd=shop.root).code == 0
    pending = shop.out / ".toolgen-pending"
    pending.mkdir()
    (pending / "0").write_text("staged\n")
    pending.chmod(0o555)
    restore_modes.append(pending)
    shop.write("src/shop/tools.py", HANDLER.replace("Search the catalog", "Search the shop"))
    before = shop.snapshot()
    result = _toolgen(shop.root, "build", prefix=prefix)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, result.stdout
    assert (
        "generated/.toolgen-pending/0:1:1: TG008 [error] cannot write "
        "generated/.toolgen-pending/0: Permission denied"
    ) in result.stdout, result.stdout
    assert shop.snapshot() == before


def test_a_source_folder_that_cannot_be_listed_is_a_located_error(
    shop: Project, run: Runner, restore_modes: list[Path]
) -> None:
    prefix = _unprivileged()
    hidden = shop.root / "src" / "shop" / "sub"
    hidden.mkdir()
    (hidden / "more.py").write_text(tool_source(name="more"))
    hidden.chmod(0o000)
    restore_modes.append(hidden)
    for command in ("build", "check"):
        result = _toolgen(shop.root, command, prefix=prefix)
        assert "Traceback" not in result.stderr, result.stderr
        assert result.returncode == 2, result.stdout
        assert (
            "src/shop/sub:1:1: TG005 [error] cannot read src/shop/sub: cannot list the "
            "folder (Permission denied)"
        ) in result.stdout, result.stdout
    assert not shop.out.exists()


def test_a_project_folder_that_cannot_be_read_is_a_diagnostic(
    shop: Project, run: Runner, tmp_path: Path, restore_modes: list[Path]
) -> None:
    prefix = _unprivileged()
    shop.root.chmod(0o000)
    restore_modes.append(shop.root)
    config = str(shop.root / "pyproject.toml")
    for argv in (("check", "--config", config), ("build", "--config", config)):
        result = _toolgen(tmp_path, *argv, prefix=prefix)
        assert "Traceback" not in result.stderr, result.stderr
        assert result.returncode == 2, result.stdout
        assert "TG001 [error]" in result.stdout and "Permission denied" in result.stdout


# -- found by red-teaming the above ----------------------------------------------------------
@pytest.mark.parametrize("target", ["loop", "dangling"])
def test_a_package_init_that_is_a_broken_symlink_is_a_diagnostic(
    shop: Project, run: Runner, target: str
) -> None:
    """`src/shop/__init__.py` as a symlink loop or a dangling symlink gave a module with no
    name, and a traceback."""
    init = shop.root / "src" / "shop" / "__init__.py"
    init.unlink()
    init.symlink_to("__init__.py" if target == "loop" else shop.root.parent / "nowhere.py")
    for command in ("build", "check"):
        result = run(command, cwd=shop.root)
        assert result.code == 2, result.out + result.err
        code = "TG005" if target == "loop" else "TG015"
        assert f"src/shop/__init__.py:1:1: {code} [error]" in result.out, result.out


def test_a_sparse_terabyte_pyproject_is_not_read(shop: Project) -> None:
    """The configuration file is read to a cap, as a source is (was a MemoryError)."""
    with open(shop.root / "pyproject.toml", "r+b") as handle:
        handle.truncate(1 << 40)
    for argv in (("check",), ("build",), ("check", "--config", "pyproject.toml")):
        result = _toolgen(shop.root, *argv, memory=2 << 30)
        assert "Traceback" not in result.stderr, result.stderr[-2000:]
        assert result.returncode == 2, result.stdout
        assert (
            "TG001 [error] cannot read pyproject.toml: it has more than 10,000,000 bytes"
        ) in result.stdout, result.stdout


def test_a_project_folder_that_cannot_be_listed_stops_build_with_a_diagnostic(
    shop: Project, run: Runner, restore_modes: list[Path]
) -> None:
    """Its files can be reached (x), not listed (no r): the build lock on it was a
    traceback."""
    prefix = _unprivileged()
    assert run("build", cwd=shop.root).code == 0
    shop.write("src/shop/tools.py", HANDLER.replace("Search the catalog", "Search the shop"))
    before = shop.snapshot()
    shop.root.chmod(0o300)
    restore_modes.append(shop.root)
    result = _toolgen(shop.root, "build", prefix=prefix)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, result.stdout
    assert "TG008 [error] cannot write" in result.stdout and "Permission denied" in result.stdout
    shop.root.chmod(0o755)
    assert shop.snapshot() == before


def test_a_pyproject_symlinked_out_of_the_project_is_refused(
    shop: Project, run: Runner, tmp_path: Path
) -> None:
    """A committed `pyproject.toml -> ../other/pyproject.toml` made the other project the
    project: `check` read its sources and `build` wrote its `generated/`. A link inside the
    project (or its git work tree) is still followed; `--config FILE` names one on purpose."""
    other = Project(tmp_path / "other")
    other.write("pyproject.toml", (shop.root / "pyproject.toml").read_text())
    other.write("src/tools.py", tool_source(name="elsewhere"))
    before = _tree(other.root)
    (shop.root / "pyproject.toml").unlink()
    (shop.root / "pyproject.toml").symlink_to(other.root / "pyproject.toml")
    for command in ("build", "check"):
        result = run(command, cwd=shop.root)
        assert result.code == 2, result.out
        assert (
            "pyproject.toml:1:1: TG001 [error] configuration file pyproject.toml is a symlink "
            f"to {other.root / 'pyproject.toml'}, outside the project"
        ) in result.out
    assert _tree(other.root) == before
    inside = shop.root / "config" / "toolgen.toml"
    inside.parent.mkdir()
    inside.write_text(
        CONFIG_TEXT.replace('"src"', '"../src"').replace('"generated"', '"../generated"')
    )
    (shop.root / "pyproject.toml").unlink()
    (shop.root / "pyproject.toml").symlink_to("config/toolgen.toml")
    (shop.root / ".git").mkdir()  # the work tree the link stays in
    result = run("build", cwd=shop.root)
    assert result.code == 0, result.out
    assert shop.descriptor("search")["name"] == "search"


@pytest.mark.parametrize("spoil", ["readable", "symlink", "short", "in-project"])
def test_a_secret_others_could_know_is_not_used(
    shop: Project, run: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spoil: str
) -> None:
    """The secret is made readable by the user alone, in a folder of theirs; one that others
    can read, a symlink, a damaged one, or one inside the project (a checkout in the home
    folder could commit it) is not used: the run says so and goes on without the cache."""
    _secret_home(tmp_path, monkeypatch, "user")
    assert run("build", cwd=shop.root).code == 0
    folder = tmp_path / "home-user" / "toolgen"
    secret = folder / "secret"
    assert (secret.stat().st_mode & 0o777, folder.stat().st_mode & 0o777) == (0o600, 0o700)
    shutil.rmtree(shop.root / CACHE)
    if spoil == "readable":
        secret.chmod(0o644)
    elif spoil == "symlink":
        secret.rename(tmp_path / "elsewhere")
        secret.symlink_to(tmp_path / "elsewhere")
    elif spoil == "short":
        secret.write_bytes(b"short")
    else:
        shutil.copytree(tmp_path / "home-user", shop.root / ".cache")
        monkeypatch.setenv("XDG_CACHE_HOME", str(shop.root / ".cache"))
    cache._secrets.clear()  # (a new process reads it again)
    for command in ("build", "check"):
        result = run(command, cwd=shop.root)
        assert result.code == 0, result.out
        assert "toolgen: not using the cache folder .toolgen_cache: " in result.err
    assert not (shop.root / CACHE).exists()


@pytest.mark.parametrize("inside", [".cache", "generated", "src"])
def test_a_secret_folder_inside_the_project_is_not_made(
    shop: Project, run: Runner, monkeypatch: pytest.MonkeyPatch, inside: str
) -> None:
    """XDG_CACHE_HOME (or HOME) inside the project: the cache is not used, and no secret is
    written there first (a file nobody asked for in the project; in `out`, a file that
    differs at each build)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(shop.root / inside))
    cache._secrets.clear()
    before = sorted(p.relative_to(shop.root) for p in shop.root.rglob("*"))
    for command in ("build", "check"):
        result = run(command, cwd=shop.root)
        assert result.code == 0, result.out
        assert "the project holds the folder of the key of its entries" in result.err
    assert not (shop.root / inside / "toolgen").exists()
    after = sorted(p.relative_to(shop.root) for p in shop.root.rglob("*"))
    assert [p for p in after if p not in before and p.parts[0] != "generated"] == []


# -- the red team's layouts, kept: a symlink out wherever toolgen reads or writes --------------
@pytest.mark.parametrize(
    "rel",
    [
        "generated",
        "generated/descriptors",
        "generated/manifest.json",
        "generated/descriptors/search.json",
        "generated/.toolgen-pending",
        "generated/.toolgen-pending/journal.json",
        ".toolgen_cache",
        ".toolgen_cache/stamps",
        ".toolgen_cache/units",
        ".toolgen_cache/python",
        ".toolgen_cache/trash",
        "src/shop/models.py",
        "src/shop/new.py",
        "src/shop/__init__.py",
        "pyproject.toml",
    ],
)
@pytest.mark.parametrize("to", ["folder", "secret"])  # /dev/zero: in processes of their own
def test_a_symlink_out_anywhere_changes_and_leaks_nothing_outside(
    shop: Project, run: Runner, tmp_path: Path, rel: str, to: str
) -> None:
    """Wherever the repository puts a symlink out of the project (to a folder of the user's,
    to a secret that parses as Python, to /dev/zero), `check` and `build` end with a located
    answer (never a traceback), change nothing outside the project and print none of it;
    and with handlers edited since the committed build, `check` is never green. (A symlink
    to /dev/zero is tried in processes of their own, with a cap on their memory: here, a
    regression would read without end in the test's own process.)"""
    assert run("build", cwd=shop.root).code == 0
    shop.write("src/shop/tools.py", HANDLER.replace("Search the catalog", "Search the store"))
    victim = _victim(tmp_path)
    secret = tmp_path / "secret.py"
    secret.write_text('from typing import Literal\n\nKind = Literal["book", "hunter2-token"]\n')

    def outside() -> dict[str, str]:  # (the secret's folder aside: made on first use)
        return {k: v for k, v in _tree(tmp_path).items() if not k.startswith(("proj", "xdg"))}

    before = outside()
    path = shop.root / rel
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(victim if to == "folder" else secret)
    codes = []
    for command in ("check", "build", "check"):
        result = run(command, cwd=shop.root)
        assert "internal error" not in result.err, result.err
        assert "hunter2" not in result.out + result.err
        codes.append(result.code)
    assert codes[0] in (1, 2) and set(codes) <= {0, 1, 2}, codes
    if shop.out.is_dir() and not shop.out.is_symlink():
        written = [p for p in shop.out.rglob("*") if p.is_file() and not p.is_symlink()]
        assert not [p for p in written if b"hunter2" in p.read_bytes()]
    assert run("check", cwd=shop.root).code == run("check", "--no-cache", cwd=shop.root).code
    assert outside() == before
