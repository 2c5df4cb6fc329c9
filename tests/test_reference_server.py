"""Quality tests: a compliant server gets no finding; a server seeded with one bug is caught by
the rule for that bug alone, with a minimal request."""

from __future__ import annotations

import re

import pytest

from fuzz.plan import DestructiveMode, Selection
from fuzz.rules import RULES, Level
from strategies import CaseKind
from strategies.cases import ENVELOPE
from tests.conftest import fuzz, python_server, rule_tool_pairs, without_jsonrpc_ids

SIMPLEST_BOOKING = {"city": "", "nights": 1, "guests": 1}
TOOLS = ("book", "divide", "echo", "weather", "admin", "mirror")
REFERENCE = Selection(destructive=DestructiveMode.ALLOW, unavailable=frozenset({"admin"}), mirror_tool="mirror")
"""Every tool gets its cases; `admin` is the tool the server must refuse, `mirror` the mirror."""


def test_compliant_server_gets_no_finding_over_thousands_of_cases() -> None:
    """Out-of-order answers, notifications and server pings before answers, noisy stderr,
    `isError` omitted on success, a paginated tool list, a draft-07 schema, and a tool that
    answers valid input with `isError: true`: all compliant, so any finding is a false positive."""
    result = fuzz(python_server("reference_server.py"), seed=11, max_examples=200, timeout=2.0, selection=REFERENCE)
    assert [f.message for f in result.findings] == []
    assert result.exit_code == 0
    assert {summary.tool for summary in result.tools} == {ENVELOPE, *TOOLS}
    assert sum(summary.total_sent for summary in result.tools) >= 3000


def _only_finding(bug: str, **options: object):  # type: ignore[no-untyped-def]
    result = fuzz(python_server("reference_server.py", "--bug", bug), selection=REFERENCE, **options)  # type: ignore[arg-type]
    assert {finding.rule.id for finding in result.findings} == {bug}, [f.message for f in result.findings]
    assert result.exit_code == 1
    return result


def _arguments(finding) -> object:  # type: ignore[no-untyped-def]
    return finding.request["params"]["arguments"]


def test_unknown_tool_bug_is_caught_with_the_empty_name() -> None:
    result = _only_finding("unknown-tool")
    assert rule_tool_pairs(result) == {("unknown-tool", tool) for tool in TOOLS}
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
    assert finding.label == "arguments.nights: above maximum 30, in arguments the server accepted"


def test_tool_failure_bug_is_caught_with_zero_over_zero() -> None:
    result = _only_finding("tool-failure")
    (finding,) = result.findings
    assert (finding.tool, finding.case) == ("divide", CaseKind.VALID_ARGUMENTS)
    assert _arguments(finding) == {"a": 0, "b": 0}
    assert finding.response == {"jsonrpc": "2.0", "id": finding.request["id"], "error": {"code": -32603, "message": "division by zero"}}


def test_malformed_request_bug_is_caught_with_null_arguments() -> None:
    result = _only_finding("malformed-request")
    assert rule_tool_pairs(result) == {("malformed-request", tool) for tool in TOOLS}
    for finding in result.findings:
        assert finding.request["params"] == {"name": finding.tool, "arguments": None}


def test_malformed_request_code_bug_is_caught_with_no_params() -> None:
    result = _only_finding("malformed-request-code")
    assert rule_tool_pairs(result) == {("malformed-request-code", tool) for tool in (ENVELOPE, *TOOLS)}
    for finding in result.findings:
        assert finding.response is not None and finding.response["error"]["code"] == -32603
        if finding.tool == ENVELOPE:
            assert "params" not in finding.request, "the simplest malformed envelope has no params"
        else:
            assert finding.request["params"] == {"name": finding.tool, "arguments": None}


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


def test_unavailable_tool_bug_is_caught_with_the_simplest_arguments() -> None:
    result = _only_finding("unavailable-tool")
    (finding,) = result.findings
    assert (finding.tool, finding.case) == ("admin", CaseKind.UNAVAILABLE_TOOL)
    assert _arguments(finding) == {"action": "wipe"}


def test_output_schema_bug_is_caught_with_a_non_object_output() -> None:
    result = _only_finding("output-schema")
    (finding,) = result.findings
    assert (finding.tool, finding.case) == ("mirror", CaseKind.INVALID_OUTPUT)
    assert _arguments(finding) == {"output": []}
    assert finding.rule.level is Level.SHOULD


def test_error_message_bug_is_caught_as_advisory_and_does_not_fail_the_run() -> None:
    result = fuzz(python_server("reference_server.py", "--bug", "error-message"), selection=REFERENCE)
    assert {f.rule.id for f in result.findings} == {"error-message"}
    assert {f.case for f in result.findings} == {CaseKind.INVALID_ARGUMENTS}
    assert result.exit_code == 0
    strict = fuzz(python_server("reference_server.py", "--bug", "error-message"), selection=REFERENCE, fail_on=Level.ADVISORY)
    assert strict.exit_code == 1


def test_stdout_not_protocol_bug_is_caught_as_advisory_on_the_call_that_printed() -> None:
    result = fuzz(python_server("reference_server.py", "--bug", "stdout-not-protocol"), selection=REFERENCE)
    assert rule_tool_pairs(result) == {("stdout-not-protocol", "echo")}, [f.message for f in result.findings]
    (finding,) = result.findings
    assert finding.case is CaseKind.VALID_ARGUMENTS and finding.request["params"]["arguments"] == {"text": ""}
    assert "echo called with ''" in finding.why
    assert result.exit_code == 0, "advisory: the harness skipped the line and went on"


def test_tool_list_leak_bug_is_caught_on_unknown_names() -> None:
    result = fuzz(python_server("reference_server.py", "--bug", "tool-list-leak"), selection=REFERENCE)
    assert rule_tool_pairs(result) == {("tool-list-leak", tool) for tool in TOOLS}
    assert all(f.request["params"]["name"] == "" for f in result.findings)


def test_internal_details_leak_bug_is_caught_with_zero_over_zero() -> None:
    result = fuzz(python_server("reference_server.py", "--bug", "internal-details-leak"), selection=REFERENCE)
    (finding,) = result.findings
    assert (finding.rule.id, finding.tool, _arguments(finding)) == ("internal-details-leak", "divide", {"a": 0, "b": 0})


def test_disabled_rules_are_not_judged() -> None:
    result = fuzz(python_server("reference_server.py", "--bug", "unknown-tool"), selection=REFERENCE, rules=frozenset({"tool-failure"}))
    assert result.findings == ()


def test_profiles_judge_the_same_servers_differently() -> None:
    """An unknown tool answered with JSON-RPC error -32602 breaks SEP-2145 and is what 2025-11-25
    asks for; the compliant server's tool execution error for it is the reverse."""
    protocol_error = python_server("reference_server.py", "--bug", "unknown-tool")
    tool_error = python_server("reference_server.py")
    pairs = {("unknown-tool", tool) for tool in TOOLS}
    assert rule_tool_pairs(fuzz(protocol_error, selection=REFERENCE, max_examples=10)) == pairs
    assert rule_tool_pairs(fuzz(protocol_error, selection=REFERENCE, max_examples=10, profile="2025-11-25")) == set()
    assert rule_tool_pairs(fuzz(tool_error, selection=REFERENCE, max_examples=10)) == set()
    revision = fuzz(tool_error, selection=REFERENCE, max_examples=10, profile="2025-11-25")
    assert rule_tool_pairs(revision) == pairs
    assert revision.profile == "2025-11-25"


def test_profiles_give_output_schema_its_own_level() -> None:
    """SEP-2145 asks servers to report bad output as a tool execution error (SHOULD); 2025-11-25
    requires structured results to conform (MUST)."""
    server = python_server("reference_server.py", "--bug", "output-schema")
    proposal = fuzz(server, selection=REFERENCE, max_examples=10, rules=frozenset({"output-schema"}))
    revision = fuzz(server, selection=REFERENCE, max_examples=10, rules=frozenset({"output-schema"}), profile="2025-11-25")
    assert [f.rule.level for f in proposal.findings] == [Level.SHOULD]
    assert [f.rule.level for f in revision.findings] == [Level.MUST]
    assert proposal.exit_code == revision.exit_code == 1
    assert fuzz(server, selection=REFERENCE, max_examples=10, rules=frozenset({"output-schema"}), fail_on=Level.MUST).exit_code == 0


STATELESS_RULES = {"malformed-meta", "unsupported-version", "header-mismatch"}
"""Not in the reference server yet (it speaks only the handshake revisions): their seeded bugs
are answers judged by the oracle (`test_oracle`), their real ones the TypeScript SDK v2's
(`test_stateless_revision`)."""


def test_every_rule_has_a_seeded_bug_test() -> None:
    tested = {match.group(1).replace("_", "-") for name in globals() if (match := re.match(r"test_(\w+?)_bug_is_caught", name))}
    assert tested == {rule.id for rule in RULES} - STATELESS_RULES


@pytest.mark.parametrize("seed", [1, 2])
def test_same_seed_same_findings(seed: int) -> None:
    first = fuzz(python_server("reference_server.py", "--bug", "arguments-not-validated"), seed=seed, max_examples=15, selection=REFERENCE)
    second = fuzz(python_server("reference_server.py", "--bug", "arguments-not-validated"), seed=seed, max_examples=15, selection=REFERENCE)
    assert first.findings
    assert without_jsonrpc_ids([f.as_json() for f in first.findings]) == without_jsonrpc_ids([f.as_json() for f in second.findings])
    assert [s.cases_sent for s in first.tools] == [s.cases_sent for s in second.tools]
