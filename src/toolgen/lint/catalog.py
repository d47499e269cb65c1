"""Rules that read a catalog's tools side by side (TG922-TG923): near-duplicate siblings
that do not say which to use, and a set too large to send whole."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from toolgen.lint.verbs import is_verb, split_name, stem, verb

CatalogFinding = tuple[str, str, str]  # code, message, the name of the tool it is located at


class CatalogTool(NamedTuple):
    """What the catalog rules read of one visible tool: what a model sees of it."""

    name: str
    description: str


CatalogRule = Callable[[list[CatalogTool]], Iterator[CatalogFinding]]

#: past this many visible tools, choosing among them costs a model (Anthropic's advice)
MANY_TOOLS = 30
#: two tools are close when their names share half their words and their descriptions
#: half their content words, or their descriptions four fifths
NAME_CLOSE, TEXT_CLOSE, TEXT_SAME = 0.5, 0.5, 0.8

_STOP = frozenset(
    {"the", "and", "for", "with", "from", "that", "this", "into", "its", "are", "was", "can",
     "use", "tool", "will", "you", "your", "all", "any", "one", "each", "specified", "given",
     "specific", "returns", "return", "when", "which", "not", "has", "have", "about"}
)  # fmt: skip
_TOLD_APART = re.compile(r"\binstead\b|\brather than\b|\bunlike\b|\bnot to be confused\b", re.I)


def _words(text: str, whole: bool = False) -> frozenset[str]:
    # the first paragraph: where a model reads what the tool is for
    said = text if whole else re.split(r"\n[ \t]*\n", text.strip(), maxsplit=1)[0]
    words = [w for token in re.findall(r"[A-Za-z][A-Za-z0-9_]*", said) for w in split_name(token)]
    return frozenset(stem(w) for w in words if len(w) > 2 and w not in _STOP)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def near_duplicates(tools: list[CatalogTool]) -> Iterator[CatalogFinding]:
    """Each tool close to an earlier one, when neither description tells them apart (names
    the other, or says `instead`), at the later one, naming the first such sibling."""
    seen: list[tuple[CatalogTool, frozenset[str], frozenset[str], frozenset[str | None]]] = []
    for tool in tools:
        words = split_name(tool.name)
        name, text, action = frozenset(map(stem, words)), _words(tool.description), _verbs(words)
        for other, other_name, other_text, other_action in seen:
            # opposite actions on one object (get_x, delete_x) are not confused
            overlap = _jaccard(text, other_text) if action == other_action else 0.0
            close = (overlap >= TEXT_SAME and len(text) >= 4) or (
                _jaccard(name, other_name) >= NAME_CLOSE and overlap >= TEXT_CLOSE
            )
            told = _tells(tool, other) or _tells(other, tool)
            if close and not told and not _own_words_said(tool, name, other, other_name):
                yield (
                    "TG922",
                    f"tool {tool.name}: close to `{other.name}` (name and description); say "
                    f"when to use which (`use {other.name} instead to ...`)",
                    tool.name,
                )
                break
        seen.append((tool, name, text, action))


def _verbs(words: list[str]) -> frozenset[str | None]:
    return frozenset(verb(w) for w in words if is_verb(w))


def _own_words_said(
    tool: CatalogTool, name: frozenset[str], other: CatalogTool, other_name: frozenset[str]
) -> bool:
    """Each says the words that set its name apart (`get_slide_info` says `slide`, and
    `get_presentation_info` says `presentation`): a model can tell which it wants."""
    pairs = [(tool, _content(name - other_name)), (other, _content(other_name - name))]
    return any(own for _, own in pairs) and all(
        own <= _words(each.description, whole=True) for each, own in pairs
    )


def _content(words: frozenset[str]) -> frozenset[str]:
    return frozenset(w for w in words if len(w) > 2 and w not in _STOP)


def _tells(tool: CatalogTool, other: CatalogTool) -> bool:
    return other.name in tool.description or bool(_TOLD_APART.search(tool.description))


def many_tools(tools: list[CatalogTool]) -> Iterator[CatalogFinding]:
    if len(tools) > MANY_TOOLS:
        yield (
            "TG923",
            f"tool {tools[0].name}: the catalog shows {len(tools)} tools (over {MANY_TOOLS}); "
            "load them on demand (a tool search tool) or split the server by task",
            tools[0].name,
        )


RULES: dict[str, CatalogRule] = {
    "TG922": near_duplicates,
    "TG923": many_tools,
}
