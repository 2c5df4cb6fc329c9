"""Finished Hypothesis runs freed when they end, not at CPython's next full collection."""

from __future__ import annotations

import gc
import time

COLLECT_EVERY = 0.3
"""Seconds between two collections by `collect_finished_runs`, at least."""
_last_collection = [0.0]
_collecting = [False]


def collect_runs_when_they_end() -> None:
    """Let `collect_finished_runs` collect in this process and those forked from it.

    The command line does. The pytest plugin leaves the user's process to its own collector: a full
    collection of a test suite's heap can take a noticeable while.
    """
    _collecting[0] = True


def collect_finished_runs() -> None:
    """Free what the Hypothesis runs that ended hold, now.

    This is a full collection of the cyclic garbage. It happens at most every `COLLECT_EVERY`
    seconds, and only where `collect_runs_when_they_end` was called. Call it when a run ends.

    Why: a Hypothesis run's engine and its test state refer to each other
    (`StateForActualGivenExecution._runner`, `ConjectureRunner._test_function`). The engine holds
    the tree of every choice the run made, which is large. Because of the cycle, a full collection
    frees it when the run ends, and its count of references never does. CPython makes a full
    collection only once a quarter more objects have grown old than survived the last. Collecting
    here lowers the peak memory of a run, and the calls per second stay the same. Most of a
    collection's time goes to freeing what the runs left.
    """
    now = time.monotonic()
    if not _collecting[0] or now - _last_collection[0] < COLLECT_EVERY:
        return
    _last_collection[0] = now
    gc.collect()
