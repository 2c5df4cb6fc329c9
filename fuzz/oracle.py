"""The oracle: what kind of answer came back, and which rule (if any) that violates for the case.

Classification reads only the JSON-RPC envelope and the `CallToolResult` shape. The text inside
a tool execution error is never read as a protocol error: some SDKs write "MCP error -32602: ..."
inside an `isError` result, and that is a compliant answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

from fuzz import rules
from fuzz.jsonrpc import INVALID_PARAMS, JSONRPC_VERSION
from fuzz.rules import Rule
from fuzz.session import Answered, AnomalyKind, Exchange, NoAnswer, TargetExited
from fuzz.wire import call_tool_result_problem, error_object_problem
from strategies import Case, CaseKind


class AnswerClass(Enum):
    SUCCESS = "a successful tool result"
    TOOL_EXECUTION_ERROR = "a tool execution error (a result with isError: true)"
    PROTOCOL_ERROR = "a JSON-RPC error"
    INVALID_RESULT = "a result that is not a CallToolResult"
    MALFORMED_ANSWER = "an answer that is not a JSON-RPC 2.0 response"
    NO_ANSWER = "no answer"
    TARGET_EXITED = "the target exiting"


@dataclass(frozen=True, slots=True)
class Observation:
    answer: AnswerClass
    detail: str
    """What exactly came back, in words: `JSON-RPC error -32603 "Internal error"`."""
    error_code: int | None = None


def observe(exchange: Exchange) -> Observation:
    reply = exchange.reply
    if isinstance(reply, TargetExited):
        return Observation(AnswerClass.TARGET_EXITED, f"the target exited with code {reply.returncode}")
    if isinstance(reply, NoAnswer):
        return Observation(AnswerClass.NO_ANSWER, f"no answer within {reply.timeout:g} s")
    assert isinstance(reply, Answered)
    return _observe_message(reply.message)


def _observe_message(message: dict[str, Any]) -> Observation:
    if message.get("jsonrpc") != JSONRPC_VERSION:
        return Observation(AnswerClass.MALFORMED_ANSWER, f"jsonrpc is {message.get('jsonrpc')!r:.40}, not \"2.0\"")
    if ("result" in message) == ("error" in message):
        return Observation(AnswerClass.MALFORMED_ANSWER, "the answer must carry exactly one of result and error")
    if "error" in message:
        problem = error_object_problem(message["error"])
        if problem is not None:
            return Observation(AnswerClass.MALFORMED_ANSWER, problem)
        code = message["error"]["code"]
        return Observation(
            AnswerClass.PROTOCOL_ERROR, f"JSON-RPC error {code} {_quote(message['error']['message'])}", error_code=code
        )
    result = message["result"]
    problem = call_tool_result_problem(result)
    if problem is not None:
        return Observation(AnswerClass.INVALID_RESULT, problem)
    if result.get("isError") is True:
        return Observation(AnswerClass.TOOL_EXECUTION_ERROR, f"a tool execution error {_quote(_first_text(result))}")
    return Observation(AnswerClass.SUCCESS, f"a successful result {_quote(_first_text(result))}")


@dataclass(frozen=True, slots=True)
class Violation:
    rule: Rule
    observation: Observation
    expected: str
    why: str
    """What was wrong, in a sentence that names the answer."""


_EXPECTED = {
    CaseKind.UNKNOWN_TOOL: "a tool execution error (a result with isError: true)",
    CaseKind.VALID_ARGUMENTS: "a result (a success, or a tool execution error if the tool failed)",
    CaseKind.INVALID_ARGUMENTS: "a tool execution error (a result with isError: true)",
    CaseKind.MALFORMED_REQUEST: f"a JSON-RPC error with code {INVALID_PARAMS}",
}

_BY_CASE: dict[CaseKind, dict[AnswerClass, Rule]] = {
    CaseKind.UNKNOWN_TOOL: {
        AnswerClass.SUCCESS: rules.UNKNOWN_TOOL,
        AnswerClass.PROTOCOL_ERROR: rules.UNKNOWN_TOOL,
    },
    CaseKind.VALID_ARGUMENTS: {AnswerClass.PROTOCOL_ERROR: rules.TOOL_FAILURE},
    CaseKind.INVALID_ARGUMENTS: {
        AnswerClass.PROTOCOL_ERROR: rules.INVALID_ARGUMENTS,
        AnswerClass.SUCCESS: rules.ARGUMENTS_NOT_VALIDATED,
    },
    CaseKind.MALFORMED_REQUEST: {
        AnswerClass.SUCCESS: rules.MALFORMED_REQUEST,
        AnswerClass.TOOL_EXECUTION_ERROR: rules.MALFORMED_REQUEST,
        AnswerClass.INVALID_RESULT: rules.MALFORMED_REQUEST,
    },
}


def judge(case: Case, exchange: Exchange, *, answers_ping: bool = True) -> Violation | None:
    """The one rule this exchange violates (the most fundamental, when several are), or None.

    `answers_ping` is whether the target answered a `ping` after this exchange; the engine asks
    only when the request itself went unanswered.
    """
    observation = observe(exchange)
    expected = _EXPECTED[case.kind]
    answer = observation.answer

    def violation(rule: Rule, why: str) -> Violation:
        return Violation(rule, observation, expected, why)

    if answer is AnswerClass.TARGET_EXITED:
        return violation(rules.TARGET_ALIVE, f"the target exited (code {exchange.reply.returncode}) on this request")  # type: ignore[union-attr]
    wrong_ids = [a for a in exchange.anomalies if a.kind in (AnomalyKind.STRAY_ANSWER, AnomalyKind.DUPLICATE_ANSWER)]
    if wrong_ids:
        return violation(rules.RESPONSE_WELL_FORMED, f"{wrong_ids[0].kind.value} came while this request was in flight: {wrong_ids[0].text}")
    if answer is AnswerClass.NO_ANSWER:
        garbage = [a for a in exchange.anomalies if a.kind is AnomalyKind.GARBAGE]
        if garbage:
            return violation(rules.RESPONSE_WELL_FORMED, f"instead of an answer, stdout carried {garbage[0].text}")
        if not answers_ping:
            return violation(rules.TARGET_ALIVE, f"{observation.detail}, and the target then stopped answering ping")
        return violation(rules.REQUEST_ANSWERED, observation.detail)
    if answer is AnswerClass.MALFORMED_ANSWER:
        return violation(rules.RESPONSE_WELL_FORMED, observation.detail)
    rule = _BY_CASE[case.kind].get(answer)
    if rule is None and case.kind is CaseKind.MALFORMED_REQUEST and observation.error_code != INVALID_PARAMS:
        rule = rules.MALFORMED_REQUEST_CODE
    if rule is None and answer is AnswerClass.INVALID_RESULT:
        rule = rules.RESPONSE_WELL_FORMED
    if rule is None:
        return None
    return violation(rule, f"answered with {observation.detail}")


def describe_violation(violation: Violation, case: Case, exchange: Exchange) -> str:
    """The finding's message: the rule, what was sent and why, what came back, what was
    expected, and the spec sentence."""
    rule = violation.rule
    answer = json.dumps(exchange.reply.message, ensure_ascii=False) if isinstance(exchange.reply, Answered) else "none"
    return (
        f"{rule.id} ({rule.level.value}): {violation.why}. "
        f"Sent {case.label} to {case.tool!r}: {_clip(json.dumps(exchange.request, ensure_ascii=False), 400)}. "
        f"Answer: {_clip(answer, 400)}. "
        f"Expected {violation.expected}. {rule.source}"
    )


def _first_text(result: dict[str, Any]) -> str:
    for block in result.get("content", []):
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            return block["text"]
    return ""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _quote(text: str) -> str:
    return json.dumps(_clip(text, 120), ensure_ascii=False)
