"""Breaking changes of a tool contract between a git ref and the working tree.

`toolgen check --against REF` reads the descriptors checked in at REF (`git ls-tree` and one `git
cat-file --batch`, no clone; `_work_tree` says which repository) and compares each tool with the one
just compiled, by the rules of reference/breaking.md: the input schema like a request body (the new
schema must accept every call the old one accepted), the output schema like a response (the old
schema must accept every result the new one can return). One differ, `schema_changes`, classifies a
change as narrowing or widening; it runs in the request direction for inputs and in the response
direction for outputs. Its pointers are where a caller first meets a change (`/properties/city`,
`/returns/items/properties/url`; below a definition used in several places, the first of them); a
docs-changed one (description, title, examples) is where the change was made in the descriptor
(`/parameters/properties/city/description`), once, however many places use a definition. Whatever
JSON the schemas hold, the differ answers; `baseline` reports the schemas it could not make sense of
(TG010).

Ways through: a new tool name (`get_weather_v2`, the old tool kept, `deprecated` with its
`replacement`), a removed tool that was deprecated, or an entry in
`[[tool.toolgen.breaking_ignore]]` (rule + tool + JSON pointer + reason). A major version bump
turns a tool's breaking findings into info, but callers know a tool by its name alone (no
platform sends a version): its breaking changes under the same name are one error still,
`breaking-without-new-name`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from toolgen.diagnostics import (
    RULES,
    Diagnostic,
    Level,
    Location,
    UserError,
    plural,
    relative_display,
)
from toolgen.read.files import MAX_SOURCE_BYTES, Unreadable, read_capped

#: rule id -> TG code. Users write either in `breaking_ignore` (see `rule_id`).
BREAKING_CODES: dict[str, str] = {
    "tool-removed": "TG950",
    "tool-removed-deprecated": "TG951",
    "input-required-added": "TG952",
    "input-became-required": "TG953",
    "input-param-removed": "TG954",
    "input-optional-added": "TG955",
    "input-type-narrowed": "TG956",
    "input-type-widened": "TG957",
    "input-enum-narrowed": "TG958",
    "input-enum-widened": "TG959",
    "input-constraint-tightened": "TG960",
    "input-default-changed": "TG961",
    "output-required-removed": "TG962",
    "output-optional-removed": "TG963",
    "output-became-optional": "TG964",
    "output-type-changed": "TG965",
    "output-enum-widened": "TG966",
    "output-property-added": "TG967",
    "error-added": "TG968",
    "error-removed": "TG969",
    "idempotent-weakened": "TG970",
    "readonly-weakened": "TG971",
    "destructive-added": "TG972",
    "risk-raised": "TG973",
    "openworld-added": "TG974",
    "breaking-without-major-bump": "TG975",
    "version-decreased": "TG976",
    "docs-changed": "TG977",
    "breaking-without-new-name": "TG978",
}
#: rule id -> (level, TG code); each level is its code's in the rule table (`RULES`), and
#: only there.
BREAKING_RULES: dict[str, tuple[Level, str]] = {
    rule: (RULES[code].level, code) for rule, code in BREAKING_CODES.items()
}

_RULE_IDS = {code: rule for rule, code in BREAKING_CODES.items()}


def rule_id(name: str) -> str | None:
    """The rule id a `breaking_ignore` entry's `rule` names, by id (`tool-removed`) or by TG
    code (`TG950`, as docs/rules.md lists it); None for no breaking rule."""
    return name if name in BREAKING_RULES else _RULE_IDS.get(name)


RISK_ORDER = ["low", "medium", "high", "critical", "forbidden"]
BOUNDS_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
BOUNDS_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
DOCS = ("description", "title", "examples")  # a change only to these is docs-changed


@dataclass(frozen=True)
class Finding:
    rule: str
    tool: str
    pointer: str
    message: str


@dataclass(frozen=True)
class Ignore:
    rule: str
    tool: str
    pointer: str
    reason: str


# -- reading the baseline ---------------------------------------------------------------------
class Baseline(dict[str, dict[str, Any]]):
    """The descriptors checked in at a ref, by tool name; `paths`: where each tool's
    descriptor is in the working tree's out folder (`path:1:1`, shown as other paths are), the
    location of a finding that has no handler to point at (a removed tool)."""

    def __init__(
        self, descriptors: dict[str, dict[str, Any]], paths: dict[str, Location] | None = None
    ) -> None:
        super().__init__(descriptors)
        self.paths: dict[str, Location] = dict(paths or {})


#: The cap on one baseline descriptor, and on all of them together: a blob of zeros packs a
#: thousandfold, so a commit of a megabyte can hold a "descriptor" of a gigabyte.
MAX_BASELINE_BYTES = 64 << 20
MAX_BASELINE_TOTAL = 256 << 20


def _work_tree(out: Path) -> Path:
    """The git work tree `out` is in: the nearest folder at or above it with a `.git` (a
    folder, or the file of a linked work tree or a submodule). Found here, not by git: git's
    own search also takes a folder that only looks like a repository (`HEAD`, `objects/`,
    `refs/`) for one, and reads its `config`, whose remotes and hooks can run commands; a
    pull request can commit such a folder, but never a `.git`."""
    here = out.absolute()
    for folder in (here, *here.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    raise UserError(Diagnostic("TG010", f"--against: {here} is not in a git work tree"))


def _run_git(args: list[str], top: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """`git ARGS` on the repository of the work tree `top` (named, so git searches nothing),
    refusing any repository git would find by itself; nothing asked of a terminal."""
    command = [
        "git",
        f"--git-dir={top / '.git'}",
        f"--work-tree={top}",
        "-c",
        "safe.bareRepository=explicit",
        *args,
    ]
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        return subprocess.run(
            command, cwd=top, input=stdin, capture_output=True, env=env, check=False, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(Diagnostic("TG010", f"cannot run git: {exc}")) from None


def _git(args: list[str], top: Path, stdin: bytes = b"") -> bytes:
    done = _run_git(args, top, stdin)
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
        raise UserError(Diagnostic("TG010", f"git {' '.join(args)}: {why}"))
    return done.stdout


def _commit(top: Path, ref: str) -> str:
    """The commit `ref` names (its id: every later read is of that commit), else TG010 with
    what to do: in a shallow clone, fetch it."""
    if not ref.startswith("-"):  # never an option to git; no ref name starts with "-"
        done = _run_git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], top)
        oid = done.stdout.decode("ascii", "replace").strip()
        if done.returncode == 0 and re.fullmatch("[0-9a-f]{40}|[0-9a-f]{64}", oid):
            return oid
    shallow = _run_git(["rev-parse", "--is-shallow-repository"], top).stdout.strip() == b"true"
    hint = (
        "this clone is shallow and may not have it: fetch it first (`git fetch --depth=1 "
        "origin BRANCH`, then `--against origin/BRANCH`; `git fetch --deepen=N` for older "
        "commits)"
        if shallow
        else "check the name, or fetch it first"
    )
    message = f"--against {ref}: no such commit or ref {ref!r} in this repository; {hint}"
    raise UserError(Diagnostic("TG010", message))


@dataclass(frozen=True)
class _Blob:
    path: str  # below the out folder, as git names it
    oid: str
    size: int


def _descriptor_blobs(top: Path, commit: str, base: str) -> list[_Blob]:
    """The descriptors committed under the out folder `base`: regular files named `*.json`
    in `descriptors/`, or in `CATALOG/descriptors/` (a project of several servers). One
    listing, its names as git stores them (`-z`: no quoting, no splitting)."""
    if _run_git(["cat-file", "-e", f"{commit}:{base}"], top).returncode != 0:
        return []  # no out folder at that commit
    listing = _git(["ls-tree", "-r", "-z", "--long", "--full-tree", f"{commit}:{base}"], top)
    found = []
    for entry in listing.split(b"\0"):
        head, tab, raw = entry.partition(b"\t")
        fields = head.split()
        if not tab or len(fields) != 4 or fields[0] not in (b"100644", b"100755"):
            continue  # a folder, a symlink, a submodule
        path = raw.decode("utf-8", "surrogateescape")
        parts = path.split("/")
        if parts[-1].endswith(".json") and parts[-2:-1] == ["descriptors"] and len(parts) <= 3:
            found.append(_Blob(path, fields[2].decode("ascii"), int(fields[3])))
    return sorted(found, key=lambda blob: blob.path)


def _contents(top: Path, blobs: list[_Blob]) -> dict[str, bytes]:
    """The bytes of each of `blobs`, by id, from one `git cat-file --batch`."""
    wanted = list(dict.fromkeys(blob.oid for blob in blobs))
    if not wanted:
        return {}
    output = _git(["cat-file", "--batch"], top, "".join(f"{oid}\n" for oid in wanted).encode())
    found: dict[str, bytes] = {}
    at = 0
    for oid in wanted:
        end = output.index(b"\n", at)
        header = output[at:end].split()
        size = int(header[2]) if len(header) == 3 else 0
        found[oid] = output[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return found


def baseline(out: Path, ref: str) -> Baseline:
    """The descriptors checked in at `ref`, by tool name."""
    top = _work_tree(out)
    commit = _commit(top, ref)
    base = out.resolve().relative_to(top.resolve()).as_posix()
    blobs = _descriptor_blobs(top, commit, base)
    found = Baseline({})
    problems: list[Diagnostic] = []
    readable, total = [], 0
    for blob in blobs:
        total += blob.size
        if blob.size > MAX_BASELINE_BYTES:
            problems.append(
                _unreadable(
                    f"{ref}:{base}/{blob.path}", f"is larger than {MAX_BASELINE_BYTES} bytes"
                )
            )
        elif total > MAX_BASELINE_TOTAL:
            why = f"{ref}:{base}: its descriptors are larger than {MAX_BASELINE_TOTAL} bytes in all"
            raise UserError(Diagnostic("TG010", f"baseline {why}; name another ref"))
        else:
            readable.append(blob)
    contents = _contents(top, readable)
    for blob in readable:
        where = f"{ref}:{base}/{blob.path}"
        data = _descriptor_at(contents[blob.oid], where, problems)
        if data is not None:
            catalog, _, name = blob.path.rpartition("descriptors/")
            tool = catalog + str(data.get("name", name[:-5]))
            found[tool] = data
            shown = out / blob.path
            found.paths[tool] = Location(relative_display(shown, Path.cwd()))
    if problems:
        raise UserError(*problems)
    return found


def _descriptor_at(content: bytes, where: str, problems: list[Diagnostic]) -> dict[str, Any] | None:
    """The descriptor of `content` (found at `where`, REF:PATH), or None with why it cannot be
    compared added to `problems`."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(_unreadable(where, f"is not UTF-8 text (byte {exc.start + 1})"))
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:  # e.g. conflict markers committed
        why = f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        problems.append(_unreadable(where, why))
        return None
    except ValueError as exc:  # an integer of more digits than Python converts
        problems.append(_unreadable(where, f"is not valid JSON ({exc})"))
        return None
    except RecursionError:
        problems.append(_unreadable(where, "is nested too deeply"))
        return None
    problem = _malformed(data)
    if problem:
        problems.append(_unreadable(where, problem))
        return None
    return data  # type: ignore[no-any-return]


def _unreadable(where: str, why: str) -> Diagnostic:
    """TG010 for a baseline descriptor that cannot be compared (`where` is REF:PATH)."""
    message = f"baseline descriptor {where} {why}; commit a fixed one, or name another ref"
    return Diagnostic("TG010", message)


_JSON_NAMES = {
    str: "string",
    dict: "object",
    list: "array",
    bool: "boolean",
    int: "number",
    float: "number",
}
#: The keywords of a schema the differ reads, and the JSON types each may have.
_KEYWORDS: dict[str, tuple[type, ...]] = {
    "type": (str, list),
    "properties": (dict,),
    "$defs": (dict,),
    "required": (list,),
    "enum": (list,),
    "anyOf": (list,),
    "items": (dict, bool),
    "$ref": (str,),
    "pattern": (str,),
    **dict.fromkeys(BOUNDS_UPPER + BOUNDS_LOWER, (int, float)),
}


def _malformed(data: Any) -> str | None:
    """Why a baseline descriptor cannot be compared (the parts `tool_changes` reads), if so."""
    if not isinstance(data, dict):
        return "is not a JSON object"
    kinds = {
        "name": str,
        "parameters": dict,
        "returns": dict,
        "errors": list,
        "idempotency": dict,
        "risk": str,
    }
    for key, kind in kinds.items():
        if key in data and not isinstance(data[key], kind):
            return f"has a `{key}` that is not a JSON {_JSON_NAMES[kind]}"
    if not isinstance(data.get("returns", {}).get("schema", {}), dict):
        return "has a `returns.schema` that is not a JSON object"
    for key, schema in (
        ("parameters", data.get("parameters", {})),
        ("returns.schema", data.get("returns", {}).get("schema", {})),
    ):
        defs = schema.get("$defs")
        problem = _bad_schema(schema, "", defs if isinstance(defs, dict) else {})
        if problem:
            return f"has a `{key}` that is not a JSON Schema: {problem}"
    if not all(
        isinstance(e, dict) and isinstance(e.get("code"), str) for e in data.get("errors", [])
    ):
        return "has an `errors` entry without a `code` string"
    if data.get("risk", "medium") not in RISK_ORDER:
        return f"has an unknown risk {data['risk']!r} (known: {', '.join(RISK_ORDER)})"
    return None


def _bad_schema(schema: Any, at: str, defs: dict[str, Any], depth: int = 0) -> str | None:
    """Where and why `schema` is no JSON Schema, in the keywords the differ reads (`at`: its
    pointer; `defs`: the root's `$defs`). A `$ref` elsewhere than `#/$defs/` is not followed."""
    if isinstance(schema, bool):
        return None
    if not isinstance(schema, dict):
        return f"{at or '/'} is not a JSON object or boolean"
    if depth > 64:
        return f"{at} is nested too deeply"
    for key, kinds in _KEYWORDS.items():
        value = schema.get(key)
        if key in schema and (not isinstance(value, kinds) or _is_bool(value, kinds)):
            names = " or ".join(dict.fromkeys(_JSON_NAMES[kind] for kind in kinds))
            return f"{at}/{key} is not a JSON {names}"
    for key in ("type", "required"):
        items = schema.get(key)
        if isinstance(items, list) and not all(isinstance(item, str) for item in items):
            return f"{at}/{key} is not an array of strings"
    ref = schema.get("$ref", "")
    if ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") not in defs:
        return f"{at}/$ref names no definition in `$defs`: {ref}"
    children = [
        (f"/{key}/{name}", child)
        for key in ("properties", "$defs")
        for name, child in schema.get(key, {}).items()
    ]
    children += [(f"/anyOf/{i}", branch) for i, branch in enumerate(schema.get("anyOf", []))]
    children += [("/items", schema["items"])] if "items" in schema else []
    for where, child in children:
        problem = _bad_schema(child, at + where, defs, depth + 1)
        if problem:
            return problem
    return None


def _is_bool(value: Any, kinds: tuple[type, ...]) -> bool:
    """`value` is a boolean where only numbers will do (in Python a bool is an int)."""
    return isinstance(value, bool) and bool not in kinds


# -- comparing ----------------------------------------------------------------------------------
def compare(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> list[Finding]:
    findings: list[Finding] = []
    for name, before in sorted(old.items()):
        after = new.get(name)
        if after is None:
            rule = "tool-removed-deprecated" if before.get("deprecated") else "tool-removed"
            findings.append(Finding(rule, name, "", "the tool is gone"))
            continue
        findings += tool_changes(name, before, after)
    return findings


def tool_changes(name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Finding]:
    """The findings for one tool: descriptors with the top-level types `_malformed` checks;
    their schemas may hold any JSON."""
    found: list[Finding] = []

    def add(rule: str, pointer: str, message: str) -> None:
        found.append(Finding(rule, name, pointer, message))

    for rule, pointer, message in schema_changes(
        old.get("parameters", {}), new.get("parameters", {}), "input"
    ):
        add(rule, pointer, message)
    old_out = old.get("returns", {}).get("schema", {})
    new_out = new.get("returns", {}).get("schema", {})
    for rule, pointer, message in schema_changes(old_out, new_out, "output"):
        add(rule, "/returns" + pointer.rstrip("/"), message)
    for rule, pointer, message in [
        *_docs_changes(old.get("parameters"), new.get("parameters"), "/parameters"),
        *_docs_changes(old.get("returns"), new.get("returns"), "/returns"),  # its description
        *_docs_changes(old_out, new_out, "/returns/schema"),
    ]:
        add(rule, pointer, message)
    old_errors = {e["code"] for e in old.get("errors", [])}
    new_errors = {e["code"] for e in new.get("errors", [])}
    for code in sorted(new_errors - old_errors):
        add("error-added", "/errors", f"new error code {code}")
    for code in sorted(old_errors - new_errors):
        add("error-removed", "/errors", f"error code {code} no longer declared")
    hints_old, hints_new = old.get("idempotency", {}), new.get("idempotency", {})
    if hints_old.get("idempotent") is True and hints_new.get("idempotent") is not True:
        add("idempotent-weakened", "/idempotency/idempotent", "no longer idempotent")
    if hints_old.get("safe") is True and hints_new.get("safe") is not True:
        add("readonly-weakened", "/idempotency/safe", "no longer read-only")
    if not _destructive(old) and _destructive(new):
        add("destructive-added", "/idempotency/destructive", "now destructive")
    if not _open_world(old) and _open_world(new):
        add("openworld-added", "/idempotency/open_world", "now reaches the open world")
    risk_old, risk_new = old.get("risk", "medium"), new.get("risk", "medium")
    if RISK_ORDER.index(risk_new) > RISK_ORDER.index(risk_old):
        add("risk-raised", "/risk", f"risk raised from {risk_old} to {risk_new}")
    for key in DOCS:
        if old.get(key) != new.get(key):
            add("docs-changed", f"/{key}", f"{key} changed")
    v_old, v_new = _version(old.get("version")), _version(new.get("version"))
    if v_old and v_new and v_new < v_old:
        add(
            "version-decreased",
            "/version",
            f"version went back from {old['version']} to {new['version']}",
        )
    return found


def _destructive(descriptor: dict[str, Any]) -> bool:
    """The effective destructiveHint: MCP's default is true, but the hint means something only
    when readOnlyHint is false, so a read-only (`safe`) tool's is false."""
    hints = descriptor.get("idempotency", {})
    return hints.get("safe") is not True and hints.get("destructive") is not False


def _open_world(descriptor: dict[str, Any]) -> bool:
    """The effective openWorldHint (MCP's default is true)."""
    hint = descriptor.get("idempotency", {}).get("open_world")
    if hint is None:
        hint = descriptor.get("open_world")
    return hint is not False


def _version(text: Any) -> tuple[int, int, int] | None:
    try:
        major, minor, patch = str(text).split("-")[0].split("+")[0].split(".")
        return int(major), int(minor), int(patch)
    except ValueError:
        return None


def schema_changes(old: Any, new: Any, side: str) -> list[tuple[str, str, str]]:
    """(rule, pointer, message) for each change; `side` is "input" (request) or "output"."""
    found: list[tuple[str, str, str]] = []
    _walk(old, new, old, new, side, "", found, frozenset(), set())
    return found


def _deref(schema: Any, root: Any) -> Any:
    """`schema` with its `$ref` to `#/$defs/NAME` resolved, through chains of them; a `$ref`
    that resolves to no schema, or to one already followed, adds nothing to its siblings."""
    seen: set[str] = set()
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        defs = root.get("$defs") if isinstance(root, dict) else None
        target = defs.get(ref.removeprefix("#/$defs/")) if isinstance(defs, dict) else None
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **rest} if isinstance(target, dict) and ref not in seen else rest
        seen.add(ref)
    return schema


def _types(
    schema: dict[str, Any], root: Any, seen: set[str] | None = None, depth: int = 0
) -> set[str]:
    """The JSON types `schema` allows; "any" for all (and below 64 nested unions).
    `seen`: the `$ref`s already counted."""
    branches = schema.get("anyOf")
    if isinstance(branches, list) and depth < 64:
        seen = set() if seen is None else seen
        found: set[str] = set()
        for branch in branches:
            if not isinstance(branch, dict):
                continue
            ref = branch.get("$ref")
            if isinstance(ref, str):
                if ref in seen:  # a union with itself adds nothing
                    continue
                seen.add(ref)
            found |= _types(_deref(branch, root), root, seen, depth + 1)
        return found or {"any"}  # e.g. a union only of itself: nothing to compare by
    kind = schema.get("type")
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    if isinstance(kind, str) and kind:
        return {kind}
    values = _enum(schema)
    if values is not None:
        return {_json_type(v) for v in values}
    return {"any"}


def _covers(wide: set[str], narrow: set[str]) -> bool:
    """Every value of a type in `narrow` is one of a type in `wide` (an integer is a number)."""
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _non_null(schema: dict[str, Any], root: Any) -> dict[str, Any]:
    """`X | None` compared by X (its enum, bounds, properties, items); other schemas as is."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list):
        return schema
    rest = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
    if len(rest) != 1 or len(rest) == len(branches) or not isinstance(rest[0], dict):
        return schema
    branch = _deref(rest[0], root)
    return {**branch, **{k: v for k, v in schema.items() if k != "anyOf"}}


def _json_type(value: Any) -> str:
    return {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        type(None): "null",
        list: "array",
        dict: "object",
    }.get(type(value), "any")


def _walk(
    old: Any,
    new: Any,
    old_root: Any,
    new_root: Any,
    side: str,
    pointer: str,
    found: list[tuple[str, str, str]],
    seen: frozenset[tuple[object, object]],
    expanded: set[tuple[object, object]],
) -> None:
    """Compare `old` with `new` at `pointer`, then their properties and items. `seen`: the
    pairs compared on the way here, by `$ref` or identity; a pair met again (a recursive
    model) is compared but not descended into, nor is a schema more than 30 levels deep.
    `expanded`: the pairs descended into anywhere. A pair of definitions met at a second place
    is compared there, but what is below it only at the first: a definition whose properties
    use the next one twice, 30 deep, has 2^30 places (its findings too), and took hours."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return
    pair = (_ref_or_id(old), _ref_or_id(new))
    # only a `$ref` with nothing beside it that shapes what is below is the definition alone
    place = (_definition_or_id(old), _definition_or_id(new))
    descend = pair not in seen and len(seen) < 30 and place not in expanded
    seen |= {pair}
    if descend:
        expanded.add(place)
    old, new = _deref(old, old_root), _deref(new, new_root)
    request = side == "input"
    t_old, t_new = _types(old, old_root), _types(new, new_root)
    if t_old != t_new and "any" not in t_old | t_new:
        if request:
            found.append(
                (
                    "input-type-widened" if _covers(t_new, t_old) else "input-type-narrowed",
                    pointer or "/",
                    f"type {sorted(t_old)} -> {sorted(t_new)}",
                )
            )
        else:  # a narrower result type is one every caller already handles
            if "null" in t_new - t_old:
                found.append(("output-became-optional", pointer or "/", "result may now be null"))
            if not _covers(t_old, t_new - {"null"}):
                found.append(
                    (
                        "output-type-changed",
                        pointer or "/",
                        f"type {sorted(t_old)} -> {sorted(t_new)}",
                    )
                )
    old, new = _non_null(old, old_root), _non_null(new, new_root)
    values_old = _enum(old)
    values_new = _enum(new)
    if values_old is not None or values_new is not None:
        before = values_old if values_old is not None else None
        after = values_new if values_new is not None else None
        if request:
            if after is not None and (
                before is None or not set(map(json.dumps, before)) <= set(map(json.dumps, after))
            ):
                found.append(("input-enum-narrowed", pointer or "/", "allowed values removed"))
            elif before is not None and (
                after is None or set(map(json.dumps, after)) > set(map(json.dumps, before))
            ):
                found.append(("input-enum-widened", pointer or "/", "allowed values added"))
        elif before is not None and (
            after is None or not set(map(json.dumps, after)) <= set(map(json.dumps, before))
        ):
            found.append(
                ("output-enum-widened", pointer or "/", "new values a caller may not handle")
            )
    if request:
        _constraints(old, new, pointer, found)
        if "default" in old and "default" in new and old["default"] != new["default"]:
            found.append(
                (
                    "input-default-changed",
                    pointer or "/",
                    f"default {json.dumps(old['default'])} -> {json.dumps(new['default'])}",
                )
            )
    props_old, props_new = _object(old.get("properties")), _object(new.get("properties"))
    if props_old or props_new:
        req_old, req_new = _names(old.get("required")), _names(new.get("required"))
        for name in props_new.keys() - props_old.keys():
            where = f"{pointer}/properties/{name}"
            if request:
                rule = "input-required-added" if name in req_new else "input-optional-added"
                found.append(
                    (
                        rule,
                        where,
                        f"new {'required' if name in req_new else 'optional'} parameter `{name}`",
                    )
                )
            else:
                found.append(("output-property-added", where, f"new result property `{name}`"))
        for name in props_old.keys() - props_new.keys():
            where = f"{pointer}/properties/{name}"
            if request:
                found.append(("input-param-removed", where, f"parameter `{name}` removed"))
            else:
                rule = "output-required-removed" if name in req_old else "output-optional-removed"
                found.append((rule, where, f"result property `{name}` removed"))
        # in the new schema's order, whatever the hash seed: which place is the first counts
        for name in [name for name in props_new if name in props_old]:
            where = f"{pointer}/properties/{name}"
            if request and name in req_new and name not in req_old:
                found.append(("input-became-required", where, f"`{name}` is now required"))
            if not request and name in req_old and name not in req_new:
                found.append(("output-became-optional", where, f"`{name}` is no longer guaranteed"))
            if descend:
                _walk(
                    props_old[name],
                    props_new[name],
                    old_root,
                    new_root,
                    side,
                    where,
                    found,
                    seen,
                    expanded,
                )
    if descend:
        _walk(
            old.get("items"),
            new.get("items"),
            old_root,
            new_root,
            side,
            f"{pointer}/items",
            found,
            seen,
            expanded,
        )


def _docs_changes(old: Any, new: Any, pointer: str, depth: int = 0) -> list[tuple[str, str, str]]:
    """docs-changed for each description, title or examples that differs, located where it
    was made (its pointer in the descriptor, below `pointer`): once, however many places use a
    definition. Only schemas on both sides are compared (additions and removals have rules)."""
    if not isinstance(old, dict) or not isinstance(new, dict) or depth > 64:
        return []
    found = [
        ("docs-changed", f"{pointer}/{k}", f"{k} changed") for k in DOCS if old.get(k) != new.get(k)
    ]
    inner_old, inner_new = _subschemas(old), _subschemas(new)
    for where, after in inner_new.items():
        if where in inner_old:
            found += _docs_changes(inner_old[where], after, f"{pointer}/{where}", depth + 1)
    return found


def _subschemas(schema: dict[str, Any]) -> dict[str, Any]:
    """The schemas directly in `schema`, by their pointer below it."""
    found: dict[str, Any] = {
        k: schema[k] for k in ("items", "additionalProperties", "propertyNames") if k in schema
    }
    for key in ("properties", "$defs"):
        found.update({f"{key}/{name}": s for name, s in _object(schema.get(key)).items()})
    for key in ("anyOf", "allOf", "oneOf", "prefixItems"):
        branches = schema.get(key)
        if isinstance(branches, list):
            found.update({f"{key}/{i}": s for i, s in enumerate(branches)})
    return found


def _ref_or_id(schema: dict[str, Any]) -> object:
    ref = schema.get("$ref")
    return ref if isinstance(ref, str) else id(schema)


def _definition_or_id(schema: dict[str, Any]) -> object:
    ref = schema.get("$ref")
    plain = isinstance(ref, str) and schema.keys() <= {"$ref", "default", *DOCS}
    return ref if plain else id(schema)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _names(value: Any) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _enum(schema: dict[str, Any]) -> list[Any] | None:
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    if "const" in schema:
        return [schema["const"]]
    return None


def _constraints(
    old: dict[str, Any], new: dict[str, Any], pointer: str, found: list[tuple[str, str, str]]
) -> None:
    for key in (*BOUNDS_UPPER, *BOUNDS_LOWER):
        after, before = new.get(key), old.get(key)
        if not _number(after):
            continue
        if not _number(before) or (after < before if key in BOUNDS_UPPER else after > before):
            found.append(
                (
                    "input-constraint-tightened",
                    f"{pointer}/{key}" if pointer else f"/{key}",
                    f"{key} {old.get(key, 'unset')} -> {new[key]}",
                )
            )
    if "pattern" in new and new.get("pattern") != old.get("pattern"):
        found.append(
            ("input-constraint-tightened", f"{pointer}/pattern", "pattern added or changed")
        )


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


# -- policy -------------------------------------------------------------------------------------
def findings_to_diagnostics(
    findings: list[Finding],
    old: dict[str, dict[str, Any]],
    new: dict[str, dict[str, Any]],
    ignores: list[Ignore],
    locations: dict[str, Location],
    levels: Mapping[str, Level | None] | None = None,
    parameters: Mapping[str, Mapping[str, Location]] | None = None,
) -> list[Diagnostic]:
    """Levels from the rule table, or from the configuration's `levels` by code (None: off),
    softened by a major version bump; ignores applied; `breaking-without-major-bump` added
    where errors remain with the same major version, and `breaking-without-new-name` where a
    major version bump softened them (the tool kept its name).
    Each is located at the parameter it is about (`parameters`: by tool, then by property
    name; see `parameter_locations`), else at its tool's handler (`locations`), else, for a
    tool with none (one removed), at its descriptor in the out folder (`old.paths` of a
    `Baseline`)."""
    fallback = old.paths if isinstance(old, Baseline) else {}
    parameters = parameters or {}

    def where(tool: str, pointer: str = "") -> Location | None:
        found = PARAMETER.match(pointer)
        name = found.group(1).replace("~1", "/").replace("~0", "~") if found else None
        at = parameters.get(tool, {}).get(name) if name else None
        return at or locations.get(tool) or fallback.get(tool)

    levels = levels or {}
    diagnostics: list[Diagnostic] = []
    errors_by_tool: dict[str, int] = {}
    softened_by_tool: dict[str, int] = {}  # errors a major version bump made info
    # looked up, not searched: a thousand entries against each of many findings took minutes
    ignored = {(rule_id(i.rule), i.tool, i.pointer or "/") for i in ignores}
    for f in findings:
        if (f.rule, f.tool, f.pointer or "/") in ignored:  # the pointer as printed
            continue
        level, code = _level(f.rule, levels)
        if level is None:
            continue
        before, after = (
            _version(old.get(f.tool, {}).get("version")),
            _version(new.get(f.tool, {}).get("version")),
        )
        if level is Level.ERROR and before and after and after[0] > before[0]:
            level = Level.INFO  # a major version bump says so; the name is kept: see below
            softened_by_tool[f.tool] = softened_by_tool.get(f.tool, 0) + 1
        if level is Level.ERROR:
            errors_by_tool[f.tool] = errors_by_tool.get(f.tool, 0) + 1
        message = f"{f.rule} tool={f.tool} {f.pointer or '/'}: {f.message}"
        diagnostics.append(Diagnostic(code, message, where(f.tool, f.pointer), level))
    level, code = _level("breaking-without-major-bump", levels)
    for tool, count in sorted(errors_by_tool.items()):
        if tool in new and level is not None:
            message = (
                f"breaking-without-major-bump tool={tool} /version: "
                f"{plural(count, 'breaking change')} without a major version bump"
            )
            diagnostics.append(Diagnostic(code, message, where(tool), level))
    level, code = _level("breaking-without-new-name", levels)
    for tool, count in sorted(softened_by_tool.items()):
        if level is None or ("breaking-without-new-name", tool, "/name") in ignored:
            continue
        versions = f"{old[tool].get('version')} -> {new[tool].get('version')}"
        message = (
            f"breaking-without-new-name tool={tool} /name: the tool keeps its name through "
            f"{plural(count, 'breaking change')} under a major version bump ({versions}), and "
            "callers know a tool by its name alone: publish the new contract as a new tool "
            f"(`{_last(tool)}_v{_major(new[tool])}`) and keep this one, deprecated with "
            "that replacement"
        )
        diagnostics.append(Diagnostic(code, message, where(tool), level))
    return diagnostics


def _last(tool: str) -> str:
    """A tool's own name (a project of several servers keys its tools `catalog/name`)."""
    return tool.rpartition("/")[2]


def _major(descriptor: Mapping[str, Any]) -> int:
    """The major version of `descriptor` (one `_version` reads)."""
    found = _version(descriptor.get("version"))
    return found[0] if found else 2


#: A finding's pointer into a tool's parameters: the property it is about (JSON-escaped).
PARAMETER = re.compile(r"^/(?:parameters/)?properties/([^/]+)")


def parameter_locations(
    handler: Location, cwd: Path, limit: int = MAX_SOURCE_BYTES
) -> dict[str, Location]:
    """Where each parameter of the handler whose `def` is at `handler` is written, by name
    (its property's name): what a finding about that property points at. Empty when the file
    cannot be read (as the compiler reads it: a regular file of at most `limit` bytes) or
    parsed again."""
    import ast

    try:
        tree = ast.parse(read_capped(str(cwd / handler.path), limit))  # its coding comment too
    except (Unreadable, SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, Location] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno == handler.line:
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                found[arg.arg] = Location(handler.path, arg.lineno, arg.col_offset + 1)
            break
    return found


def _level(rule: str, levels: Mapping[str, Level | None]) -> tuple[Level | None, str]:
    """The level of breaking `rule` (the configuration's, by its code, else the table's) and
    its code."""
    level, code = BREAKING_RULES[rule]
    return levels.get(code, level), code
