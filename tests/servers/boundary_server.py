"""An MCP server over stdio (standard library and jsonschema) whose tools fail only at the edges
of their schemas, and are otherwise compliant with SEP-2145: each validates its arguments (an
invalid call is a tool execution error) and answers a valid call with a result.

The bugs, one per tool, each where random search rarely goes:
- `note`: crashes (JSON-RPC -32603) on a `title` of exactly `maxLength` 80 characters;
- `tag`: crashes on exactly `maxItems` 6 tags;
- `rate`: does not check `maximum` 5: `priority: 6` is accepted;
- `ratio`: checks `exclusiveMaximum: 1` as `maximum: 1`: the excluded bound 1 is accepted;
- `pick`: crashes on the last of its 155 `enum` codes;
- `profile`: crashes when every optional property is present at once.

`--fixed` makes every tool compliant (the same schemas, no bug): the phase must find nothing.
"""

from __future__ import annotations

import sys
from typing import Any

import jsonschema
import stdio_loop

CODES = [f"c{number:03d}" for number in range(155)]
READ_ONLY = {"readOnlyHint": True}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


TOOLS: dict[str, dict[str, Any]] = {
    "note": _object({"title": {"type": "string", "minLength": 1, "maxLength": 80}}, ["title"]),
    "tag": _object({"tags": {"type": "array", "items": {"type": "string", "maxLength": 10}, "maxItems": 6}}, ["tags"]),
    "rate": _object({"priority": {"type": "integer", "minimum": 1, "maximum": 5}}, ["priority"]),
    "ratio": _object({"value": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}}, ["value"]),
    "pick": _object({"code": {"enum": CODES}}, ["code"]),
    "profile": _object(
        {
            "name": {"type": "string", "maxLength": 20},
            "nickname": {"type": "string", "maxLength": 20},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "email": {"type": "string", "maxLength": 40},
            "bio": {"type": "string", "maxLength": 100},
        },
        ["name"],
    ),
}

LAX: dict[str, dict[str, Any]] = {
    "rate": _object({"priority": {"type": "integer", "minimum": 1}}, ["priority"]),
    "ratio": _object({"value": {"type": "number", "exclusiveMinimum": 0, "maximum": 1}}, ["value"]),
}
"""What the buggy tools check instead of their declared schemas."""


class Crash(Exception):
    pass


def run_tool(name: str, arguments: dict[str, Any], *, fixed: bool) -> str:
    if fixed:
        return "ok"
    if name == "note" and len(arguments["title"]) == 80:
        raise Crash("title buffer overflow")
    if name == "tag" and len(arguments["tags"]) == 6:
        raise Crash("tag slots exhausted")
    if name == "pick" and arguments["code"] == CODES[-1]:
        raise Crash("code table off by one")
    if name == "profile" and set(arguments) == set(TOOLS["profile"]["properties"]):
        raise Crash("profile row too wide")
    return "ok"


def call(params: dict[str, Any], *, fixed: bool) -> dict[str, Any]:
    name, arguments = params["name"], params.get("arguments", {})
    if name not in TOOLS:
        return _tool_error(f"Unknown tool {name!r}. Call tools/list to see the tools.")
    checked = TOOLS[name] if fixed else LAX.get(name, TOOLS[name])
    problems = sorted(error.message for error in jsonschema.Draft202012Validator(checked).iter_errors(arguments))
    if problems:
        return _tool_error("Invalid arguments: " + "; ".join(problems))
    try:
        return {"result": {"content": [{"type": "text", "text": run_tool(name, arguments, fixed=fixed)}]}}
    except Crash as crash:
        return {"error": {"code": -32603, "message": f"Internal error: {crash}"}}


def _tool_error(text: str) -> dict[str, Any]:
    return {"result": {"content": [{"type": "text", "text": text}], "isError": True}}


def answer(method: str, params: Any, *, fixed: bool) -> dict[str, Any]:
    if method == "initialize":
        return {
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "boundary-server", "version": "1.0"},
            }
        }
    if method == "tools/list":
        return {
            "result": {
                "tools": [{"name": name, "description": f"the {name} tool", "inputSchema": schema, "annotations": READ_ONLY} for name, schema in TOOLS.items()]
            }
        }
    if method == "ping":
        return {"result": {}}
    if method != "tools/call":
        return {"error": {"code": -32601, "message": f"Method not found: {method}"}}
    if not stdio_loop.well_formed_call(params):
        return {"error": {"code": -32602, "message": "Invalid params: not a CallToolRequest"}}
    return call(params, fixed=fixed)


def main() -> None:
    fixed = "--fixed" in sys.argv
    stdio_loop.serve(lambda message: answer(message["method"], message.get("params"), fixed=fixed))


if __name__ == "__main__":
    main()
