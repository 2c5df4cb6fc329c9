"""The stateless revision (2026-07-28) of the reference server: the `_meta` envelope checks, the
results' `resultType` and caching hints, and Streamable HTTP without sessions.

Imported by `reference_server.py` (which serves both eras on stdio: the first request decides,
`initialize` pins the handshake, anything else the stateless revision) and by nothing else.

Seeded bugs of this revision (`--bug RULE`):

- malformed-meta: a `_meta` without `clientCapabilities` is served as if it had `{}`.
- unsupported-version: `-32022` without `data.requested`.
- header-mismatch (HTTP only): the `Mcp-Name` header is never compared with the body.
- reserved-error-code: a call's invalid params are answered `-32050`, a code of MCP's reserved
  range that no revision defines, where `-32602` is due.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERSION = "2026-07-28"
SUPPORTED = [VERSION]
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
CACHING = {"ttlMs": 0, "cacheScope": "private"}
"""The caching hints a `server/discover` or `tools/list` result MUST carry: not to be cached."""

INVALID_PARAMS, UNSUPPORTED_VERSION, HEADER_MISMATCH, NO_METHOD = -32602, -32022, -32020, -32601
UNDEFINED_RESERVED = -32050
"""In MCP's reserved range (-32020 to -32099), and defined by no revision: the reserved-error-code bug's code."""
HTTP_STATUS = {INVALID_PARAMS: 400, UNSUPPORTED_VERSION: 400, HEADER_MISMATCH: 400, -32600: 400, -32700: 400, NO_METHOD: 404}


def error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"error": body}


def envelope_error(params: Any, bug: str | None) -> dict[str, Any] | None:
    """The error a request's `_meta` earns, if any: -32602 when it is missing or malformed,
    -32022 when it names a revision this server does not speak."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        return error(INVALID_PARAMS, "Invalid params: _meta with the protocol fields is required")
    version = meta.get(PROTOCOL_VERSION_KEY)
    if not isinstance(version, str):
        return error(INVALID_PARAMS, f"Invalid params: _meta {PROTOCOL_VERSION_KEY} must be a string")
    capabilities = meta.get(CLIENT_CAPABILITIES_KEY, {} if bug == "malformed-meta" else None)
    if not isinstance(capabilities, dict):
        return error(INVALID_PARAMS, f"Invalid params: _meta {CLIENT_CAPABILITIES_KEY} must be an object")
    if version not in SUPPORTED:
        data = {"supported": SUPPORTED} if bug == "unsupported-version" else {"supported": SUPPORTED, "requested": version}
        return error(UNSUPPORTED_VERSION, f"Unsupported protocol version: {version}", data)
    return None


def answer(message: dict[str, Any], bug: str | None, tools: list[dict[str, Any]], call: Callable[[Any], dict[str, Any] | None]) -> dict[str, Any] | None:
    """The reply (`{"result": ...}` or `{"error": ...}`) to a request under 2026-07-28; None
    when it is never answered. `call` answers a `tools/call`'s params as the handshake era does."""
    method, params = message["method"], message.get("params")
    if method == "initialize":
        requested = params.get("protocolVersion") if isinstance(params, dict) else None
        return error(UNSUPPORTED_VERSION, "this connection speaks 2026-07-28; initialize is not accepted", {"supported": SUPPORTED, "requested": requested})
    if method not in ("server/discover", "tools/list", "tools/call"):
        return error(NO_METHOD, f"no method {method}")
    refusal = envelope_error(params, bug)
    if refusal is not None:
        return refusal
    if method == "server/discover":
        result: dict[str, Any] = {
            "supportedVersions": SUPPORTED,
            "capabilities": {"tools": {"listChanged": False}},
            **CACHING,
            "_meta": {SERVER_INFO_KEY: {"name": "reference-server", "version": "1.0"}},
        }
    elif method == "tools/list":
        cursor = params.get("cursor")
        result = {"tools": tools[:3], "nextCursor": "page-2"} if cursor is None else {"tools": tools[3:]}
        result.update(CACHING)
    else:
        reply = call({key: value for key, value in params.items() if key != "_meta"})
        if reply is not None and bug == "reserved-error-code" and reply.get("error", {}).get("code") == INVALID_PARAMS:
            return error(UNDEFINED_RESERVED, reply["error"]["message"])
        if reply is None or "error" in reply:
            return reply
        result = reply["result"]
    return {"result": {**result, "resultType": "complete"}}


_ENCODED = re.compile(r"=\?base64\?(.*)\?=")


def decoded_header(value: str | None) -> str | None:
    match = _ENCODED.fullmatch(value or "")
    if match is None:
        return value
    try:
        return base64.b64decode(match.group(1), validate=True).decode("utf-8")
    except ValueError:
        return None


def header_mismatch(headers: Any, message: dict[str, Any], bug: str | None) -> dict[str, Any] | None:
    """-32020 when `MCP-Protocol-Version`, `Mcp-Method` or (for tools/call) `Mcp-Name` is
    missing or disagrees with the body."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    pairs = [("Mcp-Method", message["method"])]
    if isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta:
        pairs.append(("MCP-Protocol-Version", meta[PROTOCOL_VERSION_KEY]))
    if message["method"] == "tools/call" and bug != "header-mismatch":
        pairs.append(("Mcp-Name", params.get("name") if isinstance(params, dict) else None))
    for header, body in pairs:
        if decoded_header(headers.get(header)) != body:
            return error(HEADER_MISMATCH, f"Header mismatch: {header} header {headers.get(header)!r} does not match the body's {body!r:.60}")
    return None


def serve_http(port: int, handle: Callable[[dict[str, Any], Any], dict[str, Any] | None], log: Callable[[str], None]) -> None:
    """Streamable HTTP on 127.0.0.1:`port`/mcp under 2026-07-28 only: one JSON answer per POST,
    no session, no GET stream. `handle(message, headers)` gives the reply (None: unanswered)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            log(format % args)

        def do_GET(self) -> None:
            self._send(405, None)

        do_DELETE = do_GET

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                message = json.loads(body)
            except ValueError:
                self._send(400, {"jsonrpc": "2.0", "id": None, **error(-32700, "Parse error")})
                return
            if not isinstance(message, dict) or not isinstance(message.get("method"), str):
                self._send(400, {"jsonrpc": "2.0", "id": None, **error(-32600, "Invalid Request: one JSON-RPC request per POST")})
                return
            if "id" not in message:
                self._send(202, None)
                return
            reply = handle(message, self.headers)
            if reply is None:
                threading.Event().wait(3600)
                return
            code = reply["error"]["code"] if "error" in reply else None
            self._send(HTTP_STATUS.get(code, 500) if code is not None else 200, {"jsonrpc": "2.0", "id": message["id"], **reply})

        def _send(self, status: int, document: dict[str, Any] | None) -> None:
            data = b"" if document is None else json.dumps(document).encode()
            self.send_response(status)
            if document is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.serve_forever()
