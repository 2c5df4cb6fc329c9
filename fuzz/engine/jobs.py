"""The scheduler's unit of work: one exploration of one tool's case kind, in one round."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import trio

from fuzz.engine.phases.boundary import NO_VERDICTS, Canonical, CanonicalVerdicts
from strategies import CaseKind, Tool

if TYPE_CHECKING:
    from fuzz.engine.phases.random_search import Exploration
    from fuzz.engine.phases.sequences import SequenceExploration


@dataclass(eq=False)
class Job:
    """One exploration to run: the tool at `index` in the plan, one case kind, one round."""

    index: int
    tool: Tool | None
    kind: CaseKind
    round: int = 0
    built_on: Job | None = None
    """The exploration that draws the valid values this one mutates.

    It is of the same round. For a later round, it is its newest round when this one is queued. It
    runs first, so that what it found the server accepts is there to mutate, whatever the
    scheduling. And a schema no value satisfies is then skipped once.
    """
    done: trio.Event = field(default_factory=trio.Event)
    exploration: Exploration | SequenceExploration | None = None
    canonical: Canonical | None = None
    canonical_sent: trio.Event = field(default_factory=trio.Event)
    """Set once its canonical cases have been sent and answered, or timed out.

    A later round has none, so it is set at once. That round keeps the first round's `earlier`.
    """
    earlier: CanonicalVerdicts = NO_VERDICTS


_VALUES_FOR: dict[CaseKind, CaseKind] = {
    CaseKind.INVALID_ARGUMENTS: CaseKind.VALID_ARGUMENTS,
    CaseKind.INVALID_OUTPUT: CaseKind.VALID_OUTPUT,
}
"""Which kind draws the valid values each invalid kind mutates.

An invalid value is a valid one with one mutation. When no valid value exists, neither does an
invalid one, and the search for it would only repeat the same skip.
"""


def built_on(job: Job, jobs: dict[tuple[int, CaseKind], Job]) -> Job | None:
    """Of `jobs`, by tool place and case kind, the one `job` is built on.

    See `Job.built_on`.
    """
    drawing = jobs.get((job.index, _VALUES_FOR.get(job.kind, job.kind)))
    return None if drawing is job else drawing
