"""The boundary phase: each exploration's deterministic cases, sent before its search.

There are two sorts, both the same from one run to the next, with no seed. Canonical cases are the
simplest form of every shape the exploration will search. They include malformed envelopes, empty
and near-miss names, and non-object outputs. Boundary cases put each keyword of the tool's schema at
its edges, and one step past them (`strategies.boundaries`). They are made for the argument and
mirror-output kinds.

They are sent in batches before the exploration takes a worker. So what the search leaves out, such
as a shape the server never answers, is known before it starts. It does not depend on timing. A
value among them that violates a rule is already minimal, so its finding stands unshrunk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fuzz.engine.dispatch import Dispatcher, Sent
from fuzz.engine.options import RunOptions
from fuzz.wire.target import HttpTarget
from strategies import Case, CaseKind, Tool
from strategies._hypothesis.threads import BUILDING
from strategies.boundaries import BOUNDARY_KINDS, Boundaries, boundary_cases, boundary_values
from strategies.cases import canonical_cases, canonical_envelope_cases
from strategies.meta import Stateless

Canonical = tuple[list[Case], list[Sent]]
"""An exploration's deterministic cases, and what came of them.

When --max-time cut the phase short, only those sent have an outcome.
"""


@dataclass(frozen=True)
class CanonicalVerdicts:
    """What an exploration's deterministic cases came to, kept by its later rounds.

    Later rounds send no deterministic case of their own. They keep the rules those cases violated.
    Each such finding is already minimal, so the search does not shrink that rule again. They also
    keep the shapes that got no answer, which are not searched again.
    """

    rules: frozenset[str] = frozenset()
    silent_labels: frozenset[str] = frozenset()


NO_VERDICTS = CanonicalVerdicts()
"""A first round's: it sends deterministic cases of its own."""


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

There, each request is a POST of its own, on a pool of 64 connections (`fuzz.wire.streamable_http`).
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


def canonical_for(tool: Tool | None, kind: CaseKind, listed: tuple[str, ...], stateless: Stateless | None = None) -> list[Case]:
    """The canonical cases of one exploration (of its first round)."""
    return canonical_envelope_cases() if tool is None else canonical_cases(tool, kind, listed, stateless)


class BoundaryValues:
    """Each tool's boundary values, found once per schema.

    The valid and invalid explorations of a tool share them. They are found in whichever worker
    thread asks first.
    """

    def __init__(self, known: Mapping[str, Mapping[str, Sequence[Any]]]) -> None:
        self._known = known
        self._found: dict[tuple[str, bool], Boundaries] = {}

    def cases(self, tool: Tool, kind: CaseKind) -> tuple[list[Case], int]:
        """`kind`'s boundary cases for `tool`, and how many more the bound left out."""
        if kind not in BOUNDARY_KINDS:
            return [], 0
        mirrored, side = BOUNDARY_KINDS[kind]
        with BUILDING:  # Hypothesis finds the simplest values: one thread at a time (`strategies._hypothesis.threads`)
            key = (tool.name, mirrored)
            if key not in self._found:
                self._found[key] = self._boundaries(tool, mirrored)
        boundaries = self._found[key]
        return boundary_cases(tool, kind, boundaries), (boundaries.left_out or {}).get(side, 0)

    def _boundaries(self, tool: Tool, mirrored: bool) -> Boundaries:
        if mirrored:
            check = tool.output_check
            return boundary_values(check, prefix="structuredContent") if check is not None else Boundaries()
        return boundary_values(tool.input_check, prefix="arguments", known=self._known.get(tool.name))


async def send_canonical(dispatcher: Dispatcher, cases: Sequence[Case], sent: list[Sent], *, timeout: float, batch: int) -> None:
    """Send an exploration's deterministic cases, `batch` at a time (`batch_size`).

    They are sent in trio, before the exploration takes a worker. So a shape the server drops costs
    its timeout in the background, while the workers search. What came of each is appended to `sent`
    as it comes. So what was sent before --max-time cut the phase short is judged.
    """
    for start in range(0, len(cases), batch):
        sent.extend(await dispatcher.send(cases[start : start + batch], timeout=timeout, watched=False))
