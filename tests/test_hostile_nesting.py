"""Hostile input, issue 15 parts 8 and 9: nesting deep enough to exhaust a recursive reader is a
located diagnostic (never a traceback) in `fix` and in the configuration, and a `Literal` of
very many values costs black no more than a small one."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import Project, Run, tool_source
from toolgen.render import python

MODES = [((), 0), (("--check",), 1), (("--diff",), 0)]  # (arguments, exit code) of `fix`
STALE = "        gone: Not a parameter any more."


def _no_traceback(result: Run) -> None:
    for text in (result.out, result.err):
        assert "Traceback" not in text and "internal error" not in text, text


def _handler(project: Project, params: str, imports: str = "") -> str:
    """A handler with `params` and a stale docstring entry; its source."""
    return project.write(
        "src/tools.py", tool_source("deep", params, STALE, imports=imports)
    ).read_text()


# -- fix: deep nesting in a valid file -------------------------------------------------------
@pytest.mark.parametrize(("mode", "code"), MODES)
@pytest.mark.parametrize(
    "params",
    [
        "x: " + "list[" * 190 + "int" + "]" * 190,  # the 190-deep annotation
        "x: list = " + "[" * 150 + "]" * 150,  # the 150-deep list default
    ],
    ids=["annotation-190", "default-150"],
)
def test_fix_handles_deep_nesting_that_build_reads(
    project: Project, run, params: str, mode: tuple[str, ...], code: int
) -> None:
    """libcst recursed out on these (a traceback); `build` reads them, so `fix` fixes them."""
    before = _handler(project, params)
    result = run("fix", *mode, cwd=project.root)
    _no_traceback(result)
    assert result.code == code, result.out
    assert "src/tools.py:9:9: TG802 [warning] `deep`: parameter `x` needs a description" in (
        result.out
    )
    assert "src/tools.py:9:9: TG803 [info] `deep`: removed the docstring entry for `gone`" in (
        result.out
    )
    after = (project.root / "src" / "tools.py").read_text()
    if mode:
        assert after == before
    else:
        assert "gone" not in after and "        x: TODO: describe this parameter.\n" in after
        assert after.replace("        x: TODO: describe this parameter.\n", STALE + "\n") == before
    if mode == ("--diff",):
        assert f"-{STALE}\n" in result.out


@pytest.mark.parametrize(("mode", "code"), MODES)
def test_fix_says_what_build_says_of_a_handler_too_deep_to_analyse(
    project: Project, run, mode: tuple[str, ...], code: int
) -> None:
    """Aliases 400 deep run the analysis out of recursion: `fix` reports the compiler's TG202
    at the same place and leaves that docstring alone."""
    aliases = "A0 = int\n" + "".join(f"A{i} = list[A{i - 1}]\n" for i in range(1, 400))
    before = _handler(project, "x: A399", imports=aliases)
    build = run("build", cwd=project.root)
    verdict = next(line for line in build.out.splitlines() if "TG202" in line)
    assert "`deep` nests types or values too deeply to analyse" in verdict
    result = run("fix", *mode, cwd=project.root)
    _no_traceback(result)
    assert verdict in result.out.splitlines()
    assert result.code == 0  # nothing to change: the handler is left alone
    assert (project.root / "src" / "tools.py").read_text() == before


@pytest.mark.parametrize(("mode", "_"), MODES)
def test_fix_says_what_build_says_of_nesting_the_parser_refuses(
    project: Project, run, mode: tuple[str, ...], _: int
) -> None:
    before = _handler(project, "x: bool = " + "not " * 3000 + "True")
    build = run("build", cwd=project.root)
    message = "cannot parse: an expression is nested too deeply for Python's parser"
    assert f"src/tools.py:1:1: TG101 [error] {message}" in build.out
    result = run("fix", *mode, cwd=project.root)
    _no_traceback(result)
    assert result.code == 2
    assert f"src/tools.py:1:1: TG804 [error] {message}; file not changed" in result.out
    assert (project.root / "src" / "tools.py").read_text() == before


def test_fix_writes_no_type_it_cannot_unparse(project: Project, run) -> None:
    """`int | int | ...` 900 deep: `build` reads it; `fix` adds the entry without its type
    (writing the type recursed out, and the handler was skipped)."""
    project.write(
        "src/tools.py",
        tool_source("deep", "y: int, x: " + " | ".join(["int"] * 900), "        y (int): Y."),
    )
    result = run("fix", cwd=project.root)
    _no_traceback(result)
    assert result.code == 0
    assert (
        "        x: TODO: describe this parameter.\n"
        in (project.root / "src" / "tools.py").read_text()
    )


# -- configuration: values nested thousands deep ---------------------------------------------
ARRAY = "[" * 3000 + "]" * 3000
TABLE = "{a = " * 3000 + "1" + "}" * 3000


@pytest.mark.parametrize("command", ["build", "check", "fix"])
@pytest.mark.parametrize(
    ("lines", "where", "depth"),
    [
        (f"skip_params = {ARRAY}", "3:15", 3000),
        (f'platforms = ["openai", {ARRAY}]', "3:13", 3001),
        (f"rules = {TABLE}", "3:9", 3000),
        (f"out = {TABLE}", "3:7", 3000),
        (f'breaking_ignore = [{{rule = "tool-removed", tool = {TABLE}}}]', "3:19", 3002),
        (f'min_level = 0\n\n[tool.other]\nx = """ [[[ """\ny = {ARRAY}', "7:5", 3000),
    ],
    ids=["skip_params", "platforms", "rules", "out", "breaking_ignore", "other-tool"],
)
def test_a_config_value_nested_thousands_deep_is_a_located_error(
    project: Project, run, command: str, lines: str, where: str, depth: int
) -> None:
    project.write("src/tools.py", tool_source())
    project.write("pyproject.toml", f'[tool.toolgen]\nsources = ["src"]\n{lines}\n')
    result = run(command, cwd=project.root)
    _no_traceback(result)
    assert result.code == 2
    assert (
        f"pyproject.toml:{where}: TG001 [error] cannot read TOML: a value nests arrays or "
        f"inline tables {depth} levels deep, too deep to read"
    ) in result.out + result.err


def test_init_reads_a_deep_pyproject_the_same_way(project: Project, run) -> None:
    project.write("pyproject.toml", f"[tool.other]\nx = {ARRAY}\n")
    result = run("init", "--path", str(project.root), cwd=project.root)
    _no_traceback(result)
    assert result.code == 2
    assert (
        "pyproject.toml:2:5: TG006 [error] cannot read TOML: a value nests arrays or inline "
        "tables 3000 levels deep, too deep to read"
    ) in result.out + result.err


# -- a Literal of very many values -----------------------------------------------------------
def _black_input(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each text given to black from now on."""
    import black

    given: list[str] = []
    format_str = black.format_str

    def recorded(text: str, *, mode: Any) -> str:
        given.append(text)
        return format_str(text, mode=mode)

    monkeypatch.setattr(black, "format_str", recorded)
    return given


def _literal_handler(project: Project, count: int) -> None:
    values = ", ".join(f'"value_{i}"' for i in range(count))
    project.write(
        "src/tools.py",
        tool_source(
            "pick",
            f"choice: Literal[{values}]",
            "        choice: The value.",
            imports="from typing import Literal",
        ),
    )


def test_black_does_not_see_the_values_of_a_big_literal(
    project: Project, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """black took 108 s for 100,000 values (7.5 s for 20,000): its time grows faster than its
    input. The build gives it a few stand-ins instead, as many for 100,000 values as for
    10,000; the time comparison itself is `benchmarks/run.py --literal`."""
    texts = _black_input(monkeypatch)
    given: dict[int, int] = {}
    for count in (10_000, 100_000):
        _literal_handler(project, count)
        texts.clear()
        assert run("build", "--no-cache", cwd=project.root).code == 0
        given[count] = sum(map(len, texts))
        module = (project.out / "python" / "tools.py").read_text()
        assert f'        "value_{count - 1}",\n' in module
        assert module.count('"value_') == count
    assert 0 < given[10_000] < 400 and 0 < given[100_000] < 400


class _Tool:
    def __init__(self, name: str, parameters: dict[str, Any]) -> None:
        self.name, self.parameters = name, parameters


def _shapes(enum: dict[str, Any]) -> list[dict[str, Any]]:
    """Parameters schemas that put the enum in each place the module writes a `Literal`."""

    def wrapped(depth: int) -> dict[str, Any]:
        schema = enum
        for _ in range(depth):
            schema = {"type": "array", "items": schema}
        return schema

    properties: list[dict[str, Any]] = [
        {"choice": enum},
        {"choice": {"anyOf": [enum, {"type": "null"}]}},
        {"choice": wrapped(1), "other": enum},
        {"choice": {"type": "array", "prefixItems": [enum, {"type": "string"}]}},
        {"choice": {"type": "object", "additionalProperties": enum}},
        {"choice": {"anyOf": [enum, {"enum": [1, 2]}, enum]}},
        {"a-b": enum, "c": {"type": "string"}},  # the functional TypedDict form
        {"x" * 95: enum},  # a name too long for the line
        {"choice": wrapped(12)},
        {"choice": wrapped(21)},  # indented so far that the stand-ins would not fit
        {"choice": {"$ref": "#/$defs/Color"}},  # an alias: `Color = Literal[...]`
    ]
    shapes = [{"type": "object", "properties": p, "required": ["choice"]} for p in properties]
    shapes += [{"type": "object", "properties": p} for p in properties[:3]]  # NotRequired
    for shape in shapes:
        shape["$defs"] = {"Color": enum}
    return shapes


VALUES = {
    "strings": [f"value_{i}" for i in range(150)],
    "numbers": [None, True, False, *range(-70, 70)],  # 5 wide at most
    "long": [f"{'x' * (i % 120)}{i}" for i in range(150)],  # some too wide for any line
    "unicode": [f"välue\n\t{i} {'🙂' * (i % 50)}" for i in range(150)],  # 🙂 is 2 wide
    "quoted": [f'say "{i}"' for i in range(150)],  # black requotes them: no stand-ins
    "narrow": [i % 10 for i in range(150)],  # 1 wide: narrower than a stand-in can be
}


@pytest.mark.parametrize("kind", VALUES)
def test_a_big_literal_is_laid_out_as_black_lays_it_out(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same bytes as black makes of the values themselves, black-stable, in every place a
    `Literal` goes."""
    import black

    mode = black.Mode(line_length=100, target_versions={black.TargetVersion.PY311})
    tools = [_Tool(f"pick_{i}", s) for i, s in enumerate(_shapes({"enum": VALUES[kind]}))]
    texts = _black_input(monkeypatch)
    module = python.python_module(tools)
    first_values = ", ".join(python._literal(v) for v in VALUES[kind][:2])
    assert any(first_values in text for text in texts) == (kind == "quoted")
    assert black.format_str(module, mode=mode) == module
    monkeypatch.setattr(python, "_MANY_VALUES", 10**9)  # no stand-ins: black sees the values
    assert python.python_module(tools) == module
