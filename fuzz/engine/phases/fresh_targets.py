"""Fresh targets for the sequence phase, one at hand whenever a sequence begins.

Each sequence starts from a target no other sequence touched; Hypothesis runs hundreds of them
(its shrinking most), and a restart of a Python server over stdio costs about 40 ms: most of
the phase's time. So `SPARES` spares are started beside the target in use, while the sequences
run, and the oldest is swapped in when the next one begins (another is started in its place);
the old one is closed in the background. A target given by URL is never restarted (there is
one server), nor one slow to start (`CHEAP_START`): `fresh` gives the same one.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

import trio

from fuzz.engine.dispatch import Dispatcher, Sent
from fuzz.errors import HarnessError, TargetStartError
from fuzz.wire.framing import DEFAULT_MAX_MESSAGE_BYTES
from fuzz.wire.target import RESTART_GRACE, HttpTarget, Target, TargetSpec
from strategies import Case

CHEAP_START = 0.3
"""Seconds: a target that starts (spawned, handshake, tools listed) within this is restarted
for each sequence that follows one that may have changed its state. One that takes longer (an
`mcp` SDK server takes 0.5 to 1 s) is not: a restart per sequence would cost more than all the
other phases together, so its sequences share it, as they share a target given by URL, and touch
only what they created (their reused values come from their own answers)."""

SPARES = 2
"""Targets started ahead of the sequences that will need them. A sequence of a few calls takes
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

    def __init__(self, spec: TargetSpec, nursery: trio.Nursery, *, startup_timeout: float, protocol_version: str | None,
                 max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
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

    async def start(self) -> Target:
        """The first target (raises TargetStartError when it does not start), and its spares
        when a start is cheap (`CHEAP_START`)."""
        began = time.monotonic()
        self.current = await self._started()
        self.start_seconds = time.monotonic() - began
        self.restartable = not isinstance(self._spec, HttpTarget) and self.start_seconds <= CHEAP_START
        for _ in range(SPARES if self.restartable else 0):
            self._prepare_spare()
        return self.current

    async def fresh(self) -> Target:
        """A target no sequence has touched: the oldest spare, once it has started (the same
        target when it is not `restartable`)."""
        if not self.restartable or not self._spares:  # (none once closing: the phase is over)
            return self.current
        spare = self._spares.popleft()
        self._prepare_spare()
        await spare.ready.wait()
        if spare.failed is not None or spare.target is None:
            raise TargetStartError(f"a fresh target for the next sequence did not start: {spare.failed}")
        old, self.current = self.current, spare.target
        self._nursery.start_soon(self._close, old)
        return self.current

    async def sent_alone(self, case: Case, timeout: float) -> Sent:
        """`case` sent to a target started for it alone, then closed (one try on a fresh target
        when the phase's own is not restarted)."""
        target = await self._started()
        try:
            return await Dispatcher(target, ping_timeout=timeout).alone(case, timeout=timeout)
        finally:
            with trio.CancelScope(shield=True):
                await self._close(target)

    async def aclose(self) -> None:
        self._closing = True
        for target in list(self._open):
            await self._close(target)

    def _prepare_spare(self) -> None:
        if not self.restartable or self._closing:
            return
        spare = _Spare(trio.Event())
        self._spares.append(spare)
        self._nursery.start_soon(self._start_spare, spare)

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
        target = Target(self._spec, self._nursery, startup_timeout=self._startup_timeout, protocol_version=self._protocol_version,
                        max_message_bytes=self._max_message_bytes)
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
