"""Why an exploration, or the whole run, stops before its search is done.

These are raised in a phase's worker thread. The scheduler and the run catch them, and keep what was
found. The module also holds the one clock conversion they share, and `Deadlines`, which raises them.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import trio

T = TypeVar("T")


class TargetLost(Exception):
    """The target died and could not be restarted."""


class OutOfTime(BaseException):
    """--max-time is reached.

    It is a BaseException so that Hypothesis stops at once. Otherwise it would treat it as a failure
    to shrink.
    """


class ShareSpent(BaseException):
    """This exploration's share of --max-time is spent.

    It stops, keeping what it found, and the run goes on with the next one.
    """


class NothingNew(BaseException):
    """This exploration's recent batches held no case it had not sent already.

    Its tool's arguments take a handful of values, all sent. It stops, and the run goes on with the
    next. It is raised only while the exploration has found nothing, never while Hypothesis shrinks.
    """


def on_trio_clock(deadline: float) -> float:
    """A deadline on time.monotonic's clock, put on trio's clock.

    The worker thread reads time.monotonic's clock.
    """
    return trio.current_time() + (deadline - time.monotonic())


class Deadlines:
    """--max-time and a job's share of it, as a phase's worker thread meets them.

    Every call the thread makes into trio goes through `call`, cut short at the share's end, even
    while the target hangs. The flags say which deadline stopped it.
    """

    def __init__(self, deadline: float, share_deadline: float) -> None:
        self.deadline = deadline
        self.share_deadline = min(share_deadline, deadline)
        self.out_of_time = False
        self.share_spent = False

    def check(self) -> None:
        """Raise `OutOfTime` or `ShareSpent` if a deadline has passed."""
        now = time.monotonic()
        if now >= self.deadline:
            self.out_of_time = True
            raise OutOfTime()
        if now >= self.share_deadline:
            self.share_spent = True
            raise ShareSpent()

    def call(self, function: Callable[..., Awaitable[T]], *arguments: Any) -> T:
        """`await function(*arguments)` in trio, from the worker thread, cut short at the deadlines."""
        return trio.from_thread.run(self._before_deadline, function, *arguments)

    async def _before_deadline(self, function: Callable[..., Awaitable[T]], *arguments: Any) -> T:
        with trio.move_on_at(on_trio_clock(self.share_deadline)) as scope:
            return await function(*arguments)
        assert scope.cancelled_caught
        self.out_of_time = time.monotonic() >= self.deadline
        self.share_spent = not self.out_of_time
        raise OutOfTime() if self.out_of_time else ShareSpent()
