"""Quality tests: a compliant server gets no finding; a server seeded with one bug is caught by
the rule for that bug alone, with a minimal request.

The reference server serves both eras: the handshake revision 2025-06-18 (which the seeded-bug
tests speak, with the shrunk requests they assert) and the stateless 2026-07-28 (what it is
detected as, and where every seeded bug is caught as well)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import test_mrtr
import test_tasks

from fuzz.engine.options import RunPhase
from fuzz.engine.plan import DestructiveMode, Selection
from fuzz.judging.findings import RunResult
from fuzz.judging.rules import RULES, Level, Revisions
from fuzz.wire.target import HttpTarget
from strategies import CaseKind
from strategies.cases import ENVELOPE
from strategies.meta import (
    CLIENT_CAPABILITIES_KEY,
    NAME_HEADER,
    NEVER_RELEASED_VERSIONS,
    PROTOCOL_VERSION_KEY,
)
from tests.conftest import (
    SERVERS,
    fuzz,
    python_server,
    rule_tool_pairs,
    serving_http,
    without_jsonrpc_ids,
)

SIMPLEST_BOOKING = {"city": "", "nights": 1, "guests": 1}
TOOLS = ("book", "divide", "echo", "weather", "admin", "mirror")
REFERENCE = Selection(destructive=DestructiveMode.ALLOW, unavailable=frozenset({"admin"}), mirror_tool="mirror")
"""Every tool gets its cases; `admin` is the tool the server must refuse, `mirror` the mirror."""
HANDSHAKE, STATELESS = "2025-06-18", "2026-07-28"
ARGUMENT_TOOLS = ("book", "divide", "echo", "weather")
"""The tools that get argument cases, and with them the stateless revision's envelope cases."""
PLAIN_ARGUMENTS = {"book": SIMPLEST_BOOKING, "divide": {"a": 0, "b": 0}, "echo": {"text": ""}, "weather": {"city": "Paris"}}
"""The arguments the envelope cases' simplest forms carry (`strategies.cases.plain_arguments`)."""


def _reference(bug: str | None = None, *, era: str = HANDSHAKE, **options: object) -> RunResult:
    """A run against the reference server (seeded with `bug`) over stdio, speaking `era`."""
    command = ("--bug", bug) if bug else ()
    return fuzz(python_server("reference_server.py", *command), selection=REFERENCE, protocol_version=era, **options)  # type: ignore[arg-type]


@contextmanager
def _reference_over_http(bug: str | None = None) -> Iterator[HttpTarget]:
    """The reference server serving 2026-07-28 alone over Streamable HTTP."""
    with serving_http(sys.executable, str(SERVERS / "reference_server.py"), *(("--bug", bug) if bug else ())) as target:
        yield target


def _kinds_sent(result: RunResult) -> set[CaseKind]:
    return {kind for summary in result.tools for kind, count in summary.cases_sent.items() if count}


@pytest.mark.slow
@pytest.mark.parametrize("era", [HANDSHAKE, None])
def test_compliant_server_gets_no_finding_over_thousands_of_cases(era: str | None) -> None:
    """Out-of-order answers, noisy stderr, `isError` omitted on success, a paginated tool list,
    a draft-07 schema, and a tool that answers valid input with `isError: true` (and under the
    handshake, notifications and server pings before answers): all compliant, so any finding is
    a false positive. With no revision given, the server is detected as stateless."""
    result = fuzz(python_server("reference_server.py"), seed=11, max_examples=200, timeout=2.0, selection=REFERENCE, protocol_version=era)
    assert [f.message for f in result.findings] == []
    assert result.exit_code == 0
    assert result.protocol_version == (era or STATELESS)
    assert {summary.tool for summary in result.tools} == {ENVELOPE, *TOOLS}
    assert sum(summary.total_sent for summary in result.tools) >= 3000
    stateless_kinds = {CaseKind.MALFORMED_META, CaseKind.UNSUPPORTED_VERSION}
    assert _kinds_sent(result) & stateless_kinds == (set() if era else stateless_kinds)


@pytest.mark.slow
def test_compliant_server_over_http_gets_no_finding_with_its_headers_checked() -> None:
    with _reference_over_http() as target:
        result = fuzz(target, seed=11, max_examples=30, timeout=2.0, selection=REFERENCE)
    assert [f.message for f in result.findings] == []
    assert result.protocol_version == STATELESS
    assert {CaseKind.MALFORMED_META, CaseKind.UNSUPPORTED_VERSION, CaseKind.HEADER_MISMATCH} <= _kinds_sent(result)
    assert sum(summary.total_sent for summary in result.tools) >= 1000


def _only_finding(bug: str, **options: object):  # type: ignore[no-untyped-def]
    result = _reference(bug, **options)  # type: ignore[arg-type]
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
    assert finding.label == "boundary: arguments.nights: maximum 30: 31, one past it (invalid)"


@pytest.mark.slow
def test_arguments_not_validated_bug_is_caught_by_the_random_search_alone_too() -> None:
    result = _only_finding("arguments-not-validated", phases=frozenset({RunPhase.RANDOM}))
    (finding,) = result.findings
    assert _arguments(finding) == {**SIMPLEST_BOOKING, "nights": 31}
    assert finding.label == "arguments.nights: above maximum 30, in arguments the server accepted"


@pytest.mark.slow
def test_error_as_success_bug_is_caught_on_the_city_whose_failure_is_dressed() -> None:
    result = _reference("error-as-success")
    assert {finding.rule.id for finding in result.findings} == {"error-as-success"}
    (finding,) = result.findings
    assert (finding.tool, _arguments(finding)) == ("weather", {"city": "Oslo"})
    assert result.exit_code == 0, "an advisory rule fails no run"


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


@pytest.mark.slow
def test_request_answered_bug_is_caught_with_the_smallest_hanging_value() -> None:
    """The random search shrinks a hang to the smallest hanging value (the boundary phase would
    report the first edge it hung on, `maximum` 30)."""
    result = _only_finding("request-answered", timeout=0.3, phases=frozenset({RunPhase.RANDOM}))
    (finding,) = result.findings
    assert _arguments(finding) == {**SIMPLEST_BOOKING, "nights": 21}
    assert finding.response is None


def test_response_well_formed_bug_is_caught_with_the_simplest_call() -> None:
    result = _only_finding("response-well-formed")
    (finding,) = result.findings
    assert (finding.tool, _arguments(finding)) == ("echo", {"text": ""})
    assert "content" in finding.message


@pytest.mark.slow
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


@pytest.mark.slow
def test_error_message_bug_is_caught_as_advisory_and_does_not_fail_the_run() -> None:
    result = _reference("error-message")
    assert {f.rule.id for f in result.findings} == {"error-message"}
    assert {f.case for f in result.findings} == {CaseKind.INVALID_ARGUMENTS}
    assert result.exit_code == 0
    strict = _reference("error-message", fail_on=Level.ADVISORY)
    assert strict.exit_code == 1


def test_stdout_not_protocol_bug_is_caught_as_advisory_on_the_call_that_printed() -> None:
    result = _reference("stdout-not-protocol")
    assert rule_tool_pairs(result) == {("stdout-not-protocol", "echo")}, [f.message for f in result.findings]
    (finding,) = result.findings
    assert finding.case is CaseKind.VALID_ARGUMENTS and finding.request["params"]["arguments"] == {"text": ""}
    assert "echo called with ''" in finding.why
    assert result.exit_code == 0, "advisory: the harness skipped the line and went on"


def test_tool_list_leak_bug_is_caught_on_unknown_names() -> None:
    result = _reference("tool-list-leak")
    assert rule_tool_pairs(result) == {("tool-list-leak", tool) for tool in TOOLS}
    assert all(f.request["params"]["name"] == "" for f in result.findings)


def test_internal_details_leak_bug_is_caught_with_zero_over_zero() -> None:
    result = _reference("internal-details-leak")
    (finding,) = result.findings
    assert (finding.rule.id, finding.tool, _arguments(finding)) == ("internal-details-leak", "divide", {"a": 0, "b": 0})


def test_disabled_rules_are_not_judged() -> None:
    result = _reference("unknown-tool", rules=frozenset({"tool-failure"}))
    assert result.findings == ()


@pytest.mark.slow
def test_profiles_judge_the_same_servers_differently() -> None:
    """An unknown tool answered with JSON-RPC error -32602 breaks SEP-2145 and is what 2025-11-25
    asks for; the compliant server's tool execution error for it is the reverse."""
    pairs = {("unknown-tool", tool) for tool in TOOLS}
    patient = {"max_examples": 10, "timeout": 2.0}  # the server answers everything: no request-answered under load
    assert rule_tool_pairs(_reference("unknown-tool", **patient)) == pairs
    assert rule_tool_pairs(_reference("unknown-tool", profile="2025-11-25", **patient)) == set()
    assert rule_tool_pairs(_reference(**patient)) == set()
    revision = _reference(profile="2025-11-25", **patient)
    assert rule_tool_pairs(revision) == pairs
    assert revision.profile == "2025-11-25"


@pytest.mark.slow
def test_profiles_give_output_schema_its_own_level() -> None:
    """SEP-2145 asks servers to report bad output as a tool execution error (SHOULD); 2025-11-25
    requires structured results to conform (MUST)."""
    only = frozenset({"output-schema"})
    proposal = _reference("output-schema", max_examples=10, rules=only)
    revision = _reference("output-schema", max_examples=10, rules=only, profile="2025-11-25")
    assert [f.rule.level for f in proposal.findings] == [Level.SHOULD]
    assert [f.rule.level for f in revision.findings] == [Level.MUST]
    assert proposal.exit_code == revision.exit_code == 1
    assert _reference("output-schema", max_examples=10, rules=only, fail_on=Level.MUST).exit_code == 0


STATELESS_RULES = {rule.id for rule in RULES if rule.revisions is not Revisions.EVERY}
SEEDED_STATELESS_RULES = {
    rule for rule in STATELESS_RULES if f'"{rule}"' in (SERVERS / "reference_server.py").read_text() + (SERVERS / "reference_stateless.py").read_text()
}
"""The 2026-07-28 rules the reference server can break (`--bug`); the others (tasks, multi round-trip
requests, caching hints) have servers of their own, and `--bug` with one of them is the compliant server."""


@pytest.mark.slow
def test_malformed_meta_bug_is_caught_with_client_capabilities_left_out() -> None:
    result = _only_finding("malformed-meta", era=STATELESS, timeout=2.0)  # a patient timeout: a loaded machine's stall is no hang
    assert rule_tool_pairs(result) == {("malformed-meta", tool) for tool in ARGUMENT_TOOLS}
    for finding in result.findings:
        assert finding.case is CaseKind.MALFORMED_META and finding.label == "malformed: _meta without clientCapabilities"
        meta = finding.request["params"]["_meta"]
        assert CLIENT_CAPABILITIES_KEY not in meta and meta[PROTOCOL_VERSION_KEY] == STATELESS
        assert finding.response is not None and finding.response["result"]["resultType"] == "complete"


def test_unsupported_version_bug_is_caught_with_the_first_revision_never_released() -> None:
    result = _only_finding("unsupported-version", era=STATELESS, timeout=2.0)  # a patient timeout: a loaded machine's stall is no hang
    assert rule_tool_pairs(result) == {("unsupported-version", tool) for tool in ARGUMENT_TOOLS}
    for finding in result.findings:
        assert finding.request["params"]["_meta"][PROTOCOL_VERSION_KEY] == NEVER_RELEASED_VERSIONS[0]
        assert finding.response is not None and finding.response["error"]["data"] == {"supported": [STATELESS]}
        assert "data.requested is null, not the revision requested" in finding.message, finding.message


def test_reserved_error_code_bug_is_caught_on_the_calls_it_answers_minus_32050() -> None:
    """Under 2026-07-28 the server answers a call's invalid params with `-32050` (in MCP's
    reserved range, defined by no revision), where `-32602` is due: only that rule is broken."""
    result = _only_finding("reserved-error-code", era=STATELESS, timeout=2.0)  # a patient timeout: a loaded machine's stall is no hang
    for finding in result.findings:
        assert finding.response is not None and finding.response["error"]["code"] == -32050, finding.response
        assert "-32050 is in MCP's reserved range" in finding.message, finding.message


@pytest.mark.slow
def test_header_mismatch_bug_is_caught_with_the_name_header_left_out() -> None:
    """The server never compares `Mcp-Name` with the body: of the headers' disagreements, a
    left-out name is the simplest it accepts."""
    with _reference_over_http("header-mismatch") as target:
        result = fuzz(target, selection=REFERENCE, timeout=2.0)
    assert rule_tool_pairs(result) == {("header-mismatch", tool) for tool in ARGUMENT_TOOLS}, [f.message for f in result.findings]
    for finding in result.findings:
        assert finding.headers == ((NAME_HEADER, None),), finding.headers
        assert finding.request["params"]["arguments"] == PLAIN_ARGUMENTS[finding.tool], "arguments the tool takes: the answer shows the call ran"
        assert finding.response is not None and "result" in finding.response


@pytest.mark.slow
def test_tool_name_bug_is_caught_once_for_the_name_listed_twice() -> None:
    """`weather` listed twice is one advisory finding on it. The duplicate's definitions are
    the same: the tool is fuzzed once, as usual, and nothing else is found. Under the published
    profile, 2025-06-18 has no *Tool Names* section: no name is judged."""
    result = _reference("tool-name", max_examples=10)
    assert rule_tool_pairs(result) == {("tool-name", "weather")}, [f.message for f in result.findings]
    (finding,) = result.findings
    assert finding.case is CaseKind.TOOL_LISTING and "is listed 2 times" in finding.message
    assert result.exit_code == 0
    assert [summary.tool for summary in result.tools] == [ENVELOPE, *TOOLS]
    published = _reference("tool-name", max_examples=10, profile="published", rules=frozenset({"tool-name"}))
    assert published.findings == () and published.exit_code == 0


@pytest.mark.slow
@pytest.mark.parametrize("bug", sorted(SEEDED_STATELESS_RULES))
def test_a_stateless_revision_bug_is_not_reached_under_the_handshake(bug: str) -> None:
    """Under 2025-06-18 there is no `_meta` envelope to check: the seeded bug is never reached.
    (The other 2026-07-28 rules have no bug to seed here: with them, this would run the compliant
    server as test_compliant_server_gets_no_finding_over_thousands_of_cases does.)"""
    result = _reference(bug)
    assert result.findings == () and result.exit_code == 0


@pytest.mark.slow
@pytest.mark.parametrize("bug", sorted({rule.id for rule in RULES} - STATELESS_RULES))
def test_each_handshake_era_bug_is_also_caught_under_the_stateless_revision(bug: str) -> None:
    """The seeded bugs above, under 2026-07-28: the tools behave the same whatever the envelope,
    so each is caught by its own rule alone. (The server answers everything but under its
    request-answered bug: a patient --timeout keeps a loaded machine's stall from reading as one.)"""
    result = _reference(bug, era=STATELESS, timeout=0.3 if bug == "request-answered" else 2.0)
    assert {finding.rule.id for finding in result.findings} == {bug}, [f.message for f in result.findings]


def test_every_rule_has_a_seeded_bug_test() -> None:
    """Here, or for the task rules in tests/test_tasks.py and the multi round-trip ones in
    tests/test_mrtr.py (servers of their own)."""
    names = [*globals(), *vars(test_tasks), *vars(test_mrtr)]
    tested = {match.group(1).replace("_", "-") for name in names if (match := re.match(r"test_(\w+?)_bug_is_caught", name))}
    assert tested == {rule.id for rule in RULES}
    here = {match.group(1).replace("_", "-") for name in globals() if (match := re.match(r"test_(\w+?)_bug_is_caught", name))}
    assert here & STATELESS_RULES == SEEDED_STATELESS_RULES, "the 2026-07-28 bugs seeded here are those tested under the handshake"


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_same_seed_same_findings(seed: int) -> None:
    # 3 s to answer: a loaded CI machine's stall of half a second would be a hang in one run only
    first = _reference("arguments-not-validated", seed=seed, max_examples=15, timeout=3.0)
    second = _reference("arguments-not-validated", seed=seed, max_examples=15, timeout=3.0)
    assert first.findings
    assert without_jsonrpc_ids([f.as_json() for f in first.findings]) == without_jsonrpc_ids([f.as_json() for f in second.findings])
    assert [s.cases_sent for s in first.tools] == [s.cases_sent for s in second.tools]
