"""Evidence that shows the rule (issue 35): an envelope case's call carries arguments the tool
takes, so that its answer shows whether the call ran; a hint is given only where it applies."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings

from fuzz.judging.coverage import tool_hint
from fuzz.judging.findings import ToolSummary
from strategies import Case, CaseKind, Tool
from strategies.cases import STATELESS_KINDS, canonical_cases, cases, plain_arguments
from strategies.meta import PROTOCOL_VERSION_KEY, Stateless

BOOK = Tool(
    "book",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 2},
            "nights": {"type": "integer", "minimum": 1, "maximum": 30},
            "kind": {"enum": ["single", "double"]},
            "note": {"type": "string"},
        },
        "required": ["city", "nights", "kind"],
        "additionalProperties": False,
    },
)
RESET = Tool("reset", {"type": "object"})
STATELESS = Stateless("2026-07-28", {PROTOCOL_VERSION_KEY: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}, ("2026-07-28",), over_http=True)


def _arguments(case: Case) -> Any:
    return case.params["arguments"]


def test_plain_arguments_are_found_without_a_search_where_the_schema_allows() -> None:
    assert plain_arguments(BOOK) == {"city": "aa", "nights": 1, "kind": "single"}
    assert plain_arguments(RESET) == {}
    assert plain_arguments(Tool("odd", {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 7, "minimum": 1}}, "required": ["n"]})) is None


def test_the_canonical_envelope_cases_carry_arguments_the_tool_takes() -> None:
    for kind in STATELESS_KINDS:
        made = canonical_cases(BOOK, kind, ["book"], STATELESS)
        assert made, kind
        assert all(_arguments(case) == {"city": "aa", "nights": 1, "kind": "single"} for case in made), kind
    hard = Tool("odd", {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 7, "minimum": 1}}, "required": ["n"]})
    assert all(canonical_cases(hard, kind, ["odd"], STATELESS) == [] for kind in STATELESS_KINDS), (
        "no canonical case with arguments the tool refuses: the search's calls carry valid ones"
    )


@settings(max_examples=30, suppress_health_check=list(HealthCheck), deadline=None, database=None)
@given(
    cases(BOOK, CaseKind.UNSUPPORTED_VERSION, ["book"], stateless=STATELESS),
    cases(BOOK, CaseKind.MALFORMED_META, ["book"], stateless=STATELESS),
    cases(BOOK, CaseKind.HEADER_MISMATCH, ["book"], stateless=STATELESS),
)
def test_the_searched_envelope_cases_carry_valid_arguments(unsupported: Case, malformed: Case, mismatch: Case) -> None:
    for case in (unsupported, malformed, mismatch):
        assert BOOK.input_check.accepts_strictly(_arguments(case)), case
    assert unsupported.params["_meta"][PROTOCOL_VERSION_KEY] != "2026-07-28"


@settings(max_examples=10, suppress_health_check=list(HealthCheck), deadline=None, database=None)
@given(cases(BOOK, CaseKind.UNSUPPORTED_VERSION, ["book"], accepted=[{"city": "Oslo", "nights": 2, "kind": "double"}], stateless=STATELESS))
def test_the_arguments_the_server_took_are_used_when_known(case: Case) -> None:
    assert _arguments(case) == {"city": "Oslo", "nights": 2, "kind": "double"}


def _refused_everywhere(tool: str, takes_arguments: bool) -> ToolSummary:
    return ToolSummary(tool, {CaseKind.VALID_ARGUMENTS: 10}, (), answers={CaseKind.VALID_ARGUMENTS: {"tool-error": 10}}, takes_arguments=takes_arguments)


def test_no_argument_hint_for_a_tool_that_takes_no_arguments() -> None:
    assert not RESET.takes_arguments and BOOK.takes_arguments
    assert tool_hint(_refused_everywhere("reset", takes_arguments=False)) is None
    hint = tool_hint(_refused_everywhere("book", takes_arguments=True))
    assert hint is not None and "--argument book.FIELD=VALUE" in hint
