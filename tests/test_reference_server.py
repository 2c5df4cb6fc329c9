"""Quality tests: a compliant server gets no finding; a server seeded with one bug is caught by
the rule for that bug alone, with a minimal request."""

from __future__ import annotations

import re

import pytest

from fuzz.rules import RULES
from strategies import CaseKind
from tests.conftest import fuzz, python_server, rule_tool_pairs

SIMPLEST_BOOKING = {"city": "", "nights": 1, "guests": 1}


def test_compliant_server_gets_no_finding_over_thousands_of_cases() -> None:
    """Out-of-order answers, notifications and server pings before answers, noisy stderr,
    `isError` omitted on success, a paginated tool list, a draft-07 schema, and a tool that
    answers valid input with `isError: true`: all compliant, so any finding is a false positive."""
    result = fuzz(python_server("reference_server.py"), seed=11, max_examples=250, timeout=2.0)
    assert [f.message for f in result.findings] == []
    assert result.exit_code == 0
    assert {summary.tool for summary in result.tools} == {"book", "divide", "echo", "weather"}
    assert sum(summary.total_sent for summary in result.tools) >= 2500


def _only_finding(bug: str, **options: object):  # type: ignore[no-untyped-def]
    result = fuzz(python_server("reference_server.py", "--bug", bug), **options)  # type: ignore[arg-type]
    assert {finding.rule.id for finding in result.findings} == {bug}, [f.message for f in result.findings]
    assert result.exit_code == 1
    return result


def _arguments(finding) -> object:  # type: ignore[no-untyped-def]
    return finding.request["params"]["arguments"]


def test_unknown_tool_bug_is_caught_with_the_empty_name() -> None:
    result = _only_finding("unknown-tool")
    assert rule_tool_pairs(result) == {("unknown-tool", tool) for tool in ("book", "divide", "echo", "weather")}
    for finding in result.findings:
        assert finding.request["params"] == {"name": "", "arguments": {}}
        assert finding.response is not None and finding.response["error"]["code"] == -32602


def test_invalid_arguments_bug_is_caught_with_one_mutation_of_the_simplest_arguments() -> None:
    result = _only_finding("invalid-arguments")
    booking = next(f for f in result.findings if f.tool == "book")
    assert booking.case is CaseKind.INVALID_ARGUMENTS
    arguments = _arguments(booking)
    assert isinstance(arguments, dict)
    differing = {key for key in arguments.keys() | SIMPLEST_BOOKING.keys() if arguments.get(key, ...) != SIMPLEST_BOOKING.get(key, ...)}
    assert len(differing) == 1, (arguments, booking.label)
    assert differing.pop() in booking.label or "missing" in booking.label


def test_arguments_not_validated_bug_is_caught_with_the_bound_plus_one() -> None:
    result = _only_finding("arguments-not-validated")
    (finding,) = result.findings
    assert finding.tool == "book"
    assert _arguments(finding) == {**SIMPLEST_BOOKING, "nights": 31}
    assert finding.label == "arguments.nights: above maximum 30"


def test_tool_failure_bug_is_caught_with_zero_over_zero() -> None:
    result = _only_finding("tool-failure")
    (finding,) = result.findings
    assert (finding.tool, finding.case) == ("divide", CaseKind.VALID_ARGUMENTS)
    assert _arguments(finding) == {"a": 0, "b": 0}
    assert finding.response == {"jsonrpc": "2.0", "id": finding.request["id"], "error": {"code": -32603, "message": "division by zero"}}


def test_malformed_request_bug_is_caught_with_null_arguments() -> None:
    result = _only_finding("malformed-request")
    assert rule_tool_pairs(result) == {("malformed-request", tool) for tool in ("book", "divide", "echo", "weather")}
    for finding in result.findings:
        assert finding.request["params"] == {"name": finding.tool, "arguments": None}


def test_malformed_request_code_bug_is_caught_with_no_params() -> None:
    result = _only_finding("malformed-request-code")
    for finding in result.findings:
        assert "params" not in finding.request
        assert finding.response is not None and finding.response["error"]["code"] == -32603


def test_request_answered_bug_is_caught_with_the_smallest_hanging_value() -> None:
    result = _only_finding("request-answered", timeout=0.3)
    (finding,) = result.findings
    assert _arguments(finding) == {**SIMPLEST_BOOKING, "nights": 21}
    assert finding.response is None


def test_response_well_formed_bug_is_caught_with_the_simplest_call() -> None:
    result = _only_finding("response-well-formed")
    (finding,) = result.findings
    assert (finding.tool, _arguments(finding)) == ("echo", {"text": ""})
    assert "content" in finding.message


def test_target_alive_bug_is_caught_and_the_run_goes_on_after_a_restart() -> None:
    result = _only_finding("target-alive")
    (finding,) = result.findings
    assert (finding.tool, _arguments(finding)) == ("divide", {"a": 0, "b": 0})
    assert finding.response is None
    assert "[reference-server] fatal: division by zero" in finding.stderr
    assert result.target_restarts >= 1
    assert all(summary.total_sent > 0 for summary in result.tools)
    assert result.stopped_early is None


def test_every_rule_has_a_seeded_bug_test() -> None:
    tested = {match.group(1).replace("_", "-") for name in globals() if (match := re.match(r"test_(\w+?)_bug_is_caught", name))}
    assert tested == {rule.id for rule in RULES}


@pytest.mark.parametrize("seed", [1, 2])
def test_same_seed_same_findings(seed: int) -> None:
    first = fuzz(python_server("reference_server.py", "--bug", "arguments-not-validated"), seed=seed, max_examples=15)
    second = fuzz(python_server("reference_server.py", "--bug", "arguments-not-validated"), seed=seed, max_examples=15)
    assert [f.as_json() for f in first.findings] == [f.as_json() for f in second.findings]
    assert [s.cases_sent for s in first.tools] == [s.cases_sent for s in second.tools]
