"""The registration interpreter (`toolgen.read.registration`): one test per rule of its
design, on small projects written here, and properties: renaming, moving registrations into
other modules and nesting them in functions and classes gives the same tools."""

from __future__ import annotations

import ast
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgen.analyze.handlers import Registrations
from toolgen.analyze.markers import PRESETS, Preset
from toolgen.analyze.registered import find_registrations, registrations
from toolgen.read.index import ModuleIndex
from toolgen.read.registration import Evaluation, evaluate, unreached
from toolgen.read.registration.effects import Registered
from toolgen.read.registration.interpreter import (
    MAX_DEPTH,
    MAX_NESTING,
    MAX_RECURSION,
    MAX_STEPS,
)
from toolgen.read.registration.values import Const

FASTMCP = [PRESETS["fastmcp"]]


def _index(root: Path, files: dict[str, str]) -> ModuleIndex:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    for folder in {p.parent for p in root.rglob("*.py")}:
        if folder != root and not (folder / "__init__.py").exists():
            (folder / "__init__.py").write_text("", encoding="utf-8")
    return ModuleIndex([root], lambda p: p.relative_to(root).as_posix())


def _run(
    root: Path,
    files: dict[str, str],
    module: str = "app.server",
    presets: list[Preset] = FASTMCP,
    env: dict[str, str] | None = None,
) -> tuple[Evaluation, Registrations]:
    index = _index(root, files)
    found = index.get(module)
    assert found is not None
    evaluation = evaluate(found, index, presets, env)
    return evaluation, registrations(evaluation.effects, presets)


def _tools(found: Registrations) -> set[tuple[str, str | None]]:
    return {(h.qualname, h.server) for h in found.handlers}


def test_module_level_decorated_functions(tmp_path: Path) -> None:
    evaluation, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from fastmcp import FastMCP

            mcp = FastMCP("demo")

            @mcp.tool
            def bare(x: int) -> int:
                return x

            @mcp.tool()
            def called(x: int) -> int:
                return x

            @mcp.tool(name="renamed", tags={"a"})
            def named(x: int) -> int:
                return x
            """
        },
    )
    assert _tools(found) == {
        ("bare", "app.server.mcp"),
        ("called", "app.server.mcp"),
        ("named", "app.server.mcp"),
    }
    named = next(r for r in evaluation.registered if r.function.name == "named")
    assert dict(named.options)["name"] == Const("renamed")
    handler = next(h for h in found.handlers if h.qualname == "named")
    assert handler.method == "tool" and handler.site is None and not handler.in_class


def test_a_decorator_of_another_module_that_ends_in_a_registration(tmp_path: Path) -> None:
    _, found = _run(
        tmp_path,
        {
            "app/core.py": """
            from fastmcp import FastMCP

            mcp = FastMCP("demo")
            """,
            "app/deco.py": """
            from app.core import mcp

            def my_tool(title):
                def wrap(fn):
                    return mcp.tool(title=title)(fn)
                return wrap
            """,
            "app/server.py": """
            from app.deco import my_tool

            @my_tool("Adds")
            def add(a: int, b: int) -> int:
                return a + b
            """,
        },
    )
    assert _tools(found) == {("add", "app.core.mcp")}
    handler = found.handlers[0]
    assert handler.at.name == "app.deco"  # the call that carries the options


def test_a_factory_nested_in_a_function(tmp_path: Path) -> None:
    _, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from fastmcp import FastMCP

            def create_server(prefix: str = "x"):
                server = FastMCP("demo")

                @server.tool(name=prefix + "_ping")
                def ping() -> str:
                    return "pong"

                return server

            app = create_server()
            """
        },
    )
    assert _tools(found) == {("create_server.<locals>.ping", "app.server.app")}


def test_a_loop_over_a_list_imported_from_another_module(tmp_path: Path) -> None:
    evaluation, found = _run(
        tmp_path,
        {
            "app/tools.py": """
            def first(x: int) -> int:
                return x

            def second(x: int) -> int:
                return x

            ALL = [first, second]
            """,
            "app/server.py": """
            from fastmcp import FastMCP
            from app.tools import ALL

            mcp = FastMCP("demo")
            for fn in ALL:
                mcp.tool(name=fn.__name__)(fn)
            """,
        },
    )
    assert _tools(found) == {("first", "app.server.mcp"), ("second", "app.server.mcp")}
    names = [dict(r.options)["name"] for r in evaluation.registered]
    assert names == [Const("first"), Const("second")]
    assert all(h.site is not None and h.site.name == "app.server" for h in found.handlers)


def test_comprehensions(tmp_path: Path) -> None:
    _, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from fastmcp import FastMCP

            mcp = FastMCP("demo")

            def a() -> None: ...
            def b() -> None: ...
            def c() -> None: ...

            TABLE = {"a": a, "b": b}
            registered = [mcp.tool(name=key)(fn) for key, fn in TABLE.items()]
            more = {f.__name__: mcp.add_tool(f) for f in (c,) if f is not None}
            """
        },
    )
    assert {q for q, _ in _tools(found)} == {"a", "b", "c"}
    assert {h.method for h in found.handlers} == {"tool", "add_tool"}


def test_conditionals_on_known_and_unknown_values(tmp_path: Path) -> None:
    evaluation, found = _run(
        tmp_path,
        {
            "app/server.py": """
            import platform
            from fastmcp import FastMCP

            DEBUG = False
            mcp = FastMCP("demo")

            def debug_only() -> None: ...
            def always() -> None: ...
            def maybe() -> None: ...
            def otherwise() -> None: ...

            if DEBUG:
                mcp.tool()(debug_only)
            else:
                mcp.tool()(always)

            if platform.system() == "Linux":  # known only where it runs
                mcp.tool()(maybe)
                chosen = maybe
            else:
                mcp.tool()(otherwise)
                chosen = otherwise
            """
        },
    )
    assert {q for q, _ in _tools(found)} == {"always", "maybe", "otherwise"}
    assert not evaluation.notes


def test_a_class_that_keeps_its_server_in_self(tmp_path: Path) -> None:
    _, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from fastmcp import FastMCP

            class Tools:
                def __init__(self, name: str) -> None:
                    self.mcp = FastMCP(name)
                    self.mcp.tool(name="look")(self.search)
                    self.mcp.add_tool(self.fetch)

                def search(self, query: str) -> str:
                    return query

                def fetch(self, url: str) -> str:
                    return url

            tools = Tools("demo")
            mcp = tools.mcp
            """
        },
    )
    assert _tools(found) == {("Tools.search", "app.server.mcp"), ("Tools.fetch", "app.server.mcp")}
    assert all(h.in_class and not h.is_static for h in found.handlers)


def test_a_server_returned_by_a_factory_function(tmp_path: Path) -> None:
    _, found = _run(
        tmp_path,
        {
            "app/factory.py": """
            from fastmcp import FastMCP

            def make_server(name="demo"):
                server = FastMCP(name)
                return server
            """,
            "app/server.py": """
            from app.factory import make_server

            mcp = make_server()

            @mcp.tool
            def ping() -> str:
                return "pong"
            """,
        },
    )
    assert _tools(found) == {("ping", "app.server.mcp")}


def test_a_server_class_re_exported_by_a_package_and_a_subclass(tmp_path: Path) -> None:
    _, found = _run(
        tmp_path,
        {
            "app/__init__.py": """
            from fastmcp import FastMCP as Server
            """,
            "app/server.py": """
            from app import Server

            class Secure(Server):
                def __init__(self, name: str) -> None:
                    super().__init__(name)
                    self.tool()(self.whoami)

                def whoami(self) -> str:
                    return "me"

            plain = Server("plain")
            secure = Secure("secure")

            @plain.tool
            def one() -> None: ...

            @secure.tool()
            def two() -> None: ...
            """,
        },
    )
    assert _tools(found) == {
        ("one", "app.server.plain"),
        ("two", "app.server.secure"),
        ("Secure.whoami", "app.server.secure"),
    }


def test_functools_wraps_and_partial(tmp_path: Path) -> None:
    _, found = _run(
        tmp_path,
        {
            "app/server.py": """
            import functools
            from functools import partial
            from fastmcp import FastMCP

            mcp = FastMCP("demo")

            def logged(fn):
                @functools.wraps(fn)
                def wrapper(*args, **kwargs):
                    return fn(*args, **kwargs)
                return wrapper

            @mcp.tool
            @logged
            def wrapped(x: int) -> int:
                return x

            def scaled(x: int, factor: int) -> int:
                return x * factor

            mcp.tool(name="double")(partial(scaled, factor=2))
            """
        },
    )
    assert {q for q, _ in _tools(found)} == {"wrapped", "scaled"}


def test_os_getenv_gives_its_default_or_the_configured_value(tmp_path: Path) -> None:
    files = {
        "app/server.py": """
        import os
        from fastmcp import FastMCP

        mcp = FastMCP(os.environ.get("SERVER", "demo"))

        def f() -> None: ...

        mcp.tool(name=os.getenv("TOOL_NAME", "default_name"))(f)
        if os.getenv("ENABLE_EXTRA"):
            mcp.tool(name="extra")(f)
        """
    }
    evaluation, _ = _run(tmp_path, files)
    assert [dict(r.options)["name"] for r in evaluation.registered] == [Const("default_name")]
    assert {n.kind for n in evaluation.notes} == {"env"}
    assert len(evaluation.notes) == 3
    configured, _ = _run(tmp_path / "b", files, env={"TOOL_NAME": "set", "ENABLE_EXTRA": "1"})
    names = [dict(r.options)["name"] for r in configured.registered]
    assert names == [Const("set"), Const("extra")]


def test_a_recursion_reaches_the_depth_bound(tmp_path: Path) -> None:
    chain = "".join(f"def f{i}():\n    return f{i + 1}()\n\n" for i in range(MAX_DEPTH + 5))
    source = f"""
from fastmcp import FastMCP

mcp = FastMCP("demo")

def down(n):
    return down(n + 1) + down(n + 2)

down(0)

{chain}
f0()

@mcp.tool
def after() -> None: ...
"""
    evaluation, found = _run(tmp_path, {"app/server.py": source})
    assert _tools(found) == {("after", "app.server.mcp")}
    bounds = [n.message for n in evaluation.notes if n.kind == "bound"]
    assert sorted(set(bounds)) == [
        f"`down` calls itself more than MAX_RECURSION = {MAX_RECURSION} times deep",
        f"`f{MAX_DEPTH}` called more than MAX_DEPTH = {MAX_DEPTH} calls deep",
    ]


def test_a_deeply_nested_expression_reaches_the_nesting_bound(tmp_path: Path) -> None:
    deep = "+".join(["1"] * 600)
    source = f"""
from fastmcp import FastMCP

mcp = FastMCP("demo")
TOTAL = {deep}

@mcp.tool
def after() -> None: ...
"""
    evaluation, found = _run(tmp_path, {"app/server.py": source})
    assert _tools(found) == {("after", "app.server.mcp")}
    assert any(f"MAX_NESTING = {MAX_NESTING}" in n.message for n in evaluation.notes)


def test_an_endless_loop_reaches_the_step_bound(tmp_path: Path) -> None:
    started = time.monotonic()
    evaluation, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from fastmcp import FastMCP

            mcp = FastMCP("demo")

            @mcp.tool
            def before() -> None: ...

            n = 0
            while True:
                n = n + 1

            items = []
            for x in range(5):
                items.append(x)
                while x < 10:
                    pass
            """
        },
    )
    assert time.monotonic() - started < 30
    assert _tools(found) == {("before", "app.server.mcp")}
    assert any("MAX_ITERATIONS" in n.message for n in evaluation.notes)
    assert any("MAX_STEPS" in n.message for n in evaluation.notes)


def test_unreached_register_functions(tmp_path: Path) -> None:
    index = _index(
        tmp_path,
        {
            "app/tools.py": """
            def register(mcp):
                @mcp.tool()
                def search(q: str) -> str:
                    return q

                mcp.add_tool(fetch)

            def fetch(url: str) -> str:
                return url

            def helper() -> None:
                print("nothing registered")
            """,
            "app/reached.py": """
            from fastmcp import FastMCP

            mcp = FastMCP("demo")

            def register_all(server):
                @server.tool
                def used() -> None: ...

            register_all(mcp)
            """,
        },
    )
    tools, reached = index.get("app.tools"), index.get("app.reached")
    assert tools is not None and reached is not None
    assert not evaluate(tools, index, FASTMCP).registered
    found = registrations(unreached(tools, index, FASTMCP).effects, FASTMCP)
    assert _tools(found) == {("register.<locals>.search", None), ("fetch", None)}
    top = registrations(evaluate(reached, index, FASTMCP).effects, FASTMCP)
    assert _tools(top) == {("register_all.<locals>.used", "app.reached.mcp")}
    assert not unreached(reached, index, FASTMCP).effects  # reached: not evaluated again


def test_decorator_functions_of_other_presets(tmp_path: Path) -> None:
    presets = [PRESETS["toolgen"], PRESETS["openai-agents"]]
    _, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from agents import function_tool
            from toolgen import tool

            @tool(risk="low")
            def mine() -> None: ...

            @function_tool
            def theirs() -> None: ...

            class Holder:
                @staticmethod
                @tool
                def static() -> None: ...
            """
        },
        presets=presets,
    )
    assert {(h.qualname, h.preset.name) for h in found.handlers} == {
        ("mine", "toolgen"),
        ("theirs", "openai-agents"),
        ("Holder.static", "toolgen"),
    }


def test_an_unknown_function_is_a_located_note(tmp_path: Path) -> None:
    _, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from fastmcp import FastMCP
            from elsewhere import make_tool

            mcp = FastMCP("demo")
            mcp.add_tool(make_tool())
            """
        },
    )
    assert not found.handlers
    assert [d.code for d in found.unfollowed] == ["TG106"]
    assert found.unfollowed[0].location is not None
    assert found.unfollowed[0].location.line == 5


def test_mounts(tmp_path: Path) -> None:
    _, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from fastmcp import FastMCP

            main = FastMCP("main")
            child = FastMCP("child")
            main.mount(child, namespace="kid")
            """
        },
    )
    assert [(m.parent, m.child, m.namespace) for m in found.mounts] == [
        ("app.server.main", "app.server.child", "kid")
    ]


def test_a_paginated_loop_runs_once(tmp_path: Path) -> None:
    started = time.monotonic()
    evaluation, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from fastmcp import FastMCP
            from client import fetch

            mcp = FastMCP("demo")
            token = None
            while True:
                page = fetch(token)
                token = page.get("next")
                if not token:
                    break

            @mcp.tool
            def after() -> None: ...
            """
        },
    )
    assert time.monotonic() - started < 5
    assert _tools(found) == {("after", "app.server.mcp")}
    assert not [n for n in evaluation.notes if n.kind == "bound"]


def test_owners_that_are_no_server(tmp_path: Path) -> None:
    _, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from fastmcp import FastMCP
            from mcp.server.mcpserver import MCPServer

            class Plain:
                pass

            fast = FastMCP("fast")
            other = MCPServer("other")  # the mcp preset's, not configured here
            plain = Plain()

            @fast.tool
            def kept() -> None: ...

            @other.tool()
            def not_this() -> None: ...

            @plain.tool
            def nor_this() -> None: ...
            """
        },
    )
    assert _tools(found) == {("kept", "app.server.fast")}
    assert [d.location.line for d in found.unfollowed if d.location] == [14, 17]


def test_python_s_own_forms(tmp_path: Path) -> None:
    """`try: import ... except ImportError:`, `match`, `if __name__ == "__main__":`, a
    decorator from outside the project, a module's `__getattr__`."""
    _, found = _run(
        tmp_path,
        {
            "app/lazy.py": """
            def __getattr__(name):
                if name == "helper":
                    from app.helpers import helper
                    return helper
                raise AttributeError(name)
            """,
            "app/helpers.py": """
            def helper() -> None: ...
            """,
            "app/server.py": """
            try:
                from fastmcp import FastMCP
            except ImportError:
                FastMCP = None
            from app.lazy import helper
            from cachetools import cached

            MODE = "full"
            mcp = FastMCP("demo")

            match MODE:
                case "small":
                    @mcp.tool
                    def small() -> None: ...
                case "full":
                    @mcp.tool
                    @cached
                    def full() -> None: ...

            def main():
                mcp.tool()(helper)
                mcp.run()

            if __name__ == "__main__":
                main()
            """,
        },
    )
    assert _tools(found) == {("full", "app.server.mcp"), ("helper", "app.server.mcp")}


def test_a_source_listed_under_another_module_name(tmp_path: Path) -> None:
    """A folder without `__init__.py` listed as a source: its files are modules of their own
    name too. What its own unit finds does not depend on another unit having reached its
    function: run with unknown arguments, it registers on a server toolgen cannot name (the
    build keeps the named twin: tests/test_interpreted_build.py)."""
    index = _index(
        tmp_path,
        {
            "app/server.py": """
            from fastmcp import FastMCP
            from app.tools.extra import register

            mcp = FastMCP("demo")
            register(mcp)
            """,
            "app/tools/extra.py": """
            def register(mcp):
                @mcp.tool
                def ping() -> None: ...
            """,
        },
    )
    server = index.get("app.server")
    alone = index.add_file("extra", tmp_path / "app/tools/extra.py")
    assert server is not None and alone is not None and alone is not index.get("app.tools.extra")
    top = registrations(evaluate(server, index, FASTMCP).effects, FASTMCP)
    assert _tools(top) == {("register.<locals>.ping", "app.server.mcp")}
    alone_found = registrations(unreached(alone, index, FASTMCP).effects, FASTMCP)
    assert _tools(alone_found) == {("register.<locals>.ping", None)}


def test_a_server_class_under_another_path_of_its_package(tmp_path: Path) -> None:
    """`mcp.server.MCPServer` re-exports `mcp.server.mcpserver.MCPServer`: the same class."""
    _, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from mcp.server import MCPServer

            server = MCPServer("demo")

            @server.tool()
            def ping() -> None: ...
            """
        },
        presets=[PRESETS["mcp"]],
    )
    assert _tools(found) == {("ping", "app.server.server")}


def test_wrappers_chosen_at_run_time_stand_for_their_function(tmp_path: Path) -> None:
    _, found = _run(
        tmp_path,
        {
            "app/server.py": """
            import functools
            import inspect
            from fastmcp import FastMCP

            mcp = FastMCP("demo")

            def adapt(func):
                @functools.wraps(func)
                async def async_wrapper(*args, **kwargs):
                    return await func(*args, **kwargs)

                @functools.wraps(func)
                def sync_wrapper(*args, **kwargs):
                    return func(*args, **kwargs)

                return async_wrapper if inspect.iscoroutinefunction(func) else sync_wrapper

            @adapt
            def search(q: str) -> str:
                return q

            mcp.tool()(search)
            """
        },
    )
    assert _tools(found) == {("search", "app.server.mcp")}


def test_a_registration_named_once_and_unnamed_elsewhere_is_the_named_one(tmp_path: Path) -> None:
    index = _index(
        tmp_path,
        {
            "app/tools.py": """
            def register(mcp):
                @mcp.tool
                def ping() -> None: ...
            """,
            "app/server.py": """
            from fastmcp import FastMCP
            from app import tools

            mcp = FastMCP("demo")
            tools.register(mcp)

            def elsewhere(server: FastMCP):
                tools.register(server)
            """,
        },
    )
    server = index.get("app.server")
    assert server is not None
    effects = [
        *evaluate(server, index, FASTMCP).effects,
        *unreached(server, index, FASTMCP).effects,
    ]
    assert len([e for e in effects if isinstance(e, Registered)]) == 2
    assert _tools(registrations(effects, FASTMCP)) == {("register.<locals>.ping", "app.server.mcp")}


def test_a_unit_finds_the_same_whatever_ran_before(tmp_path: Path) -> None:
    files = {
        "app/tools.py": """
        def register(mcp):
            @mcp.tool
            def ping() -> None: ...
        """,
        "app/a.py": """
        from elsewhere import server
        from app.tools import register

        register(server())
        """,
        "app/b.py": """
        from elsewhere import server
        from app.tools import register

        register(server())
        """,
    }
    outcomes = []
    for order in (("app.a", "app.b"), ("app.b", "app.a")):
        index = _index(tmp_path / "-".join(order), files)
        modules = [index.get(name) for name in order]
        found = {}
        for module in modules:
            assert module is not None
            found[module.name] = _tools(
                registrations(evaluate(module, index, FASTMCP).effects, FASTMCP)
            )
        outcomes.append(found)
    assert outcomes[0] == outcomes[1]
    assert outcomes[0]["app.a"] == {("register.<locals>.ping", None)}


def test_tool_from_function_and_import_server(tmp_path: Path) -> None:
    evaluation, found = _run(
        tmp_path,
        {
            "app/server.py": """
            from fastmcp import FastMCP
            from fastmcp.tools import Tool

            main = FastMCP("main")
            sub = FastMCP("sub")

            def lookup(q: str) -> str:
                return q

            main.add_tool(Tool.from_function(lookup, name="find"))
            main.import_server(sub, prefix="s")
            """
        },
    )
    assert _tools(found) == {("lookup", "app.server.main")}
    handler = found.handlers[0]
    assert ast.unparse(handler.decorator) == "Tool.from_function(lookup, name='find')"
    assert handler.method == "add_tool"
    assert dict(evaluation.registered[0].options)["name"] == Const("find")
    assert [(m.parent, m.child, m.namespace) for m in found.mounts] == [
        ("app.server.main", "app.server.sub", "s")
    ]


# -- properties ----------------------------------------------------------------------------------

IDENTIFIER = st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True).map(lambda s: f"t_{s}")
FORMS = st.sampled_from(["decorator", "call", "loop"])
PLACES = st.sampled_from(["top", "function", "class", "module"])


def _form(form: str, owner: str, name: str) -> str:
    if form == "decorator":
        return f"@{owner}.tool\ndef {name}(x: int) -> int:\n    return x\n"
    define = f"def {name}(x: int) -> int:\n    return x\n"
    if form == "call":
        return define + f'{owner}.tool(name="{name}")({name})\n'
    return define + f"for _f in [{name}]:\n    {owner}.tool()(_f)\n"


def _program(server: str, tools: list[tuple[str, str, str]]) -> dict[str, str]:
    """A project whose server `server` registers each tool (name, form, place)."""
    files: dict[str, str] = {}
    lines = ["from fastmcp import FastMCP", f'{server} = FastMCP("s")', ""]
    for name, form, place in tools:
        if place == "top":
            lines.append(_form(form, server, name))
        elif place == "function":
            body = textwrap.indent(_form(form, "srv", name), "    ")
            lines += [f"def install_{name}(srv):", body, f"install_{name}({server})", ""]
        elif place == "class":
            body = textwrap.indent(_form(form, "self.srv", name), "        ")
            lines += [
                f"class Holder_{name}:",
                "    def __init__(self, srv):",
                "        self.srv = srv",
                body,
                f"Holder_{name}({server})",
                "",
            ]
        else:
            body = textwrap.indent(_form(form, "srv", name), "    ")
            files[f"app/mod_{name}.py"] = f"def install(srv):\n{body}\n"
            lines += [f"from app.mod_{name} import install as install_{name}", ""]
            lines += [f"install_{name}({server})", ""]
    files["app/server.py"] = "\n".join(lines)
    return files


@settings(max_examples=40, deadline=None)
@given(
    server=IDENTIFIER.map(lambda s: "s" + s),
    tools=st.lists(
        st.tuples(IDENTIFIER, FORMS, PLACES), min_size=1, max_size=4, unique_by=lambda t: t[0]
    ),
)
def test_the_same_tools_wherever_they_are_registered(
    server: str, tools: list[tuple[str, str, str]]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        evaluation, found = _run(Path(folder), _program(server, tools))
    names = sorted(h.node.name for h in found.handlers)
    assert names == sorted(name for name, _, _ in tools)
    assert {h.server for h in found.handlers} == {f"app.server.{server}"}
    assert not [n for n in evaluation.notes if n.kind != "env"]


@settings(max_examples=20, deadline=None)
@given(
    tools=st.lists(st.tuples(IDENTIFIER, FORMS), min_size=1, max_size=4, unique_by=lambda t: t[0])
)
def test_renaming_and_moving_keeps_the_tools(tools: list[tuple[str, str]]) -> None:
    """The same tools registered at the top, then all nested in functions, classes and other
    modules, under another server name: the same functions come out."""
    outcomes = []
    for server, place in (
        ("mcp", "top"),
        ("other", "function"),
        ("srv2", "class"),
        ("x", "module"),
    ):
        with tempfile.TemporaryDirectory() as folder:
            _, found = _run(Path(folder), _program(server, [(n, f, place) for n, f in tools]))
        outcomes.append(sorted(h.node.name for h in found.handlers))
    assert all(outcome == outcomes[0] for outcome in outcomes)


MCP = [PRESETS["mcp"]]


def _listed(root: Path, files: dict[str, str], module: str = "app.server") -> set[str]:
    """The names of the tools the module's low-level servers list."""
    index = _index(root, files)
    found = index.get(module)
    assert found is not None
    return {t.entry["name"] for t in find_registrations(found, index, MCP).listed}


def test_a_low_level_server_lists_what_its_handler_returns(tmp_path: Path) -> None:
    """`@server.list_tools()` (mcp 1) and `Server(on_list_tools=...)` (mcp 2): the `Tool(...)`
    records the handler returns, built from a constant of another module, a comprehension
    over records of a dataclass, and a `ListToolsResult`."""
    files = {
        "app/specs.py": """
        from dataclasses import dataclass
        from mcp.types import Tool

        @dataclass
        class Spec:
            name: str
            about: str = "No description."

        SPECS = [Spec("lookup", "Look up."), Spec(name="ping")]
        FIXED = [Tool(name="fixed", inputSchema={"type": "object"})]
        """,
        "app/server.py": """
        from mcp import types
        from mcp.server import Server
        from mcp.server.lowlevel import Server as LowLevel
        from app.specs import FIXED, SPECS

        server = Server("one")

        @server.list_tools()
        async def list_tools() -> list[types.Tool]:
            made = [
                types.Tool(name=s.name, description=s.about, inputSchema={"type": "object"})
                for s in SPECS
            ]
            return FIXED + made

        async def on_list(ctx, params):
            tools = [types.Tool(name="two", inputSchema={"type": "object", "properties": {}})]
            return types.ListToolsResult(tools=tools)

        other = LowLevel("two", on_list_tools=on_list)
        """,
    }
    assert _listed(tmp_path, files) == {"fixed", "lookup", "ping", "two"}


def test_a_listed_tool_keeps_its_fields_as_written(tmp_path: Path) -> None:
    """Names from an enum's values, annotations as `ToolAnnotations(...)`, a title, an
    output schema: the entry is the tool as the server sends it."""
    files = {
        "app/server.py": """
        from enum import Enum
        from mcp.server import Server
        from mcp.types import Tool, ToolAnnotations

        class Names(str, Enum):
            SEARCH = "search"

        server = Server("s")
        SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}

        @server.list_tools()
        async def tools():
            return [
                Tool(
                    name=Names.SEARCH.value,
                    title="Search",
                    description="Search things.",
                    inputSchema=SCHEMA,
                    outputSchema={"type": "object"},
                    annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=None),
                )
            ]
        """
    }
    index = _index(tmp_path, files)
    module = index.get("app.server")
    assert module is not None
    [tool] = find_registrations(module, index, MCP).listed
    assert tool.entry == {
        "name": "search",
        "title": "Search",
        "description": "Search things.",
        "inputSchema": {
            "type": "object",
            "properties": {"q": {"type": "string"}},
            "required": ["q"],
        },
        "outputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
    }
    assert tool.server == "app.server.server"


def test_a_model_s_json_schema_is_the_schema_pydantic_makes(tmp_path: Path) -> None:
    pydantic = pytest.importorskip("pydantic")
    files = {
        "app/server.py": """
        from pydantic import BaseModel, Field
        from mcp.server import Server
        from mcp.types import Tool

        class Query(BaseModel):
            text: str = Field(description="What to find.")
            limit: int = 10

        server = Server("s")

        @server.list_tools()
        async def tools():
            return [Tool(name="find", inputSchema=Query.model_json_schema())]
        """
    }
    index = _index(tmp_path, files)
    module = index.get("app.server")
    assert module is not None
    [tool] = find_registrations(module, index, MCP).listed

    class Query(pydantic.BaseModel):  # the oracle: pydantic itself
        text: str = pydantic.Field(description="What to find.")
        limit: int = 10

    assert tool.entry["inputSchema"] == Query.model_json_schema()


def test_what_a_listed_tool_cannot_be_known_from_is_a_located_note(tmp_path: Path) -> None:
    files = {
        "app/server.py": """
        from mcp.server import Server
        from mcp.types import Tool
        from elsewhere import load_schema

        server = Server("s")

        @server.list_tools()
        async def tools():
            return [
                Tool(name="known", inputSchema={"type": "object"}),
                Tool(name="unknown", inputSchema=load_schema()),
            ]
        """
    }
    index = _index(tmp_path, files)
    module = index.get("app.server")
    assert module is not None
    found = find_registrations(module, index, MCP)
    assert [t.entry["name"] for t in found.listed] == ["known"]
    [note] = found.unfollowed
    assert note.code == "TG106" and str(note.location) == "app/server.py:11:42"  # the call
    assert "`elsewhere.load_schema` is called at run time" in note.message


def test_a_top_level_statement_out_of_steps_costs_only_what_it_binds(tmp_path: Path) -> None:
    """A class body of more steps than `MAX_STEPS` leaves its class unknown, with a note;
    the registrations after it are still found."""
    members = "".join(f"    m{i} = enum.auto()\n" for i in range(MAX_STEPS // 2))
    files = {
        "app/server.py": "import enum\nfrom fastmcp import FastMCP\n\n\n"
        f"class Big(enum.Enum):\n{members}\n\nmcp = FastMCP('s')\n\n\n"
        "@mcp.tool\ndef after() -> None: ...\n"
    }
    evaluation, found = _run(tmp_path, files)
    assert _tools(found) == {("after", "app.server.mcp")}
    assert any("MAX_STEPS" in n.message for n in evaluation.notes if n.kind == "bound")


def test_the_caller_s_arguments_are_the_registration_s_options(tmp_path: Path) -> None:
    """`register(mcp, name="x")` of another module: the handler's options carry the name
    (reading the decorator where it is written cannot), and the caller's unit finds it on
    the caller's server."""
    files = {
        "app/registry.py": """
        def register(mcp, *, name: str, label: str):
            @mcp.tool(name=f"{name}_list", description=f"List {label}.")
            def _list() -> list[str]:
                return []
        """,
        "app/server.py": """
        from fastmcp import FastMCP
        from app.registry import register

        mcp = FastMCP("s")
        register(mcp, name="labels", label="labels")
        register(mcp, name="cases", label="cases")
        """,
    }
    _, found = _run(tmp_path, files)
    values = sorted(dict(h.values)["name"] for h in found.handlers)
    assert values == ["cases_list", "labels_list"]
    assert {h.server for h in found.handlers} == {"app.server.mcp"}
    assert {dict(h.values)["description"] for h in found.handlers} == {
        "List labels.",
        "List cases.",
    }


def test_a_server_written_by_hand_lists_what_it_answers_tools_list_with(
    tmp_path: Path,
) -> None:
    """No SDK: a function that answers the JSON-RPC request "tools/list" with a dict whose
    `tools` are dicts of the wire's fields (a list built in another module, a method's
    result), whatever else it answers."""
    files = {
        "app/catalog.py": """
        TOOLS = [
            {"name": "search", "description": "Search.", "inputSchema": {"type": "object"}},
        ]
        """,
        "app/server.py": """
        import json
        import sys
        from app.catalog import TOOLS

        class Server:
            def extra(self):
                return [{"name": "ping", "inputSchema": {"type": "object", "properties": {}}}]

            def handle(self, message):
                method = message.get("method")
                if method == "initialize":
                    return {"capabilities": {"tools": {}}}
                if method == "tools/list":
                    return {"jsonrpc": "2.0", "result": {"tools": TOOLS + self.extra()}}
                return {"error": "unknown"}

        def main():
            server = Server()
            for line in sys.stdin:
                print(json.dumps(server.handle(json.loads(line))))
        """,
    }
    assert _listed(tmp_path, files) == {"search", "ping"}
    without_mcp = _index(tmp_path / "b", files)
    module = without_mcp.get("app.server")
    assert module is not None
    assert not find_registrations(module, without_mcp, FASTMCP).listed  # the SDK's preset only


def _project_run(
    root: Path, files: dict[str, str], data: dict[str, str], module: str = "app.server"
) -> tuple[Evaluation, Registrations]:
    """`_run` in a project (its data files may be read) with `data` written beside."""
    index = _index(root, files)
    for name, text in data.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    index = ModuleIndex([root], lambda p: p.relative_to(root).as_posix(), project=root)
    found = index.get(module)
    assert found is not None
    evaluation = evaluate(found, index, FASTMCP)
    return evaluation, registrations(evaluation.effects, FASTMCP)


READS_NAMES = """
import json
import os
from importlib.resources import files
from pathlib import Path

import yaml
from fastmcp import FastMCP

mcp = FastMCP("d")
HERE = Path(__file__).parent


def make(name):
    def handler(x: int) -> int:
        return x

    mcp.tool(name=name)(handler)


for name in json.loads((HERE / "names.json").read_text())["tools"]:
    make(name)
with open(os.path.join(os.path.dirname(__file__), "more.yaml"), encoding="utf-8") as f:
    for name in yaml.safe_load(f)["tools"]:
        make(name)
for name in json.load(files("app").joinpath("data", "last.json").open()):
    make(name)
if (HERE / "absent.json").exists():
    make("never")
"""


def _names(found: Registrations) -> list[str]:
    return sorted(dict(h.values)["name"] for h in found.handlers)


def test_a_data_file_of_the_project_is_read_as_the_server_reads_it(tmp_path: Path) -> None:
    """`__file__` is where the module is; JSON and YAML files beside it (by `Path`,
    `os.path`, `importlib.resources.files`) load as they do when the server starts, and a
    file the project does not hold does not exist."""
    data = {
        "app/names.json": '{"tools": ["alpha", "beta"]}',
        "app/more.yaml": "tools:\n  - gamma\n",
        "app/data/last.json": '["delta"]',
    }
    _, found = _project_run(tmp_path, {"app/server.py": READS_NAMES}, data)
    assert _names(found) == ["alpha", "beta", "delta", "gamma"]


def test_a_file_outside_the_project_is_not_read(tmp_path: Path) -> None:
    """A symlink out of the project, or an absolute path elsewhere, is not read: what is on
    the machine that runs toolgen is not the project's, and where the server starts it
    does not exist (opening it raises; with no `try` around, its data is unknown)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "names.json").write_text('{"tools": ["secret"]}', encoding="utf-8")
    root = tmp_path / "project"
    files = {
        "app/server.py": """
        import json
        from pathlib import Path
        from fastmcp import FastMCP

        mcp = FastMCP("d")


        def make(name):
            def handler(x: int) -> int:
                return x

            mcp.tool(name=name)(handler)


        for name in json.loads((Path(__file__).parent / "linked.json").read_text())["tools"]:
            make(name)
        for name in json.load(open(OUTSIDE))["tools"]:
            make(name)
        """.replace("OUTSIDE", repr(str(outside / "names.json")))
    }
    _index(root, files)
    (root / "app" / "linked.json").symlink_to(outside / "names.json")
    index = ModuleIndex([root], lambda p: p.relative_to(root).as_posix(), project=root)
    module = index.get("app.server")
    assert module is not None
    evaluation = evaluate(module, index, FASTMCP)
    found = registrations(evaluation.effects, FASTMCP)
    # neither file exists where the server starts: outside a `try`, what opening one gives is
    # unknown, and each loop over its data runs once with an unknown name
    assert [dict(h.values).get("name") for h in found.handlers] == [None]
    assert found.handlers[0].unknown == frozenset({"name"})
    assert "secret" not in repr(evaluation.effects)
    assert str(outside) not in "".join(map(str, index.read))


def test_the_network_is_absent_so_a_try_falls_back(tmp_path: Path) -> None:
    """A request raises (the server is read as it starts with no network), in the `try`
    that makes it or in a caller's: the handler's fallback is what the server lists."""
    server = """
    import json
    import os

    import httpx
    import requests
    from fastmcp import FastMCP

    mcp = FastMCP("d")


    def fetch():
        return requests.get("https://example.invalid/names").json()


    def names():
        try:
            return httpx.get("https://example.invalid/names").json()
        except Exception:
            with open(os.path.join(os.path.dirname(__file__), "names.json")) as f:
                return json.load(f)


    def more():
        try:
            found = fetch()
        except requests.RequestException:
            found = ["fallback"]
        return found


    def make(name):
        def handler(x: int) -> int:
            return x

        mcp.tool(name=name)(handler)


    for name in names() + more():
        make(name)
    """
    _, found = _project_run(tmp_path, {"app/server.py": server}, {"app/names.json": '["live"]'})
    assert _names(found) == ["fallback", "live"]


def test_a_failure_a_handler_raises_on_reaches_the_callers_try(tmp_path: Path) -> None:
    """A client method catches the request's error and raises one of the project's own:
    the failure is as certain as the request's, so the caller's `try` falls back; a caller
    with no `try` gets an unknown value and goes on (the server would stop there, and a
    server that lists tools does not). A `raise` of the project's that no failure led to is
    still not followed past its function."""
    server = """
    import httpx
    from fastmcp import FastMCP

    mcp = FastMCP("d")


    class ApiError(Exception):
        pass


    class Client:
        def __init__(self):
            self.http = httpx.Client(base_url="https://example.invalid")

        def get(self, path):
            try:
                return self.http.get(path).json()
            except httpx.HTTPStatusError as exc:
                raise ApiError("status") from exc
            except httpx.HTTPError as exc:
                raise ApiError("connection") from exc


    def suffix():
        try:
            return " " + Client().get("/about")["about"]
        except Exception:
            return ""


    def checked(flag):
        if flag:
            raise ApiError("no")
        return "checked"


    def label():
        try:
            return checked(True)
        except ApiError:
            return "caught"


    def late() -> str:
        return ""


    def build():
        about = Client().get("/about")  # no `try` around: unknown, and the function goes on
        mcp.tool(name="late")(late)


    build()


    @mcp.tool(name="search" + suffix())
    def search(q: str) -> str:
        return q


    @mcp.tool(name=label())
    def other(q: str) -> str:
        return q
    """
    _, found = _project_run(tmp_path, {"app/server.py": server}, {})
    assert [h.values for h in found.handlers[:2]] == [(("name", "late"),), (("name", "search"),)]
    assert "name" in found.handlers[2].unknown


def test_builtins_a_selection_is_made_with(tmp_path: Path) -> None:
    """`isinstance` of known values, `any`/`all`, set operations (with a dict's keys), and
    `getattr(sys, name, default)` of what a plain Python's `sys` has not (a frozen bundle's
    `_MEIPASS`): a selection of tools made with them is known."""
    server = """
    import sys
    from fastmcp import FastMCP

    mcp = FastMCP("d")
    GROUPS = {"read": ("get", "list"), "write": ("put",), "admin": ("drop",)}
    CHOSEN = {"read", "write", "nonsense"}


    def make(name):
        def handler(x: int) -> int:
            return x

        mcp.tool(name=name)(handler)


    unknown = CHOSEN - GROUPS.keys()
    names = sorted({n for g in CHOSEN & GROUPS.keys() for n in GROUPS[g]} | {"extra"})
    for name in names:
        if isinstance(name, str) and not isinstance(name, (int, list)):
            make(name)
    if any(n.startswith("dr") for n in names) or not all(isinstance(n, str) for n in names):
        make("never")
    if unknown == {"nonsense"} and getattr(sys, "_MEIPASS", None) is None:
        make("plain")
    if unknown != {"nonsense"} or names == ["get"] or getattr(sys, "frozen", False):
        make("never")
    if isinstance(GROUPS, dict) and isinstance(names, list) and not isinstance(GROUPS, list):
        make("typed")
    """
    _, found = _project_run(tmp_path, {"app/server.py": server}, {})
    assert _names(found) == ["extra", "get", "list", "plain", "put", "typed"]


def test_modules_a_server_discovers_in_its_folder_are_imported(tmp_path: Path) -> None:
    """A generator runs when iterated (here, whole, by `list(...)`); `pkgutil.iter_modules`
    of the project's folder lists its modules, `importlib.import_module` imports one (a
    relative name with `__package__`), and `Path.iterdir`/`glob` list the folder: the tools
    the imported modules put into a registry are registered."""
    files = {
        "app/registry.py": """
        TOOLS = []


        def tool(description):
            def decorator(func):
                TOOLS.append({"func": func, "name": func.__name__, "description": description})
                return func

            return decorator
        """,
        "app/tools/__init__.py": """
        import importlib
        import pkgutil
        from pathlib import Path


        def discover(folder, package):
            for _, name, _ in pkgutil.iter_modules([str(folder)]):
                if not name.startswith("_"):
                    importlib.import_module(f".{name}", package)
                    yield name


        FOUND = list(discover(Path(__file__).parent, __package__))
        SCRIPTS = [p.name for p in Path(__file__).parent.glob("*.py")]
        """,
        "app/tools/alpha.py": """
        from app.registry import tool


        @tool("The first.")
        def alpha(x: int) -> int:
            return x
        """,
        "app/tools/beta.py": """
        from app.registry import tool


        @tool("The second.")
        def beta(x: int) -> int:
            return x
        """,
        "app/tools/_private.py": """
        from app.registry import tool


        @tool("Never imported.")
        def hidden(x: int) -> int:
            return x
        """,
        "app/server.py": """
        from fastmcp import FastMCP

        from app.registry import TOOLS
        from app.tools import FOUND, SCRIPTS

        mcp = FastMCP("d")
        for entry in TOOLS.copy():
            mcp.tool(name=entry["name"], description=entry["description"])(entry["func"])
        ALL = ["__init__.py", "_private.py", "alpha.py", "beta.py"]
        if FOUND == ["alpha", "beta"] and SCRIPTS == ALL:
            @mcp.tool
            def listed() -> None: ...
        """,
    }
    _, found = _project_run(tmp_path, files, {})
    assert sorted(dict(h.values).get("name", h.qualname) for h in found.handlers) == [
        "alpha",
        "beta",
        "listed",
    ]


def test_enum_members_descriptors_and_container_methods(tmp_path: Path) -> None:
    """Iterating an enum class gives its members' values; a class attribute with `__get__`
    is what that gives; `set.add`, `dict.pop`/`setdefault`, `str.join`, `copy.deepcopy`,
    `Path.with_name`, and `__name__` of a `functools.wraps` wrapper are the wrapped one's."""
    server = """
    import copy
    import enum
    import functools
    import os
    from pathlib import Path

    from fastmcp import FastMCP

    mcp = FastMCP("d")


    class Kind(str, enum.Enum):
        NOTE = "note"
        TASK = "task"


    class Setting:
        def __init__(self, name, default):
            self.name, self.default = name, default

        def __get__(self, instance, owner):
            return os.environ.get(self.name, self.default)


    class Config:
        PROFILE = Setting("PROFILE", "core")


    def logged(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        return wrapper


    @logged
    def search(query: str) -> str:
        return query


    names = {"start"}
    for kind in Kind:
        names.add(f"make_{kind.value}")
    options = copy.deepcopy({"a": 1, "drop": 2})
    options.pop("drop")
    options.setdefault("b", 3)
    joined = "-".join(sorted(names))
    if Config.PROFILE == "core" and options == {"a": 1, "b": 3} and search.__name__ == "search":
        renamed = Path("/x/y.json").with_name("z.txt")
        if joined == "make_note-make_task-start" and renamed.name == "z.txt":
            mcp.tool(name=search.__name__)(search)
    """
    _, found = _project_run(tmp_path, {"app/server.py": server}, {})
    assert [dict(h.values).get("name") for h in found.handlers] == ["search"]


def test_requests_over_a_client_and_async_runners(tmp_path: Path) -> None:
    """A request through a client (`with httpx.Client() as c: c.get(...)`) raises too; the
    function `anyio.run` is given runs, with its arguments."""
    server = """
    import anyio
    import httpx
    from fastmcp import FastMCP

    mcp = FastMCP("d")


    def names():
        try:
            with httpx.Client() as client:
                return client.get("https://example.invalid").json()
        except httpx.HTTPError:
            return ["offline"]


    async def serve(prefix):
        for name in names():
            @mcp.tool(name=prefix + name)
            def handler(x: int) -> int:
                return x


    def main():
        anyio.run(serve, "tool_")


    main()
    """
    _, found = _project_run(tmp_path, {"app/server.py": server}, {})
    assert [dict(h.values).get("name") for h in found.handlers] == ["tool_offline"]


def test_a_container_changed_in_a_way_toolgen_cannot_follow_is_unknown_not_stale(
    tmp_path: Path,
) -> None:
    """`names.sort(key=...)` and `extra.update(unknown)` change them in place: toolgen does not
    compute that, so they are unknown afterwards (never read as they were before); `set()`
    is a set, and what `add`, `discard` and `clear` do is known."""
    server = """
    import os
    from fastmcp import FastMCP

    mcp = FastMCP("d")


    def make(name):
        def handler(x: int) -> int:
            return x

        mcp.tool(name=name)(handler)


    names = ["b", "a"]
    names.sort(key=len)
    extra = {"kept": 1}
    extra.update(os.environ)
    chosen = set()
    chosen.add("one")
    chosen.add("two")
    chosen.discard("two")
    gone = ["x"]
    gone.clear()
    make(names[0])
    make(extra.get("kept", "absent"))
    if chosen == {"one"} and gone == []:
        make("known")
    """
    _, found = _project_run(tmp_path, {"app/server.py": server}, {})
    # stale, they would be "b" and 1; unknown, both are one registration of an unknown name
    assert [dict(h.values).get("name") for h in found.handlers] == [None, "known"]
    assert found.handlers[0].unknown == frozenset({"name"})


def test_a_join_of_a_set_of_strings_is_unknown_sorted_it_is_known(tmp_path: Path) -> None:
    """Python salts string hashes per process: `"_".join({"a", "b"})` may be "a_b" or "b_a".
    Sorted first, it is known."""
    server = """
    from fastmcp import FastMCP

    mcp = FastMCP("d")
    PARTS = {"beta", "alpha"}


    def make(name):
        def handler(x: int) -> int:
            return x

        mcp.tool(name=name)(handler)


    make("_".join(PARTS))
    make("_".join(sorted(PARTS)))
    """
    _, found = _project_run(tmp_path, {"app/server.py": server}, {})
    assert [dict(h.values).get("name") for h in found.handlers] == [None, "alpha_beta"]


def test_a_raise_no_try_catches_leaves_its_value_unknown_and_goes_on(tmp_path: Path) -> None:
    """Opening a missing file or calling the network outside any `try`: where the server
    runs and lists tools, the file is there and the network up, so what the call gives is
    unknown and the code after it still registers (inside a `try`, the handler runs)."""
    server = """
    import json

    import httpx
    from fastmcp import FastMCP

    mcp = FastMCP("d")


    def settings():
        with open("/etc/app/settings.json") as f:
            return json.load(f)


    def main():
        config = settings()
        live = httpx.get("https://example.invalid/config").json()

        @mcp.tool(name=config.get("name", "x"))
        def configured(x: int) -> int:
            return x

        @mcp.tool
        def after(x: int) -> int:
            return x


    main()
    """
    _, found = _project_run(tmp_path, {"app/server.py": server}, {})
    by_name = {h.qualname: h for h in found.handlers}
    assert sorted(by_name) == ["main.<locals>.after", "main.<locals>.configured"]
    assert by_name["main.<locals>.configured"].unknown == frozenset({"name"})


def test_text_functions_of_the_standard_library_are_computed(tmp_path: Path) -> None:
    """`textwrap.dedent` and `inspect.cleandoc` of a known string are known, as Python
    computes them; of a string toolgen cannot know, unknown."""
    import inspect
    import textwrap

    text = r'"\n    Look a word up.\n\n      In the dictionary.\n    "'
    _, found = _run(
        tmp_path,
        {
            "app/server.py": f"""
            import inspect
            import os
            import textwrap
            from fastmcp import FastMCP

            mcp = FastMCP("d")

            @mcp.tool(description=textwrap.dedent({text}))
            def one(q: str) -> str:
                return q

            @mcp.tool(description=inspect.cleandoc({text}))
            def two(q: str) -> str:
                return q

            @mcp.tool(description=textwrap.dedent(os.environ.get("ABOUT")))
            def three(q: str) -> str:
                return q
            """
        },
    )
    raw = "\n    Look a word up.\n\n      In the dictionary.\n    "
    one, two, three = found.handlers
    assert one.values == (("description", textwrap.dedent(raw)),)
    assert two.values == (("description", inspect.cleandoc(raw)),)
    assert "description" in three.unknown


def test_init_subclass_runs_when_a_subclass_is_made(tmp_path: Path) -> None:
    """A base class whose `__init_subclass__` collects each subclass (with the class
    statement's keywords): the subclasses the project defines are collected as Python
    collects them, and the loop over the collection registers each."""
    files = {
        "app/plugins.py": """
        PLUGINS = []

        class Plugin:
            label = ""

            def __init_subclass__(cls, name="", **options):
                super().__init_subclass__(**options)
                if name:
                    cls.label = name
                    PLUGINS.append(cls)

            @staticmethod
            def handle(q: str) -> str:
                return q

        class Search(Plugin, name="search"):
            pass

        class Fetch(Plugin, name="fetch"):
            pass

        class Abstract(Plugin):
            pass
        """,
        "app/server.py": """
        from fastmcp import FastMCP
        from app.plugins import PLUGINS

        mcp = FastMCP("p")
        for plugin in PLUGINS:
            mcp.tool(name=plugin.label)(plugin.handle)
        """,
    }
    _, found = _run(tmp_path, files)
    assert [dict(h.values)["name"] for h in found.handlers] == ["search", "fetch"]


def test_a_from_import_runs_the_packages_above_the_module_first(tmp_path: Path) -> None:
    """`from app.tools.registry import TOOLS` runs `app/tools/__init__.py` before
    `registry`, as Python does: what the package's modules add to the registry is there."""
    files = {
        "app/tools/__init__.py": """
        from app.tools import ping, echo
        """,
        "app/tools/registry.py": """
        TOOLS = {}

        def add(fn):
            TOOLS[fn.__name__] = fn
            return fn
        """,
        "app/tools/ping.py": """
        from app.tools.registry import add

        @add
        def ping() -> str:
            return "pong"
        """,
        "app/tools/echo.py": """
        from app.tools.registry import add

        @add
        def echo(text: str) -> str:
            return text
        """,
        "app/server.py": """
        from fastmcp import FastMCP
        from app.tools.registry import TOOLS

        mcp = FastMCP("p")
        for name, fn in TOOLS.items():
            mcp.tool(name=name)(fn)
        """,
    }
    _, found = _run(tmp_path, files)
    assert [dict(h.values)["name"] for h in found.handlers] == ["ping", "echo"]
