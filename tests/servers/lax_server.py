"""An MCP server (stdio, protocol 2025-11-25, standard library only) whose tools accept less than
their schemas say and coerce what they should refuse: what a harness only reaches by mutating
values the server accepted, or with a value the user knows.

- `toggle`: `enabled` is declared `{"type": ["boolean", "string"]}` but only a boolean, "true"
  or "false" is accepted (any other string is a tool execution error naming `enabled`); `count`
  is declared an integer, and a string of digits is coerced to one and accepted: the bug.
- `read_lines`: `root` must be the directory the server was started with (`--root`, default
  `/srv/data`), or the call is a tool execution error naming `root`; `first` is declared an
  integer, and "2" or false is coerced and accepted: the bug, only reachable with the root.
  Its outputSchema is met by every success.

Every other refusal (a missing or extra property, a wrong type) is a tool execution error too,
an unknown tool is one, and a request whose params are not an object, whose name is not a
string or whose arguments are not an object gets JSON-RPC error -32602.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

TOOLS: list[dict[str, Any]] = [
    {
        "name": "toggle",
        "description": "Switch a counter on or off.",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {
            "type": "object",
            "properties": {"enabled": {"type": ["boolean", "string"]}, "count": {"type": "integer"}},
            "required": ["enabled", "count"],
            "additionalProperties": False,
        },
    },
    {
        "name": "read_lines",
        "description": "Read lines under the server's root directory.",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {
            "type": "object",
            "properties": {"root": {"type": "string"}, "first": {"type": "integer"}},
            "required": ["root", "first"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "type": "object",
            "properties": {"first": {"type": "integer"}},
            "required": ["first"],
        },
    },
]


def refused(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def coerced_integer(value: Any) -> int | None:
    """The lax coercion: integers, digit strings and booleans become integers."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def call(name: str, arguments: dict[str, Any], root: str) -> dict[str, Any]:
    tool = next((tool for tool in TOOLS if tool["name"] == name), None)
    if tool is None:
        return refused(f"Unknown tool: {name}")
    properties = tool["inputSchema"]["properties"]
    missing = [key for key in tool["inputSchema"]["required"] if key not in arguments]
    extra = [key for key in arguments if key not in properties]
    if missing or extra:
        return refused(f"missing {missing} or unexpected {extra} arguments")
    if name == "toggle":
        enabled = arguments["enabled"]
        if not (isinstance(enabled, bool) or enabled in ("true", "false")):
            return refused(f"enabled must be true or false, not {json.dumps(enabled)[:40]}")
        count = arguments["count"] if isinstance(arguments["count"], int) and not isinstance(arguments["count"], bool) else None
        if count is None and isinstance(arguments["count"], str) and arguments["count"].isdigit():
            count = int(arguments["count"])
        if count is None:
            return refused("count must be an integer")
        return {"content": [{"type": "text", "text": f"counter {'on' if enabled in (True, 'true') else 'off'} at {count}"}]}
    if not isinstance(arguments["root"], str) or arguments["root"] != root:
        return refused("root is outside the directory this server may read")
    first = coerced_integer(arguments["first"])
    if first is None:
        return refused("first must be an integer")
    return {"content": [{"type": "text", "text": f"lines from {first}"}], "structuredContent": {"first": first}}


def answer(message: dict[str, Any], root: str) -> dict[str, Any] | None:
    if "id" not in message or "method" not in message:
        return None
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    method, params = message["method"], message.get("params")
    if method == "initialize":
        reply["result"] = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "lax", "version": "1"}}
    elif method == "ping":
        reply["result"] = {}
    elif method == "tools/list":
        reply["result"] = {"tools": TOOLS}
    elif method == "tools/call":
        if not isinstance(params, dict) or not isinstance(params.get("name"), str) or not isinstance(params.get("arguments", {}), dict):
            reply["error"] = {"code": -32602, "message": "Invalid params"}
        else:
            reply["result"] = call(params["name"], params.get("arguments", {}), root)
    else:
        reply["error"] = {"code": -32601, "message": f"Method not found: {method}"}
    return reply


def main() -> None:
    """Serve stdio with a loop of its own, not `stdio_loop`'s: the server must run alone.

    A test (tests/test_reports.py) copies this one file elsewhere and runs it there.
    """
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="/srv/data")
    root = parser.parse_args().root
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            print(json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}), flush=True)
            continue
        if not isinstance(message, dict):
            print(json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}), flush=True)
            continue
        reply = answer(message, root)
        if reply is not None:
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
