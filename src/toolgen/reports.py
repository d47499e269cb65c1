"""The JSON reports of `--format json`, as models: their JSON Schemas are published in
`schemas/` (`toolgen schema REPORT` prints one), so that CI scripts can rely on their shape.

The commands print these reports from plain dicts (`toolgen.report_format`; no pydantic on
the quick path); tests validate real reports against these schemas, which forbid unknown keys.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

LevelName = Literal["error", "warning", "info"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DiagnosticRow(_Strict):
    """One diagnostic (`Diagnostic.to_dict`): where it is, when it has a place."""

    code: str = Field(pattern=r"^TG\d{3}$", description="the rule's stable code")
    level: LevelName
    message: str = Field(description="as found; the text format puts it on one line")
    path: str | None = Field(description="relative to the working folder when inside it")
    line: int | None = Field(ge=1)
    col: int | None = Field(ge=1)


class FatalReport(_Strict):
    """What a run that could not look at the project prints (exit 2): a config, command-line
    or git problem, a file that cannot be written."""

    diagnostics: list[DiagnosticRow]


class Drift(_Strict):
    """Generated files that differ from what a build would write, as paths from the working
    folder (`generated/openai/responses.json`)."""

    missing: list[str]
    changed: list[str]
    stale: list[str] = Field(
        description="files the previous manifest lists that a build would remove (it removes "
        "only files toolgen wrote and nobody changed since)"
    )
    interrupted: bool = Field(
        description="the last build was stopped after its commit: a build completes it (the "
        "lists are then empty)"
    )


class CheckReport(_Strict):
    """`toolgen check --format json`."""

    diagnostics: list[DiagnosticRow] = Field(
        description="the handlers' problems, with `--against` and `--verify-runtime` findings"
    )
    tools: int = Field(ge=0)
    drift: Drift
    fail_on: LevelName = Field(description="the `--fail-on` level")
    failing: dict[LevelName, int] = Field(
        description="how many diagnostics of each level at or above `fail_on` (none: passes)"
    )


class LeftOut(_Strict):
    """A handler a build left out of the catalogs for its errors (they are in `diagnostics`),
    or for a name another handler has."""

    name: str = Field(description="the tool name it would have had")
    path: str = Field(description="its file, relative to the working folder when inside it")
    line: int = Field(ge=1)
    col: int = Field(ge=1)


class BuildReport(_Strict):
    """`toolgen build --format json`."""

    diagnostics: list[DiagnosticRow]
    tools: int = Field(ge=0)
    written: list[str] = Field(description="files written, relative to `out`")
    removed: list[str] = Field(description="stale files removed, relative to `out`")
    completed: int = Field(
        ge=0, description="files moved or removed to complete an interrupted build first"
    )
    left_out: list[LeftOut] = Field(
        description="handlers left out for their errors; every other tool was written"
    )


#: Each published report schema: its name (`toolgen schema NAME`) and the report of a run
#: that went through, or of one that stopped (exit 2).
REPORTS: dict[str, type[BaseModel]] = {"check-report": CheckReport, "build-report": BuildReport}


def report_json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of report `name`: the command's report, or `FatalReport`."""
    model = REPORTS[name]
    schema = model.model_json_schema()
    fatal = FatalReport.model_json_schema()
    defs = {**schema.pop("$defs", {}), **fatal.pop("$defs", {})}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": schema["title"],
        "description": schema.get("description", ""),
        "oneOf": [
            {k: v for k, v in schema.items() if k not in ("title", "description")},
            {"$ref": "#/$defs/FatalReport"},
        ],
        "$defs": {**defs, "FatalReport": fatal},
    }
