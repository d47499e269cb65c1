"""The file system a server starts with, as toolgen reads it: a fresh machine that holds the
project and nothing of the server's configuration. A path inside the project's sources
(`Path(__file__).parent / "openapi.yaml"`, `importlib.resources.files("pkg")`; not a hidden
one: `toolgen.read.index.ModuleIndex.data_file`) is what the project holds: it exists when
the file does, and a server that opens it reads its text (`Opened`); JSON and YAML are
loaded by `data`. Any other path does not exist: one relative to the (empty) working folder,
under the (empty) home folder (`~`), or elsewhere on the machine (`/data/shops.json`,
`/etc/app/config.yaml`): `Path(".env").exists()` is False, and opening it raises, as
`FileNotFoundError` is raised where the server starts with nothing beside it (inside a
`try`; outside any, what it gives is unknown: `Interpreter.fails`).
"""

from __future__ import annotations

import ast
import fnmatch
import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, Protocol

from toolgen.read.registration.frames import Raising
from toolgen.read.registration.stdlib import MAX_ITEMS
from toolgen.read.registration.values import (
    Const,
    FilePath,
    Opened,
    PathMethod,
    Seq,
    Unknown,
    Value,
)

if TYPE_CHECKING:
    from toolgen.read.index import Module


class Disk(Protocol):
    """What toolgen reads of the project's files (`toolgen.read.index.ModuleIndex`)."""

    def data_file(self, path: str) -> bytes | None: ...
    def holds(self, path: str) -> Literal["file", "folder", ""] | None: ...
    def listing(self, path: str) -> list[str] | None: ...
    def get(self, name: str) -> Module | None: ...


#: The classes that make a path, by the paths a project imports them with.
PATH_CLASSES = frozenset({"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"})
#: What asking whether a path exists is called, as a function of `os.path`.
EXISTS = {
    "os.path.exists": "exists",
    "os.path.lexists": "exists",
    "os.path.isfile": "is_file",
    "os.path.isdir": "is_dir",
}
#: Path methods that ask whether it exists, and those that give the same path again.
ASKS = frozenset({"exists", "is_file", "is_dir"})
SAME = frozenset({"expanduser", "resolve", "absolute"})
#: Path methods that read the file, with the mode they open it in.
READERS = {"read_text": "r", "read_bytes": "rb", "open": "r"}
#: What opens a file for reading.
OPENERS = frozenset({"builtins.open", "io.open", "codecs.open"})
#: What gives the folder of a package (`files("pkg") / "data.json"`).
RESOURCES = frozenset({"importlib.resources.files", "importlib_resources.files"})
#: `os.path` functions of a path that give a path (as a string).
STRING_PATHS: dict[str, Callable[[str], str]] = {
    "os.path.dirname": posixpath.dirname,
    "os.path.basename": posixpath.basename,
    "os.path.abspath": posixpath.normpath,
    "os.path.realpath": posixpath.normpath,
    "os.path.normpath": posixpath.normpath,
}
#: Pure path methods that give the path with its last part changed.
RENAMED: dict[str, Callable[[str, str], str]] = {
    "with_name": lambda name, new: new,
    "with_suffix": lambda name, new: posixpath.splitext(name)[0] + new,
    "with_stem": lambda name, new: new + posixpath.splitext(name)[1],
}
#: The parts of a path its attributes name.
PARTS: dict[str, Callable[[str], str]] = {
    "name": posixpath.basename,
    "stem": lambda p: posixpath.splitext(posixpath.basename(p))[0],
    "suffix": lambda p: posixpath.splitext(p)[1],
}


def text(value: Value) -> str | None:
    """The path `value` names, when known."""
    if isinstance(value, FilePath):
        return value.text
    if isinstance(value, Const) and isinstance(value.value, str):
        return value.value
    return None


def absent(path: str) -> bool:
    """Whether nothing is at `path` in an empty working and home folder."""
    return not path.startswith("/") or path.startswith("~")


def exists(path: str, node: ast.AST, disk: Disk, asked: str = "exists") -> Value:
    """`os.path.exists(p)`, `p.is_file()`, `p.is_dir()` (`asked`)."""
    held = None if absent(path) else disk.holds(path)
    if asked == "is_file":
        return Const(held == "file")
    if asked == "is_dir":
        return Const(held == "folder")
    return Const(bool(held))


def call(
    path: str, args: list[Value], kwargs: dict[str, Value], node: ast.AST, disk: Disk
) -> Value | None:
    """`Path(...)`, `Path.home()`, `os.path.exists(p)`, `os.path.join(...)`, `open(p)`; None:
    none of them, or arguments toolgen cannot know."""
    parts = [text(a) for a in args]
    known = [p for p in parts if p is not None]
    if len(known) != len(parts):
        return None
    if path in OPENERS and known and set(kwargs) <= {"mode", "encoding", "errors"}:
        mode = text(kwargs.get("mode", Const(known[1] if len(known) > 1 else "r")))
        return opened(known[0], mode, node, disk)
    if kwargs:
        return None
    if path in ("builtins.str", "os.fspath") and len(args) == 1 and isinstance(args[0], FilePath):
        return Const(args[0].text)
    if path in RESOURCES and len(known) == 1:
        module = disk.get(known[0])
        if module is not None and module.is_package and not module.library:
            return FilePath(str(module.path.parent))
        return None
    if path in STRING_PATHS and len(known) == 1:
        return Const(STRING_PATHS[path](known[0]))
    if path in PATH_CLASSES:
        return FilePath(posixpath.join(*known) if known else ".")
    if path.rpartition(".")[0] in PATH_CLASSES and path.rpartition(".")[2] in ("home", "cwd"):
        return FilePath("~" if path.endswith("home") else ".")
    if path in EXISTS and len(known) == 1:
        return exists(known[0], node, disk, EXISTS[path])
    if path == "os.path.join" and known:
        return Const(posixpath.join(*known))
    if path == "os.path.expanduser" and len(known) == 1:
        return Const(known[0])
    return None


def opened(path: str, mode: str | None, node: ast.AST, disk: Disk) -> Value:
    """`open(path)`: the file, when it is the project's and opened to be read."""
    if mode is None or set(mode) - set("rbt"):
        return Unknown(f"`{path}` opened to be written", node)
    data = None if absent(path) else disk.data_file(path)
    if data is not None:
        return Opened(path, data, binary="b" in mode)
    if absent(path) or not disk.holds(path):  # FileNotFoundError, as Python raises
        raise Raising(f"`{path}` does not exist where the server starts", node)
    return Unknown(f"`{path}` is not a file toolgen reads", node)


def listed(folder: str, pattern: str | None, node: ast.AST, disk: Disk) -> Value:
    """`folder.iterdir()`, `folder.glob("*.py")`: the paths in the project's folder, sorted
    (one level: a pattern with a folder in it is not followed)."""
    names = None if absent(folder) or pattern is None or "/" in pattern else disk.listing(folder)
    if names is None or pattern is None or len(names) > MAX_ITEMS:
        return Unknown(f"what is in `{folder}` is known only where the server runs", node)
    kept = [n for n in names if fnmatch.fnmatchcase(n, pattern)]  # dot files too, as pathlib
    return Seq([FilePath(posixpath.join(folder, n)) for n in kept], "list")


def attribute(owner: FilePath, attr: str) -> Value:
    """`path.parent`, `path.name`, or a method of the path."""
    if attr == "parent":
        return FilePath(posixpath.dirname(owner.text) or ".")
    if attr in PARTS:
        return Const(PARTS[attr](owner.text))
    return PathMethod(owner, attr)


def method(owner: PathMethod, args: list[Value], node: ast.AST, disk: Disk) -> Value:
    """`path.exists()`, `path.expanduser()`, `path.read_text()`: what toolgen knows of a
    path's methods."""
    if owner.name in ASKS and not args:
        return exists(owner.path.text, node, disk, owner.name)
    if owner.name in ("iterdir", "glob") and len(args) == int(owner.name == "glob"):
        return listed(owner.path.text, text(args[0]) if args else "*", node, disk)
    if owner.name in READERS:
        mode = text(args[0]) if args and owner.name == "open" else READERS[owner.name]
        found = opened(owner.path.text, mode, node, disk)
        if owner.name != "open" and isinstance(found, Opened):
            return found.contents()
        return found
    if owner.name in SAME and not args:
        return owner.path
    if owner.name == "joinpath":
        more = [text(a) for a in args]
        if all(p is not None for p in more):
            return FilePath(posixpath.join(owner.path.text, *[p for p in more if p]))
    given = text(args[0]) if len(args) == 1 else None
    if owner.name in RENAMED and given is not None:
        folder, name = posixpath.split(owner.path.text)
        return FilePath(posixpath.join(folder, RENAMED[owner.name](name, given)))
    return Unknown(f"`Path.{owner.name}` is known only where the server runs", node)


def joined(left: FilePath, right: Value) -> Value | None:
    """`path / "name"`."""
    more = text(right)
    return None if more is None else FilePath(posixpath.join(left.text, more))
