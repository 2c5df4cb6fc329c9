"""Streamable HTTP targets: the official SDKs' HTTP transports, and a server that misbehaves
over HTTP in every way the transport allows."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from fuzz.engine.plan import Selection
from fuzz.wire.target import StdioTarget
from strategies import CaseKind
from strategies.cases import ENVELOPE
from tests.conftest import SERVERS, fuzz, mcp_toolfuzz, rule_tool_pairs, serving_http
from tests.test_misbehaving import HUGE_ANSWERS
from tests.test_sdk_servers import (
    PYTHON_HIGH_LEVEL_TOOL_FINDINGS,
    TYPESCRIPT_TOOL_FINDINGS,
    _sdk_run,
)

MISBEHAVING = (sys.executable, str(SERVERS / "misbehaving_server.py"))


def _tool_pairs(result: object) -> set[tuple[str, str]]:
    return {(rule, tool) for rule, tool in rule_tool_pairs(result) if tool != ENVELOPE}  # type: ignore[arg-type]


@pytest.mark.slow
def test_python_sdk_over_http_gets_the_findings_it_gets_over_stdio() -> None:
    with serving_http(sys.executable, str(SERVERS / "python_sdk_highlevel.py")) as target:
        result = _sdk_run(target)
    assert result.protocol_version == "2025-11-25" and not result.stopped_early
    assert _tool_pairs(result) == PYTHON_HIGH_LEVEL_TOOL_FINDINGS, [f.message for f in result.findings]
    # The envelope differs by transport, in the SDK: over stdio an array `params` is dropped
    # unanswered; over HTTP it gets a 400 whose JSON-RPC error carries id null, not the request's.
    (envelope,) = [f for f in result.findings if f.tool == ENVELOPE]
    assert envelope.rule.id == "response-well-formed" and "on this request's own HTTP response" in envelope.why


@pytest.mark.slow
def test_typescript_sdk_over_http_gets_the_findings_it_gets_over_stdio(typescript_server: StdioTarget) -> None:
    with serving_http(*typescript_server.command) as target:
        result = _sdk_run(target)
    assert _tool_pairs(result) == TYPESCRIPT_TOOL_FINDINGS, [f.message for f in result.findings]
    # Over HTTP the SDK answers an array `params` with -32700 and no id at all (stdio: no answer).
    assert {(f.rule.id, f.tool) for f in result.findings if f.tool == ENVELOPE} == {("malformed-request-code", ENVELOPE), ("response-well-formed", ENVELOPE)}


@pytest.mark.slow
def test_http_misbehaviour_is_reported_with_minimal_requests_and_the_run_goes_on() -> None:
    tools = frozenset({"hang", "garbage", "wrong_id", "double", "status500"})
    with serving_http(*MISBEHAVING) as target:
        result = fuzz(target, max_examples=10, timeout=1.0, selection=Selection(tools=tools), envelope=False)
        # n=100 as a known-good value: every valid call misbehaves, whatever the seed draws.
        large = fuzz(
            target,
            max_examples=3,
            timeout=10,
            selection=Selection(tools=frozenset({"huge", "flood"})),
            envelope=False,
            max_answer_size=32 * 2**20,
            known_arguments=HUGE_ANSWERS,
        )
        capped = fuzz(target, max_examples=3, timeout=10, selection=Selection(tools=frozenset({"huge"})), envelope=False, known_arguments=HUGE_ANSWERS)
    assert not result.stopped_early and result.exit_code == 1
    found = {f.tool: f for f in result.findings}
    assert set(found) == tools, [f.message for f in result.findings]
    for tool, finding in found.items():
        assert finding.request["params"]["arguments"] == {"n": 100}, finding.message
        assert finding.rule.id == ("request-answered" if tool == "hang" else "response-well-formed"), finding.message
    assert "HTTP 500" in found["status500"].why and "DEBUG n=100" in found["garbage"].why
    assert "id" in found["wrong_id"].why and "second answer" in found["double"].why
    # A 20 MB answer (under a 32 MiB --max-answer-size), and an SSE stream of 5000 notifications
    # before the answer, are answers.
    assert large.findings == () and not large.stopped_early
    assert all(sum(s.cases_sent.values()) >= 3 for s in large.tools), large.tools
    assert all(s.answers[CaseKind.VALID_ARGUMENTS].get("success", 0) >= 1 for s in large.tools), large.tools
    # Past the default 16 MiB, the 20 MB answer is unreadable: judged on its own request.
    (oversized,) = capped.findings
    assert oversized.rule.id == "response-well-formed" and "past the size limit" in oversized.why, oversized.why
    assert oversized.request["params"]["arguments"] == {"n": 100} and not capped.stopped_early


def _n_of(request: dict[str, Any]) -> float:
    n = (request["params"].get("arguments") or {}).get("n")
    return n if isinstance(n, (int, float)) and not isinstance(n, bool) else 0


def test_an_http_server_that_dies_ends_the_run_with_its_finding(tmp_path: Path) -> None:
    """The harness cannot restart a server it did not start: the run ends, keeping the finding,
    which blames the request that killed it. (The boundary phase's cases of other case kinds may
    be in flight beside it: then the finding also says it could not be re-checked alone.)"""
    with serving_http(*MISBEHAVING) as target:
        result = fuzz(target, max_examples=15, workers=1, selection=Selection(tools=frozenset({"crash"})), envelope=False, corpus=tmp_path)
    assert result.stopped_early and "could not be restarted" in result.stopped_early
    assert {(finding.rule.id, finding.tool) for finding in result.findings} == {("target-alive", "crash")}
    # Another case kind's request in flight when the server died may be blamed too (it cannot be
    # sent again alone to a server the harness cannot restart); the request that killed it is, of
    # whichever kind carried an n the server took (valid arguments, or invalid ones it let through):
    (finding,) = [finding for finding in result.findings if _n_of(finding.request) >= 100]
    assert finding.request["params"]["name"] == "crash"
    assert result.exit_code == 1 and finding.reproduction is not None and Path(finding.reproduction).exists()


def test_an_http_server_that_dies_with_requests_in_flight_is_one_finding_that_says_so() -> None:
    """With several requests in flight, which one killed a server that cannot be restarted cannot
    be told: one finding, saying so, not one per request in flight."""
    with serving_http(*MISBEHAVING) as target:
        result = fuzz(target, max_examples=64, workers=4, timeout=2.0, selection=Selection(tools=frozenset({"crash"})), envelope=False)
    assert result.stopped_early and "could not be restarted" in result.stopped_early
    alive = [finding for finding in result.findings if finding.rule.id == "target-alive"]
    assert len(alive) == 1, [finding.message for finding in result.findings]
    (finding,) = alive
    assert finding.tool == "crash"
    params = finding.request.get("params")
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if not (params["name"] == "crash" and isinstance(arguments, dict) and arguments.get("n", 0) >= 100):
        assert "could not be restarted to re-check each alone: this request may not be the cause" in finding.message


@pytest.mark.slow
def test_no_header_value_reaches_any_output_or_file(tmp_path: Path) -> None:
    secret = "tok-5f1c-very-secret-9e2a"
    report, corpus = tmp_path / "report.json", tmp_path / "corpus"
    with serving_http(*MISBEHAVING) as target:
        run = mcp_toolfuzz(
            "run",
            "--url",
            f"{target.url}?api_key={secret}",
            "--header",
            f"Authorization: Bearer {secret}",
            "--header",
            f"X-Api-Key: {secret}",
            "--tools",
            "wrong_id,garbage",
            "--max-examples",
            "10",
            "--timeout",
            "1",
            "--corpus",
            str(corpus),
            "--report",
            f"json:{report}",
            "--seed",
            "3",
            timeout=120,
        )
    assert run.returncode == 1, run.stderr
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert report in written and len(list(corpus.glob("*/*.json"))) >= 1
    for text in [run.stdout, run.stderr, *(path.read_bytes().decode("utf-8", "replace") for path in written)]:
        assert secret not in text
    document = json.loads(report.read_text())
    assert document["target"] == {"transport": "http", "url": f"{target.url}?api_key=***", "headers": {"Authorization": "***", "X-Api-Key": "***"}}
    assert "Authorization: ***" in run.stdout


def test_a_url_that_does_not_answer_is_one_line_and_exit_2() -> None:
    run = mcp_toolfuzz("run", "--url", "http://127.0.0.1:9/mcp", "--startup-timeout", "3", timeout=60)
    assert run.returncode == 2
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("mcp-toolfuzz: ") and "ConnectError" in line and "initialize" in line and "Traceback" not in run.stderr
