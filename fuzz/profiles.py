"""Profiles: which rule set judges the answers, and what each case kind must get.

`sep-2145` (the default) is the accepted proposal. `2025-11-25` is the published MCP revision,
where an unknown tool is still a protocol error, input validation failures are tool execution
errors (SEP-1303), and structured results MUST conform to `outputSchema`. The same server can be
compliant under one and not the other; the report always names the profile.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from fuzz import rules
from fuzz.answers import AnswerClass
from fuzz.rules import Level, Rule
from strategies import CaseKind

A = AnswerClass


@dataclass(frozen=True, slots=True)
class Expectation:
    """What a case kind must get: in words, and which rule each wrong answer class violates."""

    expected: str
    violations: Mapping[AnswerClass, str]


@dataclass(frozen=True, slots=True)
class Profile:
    id: str
    title: str
    rules: Mapping[str, Rule]
    expectations: Mapping[CaseKind, Expectation]

    def rule(self, rule_id: str) -> Rule:
        return self.rules[rule_id]


_TOOL_ERROR = "a tool execution error (a result with isError: true)"
_ANY_RESULT = "a result (a success, or a tool execution error if the tool failed)"
_RESULT_CLASSES = (A.SUCCESS, A.TOOL_EXECUTION_ERROR, A.INVALID_RESULT)


def _all(answer_classes: tuple[AnswerClass, ...], rule: Rule) -> dict[AnswerClass, str]:
    return {answer: rule.id for answer in answer_classes}


_SEP_2145_EXPECTATIONS: dict[CaseKind, Expectation] = {
    CaseKind.UNKNOWN_TOOL: Expectation(_TOOL_ERROR, {A.SUCCESS: "unknown-tool", A.PROTOCOL_ERROR: "unknown-tool"}),
    CaseKind.VALID_ARGUMENTS: Expectation(_ANY_RESULT, {A.PROTOCOL_ERROR: "tool-failure"}),
    CaseKind.INVALID_ARGUMENTS: Expectation(
        _TOOL_ERROR, {A.PROTOCOL_ERROR: "invalid-arguments", A.SUCCESS: "arguments-not-validated"}
    ),
    CaseKind.MALFORMED_REQUEST: Expectation("a JSON-RPC error with code -32602", _all(_RESULT_CLASSES, rules.MALFORMED_REQUEST)),
    CaseKind.UNAVAILABLE_TOOL: Expectation(
        _TOOL_ERROR, {A.SUCCESS: "unavailable-tool", A.PROTOCOL_ERROR: "unavailable-tool"}
    ),
    CaseKind.VALID_OUTPUT: Expectation(
        "a success carrying the same structuredContent",
        {A.PROTOCOL_ERROR: "tool-failure", A.TOOL_EXECUTION_ERROR: "output-schema"},
    ),
    CaseKind.INVALID_OUTPUT: Expectation(_TOOL_ERROR, {A.SUCCESS: "output-schema", A.PROTOCOL_ERROR: "output-schema"}),
}

SEP_2145 = Profile(
    id="sep-2145",
    title="SEP-2145 (accepted proposal): every tool-invocation failure is a tool execution error",
    rules={rule.id: rule for rule in rules.RULES},
    expectations=_SEP_2145_EXPECTATIONS,
)

_REVISION = "MCP 2025-11-25, server/tools, Error Handling"

REVISION_2025_11_25 = Profile(
    id="2025-11-25",
    title="MCP 2025-11-25 (published revision): unknown tools are protocol errors",
    rules={
        **SEP_2145.rules,
        "unknown-tool": replace(
            rules.UNKNOWN_TOOL,
            title="a call naming no listed tool gets a JSON-RPC error",
            source=f"{_REVISION}: Protocol Errors: standard JSON-RPC errors for issues like unknown "
            "tools (example: -32602 \"Unknown tool: invalid_tool_name\").",
        ),
        "unavailable-tool": replace(
            rules.UNAVAILABLE_TOOL,
            title="a call to a tool the server must refuse (--unavailable) is refused",
            source=f"{_REVISION} does not classify unavailable tools: a refusal of either kind "
            "(protocol error or tool execution error) is accepted; running the tool is not.",
        ),
        "output-schema": replace(
            rules.OUTPUT_SCHEMA,
            level=Level.MUST,
            title="structured results conform to the outputSchema",
            source="MCP 2025-11-25, server/tools, Output Schema: if an output schema is provided, "
            "servers MUST provide structured results that conform to this schema.",
        ),
    },
    expectations={
        **_SEP_2145_EXPECTATIONS,
        CaseKind.UNKNOWN_TOOL: Expectation(
            "a JSON-RPC error (-32602)", {A.SUCCESS: "unknown-tool", A.TOOL_EXECUTION_ERROR: "unknown-tool"}
        ),
        CaseKind.UNAVAILABLE_TOOL: Expectation("a refusal (a JSON-RPC error or a tool execution error)", {A.SUCCESS: "unavailable-tool"}),
        CaseKind.INVALID_OUTPUT: Expectation(
            "a refusal (a tool execution error, or a JSON-RPC server error)", {A.SUCCESS: "output-schema"}
        ),
    },
)



PROFILES: dict[str, Profile] = {profile.id: profile for profile in (SEP_2145, REVISION_2025_11_25)}
