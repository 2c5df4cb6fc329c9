"""The Streamable HTTP transport, as a client sees it.

Streamable HTTP is the transport of MCP 2025-03-26 and later.
Each message the session sends is POSTed on its own, concurrently.
Each POST carries `Accept: application/json, text/event-stream`.

What comes back is handed to the session in the order it arrives, as stdout lines are.
A JSON body is one message.
An SSE stream is one message per event.
Notifications and server requests may come before the answer.

When a request's POST is over, an `Undelivered` marker follows.
It says what the HTTP exchange was.
Examples are a 202 with no body, a 500 with a text body, or a dropped connection.
The session ignores the marker when the answer came.
Otherwise the marker is the reply the oracle judges.
HTTP failures are data, never exceptions.

The server issues an `Mcp-Session-Id` on `initialize`.
It is sent back on every later message.
`MCP-Protocol-Version` goes with it, once the version is negotiated.
`aclose` ends the session with DELETE.

Under the stateless revision (`speak_stateless`) there is no session.
Every POST carries the headers its body implies.
Those are `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`, and a case may override them.

The GET stream for server-initiated messages is not opened.
The harness declares no client capabilities.
It needs nothing a server would send unprompted.

Headers given by the user, such as `--header 'Authorization: Bearer ...'`, are never shown.
They are only sent.
`fuzz.redaction` is the one way a target reaches text.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
import trio

from fuzz.text import clip
from fuzz.wire._transport import Arrival, Carried, TransportClosed, Undelivered
from fuzz.wire.framing import (
    DEFAULT_MAX_MESSAGE_BYTES,
    KEPT_ENDS,
    Frame,
    Lines,
    Oversized,
)
from fuzz.wire.jsonrpc import id_key
from fuzz.wire.stateless import mirrored_headers, with_overrides
from strategies.meta import HeaderOverrides

SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
ACCEPT = "application/json, text/event-stream"
CONNECT_TIMEOUT = 10.0
DELETE_TIMEOUT = 2.0


class HttpTransport:
    """A Streamable HTTP endpoint, reached at its URL.

    Run `background()` in a nursery, then `send`; always `aclose`."""

    kind = "Streamable HTTP"
    exchange_per_request = True

    blocked_since = None
    """Each exchange has its own body: an oversized one holds up no other."""
    blocked_bytes = 0

    def __init__(self, url: str, headers: Mapping[str, str] = {}, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        self.url = url
        self.max_message_bytes = max_message_bytes
        self._headers = dict(headers)
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(None, connect=CONNECT_TIMEOUT),
            limits=httpx.Limits(max_connections=64, max_keepalive_connections=16),
            follow_redirects=False,
        )
        self._session_id: str | None = None
        self._protocol_version: str | None = None
        self._stateless: str | None = None
        self._to_session, self._from_transport = trio.open_memory_channel[Arrival](16)
        self._nursery: trio.Nursery | None = None
        self._posts: dict[str, trio.CancelScope] = {}
        """The POSTs of requests in flight, by id.

        So an abandoned request's POST can free its connection."""
        self._ready = trio.Event()
        self._closed = trio.Event()

    async def background(self) -> None:
        """Hosts the POSTs in flight until `aclose`."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self._ready.set()
            await self._closed.wait()
            nursery.cancel_scope.cancel()

    def speak_stateless(self, version: str | None) -> None:
        """From now on, POST as the stateless `version` requires.

        None: POST as the handshake revisions do."""
        self._stateless = version

    async def send(self, data: bytes, headers: HeaderOverrides = ()) -> None:
        if self._closed.is_set():
            raise TransportClosed("the HTTP transport is closed")
        await self._ready.wait()
        assert self._nursery is not None
        self._nursery.start_soon(self._post, data, headers)

    async def incoming(self) -> AsyncIterator[Arrival]:
        async with self._from_transport:
            async for item in self._from_transport:
                yield item

    @property
    def stderr_mark(self) -> int:
        return 0

    def stderr_since(self, mark: int, *, limit: int = 40, request: str | None = None) -> tuple[str, ...]:
        return ()

    def track_requests(self, in_flight: Mapping[str, object]) -> None:
        """No stderr to note it on."""

    def stderr_tail(self, limit: int = 20) -> tuple[str, ...]:
        return ()

    @property
    def returncode(self) -> int | None:
        return None

    async def wait(self) -> int | None:
        await self._closed.wait()
        return None

    def abandon(self, request_id: object) -> None:
        scope = self._posts.pop(id_key(request_id), None)
        if scope is not None:
            scope.cancel()

    async def aclose(self, *, grace: float = 1.0) -> None:
        """End the server's session, stop the POSTs in flight, and close the connections.

        The session ends with DELETE, whose answer does not matter.
        Safe to call twice, and shielded from cancellation."""
        if self._closed.is_set():
            return
        with trio.CancelScope(shield=True):
            if self._session_id is not None:
                with trio.move_on_after(DELETE_TIMEOUT):
                    with contextlib.suppress(httpx.HTTPError):
                        await self._client.delete(self.url, headers=self._headers_for(None))
            self._closed.set()
            await self._to_session.aclose()
            await self._client.aclose()

    def _headers_for(self, method: str | None, message: dict[str, Any] | None = None, overrides: HeaderOverrides = ()) -> dict[str, str]:
        headers = {**self._headers, "Accept": ACCEPT, "Content-Type": "application/json"}
        if self._stateless is not None:
            return with_overrides({**headers, **mirrored_headers(message or {}, self._stateless)}, overrides)
        if self._session_id is not None:
            headers[SESSION_HEADER] = self._session_id
        if self._protocol_version is not None and method != "initialize":
            headers[VERSION_HEADER] = self._protocol_version
        return headers

    async def _post(self, data: bytes, overrides: HeaderOverrides = ()) -> None:
        if self._closed.is_set():  # closed between `send` and now: its client refuses to send (RuntimeError)
            return
        message = _parsed(data)
        method = message.get("method") if isinstance(message.get("method"), str) else None
        request_id = message.get("id") if method is not None and "id" in message else None
        is_request = method is not None and "id" in message
        key = id_key(request_id)
        with trio.CancelScope() as scope:
            if is_request:
                self._posts[key] = scope
            try:
                await self._exchange(data, message, request_id, is_request, overrides)
            finally:
                if self._posts.get(key) is scope:
                    del self._posts[key]

    async def _exchange(self, data: bytes, message: dict[str, Any], request_id: object, is_request: bool, overrides: HeaderOverrides) -> None:
        method = message.get("method") if isinstance(message.get("method"), str) else None
        try:
            headers = self._headers_for(method, message, overrides)
            async with self._client.stream("POST", self.url, content=data, headers=headers) as response:
                if method == "initialize" and SESSION_HEADER in response.headers:
                    self._session_id = response.headers[SESSION_HEADER]
                detail = await self._deliver(response, request_id, sniff_version=method == "initialize")
        except httpx.HTTPError as error:
            detail = f"the HTTP exchange failed: {type(error).__name__}: {clip(str(error) or 'no detail', 300)}"
        except trio.ClosedResourceError:
            return
        if is_request:
            await self._hand_on(Undelivered(request_id, detail))

    async def _deliver(self, response: httpx.Response, request_id: object, *, sniff_version: bool) -> str:
        """Hand the response's messages to the session, and say what the exchange was.

        The words are for the case where the exchange carried no answer."""
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        status = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
        if content_type == "text/event-stream":
            events = 0
            async for event in _sse_messages(response, self.max_message_bytes):
                events += 1
                self._sniff(event, sniff_version)
                await self._hand_on(Carried(request_id, event, response.status_code) if request_id is not None else event)
            return f"{status}: an SSE stream of {events} message events ended without the answer"
        body = await _read_capped(response, self.max_message_bytes)
        if isinstance(body, Oversized):
            await self._hand_on(Carried(request_id, body, response.status_code) if request_id is not None else body)
            return f"{status} with a body of over {self.max_message_bytes:,} bytes"
        if not body.strip():
            return f"{status} with an empty body"
        self._sniff(body, sniff_version)
        await self._hand_on(Carried(request_id, body, response.status_code) if request_id is not None else body)
        shown = clip(body[:1200].decode("utf-8", errors="replace"), 300)
        return f"{status} ({content_type or 'no content-type'}) whose body is not the answer: {shown}"

    def _sniff(self, body: Frame, sniff_version: bool) -> None:
        if not sniff_version or isinstance(body, Oversized):
            return
        message = _parsed(body)
        result = message.get("result")
        if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
            self._protocol_version = result["protocolVersion"]

    async def _hand_on(self, item: Arrival) -> None:
        with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
            await self._to_session.send(item)


async def _read_capped(response: httpx.Response, limit: int) -> bytes | Oversized:
    """The body, or its beginning once it passes `limit` bytes.

    The rest is not read.
    The exchange is this request's own, so its id is known without the body's end."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > limit:
            return Oversized(bytes(body[:KEPT_ENDS]), b"", len(body), ended=False)
    return bytes(body)


async def _sse_messages(response: httpx.Response, limit: int) -> AsyncIterator[Frame]:
    """The data of each `message` event of an SSE stream.

    The stream is in the WHATWG event-stream format.
    An event's `data:` lines are joined by newlines, and dispatched at a blank line.
    Comments and other fields are skipped.

    Lines are split at CRLF, LF or CR only, as the format says.
    The `aiter_lines` of httpx would also split at U+2028.
    It splits at every separator `str.splitlines` knows.
    JSON leaves those unescaped inside strings.

    An event whose data passes `limit` bytes is handed on as `Oversized`."""
    event = _Event(limit)
    lines = Lines(limit, sse=True)
    async for chunk in response.aiter_bytes():
        for line in lines.feed(chunk):
            message = event.take(line)
            if message is not None:
                yield message
    for line in [*lines.end(), b""]:
        message = event.take(line)
        if message is not None:
            yield message


class _Event:
    """The event being read from an SSE stream, line by line."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._reset()

    def _reset(self) -> None:
        self._data: list[bytes] = []
        self._size = 0
        self._oversized: Oversized | None = None
        self._type = b"message"

    def take(self, line: Frame) -> Frame | None:
        """Read one line, and return the event's data if the line ends a `message` event."""
        if isinstance(line, Oversized):
            field, _, value = line.head.partition(b":")
            if line.ended and field == b"data":
                self._oversized = Oversized(value[1:] if value.startswith(b" ") else value, line.tail, line.size, ended=True)
            return None
        if not line:
            kept = self._type == b"message" and (self._data or self._oversized is not None)
            message: Frame | None = None
            if kept:
                message = self._oversized or b"\n".join(self._data)
            self._reset()
            return message
        field, _, value = line.partition(b":")
        value = value[1:] if value.startswith(b" ") else value
        if field == b"data" and self._oversized is None:
            self._size += len(value) + 1
            if self._size > self._limit:
                joined = b"\n".join(self._data)
                self._oversized = Oversized(joined[:KEPT_ENDS], value[-KEPT_ENDS:], self._size, ended=True)
                self._data = []
            else:
                self._data.append(value)
        elif field == b"event":
            self._type = value
        return None


def _parsed(data: bytes) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
