"""Rules on a tool's shape (TG932-TG941): units and bounds of its parameters, pagination
names, idempotency keys, environments, large results, examples, one purpose per tool, the
fields of inline objects described.

Each rule reads the finished descriptor: a parameter's schema as published (an optional
parameter's `anyOf` with null and a `$ref` into `$defs` seen through), its name split into
words whatever its case (`timeoutMs` is `timeout ms`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from toolgen.descriptor import ToolDescriptor
from toolgen.lint.context import Finding, LintContext, Rule
from toolgen.lint.practice import looks_like_choice

Schema = dict[str, Any]


def _words(name: str) -> list[str]:
    """`maxPriceUSD` -> max, price, usd: a name's words, lower case."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _plain(schema: Any, defs: Schema) -> Schema:
    """A parameter's schema with its `$ref` followed and an optional's null branch dropped;
    the outer description (a parameter's, beside the `$ref` or the `anyOf`) kept."""
    if not isinstance(schema, dict):
        return {}
    out = dict(schema)
    for _ in range(3):  # a ref to an optional, an optional of a ref
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = defs.get(ref.removeprefix("#/$defs/"))
            out.pop("$ref")
            out = {**target, **out} if isinstance(target, dict) else out
        branches = [b for b in out.get("anyOf", []) if b != {"type": "null"}]
        if "anyOf" in out and len(branches) == 1 and isinstance(branches[0], dict):
            out.pop("anyOf")
            out = {**branches[0], **out}
    kinds = out.get("type")
    if isinstance(kinds, list):  # ["string", "null"]: a string
        named = [k for k in kinds if k != "null"]
        out["type"] = named[0] if len(named) == 1 else None
    if not isinstance(out.get("description", ""), str):
        out.pop("description")
    return out


def _number(schema: Schema, key: str) -> int | float:
    """A numeric keyword's value (`maxLength`), 0 when absent or not a number."""
    value = schema.get(key)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _properties(tool: ToolDescriptor) -> Iterator[tuple[str, Schema]]:
    defs = tool.parameters.get("$defs", {})
    for name, schema in tool.parameters.get("properties", {}).items():
        yield name, _plain(schema, defs)


# -- TG932: units, time zones and currencies -----------------------------------------------

_NUMBER = {"number", "integer"}
#: A name's word that makes a number a quantity with a unit, and which kind of unit.
_QUANTITY: dict[str, str] = {
    **dict.fromkeys(
        ("timeout", "duration", "delay", "interval", "ttl", "elapsed", "backoff", "latency"),
        "time",
    ),
    **dict.fromkeys(("distance", "radius", "altitude", "elevation"), "length"),
    **dict.fromkeys(("weight", "mass"), "mass"),
    "temperature": "temperature",
    **dict.fromkeys(("amount", "price", "cost", "fee", "balance", "salary"), "currency"),
}
#: Each kind's units as words; the one-letter ones (`s`, `m`, `c`) count in a name only.
_UNITS: dict[str, frozenset[str]] = {
    "time": frozenset(
        {"ms", "msec", "millis", "millisecond", "milliseconds", "sec", "secs", "second",
         "seconds", "mins", "minute", "minutes", "hr", "hrs", "hour", "hours", "day", "days",
         "week", "weeks", "micros", "microseconds", "us", "nanos", "nanoseconds", "ns", "s",
         "m", "h", "d", "epoch", "unix", "segundos", "minutos", "sekunden", "minuten",
         "secondes"}
    ),
    "length": frozenset(
        {"meters", "metres", "meter", "metre", "km", "kilometers", "kilometres", "miles",
         "mile", "mi", "ft", "feet", "foot", "yards", "inches", "cm", "mm", "m", "degrees",
         "px", "pixels", "pixel", "pt", "points"}
    ),
    "mass": frozenset(
        {"kg", "kilograms", "grams", "gram", "g", "lb", "lbs", "pounds", "oz", "ounces",
         "tonnes", "tons"}
    ),
    "temperature": frozenset({"celsius", "fahrenheit", "kelvin", "degrees", "c", "f", "k"}),
    "currency": frozenset(
        {"cents", "cent", "pence", "usd", "eur", "gbp", "jpy", "cad", "aud", "chf", "cny",
         "inr", "dollars", "dollar", "euros", "euro", "currency", "minor", "sats", "satoshis",
         "wei", "gwei", "eth", "btc", "usdc", "usdt", "credits"}
    ),
}  # fmt: skip
_UNIT_SIGN = re.compile(
    r"[°$€£¥₹%]|\bpercent|\d\s*(?:ms|s|m|km|kg|g|h|d)\b|\b(?:ratio|fraction|multiplier)\b",
    re.IGNORECASE,
)
#: Words that make a number no quantity with a unit: a model's sampling temperature, a
#: ranking weight, an amount that counts things.
_UNITLESS = re.compile(
    r"\b(?:sampl\w*|randomness|creativ\w*|determinis\w*|llm|model'?s?|relative|rank\w*|score"
    r"|boost|importance|number of|how many|count|quantity|between 0(?:\.0)? and 1(?:\.0)?"
    r"|0(?:\.0)?\s*(?:-|to)\s*[12](?:\.0)?)\b",
    re.IGNORECASE,
)
#: A name's words that count what the quantity word measures (`token_budget`, `max_cost_items`)
#: or make it no quantity with a unit (`prediction_interval_level`).
_COUNTED = frozenset(
    {"token", "tokens", "level", "count", "items", "results", "pct", "percent", "ratio",
     "factor", "score", "rank", "confidence", "tier", "steps", "retries", "attempts", "char",
     "chars", "characters", "bytes", "words", "lines", "rows", "pages"}
)  # fmt: skip
#: A sibling's word that makes a `temperature` a model's sampling temperature.
_LLM_SETTINGS = frozenset({"model", "tokens", "top", "prompt", "llm"})
#: What says an `amount` is money: the tool's name or description, or the parameter's text.
_MONEY = re.compile(
    r"pay|pric|invoic|charg|refund|transfer|currenc|money|balance|transaction|budget|cost|fee"
    r"|deposit|withdraw|purchas|sale|billing|wallet|[$€£¥₹]|usd|eur\b|donat|tip\b|loan|swap"
    r"|trade|order",
    re.IGNORECASE,
)
#: How a name could say each kind's unit.
_LIKE = {"time": "ms", "length": "m", "mass": "kg", "temperature": "celsius", "currency": "cents"}
_DATE_TIME_NAME = re.compile(r"(?:^|_)(?:at|time|datetime|timestamp)$|^(?:since|until)$")
#: A text that gives a date-time's form as a date alone: a day has no zone to state.
_DATE_ONLY = re.compile(r"^(?!.*(?:HH|hh|\d:\d)).*\bYYYY-MM-DD\b", re.DOTALL)
_ZONE = re.compile(
    r"\bUTC\b|\bGMT\b|time ?zone|\btz\b|offset|\bZ\b|\dZ\b|[+-]\d\d:?\d\d\b|Zulu|RFC ?3339"
    r"|epoch|unix|local time",
    re.IGNORECASE,
)


def _states_unit(kind: str, words: list[str], text: str) -> bool:
    """Does a name (its `words`) or its description (`text`) state a unit of `kind`? A name
    that states a unit of any kind counts (`time_budget_sec`)."""
    if any(units & set(words) for units in _UNITS.values()) or _UNIT_SIGN.search(text):
        return True
    return any(len(w) > 1 and w in _UNITS[kind] for w in _words(text))


def _unitless(tool: ToolDescriptor, words: list[str], text: str, siblings: set[str]) -> bool:
    """Is a number whose name says quantity no quantity with a unit: its text says so, a
    temperature beside a model's other settings, an `amount` in a tool about no money?"""
    if _UNITLESS.search(text):
        return True
    if "temperature" in words and any(_LLM_SETTINGS & set(n.split("_")) for n in siblings):
        return True
    if "amount" in words and not {"price", "cost", "fee"} & set(words):
        context = f"{tool.name} {tool.description} {text}"
        return not _MONEY.search(context)
    return False


def units_stated(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    params = dict(_properties(tool))
    siblings = {"_".join(_words(name)) for name in params}
    for name, schema in params.items():
        words = _words(name)
        text = str(schema.get("description", ""))
        number = schema.get("type") in _NUMBER
        kind = next((_QUANTITY[w] for w in words if w in _QUANTITY), None)
        if number and kind is not None and not _COUNTED & set(words):
            given = kind == "currency" and any("currency" in n.split("_") for n in siblings)
            if given or _states_unit(kind, words, text) or _unitless(tool, words, text, siblings):
                continue
            what = "currency" if kind == "currency" else "unit"
            like = _LIKE[kind]
            yield (
                "TG932",
                f"parameter `{name}` is a number whose {what} is not stated; say it in the "
                f"description or the name (`{'_'.join(words)}_{like}`)",
                ctx.params.get(name),
            )
            continue
        timed = _DATE_TIME_NAME.search("_".join(words))
        date_time = schema.get("format") == "date-time" or (
            schema.get("type") == "string" and "format" not in schema and timed
        )
        zoned = any({"timezone", "tz", "zone"} & set(n.split("_")) for n in siblings)
        if date_time and not (_ZONE.search(text) or zoned or _DATE_ONLY.search(text)):
            yield (
                "TG932",
                f"parameter `{name}` is a date-time whose time zone is not stated; say UTC, "
                "or ISO 8601 with an offset, in its description",
                ctx.params.get(name),
            )
        elif number and timed and not _states_unit("time", words, text):
            yield (
                "TG932",
                f"parameter `{name}` is a number for a time whose unit is not stated "
                "(epoch seconds? milliseconds?)",
                ctx.params.get(name),
            )


# -- TG933: strings without maxLength ------------------------------------------------------

#: A name's word that makes a string free text, whose length is the writer's to choose.
_FREE_TEXT = frozenset(
    {"query", "q", "text", "body", "content", "contents", "message", "messages", "description",
     "prompt", "notes", "note", "comment", "comments", "summary", "instructions", "instruction",
     "input", "question", "answer", "reply", "response", "feedback", "reason", "explanation",
     "context", "code", "script", "sql", "html", "markdown", "md", "json", "yaml", "xml", "csv",
     "payload", "data", "document", "doc", "template", "snippet", "source", "diff", "patch",
     "search", "keywords", "terms", "expression", "command", "cmd", "details", "bio", "caption",
     "transcript", "thought", "thoughts", "story", "essay", "article", "post", "task", "goal",
     "request", "condition", "filter", "formula", "program", "statement", "selector", "jql",
     "cql", "kql", "spl", "promql", "graphql", "regex", "pattern", "value", "values", "args"}
)  # fmt: skip
_FREE_TEXT_PROSE = re.compile(
    r"free[- ]?(?:form|text)|natural[- ]language|\bmarkdown\b|\bhtml\b|\bjson\b|full text"
    r"|\bquery\b|\bcontent\b|\bbody\b",
    re.IGNORECASE,
)
_BOUNDED = ("enum", "const", "pattern", "format", "maxLength")


def string_bounded(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    for name, schema in _properties(tool):
        if schema.get("type") != "string" or any(k in schema for k in _BOUNDED):
            continue
        if _FREE_TEXT & set(_words(name)) or looks_like_choice(name, schema):
            continue  # free text; or a choice, which TG908 asks to make an enum
        if _FREE_TEXT_PROSE.search(str(schema.get("description", ""))):
            continue
        yield (
            "TG933",
            f"string parameter `{name}` has no maxLength; bound it "
            "(Annotated[str, Field(max_length=...)], or a Literal if it is a choice) unless "
            "it is free text",
            ctx.params.get(name),
        )


# -- TG934: pagination names ---------------------------------------------------------------

#: Names of a page cursor other than the fixed ones (snake_case words joined); names that
#: may be something else (`token`, `after`, `marker`) count when their text says cursor.
_CURSOR_NAMES = re.compile(
    r"^(?:next_)?page_(?:token|cursor)$|^next_(?:page|token|marker)$|^continuation(?:_token)?$"
    r"|^(?:start|after|end|before)_cursor$|^starting_after$|^ending_before$"
)
_CURSOR_PROSE = re.compile(
    r"\bcursor\b.*\b(?:page|pagination|results?)\b|\b(?:page|pagination)\b.*\bcursor\b"
    r"|\b(?:page|pagination|continuation) token\b",
    re.IGNORECASE,
)
_FIXED = {"cursor", "next_cursor"}


def _cursor_like(name: str, schema: Schema) -> bool:
    joined = "_".join(_words(name))
    if joined in _FIXED or schema.get("type") != "string":
        return False
    return bool(_CURSOR_NAMES.match(joined) or _CURSOR_PROSE.search(schema.get("description", "")))


def pagination_names(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    for name, schema in _properties(tool):
        if _cursor_like(name, schema):
            yield (
                "TG934",
                f"parameter `{name}` is a page cursor; name it `cursor` (the result's "
                "`next_cursor`)",
                ctx.params.get(name),
            )
    result = _plain(tool.returns.schema_, tool.returns.schema_.get("$defs", {}))
    for name, schema in (result.get("properties") or {}).items():
        if _cursor_like(name, _plain(schema, {})):
            yield (
                "TG934",
                f"result property `{name}` is the next page's cursor; name it `next_cursor`",
                None,
            )


# -- TG935: idempotency keys of minLength 16 -----------------------------------------------

_KEY_NAMES = re.compile(r"idempotency|client_token|dedup", re.I)


def key_length(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    hints = tool.idempotency
    if hints.safe is not False or hints.idempotent is True:
        return
    for name, schema in _properties(tool):
        if not _KEY_NAMES.search("_".join(_words(name))) or schema.get("type") != "string":
            continue
        if schema.get("format") == "uuid" or _number(schema, "minLength") >= 16:
            continue
        yield (
            "TG935",
            f"idempotency key `{name}` may be shorter than 16 characters; give it "
            "Field(min_length=16) or make it a UUID",
            ctx.params.get(name),
        )


# -- TG936: an environment for high-risk deletes -------------------------------------------


def environment_stated(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    first = _words(tool.name)[:1]
    if tool.risk not in ("high", "critical") or first not in (["delete"], ["bulk"]):
        return
    if "environment" not in tool.parameters.get("properties", {}):
        yield (
            "TG936",
            f"{tool.risk}-risk `{first[0]}_` tool takes no `environment` parameter; name "
            "the environment it acts on",
            None,
        )


# -- TG937: large results as a resource_url ------------------------------------------------

_LIMIT = 10 * 1024
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(KB|KiB|MB|MiB|GB|GiB|kilobytes?|megabytes?|gigabytes?)\b")
_SCALE = {"k": 1024, "m": 1024**2, "g": 1024**3}
_BINARY = {"binary", "base64", "byte"}


def _declared_size(schema: Schema, defs: Schema, depth: int = 0) -> str | None:
    """Why `schema` is declared larger than 10 KB, if it is: inline bytes, or a bound."""
    schema = _plain(schema, defs)
    if depth > 3:
        return None
    if schema.get("type") == "string":
        if schema.get("format") in _BINARY or schema.get("contentEncoding") == "base64":
            return "inline bytes"
        if _number(schema, "maxLength") > _LIMIT:
            return f"up to {schema['maxLength']} characters"
    children = schema.get("properties")
    for child in (children if isinstance(children, dict) else {}).values():
        found = _declared_size(child, defs, depth + 1)
        if found:
            return found
    return None


def _stated_size(text: str) -> int:
    largest = 0
    for number, unit in _SIZE.findall(text):
        largest = max(largest, int(float(number) * _SCALE[unit[0].lower()]))
    return largest


def large_result(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    schema = tool.returns.schema_
    defs = schema.get("$defs", {})
    plain = _plain(schema, defs)
    if "resource_url" in (plain.get("properties") or {}):
        return
    why = _declared_size(schema, defs)
    size = _stated_size(tool.returns.description or "")
    if why is None and size > _LIMIT:
        why = f"its description says up to {size // 1024} KB"
    if why is not None:
        yield (
            "TG937",
            f"result may be larger than 10 KB ({why}); return a `resource_url` to fetch it",
            None,
        )


# -- TG938, TG939: examples ----------------------------------------------------------------

_SENTENCE_BREAK = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)[.!?]+\s+(?=[A-Z0-9\"'`(])")


def example_prompts(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    missing = [n for n, e in enumerate(tool.examples, 1) if not (e.prompt or "").strip()]
    if missing:
        which = ", ".join(map(str, missing))
        of = f"example{'s' if len(missing) > 1 else ''} {which} of {len(tool.examples)}"
        yield (
            "TG938",
            f"{of} without a prompt; write what a user says before `>>>`",
            None,
        )


def example_notes(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    for number, example in enumerate(tool.examples, 1):
        notes = (example.notes or "").strip()
        if notes and _SENTENCE_BREAK.search(notes):
            yield (
                "TG939",
                f"example {number}'s notes are longer than one sentence; say what the "
                "example shows in one",
                None,
            )


# -- TG940: one purpose per tool -----------------------------------------------------------

_SWITCH_NAMES = frozenset({"action", "mode", "operation", "op", "command", "cmd", "verb"})
_READS = frozenset(
    {"get", "list", "read", "search", "find", "fetch", "query", "show", "describe", "view",
     "count", "lookup", "inspect", "info", "status", "browse", "retrieve", "download", "peek",
     "stat", "stats", "ls", "cat", "history", "diff", "preview"}
)  # fmt: skip
_WRITES = frozenset(
    {"create", "update", "delete", "remove", "set", "send", "add", "put", "post", "patch",
     "write", "insert", "upsert", "edit", "modify", "move", "rename", "archive", "publish",
     "deploy", "upload", "reset", "clear", "drop", "assign", "unassign", "cancel", "close",
     "reopen", "merge", "push", "install", "uninstall", "enable", "disable", "kill", "stop",
     "start", "restart", "save", "store", "replace", "append", "mark", "rm", "mkdir", "new",
     "destroy", "purge", "approve", "reject", "submit", "invite", "ban", "block", "unblock",
     "lock", "unlock", "subscribe", "unsubscribe", "schedule", "commit", "revert", "transfer"}
)  # fmt: skip


def _enum(schema: Schema) -> list[str]:
    values = schema.get("enum")
    if not isinstance(values, list):
        values = [b.get("const") for b in schema.get("anyOf", []) if isinstance(b, dict)]
    return [v for v in values if isinstance(v, str)]


def mixed_purpose(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    for name, schema in _properties(tool):
        if "_".join(_words(name)) not in _SWITCH_NAMES:
            continue
        values = _enum(schema)
        # `find_replace` reads to write: a read verb first counts only with no write after it
        writes = [v for v in values if (_words(v) or [""])[0] in _WRITES]
        reads = [
            v for v in values if (_words(v) or [""])[0] in _READS and not _WRITES & set(_words(v))
        ]
        if reads and writes:
            yield (
                "TG940",
                f"`{name}` switches between reads ({', '.join(reads[:3])}) and writes "
                f"({', '.join(writes[:3])}); make one tool per purpose",
                ctx.params.get(name),
            )


# -- TG941: fields of inline objects described ---------------------------------------------


def _undescribed(schema: Any, path: str) -> Iterator[str]:
    """The fields of the objects written inline in `schema` that have no description; a
    `$ref` is a class's, whose fields TG309 reports where the class is."""
    if not isinstance(schema, dict):
        return
    for name, field in (schema.get("properties") or {}).items():
        if not isinstance(field, dict):
            continue
        if "description" not in field and "$ref" not in field:
            yield f"{path}.{name}"
        yield from _undescribed(field, f"{path}.{name}")
    yield from _undescribed(schema.get("items"), f"{path}[]")
    for branch in schema.get("anyOf") or []:
        yield from _undescribed(branch, path)


def inline_fields_described(tool: ToolDescriptor, ctx: LintContext) -> Iterator[Finding]:
    for name, schema in tool.parameters.get("properties", {}).items():
        fields = list(_undescribed(schema, name))
        if fields:
            shown = ", ".join(f"`{f}`" for f in fields[:3]) + (", ..." if len(fields) > 3 else "")
            yield (
                "TG941",
                f"parameter `{name}` has fields without a description: {shown}",
                ctx.params.get(name),
            )


RULES: dict[str, Rule] = {
    "TG932": units_stated,
    "TG933": string_bounded,
    "TG934": pagination_names,
    "TG935": key_length,
    "TG936": environment_stated,
    "TG937": large_result,
    "TG938": example_prompts,
    "TG939": example_notes,
    "TG940": mixed_purpose,
    "TG941": inline_fields_described,
}
