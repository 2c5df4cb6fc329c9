"""A small MCP server over stdio, written without an SDK: two tools, `add` and `greet`.

It answers the way SEP-2145 asks: an unknown tool, arguments its inputSchema rejects and a tool
that fails get a tool execution error (a result with isError: true); a request that is not a
well-formed tools/call gets JSON-RPC error -32602. Run `python server.py --bug` for a copy that
answers an unknown tool with a JSON-RPC error instead, and watch tests/test_invariants.py fail.
"""

from __future__ import annotations

import json
import sys

TOOLS = [
    {
        "name": "add",
        "description": "Add two integers.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "greet",
        "description": "Say hello.",
        "inputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 40}},
            "required": ["name"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True},
    },
]
BUGGY = "--bug" in sys.argv


def text(message: str, *, error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": message}], "isError": error}


def invalid(arguments: dict, schema: dict) -> str | None:
    """Why `arguments` fail `schema` (the little of JSON Schema these two tools use), or None."""
    for name in schema["required"]:
        if name not in arguments:
            return f"{name} is required"
    for name, value in arguments.items():
        declared = schema["properties"].get(name)
        if declared is None:
            return f"unexpected argument {name}"
        if declared["type"] == "integer" and (isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, float) and value.is_integer()))):
            return f"{name} must be an integer"
        if declared["type"] == "string":
            if not isinstance(value, str):
                return f"{name} must be a string"
            if not declared["minLength"] <= len(value) <= declared["maxLength"]:
                return f"{name} must have {declared['minLength']} to {declared['maxLength']} characters"
    return None


def call_tool(params: object) -> dict:
    if not isinstance(params, dict) or not isinstance(params.get("name"), str):
        raise ValueError("params.name must be a string")
    arguments = params.get("arguments", {})
    if not isinstance(arguments, dict):
        raise ValueError("params.arguments must be an object")
    tool = next((tool for tool in TOOLS if tool["name"] == params["name"]), None)
    if tool is None:
        if BUGGY:
            raise LookupError(f"Unknown tool: {params['name']}")
        return text(f"Unknown tool: {params['name']}", error=True)
    problem = invalid(arguments, tool["inputSchema"])
    if problem:
        return text(f"Invalid arguments for {tool['name']}: {problem}", error=True)
    if tool["name"] == "add":
        return text(str(int(arguments["a"]) + int(arguments["b"])))
    return text(f"Hello, {arguments['name']}!")


def answer(message: dict) -> dict | None:
    method, params, request_id = message.get("method"), message.get("params"), message.get("id")
    if "id" not in message:
        return None
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "example-server", "version": "1.0.0"}}
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        try:
            result = call_tool(params)
        except ValueError as error:
            return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": f"Invalid params: {error}"}}
        except LookupError as error:
            return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": str(error)}}
    else:
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"Method not found: {method}"}}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            reply: dict | None = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
        else:
            reply = answer(message) if isinstance(message, dict) else {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
