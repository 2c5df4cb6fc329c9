"""Tool calls as 2026-07-28 makes them: capabilities declared per case, multi round-trip requests
(SEP-2322) followed to their end, the rounds phase, and the revision's result rules.

A server of our own is seeded with one bug at a time (tests/servers/mrtr_server.py). The real SDK
servers: the TypeScript SDK 2.4.0's `inputRequired`, the Python SDK 2.3's `Resolve`/`Elicit`, and
FastMCP 4.2.3's `InputRequiredResult`. What each answers was probed by hand with a plain JSON-RPC
client first; the expectations below are those answers.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SERVERS, fuzz, rule_tool_pairs, serving_http, stdlib_server

from fuzz.corpus.replay import replay_files
from fuzz.engine.options import RunPhase
from fuzz.judging.findings import RunResult
from fuzz.judging.listing_checks import caching_problem, order_problem
from fuzz.judging.oracle import Criteria, assess
from fuzz.wire.replies import Answered, Exchange
from fuzz.wire.state_trials import Tamper, tampered
from fuzz.wire.target import StdioTarget
from strategies import Case, CaseKind
from strategies.cases import ROUNDS
from strategies.envelopes import call_params
from strategies.inputs import Action, Answer, Capability, Inputs, form_content, responses
from strategies.meta import CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY

ALL_PHASES = frozenset({RunPhase.BOUNDARY, RunPhase.RANDOM, RunPhase.ROUNDS})
MRTR_RULES = {"input-request-undeclared", "input-responses-validated", "request-state-verified", "request-state-bound", "caching-hints", "tools-list-order"}
TYPESCRIPT_V2 = SERVERS / "typescript-v2"


def mrtr_server(bug: str | None = None) -> StdioTarget:
    return StdioTarget(tuple(stdlib_server("mrtr_server.py", *(("--bug", bug) if bug else ()))))


def _messages(result: RunResult) -> list[str]:
    return [finding.message for finding in result.findings]


def test_a_compliant_server_has_no_finding_and_its_tools_complete_their_round_trips() -> None:
    result = fuzz(mrtr_server(), max_examples=20, phases=ALL_PHASES)
    assert result.findings == (), _messages(result)
    by_tool = {summary.tool: summary for summary in result.tools}
    for tool in ("confirm", "ask_model", "pick_root"):
        answers = by_tool[tool].answers[CaseKind.VALID_ARGUMENTS]
        # A success is reachable only through a round trip; a -32021 only where the case declared too little.
        assert answers.get("success", 0) > 0 and answers.get("protocol-error", 0) > 0, (tool, answers)
        assert by_tool[tool].answers[CaseKind.INVALID_INPUT_RESPONSE] == {"protocol-error": by_tool[tool].cases_sent[CaseKind.INVALID_INPUT_RESPONSE]}
    assert by_tool[ROUNDS].answers[CaseKind.REQUEST_STATE].get("success", 0) > 0


def _caught(bug: str, expected: set[tuple[str, str]]) -> None:
    """The seeded `bug` is found by its rule alone, on the tools that have it."""
    pairs = rule_tool_pairs(fuzz(mrtr_server(bug), max_examples=15, phases=ALL_PHASES))
    assert pairs == expected, pairs


def test_input_request_undeclared_bug_is_caught() -> None:
    _caught("input-request-undeclared", {("input-request-undeclared", "confirm")})


def test_input_responses_validated_bug_is_caught() -> None:
    _caught("input-responses-validated", {("input-responses-validated", tool) for tool in ("confirm", "ask_model", "pick_root")})


def test_request_state_verified_bug_is_caught() -> None:
    """An unsigned state whose item is the one deleted: edited, it deletes another item (MUST);
    another call's state deletes that call's item (SHOULD)."""
    _caught("request-state-verified", {("request-state-verified", "confirm"), ("request-state-bound", "confirm")})


def test_request_state_bound_bug_is_caught() -> None:
    """The state of a call of other arguments, accepted: the SDKs' HMAC helper without `bind` does this."""
    result = fuzz(mrtr_server("request-state-verified"), max_examples=3, phases=frozenset({RunPhase.ROUNDS}))
    bound = next(finding for finding in result.findings if finding.rule.id == "request-state-bound")
    assert "taken from the same tool's call with other arguments" in bound.label and "deleted -other" in bound.why


def test_caching_hints_bug_is_caught() -> None:
    _caught("caching-hints", {("caching-hints", ROUNDS)})


def test_tools_list_order_bug_is_caught() -> None:
    _caught("tools-list-order", {("tools-list-order", ROUNDS)})


@pytest.mark.parametrize(("bug", "expected"), [("tool-failure", {("tool-failure", "confirm")}), ("result-type", {("response-well-formed", ROUNDS)})])
def test_a_violation_of_an_older_rule_on_the_way_is_caught_by_it(bug: str, expected: set[tuple[str, str]]) -> None:
    """A bug past the input request (a JSON-RPC error once the user accepts), and a listing
    without `resultType`."""
    _caught(bug, expected)


def test_the_bug_past_the_input_request_is_found_over_streamable_http_too() -> None:
    with serving_http(sys.executable, str(SERVERS / "mrtr_server.py"), "--bug", "tool-failure") as target:
        result = fuzz(target, max_examples=15, phases=ALL_PHASES)
    assert rule_tool_pairs(result) == {("tool-failure", "confirm")}, _messages(result)
    (finding,) = result.findings
    assert finding.rounds and finding.rounds[-1].request["params"]["inputResponses"]["ask"]["action"] == "accept"


def test_a_sequence_s_calls_go_past_their_input_requests() -> None:
    """Each step declares every capability and accepts with the plainest content: its call
    completes, where a call declaring nothing would get -32021."""
    result = fuzz(mrtr_server(), max_examples=15, phases=frozenset({RunPhase.SEQUENCE}))
    sequences = next(summary for summary in result.tools if summary.tool == "(sequences)")
    answers = sequences.answers[CaseKind.SEQUENCE]
    assert answers.get("success", 0) > 0 and not answers.get("protocol-error"), answers
    assert result.findings == (), _messages(result)


def test_a_finding_past_the_input_request_shows_its_rounds_replays_and_exports(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    result = fuzz(mrtr_server("tool-failure"), max_examples=10, corpus=corpus)
    (finding,) = result.findings
    # Shrunk to the simplest plan that reaches the bug: every capability declared, one plain accept.
    assert finding.inputs == Inputs()
    (last,) = finding.rounds
    assert last.request["params"]["requestState"] and last.request["id"] != finding.request["id"]
    assert finding.response == last.response and "retried 1 time(s)" in finding.message
    assert finding.reproduction is not None
    (still,) = replay_files([Path(finding.reproduction)], timeout=5.0)
    assert still.status.value == "STILL FAILING", still.detail
    (fixed,) = replay_files([Path(finding.reproduction)], timeout=5.0, override=mrtr_server())
    assert fixed.status.value == "FIXED", fixed.detail
    output = tmp_path / "test_exported.py"
    export = subprocess.run([sys.executable, "-m", "fuzz", "export", str(corpus), "--pytest", "-o", str(output)], capture_output=True, text=True, timeout=60)
    assert export.returncode == 0, export.stderr
    pytest_run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(output)]
    buggy = subprocess.run(pytest_run, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert buggy.returncode == 1 and "1 failed" in buggy.stdout and "-32603" in buggy.stdout, buggy.stdout[-2000:]
    fixed_command = " ".join(stdlib_server("mrtr_server.py"))
    passing = subprocess.run(
        pytest_run, capture_output=True, text=True, timeout=120, cwd=tmp_path, env={"MCP_SERVER_COMMAND": fixed_command, "PATH": "/usr/bin:/bin"}
    )
    assert passing.returncode == 0 and "1 passed" in passing.stdout, passing.stdout[-2000:]


def test_a_request_state_finding_replays_its_trial_and_export_skips_it(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    result = fuzz(mrtr_server("request-state-verified"), max_examples=3, corpus=corpus, phases=frozenset({RunPhase.ROUNDS}))
    verified = next(finding for finding in result.findings if finding.rule.id == "request-state-verified")
    assert verified.case is CaseKind.REQUEST_STATE and verified.steps, verified
    assert verified.reproduction is not None
    (still,) = replay_files([Path(verified.reproduction)], timeout=5.0)
    assert still.status.value == "STILL FAILING", still.detail
    (fixed,) = replay_files([Path(verified.reproduction)], timeout=5.0, override=mrtr_server())
    assert fixed.status.value == "FIXED", fixed.detail
    again = fuzz(mrtr_server("request-state-verified"), max_examples=3, corpus=corpus, phases=frozenset({RunPhase.ROUNDS}))
    assert not any(finding.first_seen for finding in again.findings), "the same trial found again is the same file"
    export = subprocess.run(
        [sys.executable, "-m", "fuzz", "export", str(corpus), "--pytest", "-o", str(tmp_path / "t.py")], capture_output=True, text=True, timeout=60
    )
    assert export.returncode == 2 and "a trial of the rounds phase" in export.stderr, export.stderr


def _typescript_mrtr() -> StdioTarget:
    node = shutil.which("node")
    if node is None or not (TYPESCRIPT_V2 / "node_modules" / "@modelcontextprotocol" / "server").is_dir():
        pytest.fail("the TypeScript SDK v2 tests need node and `npm ci --prefix tests/servers/typescript-v2`")
    return StdioTarget((node, str(TYPESCRIPT_V2 / "server-mrtr.mjs")))


def _judged_past_input(result: RunResult, rule: str, tool: str) -> None:
    finding = next((f for f in result.findings if (f.rule.id, f.tool) == (rule, tool)), None)
    assert finding is not None and finding.rounds, _messages(result)
    assert any(r.request["params"].get("inputResponses") for r in finding.rounds)


@pytest.mark.slow
def test_the_typescript_sdk_s_round_trips_complete_and_are_judged_as_probed_by_hand() -> None:
    """Probed (@modelcontextprotocol/server 2.4.0): -32021 where elicitation or sampling is not
    declared; invalid inputResponses asked again; the state is HMAC-sealed, but the tool acts on
    the item another call's state carries; the accepted confirm_then_break answers -32602."""
    result = fuzz(_typescript_mrtr(), max_examples=8, phases=ALL_PHASES, protocol_version="2026-07-28", timeout=2.0)
    _judged_past_input(result, "tool-failure", "confirm_then_break")
    found = {finding.rule.id for finding in result.findings} & MRTR_RULES
    assert found == {"request-state-bound"}, _messages(result)


@pytest.mark.slow
def test_the_python_sdk_s_round_trips_complete_and_are_judged_as_probed_by_hand() -> None:
    """Probed (mcp 2.3.0): -32021 for undeclared capabilities, invalid inputResponses -32602, the
    state sealed and bound to its call; the accepted confirm_then_break raises -32603."""
    result = fuzz(
        StdioTarget((sys.executable, str(SERVERS / "python_sdk_mrtr.py"))), max_examples=8, phases=ALL_PHASES, protocol_version="2026-07-28", timeout=2.0
    )
    _judged_past_input(result, "tool-failure", "confirm_then_break")
    assert not {finding.rule.id for finding in result.findings} & MRTR_RULES, _messages(result)


@pytest.mark.slow
def test_fastmcp_s_round_trips_complete_and_are_judged_as_probed_by_hand() -> None:
    """Probed (FastMCP 4.2.3): it asks for elicitation whatever the call declared; the accepted
    confirm_then_break returns structuredContent its outputSchema rejects."""
    result = fuzz(
        StdioTarget((sys.executable, str(SERVERS / "fastmcp_mrtr_server.py"))), max_examples=8, phases=ALL_PHASES, protocol_version="2026-07-28", timeout=2.0
    )
    _judged_past_input(result, "output-schema", "confirm_then_break")
    found = {(finding.rule.id, finding.tool) for finding in result.findings if finding.rule.id in MRTR_RULES}
    assert found == {("input-request-undeclared", "confirm"), ("input-request-undeclared", "confirm_then_break")}, _messages(result)


@pytest.mark.slow
@pytest.mark.parametrize("sdk", ["typescript", "python"])
def test_under_the_handshake_an_sdk_server_s_elicitation_request_is_answered_and_the_bug_past_it_found(sdk: str) -> None:
    """Probed: under 2025-11-25 both SDKs send `elicitation/create` as a request in the middle of
    the call, to a client that declared elicitation; answered with an accept, the tool goes on to
    its bug (TypeScript: -32602 for its own malformed result; Python: -32603)."""
    target = _typescript_mrtr() if sdk == "typescript" else StdioTarget((sys.executable, str(SERVERS / "python_sdk_mrtr.py")))
    result = fuzz(target, max_examples=6, protocol_version="2025-11-25", timeout=2.0)
    assert ("tool-failure", "confirm_then_break") in rule_tool_pairs(result), _messages(result)
    confirm = next(summary for summary in result.tools if summary.tool == "confirm")
    assert confirm.answers[CaseKind.VALID_ARGUMENTS].get("success", 0) > 0, confirm.answers


ELICIT_CONFIRM = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "ok?",
        "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]},
    },
}


def test_answers_follow_the_plan_in_order_across_rounds() -> None:
    plan = Inputs(answers=(Answer(Action.ACCEPT), Answer(Action.DECLINE), Answer(Action.ACCEPT, 2)))
    requests = {"a": ELICIT_CONFIRM, "b": ELICIT_CONFIRM}
    assert responses(requests, plan, 0) == {"a": {"action": "accept", "content": {"confirm": True}}, "b": {"action": "decline"}}
    assert responses(requests, plan, 2) == {"a": {"action": "accept", "content": {"confirm": False}}, "b": {"action": "accept", "content": {"confirm": True}}}
    sampled = responses({"s": {"method": "sampling/createMessage", "params": {}}, "r": {"method": "roots/list"}, "x": {"method": "nope"}}, Inputs(), 0)
    assert sampled["s"]["role"] == "assistant" and sampled["r"] == {"roots": [{"uri": "file:///tmp/mcp-toolfuzz", "name": "mcp-toolfuzz scratch"}]}
    assert "x" not in sampled


def test_form_content_takes_the_schema_s_own_values_and_leaves_optional_ones_out_on_odd_variants() -> None:
    schema = {
        "type": "object",
        "properties": {"size": {"type": "string", "enum": ["s", "m"]}, "n": {"type": "integer", "minimum": 3}, "note": {"type": "string", "format": "email"}},
        "required": ["size", "n"],
    }
    assert form_content(schema, 0) == {"size": "s", "n": 3, "note": "user@example.com"}
    assert form_content(schema, 1) == {"size": "s", "n": 3}
    assert form_content(schema, 2) == {"size": "m", "n": 3, "note": "user@example.com"}


def test_a_plan_declares_its_capabilities_in_the_call_s_meta_and_round_trips_through_json() -> None:
    meta = {PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {}}
    plan = Inputs(declares=(Capability.ELICITATION_URL, Capability.SAMPLING))
    message = Case(CaseKind.VALID_ARGUMENTS, "t", call_params("t", {}), "v", inputs=plan, as_task=True).message(1, meta)
    declared = message["params"]["_meta"][CLIENT_CAPABILITIES_KEY]
    assert declared == {"elicitation": {"url": {}}, "sampling": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}
    assert Inputs.from_json(plan.as_json()) == plan
    with pytest.raises(ValueError):
        Inputs.from_json({"declares": ["telepathy"], "answers": [{"action": "accept", "variant": 0}]})


def _judged(declared: dict[str, object], request: dict[str, object]) -> set[str]:
    meta = {PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: declared}
    case = Case(CaseKind.VALID_ARGUMENTS, "t", call_params("t", {}), "v")
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {"k": request}, "requestState": "s"}}
    exchange = Exchange(case.message(1, meta), Answered(answer, 0.0))
    _, violation = assess(case, exchange, None, Criteria(protocol_version="2026-07-28"))
    return set() if violation is None else {violation.rule.id}


def test_an_input_request_is_judged_against_what_the_call_declared() -> None:
    url = {"method": "elicitation/create", "params": {"mode": "url", "message": "go", "url": "https://example.com", "elicitationId": "e"}}
    sampling = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}
    assert _judged({}, ELICIT_CONFIRM) == {"input-request-undeclared"}
    assert _judged({"elicitation": {}}, ELICIT_CONFIRM) == set()
    assert _judged({"elicitation": {"url": {}}}, ELICIT_CONFIRM) == {"input-request-undeclared"}
    assert _judged({"elicitation": {}}, url) == {"input-request-undeclared"}
    assert _judged({"elicitation": {"url": {}}}, url) == set()
    assert _judged({"roots": {}}, sampling) == {"input-request-undeclared"}
    assert _judged({"sampling": {}}, sampling) == set()


def test_minus_32021_for_form_elicitation_is_right_when_the_call_declared_url_mode_alone() -> None:
    meta = {PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {"elicitation": {"url": {}}}}
    case = Case(CaseKind.VALID_ARGUMENTS, "t", call_params("t", {}), "v")
    refusal = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32021, "message": "m", "data": {"requiredCapabilities": {"elicitation": {}}}}}
    _, violation = assess(case, Exchange(case.message(1, meta), Answered(refusal, 0.0)), None, Criteria(protocol_version="2026-07-28"))
    assert violation is None
    declared_form = {PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {"elicitation": {"form": {}}}}
    _, violation = assess(case, Exchange(case.message(1, declared_form), Answered(refusal, 0.0)), None, Criteria(protocol_version="2026-07-28"))
    assert violation is not None and violation.rule.id == "tool-failure"


def test_a_state_is_tampered_with_in_each_way_and_left_alone_where_it_cannot_be() -> None:
    import base64
    import json

    payload = base64.urlsafe_b64encode(json.dumps({"item": "a", "n": 1}).encode()).decode().rstrip("=")
    state = f"v1.{payload}.c2lnbmF0dXJl"
    edited = tampered(state, Tamper.EDITED)
    assert edited is not None and edited.startswith("v1.") and edited.endswith(".c2lnbmF0dXJl")
    assert json.loads(base64.urlsafe_b64decode(edited.split(".")[1] + "==")) == {"item": "a-tampered", "n": 1}
    assert tampered("opaque!", Tamper.EDITED) is None
    flipped = tampered(state, Tamper.FLIPPED)
    assert flipped is not None and flipped != state and len(flipped) == len(state)
    assert tampered(state, Tamper.TRUNCATED) == state[: len(state) // 2]


def test_caching_hints_and_the_listing_s_order_are_judged_on_complete_results_only() -> None:
    def listing(*names: str, **hints: object) -> dict[str, object]:
        return {"result": {"resultType": "complete", "tools": [{"name": name} for name in names], **hints}}

    assert caching_problem("tools/list", listing("a", ttlMs=0, cacheScope="private")) is None
    problem = caching_problem("tools/list", listing("a", ttlMs=-1, cacheScope="private"))
    assert problem is not None and "ttlMs -1" in problem[1]
    problem = caching_problem("server/discover", listing("a", ttlMs=5, cacheScope="everyone"))
    assert problem is not None and "cacheScope" in problem[1]
    assert caching_problem("tools/list", {"error": {"code": -32603, "message": "m"}}) is None
    assert order_problem([listing("a", "b"), listing("a", "b"), listing("b", "a")]) is not None
    assert order_problem([listing("a", "b"), listing("a", "b", "c")]) is None
