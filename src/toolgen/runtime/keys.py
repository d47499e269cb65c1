"""`generate_idempotency_key`: a deterministic idempotency key from a call's tool name and
arguments, made by the client (reference/runtime.md: "a deterministic key can be derived from
the tool name and the sorted arguments").

The same proposed call always gets the same key, so a call sent again (the model repeats it, a
turn is handled again after a crash) replays its result instead of running twice. What the key
is made of is the canonical JSON (sorted keys, no whitespace, `ensure_ascii=False`, UTF-8) of
the tool's name and the arguments, with three things left out at the top level, as the
toolbox itself does not tell calls apart by them:

- `idempotency_key`: the key never depends on itself (a call that carries one already gets
  the key its other arguments give);
- `dry_run`: a dry run changes nothing and is never keyed, so the real call has one key
  whether it says `dry_run: false` or says nothing;
- nulls: OpenAI's strict mode sends `null` for an optional parameter not given, which the
  toolbox drops before validating (`steps.validate.drop_not_given`); a top-level null is left
  out whatever the parameter's type, so a strict-mode null and the omission are one key.

Numbers count by value: `5.0` is `5` (as it is to the schema and to pydantic). Leaving out
more than the toolbox does can only make two calls that the toolbox tells apart share a key:
the second is then refused (`IDEMPOTENCY_KEY_REUSED`), never run twice.

The key is a UUID in its canonical spelling (RFC 9562 version 8: the first 122 bits of the
sha256 of that JSON, the version and variant bits set), 36 characters: one form that a key
parameter typed `str` (the contract's 16 characters or more) and one typed `UUID` (`format:
uuid`, which validation checks) both accept. A key parameter typed as an integer takes no
generated key.
"""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from collections.abc import Mapping
from typing import Any

#: The top-level arguments a key leaves out (see the module's text).
LEFT_OUT = frozenset({"idempotency_key", "dry_run"})

#: What tells this derivation apart from any other sha256 of the same text, and its version:
#: a later derivation gets another tag, never other keys under this one.
TAG = "toolgen.idempotency_key/1"


def generate_idempotency_key(tool_name: str, arguments: Mapping[str, Any] | str | None) -> str:
    """The deterministic key of a call of `tool_name` with `arguments` (a mapping, the JSON
    text of an object as the model sent it, or None for none), as the module's text says.

    Raises TypeError for a tool name that is no text, arguments that are no object, a value
    JSON cannot carry (bytes, a set, an object) or an object name that is no text; ValueError
    for NaN or an infinity, for JSON text that is not one object (malformed, cut short,
    repeating a name), and for arguments nested deeper than Python recurses or that hold
    themselves."""
    if not isinstance(tool_name, str):
        raise TypeError(f"the tool name must be text, not {type(tool_name).__name__}")
    try:
        return _key(tool_name, arguments)
    except RecursionError:  # a model's `[[[...` or an object that holds itself
        raise ValueError("the arguments are nested too deeply, or hold themselves") from None


def _key(tool_name: str, arguments: Mapping[str, Any] | str | None) -> str:
    given = _parsed(arguments) if isinstance(arguments, str) else arguments
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise TypeError(f"the arguments must be an object, not {type(given).__name__}")
    kept = {
        key: _plain(value, f"/{key}")
        for key, value in _items(given, "")
        if key not in LEFT_OUT and value is not None
    }
    text = json.dumps(
        [TAG, tool_name, kept],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )
    # a lone surrogate (JSON text may hold one escaped) is written as it is, not refused
    digest = bytearray(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x80  # version 8: a UUID of the application's making
    digest[8] = (digest[8] & 0x3F) | 0x80  # the RFC's variant
    return str(uuid.UUID(bytes=bytes(digest)))


def _parsed(text: str) -> Any:
    """The arguments of a call's JSON text: one object, no NaN, no name twice (parsers differ
    on which value counts, as the toolbox's parse step says)."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"the arguments hold {constant}, which JSON cannot carry")

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for key, value in pairs:
            if key in found:
                raise ValueError(f"the arguments name {key!r} twice")
            found[key] = value
        return found

    try:
        found = json.loads(text, parse_constant=refuse, object_pairs_hook=unique)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the arguments are not JSON: {exc.msg}") from None
    if not isinstance(found, dict):
        raise ValueError(f"the arguments must be a JSON object, not {type(found).__name__}")
    return found


def _items(mapping: Mapping[Any, Any], path: str) -> list[tuple[str, Any]]:
    """The mapping's items, each name text (JSON would write `1` and `"1"` alike)."""
    items = list(mapping.items())
    for key, _ in items:
        if not isinstance(key, str):
            raise TypeError(
                f"{path or '/'}: the name {key!r} is a {type(key).__name__}, not text; "
                "JSON object names are text"
            )
    return items


def _plain(value: Any, path: str) -> Any:
    """`value` as the JSON data it stands for, or TypeError / ValueError naming where JSON
    cannot carry it."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str.__str__(value)  # a str enum is the text it stands for
    if isinstance(value, int):
        return int(value)  # an IntEnum is the number it stands for
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{path}: {value!r} is not a number JSON can carry")
        return int(value) if value.is_integer() else value
    if isinstance(value, Mapping):
        return {key: _plain(item, f"{path}/{key}") for key, item in _items(value, path)}
    if isinstance(value, list | tuple):
        return [_plain(item, f"{path}/{i}") for i, item in enumerate(value)]
    raise TypeError(f"{path}: a {type(value).__name__} is no JSON value")
