"""The file system a server starts with, as toolgen reads it: an empty working folder and an
empty home folder. A path relative to the working folder, or under the home folder (`~`),
does not exist (`Path(".env").exists()` is False: what a server started with nothing beside
it sees); whether any other path exists is known only where the server runs.
"""

from __future__ import annotations

import ast
import posixpath

from toolgen.read.registration.values import Const, FilePath, PathMethod, Unknown, Value

#: The classes that make a path, by the paths a project imports them with.
PATH_CLASSES = frozenset({"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"})
#: What asking whether a path exists is called, as a function of `os.path`.
EXISTS = frozenset({"os.path.exists", "os.path.isfile", "os.path.isdir", "os.path.lexists"})
#: Path methods that ask whether it exists, and those that give the same path again.
ASKS = frozenset({"exists", "is_file", "is_dir"})
SAME = frozenset({"expanduser", "resolve", "absolute"})


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


def exists(path: str, node: ast.AST) -> Value:
    if absent(path):
        return Const(False)
    return Unknown(f"whether `{path}` exists is known only where the server runs", node)


def call(path: str, args: list[Value], node: ast.AST) -> Value | None:
    """`Path(...)`, `Path.home()`, `os.path.exists(p)`, `os.path.join(...)`; None: none of
    them, or arguments toolgen cannot know."""
    parts = [text(a) for a in args]
    known = [p for p in parts if p is not None]
    if len(known) != len(parts):
        return None
    if path in PATH_CLASSES:
        return FilePath(posixpath.join(*known) if known else ".")
    if path.rpartition(".")[0] in PATH_CLASSES and path.rpartition(".")[2] in ("home", "cwd"):
        return FilePath("~" if path.endswith("home") else ".")
    if path in EXISTS and len(known) == 1:
        return exists(known[0], node)
    if path == "os.path.join" and known:
        return Const(posixpath.join(*known))
    if path == "os.path.expanduser" and len(known) == 1:
        return Const(known[0])
    return None


def method(owner: PathMethod, args: list[Value], node: ast.AST) -> Value:
    """`path.exists()`, `path.expanduser()`: what toolgen knows of a path's methods."""
    if owner.name in ASKS and not args:
        return exists(owner.path.text, node)
    if owner.name in SAME and not args:
        return owner.path
    if owner.name == "joinpath":
        more = [text(a) for a in args]
        if all(p is not None for p in more):
            return FilePath(posixpath.join(owner.path.text, *[p for p in more if p]))
    return Unknown(f"`Path.{owner.name}` is known only where the server runs", node)


def joined(left: FilePath, right: Value) -> Value | None:
    """`path / "name"`."""
    more = text(right)
    return None if more is None else FilePath(posixpath.join(left.text, more))
