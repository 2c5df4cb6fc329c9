"""A JSON-RPC client over a transport, built for targets that misbehave.

Several requests may be in flight at once: each waits on its own id, and answers are matched by
id whatever order they come in, with notifications and server requests interleaved. What comes
back is always an `Exchange` (the exact request, the reply, anything odd seen meanwhile, and the
stderr written meanwhile), never an exception: no answer within the timeout and a target that
exited are replies like any other, for the oracle to judge.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable

import trio

from fuzz.wire.jsonrpc import (
    JSONRPC_VERSION,
    METHOD_NOT_FOUND,
    Garbage,
    Notification,
    Response,
    ServerRequest,
    encode,
    id_key,
    parse_line,
)
from fuzz.text import show
from fuzz.wire.transport import Carried, Transport, TransportClosed, Undelivered
from strategies.meta import HeaderOverrides


@dataclass(frozen=True, slots=True)
class Answered:
    message: dict[str, Any]
    seconds: float
    status: int | None = None
    """The HTTP status of the response that carried the answer (None over stdio)."""


@dataclass(frozen=True, slots=True)
class NoAnswer:
    timeout: float
    overtaken: bool = False
    """A request written after this one was answered before this one's timeout: the target did
    not leave it unanswered merely by answering in order, behind the others in flight."""


@dataclass(frozen=True, slots=True)
class TargetExited:
    returncode: int | None


@dataclass(frozen=True, slots=True)
class NotDelivered:
    """The transport's exchange for this request ended without an answer (HTTP: a status with
    no JSON-RPC body, a body that is not JSON, a dropped connection)."""

    detail: str
    seconds: float


Reply = Answered | NoAnswer | TargetExited | NotDelivered


class AnomalyKind(Enum):
    STRAY_ANSWER = "an answer carrying an id that no request in flight has"
    DUPLICATE_ANSWER = "a second answer to a request already answered"
    LATE_ANSWER = "an answer to a request whose timeout had passed"
    GARBAGE = "a message that is not JSON-RPC (a stdout line, an HTTP body, an SSE event)"


@dataclass(frozen=True, slots=True)
class Anomaly:
    kind: AnomalyKind
    text: str
    own: bool = False
    """Carried by this request's own HTTP response (else: seen on the shared stream while the
    request was in flight)."""

    def describe(self) -> str:
        where = "on this request's own HTTP response" if self.own else "while this request was in flight"
        return f"{self.kind.value} came {where}: {self.text}"


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request and what came of it."""

    request: dict[str, Any]
    reply: Reply
    anomalies: tuple[Anomaly, ...] = ()
    stderr: tuple[str, ...] = ()
    headers: HeaderOverrides = ()
    """The HTTP header values sent instead of those the request implies."""


@dataclass(slots=True)
class _Waiter:
    event: trio.Event = field(default_factory=trio.Event)
    message: dict[str, Any] | None = None
    status: int | None = None
    undelivered: str | None = None
    answered_at: float = 0.0
    written: int = -1
    """Its place in the order the requests were written (-1 until it is)."""
    written_at: float = 0.0
    anomalies: list[Anomaly] = field(default_factory=list)
    """What was odd about the messages this request's own HTTP exchange carried."""
    ended: trio.Event = field(default_factory=trio.Event)
    """Its HTTP exchange is over (the transport's end marker came)."""


_FINISHED_IDS_KEPT = 10_000

SETTLE_SECONDS = 1.0
"""After an answer over HTTP, how long to wait for the rest of its response (a second answer
in the same SSE stream is a finding): a server should end the stream after the answer."""


class Session:
    """Call `serve` in a nursery (it reads until the target closes stdout), then `request`."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self._next_id = 0
        self._waiters: dict[str, _Waiter] = {}
        self._finished: OrderedDict[str, bool] = OrderedDict()
        """Ids whose exchange is over, and whether an answer had come by then."""
        self._anomalies: list[Anomaly] = []
        self._closed = trio.Event()
        self.notifications_seen = 0
        self._written = 0
        self._latest_written_answered = -1

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    async def serve(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.transport.background)
            try:
                async for item in self.transport.incoming():
                    if isinstance(item, Undelivered):
                        self._undelivered(item)
                        continue
                    origin = self._waiters.get(id_key(item.request_id)) if isinstance(item, Carried) else None
                    status = item.status if isinstance(item, Carried) else None
                    for incoming in parse_line(item.data if isinstance(item, Carried) else item):
                        await self._dispatch(incoming, origin, status)
            finally:
                self._closed.set()
                for waiter in self._waiters.values():
                    waiter.event.set()

    def next_id(self) -> int:
        self._next_id += 1
        return self._next_id

    async def request(self, method: str, params: Any = None, *, timeout: float) -> Exchange:
        def build(request_id: int) -> dict[str, Any]:
            message: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "id": request_id, "method": method}
            if params is not None:
                message["params"] = params
            return message

        return await self.send_request(build, timeout=timeout)

    async def send_request(
        self, build: Callable[[int], dict[str, Any]], *, timeout: float, request_id: int | None = None,
        headers: HeaderOverrides = (),
    ) -> Exchange:
        """Send `build(id)` with `request_id` (a fresh id when None; take one from `next_id` to fix
        the order of concurrent requests) and wait up to `timeout` seconds for its answer.
        `headers`: HTTP header values instead of those the request implies."""
        request = build(self.next_id() if request_id is None else request_id)
        key = id_key(request["id"])
        waiter = _Waiter()
        self._waiters[key] = waiter
        anomaly_mark = len(self._anomalies)
        stderr_mark = self.transport.stderr_mark
        started = time.monotonic()
        try:
            if self.closed:
                return self._exchange(request, await self._exited(), anomaly_mark, stderr_mark, waiter, headers)
            try:
                await self.transport.send(encode(request), headers)
            except TransportClosed:
                return self._exchange(request, await self._exited(), anomaly_mark, stderr_mark, waiter, headers)
            waiter.written, waiter.written_at = self._written, time.monotonic()
            self._written += 1
            with trio.move_on_after(timeout):
                await waiter.event.wait()
            if waiter.message is not None and self.transport.exchange_per_request:
                with trio.move_on_after(min(SETTLE_SECONDS, max(0.0, started + timeout - time.monotonic()))):
                    await waiter.ended.wait()
            if waiter.message is not None:
                reply: Reply = Answered(waiter.message, waiter.answered_at - started, waiter.status)
            elif waiter.undelivered is not None:
                reply = NotDelivered(waiter.undelivered, waiter.answered_at - started)
            elif self.closed:
                reply = await self._exited()
            else:
                reply = NoAnswer(timeout, overtaken=self._latest_written_answered > waiter.written)
                self.transport.abandon(request["id"])
            return self._exchange(request, reply, anomaly_mark, stderr_mark, waiter, headers)
        finally:
            del self._waiters[key]
            self._remember_finished(key, answered=waiter.message is not None)

    def presumed_dropped(self, *, unanswered_for: float) -> int:
        """How many requests in flight the target seems to have dropped: written over
        `unanswered_for` seconds ago and unanswered, while a request written after them was
        answered (so the target is serving, and not them)."""
        now = time.monotonic()
        return sum(
            1 for waiter in self._waiters.values()
            if waiter.message is None and 0 <= waiter.written < self._latest_written_answered
            and now - waiter.written_at > unanswered_for
        )

    async def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "method": method}
        if params is not None:
            message["params"] = params
        try:
            await self.transport.send(encode(message))
        except TransportClosed:
            pass

    def _exchange(
        self, request: dict[str, Any], reply: Reply, anomaly_mark: int, stderr_mark: int, waiter: _Waiter, headers: HeaderOverrides
    ) -> Exchange:
        return Exchange(
            request=request,
            reply=reply,
            anomalies=tuple(waiter.anomalies + self._anomalies[anomaly_mark:]),
            stderr=self.transport.stderr_since(stderr_mark),
            headers=headers,
        )

    async def _exited(self) -> TargetExited:
        with trio.move_on_after(0.5):
            await self.transport.wait()
        return TargetExited(self.transport.returncode)

    def _undelivered(self, item: Undelivered) -> None:
        waiter = self._waiters.get(id_key(item.request_id))
        if waiter is not None:
            waiter.ended.set()
        if waiter is not None and waiter.message is None and waiter.undelivered is None:
            waiter.undelivered = item.detail
            waiter.answered_at = time.monotonic()
            waiter.event.set()

    async def _dispatch(
        self, incoming: Response | ServerRequest | Notification | Garbage, origin: _Waiter | None = None, status: int | None = None
    ) -> None:
        """`origin` is the waiter whose HTTP exchange carried the message, when known: an
        anomaly is then recorded for that request alone."""
        anomalies = origin.anomalies if origin is not None else self._anomalies
        if isinstance(incoming, Response):
            key = id_key(incoming.id)
            waiter = self._waiters.get(key)
            if waiter is not None and waiter.message is None:
                waiter.message = incoming.message
                waiter.status = status
                waiter.answered_at = time.monotonic()
                waiter.event.set()
                self._latest_written_answered = max(self._latest_written_answered, waiter.written)
            elif waiter is not None or self._finished.get(key):
                anomalies.append(Anomaly(AnomalyKind.DUPLICATE_ANSWER, show(incoming.message, 2000), own=origin is not None))
                self._finished[key] = True
            elif key in self._finished:
                anomalies.append(Anomaly(AnomalyKind.LATE_ANSWER, show(incoming.message, 2000), own=origin is not None))
                self._finished[key] = True
            else:
                anomalies.append(Anomaly(AnomalyKind.STRAY_ANSWER, show(incoming.message, 2000), own=origin is not None))
        elif isinstance(incoming, ServerRequest):
            await self._answer_server_request(incoming)
        elif isinstance(incoming, Notification):
            self.notifications_seen += 1
        else:
            anomalies.append(Anomaly(AnomalyKind.GARBAGE, f"{incoming.text} ({incoming.reason})", own=origin is not None))

    async def _answer_server_request(self, request: ServerRequest) -> None:
        """The harness declares no client capabilities, so it answers `ping` and refuses the rest."""
        if request.method == "ping":
            answer: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "id": request.id, "result": {}}
        else:
            answer = {
                "jsonrpc": JSONRPC_VERSION,
                "id": request.id,
                "error": {"code": METHOD_NOT_FOUND, "message": f"mcp-toolfuzz does not support {request.method}"},
            }
        try:
            await self.transport.send(encode(answer))
        except TransportClosed:
            pass

    def _remember_finished(self, key: str, *, answered: bool) -> None:
        self._finished[key] = answered
        if len(self._finished) > _FINISHED_IDS_KEPT:
            self._finished.popitem(last=False)

