"""Real servers built with the official SDKs, and the findings the proposal implies for each.

The expectations were established by sending the raw requests by hand first (mcp 2.3.0 and
@modelcontextprotocol/sdk 1.32.2); each finding below says why it is right under SEP-2145.
"""

from __future__ import annotations

from fuzz.findings import RunResult
from fuzz.target import StdioTarget
from tests.conftest import fuzz, python_server, rule_tool_pairs


def _pairs(rule: str, *tools: str) -> set[tuple[str, str]]:
    return {(rule, tool) for tool in tools}


def _sdk_run(target: StdioTarget) -> RunResult:
    return fuzz(target, seed=5, max_examples=30, timeout=0.5)


def test_python_sdk_high_level_server() -> None:
    result = _sdk_run(python_server("python_sdk_highlevel.py"))
    tools = ("add", "greet", "explode", "divide")
    expected = (
        # `"arguments": null` fails CallToolRequest (arguments must be an object), so it needs a
        # JSON-RPC error; MCPServer reads null as "no arguments" and answers a tool result.
        _pairs("malformed-request", *tools)
        # `params` as a JSON array fails the JSON-RPC message parse, which the SDK logs at DEBUG
        # and drops: the request is never answered.
        | _pairs("request-answered", *tools)
        # pydantic's lax mode turns `false` and `"0"` into 0 for `a: int` / `a: float`: the value
        # violates the listed inputSchema ("type": "integer"/"number") and is accepted as a
        # success. `greet(name: str)` and `explode(reason: str)` refuse non-strings, as they must.
        | _pairs("arguments-not-validated", "add", "divide")
    )
    assert rule_tool_pairs(result) == expected, [f.message for f in result.findings]
    # Compliant, so never reported: unknown names get isError results ("Unknown tool: ..."), the
    # raising tools (explode, divide by zero) get isError results, malformed objects get -32602.
    assert {f.case.value for f in result.findings if f.rule.id == "arguments-not-validated"} == {"invalid-arguments"}


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
        | _pairs("request-answered", *tools)
    )
    assert rule_tool_pairs(result) == expected, [f.message for f in result.findings]
    for finding in result.findings:
        if finding.rule.id in {"unknown-tool", "tool-failure", "invalid-arguments"}:
            assert finding.response is not None and finding.response["error"]["code"] == 0


def test_typescript_sdk_server(typescript_server: StdioTarget) -> None:
    result = _sdk_run(typescript_server)
    tools = ("add", "greet", "explode", "color")
    expected = (
        # A `params` object that fails the CallToolRequest schema gets JSON-RPC error -32603
        # (Internal error) carrying the zod issues, where -32602 (Invalid params) is expected.
        _pairs("malformed-request-code", *tools)
        # The SDK validates each incoming line against its JSON-RPC schema and silently discards
        # one whose `params` is an array: no answer.
        | _pairs("request-answered", *tools)
    )
    # Compliant, so absent from the set: unknown tools and invalid arguments come back as isError
    # results whose text reads "MCP error -32602: ..."; that text is not a protocol error.
    assert rule_tool_pairs(result) == expected, [f.message for f in result.findings]
