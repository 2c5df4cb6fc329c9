"""A server whose stderr belongs to some calls only: `job` with an odd `n` writes a traceback to
stderr (and answers JSON-RPC error -32603, a `tool-failure` finding); with an even `n` it never
answers and writes nothing. A batch of valid calls mixes both, so a call left unanswered is in
flight while others write their tracebacks: its finding must not quote them as its own (issue 35).

Handshake era only (2025-06-18); each `tools/call` is answered from a thread of its own.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import stdio_loop

TOOLS = [{"name": "job", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}]


def call(message: dict[str, Any]) -> None:
    params = message.get("params")
    if not stdio_loop.well_formed_call(params):
        stdio_loop.reply(message, {"error": {"code": -32602, "message": "Invalid params"}})
        return
    name, arguments = params["name"], params.get("arguments", {})
    if name != "job":
        stdio_loop.reply(message, {"result": {"content": [{"type": "text", "text": f"Unknown tool: {name}"}], "isError": True}})
        return
    n = arguments.get("n")
    if type(n) is not int or set(arguments) != {"n"}:
        stdio_loop.reply(message, {"result": {"content": [{"type": "text", "text": "n: an integer"}], "isError": True}})
    elif n % 2:
        with stdio_loop.LOCK:
            sys.stderr.write(f'Traceback (most recent call last):\n  File "job.py", line 1, in job\nRuntimeError: job {n} failed\n')
            sys.stderr.flush()
        stdio_loop.reply(message, {"error": {"code": -32603, "message": "Internal error"}})


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """The reply's member; None for a `tools/call`, which a thread of its own answers."""
    method = message["method"]
    if method == "tools/call":
        threading.Thread(target=call, args=(message,), daemon=True).start()
        return None
    if method == "initialize":
        return {"result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "stderr-server", "version": "1"}}}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": f"no method {method}"}}


if __name__ == "__main__":
    stdio_loop.serve(answer, parse_error=False)
