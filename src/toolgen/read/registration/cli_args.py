"""`argparse` with an empty command line: what a server started with no arguments parses.

`ArgumentParser(...)` is an `ArgParser` that keeps what each `add_argument` declares;
`parse_args()` and `parse_known_args()` give a namespace of the defaults, as argparse does
when no argument is given (`store_true` flags False, `store_false` True, others their
`default`, else None). A parser with a required positional argument, or parsing arguments
the code passes itself, gives what toolgen cannot know (argparse would exit, or parse what
only the run time has).
"""

from __future__ import annotations

import ast

from toolgen.read.registration.values import (
    ArgParser,
    Const,
    ParserMethod,
    Record,
    Seq,
    Unknown,
    Value,
)

#: The paths of argparse's parser class.
PARSERS = frozenset({"argparse.ArgumentParser"})
#: Parser methods that add to the same parser (a group's arguments are the parser's).
SAME_PARSER = frozenset({"add_argument_group", "add_mutually_exclusive_group"})
#: Actions whose default is not `default`.
FLAG_DEFAULTS = {"store_true": False, "store_false": True}


def parser_call(
    method: ParserMethod, args: list[Value], kwargs: dict[str, Value], node: ast.AST
) -> Value:
    """`parser.add_argument(...)`, `parser.set_defaults(...)`, `parser.parse_args()`."""
    parser, name = method.parser, method.name
    if name == "add_argument":
        _declare(parser, args, kwargs)
        return Const(None)
    if name in SAME_PARSER:
        return parser
    if name == "set_defaults":
        parser.defaults.update(kwargs)
        return Const(None)
    if name in ("parse_args", "parse_known_args"):
        given = args[0] if args else kwargs.get("args", Const(None))
        if given != Const(None) or parser.unknown:
            return Unknown(f"what `{name}` parses is known only at run time", None)
        namespace = Record(
            "argparse.Namespace", {**parser.values, **parser.defaults}, ast.Pass(), parser.module
        )
        if name == "parse_args":
            return namespace
        return Seq([namespace, Seq([])], "tuple")
    return Unknown(f"`ArgumentParser.{name}` is the run time's", node)


def _declare(parser: ArgParser, args: list[Value], kwargs: dict[str, Value]) -> None:
    flags = [a.value for a in args if isinstance(a, Const) and isinstance(a.value, str)]
    if len(flags) != len(args) or not flags:
        parser.unknown = True  # a flag toolgen cannot read: its name, hence the namespace
        return
    action = kwargs.get("action", Const("store"))
    nargs = kwargs.get("nargs", Const(None))
    optional = isinstance(nargs, Const) and nargs.value in ("?", "*")
    if not flags[0].startswith("-") and not optional:  # a required positional argument
        parser.unknown = True  # argparse exits when it is missing
        return
    dest_value = kwargs.get("dest")
    if isinstance(dest_value, Const) and isinstance(dest_value.value, str):
        dest = dest_value.value
    else:
        longs = [f for f in flags if f.startswith("--")]
        dest = (longs or flags)[0].lstrip("-").replace("-", "_")
    if not isinstance(action, Const):
        parser.values[dest] = Unknown("an action toolgen cannot read", None)
    elif action.value in ("help", "version"):
        return
    elif "default" in kwargs:
        parser.values[dest] = kwargs["default"]
    elif action.value in FLAG_DEFAULTS:
        parser.values[dest] = Const(FLAG_DEFAULTS[action.value])
    else:
        parser.values[dest] = Const(None)
