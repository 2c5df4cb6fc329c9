"""JSON-RPC 2.0 messages as the harness sees them: encoding what it sends, sorting what arrives.

Everything a target writes to stdout is one of: a response (to one of our requests), a request
from the server (which the session answers), a notification, or garbage (not JSON, not an
object, not JSON-RPC). Garbage is data for the oracle, never an exception.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fuzz.text import clip

JSONRPC_VERSION = "2.0"
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
HEADER_MISMATCH = -32020
"""2026-07-28: an HTTP header disagrees with the request body."""
UNSUPPORTED_PROTOCOL_VERSION = -32022
"""2026-07-28: the request names a revision the server does not speak (`data.supported`, `data.requested`)."""


def encode(message: Any) -> bytes:
    """One message as a newline-terminated UTF-8 line. JSON escapes every newline inside
    strings, so the frame is never broken by the content."""
    return json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8") + b"\n"


def id_key(request_id: Any) -> str:
    """Ids match by JSON value and type: the answer to request 1 must carry 1, not "1"."""
    if type(request_id) is int:
        return str(request_id)  # what json.dumps writes for an int, at a tenth of the cost
    return json.dumps(request_id, sort_keys=True)


@dataclass(frozen=True, slots=True)
class Response:
    """An object with an `id` and no `method`: an answer, well-formed or not."""

    id: Any
    message: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServerRequest:
    id: Any
    method: str
    message: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Notification:
    method: str
    message: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Garbage:
    """A line that is not a JSON-RPC message; `reason` says why."""

    text: str
    reason: str


Incoming = Response | ServerRequest | Notification | Garbage


def parse_line(line: bytes) -> list[Incoming]:
    """Sort one stdout line. A blank line yields nothing; a JSON array (a batch, which MCP no
    longer allows) yields each element, sorted the same way."""
    if not line.strip():
        return []
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError) as error:
        return [Garbage(_text(line), f"not JSON ({error})")]
    if isinstance(value, list):
        return [item for element in value for item in _sort(element, line)]
    return _sort(value, line)


def _text(line: bytes) -> str:
    """A line as garbage quotes it (only garbage needs the text: decoding every answer would
    cost each one a copy)."""
    return clip(line.decode("utf-8", errors="replace").strip(), 2000)


def _sort(value: Any, line: bytes) -> list[Incoming]:
    if not isinstance(value, dict):
        return [Garbage(_text(line), f"a JSON {type(value).__name__}, not a JSON-RPC object")]
    method = value.get("method")
    if isinstance(method, str):
        if "id" in value:
            return [ServerRequest(value["id"], method, value)]
        return [Notification(method, value)]
    if "id" in value:
        return [Response(value["id"], value)]
    return [Garbage(_text(line), "a JSON object with neither `method` nor `id`")]
