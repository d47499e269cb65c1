"""Remembered answers: what a `toolgen build` or `check` answered from its stamp printed,
kept under its invocation so that the same invocation is answered before toolgen is imported.

When a run was answered from its stamp (`toolgen.incremental.stamp`: nothing it depends on
changed), the run stores what it printed and its exit code under the *invocation*: the
arguments, the working folder, the cache variables, Python's version, the `stat` of toolgen's
own files (as they were when this process started) and the umask. With it go the facts the
configuration was made of: the bytes of each `pyproject.toml` the search for `[tool.toolgen]`
read (or of `--config FILE`), the files and folders that decided the project root, and each
configured path with what it resolved to (a symlink). The next identical invocation checks
those facts and then the stamp itself (`toolgen.incremental.stamp.replay`), and prints the
stored text; any difference, or anything unexpected, falls through to the command line, which
compiles or replays as usual.

Standard library only: the console script (`toolgen.entry`) runs it before anything else.
`toolgen check` in a project of a thousand tools takes about as long as `python -c pass` plus
one `stat` per file.
"""

from __future__ import annotations

import functools
import os
import sys
import time

from toolgen._version import __version__
from toolgen.incremental.cache import (
    FOLDER,
    checksum,
    holds_secret,
    load_entry,
    ours,
    prune,
    store_entry,
)
from toolgen.read.files import open_regular

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    from toolgen.config import Config

KIND = "quick"
KEEP = 64  # invocations remembered: commands, formats and folders people run them from
COMMANDS = ("build", "check")
ENVIRONMENT = ("TOOLGEN_CACHE_DIR", "TOOLGEN_NO_CACHE")


def answer(argv: list[str]) -> int | None:
    """Print the remembered answer to `toolgen ARGV` and return its exit code, or None (and
    print nothing) when there is none or it may no longer hold."""
    started = time.time_ns()  # before anything is read (see `toolgen.incremental.stamp`)
    if not argv or argv[0] not in COMMANDS or no_cache():
        return None
    ident = invocation(argv, os.getcwd())
    name = _name(ident)
    for folder in folders(ident[1]):
        entry = load_entry(folder, KIND, name)
        if entry is not None:
            break
    else:
        return None
    try:
        if entry["invocation"] != ident or not _facts_hold(entry["facts"]):
            return None
        from toolgen.incremental.stamp import replay

        outcome = replay(folder, entry["stamp"], started)
        if outcome is None or outcome.ident != entry["outcome"]:
            return None
        text, code = entry["text"], entry["code"]
    except Exception:  # a damaged or foreign entry is a miss: a cache never breaks a run
        return None
    if not isinstance(text, str) or type(code) is not int or not 0 <= code <= 255:
        return None  # whole, and sealed, but not what this toolgen writes
    return print_answer(text, "", code)


def print_answer(out: str, err: str, code: int) -> int:
    """Print an answer; `code`, or 0 when the reader has gone (`toolgen check | head`), as
    the command line does."""
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
        sys.stderr.write(err)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return code


def remember(
    folder: Path,
    argv: Sequence[str],
    config_path: Path | None,
    config: Config,
    stamp_key: str,
    outcome_ident: str,
    text: str,
    code: int,
) -> None:
    """Store what the invocation `argv` printed (`text`) and returned (`code`) when answered
    from the stamp `stamp_key` with the outcome `outcome_ident`, for `answer` to repeat."""
    ident = invocation(list(argv), os.getcwd())
    if ident[1] != str(config.cwd):
        return  # a working folder that resolves elsewhere: not worth the care
    entry = {
        "invocation": ident,
        "facts": _facts(config_path, config),
        "stamp": stamp_key,
        "outcome": outcome_ident,
        "text": text,
        "code": code,
    }
    store_entry(folder, KIND, _name(ident), entry)
    prune(folder, KIND, keep=KEEP)


def no_cache() -> bool:
    return os.environ.get("TOOLGEN_NO_CACHE", "") not in ("", "0")


def invocation(argv: list[str], cwd: str, mask: int | None = None) -> tuple[Any, ...]:
    """Everything a run's answer depends on besides the files it reads (`mask`: the umask,
    which the files and folders a build makes get; read here unless given)."""
    env = tuple(os.environ.get(name) for name in ENVIRONMENT)
    mask = umask() if mask is None else mask
    return (tuple(argv), cwd, env, sys.version, __version__, _code(), mask)


def umask() -> int:
    """The process's umask (only where no other thread may be making files meanwhile)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _name(ident: tuple[Any, ...]) -> str:
    return "q" + checksum(repr(ident).encode()).decode()  # (marshal's bytes vary with refs)


@functools.cache
def _code() -> tuple[tuple[str, int, int], ...]:
    """The `stat` of toolgen's own Python files when this process first asked: the code it
    runs (a changed or reinstalled toolgen misses; a watch started before the change is not
    asked by a client started after it)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # toolgen/
    found = []
    for folder, folders, files in os.walk(here):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for file in sorted(files):
            if file.endswith(".py"):
                st = os.stat(f"{folder}/{file}")
                found.append((f"{folder}/{file}", st.st_size, st.st_mtime_ns))
    return tuple(found)


def folders(cwd: str) -> list[str]:
    """Where the cache folder may be: `$TOOLGEN_CACHE_DIR`, else `.toolgen_cache` in the
    working folder or above it (the project root is not known without the config); only
    folders of this user's (`ours`), in a folder that does not hold the secret (see
    `toolgen.incremental.cache.holds_secret`)."""
    override = os.environ.get("TOOLGEN_CACHE_DIR")
    if override:
        folder = os.path.realpath(os.path.join(cwd, override))
        return [folder] if ours(folder) else []
    found, folder = [], cwd
    while True:
        candidate = f"{folder.rstrip('/')}/{FOLDER}"
        if ours(candidate) and not holds_secret(folder):
            found.append(candidate)
        parent = os.path.dirname(folder)
        if parent == folder:
            return found
        folder = parent


def _facts(config_path: Path | None, config: Config) -> dict[str, list[Any]]:
    """What the configuration was made of, besides the invocation: see the module's doc."""
    files: list[tuple[str, bytes | None]] = []
    links: list[tuple[str, str]] = list(config.resolved)
    exists: list[tuple[str, bool, bool]] = []  # (path, only a file counts, there)
    assert config.config_file is not None
    if config_path is None:  # the search (`config.find_config`) read each of these
        for folder in (config.cwd, *config.cwd.parents):
            candidate = folder / "pyproject.toml"
            files.append((str(candidate), _read(str(candidate))))
            if candidate.resolve() == config.config_file:
                links.append((str(candidate), str(config.config_file)))
                break
    else:
        links.append((str(config.cwd / config_path), str(config.config_file)))
    files.append((str(config.config_file), _read(str(config.config_file))))
    if config.contract_file is not None:  # its tables are part of the configuration
        files.append((str(config.contract_file), _read(str(config.contract_file))))
    for folder in (config.config_file.parent, *config.config_file.parent.parents):
        marks = [(str(folder / "pyproject.toml"), True), (str(folder / ".git"), False)]
        exists.extend((path, only, _exists(path, only)) for path, only in marks)
        if folder == config.root:
            break
    return {"files": files, "links": links, "exists": exists}


def _facts_hold(facts: dict[str, list[Any]]) -> bool:
    if any(_read(path) != data for path, data in facts["files"]):
        return False
    if any(os.path.realpath(given) != resolved for given, resolved in facts["links"]):
        return False
    return all(_exists(path, only) == there for path, only, there in facts["exists"])


def _exists(path: str, only_files: bool) -> bool:
    return os.path.isfile(path) if only_files else os.path.exists(path)


def _read(path: str) -> bytes | None:
    """The bytes of a configuration file (None: none, or larger than one is read for)."""
    try:
        handle, st = open_regular(path)  # a FIFO put in its place is not waited for
        with handle:
            return handle.read() if st.st_size <= MAX_CONFIG_BYTES else None
    except OSError:
        return None


MAX_CONFIG_BYTES = 10_000_000  # `toolgen.config.MAX_CONFIG_BYTES` (not imported: the fast path)
