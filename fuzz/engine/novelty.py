"""Whether an exploration's batches still bring cases it has not sent.

Hypothesis's own generation repeats batches. `strategies._hypothesis.fresh_generation` says how, and
how the explorations' tests avoid it. What is left is a tool with few values to send.
"""

from __future__ import annotations

from collections.abc import Sequence

from strategies import Case

STALE_BATCHES = 16
"""Batches in a row without a new case, after which the exploration has none left.

See `Novelty`.
"""

TRACKED = 4096
"""Distinct cases an exploration tracks at most: one that sent more has more to send."""


class Novelty:
    """Whether an exploration's batches still bring cases it has not sent.

    Some tools' arguments take only a handful of values: an enum, or a small integer range. Such a
    tool has sent them all within a few batches, and Hypothesis cannot tell. Hypothesis tells
    batches apart, and the same few cases in another order make a new batch to it. So on the demo's
    `lookup`, which takes one of three cities, almost every valid case drawn was a repeat. Each case
    is kept in memory as one hash, up to TRACKED.
    """

    def __init__(self) -> None:
        self._seen: set[int] | None = set()
        self._stale = 0

    def exhausted_after(self, batch: Sequence[Case]) -> bool:
        """Count `batch` in; True when it and the STALE_BATCHES - 1 before it held nothing new."""
        if self._seen is None:
            return False
        before = len(self._seen)
        self._seen.update(hash((repr(case.params), case.headers, case.own_meta)) for case in batch)
        if len(self._seen) > TRACKED:
            self._seen = None
            return False
        self._stale = 0 if len(self._seen) > before else self._stale + 1
        return self._stale >= STALE_BATCHES
