"""The oracle on hand-made exchanges: each answer class for each case kind."""

from __future__ import annotations

from typing import Any

import pytest

from fuzz.judging.answers import AnswerClass, observe
from fuzz.judging.oracle import Criteria, judge
from fuzz.judging.profiles import SEP_2145, Profile, published
from fuzz.wire.replies import (
    Anomaly,
    AnomalyKind,
    Answered,
    Exchange,
    NoAnswer,
    NotDelivered,
    Reply,
    TargetExited,
)
from strategies import ABSENT, Case, CaseKind, Tool

REVISION_2025_11_25 = published("2025-11-25")

REQUEST = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "arguments": {}}}
SUCCESS = {"content": [{"type": "text", "text": "ok"}]}
TOOL_ERROR = {"content": [{"type": "text", "text": "MCP error -32602: Tool x not found"}], "isError": True}


def _case(kind: CaseKind) -> Case:
    return Case(kind, "x", {"name": "x", "arguments": {}} if kind is not CaseKind.MALFORMED_REQUEST else ABSENT, "test")


def _answered(**members: Any) -> Answered:
    return Answered({"jsonrpc": "2.0", "id": 1, **members}, 0.01)


def _rule(kind: CaseKind, reply: Reply, **kwargs: Any) -> str | None:
    violation = judge(_case(kind), Exchange(REQUEST, reply, **kwargs))
    return None if violation is None else violation.rule.id


@pytest.mark.parametrize(
    ("kind", "reply", "rule"),
    [
        (CaseKind.UNKNOWN_TOOL, _answered(result=TOOL_ERROR), None),
        (CaseKind.UNKNOWN_TOOL, _answered(result=SUCCESS), "unknown-tool"),
        (CaseKind.UNKNOWN_TOOL, _answered(error={"code": -32602, "message": "Unknown tool"}), "unknown-tool"),
        (CaseKind.VALID_ARGUMENTS, _answered(result=SUCCESS), None),
        (CaseKind.VALID_ARGUMENTS, _answered(result={**SUCCESS, "isError": False}), None),
        (CaseKind.VALID_ARGUMENTS, _answered(result=TOOL_ERROR), None),
        (CaseKind.VALID_ARGUMENTS, _answered(error={"code": -32603, "message": "boom"}), "tool-failure"),
        (CaseKind.INVALID_ARGUMENTS, _answered(result=TOOL_ERROR), None),
        (CaseKind.INVALID_ARGUMENTS, _answered(result=SUCCESS), "arguments-not-validated"),
        (CaseKind.INVALID_ARGUMENTS, _answered(error={"code": -32602, "message": "bad"}), "invalid-arguments"),
        (CaseKind.MALFORMED_REQUEST, _answered(error={"code": -32602, "message": "Invalid params"}), None),
        (CaseKind.MALFORMED_REQUEST, _answered(error={"code": -32603, "message": "Internal"}), "malformed-request-code"),
        (CaseKind.MALFORMED_REQUEST, _answered(error={"code": 0, "message": "x"}), "malformed-request-code"),
        (CaseKind.MALFORMED_REQUEST, _answered(result=TOOL_ERROR), "malformed-request"),
        (CaseKind.MALFORMED_REQUEST, _answered(result=SUCCESS), "malformed-request"),
        (CaseKind.MALFORMED_REQUEST, _answered(result={"weird": True}), "malformed-request"),
        (CaseKind.VALID_ARGUMENTS, NoAnswer(1.0), "request-answered"),
        (CaseKind.MALFORMED_REQUEST, TargetExited(1), "target-alive"),
        (CaseKind.VALID_ARGUMENTS, _answered(result={"echo": "no content"}), "response-well-formed"),
        (CaseKind.VALID_ARGUMENTS, _answered(result={"content": [{"type": "text"}]}), "response-well-formed"),
        (CaseKind.VALID_ARGUMENTS, _answered(result={**SUCCESS, "isError": "yes"}), "response-well-formed"),
        (CaseKind.VALID_ARGUMENTS, _answered(result={**SUCCESS, "structuredContent": [1]}), "response-well-formed"),
        (CaseKind.UNKNOWN_TOOL, _answered(result=TOOL_ERROR, error={"code": 1, "message": "x"}), "response-well-formed"),
        (CaseKind.UNKNOWN_TOOL, _answered(error={"code": "-32602", "message": "x"}), "response-well-formed"),
        (CaseKind.UNKNOWN_TOOL, Answered({"id": 1, "result": TOOL_ERROR}, 0.0), "response-well-formed"),
    ],
)
def test_judgement(kind: CaseKind, reply: Reply, rule: str | None) -> None:
    assert _rule(kind, reply) == rule


def test_every_content_block_type_of_the_spec_is_well_formed() -> None:
    blocks = [
        {"type": "text", "text": "t", "annotations": {"audience": ["user"]}},
        {"type": "image", "data": "aGk=", "mimeType": "image/png"},
        {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///a", "name": "a"},
        {"type": "resource", "resource": {"uri": "file:///a", "text": "hi"}},
        {"type": "resource", "resource": {"uri": "file:///b", "blob": "aGk="}},
    ]
    result = {"content": blocks, "structuredContent": {"a": 1}, "_meta": {"x": 1}}
    assert observe(Exchange(REQUEST, _answered(result=result))).answer is AnswerClass.SUCCESS


def test_protocol_error_text_inside_a_tool_execution_error_is_not_a_protocol_error() -> None:
    observation = observe(Exchange(REQUEST, _answered(result=TOOL_ERROR)))
    assert observation.answer is AnswerClass.TOOL_EXECUTION_ERROR
    assert observation.error_code is None


def test_silence_after_which_ping_fails_is_target_alive() -> None:
    violation = judge(_case(CaseKind.VALID_ARGUMENTS), Exchange(REQUEST, NoAnswer(1.0)), answers_ping=False)
    assert violation is not None and violation.rule.id == "target-alive"


def test_a_stray_answer_is_reported_even_when_the_real_one_came() -> None:
    stray = (Anomaly(AnomalyKind.STRAY_ANSWER, '{"id": 99}'),)
    assert _rule(CaseKind.VALID_ARGUMENTS, _answered(result=SUCCESS), anomalies=stray) == "response-well-formed"


def test_garbage_on_stdout_is_advisory_and_a_missing_answer_is_still_judged_as_missing() -> None:
    garbage = (Anomaly(AnomalyKind.GARBAGE, "Server started"),)
    assert _rule(CaseKind.VALID_ARGUMENTS, NoAnswer(1.0), anomalies=garbage) == "request-answered"
    assert _rule(CaseKind.VALID_ARGUMENTS, _answered(result=SUCCESS), anomalies=garbage) == "stdout-not-protocol"
    only_musts = Criteria(enabled=frozenset({"request-answered", "response-well-formed"}))
    assert judge(_case(CaseKind.VALID_ARGUMENTS), Exchange(REQUEST, _answered(result=SUCCESS), anomalies=garbage), criteria=only_musts) is None


def test_an_http_exchange_without_an_answer_is_not_well_formed_unless_the_server_is_gone() -> None:
    undelivered = NotDelivered("HTTP 500 Internal Server Error (text/plain) whose body is not the answer: boom", 0.1)
    assert _rule(CaseKind.INVALID_ARGUMENTS, undelivered) == "response-well-formed"
    gone = judge(_case(CaseKind.INVALID_ARGUMENTS), Exchange(REQUEST, undelivered), answers_ping=False)
    assert gone is not None and gone.rule.id == "target-alive" and "HTTP 500" in gone.why


def test_a_late_answer_to_an_earlier_request_is_not_a_violation() -> None:
    late = (Anomaly(AnomalyKind.LATE_ANSWER, '{"id": 0, "result": {}}'),)
    assert _rule(CaseKind.VALID_ARGUMENTS, _answered(result=SUCCESS), anomalies=late) is None


WEATHER = Tool.from_listing(
    {
        "name": "weather",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"celsius": {"type": "number"}}, "required": ["celsius"]},
    }
)


DEFAULT_CRITERIA = Criteria()


def _rule_for(case: Case, reply: Reply, tool: Tool | None = None, criteria: Criteria = DEFAULT_CRITERIA) -> str | None:
    violation = judge(case, Exchange(REQUEST, reply), tool, criteria)
    return None if violation is None else violation.rule.id


@pytest.mark.parametrize(
    ("result", "rule"),
    [
        ({**SUCCESS, "structuredContent": {"celsius": 3}}, None),
        (SUCCESS, "output-schema"),
        ({**SUCCESS, "structuredContent": {"celsius": "3"}}, "output-schema"),
        ({**SUCCESS, "structuredContent": [3]}, "output-schema"),
        (TOOL_ERROR, None),
    ],
)
def test_a_success_of_a_tool_with_an_output_schema_must_carry_conforming_structured_content(result: dict[str, Any], rule: str | None) -> None:
    case = Case(CaseKind.VALID_ARGUMENTS, "weather", {"name": "weather", "arguments": {}}, "valid arguments")
    assert _rule_for(case, _answered(result=result), WEATHER) == rule


def _mirror(kind: CaseKind, output: Any) -> Case:
    return Case(kind, "weather", {"name": "weather", "arguments": {"output": output}}, "mirror")


def test_a_mirror_must_return_a_conforming_output_as_is() -> None:
    asked = {"celsius": 3}
    same = _answered(result={**SUCCESS, "structuredContent": {"celsius": 3.0}})
    other = _answered(result={**SUCCESS, "structuredContent": {"celsius": 4}})
    assert _rule_for(_mirror(CaseKind.VALID_OUTPUT, asked), same, WEATHER) is None
    assert _rule_for(_mirror(CaseKind.VALID_OUTPUT, asked), other, WEATHER) == "output-schema"
    assert _rule_for(_mirror(CaseKind.VALID_OUTPUT, asked), _answered(result=TOOL_ERROR), WEATHER) == "output-schema"


@pytest.mark.parametrize(
    ("profile", "reply", "rule"),
    [
        (SEP_2145, _answered(result=TOOL_ERROR), None),
        (SEP_2145, _answered(error={"code": -32603, "message": "bad output"}), "output-schema"),
        (SEP_2145, _answered(result={**SUCCESS, "structuredContent": {"celsius": "x"}}), "output-schema"),
        (REVISION_2025_11_25, _answered(error={"code": -32603, "message": "bad output"}), None),
        (REVISION_2025_11_25, _answered(result={**SUCCESS, "structuredContent": {"celsius": "x"}}), "output-schema"),
    ],
)
def test_a_mirror_must_refuse_a_non_conforming_output(profile: Profile, reply: Reply, rule: str | None) -> None:
    assert _rule_for(_mirror(CaseKind.INVALID_OUTPUT, {"celsius": "x"}), reply, WEATHER, Criteria(profile=profile)) == rule


@pytest.mark.parametrize(
    ("profile", "reply", "rule"),
    [
        (SEP_2145, _answered(result=TOOL_ERROR), None),
        (SEP_2145, _answered(error={"code": -32602, "message": "Unknown tool"}), "unknown-tool"),
        (REVISION_2025_11_25, _answered(result=TOOL_ERROR), "unknown-tool"),
        (REVISION_2025_11_25, _answered(error={"code": -32602, "message": "Unknown tool"}), None),
    ],
)
def test_profiles_disagree_on_unknown_tools(profile: Profile, reply: Reply, rule: str | None) -> None:
    assert _rule_for(_case(CaseKind.UNKNOWN_TOOL), reply, None, Criteria(profile=profile)) == rule


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Unknown tool: x. Re-run tools/list and retry.", None),
        ('Traceback (most recent call last):\n  File "/app/x.py", line 3, in f\nKeyError: 1', "internal-details-leak"),
        ("Error: boom\n    at Object.handler (/srv/app/tools.js:12:9)\n    at process.processTicksAndRejections (node:internal:95:5)", "internal-details-leak"),
        ("java.lang.IllegalStateException\n\tat com.acme.Tools.call(Tools.java:42)", "internal-details-leak"),
        ("Unknown tool: x. Available tools: alpha, beta, gamma", "tool-list-leak"),
        ("Unknown tool: x. Did you mean alpha?", None),
        ("", "error-message"),
        ("   ", "error-message"),
    ],
)
def test_advisory_checks(text: str, rule: str | None) -> None:
    result = {"content": [{"type": "text", "text": text}], "isError": True}
    criteria = Criteria(listed_names=("alpha", "beta", "gamma"))
    assert _rule_for(_case(CaseKind.UNKNOWN_TOOL), _answered(result=result), None, criteria) == rule


def test_a_name_listed_twice_is_one_tool_named_not_a_leak_of_the_list() -> None:
    """The unknown name " weather", echoed by a server that lists `weather` twice (its own
    `tool-name` finding), names one listed tool."""
    result = {"content": [{"type": "text", "text": "Unknown tool:  weather. Re-run tools/list and retry."}], "isError": True}
    criteria = Criteria(listed_names=("weather", "weather", "divide"))
    assert _rule_for(_case(CaseKind.UNKNOWN_TOOL), _answered(result=result), None, criteria) is None
    result = {"content": [{"type": "text", "text": "Unknown tool: x. Try weather or divide."}], "isError": True}
    assert _rule_for(_case(CaseKind.UNKNOWN_TOOL), _answered(result=result), None, criteria) == "tool-list-leak"


def test_an_image_first_is_an_error_message_finding_and_rules_can_be_disabled() -> None:
    result = {"content": [{"type": "image", "data": "aGk=", "mimeType": "image/png"}], "isError": True}
    assert _rule_for(_case(CaseKind.UNKNOWN_TOOL), _answered(result=result)) == "error-message"
    assert _rule_for(_case(CaseKind.UNKNOWN_TOOL), _answered(result=result), None, Criteria(enabled=frozenset({"unknown-tool"}))) is None


def test_a_stack_trace_in_a_protocol_errors_data_is_a_leak() -> None:
    error = {"code": -32603, "message": "Internal error", "data": 'Traceback (most recent call last):\n  File "x.py", line 1'}
    criteria = Criteria(enabled=frozenset({"internal-details-leak"}))
    assert _rule_for(_case(CaseKind.VALID_ARGUMENTS), _answered(error=error), None, criteria) == "internal-details-leak"


_STATELESS = Criteria(protocol_version="2026-07-28")
_META = {"io.modelcontextprotocol/protocolVersion": "1999-01-01", "io.modelcontextprotocol/clientCapabilities": {}}
_COMPLETE = {**SUCCESS, "resultType": "complete"}


def _stateless_rule(kind: CaseKind, reply: Reply, params: Any = None) -> str | None:
    params = params or {"name": "x", "arguments": {}, "_meta": _META}
    case = Case(kind, "x", params, "test", own_meta=True)
    violation = judge(case, Exchange(case.message(1), reply), criteria=_STATELESS)
    return None if violation is None else violation.rule.id


def _http(status: int, **members: Any) -> Answered:
    return Answered({"jsonrpc": "2.0", "id": 1, **members}, 0.01, status)


_UNSUPPORTED = {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"], "requested": "1999-01-01"}}


@pytest.mark.parametrize(
    ("kind", "reply", "rule"),
    [
        (CaseKind.UNSUPPORTED_VERSION, _answered(error=_UNSUPPORTED), None),
        (CaseKind.UNSUPPORTED_VERSION, _http(400, error=_UNSUPPORTED), None),
        (CaseKind.UNSUPPORTED_VERSION, _http(200, error=_UNSUPPORTED), "unsupported-version"),
        (CaseKind.UNSUPPORTED_VERSION, _answered(result=_COMPLETE), "unsupported-version"),
        (CaseKind.UNSUPPORTED_VERSION, _answered(error={**_UNSUPPORTED, "code": -32602}), "unsupported-version"),
        (CaseKind.UNSUPPORTED_VERSION, _answered(error={**_UNSUPPORTED, "data": {"supported": ["2026-07-28"]}}), "unsupported-version"),
        (
            CaseKind.UNSUPPORTED_VERSION,
            _answered(error={**_UNSUPPORTED, "data": {"supported": "2026-07-28", "requested": "1999-01-01"}}),
            "unsupported-version",
        ),
        (CaseKind.HEADER_MISMATCH, _http(400, error={"code": -32020, "message": "mismatch"}), None),
        (CaseKind.HEADER_MISMATCH, _http(200, error={"code": -32020, "message": "mismatch"}), "header-mismatch"),
        (CaseKind.HEADER_MISMATCH, _http(400, error={"code": -32602, "message": "bad"}), "header-mismatch"),
        (CaseKind.HEADER_MISMATCH, _http(200, result=_COMPLETE), "header-mismatch"),
        (CaseKind.MALFORMED_META, _http(400, error={"code": -32602, "message": "no _meta"}), None),
        (CaseKind.MALFORMED_META, _http(200, error={"code": -32602, "message": "no _meta"}), "malformed-meta"),
        (CaseKind.MALFORMED_META, _http(400, error={"code": -32600, "message": "not JSON-RPC"}), "malformed-meta"),
        (CaseKind.MALFORMED_META, _answered(result=_COMPLETE), "malformed-meta"),
    ],
)
def test_the_stateless_rules(kind: CaseKind, reply: Reply, rule: str | None) -> None:
    assert _stateless_rule(kind, reply) == rule


@pytest.mark.parametrize(
    ("code", "revision", "rule"),
    [
        (-32050, "2026-07-28", "reserved-error-code"),  # in MCP's range, defined by no revision
        (-32099, "2026-07-28", "reserved-error-code"),
        (-32002, "2026-07-28", "reserved-error-code"),  # retired: resource not found
        (-32042, "2026-07-28", "reserved-error-code"),  # retired: URL elicitation required
        (-32020, "2026-07-28", None),  # defined: HeaderMismatch
        (-32021, "2026-07-28", None),  # defined: MissingRequiredClientCapability
        (-32019, "2026-07-28", None),  # the legacy range: SHOULD NOT, not this rule
        (-32100, "2026-07-28", None),
        (-32602, "2026-07-28", None),
        (-32050, "2025-11-25", None),  # a rule of 2026-07-28 only
        (-32002, "2025-11-25", None),
    ],
)
def test_an_error_code_mcp_reserves_and_does_not_define_is_a_finding_under_2026_07_28(code: int, revision: str, rule: str | None) -> None:
    criteria = Criteria(profile=published(revision), enabled=frozenset({"reserved-error-code"}), protocol_version=revision)
    assert _rule_for(_case(CaseKind.UNKNOWN_TOOL), _answered(error={"code": code, "message": "no such tool"}), None, criteria) == rule


def test_a_header_that_cannot_mirror_the_body_may_be_answered_minus_32020() -> None:
    """A `_meta` protocolVersion that is not a string (or a name that is not one) disagrees with
    any header: -32020 is as right as -32602, over HTTP only."""
    unmirrorable = {"name": "x", "arguments": {}, "_meta": {**_META, "io.modelcontextprotocol/protocolVersion": 20260728}}
    mismatch = {"code": -32020, "message": "header does not match"}
    assert _stateless_rule(CaseKind.MALFORMED_META, _http(400, error=mismatch), unmirrorable) is None
    assert _stateless_rule(CaseKind.MALFORMED_META, _answered(error=mismatch), unmirrorable) == "malformed-meta"


@pytest.mark.parametrize(
    ("result", "rule"),
    [
        (_COMPLETE, None),
        (SUCCESS, "response-well-formed"),
        ({**SUCCESS, "resultType": "partial"}, "response-well-formed"),
        ({"resultType": "input_required", "requestState": "s"}, None),
        ({"resultType": "input_required"}, "response-well-formed"),
        ({**_COMPLETE, "structuredContent": [1, 2]}, None),
    ],
)
def test_stateless_results_say_what_they_are(result: dict[str, Any], rule: str | None) -> None:
    case = Case(CaseKind.VALID_ARGUMENTS, "x", {"name": "x", "arguments": {}}, "test")
    violation = judge(case, Exchange(REQUEST, _answered(result=result)), criteria=_STATELESS)
    assert (None if violation is None else violation.rule.id) == rule


def test_an_input_required_answer_to_an_unknown_tool_is_not_a_tool_error() -> None:
    case = Case(CaseKind.UNKNOWN_TOOL, "x", {"name": "nope", "arguments": {}}, "test")
    violation = judge(case, Exchange(REQUEST, _answered(result={"resultType": "input_required", "requestState": "s"})), criteria=_STATELESS)
    assert violation is not None and violation.rule.id == "unknown-tool"
