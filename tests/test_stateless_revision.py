"""The stateless revision 2026-07-28 against real servers of both eras (issue 15).

Each server was probed by hand first (raw JSON-RPC over stdio and HTTP); the comments say what
it answered. mcp 2.3.0 serves both eras (stdio: the first request decides; HTTP: the
`MCP-Protocol-Version` header does); `@modelcontextprotocol/server` 2.4.0 (the TypeScript SDK
v2) serves both or, with `legacy: 'reject'`, the stateless one only; the TypeScript SDK 1.32.2
serves only the handshake revisions and answers `server/discover` with -32601.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from fuzz.judging.findings import RunResult
from fuzz.judging.profiles import published
from fuzz.wire.target import StdioTarget, TargetSpec
from strategies import CaseKind
from strategies.cases import ENVELOPE
from tests.conftest import SERVERS, fuzz, mcp_toolfuzz, python_server, rule_tool_pairs, serving_http

pytestmark = pytest.mark.slow
"""Every test here starts real servers or whole runs (the fast tier, `-m "not slow"`, leaves them out)."""

TYPESCRIPT_V2 = SERVERS / "typescript-v2"
STATELESS_KINDS = {CaseKind.MALFORMED_META, CaseKind.UNSUPPORTED_VERSION}


def _pairs(rule: str, *tools: str) -> set[tuple[str, str]]:
    return {(rule, tool) for tool in tools}


def _run(target: TargetSpec, max_examples: int = 15, **options: object) -> RunResult:
    return fuzz(target, seed=5, max_examples=max_examples, timeout=2.0, **options)  # type: ignore[arg-type]


def _typescript_v2(*arguments: str) -> tuple[str, ...]:
    if shutil.which("node") is None:
        pytest.fail("node is not on PATH: the TypeScript SDK v2 server tests need Node.js 20")
    if not (TYPESCRIPT_V2 / "node_modules" / "@modelcontextprotocol" / "server").is_dir():
        pytest.fail("the TypeScript SDK v2 is not installed: run `npm ci --prefix tests/servers/typescript-v2`")
    return ("node", str(TYPESCRIPT_V2 / "server.mjs"), *arguments)


def _kinds_sent(result: RunResult) -> set[CaseKind]:
    return {kind for summary in result.tools for kind, count in summary.cases_sent.items() if count}


PYTHON_HIGH_LEVEL = (
    # As under 2025-11-25: `"arguments": null` is read as "no arguments" (a tool result where a
    # JSON-RPC error is due), and pydantic's lax mode takes "0"/false for integers.
    _pairs("malformed-request", "add", "greet", "explode", "divide") | _pairs("arguments-not-validated", "add", "divide")
)
"""MCPServer under 2026-07-28: its envelope checks (-32602, -32022, over HTTP -32020, all with
400) are compliant, so no stateless rule is broken."""


def test_mcp_server_over_stdio_is_detected_as_stateless_and_its_envelope_checks_pass() -> None:
    result = _run(python_server("python_sdk_highlevel.py"))
    assert result.protocol_version == "2026-07-28", "server/discover listed 2026-07-28: no option needed"
    assert _kinds_sent(result) >= STATELESS_KINDS
    assert CaseKind.HEADER_MISMATCH not in _kinds_sent(result), "stdio has no headers"
    tools = rule_tool_pairs(result) - {pair for pair in rule_tool_pairs(result) if pair[1] == ENVELOPE}
    # divide's output-schema finding (inf serialised as null) needs a rare draw at 30 examples.
    assert tools - _pairs("output-schema", "divide") == PYTHON_HIGH_LEVEL, [f.message for f in result.findings]
    # Array params are dropped unanswered over stdio, in both eras.
    assert {f.rule.id for f in result.findings if f.tool == ENVELOPE} == {"request-answered"}


def test_mcp_server_over_http_answers_header_mismatches_with_32020_and_400() -> None:
    with serving_http(sys.executable, str(SERVERS / "python_sdk_highlevel.py")) as target:
        result = _run(target)
    assert result.protocol_version == "2026-07-28"
    assert {*STATELESS_KINDS, CaseKind.HEADER_MISMATCH} <= _kinds_sent(result)
    answered = {summary.tool: summary.answers for summary in result.tools}
    assert answered["add"][CaseKind.HEADER_MISMATCH] == {"protocol-error": answered["add"][CaseKind.HEADER_MISMATCH]["protocol-error"]}
    tools = {pair for pair in rule_tool_pairs(result) if pair[1] != ENVELOPE}
    assert tools - _pairs("output-schema", "divide") == PYTHON_HIGH_LEVEL, [f.message for f in result.findings]


@pytest.mark.parametrize("http", [False, True], ids=["stdio", "http"])
def test_low_level_server_answers_minus_32603_where_the_handshake_era_answered_code_0(http: bool) -> None:
    command = (sys.executable, str(SERVERS / "python_sdk_lowlevel.py"))
    if http:
        with serving_http(*command) as target:
            result = _run(target)
    else:
        result = _run(StdioTarget(command))
    assert result.protocol_version == "2026-07-28"
    tools = ("add", "color", "explode")
    expected = (
        # The handler raises; under 2026-07-28 the SDK hides it as -32603 "Internal server error"
        # (under 2025-11-25: code 0 with the exception text).
        _pairs("unknown-tool", *tools)
        | _pairs("tool-failure", "explode")
        # color without its required `name` raises KeyError in the handler: -32603 too.
        | _pairs("invalid-arguments", "add", "color", "explode")
        # No argument validation at all: a value past `maximum` is run as valid.
        | _pairs("arguments-not-validated", "add", "color")
        # `"arguments": null` reaches the handler, whose exception is -32603, not -32602.
        | _pairs("malformed-request-code", *tools)
    )
    assert {pair for pair in rule_tool_pairs(result) if pair[1] != ENVELOPE} == expected, [f.message for f in result.findings]
    for finding in result.findings:
        if finding.rule.id in {"unknown-tool", "tool-failure"}:
            assert finding.response is not None and finding.response["error"]["code"] == -32603
    # The same server under the handshake revision answers code 0: the era changes the answer.
    handshake = _run(StdioTarget(command), protocol_version="2025-11-25") if not http else None
    if handshake is not None:
        assert handshake.protocol_version == "2025-11-25"
        codes = {f.response["error"]["code"] for f in handshake.findings if f.rule.id == "unknown-tool" and f.response}
        assert codes == {0}


def test_typescript_v2_over_stdio_serves_unsupported_revisions_and_drops_a_string_meta() -> None:
    result = _run(StdioTarget(_typescript_v2()))
    assert result.protocol_version == "2026-07-28"
    tools = ("add", "echo", "explode", "measure")
    expected = (
        # Unknown tools are -32602 "Tool X not found": what the revision's own text says, not SEP-2145.
        _pairs("unknown-tool", *tools)
        # Once a stdio connection is pinned to 2026-07-28, the SDK no longer checks the version:
        # `_meta` naming 1999-01-01 is served (the call runs) where -32022 is due.
        | _pairs("unsupported-version", *tools)
        # `_meta: "x"` fails the transport's JSON-RPC schema: a ZodError on stderr, no answer.
        | _pairs("request-answered", *tools)
    )
    assert {pair for pair in rule_tool_pairs(result) if pair[1] != ENVELOPE} == expected, [f.message for f in result.findings]
    unsupported = [f for f in result.findings if f.rule.id == "unsupported-version"]
    assert all(f.request["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "1999-01-01" for f in unsupported)
    silent = [f for f in result.findings if f.rule.id == "request-answered" and f.tool != ENVELOPE]
    assert all(f.case is CaseKind.MALFORMED_META and f.request["params"]["_meta"] == "x" for f in silent), [f.label for f in silent]


def test_typescript_v2_over_http_checks_every_header_but_answers_a_string_meta_minus_32600() -> None:
    with serving_http(*_typescript_v2()) as target:
        result = _run(target)
    assert result.protocol_version == "2026-07-28"
    tools = ("add", "echo", "explode", "measure")
    expected = (
        _pairs("unknown-tool", *tools)
        # Over HTTP the version is checked (-32022, 400) and every header too (-32020, 400); but
        # `_meta: "x"` is refused as "not a valid JSON-RPC message" (-32600), not -32602.
        | _pairs("malformed-meta", *tools)
    )
    assert {pair for pair in rule_tool_pairs(result) if pair[1] != ENVELOPE} == expected, [f.message for f in result.findings]
    assert all("-32600" in f.why for f in result.findings if f.rule.id == "malformed-meta")


def test_the_published_profile_accepts_minus_32602_for_an_unknown_tool_under_2026_07_28() -> None:
    result = _run(StdioTarget(_typescript_v2()), profile="published", rules=frozenset({"unknown-tool"}))
    assert result.protocol_version == "2026-07-28" and result.findings == ()
    assert "MCP 2026-07-28, server/tools" in published("2026-07-28").rule("unknown-tool").source


def test_a_modern_only_server_is_fuzzed_under_2026_07_28_and_refuses_the_handshake() -> None:
    result = _run(StdioTarget(_typescript_v2("--modern-only")), rules=frozenset({"malformed-meta"}))
    assert result.protocol_version == "2026-07-28"
    forced = mcp_toolfuzz("run", "--no-corpus", "--protocol-version", "2025-11-25", "--", *_typescript_v2("--modern-only"), timeout=120)
    assert forced.returncode == 2 and "Traceback" not in forced.stderr
    (line,) = forced.stderr.strip().splitlines()
    assert "initialize" in line and "-32022" in line


def test_a_handshake_only_server_is_detected_and_fuzzed_under_2025_11_25(typescript_server: StdioTarget) -> None:
    """The TypeScript SDK 1.32.2 answers server/discover with -32601: no evidence of the stateless era."""
    result = _run(typescript_server, max_examples=5)
    assert result.protocol_version == "2025-11-25"
    assert not _kinds_sent(result) & {*STATELESS_KINDS, CaseKind.HEADER_MISMATCH}
    forced = mcp_toolfuzz("run", "--no-corpus", "--protocol-version", "2026-07-28", "--", *typescript_server.command, timeout=120)
    assert forced.returncode == 2
    (line,) = forced.stderr.strip().splitlines()
    assert "server/discover" in line and "-32601" in line


def test_reproductions_record_the_revision_and_replay_it(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    run = mcp_toolfuzz(
        "run",
        "--seed",
        "5",
        "--max-examples",
        "10",
        "--corpus",
        str(corpus),
        "--no-progress",
        "--allow-destructive",
        "--tools",
        "add",
        "--",
        *_typescript_v2(),
        timeout=180,
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.stdout[-2000:]
    import json

    files = sorted(corpus.glob("*/unsupported-version--*.json"))
    assert files, sorted(p.name for p in corpus.iterdir())
    reproduction = json.loads(files[0].read_text())
    assert reproduction["protocolVersion"] == "2026-07-28"
    assert reproduction["handshake"][0]["method"] == "server/discover"
    replay = mcp_toolfuzz("replay", str(files[0]), timeout=120, cwd=tmp_path)
    assert replay.returncode == 1 and "STILL FAILING" in replay.stdout, replay.stdout + replay.stderr
