"""Diagnostics as data: a stable rule code, a level, a message and a source location.

Every problem toolgen finds in user input becomes a `Diagnostic`; nothing in the pipeline prints
or exits. The CLI formats them (`format_text`, `format_github`, `to_dict`) and turns their levels
into an exit code. Each is one line in the text format (line breaks in a message become spaces)
and in the GitHub format (line breaks escaped as `%0A`); JSON keeps the message as it is.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, Literal

from toolgen.quoting import QUOTE_LIMIT as QUOTE_LIMIT  # for the modules that quote
from toolgen.quoting import cut as cut
from toolgen.quoting import visible


class Level(StrEnum):
    """How serious a diagnostic is. `error` blocks `build` (nothing is written)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


@dataclass(frozen=True)
class Rule:
    code: str
    level: Level
    summary: str
    help: str = ""  # why it matters and how to fix it: the rule's docs entry
    #: False for a rule marked FIXED: `[tool.toolgen.rules]` cannot change its level (TG002)
    #: and `# toolgen: ignore` does not silence it.
    configurable: bool = True


#: The mark of a rule whose level is fixed: one that stops the run (exit 2), one that no
#: configuration reaches (`init`, `fix`), or one whose problem the compiler answers the same
#: way at any level (leaving a tool out, or renaming it), so a lower level would only hide that.
FIXED: Final = "fixed"

_Row = tuple[str, Level, str, str] | tuple[str, Level, str, str, Literal["fixed"]]


def _rules(*rows: _Row) -> dict[str, Rule]:
    return {row[0]: Rule(*row[:4], configurable=len(row) == 4) for row in rows}


E, W, I = Level.ERROR, Level.WARNING, Level.INFO  # noqa: E741

#: Every rule toolgen can report, by stable code. Codes are never reused. `toolgen rules`
#: lists them; docs/rules.md is generated from this table. A row that ends with FIXED is a
#: rule whose level cannot be configured.
RULES: dict[str, Rule] = _rules(
    # TG0xx: configuration, command line and files
    ("TG001", E, "configuration file missing, unreadable or without a [tool.toolgen] table",
     "Add a [tool.toolgen] table to pyproject.toml, or pass --config FILE naming a readable "
     "regular file (not a folder, FIFO or device).", FIXED),
    ("TG002", E, "invalid configuration value",
     "The message names the key and the values it accepts, where the key is written; see the "
     "README's Configuration. `tool` and `tool.toolgen` must be tables, and a list or table "
     "holds at most 1,000 entries. The first 100 problems are shown.", FIXED),
    ("TG003", E, "a configured source path does not exist",
     "Fix the path in `sources`; relative paths resolve against the config file's folder.", FIXED),
    ("TG004", E, "output folder is outside the project, or overlaps a source, .git or the cache",
     "`out` must be a folder inside the project, so that a build never writes elsewhere; it "
     "must not be, hold or be inside a source (a build would write over sources and read its "
     "own output), and must not be in or hold .git or toolgen's cache folder (.toolgen_cache "
     "or $TOOLGEN_CACHE_DIR, safe to delete at any time).", FIXED),
    ("TG005", E, "source file cannot be read or decoded",
     "Source files must be readable regular files of at most `max_source_bytes` (10 MB by "
     "default), in UTF-8 or in the encoding their coding comment names (PEP 263). A FIFO, "
     "socket or device named as a source is not opened; neither is a source whose module name "
     "is not UTF-8. A source folder that cannot be listed is this error too, at the folder: "
     "its files may be tools.", FIXED),
    ("TG006", E, "`toolgen init` cannot set up the project",
     "The message says why (no such folder, pyproject.toml unreadable or not valid TOML, "
     "--sources empty, outside the project or not a folder, a write that failed) and what was "
     "written before; pyproject.toml is written last, so it is unchanged.", FIXED),
    ("TG007", E, "text with a lone surrogate, which no UTF-8 file can hold",
     "A string escape such as \\ud83d is half of a UTF-16 pair, and Python does not join "
     "\\ud83d\\ude00: write the character itself or \\U0001f600.", FIXED),
    ("TG008", E, "a generated file cannot be written",
     "A file stands where `out` needs a folder (or a folder where it needs a file), or the "
     "folder cannot be written (found before anything is staged), or the pending folder of a "
     "stopped build holds what cannot be removed or read (its journal must be a regular file "
     "of a sane size): the message names the path. Nothing in `out` was changed, unless the "
     "message says the last build was interrupted.", FIXED),
    ("TG009", W, "a file the previous manifest lists was kept, not removed",
     "toolgen removes only files it provably wrote: listed in the previous manifest by a plain "
     "path inside `out`, named as toolgen names its files, reached through no symlink, and "
     "still holding the bytes the manifest's sha256 names. The message says which of these "
     "the file fails; delete it yourself if it is not needed."),
    ("TG010", E, "the git baseline for --against cannot be read",
     "Run inside a git work tree and name a commit that exists here (fetch it in a shallow "
     "clone) whose descriptors are valid (no conflict markers, known values).", FIXED),
    ("TG011", E, "a symlink inside the output folder where toolgen writes or removes files",
     "A symlinked folder inside `out` (or a symlink where toolgen writes a file) would make a "
     "build write or delete files elsewhere: replace it with a real folder or file. Nothing "
     "was written.", FIXED),
    ("TG014", W, "a file found under a source folder is not read",
     "A `*.py` that is no regular file (a FIFO, a socket, a device, or a symlink to one) is "
     "never opened, and one whose name is not UTF-8 cannot be named in a descriptor or "
     "imported: remove or rename it, or ignore the warning."),
    ("TG015", E, "a source file is a symlink that resolves outside the project",
     "Every source must resolve inside the project (the folder of the nearest pyproject.toml "
     "or .git), through symlinks too, and so must every module of the project a handler "
     "imports (its models): copy the file into the project instead.", FIXED),
    ("TG016", E, "fix: file not changed: its encoding cannot hold the new text",
     "The file declares an encoding (a PEP 263 coding comment) in which a description `fix` "
     "would add cannot be written: add the entry by hand, or save the file as UTF-8.", FIXED),
    ("TG020", E, "a server's catalog cannot be named as a folder of `out`",
     "In a project of several servers each catalog is a folder named after its server (see "
     "the README's Several servers in one package); that name must be ASCII (file systems "
     "and git may spell other names differently) and at most 200 characters. The server's "
     "tools are left out: assign it to an ASCII name.", FIXED),
    # TG1xx: discovery
    ("TG021", E, "a contract table names no tool",
     "Each `[tool.toolgen.contract.<name>]` table (or table of `contract_file`) is keyed by the "
     "name the tool's decorator gives it (for a tool of a mounted server, its name before the "
     "mount's prefix). Rename the table, or remove it with the tool.", FIXED),
    ("TG022", W, "the generated files are out of date (`toolgen lsp`, not writing on save)",
     "`[tool.toolgen.lsp] write_on_save = false`: the language server does not write the "
     "generated files when a source is saved, and says so when they no longer match the "
     "sources. Run `toolgen build`, or set write_on_save = true."),
    ("TG101", E, "syntax error in a source file",
     "toolgen parses every source file; fix the syntax error at the location shown.", FIXED),
    ("TG102", E, "two tools have the same name",
     "Tool names are unique per catalog: rename one handler or pass `name=` to its marker. "
     "While two handlers claim a name, whatever errors either has, neither is published.",
     FIXED),
    ("TG108", E, "a tool's schema is far larger with its models inlined than as written",
     "Gemini's payload and `inline_defs` write each model where it is used: a model that "
     "holds another several times, nested deeply, doubles at each level. LangChain's payload "
     "writes a model once per path that reaches it: models that all refer to each other grow "
     "as the factorial of their number. A schema may hold "
     "100,000 values with its models inlined, and ten times as many as it holds as written; "
     "past that the tool is left out. Nest fewer models, or hold a model once.", FIXED),
    ("TG109", E, "a type is too large to read",
     "An alias is written out wherever it is used, so one that uses another twice doubles at "
     "each level: one annotation may be read as at most 2,000 types, and a tool's parameters "
     "(or its return type) as 200,000 in all; past that, the tool is left out. Make a type "
     "used many times a class (a model, TypedDict or dataclass): it is read once, as a "
     "`$defs` entry.", FIXED),
    ("TG103", E, "tool name is accepted by no configured platform, or cannot name a file",
     "A name must match ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ (it names the descriptor's file) "
     "and the rule of at least one configured platform; a platform that refuses it only "
     "leaves the tool out of its own payload (TG608).", FIXED),
    ("TG104", W, "no tool handlers found in the configured sources (toolgen's own marker)",
     "Check `sources` and `markers`: handlers need a marker the configuration names."),
    ("TG107", E, "a framework marker is configured but no tool was found",
     "The message lists what looked like a registration: other frameworks' (add their marker), "
     "and registrations toolgen could not follow (TG106, at each). Check `sources` (the "
     "files that register the tools, and the server) and `markers`; see the README's "
     "registration forms."),
    ("TG106", I, "a registration toolgen cannot follow statically",
     "The call registers with a server something toolgen cannot name without running the code "
     "(a function from a list built at run time, a tool object made at run time, tools made "
     "from a fetched document). If a decorator of the project collects those functions, "
     "declare it in [tool.toolgen.decorators]; tools made at run time cannot be read. Also "
     "said of tools whose server toolgen cannot tell among several (catalog `other`), and of "
     "the tool sets of functions nothing calls that register the same names (a catalog "
     "each)."),
    ("TG110", W, "a tool's parameters or schema are made or changed at run time",
     "The code sets a function's `__signature__` (a framework reads the tool's parameters "
     "from it), or changes tools in the server's own registry (`_local_provider`, "
     "`_tool_manager`) in a way toolgen cannot follow (a value or a branch known only at run "
     "time, or a bound reached): toolgen publishes those tools as their `def` and "
     "registration declare them, which may differ from what the server lists. (Changes it can "
     "follow are published as the server lists them.) Declare the parameters in the `def` "
     "(or a model), and shape schemas with the framework's own options."),
    ("TG111", W, "a tool name registered again with the same server",
     "Two handlers are registered under one name with the same server. The frameworks do not "
     "refuse it: the MCP SDK keeps the first registration, FastMCP the last (from FastMCP 3, "
     "of tools given versions, the highest version), and toolgen publishes the one the server "
     "lists. Give each tool a name of its own."),
    ("TG105", W, "handlers in a module that Python cannot import by its name",
     "A file or folder name such as `my-tools.py` is no module name: `toolgen serve`, "
     "`--verify-runtime` and your own code cannot import the handlers. Rename it (my_tools.py)."),
    # TG2xx: signatures and types
    ("TG201", E, "annotation names something that cannot be resolved statically",
     "Import the name in the handler's module (an `if TYPE_CHECKING:` import is enough), or use "
     "a type from the project or a well-known package."),
    ("TG202", E, "type construct not supported",
     "Use a type pydantic can describe as JSON Schema: scalars, containers, Literal, Enum, "
     "TypedDict, dataclass or BaseModel."),
    ("TG203", E, "parameter has no type annotation",
     "Annotate every parameter a model passes; the annotation is the schema."),
    ("TG204", E, "parameter kind cannot be exposed to a model (*args, **kwargs, positional-only)",
     "Name each parameter; list parameters that a wrapper injects in `skip_params`."),
    ("TG205", E, "Field(...) or constraint argument cannot be read statically",
     "Metadata must be readable without running code: literals, constants and expressions of "
     "them (README, Values read statically); the message says what depends on run time."),
    ("TG206", E, "default value cannot be read statically into a schema",
     "Use a literal or constant default (or None) and compute a run-time default inside the "
     "handler; the message says what depends on run time."),
    ("TG207", W, "return type not annotated; returns schema left open",
     "Annotate the return type so the contract says what a caller gets back."),
    ("TG208", E, "json_schema_extra does not make a valid JSON Schema",
     "What json_schema_extra adds goes into the schema as it is: its keywords must have the "
     "values JSON Schema 2020-12 allows (`enum` a list, `type` a type name, ...)."),
    ("TG209", E, "a constraint's value is not one its JSON Schema keyword takes",
     "Bounds are finite numbers, multiple_of is above 0, lengths are whole numbers from 0, and a "
     "pattern is a regular expression that compiles."),
    ("TG210", E, "two parameters or fields take the same name in the schema",
     "An alias (or an alias generator) names a property another parameter or field already "
     "has: the schema would list it twice and one value would fill both. Give each a name of "
     "its own."),
    ("TG211", E, "the Agents SDK cannot make the parameters schema strict",
     "`@function_tool` makes a strict schema unless told not to, and raises where the tool is "
     "made (at import) when it cannot: a dict or other open object among the parameters, a "
     "nullable root. Give `strict_mode=False`, or name the properties (a model)."),
    # TG3xx: docstrings
    ("TG301", E, "parameter has no entry in the docstring's Args section",
     "Describe every parameter in `Args:` (or Field(description=...)); `toolgen fix` adds the "
     "missing entries. A warning for handlers of other frameworks."),
    ("TG302", W, "docstring documents a parameter the signature does not have",
     "Remove the stale entry (`toolgen fix` does)."),
    ("TG303", E, "tool has no docstring summary to use as its description",
     "Start the docstring with a sentence that says what the tool does."),
    ("TG304", E, "malformed Errors entry",
     "Write `CODE: description` or `CODE (http_status, retryable): description`."),
    ("TG305", E, "error code outside the standard taxonomy without http status and retryable",
     "State both for custom codes: `MY_CODE (409, not retryable): ...`."),
    ("TG306", E, "malformed Idempotency line",
     "Write `idempotent|safe|destructive|open_world: true|false`, one per line."),
    ("TG307", E, "malformed example",
     "`>>> tool(k=v, ...)` with keyword literal arguments, then the result as JSON or a Python "
     "literal."),
    ("TG308", E, "the framework cannot read the docstring",
     "The framework's own reading of it fails where the tool is made (griffe raises on it, as "
     "on a Returns section whose first line is dashes), so the framework registers no tool: "
     "fix the docstring's sections."),
    ("TG309", W, "a field of a parameter's model, dataclass or TypedDict is not described",
     "A model reads each field's description as it reads a parameter's: give the field "
     "Field(description=...) (in Annotated[...] for a TypedDict), or, in a model with "
     "use_attribute_docstrings=True, a docstring below it. Told once, at the field, for every "
     "tool that takes the class; a note (info) for handlers of other frameworks."),
    # TG4xx: decorator arguments and the contract
    ("TG401", E, "decorator argument cannot be read statically",
     "Decorator arguments are read statically: literals, constants, expressions of them and "
     "small helpers (README, Values read statically); the message says what depends on run "
     "time."),
    ("TG402", E, "unknown decorator argument",
     "The message lists the arguments @tool accepts."),
    ("TG403", E, "invalid decorator argument value",
     "The message says which value is expected.", FIXED),
    ("TG404", E, "contradictory safety settings",
     "`autonomous` and `confirmation` may only make a tool stricter than its risk level: a "
     "high, critical or forbidden tool cannot be autonomous nor go without confirmation; a tool "
     "that needs confirmation is not autonomous without it. Remove the contradiction or lower "
     "the risk."),
    ("TG405", W, "side effects or permissions given both in the decorator and the docstring",
     "Keep one place: the decorator's value is used."),
    ("TG406", W, "no layer states the tool's risk",
     "Every tool is classified (DESIGN §3): give `@tool(risk=...)`, or a `risk` in the tool's "
     "contract table (`toolgen init` writes one for each framework tool it finds, with a risk "
     "to review). An error from `min_level = 1` on."),
    ("TG407", E, "a stacked @tool disagrees with the framework's own arguments",
     "`@tool(...)` stacked with a framework's decorator adds to that tool's contract; a value "
     "both give (the name, the title, open_world against openWorldHint, confirmation against "
     "needs_approval) must be the same. State it in one place."),
    ("TG408", E, "confirmation waived without a reason, or a reason that waives nothing",
     "A destructive tool (its `destructive` hint true: `destructiveHint`, `Idempotency:`, the "
     "contract table) is confirmed before it runs, whatever its risk, unless its contract says "
     '`confirmation=False` with `reason="..."`; the reason is kept in the descriptor and each '
     "audit event. Give both, or neither."),
    # TG5xx: examples against the contract
    ("TG501", E, "example arguments do not validate against the parameters schema",
     "Fix the example or the schema: examples are sent to models as input examples."),
    ("TG502", E, "example result does not validate against the returns schema",
     "Fix the example result or the return annotation."),
    ("TG503", E, "example error code is not declared in Errors",
     "Declare the code in the `Errors:` section (VALIDATION_ERROR is always allowed)."),
    ("TG504", W, "example omits required arguments (kept in the descriptor, not sent as input)",
     "Give every required argument so the example can be sent as an input example."),
    # TG6xx: platform rendering
    ("TG601", W, "schema cannot be OpenAI-strict; rendered with strict: false",
     "Free-form objects and open values cannot be strict; describe them with a model."),
    ("TG602", W, "construct not representable in Gemini's schema subset; tool left out of Gemini",
     "Recursive models cannot be inlined for Gemini; flatten the type for that platform."),
    ("TG603", W, "schema cannot be Anthropic-strict; the tool is sent without strict",
     "Anthropic's strict subset has no recursion, tuples or free-form objects (dicts): use "
     "a model with named fields, or leave strict off."),
    ("TG604", W, "more strict tools, optional or union parameters than one Anthropic request takes",
     "At most 20 strict tools, 24 optional and 16 union parameters per request: send fewer "
     "tools or turn anthropic_strict off."),
    ("TG605", W, "schema exceeds an OpenAI limit (properties, nesting, enum values)",
     "At most 5000 properties, 5 levels of nesting, 1000 enum values and 120,000 characters "
     "of names and values; split or flatten the tool."),
    ("TG606", W, "an enum mixes value kinds that Gemini's string-only enums cannot keep apart",
     "`Literal[\"x\", 1, True]` reaches Gemini as the strings \"x\", \"1\", \"true\": use "
     "values of one kind, or accept the strings in the handler."),
    ("TG607", W, "a recursive model cannot be inlined (inline_defs); its $refs stay",
     "The recursive model keeps its `$defs` entry, and the `$ref`s to it, in that parameters "
     "schema or MCP `outputSchema`; every other model there is inlined. Clients that cannot "
     "resolve `$ref` cannot read this tool's schema: flatten the type, or leave such tools out "
     "for those clients."),
    ("TG608", W, "a platform does not accept the tool's name; the tool is left out of its payload",
     "OpenAI and Anthropic take ^[A-Za-z0-9_-]{1,64}$, Gemini ^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$, "
     "MCP ^[A-Za-z0-9_.-]{1,128}$: rename the tool (`name=`) to reach every platform, or "
     "leave that platform out of `platforms`."),
    # TG7xx: --verify-runtime (the handlers imported in a child process, on request only)
    ("TG701", E, "static parameters schema differs from pydantic's schema at run time",
     "Something only visible at run time shapes the schema (a custom __get_pydantic_json_schema__, "
     "a validator); make it visible statically or accept the difference knowingly."),
    ("TG702", W, "handler could not be verified at run time",
     "The module could not be imported or the handler reached (nested in a function)."),
    # TG8xx: toolgen fix
    ("TG801", I, "fix: docstring entry added", "Added from Field(description=...)."),
    ("TG802", W, "fix: parameter needs a description; placeholder inserted",
     "Replace the placeholder with a real description."),
    ("TG803", I, "fix: docstring entry removed or reordered", "The entries follow the signature."),
    ("TG804", E, "fix: file not changed: syntax error", "Fix the syntax error first.", FIXED),
    # TG9xx: lint: conformance and good practice
    ("TG901", I, "tool name is not snake_case",
     "Canonical names are snake_case (lower case, digits, underscores)."),
    ("TG902", I, "description is not 2-5 sentences",
     "Say what the tool does, when to use it and what it does not do, in two to five "
     "sentences."),
    ("TG903", I, "description longer than 600 characters",
     "Tool definitions are re-sent on every model turn; keep descriptions short."),
    ("TG904", W, "description does not start with a verb",
     "Start with what the tool does: `Search the catalog ...`, not `This tool ...`. The first "
     "word (markup and a leading adverb aside: `Permanently delete ...`) is reported when it "
     "plainly is not a verb: a determiner or pronoun (`This`, `The`, `What`), a tool noun "
     "(`Tool`, `Wrapper`), an adjective or participle by its ending (`Comprehensive`, "
     "`Unified`), a gerund (`Getting`). Third-person forms are verbs (`Returns`, `Gets`, "
     "`Fetches`); a word it cannot place (a product name, another language, an unusual verb) "
     "is let be. On the seeded draw of real-world servers (8,481 tools) it fires on 135 (the "
     "stop-list alone: 37); of a seeded sample of 25, none was wrong. On the shared corpus: 10 "
     "of 375."),
    ("TG905", W, "parameter accepts null but has no default",
     "An optional parameter should default to None, so callers may leave it out."),
    ("TG906", W, "parameters nest objects more than 2 levels deep",
     "Deeply nested arguments are hard for models to fill; flatten the structure."),
    ("TG907", I, "parameter is a union of several types",
     "Unions of unlike types confuse models; split the tool or use one type."),
    ("TG908", W, "string parameter lists its allowed values in prose",
     "Use Literal[...] or an Enum so the values are in the schema, not only in the text."),
    ("TG909", W, "write tool without an idempotency key parameter",
     "A tool that changes data and is not idempotent should take an idempotency key (e.g. "
     "`idempotency_key: UUID`) so that retries are safe."),
    ("TG910", I, "destructive tool runs without confirmation",
     "Its contract waives confirmation with a reason (`confirmation=False, reason=...`); the "
     "run time then runs it unconfirmed, and each audit event carries the reason."),
    ("TG911", E, "description says read-only but the tool is not safe",
     "Either the description or the Idempotency section is wrong."),
    ("TG912", E, "`dry_run` declared, but the handler takes no boolean `dry_run` parameter",
     "The run time calls a tool's dry run with dry_run=True and its real call with "
     "dry_run=False. Without a `dry_run: bool` parameter a dry run fails its arguments: a "
     "`required` one then never lets the tool run, a `supported` one never runs dry. Add the "
     "parameter, or drop `dry_run=` from the decorator.", FIXED),
    # TG913-TG919, TG921-TG923: what a tool's text says (toolgen.lint.wording, .catalog)
    ("TG913", I, "description has more than one paragraph after its summary line",
     "A model reads a description best as a summary line and one paragraph of 2-5 sentences: "
     "what the tool does, when to call it, what it does not do. The summary line stands "
     "apart by docstring convention (PEP 257), so a description of up to two paragraphs is "
     "quiet. On the seeded draw of real-world servers (8,481 tools) it fires on 770; of a seeded "
     "sample of 25, none was wrong, though 12 had exactly three short paragraphs a reviewer may "
     "let be. On the shared corpus: 156 of 375. Fold the rest into one paragraph, or move "
     "reference detail into the "
     "parameters' descriptions."),
    ("TG914", I, "description does not say when to call the tool",
     "Trigger phrases tell a model when this tool is the right one: `Use it when ...`, "
     "`Call this to ...`, `Useful for ...`, `when the user ...`, or a limit: `Do not use it "
     "for ...`, `only for ...`, `... instead`. Only English descriptions are read (two "
     "English function words, or ASCII opening with a verb of the list: `Get the weather.`). On "
     "the seeded draw of real-world servers (8,728 tools) it fires on 5,149, and on the shared "
     "corpus 293 of 405: few descriptions say it. Of a seeded sample of 25 on the shared "
     "corpus, 1 was wrong (`Use X first ...`, a phrase the patterns miss); of a second (seed "
     "35), 2 said it as `should be used to` and `commonly used for`, which are read since."),
    ("TG915", I, "description uses marketing words",
     "`blazing-fast`, `powerful`, `seamless`, `robust`, `cutting-edge`, `state-of-the-art` and "
     "the like tell a model nothing about when to call the tool: say what it does. "
     "`robust` before a statistics term (`robust z-score`) is not counted. On the seeded draw "
     "of real-world servers (8,481 tools) it fires on 5; 1 was wrong (a report section titled "
     "`Cutting-Edge Developments`). On the shared corpus: none."),
    ("TG916", I, "description tells how the tool is built",
     "An HTTP method and path (`GET /api/users`), `wrapper around ...`, `under the hood`, a "
     "call to an internal function (`calls client.fetch()`), or a library (`via httpx`) "
     "describe the implementation, which a model cannot use. Say what the tool does for the "
     "caller. On the seeded draw of real-world servers (8,481 tools) it fires on 663, most of "
     "them descriptions that are only a method and path; of a seeded sample of 25, none was "
     "wrong, though 10 gave the path as an aside after a good first sentence. On the shared "
     "corpus: none."),
    ("TG917", I, "description does not say whether the tool reads or changes data",
     "Quiet when the Idempotency section sets `safe` or `destructive` (the annotations say "
     "it), when a verb of the description or name says it (`get`, `search`, `create`, "
     "`delete`; not `manage`, `run`, `process`, `handle`), or the text says `read-only` / "
     "`does not modify`. Only English descriptions are read. On the seeded draw of real-world "
     "servers (8,728 tools) it fires on 186 (157 before short descriptions that open with a "
     "verb were read as English); of a seeded sample of 25 of those 157, 6 were wrong: verbs the "
     "lexicon does not know (`clean`, `disassemble`, `deprecate`) or a read plain from the noun "
     "(`elevation`). On the shared corpus: 8 of 375, 2 of them wrong."),
    ("TG918", I, "tool name does not start with a verb",
     "Verb-first names (`search_`, `get_`, `list_`, `create_`, `update_`, `delete_`, `send_`) "
     "say what a tool does before its description is read. A namespace may come first "
     "(`github_create_issue`, `ticket_search`): a verb among the first three words is "
     "enough. The message suggests a name from the description's first verb. A verb the "
     "lexicon does not know counts as a noun here (`lrange`). On the seeded draw of real-world "
     "servers (8,728 tools) it fires on 1,304 (963 before short descriptions that open with a "
     "verb were read as English); of a seeded sample of 25 of those 963, 13 were wrong: verbs the "
     "lexicon does not know (`offset`, `track`, `remember`, `tap`, a debugger's `next`, a "
     "Spanish `listar`), a verb after a namespace of four or more words (5, one server), a "
     "predicate `is_`. On the shared corpus: 41 of 375; of 25, 6 were wrong (Redis command "
     "names such as `lrange`, and `screen`)."),
    ("TG919", I, "parameter name is not snake_case",
     "Parameters are snake_case like the tool's name; the message gives the snake_case "
     "form (`pageToken` -> `page_token`). Renaming a published parameter breaks its callers: "
     "do it with a new version. On the seeded draw of real-world servers (8,481 tools) it fires "
     "on 248; of a seeded sample of 25, 2 were wrong: unit suffixes whose case is their meaning "
     "(`pressure_GPa`, `vacuum_A`). On the shared corpus: none."),
    ("TG920", E, "tool is below the configured conformance level",
     "The message lists what is missing for the level; raise the tool or lower `min_level`."),
    ("TG921", I, "enum values a reader cannot guess",
     "An enum whose values are all single letters or letter-digit codes (`\"P\"`, `\"S\"`, "
     "`\"d1\"`) tells a model nothing unless each is explained (`P = purchase`, `S (sale)`) "
     "in the parameter's or the tool's description. Axis letters and Y/N are plain; a code "
     "among words (`QB`, `K`) is a domain's own. Use words (`Literal[\"purchase\", "
     "\"sale\"]`). It fires on none of the seeded draw's 8,481 tools nor the shared corpus's 375."),
    ("TG922", I, "near-duplicate sibling tools do not say which to use",
     "Two visible tools of one catalog are close when they do the same action (the verbs of "
     "their names agree) and either their names share at least half their words and the "
     "first paragraphs of their descriptions half their content words, or those paragraphs "
     "share four fifths. They are told apart when one names the other or says `instead` / "
     "`rather than`, or when each description says the words that set its own name apart "
     "(`get_slide_info` says `slide`). Reported at the later tool, naming the first such "
     "sibling. On the seeded draw of real-world servers (8,481 tools) it fires on 170; of a "
     "seeded sample of 25, 17 were wrong: 11 from one server's family of group tools whose "
     "descriptions name their object by an abbreviation (`OUs`), the rest siblings on different "
     "objects or opposite actions the lexicon does not know (`trash`, `recover`); a second "
     "sample (seed 34, 201 findings on 8,728 tools), read by another reviewer: 9 of 25 wrong, "
     "siblings on different objects whose names already say which. On the shared corpus: 3 "
     "of 375, 2 of them wrong (`lpush` and `rpush` say left and right)."),
    ("TG923", I, "more than 30 tools in one catalog",
     "Choosing among many tools costs a model accuracy and every turn's context. Past 30 "
     "visible tools, load them on demand (Anthropic's tool search tool, `defer_loading`) or "
     "split the server by task. One note per catalog, at its first tool. On the seeded draw it "
     "notes 58 catalogs, on the shared corpus 6."),
    ("TG930", W, "description longer than the configured budget",
     "Shorten the description or raise `budget_description_chars`."),
    # breaking changes (check --against): the rule id leads each message
    ("TG950", E, "tool-removed: a tool is gone and was not deprecated",
     "Deprecate it first (deprecated=True, replacement=...), then remove it."),
    ("TG951", I, "tool-removed-deprecated: a deprecated tool was removed",
     "Expected after a deprecation period."),
    ("TG952", E, "input-required-added: a new required parameter",
     "Old calls lack it: make it optional with a default, or bump the major version."),
    ("TG953", E, "input-became-required: an optional parameter became required",
     "Old calls may omit it."),
    ("TG954", E, "input-param-removed: a parameter was removed",
     "The schema is closed, so old calls that pass it now fail."),
    ("TG955", I, "input-optional-added: a new optional parameter",
     "Compatible."),
    ("TG956", E, "input-type-narrowed: a parameter's type changed or its union narrowed",
     "Old calls may no longer validate."),
    ("TG957", I, "input-type-widened: a parameter accepts more types",
     "Compatible."),
    ("TG958", E, "input-enum-narrowed: allowed values removed (or a value became an enum)",
     "Old calls may use the removed values."),
    ("TG959", I, "input-enum-widened: allowed values added",
     "Compatible."),
    ("TG960", E, "input-constraint-tightened: a bound, length or pattern tightened or newly set",
     "Old calls may break the new constraint."),
    ("TG961", W, "input-default-changed: a parameter's default changed",
     "Callers relying on the default get other behaviour."),
    ("TG962", E, "output-required-removed: a guaranteed result property is gone",
     "Callers may rely on it."),
    ("TG963", W, "output-optional-removed: an optional result property is gone",
     "Callers may read it."),
    ("TG964", E, "output-became-optional: a result guarantee weakened (optional or nullable)",
     "Callers may not handle its absence."),
    ("TG965", E, "output-type-changed: a result's type changed or widened",
     "Callers may not handle the new type."),
    ("TG966", W, "output-enum-widened: a result may carry a new value",
     "Callers may not handle it."),
    ("TG967", I, "output-property-added: a new result property",
     "Compatible."),
    ("TG968", W, "error-added: a new declared error code",
     "Callers may not handle it."),
    ("TG969", I, "error-removed: a declared error code is gone",
     "Compatible."),
    ("TG970", E, "idempotent-weakened: the tool is no longer idempotent",
     "Retries that were safe are not any more."),
    ("TG971", E, "readonly-weakened: the tool is no longer read-only",
     "Agents that call it freely may now change data."),
    ("TG972", E, "destructive-added: the tool became destructive",
     "Needs confirmation where it did not."),
    ("TG973", E, "risk-raised: the tool's risk level went up",
     "Autonomy and confirmation change with it."),
    ("TG974", W, "openworld-added: the tool now reaches the open world",
     "Its results may change outside your control."),
    ("TG975", E, "breaking-without-major-bump: breaking changes with the same major version",
     "Bump the major version, or undo the breaking change."),
    ("TG976", E, "version-decreased: the version went backwards",
     "Versions only go up."),
    ("TG977", I, "docs-changed: description, title or examples changed",
     "Informational."),
    ("TG978", E, "breaking-without-new-name: breaking changes under a major version bump, same "
     "tool name",
     "A major version bump makes the findings info, but no platform sends a tool's version: a "
     "model or client that knows the tool by its name gets the new contract unannounced. "
     "Publish it under a new name (`get_weather_v2`) and keep the old tool, deprecated=True "
     "with replacement=\"get_weather_v2\"; remove it later (tool-removed-deprecated)."),
    ("TG931", W, "catalog larger than the configured token budget",
     "Tool definitions are re-sent every turn; trim the catalog or raise "
     "`budget_catalog_tokens`."),
    ("TG932", I, "number or date-time without its unit, currency or time zone",
     "A parameter whose name says it is a duration (timeout, delay, interval, ttl), a distance "
     "or weight, a temperature or money (amount, price, cost, fee, balance) is a number a "
     "model must scale right; a date-time (format date-time, or a string named `*_at`, "
     "`*_time`, `timestamp`) is read in some zone. State it in the name (`timeout_ms`, "
     "`amount_cents`, `price_usd`) or the description (\"in seconds\", \"in EUR\", \"UTC\", "
     "\"ISO 8601 with an offset\"); a currency or time zone parameter beside it states it "
     "too. A number that is no quantity with a unit is left alone: its text says so "
     "(\"sampling\", \"number of\", \"between 0 and 1\"), its name counts something "
     "(`prediction_interval_level`, `cost_tokens`), a `temperature` sits beside a model's "
     "settings, an `amount` is in a tool that is not about money. "
     "Measured with toolgen's defaults (benchmarks/lint_corpus.py): 3 parameters of the 405 "
     "tools of the shared corpus, all right; 109 parameters of the 8,481 tools of the seeded "
     "draw, and of a seeded sample of 25 of them none was wrong (date-times without a zone, "
     "timeouts, intervals, distances and masses without a unit). A known miss: a currency code "
     "the list lacks in a name (`min_cost_php`)."),
    ("TG933", I, "string parameter without maxLength that is not free text",
     "Bound every string that is not free text: an id, a name, a key or a path has a "
     "length it never exceeds, and a bound keeps a model's runaway text out (Annotated[str, "
     "Field(max_length=64)]). Free text is left unbounded: a name's word says it (query, "
     "text, body, content, message, description, prompt, notes, code, sql, payload, filter, "
     "...) or its description does (free-form, natural language, markdown, JSON, query); an "
     "enum, a pattern or a format bounds a string already, and a string that reads as a "
     "choice is TG908's. "
     "Measured: 861 parameters of the 405 tools of the shared corpus, 11,437 of the 8,481 "
     "tools of the seeded draw; of a seeded sample of 25 from each, none was free text, and "
     "about a quarter were choices (`operation`, `detail_level`, `timeframe`) that a Literal "
     "bounds better. A note, as it fires on most real tools."),
    ("TG934", I, "pagination cursor not named `cursor` / `next_cursor`",
     "A page cursor has one name across tools, so a model learns it once: the parameter is "
     "`cursor`, the result's property `next_cursor`. Reported: parameters and top-level result "
     "properties named like `page_token`, `next_token`, `next_page`, `start_cursor`, "
     "`starting_after`, `continuation_token`, or strings whose description calls them a page "
     "cursor or page token. "
     "Measured: 57 tools of the 405 of the shared corpus, 28 of the 8,481 of the seeded draw "
     "(AWS-style `next_token` and `marker`, GraphQL's `after`, `page_token`, "
     "`continuation_token`); of a seeded sample of 25 from each, none was wrong. A note: a "
     "wrapper of an API often keeps the API's names on purpose."),
    ("TG935", W, "idempotency key of a write tool without minLength 16",
     "A short key (\"1\", \"abc\") collides between calls and makes a retry's deduplication "
     "unsafe: give the key of a tool that changes data and is not idempotent "
     "Field(min_length=16), or make it a UUID. TG909 reports a write tool with no key at all. "
     "It fires on no tool of either real-world corpus (the shared one, 405 tools, and the "
     "seeded draw, 8,481): real servers seldom take a key at all (TG909)."),
    ("TG936", W, "high-risk delete_ or bulk_ tool without an `environment` parameter",
     "A high or critical `delete_...` or `bulk_...` tool should name the environment it acts "
     "on (`environment: Literal[\"staging\", \"production\"] = \"staging\"`), so that a "
     "policy can tell production from the rest and production is reached only by a call that "
     "says so. "
     "It fires on no tool of either real-world corpus: their tools keep the default risk."),
    ("TG937", W, "result declared larger than 10 KB not returned as a `resource_url`",
     "A result declared large, inline bytes (a `bytes` or base64 string anywhere in its "
     "schema), a string with maxLength over 10 KB, or a Returns description that states a size "
     "over 10 KB, fills the model's context: return a `resource_url` (a result property of "
     "that name) to fetch it instead. "
     "Only what the contract declares counts (no guess from a name such as `export_`): it "
     "fires on no tool of either real-world corpus."),
    ("TG938", W, "example without its natural-language prompt",
     "Each example shows a model when to call the tool: write what a user says on a prose "
     "line before `>>>` (`prompt` in a contract table's example). "
     "It fires on no tool of either real-world corpus, whose tools carry no examples."),
    ("TG939", W, "example notes longer than one sentence",
     "An example's notes (a `Notes: ...` line after its result, `notes` in a contract table) "
     "say in one sentence what it shows that the call does not; move the rest to the "
     "description. "
     "It fires on no tool of either real-world corpus. A sentence ends at `.`, `!` or `?` "
     "before a capital or a digit, not after `e.g.`, `i.e.` or `etc`."),
    ("TG940", W, "`action`/`mode` enum mixes reads and writes",
     "A parameter named action, mode, operation, op or command whose values both read (get, "
     "list, search, ...) and write (create, update, delete, send, ...) makes one tool of "
     "several, with one risk, one idempotency and one description for all: split it into a "
     "read tool and write tools. "
     "Measured: none of the 405 tools of the shared corpus, 10 of the 8,481 tools of the "
     "seeded draw (0.001 warnings per tool; `manage_asset` with action "
     "search/get_info/create/delete, `record_video` with command status/start/stop), all 10 "
     "right. A value counts as a read when its first word reads and no later word writes "
     "(`find_replace` writes)."),
    ("TG941", I, "a field of an object written inline in a parameter's schema is not described",
     "TG309 reports an undescribed field of a project's model, dataclass or TypedDict where "
     "the class is; an object written inline (a JSON Schema given as `args_schema` or "
     "`json_schema_extra`, a framework's own schema) has no class to report at, so its "
     "fields are reported at the parameter, with their paths (`items[].name`). Describe each "
     "as a top-level parameter is. "
     "Measured: 1 tool of the 405 of the shared corpus, 30 of the 8,481 of the seeded draw "
     "(inline `payload`, `filters` and `token_usage` objects); of a seeded sample of 25, none "
     "was wrong."),
)  # fmt: skip


def escape_name(name: str) -> str:
    """A file name as text any UTF-8 stream can hold: the bytes of a name that are not UTF-8
    (which Python keeps as lone surrogates) written as `\\xNN` escapes."""
    if name.isascii():
        return name
    try:
        data = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file name's bytes give
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return data.decode("utf-8", "backslashreplace")


@dataclass(frozen=True, order=True)
class Location:
    """A place in a file: `path` as shown to the user, 1-based line and column."""

    path: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    location: Location | None = None
    level: Level | None = None  # None: the rule's default level

    def __post_init__(self) -> None:
        if self.code not in RULES:
            raise KeyError(f"unknown diagnostic code {self.code!r}; add it to RULES")
        if self.level is None:
            object.__setattr__(self, "level", RULES[self.code].level)
        if not self.message.isascii():  # quoted user text may hold lone surrogates: escape them
            text = self.message.encode("utf-8", "backslashreplace").decode("utf-8")
            object.__setattr__(self, "message", text)

    @property
    def severity(self) -> Level:
        assert self.level is not None
        return self.level

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return self._order

    # Sorting a project's diagnostics again on each build (`toolgen build --watch`, thousands
    # of them) compares and hashes these, made once per diagnostic, not its fields each time.
    @functools.cached_property
    def _order(self) -> tuple[str, int, int, str, str]:
        loc = self.location or Location("")
        return (loc.path, loc.line, loc.col, self.code, self.message)

    @functools.cached_property
    def _identity(self) -> tuple[str, str, tuple[str, int, int] | None, str]:
        loc = self.location
        where = None if loc is None else (loc.path, loc.line, loc.col)
        return (self.code, self.message, where, self.severity.value)

    def format_text(self) -> str:
        return self._text

    def format_github(self) -> str:
        return self._github

    # Printed lines are made once per diagnostic: a stamp stores them, and a process that
    # builds again (`toolgen build --watch`) prints the same diagnostics of unchanged files.
    @functools.cached_property
    def _text(self) -> str:
        where = f"{visible(str(self.location))}: " if self.location else ""
        return f"{where}{self.code} [{self.severity.value}] {visible(one_line(self.message))}"

    @functools.cached_property
    def _github(self) -> str:
        kind = {"error": "error", "warning": "warning", "info": "notice"}[self.severity.value]
        props = ""
        if self.location:
            loc = self.location
            props = f" file={_property(loc.path)},line={loc.line},col={loc.col},"
        title = f"title={self.code}"
        message = self.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        message = visible(message)
        return f"::{kind}{props or ' '}{title}::{message}"

    def to_dict(self) -> dict[str, Any]:
        loc = self.location
        return {
            "code": self.code,
            "level": self.severity.value,
            "message": self.message,
            "path": loc.path if loc else None,
            "line": loc.line if loc else None,
            "col": loc.col if loc else None,
        }


def one_line(message: str) -> str:
    """`message` on one line, for the text format: each line break, with the whitespace
    around it, becomes one space (a message may quote a multi-line error, e.g. pydantic's in
    TG702). A message without line breaks is returned unchanged."""
    lines = message.splitlines()
    if lines == [message]:
        return message
    return " ".join(part for part in (line.strip() for line in lines) if part)


def _property(value: str) -> str:
    """`value` as a property of a GitHub workflow command: a `,` or `:` in a file's name ends
    the property (`a,line=9.py`, `x::y.py` would name another place or message)."""
    for char, code in (("%", "%25"), ("\r", "%0D"), ("\n", "%0A"), (":", "%3A"), (",", "%2C")):
        value = value.replace(char, code)
    return visible(value)


def plural(count: int, noun: str, nouns: str = "") -> str:
    """`1 tool`, `3 tools`: `count` and the noun in the number it needs (`nouns`: the plural,
    when it is not the noun with an `s`)."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def format_lines(
    diagnostics: Iterable[Diagnostic],
    fmt: str,
    notes: bool = True,
    asked: tuple[str, ...] = (),
) -> str:
    """The diagnostics as printed in the `text` or `github` format, a line each. Without
    `notes`, those at level info are left out (but for codes that start with one of `asked`:
    what the command was asked for), and one line says how many and of which rules (a build
    of a real project has many: they are for when you ask)."""
    shown: list[Diagnostic] = []
    hidden: list[Diagnostic] = []
    for d in diagnostics:
        quiet = not notes and d.severity is Level.INFO and not d.code.startswith(asked)
        (hidden if quiet else shown).append(d)
    if fmt == "github":
        text = "".join(f"{d.format_github()}\n" for d in shown)
    else:
        text = "".join(f"{d.format_text()}\n" for d in shown)
    if hidden:
        codes: dict[str, int] = {}
        for d in hidden:
            codes[d.code] = codes.get(d.code, 0) + 1
        counted = ", ".join(f"{code} x{n}" for code, n in sorted(codes.items()))
        text += (
            f"toolgen: {plural(len(hidden), 'note')} not shown ({counted}): --verbose shows them\n"
        )
    return text


def diagnostic_from_dict(row: dict[str, Any]) -> Diagnostic:
    """The inverse of `Diagnostic.to_dict` (for the cache); KeyError for an unknown code."""
    where = None if row["path"] is None else Location(row["path"], row["line"], row["col"])
    return Diagnostic(row["code"], row["message"], where, Level(row["level"]))


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Level.ERROR for d in diagnostics)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Each diagnostic once (same code, message, location and level), by location."""
    unique = {d._identity: d for d in diagnostics}
    return sorted(unique.values(), key=Diagnostic.sort_key)


class UserError(Exception):
    """A problem with the user's input that stops a run (exit code 2); carries diagnostics."""

    def __init__(self, *diagnostics: Diagnostic) -> None:
        super().__init__("; ".join(d.format_text() for d in diagnostics))
        self.diagnostics = list(diagnostics)


def relative_display(path: Path, cwd: Path) -> str:
    """How to show `path` to the user: relative to `cwd` when inside it (as ruff and black
    do), else absolute, so that `path:line:col` is always clickable. Bytes of a name that
    are not UTF-8 are shown as `\\xNN` escapes (`escape_name`): every report is UTF-8."""
    try:
        shown = path.relative_to(cwd.resolve()).as_posix()
    except ValueError:
        shown = path.as_posix()
    return escape_name(shown)
