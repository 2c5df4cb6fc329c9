"""Why an exploration, or the whole run, stops before its search is done: raised in a phase's
worker thread, caught by the scheduler and the run, which keep what was found. And the one
clock conversion they share."""

from __future__ import annotations

import time

import trio


class TargetLost(Exception):
    """The target died and could not be restarted."""


class OutOfTime(BaseException):
    """--max-time is reached. A BaseException, so that Hypothesis stops at once instead of
    treating it as a failure to shrink."""


class ShareSpent(BaseException):
    """This exploration's share of --max-time is spent: it stops (keeping what it found) and the
    run goes on with the next one."""


class NothingNew(BaseException):
    """This exploration's recent batches held no case it had not sent already: it stops (its
    tool's arguments take a handful of values, all sent), and the run goes on with the next.
    Raised only while it has found nothing (never while Hypothesis shrinks)."""


def on_trio_clock(deadline: float) -> float:
    """A deadline on time.monotonic's clock (which the worker thread reads) on trio's clock."""
    return trio.current_time() + (deadline - time.monotonic())
