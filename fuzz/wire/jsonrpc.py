"""JSON-RPC 2.0 messages as the harness sees them: encoding what it sends, sorting what arrives.

Everything a target writes to stdout is one of: a response (to one of our requests), a request
from the server (which the session answers), a notification, an unreadable answer (one that
cannot be taken as JSON: not UTF-8, nested past the depth limit, past the size limit; its id is
read from its text where it can be, so that it is judged on the request it answered), or garbage
(not JSON, not an object, not JSON-RPC). Both are data for the oracle, never an exception.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from fuzz.text import clip
from fuzz.wire.framing import DEFAULT_MAX_MESSAGE_BYTES, Frame, Oversized

JSONRPC_VERSION = "2.0"
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
MAX_DEPTH = 64
"""The deepest nesting of arrays and objects an answer may have. RFC 8259 (section 9) lets a
parser limit it; everything that reads an answer after the session (the validators, the reports)
walks it recursively, so past this it is an unreadable answer, not a crash of the harness."""
HEADER_MISMATCH = -32020
"""2026-07-28: an HTTP header disagrees with the request body."""
UNSUPPORTED_PROTOCOL_VERSION = -32022
"""2026-07-28: the request names a revision the server does not speak (`data.supported`, `data.requested`)."""


_LINE_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
"""Made once: `json.dumps` with options makes an encoder at every call."""


def encode(message: Any) -> bytes:
    """One message as a newline-terminated UTF-8 line. JSON escapes every newline inside
    strings, so the frame is never broken by the content."""
    return _LINE_ENCODER.encode(message).encode("utf-8") + b"\n"


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


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A message that cannot be taken as JSON (`reason` says why), with the id it answers when
    that could be read from its text (`request_id` None: it could not)."""

    request_id: Any
    reason: str
    text: str
    """Its beginning (and end, when cut), as the reports quote it."""


Incoming = Response | ServerRequest | Notification | Garbage | Unreadable

_QUOTED = 2000
"""Characters of a garbage or unreadable line kept to quote it."""


def parse_line(line: Frame, max_depth: int = MAX_DEPTH, size_limit: int = DEFAULT_MAX_MESSAGE_BYTES) -> list[Incoming]:
    """Sort one stdout line. A blank line yields nothing; a JSON array (a batch, which MCP no
    longer allows) yields each element, sorted the same way. `size_limit`: the limit an
    `Oversized` line passed, for its description."""
    if isinstance(line, Oversized):
        return [_oversized(line, size_limit)]
    if not line.strip():
        return []
    try:
        value = json.loads(line)
    except UnicodeDecodeError as error:
        return [_not_utf8(line, error, max_depth)]
    except RecursionError:
        return [_unreadable(line, f"nested deeper than the harness reads ({max_depth} levels)")]
    except ValueError as error:
        return [Garbage(_text(line), f"not JSON ({error})")]
    if _deeper_than(value, max_depth, line):
        return [_unreadable(line, f"nested deeper than the harness reads ({max_depth} levels)", value)]
    if isinstance(value, list):
        return [item for element in value for item in _sort(element, line)]
    return _sort(value, line)


def _text(line: bytes) -> str:
    """A line as garbage quotes it (only garbage needs the text: decoding every answer would
    cost each one a copy)."""
    return clip(line[: _QUOTED * 4].decode("utf-8", errors="replace").strip(), _QUOTED)


def _not_utf8(line: bytes, error: UnicodeDecodeError, max_depth: int) -> Incoming:
    reason = f"not UTF-8 (byte 0x{line[error.start]:02x} at offset {error.start}); JSON text exchanged between systems MUST be UTF-8 (RFC 8259, section 8.1)"
    try:
        value = json.loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return _unreadable(line, reason)
    if _deeper_than(value, max_depth, line):
        return _unreadable(line, reason)
    return _unreadable(line, reason, value)


def _unreadable(line: bytes, reason: str, value: Any = None) -> Unreadable:
    """`value`: the line as decoded despite `reason`, when it could be (its id is then known)."""
    request_id = value.get("id") if isinstance(value, dict) and "method" not in value else salvaged_id(line[:_SALVAGE], line[-_SALVAGE:])
    return Unreadable(request_id, reason, _text(line))


def _oversized(frame: Oversized, limit: int) -> Unreadable:
    """An oversized message, in words that do not depend on where the reading stood when the
    limit was passed (the same server gives the same finding)."""
    limit_text = f"past the size limit the harness reads ({limit:,} bytes, --max-answer-size)"
    reason = f"a message of {frame.size:,} bytes, {limit_text}" if frame.ended else f"a message {limit_text}, not ended as it passed it"
    head = frame.head.decode("utf-8", errors="replace")
    text = f"{clip(head, _QUOTED // 2)} ... {frame.tail[-_QUOTED // 2 :].decode('utf-8', errors='replace')}" if frame.ended else clip(head, _QUOTED)
    return Unreadable(salvaged_id(frame.head, frame.tail if frame.ended else b""), reason, text)


_SALVAGE = 4096
_ID_VALUE = rb'(-?\d+|"(?:[^"\\]|\\.){0,200}")'
_ID_FIRST = re.compile(rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*' + _ID_VALUE + rb"\s*[,}]")
_ID_LAST = re.compile(rb'[,{]\s*"id"\s*:\s*' + _ID_VALUE + rb'\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*\Z')
_METHOD = re.compile(rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?(?:"id"\s*:\s*[^,]{1,210},\s*)?"method"\s*:')


def salvaged_id(head: bytes, tail: bytes) -> Any:
    """The id of an answer whose text cannot be decoded whole, read from its ends: an `id` member
    first in the object (after `jsonrpc`, as most SDKs write it) or last (before `jsonrpc`, as
    JavaScript's key order has it). None when neither end shows one, or the message is a request."""
    if _METHOD.match(head):
        return None
    match = _ID_FIRST.match(head) or _ID_LAST.search(tail)
    if match is None:
        return None
    try:
        return json.loads(match.group(1))
    except ValueError:
        return None


def _deeper_than(value: Any, limit: int, line: bytes) -> bool:
    """Whether `value` nests arrays and objects more than `limit` deep. A line with no more
    brackets than that cannot be (the common case, told by two byte counts)."""
    if line.count(b"[") + line.count(b"{") <= limit:
        return False
    level = [value]
    for _ in range(limit + 1):
        level = [
            child for container in level for child in (container.values() if isinstance(container, dict) else container) if isinstance(child, (dict, list))
        ]
        if not level:
            return False
    return True


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
