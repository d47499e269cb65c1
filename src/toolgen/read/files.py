"""Reading the files a user gives toolgen: regular files only, never more than a cap, and
Python sources decoded the way Python decodes them.

A FIFO named `*.py` blocks whoever opens it, and a device (`/dev/zero`) never ends: files are
opened without blocking and checked with `fstat` on the open handle (what the path named a
moment before may have been replaced), and only a regular file is read. A source is read to
its cap and one byte more, never further. Its text comes from its PEP 263 coding comment
(UTF-8 without one; a UTF-8 BOM allowed), as `tokenize.detect_encoding` reads it.

Standard library only, and cheap to import: the cache (`toolgen.incremental.cache`) opens its
files here.
"""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (see above)
if TYPE_CHECKING:
    from io import BufferedReader

    from toolgen.diagnostics import Diagnostic

#: The cap on a source file's size when the configuration sets none (`max_source_bytes`):
#: twice the largest module the benchmarks build.
MAX_SOURCE_BYTES = 10_000_000

#: How a file is opened: never waiting for a FIFO's writer, never becoming a terminal's.
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


class NotRegular(OSError):
    """The path names something other than a regular file (a FIFO, a socket, a device, a
    folder)."""


def kind(mode: int) -> str:
    """What a `stat` mode names, in words for a message."""
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(
    path: str, flags: int = 0, dir_fd: int | None = None
) -> tuple[BufferedReader, os.stat_result]:
    """`path` opened for reading in binary, with its `stat`, when it is a regular file (else
    `NotRegular`); `flags` are added to the `os.open` flags (`O_NOFOLLOW`), and `dir_fd` is
    the folder a relative `path` is in (as `os.open` takes it)."""
    fd = os.open(path, _FLAGS | flags, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(errno.EINVAL, f"{kind(st.st_mode)}, not a regular file")
        return os.fdopen(fd, "rb"), st
    except BaseException:
        os.close(fd)
        raise


class Unreadable(Exception):
    """A source that cannot be read (`code` TG005) or that Python would not compile (TG101),
    with why and where (1-based line and column)."""

    def __init__(self, code: str, reason: str, line: int = 1, col: int = 1) -> None:
        super().__init__(reason)
        self.code, self.reason, self.line, self.col = code, reason, line, col

    def diagnostic(self, shown: str) -> Diagnostic:
        """The diagnostic for the file shown as `shown`."""
        from toolgen.diagnostics import Diagnostic, Location

        message = f"cannot read {shown}: {self.reason}" if self.code == "TG005" else self.reason
        return Diagnostic(self.code, message, Location(shown, self.line, self.col))


def read_capped(path: str, limit: int) -> bytes:
    """The bytes of the regular file `path`, when there are at most `limit` of them; no more
    than `limit + 1` are read. `Unreadable` (TG005) when it is too large, or cannot be read."""
    try:
        handle, st = open_regular(path)
        with handle:
            if st.st_size > limit:
                raise Unreadable("TG005", _too_large(st.st_size, limit))
            want = st.st_size + 1  # one more than it says: one that grew is read on, to the cap
            data = handle.read(want)
            if len(data) == want:
                data += handle.read(limit + 1 - len(data))
    except OSError as exc:
        why = str(exc.strerror) if isinstance(exc, NotRegular) else str(exc)
        raise Unreadable("TG005", why) from None
    if len(data) > limit:
        raise Unreadable("TG005", _too_large(len(data), limit, grew=True))
    return data


class Overlay:
    """Text an editor holds unsaved, by file: read instead of the file's bytes on disk
    (`toolgen lsp` compiles what is being typed). A file is found by the path it was given
    under, or by where that path resolves."""

    def __init__(self, texts: dict[str, bytes | Unreadable] | None = None) -> None:
        #: each file's bytes, or why its text has none (`encode_source`)
        self._data: dict[str, bytes | Unreadable] = {}
        for path, data in (texts or {}).items():
            if "\0" in path:  # names no file (and `realpath` would raise)
                continue
            self._data[os.path.normpath(path)] = data
            self._data[os.path.realpath(path)] = data

    def __bool__(self) -> bool:
        return bool(self._data)

    def get(self, path: str) -> bytes | Unreadable | None:
        """The unsaved bytes of `path` (as given or resolved, not looked up on disk), or why
        its text has none."""
        return self._data.get(path)

    def read(self, limit: int, *paths: str) -> bytes:
        """The bytes of the first of `paths` held here, within `limit` (`Unreadable` beyond
        it); else those on disk of the first path, as `read_capped` reads them."""
        for path in paths:
            data = self._data.get(path)
            if isinstance(data, Unreadable):
                raise data
            if data is not None:
                if len(data) > limit:
                    raise Unreadable("TG005", _too_large(len(data), limit))
                return data
        return read_capped(paths[0], limit)


def encode_source(text: str) -> bytes | Unreadable:
    """Python source `text` (as an editor holds it) as the bytes a save would write: in the
    codec its coding comment names, else UTF-8 (lone surrogates kept, for `decode` to report
    as it reports them in a file). A character that codec cannot hold: TG005 at it (no file
    can have it so)."""
    import io
    import tokenize

    data = text.encode("utf-8", "surrogatepass")
    try:
        found, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # a coding Python does not know: `decode` says so
        return data
    if found in ("utf-8", "utf-8-sig"):
        return data
    try:
        return text.encode(found)
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        col = exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1
        char = text[exc.start]
        why = f"{found} (its coding comment) cannot hold {char!r} (U+{ord(char):04X})"
        return Unreadable("TG005", why, line, col)
    except (LookupError, UnicodeError):
        return data


#: No unsaved text: every file is read from disk.
NO_OVERLAY = Overlay()


def _too_large(size: int, limit: int, grew: bool = False) -> str:
    has = "has grown over" if grew else f"has {size:,} bytes, over"
    return f"the file {has} the cap of {limit:,} (`max_source_bytes` in [tool.toolgen])"


def read_source(path: str, limit: int) -> tuple[bytes, str, str]:
    """A Python source file's bytes, text and encoding (`decode`), read as `read_capped`
    does; `Unreadable` for any problem."""
    data = read_capped(path, limit)
    text, encoding = decode(data)
    return data, text, encoding


def decode(data: bytes) -> tuple[str, str]:
    """The text of Python source `data`, and the codec that writes it back: the one its
    coding comment names in its first two lines, else UTF-8. A UTF-8 BOM stays at the start
    of the text (U+FEFF), so that the codec writes it back too. `Unreadable`: TG101 for a
    coding Python does not know (or one that contradicts a BOM), TG005 for bytes the codec
    cannot decode, at the first of them."""
    import io
    import tokenize

    try:
        found, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if not str(exc).startswith("encoding problem"):  # the other two: see `_coding_problem`
            raise _coding_problem(data, str(exc)) from None
        line, name = _cookie(data)
        why = f"the coding comment names {name}, but the file starts with a UTF-8 BOM"
        raise Unreadable("TG101", f"cannot parse: {why}", line) from None
    encoding = "utf-8" if found == "utf-8-sig" else found
    return decode_as(data, encoding), encoding


def _coding_problem(data: bytes, message: str) -> Unreadable:
    """What `tokenize.detect_encoding`'s SyntaxError `message` means: "unknown encoding:
    NAME" (TG101, at the coding comment), or "invalid or missing encoding declaration" (the
    first lines are not UTF-8 and name no coding: TG005 where UTF-8 decoding fails)."""
    if message.startswith("unknown encoding"):
        return Unreadable("TG101", f"cannot parse: {message}", _cookie(data)[0])
    try:
        decode_as(data, "utf-8")
    except Unreadable as exc:
        return exc
    return Unreadable("TG005", message)  # not expected: UTF-8 that tokenize refuses


def decode_as(data: bytes, encoding: str) -> str:
    """`data` decoded with `encoding`; `Unreadable` at the first byte it cannot decode."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[start : exc.start].decode(encoding, "replace")) + 1
        why = f"not valid {_named(encoding)} ({exc.reason})"
        raise Unreadable("TG005", why, line, col) from None
    except (LookupError, UnicodeError) as exc:
        # a codec that is no text encoding (`# coding: rot13`), or one that fails without
        # saying where (`punycode`, `undefined`): Python refuses either file
        raise Unreadable("TG101", f"cannot parse: {exc}", _cookie(data)[0]) from None


def _named(encoding: str) -> str:
    return "UTF-8" if encoding == "utf-8" else f"{encoding} (its coding comment)"


def _cookie(data: bytes) -> tuple[int, str]:
    """The line of the coding comment (the first, unless it has none), and the coding it
    names."""
    import tokenize

    for number, line in enumerate(data.removeprefix(b"\xef\xbb\xbf").split(b"\n", 2)[:2], 1):
        found = tokenize.cookie_re.match(line.decode("latin-1"))
        if found:
            return number, found.group(1)
    return 1, ""
