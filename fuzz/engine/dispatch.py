"""One `Dispatcher` carries every request of a run to the target.

It keeps cases in flight together. It re-sends a request alone when what happened to it may be
another request's doing. It makes one restart at a time.

Several explorations send batches of cases at once on the one connection, each from its own worker
thread. Answers are matched by id. Concurrency must never change a verdict, so three things hold.

First, the target may die or stop answering ping while several requests were in flight. Then it is
restarted once, by whichever sender saw it first. Each request that was in flight is then sent again
*alone*, with nothing else in flight, before it is blamed. The sender does that (`Sent.doubtful`):
it re-sends in order, until its first finding.

Second, a request left unanswered while others were in flight may only have waited behind them. A
server that answers one request at a time does that. The exception is a request written after it
that was answered in time.

Third, what is odd on the shared stream may be any in-flight request's doing. Garbage on stdout and
an answer to no request are such things. `alone` sends such a request again with the connection to
itself, and only that verdict counts.

"Alone" is a gate. While a request is sent alone, no new request starts. It waits for those in
flight to end, except those the target seems to have dropped (`PRESUMED_DROPPED`). A server that
drops a request shape answers nothing to it for the whole --timeout. Each finding is re-sent alone,
so without this exception every alone send would wait that long, with the run stalled behind it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

import trio

from fuzz.errors import HarnessError
from fuzz.wire.replies import Exchange, NoAnswer, NotDelivered, TargetExited
from fuzz.wire.rounds import follow_rounds
from fuzz.wire.target import Target
from fuzz.wire.tasks import follow
from strategies import Case

PRESUMED_DROPPED = 1.0
"""Seconds after which an overtaken unanswered request stops blocking alone sends.

Overtaken means a later request was answered. The target is then serving others, not it.
"""

_RECHECK = 0.05
"""How often an alone send looks again whether the rest are presumed dropped."""

WAITING_WINDOW = 1.0
"""Seconds: the time constant of `Dispatcher.waiting_load`'s average."""


@dataclass(frozen=True, slots=True)
class Sent:
    """What came of one case, and what may have caused it.

    It holds the exchange, and whether the target answered ping after it, when it was left
    unanswered. It says whether other requests were in flight meanwhile. It says whether the target
    died or went silent while they were.
    """

    exchange: Exchange
    answers_ping: bool = True
    crowded: bool = False
    target_failed: bool = False
    unverifiable: bool = False
    """The target failed with others in flight, and could not be restarted.

    So this case could not be re-checked alone, and it may not be the cause. This happens with a
    server the harness did not start.
    """

    @property
    def doubtful_silence(self) -> bool:
        """Left unanswered while others were in flight, and maybe only behind them.

        It counts only when no request written after it was answered meanwhile.
        """
        reply = self.exchange.reply
        return self.crowded and isinstance(reply, NoAnswer) and not reply.overtaken

    @property
    def doubtful(self) -> bool:
        """Whether what came of it may be another in-flight request's doing.

        Silence is not counted here. The target died or went silent, or something odd came on the
        shared stream: garbage, or an answer to no request. Send it `alone` to know.
        """
        return self.crowded and not self.unverifiable and (self.target_failed or any(not anomaly.own for anomaly in self.exchange.anomalies))


def _closed_by_harness(exchange: Exchange) -> bool:
    return isinstance(exchange.reply, TargetExited) and exchange.reply.closed_by_harness


class Dispatcher:
    def __init__(self, target: Target, *, ping_timeout: float) -> None:
        self.target = target
        self._ping_timeout = ping_timeout
        self._in_flight = 0
        self._sends_started = 0
        self._alone = False
        self._alone_lock = trio.Lock()
        self._changed = trio.lowlevel.ParkingLot()
        """Where senders wait for the gate to open.

        `alone` waits here too, for the requests in flight to end. Counts change without a
        checkpoint. So a send cancelled by --max-time, or by its exploration's share, never leaves
        the gate shut.
        """
        self._restart_lock = trio.Lock()
        self.lost: str | None = None
        """Why the run cannot go on: the target could not be restarted."""
        self._waiting_since: dict[object, float] = {}
        self._load = 0.0
        self._load_at = time.monotonic()

    def waiting_long(self, *, longer_than: float) -> int:
        """How many explorations have been waiting on the target for `longer_than` seconds."""
        now = time.monotonic()
        return sum(1 for since in self._waiting_since.values() if now - since > longer_than)

    def waiting_load(self) -> float:
        """How many explorations were waiting on the target, on average lately.

        The average decays exponentially over about the last WAITING_WINDOW seconds. It is 0.5 when
        the one exploration running spends half its time waiting for answers.
        """
        self._update_load()
        return self._load

    def _update_load(self) -> None:
        now = time.monotonic()
        kept = math.exp((self._load_at - now) / WAITING_WINDOW)
        self._load = self._load * kept + len(self._waiting_since) * (1.0 - kept)
        self._load_at = now

    @contextmanager
    def _waited_on(self, watched: bool = True) -> Iterator[None]:
        """Count the send inside in `waiting_long` and `waiting_load` while it lasts.

        An exploration waits on it meanwhile.
        """
        token = object()
        if watched:
            self._update_load()
            self._waiting_since[token] = time.monotonic()
        try:
            yield
        finally:
            if watched:
                self._update_load()
                self._waiting_since.pop(token, None)

    async def send(self, batch: Sequence[Case], *, timeout: float, watched: bool = True) -> list[Sent]:
        """Send `batch` with every request in flight at once.

        Other senders' requests may be in flight too. `watched` means an exploration waits on it
        (see `waiting_long`).
        """
        with self._waited_on(watched):
            return await self._send(batch, timeout)

    async def _send(self, batch: Sequence[Case], timeout: float) -> list[Sent]:
        await self._revive(batch[0])
        generation = self.target.restarts
        started_mark, others_in_flight = await self._enter(len(batch))
        exchanges = await self._send_each(batch, timeout, counted=True)
        crowded = len(batch) > 1 or others_in_flight > 0 or self._sends_started != started_mark
        if not crowded:
            return [await self._after(batch[0], exchanges[0], generation, timeout)]
        held_up = not await self._stream_frees(timeout)
        dead = any(isinstance(exchange.reply, TargetExited) for exchange in exchanges) or self.target.session.closed
        if not dead and not held_up and any(isinstance(exchange.reply, (NoAnswer, NotDelivered)) for exchange in exchanges):
            dead = not await self.target.ping(timeout=self._ping_timeout)
        unverifiable = dead and await self._restart(generation, batch[0])
        if held_up and not dead:
            await self._restart(generation, batch[0])
        return [Sent(exchange, not dead, crowded=True, target_failed=dead, unverifiable=unverifiable) for exchange in exchanges]

    async def alone(self, case: Case, *, timeout: float) -> Sent:
        """Send `case` with nothing else in flight; restart a dead or silent target."""
        with self._waited_on():
            return await self._send_alone(case, timeout)

    async def _send_alone(self, case: Case, timeout: float) -> Sent:
        async with self._alone_lock:
            self._alone = True
            try:
                while self._in_flight > self.target.session.presumed_dropped(unanswered_for=PRESUMED_DROPPED):
                    with trio.move_on_after(_RECHECK):
                        await self._changed.park()
                await self._revive(case)
                generation = self.target.restarts
                (exchange,) = await self._send_each((case,), timeout)
                return await self._after(case, exchange, generation, timeout)
            finally:
                self._alone = False
                self._changed.unpark_all()

    async def _after(self, case: Case, exchange: Exchange, generation: int, timeout: float) -> Sent:
        """Follow up a request that was sent with nothing else in flight.

        After no answer, it asks for a ping. After death or silence, it restarts the target, so that
        the next case meets a live one. A line past the size limit that does not end holds the one
        stream. The target is restarted then too, to be heard again. It is alive, though: the
        finding is the unreadable answer, not `target-alive`.
        """
        held_up = not await self._stream_frees(timeout)
        answers_ping = True
        if not held_up and isinstance(exchange.reply, (NoAnswer, NotDelivered)) and not self.target.session.closed:
            answers_ping = await self.target.ping(timeout=self._ping_timeout)
        if isinstance(exchange.reply, TargetExited) or self.target.session.closed or not answers_ping or held_up:
            await self._restart(generation, case)
        return Sent(exchange, answers_ping)

    async def _stream_frees(self, timeout: float) -> bool:
        """Whether the line past the size limit holding the stream ends, if there is one.

        It is waited for to its end while `Target.long_lines_end` holds. A line that goes on past
        the timeout turns that off.
        """
        target = self.target
        frees = await target.session.stream_frees(within=timeout, to_its_end=target.long_lines_end)
        if not frees:
            target.long_lines_end = False
        return frees

    async def _send_each(self, batch: Sequence[Case], timeout: float, *, counted: bool = False) -> list[Exchange]:
        """Send each case of `batch` at once.

        With `counted`, `_enter` counted them in flight. Each leaves the count as its own exchange
        ends, since an alone send waits for requests, not for batches. The harness may restart the
        target for another request's sake and cut a request off. Such a request is sent once more,
        to the new process: its fate was not its own.
        """
        session, meta = self.target.session, self.target.request_meta
        exchanges = await session.send_requests(
            [partial(case.message, meta=meta) for case in batch],
            timeout=timeout,
            headers=[case.headers for case in batch],
            on_end=partial(self._leave, 1) if counted else None,
        )
        cut_off = [index for index, exchange in enumerate(exchanges) if _closed_by_harness(exchange)]
        if cut_off:
            await self._revive(batch[cut_off[0]])
            again = await self.target.session.send_requests(
                [partial(batch[index].message, meta=self.target.request_meta) for index in cut_off],
                timeout=timeout,
                headers=[batch[index].headers for index in cut_off],
            )
            for index, exchange in zip(cut_off, again, strict=True):
                exchanges[index] = exchange
        if any(case.as_task or case.inputs is not None for case in batch):
            await self._follow(batch, exchanges, timeout)
        return exchanges

    async def _follow(self, batch: Sequence[Case], exchanges: list[Exchange], timeout: float) -> None:
        """Follow each call, all at once, to its answer: the task a case sent as a task created,
        to its end (`fuzz.wire.tasks.follow`); the rounds an `input_required` answer asks for
        (`fuzz.wire.rounds.follow_rounds`)."""
        era, session, meta = self.target.task_era, self.target.session, self.target.request_meta

        async def task_of(exchange: Exchange) -> Exchange:
            return await follow(session, exchange, era, timeout=timeout, meta=meta)

        async def follow_one(index: int, case: Case) -> None:
            exchange = await task_of(exchanges[index]) if case.as_task else exchanges[index]
            exchanges[index] = await follow_rounds(session, exchange, case.inputs, timeout=timeout, then=task_of if case.as_task else None)

        async with trio.open_nursery() as nursery:
            for index, case in enumerate(batch):
                if case.as_task or case.inputs is not None:
                    nursery.start_soon(follow_one, index, case)

    async def _enter(self, count: int) -> tuple[int, int]:
        """Count `count` requests in flight, once no request is being sent alone.

        Returns the count of sends started so far, and how many other requests were in flight.
        """
        while self._alone:
            await self._changed.park()
        others = self._in_flight
        self._in_flight += count
        self._sends_started += count
        return self._sends_started, others

    def _leave(self, count: int) -> None:
        self._in_flight -= count
        self._changed.unpark_all()

    async def _revive(self, case: Case) -> None:
        """Before a send, make sure the target is alive.

        It waits for a restart in progress. It restarts a target that died since the last one. So no
        case is sent to a target already dead, nor blamed for it.
        """
        async with self._restart_lock:
            if self.target.session.closed and self.lost is None:
                await self._restart_now(case)

    async def _restart(self, generation: int, case: Case) -> bool:
        """Restart the target, unless another sender already has since `generation`.

        Returns True when this call found that the target cannot be restarted.
        """
        async with self._restart_lock:
            if self.target.restarts == generation and self.lost is None:
                return await self._restart_now(case)
            return False

    async def _restart_now(self, case: Case) -> bool:
        try:
            await self.target.restart()
        except HarnessError as error:
            self.lost = f"the target could not be restarted after {case.label} to {case.tool!r}: {error}"
            return True
        return False
