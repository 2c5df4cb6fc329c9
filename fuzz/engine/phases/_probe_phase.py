"""Phases that run one probe of their own on a copy of the target: the task phase, the rounds phase.

Their requests may leave a server changed (a cancelled task, a tampered `requestState`), so they
must not cost the other phases their target. A target given by URL is the one server: it is then
shared. A copy that cannot start (a server that allows one copy at a time) makes the phase a skip
that says why, not the run's end.
"""

from __future__ import annotations

import time
from typing import ClassVar, Protocol

import trio

from fuzz.engine.jobs import Job, Outcome
from fuzz.engine.phases._phase import Phase
from fuzz.engine.stops import on_trio_clock
from fuzz.errors import HarnessError, first_leaf
from fuzz.wire.target import Target, open_target


class Probe(Outcome, Protocol):
    """What a probe phase runs: an outcome that fills itself in by talking to a target."""

    skip: str | None
    out_of_time: bool
    seconds: float

    async def run(self, target: Target, *, timeout: float) -> None: ...


class ProbePhase(Phase):
    """A phase whose one job runs `probe()` on a copy of the target of its own."""

    on_its_own_target = True
    named: ClassVar[str]
    """The phase's name in a skip's words: "the task phase"."""

    def probe(self) -> Probe:
        raise NotImplementedError

    async def run(self, job: Job, share_deadline: float) -> None:
        context, options = self.context, self.context.options
        probe = self.probe()
        started = time.monotonic()
        with trio.move_on_at(on_trio_clock(min(share_deadline, context.deadline))) as scope:
            try:
                async with open_target(
                    options.target,
                    startup_timeout=options.startup_timeout,
                    protocol_version=context.protocol_version,
                    max_message_bytes=options.max_answer_size,
                ) as target:
                    await probe.run(target, timeout=options.timeout)
            except* HarnessError as group:  # the copy's nursery wraps it
                probe.skip = f"{self.named}'s copy of the target failed: {first_leaf(group)}"
        probe.out_of_time = scope.cancelled_caught
        probe.seconds = time.monotonic() - started
        job.outcome = probe
