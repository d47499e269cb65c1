"""Syntax newer than the running Python's (PEP 695 aliases and type parameters, PEP 701
f-strings) is read as Python 3.12 parses it (`toolgen.read.newer`); what is not read says which
Python is needed. Named aliases give the schemas pydantic gives them."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import Project, tool_source
from toolgen.analyze.types import SchemaBuilder
from toolgen.read.index import ModuleIndex, Unparsable, parse_python
from toolgen.read.newer import TypeAlias, parse_newer

NATIVE = sys.version_info >= (3, 12)  # this Python's own parser reads the newer syntax


def _shape(node: Any, fstring_positions: bool = True) -> str:
    """A tree as text, the same on every Python: every field but contexts and type
    parameters (not kept), with positions; the text of an f-string as its joined value (where
    Python puts its pieces differs between versions)."""
    if isinstance(node, list):
        return "[" + ", ".join(_shape(n, fstring_positions) for n in node) + "]"
    if not isinstance(node, ast.AST):
        return repr(node)
    at = _at(node)
    if isinstance(node, ast.JoinedStr):
        parts: list[Any] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                if parts and isinstance(parts[-1], str):
                    parts[-1] += value.value
                elif value.value:
                    parts.append(value.value)
            else:
                parts.append(value)
        inner = ", ".join(
            repr(p) if isinstance(p, str) else _shape(p, fstring_positions) for p in parts
        )
        return f"JoinedStr([{inner}])" + (at if fstring_positions else "")
    if isinstance(node, ast.FormattedValue) and not fstring_positions:
        at = ""  # before 3.12, Python gives the pieces of an f-string the whole one's place
    skip = ("type_params", "ctx", "type_comment", "kind", "type_ignores")
    fields = ", ".join(
        f"{f}={_shape(getattr(node, f, None), fstring_positions)}"
        for f in node._fields
        if f not in skip
    )
    return f"{type(node).__name__}({fields}){at}"


def _at(node: ast.AST) -> str:
    if getattr(node, "lineno", None) is None:
        return ""
    return f"@{node.lineno}:{node.col_offset}-{node.end_lineno}:{node.end_col_offset}"  # type: ignore[attr-defined]


#: f-strings every Python since 3.8 reads, with escapes, specs, `=`, non-ASCII text
READ_BY_ALL = [
    'x = f"ab{a[\'k\']!r:>{w}}c" "d"\n',
    'x = f"{x=}" f"{y = :>3}"\n',
    'x = f"{x:}"\n',
    'x = f"{a!s:{b}>{c}}"\n',
    'x = f"\\N{BULLET} {a}\\x41\\101\\u00e9"\n',
    'x = rf"\\d{a}\\n"\n',
    'x = f"{a:%Y-%m-%d}"\n',
    "x = f'''{a}\n{b}'''\n",
    'x = "é" f"{ {1: 2}[1] }é" + yé\n',
]


@pytest.mark.parametrize("source", READ_BY_ALL)
def test_f_strings_come_out_as_pythons_own_parser_makes_them(source: str) -> None:
    rewritten = parse_newer(source, "<test>", SyntaxError("unused"), every=True)
    assert _shape(rewritten, NATIVE) == _shape(ast.parse(source), NATIVE)


#: Newer syntax, with what Python 3.12's parser makes of it (`_shape(ast.parse(source))`).
NEWER = [
    (
        'x = f"{a["k"]}" f"{"\\n".join(b)}"\n',
        "Module(body=[Assign(targets=[Name(id='x')@1:0-1:1], value=JoinedStr([FormattedValue(value=Subscript(value=Name(id='a')@1:7-1:8, slice=Constant(value='k')@1:9-1:12)@1:7-1:13, conversion=-1, format_spec=None)@1:6-1:14, FormattedValue(value=Call(func=Attribute(value=Constant(value='\\n')@1:19-1:23, attr='join')@1:19-1:28, args=[Name(id='b')@1:29-1:30], keywords=[])@1:19-1:31, conversion=-1, format_spec=None)@1:18-1:32])@1:4-1:33)@1:0-1:33])",
    ),
    (
        'x = f"{f"{f"{1}"}"}"\n',
        "Module(body=[Assign(targets=[Name(id='x')@1:0-1:1], value=JoinedStr([FormattedValue(value=JoinedStr([FormattedValue(value=JoinedStr([FormattedValue(value=Constant(value=1)@1:13-1:14, conversion=-1, format_spec=None)@1:12-1:15])@1:10-1:16, conversion=-1, format_spec=None)@1:9-1:17])@1:7-1:18, conversion=-1, format_spec=None)@1:6-1:19])@1:4-1:20)@1:0-1:20])",
    ),
    (
        'x = f"""{a["x"]}\n{b  # a comment\n}"""\n',
        "Module(body=[Assign(targets=[Name(id='x')@1:0-1:1], value=JoinedStr([FormattedValue(value=Subscript(value=Name(id='a')@1:9-1:10, slice=Constant(value='x')@1:11-1:14)@1:9-1:15, conversion=-1, format_spec=None)@1:8-1:16, '\\n', FormattedValue(value=Name(id='b')@2:1-2:2, conversion=-1, format_spec=None)@2:0-3:1])@1:4-3:4)@1:0-3:4])",
    ),
    (
        'x = (\n    f"P:\\n"\n    f"{\'• é\\n\' if d else \'\'}"\n    "\\n"\n) + yé\n',
        "Module(body=[Assign(targets=[Name(id='x')@1:0-1:1], value=BinOp(left=JoinedStr(['P:\\n', FormattedValue(value=IfExp(test=Name(id='d')@3:21-3:22, body=Constant(value='• é\\n')@3:7-3:17, orelse=Constant(value='')@3:28-3:30)@3:7-3:30, conversion=-1, format_spec=None)@3:6-3:31, '\\n'])@2:4-4:8, op=Add(), right=Name(id='yé')@5:4-5:7)@1:4-5:7)@1:0-5:7])",
    ),
    (
        'type Sort = Literal[\n    "a",\n    "b",\n]\n',
        "Module(body=[TypeAlias(name=Name(id='Sort')@1:5-1:9, value=Subscript(value=Name(id='Literal')@1:12-1:19, slice=Tuple(elts=[Constant(value='a')@2:4-2:7, Constant(value='b')@3:4-3:7])@2:4-3:8)@1:12-4:1)@1:0-4:1])",
    ),
    (
        "class M:\n    type Pair[T] = tuple[T, T]\n",
        "Module(body=[ClassDef(name='M', bases=[], keywords=[], body=[TypeAlias(name=Name(id='Pair')@2:9-2:13, value=Subscript(value=Name(id='tuple')@2:19-2:24, slice=Tuple(elts=[Name(id='T')@2:25-2:26, Name(id='T')@2:28-2:29])@2:25-2:29)@2:19-2:30)@2:4-2:30], decorator_list=[])@1:0-2:30])",
    ),
    (
        "def f[T: (int, str)](x: T) -> T:\n    return x\n",
        "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='x', annotation=Name(id='T')@1:24-1:25)@1:21-1:25], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]), body=[Return(value=Name(id='x')@2:11-2:12)@2:4-2:12], decorator_list=[], returns=Name(id='T')@1:30-1:31)@1:0-2:12])",
    ),
    (
        "class C[T](Base):\n    x: T\n",
        "Module(body=[ClassDef(name='C', bases=[Name(id='Base')@1:11-1:15], keywords=[], body=[AnnAssign(target=Name(id='x')@2:4-2:5, annotation=Name(id='T')@2:7-2:8, value=None, simple=1)@2:4-2:8], decorator_list=[])@1:0-2:8])",
    ),
]


@pytest.mark.parametrize(("source", "expected"), NEWER)
def test_newer_syntax_is_read_as_python_3_12_parses_it(source: str, expected: str) -> None:
    assert _shape(parse_python(source)) == expected
    if NATIVE:
        assert _shape(ast.parse(source)) == expected


def test_a_type_statement_is_a_type_alias_with_its_name_where_it_was_written() -> None:
    tree = parse_python("if True:\n    type Size = int\n")
    stmt = tree.body[0].body[0]  # type: ignore[attr-defined]
    assert isinstance(stmt, TypeAlias)
    assert (stmt.lineno, stmt.col_offset) == (2, 4)
    name = stmt.name  # type: ignore[attr-defined]
    assert (name.id, name.lineno, name.col_offset, name.end_col_offset) == ("Size", 2, 9, 13)


@pytest.mark.parametrize(
    ("source", "message", "at"),
    [
        (
            'x = 1\ny = t"{x}"\n',
            "t-strings need Python 3.14",
            (2, 5),
        ),
        (
            "try:\n    pass\nexcept A, B:\n    pass\n",
            "several exception types without parentheses need Python 3.14",
            (3, 1),
        ),
    ],
)
def test_what_is_not_read_says_which_python_reads_it(
    source: str, message: str, at: tuple[int, int]
) -> None:
    if sys.version_info >= (3, 14):
        pytest.skip("this Python reads it")
    with pytest.raises(Unparsable) as caught:
        parse_python(source)
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert caught.value.message == f"cannot parse: {message} (toolgen runs on Python {running})"
    assert caught.value.at == at


def test_a_real_syntax_error_after_newer_syntax_is_told_where_it_is() -> None:
    with pytest.raises(Unparsable) as caught:
        parse_python('type X = int\nx = f"{a["b"]}"\ny = (1\n')
    assert caught.value.at == (3, 5)
    assert "never closed" in caught.value.message


def test_a_syntax_error_after_rewritten_non_ascii_text_is_at_its_character() -> None:
    with pytest.raises(Unparsable) as caught:
        parse_python("def fé[Tü](x) x\n")  # the rewrite keeps bytes, not characters
    assert caught.value.at == (1, 15)


def test_f_strings_nested_too_deeply_are_refused_not_a_crash() -> None:
    deep = "x = " + 'f"{' * 400 + "1" + '}"' * 400 + "\n"
    with pytest.raises(Unparsable):
        parse_python(deep)


def _schemas(tmp_path: Path, source: str, params: str) -> dict[str, Any]:
    """The schema of each parameter of `f` in `source`, and the `$defs`, as toolgen builds
    them (titles, defaults and descriptions as pydantic shows them aside)."""
    (tmp_path / "aliases.py").write_text(source, encoding="utf-8")
    index = ModuleIndex([tmp_path], str)
    module = index.get("aliases")
    assert module is not None
    builder = SchemaBuilder(index)
    func = next(s for s in module.tree.body if isinstance(s, ast.FunctionDef))
    assert [a.arg for a in func.args.args] == params.split()
    props = {a.arg: builder.field_schema(a.annotation, module)[0] for a in func.args.args}  # type: ignore[arg-type]
    return {"properties": props, "$defs": builder.defs}


ALIASES = """
from typing import Annotated, Literal, Union
from pydantic import BaseModel, Field
from typing_extensions import TypeAliasType

type Sort = Literal["a", "b"]
type MaybeInt = int | None
type Tree = dict[str, Tree] | int
type Desc = Annotated[int, Field(ge=1, description="d")]


class M(BaseModel):
    x: int


type Ms = list[M]
Plain = Literal["a", "b"]
Named = TypeAliasType("Named", Literal["x"])


def f(sort: Sort | None, a: Sort, m: MaybeInt, t: Tree, d: Desc, ms: Ms, plain: Plain,
      named: Named, s: Annotated[Sort, Field(description="x")], u: Union[Sort, int]):
    return f"{"done"}"
"""

#: What pydantic 2.14 on Python 3.12 makes of `f`'s parameters (create_model(...)
#: .model_json_schema(), titles dropped): a named alias is a `$defs` entry of its own.
PYDANTIC_312 = {
    "properties": {
        "sort": {"anyOf": [{"$ref": "#/$defs/Sort"}, {"type": "null"}]},
        "a": {"$ref": "#/$defs/Sort"},
        "m": {"$ref": "#/$defs/MaybeInt"},
        "t": {"$ref": "#/$defs/Tree"},
        "d": {"$ref": "#/$defs/Desc"},
        "ms": {"$ref": "#/$defs/Ms"},
        "plain": {"enum": ["a", "b"], "type": "string"},
        "named": {"$ref": "#/$defs/Named"},
        "s": {"$ref": "#/$defs/Sort", "description": "x"},
        "u": {"anyOf": [{"$ref": "#/$defs/Sort"}, {"type": "integer"}]},
    },
    "$defs": {
        "Sort": {"enum": ["a", "b"], "type": "string"},
        "MaybeInt": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "Tree": {
            "anyOf": [
                {"additionalProperties": {"$ref": "#/$defs/Tree"}, "type": "object"},
                {"type": "integer"},
            ]
        },
        "Desc": {"description": "d", "minimum": 1, "type": "integer"},
        "M": {"properties": {"x": {"type": "integer"}}, "required": ["x"], "type": "object"},
        "Ms": {"items": {"$ref": "#/$defs/M"}, "type": "array"},
        "Named": {"const": "x", "type": "string"},
    },
}


def test_named_aliases_are_defs_as_pydantic_makes_them(tmp_path: Path) -> None:
    found = _schemas(tmp_path, ALIASES, "sort a m t d ms plain named s u")
    assert json.loads(json.dumps(found, sort_keys=True)) == json.loads(
        json.dumps(PYDANTIC_312, sort_keys=True)
    )


def test_a_generic_alias_used_with_arguments_is_refused(tmp_path: Path, run) -> None:
    project = Project(tmp_path / "proj")
    project.write(
        "pyproject.toml", '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n'
    )
    project.write("src/kinds.py", "type Pair[T] = tuple[T, T]\n")
    project.write(
        "src/tools.py", tool_source(params="p: Pair[int]", imports="from kinds import Pair")
    )
    result = run("build", cwd=project.root)
    assert result.code == 1
    assert "src/tools.py:5:15: TG202 [error] generic alias `Pair[int]` not supported" in result.out


def test_a_handler_module_in_newer_syntax_builds(tmp_path: Path, run) -> None:
    project = Project(tmp_path / "proj")
    project.write(
        "pyproject.toml", '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n'
    )
    project.write(
        "src/kinds.py",
        """
        from typing import Literal

        type Order = Literal[
            "asc",
            "desc",
        ]
        """,
    )
    handler = tool_source(
        params="order: Order | None = None, size: int = 1",
        imports="from kinds import Order\n\ndef first[T](items: list[T]) -> T:\n    return items[0]",
    ).replace(
        "raise NotImplementedError",
        'return f"{"\\n".join(["x"])}{order!r:>{size}}"  # PEP 701',
    )
    project.write("src/tools.py", handler)
    result = run("build", cwd=project.root)
    assert result.code == 0, result.out
    parameters = project.descriptor("lookup")["parameters"]
    assert parameters["properties"]["order"] == {
        "description": "The order.",
        "anyOf": [{"$ref": "#/$defs/Order"}, {"type": "null"}],
        "default": None,
    }
    assert parameters["$defs"] == {"Order": {"enum": ["asc", "desc"], "type": "string"}}


def test_places_after_a_newer_f_string_on_the_same_line_are_exact(tmp_path: Path, run) -> None:
    project = Project(tmp_path / "proj")
    project.write(
        "pyproject.toml", '[tool.toolgen]\nsources = ["src"]\nout = "generated"\nmin_level = 0\n'
    )
    handler = tool_source(params='a: str = f"{"é"}é", b: Nowhere = 1', args_doc="")
    project.write("src/tools.py", handler)
    result = run("build", cwd=project.root)
    line = next(n for n, text in enumerate(handler.splitlines(), 1) if "def lookup" in text)
    col = handler.splitlines()[line - 1].index("Nowhere") + 1
    assert f"src/tools.py:{line}:{col}: TG201 [error] cannot resolve `Nowhere`" in result.out
