"""An MCP server (stdio, protocol 2025-11-25, standard library only) whose every string is an
attack on whoever prints it: terminal escape sequences (ESC and C1 controls, window titles,
screen clears, OSC 8 hyperlinks), line breaks followed by CI workflow commands (GitHub Actions'
`::error ...::`, `##[error]`, Azure's `##vso[`), Unicode line separators and bidi overrides,
and Markdown that would render as a link or a heading.

They are in `serverInfo.name` and `version`, in the tool names, in an argument's name, in the
JSON-RPC error messages and tool error texts it answers, and on stderr (a few lines per call).
The harness must report all of it as data: escaped on the terminal, in CI logs and in the
Markdown, JUnit and SARIF reports, and exact in the JSON report.

Its behaviour is server-wide (what a person fixes once): an unknown tool is answered with
JSON-RPC error -32602 (a protocol error where SEP-2145 asks for a tool execution error), a
request whose `params` is not an object with a string `name` gets -32603 (not -32602), and
every argument error is a tool execution error whose text repeats the hostile strings.

    python hostile_text_server.py                      # the hostile tools
    python hostile_text_server.py --many 79            # and 79 plain tools that behave alike
    python hostile_text_server.py --refuse-initialize  # initialize gets a hostile JSON-RPC error
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).parent))  # for a test that imports this server: stdio_loop is beside it
import stdio_loop

ESC = "\x1b"
TITLE = f"{ESC}]0;pwned-title\x07"
CLEAR = f"{ESC}[2J{ESC}[H"
CSI_C1 = "\x9b31m"
HYPERLINK = f"{ESC}]8;;https://evil.example/{ESC}\\click me{ESC}]8;;{ESC}\\"

GITHUB_ERROR_TOOL = "probe\n::error title=x::boom"
AZURE_TOOL = "audit\n##[error]x"
ESCAPES_TOOL = f"paint{TITLE}{CLEAR}{CSI_C1}{HYPERLINK}"
UNICODE_TOOL = "rev\u202eesrever\u2028::warning::y\u2029##vso[task.setvariable variable=x]1"
MARKDOWN_TOOL = "[click](https://evil.example/) <b>bold</b> | `tick` # head"
HOSTILE_TOOLS = (GITHUB_ERROR_TOOL, AZURE_TOOL, ESCAPES_TOOL, UNICODE_TOOL, MARKDOWN_TOOL)

ARGUMENT = "q\n::add-mask::secret"
"""An argument name: labels and refusals name it."""

SERVER_INFO = {"name": f"hostile{TITLE}\n::error title=name::from-serverInfo", "version": f"1{CSI_C1}\n##[error]v"}
ERROR_TAIL = f"{CLEAR}{TITLE}\n::error title=message::from-error\n##[error]from-error\u2028::stop-commands::tok{HYPERLINK}"
STDERR_LINES = (
    f"{TITLE}stderr title{CLEAR}",
    "::error title=stderr::from-stderr",
    "##[error]from stderr",
    f"{CSI_C1}c1 \x85 next line \u2028 separator {HYPERLINK}",
)


def _tool(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"A tool whose name is hostile.{ERROR_TAIL}",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {
            "type": "object",
            "properties": {ARGUMENT: {"type": "integer"}},
            "required": [ARGUMENT],
            "additionalProperties": False,
        },
    }


def tools(many: int) -> list[dict[str, Any]]:
    return [_tool(name) for name in HOSTILE_TOOLS] + [_tool(f"get_item_{number:02d}") for number in range(many)]


def refused(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def call(names: set[str], name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tools/call's answer: `result` or `error`, as the reply's one member."""
    if name not in names:
        return {"error": {"code": -32602, "message": f"Unknown tool: {name}{ERROR_TAIL}"}}
    value = arguments.get(ARGUMENT)
    if set(arguments) != {ARGUMENT} or not isinstance(value, int) or isinstance(value, bool):
        return {"result": refused(f"bad arguments for {name}: {ARGUMENT} must be an integer{ERROR_TAIL}")}
    return {"result": {"content": [{"type": "text", "text": f"{name} ok {value}{ERROR_TAIL}"}]}}


def answer(message: dict[str, Any], listed: list[dict[str, Any]], *, refuse_initialize: bool = False) -> dict[str, Any]:
    method, params = message["method"], message.get("params")
    if method == "initialize" and refuse_initialize:
        print(STDERR_LINES[0], file=sys.stderr, flush=True)
        return {"error": {"code": -32603, "message": f"cannot start{ERROR_TAIL}"}}
    if method == "initialize":
        return {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": SERVER_INFO}}
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": listed}}
    if method != "tools/call":
        return {"error": {"code": -32601, "message": f"Method not found{ERROR_TAIL}"}}
    for line in STDERR_LINES:
        print(line, file=sys.stderr, flush=True)
    if not stdio_loop.well_formed_call(params):
        return {"error": {"code": -32603, "message": f"Internal error{ERROR_TAIL}"}}
    return call({tool["name"] for tool in listed}, params["name"], params.get("arguments", {}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--many", type=int, default=0, help="plain tools added after the hostile ones")
    parser.add_argument("--refuse-initialize", action="store_true")
    options = parser.parse_args()
    listed = tools(options.many)
    stdio_loop.serve(lambda message: answer(message, listed, refuse_initialize=options.refuse_initialize))


if __name__ == "__main__":
    main()
