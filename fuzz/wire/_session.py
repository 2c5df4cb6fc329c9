"""A JSON-RPC client over a transport, built for targets that misbehave.

Several requests may be in flight at once, and each waits on its own id.
Answers are matched by id, whatever order they come in.
Notifications and server requests may come between them.

What comes back is always an `Exchange`, never an exception.
It holds the exact request and the reply.
It also holds anything odd seen meanwhile, and the stderr written meanwhile.
No answer within the timeout is a reply like any other, for the oracle to judge.
So is a target that exited.
"""

from __future__ import annotations

import contextlib
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import trio

from fuzz.text import show
from fuzz.wire._server_requests import ServerRequestAnswers
from fuzz.wire._transport import Carried, Transport, TransportClosed, Undelivered
from fuzz.wire._waiting import Batch, Marks, Waiter
from fuzz.wire.framing import ENDLESS_FACTOR, Oversized
from fuzz.wire.jsonrpc import (
    JSONRPC_VERSION,
    MAX_DEPTH,
    Garbage,
    Notification,
    Response,
    ServerRequest,
    Unreadable,
    encode,
    id_key,
    parse_line,
)
from fuzz.wire.replies import (
    Anomaly,
    AnomalyKind,
    Answered,
    Exchange,
    NoAnswer,
    NotDelivered,
    Reply,
    TargetExited,
    UnreadableAnswer,
)
from strategies.meta import HeaderOverrides

_FINISHED_IDS_KEPT = 10_000

_ANOMALIES_KEPT = 2_000
"""How many odd messages on the shared stream are kept for the requests in flight.

Beyond it, the older half goes.
Otherwise a server writing a log line to stdout per call would grow it for the whole run."""

SETTLE_SECONDS = 1.0
"""After an answer over HTTP, how long to wait for the rest of its response.

A server should end the stream after the answer.
A second answer in the same SSE stream is a finding."""


class Session:
    """A JSON-RPC client session with one target, over one transport.

    Call `serve` in a nursery, then `request`.
    `serve` reads until the target closes stdout."""

    def __init__(self, transport: Transport, *, max_depth: int = MAX_DEPTH) -> None:
        self.transport = transport
        self._max_depth = max_depth
        self._next_id = 0
        self._waiters: dict[str, Waiter] = {}
        transport.track_requests(self._waiters)  # each stderr line notes what was in flight
        self._finished: OrderedDict[str, bool] = OrderedDict()
        """Ids whose exchange is over, each with whether an answer had come by then."""
        self._anomalies: list[Anomaly] = []
        """What was odd on the shared stream: the latest of it, see `_ANOMALIES_KEPT`."""
        self._anomalies_dropped = 0
        self._closed = trio.Event()
        self.long_lines_end = True  # `Target.long_lines_end`
        self.tools_changed = 0  # `notifications/tools/list_changed` seen: the sequence phase lists the tools again
        self._written = 0
        self._latest_written_answered = -1
        self.closing = False
        """Set by the harness before it closes the target, as for a restart.

        The end of the stream is then the harness's doing, not the target's."""
        self._ended_by_harness = False
        self._told_oversized = False
        """The oversized line now being read on the shared stream was already told.

        It was given to some request as its answer, or noted."""
        self.server_requests = ServerRequestAnswers(transport)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    @property
    def anomalies_seen(self) -> tuple[Anomaly, ...]:
        """What was odd on the shared stream so far, in or out of any request's exchange.

        Only the latest `_ANOMALIES_KEPT` are kept.
        It tells what a target printed before the first request was written."""
        return tuple(self._anomalies)

    @property
    def blocked(self) -> bool:
        """Whether a message past the size limit is being read on the shared stream.

        If so, the target is still writing."""
        return self.transport.blocked_since is not None

    def blocked_for(self) -> float:
        """How long a message past the size limit has held the shared stream.

        0 when no such message holds it."""
        since = self.transport.blocked_since
        return 0.0 if since is None else time.monotonic() - since

    async def stream_frees(self, *, within: float, to_its_end: bool = True) -> bool:
        """Wait for an oversized message holding the stream to end; True when it ends.

        It returns False if the message goes on for `within` seconds.
        It also returns False past `ENDLESS_FACTOR` times the limit, unless `to_its_end`.
        On False, restart the target to hear it again."""
        transport = self.transport
        if transport.blocked_since is None:
            return True
        cap = float("inf") if to_its_end else ENDLESS_FACTOR * transport.max_message_bytes  # (`Target.long_lines_end`)
        with trio.move_on_after(within):
            while transport.blocked_since is not None and transport.blocked_bytes < cap and not self.closed:
                await trio.sleep(0.01)
        return transport.blocked_since is None or self.closed

    async def serve(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.transport.background)
            nursery.start_soon(self.server_requests.run)
            transport = self.transport
            try:
                async for item in transport.incoming():
                    if isinstance(item, Undelivered):
                        self._undelivered(item)
                        continue
                    origin = self._waiters.get(id_key(item.request_id)) if isinstance(item, Carried) else None
                    status = item.status if isinstance(item, Carried) else None
                    for incoming in parse_line(item.data if isinstance(item, Carried) else item, self._max_depth, transport.max_message_bytes):
                        if isinstance(incoming, ServerRequest):
                            self.server_requests.queue(incoming)
                        elif isinstance(incoming, Unreadable):
                            self._unreadable(incoming, origin, item)
                        else:
                            self._dispatch(incoming, origin, status)
            finally:
                self._ended_by_harness = self.closing
                self._closed.set()
                self.server_requests.close()
                for waiter in self._waiters.values():
                    waiter.wake()

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    async def request(self, method: str, params: Any = None, *, timeout: float) -> Exchange:
        def build(request_id: int) -> dict[str, Any]:
            message: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "id": request_id, "method": method}
            if params is not None:
                message["params"] = params
            return message

        return await self.send_request(build, timeout=timeout)

    async def send_request(self, build: Callable[[int], dict[str, Any]], *, timeout: float, headers: HeaderOverrides = ()) -> Exchange:
        """Send `build(id)` with a fresh id, and wait up to `timeout` seconds for its answer.

        `headers` are HTTP header values sent instead of those the request implies."""
        (exchange,) = await self.send_requests([build], timeout=timeout, headers=[headers])
        return exchange

    async def send_requests(
        self,
        builds: Sequence[Callable[[int], dict[str, Any]]],
        *,
        timeout: float,
        headers: Sequence[HeaderOverrides] | None = None,
        on_end: Callable[[], None] | None = None,
    ) -> list[Exchange]:
        """Send each `builds[i](id)` at once, and wait up to `timeout` seconds for the answers.

        The ids are fresh, and given in order.
        `headers[i]` are HTTP header values sent instead of those request i implies.
        `on_end()` is called as each request's exchange ends.
        So a caller counting requests in flight sees each leave when it is answered.
        It does not have to wait for the slowest.

        On a shared stream (stdio), the requests go out in one write.
        They are waited on together.
        That costs one system call and one wake-up of the target per batch, not per request.
        What odd came on the stream until the batch's last answer is in each request's exchange.
        It may be any in-flight request's doing, as with requests sent concurrently.
        To know whose it was, the dispatcher re-sends such a request alone.

        Over HTTP, each request is a POST of its own, in a task of its own."""
        overrides = list(headers) if headers is not None else [()] * len(builds)
        requests = [build(self._new_id()) for build in builds]
        per_request = self.transport.exchange_per_request
        shared = Batch(len(requests), on_end)
        waiters = [Waiter(Batch(1, on_end) if per_request else shared) for _ in requests]
        keys = [id_key(request["id"]) for request in requests]
        for key, waiter in zip(keys, waiters, strict=True):
            self._waiters[key] = waiter
        marks = Marks(self._anomalies_dropped + len(self._anomalies), self.transport.stderr_mark, time.monotonic())
        try:
            if not per_request:
                return await self._exchange_together(requests, waiters, timeout, marks)
            exchanges: list[Exchange | None] = [None] * len(requests)

            async def exchange_one(index: int) -> None:
                try:
                    exchanges[index] = await self._exchange_one(requests[index], waiters[index], overrides[index], timeout, marks)
                finally:
                    waiters[index].end()

            if len(requests) == 1:
                await exchange_one(0)
            else:
                async with trio.open_nursery() as nursery:
                    for index in range(len(requests)):
                        nursery.start_soon(exchange_one, index)
            return [exchange for exchange in exchanges if exchange is not None]
        finally:
            for key, waiter in zip(keys, waiters, strict=True):
                self._waiters.pop(key, None)
                self._remember_finished(key, answered=waiter.message is not None)
                waiter.end()
            if len(self._anomalies) > _ANOMALIES_KEPT:
                cut = len(self._anomalies) // 2
                del self._anomalies[:cut]
                self._anomalies_dropped += cut

    async def _exchange_together(self, requests: list[dict[str, Any]], waiters: list[Waiter], timeout: float, marks: Marks) -> list[Exchange]:
        if await self._write(b"".join(map(encode, requests)), waiters):
            with trio.move_on_after(timeout):
                await waiters[0].batch.done.wait()
        return [
            self._exchange(request, await self._reply(request, waiter, timeout, marks), marks, waiter, ())
            for request, waiter in zip(requests, waiters, strict=True)
        ]

    async def _exchange_one(self, request: dict[str, Any], waiter: Waiter, headers: HeaderOverrides, timeout: float, marks: Marks) -> Exchange:
        if await self._write(encode(request), [waiter], headers):
            with trio.move_on_after(timeout):
                await waiter.batch.done.wait()
            if waiter.message is not None:
                with trio.move_on_after(min(SETTLE_SECONDS, max(0.0, marks.started + timeout - time.monotonic()))):
                    await waiter.ended.wait()
        return self._exchange(request, await self._reply(request, waiter, timeout, marks), marks, waiter, headers)

    async def _write(self, data: bytes, waiters: list[Waiter], headers: HeaderOverrides = ()) -> bool:
        """Write `data`, the requests of `waiters`, unless the target is gone.

        Returns True when written.
        Each waiter is then given its place in the order of writing."""
        if self.closed:
            return False
        try:
            await self.transport.send(data, headers)
        except TransportClosed:
            return False
        now = time.monotonic()
        for waiter in waiters:
            waiter.written, waiter.written_at = self._written, now
            self._written += 1
        return True

    async def _reply(self, request: dict[str, Any], waiter: Waiter, timeout: float, marks: Marks) -> Reply:
        if waiter.message is not None:
            return Answered(waiter.message, waiter.answered_at - marks.started, waiter.status)
        if waiter.unreadable is not None:
            return UnreadableAnswer(waiter.unreadable.reason, waiter.unreadable.text, waiter.answered_at - marks.started)
        if waiter.undelivered is not None:
            return NotDelivered(waiter.undelivered, waiter.answered_at - marks.started)
        if self.closed or waiter.written < 0:
            return await self._exited()
        self.transport.abandon(request["id"])
        return NoAnswer(timeout, overtaken=self._latest_written_answered > waiter.written, held_up=waiter.held_up or self.blocked_for() >= timeout)

    def presumed_dropped(self, *, unanswered_for: float) -> int:
        """How many requests in flight the target seems to have dropped.

        Such a request was written over `unanswered_for` seconds ago, and is unanswered.
        Meanwhile a request written after it was answered.
        So the target is serving, but not serving them."""
        now = time.monotonic()
        return sum(
            1
            for waiter in self._waiters.values()
            if waiter.message is None and 0 <= waiter.written < self._latest_written_answered and now - waiter.written_at > unanswered_for
        )

    async def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "method": method}
        if params is not None:
            message["params"] = params
        with contextlib.suppress(TransportClosed):
            await self.transport.send(encode(message))

    def _exchange(self, request: dict[str, Any], reply: Reply, marks: Marks, waiter: Waiter, headers: HeaderOverrides) -> Exchange:
        shared = self._anomalies[max(0, marks.anomalies - self._anomalies_dropped) :]
        return Exchange(
            request=request,
            reply=reply,
            anomalies=tuple(waiter.anomalies + shared),
            stderr=self.transport.stderr_since(marks.stderr, request=id_key(request["id"])),
            headers=headers,
        )

    async def _exited(self) -> TargetExited:
        with trio.move_on_after(0.5):
            await self.transport.wait()
        return TargetExited(self.transport.returncode, closed_by_harness=self._ended_by_harness)

    def _undelivered(self, item: Undelivered) -> None:
        waiter = self._waiters.get(id_key(item.request_id))
        if waiter is not None:
            waiter.ended.set()
        if waiter is not None and waiter.message is None and waiter.undelivered is None:
            waiter.undelivered = item.detail
            waiter.answered_at = time.monotonic()
            waiter.wake()

    def _dispatch(self, incoming: Response | Notification | Garbage, origin: Waiter | None = None, status: int | None = None) -> None:
        """Hand a readable message to the request it answers, or note it as an anomaly.

        `origin` is the waiter whose HTTP exchange carried the message, when known.
        An anomaly is then recorded for that request alone."""
        anomalies = origin.anomalies if origin is not None else self._anomalies
        if isinstance(incoming, Response):
            key = id_key(incoming.id)
            waiter = self._waiters.get(key)
            if waiter is not None and waiter.message is None:
                waiter.message = incoming.message
                waiter.status = status
                self._answered(waiter)
            elif waiter is not None or self._finished.get(key):
                anomalies.append(Anomaly(AnomalyKind.DUPLICATE_ANSWER, show(incoming.message, 2000), own=origin is not None))
                self._finished[key] = True
            elif key in self._finished:
                anomalies.append(Anomaly(AnomalyKind.LATE_ANSWER, show(incoming.message, 2000), own=origin is not None))
                self._finished[key] = True
            else:
                anomalies.append(Anomaly(AnomalyKind.STRAY_ANSWER, show(incoming.message, 2000), own=origin is not None))
        elif isinstance(incoming, Notification):
            self.tools_changed += incoming.method == "notifications/tools/list_changed"
        else:
            anomalies.append(Anomaly(AnomalyKind.GARBAGE, f"{incoming.text} ({incoming.reason})", own=origin is not None))

    def _unreadable(self, incoming: Unreadable, origin: Waiter | None, item: object) -> None:
        """Find whose answer an unreadable message is, and give it to that request.

        It is the answer of the request whose id it shows.
        Over HTTP, it is the answer of the request whose exchange carried it.
        With no id to read, it goes to the one request awaiting an answer, if only one is.
        Otherwise it is noted on the shared stream for the requests in flight.

        An oversized line on the shared stream comes twice.
        It comes as the limit is passed, and again at its end.
        It is told at the first if its beginning shows whose it is.
        Otherwise it is told at its end."""
        frame = item.data if isinstance(item, Carried) else item
        if isinstance(frame, Oversized) and frame.endless:
            self._held_up_by_endless_line()
        elif origin is not None or not isinstance(frame, Oversized):
            self._tell_unreadable(incoming, origin, final=True)
        elif not frame.ended:
            self._told_oversized = self._tell_unreadable(incoming, None, final=False)
        elif self._told_oversized:
            self._told_oversized = False
        else:
            self._tell_unreadable(incoming, None, final=True)

    def _held_up_by_endless_line(self) -> None:
        """A line that seems never to end holds the stream: wake the requests it holds up.

        Nothing is done when such lines are read to their end (`long_lines_end`)."""
        for waiter in self._waiters.values():
            if not self.long_lines_end and waiter.message is None and waiter.unreadable is None and waiter.written >= 0:
                waiter.held_up = True
                waiter.wake()
                waiter.end()

    def _tell_unreadable(self, incoming: Unreadable, origin: Waiter | None, *, final: bool) -> bool:
        """Give `incoming` to the request it answers, or note it.

        Returns False when that must wait for more of the message.
        That happens when not `final`, and whose it is cannot be told yet."""
        waiter = origin
        if waiter is None and incoming.request_id is not None:
            waiter = self._waiters.get(id_key(incoming.request_id))
            if waiter is None:
                reason = f"{incoming.reason}, answering id {show(incoming.request_id, 80)}, which no request in flight has"
                self._dispatch(Garbage(incoming.text, reason))
                return True
        if waiter is None:
            waiting = [w for w in self._waiters.values() if w.message is None and w.unreadable is None and w.written >= 0]
            if len(waiting) != 1 and not final:
                return False
            if len(waiting) == 1:
                waiter = waiting[0]
                incoming = Unreadable(None, f"{incoming.reason}; its id could not be read, and this was the one request awaiting an answer", incoming.text)
        if waiter is None or waiter.message is not None or waiter.unreadable is not None:
            self._anomalies.append(Anomaly(AnomalyKind.UNREADABLE, f"{incoming.text} ({incoming.reason})", own=origin is not None))
            return True
        waiter.unreadable = incoming
        self._answered(waiter)
        return True

    def _answered(self, waiter: Waiter) -> None:
        """An answer came for `waiter`, readable or not: it waits no more.

        On the shared stream, its exchange is then over too."""
        waiter.answered_at = time.monotonic()
        waiter.wake()
        if not self.transport.exchange_per_request:
            waiter.end()
        self._latest_written_answered = max(self._latest_written_answered, waiter.written)

    def _remember_finished(self, key: str, *, answered: bool) -> None:
        self._finished[key] = answered
        if len(self._finished) > _FINISHED_IDS_KEPT:
            self._finished.popitem(last=False)
