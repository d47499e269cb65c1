"""The first good-practice rules on a finished descriptor (TG901-TG911): names, description
length and opening, parameter shapes, write safety."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.diagnostics import plural
from toolgen.lint.context import Finding, LintContext, Rule
from toolgen.lint.verbs import is_verb
from toolgen.schema_ops import accepts_null

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_ENUM_PROSE = re.compile(r"\bone of\b|\beither\b.+\bor\b|\b\w+ = \w+|\b\w+\s*\|\s*\w+\b", re.I)
_ENUM_NAMES = frozenset(
    {"mode", "status", "state", "type", "kind", "order", "sort", "format", "unit", "units",
     "level", "priority", "category", "direction", "method", "channel"}
)  # fmt: skip
_KEY_NAMES = re.compile(r"idempotency|request_id|client_token|dedup|operation_id", re.I)
_READ_ONLY = re.compile(r"\bread[- ]only\b|\bdoes not (modify|change)\b", re.I)


def _sentences(text: str) -> int:
    first_paragraph_free = text.replace("\n", " ").strip()
    return len(_SENTENCE_END.findall(first_paragraph_free + " "))


def name_snake_case(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    if not _SNAKE.match(tool.name):
        yield "TG901", f"tool name `{tool.name}` is not snake_case", None


def description_sentences(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    count = _sentences(tool.description)
    if not 2 <= count <= 5:
        sentences = plural(count, "sentence")
        yield "TG902", f"description has {sentences}; 2-5 tell a model enough", None


def description_length(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    if len(tool.description) > 600:
        yield "TG903", f"description has {len(tool.description)} characters (over 600)", None


def description_verb(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    # markup and leading adverbs aside (`**Search**`, `Permanently delete`), the first word
    # must not plainly be something else: a word `is_verb` cannot place is let be
    words = [w.strip("*_`#>\"'") for w in tool.description.split()]
    words = [w for w in words if w]
    while len(words) > 1 and words[0].lower().endswith("ly") and is_verb(words[0]) is None:
        words = words[1:]
    if words and is_verb(words[0].strip(".,:;")) is False:
        yield "TG904", f"description starts with `{words[0]}`; start with a verb", None


def optional_has_default(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    for name, schema in tool.parameters.get("properties", {}).items():
        if schema and accepts_null(schema) and not ctx.has_default.get(name, True):
            yield (
                "TG905",
                f"parameter `{name}` accepts null but has no default",
                ctx.params.get(name),
            )


def nesting_depth(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    defs = tool.parameters.get("$defs", {})
    depths: dict[str, int] = {}  # each entry's, once: the tool's properties share them
    for name, schema in tool.parameters.get("properties", {}).items():
        depth = _object_depth(schema, defs, set(), depths)
        if depth > 2:
            yield (
                "TG906",
                f"parameter `{name}` nests objects {depth} levels deep (more than 2)",
                ctx.params.get(name),
            )


def _object_depth(schema: Any, defs: dict[str, Any], seen: set[str], depths: dict[str, int]) -> int:
    """How many objects deep `schema` nests, through its `$defs` entries: each entry's depth
    is found once (`depths`), a reference back to one being measured (`seen`) adding none.
    The deepest path that never repeats an entry is exponential to find (a model with a
    field of each of ten others, each of them alike: 10! paths), so the depth of a
    recursive family is that of the first path to each entry."""
    if isinstance(schema, list):
        return max((_object_depth(s, defs, seen, depths) for s in schema), default=0)
    if not isinstance(schema, dict):
        return 0
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.removeprefix("#/$defs/")
        if name in seen:
            return 0
        if name not in depths:
            seen.add(name)
            depths[name] = _object_depth(defs.get(name, {}), defs, seen, depths)
            seen.discard(name)
        return depths[name]
    own = 1 if schema.get("type") == "object" and schema.get("properties") else 0
    children = [
        *schema.get("properties", {}).values(),
        schema.get("items"),
        *schema.get("anyOf", []),
    ]
    return own + max((_object_depth(c, defs, seen, depths) for c in children if c), default=0)


def union_parameter(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    for name, schema in tool.parameters.get("properties", {}).items():
        branches = [b for b in schema.get("anyOf", []) if b != {"type": "null"}]
        if len(branches) > 1:
            yield (
                "TG907",
                f"parameter `{name}` is a union of {len(branches)} types",
                ctx.params.get(name),
            )


def looks_like_choice(name: str, schema: dict[str, Any]) -> bool:
    """Is parameter `name` a plain string that reads as a choice among values (TG908)?"""
    plain = schema.get("type") == "string" and not (
        {"enum", "const", "pattern", "format"} & set(schema)
    )
    text = schema.get("description", "")
    return plain and bool(_ENUM_PROSE.search(text) or name.lower() in _ENUM_NAMES)


def enum_in_prose(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    for name, schema in tool.parameters.get("properties", {}).items():
        if looks_like_choice(name, schema):
            yield (
                "TG908",
                f"parameter `{name}` looks like a choice among values; use Literal[...] or an Enum",
                ctx.params.get(name),
            )


def write_without_key(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    hints = tool.idempotency
    names = tool.parameters.get("properties", {})
    keyed = any(_KEY_NAMES.search(name) for name in names)
    if hints.safe is False and hints.idempotent is not True and not keyed:
        yield "TG909", "tool changes data and is not idempotent, but takes no idempotency key", None


def destructive_without_confirmation(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    if tool.idempotency.destructive and not tool.confirmation:
        why = tool.confirmation_reason or "no reason given"
        yield "TG910", f"destructive tool runs without confirmation ({why})", None


def read_only_contradiction(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    if tool.idempotency.safe is False and _READ_ONLY.search(tool.description):
        yield "TG911", "description says the tool is read-only, but `safe` is false", None


RULES: dict[str, Rule] = {
    "TG901": name_snake_case,
    "TG902": description_sentences,
    "TG903": description_length,
    "TG904": description_verb,
    "TG905": optional_has_default,
    "TG906": nesting_depth,
    "TG907": union_parameter,
    "TG908": enum_in_prose,
    "TG909": write_without_key,
    "TG910": destructive_without_confirmation,
    "TG911": read_only_contradiction,
}
