"""The bundled demo: a small MCP server with deliberate bugs.

It speaks over stdio, and uses the standard library only.
`mcp-toolfuzz run` with no target fuzzes it.
So a new user sees what findings look like in a few seconds.
It is also the fast target of the benchmarks.
Run it alone with `python -m fuzz.demo_server`.

It has six bugs.
Each is a violation of SEP-2145 that real servers commit.

`unknown-tool`: an unknown tool name gets JSON-RPC error -32602, not a tool execution error.
That is the 2025-11-25 wording.

`tool-failure`: `divide` with `b = 0` lets the exception escape as JSON-RPC error -32603.

`arguments-not-validated`: `set_volume` never checks `level` against its `maximum`.
So `level: 12` succeeds.

`malformed-request`: `"arguments": null` is taken for "no arguments".
It should be refused as a malformed request.

`output-schema`: `mirror` never checks its output against its outputSchema.
It is a mirror tool: it returns its `output` argument as structuredContent.

`internal-details-leak` (advisory): `lookup` of "gamma" fails inside the tool.
The error text then carries the Python traceback.
Its file names are relative to the package's directory (`fuzz/demo_server.py`).
So the demo answers alike on every machine.
Its reproductions, committed or shown in the docs, carry no machine's paths.

`maintenance` is listed, but refused with a proper tool execution error.
Run the demo with `--unavailable maintenance`, as `mcp-toolfuzz run` with no target does.
`reset` is annotated `destructiveHint: true`, so a default run leaves its body alone.

Everything else is compliant.
Arguments are validated against each `inputSchema`, and refusals carry `isError: true`.
Malformed requests are answered with -32602.
`tools/list` is paginated.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Any

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
PAGE_SIZE = 3

READ_ONLY = {"readOnlyHint": True}
WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number", "minimum": -100, "maximum": 100}},
    "required": ["city", "celsius"],
    "additionalProperties": False,
}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "add",
        "annotations": READ_ONLY,
        "description": "Add two integers.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    },
    {
        "name": "echo",
        "annotations": READ_ONLY,
        "description": "Return the text it is given.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "maxLength": 200}},
            "required": ["text"],
            "additionalProperties": False,
        },
    },
    {
        "name": "divide",
        "annotations": READ_ONLY,
        "description": "Divide a by b.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    },
    {
        "name": "set_volume",
        "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True},
        "description": "Set the volume, 0 to 11.",
        "inputSchema": {
            "type": "object",
            "properties": {"level": {"type": "integer", "minimum": 0, "maximum": 11}},
            "required": ["level"],
            "additionalProperties": False,
        },
    },
    {
        "name": "lookup",
        "annotations": READ_ONLY,
        "description": "Look a key up.",
        "inputSchema": {
            "type": "object",
            "properties": {"key": {"enum": ["alpha", "beta", "gamma"]}},
            "required": ["key"],
            "additionalProperties": False,
        },
    },
    {
        "name": "mirror",
        "description": "Return the `output` argument as structured weather (a mirror tool, for output fuzzing).",
        "annotations": READ_ONLY,
        "inputSchema": {"type": "object", "properties": {"output": {}}, "required": ["output"]},
        "outputSchema": WEATHER,
    },
    {
        "name": "maintenance",
        "description": "Run maintenance (disabled on this server).",
        "inputSchema": {"type": "object", "properties": {"level": {"type": "integer"}}},
    },
    {
        "name": "reset",
        "description": "Forget everything.",
        "annotations": {"destructiveHint": True},
        "inputSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]},
    },
]
_SCHEMAS = {tool["name"]: tool["inputSchema"] for tool in TOOLS}
_TABLE = {"alpha": 1, "beta": 2}


class ProtocolError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    return result


def schema_problem(schema: dict[str, Any], value: Any, where: str = "arguments") -> str | None:
    """A hand-written check of the few keywords the demo's schemas use (standard library only)."""
    kinds = {
        "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
        "object": lambda v: isinstance(v, dict),
    }
    if "type" in schema and not kinds[schema["type"]](value):
        return f"{where} must be {schema['type']}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} must be one of {schema['enum']}"
    if "minimum" in schema and value < schema["minimum"]:
        return f"{where} must be at least {schema['minimum']}"
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        return f"{where} must be at most {schema['maxLength']} characters"
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                return f"{where}.{name} is required"
        for name, item in value.items():
            if name not in schema.get("properties", {}):
                if schema.get("additionalProperties") is False:
                    return f"{where}.{name} is not allowed"
                continue
            problem = schema_problem(schema["properties"][name], item, f"{where}.{name}")
            if problem:
                return problem
    return None


def call_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if name == "add":
        return text_result(str(arguments["a"] + arguments["b"]))
    if name == "echo":
        return text_result(arguments["text"])
    if name == "divide":
        try:
            return text_result(str(arguments["a"] / arguments["b"]))
        except ZeroDivisionError:
            raise ProtocolError(-32603, "Internal error: division by zero") from None
    if name == "set_volume":
        return text_result(f"volume set to {arguments['level']}")
    if name == "mirror":
        return {**text_result(json.dumps(arguments["output"])), "structuredContent": arguments["output"]}
    if name == "reset":
        return text_result("everything forgotten")
    return text_result(str(_TABLE[arguments["key"]]))


def handle(method: str, params: Any) -> dict[str, Any]:
    if method == "initialize":
        offered = params.get("protocolVersion") if isinstance(params, dict) else None
        return {
            "protocolVersion": offered if offered in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "mcp-toolfuzz-demo", "version": "1.0.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        start = int(params["cursor"]) if isinstance(params, dict) and str(params.get("cursor", "")).isdigit() else 0
        page: dict[str, Any] = {"tools": TOOLS[start : start + PAGE_SIZE]}
        if start + PAGE_SIZE < len(TOOLS):
            page["nextCursor"] = str(start + PAGE_SIZE)
        return page
    if method == "tools/call":
        if not isinstance(params, dict) or not isinstance(params.get("name"), str):
            raise ProtocolError(-32602, "Invalid params: params.name must be a string")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ProtocolError(-32602, "Invalid params: params.arguments must be an object")
        name = params["name"]
        if name not in _SCHEMAS:
            raise ProtocolError(-32602, f"Unknown tool: {name}")
        if name == "maintenance":
            return text_result("Tool unavailable: maintenance. Reason: disabled by the operator.", is_error=True)
        problem = schema_problem(_SCHEMAS[name], arguments)
        if problem:
            return text_result(f"Invalid input: {name}. {problem}.", is_error=True)
        try:
            return call_tool(name, arguments)
        except ProtocolError:
            raise
        except Exception:
            return text_result(f"Tool {name} failed:\n{_traceback()}", is_error=True)
    raise ProtocolError(-32601, f"Method not found: {method}")


_INSTALLED_IN = f"{Path(__file__).resolve().parent.parent}/"


def _traceback() -> str:
    """The exception being handled, as Python prints it, with relative paths.

    Paths are relative to where the package is installed; the module's docstring says why."""
    return traceback.format_exc().replace(_INSTALLED_IN, "")


def answer(line: str) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
    if "id" not in message:
        return None
    try:
        return {"jsonrpc": "2.0", "id": message["id"], "result": handle(message["method"], message.get("params"))}
    except ProtocolError as error:
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": error.code, "message": str(error)}}


def main() -> None:
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", errors="replace")
        if not line.strip():
            continue
        reply = answer(line)
        if reply is not None:
            sys.stdout.buffer.write(json.dumps(reply).encode() + b"\n")
            sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
