"""The stdio plumbing the hand-written test servers share.

A server reads one JSON-RPC message a line on stdin and writes one a line on stdout. This module
reads and parses the lines, picks out the requests and writes the answers. Each server keeps
what makes it different: its tools, its answers, its misbehaviours.

Servers run as scripts, so their directory is `sys.path[0]` and `import stdio_loop` works. A
server that tests import appends its directory to `sys.path` first.

It imports only what it runs with: `typing` and `collections.abc` serve its annotations alone.
The suite starts these servers thousands of times (a sequence on a fresh server each), and those
two imports were a third of a start's CPU.
"""

from __future__ import annotations

import json
import os
import sys
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any, TypeGuard

LOCK = threading.Lock()
"""Held while stdout is written: lines from several threads never interleave."""


def error_response(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def result_response(msg_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": result}


PARSE_ERROR = error_response(None, -32700, "Parse error")


def write(data: bytes, *, quit_on_close: bool = False) -> None:
    """Write `data` to stdout and flush it, holding LOCK.

    With `quit_on_close`, a closed stdout ends the process quietly (exit 0). A timer thread may
    answer after the client has gone.
    """
    with LOCK:
        try:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        except (BrokenPipeError, ValueError):
            if not quit_on_close:
                raise
            os._exit(0)


def send(message: Any) -> None:
    """Write one message as a line of JSON, with json.dumps' default separators."""
    write(json.dumps(message).encode() + b"\n")


def reply(request: dict[str, Any], answer: dict[str, Any]) -> None:
    """Answer `request` with `answer`: its `result` or `error` member."""
    send({"jsonrpc": "2.0", "id": request["id"], **answer})


def messages(lines: Iterable[str] | Iterable[bytes] | None = None, *, parse_error: bool = True, skip_blank: bool = False) -> Iterator[Any]:
    """Each line's JSON value, from stdin unless `lines` is given.

    An unparsable line gets PARSE_ERROR, unless `parse_error` is False. Blank lines are parse
    errors too, unless `skip_blank`. Lines are text (`sys.stdin`) or bytes (`sys.stdin.buffer`),
    as the server chooses: the two split and decode odd input differently.
    """
    for line in sys.stdin if lines is None else lines:
        if skip_blank and not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            if parse_error:
                send(PARSE_ERROR)
            continue
        yield message


def requests(lines: Iterable[str] | Iterable[bytes] | None = None, *, parse_error: bool = True, skip_blank: bool = False) -> Iterator[dict[str, Any]]:
    """The requests among `messages`: objects with an `id` and a `method`.

    Notifications, the client's responses and anything else go unanswered.
    """
    for message in messages(lines, parse_error=parse_error, skip_blank=skip_blank):
        if isinstance(message, dict) and "id" in message and "method" in message:
            yield message


def serve(answer: Callable[[dict[str, Any]], dict[str, Any] | None], *, parse_error: bool = True) -> None:
    """Answer each request on stdin with what `answer` returns.

    That is the reply's `result` or `error` member. None sends nothing: the server answers later,
    or never.
    """
    for request in requests(parse_error=parse_error):
        answered = answer(request)
        if answered is not None:
            reply(request, answered)


def plain_server(message: dict[str, Any], server_info: dict[str, Any], tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The answer of a plain 2025-11-25 server with `tools` to anything but a well-formed
    `tools/call`: initialize, tools/list, ping, an unknown method (-32601), a malformed call
    (-32602). None for a well-formed `tools/call`, which is the server's own to answer."""
    method = message.get("method")
    if method == "initialize":
        return {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": server_info}}
    if method == "tools/list":
        return {"result": {"tools": tools}}
    if method == "ping":
        return {"result": {}}
    if method != "tools/call":
        return {"error": {"code": -32601, "message": f"Method not found: {method}"}}
    if not well_formed_call(message.get("params")):
        return {"error": {"code": -32602, "message": "Invalid params: not a CallToolRequest"}}
    return None


def well_formed_call(params: Any) -> TypeGuard[dict[str, Any]]:
    """Whether a `tools/call`'s params are an object with a string name and object arguments."""
    return isinstance(params, dict) and isinstance(params.get("name"), str) and isinstance(params.get("arguments", {}), dict)


# --- strict JSON-RPC 2.0 (emoji_hang_server, misbehaving_server) -------------------------------


def is_valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def classify(msg: Any) -> str:
    """One of "request", "notification", "response", "invalid"."""
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
        return "invalid"
    if "method" in msg:
        if not isinstance(msg["method"], str):
            return "invalid"
        if "id" in msg:
            return "request" if is_valid_id(msg["id"]) else "invalid"
        return "notification"
    if "id" in msg and ("result" in msg) != ("error" in msg):
        return "response"
    return "invalid"


def invalid_request(msg: Any) -> dict[str, Any]:
    msg_id = msg.get("id") if isinstance(msg, dict) and is_valid_id(msg.get("id")) else None
    return error_response(msg_id, -32600, "Invalid Request: not a JSON-RPC 2.0 request, notification or response")


def compact(message: Any) -> str:
    return json.dumps(message, separators=(",", ":"))


def send_compact(message: Any) -> None:
    """Write one message as a compact JSON line; a closed stdout ends the process quietly."""
    write((compact(message) + "\n").encode("utf-8"), quit_on_close=True)


def jsonrpc_requests() -> Iterator[dict[str, Any]]:
    """The JSON-RPC 2.0 requests on stdin, checked strictly; errors are answered compactly.

    Blank lines are skipped. A line that is not UTF-8 JSON gets -32700. A message that is not
    JSON-RPC 2.0 gets -32600. Notifications and the client's responses need no answer.
    """
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        try:
            msg = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            send_compact(PARSE_ERROR)
            continue
        kind = classify(msg)
        if kind == "invalid":
            send_compact(invalid_request(msg))
        elif kind == "request":
            yield msg
