"""The scheduler's unit of work, and what comes of it.

A job is one plan entry's case kind, in one round, run by the phases that take it. Its outcome is what
those phases sent, found and spent, as the tool's summary takes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

from fuzz.engine.phases.deterministic import NO_VERDICTS, Canonical, CanonicalVerdicts
from fuzz.engine.plan import Unit
from fuzz.judging.findings import Finding
from strategies import CaseKind, Tool


class Outcome(Protocol):
    """What a job's phases sent, found and spent, as its tool's summary takes it."""

    @property
    def name(self) -> str: ...
    @property
    def tool(self) -> Tool | None: ...
    @property
    def kind(self) -> CaseKind: ...
    @property
    def round(self) -> int: ...

    findings: list[Finding]
    """Its findings; the scheduler replaces them with the ones it keeps."""

    @property
    def sent(self) -> int: ...
    @property
    def skip(self) -> str | None: ...
    @property
    def seconds(self) -> float: ...
    @property
    def answers(self) -> dict[str, int]: ...
    @property
    def refused_fields(self) -> dict[str, int]: ...
    @property
    def accepted(self) -> list[dict[str, Any]]: ...
    @property
    def out_of_time(self) -> bool: ...
    @property
    def share_spent(self) -> bool: ...
    @property
    def unsatisfiable(self) -> bool: ...
    @property
    def conclusion(self) -> str | None: ...

    @property
    def lost(self) -> str | None:
        """Why the target was lost for good, if it was."""
        ...

    @property
    def verdicts(self) -> CanonicalVerdicts:
        """What the job's next round keeps of this one (`Job.next_round`)."""
        ...

    def conclude(self) -> None:
        """Settle the findings once every phase of the job ran; called in a worker thread."""
        ...


@dataclass
class Untried:
    """An outcome held field by field; as made, that of a job no chosen phase ran.

    Nothing sent, nothing found: its tool still has a summary, with its kinds at 0 cases. A phase
    with no search of its own fills the fields in (`fuzz.engine.phases._task_methods.TaskProbe`).
    """

    tool: Tool | None
    kind: CaseKind
    name: str
    round: int = 0
    verdicts: CanonicalVerdicts = field(default_factory=CanonicalVerdicts)
    sent: int = 0
    findings: list[Finding] = field(default_factory=list)
    skip: str | None = None
    seconds: float = 0.0
    answers: dict[str, int] = field(default_factory=dict)
    refused_fields: dict[str, int] = field(default_factory=dict)
    accepted: list[dict[str, Any]] = field(default_factory=list)
    out_of_time: bool = False
    share_spent: bool = False
    unsatisfiable: bool = False
    conclusion: str | None = None
    lost: str | None = None

    def conclude(self) -> None:
        pass


@dataclass(eq=False)
class Job:
    """One exploration to run: the plan entry at `index`, one case kind, one round."""

    index: int
    unit: Unit
    tool: Tool | None
    """The tool of a `Unit.TOOL` job; None for the others."""
    kind: CaseKind
    round: int = 0
    built_on: Job | None = None
    """The exploration that draws the valid values this one mutates.

    It is of the same round. For a later round, it is its newest round when this one is queued. It
    runs first, so that what it found the server accepts is there to mutate, whatever the
    scheduling. And a schema no value satisfies is then skipped once.
    """
    done: trio.Event = field(default_factory=trio.Event)
    outcome: Outcome | None = None
    """What the job's phases sent, found and spent; made by the first phase that runs it."""
    sent_ahead: Canonical | None = None
    """The cases a phase sent before a worker took the job, with what came of each."""
    ready: trio.Event = field(default_factory=trio.Event)
    """Set once the work done ahead of the job is done, or timed out.

    A later round has none, so it is set at once. That round keeps the first round's `earlier`.
    """
    earlier: CanonicalVerdicts = NO_VERDICTS

    def next_round(self) -> Job:
        """The job's next round: a new seed, nothing sent ahead, what this round's cases came to."""
        following = Job(self.index, self.unit, self.tool, self.kind, self.round + 1, earlier=self.outcome.verdicts if self.outcome else self.earlier)
        following.ready.set()
        return following


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
