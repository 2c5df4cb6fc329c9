"""How many cases an exploration sends at once: the random search's batch, and the boundary phase's.

The size depends on --max-examples and the transport only, never on --workers or the machine, so a
run is repeatable from its seed.
"""

from __future__ import annotations

from fuzz.engine.options import RunOptions
from fuzz.wire.target import HttpTarget

CASES_PER_EXAMPLE = 32
"""Cases in one Hypothesis example of the random search over stdio.

Over HTTP it is `CASES_PER_EXAMPLE_OVER_HTTP`. When an eighth of --max-examples is fewer, it is
that. So a short run still has several examples. The first example of an exploration's first run is
each case's simplest form (`strategies._hypothesis.fresh_generation.SIMPLEST_FIRST`).

Some of an example's cost is paid once per batch, beside its cases' draws. It covers Hypothesis's
bookkeeping: a ConjectureData, the tree of choices, the cache, the statistics. It also covers the
hand-off to trio's thread and back, the dispatcher's scopes, and one write. So larger batches make
more calls a second, at less of the harness's CPU per call. The cost is twice the requests a server
sees at once from one exploration. And a shrinking try sends the whole batch.
"""

CASES_PER_EXAMPLE_OVER_HTTP = 16
"""The batch over Streamable HTTP.

There, each request is a POST of its own, on a pool of 64 connections (`fuzz.wire._streamable_http`).
Four explorations' batches of 16 fill it. A request that waited for a connection would wait on its
--timeout.
"""


def batch_size(max_examples: int, *, over_http: bool = False) -> int:
    """Deterministic cases in flight at once for one exploration.

    It is as many as the random search's batches hold (`CASES_PER_EXAMPLE`). A short run has fewer,
    and a run of under 16 examples has one. A tool's boundary values may be a few hundred. A server
    that answers one at a time must not see them all wait its --timeout at once. And a server that
    dies among several in flight cannot say which killed it.
    """
    largest = CASES_PER_EXAMPLE_OVER_HTTP if over_http else CASES_PER_EXAMPLE
    return max(1, min(largest, max_examples // 8))


def batch_size_for(options: RunOptions, tool: str | None) -> int:
    """`batch_size` for a run's tool and target; a tool of None means the envelopes."""
    return batch_size(options.max_examples_for(tool), over_http=isinstance(options.target, HttpTarget))
