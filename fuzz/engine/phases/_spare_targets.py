"""Fresh targets for the sequence phase, one at hand whenever a sequence begins.

On a target that keeps state (`fuzz.engine.phases._state_probe`), each sequence starts from a target
no other sequence touched. Hypothesis runs hundreds of sequences, most of them while shrinking.
Restarting a server takes far longer than a sequence, so restarts would take most of the phase's
time.

So, once the phase knows it will restart (`ahead`), spares are started beside the target in use
while the sequences run. The oldest is swapped in when the next sequence begins, and another is
started in its place. The old one is closed in the background. Until then none is started ahead. A
phase that finds no state restarts once, for its probe, and keeps no spare alive.

A target given by URL is never restarted, since there is one server. Nor is one slow to start
(`CHEAP_START`). For those, `fresh` gives the same target, and `on_its_own` starts a copy for one
use.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import trio

from fuzz.errors import HarnessError, TargetStartError
from fuzz.wire.framing import DEFAULT_MAX_MESSAGE_BYTES
from fuzz.wire.target import RESTART_GRACE, HttpTarget, Target, TargetSpec

T = TypeVar("T")

CHEAP_START = 0.3
"""Seconds within which a target must start to be restarted between sequences.

Starting means spawned, handshake done, tools listed. A target that starts within this is restarted
for each sequence that follows one that may have changed its state. One that takes longer is not: an
`mcp` SDK server, for one. A restart per sequence would cost more than all the other phases
together. So its sequences share it, as they share a target given by URL. They touch only what they
created: their reused values come from their own answers.
"""

SPARES = 2
"""Targets started ahead of the sequences that will need them.

This holds on a target that keeps state. A sequence of a few calls takes far less time than a start.
With one spare, the phase waited for each start in turn. Starts are mostly the target's own work,
such as a Python server's interpreter and imports. A second core does that beside the first. So two
spares make the phase markedly faster, for the same CPU time. The cost is one more copy of the
target alive while the phase runs.
"""


@dataclass(slots=True)
class _Spare:
    """A target being started ahead; `ready` once it has started, or failed to."""

    ready: trio.Event
    target: Target | None = None
    failed: HarnessError | None = None


class SpareTargets:
    """The target in use and its spares, in `nursery`.

    The nursery must outlive them: call `aclose` first.
    """

    def __init__(
        self,
        spec: TargetSpec,
        nursery: trio.Nursery,
        *,
        startup_timeout: float,
        protocol_version: str | None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> None:
        self._spec = spec
        self._nursery = nursery
        self._startup_timeout = startup_timeout
        self._protocol_version = protocol_version
        self._max_message_bytes = max_message_bytes
        self._spares: deque[_Spare] = deque()
        self._closing = False
        self._open: set[Target] = set()
        self.current: Target
        self.start_seconds = 0.0
        self.restartable = False
        """Whether sequences get a fresh target each.

        They do with a stdio target that starts within `CHEAP_START`.
        """
        self.ahead = 0
        """Spares to keep starting ahead.

        It becomes `SPARES` once the phase knows it will restart often. It is taken up at the next
        `fresh`.
        """

    @property
    def can_start_copies(self) -> bool:
        """Whether a fresh copy can be had at all, in place or `on_its_own`.

        Not by URL.
        """
        return not isinstance(self._spec, HttpTarget)

    async def start(self) -> Target:
        """The first target (raises TargetStartError when it does not start)."""
        began = time.monotonic()
        self.current = await self._started()
        self.start_seconds = time.monotonic() - began
        self.restartable = self.can_start_copies and self.start_seconds <= CHEAP_START
        return self.current

    async def fresh(self) -> Target:
        """A target no sequence has touched, once it has started.

        It is the oldest spare, or one started now. It is the same target when it is not
        `restartable`, or once closing, when the phase is over.
        """
        if not self.restartable or self._closing:
            return self.current
        spare = self._spares.popleft() if self._spares else self._prepare_spare(queued=False)
        while len(self._spares) < self.ahead:
            self._prepare_spare()
        await spare.ready.wait()
        if spare.failed is not None or spare.target is None:
            raise TargetStartError(f"a fresh target for the next sequence did not start: {spare.failed}")
        old, self.current = self.current, spare.target
        self._nursery.start_soon(self._close, old)
        return self.current

    async def on_its_own(self, use: Callable[[Target], Awaitable[T]]) -> T:
        """`use` of a copy of the target started for it alone, then closed.

        It gives a try on a fresh target when the phase's own is not restarted. It is never used by
        URL (`can_start_copies`).
        """
        target = await self._started()
        try:
            return await use(target)
        finally:
            with trio.CancelScope(shield=True):
                await self._close(target)

    async def aclose(self) -> None:
        self._closing = True
        for target in list(self._open):
            await self._close(target)

    def _prepare_spare(self, *, queued: bool = True) -> _Spare:
        spare = _Spare(trio.Event())
        if queued:
            self._spares.append(spare)
        self._nursery.start_soon(self._start_spare, spare)
        return spare

    async def _start_spare(self, spare: _Spare) -> None:
        try:
            target = await self._started()
        except HarnessError as error:
            spare.failed = error
        else:
            if self._closing:
                await self._close(target)
            else:
                spare.target = target
        finally:
            spare.ready.set()

    async def _started(self) -> Target:
        target = Target(
            self._spec, self._nursery, startup_timeout=self._startup_timeout, protocol_version=self._protocol_version, max_message_bytes=self._max_message_bytes
        )
        self._open.add(target)
        try:
            await target.start()
        except BaseException:
            with trio.CancelScope(shield=True):  # a start cut short (Ctrl-C, the run's end) leaves no process behind
                await self._close(target)
            raise
        return target

    async def _close(self, target: Target) -> None:
        self._open.discard(target)
        await target.close_for_good(grace=RESTART_GRACE)
