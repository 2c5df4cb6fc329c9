"""The boundary phase: each exploration's deterministic cases, sent before its search.

Two sorts, both the same from one run to the next (no seed):

- canonical cases: the simplest form of every shape the exploration will search (malformed
  envelopes, empty and near-miss names, non-object outputs);
- boundary cases: each keyword of the tool's schema at its edges and one step past them
  (`strategies.boundaries`), for the argument and mirror-output kinds.

They are sent in batches before the exploration takes a worker, so that what the search leaves
out (a shape the server never answers) is known before it starts and does not depend on timing;
a value among them that violates a rule is already minimal, so its finding stands unshrunk.
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
"""An exploration's deterministic cases and what came of them (those sent, when --max-time cut
the phase short)."""


@dataclass(frozen=True)
class CanonicalVerdicts:
    """What an exploration's deterministic cases came to, which its later rounds keep (they send
    no deterministic case of their own): the rules those cases violated (each finding already
    minimal, so the search does not shrink that rule again) and the shapes they got no answer
    for (not searched again)."""

    rules: frozenset[str] = frozenset()
    silent_labels: frozenset[str] = frozenset()


NO_VERDICTS = CanonicalVerdicts()
"""A first round's: it sends deterministic cases of its own."""


CASES_PER_EXAMPLE = 32
"""Cases in one Hypothesis example of the random search over stdio (`CASES_PER_EXAMPLE_OVER_HTTP`
over HTTP); an eighth of --max-examples when that is fewer, so that a short run still has several
examples (the first of an exploration's first run is each case's simplest form:
`strategies._hypothesis.fresh_generation.SIMPLEST_FIRST`).

What an example costs besides its cases' draws is paid once a batch: Hypothesis's bookkeeping
(about 330 µs: a ConjectureData, the tree of choices, the cache, the statistics), the hand-off
to trio's thread and back, the dispatcher's scopes, one write. From 8 to 16, on the demo at
the defaults: 5,640-5,831 calls a second to 6,907-7,268 (three interleaved 10 s pairs, the
same findings), the `mcp` SDK server over stdio +13-18%, over HTTP +2-6%. From 16 to 32 on the
demo: 10% less of the harness's CPU a call, 8% more calls a second (medians of four
interleaved 10 s pairs; six pairs another night: +15%). What it costs: twice the requests
a server sees at once from one exploration, and a shrinking try sends the whole batch."""

CASES_PER_EXAMPLE_OVER_HTTP = 16
"""The batch over Streamable HTTP, where each request is a POST of its own on a pool of 64
connections (`fuzz.wire.streamable_http`): four explorations' batches of 16 fill it; a request
that waited for a connection would wait on its --timeout."""


def batch_size(max_examples: int, *, over_http: bool = False) -> int:
    """Deterministic cases in flight at once for one exploration: as many as the random search's
    batches hold (`CASES_PER_EXAMPLE`, fewer for a short run, one for a run of under
    16 examples). A tool's boundary values may be a few hundred, and a server that answers one at
    a time must not see them all wait its --timeout at once; and one that dies among several in
    flight cannot say which killed it."""
    largest = CASES_PER_EXAMPLE_OVER_HTTP if over_http else CASES_PER_EXAMPLE
    return max(1, min(largest, max_examples // 8))


def batch_size_for(options: RunOptions, tool: str | None) -> int:
    """`batch_size` for a run's tool (None: the malformed envelopes) and target."""
    return batch_size(options.max_examples_for(tool), over_http=isinstance(options.target, HttpTarget))


def canonical_for(tool: Tool | None, kind: CaseKind, listed: tuple[str, ...], stateless: Stateless | None = None) -> list[Case]:
    """The canonical cases of one exploration (of its first round)."""
    return canonical_envelope_cases() if tool is None else canonical_cases(tool, kind, listed, stateless)


class BoundaryValues:
    """Each tool's boundary values, found once per schema (the valid and invalid explorations of
    a tool share them) in whichever worker thread asks first."""

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
    """Send an exploration's deterministic cases, `batch` at a time (`batch_size`), in trio, before
    the exploration takes a worker: a shape the server drops costs its timeout in the background,
    while the workers search. What came of each is appended to `sent` as it comes (so that what
    was sent before --max-time cut the phase short is judged)."""
    for start in range(0, len(cases), batch):
        sent.extend(await dispatcher.send(cases[start : start + batch], timeout=timeout, watched=False))
