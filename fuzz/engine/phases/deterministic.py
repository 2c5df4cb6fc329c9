"""Each exploration's deterministic cases: canonical cases and boundary values, and what came of them.

There are two sorts, both the same from one run to the next, with no seed. Canonical cases are the
simplest form of every shape the exploration will search. They include malformed envelopes, empty
and near-miss names, and non-object outputs. Boundary cases put each keyword of the tool's schema at
its edges, and one step past them (`strategies.boundaries`). They are made for the argument and
mirror-output kinds. The boundary phase (`fuzz.engine.phases._boundary`) sends them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fuzz.engine.dispatch import Dispatcher, Sent
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
