"""A server whose stderr belongs to some calls only: `job` with an odd `n` writes a traceback to
stderr (and answers JSON-RPC error -32603, a `tool-failure` finding); with an even `n` it never
answers and writes nothing. A batch of valid calls mixes both, so a call left unanswered is in
flight while others write their tracebacks: its finding must not quote them as its own (issue 35).

Handshake era only (2025-06-18); each `tools/call` is answered from a thread of its own.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

TOOLS = [{"name": "job", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}]
LOCK = threading.Lock()


def write(message: dict[str, Any]) -> None:
    with LOCK:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def call(message: dict[str, Any]) -> None:
    params = message.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("name"), str) or not isinstance(params.get("arguments", {}), dict):
        write({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32602, "message": "Invalid params"}})
        return
    name, arguments = params["name"], params.get("arguments", {})
    if name != "job":
        write({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": f"Unknown tool: {name}"}], "isError": True}})
        return
    n = arguments.get("n")
    if type(n) is not int or set(arguments) != {"n"}:
        write({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": "n: an integer"}], "isError": True}})
    elif n % 2:
        with LOCK:
            sys.stderr.write(f'Traceback (most recent call last):\n  File "job.py", line 1, in job\nRuntimeError: job {n} failed\n')
            sys.stderr.flush()
        write({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": "Internal error"}})


def answer(message: dict[str, Any]) -> dict[str, Any]:
    method = message["method"]
    if method == "initialize":
        result: dict[str, Any] = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "stderr-server", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            continue
        if message["method"] == "tools/call":
            threading.Thread(target=call, args=(message,), daemon=True).start()
        else:
            write(answer(message))


if __name__ == "__main__":
    main()
