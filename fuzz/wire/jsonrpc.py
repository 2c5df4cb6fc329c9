"""JSON-RPC 2.0 messages: encoding what the harness sends, sorting what arrives.

Everything a target writes to stdout is one of five things:

`Response`: an answer to one of our requests.
`ServerRequest`: a request from the server, which the session answers.
`Notification`: a message that expects no answer.
`Unreadable`: an answer that cannot be taken as JSON.
It may not be UTF-8, or be nested past the depth limit, or be past the size limit.
Its id is read from its text where it can be.
It is then judged on the request it answered.
`Garbage`: not JSON, not an object, or not JSON-RPC.

The last two are data for the oracle, never an exception.
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
INVALID_REQUEST = -32600
MAX_DEPTH = 64
"""The deepest nesting of arrays and objects an answer may have.

RFC 8259 (section 9) lets a parser limit it.
Everything that reads an answer after the session walks it recursively.
The validators and the reports do.
So an answer nested deeper is an unreadable answer, not a crash of the harness."""
HEADER_MISMATCH = -32020
"""2026-07-28: an HTTP header disagrees with the request body."""
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
"""2026-07-28: the request needs a client capability the client did not declare.

The error's data lists them in `data.requiredCapabilities`."""
UNSUPPORTED_PROTOCOL_VERSION = -32022
"""2026-07-28: the request names a revision the server does not speak.

The error's data carries `data.supported` and `data.requested`."""
MCP_RESERVED_CODES = range(-32099, -32019)
"""2026-07-28: the codes only the MCP specification may define (-32099 to -32020)."""
MCP_DEFINED_CODES = frozenset({HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION})
"""The reserved codes 2026-07-28 defines."""
MCP_RETIRED_CODES = {-32002: "resource not found, before 2026-07-28", -32042: "URL elicitation required, 2025-11-25 only"}
"""Codes of earlier revisions that a 2026-07-28 server MUST NOT emit, with what they meant."""


_LINE_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
"""Made once: `json.dumps` with options makes an encoder at every call."""


def encode(message: Any) -> bytes:
    """One message as a newline-terminated UTF-8 line.

    JSON escapes every newline inside strings.
    So the content never breaks the frame."""
    return _LINE_ENCODER.encode(message).encode("utf-8") + b"\n"


def id_key(request_id: Any) -> str:
    """The key an id is matched by: its JSON value and type.

    The answer to request 1 must carry 1, not "1"."""
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
    """A message that cannot be taken as JSON; `reason` says why.

    `request_id` is the id it answers, when that could be read from its text.
    It is None when it could not."""

    request_id: Any
    reason: str
    text: str
    """Its beginning, and its end when cut, as the reports quote it."""


Incoming = Response | ServerRequest | Notification | Garbage | Unreadable

_QUOTED = 2000
"""Characters of a garbage or unreadable line kept to quote it."""


def parse_line(line: Frame, max_depth: int = MAX_DEPTH, size_limit: int = DEFAULT_MAX_MESSAGE_BYTES) -> list[Incoming]:
    """Sort one stdout line into the messages it holds.

    A blank line yields nothing.
    A JSON array is a batch, which MCP no longer allows.
    It yields each element, sorted the same way.
    `size_limit` is the limit an `Oversized` line passed, for its description."""
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
    """A line as garbage quotes it.

    Only garbage needs the text.
    Decoding every answer would cost each one a copy."""
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
    """An unreadable line, with the id it answers when that is known.

    `value` is the line as decoded despite `reason`, when it could be.
    Its id is then known."""
    request_id = value.get("id") if isinstance(value, dict) and "method" not in value else salvaged_id(line[:_SALVAGE], line[-_SALVAGE:])
    return Unreadable(request_id, reason, _text(line))


def _oversized(frame: Oversized, limit: int) -> Unreadable:
    """An oversized message, described the same way wherever the reading stood.

    The words do not depend on how much was read when the limit was passed.
    So the same server gives the same finding."""
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
    """The id of an answer whose text cannot be decoded whole, read from its ends.

    The `id` member may come first in the object, after `jsonrpc`, as most SDKs write it.
    It may come last, before `jsonrpc`, as JavaScript's key order has it.
    None when neither end shows one, or when the message is a request."""
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
    """Whether `value` nests arrays and objects more than `limit` deep.

    A line with no more brackets than `limit` cannot be.
    That is the common case, and two byte counts tell it."""
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
