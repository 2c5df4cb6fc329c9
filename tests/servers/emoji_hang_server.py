"""An MCP server that never answers a tool call carrying an emoji, for testing how mcp-toolfuzz
detects and shrinks hangs.

Standard library only.  Speaks MCP protocol version ``2025-11-25`` over stdio (newline-delimited
JSON-RPC).

    python emoji_hang_server.py            # hangs on emoji
    python emoji_hang_server.py --no-hang  # the same server, answering emoji like anything else

Methods answered: ``initialize``, ``ping``, ``tools/list``, ``tools/call``; any other request gets
JSON-RPC error -32601.  Notifications and responses from the client are accepted silently.
Unparsable lines get -32700, messages that are not JSON-RPC 2.0 get -32600 (no batches).

An *emoji* here is a character whose code point is in U+1F000..U+1FAFF (mahjong and domino tiles,
playing cards, enclosed alphanumerics and ideographs, pictographs, emoticons, transport and map
symbols, alchemical symbols, geometric shapes extended, supplemental arrows-C, supplemental symbols
and pictographs, chess symbols, symbols and pictographs extended-A) or in U+2600..U+27BF
(miscellaneous symbols and dingbats).  Nothing else counts: not U+FE0F (variation selector-16),
not U+200D (zero width joiner), not lone surrogates, not the other symbols of the BMP.

The hang: a ``tools/call`` of ``search``, ``tag`` or ``note`` (the tools that take strings) whose
``arguments`` contain an emoji anywhere in any string (a value or a key, at any depth of nested
objects and arrays) is never answered, whether or not the arguments are otherwise valid.  The
server stays up and goes on answering every other request, ``ping`` included, while such
requests are pending.  ``count`` takes no string and never hangs; ``slow`` never hangs either: it
answers every call (valid or not, emoji or not) after 2 s, from a timer thread, so that other
requests are answered meanwhile; a harness that takes slowness for a hang is caught by it.  With
``--no-hang`` emoji calls are answered like any other.

Tools (all annotated ``{"readOnlyHint": true}``; every ``inputSchema`` has ``additionalProperties:
false``; the server checks arguments itself):

========= ====================================================== ==================================
tool      arguments                                              answer
========= ====================================================== ==================================
search    ``query``: string (required), ``limit``: integer        ``search: <query> (limit <limit>)``
          1..50 (optional, default 10)
tag       ``name``: string (required), ``color``: "red" or        ``tag: <name> <color>``
          "green" (optional, default "red")
note      ``title``: string, ``body``: string (both required)     ``note: <title>: <body>``
count     ``n``: integer (required)                              ``count: <n>``
slow      ``text``: string (required)                            ``slow: <text>``, after 2 s
========= ====================================================== ==================================

Integers are JSON integers, or floats with no fractional part (5.0), as JSON Schema has it;
booleans are not integers.  SEP-2145: argument errors (missing, wrong type, out of range, not in
the enum, extra properties) and unknown tool names are tool execution errors, a result with
``isError: true`` and a text saying what is wrong.  A ``tools/call`` whose ``params`` is not an
object, whose ``name`` is missing or not a string, or whose ``arguments`` is present but not an
object gets JSON-RPC error -32602 (and is never hung: the hang is only for well-formed calls).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).parent))  # for a test that imports this server: stdio_loop is beside it
import stdio_loop

PROTOCOL_VERSION = "2025-11-25"
SERVER_INFO = {"name": "emoji-hang-server", "version": "0.1.0"}
SLOW_SECONDS = 2.0
EMOJI_RANGES = ((0x1F000, 0x1FAFF), (0x2600, 0x27BF))
HANGING_TOOLS = frozenset({"search", "tag", "note"})
COLORS = ["red", "green"]


def is_emoji(character: str) -> bool:
    return any(low <= ord(character) <= high for low, high in EMOJI_RANGES)


def contains_emoji(value: Any) -> bool:
    """Whether any string in `value` (keys included, at any depth) has an emoji character."""
    if isinstance(value, str):
        return any(is_emoji(character) for character in value)
    if isinstance(value, dict):
        return any(contains_emoji(key) or contains_emoji(item) for key, item in value.items())
    if isinstance(value, list):
        return any(contains_emoji(item) for item in value)
    return False


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "search": (
        "Search for a query; at most `limit` results.",
        _schema({"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 50}}, ["query"]),
    ),
    "tag": (
        "Tag something with a name and a color.",
        _schema({"name": {"type": "string"}, "color": {"type": "string", "enum": COLORS}}, ["name"]),
    ),
    "note": ("Write a note with a title and a body.", _schema({"title": {"type": "string"}, "body": {"type": "string"}}, ["title", "body"])),
    "count": ("Count to n.", _schema({"n": {"type": "integer"}}, ["n"])),
    "slow": ("Echo a text, after 2 seconds.", _schema({"text": {"type": "string"}}, ["text"])),
}


def list_tools() -> list[dict[str, Any]]:
    return [
        {"name": name, "description": description, "inputSchema": schema, "annotations": {"readOnlyHint": True}}
        for name, (description, schema) in TOOLS.items()
    ]


# --- argument checks (hand-written, for the types the schemas use) -----------------------------


def _show(value: Any) -> str:
    return f"{type(value).__name__} {json.dumps(value)[:80]}"


def as_integer(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def check_arguments(name: str, arguments: dict[str, Any]) -> str | None:
    """None if `arguments` are valid for tool `name`, else the text saying what is wrong."""
    schema = TOOLS[name][1]
    properties: dict[str, Any] = schema["properties"]
    problems = []
    extra = sorted(key for key in arguments if key not in properties)
    if extra:
        problems.append("unexpected argument(s): " + ", ".join(repr(key) for key in extra))
    for key in schema["required"]:
        if key not in arguments:
            problems.append(f"missing required argument {key!r}")
    for key, rule in properties.items():
        if key not in arguments:
            continue
        value = arguments[key]
        if rule["type"] == "string":
            if not isinstance(value, str):
                problems.append(f"argument {key!r} must be a string, got {_show(value)}")
            elif "enum" in rule and value not in rule["enum"]:
                problems.append(f"argument {key!r} must be one of {rule['enum']}, got {json.dumps(value)[:80]}")
        else:  # integer
            number = as_integer(value)
            if number is None:
                problems.append(f"argument {key!r} must be an integer, got {_show(value)}")
            elif "minimum" in rule and not rule["minimum"] <= number <= rule["maximum"]:
                problems.append(f"argument {key!r} must be between {rule['minimum']} and {rule['maximum']}, got {number}")
    return "Invalid arguments: " + "; ".join(problems) if problems else None


def run_tool(name: str, arguments: dict[str, Any]) -> str:
    if name == "search":
        limit = as_integer(arguments.get("limit", 10))
        return f"search: {arguments['query']} (limit {limit})"
    if name == "tag":
        return f"tag: {arguments['name']} {arguments.get('color', 'red')}"
    if name == "note":
        return f"note: {arguments['title']}: {arguments['body']}"
    if name == "count":
        return f"count: {as_integer(arguments['n'])}"
    return f"slow: {arguments['text']}"


# --- JSON-RPC ----------------------------------------------------------------------------------


def text_result(text: str, is_error: bool) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


HANG = "hang"
"""What call_tool returns for a request that is never to be answered."""


def call_tool(msg_id: Any, params: Any, hang: bool, later: Callable[[dict[str, Any]], None]) -> dict[str, Any] | str | None:
    """The answer; HANG for none ever; None when `later` will be given the answer (slow)."""
    if not isinstance(params, dict):
        return stdio_loop.error_response(msg_id, -32602, "Invalid params: tools/call params must be an object")
    name = params.get("name")
    if not isinstance(name, str):
        return stdio_loop.error_response(msg_id, -32602, "Invalid params: 'name' must be a string")
    arguments = params.get("arguments", {})
    if not isinstance(arguments, dict):
        return stdio_loop.error_response(msg_id, -32602, "Invalid params: 'arguments' must be an object")
    if name not in TOOLS:
        return stdio_loop.result_response(msg_id, text_result(f"Unknown tool: {name}", True))
    if hang and name in HANGING_TOOLS and contains_emoji(arguments):
        return HANG
    problem = check_arguments(name, arguments)
    answer = stdio_loop.result_response(msg_id, text_result(problem, True) if problem else text_result(run_tool(name, arguments), False))
    if name == "slow":
        later(answer)
        return None
    return answer


def handle_request(msg: dict[str, Any], hang: bool, later: Callable[[dict[str, Any]], None]) -> dict[str, Any] | str | None:
    msg_id, method, params = msg["id"], msg["method"], msg.get("params")
    if method == "initialize":
        if not isinstance(params, dict):
            return stdio_loop.error_response(msg_id, -32602, "Invalid params: initialize params must be an object")
        return stdio_loop.result_response(
            msg_id,
            {"protocolVersion": PROTOCOL_VERSION, "capabilities": {"tools": {"listChanged": False}}, "serverInfo": SERVER_INFO},
        )
    if method == "ping":
        return stdio_loop.result_response(msg_id, {})
    if method == "tools/list":
        return stdio_loop.result_response(msg_id, {"tools": list_tools()})
    if method == "tools/call":
        return call_tool(msg_id, params, hang, later)
    return stdio_loop.error_response(msg_id, -32601, f"Method not found: {method}")


# --- stdio -------------------------------------------------------------------------------------


def answer_later(answer: dict[str, Any]) -> None:
    # A non-daemon timer: the answer is still written if stdin closes meanwhile.
    threading.Timer(SLOW_SECONDS, stdio_loop.send_compact, args=(answer,)).start()


def serve_stdio(hang: bool) -> None:
    for msg in stdio_loop.jsonrpc_requests():
        answer = handle_request(msg, hang, answer_later)
        if isinstance(answer, dict):
            stdio_loop.send_compact(answer)
        # HANG: never answered, the loop goes on serving; None: the slow tool's timer answers.


def main() -> None:
    parser = argparse.ArgumentParser(description="An MCP stdio server that never answers tool calls carrying an emoji.")
    parser.add_argument("--no-hang", action="store_true", help="answer tool calls carrying an emoji like any other")
    args = parser.parse_args()
    serve_stdio(hang=not args.no_hang)


if __name__ == "__main__":
    main()
