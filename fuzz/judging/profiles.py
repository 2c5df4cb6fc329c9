"""Profiles: which rule set judges the answers, and what each case kind must get.

`sep-2145`, the default, is the accepted proposal, the same under every revision.

`published` is what the spoken revision's own text says.
`resolve` builds it for each revision; its old name `2025-11-25` is an alias.
The published texts differ from the proposal, and from each other.

An unknown tool is a protocol error in every published revision, 2026-07-28 included.
Invalid arguments are a tool execution error from 2025-11-25 on (SEP-1303).
Up to 2025-06-18 the text lists them under both kinds of error, so either refusal passes.
Structured results MUST conform to `outputSchema` from 2025-06-18 on.
There is no `outputSchema` before.
Tool names are judged from 2025-11-25 on.
No earlier revision says what a name should be.
`sep-2145` judges them under every revision, as it does everything it checks.

The same server can be compliant under one profile and not the other.
The report names the profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache

from fuzz.judging import rules
from fuzz.judging.answers import AnswerClass
from fuzz.judging.rules import Level, Rule
from strategies import CaseKind

A = AnswerClass


@dataclass(frozen=True, slots=True)
class Expectation:
    """What a case kind must get, in words, and which rule each wrong answer violates.

    The wrong answers are given by answer class."""

    expected: str
    violations: Mapping[AnswerClass, Rule]
    asked_again: bool = False
    """Whether a result asking for input again is a right answer, not a success."""

    def violated_by(self, answer: AnswerClass) -> Rule | None:
        """The rule `answer` violates, or None.

        A result asking for more input counts as a success, unless `asked_again`."""
        if answer is A.INPUT_REQUIRED and self.asked_again:
            return None
        if answer is A.INPUT_REQUIRED and answer not in self.violations:
            answer = A.SUCCESS
        return self.violations.get(answer)


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
_RESULT_CLASSES = (A.SUCCESS, A.TOOL_EXECUTION_ERROR, A.INPUT_REQUIRED, A.INVALID_RESULT)


def _all(answer_classes: tuple[AnswerClass, ...], rule: Rule) -> dict[AnswerClass, Rule]:
    return dict.fromkeys(answer_classes, rule)


_SEP_2145_EXPECTATIONS: dict[CaseKind, Expectation] = {
    CaseKind.UNKNOWN_TOOL: Expectation(_TOOL_ERROR, {A.SUCCESS: rules.UNKNOWN_TOOL, A.PROTOCOL_ERROR: rules.UNKNOWN_TOOL}),
    CaseKind.VALID_ARGUMENTS: Expectation(_ANY_RESULT, {A.PROTOCOL_ERROR: rules.TOOL_FAILURE}),
    CaseKind.INVALID_ARGUMENTS: Expectation(_TOOL_ERROR, {A.PROTOCOL_ERROR: rules.INVALID_ARGUMENTS, A.SUCCESS: rules.ARGUMENTS_NOT_VALIDATED}),
    CaseKind.MALFORMED_REQUEST: Expectation("a JSON-RPC error with code -32602", _all(_RESULT_CLASSES, rules.MALFORMED_REQUEST)),
    CaseKind.UNAVAILABLE_TOOL: Expectation(_TOOL_ERROR, {A.SUCCESS: rules.UNAVAILABLE_TOOL, A.PROTOCOL_ERROR: rules.UNAVAILABLE_TOOL}),
    CaseKind.VALID_OUTPUT: Expectation(
        "a success carrying the same structuredContent",
        {A.PROTOCOL_ERROR: rules.TOOL_FAILURE, A.TOOL_EXECUTION_ERROR: rules.OUTPUT_SCHEMA},
    ),
    CaseKind.INVALID_OUTPUT: Expectation(_TOOL_ERROR, {A.SUCCESS: rules.OUTPUT_SCHEMA, A.PROTOCOL_ERROR: rules.OUTPUT_SCHEMA}),
    CaseKind.MALFORMED_META: Expectation("a JSON-RPC error with code -32602 (over HTTP, status 400)", _all(_RESULT_CLASSES, rules.MALFORMED_META)),
    CaseKind.UNSUPPORTED_VERSION: Expectation(
        "a JSON-RPC error -32022 whose data lists the supported revisions and the one requested (over HTTP, status 400)",
        _all(_RESULT_CLASSES, rules.UNSUPPORTED_VERSION),
    ),
    CaseKind.HEADER_MISMATCH: Expectation("a JSON-RPC error -32020 with HTTP status 400", _all(_RESULT_CLASSES, rules.HEADER_MISMATCH)),
    CaseKind.INVALID_INPUT_RESPONSE: Expectation(
        "a JSON-RPC error, or the input asked for again (resultType input_required)",
        _all((A.SUCCESS, A.TOOL_EXECUTION_ERROR), rules.INPUT_RESPONSES_VALIDATED),
        asked_again=True,
    ),
    CaseKind.CALL_WITHOUT_TASK: Expectation("a JSON-RPC error -32601 (Method not found)", _all(_RESULT_CLASSES, rules.TASK_REQUIRED)),
    CaseKind.TASK_FOR_FORBIDDEN: Expectation("a JSON-RPC error -32601 (Method not found)", _all(_RESULT_CLASSES, rules.TASK_FORBIDDEN)),
}

SEP_2145 = Profile(
    id="sep-2145",
    title="SEP-2145 (accepted proposal): every tool-invocation failure is a tool execution error",
    rules={rule.id: rule for rule in rules.RULES},
    expectations=_SEP_2145_EXPECTATIONS,
)

_NO_OUTPUT_SCHEMA = ("2024-11-05", "2025-03-26")
BOTH_REFUSALS = ("2024-11-05", "2025-03-26", "2025-06-18")
"""Revisions that list invalid arguments under both kinds of error.

They list invalid arguments under protocol errors.
They list invalid input data under tool execution errors."""
_PUBLISHED_DEFAULT = "2025-11-25"
_WITHOUT_TOOL_NAMES = ("2024-11-05", "2025-03-26", "2025-06-18")
"""Revisions without the Tool Names section of server/tools.

The tool-name rule is not theirs."""


@cache
def published(version: str) -> Profile:
    """The rules as revision `version`'s own text states them.

    An unknown revision is taken as 2025-11-25."""
    if version not in (*BOTH_REFUSALS, "2025-11-25", "2026-07-28"):
        version = _PUBLISHED_DEFAULT
    where = f"MCP {version}, server/tools, Error Handling"
    changed = {
        rules.UNKNOWN_TOOL.id: replace(
            rules.UNKNOWN_TOOL,
            title="a call naming no listed tool gets a JSON-RPC error",
            source=f'{where}: Protocol Errors: standard JSON-RPC errors for issues like unknown tools (example: -32602 "Unknown tool: invalid_tool_name").',
        ),
        rules.UNAVAILABLE_TOOL.id: replace(
            rules.UNAVAILABLE_TOOL,
            title="a call to a tool the server must refuse (--unavailable) is refused",
            source=f"{where} does not classify unavailable tools: a refusal of either kind "
            "(protocol error or tool execution error) is accepted; running the tool is not.",
        ),
    }
    expectations = {
        **_SEP_2145_EXPECTATIONS,
        CaseKind.UNKNOWN_TOOL: Expectation("a JSON-RPC error (-32602)", {A.SUCCESS: rules.UNKNOWN_TOOL, A.TOOL_EXECUTION_ERROR: rules.UNKNOWN_TOOL}),
        CaseKind.UNAVAILABLE_TOOL: Expectation("a refusal (a JSON-RPC error or a tool execution error)", {A.SUCCESS: rules.UNAVAILABLE_TOOL}),
        CaseKind.INVALID_OUTPUT: Expectation("a refusal (a tool execution error, or a JSON-RPC server error)", {A.SUCCESS: rules.OUTPUT_SCHEMA}),
    }
    if version in BOTH_REFUSALS:
        changed[rules.INVALID_ARGUMENTS.id] = replace(
            rules.INVALID_ARGUMENTS,
            title="arguments that violate the inputSchema are refused (either kind of error)",
            source=f"{where} lists invalid arguments under Protocol Errors and invalid input data under Tool "
            "Execution Errors: a refusal of either kind is accepted.",
        )
        expectations[CaseKind.INVALID_ARGUMENTS] = Expectation(
            "a refusal (a JSON-RPC error or a tool execution error)", {A.SUCCESS: rules.ARGUMENTS_NOT_VALIDATED}
        )
    else:
        changed[rules.INVALID_ARGUMENTS.id] = replace(
            rules.INVALID_ARGUMENTS,
            source=f"{where}: Tool Execution Errors ... are reported in tool results with isError: true: "
            "input validation errors (e.g., date in wrong format, value out of range).",
        )
    if version not in _NO_OUTPUT_SCHEMA:
        changed[rules.OUTPUT_SCHEMA.id] = replace(
            rules.OUTPUT_SCHEMA,
            level=Level.MUST,
            title="structured results conform to the outputSchema",
            source=f"MCP {version}, server/tools, Output Schema: if an output schema is provided, "
            "servers MUST provide structured results that conform to this schema.",
        )
    stated = {**SEP_2145.rules, **changed}
    if version in _WITHOUT_TOOL_NAMES:
        del stated[rules.TOOL_NAME.id]
    return Profile(
        id=PUBLISHED_ID,
        title=f"MCP {version} (the revision's own text): unknown tools are protocol errors",
        rules=stated,
        expectations=expectations,
    )


PUBLISHED_ID = "published"
ALIASES = {"2025-11-25": PUBLISHED_ID}
"""Old profile names, still accepted, and recorded as given."""

PROFILES: dict[str, Profile] = {SEP_2145.id: SEP_2145, PUBLISHED_ID: published(_PUBLISHED_DEFAULT), "2025-11-25": published(_PUBLISHED_DEFAULT)}
"""Every profile name, each with its rules as the default revision states them.

The default revision is 2025-11-25.
`resolve` gives the rules as the spoken revision states them."""


def resolve(profile_id: str, protocol_version: str | None) -> Profile:
    """Profile `profile_id` as it judges under `protocol_version`.

    `protocol_version` None means the default revision."""
    if ALIASES.get(profile_id, profile_id) == PUBLISHED_ID:
        return published(protocol_version or _PUBLISHED_DEFAULT)
    return PROFILES[profile_id]
