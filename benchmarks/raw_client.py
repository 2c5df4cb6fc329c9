"""The throughput ceiling: the least a client can do per tools/call, over stdio and over HTTP.

A fuzzer's throughput means little alone: the server's own cost per call bounds it. This client
does the handshake (initialize, notifications/initialized), then sends the same valid
`tools/call` (`add` with a = 1, b = 2, ids counting up) as fast as the server answers, for a
fixed window, with `in_flight` requests outstanding at a time (stdio: pipelined on the one
pipe; HTTP: one keep-alive connection per slot). Standard library only, and nothing parsed
beyond what keeps the exchange going.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

PROTOCOL_VERSION = "2025-11-25"
INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "throughput-raw-client", "version": "1.0.0"}},
    }
).encode()
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
CALL = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}'
"""The one request, precomputed but for its id (`CALL % id`)."""


@dataclass(frozen=True, slots=True)
class RawResult:
    answered: int
    """Answers the client read (the benchmark counts the server's side; this is a cross-check)."""
    seconds: float
    """From the first tools/call sent to the last answer read."""


def stdio_ceiling(command: Sequence[str], *, seconds: float, in_flight: int, cwd: Path) -> RawResult:
    """Newline-delimited JSON on the server's stdin and stdout; one reader, `in_flight` pipelined."""
    process = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
    assert process.stdin is not None and process.stdout is not None
    send, receive = process.stdin, process.stdout
    try:
        send.write(INITIALIZE + b"\n")
        send.flush()
        if not receive.readline():
            raise RuntimeError(f"{command[-1]}: no answer to initialize")
        send.write(INITIALIZED + b"\n")
        started = time.perf_counter()
        deadline = started + seconds
        send.write(b"".join(CALL % n + b"\n" for n in range(1, in_flight + 1)))
        send.flush()
        sent, answered = in_flight, 0
        while answered < sent:
            line = receive.readline()
            if not line:
                break
            if b'"id"' not in line:  # a notification or log message, not an answer
                continue
            answered += 1
            if time.perf_counter() < deadline:
                sent += 1
                send.write(CALL % sent + b"\n")
                send.flush()
        elapsed = time.perf_counter() - started
    finally:
        send.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return RawResult(answered, elapsed)


class _HttpSession:
    """One keep-alive connection to a Streamable HTTP endpoint, with the session's headers."""

    def __init__(self, url: str, session_id: str | None) -> None:
        parts = urlsplit(url)
        self._path = parts.path or "/"
        self._connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=30)
        self.headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", "MCP-Protocol-Version": PROTOCOL_VERSION}
        if session_id:
            self.headers["Mcp-Session-Id"] = session_id

    def post(self, body: bytes) -> http.client.HTTPResponse:
        self._connection.request("POST", self._path, body, self.headers)
        response = self._connection.getresponse()
        response.read()  # an SSE stream for this one answer, or plain JSON; either ends with it
        return response

    def close(self) -> None:
        self._connection.close()


def _handshake(url: str) -> str | None:
    """The session id the server issued (None when it runs stateless)."""
    session = _HttpSession(url, None)
    try:
        answer = session.post(INITIALIZE)
        if answer.status != 200:
            raise RuntimeError(f"{url}: initialize answered HTTP {answer.status}")
        session_id = answer.getheader("Mcp-Session-Id")
        session = _HttpSession(url, session_id)
        session.post(INITIALIZED)
        return session_id
    finally:
        session.close()


def http_ceiling(url: str, *, seconds: float, in_flight: int) -> RawResult:
    """POSTs on `in_flight` threads, each with its own keep-alive connection."""
    session_id = _handshake(url)
    answered = [0] * in_flight

    def worker(slot: int) -> None:
        session = _HttpSession(url, session_id)
        request_id = slot + 1
        try:
            while time.perf_counter() < deadline:
                if session.post(CALL % request_id).status == 200:
                    answered[slot] += 1
                request_id += in_flight
        finally:
            session.close()

    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(in_flight)]
    started = time.perf_counter()
    deadline = started + seconds
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return RawResult(sum(answered), time.perf_counter() - started)
