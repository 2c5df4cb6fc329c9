"""Fresh targets for the sequence phase, one at hand whenever a sequence begins.

On a target that keeps state (`fuzz.engine.phases.state_probe`), each sequence starts from a
target no other sequence touched; Hypothesis runs hundreds of them (its shrinking most), and a
restart of a Python server over stdio costs about 40 ms: most of the phase's time. So, once the
phase knows it will restart (`ahead`), spares are started beside the target in use while the
sequences run, and the oldest is swapped in when the next one begins (another is started in its
place); the old one is closed in the background. Until then none is started ahead: a phase that
finds no state restarts once (its probe) and keeps no spare alive. A target given by URL is never
restarted (there is one server), nor one slow to start (`CHEAP_START`): `fresh` gives the same
one, and `on_its_own` starts a copy for one use.
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
"""Seconds: a target that starts (spawned, handshake, tools listed) within this is restarted
for each sequence that follows one that may have changed its state. One that takes longer (an
`mcp` SDK server takes 0.5 to 1 s) is not: a restart per sequence would cost more than all the
other phases together, so its sequences share it, as they share a target given by URL, and touch
only what they created (their reused values come from their own answers)."""

SPARES = 2
"""Targets started ahead of the sequences that will need them, on a target that keeps state. A sequence of a few calls takes
a few milliseconds, and a start tens: with one spare, the phase waited for each start in turn.
Starts are mostly the target's own work (a Python server's interpreter and imports), which a
second core does beside the first. The notes test server (`--phases sequence --max-examples 30
--seed 2`: 1,324 starts, most of them for shrinking): 66.9 s with one spare, 43.6 s with two,
the same CPU time (one run each, on this project's 2-core machine). The cost: one more copy of
the target alive while the phase runs."""


@dataclass(slots=True)
class _Spare:
    """A target being started ahead (`ready` once it has, or has failed to)."""

    ready: trio.Event
    target: Target | None = None
    failed: HarnessError | None = None


class FreshTargets:
    """The target in use and its spares, in `nursery` (which must outlive them: `aclose` first)."""

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
        """Whether sequences get a fresh target each: a stdio target that starts in `CHEAP_START`."""
        self.ahead = 0
        """Spares to keep starting ahead (`SPARES` once the phase knows it will restart often);
        taken up at the next `fresh`."""

    @property
    def can_start_copies(self) -> bool:
        """Whether a fresh copy can be had at all (in place, or `on_its_own`): not by URL."""
        return not isinstance(self._spec, HttpTarget)

    async def start(self) -> Target:
        """The first target (raises TargetStartError when it does not start)."""
        began = time.monotonic()
        self.current = await self._started()
        self.start_seconds = time.monotonic() - began
        self.restartable = self.can_start_copies and self.start_seconds <= CHEAP_START
        return self.current

    async def fresh(self) -> Target:
        """A target no sequence has touched: the oldest spare, or one started now, once it has
        started (the same target when it is not `restartable`, or once closing: the phase is over)."""
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
        """`use` of a copy of the target started for it alone, then closed (a try on a fresh
        target when the phase's own is not restarted; never by URL: `can_start_copies`)."""
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
