"""Why an exploration, or the whole run, stops before its search is done.

These are raised in a phase's worker thread. The scheduler and the run catch them, and keep what was
found. The module also holds the one clock conversion they share.
"""

from __future__ import annotations

import time

import trio


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
