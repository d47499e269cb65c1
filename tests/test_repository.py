"""The repository keeps its promises: README commands and links, CI script, checked-in output."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import Run

REPO = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    head = text.split("---", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", head)


def test_readme_starts_with_the_two_commands() -> None:
    build, tests = _readme_commands()
    assert "pip install -e ." in build and "toolgen build" in build and "toolgen check" in build
    assert 'pip install -e ".[dev]"' in tests and "python -m pytest" in tests


def test_readme_opens_with_what_install_quickstart_then_the_two_commands() -> None:
    """A newcomer's first screen: what toolgen is, install, a quickstart, then the commands."""
    head = (REPO / "README.md").read_text().split("---", 1)[0]
    title, first_paragraph = head.split("\n\n", 2)[:2]
    assert title == "# toolgen"
    assert first_paragraph.startswith("toolgen is a static schema compiler for LLM tools")
    headings = re.findall(r"^## (.+)$", head, flags=re.MULTILINE)
    assert [h.split(":")[0] for h in headings[:2]] == ["Install", "Quickstart"], headings
    build, tests = _readme_commands()
    assert head.index("## Quickstart") < head.index(build) < head.index(tests)


def test_readme_quickstart_is_what_toolgen_prints(tmp_path: Path, run) -> None:
    """The quickstart's server, run through its steps, prints its transcripts line for line."""
    text = (REPO / "README.md").read_text()
    quickstart = text[
        text.index("## Quickstart") : text.index("\n## ", text.index("## Quickstart") + 1)
    ]
    (server,) = re.findall(r"```python\n(.*?)```", quickstart, flags=re.DOTALL)
    first, after_edit = re.findall(r"```console\n(.*?)```", quickstart, flags=re.DOTALL)
    (tmp_path / "server.py").write_text(server)

    def replay(transcript: str) -> list[int]:
        codes = []
        for step in transcript.split("$ toolgen ")[1:]:
            command, _, expected = step.partition("\n")
            result: Run = run(*command.split(), cwd=tmp_path)
            assert (result.out, result.err) == (expected, ""), command
            codes.append(result.code)
        return codes

    assert replay(first) == [0, 0, 0]
    # the classification the README asks for: the suggested risk, made the tool's
    contract = tmp_path / "toolgen.contract.toml"
    suggested = '# risk = "low"'
    assert contract.read_text().count(suggested) == 1 and f"`{suggested}`" in quickstart
    contract.write_text(contract.read_text().replace(suggested, suggested.removeprefix("# ")))
    # the edit the README asks for: `hourly: bool = False,` after `units`
    units = '    units: Literal["metric", "imperial"] = "metric",\n'
    assert server.count(units) == 1 and "`hourly: bool = False,`, after `units`" in quickstart
    (tmp_path / "server.py").write_text(
        server.replace(units, units + "    hourly: bool = False,\n")
    )
    assert replay(after_edit) == [1]


def test_ci_runs_exactly_the_readme_test_command_then_check_then_the_realworld_compares() -> None:
    _, tests = _readme_commands()
    lines = [
        ln
        for ln in (REPO / ".ci" / "run").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    # `|| exit $?`: under `set -e` a failure inside an `&&` list would not stop the script
    assert f"{tests} || exit $?" in lines
    assert lines[-4:] == [
        "toolgen check",
        'python ../shared/realworld/compare.py "$(command -v toolgen)"',
        'python benchmarks/realworld/compare.py "$(command -v toolgen)" --corpus '
        "benchmarks/realworld/corpus.toml",
        'python benchmarks/frameworks/compare.py "$(command -v toolgen)"',
    ]
    assert lines.index(f"{tests} || exit $?") < lines.index("toolgen check")


def test_generated_folder_is_current(run) -> None:
    result: Run = run("check", cwd=REPO)
    assert result.code == 0, result.out
    assert "12 tools; generated is up to date" in result.out


def test_published_descriptor_schema_is_current(run) -> None:
    result: Run = run("schema", cwd=REPO)
    assert result.code == 0
    assert result.out == (REPO / "schemas" / "descriptor.schema.json").read_text(), (
        "run `toolgen schema > schemas/descriptor.schema.json`"
    )


# -- links ------------------------------------------------------------------------------------
#: A Markdown link or image `[text](target)`; the text may span lines.
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_EXTERNAL = ("http://", "https://", "mailto:")


def _markdown_files() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def _prose(text: str) -> str:
    """The text without code: fenced blocks and inline spans hold examples, not links."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"(`+).+?\1", "", text, flags=re.DOTALL)


def _anchors(path: Path) -> set[str]:
    """The fragment of each heading, as GitHub makes it (duplicates get -1, -2, ...)."""
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.MULTILINE | re.DOTALL)
    seen: dict[str, int] = {}
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+?)\s*$", text, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _links(path: Path) -> list[str]:
    return [
        target
        for target in _LINK.findall(_prose(path.read_text()))
        if not target.startswith(_EXTERNAL)
    ]


def test_anchors_are_made_as_github_makes_them() -> None:
    """Headings with code and punctuation give the fragments GitHub gives them."""
    readme = _anchors(REPO / "README.md")
    assert {"writing-tools-with-toolgens-own-tool", "values-read-statically"} <= readme


def test_every_relative_link_in_the_readme_and_docs_resolves_in_a_clone() -> None:
    """A clone has nothing beside it: every link must name a file (and heading) inside it."""
    broken = []
    for source in _markdown_files():
        where = source.relative_to(REPO)
        assert "../shared" not in source.read_text(), f"{where} points outside the repository"
        for target in _links(source):
            relpath, _, fragment = target.partition("#")
            path = (source.parent / relpath).resolve() if relpath else source
            if not path.is_relative_to(REPO) or not path.exists():
                broken.append(f"{where}: {target} (no such file in the repository)")
            elif fragment and fragment not in _anchors(path):
                broken.append(f"{where}: {target} (no such heading)")
    assert broken == []


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(REPO / target.partition("#")[0]).resolve() for target in _links(REPO / "README.md")}
    pages = sorted((REPO / "docs").glob("*.md"))
    assert len(pages) >= 5
    assert [p.name for p in pages if p.resolve() not in linked] == []
