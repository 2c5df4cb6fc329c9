"""Real servers built with the official SDKs, and the findings the proposal implies for each.

The expectations were established by sending the raw requests by hand first (mcp 2.3.0 and
@modelcontextprotocol/sdk 1.32.2); each finding below says why it is right under SEP-2145.
"""

from __future__ import annotations

import pytest

from fuzz.engine.plan import DestructiveMode, Selection
from fuzz.judging.findings import RunResult
from fuzz.wire.target import StdioTarget
from strategies import CaseKind
from strategies.cases import ENVELOPE
from tests.conftest import TYPESCRIPT_SERVER, fuzz, python_server, rule_tool_pairs


def _pairs(rule: str, *tools: str) -> set[tuple[str, str]]:
    return {(rule, tool) for tool in tools}


def _envelope(rule: str) -> set[tuple[str, str]]:
    """A finding on a malformed request that names no tool (reported once per run)."""
    return {(rule, ENVELOPE)}


def _sdk_run(target: StdioTarget, max_examples: int = 48, **options: object) -> RunResult:
    """A generous timeout: a Python server's first call to a tool can take most of a second.
    The handshake revision 2025-11-25 unless told (mcp 2.3.0 would speak 2026-07-28 unasked):
    these are the handshake era's findings; `test_stateless_revision` has the other era's."""
    options.setdefault("protocol_version", "2025-11-25")
    return fuzz(target, seed=5, max_examples=max_examples, timeout=2.0, **options)  # type: ignore[arg-type]


PYTHON_HIGH_LEVEL_TOOL_FINDINGS = (
    # `"arguments": null` fails CallToolRequest (arguments must be an object), so it needs a
    # JSON-RPC error; MCPServer reads null as "no arguments" and answers a tool result.
    _pairs("malformed-request", "add", "greet", "explode", "divide")
    # pydantic's lax mode turns `false` and `"0"` into 0 for `a: int` / `a: float`: the value
    # violates the listed inputSchema ("type": "integer"/"number") and is accepted as a
    # success. `greet(name: str)` and `explode(reason: str)` refuse non-strings, as they must.
    | _pairs("arguments-not-validated", "add", "divide")
    # divide(2, 1.1e-308) overflows to inf, which the SDK serialises as structuredContent
    # {"result": null}: not the "number" its outputSchema declares, yet answered as a success.
    | _pairs("output-schema", "divide")
)
"""The findings on tools (the envelope's aside), the same over stdio and Streamable HTTP."""

TYPESCRIPT_TOOL_FINDINGS = (
    # A `params.arguments` that is not an object gets JSON-RPC error -32603 (Internal error)
    # carrying the zod issues, where -32602 (Invalid params) is expected.
    _pairs("malformed-request-code", "add", "greet", "explode", "color")
)
"""As above; compliant, so absent: unknown tools and invalid arguments come back as isError
results whose text reads "MCP error -32602: ..."; that text is not a protocol error."""


@pytest.mark.slow
def test_python_sdk_high_level_server() -> None:
    result = _sdk_run(python_server("python_sdk_highlevel.py"))
    expected = (
        PYTHON_HIGH_LEVEL_TOOL_FINDINGS
        # `params` as a JSON array fails the JSON-RPC message parse, which the SDK logs at DEBUG
        # and drops: the request is never answered.
        | _envelope("request-answered")
    )
    assert rule_tool_pairs(result) == expected, [f.message for f in result.findings]
    # Compliant, so never reported: unknown names get isError results ("Unknown tool: ..."), the
    # raising tools (explode, divide by zero) get isError results, malformed objects get -32602.
    assert {f.case.value for f in result.findings if f.rule.id == "arguments-not-validated"} == {"invalid-arguments"}


@pytest.mark.slow
def test_python_sdk_low_level_server() -> None:
    result = _sdk_run(python_server("python_sdk_lowlevel.py"))
    tools = ("add", "color", "explode")
    expected = (
        # The handler raises for an unknown name; the low-level Server turns any exception into
        # JSON-RPC error code 0, not a tool execution error.
        _pairs("unknown-tool", *tools)
        # The same for `explode`'s exception on valid input.
        | _pairs("tool-failure", "explode")
        # The low-level Server does not validate arguments: a missing property makes the handler
        # raise (KeyError -> error 0), which is a JSON-RPC error for invalid arguments...
        | _pairs("invalid-arguments", *tools)
        # ...and a value past `maximum` or an extra property under additionalProperties: false is
        # run as if valid.
        | _pairs("arguments-not-validated", "add", "color")
        # `"arguments": null` reaches the handler as None; its exception goes out as error code 0,
        # a JSON-RPC error (right class) with the wrong code (not -32602).
        | _pairs("malformed-request-code", *tools)
        # Array `params` are dropped unanswered, as in the high-level server.
        | _envelope("request-answered")
    )
    assert rule_tool_pairs(result) == expected, [f.message for f in result.findings]
    for finding in result.findings:
        if finding.rule.id in {"unknown-tool", "tool-failure", "invalid-arguments"}:
            assert finding.response is not None and finding.response["error"]["code"] == 0


def test_typescript_sdk_server(typescript_server: StdioTarget) -> None:
    result = _sdk_run(typescript_server)
    expected = (
        TYPESCRIPT_TOOL_FINDINGS
        # No params or no name: -32603 too.
        | _envelope("malformed-request-code")
        # The SDK validates each incoming line against its JSON-RPC schema and silently discards
        # one whose `params` is an array: no answer.
        | _envelope("request-answered")
    )
    assert rule_tool_pairs(result) == expected, [f.message for f in result.findings]


@pytest.mark.slow
def test_fastmcp_server_with_a_disabled_tool_and_a_mirror() -> None:
    selection = Selection(destructive=DestructiveMode.ALLOW, unavailable=frozenset({"secret"}), mirror_tool="mirror")
    result = _sdk_run(python_server("fastmcp_server.py"), selection=selection)
    listed = ("add", "explode", "weather", "mirror")
    assert [summary.tool for summary in result.tools] == [ENVELOPE, *listed, "secret"]
    expected = (
        # fastmcp reads `"arguments": null` as no arguments and answers a tool result.
        _pairs("malformed-request", *listed)
        # Array `params` fail the SDK's message parse and are dropped unanswered (mcp 2.3.0 below).
        | _envelope("request-answered")
        # pydantic's lax mode runs add(a=false) as add(a=0): a schema violation accepted as a success.
        | _pairs("arguments-not-validated", "add")
        # fastmcp never checks structuredContent against the declared outputSchema: the mirror's
        # non-conforming output comes back as a success.
        | _pairs("output-schema", "mirror")
    )
    assert rule_tool_pairs(result) == expected, (rule_tool_pairs(result) ^ expected, [f.message for f in result.findings])
    # Compliant, so absent: `secret`, disabled with mcp.disable(names={"secret"}), is dropped
    # from tools/list and refused with a tool execution error ("Unknown tool: 'secret'"), which
    # is what SEP-2145 asks of a tool that is not callable; `weather`'s structuredContent
    # conforms to the outputSchema fastmcp derives from its return type.
    (secret,) = [summary for summary in result.tools if summary.tool == "secret"]
    assert secret.cases_sent[CaseKind.UNAVAILABLE_TOOL] >= 30


@pytest.mark.slow
def test_python_sdk_high_level_mirror_validates_output_laxly() -> None:
    selection = Selection(destructive=DestructiveMode.ALLOW, mirror_tool="mirror", tools=frozenset({"mirror"}))
    result = fuzz(python_server("python_sdk_mirror.py"), seed=5, max_examples=300, timeout=5.0, selection=selection)
    expected = (
        _pairs("malformed-request", "mirror")
        | _envelope("request-answered")
        # MCPServer validates the returned structuredContent with pydantic in lax mode: a boolean
        # where the outputSchema says number passes and reaches the client as a success.
        | _pairs("output-schema", "mirror")
    )
    assert rule_tool_pairs(result) == expected, (rule_tool_pairs(result) ^ expected, [f.message for f in result.findings])
    (output,) = [f for f in result.findings if f.rule.id == "output-schema"]
    assert output.case is CaseKind.INVALID_OUTPUT
    assert output.label.startswith(
        ("mirror asked for structuredContent.celsius: wrong type", "mirror asked for boundary: structuredContent.celsius: type: of type")
    ), output.label


def test_typescript_sdk_server_with_a_disabled_tool_and_a_mirror(typescript_server: StdioTarget) -> None:
    target = StdioTarget((typescript_server.command[0], str(TYPESCRIPT_SERVER / "server-mirror.mjs")))
    selection = Selection(destructive=DestructiveMode.ALLOW, unavailable=frozenset({"secret"}), mirror_tool="mirror")
    result = _sdk_run(target, selection=selection)
    expected = _pairs("malformed-request-code", "add", "mirror", ENVELOPE) | _envelope("request-answered")
    # Compliant, so absent: `secret`, disabled with RegisteredTool.disable(), is refused with a
    # tool execution error ("Tool secret disabled"); the mirror's output is checked with zod and a
    # non-conforming one becomes a tool execution error ("Output validation error").
    assert rule_tool_pairs(result) == expected, [f.message for f in result.findings]
    assert {s.tool for s in result.tools} == {ENVELOPE, "add", "mirror", "secret"}


def test_typescript_sdk_is_judged_differently_by_the_two_profiles(typescript_server: StdioTarget) -> None:
    """The TypeScript SDK answers an unknown tool with a tool execution error: what SEP-2145
    requires, and a violation of 2025-11-25, which files unknown tools under protocol errors."""
    only_unknown = {"rules": frozenset({"unknown-tool"}), "max_examples": 5, "envelope": False}
    proposal = _sdk_run(typescript_server, **only_unknown)
    revision = _sdk_run(typescript_server, profile="2025-11-25", **only_unknown)
    assert rule_tool_pairs(proposal) == set()
    assert rule_tool_pairs(revision) == _pairs("unknown-tool", "add", "greet", "explode", "color")
