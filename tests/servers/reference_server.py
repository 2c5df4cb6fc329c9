"""A compliant MCP server for the tests, that can be seeded with exactly one bug.

`python reference_server.py` is compliant with SEP-2145 and deliberately awkward to talk to:
it answers `tools/call` from worker threads after random delays (so answers come out of order
when several requests are in flight), sends a notification and sometimes a `ping` request of
its own before each answer, writes noise on stderr, omits `isError` on success, and has a tool
(`weather`) that legitimately answers `isError: true` to valid input.

`python reference_server.py --bug RULE` breaks exactly the rule RULE, in a way triggered by one
argument where the rule concerns arguments, so that tests can check the shrunk request:

- unknown-tool: an unknown name gets JSON-RPC error -32602 (`--unknown-tool-code CODE`: CODE).
- invalid-arguments: arguments failing the inputSchema get JSON-RPC error -32602.
- arguments-not-validated: `book.nights` is never checked against its maximum (30).
- tool-failure: `divide` with b == 0 lets the error escape as JSON-RPC error -32603.
- malformed-request: `"arguments": null` is taken for `{}`.
- malformed-request-code: malformed requests get -32603 instead of -32602.
- request-answered: `book` with nights > 20 is never answered.
- response-well-formed: `echo` answers `{"echo": text}` instead of a CallToolResult.
- target-alive: `divide` with b == 0 kills the process.
- unavailable-tool: `admin` (which the tests name with --unavailable) runs instead of being refused.
- output-schema: `mirror` returns whatever output it is asked for, unchecked.
- error-message: tool execution errors for invalid input carry no content.
- tool-list-leak: the error for an unknown tool lists every tool.
- internal-details-leak: `divide` with b == 0 answers a tool execution error with a traceback.
- stdout-not-protocol: `echo` prints a debug line on stdout (not JSON-RPC) before answering.
- error-as-success: `weather` for Oslo answers its failure as a success whose text is `Error: ...`.
- tool-name: `weather` is listed twice (on the second page too).
- malformed-meta, unsupported-version, header-mismatch: rules of 2026-07-28, see
  `reference_stateless.py`.

Both eras on stdio, as `mcp` 2.3.0 serves them: the first request decides. `initialize` pins the
handshake revision 2025-06-18 for the process; anything else pins the stateless revision
2026-07-28, where every request's `_meta` is checked, results carry `resultType` (and caching
hints), `initialize` is refused with -32022, and the server sends no notification and no `ping`
(the revision has no `ping`, and `notifications/message` only for requests asking a log level).
`--http PORT` serves 2026-07-28 alone on http://127.0.0.1:PORT/mcp, also checking the headers.

`admin` is refused with a tool execution error ("Tool unavailable: admin. ..."); `mirror` is a
mirror tool (it returns its `output` argument as structuredContent, after checking it against its
outputSchema); `book` declares an outputSchema and returns conforming structuredContent.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
from typing import Any

import jsonschema
import reference_stateless as stateless
import stdio_loop

TOOLS: list[dict[str, Any]] = [
    {
        "name": "book",
        "outputSchema": {
            "type": "object",
            "properties": {"confirmation": {"type": "string"}, "nights": {"type": "integer"}},
            "required": ["confirmation", "nights"],
        },
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "nights": {"type": "integer", "minimum": 1, "maximum": 30},
                "guests": {"type": "integer", "minimum": 1},
                "note": {"type": "string", "maxLength": 50},
            },
            "required": ["city", "nights", "guests"],
            "additionalProperties": False,
        },
    },
    {
        "name": "divide",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    },
    {
        "name": "echo",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
    {
        "name": "weather",
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"city": {"type": "string", "enum": ["Paris", "Oslo", "Lima"]}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
    {
        "name": "admin",
        "inputSchema": {"type": "object", "properties": {"action": {"enum": ["wipe", "restart"]}}, "required": ["action"]},
    },
    {
        "name": "mirror",
        "inputSchema": {"type": "object", "properties": {"output": {}}, "required": ["output"]},
        "outputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "celsius": {"type": "number", "minimum": -100, "maximum": 100}},
            "required": ["city", "celsius"],
            "additionalProperties": False,
        },
    },
]
OUTPUT_VALIDATORS = {tool["name"]: jsonschema.Draft202012Validator(tool["outputSchema"]) for tool in TOOLS if "outputSchema" in tool}
VALIDATORS = {tool["name"]: jsonschema.validators.validator_for(tool["inputSchema"])(tool["inputSchema"]) for tool in TOOLS}
CALL_TOOL_PARAMS = jsonschema.Draft202012Validator(
    {
        "type": "object",
        "required": ["name"],
        "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}},
    }
)


class Server:
    def __init__(self, bug: str | None, unknown_tool_code: int = -32602) -> None:
        self.bug = bug
        self.unknown_tool_code = unknown_tool_code
        self.random = random.Random(0)
        self.server_request_id = 0
        self.era: str | None = None
        """"handshake" or "stateless", from the first request (stdio)."""
        self.tools = [*TOOLS, TOOLS[3]] if bug == "tool-name" else TOOLS
        """What tools/list lists."""

    def log(self, text: str) -> None:
        sys.stderr.write(f"[reference-server] {text}\n")
        sys.stderr.flush()

    def serve(self) -> None:
        """Answer stdin's requests; the client's answers to our pings are not requests."""
        for message in stdio_loop.requests(sys.stdin.buffer, skip_blank=True):
            if self.era is None:
                self.era = "handshake" if message["method"] == "initialize" else "stateless"
            if self.era == "stateless":
                threading.Thread(target=self.answer_stateless, args=(message,), daemon=True).start()
            elif message["method"] == "tools/call":
                threading.Thread(target=self.call, args=(message,), daemon=True).start()
            else:
                stdio_loop.send(self.answer(message))

    def answer_stateless(self, message: dict[str, Any]) -> None:
        reply = self.stateless_reply(message)
        if reply is not None:
            stdio_loop.reply(message, reply)

    def stateless_reply(self, message: dict[str, Any], headers: Any = None) -> dict[str, Any] | None:
        """The reply to a request under 2026-07-28 (`headers`: over HTTP, checked first)."""
        if message["method"] == "tools/call":
            time.sleep(self.random.random() * 0.002)
            self.log(f"tools/call {json.dumps(message.get('params'))[:200]}")
        if headers is not None:
            mismatch = stateless.header_mismatch(headers, message, self.bug)
            if mismatch is not None:
                return mismatch
        return stateless.answer(message, self.bug, self.tools, self.call_result)

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        method, request_id = message["method"], message["id"]
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {"listChanged": False}, "logging": {}},
                "serverInfo": {"name": "reference-server", "version": "1.0"},
            }
        elif method == "tools/list":
            cursor = (message.get("params") or {}).get("cursor")
            result = {"tools": self.tools[:3], "nextCursor": "page-2"} if cursor is None else {"tools": self.tools[3:]}
        elif method == "ping":
            result = {}
        else:
            return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"no method {method}"}}
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    def call(self, message: dict[str, Any]) -> None:
        time.sleep(self.random.random() * 0.002)
        self.log(f"tools/call {json.dumps(message.get('params'))[:200]}")
        stdio_loop.send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}})
        if self.random.random() < 0.1:
            self.server_request_id += 1
            stdio_loop.send({"jsonrpc": "2.0", "id": f"s{self.server_request_id}", "method": "ping"})
        reply = self.call_result(message.get("params"))
        if reply is None:
            return
        if "error" in reply:
            stdio_loop.reply(message, {"error": reply["error"]})
        else:
            stdio_loop.reply(message, {"result": reply["result"]})

    def call_result(self, params: Any) -> dict[str, Any] | None:
        bug = self.bug
        if bug == "malformed-request" and isinstance(params, dict) and "arguments" in params and params["arguments"] is None:
            params = {**params, "arguments": {}}
        if not CALL_TOOL_PARAMS.is_valid(params):
            code = -32603 if bug == "malformed-request-code" else -32602
            return {"error": {"code": code, "message": "Invalid params: not a CallToolRequest"}}
        name, arguments = params["name"], params.get("arguments", {})
        if name not in VALIDATORS:
            if bug == "unknown-tool":
                return {"error": {"code": self.unknown_tool_code, "message": f"Unknown tool: {name}"}}
            if bug == "tool-list-leak":
                return tool_error(f"Unknown tool: {name}. Available tools: {', '.join(VALIDATORS)}.")
            return tool_error(f"Unknown tool: {name}. Re-run tools/list and retry.")
        if name == "admin" and bug != "unavailable-tool":
            return tool_error("Tool unavailable: admin. Reason: disabled by policy.")
        errors = sorted(VALIDATORS[name].iter_errors(arguments), key=lambda e: e.path)
        if bug == "arguments-not-validated":
            errors = [e for e in errors if not (name == "book" and list(e.path) == ["nights"] and e.validator == "maximum")]
        if errors:
            if bug == "invalid-arguments":
                return {"error": {"code": -32602, "message": f"Invalid arguments: {errors[0].message}"}}
            if bug == "error-message":
                return {"result": {"content": [], "isError": True}}
            return tool_error(f"Invalid input: {name}. {errors[0].message}")
        return self.run_tool(name, arguments)

    def run_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        bug = self.bug
        if name == "book":
            if bug == "request-answered" and arguments["nights"] > 20:
                return None
            booked = success(f"booked {arguments['nights']} nights in {arguments['city']!r}")
            booked["result"]["structuredContent"] = {"confirmation": "B-1", "nights": arguments["nights"]}
            return booked
        if name == "divide":
            if arguments["b"] == 0:
                if bug == "target-alive":
                    self.log("fatal: division by zero")
                    os._exit(3)
                if bug == "tool-failure":
                    return {"error": {"code": -32603, "message": "division by zero"}}
                if bug == "internal-details-leak":
                    return tool_error('Traceback (most recent call last):\n  File "/srv/app/divide.py", line 3, in divide\nZeroDivisionError: division by zero')
                return tool_error("divide: b must not be 0")
            return success(str(arguments["a"] // arguments["b"]))
        if name == "echo":
            if bug == "stdout-not-protocol":
                with stdio_loop.LOCK:
                    sys.stdout.write(f"echo called with {arguments['text']!r}\n")
                    sys.stdout.flush()
            if bug == "response-well-formed":
                return {"result": {"echo": arguments["text"]}}
            return success(arguments["text"])
        if name == "admin":
            return success(f"admin action {arguments['action']} done")
        if name == "mirror":
            output = arguments["output"]
            if bug != "output-schema" and not OUTPUT_VALIDATORS["mirror"].is_valid(output):
                return tool_error("Tool produced invalid structured output for mirror: structuredContent did not conform to outputSchema.")
            mirrored = success(json.dumps(output))
            mirrored["result"]["structuredContent"] = output
            return mirrored
        if arguments["city"] == "Oslo":
            if bug == "error-as-success":
                return success("Error: weather service unavailable for Oslo")
            return tool_error("weather service unavailable for Oslo")
        return success("sunny")


def success(text: str) -> dict[str, Any]:
    return {"result": {"content": [{"type": "text", "text": text}]}}


def tool_error(text: str) -> dict[str, Any]:
    return {"result": {"content": [{"type": "text", "text": text}], "isError": True}}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bug", default=None)
    parser.add_argument("--label", default=None, help="ignored; lets a test find this process")
    parser.add_argument("--unknown-tool-code", type=int, default=-32602, help="the error code of the unknown-tool bug")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve 2026-07-28 over Streamable HTTP on 127.0.0.1:PORT/mcp")
    options = parser.parse_args()
    server = Server(options.bug, options.unknown_tool_code)
    if options.http is None:
        server.serve()
    else:
        stateless.serve_http(options.http, server.stateless_reply, server.log)
