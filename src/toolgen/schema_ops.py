"""Operations on JSON Schemas shared by the stages that need them."""

from __future__ import annotations

from typing import Any

#: Not siblings of a `$ref` to keep when it is inlined: the reference itself, and the root's
#: `$defs` (a root `$ref`, as a return type's schema has), which `inline_refs` rebuilds.
REF_KEYS = frozenset({"$ref", "$defs"})


def inline_refs(schema: dict[str, Any], *, only_with_siblings: bool = False) -> dict[str, Any]:
    """`schema` with every `$ref` to a non-recursive `$defs` entry replaced by the entry.

    Sibling keys of a `$ref` (a description, a default) are kept over the entry's own. Entries
    that refer to themselves, directly or through others, stay in `$defs`. With
    `only_with_siblings` (the OpenAI Agents SDK's strict form) only `$ref`s with sibling keys are
    inlined and every entry stays, as that SDK publishes it.
    """
    defs: dict[str, Any] = schema.get("$defs", {})
    recursive = {name for name in defs if _reaches(defs, name, name, set())}

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                inline = not only_with_siblings or bool(value.keys() - REF_KEYS)
                if name in defs and name not in recursive and inline:
                    siblings = {k: walk(v) for k, v in value.items() if k not in REF_KEYS}
                    return {**walk(defs[name]), **siblings}
            return {k: walk(v) for k, v in value.items() if k != "$defs"}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    out: dict[str, Any] = walk(schema)
    kept_defs = {name: walk(defs[name]) for name in defs}
    used = _refs(out)
    pending = list(used)
    while pending:  # what the kept entries refer to must be kept as well
        for name in _refs(kept_defs.get(pending.pop(), {})) - used:
            used.add(name)
            pending.append(name)
    kept = {n: body for n, body in kept_defs.items() if n in used or only_with_siblings}
    if kept:
        out["$defs"] = kept
    return out


def expanded_size(schema: dict[str, Any], limit: int) -> int:
    """How many values (objects, arrays, scalars) `schema` holds once every `$ref` to one of
    its `$defs` entries is replaced by the entry, as `inline_refs` and Gemini's payload make
    it (a reference back to an entry being expanded counts as itself: it stays a `$ref`).
    Each entry is counted once, so this takes time linear in `schema` even when the expanded
    schema is exponentially larger (a model with two fields of a model with two fields of
    ...); counting stops once past `limit`."""
    defs = schema.get("$defs")
    defs = defs if isinstance(defs, dict) else {}
    return _count(schema, defs, {}, set(), limit)


def _count(
    value: Any, defs: dict[str, Any], sizes: dict[str, int], expanding: set[str], limit: int
) -> int:
    """`expanded_size` of `value`, each entry's size kept in `sizes` (a function of its own: a
    nested one that calls itself is a cycle, left to the garbage collector)."""
    total = 1
    if isinstance(value, dict):
        ref = value.get("$ref")
        name = ref.removeprefix("#/$defs/") if isinstance(ref, str) else ""
        if name in defs and name not in expanding:
            if name not in sizes:
                expanding.add(name)
                sizes[name] = _count(defs[name], defs, sizes, expanding, limit)
                expanding.discard(name)
            total += sizes[name]
        items = [v for k, v in value.items() if k != "$defs"]
    elif isinstance(value, list):
        items = value
    else:
        return total
    for item in items:
        total += _count(item, defs, sizes, expanding, limit)
        if total > limit:
            break
    return total


def size(value: Any) -> int:
    """How many values (objects, arrays, scalars) `value` holds, itself included."""
    total, stack = 0, [value]
    while stack:
        item = stack.pop()
        total += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return total


def _reaches(defs: dict[str, Any], start: str, target: str, seen: set[str]) -> bool:
    for name in _refs(defs.get(start, {})):
        if name == target:
            return True
        if name not in seen:
            seen.add(name)
            if _reaches(defs, name, target, seen):
                return True
    return False


def _refs(value: Any) -> set[str]:
    if isinstance(value, dict):
        found = set().union(*(_refs(v) for v in value.values())) if value else set()
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.add(ref.removeprefix("#/$defs/"))
        return found
    if isinstance(value, list):
        return set().union(*(_refs(v) for v in value)) if value else set()
    return set()


def drop_titles(value: Any, *, in_properties: bool = False) -> Any:
    """`value` without `title` keywords (pydantic's, which toolgen never emits); a property that
    is itself named `title` stays."""
    if isinstance(value, dict):
        return {
            k: drop_titles(v, in_properties=k in ("properties", "$defs") and not in_properties)
            for k, v in value.items()
            if in_properties or k != "title"
        }
    if isinstance(value, list):
        return [drop_titles(v) for v in value]
    return value


def is_recursive(schema: dict[str, Any]) -> bool:
    """Does some `$defs` entry refer to itself, directly or through others?"""
    return bool(recursive_defs(schema))


def recursive_defs(schema: dict[str, Any]) -> list[str]:
    """The `$defs` entries that refer to themselves, directly or through others (in order)."""
    defs: dict[str, Any] = schema.get("$defs", {})
    return [name for name in defs if _reaches(defs, name, name, set())]


def accepts_null(schema: Any) -> bool:
    """Does `schema` accept null? An open schema (`{}`) does."""
    if not isinstance(schema, dict) or not schema:
        return True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if None in schema.get("enum", []):
        return True
    return any(isinstance(b, dict) and accepts_null(b) for b in schema.get("anyOf", []))


def copied(value: Any) -> Any:
    """A copy of JSON data `value`, no dict or list of it shared with the original."""
    if isinstance(value, dict):
        return {k: copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copied(v) for v in value]
    return value


def wraps(schema: dict[str, Any]) -> bool:
    """Does `render.mcp.output_schema` wrap this return schema as `{"result": ...}`?

    The runtime (`toolgen serve`) asks this of the descriptor's return schema, which keeps
    its `$ref`s, while the published `outputSchema` may come from the same schema inlined
    (`inline_defs`): the answer is the same for both, as inlining turns a root `$ref` to a
    non-recursive model into that model, which `object_root` accepts either way.
    """
    return bool(schema) and schema != {"type": "null"} and object_root(schema) is None


def object_root(schema: dict[str, Any]) -> dict[str, Any] | None:
    """`schema` as an `outputSchema` when its root is an object already, else None.

    An object root is a model's fields or a dict's entries (`dict`, `dict[str, int]`: only
    `additionalProperties`), published as it is; or a root `$ref` to a model that does not
    refer to itself, with any sibling keys (an `Annotated` description), published as the
    model, as `inline_refs` would inline it. A recursive model (by `inline_refs`' own test)
    stays a `$ref`: not an object.
    """
    defs = schema.get("$defs", {})
    root = {k: v for k, v in schema.items() if k != "$defs"}
    if root.get("type") == "object":
        return schema
    ref = root.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return None
    name = ref.removeprefix("#/$defs/")
    target = defs.get(name, {})
    if target.get("type") != "object" or name in recursive_defs(schema):
        return None
    siblings = {k: v for k, v in root.items() if k != "$ref"}
    rest = {k: v for k, v in defs.items() if k != name}
    return {**target, **siblings, **({"$defs": rest} if rest else {})}


#: Keywords whose value is one schema, a list of schemas, or schemas by name: where
#: `closed_objects` looks for objects (never into values such as `default` or `enum`).
_ONE_SCHEMA = (
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
)
_SCHEMA_LISTS = ("prefixItems", "anyOf", "oneOf", "allOf")
_SCHEMA_MAPS = ("properties", "$defs", "patternProperties", "dependentSchemas")
#: Keywords that say which properties beside the listed ones an object takes.
_OPENNESS = ("additionalProperties", "patternProperties", "unevaluatedProperties")


def closed_objects(schema: Any) -> Any:
    """A copy of `schema` in which every object that lists its `properties` and says nothing
    of others (no `additionalProperties`, `patternProperties` or `unevaluatedProperties`) is
    closed with `additionalProperties: false`: a model's, a dataclass's or a TypedDict's
    fields, at any depth (in `$defs`, arrays, unions). pydantic ignores unknown fields of such
    objects (its default `extra="ignore"`), so a model's mistake would pass unseen; an object
    the author opened stays open (`extra="allow"`: `additionalProperties: true`; a `dict[str,
    X]`: only `additionalProperties`)."""
    if isinstance(schema, list):
        return [closed_objects(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ONE_SCHEMA or key in _SCHEMA_LISTS:
            out[key] = closed_objects(value)
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: closed_objects(sub) for name, sub in value.items()}
        else:
            out[key] = value
    if isinstance(out.get("properties"), dict) and not any(k in out for k in _OPENNESS):
        out["additionalProperties"] = False
    return out
