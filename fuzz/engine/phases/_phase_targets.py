"""The sequence phase's targets, as its worker thread uses them.

That is the target in use and its dispatcher, and a fresh one when asked. Every call into trio is
cut short at the phase's deadline.

Hypothesis runs the sequences in a worker thread, and the targets live in trio's. Each call crosses
over (`call`). It is cut short by --max-time, or by the phase's share of it. That raises `OutOfTime`
or `ShareSpent`, so that Hypothesis stops where it is. The flags `out_of_time` and `share_spent` say
which. A target that cannot be restarted is `lost`, and raises `TargetLost`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from fuzz.engine.dispatch import Dispatcher, Sent
from fuzz.engine.phases._spare_targets import SpareTargets
from fuzz.engine.stops import Deadlines, TargetLost
from fuzz.errors import HarnessError
from fuzz.wire.lifecycle import list_tools
from fuzz.wire.target import Target
from strategies import Case, Tool

T = TypeVar("T")


class PhaseTargets:
    """`targets`, already started, seen from the phase's worker thread.

    Calls end by `deadline` (--max-time) and `share_deadline` (the phase's share of it).
    """

    def __init__(self, targets: SpareTargets, *, timeout: float, deadline: float, share_deadline: float) -> None:
        self.targets = targets
        self.target = targets.current
        self.timeout = timeout
        self.dispatcher = Dispatcher(self.target, ping_timeout=timeout)
        self.deadlines = Deadlines(deadline, share_deadline)
        self._lost: str | None = None

    @property
    def out_of_time(self) -> bool:
        return self.deadlines.out_of_time

    @property
    def share_spent(self) -> bool:
        return self.deadlines.share_spent

    @property
    def lost(self) -> str | None:
        """Why the phase cannot go on: a fresh target did not start, or the target died for good."""
        return self._lost or self.dispatcher.lost

    def check(self) -> None:
        """Raise what stops the phase now: a lost target, --max-time, the phase's share of it."""
        if self.lost is not None:
            raise TargetLost(self.lost)
        self.deadlines.check()

    def send(self, case: Case) -> Sent:
        """`case`, alone, to the target in use."""
        sent: Sent = self.call(self._send, case)
        return sent

    def listing(self) -> list[Tool]:
        """The target in use's tools, listed again."""
        tools: list[Tool] = self.call(self._listing)
        return tools

    def restart(self) -> None:
        """A fresh target in place of the one in use (`SpareTargets.fresh`)."""
        self.call(self._restart)

    def on_a_fresh_target(self, use: Callable[[Target], Awaitable[T]]) -> T | None:
        """`use` of a target no call has touched.

        That is the next fresh target, in place of the one in use. When the phase's target is not
        restarted (`SpareTargets.restartable`), it is a copy started for this use. None for a target
        given by URL.
        """
        if not self.targets.can_start_copies:
            return None
        if self.targets.restartable:
            self.restart()
            result: T = self.call(use, self.target)
            return result
        return self.call(self.targets.on_its_own, use)  # type: ignore[no-any-return]

    def sent_on_a_fresh_target(self, cases: Sequence[Case]) -> list[Sent] | None:
        """`cases`, sent one after another to a target no call has touched.

        See `on_a_fresh_target`.
        """

        async def send(target: Target) -> list[Sent]:
            dispatcher = self.dispatcher if target is self.target else Dispatcher(target, ping_timeout=self.timeout)
            return [await dispatcher.alone(case, timeout=self.timeout) for case in cases]

        return self.on_a_fresh_target(send)

    def call(self, function: Callable[..., Any], *arguments: Any) -> Any:
        """`function(*arguments)` in trio, cut short by --max-time or the phase's share of it."""
        return self.deadlines.call(function, *arguments)

    async def _send(self, case: Case) -> Sent:
        return await self.dispatcher.alone(case, timeout=self.timeout)

    async def _listing(self) -> list[Tool]:
        return await list_tools(self.target.session, timeout=self.timeout, meta=self.target.request_meta)

    async def _restart(self) -> None:
        try:
            self.target = await self.targets.fresh()
        except HarnessError as error:
            self._lost = str(error)
            raise TargetLost(self._lost) from None
        self.dispatcher = Dispatcher(self.target, ping_timeout=self.timeout)
