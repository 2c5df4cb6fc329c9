"""An MCP server (stdio, standard library only) that is hostile to its client on the wire.

    python hostile_wire_server.py MODE

One tool, `echo`, annotated read-only, takes `{"n": integer}` (required, nothing else allowed)
and answers `echo n=<n>`; invalid arguments and unknown tools get tool execution errors, malformed
requests -32602: with `--mode compliant` it is a compliant server, the baseline. In every other
mode, a `tools/call` of `echo` with `n >= 100` (so the minimal trigger is `n == 100`) is answered
with the mode's misbehaviour, unless the mode says otherwise:

- `deep`: an answer nested 200,000 arrays deep (ends with the right id);
- `huge`: an answer line of 200 MB (a text content item);
- `huge-first`: the first `tools/call` (whatever its n) gets the 200 MB answer, the rest answer well;
- `huge-id-last`: a 200 MB answer whose `id` comes last, as JavaScript servers write it;
- `endless`: the answer's line never ends (the server writes for as long as it lives);
- `not-utf8`: the answer's text carries bytes that are not UTF-8;
- `not-utf8-ping-error`: as `not-utf8`, for every call of `echo` (whatever n), and `ping` is
  answered with a JSON-RPC error: the server is alive, and answers badly;
- `lone-surrogate`: a JSON-RPC error `-32603` whose message and data carry the JSON escape of a
  lone UTF-16 surrogate (`"\\ud800"`: valid JSON, but no UTF-8 text can carry it);
- `notification-flood`: a thread writes `notifications/message` without end, between answers;
- `stray-flood`: 2,000 answers to ids never sent come before the answer;
- `request-flood`: 2,000 `roots/list` requests to the client come before the answer, while the
  server does not read its stdin until they are written.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

import stdio_loop

MODES = (
    "compliant",
    "deep",
    "huge",
    "huge-first",
    "huge-id-last",
    "endless",
    "not-utf8",
    "not-utf8-ping-error",
    "lone-surrogate",
    "notification-flood",
    "stray-flood",
    "request-flood",
)
THRESHOLD = 100
HUGE = 200 * 1024 * 1024
DEPTH = 200_000
FLOOD = 2_000
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": False}
TOOL = {"name": "echo", "description": "Echo n.", "inputSchema": SCHEMA, "annotations": {"readOnlyHint": True}}

calls = 0


def write_huge(before: bytes, after: bytes) -> None:
    """`before`, HUGE bytes of text, then `after`, in chunks (the server holds no 200 MB)."""
    chunk = b"x" * 1024 * 1024
    out = sys.stdout.buffer
    with stdio_loop.LOCK:
        out.write(before)
        for _ in range(HUGE // len(chunk)):
            out.write(chunk)
        out.write(after)
        out.flush()


def result(msg_id: Any, value: dict[str, Any]) -> None:
    stdio_loop.send(stdio_loop.result_response(msg_id, value))


def error(msg_id: Any, code: int, message: str) -> None:
    stdio_loop.send(stdio_loop.error_response(msg_id, code, message))


def text(value: str, *, is_error: bool = False) -> dict[str, Any]:
    answer: dict[str, Any] = {"content": [{"type": "text", "text": value}]}
    if is_error:
        answer["isError"] = True
    return answer


def misbehave(mode: str, msg_id: Any, n: int) -> bool:
    """Answer call `msg_id` the mode's way; False when it answers this call well."""
    global calls
    calls += 1
    first = calls == 1
    if mode == "huge-first":
        if not first:
            return False
    elif mode == "not-utf8-ping-error":
        pass
    elif n < THRESHOLD:
        return False
    head = b'{"jsonrpc":"2.0","id":' + json.dumps(msg_id).encode()
    if mode == "deep":
        stdio_loop.write(head + b',"result":' + b"[" * DEPTH + b"]" * DEPTH + b"}\n")
    elif mode in ("huge", "huge-first"):
        write_huge(head + b',"result":{"content":[{"type":"text","text":"', b'"}]}}\n')
    elif mode == "huge-id-last":
        write_huge(b'{"result":{"content":[{"type":"text","text":"', b'"}]},"jsonrpc":"2.0","id":' + json.dumps(msg_id).encode() + b"}\n")
    elif mode == "endless":
        stdio_loop.write(b'{"result":{"content":[{"type":"text","text":"')
        while True:
            stdio_loop.write(b"x" * 65536)
    elif mode in ("not-utf8", "not-utf8-ping-error"):
        stdio_loop.write(head + b',"result":{"content":[{"type":"text","text":"caf\xe9 \xff\xfe"}]}}\n')
    elif mode == "lone-surrogate":
        stdio_loop.write(head + b',"error":{"code":-32603,"message":"bad \\udfff here","data":"\\ud800"}}\n')
    elif mode == "stray-flood":
        for stray in range(FLOOD):
            result(10_000_000 + stray, text("stray"))
        return False
    elif mode == "request-flood":
        for asked in range(FLOOD):
            stdio_loop.send({"jsonrpc": "2.0", "id": f"ask-{msg_id}-{asked}", "method": "roots/list"})
        return False
    else:
        return False
    return True


def call(mode: str, msg_id: Any, params: Any) -> None:
    if not stdio_loop.well_formed_call(params):
        error(msg_id, -32602, "Invalid params")
        return
    if params["name"] != "echo":
        result(msg_id, text(f"unknown tool {params['name']!r}", is_error=True))
        return
    arguments = params.get("arguments", {})
    n = arguments.get("n")
    if set(arguments) != {"n"} or not isinstance(n, int) or isinstance(n, bool):
        result(msg_id, text("echo takes one integer argument n", is_error=True))
        return
    if mode != "compliant" and misbehave(mode, msg_id, n):
        return
    result(msg_id, text(f"echo n={n}"))


def flood_notifications() -> None:
    while True:
        stdio_loop.send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "tick " * 20}})


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "compliant"
    if mode not in MODES:
        sys.exit(f"unknown mode {mode!r}: one of {', '.join(MODES)}")
    # Its own dispatch: the notification flood starts after the initialize answer, not before.
    for message in stdio_loop.requests(sys.stdin.buffer):
        msg_id, method, params = message["id"], message["method"], message.get("params")
        if method == "initialize":
            result(
                msg_id,
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}, "logging": {}},
                    "serverInfo": {"name": f"hostile-wire-{mode}", "version": "0.1.0"},
                },
            )
            if mode == "notification-flood":
                threading.Thread(target=flood_notifications, daemon=True).start()
        elif method == "ping":
            if mode == "not-utf8-ping-error":
                error(msg_id, -32603, "ping is not served here")
            else:
                result(msg_id, {})
        elif method == "tools/list":
            result(msg_id, {"tools": [TOOL]})
        elif method == "tools/call":
            call(mode, msg_id, params)
        else:
            error(msg_id, -32601, f"no method {method}")


if __name__ == "__main__":
    main()
