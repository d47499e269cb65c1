"""Is a word a verb? The small lexicon the wording rules share: a modest list of the verbs
tools start with, their third-person forms by morphology (`Returns`, `Fetches`, `Copies`),
and the words that are plainly not verbs (determiners, pronouns, tool nouns, adjectives and
nouns by their suffixes). A word it cannot place (a product name, another language) is
`None`: the rules stay quiet on what they cannot tell."""

from __future__ import annotations

import re

# what reading tools do, and what changing tools do: the first verb then says read or write
READ_VERBS = frozenset(
    {"get", "list", "search", "find", "fetch", "read", "show", "describe", "query", "check",
     "count", "view", "lookup", "look", "retrieve", "return", "inspect", "analyze", "analyse",
     "validate", "verify", "compute", "calculate", "estimate", "preview", "download", "browse",
     "explore", "discover", "detect", "identify", "compare", "summarize", "summarise",
     "explain", "resolve", "translate", "convert", "parse", "extract", "render", "format",
     "diff", "measure", "evaluate", "scan", "peek", "poll", "watch", "monitor", "test",
     "predict", "recommend", "suggest", "rank", "score", "classify", "diagnose", "trace",
     "review", "audit", "examine", "obtain", "enumerate", "load", "export", "print", "ask",
     "answer", "sample", "probe", "ping", "lint", "recall", "map", "match", "filter", "sort",
     "locate", "geocode", "decode", "encode", "hash", "generate", "plan", "draft", "access",
     "see", "tell", "report", "provide", "echo", "aggregate", "collect", "greet"}
)  # fmt: skip
WRITE_VERBS = frozenset(
    {"create", "add", "update", "delete", "remove", "set", "send", "write", "post", "put",
     "insert", "modify", "edit", "save", "upload", "move", "rename", "start", "stop",
     "cancel", "run", "execute", "invoke", "call", "trigger", "launch", "deploy", "install",
     "uninstall", "restart", "reset", "clear", "close", "open", "submit", "publish", "approve",
     "reject", "assign", "unassign", "attach", "detach", "archive", "unarchive", "restore",
     "revoke", "grant", "enable", "disable", "pause", "resume", "schedule", "register",
     "unregister", "subscribe", "unsubscribe", "merge", "copy", "clone", "import", "sync",
     "push", "pull", "commit", "apply", "replace", "drop", "truncate", "purge", "destroy",
     "terminate", "kill", "block", "unblock", "mark", "tag", "label", "flag", "pin", "unpin",
     "lock", "unlock", "store", "record", "log", "append", "patch", "change", "configure",
     "initialize", "init", "build", "compile", "migrate", "rollback", "revert", "undo",
     "redo", "fork", "invite", "share", "unshare", "transfer", "place", "book", "order",
     "pay", "refund", "charge", "reply", "comment", "notify", "email", "message", "click",
     "type", "press", "scroll", "navigate", "select", "fill", "hover", "drag",
     "switch", "toggle", "activate", "deactivate", "link", "unlink", "connect", "disconnect",
     "reload", "refresh", "populate", "acknowledge", "dismiss", "accept", "decline", "release",
     "perform", "manage", "handle", "process", "reindex", "index", "ingest", "persist",
     "provision", "scale", "resize", "crop", "rotate", "draw", "make", "take",
     "capture", "wait", "sleep", "emit", "fire", "dispatch", "enqueue", "dequeue", "pop",
     "lpop", "rpop", "stash", "checkout", "tune", "train", "optimize", "optimise", "fix",
     "revise", "use", "try", "retry", "expand", "collapse", "split", "join", "leave",
     "authenticate", "login", "logout", "sign", "confirm", "request", "propose", "embed", "expire"}
)  # fmt: skip
VERBS = READ_VERBS | WRITE_VERBS

# plainly not a verb at the head of a description or a name
NOT_VERBS = frozenset(
    {"a", "an", "the", "this", "that", "these", "those", "it", "its", "my", "our", "your",
     "their", "his", "her", "we", "i", "you", "they", "he", "she", "there", "here", "what",
     "which", "who", "whose", "how", "why", "where", "when", "for", "with", "from", "of",
     "in", "on", "at", "by", "to", "via", "as", "given", "all", "each", "every", "any",
     "some", "one", "two", "tool", "tools", "function", "method", "handler", "endpoint",
     "api", "wrapper", "helper", "utility", "used", "internal", "mcp", "server", "service",
     "simple", "basic", "main", "new", "full", "quick"}
)  # fmt: skip

_NOT_VERB_SUFFIX = re.compile(
    r"(?:(?<!e)ive|ous|ful|less|ical|able|ible|ness|ity|ship|ism|ary|ory)$"
)
_LETTERS = re.compile(r"^[a-z]+(?:-[a-z]+)*$")


def stem(word: str) -> str:
    """A third-person verb's base form (`returns` -> `return`, `fetches` -> `fetch`,
    `copies` -> `copy`); other words as they are."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


# shell and database commands tools are named after (`ls`, `grep`, Redis's `del`)
COMMANDS = {"ls": "list", "grep": "search", "tail": "read", "head": "read", "cat": "read",
            "del": "delete", "rem": "remove", "rm": "remove", "mv": "move", "cp": "copy",
            "mkdir": "create", "man": "read", "ps": "list", "du": "read", "df": "read"}  # fmt: skip


def verb(word: str) -> str | None:
    """`word`'s base form when it is a verb (base or third person, `unpause`, `auto-generate`,
    a command such as `ls` or Redis's `lpush`), else None."""
    low = word.lower()
    if low in COMMANDS:
        return COMMANDS[low]
    for form in (low, stem(low)):
        last = form.rsplit("-", 1)[-1]  # `auto-generate`, `soft-delete`
        if form in VERBS or last in VERBS or _verb_shaped(form):
            return last if last in VERBS else form
        for prefix in ("un", "re", "de", "auto", "pre"):  # unpause, resync, autofill
            if form.startswith(prefix) and form[len(prefix) :] in VERBS:
                return form[len(prefix) :]
    # a command's one-letter type prefix: lpush, zadd, hgetall, xreadgroup
    if low[1:] in COMMANDS:
        return COMMANDS[low[1:]]
    return next((v for v in VERBS if len(v) >= 3 and low[1:] in (v, f"{v}all", f"{v}group")), None)


def _verb_shaped(word: str) -> bool:
    # verbs made by a suffix: summarize, classify, validate, shorten
    return len(word) > 5 and word.endswith(("ize", "ise", "ify", "ate"))


def is_verb(word: str) -> bool | None:
    """True for a verb, False for a word that plainly is not one, None when it cannot tell
    (a product name, another language's word, an unusual verb)."""
    low = word.lower()
    if not low:
        return None
    if verb(low) is not None:
        return True
    if low in NOT_VERBS:
        return False
    if not _LETTERS.match(low):  # a code, a path, another script: cannot tell
        return None
    if _NOT_VERB_SUFFIX.search(low) and len(low) > 6:  # comprehensive, powerful, utility
        return False
    if low.endswith("ed") and not low.endswith("eed") and len(low) > 4:  # unified, based
        return False
    if low.endswith("ing") and len(low) > 5 and re.search(r"[aeiouy]", low[:-3]):
        return False  # a gerund or a noun: getting, pricing (not ping, bring, string)
    return None


_NAME_WORD = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+")
_ENGLISH = frozenset(
    {"the", "a", "an", "of", "to", "for", "and", "or", "in", "on", "with", "from", "by", "is",
     "are", "it", "this", "that", "as", "be", "if", "when", "use", "all", "your", "any"}
)  # fmt: skip


def split_name(name: str) -> list[str]:
    """A tool or parameter name's words, lower case: `getUser_profile` -> get, user, profile;
    `ExternalIPs` -> external, ips."""
    return [w.lower() for w in _NAME_WORD.findall(name)]


def english(text: str) -> bool:
    """Whether `text` reads as English (the wording rules judge nothing else): two of its
    words are English function words, or it is ASCII and opens with a verb of the list (a
    one-line `Get the weather.` has one function word at most)."""
    words = re.findall(r"[a-z]+", text.lower())
    if sum(w in _ENGLISH for w in words[:60]) >= 2:
        return True
    first = re.match(r"\s*([A-Za-z]+)\b", text)
    return first is not None and text.isascii() and verb(first.group(1).lower()) is not None


def snake_case(name: str) -> str:
    """`pageToken` -> `page_token`, `Max-Results` -> `max_results`."""
    return "_".join(split_name(name))
