"""What the harness sets on a Hypothesis test function, through attributes Hypothesis keeps private."""

from __future__ import annotations

from typing import Any


def seeded(test: Any, seed: int) -> None:
    """Run `test` from `seed`, as `@hypothesis.seed` does, but keep the example database on.

    `@seed` also turns the database off. A run must be repeatable from its seed and still try
    first the examples that failed in earlier runs.
    """
    test._hypothesis_internal_use_seed = seed


def keyed(test: Any, key: bytes) -> None:
    """Add `key` to what Hypothesis keys `test`'s examples by in the database.

    Hypothesis keys a test by its source. Every exploration runs the same source, so the key
    must also say which target, tool and case kind the examples belong to.
    """
    test._hypothesis_internal_add_digest = key
