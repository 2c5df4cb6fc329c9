"""An MCP server over stdio (standard library only) that lists tool names outside MCP
2025-11-25's *Tool Names* section beside compliant ones, and is otherwise compliant with
SEP-2145, so that the only findings a run makes on it are the names'.

Breaking the section (each should get one tool-name finding):
- a 129-character name (names SHOULD be 1 to 128 characters);
- `get user` (a space) and `a,b` (a comma);
- a name that, printed raw, would end a line and issue a GitHub Actions command, and one with
  an ESC that starts a terminal colour sequence;
- `dup`, listed twice with the same definition (one on each page).

Compliant: `getUser` and `GetUser` (names are case-sensitive: no duplicate), `DATA_EXPORT_v2`,
`admin.tools.list`, `x` (1 character) and a 128-character name.

It speaks the handshake, answering the revision the client offers if it knows it (2025-11-25
by default; 2025-06-18, which has no such section, when asked), and answers `server/discover`
with -32601 (no stateless revision). Tools are unannotated: the harness sends them unknown
names and malformed requests only.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).parent))  # for a test that imports this server: stdio_loop is beside it
import stdio_loop

LONG_BAD = "n" * 129
LONG_GOOD = "m" * 128
WORKFLOW_COMMAND = "\n::error title=x::boom"
COLOURED = "\x1b[31mred"
BAD = (LONG_BAD, "get user", "a,b", WORKFLOW_COMMAND, COLOURED, "dup")
GOOD = ("getUser", "GetUser", "DATA_EXPORT_v2", "admin.tools.list", "x", LONG_GOOD)
VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": "says ok", "inputSchema": {"type": "object"}}


LISTED = [_tool(name) for name in (*GOOD[:3], LONG_BAD, "get user", "dup", "a,b")]
SECOND_PAGE = [_tool(name) for name in (WORKFLOW_COMMAND, *GOOD[3:], COLOURED, "dup")]
NAMES = {tool["name"] for tool in LISTED + SECOND_PAGE}


def answer(method: str, params: Any) -> dict[str, Any]:
    if method == "initialize":
        offered = params.get("protocolVersion") if isinstance(params, dict) else None
        return {
            "result": {
                "protocolVersion": offered if offered in VERSIONS else VERSIONS[0],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "tool-names-server", "version": "1.0"},
            }
        }
    if method == "tools/list":
        cursor = params.get("cursor") if isinstance(params, dict) else None
        return {"result": {"tools": LISTED, "nextCursor": "2"} if cursor is None else {"tools": SECOND_PAGE}}
    if method == "ping":
        return {"result": {}}
    if method != "tools/call":
        return {"error": {"code": -32601, "message": f"no method {method}"}}
    if not stdio_loop.well_formed_call(params):
        return {"error": {"code": -32602, "message": "Invalid params: not a CallToolRequest"}}
    if params["name"] not in NAMES:
        return {"result": {"content": [{"type": "text", "text": "Unknown tool. Re-run tools/list and retry."}], "isError": True}}
    return {"result": {"content": [{"type": "text", "text": "ok"}]}}


if __name__ == "__main__":
    stdio_loop.serve(lambda message: answer(message["method"], message.get("params")))
