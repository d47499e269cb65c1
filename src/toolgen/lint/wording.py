"""Rules on what a tool's description and names say (TG913-TG919, TG921-TG922): one
paragraph, when to call it, no marketing voice or implementation details, read or write,
verb-first names, snake_case parameters, enum values a reader can guess.

They read text, so they are heuristics: each is worded to stay quiet where it cannot tell
(another language, a product name, a word it does not know)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.lint.context import Finding, LintContext, Rule
from toolgen.lint.verbs import (
    READ_VERBS,
    WRITE_VERBS,
    english,
    is_verb,
    snake_case,
    split_name,
    verb,
)

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_TRIGGER = re.compile(
    r"\b(?:use|call|invoke)\s+(?:this|it|me)?\s*(?:tool|function)?\s*"
    r"(?:when|whenever|for|to|if|before|after|instead|only|in|on)\b"
    r"|\b(?:useful|helpful|ideal|best|intended|designed|meant|good)\s+(?:for|when|to)\b"
    r"|\b(?:be|is|are|commonly|typically|often|usually)\s+used\s+(?:for|to|when|if)\b"
    r"|\b(?:when|if|whenever)\s+(?:the\s+|a\s+|an\s+)?(?:user|you|agent|model|caller|llm)s?\b"
    r"|\b(?:before|after|instead of)\s+(?:calling|using|running)\b"
    r"|\b(?:do not|don't|never)\s+(?:use|call)\b|\bnot\s+(?:for|to be used)\b"
    r"|\binstead\b|\bonly\s+(?:for|when|if|to|on|in)\b",
    re.I,
)
_MARKETING = re.compile(
    r"\b(?:blazing(?:ly)?[- ]fast|lightning[- ]fast|super[- ]?fast|ultra[- ]?fast|powerful"
    r"|seamless(?:ly)?|robust(?![- ](?:z|regress|estimat|statistic|scal|standard|mean|median))"
    r"|cutting[- ]edge|state[- ]of[- ]the[- ]art|world[- ]class"
    r"|best[- ]in[- ]class|industry[- ]leading|enterprise[- ]grade|next[- ]gen(?:eration)?"
    r"|revolutionary|game[- ]chang(?:ing|er)|unparalleled|unrivall?ed|effortless(?:ly)?"
    r"|supercharge[sd]?|amazing|awesome|incredible|magical|stunning|ultimate)\b",
    re.I,
)
_IMPLEMENTATION = re.compile(
    r"\bwrapper (?:around|for|over|of)\b|\bwraps (?:the|a|an)\b|\bunder the hood\b"
    r"|\binternally (?:calls|uses|invokes)\b"
    r"|\b(?:GET|POST|PUT|PATCH|DELETE) /(?:[\w/{}:.-]*[\w/}])?"
    r"|\b(?:calls?|invokes?|uses?) (?:the )?`?[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_.]*\(\)"
    r"|\b(?:via|using|through) (?:the )?(?:httpx|aiohttp|urllib3?|boto3|botocore|sqlalchemy"
    r"|psycopg2?|asyncpg|pymongo|subprocess|beautifulsoup4?|bs4)\b",
)
_SAYS_READ = re.compile(
    r"\bread[- ]only\b|\bdoes(?: not|n't) (?:modify|change|write|alter)\b|\bno side effects\b"
    r"|\bchanges nothing\b|\bnothing is (?:changed|written|modified)\b",
    re.I,
)
_UNCLEAR_VERBS = frozenset(
    {"manage", "handle", "process", "perform", "run", "execute", "invoke", "call", "use",
     "access", "provide", "make", "take", "request", "build", "load", "open",
     "sync", "tag", "label", "flag", "map", "match", "type", "order", "book", "generate",
     "record", "log"}
)  # fmt: skip
_CLEAR_READ = READ_VERBS - _UNCLEAR_VERBS
_CLEAR_WRITE = WRITE_VERBS - _UNCLEAR_VERBS - READ_VERBS
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
_CODE = re.compile(r"^(?:[A-Za-z]|[A-Za-z]\d{1,2})$")  # "P", "S", "d1", "h4"
_PLAIN = frozenset({"x", "y", "z", "n"})  # axes, and Y/N


def _head_words(text: str) -> list[str]:
    """The first sentence's words, markup and leading adverbs dropped (`Permanently delete
    ...` starts with `delete`)."""
    first = re.split(r"(?<=[.!?])\s|\n", text.strip(), maxsplit=1)[0] if text.strip() else ""
    words = [w.strip("*_`#>[]()\"'") for w in first.split()]
    words = [w for w in words if w]
    while len(words) > 1 and words[0].lower().endswith("ly") and is_verb(words[0]) is None:
        words = words[1:]
    return words


def one_paragraph(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    # a docstring's summary line stands apart by convention (PEP 257): the body is what counts
    paragraphs = [p for p in _PARAGRAPH_BREAK.split(tool.description.strip()) if p.strip()]
    if len(paragraphs) > 2:
        yield (
            "TG913",
            f"description has {len(paragraphs)} paragraphs; a summary line and one paragraph "
            "tell a model enough",
            None,
        )


def says_when(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    if english(tool.description) and not _TRIGGER.search(tool.description):
        yield (
            "TG914",
            "description does not say when to call the tool (`Use it when ...`, `Do not use "
            "it for ...`)",
            None,
        )


def marketing_voice(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    found = _MARKETING.search(tool.description)
    if found:
        yield (
            "TG915",
            f"description sells (`{found.group(0)}`); say what the tool does instead",
            None,
        )


def implementation_details(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    found = _IMPLEMENTATION.search(tool.description)
    if found:
        yield (
            "TG916",
            f"description tells how the tool is built (`{found.group(0)}`); say what it does "
            "for the caller",
            None,
        )


def says_read_or_write(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    hints = tool.idempotency
    if hints.safe is not None or hints.destructive is not None:
        return  # the annotations say it
    if not english(tool.description):
        return
    head = _head_words(tool.description)
    words = [w.lower() for w in _WORD.findall(tool.description)]
    named = [verb(w) for w in [*head[:1], *split_name(tool.name)[:3], *words]]
    clear = {v for v in named if v in _CLEAR_READ or v in _CLEAR_WRITE}
    if not clear and not _SAYS_READ.search(tool.description):
        yield (
            "TG917",
            "description does not say whether the tool reads or changes data; start with a "
            "verb that does, or set `safe` in its Idempotency section",
            None,
        )


def verb_first_name(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    words = split_name(tool.name)
    # a namespace may come first (`github_create_issue`, `ticket_search`)
    if not words or any(is_verb(w) for w in words[:3]) or not english(tool.description):
        return
    head = _head_words(tool.description)
    said = verb(head[0]) if head else None
    # `compute_calculator` would be no better: no guess when the name is the verb's noun
    if said not in (None, *_UNCLEAR_VERBS) and not any(w[:5] == str(said)[:5] for w in words):
        guess = f"`{said}_{'_'.join(words)}`"
        yield "TG918", f"tool name `{tool.name}` does not start with a verb; e.g. {guess}", None
    else:
        yield (
            "TG918",
            f"tool name `{tool.name}` does not start with a verb (get_, search_ ...)",
            None,
        )


def snake_case_parameters(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    for name in tool.parameters.get("properties", {}):
        if not _SNAKE.match(name) and snake_case(name) and _SNAKE.match(snake_case(name)):
            yield (
                "TG919",
                f"parameter `{name}` is not snake_case: `{snake_case(name)}`",
                ctx.params.get(name),
            )


def cryptic_enum_values(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    for name, schema in tool.parameters.get("properties", {}).items():
        values = _enum_values(schema)
        told = f"{schema.get('description', '') if isinstance(schema, dict) else ''}\n"
        told += tool.description
        cryptic = [v for v in values if _CODE.match(v) and v.lower() not in _PLAIN]
        unexplained = [v for v in cryptic if not _explained(v, told)]
        # a letter among words (`QB`, `K`) is a domain's code; a set of only letters is cryptic
        if values and len(cryptic) == len(set(values)) and unexplained:
            shown = ", ".join(f'"{v}"' for v in unexplained[:4])
            yield (
                "TG921",
                f"parameter `{name}` has values a reader cannot guess ({shown}); use words, or "
                "say what each means in its description",
                ctx.params.get(name),
            )


def _enum_values(schema: Any) -> list[str]:
    """The string values a parameter (or its items, or a branch) is limited to."""
    if not isinstance(schema, dict):
        return []
    values = [v for v in schema.get("enum", []) if isinstance(v, str)]
    if isinstance(schema.get("const"), str):
        values.append(schema["const"])
    for child in [schema.get("items"), *schema.get("anyOf", []), *schema.get("oneOf", [])]:
        values += _enum_values(child)
    return values


def _explained(value: str, text: str) -> bool:
    v = re.escape(value)
    said = rf"(?<![\w-])['\"`]?{v}['\"`]?\s*(?:=|:|-|\u2013|\u2014|\(|means\b|is\b|for\b|stands\b)"
    return bool(re.search(said, text) or re.search(rf"\(\s*['\"`]?{v}['\"`]?\s*\)", text))


RULES: dict[str, Rule] = {
    "TG913": one_paragraph,
    "TG914": says_when,
    "TG915": marketing_voice,
    "TG916": implementation_details,
    "TG917": says_read_or_write,
    "TG918": verb_first_name,
    "TG919": snake_case_parameters,
    "TG921": cryptic_enum_values,
}
