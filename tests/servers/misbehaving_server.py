"""A deliberately misbehaving MCP server, for testing mcp-toolfuzz's detection and shrinking.

Standard library only.  Speaks MCP protocol version ``2025-11-25`` either over stdio
(newline-delimited JSON-RPC, the default) or, with ``--http PORT``, as a minimal
Streamable HTTP server on ``http://127.0.0.1:PORT/mcp``.

    python misbehaving_server.py              # stdio
    python misbehaving_server.py --http 8765  # Streamable HTTP

Methods answered: ``initialize``, ``ping``, ``tools/list``, ``tools/call``, ``logging/setLevel``
(the server declares the ``logging`` capability because ``flood`` sends log notifications); any
other request gets JSON-RPC error -32601.  Notifications (``notifications/initialized`` ...) and
responses from the client are accepted silently.  JSON-RPC batches are not supported (-32600).

Every tool is annotated ``{"readOnlyHint": true}`` and takes one required integer argument ``n``
(no other property allowed).  For ``n < 100`` each tool answers a correct ``CallToolResult``
(``"<tool> ok: n=<n>"``); for ``n >= 100`` it misbehaves, so the minimal trigger is ``n == 100``:

========== ===================================================== ==========================================
tool       stdio                                                 HTTP
========== ===================================================== ==========================================
crash      "fatal: n too large" on stderr, ``os._exit(3)``        same (the whole process exits)
hang       never answers that request (others still answered)   never responds to that POST
garbage    writes the non-JSON line ``DEBUG n=<n>`` to stdout,   200 whose body is ``DEBUG n=<n>`` followed
           then answers correctly                               by the answer on the next line (not JSON)
wrong_id   answers with id + 1000000 (for a string id: the      same, in a 200 application/json body
           number 1000000)
double     writes the correct answer twice                      an SSE response carrying the answer twice
huge       answers one text content item of 20 MB (20*2**20 B)  same, as a 20 MB JSON body
slow       answers correctly after 2 s, in a separate thread    answers correctly after 2 s
flood      5000 ``notifications/message`` then the answer       SSE: 5000 notification events, then answer
status500  (not offered: unknown tool)                          HTTP 500 with a text/plain body
========== ===================================================== ==========================================

Argument errors are tool execution errors (a result with ``isError: true`` and a text content
saying what is wrong): ``n`` missing, not an integer (booleans are not integers; a float with no
fractional part such as 5.0 is accepted, as JSON Schema does), extra properties.  An unknown tool
name is also ``isError: true``.  A ``tools/call`` whose ``params`` is not an object, whose ``name``
is missing or not a string, or whose ``arguments`` is present but not an object gets JSON-RPC error
-32602.

HTTP details: POST a single JSON-RPC message (Content-Length required).  ``initialize`` creates a
session and the answer carries an ``Mcp-Session-Id`` header; every other POST (and DELETE) must
carry a known session id (missing: 400, unknown: 404).  A request gets ``200 application/json``
with the answer (SSE only for ``double``/``flood``); a notification or response gets 202 with an
empty body; unparsable JSON or an invalid JSON-RPC message gets 400 with a JSON-RPC error.  The
Accept and Content-Type headers and ``MCP-Protocol-Version`` are not checked.  DELETE ends the
session (200).  GET gets 405 (no server-initiated SSE stream).  Nothing is logged.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import stdio_loop

PROTOCOL_VERSION = "2025-11-25"
SERVER_INFO = {"name": "misbehaving-server", "version": "0.1.0"}
THRESHOLD = 100
HUGE_SIZE = 20 * 1024 * 1024
FLOOD_COUNT = 5000
SLOW_SECONDS = 2.0
WRONG_ID_OFFSET = 1_000_000

TOOL_DESCRIPTIONS = {
    "crash": "Echo n; for n >= 100 the server process exits without answering.",
    "hang": "Echo n; for n >= 100 the request is never answered.",
    "garbage": "Echo n; for n >= 100 a non-JSON debug line is written to the output first.",
    "wrong_id": "Echo n; for n >= 100 the answer carries the wrong request id.",
    "double": "Echo n; for n >= 100 the answer is sent twice.",
    "huge": "Echo n; for n >= 100 the answer is a 20 MB text.",
    "slow": "Echo n; for n >= 100 the answer comes after 2 seconds.",
    "flood": "Echo n; for n >= 100 5000 log notifications precede the answer.",
}
HTTP_ONLY_TOOLS = {"status500": "Echo n; for n >= 100 the HTTP response is a 500 with a plain-text body."}

INPUT_SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}},
    "required": ["n"],
    "additionalProperties": False,
}


def tool_names(http: bool) -> dict[str, str]:
    return {**TOOL_DESCRIPTIONS, **HTTP_ONLY_TOOLS} if http else dict(TOOL_DESCRIPTIONS)


def list_tools(http: bool) -> list[dict[str, Any]]:
    return [
        {"name": name, "description": description, "inputSchema": INPUT_SCHEMA, "annotations": {"readOnlyHint": True}}
        for name, description in tool_names(http).items()
    ]


# --- JSON-RPC core (shared by both transports) --------------------------------------------------


def tool_error(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


class Call:
    """The outcome of one request: the correct answer, and the misbehaving tool (if its trigger fired)."""

    def __init__(self, answer: dict[str, Any], trigger: str | None = None, n: int | None = None):
        self.answer = answer
        self.trigger = trigger
        self.n = n


def check_arguments(arguments: dict[str, Any]) -> tuple[int | None, str | None]:
    """Return (n, None) or (None, error text)."""
    problems = []
    extra = sorted(key for key in arguments if key != "n")
    if extra:
        problems.append("unexpected argument(s): " + ", ".join(repr(k) for k in extra))
    n = None
    if "n" not in arguments:
        problems.append("missing required argument 'n'")
    else:
        value = arguments["n"]
        if isinstance(value, int) and not isinstance(value, bool):
            n = value
        elif isinstance(value, float) and value.is_integer():
            n = int(value)
        else:
            problems.append(f"argument 'n' must be an integer, got {type(value).__name__} {json.dumps(value)[:80]}")
    if problems:
        return None, "Invalid arguments: " + "; ".join(problems)
    return n, None


def call_tool(msg_id: Any, params: Any, http: bool) -> Call:
    if not isinstance(params, dict):
        return Call(stdio_loop.error_response(msg_id, -32602, "Invalid params: tools/call params must be an object"))
    name = params.get("name")
    if not isinstance(name, str):
        return Call(stdio_loop.error_response(msg_id, -32602, "Invalid params: 'name' must be a string"))
    arguments = params.get("arguments", {})
    if not isinstance(arguments, dict):
        return Call(stdio_loop.error_response(msg_id, -32602, "Invalid params: 'arguments' must be an object"))
    if name not in tool_names(http):
        return Call(stdio_loop.result_response(msg_id, tool_error(f"Unknown tool: {name}")))
    n, problem = check_arguments(arguments)
    if problem is not None:
        return Call(stdio_loop.result_response(msg_id, tool_error(problem)))
    assert n is not None
    if n < THRESHOLD:
        return Call(stdio_loop.result_response(msg_id, {"content": [{"type": "text", "text": f"{name} ok: n={n}"}], "isError": False}))
    if name == "crash":
        sys.stderr.write("fatal: n too large\n")
        sys.stderr.flush()
        os._exit(3)
    text = "x" * HUGE_SIZE if name == "huge" else f"{name} ok: n={n}"
    return Call(stdio_loop.result_response(msg_id, {"content": [{"type": "text", "text": text}], "isError": False}), name, n)


def handle_request(msg: dict[str, Any], http: bool) -> Call:
    msg_id, method, params = msg["id"], msg["method"], msg.get("params")
    if method == "initialize":
        if not isinstance(params, dict):
            return Call(stdio_loop.error_response(msg_id, -32602, "Invalid params: initialize params must be an object"))
        return Call(
            stdio_loop.result_response(
                msg_id,
                {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {"tools": {"listChanged": False}, "logging": {}},
                    "serverInfo": SERVER_INFO,
                },
            )
        )
    if method in ("ping", "logging/setLevel"):
        return Call(stdio_loop.result_response(msg_id, {}))
    if method == "tools/list":
        return Call(stdio_loop.result_response(msg_id, {"tools": list_tools(http)}))
    if method == "tools/call":
        return call_tool(msg_id, params, http)
    return Call(stdio_loop.error_response(msg_id, -32601, f"Method not found: {method}"))


def wrong_id(answer: dict[str, Any]) -> dict[str, Any]:
    msg_id = answer["id"]
    bad = msg_id + WRONG_ID_OFFSET if isinstance(msg_id, int) else WRONG_ID_OFFSET
    return {**answer, "id": bad}


def flood_notifications() -> list[dict[str, Any]]:
    return [
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "logger": "flood", "data": f"flood {i + 1}/{FLOOD_COUNT}"},
        }
        for i in range(FLOOD_COUNT)
    ]


# --- stdio transport ---------------------------------------------------------------------------


def write_lines(lines: list[str]) -> None:
    """Write whole lines to stdout in one write, so other threads' lines come before or after."""
    stdio_loop.write("".join(line + "\n" for line in lines).encode("utf-8"), quit_on_close=True)


def serve_stdio() -> None:
    for msg in stdio_loop.jsonrpc_requests():
        call = handle_request(msg, http=False)
        answer = stdio_loop.compact(call.answer) if call.trigger != "wrong_id" else stdio_loop.compact(wrong_id(call.answer))
        if call.trigger == "hang":
            continue  # never answered; the loop goes on serving other requests
        elif call.trigger == "garbage":
            write_lines([f"DEBUG n={call.n}", answer])
        elif call.trigger == "double":
            write_lines([answer, answer])
        elif call.trigger == "slow":
            # A non-daemon thread: the answer is still written if stdin closes meanwhile.
            threading.Timer(SLOW_SECONDS, write_lines, args=([answer],)).start()
        elif call.trigger == "flood":
            write_lines([stdio_loop.compact(note) for note in flood_notifications()] + [answer])
        else:
            write_lines([answer])


# --- Streamable HTTP transport -----------------------------------------------------------------

_sessions: set[str] = set()
_sessions_lock = threading.Lock()


def sse_event(message: Any) -> str:
    return f"event: message\ndata: {stdio_loop.compact(message)}\n\n"


class McpHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "misbehaving-mcp/0.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: str | bytes = b"", content_type: str | None = None, session: str | None = None) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        if session:
            self.send_header("Mcp-Session-Id", session)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)
        self.wfile.flush()

    def _send_json(self, status: int, message: Any, session: str | None = None) -> None:
        self._send(status, stdio_loop.compact(message), "application/json", session)

    def _path_ok(self) -> bool:
        if self.path.split("?", 1)[0] == "/mcp":
            return True
        self._send(404, "Not Found\n", "text/plain; charset=utf-8")
        return False

    def _session(self) -> tuple[str | None, bool]:
        """Return (session id, ok); when not ok an error response has already been sent."""
        session = self.headers.get("Mcp-Session-Id")
        if session is None:
            self._send_json(400, stdio_loop.error_response(None, -32600, "Bad Request: missing Mcp-Session-Id header"))
            return None, False
        with _sessions_lock:
            known = session in _sessions
        if not known:
            self._send_json(404, stdio_loop.error_response(None, -32600, "Session not found"))
            return None, False
        return session, True

    def do_GET(self) -> None:
        if not self._path_ok():
            return
        self.send_response(405)
        self.send_header("Allow", "POST, DELETE")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:
        if not self._path_ok():
            return
        session, ok = self._session()
        if not ok:
            return
        with _sessions_lock:
            _sessions.discard(session)
        self._send(200)

    def do_POST(self) -> None:
        if not self._path_ok():
            return
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self._send_json(411, stdio_loop.error_response(None, -32600, "Bad Request: Content-Length required"))
            return
        raw = self.rfile.read(int(length))
        try:
            msg = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self._send_json(400, stdio_loop.error_response(None, -32700, "Parse error"))
            return
        if isinstance(msg, list):
            self._send_json(400, stdio_loop.error_response(None, -32600, "Invalid Request: batches are not supported"))
            return
        kind = stdio_loop.classify(msg)
        if kind == "invalid":
            self._send_json(400, stdio_loop.invalid_request(msg))
            return
        if kind == "request" and msg["method"] == "initialize":
            call = handle_request(msg, http=True)
            session = None
            if "result" in call.answer:
                session = uuid.uuid4().hex
                with _sessions_lock:
                    _sessions.add(session)
            self._send_json(200, call.answer, session)
            return
        session, ok = self._session()
        if not ok:
            return
        if kind != "request":
            self._send(202)
            return
        call = handle_request(msg, http=True)
        trigger = call.trigger
        if trigger == "hang":
            threading.Event().wait()  # never responds; the connection's thread blocks (daemon thread)
        elif trigger == "garbage":
            self._send(200, f"DEBUG n={call.n}\n{stdio_loop.compact(call.answer)}\n", "application/json", session)
        elif trigger == "wrong_id":
            self._send_json(200, wrong_id(call.answer), session)
        elif trigger == "double":
            self._send(200, sse_event(call.answer) * 2, "text/event-stream", session)
        elif trigger == "slow":
            time.sleep(SLOW_SECONDS)
            self._send_json(200, call.answer, session)
        elif trigger == "flood":
            body = "".join(sse_event(note) for note in flood_notifications()) + sse_event(call.answer)
            self._send(200, body, "text/event-stream", session)
        elif trigger == "status500":
            self._send(500, f"Internal Server Error: n={call.n} is too large\n", "text/plain; charset=utf-8", session)
        else:
            self._send_json(200, call.answer, session)


class QuietThreadingHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    """The default (5) drops concurrent connections: a fuzzer opens many at once."""
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # client disconnects (BrokenPipe, ConnectionReset) are not worth a traceback


def serve_http(port: int) -> None:
    server = QuietThreadingHTTPServer(("127.0.0.1", port), McpHandler)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description="A deliberately misbehaving MCP server (stdio, or --http PORT).")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp")
    parser.add_argument("--label", default="", help="ignored: lets a test find this process by its command line")
    args = parser.parse_args()
    if args.http is None:
        serve_stdio()
    else:
        serve_http(args.http)


if __name__ == "__main__":
    main()
