"""The canonical tool descriptor: one per tool, the single source every renderer reads.

`ToolDescriptor.model_json_schema()` is the published schema of the descriptor format
(`toolgen schema` prints it). Descriptors are dumped with `exclude_unset`, so what the compiler
did not set stays out of the JSON, while the seven required blocks are always present.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from toolgen.names import DESCRIPTOR_NAME

#: A descriptor's name: one at least one platform accepts that can name its file
#: (`toolgen.names`; the compiler checks it against the configured platforms).
NAME_PATTERN = rf"^{DESCRIPTOR_NAME}$"
SEMVER_PATTERN = (
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$"
)

Risk = Literal["low", "medium", "high", "critical", "forbidden"]

#: What each risk level implies when the handler does not say: (autonomous, confirmation).
RISK_DEFAULTS: dict[str, tuple[bool, bool]] = {
    "low": (True, False),
    "medium": (True, False),
    "high": (False, True),  # never silently (reference/runtime.md)
    "critical": (False, True),
    "forbidden": (False, True),
}
DEFAULT_RISK: Risk = "medium"


#: Where a contract value comes from, highest first (DESIGN §3, "The contract for tools
#: toolgen did not write"): the project's contract table, a `@tool(...)` (stacked on a
#: framework's decorator, or alone), the framework's own arguments and annotations, the
#: docstring's sections.
Layer = Literal["contract", "decorator", "framework", "docstring"]
LAYERS: tuple[Layer, ...] = ("contract", "decorator", "framework", "docstring")


class Taxonomy(NamedTuple):
    """What an error code means by default: its HTTP status, whether a retry may help, the
    recovery a caller should try, and whether a person must decide (the runtime's own codes)."""

    http_status: int
    retryable: bool
    recovery: str | None
    human_review: bool = False


#: The standard error taxonomy (DESIGN §3): what a declared code of these names defaults to in
#: a descriptor's `errors`, and what the runtime answers with for them. Every code has a
#: recovery: DESIGN's text where it gives one, else one in its style that says what the
#: status means to a caller (reference/runtime.md: 403 is a permission the caller lacks).
STANDARD_ERRORS: dict[str, Taxonomy] = {
    "VALIDATION_ERROR": Taxonomy(400, False, "re-prompt with corrected arguments"),
    "UNAUTHORIZED": Taxonomy(401, False, "ask the user to authenticate, then retry"),
    "FORBIDDEN": Taxonomy(403, False, "do not retry as is; ask the user to grant access"),
    "NOT_FOUND": Taxonomy(404, False, "check the name or id, or look it up first"),
    "CONFLICT": Taxonomy(409, False, "read the current state, then retry with updated arguments"),
    "RATE_LIMITED": Taxonomy(429, True, "back off using Retry-After"),
    "INTERNAL": Taxonomy(500, True, "exponential backoff, max 3 attempts"),
    "UNAVAILABLE": Taxonomy(503, True, "retry with exponential backoff, honouring Retry-After"),
    "TIMEOUT": Taxonomy(504, True, "single retry, then abort"),
}

#: `step_up_auth` as a condition: the text the run time's `step_up` callback receives.
StepUpCondition = Annotated[str, Field(min_length=1, pattern=r"\S")]


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Returns(_Block):
    description: str | None = None
    schema_: dict[str, Any] = Field(alias="schema", description="JSON Schema of the result.")


class ErrorSpec(_Block):
    code: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    description: str
    http_status: int = Field(ge=100, le=599)
    retryable: bool
    recovery: str | None = None


class Idempotency(_Block):
    idempotent: bool | None = None
    safe: bool | None = Field(None, description="Read-only: changes nothing.")
    destructive: bool | None = None
    open_world: bool | None = None


class Example(_Block):
    prompt: str | None = Field(None, description="What a user says that this call answers.")
    arguments: dict[str, Any]
    result: Any = None
    error: dict[str, Any] | None = None
    notes: str | None = Field(
        None, description="One sentence on what the example shows that its call does not."
    )


class RateLimits(_Block):
    requests_per_minute: int | None = Field(None, ge=1)
    burst: int | None = Field(None, ge=1)
    scope: str | None = None


class Source(_Block):
    module: str
    qualname: str
    marker: str | None = Field(None, description="The framework preset that marked the handler.")


class FrameworkTool(_Block):
    """What the framework that marked a handler sends for it itself, by that framework's own
    rules at its version: over MCP (`toolgen.analyze.publication`), or to OpenAI's Chat
    Completions (LangChain's, pydantic-ai's: `toolgen.analyze.framework_openai`).
    That platform's payload sends it as it is."""

    name: Literal["fastmcp", "mcp", "langchain", "pydantic-ai", "openai-agents"] = Field(
        description="fastmcp, mcp (the official SDK), langchain, pydantic-ai or openai-agents."
    )
    version: str = Field(description="The version whose rules made it (installed or configured).")
    mcp: dict[str, Any] | None = Field(
        None, description="The tool as the framework lists it (tools/list)."
    )
    openai: dict[str, Any] | None = Field(
        None, description="The `function` of the tool the framework sends to Chat Completions."
    )


class ToolDescriptor(_Block):
    """A tool contract: what a model sees, and what a caller may rely on."""

    name: str = Field(pattern=NAME_PATTERN)
    title: str | None = None
    description: str = Field(min_length=1)
    parameters: dict[str, Any]
    returns: Returns
    errors: list[ErrorSpec]
    idempotency: Idempotency
    examples: list[Example]
    version: str | None = Field(None, pattern=SEMVER_PATTERN)
    deprecated: bool = False
    replacement: str | None = None
    rate_limits: RateLimits | None = None
    auth: Literal["none", "api_key", "oauth", "mcp_session"] | None = None
    latency_p50_ms: int | None = Field(None, ge=0)
    cost_hint: Literal["free", "cheap", "metered", "expensive"] | None = None
    open_world: bool | None = None
    tool_search_keywords: list[str] | None = None
    category: str | None = None
    risk: Risk = DEFAULT_RISK
    autonomous: bool = True
    confirmation: bool = False
    step_up_auth: bool | StepUpCondition = Field(
        False,
        description="Re-authentication before the call: always (true), or the condition under "
        'which it is required ("when more than 10 recipients").',
    )
    permissions: list[str] | None = None
    side_effects: list[str] | None = None
    audit_event: str | None = None
    dry_run: Literal["supported", "required"] | None = None
    confirmation_reason: str | None = Field(
        None,
        min_length=1,
        pattern=r"\S",
        description="Why a destructive tool runs without a person's confirmation "
        "(`confirmation=False` with `reason=`); without it a destructive tool is confirmed.",
    )
    origins: dict[str, Layer] | None = Field(
        None,
        description="The layer each contract value a layer states comes from (contract, "
        "decorator, framework, docstring); the idempotency hints as `idempotency.<hint>`, "
        "errors as `errors.<CODE>`.",
    )
    conformance_level: int = Field(
        0, ge=0, le=3, description="The highest conformance level the contract meets (0-3)."
    )
    source: Source
    framework: FrameworkTool | None = None

    @field_validator("step_up_auth", mode="before")
    @classmethod
    def _step_up(cls, value: Any) -> Any:
        # checked before the union so that 1 or "" get one clear message, not one per member
        if isinstance(value, bool) or (isinstance(value, str) and value.strip()):
            return value
        shown = "an empty text" if isinstance(value, str) else f"`{type(value).__name__}`"
        raise PydanticCustomError(
            "step_up_auth",
            "must be True, False or the condition as text "
            '(e.g. "when more than 10 recipients"), not {shown}',
            {"shown": shown},
        )

    @property
    def visible(self) -> bool:
        """Forbidden tools keep their descriptor (for audit) but reach no platform payload."""
        return self.risk != "forbidden"

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


def descriptor_json_schema() -> dict[str, Any]:
    return ToolDescriptor.model_json_schema(by_alias=True)
